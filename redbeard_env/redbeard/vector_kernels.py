"""The batch engine's drivers: compiled loops over B games that apply one action per game
and resolve everything automatic after it, and the one step of the batch path
(:func:`advance_game`).

:class:`redbeard_env.redbeard.vector.VectorEnv` keeps the state of B games in arrays (one
record of :data:`GAME` per game) and calls the drivers here: :func:`step_games` applies one
action per game, resolves everything automatic that follows (trick ends, the join
question's automatic answers, round scoring, the next deal, duels, eliminations, the game's
end and, with auto-reset, a new game), and writes that game's next observation and mask
while its state is still in cache. Each phase has one function, written for one game like
the reference engine (:mod:`redbeard_env.redbeard.game`) and agreeing with it step for step
(``tests/test_vector_parity.py``); they live in one module a phase:

* :mod:`~.vector_state`: codes, the rules and the observation layout as tuples of ints,
  the game record, bits, randomness, seats;
* :mod:`~.vector_deal`: a new game, deals, the round's start, redeals and the look;
* :mod:`~.vector_auction`: the auction;
* :mod:`~.vector_play`: tricks, the join question, the duel's tricks;
* :mod:`~.vector_scoring`: trick points, the round's scoring, eliminations, the duel's and
  the game's end;
* :mod:`~.vector_observe`: the observation encoder and the legal-action mask.

This is the only implementation of the rules in the batch path. numba's on-disk cache
(``cache=True``) notices a change only in the file of the function it compiled, so every
module whose compiled code calls another's stamps its cache with the files it depends on
(:func:`redbeard_env.jit_cache.cache_with`); :data:`KERNEL_MODULES` lists the engine's
kernel modules for compiled code elsewhere that calls them (a search's playouts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jit_cache import cache_with
from . import vector_auction as _auction
from . import vector_deal as _deal
from . import vector_observe as _observe
from . import vector_play as _play
from . import vector_scoring as _scoring
from . import vector_state as _state
from .vector_auction import apply_bid
from .vector_deal import apply_look, apply_redeal, deal, new_game, start_round
from .vector_observe import encode, legal_mask
from .vector_play import apply_ask, apply_join, apply_play, start_duel
from .vector_state import (  # noqa: F401  (GAME ... obs_layout: the drivers' arguments, re-exported)
    ASK_PH,
    BID_PH,
    C_ACTIVE,
    C_IN_ROUND,
    DONE_PH,
    DUEL_PH,
    GAME,
    JOIN_PH,
    LOOK_PH,
    NUM_ACTIONS,
    P_AUTO_RESET,
    P_N,
    PLAY_PH,
    REDEAL_PH,
    SEAT_PAD,
    START_DUEL,
    START_ROUND,
    Report,
    flag_bits,
    new_report,
    obs_layout,
    randbelow,
    rule_params,
)

# the engine's kernel modules, each stamped with those it calls (and this one with all)
KERNEL_MODULES = (_state, _scoring, _play, _auction, _deal, _observe)
_CACHED = cache_with(__file__, *KERNEL_MODULES)
rule = njit(cache=_CACHED, no_cpython_wrapper=True, no_cfunc_wrapper=True)
driver = njit(cache=_CACHED, nogil=True)


# ---------------------------------------------------------------- one decision
@rule
def apply_action(g, P, a):
    seat = np.int64(g.to_act)
    ph = g.phase
    if ph == PLAY_PH or ph == DUEL_PH:
        apply_play(g, P, seat, a)
    elif ph == BID_PH:
        apply_bid(g, P, seat, a)
    elif ph == JOIN_PH:
        apply_join(g, P, seat, a)
    elif ph == ASK_PH:
        apply_ask(g, P, seat, a)
    elif ph == REDEAL_PH:
        apply_redeal(g, P, seat, a)
    elif ph == LOOK_PH:
        apply_look(g, P, seat, a)


# ---------------------------------------------------------------- drivers (loops over games)
@driver
def first_illegal(G, actions, mask):
    """Index of the first game whose action is illegal (halted games ignore theirs), or -1."""
    for b in range(len(actions)):
        if G[b].phase == DONE_PH:
            continue
        a = actions[b]
        if a < 0 or a >= NUM_ACTIONS or mask[b, a] == 0:
            return b
    return -1


@rule
def clear_outputs(g):
    for s in range(SEAT_PAD):
        g.rewards[s] = 0.0
        g.eliminated[s] = False
    g.r_over = False
    g.r_declarer = -1
    g.r_bid = -1
    g.r_made = False


@rule
def deal_pending(g, P, dq, rng):
    """The deal a game waits for: a duel's (to the duellists) or a round's (to the active
    seats; not for a slot that stops at its round's end)."""
    n = P[P_N]
    if g.phase == START_DUEL:
        deal(g, P, dq, rng, flag_bits(g, C_IN_ROUND, n))
        start_duel(g, P)
    elif g.phase == START_ROUND and not g.stop_round:
        deal(g, P, dq, rng, flag_bits(g, C_ACTIVE, n))
        start_round(g, P)


@rule
def advance_game(g, P, dq, rng, action):
    """One decision in game ``g`` (the action already checked) and everything automatic
    after it up to the round's scoring or the game's end; returns whether the game ended
    in this step (reported once). A slot loaded with ``stop_at_round_end`` halts (phase
    done) after its round's scoring or the game's end. The one step of the batch path:
    :func:`step_games` and compiled loops outside this module (a search's playouts) run
    games through it."""
    clear_outputs(g)
    was_halted = g.phase == DONE_PH
    if not was_halted:
        apply_action(g, P, action)
    fin = (g.terminated or g.truncated) and not was_halted
    if g.phase == START_DUEL:
        deal_pending(g, P, dq, rng)
    if g.stop_round and (g.r_over or fin or g.phase == START_ROUND):
        g.phase = DONE_PH
        g.to_act = -1
    return fin


@driver
def step_games(G, DQ, P, L, prefix, rng, actions, R, obs, mask):
    """One decision in every game (actions already checked by :func:`first_illegal`),
    then each game's report, auto-reset, next observation and mask."""
    for b in range(len(actions)):
        g = G[b]
        fin = advance_game(g, P, DQ[b], rng, actions[b])
        R.terminated[b] = g.terminated and fin
        R.truncated[b] = g.truncated and fin
        R.winner[b] = g.winner if R.terminated[b] else -1
        for s in range(P[P_N]):
            R.score[b, s] = g.scores[s]
        R.rounds[b] = g.rounds_played
        if fin and P[P_AUTO_RESET] and not g.stop_round:
            g.dq_len = 0
            new_game(g, P, randbelow(rng, P[P_N]), R.score[b], False)
        deal_pending(g, P, DQ[b], rng)
        R.phase[b] = g.phase
        seat = g.to_act
        R.seat[b] = seat
        R.round_over[b] = g.r_over
        R.round_declarer[b] = g.r_declarer
        R.round_bid[b] = g.r_bid
        R.round_made[b] = g.r_made
        for s in range(P[P_N]):
            R.rewards[b, s] = g.rewards[s]
            R.eliminated[b, s] = g.eliminated[s]
            R.round_tricks[b, s] = g.r_tricks[s]
            R.round_joiner[b, s] = g.r_joiner[s]
            R.round_folded[b, s] = g.r_folded[s]
        encode(g, P, L, prefix, seat if seat >= 0 else 0, obs[b])
        legal_mask(g, P, mask[b])


@driver
def reset_games(G, DQ, P, L, prefix, rng, dealer, scores, use_scores, obs, mask):
    """A new game in every slot (``dealer[b]`` -1: drawn), then every observation and mask."""
    for b in range(G.shape[0]):
        g = G[b]
        clear_outputs(g)
        new_game(g, P, randbelow(rng, P[P_N]) if dealer[b] < 0 else dealer[b], scores[b], use_scores)
        deal_pending(g, P, DQ[b], rng)
        seat = g.to_act
        encode(g, P, L, prefix, seat if seat >= 0 else 0, obs[b])
        legal_mask(g, P, mask[b])


@driver
def observe_games(G, P, L, prefix, observer, obs, mask, with_mask):
    """Observations of seat ``observer[b]`` in every game (and the acting seats' masks)."""
    for b in range(G.shape[0]):
        encode(G[b], P, L, prefix, observer[b], obs[b])
        if with_mask:
            legal_mask(G[b], P, mask[b])
