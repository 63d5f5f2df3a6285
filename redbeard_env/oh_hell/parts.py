"""Oh Hell's modules as one :class:`~redbeard_env.parts.GameParts` (its reference engine is
the family's, :mod:`redbeard_env.family.game`)."""

from ..family import game
from ..parts import GameParts
from . import cards, observation, rules
from .render import render_text

OH_HELL = GameParts(game, rules, cards, observation, render_text)
