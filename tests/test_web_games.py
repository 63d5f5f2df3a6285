"""The web table's contract for every registered game (pgx's one api_test for every game is
the model): create a game with ``"game"``, act legally and illegally, hints, play to the end
with legal moves, download the record and replay it exactly, the replay endpoint, the
options the page offers, and refused requests that store nothing."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
from agents.base import Agent  # noqa: E402
from agents.registry import available_agents, game_bots, register  # noqa: E402
from redbeard_env.records import replay  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402
from web_helpers import play_out  # noqa: E402

GAMES = redbeard_env.registered_games()
VIEW_KEYS = {"id", "game", "phase", "to_act", "your_seat", "hand", "legal", "question", "scores", "finished",
             "winner", "winners", "truncated", "events", "events_skipped", "table", "sheet", "sheet_view",
             "players", "agents", "rules", "actions", "card_notes"}
TABLE_KEYS = {"phase", "to_act", "round", "dealer", "trick", "last_trick", "scores", "players", "your_hand",
              "status", "trick_note"}
SEAT_KEYS = {"seat", "name", "agent", "score", "call", "call_text", "tricks", "hand_size", "dealer", "to_act",
             "winner", "flags", "inactive"}


class FailingBot(Agent):
    """A bot that builds but cannot move (as a bot of the wrong shape would fail)."""

    def act(self, observation, action_mask=None):
        raise ValueError("this bot cannot play")


register("test_failing", FailingBot, overwrite=True)


@pytest.fixture(scope="module")
def bots():
    return BotPool()


def make_client(bots, **store_kwargs):
    store = GameStore(bots, **store_kwargs)
    return TestClient(create_app(store, allowed_hosts=None)), store


@pytest.fixture
def client(bots):
    return make_client(bots)[0]


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def short_overrides(game: str) -> dict:
    """Overrides that keep a game short, where the game's Rules have such a field."""
    fields = redbeard_env.game_named(game).make_rules().__dataclass_fields__
    return {"start_score": 4} if "start_score" in fields else {}


def card_names(game: str) -> set[str]:
    info = redbeard_env.game_named(game)
    return {info.card_name(c) for c in range(info.parts.cards.NUM_CARDS)}


# ---------------------------------------------------------------- the contract, every game
@pytest.mark.parametrize("game", GAMES)
def test_a_game_from_start_to_replay(client, game):
    info = redbeard_env.game_named(game)
    lo, hi = info.player_range
    players = min(max(4, lo), hi)
    v = new_game(client, game=game, players=players, seat=1, opponents="heuristic", seed=21,
                 overrides=short_overrides(game))
    assert VIEW_KEYS <= set(v), VIEW_KEYS - set(v)
    assert v["game"] == game and v["your_seat"] == 1 and v["players"] == players
    assert v["agents"][1] == "human" and v["agents"].count("heuristic") == players - 1
    assert v["rules"] == redbeard_env.records.rules_dict(info.make_rules(info.default_rules, **short_overrides(game)))
    assert not v["finished"] and v["winner"] is None and v["winners"] == []
    assert v["to_act"] == 1 and v["legal"] and v["question"]  # the bots before the human have moved
    assert set(v["hand"]) <= card_names(game) and v["hand"]
    assert v["scores"] == [info.start_score(info.make_rules(info.default_rules, **short_overrides(game)))] * players
    assert TABLE_KEYS <= set(v["table"]) and all(SEAT_KEYS <= set(p) for p in v["table"]["players"])
    assert v["table"]["your_hand"] == v["hand"]
    for ev in v["events"]:
        assert {"seat", "action", "text", "said", "effects", "table"} <= set(ev) and ev["seat"] != 1
    # an illegal action: a 400 that changes nothing
    illegal = next(info.action_name(a) for a in range(info.num_actions) if info.action_name(a) not in v["legal"])
    r = client.post(f"/api/games/{v['id']}/actions", json={"action": illegal})
    assert r.status_code == 400 and "illegal action" in r.json()["error"], r.text
    r = client.post(f"/api/games/{v['id']}/actions", json={"action": "no-such-move"})
    assert r.status_code == 400
    same = client.get(f"/api/games/{v['id']}").json()
    assert same["actions"] == v["actions"] and same["hand"] == v["hand"] and same["events"] == []
    # a legal action is applied, the bots answer, and it is the human's turn again
    w = client.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]}).json()
    assert w["events"][0]["seat"] == 1 and w["events"][0]["action"] == v["legal"][0]
    assert w["actions"] == v["actions"] + len(w["events"])
    assert w["finished"] or w["to_act"] == 1
    # the record only once finished
    r = client.get(f"/api/games/{v['id']}/record")
    assert r.status_code == 409 and "not finished" in r.json()["error"]
    end = play_out(client, w, np.random.default_rng(21))
    assert end["legal"] == [] and end["question"] is None and end["winners"]
    assert end["winner"] == (end["winners"][0] if len(end["winners"]) == 1 else end["winners"])
    assert len(end["sheet_view"]["rows"]) == len(end["sheet"]) >= 1
    record = client.get(f"/api/games/{v['id']}/record").json()
    assert record.get("game", GAMES[0]) == game and record["seed"] == 21 and record["agents"][1] == "human"
    finished = replay(record)  # the record replays exactly on the game's reference engine
    assert finished.scores == end["scores"]
    assert record["scores"] == end["scores"]
    r = client.post(f"/api/games/{v['id']}/actions", json={"action": v["legal"][0]})
    assert r.status_code == 400 and "over" in r.json()["error"]


@pytest.mark.parametrize("game", GAMES)
def test_replay_endpoint_for_every_game(client, game):
    v = play_out(client, new_game(client, game=game, opponents="random", seed=5, overrides=short_overrides(game)),
                 np.random.default_rng(5))
    record = client.get(f"/api/games/{v['id']}/record").json()
    frame = client.post("/api/replays", json={"record": record}).json()
    assert frame["game"] == game and frame["step"] == 0 and frame["steps"] == len(record["actions"])
    assert [sorted(h) for h in frame["hands"]] == [sorted(h) for h in record["deals"][0]["hands"]]
    assert [p["hand"] for p in frame["seats"]] == frame["hands"]
    mid = client.get(f"/api/replays/{frame['id']}", params={"step": 3}).json()
    assert mid["last"]["action"] == record["actions"][2][1] and mid["next"]["action"] == record["actions"][3][1]
    last = client.get(f"/api/replays/{frame['id']}", params={"step": frame["steps"]}).json()
    assert last["finished"] and last["scores"] == record["scores"] and last["winners"] == v["winners"]
    assert len(last["sheet_view"]["rows"]) == len(record["rounds"])
    bad = dict(record, scores=[s + 1 for s in record["scores"]])
    r = client.post("/api/replays", json={"record": bad})
    assert r.status_code == 400 and "scores" in r.json()["error"]


@pytest.mark.parametrize("game", GAMES)
def test_hints_in_every_game(client, game):
    v = new_game(client, game=game, seed=12, opponents="heuristic")
    for _ in range(5):
        h = client.get(f"/api/games/{v['id']}/hint", params={"bot": "heuristic"}).json()
        assert h["bot"] == "heuristic" and h["action"] in v["legal"] and h["kind"] == "utility"
        assert set(h["values"]) == set(v["legal"])
        assert h["values"][h["action"]] == max(h["values"].values())
        v = client.post(f"/api/games/{v['id']}/actions", json={"action": h["action"]}).json()
        if v["finished"]:
            break
        assert v["events"][0]["action"] == h["action"]
    h = client.get(f"/api/games/{v['id']}/hint", params={"bot": "random"}).json()
    assert h["action"] in v["legal"] and h["values"] is None


@pytest.mark.parametrize("game", GAMES)
def test_bots_of_another_game_are_refused_and_nothing_is_stored(bots, game):
    """A bot only another game has (or an old name of one) is a 400 naming that game, for
    a new game and for a hint; the store stays empty."""
    client, store = make_client(bots)
    foreign = [(other, name) for other in GAMES if other != game
               for name in list(game_bots(other)) + list(_aliases_of(other))
               if name not in available_agents(game)]
    assert foreign, f"every other game's bots are also {game}'s: nothing to check"
    for other, name in foreign:
        r = client.post("/api/games", json={"game": game, "opponents": name})
        assert r.status_code == 400, (name, r.text)
        message = r.json()["error"]
        assert "\n" not in message and redbeard_env.game_named(other).title in message, message
    assert len(store) == 0
    v = new_game(client, game=game, seed=1)
    r = client.get(f"/api/games/{v['id']}/hint", params={"bot": foreign[0][1]})
    assert r.status_code == 400 and redbeard_env.game_named(foreign[0][0]).title in r.json()["error"]


def _aliases_of(game: str) -> dict:
    from redbeard_env.registry import load_object

    return getattr(load_object(redbeard_env.game_named(game).bots), "ALIASES", {})


@pytest.mark.parametrize("game", GAMES)
def test_a_policy_of_another_game_is_refused(bots, game):
    pytest.importorskip("torch")
    client, store = make_client(bots)
    others = [name for name, plays in shipped_policies().items() if plays != game]
    assert others
    r = client.post("/api/games", json={"game": game, "opponents": f"ppo:{others[0]}"})
    assert r.status_code == 400 and "\n" not in r.json()["error"]
    other_game = shipped_policies()[others[0]]
    assert redbeard_env.game_named(other_game).title in r.json()["error"]
    assert len(store) == 0


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_that_fails_on_its_first_move_stores_no_game(bots, game):
    """The bots' first moves are part of creating a game: a failure there is a 400 and no
    game is left behind (it used to be stored anyway)."""
    client, store = make_client(bots)
    info = redbeard_env.game_named(game)
    players = min(max(4, info.player_range[0]), info.player_range[1])
    dealer = int(np.random.default_rng(0).integers(players))  # the seed's first draw: the human deals,
    r = client.post("/api/games", json={"game": game, "players": players, "seat": dealer,  # a bot moves first
                                        "opponents": "test_failing", "seed": 0})
    assert r.status_code == 400 and "cannot play" in r.json()["error"], r.text
    assert len(store) == 0


def shipped_policies() -> dict[str, str]:
    """Shipped checkpoint name -> the game it plays, read from the files."""
    from agents.ppo import PRETRAINED_DIR, read_payload

    return {p.stem: read_payload(p).get("game", GAMES[0]) for p in sorted(PRETRAINED_DIR.glob("*.pt"))}


# ---------------------------------------------------------------- requests and options
@pytest.mark.parametrize("game", GAMES)
def test_bad_requests_name_the_games_limits(client, game):
    info = redbeard_env.game_named(game)
    lo, hi = info.player_range
    for body, message in [
        ({"players": hi + 1}, f"players must be an int in {lo}..{hi}"),
        ({"players": lo - 1}, f"players must be an int in {lo}..{hi}"),
        ({"rules": "no_such_sheet"}, "preset"),
        ({"opponents": "grandmaster"}, "unknown bot"),
        ({"overrides": {"colour": "red"}}, "colour"),
    ]:
        r = client.post("/api/games", json=dict(body, game=game))
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)
    for other in GAMES:
        if other != game:
            preset = next(iter(redbeard_env.game_named(other).presets))
            r = client.post("/api/games", json={"game": game, "rules": preset})
            assert r.status_code == 400 and info.title in r.json()["error"]
    r = client.post("/api/games", json={"game": "chess"})
    assert r.status_code == 400 and all(g in r.json()["error"] for g in GAMES)


def test_the_default_game_is_the_first_registered(client):
    v = new_game(client, seed=1)
    assert v["game"] == GAMES[0] and v["agents"].count("heuristic") == v["players"] - 1


def test_options_offer_each_games_own_bots(client):
    o = client.get("/api/options").json()
    assert [g["name"] for g in o["games"]] == list(GAMES) and o["default_game"] == GAMES[0]
    policies = shipped_policies() if _has_torch() else {}
    for g in o["games"]:
        info = redbeard_env.game_named(g["name"])
        assert set(g["presets"]) == set(info.presets) and g["players"] == list(info.player_range)
        assert {b.partition(":")[0] for b in g["bots"]} <= set(available_agents(g["name"]))
        ppo = sorted(b[4:] for b in g["bots"] if b.startswith("ppo:"))
        assert ppo == sorted(name for name, plays in policies.items() if plays == g["name"])
        assert "heuristic" in g["bots"] and set(g["cards"]) == card_names(g["name"])
        assert g["title"] == info.title
        one = client.get("/api/options", params={"game": g["name"]}).json()
        assert one["players"] == g["players"] and one["bots"] == g["bots"]


def _has_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_deals_the_same_game(client, game):
    a = new_game(client, game=game, seed=42)
    b = new_game(client, game=game, seed=42)
    assert a["hand"] == b["hand"] and a["events"] == b["events"] and a["id"] != b["id"]
