"""The web app's JSON API with Starlette's test client, in Rödskägg (the first game): the
contract of every route, illegal and malformed input, every phase reachable, hints, records
and replays, expiry and bounded memory. The checks that are the same for every game (and
the hidden-card scan) are in test_web_games.py and test_web_hidden.py."""

from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

from redbeard_env.redbeard import game as G  # noqa: E402
from redbeard_env.redbeard import records as R  # noqa: E402
from redbeard_env.redbeard.cards import card_name  # noqa: E402
from redbeard_env.redbeard.rules import PRESETS  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore, StoreFull  # noqa: E402

VIEW_KEYS = {"id", "phase", "to_act", "your_seat", "hand", "legal", "scores", "finished", "winner", "events"}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture(scope="module")
def bots():
    return BotPool()  # shared: heuristic and random are built once for the whole module


def make_client(bots, **store_kwargs):
    store = GameStore(bots, **store_kwargs)
    return TestClient(create_app(store, allowed_hosts=None)), store


@pytest.fixture
def client(bots):
    c, _ = make_client(bots)
    return c


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def play_out(client, view, rng, on_view=None, max_moves=5000):
    """The human plays uniformly random legal actions to the end."""
    for _ in range(max_moves):
        if view["finished"]:
            return view
        assert view["legal"], view["phase"]
        r = client.post(f"/api/games/{view['id']}/actions", json={"action": str(rng.choice(view["legal"]))})
        assert r.status_code == 200, r.text
        view = r.json()
        if on_view:
            on_view(view)
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------- contract
def test_new_game_returns_the_humans_view(client):
    v = new_game(client, rules="fem_opp", players=5, seat=2, opponents="heuristic", seed=3)
    assert VIEW_KEYS <= set(v)
    assert v["your_seat"] == 2 and v["players"] == 5 and v["agents"][2] == "human"
    assert v["agents"].count("heuristic") == 4 and v["rules"]["redeal"] == "challenge"
    assert not v["finished"] and v["winner"] is None
    assert v["to_act"] == 2 and v["legal"]  # the bots before the human have moved
    assert len(v["hand"]) == 6 and v["scores"] == [12] * 5
    # the human's hand is sorted by suit (S H C D), high cards first within a suit
    order = [("SHCD".index(c[1]), -"23456789TJQKA".index(c[0])) for c in v["hand"]]
    assert order == sorted(order)
    # events: the bots' moves so far, one per move, in order, each with the table after it
    for ev in v["events"]:
        assert set(ev) >= {"seat", "action", "text", "effects", "table"} and ev["seat"] != 2
    assert v["actions"] == len(v["events"])
    # a second look has no new events
    again = client.get(f"/api/games/{v['id']}").json()
    assert again["events"] == [] and again["hand"] == v["hand"] and again["legal"] == v["legal"]


def test_undelivered_events_are_bounded(bots, monkeypatch):
    import redbeard_web.session as S

    monkeypatch.setattr(S, "MAX_PENDING_EVENTS", 1)
    dealer = int(np.random.default_rng(2).integers(4))
    v = GameStore(bots).create({"seed": 2, "seat": dealer})  # the dealer calls last: 3 bots before
    assert v["actions"] >= 3
    assert len(v["events"]) == 1 and v["events_skipped"] == v["actions"] - 1
    assert v["events"][0]["seat"] == (dealer - 1) % 4  # the latest move is kept


def test_same_seed_same_deal_and_unseeded_games_differ(client):
    a = new_game(client, seed=42, opponents="heuristic")
    b = new_game(client, seed=42, opponents="heuristic")
    assert a["hand"] == b["hand"] and a["events"] == b["events"] and a["id"] != b["id"]
    hands = {tuple(new_game(client)["hand"]) for _ in range(4)}
    assert len(hands) > 1


def test_action_applies_and_bots_answer(client):
    v = new_game(client, seed=1, seat=0, opponents="heuristic")
    first = v["legal"][0]
    w = client.post(f"/api/games/{v['id']}/actions", json={"action": first}).json()
    assert w["events"][0]["seat"] == 0 and w["events"][0]["action"] == first
    assert w["actions"] == v["actions"] + len(w["events"])
    assert w["finished"] or w["to_act"] == 0  # back to the human (or the end)


def test_illegal_and_malformed_actions_are_400_and_change_nothing(client):
    v = new_game(client, seed=5)
    gid = v["id"]
    illegal = "play:AS" if v["phase"] != "play" else "pass"
    cases = [
        ({"action": illegal}, "illegal action"),
        ({"action": "bid:9"}, "unknown action"),
        ({"action": "fly"}, "unknown action"),
        ({"action": 52}, "action name"),
        ({"action": None}, "action name"),
        ({"move": "pass"}, '"action"'),
        ({"action": "pass", "extra": 1}, '"action"'),
        ([], '"action"'),
    ]
    for body, message in cases:
        r = client.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == 400, (body, r.text)
        assert message in r.json()["error"], (body, r.json())
    r = client.post(f"/api/games/{gid}/actions", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/actions", content=b"action=pass",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    after = client.get(f"/api/games/{gid}").json()
    assert after["actions"] == v["actions"] and after["hand"] == v["hand"] and after["legal"] == v["legal"]
    assert after["events"] == []


def test_unknown_ids_are_404(client):
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/actions", json={"action": "pass"}).status_code == 404
    assert client.post("/api/games/nope/actions", json={"bad": 1}).status_code == 404
    assert client.get("/api/games/nope/hint").status_code == 404
    assert client.get("/api/games/nope/record").status_code == 404
    assert client.get("/api/replays/nope").status_code == 404
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and "error" in r.json()


BAD_GAMES = [
    ({"rules": "chess"}, "preset"),
    ({"players": 8}, "players"),
    ({"players": "4"}, "players"),
    ({"seat": 4}, "seat"),
    ({"seat": -1}, "seat"),
    ({"opponents": "grandmaster"}, "unknown bot"),
    ({"opponents": ["heuristic"]}, "opponents"),
    ({"opponents": "ppo:/etc/passwd"}, "not allowed"),
    ({"opponents": "ppo:../../secret.pt"}, "not allowed"),
    ({"opponents": "pimc:rollout=ppo:x"}, "not allowed"),
    ({"seed": -3}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"overrides": {"colour": "red"}}, "colour"),
    ({"overrides": {"leader": "nobody"}}, "leader"),
    ({"overrides": "start_score=3"}, "overrides"),
    ({"colour": "red"}, "unknown field"),
]


@pytest.mark.parametrize("body,message", BAD_GAMES, ids=[m + str(i) for i, (_, m) in enumerate(BAD_GAMES)])
def test_bad_new_game_requests_are_400(client, body, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert message in r.json()["error"]


def test_a_bot_that_cannot_be_built_stores_no_game(bots):
    client, store = make_client(bots)
    r = client.post("/api/games", json={"opponents": "heuristic:colour=3"})
    assert r.status_code == 400 and "colour" in r.json()["error"]
    assert len(store) == 0


def test_options_list_presets_and_bots(client):
    o = client.get("/api/options").json()
    assert set(o["presets"]) == set(PRESETS)
    assert o["presets"]["raudskjegg"]["auction"] == "open"
    assert {"heuristic", "pimc", "random"} <= set(o["bots"])
    assert o["players"] == [3, 7]


def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and 'data-testid="new-game"' in r.text and 'data-testid="game-over"' in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    js = client.get("/static/app.js")
    assert js.status_code == 200 and "data-action" in js.text
    assert client.get("/static/style.css").status_code == 200


def test_only_loopback_host_names_by_default(bots):
    app = create_app(GameStore(bots))
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/options").status_code == 200
    assert TestClient(app, base_url="http://localhost:8000").get("/api/options").status_code == 200
    assert TestClient(app, base_url="http://evil.example:8000").get("/api/options").status_code == 400


def test_body_size_is_bounded(client):
    big = b'{"record": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    r = client.post("/api/replays", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413


# ---------------------------------------------------------------- phases
def test_every_phase_is_reachable_for_the_human(client):
    """The human is asked every kind of question: fem_opp has redeals of any hand and the
    look rule; seven players starting on 1 point often tie on 0, hence duels."""
    rng = np.random.default_rng(0)
    seen: set[str] = set()

    def note(view):
        if view["legal"]:
            seen.add(view["phase"])

    settings = [
        dict(rules="fem_opp", players=4, overrides={"start_score": 4}),
        dict(rules="classic", players=7, overrides={"start_score": 1}),
    ]
    for k in range(60):
        body = dict(settings[k % 2], seat=k % 3, opponents="random", seed=k)
        v = new_game(client, **body)
        note(v)
        play_out(client, v, rng, note)
        if seen >= {"redeal", "look", "bid", "ask", "join", "play", "duel"}:
            break
    print(f"all phases after {k + 1} games")
    assert seen == {"redeal", "look", "bid", "ask", "join", "play", "duel"}


# ---------------------------------------------------------------- hidden information
# The hidden-card scan runs for every registered game in test_web_hidden.py.


def test_record_only_once_finished(client):
    v = new_game(client, seed=3, opponents="random", overrides={"start_score": 3})
    r = client.get(f"/api/games/{v['id']}/record")
    assert r.status_code == 409 and "not finished" in r.json()["error"]
    v = play_out(client, v, np.random.default_rng(3))
    record = client.get(f"/api/games/{v['id']}/record").json()
    game = R.replay(record)
    assert game.scores == v["scores"] and game.winner == v["winner"]
    assert record["agents"][0] == "human" and record["seed"] == 3
    r = client.post(f"/api/games/{v['id']}/actions", json={"action": "pass"})
    assert r.status_code == 400 and "over" in r.json()["error"]


# ---------------------------------------------------------------- hints
def test_hint_heuristic_values_cover_the_legal_actions(client):
    v = new_game(client, seed=12, opponents="heuristic")
    for _ in range(6):
        h = client.get(f"/api/games/{v['id']}/hint", params={"bot": "heuristic"}).json()
        assert h["bot"] == "heuristic" and h["kind"] == "utility"
        assert set(h["values"]) == set(v["legal"])
        assert h["action"] in v["legal"]
        assert h["values"][h["action"]] == max(h["values"].values())  # the heuristic plays its best value
        v = client.post(f"/api/games/{v['id']}/actions", json={"action": h["action"]}).json()
        if v["finished"]:
            break
        assert v["events"][0]["action"] == h["action"]


def test_hint_other_bots_and_errors(client):
    v = new_game(client, seed=13)
    h = client.get(f"/api/games/{v['id']}/hint", params={"bot": "random"}).json()
    assert h["action"] in v["legal"] and h["values"] is None and h["kind"] is None
    r = client.get(f"/api/games/{v['id']}/hint", params={"bot": "ppo:/etc/passwd"})
    assert r.status_code == 400
    assert client.get(f"/api/games/{v['id']}").json()["actions"] == v["actions"]  # a hint changes nothing
    v = play_out(client, v, np.random.default_rng(0))
    r = client.get(f"/api/games/{v['id']}/hint")
    assert r.status_code == 400 and "not your turn" in r.json()["error"]


def test_a_full_game_against_the_shipped_policy_with_its_hints(client):
    """What a new user does: play ppo:classic_4p to the winner (here with the policy's
    own hints, which are action probabilities)."""
    pytest.importorskip("torch")
    v = new_game(client, seed=14, opponents="ppo:classic_4p", overrides={"start_score": 4})
    assert v["agents"].count("ppo:classic_4p") == 3
    while not v["finished"]:
        h = client.get(f"/api/games/{v['id']}/hint", params={"bot": "ppo:classic_4p"}).json()
        assert h["kind"] == "probability" and set(h["values"]) == set(v["legal"])
        assert abs(sum(h["values"].values()) - 1) < 1e-3
        assert h["values"][h["action"]] == max(h["values"].values())  # a greedy policy
        v = client.post(f"/api/games/{v['id']}/actions", json={"action": h["action"]}).json()
    assert v["winner"] is not None
    record = client.get(f"/api/games/{v['id']}/record").json()
    assert R.replay(record).winner == v["winner"]


# ---------------------------------------------------------------- replays
def test_replay_steps_through_a_record_with_every_hand(client):
    v = play_out(client, new_game(client, seed=15, opponents="random", overrides={"start_score": 4}),
                 np.random.default_rng(15))
    record = client.get(f"/api/games/{v['id']}/record").json()
    frame = client.post("/api/replays", json={"record": record}).json()
    n = record["players"]
    assert frame["step"] == 0 and frame["steps"] == len(record["actions"])
    assert [sorted(h) for h in frame["hands"]] == [sorted(h) for h in record["deals"][0]["hands"]]
    assert len(frame["stock"]) == 52 - 6 * n
    rid = frame["id"]
    mid = client.get(f"/api/replays/{rid}", params={"step": 5}).json()
    assert mid["last"]["action"] == record["actions"][4][1] and mid["next"]["action"] == record["actions"][5][1]
    back = client.get(f"/api/replays/{rid}", params={"step": 2}).json()  # stepping back rewinds
    assert back["last"]["action"] == record["actions"][1][1]
    end = client.get(f"/api/replays/{rid}", params={"step": frame["steps"]}).json()
    assert end["finished"] and end["winner"] == record["winner"] and end["scores"] == record["scores"]
    assert client.get(f"/api/replays/{rid}", params={"step": frame["steps"] + 1}).status_code == 400
    assert client.get(f"/api/replays/{rid}", params={"step": "-1"}).status_code == 400
    bad = dict(record, winner=None if record["winner"] is not None else 0)
    r = client.post("/api/replays", json={"record": bad})
    assert r.status_code == 400 and "winner" in r.json()["error"]
    assert client.post("/api/replays", json={"recording": record}).status_code == 400


# ---------------------------------------------------------------- many games, memory
def test_games_expire_and_memory_stays_bounded(bots):
    clock = Clock()
    client, store = make_client(bots, max_games=3, idle_seconds=100, finished_seconds=10, clock=clock)
    a = new_game(client, seed=1)
    b = new_game(client, seed=2)
    c = new_game(client, seed=3)
    r = client.post("/api/games", json={})
    assert r.status_code == 503 and "too many games" in r.json()["error"]  # all three running and fresh
    clock.now += 50
    client.get(f"/api/games/{a['id']}")  # looking at a game keeps it alive
    clock.now += 60  # b and c idle for 110 s > 100 s
    d = new_game(client, seed=4)
    assert len(store) == 2
    assert client.get(f"/api/games/{b['id']}").status_code == 404
    assert client.get(f"/api/games/{c['id']}").status_code == 404
    assert client.get(f"/api/games/{a['id']}").status_code == 200
    # a finished game goes after finished_seconds, a running one stays
    play_out(client, client.get(f"/api/games/{d['id']}").json(), np.random.default_rng(4))
    clock.now += 11
    assert store.sweep() == 1
    assert client.get(f"/api/games/{d['id']}").status_code == 404
    assert client.get(f"/api/games/{a['id']}").status_code == 200


def test_a_full_store_drops_the_oldest_finished_game_first(bots):
    clock = Clock()
    store = GameStore(bots, max_games=2, clock=clock)
    client = TestClient(create_app(store, allowed_hosts=None))
    done = play_out(client, new_game(client, seed=1, opponents="random", overrides={"start_score": 3}),
                    np.random.default_rng(1))
    running = new_game(client, seed=2)
    new_game(client, seed=3)  # room is made by dropping the finished game
    assert client.get(f"/api/games/{done['id']}").status_code == 404
    assert client.get(f"/api/games/{running['id']}").status_code == 200
    with pytest.raises(StoreFull):
        store.create({})


def test_finished_games_are_written_to_the_records_file_once(bots, tmp_path):
    path = tmp_path / "web.jsonl"
    client, _ = make_client(bots, records_path=path)
    rng = np.random.default_rng(6)
    ids = []
    for seed in (6, 7):
        v = play_out(client, new_game(client, seed=seed, opponents="random", overrides={"start_score": 3}), rng)
        ids.append(v["id"])
        client.get(f"/api/games/{v['id']}")
    records = R.load_records(path)  # each one replays exactly
    assert [r["seed"] for r in records] == [6, 7]
    assert all(r["meta"]["app"] == "redbeard-web" for r in records)


def test_session_view_matches_the_engine(bots):
    """The view's public facts are the engine's: scores, phase, seat to act, hand."""
    store = GameStore(bots)
    v = store.create({"seed": 8, "players": 5, "seat": 3})
    s = store.session(v["id"])
    g = s.game
    assert v["scores"] == g.scores and v["phase"] == g.phase and v["to_act"] == g.to_act
    assert sorted(v["hand"]) == sorted(card_name(c) for c in g.hands[3])
    assert v["legal"] == [__import__("redbeard_env").action_name(a) for a in G.legal_actions(g)]
    assert [p["hand_size"] for p in v["table"]["players"]] == [len(h) for h in g.hands]
