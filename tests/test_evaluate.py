"""redbeard_eval (evaluate.py): duplicate seating, metrics on hand-built records, engines agree, smoke runs."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from redbeard_eval import cli, deals, metrics
from redbeard_eval import run_tournament
from redbeard_eval.tournament import play_tournament
from redbeard_env.engine import BatchEngine, Job, make_engine
from redbeard_env.registry import game_named
from redbeard_env.redbeard.engine import ReferenceBatch, VectorBatch
from redbeard_env.redbeard.metrics import Records
from redbeard_env.redbeard.rules import make_rules

REDBEARD = game_named("redbeard")

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- duplicate deals
def test_rotations_and_pooling():
    unique, lineup = deals.pooled_lineup(["heuristic", "random", "random", "random"])
    assert unique == ["heuristic", "random"] and lineup == (0, 1, 1, 1)
    rots = deals.distinct_rotations(lineup)
    assert len(rots) == 4 and sorted(r.index(0) for r in rots) == [0, 1, 2, 3]  # every seat once
    assert deals.distinct_rotations((0, 0, 0)) == [(0, 0, 0)]  # self-play: one seating
    assert len(deals.distinct_rotations((0, 1, 0, 1))) == 2


def test_deal_sequences_are_deterministic_and_distinct():
    d1, k1 = deals.deal_sequence(5, 3, 4, 6, 52, 2)
    d2, k2 = deals.deal_sequence(5, 3, 4, 6, 52, 2)
    _, k3 = deals.deal_sequence(5, 4, 4, 6, 52, 2)
    assert d1 == d2 and np.array_equal(k1, k2) and not np.array_equal(k1, k3)
    assert k1.shape == (6, 104)
    assert all(sorted(row[:52]) == list(range(52)) and sorted(row[52:]) == list(range(52)) for row in k1)


@pytest.mark.parametrize("engine", ["reference", "vector"])
def test_rotations_replay_identical_deals(engine):
    """Every rotation of a deal starts from the same dealer and the same cards per seat,
    and identical deterministic bots then play the very same game in every rotation."""
    rules = make_rules("classic")
    jobs = []
    for rot in range(4):
        dealer, decks = deals.deal_sequence(0, 7, 4, 16, 52, 2)
        jobs.append(Job(rot, 7, rot, ((0, 1, 1, 1)[rot:] + (0, 1, 1, 1)[:rot]), dealer, decks))
    backend = ReferenceBatch(rules, 4, 0) if engine == "reference" else VectorBatch(rules, 4, 0)
    backend.start(jobs)
    obs, mask, seat = backend.observe()
    assert len(set(seat.tolist())) == 1
    assert all(np.array_equal(obs[0], o) for o in obs)  # same acting seat, same view
    from agents import make_agent

    bot = make_agent("heuristic")
    finals = None
    while backend.live.any():
        obs, mask, seat = backend.observe()
        acts = np.zeros(4, np.int64)
        live = np.flatnonzero(backend.live)
        acts[live] = bot.act_batch(obs[live], mask[live])
        ev = backend.step(acts)
        if ev["done"].any():
            assert ev["done"].all()  # the four replays end together ...
            finals = ev["final_score"]
    assert all(np.array_equal(finals[0], f) for f in finals)  # ... with the same scores


def test_make_engine_builds_both_engines_and_refuses_others():
    rules = make_rules("classic")
    for name, cls in (("vector", VectorBatch), ("reference", ReferenceBatch)):
        engine = make_engine(name, rules, 4, 0, game=REDBEARD)
        assert isinstance(engine, cls) and isinstance(engine, BatchEngine) and engine.name == name
    with pytest.raises(ValueError, match="engine must be one of 'vector', 'reference', got 'fast'"):
        make_engine("fast", rules, 4, 0, game=REDBEARD)


def test_release_stops_a_slot_and_its_seat_reads_minus_one():
    """Round mode releases a slot after its round: it must stop being live and observed."""
    rules = make_rules("classic")
    jobs = [Job(i, i, 0, (0, 0, 0), *deals.deal_sequence(0, i, 3, 4, 52, 2)) for i in range(3)]
    for engine in (make_engine("vector", rules, 3, 0, game=REDBEARD), make_engine("reference", rules, 3, 0, game=REDBEARD)):
        engine.start(jobs)
        engine.release(np.array([1]))
        assert engine.live.tolist() == [True, False, True]
        _, mask, seat = engine.observe()
        assert seat[1] == -1 and seat[0] >= 0 and seat[2] >= 0, engine.name


def test_tournament_seats_every_agent_everywhere():
    res = run_tournament(["heuristic", "random"], players=3, games=6, seed=1, progress=False, engine="reference")
    assert res["config"]["deals"] == 2 and res["config"]["games"] == 6
    assert res["agents"]["heuristic"]["games"] == 6 and res["agents"]["random"]["games"] == 12


def test_engines_agree():
    kw = dict(players=4, games=8, seed=3, progress=False)
    a = run_tournament(["heuristic", "random"], engine="reference", **kw)
    b = run_tournament(["heuristic", "random"], engine="vector", **kw)
    for spec in a["agents"]:
        for key in ("games", "wins", "contracts", "calibration", "join_decisions", "mean_rounds", "final_distance"):
            assert a["agents"][spec][key] == b["agents"][spec][key], (spec, key)


# ---------------------------------------------------------------- metrics
def _records(contract="exact"):
    rec = Records(4, ["a", "b"], make_rules("classic", contract=contract))
    # agent a declared three times: bid 2 took 2 (made), bid 3 took 1, Rödskägg took 6
    for level, tricks in ((2, 2), (3, 1), (7, 6)):
        rec.calib["a"][level, tricks] += 1
        rec.made["a"][level] += rec.contract_made(level, tricks)
    # agent b declared once: bid 1 took 4 (made only under at_least)
    rec.calib["b"][1, 4] += 1
    rec.made["b"][1] += rec.contract_made(1, 4)
    rec.joins["a"] += [4, 2, 1]  # 4 decisions, 2 joins, 1 of them took a trick
    # two deals x 1 game: a won deal 0; b won deal 1
    for deal, winner in ((0, "a"), (1, "b")):
        for seat, agent in enumerate(["a", "b", "b", "b"]):
            rec.seat_rows.append(dict(game=deal, deal=deal, rotation=0, seat=seat, agent=agent,
                                      won=int(agent == winner and (agent == "a" or seat == 1)),
                                      final_score=0 if agent == winner else 3 + seat, rounds=10 + deal, truncated=0))
    return rec


def test_metrics_on_hand_built_records():
    res = metrics.summarise(_records("exact"), seed=0, mode="game")
    a, b = res["a"], res["b"]
    assert a["contracts"] == 3 and a["contract_rate"] == pytest.approx(2 / 3)
    assert a["bid_error"] == pytest.approx((0 + 2 + 0) / 3)  # Rödskägg counts as 6
    assert a["bid_bias"] == pytest.approx((0 - 2 + 0) / 3)
    assert a["join_rate"] == pytest.approx(0.5) and a["join_success"] == pytest.approx(0.5)
    assert a["games"] == 2 and a["win_rate"] == pytest.approx(0.5)
    assert b["games"] == 6 and b["win_rate"] == pytest.approx(1 / 6)
    assert b["contract_rate"] == 0.0 and b["bid_bias"] == pytest.approx(3.0)
    assert b["join_rate"] is None and b["join_success"] is None
    assert a["mean_rounds"] == pytest.approx(10.5) and a["parity"] == 0.25
    assert a["final_distance"] == pytest.approx((0 + 3) / 2)
    lo, hi = a["win_rate_ci"]
    assert 0.0 <= lo <= a["win_rate"] <= hi <= 1.0
    assert a["contracts_by_bid"]["R"] == 1 and a["made_by_bid"]["3"] == 0
    assert a["rating"]["mu"] > 0 and a["rating"]["sigma"] > 0
    res2 = metrics.summarise(_records("at_least"), seed=0, mode="game")
    assert res2["b"]["contract_rate"] == 1.0  # 4 tricks on a bid of 1 is enough under at_least


def test_bootstrap_ci_width_shrinks_with_deals():
    rng = np.random.default_rng(0)
    wins = rng.integers(0, 2, size=2000).astype(float)
    games = np.ones(2000)
    lo, hi = metrics.bootstrap_ci(wins, games, np.random.default_rng(1))
    assert lo < wins.mean() < hi and hi - lo < 0.06
    lo2, hi2 = metrics.bootstrap_ci(wins[:100], games[:100], np.random.default_rng(1))
    assert hi2 - lo2 > hi - lo


# ---------------------------------------------------------------- smoke runs
def test_cli_writes_all_outputs(tmp_path, capsys):
    out = tmp_path / "eval"
    cli.main(["--agents", "heuristic", "random", "--players", "3", "--games", "6", "--seed", "2", "--quiet",
              "--out", str(out)])
    stdout = capsys.readouterr().out
    assert "heuristic" in stdout and "win" in stdout
    res = json.loads((out / "results.json").read_text())
    for key in ("games", "win_rate", "win_rate_ci", "parity", "rating", "contract_rate", "bid_error",
                "bid_bias", "join_rate", "join_success", "mean_rounds"):
        assert key in res["agents"]["heuristic"], key
    rows = list(csv.DictReader(open(out / "games.csv")))
    assert len(rows) == res["config"]["games"] * 3
    for png in ("win_rates.png", "calibration.png", "contract_by_bid.png"):
        assert (out / png).stat().st_size > 1000


def test_the_script_runs_the_cli():
    """``python evaluate.py`` (the layout users know) is the package's command line."""
    proc = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "--agents" in proc.stdout and "--batch-size" in proc.stdout


def test_round_mode_smoke(tmp_path):
    res = run_tournament(["heuristic"], players=4, games=40, seed=0, mode="round", scores="sample",
                           score_range=(1, 6), out=tmp_path, plots=False, progress=False)
    h = res["agents"]["heuristic"]
    assert h["games"] == 160 and h["contracts"] >= 30  # one declarer per round (all-pass cannot happen in classic)
    assert res["timing"]["rounds_per_second"] > 0
    rows = list(csv.DictReader(open(tmp_path / "rounds.csv")))
    assert len(rows) == 160 and all(1 <= int(r["start_score"]) <= 6 for r in rows)


def test_bad_arguments_are_clear():
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament(["nosuch"], players=3, games=3, progress=False)
    with pytest.raises(ValueError, match="5 agents for 4 players"):
        run_tournament(["random"] * 5, players=4, games=3, progress=False)
    with pytest.raises(ValueError, match="mode"):
        run_tournament(["random"], players=3, games=3, mode="tricks", progress=False)


# ---------------------------------------------------------------- command line
def test_documented_flags_parse_into_the_config():
    cfg = cli.parse_args(["--agents", "heuristic", "random", "--players", "5", "--set", "leader=trick_winner",
                          "eliminate_at=40", "--mode", "round", "--scores", "3", "5", "7", "1", "2",
                          "--batch-size", "64", "--no-plots", "--quiet"])
    assert cfg.agents == ("heuristic", "random") and cfg.players == 5 and cfg.mode == "round"
    assert cfg.set == ("leader=trick_winner", "eliminate_at=40") and cfg.scores == (3, 5, 7, 1, 2)
    assert cfg.batch_size == 64 and cfg.plots is False and cfg.quiet is True
    cfg = cli.parse_args(["--agents", "heuristic", "--scores", "sample", "--score-range", "1", "6"])
    assert cfg.scores == "sample" and cfg.score_range == (1, 6)
    assert (cfg.games, cfg.seed, cfg.rules, cfg.engine, cfg.batch_size, cfg.plots) == (2000, 0, None, "auto", None, True)  # None: the game's default preset


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.parse_args(["--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # the help wraps lines
    for flag, words in [("--games", "at least 1"), ("--batch-size", "Games played at once"),
                        ("--score-range", "drawn uniformly"), ("--no-plots", "calibration.png"),
                        ("--set", "Python literals"), ("--engine", "act_batch")]:
        assert flag in text and words in text, flag
    assert "(default: 2000)" in text  # --games' default


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--games", "0"], ["games", "0", ">= 1"]),
        (["--games", "-5"], ["games", "-5", ">= 1"]),
        (["--batch-size", "0"], ["batch_size", "0", "1..65536"]),
        (["--seed", "-1"], ["seed", "-1", ">= 0"]),
        (["--players", "9"], ["num_players", "9", "3..7"]),
        (["--mode", "round", "--scores", "sample", "--score-range", "6", "1"], ["score_range", "(6, 1)", "lo <= hi"]),
        (["--mode", "round", "--scores", "3", "5"], ["scores", "one int per seat (3)", "(3, 5)"]),
        (["--scores", "3", "5", "7"], ["scores", "mode='round'"]),
        (["--set", "leader"], ["field=value", "'leader'"]),
        (["--set", "leader=nobody"], ["leader", "nobody"]),
        (["--agents", "random", "random", "random", "random"], ["4 agents for 3 players"]),
    ],
)
def test_out_of_range_options_exit_2_with_one_line(argv, words, capsys, tmp_path):
    """A bad value: exit status 2 and one line on stderr naming the option, the value and what
    is allowed; no traceback, nothing played or written."""
    base = ["--players", "3", "--quiet", "--out", str(tmp_path / "out")]
    if "--agents" not in argv:
        base += ["--agents", "random"]
    with pytest.raises(SystemExit) as exc:
        cli.main(base + argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evaluate: error: "), captured.err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert "Traceback" not in captured.err and captured.out == ""
    assert not (tmp_path / "out").exists()


def test_bad_counts_are_refused_by_the_api_too():
    for kw, word in [(dict(games=0), "games"), (dict(batch_size=0), "batch_size"), (dict(games=2.5), "games"),
                     (dict(batch_size=10**7), r"batch_size must be an int in 1\.\.65536 or None"),
                     (dict(decks_per_game=0), "decks_per_game"), (dict(engine="fast"), "engine")]:
        with pytest.raises(ValueError, match=word):
            run_tournament(["random"], players=3, progress=False, **kw)


# ---------------------------------------------------------------------- backends
BACKEND_RUN = dict(agent_specs=["heuristic", "random", "random:seed=4", "random"], rules="classic", players=4,
                   games=96, seed=5, batch_size=16)


def _comparable(results: dict) -> dict:
    return {"config": results["config"], "agents": results["agents"]}


def test_results_do_not_depend_on_the_number_of_local_workers(tmp_path):
    from redbeard_eval.tournament import prepare_tournament

    tr = prepare_tournament(**BACKEND_RUN)
    assert tr.num_shards == 6  # 24 deals x 4 seatings, 4 deals per shard
    one = play_tournament(tr, progress=False, out=tmp_path / "one", plots=False)
    two = play_tournament(prepare_tournament(**BACKEND_RUN), progress=False, workers=2, out=tmp_path / "two", plots=False)
    assert _comparable(one) == _comparable(two)
    assert (tmp_path / "one" / "games.csv").read_text() == (tmp_path / "two" / "games.csv").read_text()
    assert two["timing"]["workers"] == 2
    again = play_tournament(prepare_tournament(**{**BACKEND_RUN, "seed": 6}), progress=False)
    assert _comparable(again)["agents"] != _comparable(one)["agents"]  # the seed matters


def test_ray_gives_the_same_results_as_local(tmp_path, ray_session):
    from redbeard_eval.tournament import prepare_tournament

    local = play_tournament(prepare_tournament(**BACKEND_RUN), progress=False, out=tmp_path / "local", plots=False)
    remote = play_tournament(prepare_tournament(**BACKEND_RUN), progress=False, backend="ray", workers=2,
                             out=tmp_path / "ray", plots=False)
    assert _comparable(local) == _comparable(remote)
    assert (tmp_path / "local" / "games.csv").read_text() == (tmp_path / "ray" / "games.csv").read_text()


class ProgressRecorder:
    """Stands in for tqdm: keeps every ``update`` of the bar."""

    made: list = []

    def __init__(self, total=None, **kwargs):
        self.total, self.updates = total, []
        ProgressRecorder.made.append(self)

    def update(self, n=1):
        self.updates.append(int(n))

    def close(self):
        pass


@pytest.mark.parametrize("backend", ["local", pytest.param("ray", marks=pytest.mark.slow)])
def test_progress_with_workers_advances_as_games_finish(monkeypatch, request, backend):
    """With workers the bar moves as the shards finish games, not once per finished shard
    (a one-shard tournament sat at 0 % until its end)."""
    import tqdm

    from redbeard_eval.tournament import prepare_tournament

    if backend == "ray":
        request.getfixturevalue("ray_session")
    monkeypatch.setattr(tqdm, "tqdm", ProgressRecorder)
    ProgressRecorder.made = []
    tr = prepare_tournament(**{**BACKEND_RUN, "batch_size": 96})
    assert tr.num_shards == 1
    play_tournament(tr, progress=True, workers=2, backend=backend)
    (bar,) = ProgressRecorder.made
    assert sum(bar.updates) == bar.total == tr.num_jobs == 96
    assert len(bar.updates) > 10 and all(n > 0 for n in bar.updates)  # games finish over many steps


def test_more_workers_need_spec_strings():
    from agents.random_agent import RandomAgent
    from redbeard_eval.tournament import prepare_tournament

    tr = prepare_tournament([RandomAgent(seed=1), "heuristic"], players=4, games=8)
    with pytest.raises(ValueError, match="spec strings"):
        play_tournament(tr, progress=False, workers=2)
    with pytest.raises(ValueError, match="backend must be one of"):
        play_tournament(tr, progress=False, backend="dask")


def test_record_writes_every_game_and_each_replays_exactly(tmp_path):
    from redbeard_env.redbeard import records

    path = tmp_path / "games.jsonl"
    cli.main(["--agents", "heuristic", "random", "--players", "4", "--games", "12", "--seed", "2",
              "--record", str(path), "--out", str(tmp_path / "out"), "--no-plots", "--quiet", "--workers", "2"])
    games = records.load_records(path)  # checked: each replays to its recorded result
    with open(tmp_path / "out" / "games.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(games) == len({r["game"] for r in rows}) == 12
    for g in games:
        final = [int(r["final_score"]) for r in sorted((r for r in rows if int(r["game"]) == g["meta"]["game"]), key=lambda r: int(r["seat"]))]
        assert g["scores"] == final and records.replay(g).scores == final
        assert sorted(set(g["agents"])) == ["heuristic", "random"]
    with pytest.raises(SystemExit):
        cli.main(["--agents", "heuristic", "--games", "4", "--record", str(path), "--engine", "vector"])


def _bad_output_paths(tmp_path: Path) -> list[tuple[list[str], str]]:
    existing = tmp_path / "existing.txt"
    existing.write_text("mine\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "clash" / "results.json").mkdir(parents=True)
    cases = [
        (["--out", str(existing)], r"--out .*existing.txt is an existing file; it must name a folder"),
        (["--out", str(existing / "sub")], r"--out .*: .*existing.txt is a file, not a folder"),
        (["--out", str(tmp_path / "clash")], r"--out .*clash holds a folder named results.json"),
        (["--record", str(tmp_path / "folder")], r"--record .*folder is a folder; it must name a file"),
        (["--record", str(tmp_path / "missing" / "games.jsonl")], r"--record .*: the folder .*missing does not exist"),
    ]
    if Path("/proc/self").is_dir():  # a place no one may create files in, even root
        cases.append((["--out", "/proc/redbeard_eval_out"], r"--out /proc/redbeard_eval_out: cannot write in /proc"))
    return cases


def test_output_paths_are_checked_before_any_game_is_played(tmp_path, capsys, monkeypatch):
    """--out naming a file or an unwritable place and --record naming a folder used to play
    the whole tournament and then lose it in a traceback."""
    from redbeard_eval import tournament

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the output paths were checked")

    monkeypatch.setattr(tournament, "_run_shards", no_games)
    monkeypatch.setattr("redbeard_eval.sprt.play_shard", no_games)
    for flags, message in _bad_output_paths(tmp_path):
        for sprt in ([], ["--sprt", "0.25", "0.3"]):
            if sprt and "--record" in flags:
                continue  # --sprt takes no --record (its own one-line error)
            with pytest.raises(SystemExit) as exit_:
                cli.main(["--agents", "heuristic", "random", "--players", "4", "--games", "8", "--quiet", *flags, *sprt])
            assert exit_.value.code == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and err.startswith("evaluate: error: "), err
            assert re.search(message, err), (err, message)
    assert (tmp_path / "existing.txt").read_text() == "mine\n"  # untouched
    tr = tournament.prepare_tournament(["random"], players=3, games=3)
    with pytest.raises(ValueError, match="is an existing file"):
        play_tournament(tr, out=tmp_path / "existing.txt", progress=False)
    with pytest.raises(ValueError, match="is a folder"):
        play_tournament(tournament.prepare_tournament(["random"], players=3, games=3, record=True),
                        record=tmp_path / "folder", progress=False)


def test_contracts_are_counted_by_the_declarers_score_when_it_bid():
    # round mode from fixed scores: every declarer bid on its start score
    res = run_tournament(["heuristic"], players=4, games=40, seed=0, mode="round", scores=[5, 3, 5, 3],
                         plots=False, progress=False)
    h = res["agents"]["heuristic"]
    assert set(h["contracts_by_score"]) == {"3", "5"}
    assert sum(c for c, _ in h["contracts_by_score"].values()) == h["contracts"] > 0
    assert sum(m for _, m in h["contracts_by_score"].values()) == sum(h["made_by_bid"].values())
    # whole games: every score met on the way, the same totals
    res = run_tournament(["heuristic", "random"], players=4, games=24, seed=1, plots=False, progress=False)
    for a in res["agents"].values():
        assert sum(c for c, _ in a["contracts_by_score"].values()) == a["contracts"]
        assert sum(m for _, m in a["contracts_by_score"].values()) == sum(a["made_by_bid"].values())
    assert len(res["agents"]["heuristic"]["contracts_by_score"]) > 3


def test_join_decisions_are_counted_by_the_score_they_were_taken_at():
    res = run_tournament(["heuristic", "random"], players=4, games=400, seed=2, mode="round", scores="sample",
                         score_range=(1, 8), plots=False, progress=False)
    for a in res["agents"].values():
        rows = a["joins_by_score"].values()
        assert sum(r["decisions"] for r in rows) == a["join_decisions"] > 0
        joins = sum(r["joins"] for r in rows)
        assert joins == round(a["join_rate"] * a["join_decisions"])
        if joins:
            assert sum(r["took_a_trick"] for r in rows) == round(a["join_success"] * joins)
        assert set(a["joins_by_score"]) <= {str(k) for k in range(1, 9)}  # rounds start on 1..8, the question comes mid-round
    # classic: a folded hand is out of the round, its score stays; a join that takes no
    # trick pays joiner_fail_penalty (+5), so joining costs on average here
    random = res["agents"]["random"]["joins_by_score"]
    assert all(r["change_folded"] == 0 for r in random.values() if r["change_folded"] is not None)
    assert any(r["change_joined"] is not None and r["change_joined"] > 0 for r in random.values())


def test_the_research_report_covers_every_sheet_of_every_game(tmp_path):
    from agents.registry import available_agents
    from redbeard_env.redbeard.metrics import JOIN_SCORES
    from redbeard_env.registry import game_named, registered_games
    from redbeard_eval import research

    out = tmp_path / "docs" / "research.md"
    assert research.main(["--games", "8", "--pimc-games", "4", "--search-games", "4", "--join-games", "8", "--seed", "3",
                          "--out", str(out), "--runs-dir", str(tmp_path / "runs")]) == 0
    text = out.read_text()
    sheets = [(g, s) for g in registered_games() for s in game_named(g).presets]
    for game, sheet in sheets:
        best = research.best_bot(sheet, game)
        assert f"| {sheet} | `{best}` | {8 if best != 'heuristic' else 32} |" in text  # a pooled bot counts every seat
    assert research.best_bot("sortskaeg") == "ppo:sortskaeg_4p" and research.best_bot("classic") == "ppo:classic_4p"
    # the calibration heat maps, and the pimc and search tables of every game whose metrics plot
    # them and that has those bots
    plotted = [g for g in registered_games() if game_named(g).metrics_type.success_plot({}) is not None]
    searched = [g for g in registered_games() if "pimc" in available_agents(g)]
    learned = [g for g in registered_games() if "search" in available_agents(g)]
    assert {"redbeard", "sortskaeg", "oh_hell"} <= set(plotted) & set(searched) & set(learned)
    for game, sheet in sheets:
        assert (f"**{sheet}** (" in text) == (game in plotted)
    for game in registered_games():
        assert f"## {game_named(game).title}" in text
        assert (f"| {game_named(game).default_rules} | `pimc` | 4 |" in text) == (game in searched)
        assert (f"| {game_named(game).default_rules} | `search` | 4 |" in text) == (game in learned)
    assert "### Following along" in text and "--games 8" in text and "Exact bids by hand size" in text
    assert text.count("| always joins (`joins:always,base=") == 4 * len(JOIN_SCORES)
    pngs = sorted(p.relative_to(tmp_path / "docs").as_posix() for p in (tmp_path / "docs" / "img").rglob("*.png"))
    expected = (sum(len(game_named(g).presets) for g in plotted) + len(set(plotted) & set(searched))
                + len(set(plotted) & set(learned)))
    assert len(pngs) == expected and all(f"]({p})" in text for p in pngs)
    assert (tmp_path / "runs" / "classic_pimc" / "games.csv").is_file()  # the bulk stays out of docs/


def test_run_tournament_records_games_to_the_path_it_is_given(tmp_path):
    with pytest.raises(ValueError, match="record_path"):
        run_tournament(["heuristic", "random"], players=3, games=3, record=True, progress=False, plots=False)
    path = tmp_path / "games.jsonl"
    res = run_tournament(["heuristic", "random"], players=3, games=3, seed=1, record_path=path, progress=False, plots=False)
    assert res["config"]["engine"] == "reference" and len(path.read_text().splitlines()) == 3


# ---------------------------------------------------------------- sequential test (evaluate.py --sprt)
def test_sprt_log_likelihood_ratio_and_bounds():
    from redbeard_eval.sprt import bounds, llr

    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(-np.log(19)) and hi == pytest.approx(np.log(19))
    at_p1 = np.r_[np.full(50, 0.25), np.full(50, 0.35)]  # mean 0.30 = p1
    at_p0 = at_p1 - 0.05  # mean 0.25 = p0
    assert llr(at_p1, 0.25, 0.30) > 0 > llr(at_p0, 0.25, 0.30)
    # worked example: mean 0.30, sample variance 0.0025 * 100/99, midpoint 0.275:
    # (0.05 / 0.002525...) * 100 * 0.025 = 49.5
    assert llr(at_p1, 0.25, 0.30) == pytest.approx(0.05 / at_p1.var(ddof=1) * 100 * 0.025)
    assert llr(at_p1[:1], 0.25, 0.30) == 0.0  # one deal: no variance yet


def test_sprt_promotes_a_better_bot_and_keeps_the_incumbent_against_a_worse(tmp_path, capsys):
    from redbeard_eval.sprt import run_sprt

    lines = []
    better = run_sprt("heuristic", "random", 0.25, 0.30, max_games=2000, players=4, seed=2, batch_size=120,
                      report=lines.append)
    assert better.decision == "H1" and better.llr >= better.upper and better.deals >= 20
    assert len(lines) == len(better.history) and "LLR" in lines[-1]
    worse = run_sprt("random", "heuristic", 0.25, 0.30, max_games=2000, players=4, seed=2, batch_size=120, report=None)
    assert worse.decision == "H0" and worse.llr <= worse.lower
    again = run_sprt("heuristic", "random", 0.25, 0.30, max_games=2000, players=4, seed=2, batch_size=120, report=None)
    assert again.history == better.history  # the same seed: the same deals and decision
    short = run_sprt("heuristic", "random", 0.25, 0.30, max_games=40, players=4, seed=2, batch_size=40, report=None)
    assert short.decision == "inconclusive" and short.deals == 10  # under 20 deals nothing is decided
    with pytest.raises(ValueError, match="p0 < p1"):
        run_sprt("heuristic", "random", 0.3, 0.25)
    # an equal candidate is never promoted: H0 (or no decision) for two copies of a bot
    equal = run_sprt("random:seed=5", "random", 0.25, 0.30, max_games=2000, players=4, seed=3, batch_size=120,
                     report=None)
    assert equal.decision in ("H0", "inconclusive") and equal.players == 4 and equal.parity == 0.25
    with pytest.raises(ValueError, match="below parity 1/2"):  # heads-up Sortskæg: parity is 0.5
        run_sprt("heuristic", "random", 0.25, 0.30, game="sortskaeg", players=2)
    with pytest.raises(ValueError, match="p1 = parity for a non-regression test"):  # an equal bot would sit between
        run_sprt("random:seed=5", "random", 0.22, 0.28, players=4)
    with pytest.raises(ValueError, match="same spec"):
        run_sprt("heuristic", "heuristic", 0.25, 0.3, players=4)
    cli.main(["--sprt", "0.25", "0.3", "--agents", "heuristic", "random", "--players", "4", "--games", "800",
              "--batch-size", "200", "--game", "sortskaeg", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert "H1 accepted: promote the candidate" in out
    saved = json.loads((tmp_path / "sprt.json").read_text())
    assert saved["decision"] == "H1" and saved["config"]["agents"] == ["heuristic", "random"]
    with pytest.raises(SystemExit):
        cli.main(["--sprt", "0.25", "0.3", "--agents", "heuristic", "random", "random"])


def test_sprt_non_regression_passes_an_equal_bot_and_stops_a_worse():
    # H0: 0.20 (worse by 0.05), H1: parity 0.25 (as good): a simplification's test
    from redbeard_eval.sprt import run_sprt

    equal = run_sprt("random:seed=5", "random", 0.20, 0.25, max_games=4000, players=4, seed=3, batch_size=120,
                     report=None)
    assert equal.decision == "H1" and equal.llr >= equal.upper
    worse = run_sprt("random", "heuristic", 0.20, 0.25, max_games=4000, players=4, seed=3, batch_size=120, report=None)
    assert worse.decision == "H0" and worse.llr <= worse.lower


def test_bot_objects_at_a_table_of_another_game():
    from agents.base import Agent

    class Mine(Agent):  # a user's bot that never said which game it plays: the first game's
        def act_batch(self, obs, mask):
            return np.asarray(mask).argmax(1)

    with pytest.raises(ValueError, match="plays redbeard, this table plays sortskaeg"):
        run_tournament([Mine(), "random"], game="sortskaeg", players=3, games=3, progress=False)
    ok = Mine()
    ok.game = "sortskaeg"
    assert run_tournament([ok, "random"], game="sortskaeg", players=3, games=3, progress=False)["agents"]

    class Duck:  # not an Agent: any object with act_batch plays
        spec = "duck"
        game = "sortskaeg"

        def act_batch(self, obs, mask):
            return np.asarray(mask).argmax(1)

    res = run_tournament([Duck(), "random"], game="sortskaeg", players=3, games=3, progress=False)
    assert res["agents"]["duck"]["games"] == 3
    with pytest.raises(ValueError, match="neither a spec string nor a bot"):
        run_tournament([object(), "random"], players=3, games=3, progress=False)
