"""A game's rules modules as one value, for the code every game shares (the AEC env base
:mod:`redbeard_env.aec_base`, the batch engines' bases in :mod:`redbeard_env.engine`).

Each game's folder has modules with the same jobs and the same names in them (``game``,
``rules``, ``cards``, ``observation``, ``render``) and one ``parts.py`` that bundles them.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable


@dataclass(frozen=True)
class GameParts:
    game: ModuleType  # the reference engine: Game, new_game, apply_action, legal_actions, PHASE_NAMES
    rules: ModuleType  # Rules, make_rules, check_num_players, SCORE_LIMIT
    cards: ModuleType  # NUM_CARDS, NUM_ACTIONS, action_name, parse_cards
    observation: ModuleType  # OBS_SIZE, OBS_LOW, OBS_HIGH, encode, static_prefix
    render_text: Callable  # (game, observer) -> str
