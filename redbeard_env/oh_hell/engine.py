"""Oh Hell's batch engines for tournaments: the family's (:mod:`redbeard_env.family.engine`)
over Oh Hell's reference and batch engines.

``job.decks`` is [1, 104]: the deal's deck row (the 52 card ids top first, then the
permutation that draws a drawn hand size). Events: the family's, per scored deal
``round_hand_size``, ``round_bids`` and ``round_tricks``.
"""

from __future__ import annotations

from ..family.engine import ROUND_KEYS, game_engines
from . import records
from .parts import OH_HELL
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "ROUND_KEYS"]

ENGINES = game_engines(__name__, OH_HELL, records, VectorEnv)
ReferenceBatch, VectorBatch = ENGINES["reference"], ENGINES["vector"]
