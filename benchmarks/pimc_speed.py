"""Cost of ``pimc`` per searched decision on a fixed set of recorded positions.

    python benchmarks/pimc_speed.py                              # this checkout, ~2 minutes
    python benchmarks/pimc_speed.py --baseline /path/to/other/checkout --reps 3
    python benchmarks/pimc_speed.py --game sortskaeg --baseline /path/to/other/checkout

Positions: decisions of heuristic self-play on the game's batch engine (``--game``: the
first registered game by default, its default rules unless ``--rules``; ``--seed`` fixes the
games) that the game's ``pimc`` searches (``pimc.searches``: its searched phases, more than
one legal action); they are recorded once, saved to a temporary file and given to every
measurement, so all of them search the same positions.

Two measurements per checkout, each in a fresh subprocess run from that checkout's root
(so it imports that checkout's ``agents``), pinned to one core, timed in CPU time:

* ``wave``: ``act_batch`` on ``--wave`` positions at a time, as a tournament asks it (the
  README's 4-player tournament searches about 125 decisions per call);
* ``single``: ``act_batch`` on one position at a time (``--singles`` of them).

Reported per checkout: milliseconds per searched decision (CPU time / the agent's
``decisions`` counter; the best rep and the mean), and, as the yardstick measured in the
same subprocess, the game's heuristic's ms per decision on the same positions. With
``--baseline`` the checkouts alternate rep by rep and the table ends with the ratio
this/baseline. The actions of the two checkouts on the wave positions are compared too
(the share of positions where they chose the same action).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def record_positions(game: str, count: int, players: int, rules: str | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (obs, mask) pairs of decisions ``pimc`` searches, from heuristic self-play."""
    from agents import make_agent
    from redbeard_env.registry import game_named

    bot, search = make_agent("heuristic", game=game), make_agent("pimc", game=game)
    G = game_named(game)
    venv = G.vector_env(num_envs=32, num_players=players, rules=rules or G.default_rules, seed=seed)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(seed)
    keep_obs, keep_mask = [], []
    while sum(len(o) for o in keep_obs) < count:
        take = search.searches(obs, mask) & (rng.random(32) < 0.2)
        keep_obs.append(obs[take])
        keep_mask.append(mask[take])
        obs, mask, seat, *_ = venv.step(bot.act_batch(obs, mask))
    return np.concatenate(keep_obs)[:count], np.concatenate(keep_mask)[:count]


CHILD = r"""
import json, os, sys, time
import numpy as np
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}) if hasattr(os, "sched_setaffinity") else None
sys.path.insert(0, os.getcwd())
from agents import make_agent
data = np.load(sys.argv[1])
spec, wave, singles, game = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
obs, mask = data["obs"], data["mask"]
clock = time.process_time
heur = make_agent("heuristic", game=game)
heur.act_batch(obs[:4], mask[:4])  # imports and loading its compiled kernels
t = clock()
heur.act_batch(obs, mask)
heur_ms = 1000 * (clock() - t) / len(obs)
bot = make_agent(spec, game=game, seed=0)
bot.act_batch(obs[:4], mask[:4])  # imports and first-call set-up
bot.decisions = 0
actions = []
t = clock()
for lo in range(0, len(obs), wave):
    actions.append(np.asarray(bot.act_batch(obs[lo:lo + wave], mask[lo:lo + wave])))
wave_ms = 1000 * (clock() - t) / max(bot.decisions, 1)
bot.decisions = 0
t = clock()
for i in range(singles):
    bot.act_batch(obs[i:i + 1], mask[i:i + 1])
single_ms = 1000 * (clock() - t) / max(bot.decisions, 1)
print(json.dumps({"wave_ms": wave_ms, "single_ms": single_ms, "heuristic_ms": heur_ms,
                  "actions": np.concatenate(actions).tolist()}))
"""


def measure(tree: Path, data: str, spec: str, wave: int, singles: int, game: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, data, spec, str(wave), str(singles), game],
        cwd=tree, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)},
    )
    if out.returncode:
        raise RuntimeError(f"measurement in {tree} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="pimc's CPU ms per searched decision on recorded positions.")
    parser.add_argument("--spec", default="pimc")
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--wave", type=int, default=125, help="positions per act_batch call")
    parser.add_argument("--singles", type=int, default=40, help="positions searched one at a time")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--game", default=None, help="a registered game (default: the first)")
    parser.add_argument("--rules", default=None, help="a preset of the game (default: the game's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--baseline", default=None, help="another checkout to time, alternating with this one")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from redbeard_env.registry import as_game, game_named

    game = as_game(args.game).name
    rules = args.rules or game_named(game).default_rules
    obs, mask = record_positions(game, args.positions, args.players, rules, args.seed)
    trees = {"this": ROOT}
    if args.baseline:
        trees["baseline"] = Path(args.baseline).resolve()
    print(f"{args.spec}: {len(obs)} positions ({game}, {rules}, {args.players} players, seed {args.seed}); "
          f"waves of {args.wave}, {args.singles} singles; trees: "
          + ", ".join(f"{k}={v}" for k, v in trees.items()), flush=True)
    results: dict[str, list[dict]] = {k: [] for k in trees}
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "positions.npz")
        np.savez(data, obs=obs, mask=mask)
        for rep in range(args.reps):
            for name, tree in trees.items():
                r = measure(tree, data, args.spec, args.wave, args.singles, game)
                results[name].append(r)
                print(f"  rep {rep} {name:<9} wave {r['wave_ms']:7.2f} ms  single {r['single_ms']:7.2f} ms  "
                      f"heuristic {r['heuristic_ms']:.4f} ms", flush=True)
    print()
    print("CPU ms per searched decision (best rep / mean); x heur = wave ms / heuristic ms per decision")
    print(f"{'tree':<10}{'wave best':>11}{'wave mean':>11}{'single best':>13}{'single mean':>13}{'x heur':>9}")
    summary = {}
    for name, rs in results.items():
        w = [r["wave_ms"] for r in rs]
        s = [r["single_ms"] for r in rs]
        h = min(r["heuristic_ms"] for r in rs)
        summary[name] = (min(w), min(s))
        print(f"{name:<10}{min(w):>11.2f}{np.mean(w):>11.2f}{min(s):>13.2f}{np.mean(s):>13.2f}{min(w) / h:>9.0f}")
    if args.baseline:
        (tw, ts), (bw, bs) = summary["this"], summary["baseline"]
        same = np.mean(np.array(results["this"][0]["actions"]) == np.array(results["baseline"][0]["actions"]))
        print(f"this / baseline: wave {tw / bw:.2f}, single {ts / bs:.2f}; same action on {same:.1%} of positions")


if __name__ == "__main__":
    main()
