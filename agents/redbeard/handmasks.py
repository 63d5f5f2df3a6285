"""Hands as per-suit bit masks, and the checks of hand-evaluation inputs.

Shared by the hand-strength lookup (:mod:`agents.redbeard.handeval`), its Monte Carlo
playout (:mod:`agents.redbeard.handeval_playout`) and the table builder
(:mod:`agents.redbeard.handeval_build`). A hand or card set is int16 ``[..., 4]``: per suit a
13-bit mask of the ranks held (bit r = rank r, 2..A = 0..12; card id = ``suit * 13 +
rank``, see :mod:`redbeard_env.redbeard.cards`). ``_as_masks`` / ``_as_ids`` accept the public input
forms (``[B, 52]`` card masks or ``[B, 6]`` card ids, or one hand) and raise ``ValueError``
for wrong shapes, duplicate or out-of-range cards and wrong hand sizes.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.redbeard.cards import NUM_CARDS, NUM_RANKS

ROLES = ("declarer", "follower")
LEADERS = ("declarer", "trick_winner")
MIN_PLAYERS, MAX_PLAYERS = 3, 7
HAND_SIZE = 6


# ------------------------------------------------------------------ input checking

def _check_num_players(num_players, lo=MIN_PLAYERS, hi=MAX_PLAYERS, name="num_players") -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"{name} must be an int in {lo}..{hi}, got {num_players!r}")
    if not lo <= int(num_players) <= hi:
        raise ValueError(f"{name} must be in {lo}..{hi}, got {num_players!r}")
    return int(num_players)


def _check_leader(leader) -> str:
    if leader not in LEADERS:
        raise ValueError(f"leader must be one of {LEADERS}, got {leader!r}")
    return leader


def _check_role(role) -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    return role


def _as_ids(hands, size: int = HAND_SIZE, what: str = "hands"):
    """Card ids int8 [B, size] (sorted) and whether the input was a single hand."""
    arr = np.asarray(hands)
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"{what} must be [B, 52] card masks or [B, {size}] card ids, got shape {arr.shape}")
    single = arr.ndim == 1
    if single:
        arr = arr[None]
    if arr.shape[-1] == NUM_CARDS and (arr.dtype == bool or size != NUM_CARDS):
        if arr.dtype != bool:
            if not np.issubdtype(arr.dtype, np.integer) or ((arr != 0) & (arr != 1)).any():
                raise ValueError(f"{what}: a [B, 52] card mask must be bool or 0/1")
            arr = arr.astype(bool)
        counts = arr.sum(-1)
        if (counts != size).any():
            bad = int(np.flatnonzero(counts != size)[0])
            raise ValueError(f"{what}: every hand must hold exactly {size} cards, hand {bad} holds {int(counts[bad])}")
        ids = np.nonzero(arr)[1].reshape(arr.shape[0], size)
        return ids.astype(np.int8), single
    if arr.shape[-1] != size:
        raise ValueError(f"{what} must be [B, 52] card masks or [B, {size}] card ids, got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what}: card ids must be integers 0..51, got dtype {arr.dtype}")
    if (arr < 0).any() or (arr >= NUM_CARDS).any():
        raise ValueError(f"{what}: card ids must be in 0..51")
    ids = np.sort(arr.astype(np.int8), axis=-1)
    dup = (ids[:, 1:] == ids[:, :-1]).any(-1)
    if dup.any():
        raise ValueError(f"{what}: duplicate card in hand {int(np.flatnonzero(dup)[0])}")
    return ids, single


def _as_masks(hands, size: int = HAND_SIZE, what: str = "hands"):
    """Per-suit masks int16 [B, 4] of validated hands, and whether the input was one hand."""
    arr = np.asarray(hands)
    if arr.ndim in (1, 2) and arr.shape[-1] == NUM_CARDS and arr.dtype == bool and arr.size:
        a2 = arr.reshape(-1, NUM_CARDS)
        counts = a2.sum(-1)
        if (counts != size).any():
            bad = int(np.flatnonzero(counts != size)[0])
            raise ValueError(f"{what}: every hand must hold exactly {size} cards, hand {bad} holds {int(counts[bad])}")
        return _masks_from_bool(a2), arr.ndim == 1
    ids, single = _as_ids(hands, size, what)
    return _ids_to_masks(ids), single


def _check_samples(samples) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    return int(samples)


def _positions(position, role, n, B):
    """Seat of the evaluated hand per hand: int array [B], or None = average over followers."""
    if role == "declarer":
        if position is not None and (np.asarray(position) != 0).any():
            raise ValueError(f"role='declarer' sits at position 0, got position={position!r}")
        return np.zeros(B, np.int64)
    if position is None:
        return None
    pos = np.asarray(position)
    if pos.dtype == bool or not np.issubdtype(pos.dtype, np.integer) or pos.ndim > 1:
        raise ValueError(f"position must be an int or an int array [B], got {position!r}")
    pos = np.broadcast_to(pos, (B,)) if pos.ndim == 0 else pos
    if pos.shape != (B,):
        raise ValueError(f"position array must have shape ({B},), got {pos.shape}")
    if (pos < 1).any() or (pos > n - 1).any():
        raise ValueError(f"a follower's position must be in 1..{n - 1} for {n} players, got {position!r}")
    return pos.astype(np.int64)


# ------------------------------------------------------------------ suit masks

_BIT = (1 << np.arange(16)).astype(np.int16)
_NMASK = 1 << NUM_RANKS
_POP = np.array([bin(x).count("1") for x in range(_NMASK)], dtype=np.int16)
# rank of the lowest / highest card in a 13-bit suit mask (13 / -1 for an empty suit)
_LOW = np.array([(x & -x).bit_length() - 1 if x else NUM_RANKS for x in range(_NMASK)], dtype=np.int16)
_TOP = np.array([x.bit_length() - 1 for x in range(_NMASK)], dtype=np.int16)


def _ids_to_masks(ids):
    """int [..., T] card ids (distinct within a row) -> int16 [..., 4] per-suit 13-bit masks."""
    ids = np.asarray(ids)
    T = ids.shape[-1]
    if ids.size <= 65536:  # small batches: one bincount (lower fixed cost)
        lead = ids.shape[:-1]
        cells = int(np.prod(lead))
        c = ids.reshape(cells, T).astype(np.int64)
        suit = c // NUM_RANKS
        flat = (np.arange(cells)[:, None] * 4 + suit).reshape(-1)
        w = (1 << (c - NUM_RANKS * suit)).reshape(-1)
        return np.bincount(flat, weights=w, minlength=cells * 4).astype(np.int16).reshape(lead + (4,))
    cols = [ids[..., i].astype(np.int16) for i in range(T)]
    suits = [c // NUM_RANKS for c in cols]
    bits = [_BIT[c - NUM_RANKS * s] for c, s in zip(cols, suits)]
    out = np.zeros(ids.shape[:-1] + (4,), dtype=np.int16)
    for s in range(4):
        acc = out[..., s]
        for su, b in zip(suits, bits):
            acc += np.where(su == s, b, np.int16(0))
    return out


def _masks_from_bool(cards):
    """bool [..., 52] -> int16 [..., 4]."""
    c = np.asarray(cards, dtype=bool).reshape(*np.shape(cards)[:-1], 4, NUM_RANKS)
    return (c * _BIT[:NUM_RANKS]).sum(-1, dtype=np.int16)


def _bool_from_masks(masks):
    """int16 [..., 4] -> bool [..., 52]."""
    m = np.asarray(masks, dtype=np.int16)
    return ((m[..., None] >> np.arange(NUM_RANKS, dtype=np.int16)) & 1).astype(bool).reshape(*m.shape[:-1], NUM_CARDS)
