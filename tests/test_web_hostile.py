"""The table against a hostile client (issue 59), the server's half: each reproduction of
the issue as a test, against a real server on 127.0.0.1 where it needs one.

* A move applies whole or not at all: a bot that raises, chooses an illegal action or an
  action out of range, or hangs and then fails, leaves the game exactly as it was before
  the request (the human's move included), and the human can move on.
* Addresses: forged forwarded headers do not dodge the per-address rate of new games; a
  trusted proxy's are believed. Clients on other loopback addresses (127.0.0.2, ...) stand
  for other machines.
* One address holds at most its share of connections, worker threads and hint thinkers,
  so another address keeps being answered.
* Replay logs are made once, bounded and rate-limited, replay work is bounded per address;
  the records file rotates.
* Malformed HTTP is a JSON 400, an oversized head a JSON 431.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older installs
    httpx = pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
import redbeard_web.store as store_module  # noqa: E402
from agents.base import Agent  # noqa: E402
from agents.registry import register  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.bots import BotPool  # noqa: E402
from redbeard_web.guards import TrustedProxies  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
from redbeard_web.movelog import human_seat, move_log  # noqa: E402
from redbeard_web.store import RECORDS_KEPT, GameStore  # noqa: E402
from web_helpers import LiveServer, finished_record, gated, play_out, short_game  # noqa: E402,F401 (gated: a fixture)

GAMES = redbeard_env.registered_games()


# ---------------------------------------------------------------- a bot that breaks on demand
class BreakingBot(Agent):
    """Plays the first legal action; once ``armed``, it plays ``after`` more moves and then
    fails as ``mode`` says: "raise" (ZeroDivisionError), "illegal" (an action the mask
    forbids), "out_of_range" (an action id past the mask), "not_an_action" (a string), or
    "hang" (waits for ``release``, then gives up with an error)."""

    mode = "raise"
    armed = False
    after = 0
    moves = 0
    entered = threading.Event()
    release = threading.Event()

    def act(self, observation, action_mask=None):
        cls = BreakingBot
        mask = np.asarray(action_mask)
        if cls.armed:
            if cls.moves >= cls.after:
                return cls.fail(mask)
            cls.moves += 1
        return int(np.flatnonzero(mask)[0])

    @classmethod
    def fail(cls, mask):
        if cls.mode == "raise":
            raise ZeroDivisionError("division by zero")
        if cls.mode == "illegal":
            return int(np.flatnonzero(mask == 0)[0])
        if cls.mode == "out_of_range":
            return len(mask) + 3
        if cls.mode == "not_an_action":
            return "keep"
        cls.entered.set()
        cls.release.wait(10)
        raise TimeoutError("the bot gave up thinking")

    @classmethod
    def reset(cls, mode="raise", after=0):
        cls.mode, cls.armed, cls.after, cls.moves = mode, False, after, 0
        cls.entered.clear()
        cls.release.clear()


register("test_breaking", BreakingBot, overwrite=True)


@pytest.fixture
def breaking():
    BreakingBot.reset()
    yield BreakingBot
    BreakingBot.release.set()
    BreakingBot.reset()


def table(limits=None, **store_kwargs):
    store = GameStore(BotPool(), **store_kwargs)
    return TestClient(create_app(store, allowed_hosts=None, limits=limits)), store


def human_to_act(client, game, **body):
    """A new game of ``game`` against breaking bots where the human acts now and at least
    two bots move after the human's first legal action."""
    info = redbeard_env.game_named(game)
    players = min(max(4, info.player_range[0]), info.player_range[1])
    for seed in range(50):
        r = client.post("/api/games", json={"game": game, "players": players, "seed": seed,
                                            "opponents": "test_breaking", **body})
        assert r.status_code == 200, r.text
        view = r.json()
        if view["legal"] and view["your_seat"] == 0 and players >= 3:
            return view
    raise AssertionError("no game with the human to act")


def plain(value):
    """A game's state as plain, comparable data: objects as their fields, arrays as lists,
    a random generator as its state."""
    if isinstance(value, np.random.Generator):
        return plain(value.bit_generator.state)
    if isinstance(value, np.ndarray):
        return [str(value.dtype), value.tolist()]
    if isinstance(value, dict):
        return {repr(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [type(value).__name__, [plain(v) for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset))
                                                           else value)]]
    if hasattr(value, "__dict__"):
        return [type(value).__name__, plain(vars(value))]
    return value


def state_of(store, game_id):
    """Everything the game is: the engine's state and the record so far."""
    session = store.session(game_id)
    rec = session.recorder
    return plain({"game": session.game, "actions": rec.actions, "deals": rec.deals, "rounds": rec.rounds,
                  "pending": session.pending})


def view_without_events(view):
    return {k: v for k, v in view.items() if k not in ("events", "events_skipped")}


# ---------------------------------------------------------------- 1. a move applies whole
@pytest.mark.parametrize("mode", ["raise", "illegal", "out_of_range", "not_an_action"])
def test_a_failing_bot_leaves_the_game_as_it_was(breaking, mode):
    """The human moves, one bot replies, the next bot fails: a one-line 400, and the game is
    exactly as before the request -- the human's move and the first bot's reply undone --
    with the human to act (a bot's failure used to leave the human's move applied and a
    bot to act for ever)."""
    client, store = table()
    view = human_to_act(client, GAMES[0])
    before_view = client.get(f"/api/games/{view['id']}").json()
    before = state_of(store, view["id"])
    breaking.reset(mode, after=1)
    breaking.armed = True
    r = client.post(f"/api/games/{view['id']}/actions", json={"action": view["legal"][0]})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert "test_breaking" in error and "cannot play" in error and "as it was" in error and "\n" not in error
    assert breaking.moves == 1  # one bot had replied before the other failed
    assert state_of(store, view["id"]) == before
    after_view = client.get(f"/api/games/{view['id']}").json()
    assert view_without_events(after_view) == view_without_events(before_view) and after_view["events"] == []
    assert after_view["to_act"] == after_view["your_seat"] and after_view["legal"]
    breaking.armed = False  # the same move goes through once the bot plays
    r = client.post(f"/api/games/{view['id']}/actions", json={"action": view["legal"][0]})
    assert r.status_code == 200 and r.json()["actions"] > before_view["actions"] + 1


@pytest.mark.parametrize("game", GAMES)
def test_every_game_undoes_a_failed_move(breaking, game):
    client, store = table()
    view = human_to_act(client, game)
    before = state_of(store, view["id"])
    breaking.armed = True
    r = client.post(f"/api/games/{view['id']}/actions", json={"action": view["legal"][-1]})
    assert r.status_code == 400 and "cannot play" in r.json()["error"]
    assert state_of(store, view["id"]) == before
    assert client.get(f"/api/games/{view['id']}").json()["legal"] == view["legal"]


def test_a_bot_that_hangs_then_fails_leaves_the_game_as_it_was(breaking):
    """While a bot hangs inside a move, other requests for the game get a 503 (busy), never
    a half-made move; when the bot gives up, the move is undone whole."""
    client, store = table(limits=Limits(lock_seconds=0.5))
    with client:
        view = human_to_act(client, GAMES[0])
        before = state_of(store, view["id"])
        breaking.reset("hang", after=1)
        breaking.armed = True
        with ThreadPoolExecutor(1) as pool:
            move = pool.submit(client.post, f"/api/games/{view['id']}/actions", json={"action": view["legal"][0]})
            assert breaking.entered.wait(10)
            busy = client.get(f"/api/games/{view['id']}")
            assert busy.status_code == 503 and "busy" in busy.json()["error"]
            breaking.release.set()
            r = move.result(30)
        assert r.status_code == 400 and "TimeoutError" in r.json()["error"]
        assert state_of(store, view["id"]) == before
        breaking.armed = False
        assert client.post(f"/api/games/{view['id']}/actions", json={"action": view["legal"][0]}).status_code == 200


def test_a_failing_hint_bot_is_a_400_and_changes_nothing(breaking):
    client, store = table()
    view = human_to_act(client, GAMES[0])
    before = state_of(store, view["id"])
    breaking.armed = True
    r = client.get(f"/api/games/{view['id']}/hint", params={"bot": "test_breaking"})
    assert r.status_code == 400 and "cannot give a hint" in r.json()["error"]
    assert state_of(store, view["id"]) == before


def test_reproduction_a_bot_spec_that_divides_by_zero():
    """Issue 59, reproduction 2: ``heuristic:bid_samples=0`` then ``keep``. Either the spec is
    refused up front, or the move is a 400 that leaves the game (and the human's move)
    unchanged with the human to act; never a frozen game."""
    client, store = table()
    r = client.post("/api/games", json={"opponents": "heuristic:bid_samples=0", "seed": 4})
    if r.status_code == 400:
        assert "bid_samples" in r.json()["error"]
        return
    view = r.json()
    before = state_of(store, view["id"])
    action = "keep" if "keep" in view["legal"] else view["legal"][0]
    r = client.post(f"/api/games/{view['id']}/actions", json={"action": action})
    if r.status_code == 200:
        return  # the bot plays
    assert r.status_code == 400 and "as it was" in r.json()["error"], r.text
    assert state_of(store, view["id"]) == before
    after = client.get(f"/api/games/{view['id']}").json()
    assert after["to_act"] == after["your_seat"] and action in after["legal"]


def test_a_record_that_cannot_be_written_does_not_fail_the_move(tmp_path, caplog):
    client, store = table(records_path=tmp_path / "missing" / "records.jsonl")
    r = client.post("/api/games", json={"seed": 3, "opponents": "random", "overrides": short_game(GAMES[0])})
    view = play_out(client, r.json(), np.random.default_rng(3))
    assert view["finished"] and "could not write the record" in caplog.text


# ---------------------------------------------------------------- 2. addresses
def loopback(n: int) -> str:
    """127.0.0.n, a source address standing for another machine (Linux routes all of
    127/8 to the loopback interface); skips where it cannot be bound."""
    address = f"127.0.0.{n}"
    try:
        with socket.socket() as s:
            s.bind((address, 0))
    except OSError:
        pytest.skip(f"cannot bind {address} here")
    return address


def client_at(live, address: str, timeout: float = 30.0) -> httpx.Client:
    return httpx.Client(base_url=live.url, timeout=timeout, transport=httpx.HTTPTransport(local_address=address))


FORGED = [{"X-Forwarded-For": "10.0.0.{i}"}, {"Forwarded": "for=10.0.1.{i}"}, {"X-Real-IP": "10.0.2.{i}"},
          {"X-Forwarded-For": "10.0.3.{i}, 127.0.0.1"}]


def test_forged_forwarded_headers_do_not_dodge_the_game_rate():
    """Issue 59, reproduction 3: with a new forwarded address on every request, the
    per-address limit of new games used to be gone (150 games in 1.1 s); now the headers
    of an untrusted peer are not read at all."""
    limits = Limits(games_per_minute=5)
    with LiveServer(create_app(GameStore(BotPool()), limits=limits), limits) as live, \
            httpx.Client(base_url=live.url, timeout=10) as c:
        codes = [c.post("/api/games", json={"seed": i}, headers={k: v.format(i=i) for k, v in FORGED[i % 4].items()}
                        ).status_code for i in range(12)]
    assert codes == [200] * 5 + [429] * 7


def test_a_trusted_proxy_names_its_clients():
    limits = Limits(games_per_minute=2)
    proxies = TrustedProxies(["127.0.0.1"])
    app = create_app(GameStore(BotPool()), limits=limits, trusted_proxies=proxies)
    with LiveServer(app, limits, proxies) as live, httpx.Client(base_url=live.url, timeout=10) as c:
        def new(headers):
            return c.post("/api/games", json={"seed": 4}, headers=headers).status_code

        assert [new({"X-Forwarded-For": "10.0.0.1"}) for _ in range(3)] == [200, 200, 429]
        assert new({"X-Forwarded-For": "10.0.0.2"}) == 200  # another client behind the proxy
        # the client's own word (left of what the proxy saw) is not believed
        assert [new({"X-Forwarded-For": f"192.0.2.{i}, 10.0.0.3"}) for i in range(3)] == [200, 200, 429]
        assert [new({"Forwarded": 'for="[2001:db8::7]:4711";proto=http'}) for _ in range(3)] == [200, 200, 429]
        assert [new({"X-Real-IP": "10.0.0.4"}) for _ in range(3)] == [200, 200, 429]
        with client_at(live, loopback(2)) as other:  # not a trusted proxy: its headers are ignored
            codes = [other.post("/api/games", json={"seed": 4}, headers={"X-Forwarded-For": f"10.9.0.{i}"}).status_code
                     for i in range(3)]
        assert codes == [200, 200, 429]


@pytest.mark.parametrize("headers, client", [
    ([], "127.0.0.1"),
    ([(b"x-forwarded-for", b"10.0.0.1")], "10.0.0.1"),
    ([(b"x-forwarded-for", b"1.1.1.1, 10.0.0.1"), (b"x-forwarded-for", b"10.0.0.2")], "10.0.0.2"),
    ([(b"x-forwarded-for", b"10.0.0.5, 127.0.0.9")], "10.0.0.5"),  # trusted proxies in the chain are skipped
    ([(b"x-forwarded-for", b"10.0.0.5, garbage")], "127.0.0.1"),  # no address: go by the peer
    ([(b"forwarded", b'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"')], "2001:db8:cafe::17"),
    ([(b"forwarded", b"for=unknown")], "127.0.0.1"),
    ([(b"x-real-ip", b"10.0.0.7")], "10.0.0.7"),
    ([(b"x-real-ip", b"10.0.0.7"), (b"x-forwarded-for", b"10.0.0.8")], "10.0.0.8"),
])
def test_the_client_address_behind_a_trusted_proxy(headers, client):
    proxies = TrustedProxies(["127.0.0.0/8"])
    assert proxies.client("127.0.0.1", headers) == client
    assert TrustedProxies().client("127.0.0.1", headers) == "127.0.0.1"  # no proxy trusted: the peer


def test_a_trusted_proxy_must_be_an_address():
    with pytest.raises(ValueError, match="IP address or network"):
        TrustedProxies(["proxy.example"])


def test_one_address_cannot_fill_the_store():
    """Issue 59, reproduction 3's end: the store filled with one client's games (210 in
    1.9 s), and every client got 503 for an hour. Now one address keeps at most
    ``games_per_address`` games and replays: for a new one its own oldest goes."""
    store = GameStore(BotPool(), max_games=10, per_owner=3)
    app = create_app(store, allowed_hosts=None, limits=Limits(games_per_minute=0))
    other = TestClient(app, client=("192.0.2.1", 5000)).post("/api/games", json={"seed": 1}).json()
    flooder = TestClient(app, client=("192.0.2.2", 5000))
    made = [flooder.post("/api/games", json={"seed": i}) for i in range(20)]
    assert [r.status_code for r in made] == [200] * 20
    assert len(store) == 4
    assert [flooder.get(f"/api/games/{r.json()['id']}").status_code for r in made[-4:]] == [404, 200, 200, 200]
    assert TestClient(app).get(f"/api/games/{other['id']}").status_code == 200


# ---------------------------------------------------------------- 3. shares of one address
def open_sockets(port: int, source: str, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        socks.append(s)
    return socks


def closed_ones(socks: list[socket.socket], seconds: float = 3.0) -> int:
    """How many of ``socks`` the server has closed (waiting until the count stays put)."""
    for s in socks:
        s.setblocking(False)
    closed: set[int] = set()
    deadline = time.monotonic() + seconds
    last, steady = -1, 0
    while time.monotonic() < deadline and steady < 5:
        for i, s in enumerate(socks):
            if i in closed:
                continue
            try:
                if s.recv(4096) == b"":
                    closed.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        steady = steady + 1 if len(closed) == last else 0
        last = len(closed)
        time.sleep(0.1)
    return len(closed)


def test_one_address_cannot_hold_every_connection():
    """Issue 59, reproduction 4: idle sockets from one address used to take every
    connection, so that other clients' requests failed. Now that address holds at most
    ``connections_per_address``; the rest are closed at once, and others are served."""
    limits = Limits(max_connections=100, connections_per_address=20, header_seconds=30)
    attacker, other = loopback(2), loopback(3)
    with LiveServer(create_app(GameStore(BotPool()), limits=limits), limits) as live:
        with client_at(live, other, 60) as c:
            assert c.get("/api/options").status_code == 200  # the first options read the policies: not timed
        socks = open_sockets(live.port, attacker, 150)
        try:
            assert closed_ones(socks) == 130
            with client_at(live, other) as c:
                codes = [c.get("/api/options").status_code for _ in range(10)]
            fresh = []
            for i in range(5):  # new clients, each from an address of its own
                with client_at(live, loopback(4 + i)) as c:
                    fresh.append(c.get("/api/options").status_code)
        finally:
            for s in socks:
                s.close()
    assert codes == [200] * 10 and fresh == [200] * 5


def test_a_flood_of_hints_from_one_address_leaves_others_theirs(gated):
    """Issue 59, reproduction 5 (the fairness half): twelve hints at once from one address
    used to fill the hint pool, so that another address's cheap hints were 429s. Now one
    address has at most ``hints_per_address`` hints thinking or waiting, in at most half
    the thinkers, and another address's hints are answered meanwhile."""
    limits = Limits(hint_concurrency=2, hint_queue=8, hints_per_address=4, hint_seconds=20)
    flooder, other = loopback(2), loopback(3)
    app = create_app(GameStore(BotPool()), limits=limits)
    with LiveServer(app, limits) as live, client_at(live, flooder, 30) as a, client_at(live, other, 30) as b:
        game_a = a.post("/api/games", json={"seed": 4}).json()
        game_b = b.post("/api/games", json={"seed": 4}).json()
        with ThreadPoolExecutor(12) as pool:
            flood = [pool.submit(a.get, f"/api/games/{game_a['id']}/hint", params={"bot": "test_gated"})
                     for _ in range(12)]
            assert gated.entered.wait(10)
            for _ in range(100):  # until the refused ones have been answered
                if sum(f.done() for f in flood) == 8:
                    break
                time.sleep(0.05)
            assert app.state.table.hints.held(flooder) == 4
            cheap = [b.get(f"/api/games/{game_b['id']}/hint", params={"bot": "heuristic"}) for _ in range(3)]
            assert [r.status_code for r in cheap] == [200] * 3, [r.text for r in cheap]
            assert gated.calls == 1  # the flooder thinks in one thread only
            gated.gate.set()
            codes = sorted(f.result(30).status_code for f in flood)
    assert codes == [200] * 4 + [429] * 8


def test_one_address_holds_at_most_its_share_of_worker_threads(gated):
    """Ten moves at once from one address whose bots think for long take at most
    ``threads_per_address`` worker threads (they used to take all eight), so another
    address's new game and moves are answered meanwhile."""
    limits = Limits(threads_per_address=2, lock_seconds=30)
    busy, other = loopback(2), loopback(3)
    app = create_app(GameStore(BotPool()), limits=limits)
    with LiveServer(app, limits) as live, client_at(live, busy, 40) as a, client_at(live, other, 10) as b:
        games = [a.post("/api/games", json={"seed": 4, "opponents": "test_gated"}).json() for _ in range(10)]
        with ThreadPoolExecutor(10) as pool:
            moves = [pool.submit(a.post, f"/api/games/{g['id']}/actions", json={"action": g["legal"][0]})
                     for g in games]
            assert gated.entered.wait(10)
            time.sleep(0.3)
            view = b.post("/api/games", json={"seed": 4})
            assert view.status_code == 200
            assert b.post(f"/api/games/{view.json()['id']}/actions",
                          json={"action": view.json()["legal"][0]}).status_code == 200
            limiters = next(iter(app.state.table._limiters.values()))
            assert limiters["work"].borrowed_tokens == 2  # the busy address's two moves, thinking
            gated.gate.set()
            assert [m.result(30).status_code for m in moves] == [200] * 10


# ---------------------------------------------------------------- 4. replay logs and records files
def test_replay_logs_are_made_once_bounded_and_rate_limited(monkeypatch):
    """Issue 59, reproduction 6: a replay's log was made anew on every request, as large as
    the record made it (a 4 MB record: 28 MB in 12.8 s). Now it is made once per replay
    (kept with it and counted in the replays' memory), at most ``log_size`` bytes (the first
    moves, saying how many are left out), and each address asks at most
    ``replay_logs_per_minute`` a minute."""
    made = []
    real = store_module.move_log_json
    monkeypatch.setattr(store_module, "move_log_json", lambda *a: made.append(1) or real(*a))
    client, store = table(limits=Limits(replay_logs_per_minute=3), log_size=6000)
    record = finished_record(client)
    frame = client.post("/api/replays", json={"record": record}).json()
    cost = store.replay_bytes()
    first = client.get(f"/api/replays/{frame['id']}/log")
    assert first.status_code == 200
    assert len(first.content) <= 6000 + 200 and store.replay_bytes() == cost + len(first.content)
    log = first.json()
    full = move_log(record, human_seat(record))
    kept = len(log["entries"])
    assert 0 < kept < len(full["entries"]) and log["entries"] == full["entries"][:kept]
    assert log["moves"] == frame["steps"] and log["entries_left_out"] == frame["steps"] - kept
    second = client.get(f"/api/replays/{frame['id']}/log")
    assert second.content == first.content and len(made) == 1
    assert client.get(f"/api/replays/{frame['id']}/log").status_code == 200
    refused = client.get(f"/api/replays/{frame['id']}/log")
    assert refused.status_code == 429 and "replay logs" in refused.json()["error"] and refused.headers["retry-after"]


def test_replay_work_is_bounded_per_address():
    """Checking an uploaded record replays it whole (a 4 MB record: seconds of work), and
    so do frames and move logs: each address spends at most ``replay_seconds_per_minute``
    of worker time on them; then 429 until its share is refilled, while another address's
    replays are served."""
    client, store = table(limits=Limits(replay_seconds_per_minute=0.001, games_per_minute=0))
    record = finished_record(client)
    frame = client.post("/api/replays", json={"record": record})
    assert frame.status_code == 200  # a full share: served, and its time charged
    for r in (client.get(f"/api/replays/{frame.json()['id']}", params={"step": 3}),
              client.post("/api/replays", json={"record": record}),
              client.get(f"/api/replays/{frame.json()['id']}/log")):
        assert r.status_code == 429 and "time for replays" in r.json()["error"] and r.headers["retry-after"]
    other = TestClient(client.app, client=("192.0.2.7", 50000))
    assert other.get(f"/api/replays/{frame.json()['id']}", params={"step": 3}).status_code == 200


def test_one_record_at_a_time_from_an_address():
    """A record in memory is many times its size: while one address sends a record (here
    slowly), its next upload is a 429; another address's upload goes through."""
    limits = Limits(body_seconds=10)
    with LiveServer(create_app(GameStore(BotPool()), limits=limits), limits) as live:
        with client_at(live, loopback(2)) as c:
            record = finished_record(c)
            slow = socket.create_connection(("127.0.0.1", live.port), source_address=(loopback(2), 0))
            try:
                slow.sendall(b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n{")  # the rest never comes
                time.sleep(0.3)
                second = c.post("/api/replays", json={"record": record})
                assert second.status_code == 429 and "one at a time" in second.json()["error"]
                with client_at(live, loopback(3)) as other:
                    assert other.post("/api/replays", json={"record": record}).status_code == 200
            finally:
                slow.close()
            time.sleep(0.3)
            assert c.post("/api/replays", json={"record": record}).status_code == 200


def test_a_whole_replay_log_is_the_move_log():
    client, store = table()
    record = finished_record(client, seed=2)
    frame = client.post("/api/replays", json={"record": record}).json()
    log = client.get(f"/api/replays/{frame['id']}/log").json()
    you = human_seat(record)
    assert log == dict(move_log(record, you), you=you, moves=len(record["actions"]), entries_left_out=0)


def test_the_records_file_rotates(tmp_path):
    """``--records`` grew without a bound; now it is renamed FILE.1 (FILE.1 to FILE.2, ...)
    when a record would take it over ``records_size``, and at most ``RECORDS_KEPT`` old
    files are kept."""
    path = tmp_path / "games.jsonl"
    store = GameStore(BotPool(), records_path=path, records_size=3000)
    client = TestClient(create_app(store, allowed_hosts=None, limits=Limits(games_per_minute=0)))
    ids = []
    for seed in range(RECORDS_KEPT + 3):
        r = client.post("/api/games", json={"seed": seed, "opponents": "random", "overrides": short_game(GAMES[0])})
        ids.append(play_out(client, r.json(), np.random.default_rng(seed))["id"])
    files = [path] + [path.with_name(f"games.jsonl.{i}") for i in range(1, RECORDS_KEPT + 1)]
    assert all(f.exists() for f in files) and not path.with_name(f"games.jsonl.{RECORDS_KEPT + 1}").exists()
    kept = [json.loads(line)["meta"] for f in reversed(files) for line in f.read_text().splitlines()]
    assert len(kept) == RECORDS_KEPT + 1  # each record alone is over half the size: one a file
    newest = [store.session(i).record()["meta"] for i in ids[-len(kept):]]
    assert kept == newest


# ---------------------------------------------------------------- 5. what the server writes itself
def raw_exchange(port: int, data: bytes, pieces: int = 1) -> tuple[int, dict, dict]:
    """Send ``data`` (in ``pieces``) on a new connection; the status, headers and JSON body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        size = -(-len(data) // pieces)
        for i in range(0, len(data), size):
            try:
                s.sendall(data[i:i + size])
            except (BrokenPipeError, ConnectionResetError):
                break  # answered and closed before the rest
            time.sleep(0.01 if pieces > 1 else 0)
        answer = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


@pytest.fixture(scope="module")
def live():
    limits = Limits()
    with LiveServer(create_app(GameStore(BotPool()), limits=limits), limits) as server:
        yield server


@pytest.mark.parametrize("data", [
    b"GARBAGE\r\n\r\n",
    b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n",
    b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
    b"GET /api/\x00options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
])
def test_malformed_http_is_a_json_400(live, data):
    """Issue 59, reproduction 8: the server's own 400 used to be text/plain."""
    status, headers, body = raw_exchange(live.port, data)
    assert status == 400 and headers["content-type"] == "application/json"
    assert body["error"].startswith("invalid HTTP request") and "\n" not in body["error"]


@pytest.mark.parametrize("pieces", [1, 40])
def test_an_oversized_head_is_a_json_431(live, pieces):
    """Issue 59, reproduction 8: a 70 KB header in one packet used to be accepted (h11
    bounds only a head still incomplete); in pieces it was a text/plain 400."""
    data = b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    status, headers, body = raw_exchange(live.port, data, pieces)
    assert status == 431 and headers["content-type"] == "application/json" and "16 KB" in body["error"]
    with httpx.Client(base_url=live.url, timeout=10) as c:  # heads within the bound are served
        assert c.get("/api/options", headers={"X-Fine": "a" * 8000}).status_code == 200
