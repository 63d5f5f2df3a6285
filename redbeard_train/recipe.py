"""Training recipes as data: a chain of ``train.py`` stages, run for any table in a time budget.

A recipe is a YAML file (``configs/recipes/<name>.yaml``)::

    description: one line that says what the recipe makes
    minutes: 55                 # the whole chain's training budget (--max-minutes changes it)
    table: {game: redbeard, rules: classic, players: [4]}   # the default table (overrides: {...})
    seed: 1                     # every stage's seed (--seed changes it)
    judge: {games: 600, opponents: [pimc, heuristic], seed: 2027}
    stages:                     # or the name of a recipe whose stages to take (stages: strong)
      - name: teacher           # a name later stages refer to as @teacher
        config: classic_4p      # a train config (configs/<name>.yaml or a path)
        share: 0.15             # its share of the minutes; the shares add up to 1
        set: {total_steps: 40000000}          # config fields on top of the config
      - name: student
        config: classic_4p
        share: 0.85
        set: {prior: "", teacher: "ppo:@teacher", distill_frac: 0.3, init_from: "@teacher"}
        optional: [start_scores]  # fields dropped at tables that do not have them

``@name`` in a string value (``init_from``, ``teacher``, an ``opponents`` entry, e.g.
``ppo:@clone``) is the policy that the earlier stage ``name`` wrote. The table (game, rules,
overrides, player counts) and the seed are the pipeline's and apply to every stage; a stage
may not set them. A recipe with an unknown key, a reference to a later or missing stage,
shares that do not add up to 1, or a stage config that does not check at the table is
refused (:class:`RecipeError`, one line) before anything trains.

Time
    A stage's minutes are fixed when it starts: what is left of the chain's budget times its
    share of the shares still to run, so minutes a stage does not use (it reached its own
    ``total_steps``) go to the later ones. Inside a stage the trainer turns its minutes into
    a step count after timing its first updates (:mod:`redbeard_train.loop`), so a stopped
    stage resumes bit for bit. The judge's games come after the budget.

Outputs (``runs/<exp_name>/``)
    One trainer run directory per stage (``<i>_<name>__<seed>__<time>/``: TensorBoard logs,
    ``policy.pt``, ``checkpoint.pt``), ``recipe.json`` (the resolved stages, their status,
    budgets, timings, steps and evaluations, and the judge's results), ``final.pt`` (the last
    stage's policy, the bot: ``ppo:runs/<exp_name>/final.pt``), ``learning_curve.png`` (the
    stages' evaluations against the chain's minutes) and the judge's TensorBoard scalars in
    ``judge/``.

Resume
    ``python train.py --resume runs/<exp_name>`` reads ``recipe.json``: finished stages are
    not rerun, the running stage resumes from its checkpoint (the trainer's exact resume),
    and the chain goes on. The stages are taken from ``recipe.json``, not from the recipe
    file, so editing the file does not change a pipeline under way.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from .config import Config
from .recipe_file import (Judge, Recipe, RecipeError, Table, known_recipes, load_recipe, make_table,
                          recipe_from_dict, resolve_stages, shipped_for_table, substitute, table_text)

__all__ = ["Pipeline", "Recipe", "RecipeError", "load_recipe", "recipe_from_dict", "known_recipes", "make_table",
           "resolve_stages", "is_pipeline", "judge_stages", "main"]

#: recipe.json, the state of a pipeline
FORMAT = "redbeard-recipe"
VERSION = 1


# ====================================================================== running
def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


class Pipeline:
    """A recipe's run in ``runs/<exp_name>/``: its state is ``recipe.json``, written after
    every change, so a stop at any moment loses at most the running stage's last updates."""

    def __init__(self, root: Path, state: dict):
        self.root = root
        self.state = state

    # ------------------------------------------------------------------ creating and loading
    @classmethod
    def create(cls, recipe: Recipe, *, exp_name: str | None = None, run_dir: str = "runs", game: str | None = None,
               rules: str | None = None, overrides: dict | None = None, players: list[int] | None = None,
               minutes: float | None = None, seed: int | None = None, incumbent: str | None = None,
               judge_games: int | None = None) -> "Pipeline":
        """Check everything (table, every stage, the judge's bots, the incumbent) and write
        ``recipe.json``; nothing trains yet. A ``RecipeError`` names the first problem."""
        table = make_table(recipe, game, rules, overrides, players)
        seed = recipe.seed if seed is None else seed
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise RecipeError(f"--seed must be a whole number >= 0, got {seed!r}")
        minutes = recipe.minutes if minutes is None else minutes
        if not (isinstance(minutes, (int, float)) and math.isfinite(minutes) and minutes > 0):
            raise RecipeError(f"--max-minutes must be a finite number > 0, got {minutes!r}")
        judge = recipe.judge if judge_games is None else dataclasses.replace(recipe.judge, games=judge_games)
        if judge.games < 1:
            raise RecipeError(f"--judge-games must be >= 1, got {judge.games}")
        stages = resolve_stages(recipe, table, seed)
        name = exp_name or f"{recipe.name}__{table.game}_{table.rules}_{'-'.join(map(str, table.players))}p__{time.strftime('%Y%m%d-%H%M%S')}"
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise RecipeError(f"--exp-name must be a name without path separators, got {name!r}")
        _check_bots(table, judge, incumbent)
        root = Path(run_dir) / name
        if (root / "recipe.json").exists():
            raise RecipeError(f"{root} holds a pipeline already: resume it with --resume {root}, or choose another --exp-name")
        state = {
            "format": FORMAT, "version": VERSION, "recipe": recipe.name, "source": recipe.source,
            "description": recipe.description, "table": table.as_dict(), "seed": seed, "minutes": minutes,
            "judge": {**dataclasses.asdict(judge), "incumbent": incumbent, "results": None},
            "created": _now(), "status": "pending", "final": None,
            "stages": [{**s, "status": "pending", "dir": None, "budget_minutes": None, "offset_seconds": None,
                        "seconds": 0.0, "steps": 0, "updates": 0, "sps": None, "eval": None} for s in stages],
        }
        root.mkdir(parents=True, exist_ok=True)
        pipeline = cls(root, state)
        pipeline.save()
        return pipeline

    @classmethod
    def load(cls, root: "str | Path") -> "Pipeline":
        root = Path(root)
        path = root / "recipe.json"
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RecipeError(f"cannot resume: {path} does not exist (is {root} a pipeline's directory?)") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecipeError(f"cannot resume: {path} is not a pipeline's JSON ({exc})") from None
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise RecipeError(f"cannot resume: {path} is not a recipe pipeline (no format tag {FORMAT!r})")
        if state.get("version") != VERSION:
            raise RecipeError(f"cannot resume: {path} has version {state.get('version')}; this code reads {VERSION}")
        return cls(root, state)

    def save(self) -> None:
        tmp = self.root / "recipe.json.tmp"
        tmp.write_text(json.dumps(self.state, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.root / "recipe.json")

    # ------------------------------------------------------------------ budgets
    def used_seconds(self) -> float:
        return sum(s["seconds"] for s in self.state["stages"])

    def stage_budget(self, index: int) -> float:
        """Minutes for stage ``index``: what is left of the budget times its share of the
        shares still to run (at least a few seconds, so a late stage still trains)."""
        stages = self.state["stages"]
        left = max(self.state["minutes"] * 60.0 - sum(s["seconds"] for s in stages[:index]), 0.0)
        shares = sum(s["share"] for s in stages[index:])
        return max(left * stages[index]["share"] / shares, 5.0) / 60.0

    def policy_paths(self) -> dict[str, str]:
        return {s["name"]: str(self.root / s["dir"] / "policy.pt") for s in self.state["stages"] if s["dir"]}

    # ------------------------------------------------------------------ running
    def run(self, *, quiet: bool = False, echo: Callable[[str], None] = print, stop: Callable[[], bool] | None = None,
            judge_workers: int = 2) -> dict:
        """Run (or go on with) every stage not yet done, then the judge; returns the state.
        ``stop()``: asked after every update; True ends the running stage with a checkpoint
        and the pipeline stays resumable (``status: stopped``)."""
        from .loop import train

        stages = self.state["stages"]
        self.state["status"] = "running"
        self.save()
        bar = _PipelineBar(self, quiet)
        echo = bar.writer(echo)
        if not any(s["status"] != "pending" for s in stages):
            echo(f"pipeline {self.root.name}: recipe {self.state['recipe']}, {len(stages)} stages, "
                 f"{self.state['minutes']:g} minutes, table {table_text(self.state['table'])}")
        try:
            for i, stage in enumerate(stages):
                if stage["status"] == "done":
                    continue
                settings = substitute(stage["settings"], self.policy_paths())
                if stage["status"] == "pending":
                    stage["budget_minutes"] = self.stage_budget(i)
                    stage["offset_seconds"] = self.used_seconds()
                    settings.update(max_minutes=stage["budget_minutes"], exp_name=f"{i + 1}_{stage['name']}",
                                    run_dir=str(self.root))
                    stage["started"] = _now()
                    echo(f"stage {i + 1}/{len(stages)} {stage['name']}: starts, {stage['budget_minutes']:.1f} minutes"
                         + (f", at most {stage['steps_cap']:,} steps" if stage.get("steps_cap") else "")
                         + (f" (without {', '.join(stage['dropped'])} at this table)" if stage["dropped"] else ""))
                    resume = None
                else:
                    echo(f"stage {i + 1}/{len(stages)} {stage['name']}: resumes from {stage['dir']}")
                    settings.update(max_minutes=stage["budget_minutes"], exp_name=f"{i + 1}_{stage['name']}",
                                    run_dir=str(self.root))
                    resume = self.root / stage["dir"]
                cfg = Config(**settings)
                bar.begin(i)

                def on_update(info: dict, stage=stage) -> bool:
                    if stage["dir"] is None:  # the trainer made its directory: the stage is resumable from now on
                        stage["dir"] = Path(info["run_dir"]).name
                        stage["status"] = "running"
                    stage.update(seconds=info["seconds"], steps=info["global_step"], updates=info["update"])
                    self.save()
                    bar.update(info)
                    return bool(stop and stop())

                out = train(cfg, resume, quiet=True, callback=on_update)
                stage["dir"] = stage["dir"] or Path(out["run_dir"]).name
                stage["seconds"] = out.get("seconds", stage["seconds"])
                stage["steps"] = out.get("global_step", stage["steps"])
                stage["updates"] = out.get("updates", stage["updates"])
                if out.get("stopped"):
                    stage["status"] = "running"
                    self.state["status"] = "stopped"
                    self.save()
                    bar.close()
                    echo(f"stopped in stage {i + 1}/{len(stages)} {stage['name']} after {stage['updates']} updates; "
                         f"continue with: python train.py --resume {self.root}")
                    return self.state
                stage["sps"] = stage["steps"] / max(stage["seconds"], 1e-9)
                stage["eval"] = _eval_summary(out.get("eval"))
                stage["status"] = "done"
                stage["ended"] = _now()
                self.save()
                bar.end(i)
                ev = stage["eval"]
                echo(f"stage {i + 1}/{len(stages)} {stage['name']}: done, {stage['steps']:,} steps in "
                     f"{stage['seconds'] / 60:.1f} minutes ({stage['sps']:,.0f} steps/s)"
                     + (f", {ev['win_rate']:.3f} [{ev['win_rate_ci'][0]:.3f}, {ev['win_rate_ci'][1]:.3f}] against "
                        f"{ev['opponent']}" if ev else ""))
        except KeyboardInterrupt:
            self.state["status"] = "stopped"
            self.save()
            bar.close()
            echo(f"interrupted; continue with: python train.py --resume {self.root}")
            raise
        bar.close()
        final = self.root / "final.pt"
        shutil.copyfile(self.root / stages[-1]["dir"] / "policy.pt", final)
        self.state["final"] = final.name
        self.state["training_seconds"] = self.used_seconds()
        self.save()
        curve = write_pipeline_curve(self)
        if curve:
            echo(f"learning curve: {curve}")
        if self.state["judge"]["results"] is None:
            self.judge(echo=echo, workers=judge_workers, quiet=quiet)
        self.state["status"] = "done"
        self.save()
        return self.state

    # ------------------------------------------------------------------ the judge
    def judge(self, *, echo: Callable[[str], None] = print, workers: int = 2, quiet: bool = False) -> dict:
        """The final bot against each judge opponent at every player count of the table
        (duplicate deals), and the sequential test against the incumbent; into
        ``recipe.json``, TensorBoard (``judge/``) and the returned dict."""
        from redbeard_eval import run_tournament
        from torch.utils.tensorboard import SummaryWriter

        judge, table = self.state["judge"], self.state["table"]
        spec = f"ppo:{self.root / 'final.pt'}"
        results: dict[str, Any] = {"games": judge["games"], "seed": judge["seed"], "tables": []}
        writer = SummaryWriter(str(self.root / "judge"))
        started = time.time()
        shipped = shipped_for_table(table) if judge.get("shipped") else []
        for n in table["players"]:
            for opponent in judge["opponents"]:
                for bot in [spec] + [f"ppo:{name}" for name in shipped]:
                    res = run_tournament([bot] + [opponent] * (n - 1), game=table["game"], rules=table["rules"],
                                         overrides=table["overrides"], players=n, games=judge["games"],
                                         seed=judge["seed"], progress=not quiet, workers=workers, plots=False)
                    row = _judge_row(res, bot, n, opponent)
                    if bot != spec:
                        row["bot"] = bot
                        results.setdefault("shipped", []).append(row)
                        echo(f"       the shipped {bot} on the same deals: {row['win_rate']:.3f} "
                             f"[{row['win_rate_ci'][0]:.3f}, {row['win_rate_ci'][1]:.3f}] ({row['ratio']:.2f}x parity)")
                        continue
                    results["tables"].append(row)
                    tag = f"judge/{n}p/win_rate_vs_{opponent.replace(':', '_')}"
                    writer.add_scalar(tag, row["win_rate"], 0)
                    writer.add_scalar(tag + "_ci_low", row["win_rate_ci"][0], 0)
                    echo(f"judge: {n} players, against {n - 1} x {opponent}: {row['win_rate']:.3f} "
                         f"[{row['win_rate_ci'][0]:.3f}, {row['win_rate_ci'][1]:.3f}] over {row['games']} games "
                         f"({row['ratio']:.2f}x parity)")
        if judge.get("incumbent"):
            from redbeard_eval.sprt import run_sprt

            n = table["players"][0]
            p0, p1 = judge["sprt"] or (1.0 / n, 1.0 / n + 0.03)
            test = run_sprt(spec, judge["incumbent"], p0, p1, game=table["game"], rules=table["rules"],
                            overrides=table["overrides"], players=n, seed=judge["seed"] + 1, report=None)
            results["sprt"] = {"incumbent": judge["incumbent"], **test.as_dict()}
            writer.add_scalar("judge/sprt_win_rate_vs_incumbent", test.as_dict().get("win_rate", float("nan")), 0)
            echo(f"judge: against the incumbent {judge['incumbent']}: {test.as_dict()['decision']} "
                 f"(win rate {test.as_dict().get('win_rate', float('nan')):.4f} over {test.as_dict().get('games')} games, "
                 f"H0 p={p0:.4f}, H1 p={p1:.4f})")
        writer.close()
        results["seconds"] = time.time() - started
        judge["results"] = results
        self.save()
        return results


def _judge_row(res: dict, spec: str, n: int, opponent: str) -> dict:
    """A judged table's row: the win rate and the game's own metrics (its tournament
    metrics' ``COLUMNS``)."""
    from redbeard_env.registry import game_of_data

    me = res["agents"][spec]
    row = {"players": n, "opponent": opponent, "games": res["config"]["games"], "win_rate": me["win_rate"],
           "win_rate_ci": list(me["win_rate_ci"]), "parity": 1.0 / n, "ratio": me["win_rate"] * n,
           "ms_per_decision": me.get("ms_per_decision")}
    for _, _, key, _ in game_of_data(res["config"]).metrics_type.COLUMNS:
        if me.get(key) is not None:
            row[key] = me[key]
    return row


def _eval_summary(res: dict | None) -> dict | None:
    if not res:
        return None
    spec = next(s for s in res["agents"] if s.startswith("ppo:"))
    me = res["agents"][spec]
    others = [s for s in res["agents"] if s != spec]
    return {"win_rate": me["win_rate"], "win_rate_ci": list(me["win_rate_ci"]), "games": res["config"]["games"],
            "opponent": f"{res['config']['players'] - 1} x {others[0] if others else '?'}"}


class _PipelineBar:
    """One progress bar for the whole chain: its minutes, with the running stage's updates
    and the last evaluation in the postfix, and the chain's ETA."""

    def __init__(self, pipeline: Pipeline, quiet: bool):
        self.pipeline = pipeline
        self.bar = None
        if not quiet:
            from tqdm import tqdm

            total = pipeline.state["minutes"]
            self.bar = tqdm(total=round(total, 1), initial=round(pipeline.used_seconds() / 60, 1), unit="min",
                            desc="pipeline", dynamic_ncols=True,
                            bar_format="{desc} {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} min [{elapsed}<{remaining}{postfix}]")

    def writer(self, echo: Callable[[str], None]) -> Callable[[str], None]:
        """``echo`` that prints above the bar while it is shown."""
        def write(line: str) -> None:
            if self.bar is not None and echo is print:
                self.bar.write(line)
            else:
                echo(line)
        return write

    def begin(self, index: int) -> None:
        if self.bar is not None:
            stages = self.pipeline.state["stages"]
            self.bar.set_description(f"stage {index + 1}/{len(stages)} {stages[index]['name']}")

    def update(self, info: dict) -> None:
        if self.bar is None:
            return
        used = self.pipeline.used_seconds() / 60
        self.bar.n = round(min(used, self.bar.total), 1)
        post = {"upd": f"{info['update']}/{info['planned_updates']}" if info.get("planned_updates") else info["update"],
                "SPS": info.get("sps")}
        if info.get("eval_win") is not None:
            post["eval"] = f"{info['eval_win']:.3f}"
        self.bar.set_postfix(post, refresh=False)
        self.bar.refresh()

    def end(self, index: int) -> None:
        if self.bar is not None:
            self.bar.n = round(min(self.pipeline.used_seconds() / 60, self.bar.total), 1)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


# ====================================================================== the learning curve
def pipeline_curves(pipeline: Pipeline) -> list[tuple[str, dict]]:
    """Each finished stage's evaluations on the chain's clock (minutes since the first
    stage started)."""
    from .curve import read_curve

    out = []
    for i, stage in enumerate(pipeline.state["stages"]):
        if not stage["dir"]:
            continue
        try:
            curve = read_curve(pipeline.root / stage["dir"])
        except (ValueError, ImportError):
            continue
        offset = (stage["offset_seconds"] or 0.0) / 60.0
        curve = {**curve, "minutes": [m + offset for m in curve["minutes"]]}
        out.append((f"{i + 1} {stage['name']}", curve))
    return out


def write_pipeline_curve(pipeline: Pipeline) -> Path | None:
    """``learning_curve.png``: every stage's evaluations against the chain's minutes."""
    from .curve import plot_curves

    curves = pipeline_curves(pipeline)
    if not curves:
        return None
    try:
        return plot_curves([c for _, c in curves], [label for label, _ in curves], pipeline.root / "learning_curve.png",
                           title=f"recipe {pipeline.state['recipe']}: {table_text(pipeline.state['table'])}")
    except ImportError:
        return None


# ====================================================================== helpers
def _check_bots(table: Table, judge: Judge, incumbent: str | None) -> None:
    from agents.registry import make_agent

    for spec in judge.opponents:
        try:
            make_agent(spec, game=table.game, seed=0)
        except ValueError as exc:
            raise RecipeError(f"judge opponent {spec!r}: {exc}") from None
    if incumbent:
        try:
            make_agent(incumbent, game=table.game, seed=0)
        except ValueError as exc:
            raise RecipeError(f"--incumbent {incumbent!r}: {exc}") from None


def is_pipeline(path: "str | Path") -> bool:
    return (Path(path) / "recipe.json").is_file()


# ====================================================================== the docs' table of results
TABLE_START, TABLE_END = "<!-- recipe-results:start -->", "<!-- recipe-results:end -->"


def shipped_recipes() -> list[str]:
    """Recipes that make a shipped policy (a recipe named as the policy it makes)."""
    from agents.ppo import PRETRAINED_DIR

    return [name for name in known_recipes() if (PRETRAINED_DIR / f"{name}.pt").is_file()]


def results_rows(games: int | None = None, workers: int = 2, runs: list[str] = (), echo=print) -> list[str]:
    """Markdown rows: every shipped recipe's policy judged at the recipe's table as its judge
    says (``games`` instead of the judge's count, if given), then the judged pipelines in
    ``runs`` (their ``recipe.json``)."""
    from redbeard_eval import run_tournament

    rows = []
    for name in shipped_recipes():
        recipe = load_recipe(name)
        table = make_table(recipe)
        cells = []
        for n in table.players:
            for opponent in recipe.judge.opponents:
                res = run_tournament([f"ppo:{name}"] + [opponent] * (n - 1), game=table.game, rules=table.rules,
                                     overrides=table.overrides, players=n, games=games or recipe.judge.games,
                                     seed=recipe.judge.seed, progress=False, workers=workers, plots=False)
                row = _judge_row(res, f"ppo:{name}", n, opponent)
                cells.append(_cell(row))
                echo(f"{name}: {n} players against {opponent}: {_cell(row)}")
        rows.append(f"| `{name}` | {table_text(table.as_dict())} | {recipe.minutes:g} | {len(recipe.stages)} | "
                    f"shipped `ppo:{name}` | {'; '.join(cells)} |")
    for path in runs:
        state = Pipeline.load(path).state
        results = (state["judge"] or {}).get("results") or {}
        cells = [_cell(r) for r in results.get("tables", [])]
        rows.append(f"| `{state['recipe']}` | {table_text(state['table'])} | {state['minutes']:g} | "
                    f"{len(state['stages'])} | run `{Path(path).name}` ({state.get('training_seconds', 0) / 60:.0f} min) | "
                    f"{'; '.join(cells) or 'not judged'} |")
    return rows


def judge_stages(root: "str | Path", against: str, games: int | None = None, seed: int | None = None,
                 workers: int = 2, target: float = 1.2, echo: Callable[[str], None] = print) -> dict:
    """Every finished stage's policy against ``against`` in every other seat, at the table's
    first player count, on the same duplicate deals (the judge's game count and seed unless
    ``games`` / ``seed``): how strong the chain's bot was at each minute, and the first stage
    whose win rate reaches ``target`` x parity with the CI's lower bound above parity. Into
    ``recipe.json`` (``judge.stages``) and the returned dict."""
    from redbeard_eval import run_tournament

    pipeline = Pipeline.load(root)
    state, table = pipeline.state, pipeline.state["table"]
    games = state["judge"]["games"] if games is None else games
    if not (isinstance(games, int) and games >= 1):
        raise RecipeError(f"games must be a whole number of at least 1, got {games!r}")
    if not (isinstance(target, (int, float)) and math.isfinite(target) and target > 0):
        raise RecipeError(f"target must be a positive multiple of parity, got {target!r}")
    done = [s for s in state["stages"] if s["status"] == "done" and s.get("dir")]
    if not done:
        raise RecipeError(f"{root} has no finished stage yet")
    n = table["players"][0]
    seed = state["judge"]["seed"] if seed is None else seed
    rows, first = [], None
    for stage in state["stages"]:
        if stage not in done:
            echo(f"{stage['name']:>12s}: not finished ({stage['status']}), not judged")
            continue
        spec = f"ppo:{pipeline.root / stage['dir'] / 'policy.pt'}"
        res = run_tournament([spec] + [against] * (n - 1), game=table["game"], rules=table["rules"],
                             overrides=table["overrides"], players=n, games=games, seed=seed, progress=False,
                             workers=workers, plots=False)
        minutes = ((stage.get("offset_seconds") or 0.0) + (stage.get("seconds") or 0.0)) / 60.0
        row = {"stage": stage["name"], "minutes": minutes, **_judge_row(res, spec, n, against)}
        rows.append(row)
        lo, hi = row["win_rate_ci"]
        echo(f"{stage['name']:>12s} at {minutes:5.1f} min: {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
             f"({row['ratio']:.2f}x parity)")
        if first is None and row["ratio"] >= target and lo > row["parity"]:
            first = row
    echo(f"first at {target:g}x parity with the CI above it: {first['stage']}, at {first['minutes']:.1f} minutes"
         if first else f"no stage reached {target:g}x parity with the CI above it")
    out = {"against": against, "games": games, "seed": seed, "players": n, "target": target, "rows": rows,
           "first": first and first["stage"]}
    latest = Pipeline.load(root)  # the tournaments take minutes: keep whatever else changed meanwhile
    latest.state["judge"]["stages"] = out
    latest.save()
    return out


def _cell(row: dict) -> str:
    lo, hi = row["win_rate_ci"]
    return (f"{row['players']}p vs {row['opponent']}: {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
            f"({row['ratio']:.2f}x, {row['games']} games)")


def write_results_table(out: Path, rows: list[str], command: str) -> None:
    """Put the table between the markers of ``out`` (a Markdown file)."""
    import subprocess

    text = out.read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        raise RecipeError(f"{out} has no {TABLE_START} ... {TABLE_END} markers for the table")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    table = "\n".join([
        f"Generated {time.strftime('%Y-%m-%d')} at {commit or '?'} by `{command}` (duplicate deals of each "
        "recipe's judge seed; 95 % CIs; ratio = win rate / parity):",
        "",
        "| recipe | table | minutes | stages | bot | judged |",
        "|---|---|---:|---:|---|---|",
        *rows,
    ])
    head, _, rest = text.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    out.write_text(f"{head}{TABLE_START}\n{table}\n{TABLE_END}{tail}", encoding="utf-8")


def _given(argv: list[str] | None, *flags: str) -> bool:
    import sys

    args = sys.argv[1:] if argv is None else argv
    return any(a == f or a.startswith(f + "=") for a in args for f in flags)


def main(argv: list[str] | None = None) -> int:
    """``python -m redbeard_train.recipe results [--games N] [--runs DIR ...] [--out FILE]``:
    judge every shipped recipe's bot (and the given pipelines) and write the table of
    results into ``--out`` (default docs/training.md) between its markers.
    ``python -m redbeard_train.recipe stages runs/NAME [--against BOT] [--games N]``: every
    stage's policy of a pipeline against ``--against`` in the other seats, and the minute its
    bot first reached ``--target`` x parity."""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m redbeard_train.recipe", description=main.__doc__)
    p.add_argument("what", choices=["results", "stages"])
    p.add_argument("pipeline", nargs="?", help="stages: the pipeline directory (runs/NAME)")
    p.add_argument("--games", type=int, default=None, help="games a table (default: the recipe's judge's)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--runs", nargs="*", default=[], help="pipeline directories whose judged results join the table")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "training.md"))
    p.add_argument("--against", default="pimc", help="stages: the bot in every other seat")
    p.add_argument("--seed", type=int, default=None, help="stages: the deals' seed (default: the judge's)")
    p.add_argument("--target", type=float, default=1.2, help="stages: the win rate to reach, as a multiple of parity")
    ns = p.parse_args(argv)
    if ns.what == "results" and (ns.pipeline or _given(argv, "--against", "--seed", "--target")):
        p.error("results takes no pipeline, --against, --seed or --target (those are for stages)")
    if ns.what == "stages" and ns.runs:
        p.error("stages takes no --runs (that is for results)")
    try:
        if ns.what == "stages":
            if not ns.pipeline or not is_pipeline(ns.pipeline):
                raise RecipeError(f"stages needs a pipeline directory (one with recipe.json), got {ns.pipeline!r}")
            judge_stages(ns.pipeline, ns.against, ns.games, ns.seed, ns.workers, ns.target)
            return 0
        rows = results_rows(ns.games, ns.workers, ns.runs)
        command = "python -m redbeard_train.recipe results" + "".join(
            f" {k} {v}" for k, v in (("--games", ns.games), ("--runs", " ".join(ns.runs))) if v)
        write_results_table(Path(ns.out), rows, command)
    except (RecipeError, ValueError) as exc:
        print(f"python -m redbeard_train.recipe: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the table of {len(rows)} recipes into {ns.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
