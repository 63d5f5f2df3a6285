"""The batch engine's deals: a new game, the deal and the round's start, throwing a hand
in and drawing a new one (the reference engine's ``redeal`` phase) and the look at a
thrown-in hand under ``redeal = challenge`` (the ``look`` phase), for one game record ``g``."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import vector_auction as _auction
from . import vector_play as _play
from . import vector_scoring as _scoring
from . import vector_state as _state
from .vector_auction import start_auction
from .vector_scoring import add_score
from .vector_state import (
    C_ACTIVE,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_THROWS,
    C_TRICKS,
    FACE_BITS,
    HAND,
    JOIN_PENDING,
    KEEP,
    LOOK,
    LOOK_PH,
    NO_CALL,
    NUM_CARDS,
    P_N,
    P_REDEAL,
    P_START,
    PENALTY,
    REDEAL_CHALLENGE,
    REDEAL_NO_FACE,
    REDEAL_OFF,
    REDEAL_PH,
    SEAT_PAD,
    START_ROUND,
    THROWS_CAP,
    bit,
    clear_trick,
    flag,
    flag_bits,
    next_seat,
    offset,
    shuffle_cards,
)

# this module's compiled code calls that of the modules named here (and they of each other)
rule = njit(cache=cache_with(__file__, _state, _scoring, _play, _auction), no_cpython_wrapper=True,
            no_cfunc_wrapper=True)


# ---------------------------------------------------------------- dealing
@rule
def deal(g, P, dq, rng, flags):
    """A fresh deck (the next queued one, else drawn): HAND cards to each flagged seat from
    the dealer's left; the rest is the stock."""
    n = P[P_N]
    q = g.dq_pos
    if q < g.dq_len:
        g.deck[:] = dq[q, 0]
        g.rank[:] = dq[q, 1]
        g.dq_pos = q + 1
    else:
        shuffle_cards(rng, g.deck)
        shuffle_cards(rng, g.rank)
    k = 0
    dealer = g.dealer
    for s in range(n):
        g.hands[s] = 0
    for d in range(1, n + 1):
        s = (dealer + d) % n
        if (flags >> s) & 1:
            h = np.uint64(0)
            for i in range(HAND):
                h |= bit(g.deck[HAND * k + i])
            g.hands[s] = h
            k += 1
    g.stock_pos = HAND * k
    g.stock_len = NUM_CARDS - HAND * k
    g.thrown = 0
    clear_trick(g)
    g.played = 0
    for s in range(SEAT_PAD):
        g.per_seat[C_TRICKS, s] = 0
    g.tricks_done = 0
    g.void_bits = 0


@rule
def reshuffle(g):
    """The thrown-in hands, ordered by the deal's reshuffle rank, go under the stock."""
    pos, ln = g.stock_pos, g.stock_len
    fresh = np.empty(NUM_CARDS, np.int8)
    for i in range(ln):
        fresh[i] = g.deck[pos + i]
    by_rank = np.full(NUM_CARDS, -1, np.int8)
    th = g.thrown
    for c in range(NUM_CARDS):
        if (th >> np.uint64(c)) & np.uint64(1):
            by_rank[g.rank[c]] = c
    k = ln
    for r in range(NUM_CARDS):
        if by_rank[r] >= 0:
            fresh[k] = by_rank[r]
            k += 1
    for i in range(k):
        g.deck[i] = fresh[i]
    g.stock_pos = 0
    g.stock_len = k
    g.thrown = 0
    g.redeals_open = False
    g.reshuffled = True


@rule
def draw_hand(g, seat):
    if g.stock_len < HAND:
        reshuffle(g)
    pos = g.stock_pos
    h = np.uint64(0)
    for i in range(HAND):
        h |= bit(g.deck[pos + i])
    g.hands[seat] = h
    g.stock_pos = pos + HAND
    g.stock_len -= HAND


# ---------------------------------------------------------------- game and round start
@rule
def new_game(g, P, dealer, scores, use_scores):
    """A new game in this slot, dealt by the driver: first dealer ``dealer``; ``scores``
    (a row) when ``use_scores``, else everyone on start_score."""
    n = P[P_N]
    g.dealer = dealer
    for s in range(n):
        g.scores[s] = scores[s] if use_scores else P[P_START]
        g.per_seat[C_ACTIVE, s] = 1
    g.rounds_played = 0
    g.tied_duels = 0
    g.winner = -1
    g.terminated = False
    g.truncated = False
    g.leader = -1
    g.phase = START_ROUND
    g.to_act = -1


@rule
def start_round(g, P):
    """The round after its deal (to the active seats)."""
    for s in range(SEAT_PAD):
        g.per_seat[C_IN_ROUND, s] = g.per_seat[C_ACTIVE, s]
        g.per_seat[C_THROWS, s] = 0
        g.per_seat[C_CALL, s] = NO_CALL
        g.per_seat[C_JOINER, s] = 0
        g.per_seat[C_BOUNCED, s] = 0
        g.seen[s] = 0
    g.redeals_open = P[P_REDEAL] != REDEAL_OFF
    g.reshuffled = False
    g.high_level = -1
    g.declarer = -1
    g.join_state = JOIN_PENDING
    g.in_duel = False
    g.thrower = -1
    g.thrown_hand = 0
    next_redeal(g, P, 1)


# ---------------------------------------------------------------- redeal and look
@rule
def next_redeal(g, P, start):
    """The next seat (offset >= start from the dealer) that may throw in, or the auction."""
    n = P[P_N]
    cand = 0
    if P[P_REDEAL] != REDEAL_OFF and g.redeals_open:
        for s in range(n):
            if flag(g, C_ACTIVE, s) and (P[P_REDEAL] != REDEAL_NO_FACE or (g.hands[s] & FACE_BITS) == 0):
                cand |= 1 << s
    nxt = next_seat(cand, g.dealer, start, n)
    if nxt >= 0:
        g.phase = REDEAL_PH
        g.to_act = nxt
    else:
        start_auction(g, P)


@rule
def apply_redeal(g, P, seat, a):
    n = P[P_N]
    if a == KEEP:
        next_redeal(g, P, offset(g.dealer, seat, n) + 1)
        return
    h = g.hands[seat]
    g.thrown_hand = h
    g.thrown |= h
    g.seen[seat] |= h
    g.hands[seat] = 0
    g.per_seat[C_THROWS, seat] = min(g.per_seat[C_THROWS, seat] + 1, THROWS_CAP)
    if P[P_REDEAL] == REDEAL_CHALLENGE:
        g.thrower = seat
        others = flag_bits(g, C_ACTIVE, n) & ~(1 << seat)
        g.to_act = next_seat(others, seat, 1, n)
        g.phase = LOOK_PH
    else:
        draw_hand(g, seat)
        next_redeal(g, P, offset(g.dealer, seat, n))  # it decides again


@rule
def apply_look(g, P, seat, a):
    n = P[P_N]
    th = g.thrower
    if a == LOOK:
        g.seen[seat] |= g.thrown_hand
        loser = th if (g.thrown_hand & FACE_BITS) != 0 else seat
        if add_score(g, P, loser, PENALTY):
            return
        finish_look(g, P)
        return
    others = flag_bits(g, C_ACTIVE, n) & ~(1 << th)
    nxt = next_seat(others, th, offset(th, seat, n) + 1, n)
    if nxt >= 0:
        g.to_act = nxt
    else:
        finish_look(g, P)


@rule
def finish_look(g, P):
    th = g.thrower
    g.thrower = -1
    g.thrown_hand = 0
    draw_hand(g, th)
    next_redeal(g, P, offset(g.dealer, th, P[P_N]))
