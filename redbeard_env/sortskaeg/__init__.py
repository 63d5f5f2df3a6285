"""Sortskæg (seed 003, SPEC §6): the Danish cousin of Rödskägg — exact bids over 13 rounds
of 7, 6 … 1 … 6, 7 cards, yellow trumps, a led joker wins.

Parts: :mod:`~.rules` (``Rules``, the ``sortskaeg`` preset; ``Rules.family``), :mod:`~.cards`,
the observation :mod:`~.observation`, the AEC env :mod:`~.env` (``env``/``raw_env``), the batch
engine :mod:`~.vector` (``VectorEnv``), :mod:`~.records`, :mod:`~.metrics` and :mod:`~.views`.
The rules engines are the family's (:mod:`redbeard_env.family`), which Oh Hell plays on too.
"""

from .cards import NUM_ACTIONS, NUM_CARDS, action_id, action_name, card_name, parse_card
from .env import env, raw_env
from .observation import OBS_BLOCKS, OBS_SIZE
from .rules import PRESETS, Rules, make_rules
from .vector import VectorEnv

__all__ = ["env", "raw_env", "VectorEnv", "Rules", "PRESETS", "make_rules", "action_id", "action_name",
           "card_name", "parse_card", "NUM_ACTIONS", "NUM_CARDS", "OBS_SIZE", "OBS_BLOCKS"]


from ..registry import Game  # noqa: E402
from .parts import SORTSKAEG  # noqa: E402

GAME = Game.in_folder(__name__, title="Sortskæg", parts=SORTSKAEG, default_rules="sortskaeg", deck_parts=1,
                      decks_per_game=lambda rules: rules.num_rounds, start_score=lambda rules: 0)
