"""A text view of a Sortskæg game (the AEC env's ``render``): the family's
(:mod:`redbeard_env.family.render`) headed by the round and its hand size."""

from __future__ import annotations

from ..family import render as family


def render_text(g, observer: int | None = None, reveal: bool = False) -> str:
    """A compact text view: round, hand size, phase, each seat's total, bid and tricks, the
    current trick and the observer's hand (other hands hidden unless ``reveal``)."""
    R = g.rules.num_rounds
    return family.render_text(g, observer, reveal, f"round {min(g.round + 1, R)}/{R}  hand size {g.hand_size}  "
                                                   f"phase: {g.phase}")
