"""Sortskæg's table views: what the web table and the terminal game (:mod:`redbeard_web`)
show of a reference-engine game (:mod:`redbeard_env.family.game`), for one seat. The
functions have the signatures of every game's views module (Rödskägg's:
:mod:`redbeard_env.redbeard.views`); the apps find this module through the registry.

**Only what the seat may know**: its own hand, the cards on the table and the cards played
(this round and, as their public record, earlier ones), every bid, trick count and score,
how many cards each player holds; under ``deal = carry`` its own taken-back cards and its
own discards. Never another hand, another player's discard (a discard by someone else is
shown as ``discard``, without the card), the cards that were not dealt, or the seed.
:func:`frame` (a finished game's replay) is the exception: every hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
"""

from __future__ import annotations

from typing import Sequence

from ..family.views import round_end
from ..viewparts import frame_base, name_column, score_series, seat_label
from .cards import COLOUR_NAMES, COLOURS, NO_COLOUR, action_name as _action_name, card_name, colour_of
from .rules import PRESETS
from .stakes import card_text, rules_page, stakes, why_illegal  # noqa: F401 (the views' API)

#: colours in hand order: trumps (yellow) first, then red, green, blue; jokers before them all
HAND_COLOURS = "YRGB"
INTRO = ("Bid how many tricks you will take — exactly. Yellow is trumps, a led joker wins the trick, and "
         "the hand size goes 7, 6 … 1 … 6, 7 over 13 rounds. An exact bid k scores 2k + 3 (bid 0, no trick: 5); "
         "every trick off costs 2. The highest total wins.")
#: the bot the review of your play asks by default (pimc values moves in expected points; the
#: heuristic's values are preferences, not points)
REVIEW_BOT = "pimc"
SHORT: dict[str, str] = {}  # cards (Y10, j1) and bid numbers are short enough
HELP = """Type an action at the prompt:
  a card:  Y10  r7  j1  play:B3  (in a discard: the card to discard, or discard:B3)
  a bid:   3  bid:3
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


# ---------------------------------------------------------------- names and cards
def action_name(g, action: int) -> str:
    """The SPEC name of ``action`` in ``g``'s current phase (a card is ``discard:`` in a discard)."""
    return _action_name(action, g.phase)


def _hand_key(c: int) -> tuple[int, int]:
    return (-1, c) if colour_of(c) == NO_COLOUR else (HAND_COLOURS.index(COLOURS[colour_of(c)]), -c)


def sorted_hand(cards) -> list[str]:
    """Card names: jokers, then yellow (trumps), red, green, blue, high values first."""
    return [card_name(c) for c in sorted(cards, key=_hand_key)]


def hand(g, seat: int) -> list[str]:
    return sorted_hand(g.hands[seat])


def card_faces() -> dict[str, list[str]]:
    """How the page draws each card: name -> [label, mark, css class]."""
    faces = {}
    for c in range(42):
        name = card_name(c)
        if colour_of(c) == NO_COLOUR:
            faces[name] = ["★", name, "joker"]
        else:
            faces[name] = [name[1:], COLOUR_NAMES[colour_of(c)], "colour-" + COLOUR_NAMES[colour_of(c)]]
    return faces


def page_info() -> dict:
    """What the page needs to draw this game: card faces, move labels, an introduction."""
    return {"cards": card_faces(), "labels": {}, "prefixes": {"play:": "Play ", "discard:": "Discard ", "bid:": "Bid "},
            "intro": INTRO, "keys": {}, "rules_pages": {preset: rules_page(r) for preset, r in PRESETS.items()},
            "flag_help": {"D": "dealer: deals this round and bids last", "on target": "has taken exactly the tricks bid",
                          "winner": "won the game (or shares the win)"}}


def shown_action(seat: int, name: str, you: int | None) -> str:
    """The move as ``you`` may see it: another player's discard hides its card."""
    if name.startswith("discard:") and seat != you:
        return "discard"
    return name


def describe(seat: int, name: str, you: int | None = None) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play Y10``, ``player_1 discards a card``."""
    who = seat_label(seat, you)
    mine = seat == you
    if name == "discard":
        return f"{who} {'discard' if mine else 'discards'} a card"
    verb, _, what = name.partition(":")
    verbs = {"play": "plays", "bid": "bids", "discard": "discards"}
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
    return False  # a Sortskæg game always ends after its last round


def extras(g, seat: int) -> dict:
    """Sortskæg's own view fields (``card_notes``: labelled cards the page shows beside the
    hand; under ``deal = carry`` this seat's own discards)."""
    discarded = sorted_hand(g.discarded[seat])
    return {"round": min(g.round + 1, g.rules.num_rounds), "rounds": g.rules.num_rounds, "hand_size": g.hand_size,
            "discarded": discarded, "took_back": sorted_hand(g.took_back[seat]),
            "card_notes": [{"label": "Cards you discarded", "cards": discarded}] if discarded else []}


# ---------------------------------------------------------------- the public table
def _bid_text(bid: int | None) -> str:
    return "" if bid is None else f"bid {bid}"


def _flags(g, s: int) -> list[dict]:
    flags = []
    if s == g.dealer:
        flags.append({"text": "D", "class": "dealer", "title": "dealer"})
    if g.bids[s] is not None and g.phase == "play":
        need = g.bids[s] - g.tricks[s]
        if need > 0:
            flags.append({"text": f"needs {need}", "class": "",
                          "title": f"needs {need} more trick{'s' if need > 1 else ''} to make the bid"})
        elif need == 0:
            flags.append({"text": "on target", "class": "", "title": "has taken exactly the tricks bid"})
        elif need < 0:
            flags.append({"text": f"{-need} over", "class": "out", "title": "took more tricks than bid"})
    if s in g.winners:
        flags.append({"text": "winner", "class": "winner", "title": "won the game" if len(g.winners) == 1
                      else "shares the win"})
    return flags


def _round_text(g) -> str:
    return f"Round {min(g.round + 1, g.rules.num_rounds)} of {g.rules.num_rounds}"


def _status(g, you: int | None) -> list[str]:
    parts = [_round_text(g)]
    if not g.game_over:
        parts.append(f"{g.hand_size} card{'s' if g.hand_size != 1 else ''} each")
    parts.append(f"dealer {seat_label(g.dealer, you)}")
    bids = [b for b in g.bids if b is not None]
    if bids and g.phase in ("bid", "play"):
        parts.append(f"bids {sum(bids)} for {g.hand_size} tricks")
    if g.phase == "discard":
        parts.append("discarding")
    if g.to_act >= 0:
        parts.append("your turn" if g.to_act == you else f"player_{g.to_act} to act")
    parts.append("yellow is trumps")
    return parts


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict:
    """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``),
    taken-back cards and discards (``deal = carry``). ``last_trick`` (kept by the caller) is
    the trick just finished, shown until the next round's first move."""
    players = []
    for s in range(g.num_players):
        bid = g.bids[s]
        players.append({
            "seat": s, "name": seat_label(s, seat), "agent": agents[s], "score": g.scores[s],
            "bid": bid, "call": None if bid is None else f"bid:{bid}", "call_text": _bid_text(bid),
            "tricks": g.tricks[s], "hand_size": len(g.hands[s]), "dealer": s == g.dealer,
            "to_act": s == g.to_act, "winner": s in g.winners, "active": True, "in_round": True,
            "flags": _flags(g, s), "inactive": False,
        })
    mine = seat is not None
    return {
        "phase": g.phase,
        "to_act": g.to_act if g.to_act >= 0 else None,
        "round": min(g.round + 1, g.rules.num_rounds),
        "rounds": g.rules.num_rounds,
        "hand_size": g.hand_size,
        "dealer": g.dealer,
        "leader": g.leader if g.phase == "play" and g.leader >= 0 else None,
        "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
        "led": (COLOUR_NAMES[g.led_colour] if g.led_colour != NO_COLOUR else "joker") if g.trick else None,
        "last_trick": last_trick,
        "tricks_done": g.tricks_done,
        "bids_total": sum(b for b in g.bids if b is not None),
        "scores": list(g.scores),
        "players": players,
        "your_hand": sorted_hand(g.hands[seat]) if mine else [],
        "your_discards": sorted_hand(g.discarded[seat]) if mine else [],
        "your_took_back": sorted_hand(g.took_back[seat]) if mine else [],
        "status": _status(g, seat),
        "trick_note": f"trick {g.tricks_done + 1} of {g.hand_size}" if g.phase == "play" else "",
    }


def question(g, seat: int, keys: bool = False) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's way to answer)."""
    k = (lambda text: f" {text}") if keys else (lambda text: "")
    if g.phase == "bid":
        made = [b for b in g.bids if b is not None]
        so_far = f" The bids so far add up to {sum(made)}." if made else ""
        hook = (" As the dealer you may not make them add up to the hand size."
                if g.rules.dealer_hook and seat == g.dealer else "")
        return f"Your bid: how many of the {g.hand_size} tricks will you take?{so_far}{hook}" + k(
            f"(a number 0..{g.hand_size})")
    if g.phase == "play":
        if not g.trick:
            text = "Your lead."
        elif g.led_colour == NO_COLOUR:
            text = "A joker was led (it wins): play any card."
        else:
            text = f"Your card: follow {COLOUR_NAMES[g.led_colour]} if you can (a joker may always be played)."
        return text + k(f"(a card, e.g. {sorted_hand(g.hands[seat])[0]})")
    if g.phase == "discard":
        return ("You took back the cards you played: discard one of them face down for the next round."
                + k("(a card)"))
    return ""


# ---------------------------------------------------------------- effects of a move
def effects(g, seat: int, action: int, events: Sequence[tuple], trick_before: Sequence[tuple[int, int]],
            deal: dict | None, you: int | None, earlier: Sequence[dict] = ()) -> list[dict]:
    """The public consequences of ``seat``'s ``action`` from the game's ``events`` (a trick
    won, the round's points, a new round, the winners), each with a ``text`` as ``you``
    read it. A discard shows no card; ``deal`` (the recorder's new deal, with every hand)
    is only used to tell a new deal from hands kept after the discards. ``earlier`` (the
    round's score changes before the move) is empty in Sortskæg: a round scores at its end."""
    out: list[dict] = []
    new_round = False
    for e in events:
        kind = e[0]
        if kind == "trick":
            cards = [{"seat": s, "card": card_name(c)} for s, c in list(trick_before) + [(seat, action)]]
            out.append({"type": "trick", "winner": e[1], "cards": cards,
                        "text": f"{seat_label(e[1], you)} {'take' if e[1] == you else 'takes'} the trick"})
        elif kind == "round_end":
            out += round_end(e, you, g.scores)
            new_round = True
        elif kind == "discard":
            out.append({"type": "discard", "seat": e[1]})
            new_round = True
        elif kind == "game_end":
            seats = list(e[1])
            names = " and ".join(seat_label(s, you) for s in seats)
            text = (f"{names} {'win' if seats == [you] else 'wins'} the game!" if len(seats) == 1
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


# ---------------------------------------------------------------- the score sheet
def sheet(recorder) -> list[dict]:
    """One row per scored round (the record's ``rounds``)."""
    return [dict(r) for r in recorder.rounds]


def sheet_view(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> dict:
    """The score sheet as a table: the round and its hand size, then each player's total
    after the round (``sub``: bid/tricks; class ``zero``: an exact bid), plus the totals as
    ``series`` per seat for a chart (from ``start``, the start scores, if given)."""
    short = [("You" if s == you else f"P{s}") for s in range(num_players)]
    head = [{"text": "#", "title": "round"}, {"text": "cards", "title": "cards in each hand"}] + [
        {"text": short[s], "title": seat_label(s, you)} for s in range(num_players)]
    body = []
    for r in rows:
        row = [{"text": str(r["round"] + 1)}, {"text": str(r["hand_size"]), "title": f"dealer {seat_label(r['dealer'], you)}"}]
        for s in range(num_players):
            b, t, p = r["bids"][s], r["tricks"][s], r["points"][s]
            row.append({"text": str(r["scores"][s]), "sub": f"{b}/{t}",
                        "title": f"{seat_label(s, you)}: bid {b}, took {t}: {p:+d}; total {r['scores'][s]}",
                        "class": "zero" if b == t else ""})
        body.append(row)
    legend = "Totals after each round; small numbers: bid/tricks taken; green: exact bid."
    return {"head": head, "rows": body, "legend": legend, "series": score_series(rows, num_players, you, start)}


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str]) -> dict:
    """A replay frame: the whole game state with every hand (and every discard) face up."""
    return {
        **frame_base(g, agents, table, sorted_hand, card_name),
        "discarded": [sorted_hand(d) for d in g.discarded],
        "bids": list(g.bids),
        "round": min(g.round + 1, g.rules.num_rounds),
        "hand_size": g.hand_size,
        "winner": winner(g),
        "winners": winners(g),
        "status": _status(g, None),
    }


# ---------------------------------------------------------------- the terminal
def _cards_by_colour(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        key = "jokers" if c[0] == "J" else c[0]
        groups.setdefault(key, []).append(c if key == "jokers" else c[1:])
    return "   ".join(f"{key}: {' '.join(vals)}" for key, vals in groups.items()) or "(none)"


def render_table(t: dict, you: int, agents: Sequence[str]) -> str:
    """A table (from :func:`table`) and the viewer's hand as text."""
    head = [f"Round {t['round']} of {t['rounds']}", f"{t['hand_size']} cards each",
            f"dealer {seat_label(t['dealer'], you)}", f"bids {t['bids_total']}", "yellow is trumps"]
    width, names = name_column(t["players"], agents)
    lines = [" · ".join(head), f"  {'player':<{width}}{'score':>6}  {'bid':<6}{'tricks':>6}  "]
    for p, name in zip(t["players"], names):
        marks = [m for m, on in (("dealer", p["dealer"]), ("<- to act", p["to_act"]), ("WINNER", p["winner"])) if on]
        bid = "-" if p["bid"] is None else str(p["bid"])
        lines.append(f"  {name[0]:<{width}}{p['score']:>6}  {bid:<6}{p['tricks']:>6}  {' '.join(marks)}")
        lines += [f"  {more}" for more in name[1:]]
    if t["trick"]:
        lines.append("  trick: " + "  ".join(f"{seat_label(c['seat'], you)} {c['card']}" for c in t["trick"]))
    elif t["last_trick"]:
        last = t["last_trick"]
        lines.append("  last trick: " + "  ".join(f"{seat_label(c['seat'], you)} {c['card']}" for c in last["cards"])
                     + f"  -> {seat_label(last['winner'], you)}")
    if t["your_discards"]:
        lines.append(f"  your discards: {' '.join(t['your_discards'])}")
    lines.append(f"  your hand: {_cards_by_colour(t['your_hand'])}")
    return "\n".join(lines)


__all__ = ["action_name", "sorted_hand", "hand", "page_info", "shown_action", "describe", "winner", "winners",
           "truncated", "extras", "table", "question", "stakes", "effects", "sheet", "sheet_view", "frame",
           "render_table", "rules_page", "card_text", "why_illegal", "SHORT", "HELP", "seat_label"]
