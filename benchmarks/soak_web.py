"""Soak test of the web table: many kinds of clients for a long time against one server.

Run it with::

    .venv/bin/python benchmarks/soak_web.py --minutes 30 --out runs/soak_web

It starts ``redbeard-web`` (``python -m redbeard_web --port 0``) as a child process on
127.0.0.1 with its default budgets (except ``--games-per-minute``, since every client here
shares one address), then runs for ``--minutes``:

* ``--players`` players: each creates a game (a random registered game, 3-5 players,
  heuristic or random bots), plays random legal moves with a short think time, now and
  then looks at the view or asks for a heuristic hint, and at the end fetches the record,
  opens it as a replay and steps through it; then starts the next game;
* ``--spammers`` hint spammers: hints as fast as answered, with varied specs (searches up
  to the budget and beyond, policies with new seeds, bad specs);
* ``--slow`` slow clients: connections that send their request head a byte now and then,
  that send a body too slowly, or that never read their answer;
* ``--uploaders`` uploaders: records of finished games as replays (also with a big
  ``meta``, too large, or broken), then frames of them.

Every ``--sample-seconds`` it samples the server's resident memory (``VmRSS``). The store
fills for the first 15 minutes (finished games and replays expire 15 minutes after they
were last looked at), so the curve should be flat after ``--warmup`` (16 minutes). At the end
it prints the RSS curve (and writes it to ``<out>/rss.csv`` and ``<out>/rss.png``), the
latency percentiles of the players' requests, and the answers counted by client and
class (``<out>/soak.json``). The players' requests and the valid uploads are well formed:
any answer other than 200 to them is an error. The script prints numbers; it asserts
nothing about speed. The child server is stopped at the end (and on any error).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx

from redbeard_env.registry import game_named, registered_games  # noqa: E402

GAMES = tuple(registered_games())


def short_overrides(game: str, rng: random.Random) -> dict:
    """A shorter game where the game's Rules have a start score (a race to a score)."""
    fields = game_named(game).make_rules().__dataclass_fields__
    return {"start_score": rng.randint(3, 8)} if "start_score" in fields else {}


class Stats:
    def __init__(self):
        self.latencies: list[float] = []  # players' requests, seconds
        self.counts: Counter = Counter()  # (client kind, class) -> answers
        self.errors: list[str] = []  # the first errors of well-formed requests
        self.records: list[dict] = []  # finished games' records, for the uploaders
        self.games = 0

    def count(self, kind: str, what: str) -> None:
        self.counts[f"{kind}:{what}"] += 1

    def error(self, kind: str, text: str) -> None:
        self.count(kind, "ERROR")
        if len(self.errors) < 20:
            self.errors.append(f"{kind}: {text[:300]}")


def status_class(code: int) -> str:
    return str(code) if code in (200, 400, 404, 408, 409, 413, 429, 503) else f"{code // 100}xx"


# ---------------------------------------------------------------- the server
def start_server(games_per_minute: float, log_path: Path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0", "--games-per-minute",
                             str(games_per_minute)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    if "localhost:" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line} (see {log_path})")
    return proc, int(line.split("localhost:")[1].split("/")[0])


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def sample_rss(pid: int, every: float, stop: float, start: float, curve: list) -> None:
    while time.monotonic() < stop:
        curve.append((time.monotonic() - start, rss_mb(pid)))
        await asyncio.sleep(every)
    curve.append((time.monotonic() - start, rss_mb(pid)))


# ---------------------------------------------------------------- players
async def timed(client, stats: Stats, method: str, url: str, **kwargs):
    t = time.perf_counter()
    try:
        r = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        stats.error("player", f"{method} {url}: {type(exc).__name__}")
        return None
    stats.latencies.append(time.perf_counter() - t)
    stats.count("player", status_class(r.status_code))
    if r.status_code != 200:
        stats.error("player", f"{method} {url}: {r.status_code} {r.text[:200]}")
        return None
    return r.json()


async def player(client, index: int, stop: float, stats: Stats, think: float) -> None:
    rng = random.Random(index)
    while time.monotonic() < stop:
        game = rng.choice(GAMES)
        body = {"game": game, "players": rng.randint(3, 5), "seed": rng.randrange(2**31),
                "opponents": rng.choice(["heuristic", "random"])}
        body["overrides"] = short_overrides(game, rng)
        view = await timed(client, stats, "POST", "/api/games", json=body)
        while view is not None and not view["finished"] and time.monotonic() < stop:
            await asyncio.sleep(rng.uniform(0, 2 * think))
            roll = rng.random()
            if roll < 0.05:
                await timed(client, stats, "GET", f"/api/games/{view['id']}")
            elif roll < 0.10:
                await timed(client, stats, "GET", f"/api/games/{view['id']}/hint", params={"bot": "heuristic"})
            view = await timed(client, stats, "POST", f"/api/games/{view['id']}/actions",
                               json={"action": rng.choice(view["legal"])})
        if view is None or not view["finished"]:
            continue
        stats.games += 1
        record = await timed(client, stats, "GET", f"/api/games/{view['id']}/record")
        if record is None:
            continue
        if len(stats.records) < 50:
            stats.records.append(record)
        frame = await timed(client, stats, "POST", "/api/replays", json={"record": record})
        for step in sorted(rng.sample(range(frame["steps"] + 1), min(3, frame["steps"] + 1))) if frame else []:
            await timed(client, stats, "GET", f"/api/replays/{frame['id']}", params={"step": step})


# ---------------------------------------------------------------- the others
HINT_SPECS = [
    lambda r: f"pimc:samples={r.choice([16, 64, 256, 1024])},seed={r.randrange(10**6)}",
    lambda r: f"pimc:samples={r.choice([5000, 100000, 1000000])}",  # beyond the budget: 400
    lambda r: f"ppo:classic_4p,seed={r.randrange(10**6)}",
    lambda r: f"random:seed={r.randrange(10**6)}",
    lambda r: f"heuristic:win_value={r.randint(1, 20)}",
    lambda r: r.choice(["ppo:secretfile", "ppo:/etc/passwd", 'heuristic:rules={"a":1}', "x" * 300, "PPO:classic_4p"]),
]


async def spammer(client, index: int, stop: float, stats: Stats) -> None:
    rng = random.Random(1000 + index)
    view = None
    while time.monotonic() < stop:
        if view is None or view.get("finished") or not view.get("legal"):
            try:
                r = await client.post("/api/games", json={"seed": rng.randrange(2**31)})
                view = r.json() if r.status_code == 200 else None
                stats.count("spammer-new-game", status_class(r.status_code))
            except httpx.HTTPError as exc:
                stats.count("spammer", type(exc).__name__)
                await asyncio.sleep(1)
            continue
        spec = rng.choice(HINT_SPECS)(rng)
        try:
            r = await client.get(f"/api/games/{view['id']}/hint", params={"bot": spec})
            stats.count("spammer-hint", status_class(r.status_code))
            if rng.random() < 0.1 and view["legal"]:
                r = await client.post(f"/api/games/{view['id']}/actions", json={"action": rng.choice(view["legal"])})
                view = r.json() if r.status_code == 200 else None
            if r.status_code == 429:
                await asyncio.sleep(0.2)
        except httpx.HTTPError as exc:
            stats.count("spammer", type(exc).__name__)


async def slow_client(port: int, index: int, stop: float, stats: Stats) -> None:
    rng = random.Random(2000 + index)
    while time.monotonic() < stop:
        kind = ("slow-head", "slow-body", "no-read")[index % 3]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError as exc:
            stats.count("slow", f"connect-{type(exc).__name__}")
            await asyncio.sleep(1)
            continue
        opened = time.monotonic()
        try:
            if kind == "slow-head":
                writer.write(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                while time.monotonic() < stop:
                    writer.write(b"X-Slow: 1\r\n")
                    await writer.drain()
                    await asyncio.sleep(rng.uniform(0.5, 2.0))
            elif kind == "slow-body":
                writer.write(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 1000\r\n\r\n{")
                while time.monotonic() < stop:
                    await writer.drain()
                    writer.write(b" ")
                    await asyncio.sleep(rng.uniform(0.5, 2.0))
                    if reader.at_eof():
                        break
            else:  # asks for options again and again and never reads an answer
                while time.monotonic() < stop:
                    writer.write(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    await writer.drain()
                    await asyncio.sleep(rng.uniform(0.1, 1.0))
            stats.count("slow", f"{kind}-still-open-at-end")
        except (ConnectionError, OSError):
            stats.count("slow", f"{kind}-closed-by-server")
            stats.counts[f"slow:{kind}-seconds-open"] += int(time.monotonic() - opened)
        finally:
            writer.close()


async def uploader(client, index: int, stop: float, stats: Stats) -> None:
    rng = random.Random(3000 + index)
    while time.monotonic() < stop:
        if not stats.records:
            await asyncio.sleep(1)
            continue
        record = dict(rng.choice(stats.records))
        kind = rng.choice(["valid", "big-meta", "too-large", "broken"])
        if kind == "big-meta":
            record["meta"] = {"junk": [rng.random() for _ in range(100_000)]}  # ~2 MB
        elif kind == "too-large":
            record["meta"] = {"junk": "x" * (5 * 2**20)}
        elif kind == "broken":
            record["scores"] = [s + 1 for s in record["scores"]]
        try:
            r = await client.post("/api/replays", json={"record": record})
            stats.count(f"upload-{kind}", status_class(r.status_code))
            if kind in ("valid", "big-meta") and r.status_code != 200:
                stats.error(f"upload-{kind}", f"{r.status_code} {r.text[:200]}")
            if r.status_code == 200:
                frame = r.json()
                for step in (frame["steps"] // 2, frame["steps"], 0):
                    f = await client.get(f"/api/replays/{frame['id']}", params={"step": step})
                    stats.count("upload-frame", status_class(f.status_code))
        except httpx.HTTPError as exc:
            stats.count(f"upload-{kind}", type(exc).__name__)
        await asyncio.sleep(rng.uniform(0.5, 2.0))


async def soak(args, port: int, pid: int, stats: Stats, curve: list) -> None:
    start = time.monotonic()
    stop = start + args.minutes * 60
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    timeout = httpx.Timeout(60.0)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=timeout, limits=limits) as client:
        tasks = [sample_rss(pid, args.sample_seconds, stop, start, curve)]
        tasks += [player(client, i, stop, stats, args.think) for i in range(args.players)]
        tasks += [spammer(client, i, stop, stats) for i in range(args.spammers)]
        tasks += [slow_client(port, i, stop, stats) for i in range(args.slow)]
        tasks += [uploader(client, i, stop, stats) for i in range(args.uploaders)]
        tasks.append(progress(start, stop, stats, curve))
        await asyncio.gather(*tasks)


async def progress(start: float, stop: float, stats: Stats, curve: list) -> None:
    while time.monotonic() < stop:
        await asyncio.sleep(min(60.0, max(stop - time.monotonic(), 0.1)))
        rss = curve[-1][1] if curve else float("nan")
        p95 = np.percentile(np.asarray(stats.latencies[-2000:]) * 1000, 95) if stats.latencies else float("nan")
        print(f"  {(time.monotonic() - start) / 60:5.1f} min  RSS {rss:7.1f} MB  player requests {len(stats.latencies)} "
              f"(recent p95 {p95:.0f} ms)  games {stats.games}  errors {sum(v for k, v in stats.counts.items() if k.endswith('ERROR'))}",
              flush=True)


# ---------------------------------------------------------------- the report
def summarize(args, stats: Stats, curve: list, out: Path) -> dict:
    t = np.array([c[0] for c in curve])
    rss = np.array([c[1] for c in curve])
    warm = t >= args.warmup * 60
    slope = float(np.polyfit(t[warm] / 3600, rss[warm], 1)[0]) if warm.sum() > 2 else float("nan")
    lat = np.asarray(stats.latencies) * 1000
    result = {
        "args": vars(args), "cpus": os.cpu_count(), "python": platform.python_version(),
        "rss_mb": {"start": float(rss[0]), "after_warmup": float(rss[warm][0]) if warm.any() else None,
                   "end": float(rss[-1]), "max": float(rss.max()), "slope_after_warmup_mb_per_hour": slope},
        "player_latency_ms": {"requests": int(len(lat)), **({f"p{q}": float(np.percentile(lat, q)) for q in (50, 95, 99)}
                                                              if len(lat) else {}), "max": float(lat.max()) if len(lat) else None},
        "games_finished": stats.games,
        "answers": dict(sorted(stats.counts.items())),
        "errors_of_well_formed_requests": sum(v for k, v in stats.counts.items() if k.endswith("ERROR")),
        "first_errors": stats.errors,
    }
    (out / "soak.json").write_text(json.dumps(result, indent=2))
    with open(out / "rss.csv", "w") as f:
        f.write("seconds,rss_mb\n" + "".join(f"{a:.1f},{b:.1f}\n" for a, b in curve))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot(t / 60, rss)
        ax.axvline(args.warmup, color="grey", linestyle=":", label="end of warm-up")
        ax.set_xlabel("minutes")
        ax.set_ylabel("server RSS (MB)")
        ax.set_title(f"redbeard-web soak: {args.players} players, {args.spammers} hint spammers, "
                     f"{args.slow} slow clients, {args.uploaders} uploaders", fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "rss.png", dpi=100)
    except ImportError:  # pragma: no cover
        pass
    return result


def print_report(result: dict, curve: list) -> None:
    r, lat = result["rss_mb"], result["player_latency_ms"]
    print("RSS curve (minute: MB):", "  ".join(f"{t / 60:.0f}: {m:.0f}" for t, m in curve[:: max(1, len(curve) // 16)]))
    print(f"RSS: start {r['start']:.0f} MB, after warm-up {r['after_warmup']:.0f} MB, end {r['end']:.0f} MB, "
          f"max {r['max']:.0f} MB; slope after warm-up {r['slope_after_warmup_mb_per_hour']:+.1f} MB/hour")
    if lat["requests"]:
        print(f"players: {lat['requests']} requests, p50 {lat['p50']:.0f} ms, p95 {lat['p95']:.0f} ms, "
              f"p99 {lat['p99']:.0f} ms, max {lat['max']:.0f} ms; {result['games_finished']} games finished")
    print("answers by client and class:")
    for key, value in result["answers"].items():
        print(f"  {key:45s} {value}")
    print(f"errors of well-formed requests: {result['errors_of_well_formed_requests']}")
    for line in result["first_errors"]:
        print("   ", line)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=30.0, help="how long, default 30")
    p.add_argument("--warmup", type=float, default=16.0,
                   help="minutes of warm-up in the report, default 16: finished games and replays expire after "
                        "15 minutes (the server's default), so the store fills until then")
    p.add_argument("--players", type=int, default=8, help="players, default 8")
    p.add_argument("--think", type=float, default=0.3, help="players' mean think time in seconds, default 0.3")
    p.add_argument("--spammers", type=int, default=2, help="hint spammers, default 2")
    p.add_argument("--slow", type=int, default=30, help="slow clients, default 30")
    p.add_argument("--uploaders", type=int, default=2, help="record uploaders, default 2")
    p.add_argument("--sample-seconds", type=float, default=5.0, help="RSS sampling period, default 5")
    p.add_argument("--games-per-minute", type=float, default=1000.0,
                   help="the server's per-client rate (every client here is 127.0.0.1), default 1000")
    p.add_argument("--out", default="runs/soak_web", help="folder for soak.json, rss.csv, rss.png, server.log")
    args = p.parse_args(argv)
    if args.minutes <= 0 or min(args.players, args.spammers, args.slow, args.uploaders) < 0:
        p.error("--minutes must be > 0 and the client counts >= 0")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"web soak: {args.minutes:g} min, {args.players} players, {args.spammers} hint spammers, {args.slow} slow "
          f"clients, {args.uploaders} uploaders; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}", flush=True)
    proc, port = start_server(args.games_per_minute, out / "server.log")
    stats, curve = Stats(), []
    try:
        asyncio.run(soak(args, port, proc.pid, stats, curve))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    result = summarize(args, stats, curve, out)
    print_report(result, curve)
    print(f"written: {out / 'soak.json'}, {out / 'rss.csv'}, {out / 'rss.png'}, {out / 'server.log'}")
    return result


if __name__ == "__main__":
    main()
