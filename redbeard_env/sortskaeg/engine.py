"""Sortskæg's batch engines for tournaments: the family's (:mod:`redbeard_env.family.engine`)
over Sortskæg's reference and batch engines.

``job.decks`` is [K, 42]: the deck of each deal in order (top first); a game deals at most
``len(hand_sizes)`` times, so ``K = len(hand_sizes)`` fixes all of a game's cards. Events:
the family's, per scored round ``round_hand_size``, ``round_bids`` and ``round_tricks``.
"""

from __future__ import annotations

from ..family import engine as _family
from . import records
from .parts import SORTSKAEG
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "ROUND_KEYS"]

ROUND_KEYS = _family.ROUND_KEYS


class ReferenceBatch(_family.ReferenceBatch):
    """Sortskæg's jobs on the reference engine."""

    parts = SORTSKAEG
    records = records


class VectorBatch(_family.VectorBatch):
    """Sortskæg's jobs on its batch engine."""

    vector_env = VectorEnv


ENGINES = {"vector": VectorBatch, "reference": ReferenceBatch}
