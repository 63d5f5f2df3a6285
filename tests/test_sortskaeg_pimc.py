"""Sortskæg's pimc: sampled worlds respect what the player knows, a world built from the
true hands replays the round exactly on the batch engine, and the bot plays legally."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import make_agent
from agents.sortskaeg.decode import decode_batch
from agents.sortskaeg.pimc import SortskaegPIMC, hidden_hands, rules_from_obs
from redbeard_env import sortskaeg
from redbeard_env.sortskaeg.cards import CARD_COLOUR
from redbeard_env.sortskaeg.observation import OBS_SLICES
from redbeard_env.sortskaeg.vector import VectorEnv


def positions(seed: int, deal: str, n: int = 4, count: int = 12):
    """Reference games stopped at random decisions: (env, observation of the acting seat)."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        env = sortskaeg.env(num_players=n, deal=deal)
        env.reset(seed=seed * 100 + k)
        stop = rng.randrange(30, 200)
        for _ in range(stop):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(rng.choice(list(np.flatnonzero(mask))))
        if env.game.phase in ("bid", "play"):
            out.append((env, env.observe(env.agent_selection)))
    return out


@pytest.mark.parametrize("deal", ["fresh", "carry"])
def test_sampled_hands_are_consistent(deal):
    rng = np.random.default_rng(0)
    for env, obs in positions(1, deal):
        g, seat, n = env.game, env.game.to_act, env.game.num_players
        v = decode_batch(obs["observation"][None])
        hands = hidden_hands(v, np.array([0]), 30, rng)[0]  # [S, P, 42]
        known = g.hands[seat] | g.played | {c for _, c in g.trick}
        for s in range(30):
            seen = set()
            for pos in range(1, n):
                true_seat = (seat + pos) % n
                cards = set(np.flatnonzero(hands[s, pos]))
                assert len(cards) == len(g.hands[true_seat])  # the right number of cards
                assert not cards & known and not cards & seen  # unseen, and dealt once
                seen |= cards
                for colour in range(4):
                    if g.voids[true_seat][colour]:
                        assert not any(CARD_COLOUR[c] == colour for c in cards)
                if deal == "carry" and g.took_back[true_seat]:
                    assert cards <= g.took_back[true_seat]  # a hand is among the cards taken back
                if deal == "carry" and g.round > 0:
                    assert cards <= g.game_cards


@pytest.mark.parametrize("deal", ["fresh", "carry"])
def test_a_world_of_the_true_hands_replays_the_round(deal):
    rng = random.Random(5)
    for env, obs in positions(2, deal, n=3):
        g, seat, n = env.game, env.game.to_act, env.game.num_players
        v = decode_batch(obs["observation"][None])
        rules = rules_from_obs(v, 0)
        true = np.zeros((1, n, 42), bool)
        for pos in range(n):
            true[0, pos, list(g.hands[(seat + pos) % n])] = True
        venv = VectorEnv(1, n, rules=rules, auto_reset=False)
        wobs, wmask, wseat = SortskaegPIMC._load_worlds(venv, v, np.array([0]), np.array([0]), true)
        # the world's view of seat 0 is the player's own view (its discards are not loaded)
        differ = np.flatnonzero(wobs[0] != obs["observation"])
        discarded = OBS_SLICES["discarded"]
        assert all(discarded.start <= i < discarded.stop for i in differ), differ
        assert np.array_equal(wmask[0], obs["action_mask"])
        round_before = g.round
        while g.round == round_before and not g.game_over:
            acting = g.to_act
            action = rng.choice(list(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            assert wseat[0] == (acting - seat) % n
            env.step(action)
            wobs, wmask, wseat, _, _, _, info = venv.step(np.array([action]))
        end = [e for e in g.events if e[0] == "round_end"][0]
        assert info["round_over"][0]
        assert [int(info["round_delta"][0][(s - seat) % n]) for s in range(n)] == list(end[5])
        assert [int(info["round_tricks"][0][(s - seat) % n]) for s in range(n)] == list(end[4])


def test_pimc_plays_legally_and_is_seeded():
    venv = VectorEnv(6, 3, hand_sizes=(3, 2, 1), deal="carry", seed=1)
    obs, mask, seat = venv.reset()
    a, b = make_agent("sortskaeg_pimc:samples=4", seed=3), make_agent("sortskaeg_pimc:samples=4", seed=3)
    searched = 0
    for _ in range(60):
        searched += int(a.searches(obs, mask).sum())
        act = a.act_batch(obs, mask)
        assert np.array_equal(act, b.act_batch(obs, mask))
        assert (mask[np.arange(6), act] == 1).all()
        obs, mask, seat, *_ = venv.step(act)
    # searches() names the rows act_batch searches: bids and plays with a choice (the
    # discards of carry and the forced moves go to the rollout bot)
    assert a.decisions == searched > 0
    assert make_agent("pimc", game="sortskaeg").rollout.game == "sortskaeg"  # its heuristic, by game
    with pytest.raises(ValueError, match="a bot of redbeard, not of sortskaeg"):
        SortskaegPIMC(rollout="joins:always")


def test_full_information_samples_the_true_deal():
    # carry, 2 players, two rounds of 2: the second round is dealt afresh from the game's
    # four cards, which both players saw played in round 1 -- so the hidden hand is known.
    order = ["J1", "R1", "Y10", "R5"] + [c for c in (f"{col}{v}" for col in "RGBY" for v in range(1, 11))
                                          if c not in ("R1", "Y10", "R5")] + ["J2"]
    second = ["R5", "J1", "Y10", "R1"] + order[4:]
    env = sortskaeg.env(num_players=2, hand_sizes=(2, 2), deal="carry")
    env.reset(seed=0, options={"dealer": 1, "decks": [order, second]})
    while env.game.round == 0:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    g = env.game
    obs = env.observe(env.agent_selection)
    v = decode_batch(obs["observation"][None])
    hands = hidden_hands(v, np.array([0]), 20, np.random.default_rng(0))[0]
    other = (g.to_act + 1) % 2
    assert all(set(np.flatnonzero(hands[s, 1])) == g.hands[other] for s in range(20))
    # the search then sees one world per sample, all equal: its choice is deterministic
    bot = make_agent("sortskaeg_pimc:samples=4", seed=0)
    assert bot.act(obs) == make_agent("sortskaeg_pimc:samples=4", seed=9).act(obs)
