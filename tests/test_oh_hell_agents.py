"""Oh Hell's bots (agents/oh_hell): the heuristic's reading of the observation and its play, the
duplicate tournaments that rank them (heuristic over random, pimc over heuristic), pimc's worlds
agreeing with what the player saw, and a policy trained by the shared trainer playing Oh Hell."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import redbeard_env
from agents import make_agent
from agents.oh_hell.decode import decode_batch
from agents.oh_hell.pimc import hidden_hands, trick_seats
from redbeard_env.oh_hell import VectorEnv, action_id, parse_card
from redbeard_eval import run_tournament


def test_decode_reads_the_deal():
    env = redbeard_env.make("oh_hell", num_players=4, num_tricks=3, num_suits=3, num_cards_per_suit=9,
                            points_per_trick=2, off_bid_penalty=True)
    env.reset(seed=0, options={"dealer": 2, "hands": [["TS", "2C", "3C"], ["4C", "5C", "6C"], ["7C", "8C", "9C"],
                                                       ["2D", "3D", "4D"]], "trump_card": "TD"})
    obs = env.observe("player_3")
    v = decode_batch(obs["observation"][None])
    assert v.num_players[0] == 4 and v.num_suits[0] == 3 and v.num_cards_per_suit[0] == 9
    assert v.points_per_trick[0] == 2 and v.off_bid_penalty[0] and not v.drawn[0] and v.hand_size[0] == 3
    assert v.trumps[0] == 1 and v.trump_card[0].nonzero()[0].tolist() == [parse_card("TD")]
    assert v.hand[0].nonzero()[0].tolist() == sorted(parse_card(c) for c in ("2D", "3D", "4D"))
    assert v.in_play[0].sum() == 27 and v.dealer[0] == 3  # player_2 deals: 3 places left of player_3


def test_heuristic_ruffs_when_it_wants_a_trick_and_ducks_when_it_does_not():
    hands = [["AC", "3S"], ["KC", "4S"], ["2H", "2S"]]  # player_2 is void in clubs and holds a trump
    for bid, expected in ((1, "play:2H"), (0, "play:2S")):
        env = redbeard_env.make("oh_hell", num_players=3, num_tricks=2)
        env.reset(seed=0, options={"dealer": 2, "hands": hands, "trump_card": "9H"})
        for name in ("bid:0", "bid:0", f"bid:{bid}", "play:AC", "play:KC"):
            env.step(action_id(name))
        obs = env.observe("player_2")
        bot = make_agent("heuristic", game="oh_hell")
        assert redbeard_env.oh_hell.action_name(int(bot.act_batch(obs["observation"][None],
                                                                   obs["action_mask"][None])[0])) == expected


def test_pimc_samples_worlds_consistent_with_the_observation():
    venv = VectorEnv(64, 5, num_tricks=6, seed=3)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(3)
    for _ in range(5 + 5 * 3):  # the bids and three tricks (some in the middle of a trick)
        obs, mask, seat, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    v = decode_batch(obs)
    rows = np.arange(64)
    hands = hidden_hands(v, rows, 4, rng)
    known = v.hand | v.played | v.trick | v.trump_card
    assert not (hands & known[:, None, None, :]).any() and (hands.sum(2) <= 1).all()  # a card in one hand
    assert (hands & ~v.in_play[:, None, None, :]).sum() == 0
    for r in rows:
        seats = trick_seats(v, r)
        assert sorted(seats.values()) == np.flatnonzero(v.trick[r]).tolist()


def test_the_bots_rank_in_duplicate_tournaments():
    res = run_tournament(["heuristic", "random"], game="oh_hell", players=4, games=400, seed=0, progress=False)
    assert res["agents"]["heuristic"]["win_rate"] > 0.3 > res["agents"]["random"]["win_rate"]
    assert res["agents"]["heuristic"]["mean_points"] > res["agents"]["random"]["mean_points"]
    res = run_tournament(["pimc:samples=8", "heuristic"], game="oh_hell", players=4, games=40, seed=1, progress=False)
    assert res["agents"]["pimc:samples=8"]["mean_points"] > res["agents"]["heuristic"]["mean_points"]


def test_a_policy_trained_by_the_shared_trainer_plays_oh_hell(tmp_path):
    torch = pytest.importorskip("torch")  # noqa: F841
    import redbeard_train as train
    from agents.ppo import PPOAgent, load_checkpoint

    cfg = dataclasses.replace(train.load_config("smoke"), game="oh_hell", rules="oh_hell",
                              overrides={"num_tricks": 2}, prior="heuristic", opponents=["heuristic", "random"],
                              players=[4], run_dir=str(tmp_path), eval_every=0, eval_games=4, total_steps=64 * 16 * 2)
    out = train.train(cfg, quiet=True)
    path = Path(out["run_dir"]) / "policy.pt"
    net, payload = load_checkpoint(str(path))
    assert payload["game"] == net.game == "oh_hell" and payload["features"] == "observation+prior70"
    assert PPOAgent(str(path)).game == "oh_hell"
    res = run_tournament([f"ppo:{path}", "random"], game="oh_hell", players=4, games=8, seed=0, progress=False)
    assert res["agents"][f"ppo:{path}"]["games"] == 8


@pytest.mark.parametrize("spec", ["openspiel:ismcts,simulations=20", "openspiel:mcts,simulations=10,worlds=2"])
def test_openspiels_searches_play_in_duplicate_tournaments(spec):
    """OpenSpiel's IS-MCTS and MCTS (agents/oh_hell/openspiel_bots.py) over pyspiel states rebuilt
    from the observation: legal moves on every deal of a duplicate tournament, better than random.
    (That a rebuilt state has OpenSpiel's information state is checked move for move in
    tests/test_oh_hell_openspiel.py.)"""
    pytest.importorskip("pyspiel")
    res = run_tournament([spec, "random"], game="oh_hell", players=3, games=12, seed=2, progress=False,
                         overrides={"num_tricks": 4})
    assert res["agents"][spec]["games"] == 12
    assert res["agents"][spec]["mean_points"] > res["agents"]["random"]["mean_points"]
    with pytest.raises(ValueError, match="algorithm must be one of ismcts, mcts"):
        make_agent("openspiel:alphazero", game="oh_hell")
    with pytest.raises(ValueError, match="evaluator must be one of random"):
        make_agent("openspiel:ismcts,evaluator=nn", game="oh_hell")


def test_a_seeded_openspiel_search_plays_the_same_moves_again():
    """IS-MCTS resamples hidden cards through OpenSpiel's sampler; seeded, the bot must not
    depend on anything else (the whole test suite used to change its moves)."""
    pytest.importorskip("pyspiel")
    import random

    runs = []
    for salt in (1, 2):
        random.seed(salt)
        np.random.seed(salt)
        res = run_tournament(["openspiel:ismcts,simulations=10", "random"], game="oh_hell", players=3, games=6, seed=4,
                             progress=False, overrides={"num_tricks": 3})
        runs.append(res["agents"]["openspiel:ismcts,simulations=10"])
    assert runs[0]["mean_points"] == runs[1]["mean_points"] and runs[0]["wins"] == runs[1]["wins"]
