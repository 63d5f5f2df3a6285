"""Tiny Trick's bots (with the shared ``random`` and ``ppo``): ``heuristic`` bids the cards of
rank 5 or 6 it holds and plays high while it needs tricks, low once it has its bid."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, check_batch

from . import cards as C
from .observation import OFF
from .rules import MAX_HAND

BOTS = {"heuristic": "tinytrick.bots:TinyHeuristic"}


class TinyHeuristic(Agent):
    PARAMS: dict = {}  # none: it picks by rule, with no randomness to seed
    COST = 1.0
    game = "tinytrick"
    value_units = "points"  # its values are points it expects (the review shows them so)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        values = np.full(legal.shape, -np.inf)
        ranks = np.arange(C.NUM_CARDS) % 6 + 1
        for b in range(len(obs)):
            hand = obs[b, OFF["hand"]:OFF["hand"] + C.NUM_CARDS] > 0.5
            bid_row = obs[b, OFF["bids"]:OFF["bids"] + MAX_HAND + 2]
            if legal[b, C.BID0:].any():  # bidding: close to the strong cards held
                strong = int((hand & (ranks >= 5)).sum())
                values[b, C.BID0:] = -np.abs(np.arange(4) - strong)
            else:
                need = int(bid_row.argmax()) - round(obs[b, OFF["tricks"]] * MAX_HAND)
                values[b, :C.NUM_CARDS] = ranks if need > 0 else -ranks
        return np.where(legal, values, -np.inf)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.action_values(obs, mask).argmax(1)
