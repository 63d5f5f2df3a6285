"""The card table's API for every registered game: the stakes of every question, the round's
result with every score change, the levels and their measured ratings, the review of your
play (judged only on what you knew), the move log of a reopened game and of a replay, the
rules page, and the server saying when its bots are ready."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
from redbeard_web import levels as L  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.bots import check_bot_spec  # noqa: E402
from redbeard_web.ready import Readiness, warm_up  # noqa: E402
from redbeard_web.review import ReviewJob, review  # noqa: E402
from redbeard_web.session import BotPool, GameSession, parse_new_game  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402

from game_parts import games_with, has_levels  # noqa: E402

GAMES = redbeard_env.registered_games()
LEVEL_GAMES = games_with(has_levels)  # the games with bots enough for levels
QUESTION_MOVES = {"join", "fold", "ask", "skip", "look", "no_look", "keep", "redeal"}


@pytest.fixture(scope="module")
def bots():
    return BotPool()


@pytest.fixture(scope="module")
def client(bots):
    return TestClient(create_app(GameStore(bots), allowed_hosts=None))


def short(game: str) -> dict:
    fields = redbeard_env.game_named(game).make_rules().__dataclass_fields__
    return {"start_score": 5} if "start_score" in fields else {}


def play_out(client, body: dict, seed: int, on_view=None) -> tuple[dict, list[dict]]:
    """A whole game with random moves; returns the last view and every view seen."""
    rng = np.random.default_rng(seed)
    v = client.post("/api/games", json=body).json()
    seen = [v]
    while not v["finished"]:
        if on_view is not None:
            on_view(v)
        v = client.post(f"/api/games/{v['id']}/actions", json={"action": str(rng.choice(v["legal"]))}).json()
        seen.append(v)
    return v, seen


# ---------------------------------------------------------------- stakes and prompts
@pytest.mark.parametrize("game", GAMES)
def test_every_question_says_its_stakes(client, game):
    """At every decision of every preset the view has stakes (a join, ask, look or redeal
    question among them wherever the sheet has one) and its action-specific entries name
    legal moves."""
    info = redbeard_env.game_named(game)
    asked = set()
    for k, preset in enumerate(info.presets):
        for seed in range(3):
            body = {"game": game, "rules": preset, "seed": 100 * k + seed, "opponents": "random",
                    "overrides": short(game)}

            def check(v):
                assert v["stakes"] and all(s["text"] for s in v["stakes"]), (v["phase"], v["question"])
                for s in v["stakes"]:
                    assert s["action"] is None or s["action"] in v["legal"], s
                asked.update(QUESTION_MOVES & set(v["legal"]))

            play_out(client, body, seed, check)
    if game == GAMES[0]:
        assert asked == QUESTION_MOVES, asked


def test_prompts_fit_the_sheet(bots):
    """Under fem_opp any hand may be thrown in, so the prompt does not say it has no face
    card; a dealer who must bid is told so, and Pass is not offered."""
    info = redbeard_env.game_named(GAMES[0])
    for seed in range(30):
        opts = parse_new_game({"rules": "fem_opp", "seed": seed, "opponents": "random"})
        s = GameSession("x", opts["rules"], 4, 0, opts["agents"], seed, bots)
        s.run_bots()
        if s.game.phase == "redeal":
            assert "no face card" not in s.views.question(s.game, 0)
            assert any(x["action"] == "redeal" and "look" in x["text"] for x in s.views.stakes(s.game, 0))
            break
    engine, views = info.parts.game, s.views
    g = engine.new_game(info.make_rules("classic"), 4, np.random.default_rng(1), dealer=0)
    while g.phase != "bid":
        engine.apply_action(g, engine.legal_actions(g)[0])  # keep
    while g.to_act != 0:
        engine.apply_action(g, info.action_id("pass"))
    assert "pass" not in [info.action_name(a) for a in engine.legal_actions(g)]
    assert "you must bid" in views.question(g, 0)
    assert any("must bid" in x["text"] for x in views.stakes(g, 0))
    assert "must bid" in views.why_illegal(g, 0, "pass")


# ---------------------------------------------------------------- the round's result
@pytest.mark.parametrize("game", GAMES)
def test_the_rounds_result_lists_every_score_change(client, game):
    """Each round's result lists every score change of the round with its reason, the
    penalties charged earlier in the round (a look, a bid over the score, a skipped question)
    included: its before/after agree with the score sheet, the items add up."""
    info = redbeard_env.game_named(game)
    for k, preset in enumerate(info.presets):
        body = {"game": game, "rules": preset, "seed": 7 + k, "opponents": "random", "overrides": short(game)}
        end, views = play_out(client, body, k)
        ends = [e for v in views for ev in v["events"] for e in ev["effects"] if e["type"] == "round_end"]
        rows = end["sheet"]
        assert len(ends) == len(rows)
        start = client.get(f"/api/games/{end['id']}/record").json()["start_scores"]
        before = list(start)
        for e, row in zip(ends, rows):
            changed = {c["seat"]: c for c in e["changes"]}
            for s in range(end["players"]):
                if s in changed:
                    c = changed[s]
                    assert (c["before"], c["after"]) == (before[s], row["scores"][s]), (preset, e["summary"])
                    assert sum(i["delta"] for i in c["items"]) == c["after"] - c["before"]
                    assert all(i["text"] and i["reason"] for i in c["items"])
                else:
                    assert row["scores"][s] == before[s], (preset, s, e["summary"])
            assert all(c["text"] in e["summary"] for c in e["changes"])
            before = list(row["scores"])


# ---------------------------------------------------------------- levels
@pytest.mark.parametrize("game", LEVEL_GAMES)
def test_levels_are_measured_and_strictly_ordered(client, game):
    r = client.get(f"/api/levels?game={game}")
    assert r.status_code == 200
    data = r.json()
    levels = data["levels"]
    assert len(levels) >= 3, data
    names = list(L.LEVEL_NAMES)
    assert [lv["name"] for lv in levels] == names[:len(levels) - 1] + names[-1:]  # Beginner ... Expert
    ratings = [lv["rating"] for lv in levels]
    assert all(a < b for a, b in zip(ratings, ratings[1:])), ratings
    for lv in levels:
        assert check_bot_spec(lv["bot"], game) == lv["bot"]
    entry = L.shipped()["games"][game]
    assert entry["command"].startswith("python -m redbeard_web.levels --measure") and entry["measured"]
    assert set(lv["bot"] for lv in entry["levels"]) <= set(entry["candidates"])
    for preset in redbeard_env.game_named(game).presets:  # every sheet: a bot of that game for each level
        for lv in client.get(f"/api/levels?game={game}&rules={preset}").json()["levels"]:
            assert check_bot_spec(lv["bot"], game)


def test_levels_errors_and_the_picking_rule(client):
    assert client.get("/api/levels").status_code == 400
    assert "error" in client.get("/api/levels?game=nope").json()
    assert client.get(f"/api/levels?game={GAMES[0]}&rules=nope").status_code == 400
    rated = {b: {"mu": mu, "sigma": 1.0} for b, mu in [("a", 20.0), ("b", 25.0), ("c", 25.0), ("d", 30.0), ("e", 31.0)]}
    picked = L.pick_levels(rated)
    assert [p["bot"] for p in picked] == ["a", "b", "d", "e"]
    assert [p["name"] for p in picked] == list(L.LEVEL_NAMES)
    three = L.pick_levels({b: {"mu": mu, "sigma": 1.0} for b, mu in [("a", 20.0), ("b", 25.0), ("c", 30.0)]})
    assert [p["name"] for p in three] == ["Beginner", "Club", "Expert"]  # the weakest a beginner's, the best expert
    assert L.lineups(["x", "y", "z"]) == [("x", "y", "x", "y"), ("x", "z", "x", "z"), ("y", "z", "y", "z")]
    # one level per kind of bot: the weaker policy gives way to the stronger, so the search
    # and the policy it stands on both stay (the spacing would otherwise drop one of them)
    kinds = {b: {"mu": mu, "sigma": 1.0} for b, mu in [("random", 17.0), ("heuristic", 24.0), ("pimc", 26.0),
                                                       ("ppo:b", 27.0), ("ppo:a", 27.5), ("search", 28.0)]}
    assert [p["bot"] for p in L.pick_levels(kinds)] == ["random", "heuristic", "ppo:a", "search"]
    assert L.kind_of("ppo:a") == "ppo" and L.kind_of("search:policy=ppo:a,ms=20") == "search"


@pytest.mark.parametrize("game", LEVEL_GAMES)
def test_each_level_names_the_policy_it_plays_by(client, game):
    """A level's ``policy`` is the shipped network it plays by (what the page's "trained for"
    label reads): a policy is its own, a search names its network or searches the default."""
    from agents.registry import check_spec

    for preset in redbeard_env.game_named(game).presets:
        for lv in client.get(f"/api/levels?game={game}&rules={preset}").json()["levels"]:
            if lv["bot"].startswith("ppo:"):
                assert lv["policy"] == lv["bot"]
            elif lv["bot"].startswith("search:policy="):
                assert lv["policy"] == lv["bot"].split("=", 1)[1]
            elif lv["bot"] == "search":
                assert lv["policy"] == check_spec("search", game).factory.DEFAULT_POLICY
            else:
                assert lv["policy"] is None, lv
    assert L.policy_of("pimc:rollout=ppo:classic_4p", GAMES[0]) == "ppo:classic_4p"


@pytest.mark.parametrize("game", LEVEL_GAMES)
def test_every_sheet_plays_its_own_policy_and_the_search_on_it(game):
    """At a sheet with a policy of its own, a level's policy is that sheet's, and the level's
    ``search`` searches that sheet's policy, not the default sheet's."""
    from agents.registry import available_agents, check_spec

    cands = L.candidates(game)
    assert ("search" in cands) == ("search" in available_agents(game))
    for preset, swap in L.per_rules(game, cands).items():
        assert preset != redbeard_env.game_named(game).default_rules
        if "search" in swap:
            default = check_spec("search", game).factory.DEFAULT_POLICY
            assert swap["search"] == f"search:policy={swap[default]}" and swap[default] != default
            assert check_bot_spec(swap["search"], game) == swap["search"]


# ---------------------------------------------------------------- review
@pytest.mark.parametrize("game", GAMES)
def test_the_review_ranks_your_decisions_by_cost(client, game):
    body = {"game": game, "seed": 21, "opponents": "heuristic", "overrides": short(game)}
    end, _ = play_out(client, body, 3)
    r = client.get(f"/api/games/{end['id']}/review")
    assert r.status_code == 200, r.text
    rev = r.json()
    record = client.get(f"/api/games/{end['id']}/record").json()
    assert rev["finished"] and rev["entries"] and rev["units"] in ("points", "win probability")
    costs = [e["cost"] for e in rev["entries"]]
    assert costs == sorted(costs, reverse=True) and all(c > 0 for c in costs)
    digits = 1 if rev["units"] == "points" else 3  # rounded to what a player tells apart
    assert all(round(c, digits) == c for c in costs + [rev["total_cost"]]), costs
    for e in rev["entries"]:
        seat, name = record["actions"][e["move"]]
        assert seat == end["your_seat"] and name == e["chosen"] != e["suggested"]
        assert e["units"] == rev["units"]
        assert e["values"][e["suggested"]] - e["values"][e["chosen"]] == pytest.approx(e["cost"], abs=2e-3)


def test_the_review_asks_the_strongest_level_bot_that_values_moves():
    from redbeard_web.review import default_bot, values_actions

    for game in LEVEL_GAMES:
        bots = [lv["bot"] for lv in L.levels_of(game)["levels"]]
        chosen = default_bot(game)
        assert chosen in bots and values_actions(chosen, game), (game, chosen)
        assert not any(values_actions(b, game) for b in bots[bots.index(chosen) + 1:]), (game, bots)
    for game in set(GAMES) - set(LEVEL_GAMES):  # no levels: the bot the caller names (the views' REVIEW_BOT)
        assert not L.levels_of(game)["levels"] and default_bot(game, "random") == "random"


def test_the_review_sees_only_your_observation_then(bots):
    """The bot is given exactly the observation your seat had at each decision (recorded while
    playing), never the full state; while the game runs only finished rounds are reviewed."""
    game = GAMES[0]
    opts = parse_new_game({"game": game, "seed": 5, "opponents": "heuristic", "overrides": {"start_score": 4}})
    s = GameSession("x", opts["rules"], 4, 0, opts["agents"], 5, bots)
    s.run_bots()
    seen = {}
    rng = np.random.default_rng(0)
    while not s.finished:
        seen[len(s.recorder.actions)] = s.observation(0)[0].copy()
        s.act(str(rng.choice(s.legal_names())))
        if len(s.recorder.rounds) == 1 and "mid" not in seen:
            seen["mid"] = review(s, "heuristic")

    class Spy:
        value_units = "points"
        given: list = []

        def action_values(self, obs, mask):
            Spy.given.append(np.array(obs))
            return np.where(mask > 0, np.arange(mask.shape[1])[None, :] * 1.0, -np.inf)

    class SpyPool:
        def get(self, spec, game=None, role="play"):
            import threading
            assert role == "hint"  # a review never uses a bot playing in a game
            return Spy(), threading.Lock()

    s.bots = SpyPool()
    out = review(s, "heuristic")
    given = np.concatenate(Spy.given)
    assert len(given) == out["reviewed"] > 0
    yours = [o for m, o in seen.items() if isinstance(m, int)]
    assert all(any(np.array_equal(g, o) for o in yours) for g in given)
    mid = seen["mid"]
    assert not mid["finished"] and mid["moves"] < len(s.recorder.actions)
    assert mid["entries"] and all(e["round"] == 1 for e in mid["entries"])


def test_a_review_stops_at_its_time(bots):
    """A slow bot is stopped between decisions once the review's time is up (TimeUp, a
    503 at the route), instead of thinking on for a client that was already answered."""
    import threading
    import time

    from redbeard_web.review import CHUNK, TimeUp

    opts = parse_new_game({"game": GAMES[0], "seed": 3, "opponents": "heuristic", "overrides": {"start_score": 4}})
    s = GameSession("x", opts["rules"], 4, 0, opts["agents"], 3, bots)
    s.run_bots()
    rng = np.random.default_rng(1)
    while not s.finished:
        s.act(str(rng.choice(s.legal_names())))

    class Slow:
        value_units = "points"
        calls = 0

        def action_values(self, obs, mask):
            Slow.calls += 1
            time.sleep(0.05)
            return np.where(mask > 0, 0.0, -np.inf)

    class SlowPool:
        def check(self, spec, game=None):
            return spec

        def get(self, spec, game=None, role="play"):
            return Slow(), threading.Lock()

    s.bots = SlowPool()
    job = ReviewJob(s, "slow")
    assert len(job.rows) > 3 * CHUNK  # enough decisions that a whole review takes longer
    with pytest.raises(TimeUp, match="took too long"):
        job.run(seconds=0.01)
    assert Slow.calls == 1  # one chunk, then the clock said stop
    assert len(ReviewJob(s, "slow").run(seconds=60)["entries"]) == 0  # all ties: nothing to review
    assert Slow.calls == 1 + -(-len(job.rows) // CHUNK)


def test_review_errors(client):
    v = client.post("/api/games", json={"game": GAMES[0], "seed": 1}).json()
    assert client.get("/api/games/nope/review").status_code == 404
    r = client.get(f"/api/games/{v['id']}/review?bot=random")
    assert r.status_code == 400 and "no values" in r.json()["error"]
    assert client.get(f"/api/games/{v['id']}/review?bot=../etc").status_code == 400
    r = client.get(f"/api/games/{v['id']}/review").json()
    assert r["entries"] == [] and not r["finished"]  # no finished round yet


# ---------------------------------------------------------------- logs, rules, ready
@pytest.mark.parametrize("game", GAMES)
def test_the_log_of_a_game_and_of_its_replay(client, game):
    body = {"game": game, "seed": 4, "opponents": "heuristic", "overrides": short(game)}
    end, views = play_out(client, body, 4)
    log = client.get(f"/api/games/{end['id']}/log").json()
    texts = [ev["text"] for v in views for ev in v["events"]]
    assert [e["text"] for e in log["entries"]] == texts and log["actions"] == len(texts)
    assert any(e["winner"] is not None for e in log["entries"])
    record = client.get(f"/api/games/{end['id']}/record").json()
    frame = client.post("/api/replays", json={"record": record}).json()
    rlog = client.get(f"/api/replays/{frame['id']}/log").json()
    assert rlog["you"] == end["your_seat"] and len(rlog["entries"]) == len(record["actions"])
    assert rlog["rounds"][0] == {"round": 1, "move": 0} and len(rlog["rounds"]) == len(record["rounds"]) or \
        len(rlog["rounds"]) == len(record["rounds"]) + 1
    assert client.get("/api/replays/nope/log").status_code == 404


def test_a_games_log_hides_face_down_moves(client):
    """Another player's discard (Sortskæg, deal=carry) is logged without its card."""
    checked = 0
    for game in GAMES:
        info = redbeard_env.game_named(game)
        if "carry" not in getattr(info.parts.rules, "CHOICES", {}).get("deal", ()):
            continue
        body = {"game": game, "seed": 3, "opponents": "random", "overrides": {"deal": "carry", "hand_sizes": [3, 2, 1]}}
        end, _ = play_out(client, body, 1)
        log = client.get(f"/api/games/{end['id']}/log").json()
        others = [e for e in log["entries"] if e["seat"] != end["your_seat"] and e["action"].startswith("discard")]
        assert others and all(e["action"] == "discard" and "discards a card" in e["text"] for e in others)
        checked += 1
    if not checked:
        pytest.skip("no game with face-down moves")


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_is_the_games_own(client, game):
    info = redbeard_env.game_named(game)
    v = client.post("/api/games", json={"game": game, "seed": 1, "overrides": short(game)}).json()
    page = client.get(f"/api/games/{v['id']}/rules").json()
    assert page["title"] == info.title and len(page["page"]) >= 4
    text = json.dumps(page["page"], ensure_ascii=False)
    if short(game):
        assert "starts on 5 points" in text
    options = client.get("/api/options").json()
    mine = next(g for g in options["games"] if g["name"] == game)
    assert set(mine["rules_pages"]) == set(info.presets)


def test_ready_before_and_after_the_warm_up(bots, client):
    """Without a warm-up the server is ready; a warm-up loads every level's bot and says so,
    and then a new game with any level's bot builds no bot (it is ready; how fast:
    ``benchmarks/web_ready.py``)."""
    assert client.get("/api/ready").json()["ready"] is True
    state = Readiness()
    warm_up(bots, state, moves=3)
    status = state.status()
    assert status["state"] == "ready" and status["ready"] and status["loaded"]
    assert len(status["loaded"]) == status["total"]
    builds = bots.builds
    for game in GAMES:
        for lv in L.levels_of(game)["levels"]:
            r = client.post("/api/games", json={"game": game, "opponents": lv["bot"], "seat": 3})
            assert r.status_code == 200
    assert bots.builds == builds  # every level's bot was built by the warm-up


def test_the_server_says_when_it_is_ready_and_then_answers_at_once(tmp_path):
    """``redbeard-web`` loads its bots at start-up: ``/api/ready`` says how far it is, a log
    line says when it is done, and then every level of every game starts a game (how fast:
    ``benchmarks/web_ready.py``; tests assert no timings)."""
    import os
    import subprocess
    import sys
    import urllib.request

    def get(path: str) -> dict:
        with urllib.request.urlopen(url + path, timeout=60) as r:
            return json.loads(r.read())

    def post(path: str, body: dict) -> int:
        request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--port", "0"], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = "http://127.0.0.1:" + line.split("localhost:")[1].split("/")[0]
        for _ in range(600):  # the port is bound before the server listens
            try:
                first = get("/api/ready")
                break
            except OSError:
                time.sleep(0.1)
        assert set(first) >= {"ready", "state", "loaded", "total"}
        log = proc.stderr.readline()  # the warm-up's line
        assert "ready" in log and "bots loaded" in log, log
        assert get("/api/ready")["ready"] is True
        for game in GAMES:
            for lv in L.levels_of(game)["levels"]:
                assert post("/api/games", {"game": game, "opponents": lv["bot"], "seat": 3}) == 200
    finally:
        proc.terminate()
        proc.wait(10)
