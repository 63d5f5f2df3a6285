"""Accuracy of the agents.redbeard.handeval lookup table against exact Monte Carlo.

For uniformly random hands and every (num_players, leader, role) it prints the mean
absolute error of the table's expected tricks and of its P(no trick), and the mean total
variation distance of its trick distribution, all against a reference MC with many
samples; and, for scale, the same errors of a 256-sample MC.

    .venv/bin/python benchmarks/handeval_accuracy.py [--hands 200] [--ref-samples 4096]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.redbeard import handeval as he
from agents.redbeard import handeval_playout as playout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--ref-samples", type=int, default=4096)
    ap.add_argument("--mc-samples", type=int, default=256)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    hands = np.argsort(rng.random((args.hands, 52)), axis=1)[:, :6]
    k = np.arange(7)
    t0 = time.perf_counter()
    print(f"{args.hands} random hands; reference MC {args.ref_samples} samples; errors: |E| = mean abs error of "
          f"expected tricks, P0 = of P(no trick), TV = mean total variation")
    print(f"{'n':>2s} {'leader':12s} {'role':9s} {'pos':>4s} | {'table |E|':>9s} {'max':>5s} {'P0':>6s} {'TV':>6s} |"
          f" {'MC' + str(args.mc_samples) + ' |E|':>10s} {'P0':>6s} {'TV':>6s}")
    allt, allm = [], []
    for n in range(3, 8):
        for leader in he.LEADERS:
            for role, pos in [("declarer", None), ("follower", None), ("follower", 1), ("follower", n - 1)]:
                ref = playout.trick_distribution_mc(hands, n, role, args.ref_samples, rng=1, leader=leader, position=pos)
                tab = he.trick_distribution(hands, n, role, leader=leader, position=pos)
                mc = playout.trick_distribution_mc(hands, n, role, args.mc_samples, rng=2, leader=leader, position=pos)
                et = np.abs(tab @ k - ref @ k)
                em = np.abs(mc @ k - ref @ k)
                allt.append(et.mean())
                allm.append(em.mean())
                print(f"{n:2d} {leader:12s} {role:9s} {str(pos):>4s} | {et.mean():9.3f} {et.max():5.2f} "
                      f"{np.abs(tab[:, 0] - ref[:, 0]).mean():6.3f} {0.5 * np.abs(tab - ref).sum(1).mean():6.3f} |"
                      f" {em.mean():10.3f} {np.abs(mc[:, 0] - ref[:, 0]).mean():6.3f}"
                      f" {0.5 * np.abs(mc - ref).sum(1).mean():6.3f}", flush=True)
    print(f"overall mean |E|: table {np.mean(allt):.3f}, MC{args.mc_samples} {np.mean(allm):.3f} "
          f"({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
