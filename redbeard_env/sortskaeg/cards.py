"""Sortskæg's cards, the trick winner and the action ids (SPEC §6.1, §6.2, §6.4).

42 cards: four colours red, green, blue, yellow (``R G B Y``) with values 1..10 (10
high), and two jokers. Card id = ``colour * 10 + (value - 1)`` for 0..39, so within a
colour a higher id is a higher card; 40 and 41 are the jokers. As text: the colour
letter and the value (``R7``, ``Y10``), jokers ``J1`` and ``J2``.

Yellow is trumps; a joker wins only when it is led (:func:`trick_winner`).

The 50 action ids:

=======  ==========================================================  ======================
ids      meaning                                                     name
=======  ==========================================================  ======================
0–41     play the card with that id (``discard`` phase: discard it)  ``play:Y10``, ``discard:R2``
42–49    bid 0..7                                                    ``bid:0`` … ``bid:7``
=======  ==========================================================  ======================
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..common import parse_card_list
from ..family.cards import Actions, card_id
from ..family.family import trick_winner as family_trick_winner

NUM_COLOURS = 4
NUM_VALUES = 10
NUM_JOKERS = 2
NUM_CARDS = NUM_COLOURS * NUM_VALUES + NUM_JOKERS  # 42
COLOURS = "RGBY"
COLOUR_NAMES = ("red", "green", "blue", "yellow")
YELLOW = COLOURS.index("Y")  # the trump colour ("gulddukat")
JOKERS = (40, 41)
NO_COLOUR = -1  # a joker's colour; also "no led colour" (no trick yet, or a joker was led)

BID0 = NUM_CARDS  # bid k is BID0 + k for k = 0..7
MAX_BID = 7
NUM_ACTIONS = BID0 + MAX_BID + 1  # 50

#: per card id: its colour (-1 for a joker) and its value (1..10, 0 for a joker)
CARD_COLOUR = np.array([c // NUM_VALUES for c in range(40)] + [NO_COLOUR] * NUM_JOKERS, dtype=np.int64)
CARD_VALUE = np.array([c % NUM_VALUES + 1 for c in range(40)] + [0] * NUM_JOKERS, dtype=np.int64)


def colour_of(card: int) -> int:
    """The card's colour 0..3, or -1 for a joker."""
    return NO_COLOUR if card >= 40 else card // NUM_VALUES


def card_name(card: int) -> str:
    card = card_id(card, NUM_CARDS)
    if card >= 40:
        return f"J{card - 39}"
    return f"{COLOURS[colour_of(card)]}{CARD_VALUE[card]}"


def parse_card(card: "str | int") -> int:
    """A card id from its text (``R7``, ``Y10``, ``J1``; any case) or from an id 0..41."""
    if not isinstance(card, str):
        return card_id(card, NUM_CARDS, "'R7', 'Y10' or 'J1'")
    text = card.strip().upper()
    head, digits = text[:1], text[1:]
    if digits.isdigit():
        value = int(digits)
        if head == "J" and value in (1, 2):
            return 39 + value
        if head in COLOURS and 1 <= value <= NUM_VALUES:
            return COLOURS.index(head) * NUM_VALUES + value - 1
    raise ValueError(
        f"unknown card {card!r}: expected a colour {'/'.join(COLOURS)} and a value 1..10 (e.g. 'Y10'), or a joker J1/J2"
    )


def parse_cards(cards: Iterable["str | int"], what: str = "cards") -> list[int]:
    """Parse a list of cards; a duplicate raises ``ValueError`` (the shared list check)."""
    return parse_card_list(cards, what, parse_card, card_name)


def format_cards(cards: Iterable[int]) -> str:
    """Cards sorted jokers first, then by colour (yellow first) and value: ``J1 Y10 Y3 R7``."""
    return " ".join(card_name(c) for c in sorted(cards, key=lambda c: (-(c >= 40), -colour_of(c), -c)))


def trick_winner(cards: Sequence[int]) -> int:
    """Index (in play order) of the card that wins a complete trick, in the sheet's order:
    (1) a led joker wins at once; (2) else the highest yellow card if any yellow was
    played; (3) else the highest card of the led colour. A joker not led never wins.
    (The family's rule, :func:`redbeard_env.family.family.trick_winner`, with yellow trumps.)"""
    return family_trick_winner(cards, YELLOW, NUM_VALUES, JOKERS[0])


_ACTIONS = Actions(NUM_CARDS, MAX_BID, card_name, parse_card, ("play", "discard"),
                   "play:<card> (e.g. play:Y10), discard:<card>")


def action_name(action: int, phase: str = "play") -> str:
    """The name of an action id: ``action_name(39) == "play:Y10"``; in the ``discard``
    phase a card id is named ``discard:<card>``."""
    return _ACTIONS.name(action, phase)


def action_id(name: str) -> int:
    """The id of an action name: ``play:Y10``, ``discard:R2`` (the card's id either way),
    ``bid:0`` … ``bid:7``."""
    return _ACTIONS.id(name)


def deck_text(rules=None) -> str:
    """The deck in words (every card id is in Sortskæg's deck)."""
    return f"{NUM_CARDS} cards: {NUM_COLOURS} colours x values 1..{NUM_VALUES} and {NUM_JOKERS} jokers"
