"""A text view of an Oh Hell game (the AEC env's ``render``): the family's
(:mod:`redbeard_env.family.render`) headed by the deal's tricks and the trump card."""

from __future__ import annotations

from ..family import render as family
from .cards import card_name


def render_text(g, observer: int | None = None, reveal: bool = False) -> str:
    """A compact text view: the deal, the trump card, phase, each seat's bid, tricks and
    points, the current trick and the observer's hand (other hands hidden unless ``reveal``)."""
    trump = card_name(g.trump_card) if g.trump_card >= 0 else "-"
    return family.render_text(g, observer, reveal, f"{g.hand_size} tricks  trump card {trump}  phase: {g.phase}",
                              score="points")
