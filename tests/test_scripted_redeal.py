"""Scripted deals: the redeal ("omgiv") phase and the look rule (SPEC §1.1, §1.8).

4 players, dealer p3 unless said otherwise, so redeal questions go p0, p1, p2, p3.
"""

from redbeard_env import card_name

try:
    from scripted_helpers import agent, build_deck, game, hand_of, legal, new_env, play, score_events, scores
except ImportError:  # tests/ as a package
    from tests.scripted_helpers import agent, build_deck, game, hand_of, legal, new_env, play, score_events, scores

HANDS = [
    "AS KS QS JS 2C 3C",  # p0: face cards
    "4C 5C 6C 7C 8C 9C",  # p1: no face card ("inget klätt kort")
    "AD KD QD JD TD 9D",  # p2: face cards
    "AH KH QH JH TH 9H",  # p3: face cards
]
STOCK = "2D 3D 4D 5D 6D 7D  TC JC QC KC AC 8D"  # first redraw faceless, second with faces


def test_redeal_off_asks_nobody():
    env = new_env(rules="classic", redeal="off", dealer=3, hands=HANDS, stock=STOCK)
    # p1's faceless hand may not be thrown in: the auction starts with p0
    assert game(env).phase == "bid" and env.agent_selection == agent(0)
    assert "redeal" not in legal(env) and "keep" not in legal(env)
    play(env, "0:pass 1:pass 2:pass 3:bid:1")  # p1 is asked to bid, never to redeal


def test_no_face_card_only_faceless_hand_asked_and_repeated_redeals():
    env = new_env(rules="classic", dealer=3, hands=HANDS, stock=STOCK)
    # p0 (left of the dealer) holds face cards: not asked; p1 is the first question
    assert game(env).phase == "redeal" and env.agent_selection == agent(1)
    assert legal(env) == {"keep", "redeal"}
    play(env, "1:redeal")  # draws 2D..7D: still faceless, so p1 decides again
    assert hand_of(env, 1) == set("2D 3D 4D 5D 6D 7D".split())
    assert game(env).phase == "redeal" and env.agent_selection == agent(1)
    play(env, "1:redeal")  # draws TC JC QC KC AC 8D: has face cards, no question any more
    assert hand_of(env, 1) == set("TC JC QC KC AC 8D".split())
    assert game(env).throws == [0, 2, 0, 0]
    # p2, p3 hold face cards: not asked; no penalties under no_face_card
    assert game(env).phase == "bid" and env.agent_selection == agent(0)
    assert scores(env) == [12, 12, 12, 12]


def test_no_face_card_keep_and_no_question_with_all_face_hands():
    env = new_env(rules="classic", dealer=3, hands=HANDS, stock=STOCK)
    play(env, "1:keep")
    assert hand_of(env, 1) == set(HANDS[1].split())
    assert game(env).phase == "bid" and env.agent_selection == agent(0)
    # every hand with a face card: the question is not asked at all
    hands = [HANDS[0], "KC 5C 6C 7C 8C 9C", HANDS[2], HANDS[3]]
    env = new_env(rules="classic", dealer=3, hands=hands)
    assert game(env).phase == "bid" and env.agent_selection == agent(0)


def test_redeal_any_asks_everyone_in_seat_order():
    env = new_env(rules="classic", redeal="any", dealer=3, hands=HANDS, stock=STOCK)
    assert game(env).phase == "redeal"
    play(env, "0:redeal")  # a hand with face cards may be thrown in too; no look under "any"
    assert hand_of(env, 0) == set("2D 3D 4D 5D 6D 7D".split())
    play(env, "0:redeal")  # again: draws the next six
    assert hand_of(env, 0) == set("TC JC QC KC AC 8D".split())
    play(env, "0:keep 1:keep 2:keep 3:keep")
    assert game(env).phase == "bid" and env.agent_selection == agent(0)
    assert scores(env) == [12, 12, 12, 12]
    assert game(env).throws == [2, 0, 0, 0]


def test_challenge_look_rule_both_ways():
    env = new_env(rules="classic", redeal="challenge", dealer=3, hands=HANDS, stock=STOCK)
    # p0 throws in a hand WITH face cards; the others are asked from p0's left: p1, p2, p3
    play(env, "0:redeal")
    assert game(env).phase == "look" and legal(env) == {"look", "no_look"}
    play(env, "1:no_look 2:look")  # p2 looks first: the hand had face cards -> thrower p0 +5
    assert score_events(env) == [("score", 0, 5, "look")]
    assert scores(env) == [17, 12, 12, 12]
    # only the first looker sees it; p3 is not asked any more
    g = game(env)
    assert set(HANDS[0].split()) <= {card_name(c) for c in g.seen_thrown[2]}
    assert not g.seen_thrown[3] and not g.seen_thrown[1]
    # p0 gets a new hand and decides again
    assert hand_of(env, 0) == set("2D 3D 4D 5D 6D 7D".split())
    assert g.phase == "redeal" and env.agent_selection == agent(0)
    play(env, "0:keep")
    # p1 throws in a hand WITHOUT face cards; asked from p1's left: p2, p3, p0
    play(env, "1:redeal 2:no_look 3:no_look 0:look")  # looker p0 +5: 17 -> 22
    assert scores(env) == [22, 12, 12, 12]
    assert hand_of(env, 1) == set("TC JC QC KC AC 8D".split())
    # p1 throws in again; nobody looks: no penalty
    play(env, "1:redeal 2:no_look 3:no_look 0:no_look")
    assert scores(env) == [22, 12, 12, 12]
    play(env, "1:keep 2:keep 3:keep")
    assert game(env).phase == "bid" and env.agent_selection == agent(0)
    assert game(env).throws == [1, 2, 0, 0]


def test_fem_opp_preset_uses_challenge():
    env = new_env(rules="fem_opp", dealer=3, hands=HANDS, stock=STOCK)
    play(env, "0:keep 1:redeal 2:look")  # p1's hand had no face card: looker p2 +5
    assert scores(env) == [12, 12, 17, 12]
    play(env, "1:keep 2:keep 3:keep 0:pass")


# 7 players (42 cards dealt, 10 in the stock), dealer p6: questions go p0..p6.
SEVEN = [
    "2C 3C 4C 5C 6C 7C",  # p0: faceless
    "8C 9C TC 2D 3D 4D",  # p1: faceless
    "AC KC QC 5D 6D 7D",
    "JC AD KD 8D 9D TD",
    "QD JD AH 2H 3H 4H",
    "KH QH JH 5H 6H 7H",
    "AS KS QS JS 8H 9H",
]
SEVEN_STOCK = "2S 3S 4S 5S 6S 7S  8S 9S TS TH"  # all faceless; exactly the 10 cards left


def test_stock_runs_short_thrown_hands_reshuffled_under_stock_and_redeals_close():
    env = new_env(7, rules="classic", dealer=6, hands=SEVEN, stock=SEVEN_STOCK)
    assert env.agent_selection == agent(0) and game(env).phase == "redeal"
    play(env, "0:redeal")  # draws 2S..7S (faceless): asked again; 4 cards left in the stock
    assert hand_of(env, 0) == set("2S 3S 4S 5S 6S 7S".split())
    assert env.agent_selection == agent(0) and game(env).phase == "redeal"
    play(env, "0:redeal")
    # fewer than 6 in the stock: the 12 thrown-in cards go under 8S 9S TS TH, the new hand
    # is dealt from the top (those 4 + 2 thrown-in cards), and redeals are closed
    g = game(env)
    thrown = set("2C 3C 4C 5C 6C 7C 2S 3S 4S 5S 6S 7S".split())
    new_hand = hand_of(env, 0)
    assert set("8S 9S TS TH".split()) <= new_hand
    assert len(new_hand - set("8S 9S TS TH".split()) & thrown) == 2
    assert {card_name(c) for c in g.stock} == thrown - new_hand
    assert g.reshuffled and not g.redeals_open
    # p0's new hand is faceless and p1's too, yet nobody is asked any more
    assert g.phase == "bid" and env.agent_selection == agent(0)
    play(env, "0:pass 1:pass 2:pass 3:pass 4:pass 5:pass 6:bid:1")


def test_stock_runs_short_exact_order_with_scripted_reshuffle():
    # The `decks` option fixes the reshuffle order: thrown-in cards come back 7S, 2C, ...
    deck = build_deck(
        list(range(7)),
        SEVEN,
        SEVEN_STOCK,
        reshuffle="7S 2C 6S 3C 5S 4C 4S 5C 3S 6C 2S 7C",
    )
    env = new_env(7, rules="classic", dealer=6, decks=[deck])
    play(env, "0:redeal 0:redeal")
    assert hand_of(env, 0) == set("8S 9S TS TH 7S 2C".split())
    assert [card_name(c) for c in game(env).stock] == (
        "6S 3C 5S 4C 4S 5C 3S 6C 2S 7C".split()
    )
    assert env.agent_selection == agent(0) and game(env).phase == "bid"


def test_stock_short_with_two_throwers_closes_redeals_for_later_seats():
    # p0 throws once (stock 10 -> 4) and keeps; then p1 throws: the stock is short, so
    # the thrown-in hands (p0's first, p1's) go under 8S 9S TS TH and redeals close:
    # nobody after p1 is asked (all other hands hold face cards anyway) and p1 not again.
    env = new_env(7, rules="classic", dealer=6, hands=SEVEN, stock=SEVEN_STOCK)
    play(env, "0:redeal")  # 2S..7S, faceless
    play(env, "0:keep")
    play(env, "1:redeal")  # stock 4 < 6: reshuffle (p0's first hand + p1's hand) under it
    g = game(env)
    assert set("8S 9S TS TH".split()) <= hand_of(env, 1)
    assert not g.redeals_open and g.phase == "bid" and env.agent_selection == agent(0)


def test_challenge_with_short_stock_looks_then_reshuffles():
    env = new_env(7, rules="classic", redeal="challenge", dealer=6, hands=SEVEN, stock=SEVEN_STOCK)
    # p0 throws a faceless hand; the others are asked p1..p6, p6 looks: looker +5
    play(env, "0:redeal 1:no_look 2:no_look 3:no_look 4:no_look 5:no_look 6:look")
    assert scores(env) == [12, 12, 12, 12, 12, 12, 17]
    assert hand_of(env, 0) == set("2S 3S 4S 5S 6S 7S".split())
    # again (faceless: p1 looks, +5); the stock holds 4 < 6: reshuffle, redeals close
    play(env, "0:redeal 1:look")
    g = game(env)
    assert scores(env) == [12, 17, 12, 12, 12, 12, 17]
    assert set("8S 9S TS TH".split()) <= hand_of(env, 0)
    assert not g.redeals_open and g.phase == "bid" and env.agent_selection == agent(0)


def test_six_players_third_redeal_reshuffles():
    # 6 players: 36 dealt, 16 in the stock; p0 redeals twice from the stock, the third
    # time only 4 are left: reshuffle, then no more redeals.
    hands = [
        "2C 3C 4C 5C 6C 7C",  # p0: faceless
        "AC KC QC JC 8C 9C",
        "AD KD QD JD TC 2D",
        "AH KH QH JH 3D 4D",
        "AS KS QS 5D 6D 7D",
        "JS 8D 9D TD 2H 3H",
    ]
    stock = "4H 5H 6H 7H 8H 9H  TH 2S 3S 4S 5S 6S  7S 8S 9S TS"  # all faceless
    env = new_env(6, rules="classic", dealer=5, hands=hands, stock=stock)
    play(env, "0:redeal")
    assert hand_of(env, 0) == set("4H 5H 6H 7H 8H 9H".split())
    play(env, "0:redeal")
    assert hand_of(env, 0) == set("TH 2S 3S 4S 5S 6S".split())
    assert len(game(env).stock) == 4 and game(env).redeals_open
    play(env, "0:redeal")
    g = game(env)
    thrown = set("2C 3C 4C 5C 6C 7C 4H 5H 6H 7H 8H 9H TH 2S 3S 4S 5S 6S".split())
    assert set("7S 8S 9S TS".split()) <= hand_of(env, 0)
    assert len(hand_of(env, 0) & thrown) == 2 and len(g.stock) == 16
    assert g.reshuffled and not g.redeals_open and g.throws[0] == 3
    assert g.phase == "bid" and env.agent_selection == agent(0)
