"""The web table's budgets (issue 26): a bounded bot cache keyed by the normal form of a
spec, a per-decision search budget, hints with a time limit and a bounded queue, one game's
work never holding up another game, replays bounded in memory, a per-client rate of new
games. What each budget is and its default: :mod:`redbeard_web.limits`."""

from __future__ import annotations

import gc
import json
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older installs
    httpx = pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.bots import BotPool, normal_spec  # noqa: E402
from redbeard_web.limits import Limits, RateLimiter  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402
from agents.registry import parse_spec  # noqa: E402
from web_helpers import LiveServer, finished_record, gated  # noqa: E402,F401 (gated: a fixture)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def client_of(bots=None, limits=None, **store_kwargs):
    store = GameStore(BotPool() if bots is None else bots, **store_kwargs)
    return TestClient(create_app(store, allowed_hosts=None, limits=limits)), store


def human_first(client, **body):
    """A new game where the human moves first (seed 4: no bot moves before the human)."""
    r = client.post("/api/games", json={"seed": 4, **body})
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------- 1. bot cache and search budget
def test_the_bot_cache_is_bounded():
    """300 hints with distinct specs keep at most ``bot_cache`` bots built (every distinct
    spec used to be kept forever: 300 ``ppo:classic_4p,seed=N`` added 577 MB)."""
    bots = BotPool(max_bots=8)
    client, _ = client_of(bots)
    v = human_first(client)
    for seed in range(300):
        r = client.get(f"/api/games/{v['id']}/hint", params={"bot": f"random:seed={seed}"})
        assert r.status_code == 200, r.text
        assert len(bots) <= 8
    assert bots.builds == 301  # and the game's heuristic


def test_the_default_bot_cache_is_bounded_too():
    bots = BotPool()
    for seed in range(100):
        bots.get(f"random:seed={seed}")
    assert len(bots) == Limits().bot_cache < 100


def test_specs_are_cached_by_their_normal_form():
    """``PPO:`` in capitals, keyword order and spaces make no new bot."""
    bots = BotPool()
    first, _ = bots.get("heuristic:win_value=6,neg_extra=1")
    for same in ("HEURISTIC:neg_extra=1,win_value=6", " heuristic : neg_extra=1 , win_value=6 "):
        assert bots.get(same)[0] is first
    assert bots.builds == 1
    assert normal_spec(parse_spec("PIMC:seed=1,samples=8")) == "pimc:samples=8,seed=1"
    pytest.importorskip("torch")
    assert bots.get("PPO:classic_4p")[0] is bots.get("ppo:classic_4p")[0]


def test_hints_never_share_a_bot_with_games():
    """A hint's bot is another than the one playing in games (a long hint would otherwise
    hold up every game whose bots have the same spec: they share one bot and its lock)."""
    bots = BotPool()
    playing, play_lock = bots.get("pimc:samples=8")
    hinting, hint_lock = bots.get("pimc:samples=8", role="hint")
    assert playing is not hinting and play_lock is not hint_lock
    with hint_lock:  # a hint thinking with this spec
        assert play_lock.acquire(timeout=0.1)  # a game's move goes on
        play_lock.release()


@pytest.mark.parametrize("spec", ["pimc:samples=1000000", "pimc:samples=200000,seed=3", "pimc:samples=5000",
                                  "pimc:samples=2000,max_actions=8", "pimc:samples=512,rollout=pimc",
                                  "joins:always,base=pimc", "pimc:samples=" + "9" * 15])
def test_a_search_beyond_the_budget_is_refused_at_once(spec):
    """One ``pimc:samples=1000000`` hint used to run 108 s at a 4.2 GB peak: now a 400
    naming the budget (or, beyond pimc's declared range, that range), before any bot is
    built or searches."""
    bots = BotPool(search_budget=1024)
    client, store = client_of(bots)
    v = human_first(client)
    start = time.perf_counter()
    r = client.get(f"/api/games/{v['id']}/hint", params={"bot": spec})
    if spec.startswith("joins"):  # the base bot's cost counts: default pimc, 64 playouts: allowed
        assert r.status_code == 200, r.text
        return
    refusal = "samples must be an int in 1..4096" if int(spec.split("=")[1].split(",")[0]) > 4096 else "search budget"
    assert r.status_code == 400, r.text
    assert refusal in r.json()["error"] and ("1024" in r.json()["error"] or refusal != "search budget")
    assert time.perf_counter() - start < 2 and bots.builds == 1  # only the game's heuristic was built
    r = client.post("/api/games", json={"opponents": spec})  # as an opponent: refused, nothing stored
    assert r.status_code == 400 and refusal in r.json()["error"]
    assert len(store) == 1


def test_searches_within_the_budget_play():
    bots = BotPool(search_budget=1024)
    client, _ = client_of(bots)
    v = human_first(client, opponents="pimc:samples=64")
    r = client.get(f"/api/games/{v['id']}/hint", params={"bot": "pimc:samples=256,max_actions=4"})
    assert r.status_code == 200 and r.json()["action"] in v["legal"]


def test_cached_search_bots_are_bounded_by_their_cost():
    """Search bots keep engines sized by their search: at most ``SEARCHES_KEPT`` budgets of
    search cost stay cached, whatever the number of bots allowed."""
    from redbeard_web.bots import SEARCHES_KEPT

    bots = BotPool(max_bots=100, search_budget=1024)
    for seed in range(SEARCHES_KEPT + 4):
        bots.get(f"pimc:samples=256,seed={seed}")  # 256 x 4 candidates = 1024 each
    assert len(bots) == SEARCHES_KEPT
    assert BotPool(max_bots=100, search_budget=1024, max_search=2048).max_search == 2048


# ---------------------------------------------------------------- hints: time limit, queue, leaving
def test_a_hint_answers_within_its_time_limit(gated):
    """A hint whose bot thinks too long is a 503 with Retry-After after ``hint_seconds``;
    its thinker is free again once the bot is done."""
    limits = Limits(hint_seconds=0.5, hint_concurrency=1, hint_queue=1)
    client, _ = client_of(limits=limits)
    with client:
        v = human_first(client)
        start = time.perf_counter()
        r = client.get(f"/api/games/{v['id']}/hint", params={"bot": "test_gated"})
        assert r.status_code == 503 and "longer than 0.5 s" in r.json()["error"], r.text
        assert r.headers["retry-after"] == "1" and time.perf_counter() - start < 5
        table = client.app.state.table
        assert table.hints.in_flight == 1  # still thinking
        gated.gate.set()
        for _ in range(100):
            if table.hints.in_flight == 0:
                break
            time.sleep(0.02)
        assert table.hints.in_flight == 0
        assert client.get(f"/api/games/{v['id']}/hint", params={"bot": "heuristic"}).status_code == 200


def test_too_many_hints_at_once_are_429(gated):
    limits = Limits(hint_seconds=5, hint_concurrency=1, hint_queue=1)
    client, _ = client_of(limits=limits)
    with client:
        v = human_first(client)
        with ThreadPoolExecutor(2) as pool:
            busy = [pool.submit(client.get, f"/api/games/{v['id']}/hint", params={"bot": "test_gated"})
                    for _ in range(2)]
            assert gated.entered.wait(10)
            time.sleep(0.2)
            r = client.get(f"/api/games/{v['id']}/hint", params={"bot": "heuristic"})
            assert r.status_code == 429 and "too many hints" in r.json()["error"]
            assert int(r.headers["retry-after"]) >= 1
            gated.gate.set()
            assert [f.result().status_code for f in busy] == [200, 200]


def test_a_hint_whose_client_left_never_starts(gated):
    """A hint waiting for a thinker is dropped when its client goes away (it used to run
    on after the client had gone)."""
    limits = Limits(hint_seconds=20, hint_concurrency=1, hint_queue=4)
    app = create_app(GameStore(BotPool()), limits=limits)
    with LiveServer(app, limits) as live, httpx.Client(base_url=live.url, timeout=30) as c:
        v = c.post("/api/games", json={"seed": 4}).json()
        url = f"/api/games/{v['id']}/hint?bot=test_gated"
        first = threading.Thread(target=lambda: httpx.get(live.url + url, timeout=30))
        first.start()  # takes the only thinker, waits at the gate
        assert gated.entered.wait(10)
        with pytest.raises(httpx.TimeoutException):
            httpx.get(live.url + url, timeout=0.5)  # queued behind it, then the client leaves
        time.sleep(0.3)
        assert app.state.table.hints.in_flight == 1  # the queued hint was dropped unstarted
        gated.gate.set()
        first.join(10)
        time.sleep(0.2)
        assert gated.calls == 1 and app.state.table.hints.in_flight == 0


# ---------------------------------------------------------------- 2. one game never holds up another
def test_a_long_hint_holds_neither_its_game_nor_others(gated):
    """While a hint thinks for long, 60 GETs of its own game and a GET of another game all
    answer at once (they used to wait: 60 GETs took every worker thread, and a GET of
    another game waited 28 s)."""
    limits = Limits(connections_per_address=100)  # 60 clients at once, all from 127.0.0.1
    app = create_app(GameStore(BotPool()), limits=limits)
    with LiveServer(app, limits) as live, httpx.Client(base_url=live.url, timeout=30) as c:
        a = c.post("/api/games", json={"seed": 4}).json()
        b = c.post("/api/games", json={"seed": 7}).json()
        hint = threading.Thread(target=lambda: httpx.get(f"{live.url}/api/games/{a['id']}/hint?bot=test_gated",
                                                          timeout=30))
        hint.start()
        assert gated.entered.wait(10)
        with ThreadPoolExecutor(60) as pool:
            views = list(pool.map(lambda _: httpx.get(f"{live.url}/api/games/{a['id']}", timeout=25), range(60)))
        other = c.get(f"/api/games/{b['id']}", timeout=10)
        assert [r.status_code for r in views] == [200] * 60 and other.status_code == 200
        assert hint.is_alive()  # all answered while the hint was still thinking (its bot waits at the gate)
        gated.gate.set()
        hint.join(10)


def test_requests_for_a_busy_game_wait_without_threads_and_time_out(gated):
    """Game A's bots think for long (inside an action). 60 GETs of A wait in the event
    loop, not in worker threads (they used to take every worker thread, so that a GET of
    another game waited 28 s), and get a 503 with Retry-After after ``lock_seconds``;
    meanwhile game B is served."""
    limits = Limits(lock_seconds=10, connections_per_address=100)  # 60 waiting clients, all from 127.0.0.1
    app = create_app(GameStore(BotPool()), limits=limits)
    with LiveServer(app, limits) as live, httpx.Client(base_url=live.url, timeout=30) as c:
        a = c.post("/api/games", json={"seed": 4, "opponents": "test_gated"}).json()  # the human moves first
        b = c.post("/api/games", json={"seed": 7}).json()
        act = threading.Thread(target=lambda: httpx.post(f"{live.url}/api/games/{a['id']}/actions",
                                                         json={"action": a["legal"][0]}, timeout=30))
        act.start()
        assert gated.entered.wait(10)  # A's bot is thinking, holding A
        results = {}

        def get_a(i):
            results[i] = httpx.get(f"{live.url}/api/games/{a['id']}", timeout=30)

        waiting = [threading.Thread(target=get_a, args=(i,)) for i in range(60)]
        for t in waiting:
            t.start()
        for _ in range(400):  # until every GET of A waits at A's gate
            gate = app.state.table.gates._gates.get(a["id"])
            if gate is not None and gate[1] == 61:
                break
            time.sleep(0.02)
        else:
            raise AssertionError("the GETs of A did not all arrive")
        limiters = next(iter(app.state.table._limiters.values()))
        assert limiters["work"].borrowed_tokens == 1  # A's action, thinking
        assert "view" not in limiters or limiters["view"].borrowed_tokens == 0  # no thread waits for A
        start = time.perf_counter()
        assert c.get(f"/api/games/{b['id']}", timeout=5).status_code == 200
        assert c.post(f"/api/games/{b['id']}/actions", json={"action": b["legal"][0]}, timeout=5).status_code == 200
        assert time.perf_counter() - start < 5  # B does not wait for A (nor for A's waiters)
        for t in waiting:
            t.join(30)
        assert {r.status_code for r in results.values()} == {503}
        assert all(r.headers["retry-after"] == "10" and "busy" in r.json()["error"] for r in results.values())
        gated.gate.set()
        act.join(10)
        assert c.get(f"/api/games/{a['id']}").status_code == 200


# ---------------------------------------------------------------- 4. replays and new games
def big_meta_record(client, floats: int) -> dict:
    record = finished_record(client)
    return dict(record, meta={"junk": [0.1 * i for i in range(floats)]})


def test_record_uploads_are_bounded_in_size():
    client, store = client_of(limits=Limits(record_size=100_000))
    record = big_meta_record(client, 20_000)
    r = client.post("/api/replays", json={"record": record})
    assert r.status_code == 413 and "100000 bytes" in r.json()["error"]
    assert client.post("/api/replays", json={"record": finished_record(client, seed=2)}).status_code == 200


def test_replays_keep_no_free_data():
    """A 3.3 MB record whose meta held 836k floats used to cost ~32 MB a replay (20 of them
    642 MB); a replay now keeps only the record's game fields."""
    client, store = client_of(limits=Limits(record_size=4 * 2**20))
    record = big_meta_record(client, 200_000)
    body = json.dumps({"record": record}).encode()
    del record
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(10):
            r = client.post("/api/replays", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 200, r.text
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 5 * 2**20, kept  # ten replays: well under 5 MB (they were 10 x 6 MB)
    assert store.replay_bytes() < 5 * 2**20


def test_replays_are_bounded_in_memory():
    """Open replays stay within ``replay_memory``: the least recently used go first, and a
    record too large for the budget alone is a 413."""
    client, store = client_of(limits=Limits(games_per_minute=0), replay_memory=1_000_000)
    record = finished_record(client, seed=3)
    ids = [client.post("/api/replays", json={"record": record}).json()["id"] for _ in range(30)]
    assert store.replay_bytes() <= 1_000_000
    assert client.get(f"/api/replays/{ids[0]}").status_code == 404  # the oldest were dropped
    assert client.get(f"/api/replays/{ids[-1]}").status_code == 200
    small, _ = client_of(replay_memory=10_000)
    r = small.post("/api/replays", json={"record": record})
    assert r.status_code == 413 and "replays" in r.json()["error"]


def test_an_address_opening_replays_drops_its_own_not_anothers():
    """The soak's replay attack (one address opening a long record again and again) used to
    push an ordinary player's replay out of the shared budget (a 404 mid-replay): room is
    now made from the address holding the most."""
    store = GameStore(BotPool(), replay_memory=1_000_000)
    app = create_app(store, allowed_hosts=None, limits=Limits(games_per_minute=0))
    player = TestClient(app, client=("10.0.0.1", 5000))
    flood = TestClient(app, client=("10.0.0.2", 5000))
    record = finished_record(player, seed=3)
    mine = player.post("/api/replays", json={"record": record}).json()["id"]
    theirs = [flood.post("/api/replays", json={"record": record}).json()["id"] for _ in range(30)]
    assert store.replay_bytes() <= 1_000_000
    assert player.get(f"/api/replays/{mine}").status_code == 200  # the player's stays
    assert flood.get(f"/api/replays/{theirs[0]}").status_code == 404  # the flood's oldest went
    assert flood.get(f"/api/replays/{theirs[-1]}").status_code == 200


def test_new_games_are_rate_limited_per_client():
    """466 POSTs in 0.9 s used to fill the 500 game slots for an hour: now each client
    address gets ``games_per_minute`` new games a minute (the burst), then 429s with
    Retry-After; other addresses are not affected; tokens come back with time."""
    clock = Clock()
    store = GameStore(BotPool(), clock=clock)
    app = create_app(store, allowed_hosts=None, limits=Limits(games_per_minute=5))
    one = TestClient(app, client=("10.0.0.1", 5000))
    other = TestClient(app, client=("10.0.0.2", 5000))
    assert [one.post("/api/games", json={}).status_code for _ in range(5)] == [200] * 5
    r = one.post("/api/games", json={})
    assert r.status_code == 429 and "too many new games" in r.json()["error"]
    assert 1 <= int(r.headers["retry-after"]) <= 12
    assert one.post("/api/replays", json={"record": {}}).status_code == 429  # replays count too
    assert other.post("/api/games", json={}).status_code == 200
    assert len(store) == 6
    clock.now += 12  # one token a 12 s
    assert one.post("/api/games", json={}).status_code == 200
    assert one.post("/api/games", json={}).status_code == 429


def test_the_rate_limiter_forgets_old_clients():
    clock = Clock()
    rate = RateLimiter(2, clock=clock, max_clients=100)
    for i in range(1000):
        assert rate.take(f"10.0.{i // 256}.{i % 256}") == 0.0
    assert len(rate) == 100
    assert rate.take("a") == 0.0 and rate.take("a") == 0.0 and rate.take("a") == pytest.approx(30.0)


def test_a_bot_of_the_other_game_stores_nothing():
    """Group 3 of the issue (fixed before): a refused request stores nothing, and the first
    bot moves run before a game is stored (test_web_games.py has the full checks)."""
    client, store = client_of()
    r = client.post("/api/games", json={"game": "sortskaeg", "opponents": "joins:always"})
    assert r.status_code == 400 and "Rödskägg" in r.json()["error"] and len(store) == 0


def test_views_of_a_game_stay_consistent_while_hints_think():
    """A hint copies its question and thinks without the game; the game moves on meanwhile
    and the hint answers the decision it was asked about."""
    bots = BotPool()
    client, store = client_of(bots)
    v = human_first(client)
    job = store.hint_job(v["id"], "heuristic")
    after = client.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]}).json()
    assert after["actions"] > v["actions"]
    answer = job.run()
    assert answer["action"] in v["legal"] and set(answer["values"]) == set(v["legal"])
    assert job.actions == v["actions"]
