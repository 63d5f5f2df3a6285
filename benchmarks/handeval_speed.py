"""Speed of agents.redbeard.handeval (table lookup) and handeval_playout (vectorised Monte Carlo), in hands/s,
next to a yardstick measured in the same run: a plain-Python single-hand Monte Carlo loop
(the same deals and playout policy, one card at a time, via ``_reference_playout``).

    .venv/bin/python benchmarks/handeval_speed.py [--hands 1024] [--samples 256] [--players 4]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from agents.redbeard import handeval as he
from agents.redbeard import handeval_playout as playout


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def python_mc(hand, n, samples, leader, rnd):
    """Plain Python: deal the others from the 46 remaining cards, play out, count tricks."""
    rest = [c for c in range(52) if c not in hand]
    total = 0
    for _ in range(samples):
        dealt = rnd.sample(rest, 6 * (n - 1))
        hands = [list(hand)] + [dealt[6 * i: 6 * i + 6] for i in range(n - 1)]
        total += playout._reference_playout(hands, leader)[0]
    return total / samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1024)
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--leader", default="declarer", choices=he.LEADERS)
    ap.add_argument("--python-hands", type=int, default=4, help="hands for the plain-Python yardstick")
    args = ap.parse_args()
    B, S, n = args.hands, args.samples, args.players
    rng = np.random.default_rng(0)
    hands = np.argsort(rng.random((B, 52)), axis=1)[:, :6]
    masks = np.zeros((B, 52), dtype=bool)
    masks[np.arange(B)[:, None], hands] = True

    he.load_table()  # load once, outside the timing
    t_table = best_of(lambda: he.expected_tricks(masks, n, leader=args.leader), 20)
    t_dist = best_of(lambda: he.trick_distribution(masks, n, leader=args.leader), 20)
    t_mc = best_of(lambda: playout.expected_tricks_mc(masks, n, samples=S, rng=1, leader=args.leader), 2)
    rnd = random.Random(0)
    PB = args.python_hands
    t0 = time.perf_counter()
    for i in range(PB):
        python_mc(hands[i].tolist(), n, S, args.leader, rnd)
    t_py = (time.perf_counter() - t0) / PB  # seconds per hand

    rate_table, rate_dist, rate_mc, rate_py = B / t_table, B / t_dist, B / t_mc, 1 / t_py
    print(f"handeval speed: B={B} hands, {n} players, leader={args.leader}, MC samples={S}")
    print(f"{'method':44s} {'hands/s':>12s} {'x python MC':>12s}")
    rows = [
        ("plain-Python MC loop (yardstick, 1 hand)", rate_py),
        (f"vectorised MC, expected_tricks_mc ({S} samples)", rate_mc),
        ("table lookup, expected_tricks", rate_table),
        ("table lookup, trick_distribution", rate_dist),
    ]
    for name, rate in rows:
        print(f"{name:44s} {rate:12,.0f} {rate / rate_py:12,.1f}")
    print(f"vectorised MC: {rate_mc * S:,.0f} deals/s; table lookup is {rate_table / rate_mc:,.0f}x the MC")


if __name__ == "__main__":
    main()
