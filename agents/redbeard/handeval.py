"""Hand-strength estimates by table lookup: how many tricks does a 6-card hand take?

Estimates for many hands at once from a precomputed table of a Monte Carlo playout
(:mod:`agents.redbeard.handeval_playout`, which also estimates any hand directly) by hand
*signature*. This module is what the bots import at run time; the table is built by
:mod:`agents.redbeard.handeval_build` (``python -m agents.redbeard.handeval_build --regenerate``).

Inputs
------
``hands``
    Either a card mask, bool (or 0/1 integer) ``[B, 52]``, or card ids, integer ``[B, 6]``
    (id = ``suit * 13 + rank``, ranks 2..A = 0..12, see :mod:`redbeard_env.redbeard.cards`).
    A single hand (``[52]`` or ``[6]``) is accepted too; the result then has no batch
    axis. Every hand must hold exactly 6 distinct cards (mid-round functions: exactly
    ``tricks_left``). Wrong shapes, duplicate or out-of-range cards raise ``ValueError``.
``num_players``
    3..7, the players in the round (else ``ValueError``). The others' hands are dealt
    uniformly at random from the 46 cards the hand does not hold; the rest of the pack
    is the stock and is never played.
``role``
    ``"declarer"``: the hand is the declarer's (seat 0, it leads the first trick).
    ``"follower"``: a non-declarer ``position`` = 1..num_players-1 seats to the
    declarer's left (1 plays second to the first trick). ``position=None`` (default)
    averages over the follower positions equally; ``position`` may also be an int array
    ``[B]`` (one per hand).
``leader``
    ``"declarer"`` (the declarer leads every trick; presets classic, fem_opp,
    raudskjegg) or ``"trick_winner"`` (the declarer leads the first trick, a trick's
    winner leads the next; preset wikipedia) -- the ``Rules`` field of the same name.

So: declarer leading every trick = ``role="declarer", leader="declarer"``; declarer
leading the first trick only = ``role="declarer", leader="trick_winner"``; a follower =
``role="follower"`` with either ``leader`` (and optionally ``position``).

Functions
---------
``expected_tricks(hands, num_players, role="declarer", *, leader="declarer", position=None)``
    float32 ``[B]``, from the table (~1 M hands/s for B = 1024, ~0.1 ms for one hand).
``trick_distribution(hands, num_players, role="declarer", *, leader, position)``
    float32 ``[B, 7]``, P(exactly k tricks), k = 0..6, from the table; rows sum to 1.
    P(at least one trick) = ``1 - dist[:, 0]``. ``expected_tricks`` is its mean.
``hand_signature(hands)``
    int64 ``[B]``: the table key of each hand (below).
``load_table(path=TABLE_PATH)``
    load (lazily, cached) ``agents/redbeard/data/handeval_table.npz`` (1.1 MB); regenerate
    it with :func:`agents.redbeard.handeval_build.build_table` after any change to the
    playout policy or the signature (``TABLE_VERSION`` guards the format).

Table design
------------
*Signature*: per suit, which of the honours A K Q J it holds (4-bit mask) and how many
cards 2..10 -- 80 suit classes; suits are interchangeable (no trumps), so the hand is
the sorted 4-tuple of its suit classes: 3258 signatures cover all 20 358 520 hands.
*Cells*: for each signature, num_players 3..7, leader rule and seat position 0..n-1 (0 =
declarer, 1..n-1 follower) -- 50 cells -- the stored trick distribution (uint16 counts).
Generation plays, per signature, player count and leader rule, 720 deals with a
uniformly drawn concrete hand of that signature (which low cards, which suit holds what)
as declarer, and 720 as a follower with the position cycling 1..n-1 (720/(n-1) per
position). Follower position cells are smoothed at load time by a least-squares line
over the positions of each P(k); ``position=None`` uses the pooled follower counts.
*Low-card correction*: the signature ignores which 2..10 a suit holds, which matters
(a T-9-7 is not a 4-3-2). Per group (num_players, leader, declarer/follower) and suit
class there is one weight per low rank 2..10, fitted by (ridge) least squares during
generation on the tricks won *in that suit* (the suit of the winning card); a hand's
correction is sum over its suits of sum_r w[r] * (holds_r - lows/9), zero on average over
the signature. The table's distribution is moved to the corrected mean by shifting a
fraction of its mass by one trick (repeatedly if needed; mass piles up at 0 and 6).

Accuracy (``benchmarks/handeval_accuracy.py``, 200 random hands, reference MC with 4096
samples): mean |table - MC| of the expected tricks is 0.049 tricks over all 40
(n, leader, role/position) combinations (a 256-sample MC: 0.040), per combination
0.02..0.07, worst 0.116 for 3 players with trick-winner leads (declarer), single hands
up to ~0.45. P(no trick) is off by 0.013..0.038 on average, the distribution by a total
variation of 0.03..0.11. Both estimate tricks *under the playout's policy*
(:mod:`agents.redbeard.handeval_playout`), not under optimal play.
"""

from __future__ import annotations

import os

import numpy as np

from .handmasks import (
    HAND_SIZE, LEADERS, MAX_PLAYERS, MIN_PLAYERS, ROLES, _NMASK, _POP, _as_masks, _check_leader,
    _check_num_players, _check_role, _positions,
)

__all__ = [
    "ROLES",
    "LEADERS",
    "expected_tricks",
    "trick_distribution",
    "hand_signature",
    "load_table",
    "TABLE_PATH",
    "TABLE_VERSION",
]

TABLE_PATH = os.path.join(os.path.dirname(__file__), "data", "handeval_table.npz")
TABLE_VERSION = 1  # raise with any change of the table's format (handeval_build writes it)


# ------------------------------------------------------------------ signature

TOP_HONOURS = 4  # A K Q J tracked exactly; 2..10 only counted
_LOWBITS = 9
_LOWMASK = (1 << _LOWBITS) - 1
_CLASS_HON = []
_CLASS_LOW = []
for _hon in range(1 << TOP_HONOURS):
    for _low in range(HAND_SIZE + 1 - bin(_hon).count("1")):
        _CLASS_HON.append(_hon)
        _CLASS_LOW.append(_low)


_CLASS_HON = np.array(_CLASS_HON, dtype=np.int16)
_CLASS_LOW = np.array(_CLASS_LOW, dtype=np.int16)
_CLASS_LEN = _POP[_CLASS_HON] + _CLASS_LOW
NUM_CLASSES = len(_CLASS_HON)  # 80
_CLASS_OF = np.full((1 << TOP_HONOURS, _LOWBITS + 1), -1, dtype=np.int64)
_CLASS_OF[_CLASS_HON, _CLASS_LOW] = np.arange(NUM_CLASSES)
del _hon, _low


def _combo_index(n, leader, pos):
    """Column of (num_players, leader, seat position) in the table: 50 columns."""
    off = sum(2 * m for m in range(MIN_PLAYERS, n))
    return off + (0 if leader == "declarer" else n) + pos


NUM_COMBOS = _combo_index(MAX_PLAYERS + 1, "declarer", 0)


def _codes_to_key(codes):
    codes = np.asarray(codes, dtype=np.int64)
    return ((codes[..., 0] * NUM_CLASSES + codes[..., 1]) * NUM_CLASSES + codes[..., 2]) * NUM_CLASSES + codes[..., 3]


def _mask_signature(masks):
    """int16 [B, 4] suit masks -> int64 [B] signature keys."""
    hon = (masks >> _LOWBITS).astype(np.int64)
    low = _POP.take(masks & _LOWMASK)
    codes = _CLASS_OF[hon, low]
    codes = -np.sort(-codes, axis=-1)
    return _codes_to_key(codes)


def hand_signature(hands):
    """The table key of each hand (int64 [B], or a scalar for one hand): per suit the held
    honours among A K Q J and the number of cards 2..10, suits sorted."""
    masks, single = _as_masks(hands)
    key = _mask_signature(masks)
    return key[0] if single else key


# ------------------------------------------------------------------ table lookup

_NGROUPS = (MAX_PLAYERS - MIN_PLAYERS + 1) * 2 * 2  # (n, leader, role)


def _group_index(n, leader, role):
    return ((n - MIN_PLAYERS) * 2 + LEADERS.index(leader)) * 2 + ROLES.index(role)


def _lowbits_features(masks):
    """int16 masks [...] -> float32 [..., 9] centred low-card indicators, and class codes."""
    m = np.asarray(masks, dtype=np.int64)
    held = ((m[..., None] >> np.arange(_LOWBITS)) & 1).astype(np.float32)
    nlow = held.sum(-1, keepdims=True)
    codes = _CLASS_OF[m >> _LOWBITS, nlow[..., 0].astype(np.int64)]
    return held - nlow / _LOWBITS, codes


_TABLE_CACHE: dict = {}


def _smooth_positions(probs, n):
    """Least-squares line over follower positions 1..n-1 of each P(k): [G, n-1, 7]."""
    if n <= 3:
        return probs
    x = np.arange(1, n, dtype=np.float32)
    x -= x.mean()
    a = probs.mean(1, keepdims=True)
    b = (probs * x[None, :, None]).sum(1, keepdims=True) / (x ** 2).sum()
    out = np.clip(a + b * x[None, :, None], 0.0, None)
    return out / out.sum(-1, keepdims=True)


def load_table(path: str = TABLE_PATH, *, reload: bool = False, smooth: bool = True) -> dict:
    """Load (once, then cached) the lookup table and derive the arrays used by
    :func:`expected_tricks`. Raises ``FileNotFoundError`` if it is missing (regenerate it
    with :func:`agents.redbeard.handeval_build.build_table`)."""
    ck = (os.path.abspath(path), smooth)
    if not reload and ck in _TABLE_CACHE:
        return _TABLE_CACHE[ck]
    if not os.path.exists(path):
        raise FileNotFoundError(f"hand-strength table {path} is missing; regenerate it with "
                                "`python -m agents.redbeard.handeval_build --regenerate`")
    with np.load(path) as raw:
        data = {k: raw[k] for k in raw.files}
    if int(data["version"]) != TABLE_VERSION or int(data["top_honours"]) != TOP_HONOURS:
        raise ValueError(f"{path}: table version {int(data['version'])} does not match this code "
                         f"(version {TABLE_VERSION}); regenerate it with "
                         "`python -m agents.redbeard.handeval_build --regenerate`")
    counts = data["counts"].astype(np.float32)  # [G, 50, 7]
    probs = counts / counts.sum(-1, keepdims=True)
    pooled = np.zeros((counts.shape[0], MAX_PLAYERS - MIN_PLAYERS + 1, 2, HAND_SIZE + 1), np.float32)
    cells = probs.copy()
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for li, leader in enumerate(LEADERS):
            cols = [_combo_index(n, leader, p) for p in range(1, n)]
            pc = counts[:, cols].sum(1)
            pooled[:, n - MIN_PLAYERS, li] = pc / pc.sum(-1, keepdims=True)
            if smooth:
                cells[:, cols] = _smooth_positions(probs[:, cols], n)
    # Δ per exact 13-bit suit holding for each group
    allm = np.arange(_NMASK, dtype=np.int64)
    feats, cls = _lowbits_features(allm)
    w = data["low_weights"]  # [groups, classes, 9]
    ok = cls >= 0
    delta = np.zeros((_NGROUPS, _NMASK), np.float32)
    delta[:, ok] = (w[:, cls[ok]] * feats[ok][None]).sum(-1)
    table = {"keys": data["keys"], "cells": cells, "pooled": pooled, "delta": delta, "raw": data}
    _TABLE_CACHE[ck] = table
    return table


def _shift_distribution(P, delta):
    """Move each distribution's mean by delta (trick units), exactly where possible, by
    moving a fraction f of its mass one trick up (delta > 0) or down: P' = (1-f) P +
    f shift(P), repeated while delta is left (mass piles up at 0 and K-1, so one step
    moves the mean by f * (1 - P[K-1]) up or f * (1 - P[0]) down). P [B, K], delta [B]."""
    P = np.asarray(P, np.float32).copy()
    rest = np.asarray(delta, np.float32).copy()
    rows = np.flatnonzero(np.abs(rest) > 1e-4)
    for _ in range(P.shape[1] - 1):
        if rows.size == 0:
            break
        p, r = P[rows], rest[rows]
        up = r > 0
        cap = np.where(up, 1.0 - p[:, -1], 1.0 - p[:, 0])
        f = np.where(cap > 1e-6, np.minimum(1.0, np.abs(r) / np.maximum(cap, 1e-6)), 0.0)[:, None]
        sh = np.empty_like(p)
        sh[:, 1:-1] = np.where(up[:, None], p[:, :-2], p[:, 2:])
        sh[:, 0] = np.where(up, 0.0, p[:, 0] + p[:, 1])
        sh[:, -1] = np.where(up, p[:, -2] + p[:, -1], 0.0)
        P[rows] = (1 - f) * p + f * sh
        rest[rows] = r - np.sign(r) * f[:, 0] * cap
        rows = rows[(np.abs(rest[rows]) > 1e-4) & (f[:, 0] > 0)]
    return P


def _table_distribution(hands, num_players, role, leader, position, path=TABLE_PATH):
    masks, single = _as_masks(hands)
    n = _check_num_players(num_players)
    role = _check_role(role)
    leader = _check_leader(leader)
    B = masks.shape[0]
    pos = _positions(position, role, n, B)
    tab = load_table(path)
    key = _mask_signature(masks)
    idx = np.minimum(np.searchsorted(tab["keys"], key), len(tab["keys"]) - 1)
    if (tab["keys"][idx] != key).any():
        raise RuntimeError("hand signature missing from the table; regenerate it with "
                           "`python -m agents.redbeard.handeval_build --regenerate`")
    if role == "declarer":
        P = tab["cells"][idx, _combo_index(n, leader, 0)]
    elif pos is None:
        P = tab["pooled"][idx, n - MIN_PLAYERS, LEADERS.index(leader)]
    else:
        P = tab["cells"][idx, _combo_index(n, leader, 0) + pos]
    delta = tab["delta"][_group_index(n, leader, role)][masks].sum(1)
    P = _shift_distribution(P, delta)
    return P[0] if single else P


def trick_distribution(hands, num_players, role="declarer", *, leader="declarer", position=None):
    """P(the hand takes exactly k tricks), k = 0..6, from the precomputed table: float32
    [B, 7]. Same arguments as :func:`trick_distribution_mc` (without samples/rng)."""
    return _table_distribution(hands, num_players, role, leader, position)


def expected_tricks(hands, num_players, role="declarer", *, leader="declarer", position=None):
    """Expected tricks of each hand from the precomputed table: float32 [B]."""
    P = _table_distribution(hands, num_players, role, leader, position)
    return (P @ np.arange(HAND_SIZE + 1, dtype=np.float32)).astype(np.float32)
