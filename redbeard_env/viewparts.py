"""What every game's table views (``redbeard_env/<game>/views.py``) share: how a seat is
named for a viewer, the common part of a replay frame, the terminal's name column, and
:class:`TableViews`, the defaults of every view (a game's views may be a module with every
view, or an instance of a subclass that overrides what the game shows its own way)."""

from __future__ import annotations

import textwrap
from typing import Callable, Sequence


def seat_label(seat: int, you: int | None) -> str:
    """``You`` for the viewer's own seat, ``player_<seat>`` for the others."""
    return "You" if seat == you else f"player_{seat}"


def frame_base(g, agents: Sequence[str], table: Callable, sorted_hand: Callable, card_name: Callable) -> dict:
    """The part of a replay frame (the whole game with every hand face up) every game has:
    the seats of the public table with their hands, the hands, the trick, scores, tricks,
    the dealer and whether the game is over; a game's ``frame`` adds its own fields."""
    seats = table(g, None, agents)["players"]
    for p in seats:
        p["hand"] = sorted_hand(g.hands[p["seat"]])
    return {"seats": seats, "hands": [sorted_hand(h) for h in g.hands],
            "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
            "scores": list(g.scores), "tricks": list(g.tricks), "dealer": g.dealer, "finished": g.game_over}


def score_series(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> list[dict]:
    """Each seat's score after every scored round (the sheet's rows), from its start score
    when ``start`` is given: what a score chart draws."""
    return [{"seat": s, "name": seat_label(s, you),
             "points": ([int(start[s])] if start is not None else []) + [int(r["scores"][s]) for r in rows]}
            for s in range(num_players)]


#: the symbols the views write, as plain ASCII (a terminal that shows no suit symbols);
#: tests/test_terminal_ascii.py checks that every symbol in a view's texts is here
ASCII = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C", "★": "*", "→": "->", "←": "<-", "−": "-",
                       "–": "-", "—": "-", "±": "+-", "×": "x", "≥": ">=", "≤": "<=", "≠": "!=", "·": "-",
                       "…": "...", "æ": "ae", "Æ": "AE", "ö": "o", "ä": "a", "Ö": "O", "Ä": "A", "å": "a",
                       "Å": "A", "ø": "o", "Ø": "O", "─": "-", "│": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+",
                       "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+"})

#: the widest the name column of a terminal table grows; longer names wrap under it
NAME_COLUMN_MAX = 40


def name_column(players: Sequence[dict], agents: Sequence[str]) -> tuple[int, list[list[str]]]:
    """The name column of a terminal table: its width and each seat's name in full, as
    lines (``player_2 (ppo:fem_opp_4p)``; a bot's spec follows the seat). The column is
    as wide as the longest name up to :data:`NAME_COLUMN_MAX`; a longer name wraps, its
    first line on the seat's row and the rest on lines of its own below it."""
    names = [p["name"] + ("" if agents[p["seat"]] == "human" else f" ({agents[p['seat']]})") for p in players]
    width = min(max([22] + [len(n) + 2 for n in names]), NAME_COLUMN_MAX)
    return width, [textwrap.wrap(n, width - 2, subsequent_indent="  ", break_on_hyphens=False) or [""]
                   for n in names]


class TableViews:
    """The shared defaults of a game's table views (the contract:
    :class:`redbeard_env.contract.TableViews`): a game whose views are an instance of a
    subclass (``Game.views = "module:object"``) overrides what it shows in its own words
    and inherits the rest. Made with the game's ``cards`` module and presets.

    The defaults read a reference game through the shared members
    (:class:`redbeard_env.contract.GameState`) and, where a game has them, ``bids`` (per
    seat, None before a seat bids), ``round`` (rounds scored so far) and ``winners``; its
    events as the family writes them: ``("trick", winner, cards)``, ``("round_end", index,
    ..., points per seat)`` (the round's score changes last) and ``("game_end", winners)``.
    They show only what the seat may know: its own hand, the cards on the table, every
    call, trick count and score, how many cards each player holds.
    """

    HELP = """Type an action at the prompt: its name (play:<card>, bid:<n>), or a card, or a number for a bid,
or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""
    SHORT: dict[str, str] = {}  # the terminal's short answers: key -> action name
    REVIEW_BOT = "heuristic"  # the bot the review of your play asks, unless the game's levels name a stronger one
    INTRO = ""  # the game in two or three sentences, for the page
    VERBS = {"play": "plays", "bid": "bids", "pass": "passes"}  # a move's kind -> the verb of another seat's move
    seat_label = staticmethod(seat_label)

    def __init__(self, cards, presets: dict):
        self.cards, self.presets = cards, presets

    # ------------------------------------------------------------ names and moves
    def card_text(self, name: str) -> str:
        """A card as people write it (the name itself by default)."""
        return name

    def sorted_hand(self, cards) -> list[str]:
        """Card names in the order a hand shows them (by id by default)."""
        return [self.cards.card_name(c) for c in sorted(cards)]

    def hand(self, g, seat: int) -> list[str]:
        return self.sorted_hand(g.hands[seat])

    def action_name(self, g, action: int) -> str:
        return self.cards.action_name(action)

    def shown_action(self, seat: int, name: str, you: int | None) -> str:
        """The move as ``you`` may see it (every move is public by default)."""
        return name

    def describe(self, seat: int, name: str, you: int | None = None) -> str:
        """A move as a sentence: ``player_2 bids 3``, ``You play AS``."""
        kind, _, what = name.partition(":")
        if kind == "play" and what:
            what = self.card_text(what)
        verb = kind if seat == you else self.VERBS.get(kind, kind)
        return f"{seat_label(seat, you)} {verb} {what}".rstrip()

    def why_illegal(self, g, seat: int, name: str) -> str:
        """Why a move is not allowed now, in words ("": no reason known); by default a card
        to play (``play:<card>``) that ``seat`` does not hold."""
        kind, _, what = name.partition(":")
        try:
            card = self.cards.parse_card(what) if kind == "play" else None
        except ValueError:
            return ""
        if card is None or card in g.hands[seat]:
            return ""
        return f"you do not hold {self.card_text(self.cards.card_name(card))}"

    # ------------------------------------------------------------ the outcome
    def winners(self, g) -> list[int]:
        """The seats sharing the win once the game is over (none before)."""
        return [int(s) for s in getattr(g, "winners", ())] if g.game_over else []

    def winner(self, g):
        """The winning seat, the list of seats sharing the win, or None."""
        seats = self.winners(g)
        return None if not seats else seats[0] if len(seats) == 1 else seats

    def truncated(self, g) -> bool:
        return bool(getattr(g, "truncated", False))

    # ------------------------------------------------------------ the public table
    def call(self, g, seat: int) -> str | None:
        """A seat's call so far as an action name (its bid), or None."""
        bids = getattr(g, "bids", None)
        return None if bids is None or bids[seat] is None else f"bid:{bids[seat]}"

    def flags(self, g, seat: int) -> list[dict]:
        """A seat's marks on the table: the dealer, the winners."""
        out = [{"text": "D", "class": "dealer", "title": "dealer"}] if seat == g.dealer else []
        if seat in self.winners(g):
            out.append({"text": "winner", "class": "winner", "title": "won the game"})
        return out

    def status(self, g, you: int | None) -> list[str]:
        """The table's status line, in parts."""
        parts = [f"round {getattr(g, 'round', 0) + 1}", f"dealer {seat_label(g.dealer, you)}"]
        if g.to_act >= 0:
            parts.append("your turn" if g.to_act == you else f"player_{g.to_act} to act")
        return parts

    def table(self, g, seat: int | None, agents, last_trick: dict | None = None) -> dict:
        """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``).
        ``last_trick`` (kept by the caller) is the trick just finished."""
        players = []
        for s in range(g.num_players):
            call = self.call(g, s)
            players.append({"seat": s, "name": seat_label(s, seat), "agent": agents[s], "score": g.scores[s],
                            "call": call, "call_text": self.describe(s, call, s).split(" ", 1)[1] if call else "",
                            "tricks": g.tricks[s], "hand_size": len(g.hands[s]), "dealer": s == g.dealer,
                            "to_act": s == g.to_act, "winner": s in self.winners(g), "flags": self.flags(g, s),
                            "active": True, "inactive": False})  # every seat plays to the end by default
        return {"phase": g.phase, "to_act": g.to_act if g.to_act >= 0 else None, "round": getattr(g, "round", 0) + 1,
                "dealer": g.dealer, "trick": [{"seat": s, "card": self.cards.card_name(c)} for s, c in g.trick],
                "last_trick": last_trick, "scores": list(g.scores), "players": players,
                "your_hand": self.hand(g, seat) if seat is not None else [], "status": self.status(g, seat),
                "trick_note": ""}

    def question(self, g, seat: int, keys: bool = False) -> str:
        """The question ``seat`` is asked now (``keys``: with the terminal's way to answer)."""
        text = {"bid": "Your bid: how many tricks will you take?", "play": "Your card."}.get(g.phase,
                                                                                         f"Your move ({g.phase}).")
        return text + (" (a move's name, a card or a number)" if keys else "")

    def stakes(self, g, seat: int) -> list[dict]:
        """What each answer of the question costs or gains (nothing said by default)."""
        return []

    def extras(self, g, seat: int) -> dict:
        """The game's own view fields (``card_notes``: cards shown beside the hand)."""
        return {"card_notes": []}

    # ------------------------------------------------------------ effects of a move
    def effects(self, g, seat: int, action: int, events, trick_before, deal: dict | None, you: int | None,
                earlier=()) -> list[dict]:
        """The public consequences of ``seat``'s ``action`` from the game's ``events``: a
        trick won, each seat's points and the round's end, the winners, a new deal."""
        out: list[dict] = []
        for e in events:
            if e[0] == "trick":
                cards = [{"seat": s, "card": self.cards.card_name(c)} for s, c in list(trick_before) + [(seat, action)]]
                out.append({"type": "trick", "winner": e[1], "cards": cards,
                            "text": f"{seat_label(e[1], you)} {'take' if e[1] == you else 'takes'} the trick"})
            elif e[0] == "round_end":
                out += self.round_end(e[1], e[-1], g.scores, you)
            elif e[0] == "game_end":
                seats = [int(s) for s in e[1]]
                names = " and ".join(seat_label(s, you) for s in seats)
                out.append({"type": "winner", "seat": seats[0] if len(seats) == 1 else seats, "seats": seats,
                            "text": f"{names} {'win' if seats == [you] else 'wins'} the game!" if len(seats) == 1
                            else f"{names} share the win!"})
        if deal is not None and not g.game_over:
            out.append({"type": "deal", "dealer": g.dealer, "kind": "round", "round": getattr(g, "round", 0) + 1,
                        "text": f"a new deal, dealer {seat_label(g.dealer, you)}"})
        return out

    def round_end(self, index: int, points, scores, you: int | None) -> list[dict]:
        """A scored round as effects: each seat's points, then the round's end with every
        change (``scores``: the totals after it)."""
        out, changes = [], []
        for s, d in enumerate(points):
            d, after = int(d), int(scores[s])
            out.append({"type": "score", "seat": s, "delta": d, "reason": "round",
                        "text": f"{seat_label(s, you)} {d:+d}"})
            changes.append({"seat": s, "before": after - d, "after": after,
                            "items": [{"reason": "round", "delta": d, "count": 1, "text": f"{d:+d}"}],
                            "text": f"{seat_label(s, you)}: {after - d} → {after} ({d:+d})"})
        headline = f"Round {index + 1}:"
        return out + [{"type": "round_end", "round": index + 1, "points": [int(d) for d in points],
                       "text": f"round {index + 1} over", "changes": changes, "headline": headline, "notes": [],
                       "summary": f"{headline} " + "; ".join(c["text"] for c in changes) + "."}]

    # ------------------------------------------------------------ the score sheet
    def sheet(self, recorder) -> list[dict]:
        """One row per scored round (the record's ``rounds``, each with the ``scores`` after it)."""
        return [dict(r) for r in recorder.rounds]

    def sheet_view(self, rows, num_players: int, you: int | None, start=None) -> dict:
        """The score sheet as a table: each player's total after each round, and the totals
        as ``series`` per seat for a chart (from ``start``, the start scores, if given)."""
        head = [{"text": "#", "title": "round"}] + [
            {"text": "You" if s == you else f"P{s}", "title": seat_label(s, you)} for s in range(num_players)]
        body = [[{"text": str(i + 1)}] + [{"text": str(r["scores"][s]), "title": f"{seat_label(s, you)}: total "
                                                                                 f"{r['scores'][s]}"}
                                          for s in range(num_players)] for i, r in enumerate(rows)]
        return {"head": head, "rows": body, "legend": "Totals after each round.",
                "series": score_series(rows, num_players, you, start)}

    # ------------------------------------------------------------ a finished game, every hand face up
    def frame(self, g, agents) -> dict:
        """A replay frame: the whole game state with every hand face up."""
        return {**frame_base(g, agents, self.table, self.sorted_hand, self.cards.card_name),
                "winner": self.winner(g), "winners": self.winners(g), "status": self.status(g, None)}

    # ------------------------------------------------------------ the page
    def rules_page(self, rules) -> list[dict]:
        """A short rules page, ``[{"title", "text"}]``: the introduction and the table's rules."""
        fields = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in vars(rules).items())
        return [{"title": "The game", "text": self.INTRO}, {"title": "This table", "text": fields}]

    def page_info(self) -> dict:
        """What the page needs to draw this game: card faces (name -> [label, mark, css
        class]), move labels, an introduction, a rules page per preset."""
        faces = {self.cards.card_name(c): [self.cards.card_name(c), "", ""] for c in range(self.cards.NUM_CARDS)}
        return {"cards": faces, "labels": {}, "prefixes": {"play:": "Play ", "bid:": "Bid "}, "intro": self.INTRO,
                "keys": {}, "flag_help": {"D": "dealer", "winner": "won the game"},
                "rules_pages": {preset: self.rules_page(r) for preset, r in self.presets.items()}}

    # ------------------------------------------------------------ the terminal
    def render_table(self, t: dict, you: int, agents) -> str:
        """A table (from :meth:`table`) and the viewer's hand as text."""
        width, names = name_column(t["players"], agents)
        lines = [" · ".join(t["status"]), f"  {'player':<{width}}{'score':>6}  {'call':<8}{'tricks':>6}"]
        for p, name in zip(t["players"], names):
            marks = [m for m, on in (("dealer", p["dealer"]), ("<- to act", p["to_act"]), ("WINNER", p["winner"])) if on]
            lines.append(f"  {name[0]:<{width}}{p['score']:>6}  {p['call_text'] or '-':<8}{p['tricks']:>6}  "
                         + " ".join(marks))
            lines += [f"  {more}" for more in name[1:]]
        shown = t["trick"] or (t["last_trick"] or {}).get("cards", [])
        if shown:
            lines.append(f"  {'trick' if t['trick'] else 'last trick'}: "
                         + "  ".join(f"{seat_label(c['seat'], you)} {self.card_text(c['card'])}" for c in shown))
        lines.append("  your hand: " + (" ".join(self.card_text(c) for c in t["your_hand"]) or "(none)"))
        return "\n".join(lines)
