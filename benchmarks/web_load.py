"""Load test of the web app: many games at once over HTTP on the loopback interface.

Run it with::

    .venv/bin/python benchmarks/web_load.py --games 50 --seconds 20

It starts ``redbeard-web`` (``python -m redbeard_web --port 0 --games-per-minute 0``: every
simulated player has the same address) as a child process on 127.0.0.1, waits until it says
its bots are loaded (``GET /api/ready``), then ``--games`` simulated players play
concurrently through the JSON API (asyncio + httpx2): each creates a game (4 players, the
other three ``heuristic`` bots), posts uniformly random legal actions until the game ends,
and starts the next game. A
request is one POST (a new game, or an action and the bots' answers up to the player's
next turn). After ``--warmup`` seconds it measures for ``--seconds``: requests per
second and the latency percentiles (p50, p95, p99, max) as the players see them.

Yardstick, measured in the same run before the server starts: the same workload without
HTTP -- one thread calling the game store directly (``GameStore.create`` / ``act``) --
so the ratio shows what the server, JSON and concurrency cost on top of the game and the
bots. The script prints numbers; it asserts nothing about speed. The child server is
stopped at the end (and on any error).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx

BODY = {"players": 4, "opponents": "heuristic"}


def percentiles(latencies: list[float]) -> dict:
    a = np.asarray(latencies) * 1000.0
    if not len(a):
        return {"p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95)),
            "p99_ms": float(np.percentile(a, 99)), "max_ms": float(a.max())}


def direct_yardstick(seconds: float, seed: int) -> dict:
    """The same requests as calls on the store in one thread (no HTTP, no concurrency)."""
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore

    store = GameStore(BotPool(), max_games=100_000)
    rng = np.random.default_rng(seed)
    requests = moves = games = 0
    latencies = []
    store.create(dict(BODY, seed=seed))  # builds the bot before timing
    start = time.perf_counter()
    deadline = start + seconds
    view = None
    while time.perf_counter() < deadline:
        t = time.perf_counter()
        if view is None or view["finished"]:
            if view is not None:
                games += 1
            view = store.create(dict(BODY, seed=int(rng.integers(2**31))))
        else:
            view = store.act(view["id"], str(rng.choice(view["legal"])))
        latencies.append(time.perf_counter() - t)
        requests += 1
        moves += len(view["events"])
    elapsed = time.perf_counter() - start
    return {"requests": requests, "games_finished": games, "seconds": elapsed,
            "requests_per_s": requests / elapsed, "moves_per_s": moves / elapsed, **percentiles(latencies)}


def start_server() -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # every simulated player is 127.0.0.1: no per-address rate of new games (the budgets are otherwise the defaults)
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0", "--max-games", "5000",
                             "--games-per-minute", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "localhost:" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line}{proc.stderr.read()}")
    port = int(line.split("localhost:")[1].split("/")[0])
    url = f"http://127.0.0.1:{port}"
    wait_until_ready(url)
    return proc, url


def wait_until_ready(url: str, limit: float = 600.0) -> None:
    """Wait while the server loads and compiles its bots (``GET /api/ready``; a server
    without that route is ready at once), so the load test measures a warm server."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        try:
            response = httpx.get(f"{url}/api/ready", timeout=10)
        except httpx.TransportError:  # bound but not listening yet
            time.sleep(0.2)
            continue
        if response.status_code != 200 or response.json().get("ready", True):
            return
        time.sleep(0.5)
    raise RuntimeError(f"the server was not ready after {limit:.0f} s")


async def player(client, index: int, seed: int, stop_at: float, measure_from: float, stats: dict) -> None:
    rng = np.random.default_rng([seed, index])
    view = None
    while True:
        now = time.perf_counter()
        if now >= stop_at:
            return
        if view is None or view["finished"]:
            if view is not None and now >= measure_from:
                stats["games"] += 1
            request = client.post("/api/games", json=dict(BODY, seed=int(rng.integers(2**31))))
        else:
            request = client.post(f"/api/games/{view['id']}/actions", json={"action": str(rng.choice(view["legal"]))})
        t = time.perf_counter()
        response = await request
        done = time.perf_counter()
        if response.status_code != 200:
            stats["errors"].append(f"{response.status_code}: {response.text[:200]}")
            view = None
            continue
        view = response.json()
        if t >= measure_from and done <= stop_at:
            stats["latencies"].append(done - t)
            stats["moves"] += len(view["events"])


async def http_load(url: str, games: int, warmup: float, seconds: float, seed: int) -> dict:
    stats = {"latencies": [], "moves": 0, "games": 0, "errors": []}
    limits = httpx.Limits(max_connections=games, max_keepalive_connections=games)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        start = time.perf_counter()
        measure_from = start + warmup
        stop_at = measure_from + seconds
        await asyncio.gather(*(player(client, i, seed, stop_at, measure_from, stats) for i in range(games)))
    requests = len(stats["latencies"])
    return {"concurrent_games": games, "requests": requests, "games_finished": stats["games"], "seconds": seconds,
            "requests_per_s": requests / seconds, "moves_per_s": stats["moves"] / seconds,
            "errors": len(stats["errors"]), "first_errors": stats["errors"][:3], **percentiles(stats["latencies"])}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=50, help="concurrent games (players), default 50")
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds, default 20")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring, default 3")
    p.add_argument("--yardstick-seconds", type=float, default=10.0, help="seconds of the direct yardstick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the results as JSON here")
    args = p.parse_args(argv)
    if args.games < 1 or args.seconds <= 0:
        p.error("--games must be >= 1 and --seconds > 0")
    print(f"web load test: {args.games} concurrent games of 3 heuristic bots + 1 random player, "
          f"{args.seconds:.0f} s measured after {args.warmup:.0f} s warm-up; "
          f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs")
    direct = direct_yardstick(args.yardstick_seconds, args.seed)
    print(f"direct (no HTTP, 1 thread): {direct['requests_per_s']:8.1f} requests/s  "
          f"p50 {direct['p50_ms']:.1f} ms  p95 {direct['p95_ms']:.1f} ms  ({direct['moves_per_s']:.0f} moves/s)")
    proc, url = start_server()
    try:
        http = asyncio.run(http_load(url, args.games, args.warmup, args.seconds, args.seed))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"HTTP, {args.games} games at once: {http['requests_per_s']:8.1f} requests/s  "
          f"p50 {http['p50_ms']:.1f} ms  p95 {http['p95_ms']:.1f} ms  p99 {http['p99_ms']:.1f} ms  "
          f"max {http['max_ms']:.1f} ms  ({http['moves_per_s']:.0f} moves/s, {http['games_finished']} games finished, "
          f"{http['errors']} errors)")
    ratio = http["requests_per_s"] / direct["requests_per_s"]
    print(f"ratio HTTP / direct requests/s: {ratio:.2f}")
    result = {"args": vars(args), "direct": direct, "http": http, "ratio": ratio, "cpus": os.cpu_count()}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
