"""Parity of Oh Hell's batch engine (redbeard_env.oh_hell.VectorEnv, the Sortskæg family's compiled
engine) with the reference AEC env.

Both engines get the same deals (per-game deck rows: the 52 ids, then the permutation that
draws a drawn hand size), first dealers and starting scores, and the same random legal
actions; at every step they must agree bit for bit on the acting seat's observation, the
action mask, the acting seat, the per-seat rewards, the running scores, the end of the game,
the winners and the deal's record. Variants cover every player count, short decks (one suit;
two-card suits), drawn and fixed hand sizes (the largest the deck allows), both scoring modes
and ``reward="score"``.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import redbeard_env
from redbeard_env.family import game as G
from redbeard_env.oh_hell import VectorEnv, make_rules
from redbeard_env.oh_hell.observation import encode
from redbeard_env.oh_hell.vector import random_legal_actions

try:
    import family_parity
except ImportError:  # tests/ as a package
    from tests import family_parity

GAMES = 40
SLOW_GAMES = 600

# (players, overrides, env kwargs)
VARIANTS = [
    (3, dict(), {}),
    (4, dict(num_tricks=12), {"reward": "score"}),
    (5, dict(num_suits=2, num_cards_per_suit=6, off_bid_penalty=True), {}),
    (6, dict(num_tricks=8, points_per_trick=3), {}),
    (7, dict(num_tricks=1, num_suits=1, num_cards_per_suit=13, off_bid_penalty=True), {"reward": "score"}),
    (3, dict(num_tricks=17, off_bid_penalty=True, points_per_trick=0), {}),
    (4, dict(num_suits=3, num_cards_per_suit=3), {}),
    (3, dict(num_suits=2, num_cards_per_suit=2, points_per_trick=2), {}),
]


def count_trumpings(seen: dict, g, action: int) -> None:
    if g.phase == "play" and g.trick and g.fam.colour_of(action) == g.trumps != g.led_colour:
        seen["trumped"] += 1


def run_parity(n: int, overrides: dict, kwargs: dict, games: int, seed: int) -> dict:
    return family_parity.run_parity("oh_hell", n, overrides, kwargs, games, seed, count=count_trumpings)


@pytest.mark.parametrize("case", range(len(VARIANTS)))
def test_parity(case):
    n, overrides, kwargs = VARIANTS[case]
    seen = run_parity(n, overrides, kwargs, GAMES, seed=case)
    assert seen["trumped"] > 0 or overrides.get("num_suits") == 1  # one suit: trumps are always led
    if overrides.get("num_tricks") is None:  # drawn sizes
        assert len(seen["sizes"]) > 1 or make_rules("oh_hell", **overrides).family.max_drawn(n) == 1


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(VARIANTS)))
def test_parity_slow(case):
    n, overrides, kwargs = VARIANTS[case]
    run_parity(n, overrides, kwargs, SLOW_GAMES, seed=100 + case)


def test_a_deck_row_deals_as_openspiel_deals():
    """One card at a time from seat 0, skipping ids outside a short deck, then the turned card;
    the second part draws a drawn size: its first entry below 6 * (52 // 6) = 48 is 13 -> 1 + 13 % 6 = 2."""
    venv = VectorEnv(1, 3, num_suits=2, num_cards_per_suit=10, seed=0)  # C and D, ranks 2..J; drawn sizes 1..6
    top = [0, 13, 40, 1, 14, 2, 15, 3]  # 2C 2D (3H: not in the deck) 3C 3D 4C 4D 5C
    deck = top + [c for c in range(52) if c not in top]
    part = [50, 13] + [x for x in range(52) if x not in (50, 13)]  # 50 >= 48: skipped; 13 -> 2
    venv.reset(dealer=np.array([1]), decks=np.array([[deck + part]]))
    assert venv.hands[0, 0].nonzero()[0].tolist() == [0, 14]  # seat 0: 2C, 3D
    assert venv.hands[0, 1].nonzero()[0].tolist() == [2, 13]  # seat 1: 2D, 4C
    assert venv.hands[0, 2].nonzero()[0].tolist() == [1, 15]  # seat 2: 3C, 4D
    assert venv.trump_card[0] == 3 and venv.trumps[0] == 0  # 5C turned: clubs
    env = redbeard_env.make("oh_hell", num_players=3, num_suits=2, num_cards_per_suit=10)
    env.reset(seed=0, options={"dealer": 1, "decks": [deck + part]})
    assert env.game.hands == [{0, 14}, {13, 2}, {1, 15}] and env.game.trump_card == 3 and env.game.hand_size == 2


def test_auto_reset_and_illegal_actions():
    venv = VectorEnv(8, 4, num_tricks=2, seed=0)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(100):
        obs, mask, seat, rewards, term, trunc, info = venv.step(random_legal_actions(mask, rng))
        for b in np.flatnonzero(term):
            ended += 1
            assert rewards[b].sum() == pytest.approx(0.0, abs=1e-6)
            assert (venv.scores[b] == 0).all() and venv.phase[b] == 0 and seat[b] >= 0
    assert ended > 10
    obs, mask, seat = venv.reset()
    actions = mask.argmax(1)
    actions[3] = 0  # a card in the bid phase
    with pytest.raises(ValueError, match=r"illegal action 0 \(play:2C\) in game 3, phase 'bid'"):
        venv.step(actions)
    with pytest.raises(ValueError, match="decks must be"):
        venv.reset(decks=np.zeros((8, 1, 52), int))


def test_load_and_export_round_trip():
    env = redbeard_env.make("oh_hell", num_players=4, num_tricks=3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    games = []
    while not env.game.game_over:
        games.append(copy.deepcopy(env.game))
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    venv = VectorEnv(len(games), 4, rules=env.rules, auto_reset=False)
    obs, mask, seat = venv.load_games(games)
    for b, g in enumerate(games):
        back = venv.export_game(b)
        for key in ("dealer", "phase", "to_act", "leader", "hands", "bids", "tricks", "trick", "played", "voids",
                    "scores", "trumps", "trump_card"):
            assert getattr(back, key) == getattr(g, key), (b, key)
        assert np.array_equal(obs[b], encode(g, g.to_act))
        assert mask[b].sum() == len(G.legal_actions(g)) and mask[b][G.legal_actions(g)].all()
