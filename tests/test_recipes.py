"""Training recipes as data (redbeard_train/recipe.py, SPEC §9): a bad recipe is refused in
one line before anything trains, every shipped recipe resolves at every table its games
allow, a pipeline writes its stages, recipe.json, final.pt and the judge's results, and a
pipeline killed in its second stage resumes to the weights of an uninterrupted one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tyro")

from redbeard_env.registry import game_named  # noqa: E402
from redbeard_train.recipe import (  # noqa: E402
    Pipeline, RecipeError, known_recipes, load_recipe, make_table, recipe_from_dict, resolve_stages)

from game_parts import games_with, trains  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Two stages of the smoke config (4 updates of 1,024 steps each); the second refers to the first's
# policy in every place a path may go: init_from, the teacher, an opponent.
TINY = """\
description: a tiny recipe for tests
minutes: 30
table: {game: redbeard, rules: classic, players: [4]}
judge: {games: 4, opponents: [random]}
stages:
  - name: first
    config: smoke
    share: 0.4
    set: {total_steps: 4096}
  - name: second
    config: smoke
    share: 0.6
    set: {init_from: "@first", teacher: "ppo:@first", distill_frac: 0.5, opponents: [random, "ppo:@first"],
          total_steps: 4096}
"""


def tiny(tmp_path: Path, text: str = TINY) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(text)
    return path


def weights(path: Path) -> dict:
    from agents.ppo import read_payload

    return read_payload(path)["state_dict"]


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# ---------------------------------------------------------------------- refused before training
BAD = [
    ("stages: []", "non-empty list"),
    ("stages: [{name: a, config: smoke, share: 1, colour: red}]", "unknown key 'colour'"),
    ("mins: 3\nstages: [{name: a, config: smoke, share: 1}]", "unknown key 'mins'"),
    ("stages: [{name: a, config: smoke, share: 0.5}, {name: b, config: smoke, share: 0.4}]", "add up to 0.9"),
    ("stages: [{name: a, config: smoke, share: 0.5, set: {init_from: '@b'}}, {name: b, config: smoke, share: 0.5}]",
     "@b is a later stage"),
    ("stages: [{name: a, config: smoke, share: 1, set: {teacher: 'ppo:@zed', distill_frac: 0.2}}]", "@zed is no stage"),
    ("stages: [{name: a, config: smoke, share: 1, set: {rules: fem_opp}}]", "'rules' is the pipeline's"),
    ("stages: [{name: a, config: smoke, share: 1, set: {learning_rate: '@a'}}]", "only init_from, teacher, opponents"),
    ("stages: [{name: a, config: smoke, share: 1, set: {gamma: 1.5}}]", "'gamma'"),
    ("stages: [{name: a, config: nosuchconfig, share: 1}]", "no config 'nosuchconfig'"),
    ("stages: [{name: a, config: smoke, share: 1, set: {colour: 3}}]", "unknown key 'colour'"),
    ("stages: [{name: a, config: smoke, share: 1, optional: [start_scores]}]", "not set by this stage"),
    ("stages: [{name: a, config: smoke, share: 0.5}, {name: a, config: smoke, share: 0.5}]", "a second stage"),
    ("stages: [{name: 'a b', config: smoke, share: 1}]", "identifier"),
    ("minutes: -3\nstages: [{name: a, config: smoke, share: 1}]", "minutes: must be"),
    ("stages: {a: 1}", "non-empty list"),
    ("stages: [{name: shipped, config: smoke, share: 1}]", "call the stage otherwise"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[m for _, m in BAD])
def test_a_bad_recipe_is_refused_in_one_line(tmp_path, text, message):
    path = tiny(tmp_path, text)
    with pytest.raises(RecipeError) as err:
        Pipeline.create(load_recipe(str(path)), run_dir=str(tmp_path / "runs"), exp_name="x")
    assert message in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "runs").exists()  # nothing written


def test_the_command_line_refuses_a_bad_recipe_with_status_2_and_one_line(tmp_path):
    path = tiny(tmp_path, "stages: [{name: a, config: smoke, share: 0.7}]")
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--recipe", str(path), "--exp-name", "x"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "add up to 0.7" in proc.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args,message", [
    (["--game", "chess"], "chess"),
    (["--players", "9"], "players"),
    (["--overrides", "leader=nobody"], "leader"),
    (["--rules", "sortskaeg"], "rules"),
    (["--max-minutes", "0"], "max-minutes"),
    (["--incumbent", "ppo:nothing_here"], "incumbent"),
])
def test_the_command_line_refuses_a_bad_table(tmp_path, args, message):
    path = tiny(tmp_path)
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--recipe", str(path), "--exp-name", "x", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert not (tmp_path / "runs" / "x" / "recipe.json").exists()


# ---------------------------------------------------------------------- every recipe at every table
def tables():
    """Every preset of every game the trainer plays (game_parts.trains) at its smallest and
    largest player count, and a few overrides."""
    out = []
    for name in games_with(trains):
        info = game_named(name)
        lo, hi = info.player_range
        for preset in info.presets:
            for n in sorted({lo, hi}):
                out.append((name, preset, {}, n))
    out += [("redbeard", "classic", {"leader": "trick_winner", "eliminate_at": 30}, 4),
            ("oh_hell", "oh_hell", {"num_tricks": 7}, 5)]
    return out


@pytest.mark.parametrize("game,rules,overrides,players", tables())
def test_the_strong_recipe_resolves_at_every_table(game, rules, overrides, players):
    recipe = load_recipe("strong")
    table = make_table(recipe, game, rules, overrides, [players])
    stages = resolve_stages(recipe, table, seed=1)
    for stage in stages:
        s = stage["settings"]
        assert (s["game"], s["rules"], s["overrides"], s["players"]) == (game, rules, overrides, [players])
    has_start_score = getattr(game_named(game).make_rules(rules, **overrides), "start_score", None) is not None
    dropped = {name for stage in stages for name in stage["dropped"]}
    assert dropped == (set() if has_start_score else {"start_scores"})


@pytest.mark.parametrize("name", known_recipes())
def test_every_shipped_recipe_resolves_at_its_own_table(name):
    recipe = load_recipe(name)
    stages = resolve_stages(recipe, make_table(recipe), seed=recipe.seed)
    assert [s["name"] for s in stages] == [s.name for s in recipe.stages]
    assert stages[-1]["settings"]["total_steps"] >= 1


def test_at_shipped_is_the_shipped_policy_of_the_table_and_nothing_else():
    recipe = load_recipe("quick")
    (student,) = resolve_stages(recipe, make_table(recipe), seed=1)
    assert student["settings"]["teacher"] == "ppo:classic_4p"  # the shipped bot trained at classic, 4 players
    (student,) = resolve_stages(recipe, make_table(recipe, rules="fem_opp"), seed=1)
    assert student["settings"]["teacher"] == "ppo:fem_opp_4p"
    with pytest.raises(RecipeError, match="@shipped .* there is none; use a recipe that trains its own teacher"):
        resolve_stages(recipe, make_table(recipe, game="sortskaeg", players=[3]), seed=1)


def test_naming_another_game_starts_from_its_default_preset():
    recipe = load_recipe("strong")
    table = make_table(recipe, game="sortskaeg")
    assert (table.game, table.rules, table.overrides, table.players) == ("sortskaeg", "sortskaeg", {}, (4,))
    table = make_table(recipe, overrides={"zero_rule": "bounce"}, players=[5])
    assert (table.game, table.rules, table.overrides, table.players) == ("redbeard", "classic", {"zero_rule": "bounce"}, (5,))


def test_shares_and_references_are_read_from_the_file():
    recipe = recipe_from_dict({"stages": [{"name": "a", "config": "smoke", "share": 0.25},
                                          {"name": "b", "config": "smoke", "share": 0.75,
                                           "set": {"opponents": ["random", "ppo:@a"]}}]})
    assert [s.share for s in recipe.stages] == [0.25, 0.75]
    assert recipe.stages[1].set["opponents"] == ["random", "ppo:@a"]


def test_minutes_a_stage_does_not_use_go_to_the_later_ones(tmp_path):
    pipeline = Pipeline.create(load_recipe(str(tiny(tmp_path))), run_dir=str(tmp_path / "runs"), exp_name="p",
                               minutes=10)
    assert pipeline.stage_budget(0) == pytest.approx(4.0)  # 0.4 of 10 minutes
    pipeline.state["stages"][0]["seconds"] = 60.0  # the first stage took one minute of its four
    assert pipeline.stage_budget(1) == pytest.approx(9.0)  # all that is left: the last stage's share is 1 of 1


# ---------------------------------------------------------------------- running
def run_pipeline(tmp_path: Path, name: str, *extra: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), "--recipe", str(tiny(tmp_path)), "--exp-name", name,
                           "--quiet", *extra], cwd=tmp_path, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("pipeline")
    proc = run_pipeline(tmp_path, "whole")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tmp_path, proc


def test_a_pipeline_writes_its_stages_recipe_json_and_final(finished):
    tmp_path, proc = finished
    root = tmp_path / "runs" / "whole"
    assert proc.stdout.strip().splitlines()[-1] == "final: runs/whole/final.pt"
    state = json.loads((root / "recipe.json").read_text())
    assert state["status"] == "done" and state["final"] == "final.pt"
    first, second = state["stages"]
    assert [first["status"], second["status"]] == ["done", "done"]
    assert first["steps"] == second["steps"] == 4096 and first["seconds"] > 0 and first["sps"] > 0
    assert (root / first["dir"] / "policy.pt").is_file() and (root / second["dir"] / "checkpoint.pt").is_file()
    # the second stage trained from the first's policy, with it as teacher and opponent
    import yaml

    cfg = yaml.safe_load((root / second["dir"] / "config.yaml").read_text())
    first_policy = str(Path("runs", "whole", first["dir"], "policy.pt"))  # as the command line named the pipeline
    assert cfg["init_from"] == first_policy and cfg["teacher"] == f"ppo:{first_policy}"
    assert cfg["opponents"] == ["random", f"ppo:{first_policy}"]
    assert same_weights(weights(root / "final.pt"), weights(root / second["dir"] / "policy.pt"))
    # the judge's table, in recipe.json and printed
    (row,) = state["judge"]["results"]["tables"]
    assert row["opponent"] == "random" and row["players"] == 4 and 0 <= row["win_rate"] <= 1
    assert "judge: 4 players, against 3 x random" in proc.stdout
    assert "stage 1/2 first: starts" in proc.stdout and "stage 2/2 second: done, 4,096 steps" in proc.stdout
    assert any(p.name.startswith("events.") for p in (root / "judge").iterdir())


def test_a_finished_pipeline_resumes_to_nothing_more(finished):
    tmp_path, _ = finished
    before = (tmp_path / "runs" / "whole" / "final.pt").read_bytes()
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--resume", "runs/whole", "--quiet"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "starts" not in proc.stdout and "resumes" not in proc.stdout
    assert (tmp_path / "runs" / "whole" / "final.pt").read_bytes() == before


def wait_for(predicate, timeout: float, proc: subprocess.Popen) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"the pipeline ended before it could be stopped: {proc.stderr.read()[-2000:]}")
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the pipeline")


def second_stage_at(root: Path, updates: int) -> bool:
    try:
        state = json.loads((root / "recipe.json").read_text())
    except (OSError, json.JSONDecodeError):
        return False
    stage = state["stages"][1]
    return stage["status"] == "running" and stage["updates"] >= updates


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_pipeline_stopped_in_its_second_stage_resumes_to_the_same_weights(finished, tmp_path, how):
    whole_root = finished[0] / "runs" / "whole"
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), "--recipe", str(tiny(tmp_path)), "--exp-name", "cut",
                             "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    root = tmp_path / "runs" / "cut"
    try:
        wait_for(lambda: second_stage_at(root, 2), 600, proc)
        os.kill(proc.pid, getattr(signal, how))
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    state = json.loads((root / "recipe.json").read_text())
    assert state["stages"][0]["status"] == "done" and state["stages"][1]["status"] == "running"
    assert not (root / "final.pt").exists()
    if how == "SIGINT":  # the first Ctrl-C ends the stage after its update, with a checkpoint
        assert proc.returncode == 130 and state["status"] == "stopped"
    first_dir = state["stages"][0]["dir"]
    first_policy = (root / first_dir / "policy.pt").read_bytes()
    resumed = subprocess.run([sys.executable, str(ROOT / "train.py"), "--resume", "runs/cut", "--quiet"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "stage 1/2" not in resumed.stdout  # the finished stage is not rerun
    assert "stage 2/2 second: resumes" in resumed.stdout
    assert (root / first_dir / "policy.pt").read_bytes() == first_policy
    assert same_weights(weights(root / "final.pt"), weights(whole_root / "final.pt"))


def test_resume_takes_no_other_arguments(finished):
    tmp_path, _ = finished
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--resume", "runs/whole", "--players", "5"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "takes no --players" in proc.stderr


def test_every_stage_is_judged_at_the_minute_it_ended(finished):
    """``python -m redbeard_train.recipe stages``: each finished stage's policy against the
    given bot on the same deals, at the minute of the chain its stage ended, into recipe.json;
    a directory that is not a pipeline is refused in one line."""
    tmp_path, _ = finished
    proc = subprocess.run([sys.executable, "-m", "redbeard_train.recipe", "stages", str(tmp_path / "runs" / "whole"),
                           "--against", "random", "--games", "8", "--workers", "1"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads((tmp_path / "runs" / "whole" / "recipe.json").read_text())
    judged = state["judge"]["stages"]
    assert [r["stage"] for r in judged["rows"]] == ["first", "second"] and judged["against"] == "random"
    for row, stage in zip(judged["rows"], state["stages"]):
        assert row["minutes"] * 60 == pytest.approx(stage["offset_seconds"] + stage["seconds"])
        assert row["games"] == 8 and 0 <= row["win_rate"] <= 1 and row["ratio"] == pytest.approx(4 * row["win_rate"])
    assert judged["rows"][0]["minutes"] < judged["rows"][1]["minutes"]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("first at 1.2x") if judged["first"] else last == "no stage reached 1.2x parity with the CI above it"
    bad = subprocess.run([sys.executable, "-m", "redbeard_train.recipe", "stages", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "recipe.json" in bad.stderr
    mixed = subprocess.run([sys.executable, "-m", "redbeard_train.recipe", "results", str(tmp_path / "runs" / "whole")],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert mixed.returncode == 2 and "results takes no pipeline" in mixed.stderr
