"""A game of the family as its modules, for the code both games share (the AEC env base
:mod:`redbeard_env.aec_base`, the batch engines' bases in :mod:`redbeard_env.engine`).

Each game has modules with the same jobs and the same names in them: Rödskägg's in
``redbeard_env``, Sortskæg's in ``redbeard_env.sortskaeg``.
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


def _redbeard() -> GameParts:
    from . import cards, game, observation, rules
    from .render import render_text

    return GameParts(game, rules, cards, observation, render_text)


REDBEARD = _redbeard()
