"""Rödskägg's table views: what the web table and the terminal game (:mod:`redbeard_web`)
show of a reference-engine game (:mod:`redbeard_env.redbeard.game`), for one seat.

The apps are game-agnostic: they reach this module through the registry
(``load_object(game_named("redbeard").views)``) and call the functions below, which every
game's views module has with the same signatures (Sortskæg's: :mod:`redbeard_env.sortskaeg.views`).

**Only what the seat may know.** Every function that takes a ``seat`` (or ``you``) shows
that seat's own hand, the thrown-in cards it has seen (its own, a hand it looked at), the
cards played face up and public facts (calls, scores, tricks, how many cards each player
holds, the size of the stock); never another hand, the stock's cards, a thrown-in hand not
looked at, or the seed. :func:`frame` (a finished game's replay) is the exception: every
hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
Texts are plain English; cards and actions are SPEC names (``AS``, ``play:AS``, ``bid:3``).
"""

from __future__ import annotations

from typing import Sequence

from ..viewparts import frame_base, name_column, score_series, seat_label
from .cards import REDBEARD_LEVEL, SUITS, action_name as _action_name, card_name
from .rules import PRESETS, TRICKS_PER_ROUND
from .stakes import SUIT_SYMBOL, card_text, question, rules_page, stakes, why_illegal  # noqa: F401 (the views' API)

SUIT_ORDER = "SHCD"  # hands shown spades, hearts, clubs, diamonds: colours alternate
RED_SUITS = "HD"
_VERBS = {
    "pass": "passes", "redbeard": "calls Rödskägg", "join": "joins", "fold": "folds",
    "ask": "asks who joins", "skip": "skips the join question", "keep": "keeps the hand",
    "redeal": "throws the hand in", "look": "looks at the thrown-in hand", "no_look": "does not look",
}
#: score reasons (Game.events) as words
REASONS = {
    "trick": "trick", "look": "look", "bid_over_score": "bid over score", "forget": "skipped the join question",
    "contract": "contract failed", "joiner_fail": "joined without a trick", "zero_trick": "no trick",
    "redbeard_zero": "Rödskägg made: set to 0", "bounce": "after reaching 0 (bounce)",
}
#: buttons of the moves that are not cards
ACTION_LABELS = {
    "pass": "Pass", "redbeard": "Rödskägg!", "keep": "Keep hand", "redeal": "Throw in (redeal)",
    "look": "Look at it", "no_look": "Don't look", "ask": "Ask: who joins?", "skip": "Skip the question",
    "join": "Join", "fold": "Fold",
}
INTRO = ("Aim to stand on exactly 0 points: tricks lower your score, penalties raise it. The highest bidder "
         "leads and must make the contract; with two tricks left the players without a trick may fold.")
#: the bot the review of your play asks by default (its action_values are expected points)
REVIEW_BOT = "heuristic"
#: the terminal's short forms of moves (besides cards, bid numbers and starts of names)
SHORT = {
    "p": "pass", "r": "redbeard", "rb": "redbeard", "rödskägg": "redbeard", "rodskagg": "redbeard",
    "k": "keep", "t": "redeal", "throw": "redeal", "rd": "redeal", "y": "look", "yes": "look", "n": "no_look",
    "no": "no_look", "a": "ask", "s": "skip", "j": "join", "f": "fold",
}
HELP = """Type an action at the prompt:
  a card to play:  AS  10d  play:QH          a bid:  3  bid:3  p (pass)  r (Rödskägg)
  k / t  keep the hand / throw it in         y / n  look at a thrown-in hand or not
  a / s  ask who joins / skip the question   j / f  join / fold
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


# ---------------------------------------------------------------- names and cards
def action_name(g, action: int) -> str:
    """The SPEC name of ``action`` in ``g``'s current phase."""
    return _action_name(action)


def sorted_hand(cards) -> list[str]:
    """Card names sorted by suit (S H C D), high cards first."""
    return [card_name(c) for c in sorted(cards, key=lambda c: (SUIT_ORDER.index(SUITS[c // 13]), -(c % 13)))]


def hand(g, seat: int) -> list[str]:
    return sorted_hand(g.hands[seat])


def card_faces() -> dict[str, list[str]]:
    """How the page draws each card: name -> [label, mark, css class]."""
    faces = {}
    for c in range(52):
        name = card_name(c)
        faces[name] = ["10" if name[0] == "T" else name[0], SUIT_SYMBOL[name[1]],
                       "red" if name[1] in RED_SUITS else "black"]
    return faces


def page_info() -> dict:
    """What the page needs to draw this game: card faces, move labels, an introduction."""
    return {"cards": card_faces(), "labels": dict(ACTION_LABELS),
            "prefixes": {"play:": "Play ", "bid:": "Bid "}, "intro": INTRO,
            "keys": {k: v for k, v in SHORT.items() if len(k) == 1}, "flag_help": dict(FLAG_HELP),
            "rules_pages": {preset: rules_page(r) for preset, r in PRESETS.items()}}


def card_name_of(text: str) -> str:
    """The SPEC name of a card as a move names it (``10D`` -> ``TD``)."""
    return "T" + text[2:].upper() if text.startswith("10") else text.upper()


def call_name(call: int | None) -> str | None:
    """A seat's call as an action name: None (not called), ``pass``, ``bid:k``, ``redbeard``."""
    if call is None:
        return None
    if call < 0:
        return "pass"
    return "redbeard" if call == REDBEARD_LEVEL else f"bid:{call}"


def call_text(call: str | None) -> str:
    if call is None:
        return ""
    return {"pass": "pass", "redbeard": "Rödskägg"}.get(call, call.replace("bid:", "bid "))


def shown_action(seat: int, name: str, you: int | None) -> str:
    """The move as ``you`` may see it: every Rödskägg move is public."""
    return name


def describe(seat: int, name: str, you: int | None = None) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play AS``."""
    who = seat_label(seat, you)
    mine = seat == you
    if name.startswith("play:"):
        return f"{who} {'play' if mine else 'plays'} {card_text(card_name_of(name[5:]))}"
    if name.startswith("bid:"):
        return f"{who} {'bid' if mine else 'bids'} {name[4:]}"
    verb = _VERBS.get(name, name)
    if mine:  # "passes" -> "pass", "throws ..." -> "throw ...", "does not" -> "do not"
        first, _, rest = verb.partition(" ")
        first = {"does": "do", "asks": "ask", "passes": "pass"}.get(first, first[:-1] if first.endswith("s") else first)
        verb = f"{first} {rest}".strip()
    return f"{who} {verb}"


# ---------------------------------------------------------------- the outcome
def winner(g) -> int | None:
    return g.winner


def winners(g) -> list[int]:
    return [] if g.winner is None else [g.winner]


def truncated(g) -> bool:
    return bool(g.truncated)


def extras(g, seat: int) -> dict:
    """Rödskägg's own view fields: the thrown-in cards this seat has seen (also as a
    ``card_notes`` entry: labelled cards the page shows beside the hand)."""
    seen = sorted_hand(g.seen_thrown[seat])
    return {"seen_thrown": seen, "card_notes": [{"label": "Thrown-in cards you have seen", "cards": seen}] if seen else []}


# ---------------------------------------------------------------- the public table
#: what each flag on a seat means (the page shows it as the flag's tooltip: flags themselves
#: stay short, since every move's table carries them)
FLAG_HELP = {
    "D": "dealer: deals this round and calls last",
    "★": "declarer: made the highest bid and must make it (leads every trick, or the first one: see Rules)",
    "joined": "joined the last tricks without a trick: a joiner's tricks may count more, and taking none may "
              "cost a penalty (see the stakes and Rules)",
    "bounced": "reached 0 this round: each further trick adds points",
    "out": "out of the game",
    "folded": "folded: sits out the rest of this round",
    "winner": "won the game",
}


def _flags(g, s: int) -> list[dict]:
    flags = []
    if s == g.dealer:
        flags.append({"text": "D", "class": "dealer", "title": "dealer"})
    if s == g.declarer:
        flags.append({"text": "★", "class": "declarer", "title": "declarer"})
    if g.joiner[s]:
        flags.append({"text": "joined", "class": "", "title": "joined"})
    if g.bounced[s]:
        flags.append({"text": "bounced", "class": "", "title": "bounced"})
    if not g.active[s]:
        flags.append({"text": "out", "class": "out", "title": "out of the game"})
    elif not g.in_round[s]:
        flags.append({"text": "folded", "class": "out", "title": "folded this round"})
    if s == g.winner:
        flags.append({"text": "winner", "class": "winner", "title": "won the game"})
    return flags


def _status(g, you: int | None) -> list[str]:
    parts = [f"Round {g.rounds_played + (0 if g.game_over else 1)}", f"dealer {seat_label(g.dealer, you)}"]
    if g.declarer >= 0:
        parts.append(f"declarer {seat_label(g.declarer, you)} ({call_text(call_name(g.high_level))})")
    if g.phase == "duel":
        parts.append("duel between " + " and ".join(seat_label(s, you) for s in g.duellists))
    if g.to_act >= 0:
        parts.append("your turn" if g.to_act == you else f"player_{g.to_act} to act")
    parts.append(f"stock {len(g.stock)} cards")
    return parts


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict:
    """The public table as ``seat`` sees it: everything here is known to every player, plus
    that seat's own hand (``your_hand``). ``last_trick`` (kept by the caller) is the trick
    just finished, shown until the next deal's first move."""
    in_play = g.phase in ("play", "duel", "ask", "join")
    players = []
    for s in range(g.num_players):
        call = call_name(g.calls[s])
        players.append({
            "seat": s, "name": seat_label(s, seat), "agent": agents[s], "score": g.scores[s],
            "call": call, "call_text": call_text(call), "tricks": g.tricks[s], "active": g.active[s],
            "in_round": g.in_round[s], "joiner": g.joiner[s], "bounced": g.bounced[s],
            "hand_size": len(g.hands[s]), "throws": g.throws[s], "dealer": s == g.dealer,
            "declarer": s == g.declarer, "to_act": s == g.to_act, "winner": s == g.winner,
            "flags": _flags(g, s), "inactive": not g.active[s] or not g.in_round[s],
        })
    return {
        "phase": g.phase,
        "to_act": g.to_act if g.to_act >= 0 else None,
        "round": g.rounds_played + (0 if g.game_over else 1),
        "dealer": g.dealer,
        "declarer": g.declarer if g.declarer >= 0 else None,
        "high_bid": call_name(g.high_level) if g.high_level >= 0 else None,
        # a finished trick stays in g.trick while the join question is asked: it is the last trick then
        "trick": [] if g.phase in ("ask", "join") else [{"seat": s, "card": card_name(c)} for s, c in g.trick],
        "leader": g.leader if in_play and g.leader >= 0 else None,
        "last_trick": last_trick,
        "tricks_done": g.tricks_done,
        "join_state": g.join_state,
        "thrower": g.thrower if g.thrower >= 0 else None,
        "stock_size": len(g.stock),
        "redeals_open": g.redeals_open,
        "reshuffled": g.reshuffled,
        "duellists": list(g.duellists),
        "scores": list(g.scores),
        "players": players,
        "your_hand": sorted_hand(g.hands[seat]) if seat is not None else [],
        "status": _status(g, seat),
        "trick_note": f"trick {g.tricks_done + 1} of {TRICKS_PER_ROUND}" if g.phase in ("play", "duel") else "",
    }


# ---------------------------------------------------------------- effects of a move
def effects(g, seat: int, action: int, events: Sequence[tuple], trick_before: Sequence[tuple[int, int]],
            deal: dict | None, you: int | None, earlier: Sequence[dict] = ()) -> list[dict]:
    """The public consequences of ``seat``'s ``action`` from the game's ``events`` (score
    changes with their reason, a trick won, the round's end, an elimination, a duel, the
    winner, a new deal), each with a ``text`` as ``you`` read it. ``trick_before`` is the
    trick before the move, ``deal`` the recorder's new deal entry if the move led to one,
    ``earlier`` the score changes of this round before the move (the round's end lists
    them all in its ``changes`` and ``summary``)."""
    out: list[dict] = []
    for e in events:
        kind = e[0]
        if kind == "score":
            reason = "bounce" if e[3] == "trick" and e[2] > 0 else e[3]
            out.append({"type": "score", "seat": e[1], "delta": e[2], "reason": reason,
                        "text": f"{seat_label(e[1], you)} {_signed(e[2])} ({REASONS.get(reason, reason)})"})
        elif kind == "trick":
            cards = [{"seat": s, "card": card_name(c)} for s, c in list(trick_before) + [(seat, action)]]
            out.append({"type": "trick", "winner": e[1], "cards": cards,
                        "text": f"{seat_label(e[1], you)} {'take' if e[1] == you else 'takes'} the trick"})
        elif kind == "round_end":
            _, number, declarer, level, tricks = e[:5]
            out.append({"type": "round_end", "round": number, "declarer": declarer if declarer >= 0 else None,
                        "bid": call_name(level) if level >= 0 else None, "tricks": list(tricks),
                        "text": f"round {number} over"})
        elif kind == "eliminated":
            out.append({"type": "eliminated", "seat": e[1],
                        "text": f"{seat_label(e[1], you)} {'are' if e[1] == you else 'is'} out of the game"})
        elif kind == "duel":
            out.append({"type": "duel", "seats": list(e[1]),
                        "text": "duel: " + " vs ".join(seat_label(s, you) for s in e[1])})
        elif kind == "winner":
            out.append({"type": "winner", "seat": e[1], "seats": [e[1]],
                        "text": f"{seat_label(e[1], you)} {'win' if e[1] == you else 'wins'} the game!"})
        elif kind == "truncated":
            out.append({"type": "truncated", "text": "the game reached its round limit"})
    if deal is not None:
        out.append({"type": "deal", "dealer": deal["dealer"], "kind": deal["kind"],
                    "text": "new duel deal" if deal["kind"] == "duel"
                    else f"new deal, dealer {seat_label(deal['dealer'], you)}"})
    for e in out:
        if e["type"] == "round_end":
            scored = list(earlier) + [x for x in out if x["type"] == "score"]
            e["changes"] = round_changes(scored, g.scores, you)
            e["headline"] = _round_headline(e, out, you)
            e["notes"] = [x["text"] for x in out if x["type"] in ("eliminated", "duel", "winner", "truncated")]
            e["summary"] = _round_summary(e)
    return out


def round_changes(scored: Sequence[dict], scores: Sequence[int], you: int | None) -> list[dict]:
    """Every score change of a round, per seat: ``{"seat", "before", "after", "items":
    [{"reason", "delta", "count", "text"}], "text"}`` (tricks summed, penalties one by one)."""
    per_seat: dict[int, list[dict]] = {}
    for e in scored:
        items = per_seat.setdefault(e["seat"], [])
        same = next((i for i in items if i["reason"] == e["reason"]), None)
        if same is not None:
            same["delta"] += e["delta"]
            same["count"] += 1
            continue
        items.append({"reason": e["reason"], "delta": e["delta"], "count": 1})
    out = []
    for s in sorted(per_seat):
        items = sorted(per_seat[s], key=lambda i: i["reason"] not in ("trick", "bounce"))  # tricks first
        for i in items:
            n = i["count"]
            if i["reason"] == "trick":
                i["text"] = f"{_signed(i['delta'])} for {n} trick{'s' if n != 1 else ''}"
            elif i["reason"] == "bounce":
                i["text"] = f"{_signed(i['delta'])} for {n} trick{'s' if n != 1 else ''} past 0 (bounce)"
            else:
                i["text"] = f"{_signed(i['delta'])} {REASONS.get(i['reason'], i['reason'])}" + (f" ({n}×)" if n > 1 else "")
        total = sum(i["delta"] for i in items)
        after = int(scores[s])
        out.append({"seat": s, "before": after - total, "after": after, "items": items,
                    "text": f"{seat_label(s, you)}: {after - total} → {after} ({', '.join(i['text'] for i in items)})"})
    return out


def _signed(delta: int) -> str:
    """``+5``, ``−3`` (a real minus sign)."""
    return f"+{delta}" if delta >= 0 else f"−{-delta}"


def _round_headline(end: dict, effects: list[dict], you: int | None) -> str:
    """The round's result in a sentence: who bid what and whether they made it."""
    if end["declarer"] is None:
        return f"Round {end['round']}: everyone passed."
    d = end["declarer"]
    failed = any(e["type"] == "score" and e["reason"] == "contract" and e["seat"] == d for e in effects)
    made = end["tricks"][d] == TRICKS_PER_ROUND if end["bid"] == "redbeard" else not failed
    bid = "called Rödskägg" if end["bid"] == "redbeard" else f"bid {end['bid'][4:]}"
    return (f"Round {end['round']}: {seat_label(d, you)} {bid} and took {end['tricks'][d]} — "
            f"{'made it' if made else 'failed'}.")


def _round_summary(end: dict) -> str:
    """The headline, then every score change of the round with its reason, eliminations and
    the winner."""
    lines = [c["text"] for c in end["changes"]] or ["no score changed"]
    tail = "; ".join(lines + end["notes"])
    return f"{end['headline']} {tail}" + ("" if tail.endswith(("!", ".")) else ".")


# ---------------------------------------------------------------- the score sheet
def sheet(recorder) -> list[dict]:
    """One row per scored round (the record's ``rounds``)."""
    return [dict(r) for r in recorder.rounds]


def sheet_view(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> dict:
    """The score sheet as a table: the round, the declarer and bid, then each player's score
    after the round (``sub``: the tricks taken; class ``folded``: folded or out), plus the
    scores as ``series`` per seat for a chart (from ``start``, the start scores, if given)."""
    short = [("You" if s == you else f"P{s}") for s in range(num_players)]
    head = [{"text": "#", "title": "round"}, {"text": "bid", "title": "declarer: bid (R = Rödskägg)"}] + [
        {"text": short[s], "title": seat_label(s, you)} for s in range(num_players)]
    body = []
    for r in rows:
        d = r["declarer"]
        bid = "" if r["bid"] is None else ("R" if r["bid"] == "redbeard" else r["bid"][4:])
        row = [{"text": str(r["round"])},
               {"text": "–" if d is None else f"{short[d]}:{bid}",
                "title": "all passed" if d is None else f"{seat_label(d, you)} {call_text(r['bid'])}"}]
        for s in range(num_players):
            tricks, folded = r["tricks"][s], not r["in_round"][s]
            cell = {"text": str(r["scores"][s])}
            if tricks:
                cell["sub"] = str(tricks)
            if folded:
                cell["title"] = "folded or out"
            cls = " ".join(c for c, on in (("zero", r["scores"][s] == 0), ("folded", folded)) if on)
            if cls:
                cell["class"] = cls
            row.append(cell)
        body.append(row)
    legend = "Scores after each round; small numbers: tricks taken; grey: folded or out; green: on 0."
    return {"head": head, "rows": body, "legend": legend,
            "series": score_series(rows, num_players, you, start)}


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str]) -> dict:
    """A replay frame: the whole game state with every hand and the stock face up."""
    return {
        **frame_base(g, agents, table, sorted_hand, card_name),
        "stock": [card_name(c) for c in g.stock],
        "calls": [call_name(c) for c in g.calls],
        "in_round": list(g.in_round),
        "active": list(g.active),
        "declarer": g.declarer if g.declarer >= 0 else None,
        "round": g.rounds_played + (0 if g.game_over else 1),
        "winner": g.winner,
        "winners": winners(g),
        "status": _status(g, None),
    }


# ---------------------------------------------------------------- the terminal
def _cards_by_suit(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(SUIT_SYMBOL[c[1]], []).append("10" if c[0] == "T" else c[0])
    return "   ".join(f"{suit}: {' '.join(ranks)}" for suit, ranks in groups.items()) or "(none)"


def render_table(t: dict, you: int, agents: Sequence[str]) -> str:
    """A table (from :func:`table`) and the viewer's hand as text."""
    head = [f"Round {t['round']}", f"dealer {seat_label(t['dealer'], you)}"]
    if t["declarer"] is not None:
        head.append(f"declarer {seat_label(t['declarer'], you)} ({call_text(t['high_bid'])})")
    if t["phase"] == "duel":
        head.append("duel")
    head.append(f"stock {t['stock_size']}")
    width, names = name_column(t["players"], agents)
    lines = [" · ".join(head), f"  {'player':<{width}}{'score':>6}  {'call':<10}{'tricks':>6}  "]
    for p, name in zip(t["players"], names):
        marks = [m for m, on in (("dealer", p["dealer"]), ("declarer", p["declarer"])) if on]
        if not p["active"]:
            marks.append("out of the game")
        elif not p["in_round"]:
            marks.append("folded")
        marks += [m for m, on in (("joined", p["joiner"]), ("<- to act", p["to_act"]), ("WINNER", p["winner"])) if on]
        call = call_text(p["call"]) or "-"
        lines.append(f"  {name[0]:<{width}}{p['score']:>6}  {call:<10}{p['tricks']:>6}  {' '.join(marks)}")
        lines += [f"  {more}" for more in name[1:]]
    lines += _trick_lines(t, you)
    lines.append(f"  your hand: {_cards_by_suit(t['your_hand'])}")
    return "\n".join(lines)


def _trick_lines(t: dict, you: int) -> list[str]:
    if t["trick"]:
        return ["  trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}" for c in t["trick"])]
    last = t["last_trick"]
    if last:
        return ["  last trick: " + "  ".join(f"{seat_label(c['seat'], you)} {card_text(c['card'])}"
                                             for c in last["cards"]) + f"  → {seat_label(last['winner'], you)}"]
    return []


__all__ = ["action_name", "sorted_hand", "hand", "page_info", "shown_action", "describe", "winner", "winners",
           "truncated", "extras", "table", "question", "stakes", "effects", "round_changes", "sheet", "sheet_view",
           "frame", "render_table", "rules_page", "card_text", "why_illegal", "SHORT", "HELP", "seat_label"]
