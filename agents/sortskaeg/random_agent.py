"""``sortskaeg_random``: uniform over Sortskæg's legal actions (the shared random bot with
Sortskæg's 50 actions)."""

from __future__ import annotations

from redbeard_env.sortskaeg.cards import NUM_ACTIONS

from ..random_agent import RandomAgent
from ..registry import register


class SortskaegRandomAgent(RandomAgent):
    num_actions = NUM_ACTIONS
    game = "sortskaeg"


register("sortskaeg_random", SortskaegRandomAgent)
