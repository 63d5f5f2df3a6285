"""Sortskæg throughput: decisions per second of the batch engine
(``redbeard_env.sortskaeg.vector``) beside the yardsticks, all measured in the same run.

Run it with::

    python benchmarks/sortskaeg_throughput.py                   # about a minute
    python benchmarks/sortskaeg_throughput.py --seconds 3 --num-envs 4096

Rows (agent-steps per second, single thread, random legal play):

* ``sortskaeg batch B=...``: the batch engine, one ``step`` of B random legal actions
  (``random_legal_actions``; the obs/mask it returns included), after a warm-up that
  puts the games in different rounds and phases;
* ``sortskaeg aec``: the AEC env's ``agent_iter`` loop (``env.last()``, a random legal
  action, ``env.step()``);
* ``openspiel oh_hell``: OpenSpiel's ``oh_hell`` (4 players, 6 tricks) in its natural
  Python loop with the information-state tensor at every decision -- the outside
  yardstick, at its best (``benchmarks/throughput.py``'s ``bench_openspiel``; skipped if
  ``open_spiel`` is not installed);
* ``redbeard batch B=...``: Rödskägg's batch engine (``throughput.py``'s ``bench_batch``),
  the standard inside the project.

Time is this process's CPU time, pinned to one core, in windows of ``--window`` seconds:
each row reports its best window and the mean (as ``throughput.py``: other jobs on a
shared machine only ever slow a window down). Then the thread check: the engine's
compiled step releases the GIL, so ``--threads`` threads, each stepping its own engine,
should add up; it reports their total steps/s (wall time, all cores the process may
use) against one thread's, and how many cores they kept busy together (their CPU time
over the wall time; other jobs on the machine take their share of the cores), beside
the same check of Rödskägg's engine and of a plain compiled loop without the GIL (what
the machine gives two threads at the time). The script prints numbers and ratios; it asserts nothing.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from throughput import Windows, bench_batch, bench_openspiel, pin_to_one_core  # noqa: E402


def bench_sortskaeg_aec(players: int, deal: str, seconds: float, window: float) -> tuple[float, float]:
    from redbeard_env import sortskaeg

    env = sortskaeg.env(num_players=players, deal=deal)
    rng = np.random.default_rng(0)
    win = Windows(seconds, window)
    seed, going = 0, True
    while going:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[rng.integers(len(legal))]))
            going = win.add(1)
            if not going:
                break
    return win.result()


def sortskaeg_engine(B: int, players: int, deal: str, seed: int = 0):
    """A batch engine after a warm-up (the games in different rounds and phases) and a
    function that steps it once with random legal actions."""
    from redbeard_env.sortskaeg.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(B, players, deal=deal, seed=seed)
    rng = np.random.default_rng(seed)
    state = dict(zip(("obs", "mask"), venv.reset()))

    def step() -> None:  # the caller holds the last observation meanwhile, as a training loop does
        state["obs"], state["mask"], *_ = venv.step(random_legal_actions(state["mask"], rng))

    for _ in range(120):
        step()
    return venv, step


def bench_sortskaeg(B: int, players: int, deal: str, seconds: float, window: float) -> tuple[float, float]:
    _, step = sortskaeg_engine(B, players, deal)
    win = Windows(seconds, window)
    going = True
    while going:
        step()
        going = win.add(B)
    return win.result()


def redbeard_stepper(B: int, players: int, seed: int):
    """Rödskägg's batch engine stepped like :func:`sortskaeg_engine`'s (for the thread check)."""
    from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions

    venv = VectorEnv(num_envs=B, num_players=players, rules="classic", seed=seed)
    rng = np.random.default_rng(seed)
    state = dict(zip(("obs", "mask"), venv.reset()))

    def step() -> None:
        state["obs"], state["mask"], *_ = venv.step(random_legal_actions(state["mask"], rng))

    for _ in range(120):
        step()
    return step


def spin_stepper():
    """The reference for the thread check: a compiled arithmetic loop without the GIL
    (what the machine gives two threads, whatever the engine does)."""
    from numba import njit

    @njit(nogil=True)
    def spin(n):
        s = 0.0
        for i in range(n):
            s += (i % 7) * 0.5
        return s

    spin(10)
    return lambda: spin(200_000)


def thread_scaling(make_step, count: int, seconds: float, threads: int) -> dict:
    """One thread, then ``threads`` threads, each running its own ``make_step(seed)()`` (which
    does ``count`` steps) for ``seconds``: total steps/s (wall time), and how many cores
    the threads kept busy together (their CPU seconds over the wall seconds: at most 1 if
    the GIL were held throughout)."""
    steppers = [make_step(k) for k in range(threads)]

    def run(step, out: list, k: int) -> None:
        done, start, cpu = 0, time.perf_counter(), time.thread_time()
        while time.perf_counter() - start < seconds:
            step()
            done += count
        out[k] = (done, time.perf_counter() - start, time.thread_time() - cpu)

    res: list = [None] * threads
    run(steppers[0], res, 0)
    one, one_busy = res[0][0] / res[0][1], res[0][2] / res[0][1]
    workers = [threading.Thread(target=run, args=(steppers[k], res, k)) for k in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - start
    return {"one": one, "many": sum(r[0] for r in res) / wall, "one_busy": one_busy,
            "busy": sum(r[2] for r in res) / wall}


def print_scaling(name: str, res: dict, threads: int, unit: str) -> None:
    print(f"  {name:<34} 1 thread {res['one']:>12,.0f} {unit} ({res['one_busy']:.2f} cores busy), {threads} threads "
          f"{res['many']:>12,.0f} ({res['busy']:.2f} cores busy): {res['many'] / res['one']:.2f}x")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=6.0, help="timed seconds per row (default 6)")
    p.add_argument("--window", type=float, default=0.5, help="length of a timing window")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--deal", default="fresh", choices=("fresh", "carry"))
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--threads", type=int, default=2, help="threads for the GIL check (0: skip it)")
    p.add_argument("--no-aec", action="store_true", help="skip the AEC row")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore", UserWarning)
    B = args.num_envs
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    scaling = None
    if args.threads > 1:  # before pinning: the threads need a core each
        scaling = (thread_scaling(lambda k: sortskaeg_engine(B, args.players, args.deal, seed=k)[1], B,
                                  args.seconds / 2, args.threads),
                   thread_scaling(lambda k: redbeard_stepper(B, args.players, k), B, args.seconds / 2, args.threads),
                   thread_scaling(lambda k: spin_stepper(), 1, args.seconds / 2, args.threads))
    pinned = pin_to_one_core()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {pinned}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {len(cpus)} cpus; Sortskæg {args.players} players, "
          f"deal {args.deal}; {args.seconds:g} s per row", flush=True)
    rows: dict[str, tuple[float, float] | None] = {}
    rows[f"sortskaeg batch B={B}"] = bench_sortskaeg(B, args.players, args.deal, args.seconds, args.window)
    if not args.no_aec:
        rows["sortskaeg aec"] = bench_sortskaeg_aec(args.players, args.deal, args.seconds, args.window)
    rows["openspiel oh_hell(4p, 6 tricks)"] = bench_openspiel(args.seconds, args.window)
    rows[f"redbeard batch B={B} (classic)"] = bench_batch(B, args.players, "classic", args.seconds, args.window)
    ours = rows[f"sortskaeg batch B={B}"][0]
    print()
    print("agent-steps/s (CPU time, one core): best window and mean over all windows; ratio of the bests")
    print(f"{'engine':<36}{'best':>12}{'mean':>12}{'sortskaeg x':>13}")
    for name, res in rows.items():
        if res is None:
            print(f"{name:<36}{'n/a (pip install open_spiel)':>37}")
            continue
        print(f"{name:<36}{res[0]:>12,.0f}{res[1]:>12,.0f}{ours / res[0]:>13.2f}")
    print()
    spiel, red = rows["openspiel oh_hell(4p, 6 tricks)"], rows[f"redbeard batch B={B} (classic)"]
    line = f"targets at B={B}: "
    if spiel:
        line += f"{ours / spiel[0]:.2f}x OpenSpiel's oh_hell (>= 5), "
    print(line + f"{ours / red[0]:.2f}x Rödskägg's batch engine (>= 0.5)")
    if scaling:
        print(f"threads (wall time; {len(cpus)} cpus, other jobs take their share):")
        print_scaling(f"sortskaeg batch B={B}, own engine each", scaling[0], args.threads, "steps/s")
        print_scaling(f"redbeard batch B={B}, own engine each", scaling[1], args.threads, "steps/s")
        print_scaling("reference: compiled loop, no GIL", scaling[2], args.threads, "calls/s")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
