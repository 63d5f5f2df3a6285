"""The trainer (redbeard_train): configs checked up front, safe checkpoints, exact resume,
smoke runs with tiny budgets."""

from __future__ import annotations

import dataclasses
import pathlib
import re
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import redbeard_train as train  # noqa: E402
from agents.ppo import PolicyNet, load_checkpoint  # noqa: E402
from redbeard_env.registry import game_named  # noqa: E402
from redbeard_train import rollout  # noqa: E402
from redbeard_train.config import CONFIG_DIR, ConfigError, from_dict  # noqa: E402
from redbeard_train.pool import Pool  # noqa: E402


def smoke_config(tmp_path: Path, **changes) -> train.Config:
    cfg = train.load_config("smoke")
    return dataclasses.replace(cfg, run_dir=str(tmp_path), **changes)


def load(path: Path) -> dict:
    return torch.load(path, weights_only=True)


# ---------------------------------------------------------------------- configs
def test_config_files_parse_and_cli_overrides():
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        cfg = train.load_config(str(path))
        game_named(cfg.game).make_rules(cfg.rules, **cfg.overrides)  # each config's game (Sortskæg's too)
    cfg, resume = train.parse_args(["--config", "smoke", "--total-steps", "2e6", "--players", "3", "5",
                                    "--overrides", "leader=trick_winner", "join_at=3", "--anneal-lr", "False"])
    assert cfg.total_steps == 2_000_000 and cfg.players == [3, 5] and resume is None
    assert cfg.overrides == {"leader": "trick_winner", "join_at": 3} and cfg.anneal_lr is False
    assert cfg.num_envs == 64  # from configs/smoke.yaml, untouched
    with pytest.raises(ConfigError, match="unknown config field"):
        from_dict({"learning_rat": 1.0})
    with pytest.raises(ConfigError, match="no config"):
        train.load_config("no_such_config")


def test_help_explains_every_field(capsys):
    with pytest.raises(SystemExit) as exit_:
        train.parse_args(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for f in dataclasses.fields(train.Config):
        assert "--" + f.name.replace("_", "-") in text, f.name
    assert "Duplicate games per evaluation" in text  # a field's docstring
    assert "--resume" in text and "--config" in text


BAD_VALUES = [  # (flags, field named in the message, what the message says is allowed)
    (["--num-envs", "0"], "num_envs", ">= 1"),
    (["--num-envs", "many"], "num_envs", "whole number"),
    (["--total-steps", "2500.5"], "total_steps", "whole number"),
    (["--gamma", "high"], "gamma", "a number"),
    (["--anneal-lr", "maybe"], "anneal_lr", "true or false"),
    (["--reward", "lose"], "reward", "'win', 'shaped'"),
    (["--overrides", "leader"], "overrides", "FIELD=VALUE"),
    (["--num-steps", "-3"], "num_steps", ">= 1"),
    (["--num-envs", "1e12"], "num_envs", "<= 1048576"),  # was a ValueError traceback from the engine
    (["--gamma", "1.5"], "gamma", r"\[0, 1\]"),
    (["--self-play-frac", "-0.1"], "self_play_frac", r"\[0, 1\]"),
    (["--max-minutes", "inf"], "max_minutes", "finite"),
    (["--learning-rate", "nan"], "learning_rate", "finite"),
    (["--learning-rate", "0"], "learning_rate", "> 0"),
    (["--players", "4", "8"], "players", "3..7"),
    (["--players", "4", "4"], "players", "at most once"),
    (["--hidden", "64", "0"], "hidden", ">= 1"),
    (["--opponents", "heuristic", "nosuchbot"], "opponents", "unknown agent 'nosuchbot'"),
    (["--opponents", "heuristic:aggression=0.5"], "opponents", "no parameter 'aggression'"),
    (["--opponents", "ppo:no_such_checkpoint"], "opponents", "no PPO checkpoint"),
    (["--overrides", "leader=nobody"], "overrides", "leader"),
    (["--rules", "poker"], "rules", "classic"),
    (["--device", "tpu"], "device", "cpu"),
    (["--exp-name", "a/b"], "exp_name", "path separators"),
    (["--init-from", "no_such_policy.pt"], "init_from", "no PPO checkpoint"),
    (["--start-scores", "0", "3"], "start_scores", r"1 <= LO <= HI"),
    (["--start-scores", "3", "2"], "start_scores", r"1 <= LO <= HI"),
    (["--start-scores", "2"], "start_scores", r"\[LO, HI\]"),
    (["--overrides", "start_score=6", "--start-scores", "2", "7"], "start_scores", r"start score \(6\)"),
    (["--start-scores-share", "1.5"], "start_scores_share", r"\[0, 1\]"),
]


@pytest.mark.parametrize("flags, field, allowed", BAD_VALUES, ids=[b[0][0] + "=" + b[0][-1] for b in BAD_VALUES])
def test_a_bad_value_exits_with_one_line_and_no_run_directory(tmp_path, capsys, flags, field, allowed):
    with pytest.raises(SystemExit) as exit_:
        train.main(["--config", "smoke", "--run-dir", str(tmp_path / "runs"), *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("train.py: error:") and field in err
    assert re.search(allowed, err), err
    assert not (tmp_path / "runs").exists()  # nothing written


@pytest.mark.parametrize("text, field", [
    ("anneal_lr: maybe", "anneal_lr"),  # a boolean must be a boolean, not "maybe" -> False
    ("num_envs: 12.5", "num_envs"),
    ("total_steps: 1e400", "total_steps"),
    ("players: [4, two]", "players"),
    ("reward: lose", "reward"),
    ("opponents: heuristic", None),  # a single spec is a list of one: fine
])
def test_yaml_values_are_typed_and_checked(tmp_path, text, field):
    path = tmp_path / "mine.yaml"
    path.write_text(f"num_steps: 4\n{text}\n")
    if field is None:
        assert train.load_config(str(path)).opponents == ["heuristic"]
        return
    with pytest.raises(ConfigError, match=f"'{field}'"):
        train.load_config(str(path))


def test_config_values_are_coerced_once_checked():
    cfg = from_dict({"total_steps": "2e6", "learning_rate": 1, "players": 5, "prior": None})
    assert (cfg.total_steps, cfg.learning_rate, cfg.players, cfg.prior) == (2_000_000, 1.0, [5], "")
    assert isinstance(cfg.learning_rate, float)


# ---------------------------------------------------------------------- smoke runs
def test_the_pool_knows_which_opponents_share_the_prior_call(tmp_path):
    # opponents that are the prior bot take its argmax; other specs are other bots
    cfg = smoke_config(tmp_path, opponents=["heuristic", "heuristic:win_value=6", "random"])
    pool = Pool(cfg)
    pool.add_snapshot(PolicyNet(hidden=(8,), prior="heuristic").state_dict(), step=1)
    assert [pool.is_prior_bot(i) for i in range(5)] == [False, True, False, False, False]
    assert [pool.uses_prior(i) for i in range(5)] == [False, True, False, False, True]  # the snapshot has the prior
    plain = Pool(dataclasses.replace(cfg, prior=""))
    assert not any(plain.is_prior_bot(i) or plain.uses_prior(i) for i in range(4))


def test_a_pool_without_opponents_plays_itself_until_the_first_snapshot(tmp_path):
    pool = Pool(smoke_config(tmp_path, opponents=[], self_play_frac=0.3))
    assert list(pool.sample(5, np.random.default_rng(0))) == [0] * 5
    pool.add_snapshot(PolicyNet(hidden=(64, 64)).state_dict(), step=1)
    assert np.allclose(pool.probabilities(), [0.3, 0.7])


@pytest.mark.parametrize("prior", ["heuristic", ""])
def test_smoke_training_run(tmp_path, prior):
    # with the prior, heuristic opponents take their actions from the shared prior call
    cfg = smoke_config(tmp_path, prior=prior, opponents=["heuristic", "random"] if prior else ["random"])
    out = train.train(cfg, quiet=True)
    run_dir = Path(out["run_dir"])
    assert out["updates"] == cfg.total_steps // (cfg.num_envs * cfg.num_steps)
    assert all(np.isfinite(v) for v in out["losses"].values())
    assert list(run_dir.glob("events.out.tfevents.*")), "no TensorBoard event file"
    assert (run_dir / "checkpoint.pt").is_file() and (run_dir / "policy.pt").is_file()
    net, payload = load_checkpoint(str(run_dir / "policy.pt"))
    assert payload["meta"]["global_step"] == out["global_step"] > 0
    assert payload["prior"] == net.prior == prior
    if prior:  # the learned prior scales moved away from their start
        assert not torch.allclose(net.prior_log_scale.exp(), torch.full((2,), cfg.prior_scale))
    with pytest.raises(ValueError, match="init_from .* prior"):  # the other prior cannot continue these weights
        train.train(smoke_config(tmp_path / "other", prior="" if prior else "heuristic", init_from=str(run_dir / "policy.pt")), quiet=True)
    assert not (tmp_path / "other").exists()  # a refused config leaves no run directory behind


def test_a_time_budget_ends_the_run_early_with_a_checkpoint(tmp_path):
    cfg = smoke_config(tmp_path, max_minutes=1e-5)  # 0.6 ms: over after the first update
    out = train.train(cfg, quiet=True)
    assert out["updates"] == 1 < cfg.total_steps // (cfg.num_envs * cfg.num_steps)
    state = load(Path(out["run_dir"]) / "checkpoint.pt")
    assert state["counters"]["update"] == 1 and state["counters"]["seconds"] > 60 * cfg.max_minutes
    with pytest.raises(ValueError, match="'max_minutes' = -1.0: must be >= 0"):
        train.train(smoke_config(tmp_path, max_minutes=-1), quiet=True)


# ---------------------------------------------------------------------- exact resume
# Snapshots (every 2 updates), the heuristic prior, heuristic and random opponents and a
# periodic evaluation (every 2 updates): everything that draws random numbers is on.
# Games from 2 points end within a round or two, so new games meet the snapshots early.
RESUME_FLAGS = ["--config", "smoke", "--total-steps", str(64 * 16 * 5), "--snapshot-every", "2",
                "--opponents", "heuristic", "random", "--prior", "heuristic", "--self-play-frac", "0.1",
                "--overrides", "start_score=2", "--eval-every", "2", "--eval-games", "8", "--checkpoint-every", "2"]


def assert_same_run(a_dir: Path, b_dir: Path) -> None:
    a, b = load(a_dir / "checkpoint.pt"), load(b_dir / "checkpoint.pt")
    for key in a["net"]:
        assert torch.equal(a["net"][key], b["net"][key]), key
    for key, value in a["optimizer"]["state"].items():
        for name in value:
            assert torch.equal(value[name], b["optimizer"]["state"][key][name]), (key, name)
    assert torch.equal(a["torch_rng"], b["torch_rng"])
    assert a["pool"]["names"] == b["pool"]["names"] and torch.equal(a["pool"]["win_ema"], b["pool"]["win_ema"])
    for wa, wb in zip(a["workers"], b["workers"], strict=True):
        for key in ("obs", "mask", "learner", "opponent", "last", "pending"):
            assert torch.equal(wa["arenas"][0][key], wb["arenas"][0][key]), key
        assert torch.equal(wa["generator"], wb["generator"]) and wa["pool_rng"] == wb["pool_rng"]
    for timing in ("seconds", "eval_seconds", "seconds_per_update"):  # wall-clock measurements, not the run's state
        a["counters"].pop(timing, None), b["counters"].pop(timing, None)
    assert a["counters"] == b["counters"] and a["recent_wins"] == b["recent_wins"]


@pytest.mark.parametrize("stop_at", [1, 3])  # 3: between snapshots (they come at 2 and 4)
def test_resume_at_any_update_ends_bit_identical(tmp_path, stop_at):
    straight = train.main([*RESUME_FLAGS, "--run-dir", str(tmp_path / "a")])
    assert straight["updates"] == 5
    games = load(Path(straight["run_dir"]) / "checkpoint.pt")["pool"]["games"]
    assert games[3] > 0  # the learner met the first snapshot
    first = train.main([*RESUME_FLAGS, "--run-dir", str(tmp_path / "b"), "--stop-after", str(stop_at)])
    assert first["updates"] == stop_at
    first_seconds = load(Path(first["run_dir"]) / "checkpoint.pt")["counters"]["seconds"]
    resumed = train.main(["--resume", first["run_dir"]])  # the Python API, like the command line
    assert resumed["updates"] == straight["updates"] and resumed["global_step"] == straight["global_step"]
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))
    # wall time adds up over the invocations (what max_minutes budgets)
    assert 0 < first_seconds < load(Path(resumed["run_dir"]) / "checkpoint.pt")["counters"]["seconds"]
    # the periodic evaluations saw the same policies
    def scores(ev):  # per lineup seat, without the run-specific policy path and timings
        return [{k: v for k, v in row.items() if "ms" not in k and "second" not in k} for row in ev["agents"].values()]
    assert scores(straight["eval"]) == scores(resumed["eval"])


class FakeClock:
    """A wall clock for the trainer that moves only when told: ``seconds_per_update`` after
    every update (through the trainer's callback)."""

    def __init__(self, seconds_per_update: float):
        self.now, self.step = 1000.0, seconds_per_update

    def time(self) -> float:
        return self.now

    def tick(self, info: dict) -> bool:
        self.now += self.step
        return False


def test_a_time_budget_becomes_updates_and_a_resume_keeps_them(tmp_path, monkeypatch):
    """With max_minutes the run times its updates and fixes its length in updates (the first
    two of an invocation are warm-up, then three are timed, over at least 5 % of the budget):
    at 10 s an update and a 60 s budget, timed at update 5 after 40 s, 5 + (60 - 40) / 10 = 7
    updates. A resume keeps those 7
    whatever its own clock says, and ends bit-identical to the run that was not stopped."""
    import redbeard_train.loop as loop

    def run(clock: FakeClock, **changes):
        monkeypatch.setattr(loop, "time", SimpleNamespace(time=clock.time, strftime=time.strftime))
        return train.train(smoke_config(tmp_path / changes.pop("where"), **changes), quiet=True, callback=clock.tick)

    budget = dict(total_steps=64 * 16 * 1000, max_minutes=1.0)
    straight = run(FakeClock(10.0), where="a", **budget)
    assert straight["updates"] == straight["planned_updates"] == 7
    first = run(FakeClock(10.0), where="b", stop_after=5, **budget)
    assert first["updates"] == 5 and first["planned_updates"] == 7
    slow = FakeClock(100.0)  # ten times slower now: a clock-driven schedule would stop at once
    monkeypatch.setattr(loop, "time", SimpleNamespace(time=slow.time, strftime=time.strftime))
    resumed = train.train(dataclasses.replace(load_config_of(first), stop_after=0), first["run_dir"], quiet=True,
                          callback=slow.tick)
    assert resumed["updates"] == 7
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))


class ProgressRecorder:
    """Stands in for tqdm: the bar's total after every update."""

    made: list = []

    def __init__(self, total=None, initial=0, **kwargs):
        self.total, self.n, self.totals = total, initial, [total]
        ProgressRecorder.made.append(self)

    def update(self, n=1):
        self.n += n
        self.totals.append(self.total)

    def set_postfix(self, **kwargs):
        pass

    def refresh(self):
        pass

    def close(self):
        pass


@pytest.mark.parametrize("seconds_per_update, updates", [(10.0, 7), (100.0, 2)])  # the clock moves after each update's check
def test_the_progress_bar_counts_toward_the_limit_that_ends_the_run(tmp_path, monkeypatch, seconds_per_update, updates):
    """--max-minutes with a far larger --total-steps: the bar showed 0/1000 updates (an ETA
    of the steps') and stopped at a few % when the minutes ran out. Now it has no total
    until the minutes are a number of updates, then that number, and it ends full -- also
    when the time runs out before the updates were timed."""
    import tqdm

    import redbeard_train.loop as loop

    clock = FakeClock(seconds_per_update)
    monkeypatch.setattr(loop, "time", SimpleNamespace(time=clock.time, strftime=time.strftime))
    monkeypatch.setattr(tqdm, "tqdm", ProgressRecorder)
    ProgressRecorder.made = []
    out = train.train(smoke_config(tmp_path, total_steps=64 * 16 * 1000, max_minutes=1.0), callback=clock.tick)
    (bar,) = ProgressRecorder.made
    assert out["updates"] == updates
    assert bar.totals[0] is None  # not 1000: the steps are not what ends this run
    assert bar.n == bar.total == updates  # 100 % at the end
    assert set(bar.totals[-1:]) == {updates} and 1000 not in bar.totals


def load_config_of(result: dict) -> train.Config:
    return from_dict(load(Path(result["run_dir"]) / "checkpoint.pt")["config"])


def test_resume_extends_the_budget_and_refuses_other_changes(tmp_path, capsys):
    first = train.main(["--config", "smoke", "--run-dir", str(tmp_path), "--total-steps", str(64 * 16 * 2)])
    assert first["updates"] == 2
    capsys.readouterr()
    for flags in (["--learning-rate", "0.1"], ["--num-envs", "32"], ["--config", "smoke"]):
        with pytest.raises(SystemExit) as exit_:
            train.main(["--resume", first["run_dir"], *flags])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "resume" in err and len(err.strip().splitlines()) == 1, err
    more = train.main(["--resume", first["run_dir"], "--total-steps", str(64 * 16 * 3)])
    assert more["updates"] == 3 and more["global_step"] == 64 * 16 * 3
    assert "total_steps: 3072" in (Path(first["run_dir"]) / "config.yaml").read_text()


def test_resuming_a_run_of_an_older_train_py_is_a_clear_error(tmp_path):
    first = train.train(smoke_config(tmp_path, stop_after=1), quiet=True)
    path = Path(first["run_dir"]) / "checkpoint.pt"
    state = load(path)
    state["config"]["bc_teacher"] = "heuristic"  # a field this train.py no longer has
    torch.save(state, path)
    with pytest.raises(ValueError, match=r"older train.py .*bc_teacher"):
        train.train(smoke_config(tmp_path), resume=first["run_dir"], quiet=True)


# ---------------------------------------------------------------------- unsafe files
class WouldRunCode:
    """Unpickling this calls Path.touch on the marker: the code a crafted file would run."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def test_a_crafted_checkpoint_is_refused_without_running_its_code(tmp_path, capsys):
    from agents.registry import make_agent

    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"format": "redbeard-ppo", "version": 3, "payload": WouldRunCode(marker)}, evil)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    torch.save({"format": "redbeard-train", "version": 1, "config": WouldRunCode(marker)}, run_dir / "checkpoint.pt")
    with pytest.raises(ValueError, match="refused"):
        load_checkpoint(str(evil))
    with pytest.raises(ValueError, match="refused"):
        make_agent(f"ppo:{evil}")
    for argv in (["--config", "smoke", "--run-dir", str(tmp_path / "runs"), "--init-from", str(evil)],
                 ["--config", "smoke", "--run-dir", str(tmp_path / "runs"), "--opponents", f"ppo:{evil}"],
                 ["--resume", str(run_dir)]):
        with pytest.raises(SystemExit) as exit_:
            train.main(argv)
        assert exit_.value.code == 2 and "refused" in capsys.readouterr().err
    from redbeard_eval import cli as evaluate_cli

    with pytest.raises(SystemExit) as exit_:
        evaluate_cli.main(["--agents", f"ppo:{evil}", "heuristic", "--players", "4", "--games", "4"])
    assert exit_.value.code == 2 and "refused" in capsys.readouterr().err
    assert not marker.exists()
    torch.load(evil, weights_only=False)  # the file is real: an unsafe load runs its code
    assert marker.exists()


# ---------------------------------------------------------------------- rollout workers
WORKER_FLAGS = [*RESUME_FLAGS, "--rollout-workers", "2", "--eval-games", "0", "--total-steps", str(64 * 16 * 4)]


def test_two_local_workers_split_the_games_and_resume_exactly(tmp_path):
    straight = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "a")])
    state = load(Path(straight["run_dir"]) / "checkpoint.pt")
    assert [w["arenas"][0]["obs"].shape[0] for w in state["workers"]] == [32, 32]  # 64 games split in two
    assert straight["global_step"] == 64 * 16 * 4
    first = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "b"), "--stop-after", "3"])
    resumed = train.main(["--resume", first["run_dir"]])
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))
    one = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "c"), "--rollout-workers", "1"])
    assert not torch.equal(load(Path(one["run_dir"]) / "checkpoint.pt")["net"]["policy.weight"], state["net"]["policy.weight"])


def test_worker_threads_play_the_same_run_as_workers_one_after_another(tmp_path, monkeypatch):
    # snapshots every 2 updates: the workers build snapshot networks in their threads, which
    # must not draw from (or save and restore) the generator the learner's updates use
    threaded = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "threads")])
    original_init = rollout.LocalWorkers.__init__

    def one_after_another(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        assert self.threads is not None  # two workers: a thread each
        self.threads.shutdown()
        self.threads = None

    monkeypatch.setattr(rollout.LocalWorkers, "__init__", one_after_another)
    serial = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "serial")])
    assert_same_run(Path(threaded["run_dir"]), Path(serial["run_dir"]))


def test_a_failing_rollout_thread_fails_the_run_and_ends_the_threads(tmp_path, monkeypatch):
    import threading

    played = rollout.RolloutWorker.rollout

    def second_worker_fails(self, *args, **kwargs):
        if self.index == 1:
            raise RuntimeError("worker 1 failed")
        return played(self, *args, **kwargs)

    monkeypatch.setattr(rollout.RolloutWorker, "rollout", second_worker_fails)
    with pytest.raises(RuntimeError, match="worker 1 failed"):
        train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "failing")])
    assert not [t for t in threading.enumerate() if t.name.startswith("rollout")]
    assert torch.get_num_threads() == train.load_config("smoke").torch_threads  # the learner's count is back


def test_ray_workers_play_the_same_run_as_local_workers(tmp_path, ray_session):
    local = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "local")])
    remote = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "ray"), "--backend", "ray"])
    assert remote["global_step"] == local["global_step"]
    assert_same_run(Path(local["run_dir"]), Path(remote["run_dir"]))
    # a run stopped on one backend resumes on the other, exactly
    first = train.main([*WORKER_FLAGS, "--run-dir", str(tmp_path / "mixed"), "--stop-after", "2"])
    resumed = train.main(["--resume", first["run_dir"], "--backend", "ray"])
    assert_same_run(Path(local["run_dir"]), Path(resumed["run_dir"]))


# ---------------------------------------------------------------------- learning curves
def test_the_learning_curve_reads_every_evaluation_of_a_run(tmp_path, capsys):
    from redbeard_train import curve

    cfg = smoke_config(tmp_path, total_steps=64 * 16 * 4, eval_every=2, eval_games=8, players=[3])
    out = train.train(cfg, quiet=True)
    c = curve.read_curve(out["run_dir"])
    # the untrained policy, then after updates 2 and 4 (the last) of 64 games x 16 steps
    assert c["steps"] == [0, 64 * 16 * 2, 64 * 16 * 4]
    assert c["parity"] == pytest.approx(1 / 3)
    assert 0 == c["minutes"][0] < c["minutes"][1] < c["minutes"][2] < 5
    assert all(lo <= w <= hi for lo, w, hi in zip(c["low"], c["win"], c["high"]))
    png = tmp_path / "curve.png"
    assert curve.main([out["run_dir"], "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert curve.main([str(tmp_path / "nosuch"), "--out", str(png)]) == 2
    assert "no run directory" in capsys.readouterr().err


def test_games_started_near_zero(tmp_path):
    """``start_scores``: a share of the new games start with each seat on a score drawn from
    LO..HI -- the engine holds that game, the arena its observation, mask, seat and the
    shaped reward's distance -- and a run with it resumes exactly (and plays other games)."""
    from redbeard_train.pool import Arena

    cfg = train.load_config("smoke")
    arena = Arena(cfg, 4, 64, seed=0)
    rng = np.random.default_rng(0)
    before = arena.venv.scores.copy()
    arena.start_at_scores(np.arange(32), rng, 1, 3, share=0.0)
    assert np.array_equal(arena.venv.scores, before)  # share 0: untouched
    games = np.arange(0, 64, 2)
    arena.start_at_scores(games, rng, 1, 3, share=1.0)
    scores = arena.venv.scores
    assert ((scores[games] >= 1) & (scores[games] <= 3)).all() and len(np.unique(scores[games])) == 3
    assert np.array_equal(scores[1::2], before[1::2])  # the other games are left as they were
    assert np.array_equal(arena.shaping[games], np.abs(scores[games]))  # Rödskägg's shaping: the distance to 0
    assert np.array_equal(arena.obs, arena.venv.observe()) and np.array_equal(arena.seat, arena.venv.to_act)
    resumes_exactly_and_differs(tmp_path, ["--start-scores", "1", "2", "--start-scores-share", "0.5"])


def resumes_exactly_and_differs(tmp_path: Path, option: list[str]) -> dict:
    """A short run with ``option``: stopped and resumed it ends to the bit like a straight
    run, and its weights differ from the same run without the option. Returns the straight
    run's checkpoint."""
    flags = [*RESUME_FLAGS, *option]
    straight = train.main([*flags, "--run-dir", str(tmp_path / "a")])
    first = train.main([*flags, "--run-dir", str(tmp_path / "b"), "--stop-after", "2"])
    resumed = train.main(["--resume", first["run_dir"]])
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))
    plain = train.main([*RESUME_FLAGS, "--run-dir", str(tmp_path / "c")])
    a, c = load(Path(straight["run_dir"]) / "checkpoint.pt"), load(Path(plain["run_dir"]) / "checkpoint.pt")
    assert not torch.equal(a["net"]["torso.0.weight"], c["net"]["torso.0.weight"])  # the option did something
    return a


def test_a_bfloat16_update_trains_and_resumes_exactly(tmp_path):
    a = resumes_exactly_and_differs(tmp_path, ["--update-dtype", "bfloat16"])
    assert all(v.dtype == torch.float32 for v in a["net"].values())  # the weights stay float32


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_rollout_plays_in_the_update_dtype(tmp_path, dtype):
    """The rollout's network passes take the update's dtype (bfloat16: the first layer, the
    prior's block apart), so the log-probabilities a batch stores are what the update
    computes from the same weights: its probability ratios start at 1."""
    cfg = smoke_config(tmp_path, update_dtype=dtype)
    torch.manual_seed(0)
    net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior, game=cfg.game)
    net.policy.weight.data *= 100  # the network's part of the logits as large as the prior's
    worker = rollout.RolloutWorker(cfg, 0, net)
    batch = worker.rollout(None, {**Pool(cfg).statistics(), "teach": False}, np.array([0.0, 1.0, 1e-4]))["batch"]
    feats, mask = torch.as_tensor(batch["obs"]), torch.as_tensor(batch["mask"]).bool()
    act = torch.as_tensor(batch["action"])[:, None]
    with torch.no_grad():
        full = torch.log_softmax(net(feats, mask)[0], -1).gather(-1, act).squeeze(-1)
        prior_block = feats[:, net.prior_offset:].contiguous()
        half = torch.log_softmax(net(feats.to(torch.bfloat16), mask, prior_block)[0], -1).gather(-1, act).squeeze(-1)
    stored = torch.as_tensor(batch["logp"])
    same, other = (full, half) if dtype == "float32" else (half, full)
    assert len(stored) > 100 and torch.allclose(stored, same, atol=1e-5)
    assert (stored - other).abs().max() > 1e-4  # the two dtypes do give other numbers


def test_auto_update_dtype_takes_bfloat16_only_with_matrix_units_and_keeps_it_on_resume(tmp_path, monkeypatch):
    """``update_dtype: auto`` is decided when a run starts, by the CPU, and saved with the
    run: a resume on a CPU of the other kind keeps the run's format (and so resumes exactly)."""
    import yaml

    from redbeard_train import loop

    runs = {}
    for units, expected in ((True, "bfloat16"), (False, "float32")):
        monkeypatch.setattr(loop, "bfloat16_units", lambda units=units: units)
        out = train.main([*RESUME_FLAGS, "--update-dtype", "auto", "--run-dir", str(tmp_path / expected), "--stop-after", "2"])
        runs[expected] = Path(out["run_dir"])
        assert yaml.safe_load((runs[expected] / "config.yaml").read_text())["update_dtype"] == expected
        assert load(runs[expected] / "checkpoint.pt")["config"]["update_dtype"] == expected
    # the bfloat16 run, resumed where the units are missing, goes on in bfloat16 to the same end as a straight run
    resumed = train.main(["--resume", str(runs["bfloat16"])])
    assert load(Path(resumed["run_dir"]) / "checkpoint.pt")["config"]["update_dtype"] == "bfloat16"
    straight = train.main([*RESUME_FLAGS, "--update-dtype", "bfloat16", "--run-dir", str(tmp_path / "straight")])
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))


def test_the_cli_ends_with_the_shipped_bot_on_the_same_deals(tmp_path):
    """train.py's last lines: the trained policy beside the shipped one of the same sheet
    and table, on the final tournament's deals; nothing for a sheet without one."""
    from redbeard_eval import run_tournament

    from redbeard_train.cli import compare_with_shipped, write_learning_curve

    cfg = from_dict({"rules": "classic", "players": [4]})
    results = run_tournament(["ppo:classic_4p", "heuristic"], rules="classic", players=4, games=8, seed=3, progress=False)
    text = compare_with_shipped(cfg, results)
    rate = results["agents"]["ppo:classic_4p"]["win_rate"]
    assert "shipped ppo:classic_4p" in text and text.count(f"{rate:.3f}") >= 2  # the same bot: the same games
    changed = from_dict({"rules": "classic", "players": [4], "overrides": {"start_score": 6}})
    assert compare_with_shipped(changed, results) is None  # the shipped bot plays other rules
    assert write_learning_curve(tmp_path) is None  # no evaluations logged: no curve


# ---------------------------------------------------------------------- bad files (issue 59 item 8)
def test_a_config_file_that_is_not_utf8_is_one_line(tmp_path, capsys):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("num_steps: 4\nexp_name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(SystemExit) as exit_:
        train.main(["--config", str(path), "--run-dir", str(tmp_path / "runs")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == f"train.py: error: {path} is not UTF-8 text (byte 0xe9 at offset 26); save it as UTF-8"
    assert not (tmp_path / "runs").exists()


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory) -> Path:
    """A smoke run stopped after one update (with an open carry and a snapshot-free pool)."""
    out = train.train(smoke_config(tmp_path_factory.mktemp("stopped"), stop_after=1), quiet=True)
    return Path(out["run_dir"])


TAMPERED = {  # what a hand (or a disk) may do to checkpoint.pt -> what the one line names
    "pool names": (lambda p: p["pool"]["names"].append("heuristic"), "pool names must be"),
    "pool statistics": (lambda p: p["pool"].__setitem__("win_ema", torch.zeros(5, dtype=torch.float64)), "pool win_ema"),
    "pool snapshot": (lambda p: p["pool"]["snapshots"].__setitem__(7, {"x": torch.zeros(2)}), "pool snapshots"),
    "torch rng": (lambda p: p.__setitem__("torch_rng", p["torch_rng"][:100]), "torch_rng must be"),
    "numpy rng": (lambda p: p["workers"][0]["pool_rng"]["state"].__setitem__("state", "x"), r"pool_rng\.state\.state"),
    "optimizer shape": (lambda p: p["optimizer"]["state"][1].__setitem__("exp_avg", torch.zeros(3, 3)),
                        "optimizer exp_avg of parameter 1 must be"),
    "optimizer nan": (lambda p: p["optimizer"]["state"][1]["exp_avg_sq"].fill_(float("nan")), "must be finite"),
    "net shape": (lambda p: p["net"].__setitem__("policy.bias", torch.zeros(3)), "'policy.bias' is"),
    "net overflow": (lambda p: p["net"]["prior_log_scale"].fill_(300.0), "non-finite action logits"),
    "arena shape": (lambda p: p["workers"][0]["arenas"][0].__setitem__("obs", torch.zeros(64, 3)), r"arenas\[0\]\.obs must be"),
    "arena index": (lambda p: p["workers"][0]["arenas"][0]["opponent"].fill_(99), r"arenas\[0\]\.opponent must be in"),
    "engine shape": (lambda p: p["workers"][0]["arenas"][0]["venv"]["arrays"].__setitem__("phase", torch.zeros(3, dtype=torch.int8)),
                     r"venv\.arrays\.phase must be"),
    "engine size": (lambda p: p["workers"][0]["arenas"][0]["venv"].__setitem__("num_envs", 10**12), r"venv\.num_envs"),
    "carry": (lambda p: p["workers"][0]["carry"].__setitem__("obs", torch.zeros(5, 3)), r"carry\.obs must be"),
    "counters": (lambda p: p["counters"].__setitem__("update", "x"), "counter 'update'"),
    "return statistics": (lambda p: p.__setitem__("ret_stats", torch.zeros(7)), "ret_stats must be"),
    "recent results": (lambda p: p.__setitem__("recent_wins", ["a"]), "recent_wins must be"),
    "a missing part": (lambda p: p.pop("optimizer"), "optimizer are missing"),
}


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_checkpoint_is_refused_before_training(stopped_run, tmp_path, capsys, monkeypatch, case):
    """Each used to end in a traceback mid-run (the optimizer's shapes in a crash of the
    fused kernel's memory): now one line, before any update, with nothing written."""
    import shutil

    from redbeard_train import loop

    run_dir = tmp_path / "run"
    shutil.copytree(stopped_run, run_dir)
    payload = load(run_dir / "checkpoint.pt")
    change, message = TAMPERED[case]
    change(payload)
    torch.save(payload, run_dir / "checkpoint.pt")
    files = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}

    def no_update(*args, **kwargs):
        raise AssertionError("an update ran")

    monkeypatch.setattr(loop, "collect_rollout", no_update)
    with pytest.raises(SystemExit) as exit_:
        train.main(["--resume", str(run_dir), "--total-steps", str(64 * 16 * 3)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("train.py: error: ") and "Traceback" not in err, err
    assert re.search(message, err), err
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == files  # config.yaml too


def test_the_untampered_checkpoint_resumes(stopped_run, tmp_path):
    import shutil

    shutil.copytree(stopped_run, tmp_path / "run")
    out = train.main(["--resume", str(tmp_path / "run"), "--total-steps", str(64 * 16 * 2)])
    assert out["updates"] == 2


def test_init_from_weights_that_overflow_is_refused_before_training(stopped_run, tmp_path, capsys):
    """A policy file with finite but huge weights (here its prior scale, e**300) gives NaN
    logits: training then sampled illegal actions mid-run."""
    payload = load(stopped_run / "policy.pt")
    payload["state_dict"]["prior_log_scale"] = torch.full((2,), 300.0)
    path = tmp_path / "overflow.pt"
    torch.save(payload, path)
    with pytest.raises(SystemExit) as exit_:
        train.main(["--config", "smoke", "--run-dir", str(tmp_path / "runs"), "--init-from", str(path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"config field 'init_from' = '{path}'" in err, err
    assert "non-finite action logits" in err
    assert not (tmp_path / "runs").exists()
