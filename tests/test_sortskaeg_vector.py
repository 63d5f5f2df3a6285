"""Parity of Sortskæg's batch engine (redbeard_env.sortskaeg.vector) with the reference AEC env.

Both engines get the same deals (per-game deck lists, first dealer, starting scores) and
the same random legal actions; at every step they must agree bit for bit on the acting
seat's observation, the action mask, the acting seat, the per-seat rewards, the running
scores, the end of the game, the winners and the per-round records.

Variants make rare things frequent: short games, both deal modes (carry with discards
after every descending round), the dealer hook, ``reward="score"``, zero miss penalties
and equal starting scores (ties on top), hand sizes that fill the 42 cards.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from redbeard_env import sortskaeg
from redbeard_env.family import game as G
from redbeard_env.sortskaeg.cards import NUM_CARDS
from redbeard_env.sortskaeg.observation import encode
from redbeard_env.sortskaeg.vector import VectorEnv, random_legal_actions

try:
    import family_parity
except ImportError:  # tests/ as a package
    from tests import family_parity

GAMES = 40
SLOW_GAMES = 400

# (players, overrides, env kwargs)
VARIANTS = [
    (2, dict(hand_sizes=(3, 2, 1, 2, 3), deal="carry"), {}),
    (3, dict(), {}),
    (4, dict(hand_sizes=(5, 4, 3, 2, 1), deal="carry", dealer_hook=True), {"reward": "score"}),
    (5, dict(hand_sizes=(2, 1, 1, 2), miss_each=0, zero_bid=1), {}),
    (6, dict(hand_sizes=(7, 6, 5, 6, 7), deal="carry"), {}),
    (6, dict(hand_sizes=(7, 7, 1)), {"reward": "score"}),
    (4, dict(deal="carry"), {}),
    (3, dict(hand_sizes=(1, 1, 1), dealer_hook=True, exact_first=0), {}),
]


def policy(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """Random legal actions; half of the card plays take the lowest legal card (follows
    suit more, keeps jokers and trumps longer)."""
    act = random_legal_actions(mask, rng)
    low = np.where(mask[:, :NUM_CARDS] > 0, np.arange(NUM_CARDS), NUM_CARDS).argmin(1)
    cards = mask[:, :NUM_CARDS].any(1) & (rng.random(len(mask)) < 0.5)
    return np.where(cards, low, act)


def count_discards_and_joker_leads(seen: dict, g, action: int) -> None:
    seen["discards"] += g.phase == "discard"
    seen["joker_leads"] += g.phase == "play" and not g.trick and action >= 40


def check_winner_and_rounds(info: dict, b: int, g, rules) -> None:
    assert info["winner"][b] == (g.winners[0] if len(g.winners) == 1 else -1)
    assert info["rounds"][b] == rules.num_rounds


def run_parity(n: int, overrides: dict, kwargs: dict, games: int, seed: int) -> dict:
    return family_parity.run_parity("sortskaeg", n, overrides, kwargs, games, seed, policy=policy,
                                    count=count_discards_and_joker_leads, check_end=check_winner_and_rounds)


@pytest.mark.parametrize("case", range(len(VARIANTS)))
def test_parity(case):
    n, overrides, kwargs = VARIANTS[case]
    seen = run_parity(n, overrides, kwargs, GAMES, seed=case)
    if overrides.get("deal") == "carry":
        assert seen["discards"] > 0
    if case == 3:
        assert seen["ties"] > 0  # no miss penalty: ties on top happen


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(VARIANTS)))
def test_parity_slow(case):
    n, overrides, kwargs = VARIANTS[case]
    seen = run_parity(n, overrides, kwargs, SLOW_GAMES, seed=100 + case)
    assert seen["joker_leads"] > 0


def test_auto_reset_starts_a_new_game_and_reports_the_old_one():
    venv = VectorEnv(8, 3, hand_sizes=(2, 1), seed=0)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        obs, mask, seat, rewards, term, trunc, info = venv.step(random_legal_actions(mask, rng))
        for b in np.flatnonzero(term):
            ended += 1
            final = info["final_score"][b]
            assert list(info["winners"][b]) == list(final == final.max())
            k = info["winners"][b].sum()
            assert rewards[b].sum() == pytest.approx(0.0)
            assert rewards[b].max() == pytest.approx(0.0 if k == 3 else 1.0 / k)
            assert (venv.scores[b] == 0).all() and venv.round[b] == 0 and venv.phase[b] == 0  # the new game
            assert info["phase"][b] == 0 and seat[b] >= 0
    assert ended > 10


def test_illegal_batch_action_raises_and_changes_nothing():
    venv = VectorEnv(4, 4, seed=1)
    obs, mask, seat = venv.reset()
    actions = mask.argmax(1)
    actions[2] = 0  # a card in the bid phase
    state = {k: v.copy() for k, v in vars(venv).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match=r"illegal action \d+ \(play:\w+\) in game 2, phase 'bid'"):
        venv.step(actions)
    assert all(np.array_equal(v, getattr(venv, k)) for k, v in state.items())
    with pytest.raises(ValueError, match="actions must be 4 ints"):
        venv.step(actions[:3])
    with pytest.raises(ValueError, match="decks must be"):
        venv.reset(decks=np.zeros((4, 1, 42), int))
    with pytest.raises(ValueError, match="dealer must be"):
        venv.reset(dealer=[0, 1, 2, 4])


def test_load_and_export_round_trip_and_stop_at_round_end():
    env = sortskaeg.env(num_players=3, deal="carry", hand_sizes=(3, 2, 1))
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    games = []
    while not env.game.game_over:  # a game in every phase it passes through
        games.append(copy.deepcopy(env.game))
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    venv = VectorEnv(len(games), 3, rules=env.rules, auto_reset=False)
    obs, mask, seat = venv.load_games(games)
    for b, g in enumerate(games):
        back = venv.export_game(b)
        for key in ("round", "dealer", "phase", "to_act", "leader", "hands", "bids", "tricks", "trick", "played",
                    "played_by", "voids", "seen_game", "took_back", "discarded", "queue", "scores", "game_cards"):
            assert getattr(back, key) == getattr(g, key), (b, key)
        assert np.array_equal(obs[b], encode(g, g.to_act))
        assert np.array_equal(mask[b][G.legal_actions(g)], np.ones(len(G.legal_actions(g)), np.int8))
        assert mask[b].sum() == len(G.legal_actions(g))
    # stop at the round's end: play every loaded game on until it halts
    venv.load_games(games, stop_at_round_end=True)
    start_round = venv.round.copy()
    for _ in range(50):
        if venv.halted.all():
            break
        obs, mask, seat, *_ = venv.step(np.where(mask.any(1), mask.argmax(1), 0))
    assert venv.halted.all()
    assert (venv.round == start_round + 1).all()


def test_load_arrays_sets_worlds_and_refuses_unknown_names():
    venv = VectorEnv(2, 2, hand_sizes=(1,), auto_reset=False)
    hands = np.zeros((2, 2, 42), bool)
    hands[:, 0, 39] = hands[:, 1, 0] = True  # player 0 holds Y10, player 1 R1
    obs, mask, seat = venv.load_arrays(dict(hands=hands, phase=np.ones(2, int), dealer=np.ones(2, int),
                                            first_dealer=np.ones(2, int), leader=np.zeros(2, int),
                                            bids=np.ones((2, 2), int)), stop_at_round_end=True)
    assert (seat == 0).all() and mask[:, 39].all() and mask.sum() == 2
    obs, mask, seat, rewards, term, trunc, info = venv.step(np.array([39, 39]))
    obs, mask, seat, rewards, term, trunc, info = venv.step(np.array([0, 0]))
    # Y10 takes the trick: player 0 bid 1 took 1 -> 5; player 1 bid 1 took 0 -> -2
    assert info["round_over"].all() and (info["round_delta"] == [5, -2]).all()
    with pytest.raises(ValueError, match="unknown state arrays"):
        venv.load_arrays({"hand": hands})
