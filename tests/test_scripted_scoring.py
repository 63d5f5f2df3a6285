"""Scripted deals: contracts and the worked examples, start_score, min_bid/max_bid,
rewards, follow-suit masks and illegal actions (SPEC §1.2, §1.3, §1.5, §3).

Unless a test says otherwise: 4 players, dealer p3 (so p0 is asked first), and the
"base" hands below, in which every hand holds a face card (no redeal question under
``no_face_card``). p0 leads spades nobody else holds, so each spade lead is a trick for
p0; a club lead is won by p1 (all clubs).
"""

import pytest

try:
    from scripted_helpers import agent, game, hand_of, legal, new_env, play, scores, tricks
except ImportError:  # tests/ as a package
    from tests.scripted_helpers import agent, game, hand_of, legal, new_env, play, scores, tricks

BASE = [
    "AS KS QS JS 2C 3C",  # p0: four sure spade tricks, two losing clubs
    "AC KC QC JC TC 9C",  # p1: clubs
    "AD KD QD JD TD 9D",  # p2: diamonds
    "AH KH QH JH TH 9H",  # p3: hearts
]
FOUR_SPADES = (
    "0:AS 1:AC 2:AD 3:AH",  # trick 1: only p0 has spades -> p0
    "0:KS 1:KC 2:KD 3:KH",  # trick 2 -> p0
    "0:QS 1:QC 2:QD 3:QH",  # trick 3 -> p0
    "0:JS 1:JC 2:JD 3:JH",  # trick 4 -> p0
)


def test_worked_example_at_least_12_bid_5_takes_4_gives_13():
    # Seed 000: "12 poäng, bjuder 5 stick men tar bara 4 ... hamnar på 13".
    env = new_env(rules="classic", contract="at_least", dealer=3, hands=BASE)
    play(env, "0:bid:5 1:pass 2:pass 3:pass")
    play(env, *FOUR_SPADES)  # p0: 12 -> 8
    assert scores(env) == [8, 12, 12, 12]
    assert game(env).phase == "ask"
    play(env, "0:ask 1:join 2:fold 3:fold")  # p1 trickless joins: a joiner, tricks worth 2
    play(env, "0:2C 1:9C")  # p1: 12 -> 10
    play(env, "0:3C 1:TC")  # p1: 10 -> 8
    # round scoring: p0 took 4 < 5 -> +5: 8 + 5 = 13
    assert scores(env) == [13, 8, 12, 12]
    assert env.infos[agent(0)]["round"] == 1


def test_worked_example_exact_7_bid_4_takes_3_gives_9():
    # Seed 004: "deklaranten hade 7 poäng och bjöd 4 stick men bara tog 3 ... 9 poäng".
    # wikipedia preset: exact contract, trick winner leads.
    env = new_env(
        rules="wikipedia",
        dealer=3,
        scores=[7, 12, 12, 12],
        hands=["AS KS QS 2C 3C 4C", BASE[1], BASE[2], BASE[3]],
    )
    play(env, "0:bid:4 1:pass 2:pass 3:pass")
    play(env, "0:AS 1:9C 2:9D 3:9H")  # p0: 7 -> 6, p0 leads again (won)
    play(env, "0:KS 1:TC 2:TD 3:TH")  # p0: 5
    play(env, "0:QS 1:JC 2:JD 3:JH")  # p0: 4
    play(env, "0:2C 1:QC 2:QD 3:QH")  # p1 wins with QC: 12 -> 11, and leads next
    assert scores(env) == [4, 11, 12, 12]
    # join question: p1 has a trick (in for free, not asked), p2 and p3 are asked
    play(env, "0:ask 2:fold 3:fold")
    play(env, "1:KC 0:3C")  # p1: 10
    play(env, "1:AC 0:4C")  # p1: 9
    # p0 took 3, bid 4, exact: 4 + 5 = 9
    assert scores(env) == [9, 9, 12, 12]


@pytest.mark.parametrize(
    "contract, bid, p0_final",
    [
        ("exact", 4, 8),  # takes 4 = bid: 12 - 4 = 8
        ("exact", 3, 13),  # took more than bid: fails under exact, 8 + 5
        ("exact", 5, 13),  # took fewer: 8 + 5
        ("at_least", 3, 8),  # more than bid is fine
        ("at_least", 4, 8),
        ("at_least", 5, 13),  # fewer: 8 + 5
    ],
)
def test_contract_exact_vs_at_least(contract, bid, p0_final):
    env = new_env(rules="classic", contract=contract, join_at=0, dealer=3, hands=BASE)
    play(env, f"0:bid:{bid} 1:pass 2:pass 3:pass")
    play(env, *FOUR_SPADES)  # p0: 12 -> 8
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1 must follow clubs and wins: 12 -> 11
    play(env, "0:3C 1:TC 2:TD 3:TH")  # p1: 10
    assert scores(env) == [p0_final, 10, 12, 12]


def test_start_score():
    env = new_env(rules="classic", start_score=20, join_at=0, dealer=3, hands=BASE)
    assert scores(env) == [20, 20, 20, 20]
    assert [env.infos[agent(s)]["score"] for s in range(4)] == [20, 20, 20, 20]
    play(env, "0:bid:4 1:pass 2:pass 3:pass")
    play(env, *FOUR_SPADES)  # p0: 20 -> 16
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")  # p1: 20 -> 18
    assert scores(env) == [16, 18, 20, 20]
    # the presets' own start scores
    assert scores(new_env(rules="raudskjegg", dealer=3, hands=BASE)) == [10] * 4
    assert scores(new_env(rules="fem_opp", dealer=3, hands=BASE)) == [12] * 4


def test_min_bid_zero_and_max_bid_five_masks():
    env = new_env(rules="wikipedia", dealer=3, hands=BASE)
    # min_bid 0, max_bid 5: bid:6 is masked, the Rödskägg call stays legal
    assert legal(env) == {"pass", "bid:0", "bid:1", "bid:2", "bid:3", "bid:4", "bid:5", "redbeard"}
    play(env, "0:bid:0")
    # the next call must beat 0
    assert legal(env) == {"pass", "bid:1", "bid:2", "bid:3", "bid:4", "bid:5", "redbeard"}
    # classic: min_bid 1, max_bid 6
    env = new_env(rules="classic", dealer=3, hands=BASE)
    assert legal(env) == {"pass", "bid:1", "bid:2", "bid:3", "bid:4", "bid:5", "bid:6", "redbeard"}


def test_bid_zero_contract_made_under_exact():
    # wikipedia: exact, trick winner leads; join_at 0 to keep the script short
    env = new_env(
        rules="wikipedia",
        join_at=0,
        dealer=3,
        hands=["2C 3C 4C 5C 6C JH", BASE[1], BASE[2], "AH KH QH TH 9H 8H"],
    )
    play(env, "0:bid:0 1:pass 2:pass 3:pass")
    assert game(env).declarer == 0
    play(env, "0:2C 1:AC 2:9D 3:8H")  # p1: 12 -> 11, p1 leads from now on
    play(env, "1:KC 2:TD 3:9H 0:3C")  # p1: 10
    play(env, "1:QC 2:JD 3:TH 0:4C")  # 9
    play(env, "1:JC 2:QD 3:QH 0:5C")  # 8
    play(env, "1:TC 2:KD 3:KH 0:6C")  # 7
    play(env, "1:9C 2:AD 3:AH 0:JH")  # 6 (AH is off-suit: clubs were led)
    # p0 bid 0 and took 0: made, no penalty
    assert scores(env) == [12, 6, 12, 12]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_rewards_winner_plus_one_others_minus_one_over_n_minus_one(n):
    hands = BASE[:n] + ["8D 7D 6D 8H 7H 6H"] * (n == 5)  # (all 16 face cards are taken)
    env = new_env(n, rules="classic", redeal="off", join_at=0, dealer=n - 1, scores=[4] + [12] * (n - 1), hands=hands)
    others = range(1, n)
    play(env, "0:bid:4 " + " ".join(f"{s}:pass" for s in others))
    for t in range(4):  # p0 leads four spades and wins them: 4 -> 0
        play(env, f"0:{'AKQJ'[t]}S " + " ".join(f"{s}:{sorted(hand_of(env, s))[0]}" for s in others))
    assert scores(env)[0] == 0 and not game(env).game_over  # exact_end: not yet
    for card in ("2C", "3C"):  # p1 wins both club tricks
        play(env, f"0:{card} " + " ".join(f"{s}:{sorted(hand_of(env, s))[0]}" for s in others))
    # p0 made 4 of 4 and stands on 0: wins
    g = game(env)
    assert g.terminated and g.winner == 0 and not g.truncated
    got = {}
    for a in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        assert terminated and not truncated
        assert info["winner"] == "player_0"
        got[a] = reward
        env.step(None)
    assert got == pytest.approx({agent(0): 1.0, **{agent(s): -1.0 / (n - 1) for s in others}})


def test_follow_suit_masks():
    env = new_env(rules="classic", dealer=3, hands=[BASE[0], "AC KC QC JC TC 2S", BASE[2], BASE[3]])
    play(env, "0:bid:4 1:pass 2:pass 3:pass")
    # the leader may lead any card; nobody else has a mask
    assert legal(env) == {f"play:{c}" for c in BASE[0].split()}
    for s in (1, 2, 3):
        assert not env.observe(agent(s))["action_mask"].any()
    play(env, "0:AS")
    assert legal(env) == {"play:2S"}  # p1 must follow spades with its only spade
    play(env, "1:2S")
    assert legal(env) == {f"play:{c}" for c in BASE[2].split()}  # p2 is void: anything
    play(env, "2:9D 3:9H")
    assert tricks(env) == [1, 0, 0, 0]
    assert legal(env) == {"play:KS", "play:QS", "play:JS", "play:2C", "play:3C"}
    play(env, "0:2C")
    assert legal(env) == {"play:AC", "play:KC", "play:QC", "play:JC", "play:TC"}


def _snapshot(env):
    g = game(env)
    return (
        env.agent_selection,
        g.phase,
        g.to_act,
        list(g.scores),
        [set(h) for h in g.hands],
        list(g.trick),
        list(g.tricks),
        list(g.calls),
        g.high_level,
        g.declarer,
        env.observe(env.agent_selection)["action_mask"].tolist(),
    )


def test_illegal_action_raises_and_leaves_state_unchanged():
    from redbeard_env import action_id

    env = new_env(rules="classic", dealer=3, hands=[BASE[0], "AC KC QC JC TC 2S", BASE[2], BASE[3]])
    play(env, "0:bid:4")
    before = _snapshot(env)
    for bad in ("bid:3", "bid:4", "join", "play:AC", "keep"):  # p1 must beat 4 or pass
        with pytest.raises(ValueError, match=r"(?s)%s.*'bid'" % bad):
            env.step(action_id(bad))
        assert _snapshot(env) == before
    play(env, "1:pass 2:pass 3:pass 0:AS")
    before = _snapshot(env)
    with pytest.raises(ValueError, match=r"(?s)play:AC.*'play'"):
        env.step(action_id("play:AC"))  # p1 holds 2S and must follow
    assert _snapshot(env) == before
    play(env, "1:2S")  # the legal move still works
    assert env.agent_selection == agent(2)


def test_players_field_warns_outside_the_sheets_range_only():
    import warnings

    import redbeard_env

    with pytest.warns(UserWarning, match="outside"):
        redbeard_env.env(num_players=3, rules="raudskjegg")  # sheet 002: 4-6 players
    with pytest.warns(UserWarning, match="outside"):
        redbeard_env.env(num_players=7, rules="raudskjegg")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in (4, 6):
            redbeard_env.env(num_players=n, rules="raudskjegg")
        redbeard_env.env(num_players=3, rules="classic", players=(3, 5))
    with pytest.warns(UserWarning):
        redbeard_env.env(num_players=6, rules="classic", players=(3, 5))


# Every Rules field and the scripted test(s) that pin it down. A new field fails here
# until it gets a scripted test.
FIELD_TESTS = {
    "start_score": "test_scripted_scoring.py::test_start_score",
    "players": "test_scripted_scoring.py::test_players_field_warns_outside_the_sheets_range_only",
    "redeal": "test_scripted_redeal.py (off / no_face_card / any / challenge)",
    "min_bid": "test_scripted_scoring.py::test_min_bid_zero_and_max_bid_five_masks, test_bid_zero_contract_made_under_exact",
    "max_bid": "test_scripted_scoring.py::test_min_bid_zero_and_max_bid_five_masks; test_scripted_auction.py::test_redbeard_beats_max_bid_five",
    "auction": "test_scripted_auction.py::test_single_auction_*, test_open_auction_*",
    "all_pass": "test_scripted_auction.py::test_all_pass_*",
    "bid_over_score": "test_scripted_auction.py::test_bid_over_score_*",
    "leader": "test_scripted_play_join.py::test_leader_*, test_trick_winner_who_folded_*",
    "contract": "test_scripted_scoring.py::test_contract_exact_vs_at_least, test_worked_example_*",
    "join_at": "test_scripted_play_join.py::test_join_question_when_join_at_tricks_remain, test_join_at_zero_never_asks",
    "may_fold": "test_scripted_play_join.py::test_may_fold_*",
    "one_point_must_join": "test_scripted_play_join.py::test_one_point_must_join*",
    "joiner_trick_value": "test_scripted_play_join.py::test_joiner_trick_value_and_joiner_fail_penalty",
    "joiner_fail_penalty": "test_scripted_play_join.py::test_joiner_trick_value_and_joiner_fail_penalty",
    "zero_trick_penalty": "test_scripted_play_join.py::test_zero_trick_penalty_*",
    "ask_optional": "test_scripted_play_join.py::test_ask_optional_false_declarer_not_asked",
    "forget_penalty": "test_scripted_play_join.py::test_skip_costs_forget_penalty_at_once_and_no_joiner_effects",
    "redbeard_success": "test_scripted_endgame.py::test_redbeard_success_*",
    "redbeard_fail": "test_scripted_endgame.py::test_redbeard_fail_*",
    "zero_rule": "test_scripted_endgame.py::test_exact_end_*, test_immediate_*, test_bounce*",
    "tie_at_zero": "test_scripted_endgame.py::test_three_on_zero_duel_*, test_duel_*, test_ten_tied_duels_*",
    "eliminate_at": "test_scripted_endgame.py::test_eliminate_at_*",
    "max_rounds": "test_scripted_endgame.py::test_max_rounds_*; test_scripted_auction.py::test_all_pass_redeal_counts_for_max_rounds",
}


def test_every_rules_field_has_a_scripted_test():
    from redbeard_env.redbeard.rules import FIELD_NAMES

    assert set(FIELD_TESTS) == set(FIELD_NAMES)
