"""Oh Hell observations as named arrays (the inverse of :mod:`redbeard_env.oh_hell.observation`
for the parts bots use).

``decode_batch(obs)`` -> :class:`OObs`: every field has a leading batch axis; per-position
fields are indexed by relative position (0 = the observer, 1 = its left, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from redbeard_env.oh_hell.cards import MAX_BID, NUM_CARDS, NUM_RANKS, NUM_SUITS
from redbeard_env.oh_hell.observation import GAP_SCALE, OBS_SIZE, OBS_SLICES, POSITIONS, RULE_SCALE, SCORE_SCALE
from redbeard_env.oh_hell.rules import MAX_HAND, MIN_PLAYERS

P = POSITIONS
PHASE = {"bid": 0, "play": 1, "discard": 2, "over": 3}
CARD_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
CARD_RANK = np.arange(NUM_CARDS) % NUM_RANKS


def _block(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[:, OBS_SLICES[name]]


def _position_argmax(obs: np.ndarray, name: str) -> np.ndarray:
    """Relative position one-hot -> position (-1 when none)."""
    blk = _block(obs, name)
    return np.where(blk.any(1), blk.argmax(1), -1)


@dataclass
class OObs:
    phase: np.ndarray  # int [B]
    num_players: np.ndarray  # int [B]
    num_suits: np.ndarray  # int [B]
    num_cards_per_suit: np.ndarray  # int [B]
    drawn: np.ndarray  # bool [B]: num_tricks = -1
    points_per_trick: np.ndarray  # int [B]
    off_bid_penalty: np.ndarray  # bool [B]
    hand_size: np.ndarray  # int [B] (0 when over)
    hand: np.ndarray  # bool [B, 52]
    played: np.ndarray  # bool [B, 52] finished tricks
    trick: np.ndarray  # bool [B, 52]
    trump_card: np.ndarray  # bool [B, 52]
    trumps: np.ndarray  # int [B]: trump suit, -1 none
    led: np.ndarray  # int [B]: led suit, -1 none
    bid: np.ndarray  # int [B, P]: -1 not yet
    tricks: np.ndarray  # int [B, P]
    score: np.ndarray  # float [B, P]
    score_gap: np.ndarray  # float [B, P]
    dealer: np.ndarray  # int [B] position
    leader: np.ndarray  # int [B] position (-1 outside play)
    winning: np.ndarray  # int [B] position holding the winning card of the trick (-1 none)
    trick_played: np.ndarray  # bool [B, P]
    voids: np.ndarray  # bool [B, P, 4]
    played_by: np.ndarray  # bool [B, P, 52]: the cards each position played this deal
    trick_of: np.ndarray  # int [B, 52]: the index of the trick a card was played to, -1 not played

    @property
    def tricks_done(self) -> np.ndarray:
        return self.tricks.sum(1)

    @property
    def in_play(self) -> np.ndarray:
        """bool [B, 52]: the cards of the deck."""
        return (CARD_SUIT[None, :] < self.num_suits[:, None]) & (CARD_RANK[None, :] < self.num_cards_per_suit[:, None])


def decode_batch(obs: np.ndarray) -> OObs:
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
        raise ValueError(f"Oh Hell observations must have shape [B, {OBS_SIZE}], got {obs.shape}")
    rules = _block(obs, "rules")
    hs = _block(obs, "hand_size")
    return OObs(
        phase=_block(obs, "phase").argmax(1),
        num_players=_block(obs, "num_players").argmax(1) + MIN_PLAYERS,
        num_suits=np.rint(rules[:, 0] * NUM_SUITS).astype(np.int64),
        num_cards_per_suit=np.rint(rules[:, 1] * NUM_RANKS).astype(np.int64),
        drawn=rules[:, 2] > 0.5,
        points_per_trick=np.rint(rules[:, 4] * RULE_SCALE).astype(np.int64),
        off_bid_penalty=rules[:, 5] > 0.5,
        hand_size=np.where(hs.any(1), hs.argmax(1) + 1, 0),
        hand=_block(obs, "hand") > 0.5,
        played=_block(obs, "played") > 0.5,
        trick=_block(obs, "trick") > 0.5,
        trump_card=_block(obs, "trump_card") > 0.5,
        trumps=_block(obs, "trumps").argmax(1) - 1,
        led=_block(obs, "led").argmax(1) - 1,
        bid=_block(obs, "bid").reshape(-1, P, MAX_BID + 2).argmax(2) - 1,
        tricks=_block(obs, "tricks").reshape(-1, P, MAX_HAND + 1).argmax(2),
        score=_block(obs, "score") * SCORE_SCALE,
        score_gap=_block(obs, "score_gap") * GAP_SCALE,
        dealer=_position_argmax(obs, "dealer"),
        leader=_position_argmax(obs, "leader"),
        winning=_position_argmax(obs, "trick_winning"),
        trick_played=_block(obs, "trick_played") > 0.5,
        voids=_block(obs, "voids").reshape(-1, P, NUM_SUITS) > 0.5,
        played_by=_block(obs, "played_by").reshape(-1, P, NUM_CARDS) > 0.5,
        trick_of=np.rint(_block(obs, "trick_of") * MAX_HAND).astype(np.int64) - 1,
    )


__all__ = ["OObs", "decode_batch", "PHASE", "P", "NUM_CARDS", "CARD_SUIT", "CARD_RANK"]
