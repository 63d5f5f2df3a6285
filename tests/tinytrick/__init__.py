"""Tiny Trick: a game defined in the tests, to prove that the plug-in contract is what
docs/architecture.md says. Twelve cards, a bid, tricks; a reference engine and no batch
engine. ``tests/conftest.py`` registers it through the public API
(``redbeard_env.register(GAME)``), and the shared suite runs over it as over every
registered game."""

from redbeard_env.registry import Game

from .parts import TINYTRICK

GAME = Game.in_folder(__name__, title="Tiny Trick", parts=TINYTRICK, default_rules="tinytrick", deck_parts=1,
                      decks_per_game=lambda rules: rules.num_rounds, start_score=lambda rules: 0,
                      bots="tinytrick.bots", views="tinytrick.views:VIEWS")
