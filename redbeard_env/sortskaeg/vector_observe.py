"""The batch engine's observation encoder and legal-action mask, compiled with numba.

:func:`encode` writes seat ``observer``'s view of a game (its record ``g``, :data:`~.vector_rules.GAME`)
bit for bit as :func:`redbeard_env.sortskaeg.observation.encode` gives it for the same game
(the same blocks, offsets and scales; floats computed in float64 and rounded once to
float32, as there); :func:`legal_mask` writes the acting seat's legal actions as
:func:`redbeard_env.sortskaeg.game.legal_actions` lists them. The parity tests
(``tests/test_sortskaeg_vector.py``) compare both with the reference at every step.

The block offsets are compile-time constants read from :mod:`~.observation`; the cache of
this module is stamped with that file and the rules kernels' (``jit_cache.cache_with``),
so a change of the layout recompiles.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import observation as _observation
from . import vector_rules
from .observation import GAP_SCALE, OBS_HIGH, OBS_LOW, OBS_SIZE, OFF, ROUND_SCALE, SCORE_SCALE
from .vector_rules import (BID, BID0, DISCARD, JOKER_BITS, MAX_BID, MAX_HAND, NO_COLOUR, NUM_ACTIONS, NUM_CARDS,
                           NUM_COLOURS, OVER, P_HOOK, P_N, P_ROUNDS, PLAY, colour_bits, count_bits, low_card,
                           trick_bits, trick_winner)

_CACHED = cache_with(__file__, _observation, vector_rules)
rule = njit(cache=_CACHED, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)

O_PHASE, O_PROGRESS, O_HAND_SIZE, O_HAND, O_PLAYED = OFF["phase"], OFF["progress"], OFF["hand_size"], OFF["hand"], OFF["played"]
O_TRICK, O_LED, O_JOKERS, O_SEEN_GAME, O_DISCARDED = OFF["trick"], OFF["led"], OFF["jokers_seen"], OFF["seen_game"], OFF["discarded"]
O_TOOK_BACK, O_SCORE, O_GAP, O_BID, O_TRICKS, O_NEED = (OFF["took_back"], OFF["score"], OFF["score_gap"], OFF["bid"],
                                                      OFF["tricks"], OFF["need"])
O_DEALER, O_ACTING, O_LEADER, O_TRICK_PLAYED = OFF["dealer"], OFF["acting"], OFF["leader"], OFF["trick_played"]
O_TRICK_WINNING, O_VOIDS = OFF["trick_winning"], OFF["voids"]


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
def encode_seats(g, observer, n, row):
    """The per-position blocks: took_back, score, score_gap, bid, tricks, need,
    trick_played, voids (position 0 is the observer)."""
    best = g.scores[0]
    for s in range(1, n):
        best = max(best, g.scores[s])
    for pos in range(n):
        s = (observer + pos) % n
        set_bits(row, O_TOOK_BACK + pos * NUM_CARDS, g.took_back[s])
        sc = g.scores[s]
        row[O_SCORE + pos] = min(max(sc / SCORE_SCALE, OBS_LOW), OBS_HIGH)
        row[O_GAP + pos] = max((sc - best) / GAP_SCALE, OBS_LOW)
        bid = np.int64(g.bids[s])
        row[O_BID + pos * (MAX_BID + 2) + bid + 1] = 1.0
        t = np.int64(g.tricks[s])
        row[O_TRICKS + pos * (MAX_HAND + 1) + t] = 1.0
        if bid >= 0:
            row[O_NEED + pos] = (bid - t) / MAX_HAND
        if g.trick_card[s] >= 0:
            row[O_TRICK_PLAYED + pos] = 1.0
        for c in range(NUM_COLOURS):
            if g.voids[s, c]:
                row[O_VOIDS + pos * NUM_COLOURS + c] = 1.0


@rule
def encode(g, r, P, observer, row):
    """Seat ``observer``'s observation of game ``g`` into ``row`` (float32 [671])."""
    n, rounds = P[P_N], P[P_ROUNDS]
    prefix = r.prefix
    for i in range(OBS_SIZE):  # zeros, with the num_players and rules blocks
        row[i] = prefix[i]
    ph, rnd = np.int64(g.phase), np.int64(g.round)
    row[O_PHASE + ph] = 1.0
    row[O_PROGRESS] = rnd / ROUND_SCALE
    row[O_PROGRESS + 1] = max(rounds - rnd - 1, 0) / ROUND_SCALE
    done = 0
    for s in range(n):
        done += g.tricks[s]
    row[O_PROGRESS + 2] = done / MAX_HAND
    if ph != OVER:
        row[O_HAND_SIZE + r.sizes[min(rnd, rounds - 1)] - 1] = 1.0
    hand, played, trick = g.hands[observer], g.played, trick_bits(g, n)
    set_bits(row, O_HAND, hand)
    set_bits(row, O_PLAYED, played)
    set_bits(row, O_TRICK, trick)
    set_bits(row, O_SEEN_GAME, g.seen_game)
    set_bits(row, O_DISCARDED, g.discarded[observer])
    row[O_LED + g.led + 1] = 1.0
    row[O_JOKERS + count_bits((hand | played | trick) & JOKER_BITS)] = 1.0
    encode_seats(g, observer, n, row)
    mark_seat(row, O_DEALER, np.int64(g.dealer), observer, n)
    mark_seat(row, O_ACTING, np.int64(g.to_act) if ph != OVER else -1, observer, n)
    mark_seat(row, O_LEADER, np.int64(g.leader) if ph == PLAY else -1, observer, n)
    mark_seat(row, O_TRICK_WINNING, trick_winner(g, n), observer, n)


@rule
def legal_mask(g, r, P, row):
    """The acting seat's legal actions (all 0 when over or halted): bids 0..hand size (with
    ``dealer_hook`` not the dealer's bid that makes them add up); a card of the led colour
    or a joker if the hand has the led colour, else any card; any card to discard."""
    for i in range(NUM_ACTIONS):
        row[i] = 0
    ph = g.phase
    if g.halt or ph == OVER:
        return
    seat = max(np.int64(g.to_act), 0)
    if ph == BID:
        h = r.sizes[min(np.int64(g.round), P[P_ROUNDS] - 1)]
        hook = P[P_HOOK] != 0 and seat == g.dealer
        others = 0
        for s in range(P[P_N]):
            if g.bids[s] >= 0:
                others += g.bids[s]
        for k in range(min(h, MAX_BID) + 1):
            if not (hook and others + k == h):
                row[BID0 + k] = 1
        return
    hand = g.hands[seat]
    led = g.led
    if ph == PLAY and led != NO_COLOUR:
        follow = hand & colour_bits(led)
        if follow:
            hand = follow | (hand & JOKER_BITS)
    while hand:
        row[low_card(hand)] = 1
        hand &= hand - np.uint64(1)


assert DISCARD == 2 and OBS_SIZE == 671
