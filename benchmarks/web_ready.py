"""How long the web table takes to be ready, and how fast a new game's first moves come then.

Run it with::

    .venv/bin/python benchmarks/web_ready.py --repeat 3

It starts ``redbeard-web`` (``python -m redbeard_web --port 0``) as a child process on
127.0.0.1 and measures, as a player's browser would see it:

* **ready**: from starting the process to ``GET /api/ready`` saying ``ready`` (the server
  loads and compiles every level's bot and the hint and review bots meanwhile);
* **first moves**: for every registered game and each of its levels, the time of
  ``POST /api/games`` with the human in the last seat, so that the answer holds the bots'
  moves up to the human's first decision (``--repeat`` games each; the median and the
  slowest are printed).

Yardstick, measured in the same run: ``GET /api/options`` (a request without bots' work), so
the first moves' times can be read against what any request costs. The script prints
numbers; it asserts nothing about speed. The child server is stopped at the end (and on any
error).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from redbeard_env.registry import registered_games  # noqa: E402
from redbeard_web.levels import levels_of  # noqa: E402


def request(url: str, body: dict | None = None) -> tuple[dict, float]:
    """The JSON answer and the seconds it took (a POST when ``body`` is given)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET",
                                 headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as r:
        out = json.loads(r.read())
    return out, time.perf_counter() - t


def start_server() -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "localhost:" not in line:
        proc.kill()
        raise SystemExit(f"web_ready: the server did not start: {line!r}")
    return proc, "http://127.0.0.1:" + line.split("localhost:")[1].split("/")[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="games per level (default 3)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    print(f"web ready: CPython {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    t0 = time.perf_counter()
    proc, url = start_server()
    try:
        while True:
            try:
                status, _ = request(url + "/api/ready")
                if status["ready"]:
                    break
            except OSError:
                pass  # bound but not listening yet
            time.sleep(0.1)
        print(f"ready after {time.perf_counter() - t0:.1f} s ({len(status['loaded'])} bots loaded, "
              f"state {status['state']}, the server's own count {status['seconds']} s)")
        yard = sorted(request(url + "/api/options")[1] for _ in range(5))
        print(f"yardstick GET /api/options: median {1000 * statistics.median(yard):.0f} ms")
        print(f"{'game':<10} {'level':<9} {'bot':<18} {'median':>8} {'slowest':>8}")
        for game in registered_games():
            for lv in levels_of(game)["levels"]:
                times = []
                for seed in range(args.repeat):
                    view, seconds = request(url + "/api/games", {"game": game, "opponents": lv["bot"], "seat": 3,
                                                                 "seed": seed})
                    times.append(seconds)
                print(f"{game:<10} {lv['name']:<9} {lv['bot']:<18} {1000 * statistics.median(times):6.0f} ms "
                      f"{1000 * max(times):6.0f} ms", flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
