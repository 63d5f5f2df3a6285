"""The family's batch engines for tournaments: the :class:`~redbeard_env.engine.BatchEngine`
interface over the reference engine (:class:`ReferenceBatch`) and the batch engine
(:class:`VectorBatch`). A game's ``engine.py`` takes its ``ENGINES`` from
:func:`game_engines`, subclasses of both naming its ``parts`` and ``records`` (reference) and
its ``VectorEnv`` (batch).

``job.decks`` is [K, deck_size * deck_parts]: the deck row of each deal in order (top first); a
game deals at most once a round, so ``K = len(hand_sizes)`` fixes all of a game's cards.
``job.scores`` are starting totals (``None``: 0).

Besides the shared events (``done``, ``winner`` -- the single winner's seat, -1 for a
tie --, ``winners``, ``final_score``, ``score``, ``rounds``, ``round_over``; never
``truncated``), a step reports per scored round ``round_hand_size`` int64 [B],
``round_bids`` and ``round_tricks`` int64 [B, n].
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..engine import Job, ReferenceBatchBase, VectorBatchBase
from ..parts import GameParts
from . import game as G

__all__ = ["ReferenceBatch", "VectorBatch", "ROUND_FIELDS", "ROUND_KEYS", "game_engines"]

#: the per-round events besides round_tricks: the round's hand size and every seat's bid
ROUND_FIELDS = {"round_hand_size": (0, False), "round_bids": (-1, True)}
ROUND_KEYS = (*ROUND_FIELDS, "round_tricks")


class ReferenceBatch(ReferenceBatchBase):
    """A family game's jobs on the reference engine (a game's subclass sets ``parts`` and
    ``records``)."""

    round_fields = ROUND_FIELDS

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
    """A family game's jobs on its batch engine (a game's subclass sets ``vector_env``)."""

    round_fields = ROUND_FIELDS

    def winners(self, info: dict) -> np.ndarray:
        return np.asarray(info["winners"], bool)


def game_engines(module: str, parts: GameParts, records: ModuleType, vector_env: type) -> dict[str, type]:
    """A game's ``ENGINES``, ``{"vector": VectorBatch, "reference": ReferenceBatch}``: the
    family's engines naming the game's batch engine, its ``parts`` and its records module,
    as classes of ``module`` (the game's ``engine.py``, which binds them by these names)."""
    reference = type("ReferenceBatch", (ReferenceBatch,), {"parts": parts, "records": records, "__module__": module,
                                                           "__doc__": "The game's jobs on the reference engine."})
    vector = type("VectorBatch", (VectorBatch,), {"vector_env": vector_env, "__module__": module,
                                                  "__doc__": "The game's jobs on its batch engine."})
    return {"vector": vector, "reference": reference}
