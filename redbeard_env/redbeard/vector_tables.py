"""Codes and numpy helpers of the batch engine (:mod:`redbeard_env.redbeard.vector`) for code that
runs outside the compiled kernels (the bridge to ``game.Game``, the API).

* Phase codes: ``info["phase"]`` is an index into ``game.PHASE_NAMES``; the codes, the rows
  ``C_*`` of the packed per-seat array (int8 [B, SEAT_COLS, SEAT_PAD], seats padded to 8)
  and the columns of the current trick are defined once, in
  :mod:`redbeard_env.redbeard.vector_kernels` (next to the compiled code that reads them).
* Card sets are uint64 bitmasks, bit c = card id c (``BIT``, ``bits_to_bool``, ...).
"""

from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS
from .vector_state import (  # noqa: F401  (re-exported)
    ASK_PH,
    BID_PH,
    C_ACTIVE,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_THROWS,
    C_TRICK_CARD,
    C_TRICK_PLAYED,
    C_TRICKS,
    DONE_PH,
    DUEL_PH,
    JOIN_PH,
    LOOK_PH,
    PLAY_PH,
    REDEAL_PH,
    SEAT_COLS,
    SEAT_PAD,
)

BIT = (np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)).astype(np.uint64)
AR52 = np.arange(NUM_CARDS)
TRICK_EMPTY = np.array([0, -1, -1, -1, -1], np.int8)  # trick length, led suit, best card, its seat, leader


def bits_to_bool(x: np.ndarray) -> np.ndarray:
    """Card bitmasks uint64 [...] -> bool [..., 52]."""
    x = np.ascontiguousarray(x, dtype="<u8")
    u = np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1, bitorder="little")
    return u[..., :NUM_CARDS].view(np.bool_)


def bool_to_bits(x: np.ndarray) -> np.ndarray:
    """bool [..., 52] -> card bitmasks uint64 [...] (the inverse of :func:`bits_to_bool`)."""
    x = np.asarray(x, dtype=bool)
    packed = np.packbits(x, axis=-1, bitorder="little")  # [..., 7]
    out = np.zeros((*x.shape[:-1], 8), np.uint8)
    out[..., : packed.shape[-1]] = packed
    return out.view("<u8")[..., 0].astype(np.uint64, copy=False)


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """Card ids int [..., k] (-1 = none) -> bitmasks uint64 [...]."""
    cards = np.asarray(cards)
    return np.where(cards >= 0, BIT[np.maximum(cards, 0)], np.uint64(0)).sum(-1, dtype=np.uint64)
