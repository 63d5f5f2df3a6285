"""The table views every game of the family shares (the web table and the terminal game,
:mod:`redbeard_web`): a game's ``views`` module takes these as they are (the outcome, a move
as a sentence and as the viewer may see it, the score sheet's rows) or calls them with its
own cards and words (the public table, the effects of a move, the score sheet, a replay
frame, the terminal's table): ``whole`` names what a game of it plays to the end (Sortskæg
a "game" of rounds, Oh Hell one "deal").

**Only what the seat may know**: its own hand, the cards on the table and the cards played,
every bid, trick count and score, how many cards each player holds. Another player's discard
(``deal = carry``) is shown as ``discard``, without the card. :func:`frame` (a finished
game's replay) is the exception: every hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..viewparts import frame_base, name_column, score_series, seat_label
from .family import NO_COLOUR


# ---------------------------------------------------------------- names and moves
def action_name(g, action: int) -> str:
    """The SPEC name of ``action`` in ``g``'s current phase (a card is ``discard:`` in a discard)."""
    return g.fam.cards.action_name(action, g.phase)


def shown_action(seat: int, name: str, you: int | None) -> str:
    """The move as ``you`` may see it: another player's discard hides its card (every
    other move is public)."""
    if name.startswith("discard:") and seat != you:
        return "discard"
    return name


def describe(seat: int, name: str, you: int | None = None, card_text: Callable[[str], str] = str) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play Y10``, ``player_1 discards a card``
    (a card as ``card_text`` writes it)."""
    who = seat_label(seat, you)
    mine = seat == you
    if name == "discard":
        return f"{who} {'discard' if mine else 'discards'} a card"
    verb, _, what = name.partition(":")
    verbs = {"play": "plays", "bid": "bids", "discard": "discards"}
    if verb in ("play", "discard") and what:
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
    return False  # a game of the family always ends after its last round


# ---------------------------------------------------------------- the public table
def flags(g, s: int, whole: str = "game") -> list[dict]:
    """Seat ``s``'s marks on the table: the dealer, in the play how far it is from its bid,
    and the winners of the ``whole``."""
    out = []
    if s == g.dealer:
        out.append({"text": "D", "class": "dealer", "title": "dealer"})
    if g.bids[s] is not None and g.phase == "play":
        need = g.bids[s] - g.tricks[s]
        if need > 0:
            out.append({"text": f"needs {need}", "class": "",
                        "title": f"needs {need} more trick{'s' if need > 1 else ''} to make the bid"})
        elif need == 0:
            out.append({"text": "on target", "class": "", "title": "has taken exactly the tricks bid"})
        else:
            out.append({"text": f"{-need} over", "class": "out", "title": "took more tricks than bid"})
    if s in g.winners:
        out.append({"text": "winner", "class": "winner", "title": f"won the {whole}" if len(g.winners) == 1
                    else "shares the win"})
    return out


def bids_and_turn(g, you: int | None) -> list[str]:
    """The status line's end: the bids so far against the tricks, whose turn it is."""
    parts = []
    bids = [b for b in g.bids if b is not None]
    if bids and g.phase in ("bid", "play"):
        parts.append(f"bids {sum(bids)} for {g.hand_size} tricks")
    if g.phase == "discard":
        parts.append("discarding")
    if g.to_act >= 0:
        parts.append("your turn" if g.to_act == you else f"player_{g.to_act} to act")
    return parts


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None, *, hand: Callable,
          colour_names: Sequence[str], status: list[str], whole: str = "game") -> dict:
    """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``, as
    ``hand(g, seat)`` sorts it); ``colour_names`` name the led colour, ``status`` is the
    game's status line. ``last_trick`` (kept by the caller) is the trick just finished. A
    game's ``table`` adds its own fields."""
    players = []
    for s in range(g.num_players):
        bid = g.bids[s]
        players.append({
            "seat": s, "name": seat_label(s, seat), "agent": agents[s], "score": g.scores[s],
            "bid": bid, "call": None if bid is None else f"bid:{bid}", "call_text": "" if bid is None else f"bid {bid}",
            "tricks": g.tricks[s], "hand_size": len(g.hands[s]), "dealer": s == g.dealer,
            "to_act": s == g.to_act, "winner": s in g.winners, "active": True, "in_round": True,
            "flags": flags(g, s, whole), "inactive": False,
        })
    return {
        "phase": g.phase,
        "to_act": g.to_act if g.to_act >= 0 else None,
        "round": min(g.round + 1, g.rules.num_rounds),
        "rounds": g.rules.num_rounds,
        "hand_size": g.hand_size,
        "dealer": g.dealer,
        "leader": g.leader if g.phase == "play" and g.leader >= 0 else None,
        "trick": [{"seat": s, "card": g.fam.cards.card_name(c)} for s, c in g.trick],
        "led": (colour_names[g.led_colour] if g.led_colour != NO_COLOUR else "joker") if g.trick else None,
        "last_trick": last_trick,
        "tricks_done": g.tricks_done,
        "bids_total": sum(b for b in g.bids if b is not None),
        "scores": list(g.scores),
        "players": players,
        "your_hand": hand(g, seat) if seat is not None else [],
        "status": status,
        "trick_note": f"trick {g.tricks_done + 1} of {g.hand_size}" if g.phase == "play" else "",
    }


def question(g, seat: int, keys: bool, colour_names: Sequence[str], hand: Callable) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's way to answer, the
    first card of ``hand(g, seat)`` as an example): its bid, its card (``colour_names`` name
    the colour to follow), its discard."""
    k = (lambda text: f" {text}") if keys else (lambda text: "")
    if g.phase == "bid":
        made = [b for b in g.bids if b is not None]
        so_far = f" The bids so far add up to {sum(made)}." if made else ""
        hook = (f" As the dealer you may not make them add up to {g.hand_size}."
                if g.fam.dealer_hook and seat == g.dealer else "")
        return f"Your bid: how many of the {g.hand_size} tricks will you take?{so_far}{hook}" + k(
            f"(a number 0..{g.hand_size})")
    if g.phase == "play":
        if not g.trick:
            text = "Your lead."
        elif g.led_colour == NO_COLOUR:
            text = "A joker was led (it wins): play any card."
        else:
            text = (f"Your card: follow {colour_names[g.led_colour]} if you can"
                    + (" (a joker may always be played)." if g.fam.jokers else "."))
        return text + k(f"(a card, e.g. {hand(g, seat)[0]})")
    if g.phase == "discard":
        return ("You took back the cards you played: discard one of them face down for the next round."
                + k("(a card)"))
    return ""


# ---------------------------------------------------------------- effects of a move
def effects(g, seat: int, action: int, events: Sequence[tuple], trick_before: Sequence[tuple[int, int]],
            deal: dict | None, you: int | None, earlier: Sequence[dict] = (), *, whole: str = "game",
            round_texts: Callable[[tuple], tuple[str | None, str | None]] = lambda e: (None, None)) -> list[dict]:
    """The public consequences of ``seat``'s ``action`` from the game's ``events`` (a trick
    won, the round's points, a new round, the winners of the ``whole``), each with a ``text``
    as ``you`` read it. A discard shows no card; ``deal`` (the recorder's new deal, with every
    hand) is only used to tell a new deal from hands kept after the discards. ``earlier``
    (the round's score changes before the move) is empty in the family: a round scores at its
    end. ``round_texts(event)`` gives a round's end its headline and text (None: "Round k (n
    cards):", "round k over")."""
    card_name = g.fam.cards.card_name
    out: list[dict] = []
    new_round = False
    for e in events:
        kind = e[0]
        if kind == "trick":
            cards = [{"seat": s, "card": card_name(c)} for s, c in list(trick_before) + [(seat, action)]]
            out.append({"type": "trick", "winner": e[1], "cards": cards,
                        "text": f"{seat_label(e[1], you)} {'take' if e[1] == you else 'takes'} the trick"})
        elif kind == "round_end":
            headline, text = round_texts(e)
            out += round_end(e, you, g.scores, headline, text)
            new_round = True
        elif kind == "discard":
            out.append({"type": "discard", "seat": e[1]})
            new_round = True
        elif kind == "game_end":
            seats = list(e[1])
            names = " and ".join(seat_label(s, you) for s in seats)
            text = (f"{names} {'win' if seats == [you] else 'wins'} the {whole}!" if len(seats) == 1
                    else f"{names} share the win!")
            out.append({"type": "winner", "seat": seats[0] if len(seats) == 1 else seats, "seats": seats,
                        "text": text})
            for x in out:
                if x["type"] == "round_end":
                    x["notes"].append(text)
    if new_round and g.phase == "bid":
        kind = "round" if deal is not None else "kept"
        out.append({"type": "deal", "dealer": g.dealer, "kind": kind, "round": g.round + 1, "hand_size": g.hand_size,
                    "text": f"round {g.round + 1}: {g.hand_size} card{'s' if g.hand_size != 1 else ''} each"
                            + (" (the hands kept after the discards)" if kind == "kept" else "")
                            + f", dealer {seat_label(g.dealer, you)}"})
    return out


def round_end(e: tuple, you: int | None, scores: Sequence[int], headline: str | None = None,
              text: str | None = None) -> list[dict]:
    """A ``round_end`` event as effects: each seat's score, then the round's end with every
    change and its reason (``headline`` and ``text``: how the game names a round; "Round k
    (n cards):" and "round k over" by default)."""
    _, index, size, bids, tricks, deltas = e
    out = []
    changes = []
    for s, (b, t, d) in enumerate(zip(bids, tricks, deltas)):
        reason = "exact" if b == t else "missed"
        out.append({"type": "score", "seat": s, "delta": d, "reason": reason,
                    "text": f"{seat_label(s, you)} {d:+d} ({'bid ' + str(b) + ', took ' + str(t)})"})
        why = f"bid {b}, took {t}: " + ("exact" if b == t else f"{abs(t - b)} off")
        after = int(scores[s])
        changes.append({"seat": s, "before": after - d, "after": after,
                        "items": [{"reason": reason, "delta": d, "count": 1, "text": f"{d:+d} {why}"}],
                        "text": f"{seat_label(s, you)}: {after - d} → {after} ({d:+d}, {why})"})
    headline = headline or f"Round {index + 1} ({size} card{'s' if size != 1 else ''}):"
    end = {"type": "round_end", "round": index + 1, "hand_size": size, "bids": list(bids), "tricks": list(tricks),
           "points": list(deltas), "text": text or f"round {index + 1} over", "changes": changes, "headline": headline,
           "notes": [], "summary": f"{headline} " + "; ".join(c["text"] for c in changes) + "."}
    return out + [end]


# ---------------------------------------------------------------- the score sheet
def sheet(recorder) -> list[dict]:
    """One row per scored round (the record's ``rounds``)."""
    return [dict(r) for r in recorder.rounds]


def sheet_view(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None, *,
               numbered: bool = True, size_text: str = "cards",
               legend: str = "Totals after each round; small numbers: bid/tricks taken; green: exact bid.") -> dict:
    """The score sheet as a table: the round (``numbered``) and its hand size (headed
    ``size_text``), then each player's total after the round (``sub``: bid/tricks; class
    ``zero``: an exact bid), plus the totals as ``series`` per seat for a chart (from
    ``start``, the start scores, if given)."""
    short = [("You" if s == you else f"P{s}") for s in range(num_players)]
    head = ([{"text": "#", "title": "round"}] if numbered else []) + [
        {"text": size_text, "title": "cards in each hand"}] + [
        {"text": short[s], "title": seat_label(s, you)} for s in range(num_players)]
    body = []
    for r in rows:
        row = ([{"text": str(r["round"] + 1)}] if numbered else []) + [
            {"text": str(r["hand_size"]), "title": f"dealer {seat_label(r['dealer'], you)}"}]
        for s in range(num_players):
            b, t, p = r["bids"][s], r["tricks"][s], r["points"][s]
            row.append({"text": str(r["scores"][s]), "sub": f"{b}/{t}",
                        "title": f"{seat_label(s, you)}: bid {b}, took {t}: {p:+d}; total {r['scores'][s]}",
                        "class": "zero" if b == t else ""})
        body.append(row)
    return {"head": head, "rows": body, "legend": legend, "series": score_series(rows, num_players, you, start)}


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str], table: Callable, sort: Callable, status: list[str]) -> dict:
    """A replay frame: the whole game state with every hand face up (``sort``: a hand's card
    names in the game's order); a game's ``frame`` adds its own fields."""
    return {
        **frame_base(g, agents, table, sort, g.fam.cards.card_name),
        "bids": list(g.bids),
        "round": min(g.round + 1, g.rules.num_rounds),
        "hand_size": g.hand_size,
        "winner": winner(g),
        "winners": winners(g),
        "status": status,
    }


# ---------------------------------------------------------------- the terminal
def render_table(t: dict, you: int, agents: Sequence[str], head: list[str], *, score: str = "score",
                 card_text: Callable[[str], str] = str, hand_text: Callable[[list[str]], str],
                 notes: Sequence[str] = ()) -> str:
    """A table (from a game's ``table``) and the viewer's hand as text: the ``head`` line,
    each seat's ``score`` (the column's header), bid and tricks, the trick (or the last
    one), the game's ``notes`` and the hand (``hand_text``: the game's grouping)."""
    width, names = name_column(t["players"], agents)
    w = len(score) + 1
    lines = [" · ".join(head), f"  {'player':<{width}}{score:>{w}}  {'bid':<6}{'tricks':>6}  "]
    for p, name in zip(t["players"], names):
        marks = [m for m, on in (("dealer", p["dealer"]), ("<- to act", p["to_act"]), ("WINNER", p["winner"])) if on]
        bid = "-" if p["bid"] is None else str(p["bid"])
        lines.append(f"  {name[0]:<{width}}{p['score']:>{w}}  {bid:<6}{p['tricks']:>6}  {' '.join(marks)}")
        lines += [f"  {more}" for more in name[1:]]
    if t["trick"]:
        lines.append("  trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}"
                                             for c in t["trick"]))
    elif t["last_trick"]:
        last = t["last_trick"]
        lines.append("  last trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}"
                                                  for c in last["cards"])
                     + f"  -> {seat_label(last['winner'], you)}")
    lines += [f"  {note}" for note in notes]
    lines.append(f"  your hand: {hand_text(t['your_hand'])}")
    return "\n".join(lines)
