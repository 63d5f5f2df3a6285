"""Sortskæg tournaments (``evaluate.py --game sortskaeg``): both engines play the same
games, the metrics on hand-built records, outputs, and refused mixes of games."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from redbeard_eval import cli, deals, run_tournament
from redbeard_eval.metrics import summarise
from redbeard_env.sortskaeg.metrics import Records as SortskaegRecords
from redbeard_env.engine import Job, make_engine
from redbeard_env.registry import game_named
from redbeard_env.sortskaeg.rules import make_rules

BOTS = ["sortskaeg_heuristic", "sortskaeg_random"]


def test_deal_sequences_of_42_cards():
    dealer, decks = deals.deal_sequence(3, 1, 4, 13, deck_size=42, parts=1)
    assert decks.shape == (13, 42) and all(sorted(d) == list(range(42)) for d in decks)
    assert np.array_equal(decks, deals.deal_sequence(3, 1, 4, 13, deck_size=42, parts=1)[1])
    info = game_named("sortskaeg")
    assert (info.deck_size, info.deck_parts, info.num_actions, info.obs_size) == (42, 1, 50, 671)
    assert info.decks_per_game(make_rules()) == 13


def test_engines_agree_and_rotations_replay_the_same_cards():
    kw = dict(players=4, games=16, seed=3, progress=False, game="sortskaeg")
    a = run_tournament(BOTS, engine="reference", **kw)
    b = run_tournament(BOTS, engine="vector", **kw)
    for spec in a["agents"]:
        for key in ("games", "wins", "win_rate", "calibration", "exact_by_hand_size", "mean_final_score"):
            assert a["agents"][spec][key] == b["agents"][spec][key], (spec, key)
    # every seating of a deal starts from the same cards per seat
    rules = make_rules("sortskaeg", deal="carry")
    dealer, decks = deals.deal_sequence(0, 5, 3, 13, 42, 1)
    engine = make_engine("vector", rules, 3, 0, game=game_named("sortskaeg"))
    engine.start([Job(r, 5, r, (0, 1, 2), dealer, decks) for r in range(3)])
    obs, mask, seat = engine.observe()
    assert all(np.array_equal(obs[0], o) for o in obs)


def test_metrics_on_hand_built_records():
    rec = SortskaegRecords(3, ["a", "b"])
    # agent a bid three rounds: 2 took 2 (hand 3), 0 took 1 (hand 1), 3 took 3 (hand 7)
    for bid, tricks, size in ((2, 2, 3), (0, 1, 1), (3, 3, 7)):
        rec.calib["a"][bid, tricks] += 1
        rec.by_size["a"][size] += (1, bid == tricks)
    rec.calib["b"][1, 3] += 1  # b: bid 1 took 3 in a hand of 5
    rec.by_size["b"][5] += (1, 0)
    # one deal: a won alone in game 0; a and b tied on top in game 1
    for game, shares in ((0, (1.0, 0.0, 0.0)), (1, (0.5, 0.5, 0.0))):
        for seat, agent in enumerate(["a", "b", "b"]):
            rec.seat_rows.append(dict(game=game, deal=0, rotation=game, seat=seat, agent=agent, won=shares[seat],
                                      final_score=20 - 5 * seat, rounds=13, truncated=0))
    res = summarise(rec, seed=0, mode="game")
    a, b = res["a"], res["b"]
    assert a["exact_rate"] == pytest.approx(2 / 3)
    assert a["exact_by_hand_size"]["3"] == 1.0 and a["exact_by_hand_size"]["1"] == 0.0
    assert a["exact_by_hand_size"]["2"] is None and a["rounds_by_hand_size"]["7"] == 1
    assert a["bid_error"] == pytest.approx(1 / 3) and a["bid_bias"] == pytest.approx(1 / 3)  # (0 + 1 + 0) / 3
    assert a["mean_bid"] == pytest.approx(5 / 3)
    assert b["bid_bias"] == pytest.approx(2.0) and b["exact_rate"] == 0.0
    # a: 1 + 0.5 wins in 2 games; b: 0.5 in 4 seat-games
    assert a["win_rate"] == pytest.approx(0.75) and a["wins"] == 1.5
    assert b["win_rate"] == pytest.approx(0.125)
    assert a["mean_final_score"] == 20 and a["mean_round_points"] == pytest.approx(20 / 13)
    assert a["parity"] == pytest.approx(1 / 3)


def test_cli_writes_outputs_and_shared_wins_sum_to_one(tmp_path, capsys):
    out = tmp_path / "eval"
    cli.main(["--game", "sortskaeg", "--agents", *BOTS, "--players", "3", "--games", "12", "--seed", "1", "--quiet",
              "--out", str(out), "--set", "hand_sizes=(3,2,1)", "deal='carry'"])
    stdout = capsys.readouterr().out
    assert "exact bids by hand size" in stdout and "exact_by_hand_size.png" in stdout
    res = json.loads((out / "results.json").read_text())
    assert res["config"]["game"] == "sortskaeg" and res["config"]["rules_fields"]["deal"] == "carry"
    for key in ("win_rate", "win_rate_ci", "exact_rate", "exact_by_hand_size", "bid_error", "bid_bias", "calibration"):
        assert key in res["agents"]["sortskaeg_heuristic"], key
    rows = list(csv.DictReader(open(out / "games.csv")))
    assert len(rows) == res["config"]["games"] * 3
    by_game: dict = {}
    for r in rows:
        by_game[r["game"]] = by_game.get(r["game"], 0.0) + float(r["won"])
        assert int(r["bids"]) == 3 and 0 <= int(r["exact"]) <= 3
    assert all(v == pytest.approx(1.0) for v in by_game.values())  # shared wins split the one win
    for png in ("win_rates.png", "calibration.png", "exact_by_hand_size.png"):
        assert (out / png).stat().st_size > 1000


def test_games_and_bots_must_match():
    with pytest.raises(ValueError, match="plays redbeard, this table plays sortskaeg"):
        run_tournament(["ppo:classic_4p"], game="sortskaeg", players=3, games=3, progress=False)
    with pytest.raises(ValueError, match="'joins' is a bot of redbeard, not of sortskaeg"):
        run_tournament(["joins:always"], game="sortskaeg", players=3, games=3, progress=False)
    with pytest.raises(ValueError, match="plays sortskaeg, this table plays redbeard"):
        run_tournament(["sortskaeg_random"], players=3, games=3, progress=False)
    with pytest.raises(ValueError, match="'classic' is not a sortskaeg preset"):
        run_tournament(BOTS, rules="classic", game="sortskaeg", players=3, games=3, progress=False)
    with pytest.raises(ValueError, match=r"num_players must be an int in 2\.\.6"):
        run_tournament(BOTS, game="sortskaeg", players=7, games=3, progress=False)
    with pytest.raises(ValueError, match="game must be one of"):
        run_tournament(BOTS, game="chess", players=3, games=3, progress=False)
    res = run_tournament(["sortskaeg_random"], rules="sortskaeg", players=2, games=2, progress=False)
    assert res["config"]["game"] == "sortskaeg"  # the preset names the game


def test_cli_refuses_a_mix_with_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--game", "sortskaeg", "--rules", "classic", "--agents", "sortskaeg_random", "--quiet"])
    assert exc.value.code == 2
    assert "not a sortskaeg preset" in capsys.readouterr().err


@pytest.mark.slow
def test_heuristic_beats_random_by_twice_parity():
    res = run_tournament(["sortskaeg_heuristic", "sortskaeg_random"], game="sortskaeg", players=4, games=2000,
                         seed=11, progress=False)
    lo, _ = res["agents"]["sortskaeg_heuristic"]["win_rate_ci"]
    assert lo > 2 * 0.25


@pytest.mark.slow
def test_the_shipped_policy_beats_three_heuristics_by_one_and_a_half_parity():
    res = run_tournament(["ppo:sortskaeg_4p", "sortskaeg_heuristic"], game="sortskaeg", players=4, games=2000,
                         seed=11, progress=False)
    lo, _ = res["agents"]["ppo:sortskaeg_4p"]["win_rate_ci"]
    assert lo > 1.5 * 0.25


def test_round_mode_plays_single_rounds_from_given_scores(tmp_path):
    """--mode round: every job is the first round of a game (the hand size of --set
    hand_sizes), from the given totals; the bid metrics count one bid per seat and job."""
    res = run_tournament(["heuristic", "random"], game="sortskaeg", players=3, games=60, seed=2, mode="round",
                         scores=[10, 0, 0], overrides={"hand_sizes": (5,)}, progress=False, out=tmp_path)
    heur, rnd = res["agents"]["heuristic"], res["agents"]["random"]
    assert res["config"]["mode"] == "round" and res["config"]["games"] == 60
    assert heur["games"] == 60 and rnd["games"] == 120  # random sits in two seats of each seating
    assert heur["rounds_bid"] == 60 and heur["rounds_by_hand_size"]["5"] == 60 and heur["rounds_by_hand_size"]["7"] == 0
    with open(tmp_path / "rounds.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 180 and all(r["rounds"] == "1" and r["start_score"] in ("10", "0") for r in rows)
    # the seat that started on 10 keeps a lead no 5-card round can close (at most 13 points a
    # round, at least -10): its share of the "win" is one per job unless someone ties it
    lead = [float(r["won"]) for r in rows if r["start_score"] == "10"]
    assert len(lead) == 60 and sum(lead) > 40
    by_job: dict = {}
    for r in rows:
        by_job[r["game"]] = by_job.get(r["game"], 0) + float(r["won"])
    assert all(v == pytest.approx(1.0) for v in by_job.values())


def test_tournament_records_replay_exactly(tmp_path):
    from redbeard_env import records

    path = tmp_path / "games.jsonl"
    res = run_tournament(["heuristic", "random"], game="sortskaeg", players=3, games=6, seed=4,
                         overrides={"hand_sizes": (3, 2, 1, 2)}, record_path=path, progress=False)
    assert res["config"]["engine"] == "reference"
    games = records.load_records(path)  # each replayed on the reference engine
    assert len(games) == 6 and all(g["game"] == "sortskaeg" and g["rounds_played"] == 4 for g in games)
    assert [g["meta"]["game"] for g in games] == list(range(6))
    assert all(records.replay(g).scores == g["scores"] for g in games)
    games[0]["actions"][0][1] = "bid:3" if games[0]["actions"][0][1] != "bid:3" else "bid:2"
    with pytest.raises(ValueError, match="bad record"):
        records.validate(games[0])
