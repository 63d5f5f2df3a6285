"""Tiny Trick's modules as one GameParts."""

from redbeard_env.parts import GameParts

from . import cards, game, observation, rules

TINYTRICK = GameParts(game, rules, cards, observation, game.render_text)
