"""First-use compile time of the numba kernels (batch engine, heuristic, pimc's playouts) and their load
time from numba's on-disk cache, each in a fresh process with an empty cache directory.

    python benchmarks/compile_time.py

Prints CPU and wall seconds of: importing and first using the batch engine (reset, step,
observe, random_legal_actions), then the heuristic (action_values), then pimc's compiled
playouts (one search), with an empty cache; then the same in a new process that finds the
cache. Nothing is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("REDBEARD_ROOT") or Path(__file__).resolve().parent.parent)

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
out = {}
c, w = time.process_time(), time.perf_counter()
import numpy as np
from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions
venv = VectorEnv(16, 4, "classic", seed=0)
obs, mask, seat = venv.reset()
obs, mask, *_ = venv.step(random_legal_actions(mask, np.random.default_rng(0)))
venv.observe(0)
out["engine"] = (time.process_time() - c, time.perf_counter() - w)
c, w = time.process_time(), time.perf_counter()
from agents.redbeard.heuristic import HeuristicAgent
HeuristicAgent().act_batch(obs, mask)
out["heuristic"] = (time.process_time() - c, time.perf_counter() - w)
c, w = time.process_time(), time.perf_counter()
from agents.redbeard.pimc import PimcAgent
bot, rng = PimcAgent(samples=2), np.random.default_rng(0)
while bot.decisions == 0:  # until a searched decision (auction or card play) came up
    obs, mask, *_ = venv.step(random_legal_actions(mask, rng))
    bot.act_batch(obs, mask)
out["pimc playouts"] = (time.process_time() - c, time.perf_counter() - w)
print(json.dumps(out))
"""


def run(cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    res = subprocess.run([sys.executable, "-c", CHILD, str(ROOT)], env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        first = run(cache)
        cached = run(cache)
    print(f"source {ROOT}")
    print(f"{'':40s}{'CPU s':>8s}{'wall s':>8s}")
    for label, res in (("first use (empty cache)", first), ("next process (cached)", cached)):
        for part in ("engine", "heuristic", "pimc playouts"):
            cpu, wall = res[part]
            print(f"{label + ', ' + part:40s}{cpu:8.1f}{wall:8.1f}")


if __name__ == "__main__":
    main()
