"""Oh Hell's rules, scripted (SPEC §7): fixed deals through the ``dealer``, ``hands`` and
``trump_card`` reset options, every move named, the expected tricks and scores worked out
beside the moves. ``"2 play:AS"`` means player_2 plays AS (the helper checks it is player_2's
turn). Also the public API: ``make`` and its errors, action names, reset options.
"""

from __future__ import annotations

import numpy as np
import pytest

import redbeard_env
from redbeard_env import oh_hell
from redbeard_env.oh_hell.cards import BID0, NUM_ACTIONS, from_openspiel, to_openspiel


def make(n, hands, dealer, trump, **rules):
    env = redbeard_env.make("oh_hell", num_players=n, **rules)
    env.reset(seed=0, options={"dealer": dealer, "hands": hands, "trump_card": trump})
    return env


def play(env, *moves):
    for move in moves:
        seat, name = move.split(" ", 1)
        assert env.agent_selection == f"player_{seat}", f"{move}: it is {env.agent_selection}'s turn"
        env.step(oh_hell.action_id(name))


def legal(env) -> set[str]:
    mask = env.observe(env.agent_selection)["action_mask"]
    return {oh_hell.action_name(int(a)) for a in np.flatnonzero(mask)}


def points(env) -> list[int]:
    return [env.infos[f"player_{s}"]["score"] for s in range(env.num_players)]


# ---------------------------------------------------------------- cards and names
def test_card_ids_names_and_openspiel_numbering():
    assert [oh_hell.card_name(c) for c in (0, 12, 13, 26, 38, 39, 51)] == ["2C", "AC", "2D", "2S", "AS", "2H", "AH"]
    assert oh_hell.parse_card("10d") == oh_hell.parse_card("TD") == 21 and oh_hell.parse_card(" qh ") == 49
    assert oh_hell.action_id("play:AS") == 38 and oh_hell.action_id("bid:3") == BID0 + 3 == 55
    assert oh_hell.action_name(55) == "bid:3" and oh_hell.action_name(69) == "bid:17" and NUM_ACTIONS == 70
    for bad in ("1S", "AX", "", 52, True):
        with pytest.raises(ValueError):
            oh_hell.parse_card(bad)
    for bad in (70, -1, True):
        with pytest.raises(ValueError):
            oh_hell.action_name(bad)
    with pytest.raises(ValueError, match="bid:0..bid:17"):
        oh_hell.action_id("bid:18")
    # OpenSpiel numbers a card rank * num_suits + suit: with 2 suits, 3D is 1 * 2 + 1 = 3
    assert to_openspiel(oh_hell.parse_card("3D"), 2) == 3 and from_openspiel(3, 2) == oh_hell.parse_card("3D")
    assert all(from_openspiel(to_openspiel(c, 4), 4) == c for c in range(52))


# ---------------------------------------------------------------- the dealer's hook, follow suit, the trick
def test_hook_lead_and_the_highest_card_of_the_led_suit():
    # 3 players, 2 tricks, player_2 deals; 5H turned: hearts are trumps
    env = make(3, [["AS", "2H"], ["KS", "3C"], ["QS", "4D"]], dealer=2, trump="5H", num_tricks=2)
    assert env.game.trumps == 3 and env.infos["player_0"]["trump_card"] == "5H"
    assert all(39 + 3 not in h for h in env.game.hands)  # the turned card is out of play
    play(env, "0 bid:1", "1 bid:1")  # the bids add up to 2 so far
    assert legal(env) == {"bid:1", "bid:2"}  # the dealer may not bid 0: 1 + 1 + 0 = 2 tricks
    play(env, "2 bid:1")
    assert env.agent_selection == "player_0"  # the dealer's left leads
    play(env, "0 play:AS")
    assert legal(env) == {"play:KS"}  # follow suit
    play(env, "1 play:KS", "2 play:QS")  # AS is the highest spade: player_0 takes it
    assert env.game.tricks == [1, 0, 0] and env.agent_selection == "player_0"
    play(env, "0 play:2H")
    assert legal(env) == {"play:3C"}  # void in hearts: any card (the only one)
    play(env, "1 play:3C", "2 play:4D")  # 2H, the only trump, takes it
    assert env.game.tricks == [2, 0, 0] and env.game.game_over
    # bids 1/1/1, tricks 2/0/0: every bid missed; 1 point a trick, no penalty
    assert points(env) == [2, 0, 0]


def test_hook_does_not_bind_when_the_bids_are_over_already():
    env = make(3, [["AS", "2H"], ["KS", "3C"], ["QS", "4D"]], dealer=2, trump="5H", num_tricks=2)
    play(env, "0 bid:2", "1 bid:2")
    assert legal(env) == {"bid:0", "bid:1", "bid:2"}  # 4 + k is never 2


def test_off_bid_penalty_on_the_same_deal():
    env = make(3, [["AS", "2H"], ["KS", "3C"], ["QS", "4D"]], dealer=2, trump="5H", num_tricks=2,
               off_bid_penalty=True)
    play(env, "0 bid:1", "1 bid:1", "2 bid:1", "0 play:AS", "1 play:KS", "2 play:QS", "0 play:2H", "1 play:3C",
         "2 play:4D")
    # bids 1/1/1, tricks 2/0/0: each is one trick off: -1 each
    assert points(env) == [-1, -1, -1]


# ---------------------------------------------------------------- trumps beat the led suit; exact bids
HANDS4 = [["TC", "2D", "KH"], ["AC", "KC", "2S"], ["QC", "3D", "5H"], ["JC", "4C", "AH"]]
MOVES4 = [
    "1 bid:2", "2 bid:1", "3 bid:0",   # 3 so far: the dealer may not bid 0
    "0 bid:1",
    "1 play:AC", "2 play:QC", "3 play:JC", "0 play:TC",   # AC: player_1 takes trick 1
    "1 play:KC", "2 play:3D", "3 play:4C", "0 play:2D",   # 3D and 2D ruff; 3D is the higher trump: player_2
    "2 play:5H", "3 play:AH", "0 play:KH", "1 play:2S",   # AH: player_3
]


def test_trump_wins_and_exact_bids_score_ten_more():
    # 4 players, 3 tricks, player_0 deals; 9D turned: diamonds are trumps
    env = make(4, HANDS4, dealer=0, trump="9D", num_tricks=3)
    play(env, *MOVES4[:3])
    assert legal(env) == {"bid:1", "bid:2", "bid:3"}
    play(env, *MOVES4[3:5])
    assert legal(env) == {"play:QC"}  # player_2 must follow clubs
    play(env, *MOVES4[5:])
    assert env.game.tricks == [0, 1, 1, 1]
    # bids 1/2/1/0 (seats 0..3), tricks 0/1/1/1: player_2 is exact: 1 + 10 = 11; the others 1 a trick
    assert points(env) == [0, 1, 11, 1]
    assert env.infos["player_2"]["winner"] == "player_2"


def test_penalty_and_points_per_trick_on_the_same_deal():
    env = make(4, HANDS4, dealer=0, trump="9D", num_tricks=3, off_bid_penalty=True, points_per_trick=2)
    play(env, *MOVES4)
    # player_2 exact: 2 * 1 + 10 = 12; the others one trick off: -2 each
    assert points(env) == [-2, -2, 12, -2]


def test_the_scripted_scores_are_openspiels():
    pyspiel = pytest.importorskip("pyspiel")
    for params, expected in (({}, [0, 1, 11, 1]), ({"off_bid_penalty": True, "points_per_trick": 2}, [-2, -2, 12, -2])):
        game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 3, **params})
        state = game.new_initial_state()
        state.apply_action(3)  # 3 tricks
        state.apply_action(0)  # player_0 deals
        for k in range(12):  # one card at a time from player 0
            state.apply_action(to_openspiel(oh_hell.parse_card(HANDS4[k % 4][k // 4]), 4))
        state.apply_action(to_openspiel(oh_hell.parse_card("9D"), 4))
        for move in MOVES4:
            seat, name = move.split(" ", 1)
            assert state.current_player() == int(seat)
            a = oh_hell.action_id(name)
            state.apply_action(52 + a - BID0 if a >= BID0 else to_openspiel(a, 4))
        assert state.returns() == expected


# ---------------------------------------------------------------- short decks and drawn sizes
def test_a_short_deck_keeps_the_first_suits_and_the_lowest_ranks():
    env = redbeard_env.make("oh_hell", num_players=3, num_suits=2, num_cards_per_suit=5)  # 2..6 of C and D
    assert env.rules.family.in_play == {oh_hell.parse_card(f"{r}{s}") for r in "23456" for s in "CD"}
    with pytest.raises(ValueError, match="7C is not in this deck.*num_suits=2 x num_cards_per_suit=5"):
        env.reset(seed=0, options={"hands": [["7C"], ["2C"], ["3C"]]})
    with pytest.raises(ValueError, match="2S is not in this deck"):
        env.reset(seed=0, options={"trump_card": "2S"})
    for seed in range(20):  # drawn sizes 1..3 = (10 - 1) // 3
        env.reset(seed=seed)
        g = env.game
        dealt = set().union(*g.hands) | g.face_up
        assert 1 <= g.hand_size <= 3 and dealt <= env.rules.family.in_play and len(dealt) == 3 * g.hand_size + 1


def test_hands_give_a_drawn_size_and_trump_card_alone_is_turned():
    env = redbeard_env.make("oh_hell", num_players=3)  # num_tricks=-1
    env.reset(seed=1, options={"hands": [["AS", "KS"], ["2C", "3C"], ["4D", "5D"]], "trump_card": "AH", "dealer": 1})
    assert env.game.hand_size == 2 and env.game.trump_card == oh_hell.parse_card("AH") and env.game.dealer == 1
    with pytest.raises(ValueError, match="1..17 cards"):
        env.reset(seed=1, options={"hands": [["AS"] * 0, [], []]})
    with pytest.raises(ValueError, match=r"'hands'\[1\] must have 2 cards"):
        env.reset(seed=1, options={"hands": [["AS", "KS"], ["2C"], ["4D", "5D"]]})
    with pytest.raises(ValueError, match="duplicate card AH"):
        env.reset(seed=1, options={"hands": [["AS", "AH"], ["2C", "3C"], ["4D", "5D"]], "trump_card": "AH"})
    for seed in range(5):
        env.reset(seed=seed, options={"trump_card": "QH"})
        assert env.game.trump_card == oh_hell.parse_card("QH") and env.game.trumps == 3
        assert all(oh_hell.parse_card("QH") not in h for h in env.game.hands)
    fixed = redbeard_env.make("oh_hell", num_players=4, num_tricks=3)
    with pytest.raises(ValueError, match=r"'hands'\[0\] must have 3 cards"):
        fixed.reset(seed=0, options={"hands": [["AS"], ["2C"], ["3C"], ["4C"]]})


# ---------------------------------------------------------------- make and its errors
def test_make_takes_openspiels_parameter_names():
    env = redbeard_env.make("oh_hell", num_players=5, num_tricks=4, num_suits=3, num_cards_per_suit=7,
                            points_per_trick=2, off_bid_penalty=True)
    assert (env.rules.num_tricks, env.rules.num_suits, env.rules.num_cards_per_suit, env.rules.points_per_trick,
            env.rules.off_bid_penalty) == (4, 3, 7, 2, True)
    env.reset(seed=0)
    assert env.game.hand_size == 4 and env.observation_space("player_0")["observation"].shape == (oh_hell.OBS_SIZE,)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(num_players=4, num_tricks=13), r"num_suits=4 x num_cards_per_suit=13 = 52 cards cannot deal "
                                         r"num_tricks=13 to num_players=4 plus the turned card"),
    (dict(num_players=7, num_suits=1, num_cards_per_suit=6), r"num_suits=1 x num_cards_per_suit=6 = 6 cards "
                                                             r"cannot deal one card each to num_players=7"),
    (dict(num_players=3, num_suits=5), r"'num_suits'.*1..4"),
    (dict(num_players=3, num_cards_per_suit=1), r"'num_cards_per_suit'.*2..13"),
    (dict(num_players=3, num_tricks=0), r"'num_tricks'.*-1"),
    (dict(num_players=3, num_tricks=18), r"'num_tricks'"),
    (dict(num_players=8), r"num_players must be an int in 3..7"),
    (dict(num_players=3, off_bid_penalty=1), r"'off_bid_penalty'"),
    (dict(num_players=3, tricks=3), r"unknown Rules field"),
])
def test_make_refuses_what_openspiel_refuses(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        redbeard_env.make("oh_hell", **kwargs)


def test_the_largest_deal_and_the_last_cards():
    env = redbeard_env.make("oh_hell", num_players=3, num_tricks=17)  # 3 x 17 + 1 = 52: the whole deck
    env.reset(seed=3)
    assert sorted(set().union(*env.game.hands) | env.game.face_up) == list(range(52))
    rng = np.random.default_rng(0)
    while not env.game.game_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert sum(env.game.tricks) == 17 and env.game.played == set(range(52)) - env.game.face_up


def test_illegal_action_raises_and_changes_nothing():
    env = make(3, [["AS", "2H"], ["KS", "3C"], ["QS", "4D"]], dealer=2, trump="5H", num_tricks=2)
    with pytest.raises(ValueError, match=r"illegal action play:AS \(id 38\) for player_0 in phase 'bid'"):
        env.step(38)
    with pytest.raises(ValueError, match=r"illegal action bid:3"):
        env.step(BID0 + 3)
    assert env.game.bids == [None, None, None] and env.agent_selection == "player_0"
