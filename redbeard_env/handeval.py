"""Vectorised hand-strength estimates: how many tricks does a 6-card hand take?

Estimates for many hands at once, by Monte Carlo over sampled deals played out in one
numpy pass (``*_mc`` functions), or by lookup in a precomputed table of the same
Monte Carlo by hand *signature* (``expected_tricks`` / ``trick_distribution``).

Inputs
------
``hands``
    Either a card mask, bool (or 0/1 integer) ``[B, 52]``, or card ids, integer ``[B, 6]``
    (id = ``suit * 13 + rank``, ranks 2..A = 0..12, see :mod:`redbeard_env.cards`).
    A single hand (``[52]`` or ``[6]``) is accepted too; the result then has no batch
    axis. Every hand must hold exactly 6 distinct cards (``p_take_trick``: exactly
    ``tricks_left`` cards). Anything else raises ``ValueError``.
``num_players``
    3..7 (the players in the round; the others' hands are dealt at random from the 46
    cards the hand does not hold; the rest of the pack is the stock, never played).
``role``
    ``"declarer"`` -- the hand is the declarer's: seat 0, it leads the first trick.
    ``"follower"`` -- a non-declarer at ``position`` = 1..num_players-1 seats to the
    declarer's left (1 plays second to the first trick). ``position=None`` (default)
    averages over all follower positions equally. ``position`` may also be an int
    array ``[B]`` (one position per hand).
``leader``
    ``"declarer"`` (the declarer leads every trick; presets classic, fem_opp,
    raudskjegg) or ``"trick_winner"`` (the declarer leads the first trick, the winner of
    a trick leads the next; preset wikipedia) -- the :class:`~redbeard_env.rules.Rules`
    field of the same name.

So the brief's roles are: declarer leading every trick = ``role="declarer",
leader="declarer"``; declarer leading the first trick only = ``role="declarer",
leader="trick_winner"``; a follower = ``role="follower"`` with either ``leader``.

Functions
---------
``expected_tricks(hands, num_players, role="declarer", leader="declarer", position=None)``
    float32 ``[B]``: table lookup (microseconds per batch).
``trick_distribution(hands, num_players, role, leader, position)``
    float32 ``[B, 7]``: table lookup of P(exactly k tricks), k = 0..6; rows sum to 1.
    ``P(>=1) = 1 - dist[:, 0]``.
``expected_tricks_mc(hands, num_players, role, samples=256, rng=None, leader, position)``
    float32 ``[B]``: exact Monte Carlo for these very cards (``samples`` deals per hand).
``trick_distribution_mc(...)``
    float32 ``[B, 7]``: the same Monte Carlo, as a distribution.
``remaining_trick_distribution_mc(hands, unseen, n_players_in, tricks_left=None,
position=1, leader="declarer", samples=256, rng=None)``
    float32 ``[B, tricks_left + 1]``: mid-round variant. ``hands`` holds the
    ``tricks_left`` cards still in the hand; ``unseen`` (bool ``[B, 52]`` or ``[52]``)
    the cards this player has not seen played and does not hold (the other players'
    hands, folded hands and the stock). The other ``n_players_in - 1`` players still in
    the round (2..7 incl. this one) are dealt ``tricks_left`` cards each from ``unseen``
    and the rest of the round is played out. ``position`` is this player's seat offset
    from the player who leads the next trick (0 = this player leads it); with
    ``leader="declarer"`` that player is the declarer and leads every remaining trick,
    with ``"trick_winner"`` trick winners lead afterwards. Cards already played are
    known to everyone (everything not in ``unseen`` and not in the hand), which the
    leader's "master card" test below uses.
``p_take_trick(...)``
    float32 ``[B]``: P(at least one more trick) from the above -- for join decisions.
``hand_signature(hands)``
    int64 ``[B]``: the table key of each hand (see below); ``signature_index`` gives
    the row in the table.
``build_table(path=None, samples=..., seed=0, workers=2)``
    regenerate ``redbeard_env/data/handeval_table.npz`` (about 2 minutes on 2 cores);
    also ``python -m redbeard_env.handeval --regenerate``.

Playout policy (used by every player in every function)
-------------------------------------------------------
Every player plays to *win* tricks (in Rödskägg every trick lowers your score, and a
player without a trick risks the join penalty, so non-declarers want tricks too).
Nobody folds, nobody infers anything from the auction or from earlier plays except
which cards are gone; hands of the other players are uniformly random.

- **Leader** (the card that leads a trick):
  1. If it holds a *master* -- a card higher than every card of its suit that is
     neither played nor in its own hand (stock cards count as possibly out, the player
     cannot know where they are) -- it leads a master: from its longest suit, the
     highest one ("cash winners").
  2. Otherwise it leads the lowest card of its longest suit (ties: the lowest such
     card, then the lowest suit id); low leads draw the others' high cards and length
     tends to become good as the others run out of the suit.
- **Follower** (must follow suit when able):
  1. If it can beat the card currently winning the trick, it plays the *cheapest* card
     that does (second hand does not duck, it does not anticipate later players).
  2. Else, if it holds the led suit, its lowest card of that suit.
  3. Else (void) it discards its lowest-ranked card (ties: lowest suit id).

Table design
------------
A hand's *signature* is, per suit, (which of the top-4 honours A K Q J it holds -- a
4-bit mask --, how many cards 2..10 it holds), i.e. 80 possible suit holdings of
length 0..6; suits are interchangeable (no trumps), so the four suit codes are sorted
and the hand is the sorted 4-tuple: 3258 signatures over all 20 358 520 hands.
For each signature, num_players 3..7, leader rule and seat position 0..n-1 (0 =
declarer, 1..n-1 followers) -- 50 cells -- the table stores the distribution of
tricks over ``TABLE_SAMPLES`` Monte Carlo deals. The deals draw, per sample, a uniform
concrete hand with that signature (which low cards, which suit gets which holding), so
a cell is the expectation over all hands with that signature. Accuracy: see
``TABLE_ACCURACY`` below (measured against MC with many samples on random hands; it is
also checked by ``tests/test_handeval.py``). The within-signature spread (which low
cards) is the main error source for long suits; noise is ~0.9/sqrt(samples).

Accuracy vs. MC: the table has a fixed error, see ``TABLE_ACCURACY``; MC has standard
error ~0.9/sqrt(samples) tricks per hand (0.06 at 256 samples) and no abstraction
error. Both share the playout policy above, so both estimate "tricks under this
policy", not under optimal play.
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
    "signature_index",
    "build_table",
    "load_table",
    "TABLE_PATH",
]

ROLES = ("declarer", "follower")
LEADERS = ("declarer", "trick_winner")
MIN_PLAYERS, MAX_PLAYERS = 3, 7
HAND_SIZE = 6

_SENT = 64  # an empty hand slot: "suit" 4 (never led), never a master, never chosen
_rng_default = None

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


def _check_samples(samples) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    return int(samples)


def _positions(position, role, n, B):
    """Seat of the evaluated hand per hand: int array [B], or None = average over followers."""
    if role == "declarer":
        if position not in (None, 0):
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


def _playout(H, unplayed, leader_rule):
    """Play out the remaining T tricks with the documented policy.

    H: int16 [n, M, 4] per-suit masks of each seat's hand (consumed), every seat holding
    T cards; seat 0 leads the first trick. unplayed: int16 [M, 4] masks of the cards not
    yet played (all hands plus everything unseen; consumed). -> tricks int8 [M, n]."""
    n, M, _ = H.shape
    T = int(_POP[H[0, 0]].sum()) if M else 0
    rows = np.arange(M)
    rows4 = rows * 4
    tricks = np.zeros((M, n), dtype=np.int8)
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
                h = flat[p * M + rows]
                base = p * (M * 4) + rows4
            if k == 0:
                # lead: a master from the longest suit holding one (its highest card),
                # else the lowest card of the longest suit
                ln = _POP[h]
                hi = _TOP[h]
                master = h > (unplayed & ~h)
                key = (8 - ln) * 16 + np.where(master, 12 - hi, 256 + _LOW[h])
                key[h == 0] = 4096
                suit = key.argmin(1)
                hs = h[rows, suit]
                rank = np.where(master[rows, suit], hi[rows, suit], _LOW[hs])
                led = suit
                best = rank
                win = np.full(M, k, dtype=np.int64) if fixed else p.copy()
            else:
                hl = h[rows, led]
                above = hl & ~(_BIT[best + 1] - 1)  # led-suit cards above the best
                # cheapest winner, else lowest of the led suit, else discard lowest rank
                lowall = _LOW[h]
                dsuit = lowall.argmin(1)
                suit = np.where(hl != 0, led, dsuit)
                rank = np.where(above != 0, _LOW[above], np.where(hl != 0, _LOW[hl], lowall[rows, dsuit]))
                better = (suit == led) & (rank > best)
                best = np.where(better, rank, best)
                win[better] = k if fixed else p[better]
            bit = _BIT[rank]
            hflat[base + suit] ^= bit
            if t < T - 1:
                uflat[rows4 + suit] ^= bit
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
