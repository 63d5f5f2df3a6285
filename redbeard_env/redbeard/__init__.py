"""Rödskägg (seeds 000, 001, 002, 004; SPEC §1–5): six cards, a bid, declarer leads, the
following-along question, and the race to exactly 0 points.

Modules: :mod:`~.rules` (``Rules``, the four sheets' presets), :mod:`~.cards` (cards and
the 69 action ids), the reference engine :mod:`~.game`, the observation
:mod:`~.observation`, the AEC env :mod:`~.env`, the batch engine :mod:`~.vector` (its
compiled kernels in ``vector_*``), game records :mod:`~.records` and the text render
:mod:`~.render`. Hand evaluation, which only the bots' training reads, lives with the bots
(``agents.redbeard.handeval``).
"""

from .cards import NUM_ACTIONS, NUM_CARDS, action_id, action_name, card_name, parse_card
from .env import env, raw_env
from .observation import OBS_BLOCKS, OBS_SIZE
from .rules import PRESETS, Rules, make_rules
from .vector import VectorEnv

__all__ = ["env", "raw_env", "VectorEnv", "Rules", "PRESETS", "make_rules", "action_id", "action_name",
           "card_name", "parse_card", "NUM_ACTIONS", "NUM_CARDS", "OBS_SIZE", "OBS_BLOCKS"]

from ..registry import Game  # noqa: E402
from .parts import REDBEARD  # noqa: E402

# a deal's deck row: the deck, then the order in which thrown-in hands are reshuffled (deck_parts=2)
GAME = Game.in_folder(__name__, title="Rödskägg", parts=REDBEARD, default_rules="classic", deck_parts=2,
                      decks_per_game=lambda rules: min(rules.max_rounds + 8, 96), start_score=lambda rules: rules.start_score)
