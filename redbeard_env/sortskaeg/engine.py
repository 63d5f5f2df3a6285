"""Sortskæg's batch engines for tournaments: the :class:`~redbeard_env.engine.BatchEngine`
interface over the reference engine and the batch engine (``make_engine`` picks them
for a Sortskæg ``Rules``).

``job.decks`` is [K, 42]: the deck of each deal in order (top first); a game deals at
most ``len(hand_sizes)`` times, so ``K = len(hand_sizes)`` fixes all of a game's cards.
``job.scores`` are starting totals (``None``: 0).

Besides the shared events (``done``, ``winner`` -- the single winner's seat, -1 for a
tie --, ``winners``, ``final_score``, ``score``, ``rounds``, ``round_over``; never
``truncated``), a step reports per scored round ``round_hand_size`` int64 [B],
``round_bids`` and ``round_tricks`` int64 [B, n].
"""

from __future__ import annotations

import numpy as np

from ..engine import Job, ReferenceBatchBase, VectorBatchBase, empty_events
from . import game as G
from . import records
from .parts import SORTSKAEG
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "ROUND_KEYS", "round_events"]

ROUND_KEYS = ("round_hand_size", "round_bids", "round_tricks")


def round_events(B: int, n: int) -> dict:
    """The shared events plus Sortskæg's round records."""
    ev = empty_events(B, n)
    ev["round_hand_size"] = np.zeros(B, np.int64)
    ev["round_bids"] = np.full((B, n), -1, np.int64)
    return ev


class ReferenceBatch(ReferenceBatchBase):
    """Sortskæg's jobs on the reference engine."""

    parts = SORTSKAEG
    records = records

    def empty_events(self, B: int) -> dict:
        return round_events(B, self.n)

    def new_game(self, job: Job, rng: np.random.Generator):
        return G.new_game(self.rules, self.n, rng, dealer=job.dealer, scores=job.scores,
                          decks=[list(map(int, d)) for d in job.decks])

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        _, _, size, bids, tricks, _ = event
        ev["round_hand_size"][b] = size
        ev["round_bids"][b] = bids
        ev["round_tricks"][b] = tricks

    def end_events(self, ev: dict, b: int, g) -> None:
        ev["winners"][b, g.winners] = True
        ev["winner"][b] = g.winners[0] if len(g.winners) == 1 else -1
        ev["rounds"][b] = g.round


class VectorBatch(VectorBatchBase):
    """Sortskæg's jobs on its batch engine."""

    vector_env = VectorEnv
    round_keys = ROUND_KEYS

    def empty_events(self, B: int) -> dict:
        return round_events(B, self.n)

    def winners(self, info: dict) -> np.ndarray:
        return np.asarray(info["winners"], bool)


ENGINES = {"vector": VectorBatch, "reference": ReferenceBatch}
