"""The batch engine's observation encoder and legal-action mask, compiled with numba, for
every game of the family.

:func:`encode` writes seat ``observer``'s view of a game (its record ``g``,
:func:`~.vector_rules.game_dtype`) bit for bit as the game's layout
(:meth:`~.layout.Layout.encode`) gives it for the same game (the same
blocks, offsets and scales; floats computed in float64 and rounded once to float32, as
there); :func:`legal_mask` writes the acting seat's legal actions as
:func:`~.game.legal_actions` lists them. The parity tests
(``tests/test_sortskaeg_vector.py``, ``tests/test_oh_hell_vector.py``) compare both with
the reference at every step.

The block offsets and scales are run-time values of the rules record ``r`` (``r.off``
indexed by the ``K_*`` codes of :data:`~.layout.BLOCK_KEYS`, -1 for a block the game's
layout lacks; ``r.scale``); the cache of this module is stamped with the layout's file and
the rules kernels' (``jit_cache.cache_with``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import layout as _layout
from . import vector_rules
from .vector_rules import (BID, K_ACTING, K_BID, K_DEALER, K_DISCARDED, K_GAP, K_HAND, K_HAND_SIZE, K_JOKERS_SEEN,
                           K_LED, K_LEADER, K_NEED, K_PHASE, K_PLAYED, K_PLAYED_BY, K_PROGRESS, K_SCORE, K_SEEN_GAME,
                           K_TOOK_BACK, K_TRICK_OF,
                           K_TRICK, K_TRICK_PLAYED, K_TRICK_WINNING, K_TRICKS, K_TRUMP_CARD, K_TRUMPS, K_VOIDS,
                           NO_COLOUR, OVER, P_COLOURS, P_HOOK, P_IDS, P_MAX_BID, P_MAX_HAND, P_N, P_ROUNDS, PLAY,
                           colour_bits, count_bits, hand_size, low_card, trick_bits, trick_winner)

_CACHED = cache_with(__file__, _layout, vector_rules)
rule = njit(cache=_CACHED, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


@rule
def set_bits(row, offset, h):
    while h:
        row[offset + low_card(h)] = 1.0
        h &= h - np.uint64(1)


@rule
def mark_seat(row, offset, seat, observer, n):
    """A per-position one-hot: ``seat`` relative to the observer (nothing for -1)."""
    if seat >= 0:
        row[offset + (seat - observer) % n] = 1.0


@rule
def encode_seats(g, r, P, observer, row):
    """The per-position blocks: took_back, score, score_gap, bid, tricks, need,
    trick_played, voids (position 0 is the observer)."""
    n, O, sc = P[P_N], r.off, r.scale
    max_bid, max_hand, colours = P[P_MAX_BID], P[P_MAX_HAND], P[P_COLOURS]
    low, high = sc[3], sc[4]
    best = g.scores[0]
    for s in range(1, n):
        best = max(best, g.scores[s])
    for pos in range(n):
        s = (observer + pos) % n
        if O[K_TOOK_BACK] >= 0:
            set_bits(row, O[K_TOOK_BACK] + pos * P[P_IDS], g.took_back[s])
        if O[K_PLAYED_BY] >= 0:
            set_bits(row, O[K_PLAYED_BY] + pos * P[P_IDS], g.played_by[s])
        x = g.scores[s]
        row[O[K_SCORE] + pos] = min(max(x / sc[1], low), high)
        row[O[K_GAP] + pos] = max((x - best) / sc[2], low)
        bid = np.int64(g.bids[s])
        row[O[K_BID] + pos * (max_bid + 2) + bid + 1] = 1.0
        t = np.int64(g.tricks[s])
        row[O[K_TRICKS] + pos * (max_hand + 1) + t] = 1.0
        if bid >= 0:
            row[O[K_NEED] + pos] = (bid - t) / max_hand
        if g.trick_card[s] >= 0:
            row[O[K_TRICK_PLAYED] + pos] = 1.0
        for c in range(colours):
            if g.voids[s, c]:
                row[O[K_VOIDS] + pos * colours + c] = 1.0


@rule
def encode_trick_of(g, P, offset, row):
    """The ``trick_of`` block: (trick index + 1) / max_hand of every card played this round."""
    h = np.uint64(0)
    for s in range(P[P_N]):
        h |= g.played_by[s]
    while h:
        c = low_card(h)
        row[offset + c] = (np.int64(g.trick_no[c]) + 1) / P[P_MAX_HAND]
        h &= h - np.uint64(1)


@rule
def encode(g, r, P, observer, row):
    """Seat ``observer``'s observation of game ``g`` into ``row`` (float32 [OBS_SIZE])."""
    n, rounds, O = P[P_N], P[P_ROUNDS], r.off
    prefix = r.prefix
    for i in range(row.shape[0]):  # zeros, with the num_players and rules blocks
        row[i] = prefix[i]
    ph, rnd = np.int64(g.phase), np.int64(g.round)
    round_scale = r.scale[0]
    row[O[K_PHASE] + ph] = 1.0
    row[O[K_PROGRESS]] = rnd / round_scale
    row[O[K_PROGRESS] + 1] = max(rounds - rnd - 1, 0) / round_scale
    done = 0
    for s in range(n):
        done += g.tricks[s]
    row[O[K_PROGRESS] + 2] = done / P[P_MAX_HAND]
    if ph != OVER:
        row[O[K_HAND_SIZE] + hand_size(g, r, P) - 1] = 1.0
    hand, played, trick = g.hands[observer], g.played, trick_bits(g, n)
    set_bits(row, O[K_HAND], hand)
    set_bits(row, O[K_PLAYED], played)
    set_bits(row, O[K_TRICK], trick)
    if O[K_SEEN_GAME] >= 0:
        set_bits(row, O[K_SEEN_GAME], g.seen_game)
    if O[K_DISCARDED] >= 0:
        set_bits(row, O[K_DISCARDED], g.discarded[observer])
    row[O[K_LED] + g.led + 1] = 1.0
    if O[K_JOKERS_SEEN] >= 0:
        row[O[K_JOKERS_SEEN] + count_bits((hand | played | trick) & r.jokers)] = 1.0
    if O[K_TRUMP_CARD] >= 0 and g.trump_card >= 0:
        row[O[K_TRUMP_CARD] + g.trump_card] = 1.0
    if O[K_TRUMPS] >= 0:
        row[O[K_TRUMPS] + g.trumps + 1] = 1.0
    if O[K_TRICK_OF] >= 0:
        encode_trick_of(g, P, O[K_TRICK_OF], row)
    encode_seats(g, r, P, observer, row)
    mark_seat(row, O[K_DEALER], np.int64(g.dealer), observer, n)
    mark_seat(row, O[K_ACTING], np.int64(g.to_act) if ph != OVER else -1, observer, n)
    mark_seat(row, O[K_LEADER], np.int64(g.leader) if ph == PLAY else -1, observer, n)
    mark_seat(row, O[K_TRICK_WINNING], trick_winner(g, P), observer, n)


@rule
def legal_mask(g, r, P, row):
    """The acting seat's legal actions (all 0 when over or halted): bids 0..hand size (with
    ``dealer_hook`` not the dealer's bid that makes them add up); a card of the led colour
    or a joker if the hand has the led colour, else any card; any card to discard."""
    for i in range(row.shape[0]):
        row[i] = 0
    ph = g.phase
    if g.halt or ph == OVER:
        return
    seat = max(np.int64(g.to_act), 0)
    if ph == BID:
        h = hand_size(g, r, P)
        hook = P[P_HOOK] != 0 and seat == g.dealer
        others = 0
        for s in range(P[P_N]):
            if g.bids[s] >= 0:
                others += g.bids[s]
        bid0 = P[P_IDS]
        for k in range(min(h, P[P_MAX_BID]) + 1):
            if not (hook and others + k == h):
                row[bid0 + k] = 1
        return
    hand = g.hands[seat]
    led = g.led
    if ph == PLAY and led != NO_COLOUR:
        follow = hand & colour_bits(led, P)
        if follow:
            hand = follow | (hand & r.jokers)
    while hand:
        row[low_card(hand)] = 1
        hand &= hand - np.uint64(1)
