"""Sortskæg throughput: decisions per second of the batch engine
(``redbeard_env.sortskaeg.vector``) next to the AEC env, both under random legal play,
measured in the same run.

Run it with::

    .venv/bin/python benchmarks/sortskaeg_throughput.py --seconds 5 --num-envs 1024

The AEC loop is ``env.last()``, a random legal action, ``env.step()`` (finished agents'
``step(None)`` count too, resets inside the loop); the batch loop is one ``step`` of B
random legal actions (the obs/mask it returns included). Single thread. The script
prints numbers and their ratio; it asserts nothing about speed.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def measure_aec(players: int, deal: str, seconds: float, seed: int) -> float:
    from redbeard_env import sortskaeg

    env = sortskaeg.env(num_players=players, deal=deal)
    rng = random.Random(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
        env.reset(seed=seed + games)
    return steps / (time.perf_counter() - start)


def measure_batch(players: int, deal: str, num_envs: int, seconds: float, seed: int) -> float:
    from redbeard_env.sortskaeg.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(num_envs, players, deal=deal, seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask, seat = venv.reset()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per engine (default 3)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--deal", default="fresh", choices=("fresh", "carry"))
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    warm = min(0.5, args.seconds / 4)
    measure_aec(args.players, args.deal, warm, args.seed)
    measure_batch(args.players, args.deal, args.num_envs, warm, args.seed)
    aec = measure_aec(args.players, args.deal, args.seconds, args.seed)
    batch = measure_batch(args.players, args.deal, args.num_envs, args.seconds, args.seed)
    print(f"python {platform.python_version()}, numpy {np.__version__}, single thread, random legal play, "
          f"Sortskæg {args.players} players, deal {args.deal}")
    print(f"{'AEC env':<28} {aec:>12,.0f} decisions/s")
    print(f"{f'batch engine (B={args.num_envs})':<28} {batch:>12,.0f} decisions/s")
    print(f"{'ratio batch / AEC':<28} {batch / aec:>12.1f}")


if __name__ == "__main__":
    main()
