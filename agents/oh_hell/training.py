"""What the trainer and its policies need from Oh Hell: the family's parts
(:mod:`agents.family.training`) with Oh Hell's observation.

Features (:mod:`agents.ppo`): the observation (1012), then the prior block (70) -> 1082; no
extra block. Shaped reward (``round_gain``): the deal's points minus the others' mean, / 10.
"""

from __future__ import annotations

from redbeard_env.oh_hell.cards import NUM_ACTIONS
from redbeard_env.oh_hell.observation import LAYOUT

from ..family.training import EXTRA_SIZE, extra, held_cards, layout_identity, round_gain, score_gain  # noqa: F401

GAME = "oh_hell"
PRIORS = ("", "heuristic")
DESCRIPTION = "observation+prior70"


def identity() -> dict[str, str]:
    """The observation and feature layout a policy was trained with."""
    return layout_identity(GAME, LAYOUT, NUM_ACTIONS)
