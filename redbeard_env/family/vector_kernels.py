"""The batch engine's drivers: compiled loops over the games (numba, ``nogil``), for every
game of the family.

:class:`~.vector.FamilyVectorEnv` keeps the state of B games in one record
each (:func:`~.vector_rules.game_dtype`) and calls these: :func:`step_games` applies one checked
action per game through :func:`~.vector_rules.apply_action` (which resolves everything
automatic after it: the trick's end, the round's scoring, the discard phase, the next
deal, the game's end), reports it, starts a new game where one ended (auto-reset) or
halts it, and writes that game's next observation and mask while its state is in cache.
:func:`reset_games` starts new games, :func:`observe_games` encodes any seat's view,
:func:`first_illegal` checks the actions before anything changes, and
:func:`random_legal` is a uniform random legal policy.

Every driver releases the GIL (``nogil=True``): rollout threads, each with its own
engine, run in parallel. The compiled code is cached on disk (``cache=True``), stamped
with this file and the files of the rules, the encoder and the observation layout
(``jit_cache.cache_with``); numba compiles each driver once per game's record types.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import layout as _layout
from . import vector_observe, vector_rules
from .vector_observe import encode, legal_mask
from .vector_rules import (OVER, P_AUTO_RESET, P_N, R_PHASE, R_REWARDS, R_ROUND_BIDS, R_ROUND_DELTA,
                           R_ROUND_HAND_SIZE, R_ROUND_INDEX, R_ROUND_OVER, R_ROUND_SCORE, R_ROUND_TRICKS, R_ROUNDS,
                           R_SCORE, R_SEAT, R_TERMINATED, R_WINNER, R_WINNERS, apply_action, clear_outputs,
                           deal_pending, new_game, randbelow)

_CACHED = cache_with(__file__, vector_rules, vector_observe, _layout)
driver = njit(cache=_CACHED, nogil=True)
# the report, inlined into the driver (numba IR): the arrays it writes stay the driver's
# arguments, with no reference counting per call
inline = njit(inline="always")


@driver
def first_illegal(G, actions, mask):
    """Index of the first game whose action is illegal (halted games ignore theirs), or -1."""
    for b in range(len(actions)):
        if G[b].halt:
            continue
        a = actions[b]
        if a < 0 or a >= mask.shape[1] or mask[b, a] == 0:
            return b
    return -1


@inline
def report(g, P, b, R):
    """Game b's outcome of this step into row b of the report ``R`` (a tuple of the
    :class:`~.vector_rules.Report` arrays; before any auto-reset)."""
    n = P[P_N]
    R[R_TERMINATED][b] = g.terminated
    R[R_WINNER][b] = g.winner
    R[R_ROUNDS][b] = g.round
    R[R_ROUND_OVER][b] = g.r_over
    R[R_ROUND_INDEX][b] = g.r_index if g.r_over else -1
    R[R_ROUND_HAND_SIZE][b] = g.r_size if g.r_over else 0
    for s in range(n):
        R[R_REWARDS][b, s] = g.rewards[s]
        R[R_SCORE][b, s] = g.scores[s]
        R[R_WINNERS][b, s] = g.terminated and g.winners[s] != 0
        R[R_ROUND_BIDS][b, s] = g.r_bids[s] if g.r_over else -1
        R[R_ROUND_TRICKS][b, s] = g.r_tricks[s] if g.r_over else 0
        R[R_ROUND_DELTA][b, s] = g.r_delta[s] if g.r_over else 0
        R[R_ROUND_SCORE][b, s] = g.scores[s] if g.r_over else 0


@driver
def step_games(G, DQ, RA, P, actions, R, obs, mask):
    """One decision in every game (actions checked by :func:`first_illegal`) and its report
    in ``R``; then a new game (auto-reset) or a halt where a game ended, a halt where a
    ``stop_round`` game scored its round, the deal a game waits for, and the next
    decision's observation and mask in ``obs`` and ``mask``."""
    r = RA[0]
    for b in range(len(actions)):
        g = G[b]
        clear_outputs(g)
        if not g.halt:
            apply_action(g, r, P, actions[b])
        report(g, P, b, R)
        if g.terminated:
            if P[P_AUTO_RESET]:
                g.deck_next = DQ.shape[1]  # the given decks were the finished game's
                new_game(g, r, P, randbelow(g, P[P_N]), R[R_SCORE][b], False)
            else:
                g.halt = True
        elif g.stop_round and g.r_over:
            g.halt = True
        if g.deal_pending:
            deal_pending(g, r, P, DQ[b])
        R[R_PHASE][b] = g.phase
        R[R_SEAT][b] = -1 if g.halt or g.phase == OVER else g.to_act
        encode(g, r, P, max(np.int64(g.to_act), 0), obs[b])
        legal_mask(g, r, P, mask[b])


@driver
def reset_games(G, DQ, RA, P, dealer, scores, use_scores, obs, mask):
    """A new game in every slot (first dealer ``dealer[b]``, -1: drawn; ``scores[b]`` when
    ``use_scores``), then every observation and mask."""
    r = RA[0]
    for b in range(len(dealer)):
        g = G[b]
        clear_outputs(g)
        new_game(g, r, P, randbelow(g, P[P_N]) if dealer[b] < 0 else dealer[b], scores[b], use_scores)
        deal_pending(g, r, P, DQ[b])
        encode(g, r, P, max(np.int64(g.to_act), 0), obs[b])
        legal_mask(g, r, P, mask[b])


@driver
def observe_games(G, RA, P, observer, obs, mask, with_mask):
    """Seat ``observer[b]``'s view of every game (and, ``with_mask``, the acting seats' masks)."""
    r = RA[0]
    for b in range(len(observer)):
        encode(G[b], r, P, observer[b], obs[b])
        if with_mask:
            legal_mask(G[b], r, P, mask[b])
