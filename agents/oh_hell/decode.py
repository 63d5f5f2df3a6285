"""Oh Hell observations as named arrays (the inverse of :mod:`redbeard_env.oh_hell.observation`
for the parts bots use): the family's fields (:class:`agents.family.decode.FamilyObs`) and
Oh Hell's own.

``decode_batch(obs)`` -> :class:`OObs`: every field has a leading batch axis; per-position
fields are indexed by relative position (0 = the observer, 1 = its left, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from redbeard_env.oh_hell.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from redbeard_env.oh_hell.observation import LAYOUT, POSITIONS, RULE_SCALE
from redbeard_env.oh_hell.rules import MAX_HAND

from ..family.decode import PHASE, FamilyObs, decode_family

P = POSITIONS
CARD_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
CARD_RANK = np.arange(NUM_CARDS) % NUM_RANKS


@dataclass
class OObs(FamilyObs):
    num_suits: np.ndarray  # int [B]
    num_cards_per_suit: np.ndarray  # int [B]
    drawn: np.ndarray  # bool [B]: num_tricks = -1
    points_per_trick: np.ndarray  # int [B]
    off_bid_penalty: np.ndarray  # bool [B]
    trump_card: np.ndarray  # bool [B, 52]
    trumps: np.ndarray  # int [B]: trump suit, -1 none
    played_by: np.ndarray  # bool [B, P, 52]: the cards each position played this deal
    trick_of: np.ndarray  # int [B, 52]: the index of the trick a card was played to, -1 not played

    @property
    def in_play(self) -> np.ndarray:
        """bool [B, 52]: the cards of the deck."""
        return (CARD_SUIT[None, :] < self.num_suits[:, None]) & (CARD_RANK[None, :] < self.num_cards_per_suit[:, None])


def decode_batch(obs: np.ndarray) -> OObs:
    b, fields = decode_family(obs, LAYOUT, "Oh Hell")
    rules = b["rules"]
    return OObs(
        **fields,
        num_suits=np.rint(rules[:, 0] * NUM_SUITS).astype(np.int64),
        num_cards_per_suit=np.rint(rules[:, 1] * NUM_RANKS).astype(np.int64),
        drawn=rules[:, 2] > 0.5,
        points_per_trick=np.rint(rules[:, 4] * RULE_SCALE).astype(np.int64),
        off_bid_penalty=rules[:, 5] > 0.5,
        trump_card=b["trump_card"] > 0.5,
        trumps=b["trumps"].argmax(1) - 1,
        played_by=b.per_position("played_by", NUM_CARDS) > 0.5,
        trick_of=np.rint(b["trick_of"] * MAX_HAND).astype(np.int64) - 1,
    )


__all__ = ["OObs", "decode_batch", "PHASE", "P", "NUM_CARDS", "CARD_SUIT", "CARD_RANK"]
