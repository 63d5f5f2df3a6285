"""The batch engine's observation encoder and legal-action mask, for one game record ``g``:
what :func:`redbeard_env.redbeard.observation.encode` and the reference engine's legal
actions give, written into one row."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import vector_state as _state
from .vector_state import (
    ASK,
    ASK_PH,
    BID0,
    BID_PH,
    BOS_FORBID,
    C_ACTIVE,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_THROWS,
    C_TRICK_PLAYED,
    C_TRICKS,
    CALL_WIDTH,
    DUEL_PH,
    FOLD,
    JOIN,
    JOIN_PH,
    KEEP,
    L_ACTING,
    L_ACTIVE,
    L_BOUNCED,
    L_CALL,
    L_DEAL_FLAGS,
    L_DEALER,
    L_DECLARER,
    L_HAND,
    L_HIGH_BID,
    L_IN_ROUND,
    L_JOIN_STATE,
    L_JOINER,
    L_LEADER,
    L_ME_FORCED,
    L_PHASE,
    L_PLAYED,
    L_PROGRESS,
    L_SCORE,
    L_SCORE_BIN,
    L_SCORE_BINS,
    L_SEEN,
    L_THROWER,
    L_THROWS,
    L_TRICK,
    L_TRICK_PLAYED,
    L_TRICK_WINNING,
    L_TRICKS,
    L_TRICKS_DONE,
    L_VOIDS,
    LOOK,
    LOOK_PH,
    NO_CALL,
    NO_LOOK,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    OBS_HIGH,
    OBS_LOW,
    P_BOS,
    P_DEALER_MUST,
    P_MAX_BID,
    P_MAX_ROUNDS,
    P_MIN_BID,
    P_N,
    PASS,
    PLAY_PH,
    REDBEARD,
    REDBEARD_LEVEL,
    REDEAL,
    REDEAL_PH,
    SCORE_BIN_TOP,
    SCORE_SCALE,
    SKIP,
    SUIT_MASK,
    T_LED,
    T_LEN,
    T_WIN,
    THROWS_SCALE,
    TIED_DUELS_SCALE,
    TRICKS_PER_ROUND,
    TRICKS_SCALE,
    low_card,
)

# this module's compiled code calls vector_state's: its cache is stamped with both files
rule = njit(cache=cache_with(__file__, _state), no_cpython_wrapper=True, no_cfunc_wrapper=True)


@rule
def encode(g, P, L, prefix, observer, row):
    """The observation of seat ``observer`` in game b, as observation.encode gives it
    (floats computed in float64 and rounded once, as there)."""
    n = P[P_N]
    for i in range(len(row)):  # zeros, with the num_players and rules blocks (a loop: a[:] = b is slower)
        row[i] = prefix[i]
    ph = g.phase
    row[L[L_PHASE] + ph] = 1.0
    row[L[L_PROGRESS]] = g.rounds_played / P[P_MAX_ROUNDS]
    for block, h in ((L[L_HAND], g.hands[observer]), (L[L_PLAYED], g.played), (L[L_TRICK], g.trick_cards),
                     (L[L_SEEN], g.seen[observer])):
        while h:
            row[block + low_card(h)] = 1.0
            h &= h - np.uint64(1)
    row[L[L_TRICKS_DONE] + g.tricks_done] = 1.0
    row[L[L_HIGH_BID] + g.high_level + 1] = 1.0
    row[L[L_JOIN_STATE] + g.join_state] = 1.0
    o = L[L_DEAL_FLAGS]
    row[o] = g.redeals_open
    row[o + 1] = g.reshuffled
    row[o + 2] = g.stock_len / NUM_CARDS
    row[o + 3] = g.tied_duels / TIED_DUELS_SCALE
    if P[P_DEALER_MUST] != 0 and ph == BID_PH and g.to_act == observer and observer == g.dealer and g.high_level < 0:
        row[L[L_ME_FORCED]] = 1.0
    nb = L[L_SCORE_BINS]
    voids = np.int64(g.void_bits)
    for seat in range(n):
        pos = (seat - observer) % n
        score = g.scores[seat]
        row[L[L_SCORE] + pos] = min(max(score / SCORE_SCALE, OBS_LOW), OBS_HIGH)
        row[L[L_SCORE_BIN] + pos * nb + min(max(score, -1), SCORE_BIN_TOP) + 1] = 1.0
        row[L[L_ACTIVE] + pos] = g.per_seat[C_ACTIVE, seat]
        row[L[L_IN_ROUND] + pos] = g.per_seat[C_IN_ROUND, seat]
        row[L[L_TRICK_PLAYED] + pos] = g.per_seat[C_TRICK_PLAYED, seat]
        row[L[L_JOINER] + pos] = g.per_seat[C_JOINER, seat]
        row[L[L_BOUNCED] + pos] = g.per_seat[C_BOUNCED, seat]
        row[L[L_TRICKS] + pos] = g.per_seat[C_TRICKS, seat] / TRICKS_SCALE
        row[L[L_THROWS] + pos] = min(np.uint8(g.per_seat[C_THROWS, seat]) / THROWS_SCALE, 1.0)
        for suit in range(NUM_SUITS):
            if (voids >> (NUM_SUITS * seat + suit)) & 1:
                row[L[L_VOIDS] + NUM_SUITS * pos + suit] = 1.0
        row[L[L_CALL] + CALL_WIDTH * pos + g.per_seat[C_CALL, seat] - NO_CALL] = 1.0
    i64 = np.int64
    leader = i64(g.leader) if ph == PLAY_PH or ph == DUEL_PH or ph == ASK_PH or ph == JOIN_PH else i64(-1)
    winning = i64(g.trick[T_WIN]) if g.trick[T_LEN] > 0 else i64(-1)
    for block, seat in ((L[L_DEALER], i64(g.dealer)), (L[L_DECLARER], i64(g.declarer)), (L[L_ACTING], i64(g.to_act)),
                        (L[L_LEADER], leader), (L[L_TRICK_WINNING], winning), (L[L_THROWER], i64(g.thrower))):
        if seat >= 0:
            row[block + (seat - observer) % n] = 1.0


@rule
def legal_mask(g, P, row):
    """The acting seat's legal actions in game b (all 0 for a halted game)."""
    for i in range(NUM_ACTIONS):
        row[i] = 0
    ph = g.phase
    seat = g.to_act
    if ph == PLAY_PH or ph == DUEL_PH:
        h = g.hands[seat]
        if g.trick[T_LEN] > 0:
            follow = h & (SUIT_MASK << np.uint64(NUM_RANKS * g.trick[T_LED]))
            if follow:
                h = follow
        while h:
            row[low_card(h)] = 1
            h &= h - np.uint64(1)
    elif ph == BID_PH:
        high = g.high_level
        forced = P[P_DEALER_MUST] != 0 and seat == g.dealer and high < 0
        if not forced:
            row[PASS] = 1
        lo = max(P[P_MIN_BID], 1) if forced else P[P_MIN_BID]
        cap = np.int64(g.scores[seat])
        if forced:
            cap = max(cap, 1)
        for lv in range(lo, REDBEARD_LEVEL + 1):
            if (lv <= P[P_MAX_BID] or lv == REDBEARD_LEVEL) and lv > high:
                if P[P_BOS] == BOS_FORBID and min(lv, TRICKS_PER_ROUND) > cap:
                    continue
                row[REDBEARD if lv == REDBEARD_LEVEL else BID0 + lv] = 1
    elif ph == REDEAL_PH:
        row[KEEP] = 1
        row[REDEAL] = 1
    elif ph == LOOK_PH:
        row[LOOK] = 1
        row[NO_LOOK] = 1
    elif ph == ASK_PH:
        row[ASK] = 1
        row[SKIP] = 1
    elif ph == JOIN_PH:
        row[JOIN] = 1
        row[FOLD] = 1
