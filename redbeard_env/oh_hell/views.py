"""Oh Hell's table views: what the web table and the terminal game (:mod:`redbeard_web`) show of
a reference-engine game (:mod:`redbeard_env.family.game` with Oh Hell's rules), for one seat.
The functions have the signatures of every game's views module (Sortskæg's:
:mod:`redbeard_env.sortskaeg.views`); the apps find this module through the registry.

**Only what the seat may know**: its own hand, the turned trump card (face up for everyone), the
cards on the table and the cards played, every bid, trick count and score, how many cards each
player holds. Never another hand, the cards not dealt, or the seed. :func:`frame` (a finished
game's replay) is the exception: every hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
"""

from __future__ import annotations

from typing import Sequence

from ..family.views import round_end
from ..viewparts import frame_base, name_column, score_series, seat_label
from .cards import RANKS, SUIT_NAMES, SUITS, action_name as _action_name, card_name, rank_of, suit_of
from .rules import PRESETS
from .stakes import card_text, rules_page, stakes, why_illegal  # noqa: F401 (the views' API)

#: suits in hand order: trumps first, then the others in the order H S D C
HAND_SUITS = "HSDC"
SUIT_MARKS = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}
INTRO = ("Bid how many tricks you will take, then take exactly that many. A card turned up after the deal "
         "sets trumps; follow suit if you can. Each trick scores a point and an exact bid 10 more; the dealer "
         "bids last and may not make the bids add up to the tricks. The most points win (OpenSpiel's oh_hell).")
#: the bot the review of your play asks by default (pimc values moves in expected points)
REVIEW_BOT = "pimc"
FLAG_HELP = {"D": "dealer: bids last and may not make the bids add up to the tricks",
             "on target": "has taken exactly the tricks bid", "winner": "won the deal (or shares the win)"}
SHORT: dict[str, str] = {}  # cards (AS, 10d) and bid numbers are short enough
HELP = """Type an action at the prompt:
  a card:  AS  10d  td  play:QH
  a bid:   3  bid:3
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


# ---------------------------------------------------------------- names and cards
def action_name(g, action: int) -> str:
    return _action_name(action)


def _trumps(g) -> int:
    return g.trumps


def sorted_hand(cards, trumps: int = -1) -> list[str]:
    """Card names: trumps first, then hearts, spades, diamonds, clubs, high ranks first."""
    def key(c: int) -> tuple[int, int, int]:
        return (suit_of(c) != trumps, HAND_SUITS.index(SUITS[suit_of(c)]), -rank_of(c))

    return [card_name(c) for c in sorted(cards, key=key)]


def hand(g, seat: int) -> list[str]:
    return sorted_hand(g.hands[seat], _trumps(g))


def card_faces() -> dict[str, list[str]]:
    """How the page draws each card: name -> [label, mark, css class]."""
    faces = {}
    for c in range(52):
        suit = SUITS[suit_of(c)]
        faces[card_name(c)] = [("10" if RANKS[rank_of(c)] == "T" else RANKS[rank_of(c)]), SUIT_MARKS[suit],
                               "red" if suit in "DH" else "black"]
    return faces


def page_info() -> dict:
    """What the page needs to draw this game: card faces, move labels, an introduction."""
    return {"cards": card_faces(), "labels": {}, "prefixes": {"play:": "Play ", "bid:": "Bid "}, "intro": INTRO,
            "keys": {}, "flag_help": dict(FLAG_HELP),
            "rules_pages": {preset: rules_page(r) for preset, r in PRESETS.items()}}


def shown_action(seat: int, name: str, you: int | None) -> str:
    """The move as ``you`` may see it: every Oh Hell move is public."""
    return name


def describe(seat: int, name: str, you: int | None = None) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play QH``."""
    who = seat_label(seat, you)
    mine = seat == you
    verb, _, what = name.partition(":")
    verbs = {"play": "plays", "bid": "bids"}
    if verb == "play" and what:
        what = card_text(what)
    return f"{who} {verb if mine else verbs.get(verb, verb)} {what}".rstrip()


# ---------------------------------------------------------------- the outcome
def winners(g) -> list[int]:
    return list(g.winners)


def winner(g) -> int | list[int] | None:
    """The winning seat, the list of seats sharing the win, or None while the game runs."""
    if not g.winners:
        return None
    return g.winners[0] if len(g.winners) == 1 else list(g.winners)


def truncated(g) -> bool:
    return False  # a deal always ends


def _trump_text(g) -> str:
    if g.trump_card < 0:
        return "no trumps"
    return f"{SUIT_NAMES[g.trumps]} are trumps ({card_name(g.trump_card)} turned)"


def extras(g, seat: int) -> dict:
    """Oh Hell's own view fields: the turned card and the trump suit (``card_notes``: the page
    shows the turned card beside the hand)."""
    turned = [card_name(g.trump_card)] if g.trump_card >= 0 else []
    return {"hand_size": g.hand_size, "trump_card": turned[0] if turned else None,
            "trumps": SUIT_NAMES[g.trumps] if g.trumps >= 0 else None,
            "card_notes": [{"label": "Turned card (trumps)", "cards": turned}] if turned else []}


# ---------------------------------------------------------------- the public table
def _flags(g, s: int) -> list[dict]:
    flags = []
    if s == g.dealer:
        flags.append({"text": "D", "class": "dealer", "title": "dealer"})
    if g.bids[s] is not None and g.phase == "play":
        need = g.bids[s] - g.tricks[s]
        if need > 0:
            flags.append({"text": f"needs {need}", "class": "", "title": f"needs {need} more trick{'s' if need > 1 else ''}"})
        elif need == 0:
            flags.append({"text": "on target", "class": "", "title": "has taken exactly the tricks bid"})
        else:
            flags.append({"text": f"{-need} over", "class": "out", "title": "took more tricks than bid"})
    if s in g.winners:
        flags.append({"text": "winner", "class": "winner", "title": "won the deal" if len(g.winners) == 1
                      else "shares the win"})
    return flags


def _status(g, you: int | None) -> list[str]:
    parts = [f"{g.hand_size} trick{'s' if g.hand_size != 1 else ''}", f"dealer {seat_label(g.dealer, you)}",
             _trump_text(g)]
    bids = [b for b in g.bids if b is not None]
    if bids and g.phase in ("bid", "play"):
        parts.append(f"bids {sum(bids)} for {g.hand_size} tricks")
    if g.to_act >= 0:
        parts.append("your turn" if g.to_act == you else f"player_{g.to_act} to act")
    return parts


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict:
    """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``).
    ``last_trick`` (kept by the caller) is the trick just finished."""
    players = []
    for s in range(g.num_players):
        bid = g.bids[s]
        players.append({
            "seat": s, "name": seat_label(s, seat), "agent": agents[s], "score": g.scores[s],
            "bid": bid, "call": None if bid is None else f"bid:{bid}", "call_text": "" if bid is None else f"bid {bid}",
            "tricks": g.tricks[s], "hand_size": len(g.hands[s]), "dealer": s == g.dealer,
            "to_act": s == g.to_act, "winner": s in g.winners, "active": True, "in_round": True,
            "flags": _flags(g, s), "inactive": False,
        })
    return {
        "phase": g.phase,
        "to_act": g.to_act if g.to_act >= 0 else None,
        "round": 1,
        "rounds": 1,
        "hand_size": g.hand_size,
        "dealer": g.dealer,
        "leader": g.leader if g.phase == "play" and g.leader >= 0 else None,
        "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
        "led": SUIT_NAMES[g.led_colour] if g.trick else None,
        "trump_card": card_name(g.trump_card) if g.trump_card >= 0 else None,
        "trumps": SUIT_NAMES[g.trumps] if g.trumps >= 0 else None,
        "last_trick": last_trick,
        "tricks_done": g.tricks_done,
        "bids_total": sum(b for b in g.bids if b is not None),
        "scores": list(g.scores),
        "players": players,
        "your_hand": hand(g, seat) if seat is not None else [],
        "status": _status(g, seat),
        "trick_note": f"trick {g.tricks_done + 1} of {g.hand_size}" if g.phase == "play" else "",
    }


def question(g, seat: int, keys: bool = False) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's way to answer)."""
    k = (lambda text: f" {text}") if keys else (lambda text: "")
    if g.phase == "bid":
        made = [b for b in g.bids if b is not None]
        so_far = f" The bids so far add up to {sum(made)}." if made else ""
        hook = (f" As the dealer you may not make them add up to {g.hand_size}." if seat == g.dealer else "")
        return f"Your bid: how many of the {g.hand_size} tricks will you take?{so_far}{hook}" + k(
            f"(a number 0..{g.hand_size})")
    if g.phase == "play":
        text = "Your lead." if not g.trick else f"Your card: follow {SUIT_NAMES[g.led_colour]} if you can."
        return text + k(f"(a card, e.g. {hand(g, seat)[0]})")
    return ""


# ---------------------------------------------------------------- effects of a move
def effects(g, seat: int, action: int, events: Sequence[tuple], trick_before: Sequence[tuple[int, int]],
            deal: dict | None, you: int | None, earlier: Sequence[dict] = ()) -> list[dict]:
    """The public consequences of ``seat``'s ``action`` from the game's ``events`` (a trick
    won, the points, the winners), each with a ``text`` as ``you`` read it. ``earlier`` (the
    round's score changes before the move) is empty in Oh Hell: the deal scores at its end."""
    out: list[dict] = []
    for e in events:
        if e[0] == "trick":
            cards = [{"seat": s, "card": card_name(c)} for s, c in list(trick_before) + [(seat, action)]]
            out.append({"type": "trick", "winner": e[1], "cards": cards,
                        "text": f"{seat_label(e[1], you)} {'take' if e[1] == you else 'takes'} the trick"})
        elif e[0] == "round_end":
            size = e[2]
            out += round_end(e, you, g.scores, headline=f"The deal ({size} trick{'s' if size != 1 else ''}):",
                             text="the deal is scored")
        elif e[0] == "game_end":
            seats = list(e[1])
            names = " and ".join(seat_label(s, you) for s in seats)
            text = (f"{names} {'win' if seats == [you] else 'wins'} the deal!" if len(seats) == 1
                    else f"{names} share the win!")
            out.append({"type": "winner", "seat": seats[0] if len(seats) == 1 else seats, "seats": seats,
                        "text": text})
            for x in out:
                if x["type"] == "round_end":
                    x["notes"].append(text)
    return out


# ---------------------------------------------------------------- the score sheet
def sheet(recorder) -> list[dict]:
    """One row per scored deal (the record's ``rounds``)."""
    return [dict(r) for r in recorder.rounds]


def sheet_view(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> dict:
    """The score sheet: the deal's tricks, then each player's points (``sub``: bid/tricks;
    class ``zero``: an exact bid), plus the totals as ``series`` per seat for a chart."""
    short = [("You" if s == you else f"P{s}") for s in range(num_players)]
    head = [{"text": "tricks", "title": "cards in each hand"}] + [{"text": short[s], "title": seat_label(s, you)} for s in range(num_players)]
    body = []
    for r in rows:
        row = [{"text": str(r["hand_size"]), "title": f"dealer {seat_label(r['dealer'], you)}"}]
        for s in range(num_players):
            b, t, p = r["bids"][s], r["tricks"][s], r["points"][s]
            row.append({"text": str(r["scores"][s]), "sub": f"{b}/{t}",
                        "title": f"{seat_label(s, you)}: bid {b}, took {t}: {p:+d}; total {r['scores'][s]}",
                        "class": "zero" if b == t else ""})
        body.append(row)
    legend = "Points after the deal; small numbers: bid/tricks taken; green: exact bid."
    return {"head": head, "rows": body, "legend": legend, "series": score_series(rows, num_players, you, start)}


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str]) -> dict:
    """A replay frame: the whole game state with every hand face up."""
    return {
        **frame_base(g, agents, table, lambda cards: sorted_hand(cards, g.trumps), card_name),
        "bids": list(g.bids),
        "hand_size": g.hand_size,
        "trump_card": card_name(g.trump_card) if g.trump_card >= 0 else None,
        "winner": winner(g),
        "winners": winners(g),
        "status": _status(g, None),
    }


# ---------------------------------------------------------------- the terminal
def _cards_by_suit(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(c[1], []).append(card_text(c)[:-1])
    return "   ".join(f"{SUIT_MARKS[suit]}: {' '.join(ranks)}" for suit, ranks in groups.items()) or "(none)"


def render_table(t: dict, you: int, agents: Sequence[str]) -> str:
    """A table (from :func:`table`) and the viewer's hand as text."""
    trumps = f"{t['trumps']} are trumps ({card_text(t['trump_card'])} turned)" if t["trump_card"] else "no trumps"
    head = [f"{t['hand_size']} tricks", f"dealer {seat_label(t['dealer'], you)}", f"bids {t['bids_total']}", trumps]
    width, names = name_column(t["players"], agents)
    lines = [" · ".join(head), f"  {'player':<{width}}{'points':>7}  {'bid':<6}{'tricks':>6}  "]
    for p, name in zip(t["players"], names):
        marks = [m for m, on in (("dealer", p["dealer"]), ("<- to act", p["to_act"]), ("WINNER", p["winner"])) if on]
        bid = "-" if p["bid"] is None else str(p["bid"])
        lines.append(f"  {name[0]:<{width}}{p['score']:>7}  {bid:<6}{p['tricks']:>6}  {' '.join(marks)}")
        lines += [f"  {more}" for more in name[1:]]
    if t["trick"]:
        lines.append("  trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}" for c in t["trick"]))
    elif t["last_trick"]:
        last = t["last_trick"]
        lines.append("  last trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}"
                                                  for c in last["cards"])
                     + f"  -> {seat_label(last['winner'], you)}")
    lines.append(f"  your hand: {_cards_by_suit(t['your_hand'])}")
    return "\n".join(lines)


__all__ = ["action_name", "sorted_hand", "hand", "page_info", "shown_action", "describe", "winner", "winners",
           "truncated", "extras", "table", "question", "stakes", "effects", "sheet", "sheet_view", "frame",
           "render_table", "rules_page", "card_text", "why_illegal", "SHORT", "HELP", "seat_label"]
