"""What the trainer and its policies need from Sortskæg: the family's parts
(:mod:`agents.family.training`) with Sortskæg's observation.

Features (:mod:`agents.ppo`): the observation (671), then the prior block (50) -> 721;
no extra block. Shaped reward (``round_gain``): a round's points minus the others' mean, / 10.
"""

from __future__ import annotations

from redbeard_env.sortskaeg.cards import NUM_ACTIONS
from redbeard_env.sortskaeg.observation import LAYOUT

from ..family.training import EXTRA_SIZE, extra, held_cards, layout_identity, round_gain, score_gain  # noqa: F401

GAME = "sortskaeg"
PRIORS = ("", "heuristic", "sortskaeg_heuristic")  # the shipped policy names the heuristic by its old name
DESCRIPTION = "observation+prior50"


def identity() -> dict[str, str]:
    """The observation and feature layout a policy was trained with."""
    return layout_identity(GAME, LAYOUT, NUM_ACTIONS)
