"""Oh Hell's cards and action ids (SPEC §7).

A card id is ``suit * 13 + rank`` with suits ``C D S H`` = 0..3 (OpenSpiel's order) and ranks
``2..A`` = 0..12, so within a suit a higher id is a higher card. As text: the rank
``23456789TJQKA`` (``10`` is accepted for ten) then the suit, e.g. ``AS``, ``TD``, ``2C``. A
short deck (``num_suits`` < 4 or ``num_cards_per_suit`` < 13) keeps, as OpenSpiel does, the
first suits in ``C D S H`` order and the lowest ranks of each (a 5-card suit is 2..6); the ids
stay the same, so every deck has one action space.

The 70 action ids (one ``Discrete(70)`` for every deck and player count):

=======  ====================================  =========================
ids      meaning                               name
=======  ====================================  =========================
0–51     play the card with that id            ``play:AS``, ``play:TD``
52–69    bid 0..17                             ``bid:0`` … ``bid:17``
=======  ====================================  =========================

Bids go up to 17: OpenSpiel deals at most ``(num_suits * num_cards_per_suit - 1) //
players`` cards, 17 for three players and 52 cards.

OpenSpiel numbers a card ``rank * num_suits + suit`` (it depends on the deck) and a bid
``num_cards + bid``: :func:`to_openspiel` and :func:`from_openspiel` convert.
"""

from __future__ import annotations

from typing import Iterable

from ..common import parse_card_list
from ..family.cards import Actions, card_id

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = NUM_SUITS * NUM_RANKS  # 52
SUITS = "CDSH"
SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")
RANKS = "23456789TJQKA"
BID0 = NUM_CARDS  # bid k is BID0 + k
MAX_BID = 17
NUM_ACTIONS = BID0 + MAX_BID + 1  # 70


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def card_name(card: int) -> str:
    card = card_id(card, NUM_CARDS)
    return RANKS[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


def parse_card(card: "str | int") -> int:
    """A card id from its text (``AS``, ``TD``, ``10D``, ``2c``) or from an id 0..51."""
    if not isinstance(card, str):
        return card_id(card, NUM_CARDS, "'AS' or 'TD'")
    text = card.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"unknown card {card!r}: expected a rank {RANKS} (or 10) then a suit {SUITS}, e.g. 'AS'")
    return SUITS.index(text[1]) * NUM_RANKS + RANKS.index(text[0])


def parse_cards(cards: Iterable["str | int"], what: str = "cards") -> list[int]:
    """Parse a list of cards; a duplicate raises ``ValueError`` (the shared list check)."""
    return parse_card_list(cards, what, parse_card, card_name)


def format_cards(cards: Iterable[int]) -> str:
    """Cards by suit (hearts, spades, diamonds, clubs) and rank, high first: ``AH 9H KS 2C``."""
    return " ".join(card_name(c) for c in sorted(cards, key=lambda c: (-suit_of(c), -rank_of(c))))


def deck_text(rules) -> str:
    """The deck of ``rules`` in words, naming the fields that make it."""
    return (f"num_suits={rules.num_suits} x num_cards_per_suit={rules.num_cards_per_suit} = "
            f"{rules.num_suits * rules.num_cards_per_suit} cards: {SUITS[:rules.num_suits]}, "
            f"ranks {RANKS[0]}..{RANKS[rules.num_cards_per_suit - 1]}")


_ACTIONS = Actions(NUM_CARDS, MAX_BID, card_name, parse_card, ("play",), "play:<card> (e.g. play:AS)")


def action_name(action: int, phase: str = "play") -> str:
    """The name of an action id: ``action_name(51) == "play:AH"``, ``action_name(55) == "bid:3"``
    (``phase`` is the family's signature; Oh Hell has no discard phase)."""
    return _ACTIONS.name(action, phase)


def action_id(name: str) -> int:
    """The id of an action name: ``play:AS`` (also ``play:10s``), ``bid:0`` … ``bid:17``."""
    return _ACTIONS.id(name)


# ---------------------------------------------------------------- OpenSpiel's numbering
def to_openspiel(card: int, num_suits: int) -> int:
    """OpenSpiel's id of a card in a deck of ``num_suits`` suits: ``rank * num_suits + suit``."""
    return rank_of(card) * num_suits + suit_of(card)


def from_openspiel(card: int, num_suits: int) -> int:
    """Our id of OpenSpiel's card ``card`` (``rank * num_suits + suit``)."""
    return (card % num_suits) * NUM_RANKS + card // num_suits
