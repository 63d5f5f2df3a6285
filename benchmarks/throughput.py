"""Throughput of the environments, in agent-steps per second, on one core.

    python benchmarks/throughput.py                  # about a minute
    python benchmarks/throughput.py --seconds 2 --players 4 --rules classic

A step is one decision of one player, including building its observation and legal-action
mask, with uniformly random legal actions. Rows:

* ``aec``: the PettingZoo AEC env (``redbeard_env.redbeard.env``), the usual ``agent_iter`` loop;
* ``batch B=...``: ``redbeard_env.redbeard.vector.VectorEnv`` with B games (B decisions per step,
  actions from the vectorised ``random_legal_actions``), after a warm-up long enough for
  the games to be in different phases;
* ``openspiel``: when ``open_spiel`` is importable (``pip install open_spiel``), the
  yardstick from outside, at its best: OpenSpiel's ``oh_hell(players=4,
  num_tricks_fixed=6)`` (C++ game) in its natural Python loop -- at each decision
  ``observation.set_from(state, player)`` once (``make_observation(game,
  IIGObservationType(perfect_recall=True))``, the information-state tensor) and a
  uniformly random choice from ``state.legal_actions()``; chance nodes (the deal) are
  sampled, not counted: oh_hell's chance outcomes are all equally likely (checked at the
  start), so a uniform choice from ``legal_actions()`` samples them exactly and is the
  cheapest way. A second row samples them the general way
  (``pyspiel.sample_action(state.chance_outcomes(), u)``), for reference.

Time is the CPU time of this process (``time.process_time``), which equals wall time on an
idle core; the process is pinned to one core and BLAS/OpenMP threads are off. Each row runs
for ``--seconds`` in windows of about ``--window`` seconds and reports the best window (as
``timeit`` does) and the mean over all windows: other jobs on a shared machine only ever
slow a window down. Also the peak memory of the batch engine at B=16384
(high-water RSS of a fresh subprocess, and numpy's own peak allocation by ``tracemalloc``).
Everything is measured in this one run; the table prints ratios, never asserts a time.
"""

from __future__ import annotations

import os

# one core, no threaded BLAS: set before numpy is imported
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

# the source tree measured: this checkout, or REDBEARD_ROOT (benchmarks/ab_compare.py
# points it at another tree to time before and after in one run)
ROOT = Path(os.environ.get("REDBEARD_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

clock = time.process_time


def pin_to_one_core() -> str:
    try:
        cpu = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)"


class Windows:
    """Counts steps in time windows; ``best``/``mean`` steps per second."""

    def __init__(self, seconds: float, window: float):
        self.seconds, self.window = seconds, window
        self.rates: list[float] = []
        self.total_steps, self.total_time = 0, 0.0
        self.start = self.w_start = clock()
        self.w_steps = 0

    def add(self, steps: int) -> bool:
        """Record steps; False when the time is up."""
        self.w_steps += steps
        now = clock()
        if now - self.w_start >= self.window:
            self.rates.append(self.w_steps / (now - self.w_start))
            self.total_steps += self.w_steps
            self.total_time += now - self.w_start
            self.w_start, self.w_steps = now, 0
        return now - self.start < self.seconds or not self.rates

    def result(self) -> tuple[float, float]:
        return max(self.rates), self.total_steps / self.total_time


def bench_aec(players: int, rules: str, seconds: float, window: float) -> tuple[float, float]:
    import redbeard_env

    env = redbeard_env.env(num_players=players, rules=rules)
    rng = np.random.default_rng(0)
    seed = 0
    win = Windows(seconds, window)
    going = True
    while going:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            going = win.add(1)
    return win.result()


def bench_batch(B: int, players: int, rules: str, seconds: float, window: float) -> tuple[float, float]:
    from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(num_envs=B, num_players=players, rules=rules, seed=0)
    rng = np.random.default_rng(0)
    obs, mask, seat = venv.reset()
    warm = clock()
    for i in range(400):  # desynchronise the games' phases (a round is ~35 decisions)
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
        if i >= 60 and clock() - warm > seconds:
            break
    win = Windows(seconds, window)
    going = True
    while going:
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
        going = win.add(B)
    return win.result()


def bench_heuristic(B: int, players: int, rules: str, seconds: float, window: float) -> tuple[float, float]:
    """The batch engine with the ``heuristic`` bot deciding for every seat (its
    ``act_batch`` on the observations and masks the engine returns)."""
    from agents.redbeard.heuristic import HeuristicAgent
    from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(num_envs=B, num_players=players, rules=rules, seed=0)
    bot = HeuristicAgent()
    rng = np.random.default_rng(0)
    obs, mask, seat = venv.reset()
    for i in range(60):  # desynchronise the games' phases
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
    bot.act_batch(obs, mask)  # warm-up (compilation, tables)
    win = Windows(seconds, window)
    going = True
    while going:
        obs, mask, seat, *_ = venv.step(bot.act_batch(obs, mask))
        going = win.add(B)
    return win.result()


def bench_openspiel(seconds: float, window: float, general_chance: bool = False) -> tuple[float, float] | None:
    """OpenSpiel's natural loop (see the module docstring); ``general_chance`` samples the
    deal through ``chance_outcomes()`` instead of a uniform choice."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    import random

    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 6})
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    rnd = random.Random(0).random
    if not general_chance:  # a uniform choice samples the deal exactly: check it is uniform
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    probs = [p for _, p in state.chance_outcomes()]
                    if max(probs) - min(probs) > 1e-12:
                        raise RuntimeError("oh_hell has non-uniform chance outcomes: use general_chance")
                legal = state.legal_actions()
                state.apply_action(legal[int(rnd() * len(legal))])
    sample_action = pyspiel.sample_action
    win = Windows(seconds, window)
    going = True
    while going:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                if general_chance:
                    state.apply_action(sample_action(state.chance_outcomes(), rnd())[0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rnd() * len(legal))])
                continue
            observation.set_from(state, state.current_player())  # the information-state tensor
            legal = state.legal_actions()
            state.apply_action(legal[int(rnd() * len(legal))])
            going = win.add(1)
    return win.result()


MEMORY_CHILD = r"""
import os, resource, sys, json, tracemalloc
sys.path.insert(0, os.environ["REDBEARD_ROOT"])
for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[v] = "1"
def hwm_kib():  # high-water RSS of this process image (ru_maxrss would include the parent's at fork)
    try:
        with open("/proc/self/status") as f:
            return int(next(l for l in f if l.startswith("VmHWM")).split()[1])
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
import numpy as np
from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions
base = hwm_kib()
B, players, rules = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tracemalloc.start()
venv = VectorEnv(num_envs=B, num_players=players, rules=rules, seed=0)
rng = np.random.default_rng(0)
obs, mask, seat = venv.reset()
for _ in range(60):
    obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
traced = tracemalloc.get_traced_memory()[1]
print(json.dumps({"peak_kib": hwm_kib(), "base_kib": base, "traced_peak_kib": traced // 1024}))
"""


def peak_memory(B: int, players: int, rules: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(B), str(players), rules],
        capture_output=True, text=True, check=True, env={**os.environ, "REDBEARD_ROOT": str(ROOT)},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Agent-steps/s of the AEC env, the batch engine and OpenSpiel.")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seconds", type=float, default=8.0, help="time per row")
    parser.add_argument("--window", type=float, default=0.5, help="length of a timing window")
    parser.add_argument("--sizes", default="1,64,1024,4096,16384", help="batch sizes")
    parser.add_argument("--heuristic-sizes", default="4096",
                        help="batch sizes for the heuristic-at-every-seat rows ('' for none)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", UserWarning)
    pinned = pin_to_one_core()
    print(f"Rödskägg throughput: {args.players} players, rules={args.rules}, {args.seconds:g} s per row, "
          f"numpy {np.__version__}, {pinned}, source {ROOT}", flush=True)

    rows: list[tuple[str, tuple[float, float] | None]] = []
    rows.append(("aec", bench_aec(args.players, args.rules, args.seconds, args.window)))
    print(f"  measured aec: {rows[-1][1][0]:,.0f}", flush=True)
    spiel = bench_openspiel(args.seconds, args.window)
    rows.append(("openspiel oh_hell(4p, 6 tricks) yardstick", spiel))
    print(f"  measured openspiel: {'not installed' if spiel is None else f'{spiel[0]:,.0f}'}", flush=True)
    if spiel is not None:
        general = bench_openspiel(args.seconds, args.window, general_chance=True)
        rows.append(("openspiel, deal by chance_outcomes()", general))
        print(f"  measured openspiel (chance_outcomes): {general[0]:,.0f}", flush=True)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    for B in sizes:
        rows.append((f"batch B={B}", bench_batch(B, args.players, args.rules, args.seconds, args.window)))
        print(f"  measured batch B={B}: {rows[-1][1][0]:,.0f}", flush=True)
    for B in [int(x) for x in args.heuristic_sizes.split(",") if x]:
        rows.append((f"batch B={B}, heuristic every seat", bench_heuristic(B, args.players, args.rules, args.seconds, args.window)))
        print(f"  measured batch B={B} heuristic: {rows[-1][1][0]:,.0f}", flush=True)
    mem_B = max(sizes + [16384])
    mem = peak_memory(mem_B, args.players, args.rules)

    aec = rows[0][1][0]
    spiel_best = spiel[0] if spiel else None
    print()
    print("agent-steps/s (CPU time, one core): best window and mean over all windows; ratios of the best")
    print(f"{'engine':<40}{'best':>12}{'mean':>12}{'x aec':>9}{'x openspiel':>13}")
    for name, res in rows:
        if res is None:
            print(f"{name:<40}{'n/a (pip install open_spiel)':>46}")
            continue
        best, mean = res
        vs_spiel = f"{best / spiel_best:>13.2f}" if spiel_best else f"{'-':>13}"
        print(f"{name:<40}{best:>12,.0f}{mean:>12,.0f}{best / aec:>9.1f}{vs_spiel}")
    print()
    print(f"peak memory, batch B={mem_B}: {mem['peak_kib'] / 1024:,.0f} MiB high-water RSS of the process "
          f"({(mem['peak_kib'] - mem['base_kib']) / 1024:,.0f} MiB above the process after imports; "
          f"numpy's peak allocation {mem['traced_peak_kib'] / 1024:,.0f} MiB)")
    batch = dict(rows)
    b4096 = batch.get("batch B=4096")
    if b4096:
        line = f"targets at B=4096: {b4096[0] / aec:.1f}x aec (>= 50)"
        if spiel_best:
            line += f", {b4096[0] / spiel_best:.1f}x openspiel (>= 10)"
        line += f"; memory at B={mem_B}: {mem['peak_kib'] / 1024 / 1024:.2f} GiB (<= 1)"
        print(line)
        heur = batch.get("batch B=4096, heuristic every seat")
        if heur:
            print(f"heuristic at every seat, B=4096: {heur[0] / b4096[0]:.2f}x the engine's random-action speed (>= 0.5)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "memory": mem, "args": vars(args)}, f, indent=2)


if __name__ == "__main__":
    main()
