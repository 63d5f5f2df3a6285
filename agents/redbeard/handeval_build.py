"""Building the hand-strength table that :mod:`agents.redbeard.handeval` looks up.

``build_table(path=TABLE_PATH, samples=720, seed=0, workers=2)`` plays the Monte Carlo of
:mod:`agents.redbeard.handeval_playout` for every hand signature and saves
``agents/redbeard/data/handeval_table.npz`` (1.1 MB; ~180 CPU-s, i.e. ~1.5 min on 2 idle
cores); deterministic for a given ``samples`` and ``seed`` whatever ``workers``. From the
command line::

    python -m agents.redbeard.handeval_build --regenerate [--samples 720] [--seed 0] [--workers 2]

Regenerate after any change to the playout policy or the signature (and raise
``handeval.TABLE_VERSION`` when the format changes). The table's design is described in
:mod:`agents.redbeard.handeval`.
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from redbeard_env.redbeard.cards import NUM_CARDS
from .handeval import (
    NUM_CLASSES, NUM_COMBOS, TABLE_PATH, TABLE_VERSION, TOP_HONOURS, _CLASS_HON, _CLASS_LEN,
    _CLASS_LOW, _LOWBITS, _NGROUPS, _codes_to_key, _combo_index, _group_index, _lowbits_features,
)
from .handeval_playout import _deal_others, _play_seated
from .handmasks import (
    HAND_SIZE, LEADERS, MAX_PLAYERS, MIN_PLAYERS, _BIT, _NMASK, _bool_from_masks, _check_samples,
)

__all__ = ["build_table", "TABLE_SAMPLES"]


def _all_signatures():
    """Every signature as sorted (non-increasing) class-code 4-tuples: int64 [G, 4]."""
    L = _CLASS_LEN
    out = []
    for a in range(NUM_CLASSES):
        for b in range(a + 1):
            for c in range(b + 1):
                for d in range(c + 1):
                    if L[a] + L[b] + L[c] + L[d] == HAND_SIZE:
                        out.append((a, b, c, d))
    return np.array(out, dtype=np.int64)


def _sample_hands(codes, samples, rng):
    """Uniform concrete hands for signatures: codes int [G, 4] -> int16 masks [G*samples, 4]."""
    codes = np.repeat(np.asarray(codes, dtype=np.int64), samples, axis=0)
    R = codes.shape[0]
    low = _CLASS_LOW[codes]
    order = np.argsort(rng.random((R, 4, _LOWBITS), dtype=np.float32), axis=-1).astype(np.int16)
    sel = np.arange(_LOWBITS) < low[..., None]
    lowbits = np.where(sel, _BIT[order], np.int16(0)).sum(-1, dtype=np.int16)
    masks = (_CLASS_HON[codes] << _LOWBITS) | lowbits
    perm = np.argsort(rng.random((R, 4), dtype=np.float32), axis=1)
    return np.take_along_axis(masks, perm, axis=1).astype(np.int16)

# Table layout. Per signature 50 "cells": (num_players n, leader, seat position 0..n-1),
# see _combo_index. Generation plays, per signature, n and leader, `samples` deals with
# the hand as declarer and `samples` deals with it as a follower, the follower's position
# cycling 1, 2, .., n-1 (so each follower cell holds samples/(n-1) deals). The stored
# counts are the raw trick distributions per cell.
#
# Low-card correction. The signature ignores which 2..10 a suit holds. A per-suit,
# per-rank linear correction restores most of that: for every "group" (n, leader,
# role declarer/follower) and suit class (honour mask, number of low cards) a weight per
# low rank 2..10, fitted by least squares on the tricks won *in that suit* (the suit of
# the trick's winning card) during generation; the hand's correction is the sum over its
# suits of sum_r w[r] * (held_r - lows/9) (zero on average over the class). The
# distribution is shifted to the corrected mean by moving a fraction of its mass by one
# trick.

_RIDGE = 1.0


def _table_chunk(args):
    """Raw statistics for some signatures: trick counts int [G, 50, 7], the low-card
    regression sums XtX [groups, classes, 9, 9], Xty [groups, classes, 9], CPU seconds."""
    import time

    cpu0 = time.process_time()
    codes, samples, seed = args
    rng = np.random.default_rng(seed)
    G = codes.shape[0]
    K = HAND_SIZE + 1
    mine = _sample_hands(codes, samples, rng)
    R = mine.shape[0]
    hand_bool = _bool_from_masks(mine)
    pool_ids = np.nonzero(~hand_bool)[1].reshape(R, NUM_CARDS - HAND_SIZE).astype(np.int8)
    pool_size = np.full(R, NUM_CARDS - HAND_SIZE)
    unplayed = np.full((R, 4), _NMASK - 1, dtype=np.int16)
    counts = np.zeros((G, NUM_COMBOS, K), dtype=np.int64)
    xtx = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS, _LOWBITS))
    xty = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS))
    feats, cls = _lowbits_features(mine)  # [R, 4, 9], [R, 4]
    feats = feats.reshape(R * 4, _LOWBITS).astype(np.float64)
    cls = cls.reshape(R * 4)
    outer = (feats[:, :, None] * feats[:, None, :]).reshape(R * 4, -1)
    sxx = np.stack([np.bincount(cls, weights=outer[:, j], minlength=NUM_CLASSES) for j in range(outer.shape[1])], -1)
    sig = np.repeat(np.arange(G), samples)
    cyc = np.tile(np.arange(samples), G)
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        # one set of deals per player count, shared by its leader rules and roles (each
        # cell stays an unbiased estimate; sharing only correlates cells)
        others = _deal_others(pool_ids, pool_size, n, HAND_SIZE, rng)
        fpos = 1 + cyc % (n - 1)
        for leader in LEADERS:
            for role, pos in (("declarer", np.zeros(R, np.int64)), ("follower", fpos)):
                tr = _play_seated(mine, others, unplayed, leader, pos, by_suit=True)  # [R, 4]
                col = np.array([_combo_index(n, leader, int(q)) for q in range(n)])[pos]
                tot = tr.sum(1, dtype=np.int64)
                flat = (sig * NUM_COMBOS + col) * K + tot
                counts += np.bincount(flat, minlength=G * NUM_COMBOS * K).reshape(G, NUM_COMBOS, K)
                g = _group_index(n, leader, role)
                y = tr.reshape(R * 4).astype(np.float64)
                xtx[g] += sxx.reshape(NUM_CLASSES, _LOWBITS, _LOWBITS)
                xty[g] += np.stack([np.bincount(cls, weights=feats[:, j] * y, minlength=NUM_CLASSES)
                                    for j in range(_LOWBITS)], -1)
    return counts, xtx, xty, time.process_time() - cpu0


TABLE_SAMPLES = 720  # deals per signature, player count, leader rule and role


def build_table(path: Optional[str] = TABLE_PATH, samples: int = TABLE_SAMPLES, seed: int = 0, workers: int = 2,
                sigs_per_chunk: Optional[int] = None, verbose: bool = False):
    """(Re)generate the lookup table and save it to ``path`` (``None``: don't save).
    Deterministic for a given ``samples`` and ``seed`` whatever ``workers``. Returns the
    table dict. About 2-3 minutes with the defaults on 2 cores."""
    import time

    samples = _check_samples(samples)
    if samples > 65535:
        raise ValueError("samples must be at most 65535 (counts are stored as uint16)")
    sigs = _all_signatures()
    keys = _codes_to_key(sigs)
    order = np.argsort(keys)
    sigs, keys = sigs[order], keys[order]
    per = sigs_per_chunk or max(1, 65536 // samples)
    chunks = [sigs[i:i + per] for i in range(0, len(sigs), per)]
    seeds = np.random.SeedSequence(seed).spawn(len(chunks))
    jobs = [(c, samples, sd) for c, sd in zip(chunks, seeds)]
    t0 = time.perf_counter()
    if workers and workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            results = []
            for i, r in enumerate(pool.imap(_table_chunk, jobs)):
                results.append(r)
                if verbose:
                    print(f"  chunk {i + 1}/{len(jobs)}  {time.perf_counter() - t0:.0f}s", flush=True)
    else:
        results = []
        for i, job in enumerate(jobs):
            results.append(_table_chunk(job))
            if verbose:
                print(f"  chunk {i + 1}/{len(jobs)}  {time.perf_counter() - t0:.0f}s", flush=True)
    counts = np.concatenate([r[0] for r in results]).astype(np.uint16)
    xtx = sum(r[1] for r in results)
    xty = sum(r[2] for r in results)
    weights = np.zeros((_NGROUPS, NUM_CLASSES, _LOWBITS), dtype=np.float32)
    eye = np.eye(_LOWBITS)
    for g in range(_NGROUPS):
        for c in range(NUM_CLASSES):
            if 0 < _CLASS_LOW[c] < _LOWBITS:
                weights[g, c] = np.linalg.solve(xtx[g, c] + _RIDGE * eye, xty[g, c])
    table = {
        "version": np.int64(TABLE_VERSION),
        "samples": np.int64(samples),
        "seed": np.int64(seed),
        "top_honours": np.int64(TOP_HONOURS),
        "keys": keys,
        "counts": counts,
        "low_weights": weights,
        "seconds": np.float64(time.perf_counter() - t0),
        "cpu_seconds": np.float64(sum(r[3] for r in results)),
    }
    if path is not None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        np.savez_compressed(path, **table)
    return table


def _main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description="agents.redbeard.handeval_build: regenerate the hand-strength table")
    ap.add_argument("--regenerate", action="store_true", help="build the table and save it")
    ap.add_argument("--path", default=TABLE_PATH)
    ap.add_argument("--samples", type=int, default=TABLE_SAMPLES)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if not args.regenerate:
        ap.print_help()
        return
    t = build_table(args.path, samples=args.samples, seed=args.seed, workers=args.workers, verbose=True)
    print(f"saved {args.path}: {t['counts'].shape[0]} signatures x {NUM_COMBOS} cells, "
          f"{float(t['seconds']):.0f}s wall, {float(t['cpu_seconds']):.0f} CPU-s, "
          f"{os.path.getsize(args.path) / 1e6:.2f} MB")


if __name__ == "__main__":
    _main()
