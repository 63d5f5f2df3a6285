"""Soak test of the web table: ordinary players and the attacks of issue 59 against one server.

Run it with::

    .venv/bin/python benchmarks/soak_web.py --minutes 10 --each 30 --out runs/soak_web

It starts ``redbeard-web`` (``python -m redbeard_web --port 0``) on 127.0.0.1 with its
default budgets, waits until its bots are loaded (``/api/ready``), and then runs:

1. warm-up (``--warm-seconds``): the ordinary players alone; the server's resident memory
   (``VmRSS``) at its end is its *warm size*;
2. each attack alone with the players (``--each`` seconds each; 0 skips this): the RSS
   peak over the warm size, the players' latencies and the answers, attack by attack;
3. the soak (``--minutes``): every attack at once, with the players.

Every client has an address of its own on the loopback network (players 127.0.1.x,
attackers 127.0.2.x; Linux routes all of 127/8 to the loopback interface), so the server's
per-address budgets see them as different machines. The attackers run in a process of their
own, so that their load does not delay the players' event loop (each process's loop lag is
reported: a busy load generator adds to every latency it measures).

The ordinary players (``--players``) each play a game (a random registered game, 3-5
players, heuristic or random bots, a short race) with random legal moves and a think time
(``--think``), now and then look at the view or ask for a hint, and at the end fetch the
record, open it as a replay with its move log (as the page does) and step through it. Their
requests are well formed: any answer but 200 is an error.

The attacks (``--attacks``; all by default), each from an address of its own, with the
reproduction of issue 59 each stands for:

* ``specs``: new games and hints with bot parameters out of every range (1);
* ``freeze``: games with a bot that fails, then moves: a refused move must leave the human
  to act, never a frozen game (2);
* ``forged``: new games as fast as answered, a new ``X-Forwarded-For`` each (3);
* ``sockets``: up to 1,000 idle connections, reopened as the server closes them (4);
* ``hints``: twelve hints at once with the dearest specs, and eight games against dear
  search bots, moving as fast as answered (5);
* ``replays``: a long game's record (about 1 MB) opened as a replay again and again, and
  the replays' move logs looped (6);
* ``policies``: hints from policy bots with a new seed each (7);
* ``malformed``: malformed HTTP, and 70 KB heads in one packet or in pieces (8);
* ``slow``: slow heads, slow bodies and clients that never read what they asked for;
* ``uploads``: records as replays: valid, with a big ``meta``, too large, broken;
* ``spam``: hints with varied specs, some beyond the budget, some not specs at all.

Written to ``--out``: ``soak.json`` (everything), ``rss.csv`` and ``rss.png`` (the RSS curve,
phases marked), ``latency.csv`` (every player request: seconds, phase, route, status, ms),
``attacks.json`` (the attackers' counts), ``server.log``. The summary says, per phase: the RSS peak over the warm size, the players'
latency percentiles and errors, and every answer by client and class; 5xx answers are
listed with their reasons. The script prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
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
ATTACKS = ("specs", "freeze", "forged", "sockets", "hints", "replays", "policies", "malformed", "slow", "uploads",
           "spam")
KNOWN = (200, 400, 404, 408, 409, 413, 415, 429, 431, 500, 503)


def short_overrides(game: str, rng: random.Random) -> dict:
    """A shorter game where the game's Rules have a start score (a race to a score)."""
    fields = game_named(game).make_rules().__dataclass_fields__
    return {"start_score": rng.randint(3, 8)} if "start_score" in fields else {}


def status_class(code: int) -> str:
    return str(code) if code in KNOWN else f"{code // 100}xx"


class Stats:
    """What one process of the load generator saw; ``phase`` is the schedule's phase now."""

    def __init__(self, start: float, schedule: list):
        self.start = start
        self.schedule = schedule  # [(phase, begin, end, attacks)], seconds after start
        self.requests: list[tuple[float, str, str, int, float]] = []  # players: seconds, phase, route, status, ms
        self.counts: Counter = Counter()  # "phase|client:class" -> answers
        self.errors: list[str] = []  # the first errors of well-formed requests
        self.server_errors: Counter = Counter()  # "client status: error text" -> answers (5xx)
        self.refusals: Counter = Counter()  # "client status: the error's first words" -> answers (4xx)
        self.lags: list[tuple[str, float]] = []  # (phase, ms) how late this process's loop woke
        self.attack_lags: list[tuple[str, float]] = []  # the same, of the attackers' process
        self.cpu: dict[str, tuple[float, float]] = {}  # phase -> (server CPU seconds, wall seconds)
        self.games = 0

    @property
    def phase(self) -> str:
        now = time.monotonic() - self.start
        for name, begin, end, _ in self.schedule:
            if begin <= now < end:
                return name
        return "after" if now >= 0 else "before"

    def dump(self) -> dict:
        """The counts an attack process sends back (see :meth:`merge`)."""
        return {"counts": dict(self.counts), "errors": self.errors, "server_errors": dict(self.server_errors),
                "refusals": dict(self.refusals), "lags": self.lags}

    def merge(self, other: dict) -> None:
        self.counts.update(other["counts"])
        self.errors += other["errors"]
        self.server_errors.update(other["server_errors"])
        for key, n in other["refusals"].items():
            if key in self.refusals or len(self.refusals) < 400:
                self.refusals[key] += n
        self.attack_lags += [tuple(x) for x in other["lags"]]

    def count(self, kind: str, what: str) -> None:
        self.counts[f"{self.phase}|{kind}:{what}"] += 1

    def answer(self, kind: str, r) -> None:
        """Count an answer; a 5xx is kept with its reason, and so are the first reasons of
        each client's 4xx."""
        self.count(kind, status_class(r.status_code))
        if r.status_code < 400:
            return
        try:
            text = r.json().get("error", "")
        except ValueError:
            text = r.text
        key = f"{kind} {r.status_code}: {' '.join(text.split()[:12])}"
        if r.status_code >= 500:
            self.server_errors[f"{kind} {r.status_code}: {text[:120]}"] += 1
        elif key in self.refusals or len(self.refusals) < 200:
            self.refusals[key] += 1

    def error(self, kind: str, text: str) -> None:
        self.count(kind, "ERROR")
        if len(self.errors) < 30:
            self.errors.append(f"{self.phase} {kind}: {text[:300]}")


class Ctx:
    """What every client shares: the server's port, the counts, a long game's record."""

    def __init__(self, port: int, stats: Stats, big_record: dict | None = None):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.stats = stats
        self.big_record = big_record

    def client(self, address: str, timeout: float = 60.0, connections: int = 20) -> "httpx.AsyncClient":
        transport = httpx.AsyncHTTPTransport(local_address=address, limits=httpx.Limits(
            max_connections=connections, max_keepalive_connections=connections))
        return httpx.AsyncClient(base_url=self.url, timeout=timeout, transport=transport)

    async def connect(self, address: str):
        return await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0))


# ---------------------------------------------------------------- the server
def start_server(log_path: Path, extra: list[str]) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0", *extra], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    if "localhost:" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line} (see {log_path})")
    return proc, int(line.split("localhost:")[1].split("/")[0])


async def wait_ready(url: str, seconds: float = 600.0) -> float:
    start = time.monotonic()
    async with httpx.AsyncClient(base_url=url, timeout=10) as c:
        while time.monotonic() - start < seconds:
            status = (await c.get("/api/ready")).json()
            if status["ready"]:
                if status["state"] == "failed":
                    raise RuntimeError(f"the server's warm-up failed: {status['error']}")
                return time.monotonic() - start
            await asyncio.sleep(1.0)
    raise RuntimeError("the server's bots did not load in time")


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def loop_lag(done: asyncio.Event, stats: Stats, every: float = 0.1) -> None:
    """How late this process's event loop wakes (a busy load generator adds to every
    latency it measures)."""
    while not done.is_set():
        t = time.monotonic()
        await asyncio.sleep(every)
        stats.lags.append((stats.phase, (time.monotonic() - t - every) * 1000))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def sample_rss(pid: int, every: float, done: asyncio.Event, stats: Stats, curve: list) -> None:
    while not done.is_set():
        curve.append((time.monotonic() - stats.start, rss_mb(pid), stats.phase))
        try:
            await asyncio.wait_for(done.wait(), every)
        except asyncio.TimeoutError:
            pass
    curve.append((time.monotonic() - stats.start, rss_mb(pid), stats.phase))


def big_record(path: Path, rounds: int = 2500) -> dict:
    """A finished game's record of about a megabyte: ``rounds`` rounds of the first game
    between seven random players (made once, kept in ``path``)."""
    if path.exists():
        return json.loads(path.read_text())
    from redbeard_web.session import BotPool, GameSession

    info = game_named(GAMES[0])
    fields = info.make_rules().__dataclass_fields__
    long_rules = {k: v for k, v in {"start_score": 1000, "redbeard_success": "zero", "redbeard_fail": "contract",
                                    "zero_rule": "bounce", "max_rounds": rounds}.items() if k in fields}
    session = GameSession("soak", info.make_rules(**long_rules), 7, 0, ["human"] + ["random"] * 6, 1, BotPool())
    rng = np.random.default_rng(0)
    session.run_bots()
    while not session.finished:
        session.act(str(rng.choice(session.legal_names())))
    record = session.record()
    path.write_text(json.dumps(record))
    return record


# ---------------------------------------------------------------- ordinary players
async def timed(client, stats: Stats, route: str, method: str, url: str, **kwargs):
    t = time.perf_counter()
    try:
        r = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        stats.error("player", f"{method} {url}: {type(exc).__name__}")
        return None
    ms = (time.perf_counter() - t) * 1000
    stats.requests.append((time.monotonic() - stats.start, stats.phase, route, r.status_code, ms))
    stats.answer("player", r)
    if r.status_code != 200:
        stats.error("player", f"{method} {url}: {r.status_code} {r.text[:200]}")
        return None
    return r.json()


async def player(ctx: Ctx, index: int, done: asyncio.Event, think: float) -> None:
    rng = random.Random(index)
    stats = ctx.stats
    async with ctx.client(f"127.0.1.{index + 1}", connections=4) as client:
        while not done.is_set():
            game = rng.choice(GAMES)
            body = {"game": game, "players": rng.randint(3, 5), "seed": rng.randrange(2**31),
                    "opponents": rng.choice(["heuristic", "random"]), "overrides": short_overrides(game, rng)}
            view = await timed(client, stats, "new", "POST", "/api/games", json=body)
            while view is not None and not view["finished"] and not done.is_set():
                await asyncio.sleep(rng.uniform(0, 2 * think))
                roll = rng.random()
                if roll < 0.05:
                    await timed(client, stats, "view", "GET", f"/api/games/{view['id']}")
                elif roll < 0.10:
                    await timed(client, stats, "hint", "GET", f"/api/games/{view['id']}/hint",
                                params={"bot": "heuristic"})
                view = await timed(client, stats, "move", "POST", f"/api/games/{view['id']}/actions",
                                   json={"action": rng.choice(view["legal"])})
            if view is None:
                await asyncio.sleep(1.0)
                continue
            if not view["finished"]:
                continue
            stats.games += 1
            record = await timed(client, stats, "record", "GET", f"/api/games/{view['id']}/record")
            if record is None:
                continue
            frame = await timed(client, stats, "replay", "POST", "/api/replays", json={"record": record})
            if frame is None:
                continue
            await timed(client, stats, "replay-log", "GET", f"/api/replays/{frame['id']}/log")
            for step in sorted(rng.sample(range(frame["steps"] + 1), min(3, frame["steps"] + 1))):
                await asyncio.sleep(rng.uniform(0, think))
                await timed(client, stats, "frame", "GET", f"/api/replays/{frame['id']}", params={"step": step})


# ---------------------------------------------------------------- the attacks
async def until(stop: float) -> bool:
    await asyncio.sleep(0)
    return time.monotonic() < stop


async def request(ctx: Ctx, client, kind: str, method: str, url: str, **kwargs):
    try:
        r = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        ctx.stats.count(kind, type(exc).__name__)
        await asyncio.sleep(0.5)
        return None
    ctx.stats.answer(kind, r)
    return r


async def own_game(ctx: Ctx, client, kind: str, **body):
    r = await request(ctx, client, kind, "POST", "/api/games", json={"seed": 4, **body})
    return r.json() if r is not None and r.status_code == 200 else None


HUGE_SPECS = [("redbeard", "heuristic:bid_samples=1000000"), ("redbeard", "heuristic:bid_samples=1000000000000"),
              ("redbeard", "pimc:samples=1000000"), ("sortskaeg", "heuristic:trump_factor=1e308"),
              ("oh_hell", "heuristic:trump_factor=-1e308"), ("sortskaeg", "heuristic:joker_value=1e308"),
              ("redbeard", "pimc:rollout=pimc,horizon=game")]


async def attack_specs(ctx: Ctx, address: str, stop: float) -> None:
    """Parameters out of every range: each must be refused (a 400); one accepted stops the
    attack (it could take gigabytes) and counts as an error."""
    rng = random.Random(address)
    async with ctx.client(address) as client:
        game = await own_game(ctx, client, "specs")
        while await until(stop):
            name, spec = rng.choice([g for g in HUGE_SPECS if g[0] in GAMES])
            if rng.random() < 0.5 or game is None:
                r = await request(ctx, client, "specs", "POST", "/api/games", json={"game": name, "opponents": spec})
            else:
                r = await request(ctx, client, "specs", "GET", f"/api/games/{game['id']}/hint",
                                  params={"bot": rng.choice(["heuristic:bid_samples=0", "heuristic:bid_samples=10**12",
                                                             spec])})
            if r is not None and r.status_code == 200:
                ctx.stats.error("specs", f"accepted {r.url}: the attack stops")
                return
            await asyncio.sleep(0.2)


async def attack_freeze(ctx: Ctx, address: str, stop: float) -> None:
    """Games with a bot that fails to move; every refused move must leave the human to act."""
    rng = random.Random(address)
    async with ctx.client(address) as client:
        while await until(stop):
            game = await own_game(ctx, client, "freeze", opponents="heuristic:bid_samples=0")
            if game is None:
                await asyncio.sleep(0.5)
                continue
            for _ in range(50):
                if game["finished"] or time.monotonic() >= stop:
                    break
                r = await request(ctx, client, "freeze", "POST", f"/api/games/{game['id']}/actions",
                                  json={"action": rng.choice(game["legal"])})
                if r is None:
                    break
                if r.status_code == 200:
                    game = r.json()
                    continue
                view = await request(ctx, client, "freeze", "GET", f"/api/games/{game['id']}")
                if view is not None and view.status_code == 200 and view.json()["to_act"] != view.json()["your_seat"]:
                    ctx.stats.error("freeze", f"a refused move left game {game['id']} with a bot to act")
                break


async def attack_forged(ctx: Ctx, address: str, stop: float) -> None:
    rng = random.Random(address)
    async with ctx.client(address) as client:
        while await until(stop):
            forged = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
            header = rng.choice([{"X-Forwarded-For": forged}, {"Forwarded": f"for={forged}"}, {"X-Real-IP": forged}])
            r = await request(ctx, client, "forged", "POST", "/api/games", json={"seed": rng.randrange(1000)},
                              headers=header)
            if r is not None and r.status_code == 429:
                await asyncio.sleep(0.05)


async def attack_sockets(ctx: Ctx, address: str, stop: float, most: int = 1000) -> None:
    """Up to ``most`` idle connections, topped up every half second as the server closes them."""
    open_ = set()

    async def hold(reader, writer):
        try:
            await asyncio.wait_for(reader.read(), max(stop - time.monotonic(), 0.01))
            ctx.stats.count("sockets", "closed-by-server")
        except (asyncio.TimeoutError, OSError):
            pass
        finally:
            writer.close()
            open_.discard(writer)

    tasks = []
    while await until(stop):
        for _ in range(min(100, most - len(open_))):
            try:
                reader, writer = await ctx.connect(address)
            except OSError as exc:
                ctx.stats.count("sockets", f"connect-{type(exc).__name__}")
                break
            ctx.stats.count("sockets", "opened")
            open_.add(writer)
            tasks.append(asyncio.ensure_future(hold(reader, writer)))
        tasks = [t for t in tasks if not t.done()]
        await asyncio.sleep(0.5)
    for writer in list(open_):
        writer.close()
    await asyncio.gather(*tasks, return_exceptions=True)


DEAR_HINTS = ["pimc:rollout=pimc,horizon=game", "pimc:samples=1024", "pimc:samples=512,rollout=heuristic",
              "pimc:samples=1024,seed=7"]


async def attack_hints(ctx: Ctx, address: str, stop: float) -> None:
    """Twelve hints at once with the dearest specs, and eight games against dear search bots."""
    async with ctx.client(address, connections=30) as client:
        async def hinter(i: int) -> None:
            rng = random.Random(f"{address}-{i}")
            game = await own_game(ctx, client, "hints")
            while await until(stop):
                if game is None:
                    await asyncio.sleep(1.0)
                    game = await own_game(ctx, client, "hints")
                    continue
                r = await request(ctx, client, "hints", "GET", f"/api/games/{game['id']}/hint",
                                  params={"bot": rng.choice(DEAR_HINTS)})
                if r is not None and r.status_code == 404:
                    game = None
                elif r is not None and r.status_code == 429:
                    await asyncio.sleep(0.1)

        async def dear_game(i: int) -> None:
            rng = random.Random(f"{address}-game-{i}")
            game = None
            while await until(stop):
                if game is None or game["finished"]:
                    game = await own_game(ctx, client, "dear-games", opponents="pimc:samples=1024",
                                          seed=rng.randrange(1000))
                    if game is None:
                        await asyncio.sleep(1.0)
                    continue
                r = await request(ctx, client, "dear-games", "POST", f"/api/games/{game['id']}/actions",
                                  json={"action": rng.choice(game["legal"])})
                game = r.json() if r is not None and r.status_code == 200 else None

        await asyncio.gather(*[hinter(i) for i in range(12)], *[dear_game(i) for i in range(8)])


async def attack_replays(ctx: Ctx, address: str, stop: float) -> None:
    """A long game's record opened again and again, and the replays' move logs looped."""
    rng = random.Random(address)
    replays: list[str] = []
    async with ctx.client(address) as client:
        async def opener() -> None:
            while await until(stop):
                r = await request(ctx, client, "replays-open", "POST", "/api/replays", json={"record": ctx.big_record})
                if r is not None and r.status_code == 200:
                    replays.append(r.json()["id"])
                    del replays[:-8]
                elif r is not None and r.status_code == 429:
                    await asyncio.sleep(min(float(r.headers.get("retry-after", 1)), 5.0))

        async def looper() -> None:
            while await until(stop):
                if not replays:
                    await asyncio.sleep(0.5)
                    continue
                r = await request(ctx, client, "replays-log", "GET", f"/api/replays/{rng.choice(replays)}/log")
                if r is not None and r.status_code == 429:
                    await asyncio.sleep(0.2)

        await asyncio.gather(opener(), *[looper() for _ in range(8)])


async def attack_policies(ctx: Ctx, address: str, stop: float) -> None:
    rng = random.Random(address)
    async with ctx.client(address) as client:
        async def asker() -> None:
            game = await own_game(ctx, client, "policies")
            while await until(stop) and game is not None:
                r = await request(ctx, client, "policies", "GET", f"/api/games/{game['id']}/hint",
                                  params={"bot": f"ppo:classic_4p,seed={rng.randrange(10**9)}"})
                if r is not None and r.status_code == 429:
                    await asyncio.sleep(0.1)

        await asyncio.gather(*[asker() for _ in range(4)])


MALFORMED = [b"GARBAGE\r\n\r\n", b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon\r\n\r\n",
             b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"]


async def attack_malformed(ctx: Ctx, address: str, stop: float) -> None:
    """Malformed requests and 70 KB heads (in one packet, or in pieces); every answer must be
    a JSON 400 or 431."""
    rng = random.Random(address)
    while await until(stop):
        data = rng.choice(MALFORMED)
        pieces = rng.choice([1, 1, 20])
        try:
            reader, writer = await ctx.connect(address)
            size = -(-len(data) // pieces)
            for i in range(0, len(data), size):
                writer.write(data[i:i + size])
                await writer.drain()
            answer = await asyncio.wait_for(reader.read(), 10)
            writer.close()
        except (OSError, asyncio.TimeoutError) as exc:
            ctx.stats.count("malformed", type(exc).__name__)
            await asyncio.sleep(0.2)
            continue
        head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
        status = head.split()[1] if len(head.split()) > 1 else "none"
        ctx.stats.count("malformed", status)
        if "content-type: application/json" not in head:
            ctx.stats.error("malformed", f"an answer that is not JSON: {head[:120]!r}")
        await asyncio.sleep(0.05)


async def attack_slow(ctx: Ctx, address: str, stop: float, clients: int = 30) -> None:
    async def one(index: int) -> None:
        rng = random.Random(f"{address}-{index}")
        kind = ("slow-head", "slow-body", "no-read")[index % 3]
        while await until(stop):
            try:
                reader, writer = await ctx.connect(address)
            except OSError as exc:
                ctx.stats.count("slow", f"connect-{type(exc).__name__}")
                await asyncio.sleep(1)
                continue
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
                    while time.monotonic() < stop and not reader.at_eof():
                        await writer.drain()
                        writer.write(b" ")
                        await asyncio.sleep(rng.uniform(0.5, 2.0))
                else:  # asks again and again and never reads an answer
                    while time.monotonic() < stop:
                        writer.write(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        await writer.drain()
                        await asyncio.sleep(rng.uniform(0.1, 1.0))
            except (ConnectionError, OSError):
                ctx.stats.count("slow", f"{kind}-closed-by-server")
            finally:
                writer.close()

    await asyncio.gather(*[one(i) for i in range(clients)])


async def a_record(ctx: Ctx, client, kind: str, seed: int) -> dict | None:
    """The record of a short game against random bots, the human playing at random."""
    rng = random.Random(seed)
    game = await own_game(ctx, client, kind, opponents="random", seed=seed,
                          overrides=short_overrides(GAMES[0], rng))
    while game is not None and not game["finished"]:
        r = await request(ctx, client, kind, "POST", f"/api/games/{game['id']}/actions",
                          json={"action": rng.choice(game["legal"])})
        game = r.json() if r is not None and r.status_code == 200 else None
    r = await request(ctx, client, kind, "GET", f"/api/games/{game['id']}/record") if game else None
    return r.json() if r is not None and r.status_code == 200 else None


async def attack_uploads(ctx: Ctx, address: str, stop: float) -> None:
    rng = random.Random(address)
    async with ctx.client(address) as client:
        records: list[dict] = []
        while await until(stop):
            if len(records) < 3:
                record = await a_record(ctx, client, "upload-own-game", rng.randrange(10**6))
                records += [record] if record else []
                continue
            record = dict(rng.choice(records))
            kind = rng.choice(["valid", "big-meta", "too-large", "broken"])
            if kind == "big-meta":
                record["meta"] = {"junk": [rng.random() for _ in range(30_000)]}  # ~0.6 MB, within the budget
            elif kind == "too-large":
                record["meta"] = {"junk": "x" * (2 * 2**20)}
            elif kind == "broken":
                record["scores"] = [s + 1 for s in record["scores"]]
            r = await request(ctx, client, f"upload-{kind}", "POST", "/api/replays", json={"record": record})
            if r is not None and r.status_code == 200:
                frame = r.json()
                for step in (frame["steps"] // 2, frame["steps"], 0):
                    await request(ctx, client, "upload-frame", "GET", f"/api/replays/{frame['id']}",
                                  params={"step": step})
            await asyncio.sleep(rng.uniform(0.5, 2.0))


SPAM_SPECS = [
    lambda r: f"pimc:samples={r.choice([16, 64, 256, 1024])},seed={r.randrange(10**6)}",
    lambda r: f"pimc:samples={r.choice([5000, 100000, 1000000])}",  # beyond the budget: 400
    lambda r: f"random:seed={r.randrange(10**6)}",
    lambda r: f"heuristic:win_value={r.randint(1, 20)}",
    lambda r: r.choice(["ppo:secretfile", "ppo:/etc/passwd", 'heuristic:rules={"a":1}', "x" * 300, "PPO:classic_4p"]),
]


async def attack_spam(ctx: Ctx, address: str, stop: float) -> None:
    rng = random.Random(address)
    async with ctx.client(address) as client:
        game = None
        while await until(stop):
            if game is None or game.get("finished") or not game.get("legal"):
                game = await own_game(ctx, client, "spam", seed=rng.randrange(2**31))
                if game is None:
                    await asyncio.sleep(1)
                continue
            r = await request(ctx, client, "spam", "GET", f"/api/games/{game['id']}/hint",
                              params={"bot": rng.choice(SPAM_SPECS)(rng)})
            if r is not None and r.status_code == 429:
                await asyncio.sleep(0.2)
            if rng.random() < 0.1:
                r = await request(ctx, client, "spam", "POST", f"/api/games/{game['id']}/actions",
                                  json={"action": rng.choice(game["legal"])})
                game = r.json() if r is not None and r.status_code == 200 else None


RUN = {"specs": attack_specs, "freeze": attack_freeze, "forged": attack_forged, "sockets": attack_sockets,
       "hints": attack_hints, "replays": attack_replays, "policies": attack_policies, "malformed": attack_malformed,
       "slow": attack_slow, "uploads": attack_uploads, "spam": attack_spam}


def attack_address(name: str) -> str:
    return f"127.0.2.{ATTACKS.index(name) + 1}"


# ---------------------------------------------------------------- the run
def make_schedule(args) -> list:
    """[(phase, begin, end, attacks)] in seconds after the start."""
    phases = [("warm-up", args.warm_seconds, [])]
    if args.each > 0:
        phases += [(f"alone:{name}", args.each, [name]) for name in args.attacks]
    if args.minutes > 0:
        phases.append(("soak", args.minutes * 60, list(args.attacks)))
    out, t = [], 0.0
    for name, seconds, attacks in phases:
        out.append((name, t, t + seconds, attacks))
        t += seconds
    return out


def attack_process(port: int, schedule: list, start: float, big_path: str, result_path: str) -> None:
    """The attacks, in a process of their own (their load is not the players' loop's): each
    phase's attacks from its begin to its end; the counts are written to ``result_path``."""
    stats = Stats(start, schedule)
    big = json.loads(Path(big_path).read_text()) if big_path else None

    async def main() -> None:
        ctx = Ctx(port, stats, big)
        done = asyncio.Event()
        lag = asyncio.ensure_future(loop_lag(done, stats))
        for name, begin, end, attacks in schedule:
            await asyncio.sleep(max(start + begin - time.monotonic(), 0))
            await asyncio.gather(*[RUN[a](ctx, attack_address(a), start + end) for a in attacks],
                                 asyncio.sleep(max(start + end - time.monotonic(), 0)))
        done.set()
        await lag

    try:
        asyncio.run(main())
    finally:
        Path(result_path).write_text(json.dumps(stats.dump()))


async def run(args, port: int, pid: int, stats: Stats, curve: list) -> dict:
    """The players, the RSS samples and the server's CPU per phase, until the schedule ends."""
    ctx = Ctx(port, stats)
    done = asyncio.Event()
    windows: dict[str, tuple[float, float]] = {}
    await asyncio.sleep(max(stats.start - time.monotonic(), 0))
    sampler = asyncio.ensure_future(sample_rss(pid, args.sample_seconds, done, stats, curve))
    lag = asyncio.ensure_future(loop_lag(done, stats))
    players = [asyncio.ensure_future(player(ctx, i, done, args.think)) for i in range(args.players)]
    try:
        for name, begin, end, _ in stats.schedule:
            cpu = cpu_seconds(pid)
            await asyncio.sleep(max(stats.start + end - time.monotonic(), 0))
            windows[name] = (begin, end)
            stats.cpu[name] = (cpu_seconds(pid) - cpu, end - begin)
            print(f"  {name:16s} {progress(stats, curve, name)}", flush=True)
    finally:
        done.set()
        await asyncio.gather(*players, sampler, lag, return_exceptions=True)
    return windows


def progress(stats: Stats, curve: list, name: str) -> str:
    rss = [m for _, m, p in curve if p == name]
    lat = [ms for _, p, _, _, ms in stats.requests if p == name]
    p95 = np.percentile(lat, 95) if lat else float("nan")
    errors = sum(v for k, v in stats.counts.items() if k.startswith(name + "|") and k.endswith("ERROR"))
    return (f"RSS max {max(rss) if rss else float('nan'):7.1f} MB  players {len(lat)} requests, p95 {p95:.0f} ms  "
            f"errors {errors}")


# ---------------------------------------------------------------- the report
def summarize(args, stats: Stats, curve: list, windows: dict, ready_seconds: float, out: Path) -> dict:
    warm_rss = [m for _, m, p in curve if p == "warm-up"]
    warm = float(np.mean(warm_rss[-3:])) if warm_rss else float("nan")
    phases = {}
    for name in windows:
        rss = [m for _, m, p in curve if p == name]
        lat = np.asarray([ms for _, p, _, _, ms in stats.requests if p == name])
        counts = {k.split("|", 1)[1]: v for k, v in sorted(stats.counts.items()) if k.startswith(name + "|")}
        phases[name] = {
            "seconds": round(windows[name][1] - windows[name][0], 1),
            "rss_max_mb": max(rss) if rss else None, "rss_end_mb": rss[-1] if rss else None,
            "rss_over_warm_mb": (max(rss) - warm) if rss else None,
            "player_latency_ms": {"requests": int(len(lat)),
                                  **({f"p{q}": float(np.percentile(lat, q)) for q in (50, 95, 99)} if len(lat) else {}),
                                  "max": float(lat.max()) if len(lat) else None},
            "server_cpu_share": round(stats.cpu[name][0] / stats.cpu[name][1], 2) if name in stats.cpu else None,
            "load_generator_lag_ms_p95": float(np.percentile(lags, 95)) if len(lags := [ms for p, ms in stats.lags
                                                                                        if p == name]) else None,
            "attackers_lag_ms_p95": float(np.percentile(lags, 95)) if len(lags := [ms for p, ms in stats.attack_lags
                                                                                    if p == name]) else None,
            "player_errors": sum(v for k, v in counts.items() if k.startswith("player:") and k != "player:200"),
            "5xx": sum(v for k, v in counts.items() if k.split(":")[-1][:1] == "5"),
            "answers": counts,
        }
    routes = {}
    for route in sorted({r for _, _, r, _, _ in stats.requests}):
        lat = np.asarray([ms for _, p, r, _, ms in stats.requests if r == route and p == "soak"])
        if len(lat):
            routes[route] = {"requests": int(len(lat)), "p50": float(np.percentile(lat, 50)),
                             "p95": float(np.percentile(lat, 95)), "max": float(lat.max())}
    result = {
        "args": vars(args), "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_average_at_start": args.load_at_start, "bots_loaded_seconds": round(ready_seconds, 1),
        "warm_rss_mb": warm, "rss_max_mb": max(m for _, m, _ in curve),
        "phases": phases, "soak_routes_ms": routes, "games_finished": stats.games,
        "server_errors": dict(stats.server_errors.most_common()),
        "refusals": dict(stats.refusals.most_common()),
        "first_errors": stats.errors,
    }
    (out / "soak.json").write_text(json.dumps(result, indent=2))
    with open(out / "rss.csv", "w") as f:
        f.write("seconds,rss_mb,phase\n" + "".join(f"{a:.1f},{b:.1f},{c}\n" for a, b, c in curve))
    with open(out / "latency.csv", "w") as f:
        f.write("seconds,phase,route,status,ms\n" + "".join(f"{t:.2f},{p},{r},{s},{ms:.1f}\n"
                                                          for t, p, r, s, ms in stats.requests))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 4))
        ax.plot([t / 60 for t, _, _ in curve], [m for _, m, _ in curve], color="black", lw=1)
        ax.axhline(warm, color="grey", linestyle=":", label=f"warm size {warm:.0f} MB")
        ax.axhline(warm + 150, color="red", linestyle=":", label="warm size + 150 MB")
        for i, (name, (a, b)) in enumerate(windows.items()):
            ax.axvspan(a / 60, b / 60, color=f"C{i % 10}", alpha=0.12, lw=0)
            ax.text((a + b) / 120, ax.get_ylim()[0], name.replace("alone:", ""), rotation=90, fontsize=6,
                    va="bottom", ha="center")
        ax.set_xlabel("minutes")
        ax.set_ylabel("server RSS (MB)")
        ax.set_title(f"redbeard-web soak: {args.players} players, attacks {', '.join(args.attacks)}", fontsize=8)
        ax.legend(fontsize=7, loc="upper left")
        fig.tight_layout()
        fig.savefig(out / "rss.png", dpi=100)
    except ImportError:  # pragma: no cover
        pass
    return result


def print_report(result: dict) -> None:
    print(f"warm size {result['warm_rss_mb']:.0f} MB (bots loaded in {result['bots_loaded_seconds']} s); "
          f"RSS max {result['rss_max_mb']:.0f} MB")
    print(f"{'phase':18s} {'RSS max over warm':>17s} {'requests':>8s} {'p50 ms':>7s} {'p95 ms':>7s} {'p99 ms':>7s} "
          f"{'max ms':>7s} {'player errors':>13s} {'5xx':>5s} {'server CPU':>10s} {'lag p95 players':>15s} "
          f"{'attackers':>9s}")
    for name, ph in result["phases"].items():
        lat = ph["player_latency_ms"]
        print(f"{name:18s} {ph['rss_over_warm_mb']:+17.0f} {lat['requests']:8d} {lat.get('p50', 0):7.0f} "
              f"{lat.get('p95', 0):7.0f} {lat.get('p99', 0):7.0f} {lat['max'] or 0:7.0f} {ph['player_errors']:13d} "
              f"{ph['5xx']:5d} {ph['server_cpu_share']:10.2f} {ph['load_generator_lag_ms_p95'] or 0:15.0f} "
              f"{ph['attackers_lag_ms_p95'] or 0:9.0f}")
    if result["soak_routes_ms"]:
        print("players' requests in the soak, by route (ms):",
              "; ".join(f"{k} {v['requests']} p50 {v['p50']:.0f} p95 {v['p95']:.0f} max {v['max']:.0f}"
                        for k, v in result["soak_routes_ms"].items()))
    if "soak" in result["phases"]:
        print("answers in the soak by client and class:")
        for key, value in result["phases"]["soak"]["answers"].items():
            print(f"  {key:40s} {value}")
    print(f"5xx answers: {sum(result['server_errors'].values())}")
    for text, n in result["server_errors"].items():
        print(f"  {n:6d}  {text}")
    print(f"games finished by the players: {result['games_finished']}")
    print("first errors:" if result["first_errors"] else "no errors of well-formed requests")
    for line in result["first_errors"]:
        print("   ", line)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0, help="minutes of the soak, every attack at once; default 10")
    p.add_argument("--each", type=float, default=0.0,
                   help="seconds of each attack alone (with the players) before the soak; default 0: none")
    p.add_argument("--warm-seconds", type=float, default=60.0,
                   help="seconds of the players alone first; the RSS at the end is the warm size; default 60")
    p.add_argument("--players", type=int, default=20, help="ordinary players, default 20")
    p.add_argument("--think", type=float, default=1.0, help="players' mean think time in seconds, default 1")
    p.add_argument("--attacks", default=",".join(ATTACKS),
                   help=f"comma-separated attacks, default all: {','.join(ATTACKS)}")
    p.add_argument("--sample-seconds", type=float, default=2.0, help="RSS sampling period, default 2")
    p.add_argument("--server-args", default="", help="more options for redbeard-web, e.g. '--hint-concurrency 4'")
    p.add_argument("--out", default="runs/soak_web", help="folder for soak.json, rss.csv, rss.png, latency.csv, "
                                                          "server.log (and the long record, kept for later runs)")
    args = p.parse_args(argv)
    args.attacks = [a.strip() for a in args.attacks.split(",") if a.strip()]
    unknown = [a for a in args.attacks if a not in ATTACKS]
    if unknown:
        p.error(f"unknown attack(s) {', '.join(unknown)}; known: {', '.join(ATTACKS)}")
    if min(args.minutes, args.each, args.warm_seconds) < 0 or args.players < 0 or args.warm_seconds <= 0:
        p.error("--minutes and --each must be >= 0, --warm-seconds > 0, --players >= 0")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    args.load_at_start = os.getloadavg()[0]
    print(f"web soak: {args.players} players, warm-up {args.warm_seconds:g} s, each attack alone {args.each:g} s, "
          f"soak {args.minutes:g} min with {', '.join(args.attacks)}; {os.cpu_count()} CPUs; load average "
          f"{args.load_at_start:.2f}", flush=True)
    big_path = out / "long_record.json"
    if "replays" in args.attacks:
        big_record(big_path)
    schedule = make_schedule(args)
    proc, port = start_server(out / "server.log", args.server_args.split())
    attackers = None
    stats, curve, windows = Stats(0.0, schedule), [], {}
    try:
        ready = asyncio.run(wait_ready(f"http://127.0.0.1:{port}"))
        stats.start = time.monotonic() + 2.0  # time for the attackers' process to start
        attackers = multiprocessing.get_context("spawn").Process(
            target=attack_process, args=(port, schedule, stats.start, str(big_path) if big_path.exists() else "",
                                         str(out / "attacks.json")), daemon=True)
        attackers.start()
        windows = asyncio.run(run(args, port, proc.pid, stats, curve))
        attackers.join(60)
        stats.merge(json.loads((out / "attacks.json").read_text()))
    finally:
        if attackers is not None and attackers.is_alive():
            attackers.terminate()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    result = summarize(args, stats, curve, windows, ready, out)
    print_report(result)
    names = ('soak.json', 'rss.csv', 'rss.png', 'latency.csv', 'server.log')
    print(f"written: {', '.join(str(out / f) for f in names)}")
    return result


if __name__ == "__main__":
    main()
