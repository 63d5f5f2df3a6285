"""A text view of a family game (the AEC env's ``render``): a game's ``render.py`` gives the
first line in its words."""

from __future__ import annotations

MARKS = {"bid": "<- to bid", "play": "<- to play", "discard": "<- to discard"}


def render_text(g, observer: int | None, reveal: bool, head: str, score: str = "score") -> str:
    """A compact text view: ``head``, then each seat's total (the column headed ``score``),
    bid and tricks, the current trick and the observer's hand (other hands hidden unless
    ``reveal``)."""
    cards = g.fam.cards
    w = len(score) + 1
    lines = [head, f"{'seat':<10}{score:>{w}}  {'bid':<4}{'tricks':>6}  status"]
    for s in range(g.num_players):
        marks = []
        if s == g.dealer:
            marks.append("dealer")
        if s == g.to_act:
            marks.append(MARKS[g.phase])
        if s in g.winners:
            marks.append("WINNER")
        bid = "-" if not g.bids or g.bids[s] is None else str(g.bids[s])
        name = f"player_{s}" + ("*" if s == observer else "")
        lines.append(f"{name:<10}{g.scores[s]:>{w}}  {bid:<4}{g.tricks[s]:>6}  {' '.join(marks)}")
    if g.trick:
        lines.append("trick: " + "  ".join(f"p{s}:{cards.card_name(c)}" for s, c in g.trick))
    seats = range(g.num_players) if reveal else ([] if observer is None else [observer])
    for s in seats:
        if g.hands[s]:
            lines.append(f"hand of player_{s}: {cards.format_cards(g.hands[s])}")
    return "\n".join(lines)
