"""The web table and bot specs (issue 59): the table plays only the bots it offers unless
``--free-specs`` opens any spec the bots' declarations allow; the search budget prices
specs from the declarations (nested bots included); the issue's reproductions are one-line
400s; a Hypothesis fuzz of specs (every declared parameter, extreme, non-finite and nested
values) through game creation and hints never gets a 5xx or an illegal move."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.bots import BotPool, offered_specs, suggested_bots  # noqa: E402
from redbeard_web.cli import build_parser  # noqa: E402
from redbeard_web.levels import levels_of  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
from redbeard_web.review import default_bot  # noqa: E402
from agents.registry import declaration, parse_spec, resolve  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402
from game_parts import games_with, has_bot, shipped_policies  # noqa: E402
from test_bot_params import bot_specs  # noqa: E402

GAMES = tuple(redbeard_env.registered_games())
LIMITS = Limits(games_per_minute=0, search_budget=600, hint_seconds=60, lock_seconds=60, games_per_address=10_000)


def client_of(pool: BotPool, limits: Limits = LIMITS) -> tuple[TestClient, GameStore]:
    store = GameStore(pool, max_games=10_000, per_owner=limits.games_per_address)
    return TestClient(create_app(store, allowed_hosts=None, limits=limits)), store


def refusal(r, *words: str) -> str:
    assert r.status_code == 400, (r.status_code, r.text[:300])
    body = r.json()
    assert set(body) == {"error"} and "\n" not in body["error"], body
    for w in words:
        assert w in body["error"], (w, body["error"])
    return body["error"]


def human_first(client, game: str, **body) -> dict:
    """A new game of ``game`` where the human moves first (some seed at which no bot moves
    before the human)."""
    for seed in range(40):
        r = client.post("/api/games", json={"game": game, "seed": seed, **body})
        assert r.status_code == 200, r.text
        view = r.json()
        if view.get("legal") and not view.get("finished"):
            return view
    raise AssertionError("no seed let the human move first")


# ---------------------------------------------------------------- the table offers, the client picks
def unoffered_specs(game: str, offered: list[str]) -> list[str]:
    """Specs that the bots' declarations allow and the table does not offer: each offered bot
    with a seed, where it takes one, and a search of other samples where pimc is offered."""
    out = []
    for spec in offered:
        if "seed" in (declaration(resolve(parse_spec(spec).name, game)[0]) or {}):
            out.append(f"{spec}{',' if ':' in spec else ':'}seed=2")
    out += ["pimc:samples=8"] if "pimc" in offered else []
    return out


def test_the_server_plays_only_the_offered_bots_unless_told():
    assert build_parser().parse_args([]).free_specs is False
    assert build_parser().parse_args(["--free-specs"]).free_specs is True
    pool = BotPool(free_specs=False)
    client, store = client_of(pool, Limits(games_per_minute=0))
    for game in GAMES:
        offered = offered_specs(game)
        assert set(suggested_bots(game)) <= set(offered)
        for preset in redbeard_env.game_named(game).presets:
            assert {lv["bot"] for lv in levels_of(game, preset)["levels"]} <= set(offered)
        assert default_bot(game) in offered  # the review's bot
        for spec in offered:
            assert pool.check(spec, game) == spec
        view = human_first(client, game, opponents=offered[-1])
        r = client.get(f"/api/games/{view['id']}/hint", params={"bot": offered[0]})
        assert r.status_code == 200, r.text
        kept = len(store)
        refused = unoffered_specs(game, offered)
        assert refused
        for spec in refused:
            assert BotPool(free_specs=True).check(spec, game) == spec  # allowed with --free-specs
            message = refusal(client.get(f"/api/games/{view['id']}/hint", params={"bot": spec}), "only the bots it offers")
            assert "--free-specs" in message
            refusal(client.post("/api/games", json={"game": game, "opponents": spec}), "only the bots it offers")
        assert len(store) == kept  # nothing stored for a refused game
    free = BotPool(free_specs=True)
    assert free.check("random:seed=3", GAMES[0]) == "random:seed=3"


def test_the_budget_prices_nested_bots_from_their_declarations():
    """``pimc:rollout=pimc`` was charged like ``pimc:samples=1024`` and cost six times as
    much; now it costs the product of the two searches and the default budget refuses it."""
    pool = BotPool(search_budget=Limits().search_budget)
    client, store = client_of(pool, Limits(games_per_minute=0))
    game = GAMES[0]
    view = human_first(client, game)
    start = time.perf_counter()
    for spec in ("pimc:rollout=pimc", "pimc:rollout=pimc,horizon=game", "pimc:samples=128,rollout=pimc"):
        refusal(client.get(f"/api/games/{view['id']}/hint", params={"bot": spec}), "search budget", "units")
        refusal(client.post("/api/games", json={"opponents": spec}), "search budget")
    assert time.perf_counter() - start < 5 and pool.builds <= 2  # refused before any search bot was built
    r = client.get(f"/api/games/{view['id']}/hint", params={"bot": "pimc:samples=256"})  # within the budget
    assert r.status_code == 200 and r.json()["action"] in view["legal"], r.text


@pytest.mark.parametrize("game", [g for g in games_with(has_bot, "search") if shipped_policies(g)])
def test_a_nested_network_is_one_of_the_games_policies_by_name_never_a_path(game):
    """``search:policy=ppo:NAME`` (the levels' search at another sheet) takes a policy of this
    game by name; another game's policy, a path or a nested spec of another kind is refused."""
    from redbeard_web.bots import check_bot_spec

    own = shipped_policies(game)
    for name in own:
        assert check_bot_spec(f"search:policy=ppo:{name}", game) == f"search:policy=ppo:{name}"
    others = [n for g in GAMES if g != game for n in shipped_policies(g) if n not in own]
    for value in [f"ppo:{n}" for n in others[:2]] + ["ppo:../x", "ppo:/etc/passwd", "ppo:" + own[0] + "/../x",
                                                     "pimc:samples=4"]:
        with pytest.raises(ValueError, match="not allowed here"):
            check_bot_spec(f"search:policy={value}", game)


@pytest.mark.parametrize("game,spec,words", [
    ("redbeard", "heuristic:bid_samples=1000000", "bid_samples must be an int in 1..4096"),
    ("redbeard", "heuristic:bid_samples=1000000000000", "bid_samples must be an int in 1..4096"),
    ("redbeard", "heuristic:bid_samples=0", "bid_samples must be an int in 1..4096, got 0"),
    ("sortskaeg", "heuristic:trump_factor=1e308", "trump_factor must be a number in 0..1"),
    ("sortskaeg", "heuristic:joker_value=1e308", "joker_value must be a number in 0..1"),
    ("oh_hell", "heuristic:trump_factor=1e308", "trump_factor must be a number in 0..1"),
    ("oh_hell", "heuristic:trump_factor=-1e308", "trump_factor must be a number in 0..1"),
])
def test_the_issues_bot_specs_are_one_line_400s(game, spec, words):
    """Each used to grow the server by hundreds of MB, be a 500, or freeze the game with a
    bot returning illegal actions; now a 400 naming the range, nothing built or stored."""
    if game not in GAMES:
        pytest.skip(f"{game} is not registered")
    pool = BotPool()
    client, store = client_of(pool)
    view = human_first(client, game)
    built, kept = pool.builds, len(store)
    refusal(client.get(f"/api/games/{view['id']}/hint", params={"bot": spec}), words)
    refusal(client.post("/api/games", json={"game": game, "opponents": spec, "seed": 4}), words)
    assert pool.builds == built and len(store) == kept


# ---------------------------------------------------------------- fuzz: any spec through the web
EXAMPLES, SLOW_EXAMPLES = 40, 600
_CLIENT: dict = {}


def fuzz_client() -> tuple[TestClient, dict]:
    """One client for every example (bots built once), and a game of each game where the
    human is to move, for hints."""
    if not _CLIENT:
        client, _ = client_of(BotPool(max_bots=16, search_budget=LIMITS.search_budget))
        _CLIENT["client"] = client
        _CLIENT["games"] = {g: human_first(client, g) for g in GAMES}
    return _CLIENT["client"], _CLIENT["games"]


def check_spec_on_the_web(game: str, spec: str) -> None:
    client, games = fuzz_client()
    view = games[game]
    r = client.get(f"/api/games/{view['id']}/hint", params={"bot": spec})
    assert r.status_code in (200, 400), (spec, r.status_code, r.text[:300])
    if r.status_code == 200:
        assert r.json()["action"] in view["legal"], (spec, r.json())
    else:
        refusal(r)
    r = client.post("/api/games", json={"game": game, "opponents": spec, "players": 3})
    assert r.status_code in (200, 400), (spec, r.status_code, r.text[:300])
    if r.status_code == 200:
        new = r.json()
        assert new["finished"] or new["legal"], new  # the bots moved legally to the human's turn
    else:
        refusal(r)


COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=EXAMPLES, **COMMON)
@given(bot_specs())
def test_any_spec_through_game_creation_and_hints(game_and_spec):
    check_spec_on_the_web(*game_and_spec)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, **COMMON)
@given(bot_specs())
def test_any_spec_through_game_creation_and_hints_many(game_and_spec):
    check_spec_on_the_web(*game_and_spec)
