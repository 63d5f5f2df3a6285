"""The batch engine's scores: trick points, the round's scoring, eliminations, the duel's
end and the game's end (SPEC §1.8), for one game record ``g``.

The arithmetic of a score is in small pure functions (:func:`score_after_tricks`,
:func:`contract_made`, :func:`contract_penalty`, :func:`trickless_penalty`) that the round's
scoring below and the ``heuristic`` bot's outcome model
(:func:`agents.redbeard.heuristic_kernels.outcome`) both call: one implementation of how a
round is scored in the batch path.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import vector_state as _state
from .vector_state import (
    C_ACTIVE,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_TRICKS,
    DONE_PH,
    MAX_TIED_DUELS,
    P_ELIM_AT,
    P_EXACT,
    P_HAS_ELIM,
    P_JFP,
    P_MAX_ROUNDS,
    P_N,
    P_RB_ELIM,
    P_RB_WIN,
    P_ZERO,
    P_ZTP,
    PENALTY,
    REDBEARD_LEVEL,
    START_DUEL,
    START_ROUND,
    TRICKS_PER_ROUND,
    ZERO_BOUNCE,
    ZERO_IMMEDIATE,
    flag,
    flag_bits,
    next_seat,
)

# this module's compiled code calls vector_state's: its cache is stamped with both files
rule = njit(cache=cache_with(__file__, _state), no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- the arithmetic of a score
@rule
def score_after_tricks(score, value, bounced, zero_rule, k):
    """A running ``score`` after ``k`` more tricks worth ``value`` each: lowered by each
    trick; under ``bounce`` raised again by every trick after the one that reached or
    passed 0 from above (score 1, a trick worth 2 -> 1; ``bounced``: that happened earlier
    this round). Returns (score, bounced after, whether under ``immediate`` the score was 0
    after one of the tricks)."""
    falling = score - value * k
    if zero_rule == ZERO_BOUNCE:
        if bounced:
            return score + value * k, True, False
        cross = -((-score) // value)  # the trick that reaches or passes 0 (score > 0)
        if score > 0 and k >= cross:
            before = score - value * (cross - 1)  # the score before that trick
            return (value - before) + value * (k - cross), True, False
        return falling, False, False
    reached = zero_rule == ZERO_IMMEDIATE and score > 0 and score % value == 0 and score // value <= k
    return falling, False, reached


@rule
def contract_made(level, tricks, exact):
    """Whether a declarer who bid ``level`` made the contract with ``tricks``: Rödskägg
    takes every trick; a bid exactly its level (``exact``) or at least it."""
    if level == REDBEARD_LEVEL:
        return tricks == TRICKS_PER_ROUND
    return tricks == level if exact else tricks >= level


@rule
def contract_penalty(level, tricks, exact, redbeard_eliminates):
    """What the declarer adds at the round's end: PENALTY for a contract not made, but
    nothing for a failed Rödskägg that eliminates instead."""
    if contract_made(level, tricks, exact) or (level == REDBEARD_LEVEL and redbeard_eliminates):
        return 0
    return PENALTY


@rule
def trickless_penalty(joiner, joiner_fail_penalty, zero_trick_penalty):
    """What a player adds at the round's end who stayed in and took no trick (a joiner also
    the joiner's penalty)."""
    return (joiner_fail_penalty if joiner else 0) + zero_trick_penalty


# ---------------------------------------------------------------- during play
@rule
def add_score(g, P, seat, delta):
    """Change a running score during play; under ``immediate`` a score that becomes 0
    wins at once. True if that ended the game."""
    if delta == 0:
        return False
    g.scores[seat] += delta
    if P[P_ZERO] == ZERO_IMMEDIATE and g.scores[seat] == 0:
        end_game(g, P, seat)
        return True
    return False


@rule
def take_trick_points(g, P, seat, value):
    """A trick worth ``value`` to the seat that took it (:func:`score_after_tricks`). True if
    that ended the game."""
    score = np.int64(g.scores[seat])
    after, bounced, _ = score_after_tricks(score, value, flag(g, C_BOUNCED, seat), P[P_ZERO], 1)
    if bounced:
        g.per_seat[C_BOUNCED, seat] = 1
    return add_score(g, P, seat, after - score)


# ---------------------------------------------------------------- the round's end
@rule
def score_round(g, P):
    n = P[P_N]
    d = g.declarer
    g.rounds_played += 1
    # the round's record (info), as of the scoring
    g.r_over = True
    g.r_declarer = d
    g.r_bid = g.per_seat[C_CALL, d] if d >= 0 else -1
    g.r_made = False
    for s in range(n):
        g.r_tricks[s] = g.per_seat[C_TRICKS, s]
        g.r_joiner[s] = flag(g, C_JOINER, s)
        g.r_folded[s] = flag(g, C_ACTIVE, s) and not flag(g, C_IN_ROUND, s)
    redbeard_failed = False
    if d >= 0:
        level = np.int64(g.per_seat[C_CALL, d])
        td = np.int64(g.per_seat[C_TRICKS, d])
        made = contract_made(level, td, P[P_EXACT])
        g.r_made = made
        if level == REDBEARD_LEVEL and made:
            if P[P_RB_WIN]:
                end_game(g, P, d)
                return
            g.scores[d] = 0
        redbeard_failed = level == REDBEARD_LEVEL and not made and P[P_RB_ELIM] != 0
        g.scores[d] += contract_penalty(level, td, P[P_EXACT], P[P_RB_ELIM])
        for s in range(n):
            if flag(g, C_IN_ROUND, s) and g.per_seat[C_TRICKS, s] == 0:
                g.scores[s] += trickless_penalty(flag(g, C_JOINER, s), P[P_JFP], P[P_ZTP])
    # SPEC §1.8: the round's penalties, then every elimination, then the zero check
    if redbeard_failed:
        eliminate(g, P, d)
    if P[P_HAS_ELIM]:
        eliminate_over(g, P)
    round_end(g, P)


@rule
def eliminate_over(g, P):
    """Every active seat at or above eliminate_at goes, except the lowest of them when all
    are over."""
    n = P[P_N]
    over = 0
    n_over = 0
    n_act = 0
    low = np.int64(1) << 62
    for s in range(n):
        if flag(g, C_ACTIVE, s):
            n_act += 1
            if g.scores[s] >= P[P_ELIM_AT]:
                over |= 1 << s
                n_over += 1
                low = min(low, np.int64(g.scores[s]))
    for s in range(n):
        if (over >> s) & 1 and not (n_over == n_act and g.scores[s] == low):  # the lowest stay if all are over
            eliminate(g, P, s)


@rule
def round_end(g, P):
    """After the scores: one seat on 0 wins, several duel, one active seat left wins, the
    round limit truncates; else the next round with the next active dealer."""
    n = P[P_N]
    on0 = 0
    c0 = 0
    n_act = 0
    last = -1
    for s in range(n):
        if flag(g, C_ACTIVE, s):
            n_act += 1
            last = s
            if g.scores[s] == 0:
                on0 |= 1 << s
                c0 += 1
    if c0 == 1:
        end_game(g, P, next_seat(on0, n - 1, 1, n))
        return
    if c0 > 1:
        g.tied_duels = 0
        for s in range(n):
            g.per_seat[C_IN_ROUND, s] = (on0 >> s) & 1
        g.phase = START_DUEL
        g.to_act = -1
        return
    if n_act == 1:
        end_game(g, P, last)
        return
    if g.rounds_played >= P[P_MAX_ROUNDS]:
        g.truncated = True
        g.phase = DONE_PH
        g.to_act = -1
        return
    g.dealer = next_seat(flag_bits(g, C_ACTIVE, n), g.dealer, 1, n)
    g.phase = START_ROUND
    g.to_act = -1


@rule
def eliminate(g, P, s):
    g.per_seat[C_ACTIVE, s] = 0
    g.per_seat[C_IN_ROUND, s] = 0
    g.eliminated[s] = True
    g.rewards[s] = np.float32(-1.0 / (P[P_N] - 1))


@rule
def end_game(g, P, w):
    g.winner = w
    g.terminated = True
    g.phase = DONE_PH
    g.to_act = -1
    loss = np.float32(-1.0 / (P[P_N] - 1))
    for s in range(P[P_N]):
        if flag(g, C_ACTIVE, s):
            g.rewards[s] = loss
    g.rewards[w] = 1.0


# ---------------------------------------------------------------- the duel's end
@rule
def end_duel(g, P):
    """The duellists with the most tricks: one wins; a tie duels again among them (after
    MAX_TIED_DUELS tied duels the lowest seat wins)."""
    n = P[P_N]
    most = -1
    for s in range(n):
        if flag(g, C_IN_ROUND, s):
            most = max(most, np.int64(g.per_seat[C_TRICKS, s]))
    best = 0
    count = 0
    for s in range(n):
        if flag(g, C_IN_ROUND, s) and g.per_seat[C_TRICKS, s] == most:
            best |= 1 << s
            count += 1
    lowest = next_seat(best, n - 1, 1, n)
    if count == 1:
        end_game(g, P, lowest)
        return
    g.tied_duels += 1
    if g.tied_duels >= MAX_TIED_DUELS:
        end_game(g, P, lowest)
        return
    for s in range(n):
        g.per_seat[C_IN_ROUND, s] = (best >> s) & 1
    g.phase = START_DUEL
    g.to_act = -1
