"""Rödskägg's batch engines for tournaments: the :class:`~redbeard_env.engine.BatchEngine`
interface over the reference engine (:class:`ReferenceBatch`, which can keep a game record
of every job) and the batch engine (:class:`VectorBatch`).

``job.decks`` is [K, 104]: each deal's deck top first, then the order in which thrown-in
cards are reshuffled. Events: the shared ones, with per scored round ``round_declarer``
(-1: all passed), ``round_bid`` (0..6, 7 = Rödskägg) and ``round_tricks`` [B, n].
"""

from __future__ import annotations

import numpy as np

from ..engine import Job, ReferenceBatchBase, VectorBatchBase
from . import game as G
from . import records
from .cards import NUM_CARDS
from .parts import REDBEARD
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "ROUND_FIELDS", "ROUND_KEYS"]

#: the per-round events besides round_tricks: the declarer (-1: all passed) and its bid level (0..6, 7 = Rödskägg)
ROUND_FIELDS = {"round_declarer": (-1, False), "round_bid": (-1, False)}
ROUND_KEYS = (*ROUND_FIELDS, "round_tricks")


class ReferenceBatch(ReferenceBatchBase):
    """Rödskägg's jobs on the reference engine."""

    parts = REDBEARD
    records = records
    round_fields = ROUND_FIELDS

    def new_game(self, job: Job, rng: np.random.Generator):
        decks = [(list(map(int, d[:NUM_CARDS])), _rank_of(d[NUM_CARDS:])) for d in job.decks]
        return G.new_game(self.rules, self.n, rng, dealer=job.dealer, scores=job.scores, decks=decks)

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        _, _, declarer, level, tricks, _joiner, _in_round = event
        ev["round_declarer"][b] = declarer
        ev["round_bid"][b] = level
        ev["round_tricks"][b] = tricks

    def end_events(self, ev: dict, b: int, g) -> None:
        ev["truncated"][b] = g.truncated
        if g.winner is not None:
            ev["winner"][b] = g.winner
            ev["winners"][b, g.winner] = True
        ev["rounds"][b] = g.rounds_played


def _rank_of(order: np.ndarray) -> np.ndarray:
    """A reshuffle order (cards, first reshuffled first) as each card's position in it."""
    rank = np.empty(NUM_CARDS, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(NUM_CARDS)
    return rank


class VectorBatch(VectorBatchBase):
    """Rödskägg's jobs on the batch engine."""

    vector_env = VectorEnv
    round_fields = ROUND_FIELDS

    def winners(self, info: dict) -> np.ndarray:
        return np.asarray(info["winner"])[:, None] == np.arange(self.n)


ENGINES = {"vector": VectorBatch, "reference": ReferenceBatch}
