"""Property-based fuzzing of the web table with Hypothesis (issue 26).

A ``RuleBasedStateMachine`` drives the JSON API through Starlette's test client: it creates
games of every registered game with random bodies (valid and not), acts legally and
illegally, asks for hints with random bot specs, fetches records, opens replays of valid and
mutated records, steps through them, and lets time pass (an injected clock) so that games
expire. After every request it checks, against a simple model of the store:

* no 5xx, ever; every error is ``{"error": "<one line>"}``;
* a refused request (4xx) leaves its game exactly as it was, and stores nothing new;
* no answer shows a card the human may not know (the hidden-card logic of
  test_web_hidden.py, applied to every answer once its game's record is known);
* a finished game's record replays exactly (:func:`redbeard_env.records.replay`) to the
  scores the human saw, and a mutated record is accepted exactly when it still replays;
* expired games and replays are 404s; the bot cache, the replay memory and the gates stay
  within bounds.

Separate ``@given`` tests fuzz one kind of input each (new-game bodies, bot specs, actions,
records). The default run is small (see ``EXAMPLES``); the ``slow`` variants run many more
(``pytest -m slow tests/test_web_fuzz.py``).
"""

from __future__ import annotations

import copy
import json
import random
import re
import types

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, initialize, invariant,  # noqa: E402
                                 multiple, precondition, rule)
from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from redbeard_env.records import replay, validate  # noqa: E402
from redbeard_web.app import MAX_STEP_DIGITS, create_app  # noqa: E402
from redbeard_web.guards import MAX_MESSAGE  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
import redbeard_web.session as session_module  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402
from test_web_hidden import Cards, knowledge_by_step  # noqa: E402
from web_helpers import short_game  # noqa: E402
from web_strategies import (GAMES, any_bodies, bad_actions, bot_specs, json_values, mutated_records,  # noqa: E402
                            valid_bodies)

IDLE = 10**6  # seconds before a game expires: small clock steps never reach it, big ones do
EXPIRE_AFTER = 15  # steps of an example before everything may expire
LIMITS = Limits(games_per_minute=0, search_budget=256, hint_seconds=60, lock_seconds=60)
POOL = BotPool(max_bots=16, search_budget=LIMITS.search_budget)  # shared by the @given tests (bots built once)
EXAMPLES = {"machine": 15, "steps": 25, "bodies": 200, "specs": 200, "actions": 200, "records": 200}
SLOW = {"machine": 400, "steps": 50, "bodies": 3000, "specs": 3000, "actions": 2000, "records": 3000}
STATS = {"requests": 0, "refused": 0, "answers_scanned": 0, "games_finished": 0, "replays": 0, "hints": 0,
         "mutated_records_accepted": 0, "mutated_records_refused": 0, "expiries": 0}
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                    HealthCheck.filter_too_much], derandomize=False)


_STATELESS: dict = {}


def stateless_cached(spec: str, game: str):
    """The pool's factory in the machine: bots without random state (the heuristics, greedy
    policies) are built once for all examples (loading a policy is slow); the others
    afresh, so that an example replays the same."""
    if spec.split(":")[0] in ("heuristic", "ppo") and "greedy" not in spec and "seed" not in spec:
        if (spec, game) not in _STATELESS:
            _STATELESS[(spec, game)] = make_agent(spec, game=game, seed=0)
        return _STATELESS[(spec, game)]
    return make_agent(spec, game=game, seed=0)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def make_client(store: GameStore) -> TestClient:
    return TestClient(create_app(store, allowed_hosts=None, limits=LIMITS))


def checked(r, sent: object = None):
    """A response as the fuzzer accepts it: never a 5xx, JSON, errors of one short line."""
    STATS["requests"] += 1
    assert r.status_code < 500, (r.status_code, r.text[:500], str(sent)[:300])
    body = r.json()
    if r.status_code >= 400:
        STATS["refused"] += 1
        assert set(body) == {"error"} and isinstance(body["error"], str), body
        assert "\n" not in body["error"] and len(body["error"]) <= MAX_MESSAGE
    return body


def snapshot(store: GameStore, gid: str):
    """What a refused request must not change about a game (white-box)."""
    session = store._entries.get(gid)
    if session is None or not hasattr(session, "recorder"):
        return None
    g = session.game
    return (len(session.recorder.actions), g.phase, g.to_act, tuple(g.scores),
            tuple(tuple(h) for h in g.hands), len(session.pending), session.finished)


class Model:
    """What the machine knows of one game: its game, the human's seat, the last view, and
    every answer the human got (checked for hidden cards once the record is known)."""

    def __init__(self, view: dict):
        self.game = view["game"]
        self.seat = view["your_seat"]
        self.view = view
        self.answers: list[tuple[dict, int, str]] = [(view, view["actions"], "")]
        self.gone = False
        self.checked = False


def scan_answers(model: Model, record: dict) -> None:
    """The hidden-card check of test_web_hidden.py for every answer of a finished game:
    only cards the human may know at that moment (cards the client itself sent aside), no
    face-down move of another seat told with its card, no seed while the game runs."""
    cards = Cards(model.game)
    known, face_down = knowledge_by_step(record, model.seat)
    for answer, actions, sent in model.answers:
        shown = cards.find(answer) - cards.find(sent)
        assert shown <= known[actions], (model.game, answer.get("phase"), shown - known[actions])
        text = json.dumps(answer, ensure_ascii=False)
        for spec in set(answer.get("agents", [])) | {answer.get("bot", "")} | {sent}:
            text = text.replace(json.dumps(spec, ensure_ascii=False)[1:-1], "") if spec else text  # bot specs may say seed=
        if "error" in answer:  # fixed texts may say "seed"; the seed's value is never in one
            assert record["seed"] < 10**4 or not re.search(rf"\b{record['seed']}\b", text), answer
        elif "seed" in text and not answer.get("finished"):
            raise AssertionError(f"a running game's answer mentions the seed: {str(answer)[:300]}")
        first = actions - len(answer.get("events", []))
        for j, ev in enumerate(answer.get("events", [])):
            if first + j in face_down:
                assert not cards.find([ev["action"], ev["text"], ev["said"]]), (model.game, ev["action"])
        STATS["answers_scanned"] += 1
    model.checked = True


class WebTableMachine(RuleBasedStateMachine):
    games = Bundle("games")
    records = Bundle("records")
    replays = Bundle("replays")

    def __init__(self):
        super().__init__()
        # the server is deterministic within an example (so that Hypothesis can replay and
        # shrink one): bots of its own (their generators start afresh), seeds of unseeded
        # games from a fixed generator, and the clock
        self.pool = BotPool(stateless_cached, max_bots=16, search_budget=LIMITS.search_budget)
        self._secrets = session_module.secrets
        session_module.secrets = types.SimpleNamespace(randbelow=random.Random(0).randrange)
        self.clock = Clock()
        self.store = GameStore(self.pool, max_games=10_000, idle_seconds=IDLE, finished_seconds=IDLE, clock=self.clock,
                               per_owner=10_000)  # every request here comes from one address
        self.client = make_client(self.store)
        self.models: dict[str, Model] = {}
        self.steps = 0
        self.replay_steps: dict[str, int] = {}
        self.gone_replays: set[str] = set()

    # ------------------------------------------------------------ helpers
    def actions_now(self, gid: str) -> int:
        session = self.store._entries.get(gid)
        return len(session.recorder.actions) if session is not None else 0

    def expect_gone(self, r, gid: str) -> bool:
        """True (and a 404 checked) if ``gid`` has expired in the model."""
        model = self.models[gid]
        if model.gone:
            assert r.status_code == 404, r.text[:300]
            return True
        return False

    def finish(self, gid: str) -> None:
        """Once a game is over: its record replays exactly, and every answer is scanned."""
        model = self.models[gid]
        record = checked(self.client.get(f"/api/games/{gid}/record"))
        finished = replay(record)
        assert list(finished.scores) == model.view["scores"] == record["scores"]
        if not model.checked:
            scan_answers(model, record)
            STATS["games_finished"] += 1
        return record

    def answer(self, gid: str, body: dict, sent: str = "") -> None:
        self.models[gid].answers.append((body, self.actions_now(gid), sent))

    # ------------------------------------------------------------ games
    @initialize(target=games, body=valid_bodies())
    def first_game(self, body):
        return self.create_valid(body)

    @rule(target=games, body=valid_bodies())
    def create_valid(self, body):
        before = len(self.store)
        r = self.client.post("/api/games", json=body)
        view = checked(r, body)
        if r.status_code != 200:  # e.g. a player count the preset's hands do not fit
            assert len(self.store) == before
            return multiple()
        assert view["game"] == body["game"] and view["your_seat"] == body["seat"]
        assert view["finished"] or view["to_act"] == body["seat"]
        self.models[view["id"]] = Model(view)
        return view["id"]

    @rule(target=games, body=any_bodies())
    def create_any(self, body):
        before = len(self.store)
        r = self.client.post("/api/games", json=body)
        view = checked(r, body)
        if r.status_code != 200:
            assert len(self.store) == before  # a refused request stores nothing
            return multiple()
        self.models[view["id"]] = Model(view)
        return view["id"]

    @rule(target=records, gid=games, pick=st.integers(0, 10**6), moves=st.integers(1, 40))
    def act_legal(self, gid, pick, moves):
        """Up to ``moves`` legal actions; the record once the game is over."""
        for _ in range(moves):
            model = self.models[gid]
            view = model.view
            action = view["legal"][pick % len(view["legal"])] if view["legal"] else "pass"
            r = self.client.post(f"/api/games/{gid}/actions", json={"action": action})
            if self.expect_gone(r, gid):
                return multiple()
            body = checked(r, action)
            if view["finished"]:
                assert r.status_code == 400 and "over" in body["error"]
                return multiple()
            assert r.status_code == 200, body
            assert body["actions"] == view["actions"] + len(body["events"]) + body["events_skipped"]
            model.view = body
            self.answer(gid, body, action)
            if body["finished"]:
                return multiple(self.finish(gid))
        return multiple()

    @rule(gid=games, data=st.data())
    def act_illegal(self, gid, data):
        model = self.models[gid]
        info = redbeard_env.game_named(model.game)
        names = [info.action_name(a) for a in range(info.num_actions) if info.action_name(a) not in model.view["legal"]]
        pick = data.draw(st.integers(0, 10**6))  # a number, not a name: the draws do not depend on the game
        action = data.draw(bad_actions(model.game)) if pick % 2 or not names else names[pick % len(names)]
        before = snapshot(self.store, gid)
        r = self.client.post(f"/api/games/{gid}/actions", json={"action": action})
        if self.expect_gone(r, gid):
            return
        body = checked(r, action)
        assert r.status_code == 400, body
        assert snapshot(self.store, gid) == before  # the game is unchanged
        self.answer(gid, body, f"{action}\n{action!r}\n{json.dumps(action)}")  # however the server quotes it

    @rule(gid=games, data=st.data())
    def hint(self, gid, data):
        model = self.models[gid]
        spec = data.draw(bot_specs(model.game))
        before = snapshot(self.store, gid)
        r = self.client.get(f"/api/games/{gid}/hint", params={"bot": spec})
        if self.expect_gone(r, gid):
            return
        body = checked(r, spec)
        assert snapshot(self.store, gid)[:5] == before[:5]  # a hint never moves the game
        STATS["hints"] += 1
        if r.status_code == 200:
            assert body["action"] in model.view["legal"]
            assert body["values"] is None or set(body["values"]) <= set(model.view["legal"])
        self.answer(gid, body, f"{spec}\n{spec!r}")

    @rule(gid=games)
    def view(self, gid):
        r = self.client.get(f"/api/games/{gid}")
        if self.expect_gone(r, gid):
            return
        body = checked(r)
        assert r.status_code == 200 and body["actions"] == self.models[gid].view["actions"]
        assert body["events"] == []  # every move was delivered with the answer that made it
        self.models[gid].view = body
        self.answer(gid, body)

    @rule(target=records, gid=games)
    def record(self, gid):
        r = self.client.get(f"/api/games/{gid}/record")
        if self.expect_gone(r, gid):
            return multiple()
        body = checked(r)
        if not self.models[gid].view["finished"]:
            assert r.status_code == 409
            self.answer(gid, body)
            return multiple()
        return self.finish(gid)

    # ------------------------------------------------------------ replays
    @rule(target=replays, record=records)
    def open_replay(self, record):
        r = self.client.post("/api/replays", json={"record": record})
        frame = checked(r)
        assert r.status_code == 200 and frame["step"] == 0 and frame["steps"] == len(record["actions"])
        self.replay_steps[frame["id"]] = frame["steps"]
        STATS["replays"] += 1
        return frame["id"]

    @rule(target=replays, record=records, data=st.data())
    def open_mutated_replay(self, record, data):
        mutated = data.draw(mutated_records(record))
        try:
            validate(copy.deepcopy(mutated))
            valid = True
        except ValueError:
            valid = False
        before = len(self.store)
        r = self.client.post("/api/replays", json={"record": mutated})
        frame = checked(r)
        assert (r.status_code == 200) == valid, (r.status_code, frame)
        STATS["mutated_records_accepted" if valid else "mutated_records_refused"] += 1
        if not valid:
            assert len(self.store) == before
            return multiple()
        self.replay_steps[frame["id"]] = frame["steps"]
        return frame["id"]

    @rule(rid=replays, step=st.integers(-3, 400) | st.text(max_size=8) | st.just("9" * 50))
    def replay_step(self, rid, step):
        r = self.client.get(f"/api/replays/{rid}", params={"step": step})
        if rid in self.gone_replays:
            assert r.status_code == 404
            return
        frame = checked(r, step)
        # A query string has no types: "0" is the step 0, as the route documents (ASCII digits).
        text = str(step)
        ok = (text.isascii() and text.isdigit() and len(text) <= MAX_STEP_DIGITS
              and int(text) <= self.replay_steps[rid])
        assert (r.status_code == 200) == ok, (step, frame)
        if ok and int(text) == self.replay_steps[rid]:
            assert frame["finished"]

    # ------------------------------------------------------------ time
    @rule(seconds=st.floats(0, 100))
    def time_passes(self, seconds):
        self.clock.now += seconds  # never enough to expire anything (IDLE)

    @precondition(lambda self: self.steps >= EXPIRE_AFTER)  # late in an example: everything is 404 after
    @rule(gid=consumes(games))
    def everything_expires(self, gid):
        """A long pause: every game and replay expires (404 from now on)."""
        self.clock.now += 2 * IDLE
        STATS["expiries"] += 1
        for model in self.models.values():
            model.gone = True
        self.gone_replays |= set(self.replay_steps)
        r = self.client.get(f"/api/games/{gid}")
        assert r.status_code == 404 and "expired" in checked(r)["error"]
        self.store.sweep()
        assert len(self.store) == 0

    # ------------------------------------------------------------ invariants and the end
    @invariant()
    def within_bounds(self):
        self.steps += 1
        table = self.client.app.state.table
        assert len(table.gates) == 0 and table.hints.in_flight == 0  # nothing left behind
        assert len(self.pool) <= self.pool.max_bots
        assert self.store.replay_bytes() <= self.store.replay_memory

    def teardown(self):
        """Play the running games on (a bounded number of moves) so that their answers can
        be scanned against their records."""
        try:
            self.play_on()
        finally:
            session_module.secrets = self._secrets

    def play_on(self):
        rng = np.random.default_rng(0)
        for gid, model in self.models.items():
            if model.gone or model.checked:
                continue
            for _ in range(150):
                if model.view["finished"]:
                    break
                action = str(rng.choice(model.view["legal"]))
                model.view = checked(self.client.post(f"/api/games/{gid}/actions", json={"action": action}))
                self.answer(gid, model.view, action)
            if model.view["finished"]:
                self.finish(gid)


class LongWebTableMachine(WebTableMachine):
    """The same machine, run for many more examples (the ``slow`` marker)."""


TestWebTableMachine = WebTableMachine.TestCase
TestWebTableMachine.settings = settings(max_examples=EXAMPLES["machine"], stateful_step_count=EXAMPLES["steps"],
                                        **COMMON)
TestWebTableMachineLong = pytest.mark.slow(LongWebTableMachine.TestCase)
TestWebTableMachineLong.settings = settings(max_examples=SLOW["machine"], stateful_step_count=SLOW["steps"], **COMMON)


# ---------------------------------------------------------------- one kind of input each
@pytest.fixture(scope="module")
def store():
    return GameStore(POOL, max_games=100_000, per_owner=100_000)  # every request here comes from one address


@pytest.fixture(scope="module")
def client(store):
    return make_client(store)


@pytest.fixture(scope="module")
def running(client):
    """A running game of every game, the human to act."""
    out = {}
    for game in GAMES:
        for seed in range(50):
            v = client.post("/api/games", json={"game": game, "seed": seed}).json()
            if not v["events"]:
                out[game] = v
                break
    return out


@pytest.fixture(scope="module")
def finished_records(client):
    rng = np.random.default_rng(0)
    out = []
    for game in GAMES:
        short = short_game(game, 2)
        v = client.post("/api/games", json={"game": game, "seed": 3, "opponents": "random", "overrides": short}).json()
        while not v["finished"]:
            v = client.post(f"/api/games/{v['id']}/actions", json={"action": str(rng.choice(v["legal"]))}).json()
        out.append(client.get(f"/api/games/{v['id']}/record").json())
    return out


def new_game_bodies_test(client, store, body):
    before = len(store)
    r = client.post("/api/games", json=body)
    checked(r, body)
    assert len(store) == before + (r.status_code == 200)


def bot_specs_test(client, store, running, game, spec):
    gid = running[game]["id"]
    before = snapshot(store, gid)
    r = client.get(f"/api/games/{gid}/hint", params={"bot": spec})
    body = checked(r, spec)
    assert snapshot(store, gid)[:5] == before[:5]
    if r.status_code == 200:
        assert body["action"] in running[game]["legal"]


def actions_test(client, store, running, game, action):
    gid = running[game]["id"]
    before = snapshot(store, gid)
    r = client.post(f"/api/games/{gid}/actions", json={"action": action})
    checked(r, action)
    assert r.status_code == 400 and snapshot(store, gid) == before


def records_test(client, store, record, mutated):
    try:
        validate(copy.deepcopy(mutated))
        valid = True
    except ValueError:
        valid = False
    r = client.post("/api/replays", json={"record": mutated})
    checked(r)
    assert (r.status_code == 200) == valid
    STATS["mutated_records_accepted" if valid else "mutated_records_refused"] += 1


def fuzz(name: str, runner, *strategies, slow: bool = False):
    """A ``@given`` test of ``runner`` with the default or the slow example count."""
    count = (SLOW if slow else EXAMPLES)[name]
    return settings(max_examples=count, **COMMON)(given(*strategies)(runner))


@pytest.mark.parametrize("slow", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["default", "slow"])
def test_any_new_game_body(client, store, slow):
    fuzz("bodies", lambda body: new_game_bodies_test(client, store, body), any_bodies() | json_values, slow=slow)()


@pytest.mark.parametrize("slow", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["default", "slow"])
def test_any_bot_spec(client, store, running, slow):
    specs = st.sampled_from(GAMES).flatmap(lambda g: st.tuples(st.just(g), bot_specs(g)))
    fuzz("specs", lambda pair: bot_specs_test(client, store, running, *pair), specs, slow=slow)()


@pytest.mark.parametrize("slow", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["default", "slow"])
def test_any_bad_action(client, store, running, slow):
    actions = st.sampled_from(GAMES).flatmap(lambda g: st.tuples(st.just(g), bad_actions(g)))
    fuzz("actions", lambda pair: actions_test(client, store, running, *pair), actions, slow=slow)()


@pytest.mark.parametrize("slow", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["default", "slow"])
def test_any_mutated_record(client, store, finished_records, slow):
    records = st.sampled_from(finished_records).flatmap(lambda rec: st.tuples(st.just(rec), mutated_records(rec)))
    fuzz("records", lambda pair: records_test(client, store, *pair), records, slow=slow)()


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    """Prints what the fuzzing did at the end of the module (run with -s to see it)."""
    yield
    print(f"\nweb fuzzing: examples {EXAMPLES}, slow {SLOW}; did {STATS}")
