"""The checks every registered game must pass, run over ``redbeard_env.registered_games()``
(pgx's one api_test for every game is the model): a new game is tested by registering it,
as ``tests/conftest.py`` registers Tiny Trick (``tests/tinytrick``), a game with a
reference engine only.

- the registry's contract (names, ``make``, the Game record's sizes and presets; a game
  lacking a part is refused, naming the part);
- PettingZoo's ``api_test`` and ``seed_test`` on the AEC env, for every preset, every
  player count and every choice of every rule with choices (the one place they run;
  the only warnings allowed are those api_test provokes for any game);
- the batch engine, for a game that has one (SPEC §3b): shapes, dtypes, an automatic
  reset, determinism;
- the tournament engines: the batch engine and the reference engine play the same jobs
  step for step (the same observation, mask and acting seat at every step, the same
  events after every step) under every preset -- the parity runner every game with a
  batch engine shares;
- tournaments: a small one of every game, on its engines, with records;
- game records: recorded games survive JSON and replay to the identical game, and a
  changed action is caught;
- bots: every bot name of the game builds within it, plays only legal actions, and a bot
  of another game is refused with one line naming that game.

Deeper, game-specific checks (scripted scores, the parity harnesses that compare every
observation block and round record with the AEC env) live in each game's own tests.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import redbeard_env
from agents.registry import available_agents, game_bots, make_agent
from redbeard_env import records
from redbeard_env.engine import Job, make_engine
from redbeard_env.registry import LEGACY_GAME, game_named, register, registered_games
from redbeard_eval import run_tournament
from redbeard_eval.deals import deal_sequences

GAMES = registered_games()
BATCHED = tuple(g for g in GAMES if game_named(g).vector_env is not None)  # games with a batch engine
#: the warnings PettingZoo's api_test gives for any Dict observation (connect_four_v3 gets the same
#: ones), the one it provokes on purpose with reset(options={"options": 1}), and a count outside a
#: rule sheet's own range (which plays anyway)
EXPECTED_WARNINGS = (r"Observation is not a NumPy array", r"Observation space for each agent probably should be",
                     r"unknown reset option 'options'", r".*outside this rule sheet's range")


def player_counts(name: str) -> list[int]:
    lo, hi = game_named(name).player_range
    return sorted({lo, (lo + hi) // 2, hi})


def short_rules(name: str, preset: str):
    """The preset with short games where the game has a field for it (tests stay fast)."""
    info = game_named(name)
    rules = info.make_rules(preset)
    fields = set(vars(rules))
    if "max_rounds" in fields:
        return info.make_rules(preset, max_rounds=6)
    if "hand_sizes" in fields:
        return info.make_rules(preset, hand_sizes=tuple(rules.hand_sizes[:4]))
    return rules


def test_registry_contract():
    assert GAMES and len(set(GAMES)) == len(GAMES)
    assert GAMES[0] == LEGACY_GAME == "redbeard"  # SPEC §3's env is the first game's, and unnamed files are its
    assert "tinytrick" in GAMES  # registered by conftest.py through the public API
    with pytest.raises(ValueError, match="game must be one of") as err:
        game_named("chess")
    assert all(g in str(err.value) for g in GAMES)  # the error lists every registered game
    with pytest.raises(ValueError, match="game must be one of"):
        redbeard_env.make("chess")
    presets = [p for g in GAMES for p in game_named(g).presets]
    assert len(presets) == len(set(presets))  # a preset names one game


def _renamed(game, name: str, **changes):
    """``game`` under another name (presets renamed too: a preset names one game), with ``changes``."""
    parts = game.parts
    if "rules" in changes:
        parts = dataclasses.replace(parts, rules=changes.pop("rules"))
    return dataclasses.replace(game, name=name, parts=parts, **changes)


class _Without:
    """A module with one member taken away."""

    def __init__(self, module, member: str):
        self.module, self.member = module, member

    def __getattr__(self, key):
        if key == self.member:
            raise AttributeError(key)
        return getattr(self.module, key)


@pytest.mark.parametrize("part,member,changes", [
    ("parts.cards", "parse_card", lambda g: {"parts": dataclasses.replace(g.parts, cards=_Without(g.parts.cards, "parse_card"))}),
    ("parts.observation", "OBS_SIZE", lambda g: {"parts": dataclasses.replace(
        g.parts, observation=_Without(g.parts.observation, "OBS_SIZE"))}),
    ("records", "replay", lambda g: {"records": _Without(g.records, "replay")}),
    ("views", "sheet_view", lambda g: {"views": "tests_no_such_module"}),
    ("engines", "'reference'", lambda g: {"engines": {}}),
    ("metrics", "won", lambda g: {"metrics": "redbeard_env.metrics:__name__"}),
])
def test_register_refuses_a_game_without_a_part_naming_it(part, member, changes):
    """A game that lacks a part of its contract (redbeard_env.contract) is refused when it
    registers, with the part named; nothing is registered."""
    tiny = game_named("tinytrick")
    before = registered_games()
    bad = dataclasses.replace(tiny, name="brokentrick", **changes(tiny))
    with pytest.raises((ValueError, ModuleNotFoundError)) as err:
        register(bad)
    if err.type is ValueError:
        assert f"its {part}" in str(err.value) and member in str(err.value), str(err.value)
    assert registered_games() == before


def test_register_refuses_a_taken_name_or_preset():
    tiny = game_named("tinytrick")
    with pytest.raises(ValueError, match="registered already"):
        register(tiny)
    with pytest.raises(ValueError, match="preset 'tinytrick' is another game's"):
        register(dataclasses.replace(tiny, name="tinytwin"))
    assert "tinytwin" not in registered_games()


@pytest.mark.parametrize("name", GAMES)
def test_game_record_describes_its_parts(name):
    info = game_named(name)
    assert info.name == name and info.default_rules in info.presets
    rules = info.make_rules()
    assert isinstance(rules, info.rules_type) and redbeard_env.game_of_rules(rules) is info
    env = redbeard_env.make(name, num_players=info.player_range[0])
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"].shape == (info.obs_size,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (info.num_actions,) and obs["action_mask"].dtype == np.int8
    legal = np.flatnonzero(obs["action_mask"])
    assert len(legal) and all(info.action_id(info.action_name(int(a))) == a for a in legal)
    with pytest.raises(ValueError):
        info.make_rules("no_such_preset")
    lo, hi = info.player_range
    for bad in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match="num_players"):
            redbeard_env.make(name, num_players=bad)


def variants(name: str) -> list[tuple[str, int, dict]]:
    """(preset, players, overrides): every preset at every player count, and each other
    choice of each rule with choices (the Rules' ``CHOICES``) at the ends of the range."""
    info = game_named(name)
    lo, hi = info.player_range
    out = [(p, n, {}) for p in info.presets for n in range(lo, hi + 1)]
    base = info.make_rules()
    for field, choices in getattr(info.parts.rules, "CHOICES", {}).items():
        out += [(info.default_rules, n, {field: c}) for c in choices if c != getattr(base, field) for n in (lo, hi)]
    return out


@pytest.mark.parametrize("name,preset,n,overrides", [(g, *v) for g in GAMES for v in variants(g)])
def test_pettingzoo_api_and_seed(name, preset, n, overrides):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pattern in EXPECTED_WARNINGS:
            warnings.filterwarnings("ignore", message=pattern)
        api_test(redbeard_env.make(name, num_players=n, rules=preset, **overrides), num_cycles=1000)
        seed_test(lambda: redbeard_env.make(name, num_players=n, rules=preset, **overrides), num_cycles=500)


@pytest.mark.parametrize("name", BATCHED)
def test_batch_engine_contract(name):
    info = game_named(name)
    n, B = info.player_range[0] + 1, 32
    venv = info.vector_env(num_envs=B, num_players=n, rules=short_rules(name, info.default_rules), seed=3)
    obs, mask, seat = venv.reset()
    assert obs.shape == (B, info.obs_size) and obs.dtype == np.float32
    assert mask.shape == (B, info.num_actions) and mask.dtype == np.int8 and mask.any(1).all()
    assert seat.shape == (B,) and ((0 <= seat) & (seat < n)).all()
    rng = np.random.default_rng(0)
    trace, ended = [], 0
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, seat, rewards, terminated, truncated, info_ = venv.step(actions)
        assert rewards.shape == (B, n) and rewards.dtype == np.float32
        assert info_["score"].shape == (B, n) and len(info_["phase"]) == B
        assert mask.any(1).all()  # a finished game is reset at once: every slot has a decision
        ended += int((terminated | truncated).sum())
        trace.append(actions)
    assert ended > 0
    again = info.vector_env(num_envs=B, num_players=n, rules=short_rules(name, info.default_rules), seed=3)
    o2, m2, _ = again.reset()
    for actions in trace[:50]:
        o2, m2, *_ = again.step(actions)
    venv2 = info.vector_env(num_envs=B, num_players=n, rules=short_rules(name, info.default_rules), seed=3)
    o3, m3, _ = venv2.reset()
    for actions in trace[:50]:
        o3, m3, *_ = venv2.step(actions)
    assert np.array_equal(o2, o3) and np.array_equal(m2, m3)  # same seed and actions: same games


def _jobs(name: str, rules, n: int, count: int, seed: int) -> list[Job]:
    info = game_named(name)
    dealers, decks = deal_sequences(seed, np.arange(count), n, info.decks_per_game(rules), info.deck_size,
                                    info.deck_parts)
    return [Job(k, k, 0, tuple(range(n)), int(dealers[k]), decks[k]) for k in range(count)]


def _play_both(name: str, rules, n: int, count: int, seed: int, record: bool = False):
    """The same jobs and the same random legal actions on both tournament engines (a game
    without a batch engine: on its reference engine alone), which must agree step for step;
    returns the reference engine (its recorders with ``record``) and the steps played."""
    info = game_named(name)
    ref = make_engine("reference", rules, n, seed, record=record, game=info)
    vec = make_engine("vector", rules, n, seed, game=info) if "vector" in info.engines else None
    jobs = _jobs(name, rules, n, count, seed)
    ref.start(jobs)
    if vec is not None:
        vec.start(jobs)
    rng = np.random.default_rng(seed)
    steps = 0
    while ref.live.any():
        o2, m2, s2 = ref.observe()
        live = np.flatnonzero(ref.live)
        assert (m2[live].sum(1) > 0).all() and (s2[live] >= 0).all(), f"step {steps}: a live slot without a decision"
        if vec is not None:
            o1, m1, s1 = vec.observe()
            assert np.array_equal(vec.live, ref.live), f"step {steps}: live slots differ"
            assert np.array_equal(s1, s2), f"step {steps}: acting seats differ"
            assert np.array_equal(m1[live], m2[live]), f"step {steps}: masks differ"
            diff = np.argwhere(o1[live] != o2[live])
            assert len(diff) == 0, f"step {steps}: observations differ at (slot, index) {diff[:5].tolist()}"
        actions = np.zeros(count, np.int64)
        for b in live:
            actions[b] = rng.choice(np.flatnonzero(m2[b]))
        e2 = ref.step(actions)
        assert set(e2) >= {"done", "winner", "winners", "final_score", "score", "rounds", "round_over",
                           *info.round_keys}
        if vec is not None:
            e1 = vec.step(actions)
            assert set(e1) == set(e2)
            done, scored = live[e2["done"][live]], live[e2["round_over"][live]]
            # what an event means where it is defined (the engine docstring): the end's facts
            # where a game ended, the round's where a round was scored
            where = {"winner": done, "winners": done, "final_score": done, "rounds": done,
                     **{k: scored for k in info.round_keys}}
            for key in e1:
                rows = where.get(key, live)
                a, b = np.asarray(e1[key])[rows], np.asarray(e2[key])[rows]
                assert np.array_equal(a, b), f"step {steps}: event {key!r} differs: {a.tolist()} vs {b.tolist()}"
        steps += 1
    return ref, steps


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name,preset", [(g, p) for g in GAMES for p in game_named(g).presets])
def test_tournament_engines_play_the_same_games(name, preset):
    for n in player_counts(name):
        rules = short_rules(name, preset)
        _, steps = _play_both(name, rules, n, count=12, seed=n)
        assert steps >= 10  # whole games: every slot played to its end


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", GAMES)
def test_a_tournament_of_every_game(name, tmp_path):
    """A small duplicate tournament of the game's heuristic against random, on the engine
    ``auto`` picks (the batch engine where the game has one), and again on the reference
    engine with a record of every game: the same results, the game's own columns, win
    shares that add up, records that replay."""
    info = game_named(name)
    n = info.player_range[0]
    setup = dict(agent_specs=["heuristic", "random"], game=name, rules=short_rules(name, info.default_rules),
                 players=n, games=6, seed=3, progress=False, plots=False)
    auto = run_tournament(**setup)
    ref = run_tournament(**setup, engine="reference", out=tmp_path, record_path=tmp_path / "games.jsonl")
    assert auto["config"]["game"] == ref["config"]["game"] == name
    assert auto["config"]["engine"] == ("vector" if name in BATCHED else "reference")
    assert auto["agents"] == ref["agents"]  # the engines play the same games
    agents = ref["agents"]
    assert sum(a["games"] for a in agents.values()) == n * ref["config"]["games"]
    won: dict[int, float] = {}
    truncated: dict[int, bool] = {}
    with open(tmp_path / "games.csv") as f:
        for row in csv.DictReader(f):
            won[int(row["game"])] = won.get(int(row["game"]), 0.0) + float(row["won"])
            truncated[int(row["game"])] = row["truncated"] == "1"
    assert len(won) == ref["config"]["games"]
    assert all(won[k] == pytest.approx(0.0 if truncated[k] else 1.0) for k in won), won  # a win is shared out whole
    for _, _, key, _ in info.metrics_type.COLUMNS:
        assert all(key in a for a in agents.values()), key
    played = records.load_records(tmp_path / "games.jsonl")  # each replayed while loading
    assert len(played) == ref["config"]["games"] and {r.get("game", LEGACY_GAME) for r in played} == {name}
    assert (tmp_path / "results.json").is_file()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", GAMES)
def test_records_replay_exactly(name, tmp_path):
    info = game_named(name)
    n = info.player_range[0] + 1
    ref, _ = _play_both(name, short_rules(name, info.default_rules), n, count=10, seed=5, record=True)
    games = [r.record() for r in ref.recorders]
    path = tmp_path / "games.jsonl"
    assert records.append_records(path, games) == 10
    loaded = records.load_records(path)  # each replayed while loading
    assert loaded == json.loads(json.dumps(games))
    for record, g in zip(loaded, ref.games):
        assert record.get("game", "redbeard") == name
        assert records.replay(record).scores == g.scores
    changed = json.loads(json.dumps(games[0]))
    seat, action = changed["actions"][-1]
    others = [a for a in range(info.num_actions) if info.action_name(a) != action]
    changed["actions"][-1] = [seat, info.action_name(others[0])]
    with pytest.raises(ValueError, match="bad record"):
        records.validate(changed)


@pytest.mark.parametrize("name", GAMES)
def test_bots_resolve_within_their_game(name):
    info = game_named(name)
    assert set(game_bots(name)) <= set(available_agents(name)) and "random" in available_agents(name)
    n = info.player_range[0] + 1
    rules = short_rules(name, info.default_rules)
    engine = make_engine("reference", rules, n, 1, game=info)
    engine.start(_jobs(name, rules, n, 16, seed=1))
    obs, mask, _ = engine.observe()
    for bot_name in game_bots(name):
        try:
            bot = make_agent(bot_name, game=name, seed=0)
        except ValueError as exc:  # a bot that needs an argument says so
            assert "needs a value for" in str(exc)
            continue
        assert bot.game == name
        actions = bot.act_batch(obs, mask)
        assert (mask[np.arange(len(mask)), actions] == 1).all(), bot_name
    for other in GAMES:
        if other == name:
            continue
        only_there = sorted(set(game_bots(other)) - set(game_bots(name)))
        for bot_name in only_there:
            with pytest.raises(ValueError, match=f"a bot of (.* and )?{other}( and .*)?, not of {name}"):
                make_agent(bot_name, game=name)
        # a bot object of the other game (built there) is refused here, by name of its game
        with pytest.raises(ValueError, match=f"plays {other}, this table plays {name}"):
            make_agent(make_agent("random", game=other), game=name)
        theirs = make_agent("heuristic", game=other)
        with pytest.raises(ValueError, match=f"plays {other}, this table plays {name}"):
            make_agent(theirs, game=name)
