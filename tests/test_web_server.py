"""The web app as a real server on the loopback interface: many games at once from many
threads, a game whose bot is thinking does not hold up the others, and the
``redbeard-web`` command itself."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
uvicorn = pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older installs
    httpx = pytest.importorskip("httpx")

from agents.base import Agent  # noqa: E402
from agents.registry import register  # noqa: E402
from redbeard_env.redbeard import records as R  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402


class LiveServer:
    """uvicorn serving the app in a background thread on 127.0.0.1 (a free port)."""

    def __init__(self, app):
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            threading.Event().wait(0.01)
        else:
            raise RuntimeError("the test server did not start")
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


class GateBot(Agent):
    """A bot that waits at a gate before its first move (to hold one game busy), then
    plays the first legal action."""

    entered = threading.Event()
    gate = threading.Event()

    def act(self, observation, action_mask=None):
        GateBot.entered.set()
        if not GateBot.gate.wait(30):
            raise RuntimeError("the gate was never opened")
        return int(np.flatnonzero(np.asarray(action_mask))[0])


register("test_gate", GateBot, overwrite=True)


@pytest.fixture(scope="module")
def server():
    with LiveServer(create_app(GameStore(BotPool()))) as live:
        yield live


def play_one(url: str, seed: int) -> tuple[str, dict]:
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/api/games", json={"seed": seed, "players": 3 + seed % 5, "seat": seed % 3,
                                       "opponents": "heuristic", "overrides": {"start_score": 4}})
        assert r.status_code == 200, r.text
        v = r.json()
        while not v["finished"]:
            r = c.post(f"/api/games/{v['id']}/actions", json={"action": str(rng.choice(v["legal"]))})
            assert r.status_code == 200, r.text
            v = r.json()
        record = c.get(f"/api/games/{v['id']}/record").json()
    return v["id"], record


def test_many_games_at_once(server):
    """Twelve players play twelve games at the same time; every game ends with a record
    that replays exactly to the scores the player saw."""
    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(lambda s: play_one(server.url, s), range(12)))
    ids = [gid for gid, _ in results]
    assert len(set(ids)) == 12
    for seed, (_, record) in enumerate(results):
        game = R.replay(record)
        assert record["seed"] == seed and game.game_over


def test_a_thinking_bot_does_not_hold_up_other_games(server):
    """Game A's bot blocks (waiting at a gate); meanwhile game B is played from start to
    finish. Then A's bot is released and A answers."""
    GateBot.entered.clear()
    GateBot.gate.clear()
    result = {}

    # the human deals (the seed's first draw is the dealer), so a bot is asked first
    seat = int(np.random.default_rng(0).integers(4))

    def start_a():
        with httpx.Client(base_url=server.url, timeout=60) as c:
            result["a"] = c.post("/api/games", json={"seed": 0, "seat": seat, "opponents": "test_gate"})

    a = threading.Thread(target=start_a)
    a.start()
    try:
        assert GateBot.entered.wait(30), "game A's bot never started"
        gid, record = play_one(server.url, 3)  # a whole other game while A's bot thinks
        assert record["winner"] is not None or record["truncated"]
        assert a.is_alive() and "a" not in result  # A is still waiting for its bot
    finally:
        GateBot.gate.set()
        a.join(30)
    assert result["a"].status_code == 200 and result["a"].json()["to_act"] == seat


def test_requests_to_one_game_are_serialised(server):
    """Many threads post to the same game at once: each request sees a consistent game;
    the moves that were accepted are exactly the game's moves."""
    with httpx.Client(base_url=server.url, timeout=60) as c:
        v = c.post("/api/games", json={"seed": 11, "opponents": "heuristic"}).json()
    gid = v["id"]
    first = v["legal"]

    def post(action):
        with httpx.Client(base_url=server.url, timeout=60) as c:
            return c.post(f"/api/games/{gid}/actions", json={"action": action})

    with ThreadPoolExecutor(len(first)) as pool:
        answers = list(pool.map(post, first))
    accepted = [a for a in answers if a.status_code == 200]
    assert len(accepted) >= 1 and all(a.status_code in (200, 400) for a in answers)
    with httpx.Client(base_url=server.url, timeout=60) as c:
        now = c.get(f"/api/games/{gid}").json()
    moves = sum(len(a.json()["events"]) for a in accepted) + len(now["events"])
    assert now["actions"] == v["actions"] + moves


def test_redbeard_web_command_serves_on_loopback(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0", "--records", str(tmp_path / "r.jsonl")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("redbeard-web: open http://localhost:"), line + proc.stderr.read()
        port = int(line.split("localhost:")[1].split("/")[0])
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            assert c.get("/api/options").status_code == 200
            assert 'data-testid="new-game"' in c.get("/").text
        try:
            addresses = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
        except socket.gaierror:
            addresses = set()
        for address in addresses - {"127.0.0.1"}:  # not reachable on the machine's other addresses
            with pytest.raises(httpx.ConnectError):
                httpx.get(f"http://{address}:{port}/api/options", timeout=5)
    finally:
        proc.terminate()
        proc.wait(10)


def test_redbeard_web_command_rejects_bad_options():
    out = subprocess.run([sys.executable, "-m", "redbeard_web", "--max-games", "0"], capture_output=True, text=True)
    assert out.returncode != 0 and "--max-games must be > 0" in out.stderr
