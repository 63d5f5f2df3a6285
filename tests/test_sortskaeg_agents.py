"""Sortskæg's bots: registry names, legal play in every phase through the AEC env, and the
heuristic's decisions in scripted positions."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.sortskaeg.decode import decode_batch
from redbeard_env import sortskaeg
from redbeard_env.sortskaeg import action_id, action_name
from redbeard_env.sortskaeg.vector import VectorEnv


def make(n, hands, dealer, sizes, **kw):
    env = sortskaeg.env(num_players=n, hand_sizes=sizes, **kw)
    env.reset(seed=0, options={"hands": hands, "dealer": dealer})
    return env


def choose(bot, env):
    obs = env.observe(env.agent_selection)
    return action_name(bot.act(obs), env.game.phase)


def play(env, *names):
    for name in names:
        env.step(action_id(name))


@pytest.mark.parametrize("spec", ["sortskaeg_random", "sortskaeg_heuristic", "sortskaeg_random:seed=3"])
def test_bots_play_whole_games_legally_in_both_deals(spec):
    bot = make_agent(spec, seed=1)
    assert bot.game == "sortskaeg"
    for deal in ("fresh", "carry"):
        env = sortskaeg.env(num_players=3, deal=deal)
        env.reset(seed=2)
        phases = set()
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term:
                env.step(None)
                continue
            phases.add(info["phase"])
            action = bot.act(obs)
            assert obs["action_mask"][action] == 1
            env.step(action)
        assert phases == ({"bid", "play", "discard"} if deal == "carry" else {"bid", "play"})


def test_random_bot_is_seeded_and_batched():
    venv = VectorEnv(64, 4, seed=0)
    obs, mask, _ = venv.reset()
    a = make_agent("sortskaeg_random:seed=5").act_batch(obs, mask)
    b = make_agent("sortskaeg_random:seed=5").act_batch(obs, mask)
    assert np.array_equal(a, b) and (mask[np.arange(64), a] == 1).all()
    with pytest.raises(ValueError, match=r"shape \[B, 50\]"):
        make_agent("sortskaeg_random").act_batch(obs, np.ones((64, 69), np.int8))


def test_decode_reads_the_view():
    env = make(3, [["J1", "Y10"], ["R1", "R2"], ["G1", "G2"]], dealer=2, sizes=(2,))
    play(env, "bid:2", "bid:0")
    v = decode_batch(env.observe("player_2")["observation"][None])
    assert v.num_players[0] == 3 and v.hand_size[0] == 2 and v.phase[0] == 0
    assert list(v.bid[0, :3]) == [-1, 2, 0]  # itself, player_0 (its left), player_1
    assert v.dealer[0] == 0 and set(np.flatnonzero(v.hand[0])) == {10, 11}


def test_heuristic_bids_its_sure_tricks():
    bot = make_agent("sortskaeg_heuristic")
    # player_0: the two top yellows are sure (1.0 each), the jokers are worth 0.8 each, R1
    # has nine reds above it (about 0.02): E = 3.62, times bid_scale 1.3 = 4.7 -> bid 5
    env = make(3, [["J1", "J2", "Y10", "Y9", "R1"], ["R2", "R3", "G1", "G2", "G3"], ["B1", "B2", "B3", "R4", "R5"]],
               dealer=2, sizes=(5,))
    assert choose(bot, env) == "bid:5"
    assert choose(make_agent("sortskaeg_heuristic:bid_scale=1.0"), env) == "bid:4"
    play(env, "bid:4")
    assert choose(bot, env) == "bid:0"  # nothing but low cards


def test_heuristic_plays_for_its_bid():
    bot = make_agent("sortskaeg_heuristic")
    env = make(3, [["J1", "R10", "B1"], ["R2", "G3", "Y1"], ["B9", "B10", "G2"]], dealer=2, sizes=(3,))
    play(env, "bid:2", "bid:0", "bid:1")
    # player_0 wants tricks and leads: the joker is a sure trick and keeps the lead
    assert choose(bot, env) == "play:J1"
    play(env, "play:J1")
    # player_1 wants none: after a led joker anything goes; it throws its most dangerous card
    assert choose(bot, env) == "play:Y1"
    play(env, "play:Y1", "play:G2")
    # player_0 (1 trick, wants 2) leads again: R10 before B1
    assert choose(bot, env) == "play:R10"
    play(env, "play:R10")
    # player_1 holds R2 (must follow); player_2 wants a trick but cannot beat R10: its weakest card
    play(env, "play:R2")
    assert choose(bot, env) == "play:B9"


def test_heuristic_ducks_when_it_has_its_tricks():
    bot = make_agent("sortskaeg_heuristic")
    env = make(2, [["R5", "R9"], ["R7", "J2"]], dealer=1, sizes=(2,))
    play(env, "bid:0", "bid:0")
    # player_0 wants no trick and leads: its lowest card
    assert choose(bot, env) == "play:R5"
    play(env, "play:R5")
    # player_1 wants none: R7 would beat R5, a joker that is not led never wins
    assert choose(bot, env) == "play:J2"


def test_heuristic_discards_an_uncertain_card():
    bot = make_agent("sortskaeg_heuristic")
    env = make(2, [["J1", "Y10", "R1"], ["G1", "G2", "G3"]], dealer=1, sizes=(3, 2), deal="carry")
    play(env, "bid:3", "bid:0", "play:J1", "play:G1", "play:Y10", "play:G2", "play:R1", "play:G3")
    assert env.game.phase == "discard"
    # The game's cards are J1 Y10 R1 G1 G2 G3; player_1 took back the greens. Chances for the
    # next round (2 cards each): Y10 is the top trump (1.0), J1 is worth joker_value 0.8,
    # R1 has no higher red left against it: lead_factor 0.85 * trump_factor 0.6 (one
    # opponent) = 0.51. The discard is the card nearest 1/2: R1.
    assert choose(bot, env) == "discard:R1"
    # a joker worth exactly 1/2 is the most uncertain card: it goes
    bot = make_agent("sortskaeg_heuristic:joker_value=0.5")
    assert choose(bot, env) == "discard:J1"
