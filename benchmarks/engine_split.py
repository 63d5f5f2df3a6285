"""Where the batch engine's step goes: the rules against the observation and mask.

    python benchmarks/engine_split.py                  # B=4096, classic, 4 players
    python benchmarks/engine_split.py --batch 1024 --rules wikipedia

On games in mid-play, per game-step (CPU time, best of ``--reps`` passes of 20 batch
steps): a ``VectorEnv.step`` with random legal actions (the time to draw those actions
measured apart and left out), and ``vector_kernels.observe_games`` alone on the same
games -- encoding every game's observation (float32 [B, D]) and legal-action mask,
which every step also does. The difference is the rules. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from redbeard_env.redbeard import vector_kernels as K
from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096, help="games in the batch")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--reps", type=int, default=15, help="passes; the best is reported")
    args = parser.parse_args(argv)
    B, passes = args.batch, 20
    env = VectorEnv(B, args.players, args.rules, seed=0)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):  # into the game: auctions and tricks under way
        obs, mask, *_ = env.step(random_legal_actions(mask, rng))
    out = np.empty_like(obs)
    best = {"actions": np.inf, "step": np.inf, "observe": np.inf}
    for _ in range(args.reps):
        t = time.process_time()
        for _ in range(passes):
            random_legal_actions(mask, rng)
        best["actions"] = min(best["actions"], (time.process_time() - t) / passes)
        t = time.process_time()
        for _ in range(passes):
            obs, mask, *_ = env.step(random_legal_actions(mask, rng))
        best["step"] = min(best["step"], (time.process_time() - t) / passes)
        seat = np.maximum(env.to_act.astype(np.int64), 0)
        t = time.process_time()
        for _ in range(passes):
            K.observe_games(env._games(), env._params, env._layout, env._prefix, seat, out, env._mask, True)
        best["observe"] = min(best["observe"], (time.process_time() - t) / passes)
    ns = {k: 1e9 * v / B for k, v in best.items()}
    step = ns["step"] - ns["actions"]
    print(f"{args.rules}, {args.players} players, B={B}: ns per game-step (CPU, best of {args.reps})")
    print(f"  step (random actions drawn apart: {ns['actions']:.0f} ns)   {step:6.0f}")
    print(f"    observation + mask                          {ns['observe']:6.0f}  ({ns['observe'] / step:.0%})")
    print(f"    rules (the rest)                            {step - ns['observe']:6.0f}")
    print(f"  bytes of observation written per game-step: {out.shape[1] * out.itemsize}")


if __name__ == "__main__":
    main()
