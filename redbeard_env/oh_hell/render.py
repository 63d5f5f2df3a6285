"""A text view of an Oh Hell game (the AEC env's ``render``)."""

from __future__ import annotations

from .cards import card_name, format_cards


def render_text(g, observer: int | None = None, reveal: bool = False) -> str:
    """A compact text view: the deal, the trump card, phase, each seat's bid, tricks and
    points, the current trick and the observer's hand (other hands hidden unless ``reveal``)."""
    trump = card_name(g.trump_card) if g.trump_card >= 0 else "-"
    lines = [f"{g.hand_size} tricks  trump card {trump}  phase: {g.phase}",
             f"{'seat':<10}{'points':>7}  {'bid':<4}{'tricks':>6}  status"]
    for s in range(g.num_players):
        marks = []
        if s == g.dealer:
            marks.append("dealer")
        if s == g.to_act:
            marks.append({"bid": "<- to bid", "play": "<- to play"}.get(g.phase, ""))
        if s in g.winners:
            marks.append("WINNER")
        bid = "-" if not g.bids or g.bids[s] is None else str(g.bids[s])
        name = f"player_{s}" + ("*" if s == observer else "")
        lines.append(f"{name:<10}{g.scores[s]:>7}  {bid:<4}{g.tricks[s]:>6}  {' '.join(marks)}")
    if g.trick:
        lines.append("trick: " + "  ".join(f"p{s}:{card_name(c)}" for s, c in g.trick))
    seats = range(g.num_players) if reveal else ([] if observer is None else [observer])
    for s in seats:
        if g.hands[s]:
            lines.append(f"hand of player_{s}: {format_cards(g.hands[s])}")
    return "\n".join(lines)
