"""A compact text view of a game that a person can follow a game by.

Shows the round, dealer, phase, each seat's score, call, tricks and status, the current
trick, and the observer's hand (other hands stay hidden unless ``reveal=True``).
"""

from __future__ import annotations

from .cards import REDBEARD_LEVEL, card_name, format_cards

_STATUS = {"redeal": "redeal?", "look": "look?", "bid": "to call", "ask": "ask?", "join": "join?"}


def call_text(call: int | None) -> str:
    if call is None:
        return "-"
    if call < 0:
        return "pass"
    return "Rödskägg" if call == REDBEARD_LEVEL else str(call)


def render_text(g, observer: int | None = None, reveal: bool = False) -> str:
    n = g.num_players
    head = f"round {g.rounds_played + 1}/{g.rules.max_rounds}  phase: {g.phase}"
    if g.phase == "duel":
        head += f"  (duel, tie {g.tied_duels + 1})"
    if g.phase in ("play", "ask", "join"):
        head += f"  trick {min(g.tricks_done + 1, 6)}/6"
    lines = [head, f"{'seat':<10}{'score':>6}  {'call':<9}{'tricks':>6}  status"]
    for s in range(n):
        marks = []
        if s == g.dealer:
            marks.append("dealer")
        if s == g.declarer:
            marks.append("declarer")
        if not g.active[s]:
            marks.append("eliminated")
        elif not g.in_round[s]:
            marks.append("out of round" if g.phase != "duel" else "watching")
        if g.joiner[s]:
            marks.append("joiner")
        if g.bounced[s]:
            marks.append("bounced")
        if s == g.to_act:
            marks.append("<- " + _STATUS.get(g.phase, "to play"))
        if g.winner == s:
            marks.append("WINNER")
        name = f"player_{s}" + ("*" if s == observer else "")
        lines.append(f"{name:<10}{g.scores[s]:>6}  {call_text(g.calls[s]):<9}{g.tricks[s]:>6}  {' '.join(marks)}")
    if g.trick:
        lines.append("trick: " + "  ".join(f"p{s}:{card_name(c)}" for s, c in g.trick))
    if g.phase == "look" and g.thrower >= 0:
        lines.append(f"player_{g.thrower} threw in a hand")
    if reveal:
        for s in range(n):
            if g.hands[s]:
                lines.append(f"hand p{s}: {format_cards(g.hands[s])}")
    elif observer is not None and g.hands[observer]:
        lines.append(f"hand of player_{observer}: {format_cards(g.hands[observer])}")
    if g.truncated:
        lines.append(f"game truncated after {g.rounds_played} rounds")
    return "\n".join(lines)
