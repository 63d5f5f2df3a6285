"""Sortskæg observations as named arrays (the inverse of
:mod:`redbeard_env.sortskaeg.observation` for the parts bots use).

``decode_batch(obs)`` -> :class:`SObs`: every field has a leading batch axis; per-position
fields are indexed by relative position (0 = the observer, 1 = its left, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from redbeard_env.sortskaeg.cards import MAX_BID, NUM_CARDS, NUM_COLOURS
from redbeard_env.sortskaeg.observation import (GAP_SCALE, OBS_SIZE, OBS_SLICES, POSITIONS, ROUND_SCALE,
                                                SCORE_SCALE)
from redbeard_env.sortskaeg.rules import MAX_HAND, MIN_PLAYERS

P = POSITIONS
PHASE = {"bid": 0, "play": 1, "discard": 2, "over": 3}


def _block(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[:, OBS_SLICES[name]]


def _position_argmax(obs: np.ndarray, name: str) -> np.ndarray:
    """Relative position one-hot -> position (-1 when none)."""
    blk = _block(obs, name)
    return np.where(blk.any(1), blk.argmax(1), -1)


@dataclass
class SObs:
    phase: np.ndarray  # int [B]
    num_players: np.ndarray  # int [B]
    carry: np.ndarray  # bool [B]: deal = carry
    dealer_hook: np.ndarray  # bool [B]
    round: np.ndarray  # int [B]: index of the current round
    rounds_left: np.ndarray  # int [B]: rounds after this one
    hand_size: np.ndarray  # int [B] (0 when over)
    hand: np.ndarray  # bool [B, 42]
    played: np.ndarray  # bool [B, 42] finished tricks of this round
    trick: np.ndarray  # bool [B, 42]
    seen_game: np.ndarray  # bool [B, 42] (carry)
    took_back: np.ndarray  # bool [B, P, 42] (carry): cards each position took back after the last round
    rules_fields: np.ndarray  # float [B, 8]: the rules block
    led: np.ndarray  # int [B]: led colour, -1 none
    bid: np.ndarray  # int [B, P]: -1 not yet
    tricks: np.ndarray  # int [B, P]
    score: np.ndarray  # float [B, P] (approximate: score / 50 * 50)
    score_gap: np.ndarray  # float [B, P]: score - best score
    dealer: np.ndarray  # int [B] position
    leader: np.ndarray  # int [B] position (-1 outside play)
    winning: np.ndarray  # int [B] position holding the winning card of the trick (-1 none)
    trick_played: np.ndarray  # bool [B, P]
    voids: np.ndarray  # bool [B, P, 4]

    @property
    def tricks_done(self) -> np.ndarray:
        return self.tricks.sum(1)


def decode_batch(obs: np.ndarray) -> SObs:
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
        raise ValueError(f"Sortskæg observations must have shape [B, {OBS_SIZE}], got {obs.shape}")
    rules = _block(obs, "rules")
    prog = _block(obs, "progress")
    hs = _block(obs, "hand_size")
    bid = _block(obs, "bid").reshape(-1, P, MAX_BID + 2).argmax(2) - 1
    return SObs(
        phase=_block(obs, "phase").argmax(1),
        num_players=_block(obs, "num_players").argmax(1) + MIN_PLAYERS,
        carry=rules[:, 1] > 0.5,
        dealer_hook=rules[:, 2] > 0.5,
        round=np.rint(prog[:, 0] * ROUND_SCALE).astype(np.int64),
        rounds_left=np.rint(prog[:, 1] * ROUND_SCALE).astype(np.int64),
        hand_size=np.where(hs.any(1), hs.argmax(1) + 1, 0),
        hand=_block(obs, "hand") > 0.5,
        played=_block(obs, "played") > 0.5,
        trick=_block(obs, "trick") > 0.5,
        seen_game=_block(obs, "seen_game") > 0.5,
        took_back=_block(obs, "took_back").reshape(-1, P, NUM_CARDS) > 0.5,
        rules_fields=rules,
        led=_block(obs, "led").argmax(1) - 1,
        bid=bid,
        tricks=_block(obs, "tricks").reshape(-1, P, MAX_HAND + 1).argmax(2),
        score=_block(obs, "score") * SCORE_SCALE,
        score_gap=_block(obs, "score_gap") * GAP_SCALE,
        dealer=_position_argmax(obs, "dealer"),
        leader=_position_argmax(obs, "leader"),
        winning=_position_argmax(obs, "trick_winning"),
        trick_played=_block(obs, "trick_played") > 0.5,
        voids=_block(obs, "voids").reshape(-1, P, NUM_COLOURS) > 0.5,
    )


__all__ = ["SObs", "decode_batch", "PHASE", "P", "NUM_CARDS"]
