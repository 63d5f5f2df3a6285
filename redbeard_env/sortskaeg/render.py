"""A text view of a Sortskæg game (the AEC env's ``render``)."""

from __future__ import annotations

from ..family import game as G
from .cards import card_name, format_cards


def render_text(g: G.Game, observer: int | None = None, reveal: bool = False) -> str:
    """A compact text view: round, hand size, phase, each seat's total, bid and tricks, the
    current trick and the observer's hand (other hands hidden unless ``reveal``)."""
    R = g.rules.num_rounds
    head = f"round {min(g.round + 1, R)}/{R}  hand size {g.hand_size}  phase: {g.phase}"
    lines = [head, f"{'seat':<10}{'score':>6}  {'bid':<4}{'tricks':>6}  status"]
    for s in range(g.num_players):
        marks = []
        if s == g.dealer:
            marks.append("dealer")
        if s == g.to_act:
            marks.append({"bid": "<- to bid", "play": "<- to play", "discard": "<- to discard"}[g.phase])
        if s in g.winners:
            marks.append("WINNER")
        bid = "-" if not g.bids or g.bids[s] is None else str(g.bids[s])
        name = f"player_{s}" + ("*" if s == observer else "")
        lines.append(f"{name:<10}{g.scores[s]:>6}  {bid:<4}{g.tricks[s]:>6}  {' '.join(marks)}")
    if g.trick:
        lines.append("trick: " + "  ".join(f"p{s}:{card_name(c)}" for s, c in g.trick))
    seats = range(g.num_players) if reveal else ([] if observer is None else [observer])
    for s in seats:
        if g.hands[s]:
            lines.append(f"hand of player_{s}: {format_cards(g.hands[s])}")
    return "\n".join(lines)
