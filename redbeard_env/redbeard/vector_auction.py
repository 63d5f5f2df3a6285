"""The batch engine's auction, for one game record ``g`` (the reference engine's ``bid``
phase): a single round of calls (dealer last) or an open auction whose passes are final."""

from __future__ import annotations

from numba import njit

from ..jit_cache import cache_with
from . import vector_play as _play
from . import vector_scoring as _scoring
from . import vector_state as _state
from .vector_play import start_trick
from .vector_scoring import add_score, score_round
from .vector_state import (
    BID0,
    BID_PH,
    BOS_PENALTY,
    C_ACTIVE,
    C_CALL,
    P_BOS,
    P_N,
    P_SINGLE,
    PASS,
    PASSED,
    PENALTY,
    REDBEARD,
    REDBEARD_LEVEL,
    TRICKS_PER_ROUND,
    flag,
    flag_bits,
    next_seat,
)

# this module's compiled code calls that of the modules named here (and they of each other)
rule = njit(cache=cache_with(__file__, _state, _scoring, _play), no_cpython_wrapper=True, no_cfunc_wrapper=True)


@rule
def start_auction(g, P):
    g.phase = BID_PH
    g.to_act = next_seat(flag_bits(g, C_ACTIVE, P[P_N]), g.dealer, 1, P[P_N])


@rule
def apply_bid(g, P, seat, a):
    n = P[P_N]
    if a == PASS:
        g.per_seat[C_CALL, seat] = PASSED
    else:
        level = REDBEARD_LEVEL if a == REDBEARD else a - BID0
        g.per_seat[C_CALL, seat] = level
        g.high_level = level
        g.declarer = seat
        # a bid's tricks above the bidder's score (Rödskägg: every trick)
        if P[P_BOS] == BOS_PENALTY and min(level, TRICKS_PER_ROUND) > g.scores[seat]:
            if add_score(g, P, seat, PENALTY):
                return
    if P[P_SINGLE]:
        if seat == g.dealer:
            end_auction(g, P)
        else:
            g.to_act = next_seat(flag_bits(g, C_ACTIVE, n), seat, 1, n)
        return
    # open auction: passes are final; round until all but the highest bidder passed
    waiting = 0
    for s in range(n):
        if flag(g, C_ACTIVE, s) and g.per_seat[C_CALL, s] != PASSED and s != g.declarer:
            waiting |= 1 << s
    nxt = next_seat(waiting, seat, 1, n)
    if nxt >= 0:
        g.to_act = nxt
    else:
        end_auction(g, P)


@rule
def end_auction(g, P):
    if g.declarer < 0:  # all passed under all_pass = redeal: a round without tricks
        score_round(g, P)
        return
    g.leader = g.declarer
    start_trick(g, P)
