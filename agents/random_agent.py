"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from redbeard_env.redbeard.cards import NUM_ACTIONS

from .base import Agent, check_masks
from .registry import register


class RandomAgent(Agent):
    num_actions = NUM_ACTIONS  # the action space's size (a subclass serves another game)

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = check_masks(mask, self.num_actions)
        keys = self.rng.random(legal.shape)
        return np.where(legal, keys, -1.0).argmax(1)


register("random", RandomAgent)
