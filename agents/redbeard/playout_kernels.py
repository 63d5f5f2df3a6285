"""pimc's playouts over the ``heuristic`` bot, compiled: one sampled world at a time.

:func:`play_out` plays every (candidate action, sampled world) pair of a search to its
round's end: it copies the world's game record (loaded by
:meth:`redbeard_env.redbeard.vector.VectorEnv.load_deals`) into a work record, plays the candidate,
then the heuristic in every seat, through the engine's own step
(:func:`redbeard_env.redbeard.vector_kernels.advance_game`, the one implementation of the rules in the
batch path) and the heuristic's own row valuation
(:func:`agents.redbeard.heuristic_kernels.value_rows`). A seat with one legal action plays it
unasked, as in :meth:`agents.redbeard.heuristic.HeuristicAgent.act_batch`.

Why: the batched playout (a ``VectorEnv`` step for all playouts, then the heuristic on the
rows with a choice) spends most of its time between those calls -- in Python, in numpy
gathers and masks, and in stepping slots whose round already ended (about 40 % of a
playout batch's slot-steps) -- where this loop keeps one game record and one observation
row in the cache until its round ends. Both give the same results (a playout halts at its
round's scoring, before any deal its result could depend on, so the order in which
playouts use the engine's generator does not matter; ``tests/test_pimc.py`` compares them).

Its compiled code joins the engine's and the heuristic's, so its on-disk cache is stamped
with every file of theirs it calls, directly or not (:func:`redbeard_env.jit_cache.cache_with`):
the engine's kernel modules (``vector_kernels.KERNEL_MODULES``, which the heuristic's
scoring also comes from) and the heuristic's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from redbeard_env.redbeard import vector_kernels as VK
from redbeard_env.jit_cache import cache_with

from . import heuristic_kernels as HK

_CACHED = cache_with(__file__, VK, *VK.KERNEL_MODULES, HK)
DONE_PH = VK.DONE_PH
NUM_ACTIONS = VK.NUM_ACTIONS


@njit(cache=_CACHED, nogil=True)
def play_out(raw, work_raw, work, DQ, P, L, prefix, rng, first, R, A, O, uniforms, max_steps, scores, winner,
             eliminated):
    """Play world w (record ``raw[w]``) with action ``first[c, w]`` and then the heuristic
    (rules numbers ``R``, parameters ``A``, observation offsets ``O``, bid uniforms) to the
    round's end, for every c, w with ``first[c, w] >= 0``; ``work_raw``/``work``: one spare
    record (bytes and record view).
    Writes ``scores`` [C, W, n] and ``eliminated`` [C, W, n] at the round's end and
    ``winner`` [C, W] (a game won in the round, else -1).

    Returns -1, or ``c * W + w`` of a playout whose first action is illegal, or
    ``-2 - (c * W + w)`` of one whose round did not end within ``max_steps`` decisions (or
    that reached a live position without a legal action)."""
    n = P[VK.P_N]
    C, W = first.shape
    obs = np.empty((1, len(prefix)), np.float32)
    mask = np.empty((1, NUM_ACTIONS), np.int8)
    rows = np.zeros(1, np.int64)
    out = np.empty((1, NUM_ACTIONS))
    choice = np.empty(1, np.int64)
    scratch = HK.new_scratch(uniforms.shape[1])
    g = work[0]
    for c in range(C):
        for w in range(W):
            action = first[c, w]
            if action < 0:
                continue
            work_raw[0, :] = raw[w, :]
            for s in range(n):
                eliminated[c, w, s] = False
            for step in range(max_steps + 1):
                if step == max_steps:
                    return -2 - (c * W + w)
                VK.legal_mask(g, P, mask[0])
                if step == 0:
                    if action >= NUM_ACTIONS or mask[0, action] == 0:
                        return c * W + w
                else:
                    legal, action = 0, -1
                    for a in range(NUM_ACTIONS):
                        if mask[0, a] != 0:
                            legal += 1
                            action = a
                    if legal == 0:  # a live game without a legal action: broken state
                        return -2 - (c * W + w)
                    if legal > 1:  # a choice: the heuristic's
                        VK.encode(g, P, L, prefix, np.int64(g.to_act), obs[0])
                        HK.value_rows(obs, mask, rows, n, R, A, O, uniforms, False, out, choice, scratch)
                        action = choice[0]
                ended = VK.advance_game(g, P, DQ[w], rng, action)
                for s in range(n):
                    eliminated[c, w, s] |= g.eliminated[s] != 0
                if g.phase == DONE_PH:  # halted: the round was scored (or the game ended)
                    for s in range(n):
                        scores[c, w, s] = g.scores[s]
                    winner[c, w] = g.winner if ended and g.terminated else -1
                    break
    return -1
