"""Sortskæg's batch engines for tournaments: the family's (:mod:`redbeard_env.family.engine`)
over Sortskæg's reference and batch engines.

``job.decks`` is [K, 42]: the deck of each deal in order (top first); a game deals at most
``len(hand_sizes)`` times, so ``K = len(hand_sizes)`` fixes all of a game's cards. Events:
the family's, per scored round ``round_hand_size``, ``round_bids`` and ``round_tricks``.
"""

from __future__ import annotations

from ..family.engine import ROUND_KEYS, game_engines
from . import records
from .parts import SORTSKAEG
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "ROUND_KEYS"]

ENGINES = game_engines(__name__, SORTSKAEG, records, VectorEnv)
ReferenceBatch, VectorBatch = ENGINES["reference"], ENGINES["vector"]
