"""End-to-end PPO training throughput (environment steps per second) and where it goes.

    python benchmarks/train_throughput.py                       # classic_4p config, ~2 minutes
    python benchmarks/train_throughput.py --config quickstart --updates 10

Runs ``train.py``'s loop for ``--updates`` updates of the given config (no evaluations,
run directory in a temporary folder) and reports its steps/s — every seat's decisions,
including the engine, the opponents, the policy's prior and inference, and the PPO
updates, as ``charts/SPS`` counts them. Yardsticks measured in the same run, at the same
batch size and player count:

* ``engine``: ``VectorEnv`` with random legal actions (the engine alone);
* ``heuristic``: ``VectorEnv`` with every seat played by the ``heuristic`` bot (what the
  heuristic opponents and the prior cost per decision).

The wall time of an update is split into the rollout (the workers playing, in threads
when there are several) and the PPO update. The training run is profiled (not with
``--no-profile``): the learner's thread and every rollout thread, and the table splits the
work (thread-seconds, the threads added up: two rollout threads on two cores can do more
than a second of work per second) into the engine step, the heuristic (opponents and
prior), the hand-strength features, network passes (rollout and update forward) and
backward passes. Wall time; run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

# the source tree measured: this checkout, or REDBEARD_ROOT (benchmarks/ab_compare.py)
ROOT = Path(os.environ.get("REDBEARD_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))


def yardstick(bot: str, num_envs: int, players: int, rules: str, seconds: float) -> float:
    from agents.registry import make_agent
    from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(num_envs=num_envs, num_players=players, rules=rules, seed=0)
    obs, mask, _ = venv.reset()
    rng = np.random.default_rng(0)
    agent = make_agent(bot) if bot != "random" else None
    for _ in range(20):  # warm-up: games in different phases
        obs, mask, *_ = venv.step(random_legal_actions(mask, rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = random_legal_actions(mask, rng) if agent is None else agent.act_batch(obs, mask)
        obs, mask, *_ = venv.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="classic_4p")
    parser.add_argument("--updates", type=int, default=30, help="PPO updates to time")
    parser.add_argument("--seconds", type=float, default=10.0, help="time per yardstick")
    parser.add_argument("--no-profile", dest="profile", action="store_false",
                        help="time the run without cProfile (whose per-call cost weighs on Python-heavy code: "
                             "an older tree with more Python calls pays more) and print no time split")
    args = parser.parse_args()
    if args.updates < 2:
        raise ValueError(f"--updates must be at least 2, got {args.updates}")

    if (ROOT / "redbeard_train").is_dir():
        import redbeard_train as train
    else:  # a tree from before the redbeard_train package: its train.py held the loop
        import train

    cfg = train.load_config(args.config)
    steps_per_update = cfg.num_envs * cfg.num_steps * len(cfg.players)
    timers = Timers(args.profile)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = dataclasses.replace(cfg, total_steps=steps_per_update * args.updates, eval_every=0, eval_games=0,
                                  checkpoint_every=0, run_dir=tmp)
        profiler = cProfile.Profile()
        start = time.perf_counter()
        if args.profile:
            profiler.enable()
        out = train.train(cfg, quiet=False)
        profiler.disable()
        wall = time.perf_counter() - start

    players = cfg.players[0]
    engine = yardstick("random", cfg.num_envs, players, cfg.rules, args.seconds)
    heuristic = yardstick("heuristic", cfg.num_envs, players, cfg.rules, args.seconds)
    sps = out["global_step"] / wall  # includes start-up; charts/SPS excludes it
    import redbeard_env

    print(f"\nsource: {Path(redbeard_env.__file__).parent.parent}")
    print(f"\n{args.config}: {cfg.rules}, players {cfg.players}, {cfg.num_envs} games x {cfg.num_steps} steps per update, "
          f"{args.updates} updates, prior {cfg.prior!r}, torch_threads {cfg.torch_threads}")
    print(f"{'':40s}{'steps/s':>12s}{'vs training':>13s}")
    print(f"{'training, end to end (train.py)':40s}{sps:12,.0f}{1.0:12.2f}x   (charts/SPS {out['sps']:,})")
    print(f"{'yardstick: engine, random actions':40s}{engine:12,.0f}{engine / sps:12.2f}x")
    print(f"{'yardstick: engine, heuristic every seat':40s}{heuristic:12,.0f}{heuristic / sps:12.2f}x")
    if timers.calls:
        n = timers.calls
        print(f"\nper update (wall, {n} updates, {cfg.rollout_workers} rollout worker(s)): rollout "
              f"{1e3 * timers.rollout / n:.0f} ms, PPO update {1e3 * timers.update / n:.0f} ms, the rest (start-up "
              f"included) {1e3 * (wall - timers.rollout - timers.update) / n:.0f} ms")
    if args.profile:
        stats = pstats.Stats(profiler)
        for p in timers.thread_profiles:
            stats.add(p)
        # the learner's thread waits while the rollout threads work: count their time instead
        print_split(stats, wall - timers.waited + timers.thread_wall)


class Timers:
    """Wall time of the rollouts and PPO updates of a ``redbeard_train`` run (older trees,
    with the loop in train.py, are not timed), and with ``profile`` a profile of every
    rollout thread."""

    def __init__(self, profile: bool):
        self.rollout = self.update = self.waited = self.thread_wall = 0.0
        self.calls = 0
        self.thread_profiles: list[cProfile.Profile] = []
        self.lock = threading.Lock()  # rollout threads add up their times at once
        try:
            from redbeard_train import loop, rollout
        except ImportError:
            return
        loop.collect_rollout = self.timed(loop.collect_rollout, "rollout")
        loop.ppo_update = self.timed(loop.ppo_update, "update", counted=True)
        if profile and hasattr(rollout, "_on_one_thread"):
            on_one_thread = rollout._on_one_thread

            def profiled(*a, **k):
                p = cProfile.Profile()
                p.enable()
                try:
                    return on_one_thread(*a, **k)
                finally:
                    p.disable()
                    self.thread_profiles.append(p)

            rollout._on_one_thread = self.timed(profiled, "thread_wall")
            # the learner's wait for its rollout threads (only when they run in threads)
            threaded = rollout.LocalWorkers.rollout
            rollout.LocalWorkers.rollout = lambda w, *a, **k: (self.timed(threaded, "waited") if w.threads else threaded)(w, *a, **k)

    def timed(self, f, total: str, counted: bool = False):
        """``f``, adding its wall time to the attribute ``total`` (and counting the calls)."""

        def run(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                with self.lock:
                    setattr(self, total, getattr(self, total) + time.perf_counter() - t)
                    self.calls += counted

        return run


def print_split(stats: pstats.Stats, work: float) -> None:
    """Where the profiled run's work (thread-seconds: the learner's thread, rollout threads
    in place of its waiting for them) went."""

    def cumulative(path_part: str, name: str) -> float:
        return sum(v[3] for (file, _, fn), v in stats.stats.items() if path_part in file and fn == name)

    parts = {
        "engine step (VectorEnv.step)": cumulative("redbeard_env/vector.py", "step"),
        "heuristic (opponents + prior)": cumulative("agents/heuristic.py", "action_values"),
        "hand-strength features": cumulative("redbeard_env/handeval.py", "trick_distribution"),
        "network forward (rollout + update)": cumulative("agents/ppo.py", "forward"),
        "network backward + optimizer": cumulative("torch/_tensor.py", "backward") + cumulative("torch/optim/adam.py", "step"),
    }
    print(f"\nwhere the training work went ({work:.1f} thread-seconds, profiled):")
    for name, seconds in parts.items():
        print(f"  {name:40s}{seconds:8.1f} s  {100 * seconds / work:5.1f} %")
    rest = work - sum(parts.values())
    print(f"  {'everything else (GAE, buffers, python)':40s}{rest:8.1f} s  {100 * rest / work:5.1f} %")


if __name__ == "__main__":
    main()
