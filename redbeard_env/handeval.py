"""Vectorised hand-strength estimates: how many tricks does a 6-card hand take?

Estimates for many hands at once, by Monte Carlo over sampled deals played out in one
numpy pass (``*_mc`` functions), or by lookup in a precomputed table of the same Monte
Carlo by hand *signature* (``expected_tricks`` / ``trick_distribution``).

Inputs
------
``hands``
    Either a card mask, bool (or 0/1 integer) ``[B, 52]``, or card ids, integer ``[B, 6]``
    (id = ``suit * 13 + rank``, ranks 2..A = 0..12, see :mod:`redbeard_env.cards`).
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
``expected_tricks_mc(hands, num_players, role="declarer", samples=256, rng=None, *, leader, position)``
    float32 ``[B]``: Monte Carlo for these very cards, ``samples`` deals per hand
    (``rng``: a ``numpy.random.Generator``, a seed, or None).
``trick_distribution_mc(hands, num_players, role, samples, rng, *, leader, position)``
    float32 ``[B, 7]``: the same Monte Carlo as a distribution.
``remaining_trick_distribution_mc(hands, unseen, n_players_in, tricks_left=None, rng=None, *, position=None, leader="declarer", samples=256)``
    float32 ``[B, tricks_left + 1]``, mid-round: P(taking exactly k of the remaining
    tricks). ``hands``: the ``tricks_left`` cards still held. ``unseen``: bool ``[B, 52]``
    (or ``[52]`` shared) = the cards this player neither holds nor has seen played (the
    other hands, folded hands, the stock). The ``n_players_in - 1`` others still in the
    round (2..7 players incl. this one) get ``tricks_left`` cards each from ``unseen``,
    uniformly (no inference from earlier play, e.g. shown-out suits), and the rest of
    the round is played out. ``position``: this player's seat offset from the player
    who leads the next trick (0 = this player leads); None = uniform over
    1..n_players_in-1. With ``leader="declarer"`` the next leader is the declarer and
    leads every remaining trick; with ``"trick_winner"`` trick winners lead after it.
    Everything not unseen and not held counts as played (known to all), which the
    leader's master-card test uses.
``p_take_trick(hands, unseen, n_players_in, tricks_left=None, rng=None, *, position, leader, samples)``
    float32 ``[B]``: P(at least one more trick) -- the join decision with 2-3 tricks left.
``hand_signature(hands)``
    int64 ``[B]``: the table key of each hand (below).
``load_table(path=TABLE_PATH)`` / ``build_table(path=TABLE_PATH, samples=720, seed=0, workers=2)``
    load (lazily, cached) / regenerate ``redbeard_env/data/handeval_table.npz`` (1.1 MB;
    ~180 CPU-s, i.e. ~1.5 min on 2 idle cores). Also
    ``python -m redbeard_env.handeval --regenerate``. Regenerate after any change to the
    playout policy or the signature (``TABLE_VERSION`` guards the format).

Playout policy (every player, every function)
---------------------------------------------
Every player plays to *win* tricks (every trick lowers one's score, and a player with no
trick risks the join penalty, so non-declarers want tricks too -- they just usually hold
less). Nobody folds; nobody infers anything from the auction or the play except which
cards are gone; the other hands are uniformly random.

- **Leader**:
  1. If it holds a *master* -- its highest card in a suit is above every card of that
     suit that is neither played nor in its own hand (stock cards count as possibly out:
     nobody knows where they are) -- it cashes one: the master of its longest such suit
     (ties: the higher master, then lowest suit id).
  2. Otherwise it leads the lowest card of its longest suit (ties: the suit whose lowest
     card is lowest, then lowest suit id): low leads draw the others' high cards, and
     long suits become good as the others run out.
- **Follower** (must follow suit when able):
  1. If it can beat the card currently winning the trick, it plays the *cheapest* card
     that does (no ducking, no anticipation of the players after it).
  2. Else, if it holds the led suit, its lowest card of that suit.
  3. Else (void) it discards its lowest-ranked card (ties: lowest suit id).

``_reference_playout`` is a plain-Python implementation of the same policy, one deal at
a time; the tests check that the vectorised playout agrees with it exactly.

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
variation of 0.03..0.11. MC: standard error ~0.9/sqrt(samples) tricks (0.05 at 256) and
no abstraction error. Both estimate tricks *under this policy*, not under optimal play.
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .cards import NUM_CARDS, NUM_RANKS

__all__ = [
    "ROLES",
    "LEADERS",
    "expected_tricks",
    "trick_distribution",
    "expected_tricks_mc",
    "trick_distribution_mc",
    "remaining_trick_distribution_mc",
    "p_take_trick",
    "hand_signature",
    "build_table",
    "load_table",
    "TABLE_PATH",
]

ROLES = ("declarer", "follower")
LEADERS = ("declarer", "trick_winner")
MIN_PLAYERS, MAX_PLAYERS = 3, 7
HAND_SIZE = 6


TABLE_PATH = os.path.join(os.path.dirname(__file__), "data", "handeval_table.npz")


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


def _get_rng(rng):
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise ValueError(f"rng must be a numpy Generator, a seed or None, got {rng!r}")


# ------------------------------------------------------------------ Monte Carlo core

def _deal_from_pool(pool_ids, pool_size, k, rng):
    """Partial Fisher-Yates: the first k of a uniformly shuffled pool, per row.
    pool_ids int8 [M, P] (valid entries first), pool_size int [M] (>= k). -> int8 [M, k]."""
    M = pool_ids.shape[0]
    P = np.ascontiguousarray(pool_ids.T)  # [P, M]: column swaps become row ops
    flat = P.reshape(-1)
    rows = np.arange(M)
    u = rng.random((k, M), dtype=np.float32)
    size = pool_size.astype(np.float32)
    for i in range(k):
        j = i + np.minimum((u[i] * (size - i)).astype(np.int64), pool_size - i - 1)
        idx = j * M + rows
        a = P[i].copy()
        P[i] = flat[idx]
        flat[idx] = a
    return np.ascontiguousarray(P[:k].T)


_BIT = (1 << np.arange(16)).astype(np.int16)
_NMASK = 1 << NUM_RANKS
_POP = np.array([bin(x).count("1") for x in range(_NMASK)], dtype=np.int16)
# rank of the lowest / highest card in a 13-bit suit mask (13 / -1 for an empty suit)
_LOW = np.array([(x & -x).bit_length() - 1 if x else NUM_RANKS for x in range(_NMASK)], dtype=np.int16)
_TOP = np.array([x.bit_length() - 1 for x in range(_NMASK)], dtype=np.int16)
_SUITS4 = np.arange(4)


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


_ABOVE = np.array([~((2 << r) - 1) & (_NMASK - 1) for r in range(NUM_RANKS)], dtype=np.int16)


def _min4(x):
    """Row minimum of an [M, 4] array (faster than x.min(1) for 4 columns)."""
    return np.minimum(np.minimum(x[:, 0], x[:, 1]), np.minimum(x[:, 2], x[:, 3]))


def _playout(H, unplayed, leader_rule, by_suit=False):
    """Play out the remaining T tricks with the documented policy.

    H: int16 [n, M, 4] per-suit masks of each seat's hand (consumed), every seat holding
    T cards; seat 0 leads the first trick. unplayed: int16 [M, 4] masks of the cards not
    yet played (all hands plus everything unseen; consumed). -> tricks int8 [M, n], or with
    by_suit int8 [M, n, 4] split by the suit of the trick (the winning card's suit)."""
    n, M, _ = H.shape
    T = int(_POP[H[0, 0]].sum()) if M else 0
    rows = np.arange(M)
    rows4 = rows * 4
    suits = np.arange(4, dtype=np.int16)
    tricks = np.zeros((M, n, 4) if by_suit else (M, n), dtype=np.int8)
    flat = H.reshape(n * M, 4)
    hflat = H.reshape(-1)
    uflat = unplayed.reshape(-1)
    leader = np.zeros(M, dtype=np.int64)
    for t in range(T):
        fixed = leader_rule == "declarer" or t == 0
        for k in range(n):
            if fixed:
                h = H[k]
                base = k * M * 4 + rows4
            else:
                p = leader + k
                p[p >= n] -= n
                h = flat.take(p * M + rows, axis=0)
                base = p * (M * 4) + rows4
            if k == 0:
                # lead: a master from the longest suit holding one (its highest card),
                # else the lowest card of the longest suit; ties: lowest suit
                hi = _TOP.take(h)
                master = h > (unplayed & ~h)
                key = (8 - _POP.take(h)) * 16 + np.where(master, 12 - hi, 256 + _LOW.take(h))
                key[h == 0] = 4096
                suit = (_min4(key * 4 + suits) & 3).astype(np.int64)
                idx = rows4 + suit
                rank = np.where(master.reshape(-1).take(idx), hi.reshape(-1).take(idx),
                                _LOW.take(h.reshape(-1).take(idx)))
                led = suit
                lidx = idx
                best = rank
                win = np.full(M, k, dtype=np.int64) if fixed else p.copy()
            else:
                # follow: the cheapest card beating the trick, else the lowest of the led
                # suit, else discard the lowest rank (ties: lowest suit)
                hl = h.reshape(-1).take(lidx)
                above = hl & _ABOVE.take(best)
                has = hl != 0
                d = _min4(_LOW.take(h) * 4 + suits)
                suit = np.where(has, led, d & 3)
                rank = np.where(above != 0, _LOW.take(above), np.where(has, _LOW.take(hl), d >> 2))
                better = (rank > best) & has
                best = np.where(better, rank, best)
                win[better] = k if fixed else p[better]
            bit = _BIT.take(rank)
            hflat[base + suit] ^= bit
            if t < T - 1:
                uflat[rows4 + suit] ^= bit
        if by_suit:
            tricks[rows, win, led] += 1
        else:
            tricks[rows, win] += 1
        if leader_rule == "trick_winner":
            leader = win
    return tricks


def _reference_playout(hands, leader_rule, unplayed=None):
    """Plain-Python playout of one deal with the same policy (and tie-breaks) as
    :func:`_playout`: ``hands`` = list of n lists of card ids (seat 0 leads first),
    ``unplayed`` = set of cards not yet played (default: the whole pack). Returns the
    tricks per seat. Slow; used by the tests and as the benchmark yardstick."""
    hands = [set(h) for h in hands]
    unplayed = set(range(NUM_CARDS)) if unplayed is None else set(unplayed)
    n = len(hands)
    T = len(hands[0])
    tricks = [0] * n
    leader = 0
    for _ in range(T):
        trick = []
        for k in range(n):
            p = (leader + k) % n
            h = hands[p]
            by_suit = {s: sorted(c % NUM_RANKS for c in h if c // NUM_RANKS == s) for s in range(4)}
            if k == 0:
                best_key = None
                for s in range(4):
                    ranks = by_suit[s]
                    if not ranks:
                        continue
                    outside = [c % NUM_RANKS for c in unplayed if c // NUM_RANKS == s and c not in h]
                    is_master = ranks[-1] > max(outside, default=-1)
                    key = (8 - len(ranks)) * 16 + (12 - ranks[-1] if is_master else 256 + ranks[0])
                    if best_key is None or key < best_key:
                        best_key = key
                        card = s * NUM_RANKS + (ranks[-1] if is_master else ranks[0])
                led = card // NUM_RANKS
            else:
                best = max(c for _, c in trick if c // NUM_RANKS == led)
                mine = by_suit[led]
                if mine:
                    above = [r for r in mine if led * NUM_RANKS + r > best]
                    card = led * NUM_RANKS + (above[0] if above else mine[0])
                else:
                    card = min(h, key=lambda c: (c % NUM_RANKS, c // NUM_RANKS))
            h.remove(card)
            unplayed.discard(card)
            trick.append((p, card))
        winner = max((c, p) for p, c in trick if c // NUM_RANKS == led)[1]
        tricks[winner] += 1
        if leader_rule == "trick_winner":
            leader = winner
    return tricks


# ------------------------------------------------------------------ MC drivers

_CHUNK = 131072  # rows (hand x sample) simulated at once


def _bool_from_masks(masks):
    """int16 [..., 4] -> bool [..., 52]."""
    m = np.asarray(masks, dtype=np.int16)
    return ((m[..., None] >> np.arange(NUM_RANKS, dtype=np.int16)) & 1).astype(bool).reshape(*m.shape[:-1], NUM_CARDS)


def _deal_others(pool_ids, pool_size, n, T, rng):
    """Hands of the n-1 other players: int16 masks [M, n-1, 4]."""
    M = pool_ids.shape[0]
    dealt = _deal_from_pool(pool_ids, pool_size, (n - 1) * T, rng).reshape(M, n - 1, T)
    return _ids_to_masks(dealt)


def _play_seated(mine, others, unplayed, leader, pos, by_suit=False):
    """Seat `mine` at pos (int [M]; seat 0 leads the first trick), the others in order
    around it, and play out. -> tricks int8 [M] taken by `mine` ([M, 4] by suit)."""
    M, m1, _ = others.shape
    n = m1 + 1
    rows = np.arange(M)
    allm = np.empty((M, n, 4), dtype=np.int16)
    allm[:, : n - 1] = others
    allm[:, n - 1] = mine
    seat = np.arange(n)
    src = np.where(seat < pos[:, None], seat, seat - 1)
    src[rows, pos] = n - 1
    H = np.ascontiguousarray(np.take_along_axis(allm, src[:, :, None], axis=1).transpose(1, 0, 2))
    tricks = _playout(H, unplayed.copy(), leader, by_suit)
    return tricks[rows, pos]


def _simulate(mine, pool_ids, pool_size, unplayed, n, leader, pos, rng):
    """One chunk of deals. mine int16 [M, 4] (T cards each), pool_ids int8 [M, P] (valid
    first), pool_size int [M], unplayed int16 [M, 4], pos int [M] seat of `mine` (0 =
    leads the first trick). -> tricks int8 [M] taken by `mine`."""
    T = int(_POP[mine[0]].sum())
    return _play_seated(mine, _deal_others(pool_ids, pool_size, n, T, rng), unplayed, leader, pos)


def _run(mine, pool, n, leader, pos, samples, rng):
    """Monte Carlo for B hands: mine int16 [B, 4], pool bool [B, 52] (cards the others are
    dealt from), pos int [B] or None (uniform over 1..n-1 per sample). -> int8 [B, samples]."""
    B = mine.shape[0]
    pool_size = pool.sum(1)
    order = np.argsort(~pool, axis=1, kind="stable").astype(np.int8)
    P = int(pool_size.max())
    order = np.ascontiguousarray(order[:, :P])
    unplayed = mine | _masks_from_bool(pool)
    out = np.empty(B * samples, dtype=np.int8)
    total = B * samples
    for start in range(0, total, _CHUNK):
        stop = min(total, start + _CHUNK)
        hand = np.arange(start, stop) // samples
        if pos is None:
            p = rng.integers(1, n, size=stop - start)
        else:
            p = pos[hand]
        out[start:stop] = _simulate(mine[hand], order[hand], pool_size[hand], unplayed[hand], n, leader, p, rng)
    return out.reshape(B, samples)


def _distribution(tricks, T):
    """int [B, S] trick counts -> float32 [B, T + 1] frequencies."""
    B, S = tricks.shape
    flat = np.arange(B)[:, None] * (T + 1) + tricks
    counts = np.bincount(flat.reshape(-1), minlength=B * (T + 1)).reshape(B, T + 1)
    return (counts / S).astype(np.float32)


def trick_distribution_mc(hands, num_players, role="declarer", samples=256, rng=None, *, leader="declarer", position=None):
    """P(the hand takes exactly k tricks), k = 0..6, by Monte Carlo: float32 [B, 7].
    See the module docstring for the arguments and the playout policy."""
    mine, single = _as_masks(hands)
    n = _check_num_players(num_players)
    role = _check_role(role)
    leader = _check_leader(leader)
    samples = _check_samples(samples)
    pos = _positions(position, role, n, mine.shape[0])
    rng = _get_rng(rng)
    pool = ~_bool_from_masks(mine)
    dist = _distribution(_run(mine, pool, n, leader, pos, samples, rng), HAND_SIZE)
    return dist[0] if single else dist


def expected_tricks_mc(hands, num_players, role="declarer", samples=256, rng=None, *, leader="declarer", position=None):
    """Expected tricks of each hand by Monte Carlo (``samples`` deals per hand): float32 [B].
    See the module docstring for the arguments and the playout policy."""
    dist = trick_distribution_mc(hands, num_players, role, samples, rng, leader=leader, position=position)
    return (dist @ np.arange(HAND_SIZE + 1, dtype=np.float32)).astype(np.float32)


def remaining_trick_distribution_mc(hands, unseen, n_players_in, tricks_left=None, rng=None, *, position=None,
                                    leader="declarer", samples=256):
    """Mid-round Monte Carlo: P(taking exactly k of the remaining tricks), float32
    [B, tricks_left + 1]. ``hands``: the cards still held ([B, 52] mask or [B, t] ids),
    ``unseen``: bool [B, 52] (or [52], shared) cards neither held nor seen played,
    ``n_players_in`` 2..7 players still in the round (incl. this one), each holding
    ``tricks_left`` cards; ``position``: seat offset from the player leading the next
    trick (0 = this player), None = uniform over 1..n_players_in-1."""
    arr = np.asarray(hands)
    if tricks_left is None:
        if arr.ndim == 0 or arr.shape[-1] == NUM_CARDS:
            if arr.ndim == 0 or arr.size == 0:
                raise ValueError(f"hands must be [B, 52] card masks or [B, t] card ids, got shape {arr.shape}")
            t = int(np.asarray(arr, dtype=bool).reshape(-1, NUM_CARDS)[0].sum()) if arr.ndim in (1, 2) else -1
        else:
            t = arr.shape[-1]
    else:
        t = tricks_left
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= HAND_SIZE:
        raise ValueError(f"tricks_left must be an int in 1..{HAND_SIZE}, got {t!r}")
    t = int(t)
    mine, single = _as_masks(hands, size=t)
    B = mine.shape[0]
    n = _check_num_players(n_players_in, 2, MAX_PLAYERS, "n_players_in")
    leader = _check_leader(leader)
    samples = _check_samples(samples)
    rng = _get_rng(rng)
    un = np.asarray(unseen)
    if un.dtype != bool:
        if not np.issubdtype(un.dtype, np.integer) or ((un != 0) & (un != 1)).any():
            raise ValueError("unseen must be a bool [B, 52] (or [52]) card mask")
        un = un.astype(bool)
    if un.ndim == 1:
        un = un[None]
    if un.ndim != 2 or un.shape[1] != NUM_CARDS or un.shape[0] not in (1, B):
        raise ValueError(f"unseen must be a bool [B, 52] or [52] card mask, got shape {np.shape(unseen)} for B={B}")
    un = np.broadcast_to(un, (B, NUM_CARDS))
    hand_bool = _bool_from_masks(mine)
    if (un & hand_bool).any():
        raise ValueError("unseen must not contain cards of the hand")
    need = (n - 1) * t
    short = un.sum(1) < need
    if short.any():
        raise ValueError(f"unseen holds {int(un.sum(1)[short][0])} cards, fewer than the {need} the other "
                         f"{n - 1} players hold")
    if position is None:
        pos = None
    else:
        pos = np.asarray(position)
        if pos.dtype == bool or not np.issubdtype(pos.dtype, np.integer) or pos.ndim > 1:
            raise ValueError(f"position must be an int or an int array [B], got {position!r}")
        pos = np.broadcast_to(pos, (B,)).astype(np.int64) if pos.ndim == 0 else pos.astype(np.int64)
        if pos.shape != (B,) or (pos < 0).any() or (pos > n - 1).any():
            raise ValueError(f"position must be in 0..{n - 1} for {n} players in, got {position!r}")
    dist = _distribution(_run(mine, un.copy(), n, leader, pos, samples, rng), t)
    return dist[0] if single else dist


def p_take_trick(hands, unseen, n_players_in, tricks_left=None, rng=None, *, position=None, leader="declarer",
                 samples=256):
    """P(taking at least one of the remaining tricks), float32 [B]; see
    :func:`remaining_trick_distribution_mc`. For the join decision with 2-3 tricks left."""
    dist = remaining_trick_distribution_mc(hands, unseen, n_players_in, tricks_left, rng, position=position,
                                           leader=leader, samples=samples)
    return (1.0 - dist[..., 0]).astype(np.float32)


# ------------------------------------------------------------------ signature table

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


def _all_signatures():
    """Every signature as sorted (non-increasing) class-code 4-tuples: int64 [G, 4]."""
    L = _CLASS_LEN
    out = []
    for a in range(NUM_CLASSES):
        for b in range(a + 1):
            for c in range(b + 1):
                for d in range(c + 1):
                    if L[a] + L[b] + L[c] + L[d] == HAND_SIZE:
                        out.append((a, b, c, d))
    return np.array(out, dtype=np.int64)


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


def _sample_hands(codes, samples, rng):
    """Uniform concrete hands for signatures: codes int [G, 4] -> int16 masks [G*samples, 4]."""
    codes = np.repeat(np.asarray(codes, dtype=np.int64), samples, axis=0)
    R = codes.shape[0]
    low = _CLASS_LOW[codes]
    order = np.argsort(rng.random((R, 4, _LOWBITS), dtype=np.float32), axis=-1).astype(np.int16)
    sel = np.arange(_LOWBITS) < low[..., None]
    lowbits = np.where(sel, _BIT[order], np.int16(0)).sum(-1, dtype=np.int16)
    masks = (_CLASS_HON[codes] << _LOWBITS) | lowbits
    perm = np.argsort(rng.random((R, 4), dtype=np.float32), axis=1)
    return np.take_along_axis(masks, perm, axis=1).astype(np.int16)


# Table layout. Per signature 50 "cells": (num_players n, leader, seat position 0..n-1),
# see _combo_index. Generation plays, per signature, n and leader, `samples` deals with
# the hand as declarer and `samples` deals with it as a follower, the follower's position
# cycling 1, 2, .., n-1 (so each follower cell holds samples/(n-1) deals). The stored
# counts are the raw trick distributions per cell.
#
# Low-card correction. The signature ignores which 2..10 a suit holds. A per-suit,
# per-rank linear correction restores most of that: for every "group" (n, leader,
# role declarer/follower) and suit class (honour mask, number of low cards) a weight per
# low rank 2..10, fitted by least squares on the tricks won *in that suit* (the suit of
# the trick's winning card) during generation; the hand's correction is the sum over its
# suits of sum_r w[r] * (held_r - lows/9) (zero on average over the class). The
# distribution is shifted to the corrected mean by moving a fraction of its mass by one
# trick.

_NGROUPS = (MAX_PLAYERS - MIN_PLAYERS + 1) * 2 * 2  # (n, leader, role)
_RIDGE = 1.0


def _group_index(n, leader, role):
    return ((n - MIN_PLAYERS) * 2 + LEADERS.index(leader)) * 2 + ROLES.index(role)


def _lowbits_features(masks):
    """int16 masks [...] -> float32 [..., 9] centred low-card indicators, and class codes."""
    m = np.asarray(masks, dtype=np.int64)
    held = ((m[..., None] >> np.arange(_LOWBITS)) & 1).astype(np.float32)
    nlow = held.sum(-1, keepdims=True)
    codes = _CLASS_OF[m >> _LOWBITS, nlow[..., 0].astype(np.int64)]
    return held - nlow / _LOWBITS, codes


def _table_chunk(args):
    """Raw statistics for some signatures: trick counts int [G, 50, 7], the low-card
    regression sums XtX [groups, classes, 9, 9], Xty [groups, classes, 9], CPU seconds."""
    import time

    cpu0 = time.process_time()
    codes, samples, seed = args
    rng = np.random.default_rng(seed)
    G = codes.shape[0]
    K = HAND_SIZE + 1
    mine = _sample_hands(codes, samples, rng)
    R = mine.shape[0]
    hand_bool = _bool_from_masks(mine)
    pool_ids = np.nonzero(~hand_bool)[1].reshape(R, NUM_CARDS - HAND_SIZE).astype(np.int8)
    pool_size = np.full(R, NUM_CARDS - HAND_SIZE)
    unplayed = np.full((R, 4), _NMASK - 1, dtype=np.int16)
    counts = np.zeros((G, NUM_COMBOS, K), dtype=np.int64)
    xtx = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS, _LOWBITS))
    xty = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS))
    feats, cls = _lowbits_features(mine)  # [R, 4, 9], [R, 4]
    feats = feats.reshape(R * 4, _LOWBITS).astype(np.float64)
    cls = cls.reshape(R * 4)
    outer = (feats[:, :, None] * feats[:, None, :]).reshape(R * 4, -1)
    sxx = np.stack([np.bincount(cls, weights=outer[:, j], minlength=NUM_CLASSES) for j in range(outer.shape[1])], -1)
    sig = np.repeat(np.arange(G), samples)
    cyc = np.tile(np.arange(samples), G)
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        # one set of deals per player count, shared by its leader rules and roles (each
        # cell stays an unbiased estimate; sharing only correlates cells)
        others = _deal_others(pool_ids, pool_size, n, HAND_SIZE, rng)
        fpos = 1 + cyc % (n - 1)
        for leader in LEADERS:
            for role, pos in (("declarer", np.zeros(R, np.int64)), ("follower", fpos)):
                tr = _play_seated(mine, others, unplayed, leader, pos, by_suit=True)  # [R, 4]
                col = np.array([_combo_index(n, leader, int(q)) for q in range(n)])[pos]
                tot = tr.sum(1, dtype=np.int64)
                flat = (sig * NUM_COMBOS + col) * K + tot
                counts += np.bincount(flat, minlength=G * NUM_COMBOS * K).reshape(G, NUM_COMBOS, K)
                g = _group_index(n, leader, role)
                y = tr.reshape(R * 4).astype(np.float64)
                xtx[g] += sxx.reshape(NUM_CLASSES, _LOWBITS, _LOWBITS)
                xty[g] += np.stack([np.bincount(cls, weights=feats[:, j] * y, minlength=NUM_CLASSES)
                                    for j in range(_LOWBITS)], -1)
    return counts, xtx, xty, time.process_time() - cpu0


TABLE_SAMPLES = 720  # deals per signature, player count, leader rule and role
TABLE_VERSION = 1


def build_table(path: Optional[str] = TABLE_PATH, samples: int = TABLE_SAMPLES, seed: int = 0, workers: int = 2,
                sigs_per_chunk: Optional[int] = None, verbose: bool = False):
    """(Re)generate the lookup table and save it to ``path`` (``None``: don't save).
    Deterministic for a given ``samples`` and ``seed`` whatever ``workers``. Returns the
    table dict. About 2-3 minutes with the defaults on 2 cores."""
    import time

    samples = _check_samples(samples)
    if samples > 65535:
        raise ValueError("samples must be at most 65535 (counts are stored as uint16)")
    sigs = _all_signatures()
    keys = _codes_to_key(sigs)
    order = np.argsort(keys)
    sigs, keys = sigs[order], keys[order]
    per = sigs_per_chunk or max(1, 65536 // samples)
    chunks = [sigs[i:i + per] for i in range(0, len(sigs), per)]
    seeds = np.random.SeedSequence(seed).spawn(len(chunks))
    jobs = [(c, samples, sd) for c, sd in zip(chunks, seeds)]
    t0 = time.perf_counter()
    if workers and workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            results = []
            for i, r in enumerate(pool.imap(_table_chunk, jobs)):
                results.append(r)
                if verbose:
                    print(f"  chunk {i + 1}/{len(jobs)}  {time.perf_counter() - t0:.0f}s", flush=True)
    else:
        results = []
        for i, job in enumerate(jobs):
            results.append(_table_chunk(job))
            if verbose:
                print(f"  chunk {i + 1}/{len(jobs)}  {time.perf_counter() - t0:.0f}s", flush=True)
    counts = np.concatenate([r[0] for r in results]).astype(np.uint16)
    xtx = sum(r[1] for r in results)
    xty = sum(r[2] for r in results)
    weights = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS), dtype=np.float32)
    eye = np.eye(_LOWBITS)
    for g in range(_NGROUPS):
        for c in range(NUM_CLASSES):
            if 0 < _CLASS_LOW[c] < _LOWBITS:
                weights[g, c] = np.linalg.solve(xtx[g, c] + _RIDGE * eye, xty[g, c])
    table = {
        "version": np.int64(TABLE_VERSION),
        "samples": np.int64(samples),
        "seed": np.int64(seed),
        "top_honours": np.int64(TOP_HONOURS),
        "keys": keys,
        "counts": counts,
        "low_weights": weights,
        "seconds": np.float64(time.perf_counter() - t0),
        "cpu_seconds": np.float64(sum(r[3] for r in results)),
    }
    if path is not None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        np.savez_compressed(path, **table)
    return table


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
    with :func:`build_table`)."""
    ck = (os.path.abspath(path), smooth)
    if not reload and ck in _TABLE_CACHE:
        return _TABLE_CACHE[ck]
    if not os.path.exists(path):
        raise FileNotFoundError(f"hand-strength table {path} is missing; regenerate it with "
                                "`python -m redbeard_env.handeval --regenerate` (or build_table())")
    with np.load(path) as raw:
        data = {k: raw[k] for k in raw.files}
    if int(data["version"]) != TABLE_VERSION or int(data["top_honours"]) != TOP_HONOURS:
        raise ValueError(f"{path}: table version {int(data['version'])} does not match this code "
                         f"(version {TABLE_VERSION}); regenerate it with build_table()")
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
        raise RuntimeError("hand signature missing from the table; regenerate it with build_table()")
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


def _main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description="redbeard_env.handeval: regenerate the hand-strength table")
    ap.add_argument("--regenerate", action="store_true", help="build the table and save it")
    ap.add_argument("--path", default=TABLE_PATH)
    ap.add_argument("--samples", type=int, default=TABLE_SAMPLES)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if not args.regenerate:
        ap.print_help()
        return
    t = build_table(args.path, samples=args.samples, seed=args.seed, workers=args.workers, verbose=True)
    print(f"saved {args.path}: {t['counts'].shape[0]} signatures x {NUM_COMBOS} cells, "
          f"{float(t['seconds']):.0f}s wall, {float(t['cpu_seconds']):.0f} CPU-s, "
          f"{os.path.getsize(args.path) / 1e6:.2f} MB")


if __name__ == "__main__":
    _main()
