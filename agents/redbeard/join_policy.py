"""A bot whose join decisions are fixed, for experiments on the value of following along
(``följa med``): ``joins:always,base=ppo:classic_4p`` plays like its base bot but joins
whenever joining is legal; ``joins:never,base=…`` folds whenever folding is legal (a sheet
that forces the join, e.g. ``one_point_must_join``, still forces it); ``joins:free,base=…``
changes nothing (the base bot under its own name, so that it can sit at a table of its
base bots as a separate agent). Every other decision is the base bot's.

    python evaluate.py --mode round --scores 2 2 2 2 --games 4000 \\
        --agents "joins:never,base=ppo:classic_4p" heuristic heuristic heuristic

Played on the same deals as the base bot (same ``--seed``), the difference in round
outcomes is the value of its join decisions in that situation.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.redbeard.cards import FOLD, JOIN, NUM_ACTIONS

from ..base import Agent, check_masks
from ..params import SEED, Bot, Choice
from ..registry import make_agent

MODES = {"always": JOIN, "never": FOLD, "free": None}


class JoinPolicy(Agent):
    game = "redbeard"
    #: the spec's parameters (agents.params); a decision costs one of its base bot's
    PARAMS = {
        "mode": Choice(*MODES, shown="'always', 'never' or 'free'", help="join always, never, or as the base bot does"),
        "base": Bot(calls=1, help="the bot making every other decision"),
        "seed": SEED,
    }
    COST = 1.0

    def __init__(self, mode: str, base: str = "heuristic", seed: int | None = None):
        if mode not in MODES:
            raise ValueError(f"joins: the mode is 'always', 'never' or 'free', got {str(mode)[:40]!r}")
        self.mode, self.choice = mode, MODES[mode]
        self.base = make_agent(str(base), game=self.game, seed=seed)

    @property
    def decisions(self) -> int:
        """The base bot's searched decisions (a wrapped search bot keeps its cost report)."""
        return self.base.decisions

    def reset(self, seed: int | None = None) -> None:
        self.base.reset(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = check_masks(mask, NUM_ACTIONS)
        actions = np.asarray(self.base.act_batch(obs, mask), dtype=np.int64).copy()
        if self.choice is None:
            return actions
        asked = legal[:, JOIN] & legal[:, FOLD]  # the join question, with a real choice
        actions[asked] = self.choice
        return actions
