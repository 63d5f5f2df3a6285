"""What a bot's decision costs against what its declaration says (agents.params).

    python benchmarks/bot_cost.py                          # every game, the default specs (~5 minutes)
    python benchmarks/bot_cost.py --game sortskaeg --spec pimc --spec pimc:rollout=pimc

Positions: decisions with a real choice from heuristic self-play on the game's batch engine
(4 players, its default rules, ``--seed``), each asked alone (``act``, as the web table asks
a bot), one core, CPU time, at most ``--seconds`` per spec (at least one decision). For each
spec: milliseconds per decision, its declared cost (:func:`agents.registry.spec_cost`, cost
units) and the microseconds a cost unit took. The declared costs are calibrated so that a
unit is about 25 us everywhere; a ratio far from it on some spec means its declaration is
off (a cheap bot asked alone pays a fixed overhead of a few units on top, which the
declarations leave out).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def positions(game: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (obs, mask) rows of decisions with more than one legal action."""
    import redbeard_env
    from agents import make_agent

    info = redbeard_env.game_named(game)
    venv = info.vector_env(num_envs=8, num_players=4, rules=info.default_rules, seed=seed)
    bot = make_agent("heuristic", game=game)
    rng = np.random.default_rng(seed)
    obs, mask, _ = venv.reset()
    keep_obs, keep_mask = [], []
    while sum(len(o) for o in keep_obs) < count:
        take = (mask.sum(1) > 1) & (rng.random(len(mask)) < 0.2)
        keep_obs.append(obs[take])
        keep_mask.append(mask[take])
        obs, mask, *_ = venv.step(bot.act_batch(obs, mask))
    return np.concatenate(keep_obs)[:count], np.concatenate(keep_mask)[:count]


def default_specs(game: str) -> list[str]:
    from agents.registry import game_bots
    from redbeard_web.bots import shipped_checkpoints

    policy = [f"ppo:{p}" for p in shipped_checkpoints(game)[:1]]
    specs = ["random", "heuristic"] + policy + ["pimc", "pimc:samples=64", "pimc:rollout=random"]
    specs += [f"pimc:rollout={p}" for p in policy] + ["pimc:rollout=pimc"]
    if "openspiel" in game_bots(game):
        specs += ["openspiel:ismcts", "openspiel:ismcts,simulations=400", "openspiel:mcts", "openspiel:mcts,worlds=1"]
    return specs


def measure(game: str, spec: str, obs: np.ndarray, mask: np.ndarray, seconds: float) -> tuple[float, int]:
    """CPU milliseconds per decision of ``spec`` asked alone, and the decisions timed."""
    from agents import make_agent

    bot = make_agent(spec, game=game, seed=0)
    bot.act(obs[0], mask[0])  # imports, compilation, first-call set-up
    clock = time.process_time
    start, done = clock(), 0
    for i in range(1, len(obs)):
        bot.act(obs[i], mask[i])
        done += 1
        if clock() - start > seconds:
            break
    return 1000 * (clock() - start) / max(done, 1), done


def main(argv: list[str] | None = None) -> None:
    import redbeard_env
    from agents.registry import spec_cost

    parser = argparse.ArgumentParser(description="A bot's CPU time per decision against its declared cost.")
    parser.add_argument("--game", action="append", help="a registered game (default: every game)")
    parser.add_argument("--spec", action="append", help="a bot spec (default: a set per game)")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20.0, help="CPU seconds per spec at most")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"{'game':10s} {'spec':36s} {'ms/decision':>12s} {'decisions':>10s} {'cost units':>11s} {'us/unit':>8s}")
    for game in args.game or redbeard_env.registered_games():
        obs, mask = positions(game, args.positions, args.seed)
        for spec in args.spec or default_specs(game):
            ms, done = measure(game, spec, obs, mask, args.seconds)
            cost = spec_cost(spec, game)
            print(f"{game:10s} {spec:36s} {ms:12.3f} {done:10d} {cost:11.1f} {1000 * ms / cost:8.1f}", flush=True)


if __name__ == "__main__":
    main()
