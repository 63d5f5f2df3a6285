"""Scripted deals: reaching zero, duels, Rödskägg success/failure, elimination,
truncation and rewards at the end (SPEC §1.5, §1.6, §1.8, §3).

4 players and dealer p3 unless said otherwise. Only the seat holding spades wins a
spade lead, only p1 holds clubs, only p2 diamonds, only p3 hearts.
"""

import pytest

try:
    from scripted_helpers import agent, build_deck, game, hand_of, new_env, play, play_both_engines, score_events, scores
except ImportError:  # tests/ as a package
    from tests.scripted_helpers import (
        agent, build_deck, game, hand_of, new_env, play, play_both_engines, score_events, scores,
    )

CLUBS, DIAMONDS, HEARTS = "AC KC QC JC TC 9C", "AD KD QD JD TD 9D", "AH KH QH JH TH 9H"
BASE = ["AS KS QS JS 2C 3C", CLUBS, DIAMONDS, HEARTS]
FOUR_SPADES = (
    "0:AS 1:AC 2:AD 3:AH",
    "0:KS 1:KC 2:KD 3:KH",
    "0:QS 1:QC 2:QD 3:QH",
    "0:JS 1:JC 2:JD 3:JH",
)


def final_rewards(env) -> dict:
    """Step every remaining agent out (the game is over) and collect its last reward."""
    got = {}
    for a in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated or truncated
        got[a] = reward
        env.step(None)
    return got


# ------------------------------------------------------------------ zero_rule
FIVE_SPADES = ["AS KS QS JS TS 2C", CLUBS, DIAMONDS, HEARTS]


def test_exact_end_passing_through_zero_is_no_win():
    env = new_env(rules="classic", join_at=0, dealer=3, scores=[4, 12, 12, 12], hands=FIVE_SPADES)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 4 -> 0 during the round
    assert scores(env)[0] == 0 and not game(env).game_over
    play(env, "0:TS 1:9C 2:9D 3:9H")  # p0: -1, scores may go below 0
    assert scores(env)[0] == -1
    play(env, "0:2C 1:TC 2:TD 3:TH")  # p1: 11
    # p0 took 5 of an exact 4: -1 + 5 = 4. No winner.
    assert scores(env) == [4, 11, 12, 12]
    assert not game(env).game_over and game(env).rounds_played == 1


def test_exact_end_stays_below_zero():
    env = new_env(rules="classic", join_at=0, dealer=3, scores=[2, 12, 12, 12], hands=BASE)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)  # 2 -> -2
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")
    assert scores(env) == [-2, 10, 12, 12]  # contract made; -2 is no win
    assert not game(env).game_over


def test_exact_end_wins_on_zero_after_scoring_via_penalty():
    # p0 on -1 bids 5 and takes 4: -1 - 4 = -5 during the round, + 5 at the scoring = 0
    env = new_env(rules="classic", join_at=0, dealer=3, scores=[-1, 12, 12, 12], hands=BASE)
    play(env, "0:bid:5 1:pass 2:pass 3:pass", *FOUR_SPADES)
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")
    g = game(env)
    assert scores(env) == [0, 10, 12, 12]
    assert g.terminated and g.winner == 0
    rewards = final_rewards(env)
    assert rewards == pytest.approx({agent(0): 1.0, agent(1): -1 / 3, agent(2): -1 / 3, agent(3): -1 / 3})


def test_immediate_wins_at_once_and_round_stops():
    env = new_env(rules="classic", zero_rule="immediate", join_at=0, dealer=3, scores=[4, 12, 12, 12], hands=FIVE_SPADES)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES[:3])  # p0: 1
    assert not game(env).game_over
    play(env, FOUR_SPADES[3])  # p0: 0 -> wins on the spot
    g = game(env)
    assert g.terminated and g.winner == 0 and g.phase == "done" and g.to_act == -1
    assert len(g.hands[0]) == 2  # the rest of the round is not played
    assert scores(env) == [0, 12, 12, 12]
    for a in env.possible_agents:
        assert env.terminations[a] and env.infos[a]["winner"] == "player_0"
    assert final_rewards(env) == pytest.approx(
        {agent(0): 1.0, agent(1): -1 / 3, agent(2): -1 / 3, agent(3): -1 / 3}
    )


def test_immediate_penalty_reaching_zero_from_below_wins():
    # skip penalty (applied at once) lifts p0 from -6 to 0 under `immediate`
    env = new_env(rules="classic", zero_rule="immediate", dealer=3, scores=[-2, 12, 12, 12], hands=BASE)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)  # -2 -> -6
    play(env, "0:skip")  # forget penalty 6: -6 -> 0
    assert game(env).terminated and game(env).winner == 0


@pytest.mark.parametrize("value, start, after5, final", [
    (2, 1, 1, 3),  # 1 - 2 passes 0: reaches 0 and adds the rest -> 1; next trick + 2 -> 3
    (1, 1, 0, 1),  # 1 -> 0 exactly; the next trick adds: 1
    (2, 3, 1, 1),  # 3 -> 1 (no bounce yet); then 1 - 2: 0 and + 1 -> 1
    (2, -1, -3, -5),  # below 0 from the reset options: falls as usual
])
def test_bounce(value, start, after5, final):
    env = new_env(
        rules="classic", zero_rule="bounce", joiner_trick_value=value,
        dealer=3, scores=[12, start, 12, 12], hands=BASE,
    )
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 8
    play(env, "0:ask 1:join 2:fold 3:fold")  # p1 joiner: tricks worth `value`
    play(env, "0:2C 1:9C")
    assert scores(env)[1] == after5
    play(env, "0:3C 1:TC")
    assert scores(env) == [8, final, 12, 12]
    assert not game(env).game_over


def test_bounce_standing_on_zero_after_scoring_wins():
    env = new_env(
        rules="classic", zero_rule="bounce", dealer=3, scores=[12, 2, 12, 12],
        hands=["AS KS QS JS 2C 2H", CLUBS, DIAMONDS, HEARTS],
    )
    play(env, "0:bid:5 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 8
    play(env, "0:ask 1:join 2:fold 3:fold")
    play(env, "0:2C 1:9C")  # p1 joiner, worth 2: 2 -> 0
    assert scores(env)[1] == 0 and game(env).bounced[1] and not game(env).game_over
    play(env, "0:2H 1:TC")  # p1 void in hearts: p0 takes it (7); p1 stays on 0
    # p0 5 = 5; p1 on 0 after the scoring: wins
    assert scores(env) == [7, 0, 12, 12]
    assert game(env).terminated and game(env).winner == 1


# ------------------------------------------------------------------ duels
def test_three_on_zero_duel_then_tie_for_most_duels_again():
    hands = ["AS KS QS JS 2C 2D", CLUBS, DIAMONDS, HEARTS]
    decks = [
        build_deck([0, 1, 2, 3], hands),
        # duel 1 among p0, p1, p2, dealt from the dealer's (p3) left
        build_deck([0, 1, 2], {0: "AS KS QS 2C 3C 4C", 1: "AC KC QC 2S 3S 4S", 2: "2D 3D 4D 5D 6D 7D"}),
        # duel 2 among p0 and p1 only
        build_deck([0, 1], {0: "AH 2S 3S 4S 5S 6S", 1: "AS KS QS JS TS 2H"}),
    ]
    # max_rounds 1: the duels do not count as rounds
    env = new_env(rules="classic", join_at=0, max_rounds=1, dealer=3, scores=[4, 1, 1, 12], decks=decks)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 4 -> 0
    play(env, "0:2C 1:9C 2:9D 3:9H")  # p1: 1 -> 0
    play(env, "0:2D 1:TC 2:TD 3:TH")  # p2: 1 -> 0
    g = game(env)
    assert scores(env) == [0, 0, 0, 12] and g.phase == "duel" and g.duellists == [0, 1, 2]
    assert not g.game_over and g.rounds_played == 1
    # duel 1: the first duellist after the dealer (p0) leads; the trick winner leads next
    assert env.agent_selection == agent(0) and hand_of(env, 0) == set("AS KS QS 2C 3C 4C".split())
    assert not g.hands[3]  # p3 is not in the duel
    play(env, "0:AS 1:2S 2:2D")  # p0 (p1 must follow spades)
    play(env, "0:KS 1:3S 2:3D")  # p0
    play(env, "0:QS 1:4S 2:4D")  # p0
    play(env, "0:2C 1:AC 2:5D")  # p1, leads next
    play(env, "1:KC 2:6D 0:3C")  # p1
    play(env, "1:QC 2:7D 0:4C")  # p1
    # 3 - 3 - 0: p0 and p1 tied for most duel again; p2 is out of it. Scores untouched.
    assert g.phase == "duel" and g.duellists == [0, 1] and not g.hands[2]
    assert scores(env) == [0, 0, 0, 12] and not g.game_over
    assert env.agent_selection == agent(0)  # still the first after the dealer p3
    play(env, "0:AH 1:2H")  # p0
    play(env, "0:2S 1:AS")  # p1 leads the rest
    play(env, "1:KS 0:3S 1:QS 0:4S 1:JS 0:5S 1:TS 0:6S")
    # p1 5 tricks vs 1: p1 wins the game
    assert g.terminated and not g.truncated and g.winner == 1
    assert scores(env) == [0, 0, 0, 12] and g.rounds_played == 1
    assert final_rewards(env) == pytest.approx(
        {agent(0): -1 / 3, agent(1): 1.0, agent(2): -1 / 3, agent(3): -1 / 3}
    )


def test_duel_first_duellist_after_dealer_leads():
    # dealer p1: the duellists p0 and p3 are dealt p3 first, and p3 leads the duel
    hands = [
        "AS KS QS JS TS 9S",  # p0
        CLUBS,  # p1
        DIAMONDS,  # p2
        "AH KH QH JH 2S 3S",  # p3
    ]
    decks = [
        build_deck([2, 3, 0, 1], hands),
        build_deck([3, 0], {3: "AC 2D 3D 4D 5D 6D", 0: "KC AD KD QD JD TD"}),
    ]
    env = new_env(rules="classic", join_at=0, dealer=1, scores=[2, 12, 12, 4], decks=decks)
    play(env, "2:pass 3:bid:4 0:pass 1:pass")
    play(env, "3:AH 0:9S 1:9C 2:9D")  # p3: 3
    play(env, "3:KH 0:TS 1:TC 2:TD")  # 2
    play(env, "3:QH 0:JS 1:JC 2:JD")  # 1
    play(env, "3:JH 0:QS 1:QC 2:QD")  # 0
    play(env, "3:2S 0:KS 1:KC 2:KD")  # p0: 1
    play(env, "3:3S 0:AS 1:AC 2:AD")  # p0: 0
    assert scores(env) == [0, 12, 12, 0]
    assert game(env).phase == "duel" and env.agent_selection == agent(3)
    play(env, "3:AC 0:KC")  # p3
    play(env, "3:2D 0:AD")  # p0 leads from here
    play(env, "0:KD 3:3D 0:QD 3:4D 0:JD 3:5D 0:TD 3:6D")
    assert game(env).winner == 0  # 5 tricks to 1


def test_ten_tied_duels_lowest_seat_wins():
    # p0 and p2 start on 0 (reset option); an all-passed raudskjegg deal is scored at
    # once: both on 0 -> duels. Dealer p0, so p2 leads. Every duel ends 3 - 3.
    tie = build_deck([2, 0], {2: "AS KS QS 2C 3C 4C", 0: "AC KC QC 2S 3S 4S"})
    decks = [build_deck([1, 2, 3, 0], {1: CLUBS, 2: DIAMONDS, 3: HEARTS, 0: "AS KS QS JS TS 9S"})] + [tie] * 10
    env = new_env(rules="raudskjegg", dealer=0, scores=[0, 10, 0, 10], decks=decks)
    play(env, "1:pass 2:pass 3:pass 0:pass")
    g = game(env)
    assert g.phase == "duel" and g.duellists == [0, 2]
    for k in range(10):
        assert not g.game_over and g.tied_duels == k
        play(env, "2:AS 0:2S 2:KS 0:3S 2:QS 0:4S 2:2C 0:AC 0:KC 2:3C 0:QC 2:4C")
    assert g.terminated and g.winner == 0


# ------------------------------------------------------------------ Rödskägg
SIX_SPADES = ["AS KS QS JS TS 9S", CLUBS, DIAMONDS, HEARTS]


def test_redbeard_success_wins_at_once_nothing_more_scored():
    env = new_env(rules="classic", dealer=3, hands=SIX_SPADES)
    play(env, "0:redbeard 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 8
    play(env, "0:ask 1:fold 2:fold 3:join")
    play(env, "0:TS 3:9H 0:9S 3:TH")  # p0: 6, all six tricks
    g = game(env)
    assert g.terminated and g.winner == 0
    # p3, a joiner without a trick, gets no +6: nothing more of the round is scored
    assert scores(env) == [6, 12, 12, 12]
    assert final_rewards(env)[agent(0)] == 1.0


def test_redbeard_success_zero_sets_score_to_zero():
    env = new_env(rules="raudskjegg", dealer=3, hands=SIX_SPADES)
    play(env, "0:redbeard 1:pass 2:pass 3:pass", *FOUR_SPADES[:3])  # p0: 10 -> 7
    play(env, "0:ask 1:fold 2:fold 3:join")
    play(env, "0:JS 3:JH 0:TS 3:TH 0:9S 3:9H")  # p0: 4
    # success: 4 -> 0 (redbeard_zero); p3 in without a trick: +5; then the zero check
    assert ("score", 0, -4, "redbeard_zero") in score_events(env)
    assert scores(env) == [0, 10, 10, 15]
    assert game(env).terminated and game(env).winner == 0


def test_redbeard_fail_eliminate_others_continue():
    env = new_env(rules="classic", redeal="off", dealer=3, hands=FIVE_SPADES)
    play(env, "0:redbeard 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 8
    play(env, "0:ask 1:join 2:fold 3:fold")
    play(env, "0:TS 1:9C")  # p0: 7
    play(env, "0:2C 1:TC")  # p1 joiner: 10. Rödskägg failed
    g = game(env)
    assert g.active == [False, True, True, True] and not g.game_over
    assert scores(env)[1:] == [10, 12, 12]
    assert env.terminations[agent(0)] and not env.terminations[agent(1)]
    assert env.agent_selection == agent(0)
    _, reward, terminated, _, _ = env.last()
    assert terminated and reward == pytest.approx(-1 / 3)
    play(env, "0:-")
    # the deal passes from p3 to the next active seat, p1; p2 calls first
    assert g.dealer == 1 and env.agent_selection == agent(2) and g.phase == "bid"
    assert not g.hands[0]
    play(env, "2:pass 3:pass 1:bid:1")


def test_redbeard_fail_contract_is_normal_penalty():
    env = new_env(rules="raudskjegg", dealer=3, hands=FIVE_SPADES)
    play(env, "0:redbeard 1:pass 2:pass 3:pass", *FOUR_SPADES[:3])  # p0: 7
    play(env, "0:ask 1:join 2:fold 3:fold")
    play(env, "0:JS 1:9C 0:TS 1:TC")  # p0: 5
    play(env, "0:2C 1:JC")  # p1: 9
    # failed: 5 tricks, + 5 like a contract: 10. Nobody eliminated.
    assert scores(env) == [10, 9, 10, 10]
    assert game(env).active == [True] * 4 and not game(env).game_over


def test_redbeard_fail_always_eliminates_even_if_lowest():
    # 3 players, eliminate_at 32. p0 fails Rödskägg on 31 (below 32); p1 39 and p2 42
    # are both over: without the Rödskägg rule p0 would stay and win. It is out anyway,
    # and of the two remaining over-32 players the lowest (p1) stays and wins.
    env = new_env(
        3, rules="classic", redeal="off", eliminate_at=32, join_at=0, dealer=2,
        scores=[36, 40, 42], hands=["AS KS QS JS TS 2C", CLUBS, DIAMONDS],
    )
    play(env, "0:redbeard 1:pass 2:pass")
    play(env, "0:AS 1:AC 2:AD 0:KS 1:KC 2:KD 0:QS 1:QC 2:QD 0:JS 1:JC 2:JD 0:TS 1:TC 2:TD")  # 31
    play(env, "0:2C 1:9C 2:9D")  # p1: 39
    g = game(env)
    assert scores(env) == [31, 39, 42]
    assert g.terminated and g.winner == 1 and g.active == [False, True, False]
    assert final_rewards(env) == pytest.approx({agent(0): -0.5, agent(1): 1.0, agent(2): -0.5})


# ------------------------------------------------------------------ eliminate_at
def test_eliminate_at_or_above_terminated_with_reward_then_others_continue():
    decks = [
        build_deck([0, 1, 2, 3], SIX_SPADES),
        # round 2: only p3 and p0 are dealt in (dealer p0: p3 first)
        build_deck([3, 0], {3: "AH KH QH JH TH 9H", 0: "2H 3H 4H 5H 6H 7H"}),
    ]
    env = new_env(rules="classic", redeal="off", eliminate_at=32, dealer=3, scores=[12, 30, 26, 12], decks=decks)
    play(env, "0:bid:6 1:pass 2:pass 3:pass", *FOUR_SPADES)  # p0: 8
    play(env, "0:ask 1:join 2:join 3:fold")
    play(env, "0:TS 1:9C 2:9D 0:9S 1:TC 2:TD")  # p0: 6
    # p1 30 + 6 = 36 (above), p2 26 + 6 = 32 (at): both out; p0 6 = 6 made
    g = game(env)
    assert scores(env) == [6, 36, 32, 12]
    assert g.active == [True, False, False, True] and not g.game_over
    for s in (1, 2):
        assert env.terminations[agent(s)]
    assert not env.terminations[agent(0)] and not env.terminations[agent(3)]
    for s in (1, 2):
        assert env.agent_selection == agent(s)
        _, reward, terminated, _, _ = env.last()
        assert terminated and reward == pytest.approx(-1 / 3)
        env.step(None)
    # two left: dealer p0, p3 calls first; p1 and p2 get no cards and are never asked
    assert g.dealer == 0 and env.agent_selection == agent(3) and g.phase == "bid"
    assert not g.hands[1] and not g.hands[2]
    assert g.in_round == [True, False, False, True]
    play(env, "3:bid:6 0:pass")
    play(env, "3:AH 0:2H 3:KH 0:3H 3:QH 0:4H 3:JH 0:5H")  # p3: 12 -> 8
    play(env, "3:ask 0:join")  # p0 trickless joins
    play(env, "3:TH 0:6H 3:9H 0:7H")  # p3: 6
    # p3 6 = 6; p0 joiner without a trick: 6 + 6 = 12; p1, p2 untouched
    assert scores(env) == [12, 36, 32, 6] and g.rounds_played == 2


@pytest.mark.parametrize("p1_start, survivors", [(33, [1]), (34, [1, 2])])
def test_eliminate_at_all_over_lowest_stay(p1_start, survivors):
    # 3 players, all end at or above 32: those with the lowest score stay
    env = new_env(
        3, rules="classic", redeal="off", eliminate_at=32, join_at=0, dealer=2,
        scores=[31, p1_start, 40], hands=["2C 3C 4C 5C 6C 7C", DIAMONDS, CLUBS],
    )
    play(env, "0:bid:1 1:pass 2:pass")
    for t in range(6):  # p2 follows clubs higher and takes all six: 40 -> 34
        play(env, f"0:{t + 2}C 1:{'9TJQKA'[t]}D 2:{'9TJQKA'[t]}C")
    # p0: bid 1, took 0: 31 + 5 = 36; p1 unchanged; p2 34
    g = game(env)
    assert scores(env) == [36, p1_start, 34]
    assert [s for s in range(3) if g.active[s]] == survivors
    if survivors == [1]:  # the single one left wins
        assert g.terminated and g.winner == 1
        assert final_rewards(env) == pytest.approx({agent(0): -0.5, agent(1): 1.0, agent(2): -0.5})
    else:  # p1 and p2 tied lowest on 34: both play on
        assert not g.game_over
        play(env, "0:-")
        assert g.dealer == 1 and env.agent_selection == agent(2) and g.phase == "bid"


# ------------------------------------------------------------------ elimination before the duel
# Dealer p3, redeal "challenge", eliminate_at 20. p2 (on 18) throws in a hand with face
# cards and p3 looks: p2 +5 = 23, at once. p0 (on 4) bids 4 and takes four spade tricks
# (-> 0), p1 (on 1) one club trick (-> 0), p3 the last heart trick (12 -> 11). At the
# scoring (SPEC §1.8) p2 is eliminated first, then p0 and p1 on 0 duel: p2 is terminated
# before the duel is dealt, not when the duel ends.
ELIM_ROUND = ["AS KS QS JS 2C 2H", CLUBS, DIAMONDS, HEARTS]
ELIM_STOCK = "2D 3D 4D 5D 6D 7D"  # p2's new hand
ELIM_DECKS = [
    build_deck([0, 1, 2, 3], ELIM_ROUND, ELIM_STOCK),
    build_deck([0, 1], {0: "AS KS QS JS TS 9S", 1: "2S 3S 4S 5S 6S 7S"}),  # the duel: p0 takes all
]
ELIM_SCRIPT = (
    "0:keep 1:keep 2:redeal",
    "3:look",  # AD KD ... had face cards: thrower p2 18 -> 23
    "2:keep 3:keep",  # p2 now holds 2D..7D
    "0:bid:4 1:pass 2:pass 3:pass",
    "0:AS 1:AC 2:2D 3:AH",  # p0: 3
    "0:KS 1:KC 2:3D 3:KH",  # p0: 2
    "0:QS 1:QC 2:4D 3:QH",  # p0: 1
    "0:JS 1:JC 2:5D 3:JH",  # p0: 0
    "0:2C 1:9C 2:6D 3:TH",  # p1: 1 -> 0
    "0:2H 1:TC 2:7D 3:9H",  # p3: 11. Scoring: p0 made 4 exactly; p2 23 >= 20 out; p0, p1 duel
)
ELIM_RULES = dict(rules="classic", redeal="challenge", eliminate_at=20, join_at=0)


def test_elimination_before_the_duel():
    env = new_env(**ELIM_RULES, dealer=3, scores=[4, 1, 18, 12], decks=ELIM_DECKS)
    play(env, *ELIM_SCRIPT[:2])
    assert scores(env) == [4, 1, 23, 12] and game(env).active == [True] * 4  # not yet: at the scoring
    play(env, *ELIM_SCRIPT[2:])
    g = game(env)
    assert scores(env) == [0, 0, 23, 11]
    assert g.active == [True, True, False, True] and g.phase == "duel" and g.duellists == [0, 1]
    kinds = [e[0] for e in g.events]
    assert kinds.index("eliminated") < kinds.index("duel")
    assert env.terminations[agent(2)] and not any(env.terminations[agent(s)] for s in (0, 1, 3))
    assert env.agent_selection == agent(2)  # stepped out before the duel's first card
    _, reward, terminated, _, _ = env.last()
    assert terminated and reward == pytest.approx(-1 / 3)
    play(env, "2:-")
    play(env, "0:AS 1:2S 0:KS 1:3S 0:QS 1:4S 0:JS 1:5S 0:TS 1:6S 0:9S 1:7S")  # p0 6 tricks to 0
    assert g.terminated and g.winner == 0 and scores(env) == [0, 0, 23, 11]
    # p2's -1/3 came at its elimination; the others' at the end
    assert final_rewards(env) == pytest.approx({agent(0): 1.0, agent(1): -1 / 3, agent(3): -1 / 3})


def test_elimination_before_the_duel_batch_engine_agrees():
    """The same deal on the batch engine: step for step the same (scores, rewards,
    eliminations, observations), and p2's elimination reported in the step that scores
    the round and deals the duel."""
    duel = "0:AS 1:2S 0:KS 1:3S 0:QS 1:4S 0:JS 1:5S 0:TS 1:6S 0:9S 1:7S"
    infos = play_both_engines(4, *ELIM_SCRIPT, "2:-", duel, dealer=3, scores=[4, 1, 18, 12], decks=ELIM_DECKS,
                              **ELIM_RULES)
    scoring = infos[len(" ".join(ELIM_SCRIPT).split()) - 1]
    assert scoring["round_over"][0] and scoring["eliminated"][0].tolist() == [False, False, True, False]
    assert scoring["phase"][0] == 6 and scoring["score"][0].tolist() == [0, 0, 23, 11]  # 6: duel
    assert infos[-1]["winner"][0] == 0


# ------------------------------------------------------------------ max_rounds
def test_max_rounds_truncation():
    env = new_env(rules="classic", join_at=0, max_rounds=1, dealer=3, hands=BASE)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")
    g = game(env)
    assert g.truncated and not g.terminated and g.winner is None
    for a in env.possible_agents:
        assert env.truncations[a] and not env.terminations[a]
        assert env.infos[a]["winner"] is None
    assert final_rewards(env) == {a: 0 for a in env.possible_agents}


def test_max_rounds_two_continues_after_first_round():
    env = new_env(rules="classic", join_at=0, max_rounds=2, dealer=3, hands=BASE)
    play(env, "0:bid:4 1:pass 2:pass 3:pass", *FOUR_SPADES)
    play(env, "0:2C 1:9C 2:9D 3:9H 0:3C 1:TC 2:TD 3:TH")
    g = game(env)
    assert not g.game_over and g.rounds_played == 1 and g.dealer == 0
    assert not any(env.truncations.values())
