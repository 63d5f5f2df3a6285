"""The single-agent gymnasium env: gymnasium's checker, seeding, rewards, seats, masks."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
from agents.single_agent import gym_ids


def play(env, seed, pick=None):
    """One episode with a seeded random legal policy; returns (actions, rewards, info)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    actions, rewards = [], []
    while True:
        legal = np.flatnonzero(env.action_masks())
        assert np.array_equal(legal, np.flatnonzero(obs["action_mask"]))
        action = int(rng.choice(legal)) if pick is None else pick(obs, legal)
        obs, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        rewards.append(reward)
        if terminated or truncated:
            assert not env.action_masks().any()  # defined, and nothing legal, at the end
            return actions, rewards, info, terminated


@pytest.mark.parametrize("game,preset", sorted(gym_ids().values()))
def test_gymnasium_checker_passes(game, preset):
    # the checker steps with actions sampled without the mask: illegal ones end the episode
    env = agents.single_agent_env(game=game, rules=preset, num_players=4, opponents="random", seat="random",
                                  illegal_action="lose")
    check_env(env, skip_render_check=True)


def test_every_game_has_its_ids_and_bots():
    assert {"redbeard/Classic-v0", "redbeard/FemOpp-v0", "sortskaeg/Sortskaeg-v0"} <= set(gym_ids())
    env = gymnasium.make("sortskaeg/Sortskaeg-v0", num_players=3, opponents="heuristic", reward="shaped")
    assert env.unwrapped.opponents[0].game == "sortskaeg" and env.action_space.n == 50
    obs, info = env.reset(seed=2)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        total += reward
        done = terminated or truncated
    assert info["round"] == 13 and np.isfinite(total)
    with pytest.raises(ValueError, match="a bot of redbeard, not of sortskaeg"):
        agents.single_agent_env(game="sortskaeg", opponents="joins:always")


def test_registered_ids_make_the_env_with_the_preset():
    env = gymnasium.make("redbeard/Raudskjegg-v0", num_players=5, opponents="random")
    assert env.unwrapped.aec.rules.start_score == 10 and env.unwrapped.num_players == 5
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)


def test_same_seed_same_game_and_random_seats_rotate():
    env = agents.single_agent_env(opponents=["heuristic", "random", "random:seed=5"], seat="random")
    a = play(env, 3)
    b = play(env, 3)
    assert a[0] == b[0] and a[1] == b[1]
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {0, 1, 2, 3}


def test_the_win_reward_is_spec_section_3():
    env = agents.single_agent_env(num_players=4, opponents="random", seat=2)
    outcomes = set()
    for seed in range(12):
        _, rewards, info, terminated = play(env, seed)
        total = sum(rewards)
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)  # terminal only
        g = env.unwrapped.aec.game
        if terminated and g.winner == 2:
            assert total == 1.0
        elif terminated:
            assert total == pytest.approx(-1 / 3)  # another seat won, or seat 2 was eliminated
        outcomes.add(total)
    assert 1.0 in outcomes and any(t < 0 for t in outcomes)  # both happened in these games


def test_the_shaped_reward_pays_for_getting_closer_to_zero():
    env = agents.single_agent_env(num_players=4, opponents="random", seat=0, reward="shaped", shaping_coef=0.5)
    env.reset(seed=0)
    start = env.unwrapped.aec.rules.start_score
    score, total = start, 0.0
    rng = np.random.default_rng(0)
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        new = info["score"][0]
        expected = 0.5 * (abs(score) - abs(new)) / start
        if not (terminated or truncated):
            assert reward == pytest.approx(expected)  # no terminal part before the end
        score = new
        total += reward
        if terminated or truncated:
            break
    assert total != 0.0


def test_callables_and_bad_arguments():
    env = agents.single_agent_env(opponents=lambda obs: int(np.flatnonzero(obs["action_mask"])[0]), seat=1)
    play(env, 0)
    with pytest.raises(ValueError, match="seat must be an int in 0..3 or 'random'"):
        agents.single_agent_env(seat=4)
    with pytest.raises(ValueError, match="one per other seat"):
        agents.single_agent_env(opponents=["random", "random"])
    with pytest.raises(ValueError, match="unknown agent 'nobot'"):
        agents.single_agent_env(opponents="nobot")
    with pytest.raises(ValueError, match="reward must be one of"):
        agents.single_agent_env(reward="score")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.unwrapped.aec.game.phase if hasattr(env, "unwrapped") else None
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    assert env.unwrapped.aec.game.phase == before  # unchanged
    lose = agents.single_agent_env(opponents="random", seat=1, illegal_action="lose")
    lose.reset(seed=0)
    obs, reward, terminated, truncated, info = lose.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1 / 3, True, False, True)
    with pytest.raises(ValueError, match="episode is over"):
        lose.step(0)
