"""Rödskägg's modules as one :class:`~redbeard_env.parts.GameParts`."""

from ..parts import GameParts
from . import cards, game, observation, rules
from .render import render_text

REDBEARD = GameParts(game, rules, cards, observation, render_text)
