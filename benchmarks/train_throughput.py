"""End-to-end PPO training throughput (environment steps per second) and where an update's time goes.

    python benchmarks/train_throughput.py                                   # classic_4p, ~2 minutes
    python benchmarks/train_throughput.py --updates 10 --config quickstart
    python benchmarks/train_throughput.py --updates 20 --config sortskaeg_4p --prior "" --critic privileged \
        --belief true --teacher pimc:samples=8 --distill-frac 1 --teacher-share 0.05

Runs ``train.py``'s loop for ``--updates`` updates (no evaluations, no checkpoints, the run
directory in a temporary folder) and reports its steps/s -- every seat's decisions, the
engine, the opponents, the policy and the PPO updates, as ``charts/SPS`` counts them. Every
flag besides ``--updates``, ``--seconds`` and ``--no-profile`` is a ``train.py`` flag (any
game, any part of the recipe). Yardsticks measured in the same run, at the same batch size
and player count, on the config's game and rules:

* ``engine``: the game's batch engine with random legal actions (the engine alone);
* ``heuristic``: the batch engine with every seat played by the game's ``heuristic`` bot.

The wall time of an update is split into the rollout (the workers playing, in threads
when there are several) and the PPO update. The training run is profiled (not with
``--no-profile``): the learner's thread and every rollout thread, and the table splits the
work (thread-seconds, the threads added up: two rollout threads on two cores can do more
than a second of work per second) by who called what: the engine step, the bots the
rollout asks (the prior and the opponents), the teacher, the privileged view (every hand,
for the critic and the belief head), the policy's features and network passes in the
rollout, GAE, and the PPO update's forward-and-loss and backward-and-optimizer. Wall time;
run it on an otherwise idle machine.
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


def yardstick(bot: str, cfg, players: int, seconds: float) -> float:
    """Steps per second of the config's batch engine with every seat played by ``bot``."""
    from agents.registry import make_agent
    from redbeard_env.registry import game_named

    game = game_named(cfg.game)
    rules = game.make_rules(cfg.rules, **cfg.overrides)
    venv = game.vector_env(num_envs=cfg.num_envs, num_players=players, rules=rules, seed=0)
    obs, mask, _ = venv.reset()
    rng = np.random.default_rng(0)
    agent = make_agent(bot, game=cfg.game) if bot != "random" else None

    def random_legal(mask: np.ndarray) -> np.ndarray:
        return (rng.random(mask.shape) * mask).argmax(1)

    for _ in range(20):  # warm-up: games in different phases
        obs, mask, *_ = venv.step(random_legal(mask))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = random_legal(mask) if agent is None else agent.act_batch(obs, mask)
        obs, mask, *_ = venv.step(actions)
        steps += cfg.num_envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="Any other flag is train.py's (python train.py --help).")
    parser.add_argument("--updates", type=int, default=30, help="PPO updates to time")
    parser.add_argument("--seconds", type=float, default=10.0, help="time per yardstick")
    parser.add_argument("--no-profile", dest="profile", action="store_false",
                        help="time the run without cProfile (whose per-call cost weighs on Python-heavy code: "
                             "an older tree with more Python calls pays more) and print no time split")
    args, train_flags = parser.parse_known_args()
    if args.updates < 2:
        parser.error(f"--updates must be at least 2, got {args.updates}")

    if (ROOT / "redbeard_train").is_dir():
        import redbeard_train as train
    else:  # a tree from before the redbeard_train package: its train.py held the loop
        import train

    try:
        from redbeard_train.cli import parse_args
    except ImportError:  # an older tree: --config NAME only
        pre = argparse.ArgumentParser()
        pre.add_argument("--config", default="classic_4p")
        cfg = train.load_config(pre.parse_args(train_flags).config)
    else:
        cfg, _ = parse_args(train_flags)
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
    engine = yardstick("random", cfg, players, args.seconds)
    heuristic = yardstick("heuristic", cfg, players, args.seconds)
    sps = out["global_step"] / wall  # includes start-up; charts/SPS excludes it
    import redbeard_env

    print(f"\nsource: {Path(redbeard_env.__file__).parent.parent}")
    recipe = ", ".join(f"{k} {getattr(cfg, k)!r}" for k in ("prior", "critic", "belief", "teacher", "teacher_share")
                       if hasattr(cfg, k))
    print(f"\n{cfg.exp_name}: {getattr(cfg, 'game', 'redbeard')} {cfg.rules}, players {cfg.players}, {cfg.num_envs} games x "
          f"{cfg.num_steps} steps per update, {args.updates} updates, {cfg.rollout_workers} rollout worker(s), "
          f"torch_threads {cfg.torch_threads}; {recipe}")
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
    in place of its waiting for them) went, by caller and callee: time a function spent
    when called from a given place, so nested calls are not counted twice."""

    def called(caller: tuple[str, str], callee: tuple[str, ...] = ("", "")) -> float:
        """Cumulative seconds of functions (file part, name; "" = any) called from (file part, name)."""
        total = 0.0
        for (file, _, fn), (*_, callers) in stats.stats.items():
            if callee[0] in file and (callee[1] in ("", fn)):
                total += sum(v[3] for (cfile, _, cfn), v in callers.items() if caller[0] in cfile and cfn == caller[1])
        return total

    def own(part: str, name: str) -> float:
        return sum(v[3] for (file, _, fn), v in stats.stats.items() if part in file and fn == name)

    rollout_calls = {
        "engine step (the game's batch engine)": called(("redbeard_train/rollout.py", "_apply"), ("redbeard_env", "step")),
        "bots asked by the rollout (prior, opponents)": called(("redbeard_train/rollout.py", "_step"), ("agents", ""))
        - called(("redbeard_train/rollout.py", "_step"), ("agents/ppo.py", "")),
        # a network teacher's act_batch runs under torch.no_grad's decorator, its caller then
        "teacher labels": called(("redbeard_train/rollout.py", "_recipe_data"), ("agents", "act_batch"))
        + called(("redbeard_train/rollout.py", "_recipe_data"), ("torch/utils/_contextlib.py", "decorate_context")),
        "privileged view (every hand)": called(("redbeard_train/rollout.py", "_recipe_data"), ("", "held_cards"))
        + called(("redbeard_train/rollout.py", "_recipe_data"), ("agents/ppo.py", "privileged_view")),
        "policy features (rollout)": called(("redbeard_train/rollout.py", "_step"), ("agents/ppo.py", "features")),
        "network passes (rollout)": called(("redbeard_train/rollout.py", "_step"), ("agents/ppo.py", "act")),
        "advantages (GAE)": own("redbeard_train/buffer.py", "finalize"),
    }
    backward = called(("redbeard_train/loop.py", "ppo_update"), ("torch/_tensor.py", "backward")) + \
        called(("redbeard_train/loop.py", "ppo_update"), ("torch/optim", ""))
    update = own("redbeard_train/loop.py", "ppo_update")
    parts = {**rollout_calls, "PPO update: forward and losses": update - backward,
             "PPO update: backward and optimizer": backward}
    print(f"\nwhere the training work went ({work:.1f} thread-seconds, profiled):")
    for name, seconds in parts.items():
        print(f"  {name:46s}{seconds:8.1f} s  {100 * seconds / work:5.1f} %")
    rest = work - sum(parts.values())
    print(f"  {'everything else (buffers, pool, python)':46s}{rest:8.1f} s  {100 * rest / work:5.1f} %")


if __name__ == "__main__":
    main()
