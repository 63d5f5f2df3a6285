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
from redbeard_env.oh_hell.cards import NUM_CARDS
from redbeard_env.oh_hell.observation import encode
from redbeard_env.oh_hell.vector import random_legal_actions

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


def run_parity(n: int, overrides: dict, kwargs: dict, games: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rules = make_rules("oh_hell", **overrides)
    decks = np.stack([np.concatenate([rng.permutation(NUM_CARDS), rng.permutation(NUM_CARDS)])[None]
                      for _ in range(games)])
    dealer = rng.integers(n, size=games)
    scores = rng.integers(-2, 3, size=(games, n)) * (rng.random((games, 1)) < 0.5)
    venv = VectorEnv(games, n, rules=rules, seed=seed, auto_reset=False, **kwargs)
    obs, mask, seat = venv.reset(dealer=dealer, scores=scores, decks=decks)
    envs = []
    for b in range(games):
        env = redbeard_env.make("oh_hell", num_players=n, rules=rules, **kwargs)
        env.reset(seed=b, options={"dealer": int(dealer[b]), "scores": [int(x) for x in scores[b]],
                                   "decks": decks[b].tolist()})
        envs.append(env)
    seen = {"games": 0, "sizes": set(), "ties": 0, "trumped": 0}
    while True:
        live = [b for b in range(games) if not envs[b].game.game_over]
        for b in range(games):
            g = envs[b].game
            if g.game_over:
                assert seat[b] == -1 and not mask[b].any(), f"game {b}: over in the reference, not in the batch"
                continue
            ref = envs[b].observe(envs[b].agent_selection)
            assert seat[b] == g.to_act, f"game {b}: acting seat {seat[b]} vs {g.to_act}"
            assert np.array_equal(mask[b], ref["action_mask"]), f"game {b} phase {g.phase}: masks differ"
            diff = np.flatnonzero(obs[b] != ref["observation"])
            assert len(diff) == 0, f"game {b} phase {g.phase}: observations differ at {diff[:10]}"
        if not live:
            break
        actions = random_legal_actions(np.maximum(mask, 0), rng)
        obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        for b in live:
            env, g = envs[b], envs[b].game
            if g.phase == "play" and g.trick and g.fam.colour_of(int(actions[b])) == g.trumps != g.led_colour:
                seen["trumped"] += 1
            env.step(int(actions[b]))
            ref_rewards = [env.rewards[f"player_{s}"] for s in range(n)]
            assert np.allclose(rewards[b], ref_rewards), f"game {b}: rewards {rewards[b]} vs {ref_rewards}"
            assert list(info["score"][b]) == g.scores, f"game {b}: scores differ"
            assert term[b] == g.game_over
            ends = [e for e in g.events if e[0] == "round_end"]
            assert bool(info["round_over"][b]) == bool(ends)
            if ends:
                _, index, size, bids, tricks, deltas = ends[0]
                seen["sizes"].add(size)
                assert (info["round_index"][b], info["round_hand_size"][b]) == (index, size)
                assert list(info["round_bids"][b]) == list(bids) and list(info["round_tricks"][b]) == list(tricks)
                assert list(info["round_delta"][b]) == list(deltas)
            if g.game_over:
                seen["games"] += 1
                seen["ties"] += len(g.winners) > 1
                assert list(np.flatnonzero(info["winners"][b])) == g.winners
    assert seen["games"] == games
    return seen


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
