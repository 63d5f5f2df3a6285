"""Cards and action ids.

A card is an int ``suit * 13 + rank`` with suits C D H S = 0..3 and ranks 2..A = 0..12,
so within a suit a higher id is a higher card. As text: rank ``23456789TJQKA`` (``10``
is accepted for ten) followed by the suit letter, e.g. ``AS``, ``TD``, ``10D``.

The 69 action ids (SPEC §3):

=======  ==========================================  ====================
ids      meaning                                     name
=======  ==========================================  ====================
0–51     play the card with that id                  ``play:AS`` …
52       pass                                        ``pass``
53–59    bid 0..6                                    ``bid:0`` … ``bid:6``
60       bid Rödskägg (all six tricks)               ``redbeard``
61 / 62  join / fold at the join question            ``join`` / ``fold``
63 / 64  ask / skip the join question (declarer)     ``ask`` / ``skip``
65 / 66  keep the hand / throw it in and redeal      ``keep`` / ``redeal``
67 / 68  look at a thrown-in hand / don't            ``look`` / ``no_look``
=======  ==========================================  ====================
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..common import parse_card_list

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13
SUITS = "CDHS"
RANKS = "23456789TJQKA"
FACE_RANK_MIN = RANKS.index("J")  # J, Q, K, A are face cards ("klätt kort")

PLAY0 = 0
PASS = 52
BID0 = 53  # bid k is BID0 + k for k = 0..6
REDBEARD = 60
JOIN, FOLD = 61, 62
ASK, SKIP = 63, 64
KEEP, REDEAL = 65, 66
LOOK, NO_LOOK = 67, 68
NUM_ACTIONS = 69

# Bid levels: plain bids are 0..6, the Rödskägg call is level 7 (it beats a plain 6
# but counts as 6 wherever a bid is compared with a score or with tricks).
REDBEARD_LEVEL = 7


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def is_face(card: int) -> bool:
    return card % NUM_RANKS >= FACE_RANK_MIN


def card_name(card: int) -> str:
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in 0..51, got {card!r}")
    return RANKS[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


def parse_card(card: "str | int") -> int:
    """A card id from its text (``AS``, ``TD``, ``10D``) or from an id 0..51."""
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= card < NUM_CARDS:
            return int(card)
        raise ValueError(f"card id must be in 0..51, got {card!r}")
    if not isinstance(card, str):
        raise ValueError(f"a card is a string like 'AS' or 'TD' or an id 0..51, got {card!r}")
    text = card.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(
            f"unknown card {card!r}: expected rank {RANKS} (or 10) followed by suit {SUITS}, e.g. 'AS'"
        )
    return SUITS.index(text[1]) * NUM_RANKS + RANKS.index(text[0])


def format_cards(cards: Iterable[int]) -> str:
    """Cards sorted by suit and rank, grouped by suit: ``AS KS 9H``."""
    return " ".join(card_name(c) for c in sorted(cards, key=lambda c: (-suit_of(c), -rank_of(c))))


_ACTION_NAMES: list[str] = (
    [f"play:{card_name(c)}" for c in range(NUM_CARDS)]
    + ["pass"]
    + [f"bid:{k}" for k in range(7)]
    + ["redbeard", "join", "fold", "ask", "skip", "keep", "redeal", "look", "no_look"]
)
assert len(_ACTION_NAMES) == NUM_ACTIONS
_ACTION_IDS = {name: i for i, name in enumerate(_ACTION_NAMES)}


def action_name(action: int) -> str:
    """The name of an action id, e.g. ``action_name(51) == "play:AS"``."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
    return _ACTION_NAMES[int(action)]


def action_id(name: str) -> int:
    """The id of an action name: ``play:AS`` (also ``play:10D``), ``pass``, ``bid:3``, ``redbeard``,
    ``join``, ``fold``, ``ask``, ``skip``, ``keep``, ``redeal``, ``look``, ``no_look``."""
    if not isinstance(name, str):
        raise ValueError(f"action name must be a string, got {name!r}")
    key = name.strip()
    if key.lower().startswith("play:"):
        return PLAY0 + parse_card(key[5:])
    key = key.lower()
    if key not in _ACTION_IDS:
        raise ValueError(
            f"unknown action name {name!r}; allowed: play:<card> (e.g. play:AS), pass, bid:0..bid:6, "
            "redbeard, join, fold, ask, skip, keep, redeal, look, no_look"
        )
    return _ACTION_IDS[key]


def bid_level_of_action(action: int) -> int:
    """Bid level of a bid action (0..6, or 7 for Rödskägg)."""
    return REDBEARD_LEVEL if action == REDBEARD else action - BID0


def action_of_bid_level(level: int) -> int:
    return REDBEARD if level == REDBEARD_LEVEL else BID0 + level


def bid_tricks(level: int) -> int:
    """Tricks a bid level promises (Rödskägg counts as 6)."""
    return min(level, 6)



def parse_cards(cards: Iterable["str | int"], what: str = "cards") -> list[int]:
    """Parse a list of cards (names or ids); a duplicate raises ``ValueError``."""
    return parse_card_list(cards, what, parse_card, card_name)
