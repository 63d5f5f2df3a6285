"""The public API of SPEC §3 beyond the shared suite (tests/test_games.py, which runs
PettingZoo's api_test and seed_test for every game, preset and player count): action ids
and names, spaces, masks, determinism and rendering."""

from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest
from gymnasium import spaces

import redbeard_env
from redbeard_env import action_id, action_name
from redbeard_env.redbeard.cards import format_cards
from redbeard_env.redbeard.observation import OBS_BLOCKS, OBS_SIZE

PRESET_NAMES = ("classic", "fem_opp", "raudskjegg", "wikipedia")
PLAYER_COUNTS = (3, 4, 5, 6, 7)
SHEET_RANGE = {"classic": (3, 7), "fem_opp": (3, 7), "raudskjegg": (4, 6), "wikipedia": (3, 7)}

def make_env(n: int, preset: str = "classic", **kwargs):
    """The env, without the UserWarning for a count outside the sheet's range."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*outside this rule sheet's range", category=UserWarning)
        return redbeard_env.env(num_players=n, rules=preset, **kwargs)


def random_policy(rng: random.Random):
    def act(obs):
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, "the acting agent has no legal action"
        return int(legal[rng.randrange(len(legal))])

    return act


def play(env, seed, options=None, policy_seed=0, max_steps=100_000):
    """Play one game; return the trajectory as a list of plain tuples."""
    env.reset(seed=seed, options=options)
    act = random_policy(random.Random(policy_seed))
    traj = []
    for agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else act(obs)
        traj.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc, dict(info), action)
        )
        env.step(action)
    return traj


# PettingZoo's api_test and seed_test for every preset and count: tests/test_games.py (every game)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_player_count_outside_sheet_range_warns(preset):
    lo, hi = SHEET_RANGE[preset]
    for n in PLAYER_COUNTS:
        if lo <= n <= hi:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                redbeard_env.env(num_players=n, rules=preset)
        else:
            with pytest.warns(UserWarning, match=rf"{n} players is outside this rule sheet's range {lo}\.\.{hi}"):
                e = redbeard_env.env(num_players=n, rules=preset)
            e.reset(seed=0)  # and it plays anyway
            assert e.num_agents == n


def test_raudskjegg_three_players_warns():
    with pytest.warns(UserWarning, match="outside this rule sheet's range"):
        redbeard_env.env(num_players=3, rules="raudskjegg")


def test_agents_and_raw_env():
    env = redbeard_env.env(num_players=5)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert env.agents == env.possible_agents
    assert isinstance(env.unwrapped, redbeard_env.raw_env)
    assert isinstance(redbeard_env.raw_env(num_players=4), redbeard_env.raw_env)


# ---------------------------------------------------------------- action ids and names
SUITS, RANKS = "CDHS", "23456789TJQKA"
EXPECTED_NAMES = (
    [f"play:{r}{s}" for s in SUITS for r in RANKS]
    + ["pass"]
    + [f"bid:{k}" for k in range(7)]
    + ["redbeard", "join", "fold", "ask", "skip", "keep", "redeal", "look", "no_look"]
)


def test_action_names_exact():
    assert len(EXPECTED_NAMES) == 69
    assert [action_name(i) for i in range(69)] == EXPECTED_NAMES


@pytest.mark.parametrize("i", range(69))
def test_action_id_name_round_trip(i):
    assert action_id(action_name(i)) == i
    assert action_name(action_id(EXPECTED_NAMES[i])) == EXPECTED_NAMES[i]
    assert action_name(np.int64(i)) == EXPECTED_NAMES[i]


def test_action_ids_of_spec_examples():
    assert action_id("play:2C") == 0
    assert action_id("play:AC") == 12
    assert action_id("play:TD") == 13 + 8
    assert action_id("play:10D") == action_id("play:TD") == 21
    assert action_id("play:10S") == 3 * 13 + 8
    assert action_id("play:AS") == 51
    assert action_id("pass") == 52
    assert [action_id(f"bid:{k}") for k in range(7)] == list(range(53, 60))
    assert action_id("redbeard") == 60
    assert (action_id("join"), action_id("fold")) == (61, 62)
    assert (action_id("ask"), action_id("skip")) == (63, 64)
    assert (action_id("keep"), action_id("redeal")) == (65, 66)
    assert (action_id("look"), action_id("no_look")) == (67, 68)
    # card ids: suit*13 + rank
    for s, suit in enumerate(SUITS):
        for r, rank in enumerate(RANKS):
            assert action_id(f"play:{rank}{suit}") == s * 13 + r
    assert redbeard_env.parse_card("10D") == redbeard_env.parse_card("TD") == 21
    assert redbeard_env.card_name(21) == "TD"


# ---------------------------------------------------------------- spaces
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces(n):
    env = make_env(n, "wikipedia")
    env.reset(seed=3)
    assert OBS_SIZE == sum(OBS_BLOCKS.values())
    for agent in env.possible_agents:
        osp = env.observation_space(agent)
        assert isinstance(osp, spaces.Dict) and set(osp.spaces) == {"observation", "action_mask"}
        box, mbox = osp["observation"], osp["action_mask"]
        assert isinstance(box, spaces.Box) and box.shape == (OBS_SIZE,) and box.dtype == np.float32
        assert isinstance(mbox, spaces.Box) and mbox.shape == (69,) and mbox.dtype == np.int8
        assert np.all(mbox.low == 0) and np.all(mbox.high == 1)
        asp = env.action_space(agent)
        assert isinstance(asp, spaces.Discrete) and asp.n == 69
    # the observation layout does not depend on the player count (padded to 7 seats)
    for name in ("score", "active", "dealer", "tricks", "call"):
        assert OBS_BLOCKS[name] % 7 == 0
    obs, *_ = env.last()
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBS_SIZE,)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (69,)
    assert env.observation_space(env.agent_selection).contains(obs)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observations_in_space_during_play(preset):
    env = make_env(5, preset)
    env.reset(seed=11)
    act = random_policy(random.Random(11))
    for i, agent in enumerate(env.agent_iter(3000)):
        obs, _, term, trunc, _ = env.last()
        if i % 7 == 0:
            for other in env.agents:
                assert env.observation_space(other).contains(env.observe(other))
        env.step(None if term or trunc else act(obs))


# ---------------------------------------------------------------- masks
@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("n", (3, 5, 7))
def test_mask_zero_for_non_acting_and_at_end(preset, n):
    env = make_env(n, preset, max_rounds=30)
    for seed in range(4):
        env.reset(seed=seed)
        act = random_policy(random.Random(seed))
        for agent in env.agent_iter(100_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                assert not obs["action_mask"].any(), "a done agent must have an all-zero mask"
                env.step(None)
                continue
            assert obs["action_mask"].any(), "the acting agent must have a legal action"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any(), f"{other} is not acting"
            env.step(act(obs))
        game = env.unwrapped.game
        assert game.terminated or game.truncated
        for agent in env.possible_agents:  # the observation stays defined after the end
            obs = env.unwrapped.observe(agent)
            assert not obs["action_mask"].any()
            assert obs["observation"].shape == (OBS_SIZE,) and np.isfinite(obs["observation"]).all()


# ---------------------------------------------------------------- determinism
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_same_seed_options_actions_same_trajectory(preset):
    options = {"dealer": 2, "scores": [5, 9, 1, 12]}
    a = play(make_env(4, preset), seed=123, options=options, policy_seed=5)
    b = play(make_env(4, preset), seed=123, options=options, policy_seed=5)
    assert a == b and len(a) > 10
    env = make_env(4, preset)  # re-resetting one env object reproduces it too
    play(env, seed=999, policy_seed=1)
    assert play(env, seed=123, options=options, policy_seed=5) == a


def test_same_seed_with_hands_and_stock_same_trajectory():
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "7C"],
        ["AS", "KS", "QS", "JS", "TS", "9S"],
        ["2D", "3D", "4D", "5D", "6D", "7D"],
    ]
    options = {"dealer": 0, "hands": hands, "stock": ["8C", "9C", "TC", "JC", "QC", "KC"]}
    a = play(make_env(3, "classic"), seed=4, options=options, policy_seed=9)
    b = play(make_env(3, "classic"), seed=4, options=options, policy_seed=9)
    assert a == b


def test_different_seeds_differ():
    env = make_env(4, "classic")
    firsts = set()
    for seed in range(6):
        env.reset(seed=seed)
        firsts.add(tuple(frozenset(h) for h in env.unwrapped.game.hands))
    assert len(firsts) == 6, "different seeds should deal differently"
    assert play(make_env(4, "classic"), seed=1, policy_seed=3) != play(make_env(4, "classic"), seed=2, policy_seed=3)


def test_reset_without_seed_continues_the_stream():
    env = make_env(4, "classic")
    env.reset(seed=8)
    first = [set(h) for h in env.unwrapped.game.hands]
    env.reset()
    assert [set(h) for h in env.unwrapped.game.hands] != first


# ---------------------------------------------------------------- rendering
def test_render_ansi_shows_scores_and_observer_hand():
    env = make_env(4, "classic", render_mode="ansi")
    env.reset(seed=5, options={"scores": [17, 23, 31, 9], "dealer": 3})
    text = env.render()
    assert isinstance(text, str) and text
    for score in (17, 23, 31, 9):
        assert re.search(rf"\b{score}\b", text), f"score {score} missing from the render"
    g = env.unwrapped.game
    observer = g.to_act
    assert format_cards(g.hands[observer]) in text, "the acting player's hand is shown"
    for seat in range(4):
        if seat != observer:
            assert format_cards(g.hands[seat]) not in text, "other hands stay hidden"
    # and it keeps working through a game
    act = random_policy(random.Random(0))
    for i, agent in enumerate(env.agent_iter(200)):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else act(obs))
        out = env.render()
        assert isinstance(out, str)


def test_render_human_prints(capsys):
    env = make_env(3, "fem_opp", render_mode="human")
    env.reset(seed=2)
    printed = capsys.readouterr().out
    assert "player_0" in printed and "12" in printed
    assert env.render() is None
    assert capsys.readouterr().out.strip()
    obs, *_ = env.last()
    env.step(random_policy(random.Random(1))(obs))
    assert capsys.readouterr().out.strip(), "a step in human mode prints the table"
