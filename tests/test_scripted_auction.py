"""Scripted deals: the auction (SPEC §1.2, §1.8): single vs open, all_pass,
bid_over_score, the Rödskägg call.

4 players; every hand holds a face card (no redeal question under no_face_card).
"""

import pytest

from redbeard_env import card_name

try:
    from scripted_helpers import BASE, agent, game, legal, new_env, play, score_events, scores
except ImportError:  # tests/ as a package
    from tests.scripted_helpers import BASE, agent, game, legal, new_env, play, score_events, scores

ALL_BIDS = {"bid:1", "bid:2", "bid:3", "bid:4", "bid:5", "bid:6", "redbeard"}


def test_single_auction_everyone_once_dealer_last_must_beat_highest():
    env = new_env(rules="classic", dealer=1, hands=BASE)  # calls: p2, p3, p0, p1 (dealer)
    assert env.agent_selection == agent(2)
    play(env, "2:bid:2")
    assert legal(env) == {"pass", "bid:3", "bid:4", "bid:5", "bid:6", "redbeard"}
    play(env, "3:pass 0:bid:4")
    assert legal(env) == {"pass", "bid:5", "bid:6", "redbeard"}
    play(env, "1:bid:5")
    # one call each: p2 is not asked again although it was outbid
    g = game(env)
    assert g.phase == "play" and g.declarer == 1 and env.agent_selection == agent(1)
    assert g.calls == [4, 5, 2, -1]


def test_open_auction_goes_round_and_passes_are_final():
    env = new_env(rules="raudskjegg", dealer=3, hands=BASE)  # open auction, redeal off
    play(env, "0:bid:1 1:bid:2 2:pass 3:pass")
    # back to p0 (outbid, not passed); p2 and p3 have passed for good
    assert env.agent_selection == agent(0) and game(env).phase == "bid"
    assert legal(env) == {"pass", "bid:3", "bid:4", "bid:5", "bid:6", "redbeard"}
    play(env, "0:bid:3 1:bid:4 0:pass")
    g = game(env)
    assert g.phase == "play" and g.declarer == 1 and g.high_level == 4
    assert env.agent_selection == agent(1)


def test_open_auction_ends_when_all_others_passed():
    env = new_env(rules="classic", auction="open", dealer=3, hands=BASE)
    play(env, "0:pass 1:bid:3 2:pass 3:pass")
    g = game(env)
    assert g.phase == "play" and g.declarer == 1 and env.agent_selection == agent(1)


@pytest.mark.parametrize("rules, expected", [
    ("classic", ALL_BIDS),
    ("wikipedia", ALL_BIDS - {"bid:6"}),  # min_bid 0, yet the forced dealer bids >= 1
])
def test_all_pass_dealer_must_bid(rules, expected):
    env = new_env(rules=rules, dealer=3, hands=BASE)
    play(env, "0:pass 1:pass 2:pass")
    assert legal(env) == expected  # no pass for the dealer
    play(env, "3:bid:1")
    g = game(env)
    assert g.phase == "play" and g.declarer == 3 and env.agent_selection == agent(3)


def test_open_auction_all_pass_dealer_must_bid():
    env = new_env(rules="classic", auction="open", dealer=3, hands=BASE)
    play(env, "0:pass 1:pass 2:pass")
    assert legal(env) == ALL_BIDS
    play(env, "3:bid:2")
    assert game(env).declarer == 3 and game(env).phase == "play"


def test_single_auction_all_pass_redeal_dealer_may_pass():
    env = new_env(rules="classic", all_pass="redeal", dealer=3, hands=BASE)
    play(env, "0:pass 1:pass 2:pass")
    assert legal(env) == {"pass"} | ALL_BIDS
    play(env, "3:pass")
    g = game(env)
    assert g.rounds_played == 1 and g.dealer == 0 and scores(env) == [12] * 4
    assert g.declarer == -1 and g.phase in ("redeal", "bid")


def test_all_pass_redeal_new_deal_by_next_dealer_counts_as_round():
    env = new_env(rules="raudskjegg", dealer=3, hands=BASE)
    play(env, "0:pass 1:pass 2:pass 3:pass")  # everyone passes, the dealer too
    g = game(env)
    assert g.rounds_played == 1 and env.infos[agent(0)]["round"] == 1
    assert g.dealer == 0  # the deal passes to the left
    assert g.phase == "bid" and env.agent_selection == agent(1)  # p1 calls first now
    assert scores(env) == [10, 10, 10, 10]  # no tricks, no penalties
    assert {card_name(c) for c in g.hands[0]} != set(BASE[0].split())


def test_all_pass_redeal_counts_for_max_rounds():
    env = new_env(rules="raudskjegg", max_rounds=1, dealer=3, hands=BASE)
    play(env, "0:pass 1:pass 2:pass 3:pass")
    g = game(env)
    assert g.truncated and not g.terminated and g.phase == "done"
    for a in env.possible_agents:
        assert env.truncations[a] and not env.terminations[a]
        assert env.rewards[a] == 0
        assert env.infos[a]["winner"] is None


def test_all_pass_redeal_keeps_earlier_penalties_and_runs_elimination():
    # challenge redeal: p0 throws in a hand with face cards, p1 looks -> p0 +5 at once.
    # p1 stands on 40 with eliminate_at 32. Everyone passes: the deal is scored without
    # tricks, then the elimination check runs: p1 is out.
    env = new_env(
        rules="raudskjegg", redeal="challenge", eliminate_at=32,
        dealer=3, scores=[10, 40, 10, 10], hands=BASE,
    )
    play(env, "0:redeal 1:look")  # p0: 10 -> 15
    play(env, "0:keep 1:keep 2:keep 3:keep")
    play(env, "0:pass 1:pass 2:pass 3:pass")
    assert scores(env) == [15, 40, 10, 10]
    g = game(env)
    assert g.active == [True, False, True, True] and g.rounds_played == 1
    assert env.terminations[agent(1)] and not env.terminations[agent(0)]
    play(env, "1:-")  # p1 steps out with its reward
    # new deal by p0; the redeal questions start left of p0 and skip p1
    assert game(env).phase == "redeal" and env.agent_selection == agent(2)
    play(env, "2:keep 3:keep 0:keep")
    assert env.agent_selection == agent(2) and game(env).phase == "bid"


def test_all_pass_redeal_runs_the_zero_check():
    # a seat put on 0 by the reset options wins at the all-passed deal's scoring
    env = new_env(rules="raudskjegg", dealer=3, scores=[10, 10, 0, 10], hands=BASE)
    play(env, "0:pass 1:pass")
    assert legal(env) == {"pass"}  # forbid: p2 on 0 may not bid anything
    play(env, "2:pass 3:pass")
    g = game(env)
    assert g.terminated and g.winner == 2


def test_bid_over_score_allow():
    env = new_env(rules="classic", dealer=3, scores=[3, 12, 12, 12], hands=BASE)
    assert legal(env) == {"pass"} | ALL_BIDS
    play(env, "0:bid:5")
    assert scores(env) == [3, 12, 12, 12]


def test_bid_over_score_penalty_at_once():
    env = new_env(rules="classic", bid_over_score="penalty", dealer=3, scores=[3, 5, 12, 12], hands=BASE)
    play(env, "0:bid:3")  # 3 is not above 3: no penalty
    assert scores(env) == [3, 5, 12, 12]
    play(env, "1:redbeard")  # Rödskägg counts as 6 > 5: +5 at once
    assert score_events(env) == [("score", 1, 5, "bid_over_score")]
    assert scores(env) == [3, 10, 12, 12]
    play(env, "2:pass 3:pass")
    # p0 does it too in a fresh game: 4 > 3 -> 8, still during the auction
    env = new_env(rules="classic", bid_over_score="penalty", dealer=3, scores=[3, 5, 12, 12], hands=BASE)
    play(env, "0:bid:4")
    assert scores(env) == [8, 5, 12, 12] and game(env).phase == "bid"


def test_redbeard_counts_as_six_against_the_score():
    # on exactly 6 points Rödskägg (level 7, but 6 tricks) is not "above the score"
    env = new_env(rules="classic", bid_over_score="penalty", dealer=3, scores=[6, 12, 12, 12], hands=BASE)
    play(env, "0:redbeard")
    assert scores(env) == [6, 12, 12, 12]
    env = new_env(rules="classic", bid_over_score="forbid", dealer=3, scores=[6, 5, 12, 12], hands=BASE)
    assert legal(env) == {"pass"} | ALL_BIDS
    play(env, "0:pass")
    assert legal(env) == {"pass", "bid:1", "bid:2", "bid:3", "bid:4", "bid:5"}


def test_bid_over_score_penalty_also_for_forced_dealer():
    env = new_env(rules="classic", bid_over_score="penalty", dealer=3, scores=[12, 12, 12, -2], hands=BASE)
    play(env, "0:pass 1:pass 2:pass 3:bid:1")  # forced: 1 > -2 -> -2 + 5 = 3
    assert scores(env) == [12, 12, 12, 3]


def test_fem_opp_preset_penalises_bid_over_score():
    env = new_env(rules="fem_opp", dealer=3, scores=[2, 12, 12, 12], hands=BASE)
    play(env, "0:keep 1:keep 2:keep 3:keep")  # challenge: everyone may throw in
    play(env, "0:bid:3")  # 3 > 2: +5
    assert scores(env) == [7, 12, 12, 12]


def test_bid_over_score_forbid_masks():
    env = new_env(rules="classic", bid_over_score="forbid", dealer=3, scores=[3, 12, 12, 5], hands=BASE)
    assert legal(env) == {"pass", "bid:1", "bid:2", "bid:3"}
    play(env, "0:pass")
    assert legal(env) == {"pass"} | ALL_BIDS
    play(env, "1:pass 2:pass")
    # the forced dealer on 5: bids up to 5, Rödskägg (= 6) is masked, no pass
    assert legal(env) == {"bid:1", "bid:2", "bid:3", "bid:4", "bid:5"}


@pytest.mark.parametrize("score, expected", [
    (-3, {"bid:1"}),  # max(score, 1) = 1
    (1, {"bid:1"}),
    (2, {"bid:1", "bid:2"}),
])
def test_bid_over_score_forbid_forced_dealer_up_to_max_score_1(score, expected):
    env = new_env(rules="raudskjegg", all_pass="dealer_must_bid", dealer=3, scores=[10, 10, 10, score], hands=BASE)
    play(env, "0:pass 1:pass 2:pass")
    assert legal(env) == expected
    play(env, "3:bid:1")
    assert scores(env) == [10, 10, 10, score]  # forbid never penalises
    assert game(env).declarer == 3


def test_redbeard_beats_plain_six():
    env = new_env(rules="classic", dealer=3, hands=BASE)
    play(env, "0:bid:6")
    assert legal(env) == {"pass", "redbeard"}  # bid:6 no longer beats the highest
    play(env, "1:redbeard")
    assert legal(env) == {"pass"}  # nothing beats Rödskägg
    play(env, "2:pass 3:pass")
    g = game(env)
    assert g.declarer == 1 and g.high_level == 7 and env.agent_selection == agent(1)


def test_redbeard_beats_max_bid_five():
    env = new_env(rules="wikipedia", dealer=3, hands=BASE)
    play(env, "0:bid:5")
    assert legal(env) == {"pass", "redbeard"}
    play(env, "1:redbeard 2:pass 3:pass")
    assert game(env).declarer == 1
