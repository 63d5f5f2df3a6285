"""Observations of a family game as named arrays: the phase codes (every game of the family
has the phases of :data:`redbeard_env.family.game.PHASE_NAMES`).
"""

from __future__ import annotations

from redbeard_env.family.game import PHASE_NAMES

PHASE = {name: code for code, name in enumerate(PHASE_NAMES)}

__all__ = ["PHASE"]
