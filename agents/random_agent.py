"""``random``: uniform over the legal actions, from its own seeded generator (every game)."""

from __future__ import annotations

import numpy as np

from redbeard_env.registry import Game, as_game

from .base import Agent, check_batch
from .params import SEED


class RandomAgent(Agent):
    PARAMS = {"seed": SEED}
    COST = 0.5  # cost units (agents.params): a decision among many in a batch

    def __init__(self, seed: int | None = None, game: "Game | str | None" = None):
        info = as_game(game)
        self.game, self.num_actions = info.name, info.num_actions
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        _, legal = check_batch(obs, mask, self.game)
        keys = self.rng.random(legal.shape)
        return np.where(legal, keys, -1.0).argmax(1)

