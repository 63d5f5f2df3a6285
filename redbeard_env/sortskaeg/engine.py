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

from ..engine import BatchEngine, Job, empty_events
from . import game as G
from .cards import NUM_ACTIONS
from .observation import OBS_SIZE, encode, static_prefix
from .rules import Rules
from .vector import VectorEnv

__all__ = ["ReferenceBatch", "VectorBatch", "ENGINES", "sortskaeg_events"]


def sortskaeg_events(B: int, n: int) -> dict:
    """The shared events plus Sortskæg's round records."""
    ev = empty_events(B, n)
    ev["round_hand_size"] = np.zeros(B, np.int64)
    ev["round_bids"] = np.full((B, n), -1, np.int64)
    return ev


class ReferenceBatch(BatchEngine):
    """Jobs on the reference engine: one ``game.Game`` per slot."""

    name = "reference"

    def __init__(self, rules: Rules, num_players: int, seed: int):
        super().__init__(rules, num_players, seed)
        self.prefix = static_prefix(rules, num_players)

    def start(self, jobs: list[Job]) -> None:
        self.games = []
        for job in jobs:
            rng = np.random.default_rng([self.seed, job.deal, 13])
            self.games.append(G.new_game(self.rules, self.n, rng, dealer=job.dealer, scores=job.scores,
                                         decks=[list(map(int, d)) for d in job.decks]))
        self.live = np.ones(len(jobs), dtype=bool)

    def observe(self):
        B = len(self.games)
        obs = np.zeros((B, OBS_SIZE), dtype=np.float32)
        mask = np.zeros((B, NUM_ACTIONS), dtype=np.int8)
        seat = np.full(B, -1, dtype=np.int64)
        for b in np.flatnonzero(self.live):
            g = self.games[b]
            obs[b] = encode(g, g.to_act, self.prefix)
            mask[b, G.legal_actions(g)] = 1
            seat[b] = g.to_act
        return obs, mask, seat

    def step(self, actions: np.ndarray) -> dict:
        ev = sortskaeg_events(len(self.games), self.n)
        for b in np.flatnonzero(self.live):
            g = self.games[b]
            G.apply_action(g, int(actions[b]))
            ev["score"][b] = g.scores
            for e in g.events:
                if e[0] == "round_end":
                    _, _, size, bids, tricks, _ = e
                    ev["round_over"][b] = True
                    ev["round_hand_size"][b] = size
                    ev["round_bids"][b] = bids
                    ev["round_tricks"][b] = tricks
            if g.game_over:
                ev["done"][b] = True
                ev["winners"][b, g.winners] = True
                ev["winner"][b] = g.winners[0] if len(g.winners) == 1 else -1
                ev["final_score"][b] = g.scores
                ev["rounds"][b] = g.round
                self.live[b] = False
        return ev


class VectorBatch(BatchEngine):
    """Jobs on the batch engine (finished games halt: no auto-reset)."""

    name = "vector"

    def __init__(self, rules: Rules, num_players: int, seed: int):
        super().__init__(rules, num_players, seed)
        self.wave = 0  # batches started so far: each gets its own engine seed

    def start(self, jobs: list[Job]) -> None:
        B = len(jobs)
        self.env = VectorEnv(B, self.n, rules=self.rules, seed=[self.seed, self.wave, 17], auto_reset=False)
        self.wave += 1
        dealer = np.array([j.dealer for j in jobs], dtype=np.int64)
        decks = np.stack([j.decks for j in jobs]).astype(np.int64)
        scores = None if jobs[0].scores is None else np.array([j.scores for j in jobs], dtype=np.int64)
        self._obs = self.env.reset(dealer=dealer, scores=scores, decks=decks)
        self.live = np.ones(B, dtype=bool)

    def observe(self):
        obs, mask, seat = self._obs
        return obs, mask, np.where(self.live, seat, -1)

    def step(self, actions: np.ndarray) -> dict:
        _, mask, _ = self._obs
        actions = np.where(self.live & mask.any(1), actions, mask.argmax(1))
        obs, mask, seat, rewards, terminated, truncated, info = self.env.step(actions)
        self._obs = (obs, mask, seat)
        live = self.live
        ev = sortskaeg_events(len(actions), self.n)
        ev["round_over"] = info["round_over"] & live
        ev["round_hand_size"] = info["round_hand_size"]
        ev["round_bids"] = info["round_bids"]
        ev["round_tricks"] = info["round_tricks"]
        done = terminated & live
        ev["done"] = done
        ev["winners"] = info["winners"] & done[:, None]
        ev["winner"] = np.where(done, info["winner"], -1)
        ev["final_score"] = info["final_score"]
        ev["score"] = info["score"]
        ev["rounds"] = info["rounds"]
        self.live = live & ~done
        return ev


ENGINES = {"vector": VectorBatch, "reference": ReferenceBatch}
