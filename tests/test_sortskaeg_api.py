"""Sortskæg's public API (SPEC §6) beyond the shared suite (tests/test_games.py: PettingZoo's
api_test and seed_test for every count and deal mode): spaces, masks, info, determinism,
reset options and rendering."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from redbeard_env import sortskaeg
from redbeard_env.sortskaeg.cards import NUM_ACTIONS, parse_card
from redbeard_env.sortskaeg.observation import OBS_BLOCKS, OBS_SIZE

PLAYER_COUNTS = (2, 3, 4, 5, 6)
DEALS = ("fresh", "carry")
def play(env, seed, options=None, policy_seed=0):
    """One game with random legal actions; the trajectory as plain tuples."""
    env.reset(seed=seed, options=options)
    rng = random.Random(policy_seed)
    traj = []
    for agent in env.agent_iter(10_000):
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else rng.choice(list(np.flatnonzero(obs["action_mask"])))
        traj.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc,
                     repr(info), action))
        env.step(action)
    return traj


@pytest.mark.parametrize("deal", DEALS)
def test_same_seed_same_game_and_different_seeds_differ(deal):
    env = sortskaeg.env(num_players=4, deal=deal)
    a = play(env, seed=5)
    assert play(sortskaeg.env(num_players=4, deal=deal), seed=5) == a
    assert play(env, seed=6) != a


def test_spaces_masks_and_info():
    env = sortskaeg.env(num_players=5)
    env.reset(seed=2)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,) == (sum(OBS_BLOCKS.values()),)
    assert space["action_mask"].shape == (NUM_ACTIONS,) and env.action_space("player_3").n == NUM_ACTIONS
    rng = random.Random(0)
    rewards = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        rewards[agent] += reward
        assert space.contains(obs)
        assert set(info) >= {"phase", "score", "tricks", "bid", "round", "hand_size", "dealer"}
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()  # only the acting agent has moves
        if term:
            assert info["phase"] == "over" and "winners" in info
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
    assert sum(rewards.values()) == pytest.approx(0.0)  # +1/k each for k winners, -1/(n-k) each for the rest


def test_reset_options_dealer_scores_hands():
    env = sortskaeg.env(num_players=3, hand_sizes=(2, 1))
    hands = [["R1", "Y10"], ["J1", "G5"], ["B2", "B3"]]
    env.reset(seed=1, options={"dealer": 0, "scores": [3, -4, 7], "hands": hands})
    assert env.game.dealer == 0 and env.agent_selection == "player_1"
    assert [env.infos[f"player_{s}"]["score"] for s in range(3)] == [3, -4, 7]
    assert env.game.hands == [{parse_card(c) for c in h} for h in hands]
    # decks fix every deal; the second round's hands come from the second deck's top
    deck2 = list(range(41, -1, -1))
    env.reset(seed=1, options={"dealer": 2, "decks": [list(range(42)), deck2]})
    assert env.game.hands == [{0, 1}, {2, 3}, {4, 5}]  # dealt in blocks from the dealer's left
    env.step(env.observe("player_0")["action_mask"].nonzero()[0][0])
    while env.game.round == 0:
        env.step(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    # round 2, dealer player_0: player_1 gets the top card 41, player_2 40, player_0 39
    assert env.game.hands == [{39}, {41}, {40}]


def test_render_ansi_shows_scores_bids_and_the_observers_hand():
    env = sortskaeg.env(num_players=3, render_mode="ansi", hand_sizes=(2,))
    env.reset(seed=0, options={"hands": [["R1", "Y10"], ["J1", "G5"], ["B2", "B3"]], "dealer": 2, "scores": [17, -3, 0]})
    env.step(43)  # player_0 bids 1
    text = env.render()
    assert "round 1/1" in text and "hand size 2" in text
    assert re.search(r"player_0\s+17\s+1\s+0", text)
    assert re.search(r"player_1\*\s+-3\s+-\s+0.*to bid", text)
    assert "J1 G5" in text and "Y10" not in text  # the acting player's hand only
    with pytest.warns(UserWarning, match="render_mode"):
        assert sortskaeg.env(num_players=3).render() is None


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        sortskaeg.env(render_mode="rgb")
    with pytest.raises(ValueError, match="reward must be one of"):
        sortskaeg.env(reward="shaped")
