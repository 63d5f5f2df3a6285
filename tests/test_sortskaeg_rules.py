"""Sortskæg's rules, scripted (SPEC §6): fixed hands through the ``hands`` reset option,
every move named, the expected tricks and scores worked out beside the moves.

Seats are ``player_0..``; ``"2 play:R7"`` means player_2 plays R7 (the helper checks it
is player_2's turn). Short ``hand_sizes`` keep the scripts small.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from redbeard_env import sortskaeg
from redbeard_env.sortskaeg import action_id, action_name, card_name, parse_card
from redbeard_env.sortskaeg.cards import BID0, NUM_ACTIONS, NUM_CARDS, trick_winner
from redbeard_env.sortskaeg.observation import OBS_SLICES, OFF, encode
from redbeard_env.sortskaeg.rules import make_rules, round_score


def make(n, hands, dealer, sizes=None, **kwargs):
    """An env reset to these hands (first deal) and first dealer."""
    overrides = dict(kwargs)
    if sizes is not None:
        overrides["hand_sizes"] = sizes
    env = sortskaeg.env(num_players=n, **overrides)
    env.reset(seed=0, options={"hands": hands, "dealer": dealer})
    return env


def play(env, *moves):
    """Each move is ``"<seat> <action name>"``; the seat must be the one to act."""
    for move in moves:
        seat, name = move.split(" ", 1)
        assert env.agent_selection == f"player_{seat}", f"{move}: it is {env.agent_selection}'s turn"
        env.step(action_id(name))


def legal_names(env):
    obs = env.observe(env.agent_selection)
    return {action_name(int(a), env.game.phase) for a in np.flatnonzero(obs["action_mask"])}


def scores(env):
    return list(env.game.scores)


# ---------------------------------------------------------------- cards and names
def test_card_ids_and_names():
    assert [card_name(c) for c in (0, 9, 10, 29, 30, 39, 40, 41)] == ["R1", "R10", "G1", "B10", "Y1", "Y10", "J1", "J2"]
    assert parse_card("y10") == 39 and parse_card(" J2 ") == 41 and parse_card(7) == 7
    assert action_id("play:Y10") == 39 and action_id("discard:R2") == 1 and action_id("bid:3") == BID0 + 3 == 45
    assert action_name(45) == "bid:3" and action_name(1, "discard") == "discard:R2" and action_name(39) == "play:Y10"
    assert NUM_ACTIONS == 50 and NUM_CARDS == 42
    for bad in ("Y11", "R0", "J3", "X5", "", 42, -1, True, 3.0):
        with pytest.raises(ValueError):
            parse_card(bad)
    with pytest.raises(ValueError, match="unknown action name"):
        action_id("pass")


def test_scoring_formula():
    r = make_rules("sortskaeg")
    assert round_score(3, 3, r) == 9  # 5 for the first trick + 2 + 2
    assert round_score(1, 1, r) == 5
    assert round_score(7, 7, r) == 17  # 5 + 6 * 2
    assert round_score(0, 0, r) == 5
    assert round_score(2, 4, r) == -4  # two tricks off, -2 each
    assert round_score(0, 3, r) == -6
    assert round_score(5, 1, r) == -8


# ---------------------------------------------------------------- a scored round
def test_exact_bids_zero_bid_and_a_miss_are_scored():
    # 3 players, one round of 4 cards, dealer player_2: player_0 bids first and leads.
    env = make(3, [["Y10", "Y9", "Y8", "R1"], ["R2", "R3", "G2", "G3"], ["R10", "B5", "B6", "G10"]], dealer=2, sizes=(4,))
    assert env.infos["player_0"]["dealer"] == 2 and env.game.phase == "bid"
    play(env, "0 bid:3", "1 bid:0", "2 bid:2")
    play(env, "0 play:Y10", "1 play:R2", "2 play:B5")  # yellow led: Y10 wins -> player_0 (1 trick)
    play(env, "0 play:Y9", "1 play:R3", "2 play:B6")  # player_0 leads again, Y9 wins (2)
    play(env, "0 play:Y8", "1 play:G2", "2 play:G10")  # Y8 wins over G10 (3)
    play(env, "0 play:R1", "1 play:G3", "2 play:R10")  # red led: R10 wins -> player_2 (1 trick)
    # player_0 bid 3, took 3: 5 + 2 + 2 = 9; player_1 bid 0, took 0: 5; player_2 bid 2, took 1: -2
    assert env.game.tricks == [3, 0, 1]
    assert scores(env) == [9, 5, -2]
    assert env.game.phase == "over" and env.game.winners == [0]
    # reward win: the winner +1, the two others -1/2 each
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert env.infos["player_1"]["winner"] == "player_0" and env.infos["player_1"]["winners"] == ["player_0"]


def test_bid_two_take_four_costs_four():
    # 2 players, one round of 4, dealer player_1: player_0 bids first and leads.
    env = make(2, [["Y10", "Y9", "Y8", "Y7"], ["R1", "R2", "R3", "R4"]], dealer=1, sizes=(4,))
    play(env, "0 bid:2", "1 bid:1")
    for _ in range(4):  # player_0's yellows win every trick; the winner leads the next
        play(env, f"0 play:{card_name(max(env.game.hands[0]))}", f"1 play:{card_name(min(env.game.hands[1]))}")
    # player_0 bid 2, took 4: -2 * 2 = -4; player_1 bid 1, took 0: -2 -> player_1 wins on -2
    assert scores(env) == [-4, -2]
    assert env.game.winners == [1]
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}


# ---------------------------------------------------------------- following and the trick winner
def test_must_follow_colour_but_a_joker_is_always_playable():
    # 3 players with hands of 3, dealer player_2: player_0 leads R1.
    env = make(3, [["R1", "B1", "B2"], ["R5", "Y10", "J1"], ["G1", "Y1", "B9"]], dealer=2, sizes=(3,))
    play(env, "0 bid:1", "1 bid:1", "2 bid:1", "0 play:R1")
    # player_1 holds red: only R5, or the joker (never Y10: yellow trumps only when void)
    assert legal_names(env) == {"play:R5", "play:J1"}
    before = copy.deepcopy(env.game.__dict__ | {"rng": None})
    obs_before = env.observe("player_1")["observation"].copy()
    with pytest.raises(ValueError, match=r"illegal action play:Y10 \(id 39\).*phase 'play'"):
        env.step(action_id("play:Y10"))
    # the refused action changed nothing
    after = env.game.__dict__ | {"rng": None}
    assert all(after[k] == before[k] for k in before if k != "rng")
    assert np.array_equal(env.observe("player_1")["observation"], obs_before)
    play(env, "1 play:J1")  # the joker while holding red: allowed (SPEC 6.3b's reading)
    # player_2 is void in red: anything goes, and Y1 trumps the red cards
    assert legal_names(env) == {"play:G1", "play:Y1", "play:B9"}
    play(env, "2 play:Y1")  # trick R1, J1, Y1: the joker was not led -> it loses; Y1 trumps -> player_2
    assert env.game.tricks == [0, 0, 1]
    assert env.game.voids[2][0]  # player_2 showed a red void
    assert not env.game.voids[1][0]  # a joker shows nothing
    assert env.agent_selection == "player_2"  # the trick winner leads


def test_a_joker_not_led_never_wins():
    # dealer player_2: player_0 leads R1; player_1 plays a joker; player_2 follows with R2.
    env = make(3, [["R1"], ["J1"], ["R2"]], dealer=2, sizes=(1,))
    play(env, "0 bid:0", "1 bid:1", "2 bid:0", "0 play:R1", "1 play:J1", "2 play:R2")
    # the highest red wins: R2 -> player_2 (bid 0, took 1: -2); player_0 0/0: 5; player_1 1/0: -2
    assert env.game.tricks == [0, 0, 1]
    assert scores(env) == [5, -2, -2]


def test_a_led_joker_wins_at_once_and_the_others_still_play():
    # 3 players, hands of 2, dealer player_2: player_0 leads J1.
    env = make(3, [["J1", "R1"], ["Y10", "R5"], ["R10", "J2"]], dealer=2, sizes=(2,))
    play(env, "0 bid:1", "1 bid:1", "2 bid:0", "0 play:J1")
    # after a led joker there is no led colour: everyone may play any card
    assert legal_names(env) == {"play:Y10", "play:R5"}
    play(env, "1 play:Y10")  # even the highest trump cannot beat a led joker
    assert legal_names(env) == {"play:R10", "play:J2"}
    play(env, "2 play:J2")  # the second joker is an ordinary losing card
    assert env.game.tricks == [1, 0, 0] and env.agent_selection == "player_0"
    play(env, "0 play:R1", "1 play:R5", "2 play:R10")  # red: R10 -> player_2
    # player_0 bid 1 took 1: 5; player_1 bid 1 took 0: -2; player_2 bid 0 took 1: -2
    assert env.game.tricks == [1, 0, 1]
    assert scores(env) == [5, -2, -2]


def test_yellow_led_and_trumping_by_the_void():
    assert trick_winner([parse_card(c) for c in ("R3", "R9", "Y1")]) == 2  # a void player trumps
    assert trick_winner([parse_card(c) for c in ("R3", "R9", "G10")]) == 1  # off-colour cards lose
    assert trick_winner([parse_card(c) for c in ("Y3", "Y9", "R10")]) == 1  # yellow led: highest yellow
    assert trick_winner([parse_card(c) for c in ("R3", "Y2", "Y7", "J1")]) == 2  # highest trump; the joker loses
    assert trick_winner([parse_card(c) for c in ("J2", "Y10", "J1")]) == 0  # a led joker wins


def test_first_bid_and_lead_left_of_the_dealer_then_the_dealer_rotates():
    # 4 players, two rounds of 1, dealer player_1: player_2 bids first and leads.
    env = make(4, [["R1"], ["R2"], ["R3"], ["R4"]], dealer=1, sizes=(1, 1))
    assert env.agent_selection == "player_2"
    play(env, "2 bid:0", "3 bid:1", "0 bid:0", "1 bid:0")
    play(env, "2 play:R3", "3 play:R4", "0 play:R1", "1 play:R2")  # R4 -> player_3
    # player_3 bid 1 took 1: 5; the others bid 0 took 0: 5 each
    assert scores(env) == [5, 5, 5, 5]
    # round 2: the deal passes clockwise to player_2, player_3 bids first and leads
    assert env.game.dealer == 2 and env.agent_selection == "player_3"
    assert env.infos["player_0"]["round"] == 1 and env.infos["player_0"]["dealer"] == 2


def test_dealer_hook_forbids_the_bids_adding_up():
    env = make(3, [["R1", "R2"], ["G1", "G2"], ["B1", "B2"]], dealer=2, sizes=(2,), dealer_hook=True)
    play(env, "0 bid:1", "1 bid:0")
    assert legal_names(env) == {"bid:0", "bid:2"}  # bid:1 would make 1 + 0 + 1 = 2 tricks
    with pytest.raises(ValueError, match=r"illegal action bid:1"):
        env.step(action_id("bid:1"))
    # without the hook the dealer may bid anything 0..2
    env = make(3, [["R1", "R2"], ["G1", "G2"], ["B1", "B2"]], dealer=2, sizes=(2,))
    play(env, "0 bid:1", "1 bid:0")
    assert legal_names(env) == {"bid:0", "bid:1", "bid:2"}


# ---------------------------------------------------------------- the end: ties share the win
def test_ties_on_top_share_the_win():
    # dealer player_2; player_0 leads R5 and wins it.
    env = make(3, [["R5"], ["R1"], ["G1"]], dealer=2, sizes=(1,))
    play(env, "0 bid:1", "1 bid:0", "2 bid:1", "0 play:R5", "1 play:R1", "2 play:G1")
    # player_0 1/1: 5; player_1 0/0: 5; player_2 1/0: -2 -> players 0 and 1 tie on top
    assert scores(env) == [5, 5, -2]
    assert env.game.winners == [0, 1]
    # two winners: +1/2 each; the other -1/(3-2) = -1
    assert env._cumulative_rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}
    assert env.infos["player_2"]["winner"] == ["player_0", "player_1"]


def test_everyone_tied_gets_nothing():
    env = make(3, [["R5"], ["R1"], ["G1"]], dealer=2, sizes=(1,))
    play(env, "0 bid:1", "1 bid:0", "2 bid:0", "0 play:R5", "1 play:R1", "2 play:G1")
    # 5, 5, 5: all tie -> all rewards 0
    assert scores(env) == [5, 5, 5] and env.game.winners == [0, 1, 2]
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_starting_scores_decide_with_the_round():
    env = sortskaeg.env(num_players=2, hand_sizes=(1,))
    env.reset(seed=0, options={"hands": [["R1"], ["R2"]], "dealer": 1, "scores": [10, 0]})
    play(env, "0 bid:0", "1 bid:1", "0 play:R1", "1 play:R2")
    # player_0 0/0: 10 + 5 = 15; player_1 1/1: 0 + 5 = 5
    assert scores(env) == [15, 5] and env.game.winners == [0]


def test_reward_score_pays_each_rounds_change():
    env = sortskaeg.env(num_players=2, hand_sizes=(1, 1), reward="score")
    env.reset(seed=0, options={"hands": [["R1"], ["R2"]], "dealer": 1})
    play(env, "0 bid:0", "1 bid:0", "0 play:R1")
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    play(env, "1 play:R2")
    # player_0 0/0: +5; player_1 bid 0 took 1: -2, paid as the round is scored
    assert env.rewards == {"player_0": 5.0, "player_1": -2.0}
    # the second round, played to the end: every step's rewards, summed, are the final scores
    total = dict(env.rewards)
    while env.game.phase != "over":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        for a, r in env.rewards.items():
            total[a] += r
    assert [total[f"player_{s}"] for s in range(2)] == scores(env)  # no terminal win reward on top


# ---------------------------------------------------------------- 13 rounds of 7..1..7
def test_a_game_has_13_rounds_of_7_down_to_1_and_back_to_7():
    env = sortskaeg.env(num_players=4)
    env.reset(seed=3)
    rng = random.Random(3)
    sizes, tricks_per_round = [], []
    last_round = -1
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            env.step(None)
            continue
        if info["round"] != last_round:
            last_round = info["round"]
            sizes.append(info["hand_size"])
            assert len(env.game.hands[0]) == info["hand_size"]  # everyone holds the round's size
        before = env.game.round
        env.step(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
        for e in env.game.events:
            if e[0] == "round_end":
                assert e[0:3] == ("round_end", before, sizes[-1])
                tricks_per_round.append(sum(e[4]))
    assert sizes == [7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7]
    assert tricks_per_round == sizes  # one trick per card in hand


# ---------------------------------------------------------------- deal = carry
def test_carry_discards_and_the_ascending_deal():
    # 2 players, rounds of 2, 1, 2, dealer player_1: these four cards are the game's cards.
    env = make(2, [["R1", "R2"], ["G1", "G2"]], dealer=1, sizes=(2, 1, 2), deal="carry")
    play(env, "0 bid:0", "1 bid:0")
    play(env, "0 play:R1", "1 play:G1")  # red led, player_1 void: R1 -> player_0
    play(env, "0 play:R2", "1 play:G2")  # R2 -> player_0
    # player_0 bid 0 took 2: -4; player_1 bid 0 took 0: 5
    assert scores(env) == [-4, 5]
    # the next round is one smaller: everyone takes back the cards they played and discards
    # one, in turn from the dealer's left (the dealer of the round just played: player_1)
    assert env.game.phase == "discard" and env.agent_selection == "player_0"
    assert legal_names(env) == {"discard:R1", "discard:R2"}
    assert env.infos["player_0"]["hand_size"] == 1 and env.infos["player_0"]["round"] == 1
    play(env, "0 discard:R2", "1 discard:G1")
    # the discards are hidden: player_1 sees its own discard, not player_0's
    o1 = env.observe("player_1")["observation"]
    assert set(np.flatnonzero(o1[OBS_SLICES["discarded"]])) == {parse_card("G1")}
    took = o1[OBS_SLICES["took_back"]].reshape(6, NUM_CARDS)
    assert set(np.flatnonzero(took[1])) == {parse_card("R1"), parse_card("R2")}  # player_0 is on player_1's left
    assert set(np.flatnonzero(o1[OBS_SLICES["seen_game"]])) == {parse_card(c) for c in ("R1", "R2", "G1", "G2")}
    # round 2 (hand 1): the dealer moves to player_0; the hands are what the discards left
    assert env.game.dealer == 0 and env.agent_selection == "player_1"
    assert env.game.hands == [{parse_card("R1")}, {parse_card("G2")}]
    play(env, "1 bid:1", "0 bid:0", "1 play:G2", "0 play:R1")  # G2 -> player_1
    # player_1 bid 1 took 1: 5 + 5 = 10; player_0 bid 0 took 0: -4 + 5 = 1
    assert scores(env) == [1, 10]
    # round 3 grows again: no discard, a new deal from all the game's cards (discards included)
    assert env.game.phase == "bid"
    assert env.game.hands[0] | env.game.hands[1] == {parse_card(c) for c in ("R1", "R2", "G1", "G2")}
    assert len(env.game.hands[0]) == len(env.game.hands[1]) == 2
    o0 = env.observe("player_0")["observation"]
    assert not o0[OBS_SLICES["took_back"]].any()  # a new deal: nothing taken back


def test_carry_game_uses_only_the_first_deals_cards():
    env = sortskaeg.env(num_players=3, deal="carry")
    env.reset(seed=11)
    game_cards = set().union(*env.game.hands)
    assert len(game_cards) == 21
    rng = random.Random(1)
    discards = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            env.step(None)
            continue
        assert set().union(*env.game.hands) <= game_cards
        discards += env.game.phase == "discard"
        env.step(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
    assert discards == 6 * 3  # after the rounds of 7, 6, 5, 4, 3 and 2; none after the 1
    assert env.game.round == 13


# ---------------------------------------------------------------- bad input
def test_bad_rules_and_player_counts():
    with pytest.raises(ValueError, match=r"unknown Sortskæg rules preset 'classic'"):
        sortskaeg.env(rules="classic")
    with pytest.raises(ValueError, match=r"unknown Rules field\(s\) 'leader'"):
        sortskaeg.env(leader="declarer")
    with pytest.raises(ValueError, match=r"'deal' got 'shuffle'.*'fresh' \| 'carry'"):
        sortskaeg.env(deal="shuffle")
    with pytest.raises(ValueError, match=r"'dealer_hook' got 1"):
        sortskaeg.env(dealer_hook=1)
    with pytest.raises(ValueError, match=r"'hand_sizes'.*1\.\.7"):
        sortskaeg.env(hand_sizes=(8, 7))
    with pytest.raises(ValueError, match=r"'hand_sizes'.*first round must be the largest"):
        sortskaeg.env(hand_sizes=(3, 4), deal="carry")
    with pytest.raises(ValueError, match=r"at most one card smaller"):
        sortskaeg.env(hand_sizes=(5, 3), deal="carry")
    with pytest.raises(ValueError, match=r"'exact_first' got -1"):
        sortskaeg.env(exact_first=-1)
    for n in (1, 7, 4.0, True):
        with pytest.raises(ValueError, match=r"num_players must be an int in 2\.\.6"):
            sortskaeg.env(num_players=n)
    sortskaeg.env(hand_sizes=[5, 3])  # fresh: any sizes 1..7; a list is read as a tuple


def test_bad_reset_options_change_nothing():
    env = sortskaeg.env(num_players=3, hand_sizes=(2, 1))
    env.reset(seed=5)
    state = repr(env.game.hands), env._rng.bit_generator.state
    bad = [
        {"dealer": 3},
        {"dealer": True},
        {"scores": [1, 2]},
        {"scores": [1, 2, "3"]},
        {"hands": [["R1", "R2"], ["G1", "G2"]]},
        {"hands": [["R1", "R2"], ["G1", "G2"], ["B1"]]},
        {"hands": [["R1", "R2"], ["G1", "G2"], ["B1", "R1"]]},  # R1 twice
        {"hands": [["R1", "R2"], ["G1", "G2"], ["B1", "Z9"]]},
        {"decks": [list(range(41))]},
        {"decks": [list(range(42))], "hands": [["R1", "R2"], ["G1", "G2"], ["B1", "B2"]]},
        "dealer",
    ]
    for options in bad:
        with pytest.raises(ValueError):
            env.reset(seed=9, options=options)
        assert (repr(env.game.hands), env._rng.bit_generator.state) == state
    with pytest.warns(UserWarning, match="unknown reset option 'stock'"):
        env.reset(seed=1, options={"stock": []})


def test_illegal_actions_raise_and_change_nothing():
    env = make(3, [["R1", "B1"], ["R5", "Y10"], ["G1", "Y1"]], dealer=2, sizes=(2,))
    for action, pattern in ((BID0 + 3, r"bid:3 \(id 45\).*phase 'bid'.*legal: bid:0, bid:1, bid:2"),
                            (0, r"play:R1 \(id 0\).*phase 'bid'"), (50, r"50"), (True, r"True"), ("bid:1", r"bid:1")):
        before = copy.deepcopy({k: v for k, v in env.game.__dict__.items() if k != "rng"})
        with pytest.raises(ValueError, match=pattern):
            env.step(action)
        assert {k: v for k, v in env.game.__dict__.items() if k != "rng"} == before
    play(env, "0 bid:0", "1 bid:0", "2 bid:0")
    with pytest.raises(ValueError, match=r"play:R5 \(id 4\) for player_0 in phase 'play'"):
        env.step(action_id("play:R5"))  # not in player_0's hand


def test_observation_is_the_observers_own_view():
    env = make(3, [["R1", "B1"], ["R5", "Y10"], ["G1", "J1"]], dealer=2, sizes=(2,))
    play(env, "0 bid:1", "1 bid:2")
    o = env.observe("player_2")["observation"]
    assert set(np.flatnonzero(o[OBS_SLICES["hand"]])) == {parse_card("G1"), parse_card("J1")}
    assert o[OFF["jokers_seen"] + 1] == 1.0  # one joker in the hand
    bids = o[OBS_SLICES["bid"]].reshape(6, 9)
    # relative positions from player_2: itself (no bid), player_0 (bid 1), player_1 (bid 2)
    assert bids[0, 0] == 1 and bids[1, 2] == 1 and bids[2, 3] == 1 and not bids[3:].any()
    assert o[OFF["dealer"] + 0] == 1 and o[OFF["acting"] + 0] == 1
    assert o[OFF["hand_size"] + 1] == 1
    assert np.array_equal(o, encode(env.game, 2))
