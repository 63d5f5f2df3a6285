"""Scripted deals: who leads, and the join decision ("Följer ni med?") with its
scoring (SPEC §1.3, §1.4, §1.8).

4 players, dealer p3 (p0 calls first and is the declarer in every script). In BASE
every hand holds a face card, only p0 has spades (a spade lead is p0's trick) and only
p1 has clubs (a club lead from p0 is p1's trick as long as p1 is in).
"""

import pytest

try:
    from scripted_helpers import BASE, agent, game, legal, new_env, play, score_events, scores
except ImportError:  # tests/ as a package
    from tests.scripted_helpers import BASE, agent, game, legal, new_env, play, score_events, scores

BID4 = "0:bid:4 1:pass 2:pass 3:pass"
FOUR_SPADES = (
    "0:AS 1:AC 2:AD 3:AH",  # p0: 12 -> 11
    "0:KS 1:KC 2:KD 3:KH",  # 10
    "0:QS 1:QC 2:QD 3:QH",  # 9
    "0:JS 1:JC 2:JD 3:JH",  # 8
)


# ------------------------------------------------------------------ leader
def test_leader_declarer_leads_every_trick():
    env = new_env(rules="classic", join_at=0, dealer=3, hands=BASE)
    play(env, BID4)
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1 wins ...
    assert game(env).tricks == [0, 1, 0, 0]
    assert env.agent_selection == agent(0)  # ... but the declarer leads again
    play(env, "0:AS 1:TC 2:TD 3:TH")  # p0
    play(env, "0:3C 1:JC 2:JD 3:JH")  # p1 again, p0 leads again
    assert env.agent_selection == agent(0)
    play(env, "0:KS 1:QC 2:QD 3:QH 0:QS 1:KC 2:KD 3:KH 0:JS 1:AC 2:AD 3:AH")
    # p0 4 tricks = bid: 12 - 4 = 8; p1 2 tricks: 10
    assert scores(env) == [8, 10, 12, 12]


def test_leader_trick_winner_leads_next():
    env = new_env(rules="classic", leader="trick_winner", join_at=0, dealer=3, hands=BASE)
    play(env, BID4)
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1 wins and leads: order p1, p2, p3, p0
    assert env.agent_selection == agent(1)
    play(env, "1:AC 2:TD 3:TH 0:3C")  # p1 again
    play(env, "1:KC 2:JD 3:JH 0:AS")  # p0 void in clubs now: discards AS, p1 wins
    play(env, "1:QC 2:QD 3:QH 0:KS 1:JC 2:KD 3:KH 0:QS 1:TC 2:AD 3:AH 0:JS")
    # p1 took all 6: 12 - 6 = 6; p0 took 0 of 4 (exact): 12 + 5 = 17
    assert scores(env) == [17, 6, 12, 12]


@pytest.mark.parametrize("p2_answer, script, final", [
    # p1 won trick 4 and folds; p2 folds too: p3 is the next one still in and leads
    ("fold", "3:KH 0:3H  3:AH 0:4H", [9, 11, 12, 8]),  # p3 joiner: 2 x 2 tricks
    # p2 joins: p2 is the next one still in after p1 and leads its diamonds
    ("join", "2:AD 3:KH 0:3H  2:KD 3:AH 0:4H", [9, 11, 8, 18]),  # p3 joiner without a trick: +6
])
def test_trick_winner_who_folded_next_player_still_in_leads(p2_answer, script, final):
    env = new_env(
        rules="classic", leader="trick_winner", may_fold="all_but_declarer", dealer=3,
        hands=["AS KS QS 2C 3H 4H", BASE[1], BASE[2], BASE[3]],
    )
    play(env, "0:bid:3 1:pass 2:pass 3:pass")
    play(env, "0:AS 1:9C 2:9D 3:9H")  # p0: 11
    play(env, "0:KS 1:TC 2:TD 3:TH")  # p0: 10
    play(env, "0:QS 1:JC 2:JD 3:JH")  # p0: 9
    play(env, "0:2C 1:QC 2:QD 3:QH")  # p1: 11, would lead trick 5
    play(env, f"0:ask 1:fold 2:{p2_answer} 3:join")  # all_but_declarer: p1 may fold with a trick
    play(env, script)
    # p0 3 tricks = bid 3: 9
    assert scores(env) == final


# ------------------------------------------------------------------ join_at
@pytest.mark.parametrize("join_at", [2, 3])
def test_join_question_when_join_at_tricks_remain(join_at):
    env = new_env(rules="classic", join_at=join_at, dealer=3, hands=BASE)
    play(env, BID4)
    for t, trick in enumerate(FOUR_SPADES[: 6 - join_at]):
        assert game(env).phase == "play"
        play(env, trick)
    assert game(env).phase == "ask" and env.agent_selection == agent(0)
    assert legal(env) == {"ask", "skip"}
    play(env, "0:ask 1:fold 2:fold 3:fold")
    # p0 alone plays the rest: it takes all 6: 12 - 6, and 6 != 4 (exact): + 5 = 11
    rest = ["0:JS", "0:2C", "0:3C"][3 - join_at :]
    play(env, *rest)
    assert scores(env) == [11, 12, 12, 12]


def test_join_at_zero_never_asks():
    env = new_env(rules="classic", join_at=0, dealer=3, hands=BASE)
    play(env, BID4, *FOUR_SPADES)
    assert game(env).phase == "play"
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")
    assert scores(env) == [8, 10, 12, 12]


def test_raudskjegg_join_after_three_tricks():
    # raudskjegg: start 10, join_at 3, all_but_declarer, joiner worth 1, no joiner
    # penalty, zero_trick_penalty 5, at_least.
    env = new_env(rules="raudskjegg", dealer=3, hands=BASE)
    play(env, "0:bid:3 1:pass 2:pass 3:pass")
    play(env, *FOUR_SPADES[:3])  # p0: 10 -> 7
    assert game(env).phase == "ask"
    play(env, "0:ask 1:join 2:fold 3:join")
    play(env, "0:JS 1:JC 3:JH")  # p0: 6
    play(env, "0:2C 1:9C 3:TH")  # p1: 9
    play(env, "0:3C 1:TC 3:9H")  # p1: 8
    # p0 4 >= 3: made, 6. p3 in without a trick: zero_trick +5 -> 15. p2 folded: 10
    assert scores(env) == [6, 8, 10, 15]


# ------------------------------------------------------------------ ask / skip
@pytest.mark.parametrize("forget_penalty", [6, 5, 0])
def test_skip_costs_forget_penalty_at_once_and_no_joiner_effects(forget_penalty):
    env = new_env(rules="classic", forget_penalty=forget_penalty, dealer=3, hands=BASE)
    play(env, BID4, *FOUR_SPADES)  # p0: 8
    play(env, "0:skip")
    assert scores(env) == [8 + forget_penalty, 12, 12, 12]  # at once
    # nobody is asked, nobody folds: all four play on, p0 leads
    assert game(env).phase == "play" and env.agent_selection == agent(0)
    assert game(env).join_state == "skipped"
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1 was trickless, but no joiner bonus: 12 -> 11
    play(env, "0:3C 1:TC 2:TD 3:TH")  # 10
    # p2, p3 end without a trick: no joiner penalty. p0 made 4 = 4.
    assert scores(env) == [8 + forget_penalty, 10, 12, 12]


def test_zero_trick_penalty_still_applies_after_skip():
    env = new_env(rules="classic", zero_trick_penalty=5, dealer=3, hands=BASE)
    play(env, BID4, *FOUR_SPADES, "0:skip")  # p0: 8 + 6 = 14
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")  # p1: 10
    # p2 and p3 took no trick and did not fold: +5 each
    assert scores(env) == [14, 10, 17, 17]


def test_fem_opp_skip_costs_five():
    env = new_env(rules="fem_opp", dealer=3, hands=BASE)
    play(env, "0:keep 1:keep 2:keep 3:keep")  # challenge redeal: everyone is asked
    play(env, "0:bid:3 1:pass 2:pass 3:pass", *FOUR_SPADES, "0:skip")  # 8 + 5
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")  # p1: 10
    assert scores(env) == [13, 10, 12, 12]  # at_least: 4 >= 3 made


def test_ask_optional_false_declarer_not_asked():
    env = new_env(rules="classic", ask_optional=False, dealer=3, hands=BASE)
    play(env, BID4, *FOUR_SPADES)
    # the question is always asked: straight to the join decisions, from p0's left
    assert game(env).phase == "join" and env.agent_selection == agent(1)
    assert legal(env) == {"join", "fold"}
    play(env, "1:join 2:fold 3:fold")
    play(env, "0:2C 1:9C 0:3C 1:TC")  # p1 joiner: 12 - 2 - 2 = 8
    assert scores(env) == [8, 8, 12, 12]


# ------------------------------------------------------------------ may_fold
MAY_FOLD_HANDS = ["AS KS QS 2C 3C 4C", BASE[1], BASE[2], BASE[3]]
THREE_THEN_CLUB = (
    "0:AS 1:AC 2:AD 3:AH",  # p0: 11
    "0:KS 1:KC 2:KD 3:KH",  # p0: 10
    "0:QS 1:QC 2:QD 3:QH",  # p0: 9
    "0:2C 1:JC 2:JD 3:JH",  # p1: 11 -> p1 has a trick at the join question
)


def test_may_fold_trickless_only_trickless_players_asked():
    env = new_env(rules="classic", dealer=3, hands=MAY_FOLD_HANDS)
    play(env, "0:bid:3 1:pass 2:pass 3:pass", *THREE_THEN_CLUB)
    play(env, "0:ask")
    assert env.agent_selection == agent(2)  # p1 (with a trick) is in, free, not asked
    play(env, "2:fold 3:fold")
    assert game(env).joiner == [False, False, False, False]
    play(env, "0:3C 1:TC 0:4C 1:9C")  # p1 not a joiner: 1 per trick: 11 -> 9
    assert scores(env) == [9, 9, 12, 12]  # p0 3 = 3


def test_may_fold_all_but_declarer_trick_holder_may_fold():
    env = new_env(rules="classic", may_fold="all_but_declarer", dealer=3, hands=MAY_FOLD_HANDS)
    play(env, "0:bid:3 1:pass 2:pass 3:pass", *THREE_THEN_CLUB)
    play(env, "0:ask")
    assert env.agent_selection == agent(1) and legal(env) == {"join", "fold"}
    play(env, "1:fold 2:fold 3:fold")
    play(env, "0:3C 0:4C")  # p0 plays alone and takes both: 5 tricks, 12 - 5 = 7
    # exact 3 missed: 7 + 5 = 12; p1 keeps its one trick: 11
    assert scores(env) == [12, 11, 12, 12]


def test_raudskjegg_declarer_cannot_fold_and_trick_holder_joins_free():
    env = new_env(rules="raudskjegg", dealer=3, hands=MAY_FOLD_HANDS)
    play(env, "0:bid:3 1:pass 2:pass 3:pass")
    play(env, "0:2C 1:JC 2:JD 3:JH")  # p1: 10 -> 9
    play(env, "0:AS 1:AC 2:AD 3:AH 0:KS 1:KC 2:KD 3:KH")  # p0: 8
    play(env, "0:ask 1:join 2:fold 3:fold")  # the declarer is never asked
    assert game(env).joiner == [False, False, False, False]  # p1 had a trick
    play(env, "0:QS 1:QC 0:3C 1:TC 0:4C 1:9C")  # p0: 7; p1: 8, 7
    assert scores(env) == [7, 7, 10, 10]  # p0 3 >= 3


# ------------------------------------------------------------------ one_point_must_join
@pytest.mark.parametrize("must_join", [True, False])
def test_one_point_must_join(must_join):
    env = new_env(rules="classic", one_point_must_join=must_join, dealer=3, scores=[12, 12, 1, 12], hands=BASE)
    play(env, BID4, *FOUR_SPADES, "0:ask 1:join")
    if must_join:
        # p2 on exactly 1 point is not asked; trickless, it is a joiner
        play(env, "3:fold")
        assert game(env).joiner == [False, True, True, False]
        play(env, "0:2C 1:9C 2:9D 0:3C 1:TC 2:TD")  # p1 joiner: 12 - 2 - 2 = 8
        assert scores(env) == [8, 8, 7, 12]  # p2 joiner without a trick: 1 + 6
    else:
        play(env, "2:fold 3:fold")
        play(env, "0:2C 1:9C 0:3C 1:TC")
        assert scores(env) == [8, 8, 1, 12]


def test_one_point_must_join_with_a_trick_is_in_not_a_joiner():
    # raudskjegg: p1 takes the first trick 2 -> 1; at the question (3 left) p1 on 1 may not
    # fold although all_but_declarer would allow it; having a trick, p1 is no joiner.
    env = new_env(rules="raudskjegg", dealer=3, scores=[10, 2, 10, 10], hands=MAY_FOLD_HANDS)
    play(env, "0:bid:3 1:pass 2:pass 3:pass")
    play(env, "0:2C 1:JC 2:JD 3:JH")  # p1: 2 -> 1
    play(env, "0:AS 1:AC 2:AD 3:AH 0:KS 1:KC 2:KD 3:KH")  # p0: 8
    play(env, "0:ask 2:fold 3:fold")  # p1 is skipped
    assert game(env).joiner == [False, False, False, False]
    play(env, "0:QS 1:QC")  # p0: 7
    play(env, "0:3C 1:TC")  # p1: 1 -> 0 (exact_end: no win during the round)
    assert scores(env)[1] == 0 and not game(env).game_over
    play(env, "0:4C 1:9C")  # p1: -1
    assert scores(env) == [7, -1, 10, 10]


# ------------------------------------------------------------------ joiner values
@pytest.mark.parametrize("value, fail, p1_final, p3_final", [
    (2, 6, 8, 18),  # classic / wikipedia
    (1, 5, 10, 17),  # fem_opp
    (1, 0, 10, 12),  # raudskjegg
])
def test_joiner_trick_value_and_joiner_fail_penalty(value, fail, p1_final, p3_final):
    env = new_env(rules="classic", joiner_trick_value=value, joiner_fail_penalty=fail, dealer=3, hands=BASE)
    play(env, BID4, *FOUR_SPADES, "0:ask 1:join 2:fold 3:join")
    assert game(env).joiner == [False, True, False, True]
    play(env, "0:2C 1:9C 3:9H")  # p1: 12 - value
    assert score_events(env) == [("score", 1, -value, "trick")]
    play(env, "0:3C 1:TC 3:TH")  # p1: 12 - 2 value
    # p3 joined and took nothing: + fail; p2 folded: nothing
    assert scores(env) == [8, p1_final, 12, p3_final]


def test_zero_trick_penalty_on_top_of_contract_penalty_for_declarer():
    env = new_env(
        rules="classic", redeal="off", zero_trick_penalty=5, dealer=3,
        hands=["2C 3C 4C 5C 6C 7C", BASE[1], BASE[2], BASE[3]],
    )
    play(env, "0:bid:1 1:pass 2:pass 3:pass")
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1: 11
    play(env, "0:3C 1:TC 2:TD 3:TH")  # 10
    play(env, "0:4C 1:JC 2:JD 3:JH")  # 9
    play(env, "0:5C 1:QC 2:QD 3:QH")  # 8
    play(env, "0:ask 2:fold 3:join")  # p1 has tricks: not asked
    play(env, "0:6C 1:KC 3:KH")  # 7
    play(env, "0:7C 1:AC 3:AH")  # 6
    # p0: bid 1, took 0: contract +5 and zero-trick +5 -> 22
    # p3: joiner without a trick +6, and zero-trick +5 -> 23; p2 folded: 12
    assert scores(env) == [22, 6, 12, 23]
