"""AEC throughput: agent-steps per second of the redbeard env under random legal play,
next to PettingZoo's ``connect_four_v3`` measured the same way in the same run.

Run it with::

    .venv/bin/python benchmarks/aec_throughput.py --seconds 5

(connect_four needs pygame: ``pip install -e '.[bench]'``.)

A step is what an AEC training loop does per decision: ``env.last()`` with the
observation, a uniformly random action among the mask's legal ones, ``env.step()``.
The steps of finished agents (``step(None)``) count too, for both envs alike; resets are
inside the timed loop. Single thread (OMP/MKL/OpenBLAS threads set to 1 before numpy is
imported). The script prints numbers and their ratio; it asserts nothing about speed.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402


def measure(make_env, seconds: float, seed: int = 0) -> dict:
    """Random legal play for about ``seconds``; returns steps, games and steps/s."""
    env = make_env()
    rng = random.Random(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            steps += 1
        games += 1
        now = time.perf_counter()
        env.reset(seed=seed + games)
    elapsed = time.perf_counter() - start
    env.close()
    return {"steps": steps, "games": games, "seconds": elapsed, "steps_per_s": steps / elapsed}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per env (default 3)")
    p.add_argument("--players", type=int, default=4, help="redbeard players (default 4)")
    p.add_argument("--rules", default="classic", help="redbeard preset (default classic)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import redbeard_env

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # pygame missing
        raise SystemExit(f"connect_four_v3 is unavailable ({exc}); install the bench extra: pip install -e '.[bench]'")

    def ours():
        return redbeard_env.env(num_players=args.players, rules=args.rules)

    warmup = min(0.5, args.seconds / 4)
    measure(ours, warmup, args.seed)
    measure(connect_four_v3.env, warmup, args.seed)
    mine = measure(ours, args.seconds, args.seed)
    base = measure(connect_four_v3.env, args.seconds, args.seed)

    print(f"python {platform.python_version()}, numpy {np.__version__}, single thread, random legal play")
    label = f"redbeard ({args.rules}, {args.players} players)"
    for name, r in ((label, mine), ("connect_four_v3", base)):
        print(
            f"{name:<32} {r['steps_per_s']:>10,.0f} agent-steps/s"
            f"   ({r['steps']:,} steps, {r['games']:,} games, {r['seconds']:.1f} s)"
        )
    print(f"{'ratio redbeard / connect_four':<32} {mine['steps_per_s'] / base['steps_per_s']:>10.2f}")


if __name__ == "__main__":
    main()
