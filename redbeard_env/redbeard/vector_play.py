"""The batch engine's card play: tricks, the join question (ask, join or fold) and the
duel's tricks, for one game record ``g`` (the reference engine's ``play``, ``ask``,
``join`` and ``duel`` phases)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import vector_scoring as _scoring
from . import vector_state as _state
from .vector_scoring import add_score, end_duel, score_round, take_trick_points
from .vector_state import (
    ASK,
    ASK_PH,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_TRICK_CARD,
    C_TRICK_PLAYED,
    C_TRICKS,
    DUEL_PH,
    JOIN,
    JOIN_ASKED,
    JOIN_PENDING,
    JOIN_PH,
    JOIN_SKIPPED,
    NO_CALL,
    NUM_RANKS,
    NUM_SUITS,
    P_ASK_OPT,
    P_FORGET,
    P_JOIN_AT,
    P_JTV,
    P_LEADER_TW,
    P_N,
    P_ONE_POINT,
    P_TRICKLESS,
    PLAY_PH,
    SEAT_PAD,
    T_BEST,
    T_FIRST,
    T_LED,
    T_LEN,
    T_WIN,
    TRICKS_PER_ROUND,
    bit,
    clear_trick,
    flag,
    flag_bits,
    next_seat,
    offset,
)

# this module's compiled code calls that of vector_state and vector_scoring: its cache is stamped with all three
rule = njit(cache=cache_with(__file__, _state, _scoring), no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- tricks
@rule
def start_trick(g, P):
    """The next trick, or first the join question when join_at tricks remain."""
    ja = P[P_JOIN_AT]
    if ja > 0 and not g.in_duel and g.join_state == JOIN_PENDING and g.tricks_done == TRICKS_PER_ROUND - ja:
        if P[P_ASK_OPT]:
            g.phase = ASK_PH
            g.to_act = g.declarer
        else:
            ask_join(g, P)
        return
    lead_trick(g, P)


@rule
def lead_trick(g, P):
    n = P[P_N]
    lead = g.leader
    if not flag(g, C_IN_ROUND, lead):  # the last trick's winner folded: the next one still in
        g.leader = next_seat(flag_bits(g, C_IN_ROUND, n), lead, 1, n)
    clear_trick(g)
    g.phase = DUEL_PH if g.in_duel else PLAY_PH
    g.to_act = g.leader


@rule
def apply_play(g, P, seat, card):
    n = P[P_N]
    suit = card // NUM_RANKS
    if g.trick[T_LEN] == 0:
        g.trick[T_LED] = suit
        g.trick[T_BEST] = card
        g.trick[T_WIN] = seat
        g.trick[T_FIRST] = seat
    else:
        led = g.trick[T_LED]
        if suit != led:  # not following: a void shown
            g.void_bits |= np.uint32(1) << np.uint32(NUM_SUITS * seat + led)
        elif card > g.trick[T_BEST]:
            g.trick[T_BEST] = card
            g.trick[T_WIN] = seat
    g.trick[T_LEN] += 1
    g.hands[seat] &= ~bit(card)
    g.trick_cards |= bit(card)
    g.per_seat[C_TRICK_PLAYED, seat] = 1
    g.per_seat[C_TRICK_CARD, seat] = card
    in_round = flag_bits(g, C_IN_ROUND, n)
    count = 0
    for s in range(n):
        count += (in_round >> s) & 1
    if g.trick[T_LEN] < count:
        g.to_act = next_seat(in_round, seat, 1, n)
        return
    complete_trick(g, P)


@rule
def complete_trick(g, P):
    w = g.trick[T_WIN]
    g.played |= g.trick_cards
    g.per_seat[C_TRICKS, w] += 1
    g.tricks_done += 1
    duel = g.in_duel
    if not duel:
        value = P[P_JTV] if flag(g, C_JOINER, w) else 1
        if take_trick_points(g, P, w, value):
            return
    if P[P_LEADER_TW] or duel:
        g.leader = w
    if g.tricks_done < TRICKS_PER_ROUND:
        start_trick(g, P)
    elif duel:
        end_duel(g, P)
    else:
        score_round(g, P)


# ---------------------------------------------------------------- ask, join
@rule
def apply_ask(g, P, seat, a):
    if a == ASK:
        ask_join(g, P)
        return
    g.join_state = JOIN_SKIPPED  # everyone counts as having a trick: no folds, no joiners
    if add_score(g, P, seat, P[P_FORGET]):
        return
    lead_trick(g, P)


@rule
def ask_join(g, P):
    g.join_state = JOIN_ASKED
    next_join(g, P, 1)


@rule
def may_fold(g, P, s):
    if P[P_ONE_POINT] and g.scores[s] == 1:
        return False
    return (not P[P_TRICKLESS]) or g.per_seat[C_TRICKS, s] == 0


@rule
def next_join(g, P, start):
    """The join question from offset ``start`` (from the declarer): players who may not
    fold are in automatically; stop at the first with a real choice."""
    n = P[P_N]
    d = g.declarer
    for off in range(start, n):
        s = (d + off) % n
        if not flag(g, C_IN_ROUND, s):
            continue
        if may_fold(g, P, s):
            g.phase = JOIN_PH
            g.to_act = s
            return
        g.per_seat[C_JOINER, s] = g.per_seat[C_TRICKS, s] == 0  # a trickless one is a joiner
    lead_trick(g, P)


@rule
def apply_join(g, P, seat, a):
    if a == JOIN:
        g.per_seat[C_JOINER, seat] = g.per_seat[C_TRICKS, seat] == 0
    else:
        g.per_seat[C_IN_ROUND, seat] = 0
    next_join(g, P, offset(g.declarer, seat, P[P_N]) + 1)


# ---------------------------------------------------------------- duel
@rule
def start_duel(g, P):
    """A duel among the seats flagged in_round, after its deal: tricks without bids."""
    n = P[P_N]
    for s in range(SEAT_PAD):
        g.per_seat[C_JOINER, s] = 0
        g.per_seat[C_BOUNCED, s] = 0
        g.per_seat[C_CALL, s] = NO_CALL
    g.high_level = -1
    g.declarer = -1
    g.join_state = JOIN_PENDING
    g.leader = next_seat(flag_bits(g, C_IN_ROUND, n), g.dealer, 1, n)
    g.in_duel = True
    start_trick(g, P)
