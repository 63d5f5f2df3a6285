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
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from .config import CONFIG_DIR, FIELDS, Config, ConfigError, check_config, load_config

RECIPE_DIR = CONFIG_DIR / "recipes"
FORMAT = "redbeard-recipe"
VERSION = 1
#: fields that are the pipeline's, never a stage's
TABLE_FIELDS = ("game", "rules", "overrides", "players")
PIPELINE_FIELDS = TABLE_FIELDS + ("seed", "exp_name", "run_dir", "max_minutes", "stop_after")
#: fields whose string values may name an earlier stage's policy (``@name``)
REFERENCE_FIELDS = ("init_from", "teacher", "opponents")
REFERENCE = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)")
#: ``@shipped``: the shipped policy trained at the pipeline's table (no stage may take the name)
SHIPPED = "shipped"
RECIPE_KEYS = ("description", "minutes", "table", "seed", "judge", "stages")
STAGE_KEYS = ("name", "config", "share", "set", "optional")
JUDGE_KEYS = ("games", "opponents", "seed", "sprt", "shipped")
SHARE_TOLERANCE = 1e-6


class RecipeError(ConfigError):
    """A recipe that cannot run (the message says where and what is allowed)."""


@dataclass(frozen=True)
class Stage:
    name: str
    config: str
    share: float
    set: dict = field(default_factory=dict)
    optional: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judge:
    """The finished bot's examination: ``games`` duplicate games in one seat against each
    of ``opponents`` in every other seat, at every player count of the table, on deals of
    ``seed``; with an incumbent, a sequential test ``sprt`` = (p0, p1) (default: parity and
    parity + 0.03, a gain test). ``shipped``: the shipped policies trained for this very
    table play the same deals beside it (what the new bot is measured against)."""

    games: int = 600
    opponents: tuple[str, ...] = ("pimc", "heuristic")
    seed: int = 2027
    sprt: tuple[float, float] | None = None
    shipped: bool = False


@dataclass(frozen=True)
class Table:
    game: str
    rules: str
    overrides: dict
    players: tuple[int, ...]

    def as_dict(self) -> dict:
        return {"game": self.game, "rules": self.rules, "overrides": dict(self.overrides), "players": list(self.players)}


@dataclass(frozen=True)
class Recipe:
    name: str
    source: str
    description: str
    minutes: float
    table: Table
    seed: int
    judge: Judge
    stages: tuple[Stage, ...]


# ====================================================================== reading
def _fail(where: str, message: str):
    raise RecipeError(f"{where}: {message}")


def _keys(where: str, data: Any, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    if not isinstance(data, dict):
        _fail(where, f"must be a mapping with keys {', '.join(allowed)}, got {type(data).__name__}")
    unknown = [k for k in data if k not in allowed]
    if unknown:
        _fail(where, f"unknown key {unknown[0]!r}; allowed: {', '.join(allowed)}")
    missing = [k for k in required if k not in data]
    if missing:
        _fail(where, f"missing key {missing[0]!r}")
    return data


def _number(where: str, value: Any, low: float, *, integer: bool = False, strict: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > low if strict else value >= low) and (not integer or float(value).is_integer())
    if not ok:
        kind = "a whole number" if integer else "a finite number"
        _fail(where, f"must be {kind} {'>' if strict else '>='} {low}, got {value!r}")
    return int(value) if integer else float(value)


def recipe_path(name_or_path: str) -> Path:
    """``configs/recipes/<name>.yaml`` or a path; a ``RecipeError`` listing the recipes for
    a name that is neither."""
    path = Path(name_or_path)
    if not path.suffix:
        path = RECIPE_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        raise RecipeError(f"no recipe {name_or_path!r} (looked for {path}); known: {', '.join(known_recipes())}")
    return path


def known_recipes() -> list[str]:
    return sorted(p.stem for p in RECIPE_DIR.glob("*.yaml"))


def load_recipe(name_or_path: str) -> Recipe:
    """Read and check a recipe file's shape (keys, names, shares, references); the stages'
    configs are checked at a table by :func:`resolve_stages`."""
    path = recipe_path(name_or_path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise RecipeError(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise RecipeError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
    return recipe_from_dict(data, name=path.stem, source=str(path))


def recipe_from_dict(data: Any, name: str = "recipe", source: str = "recipe") -> Recipe:
    data = _keys(source, data, RECIPE_KEYS, required=("stages",))
    description = data.get("description", "") or ""
    if not isinstance(description, str):
        _fail(f"{source}: description", "must be text")
    minutes = _number(f"{source}: minutes", data.get("minutes", 60), 0, strict=True)
    seed = _number(f"{source}: seed", data.get("seed", 1), 0, integer=True)
    table = _keys(f"{source}: table", data.get("table") or {}, TABLE_FIELDS)
    judge_data = _keys(f"{source}: judge", data.get("judge") or {}, JUDGE_KEYS)
    judge = Judge(
        games=_number(f"{source}: judge.games", judge_data.get("games", Judge.games), 1, integer=True),
        opponents=tuple(_texts(f"{source}: judge.opponents", judge_data.get("opponents", list(Judge.opponents)))),
        seed=_number(f"{source}: judge.seed", judge_data.get("seed", Judge.seed), 0, integer=True),
        sprt=_sprt(f"{source}: judge.sprt", judge_data.get("sprt")),
        shipped=_flag(f"{source}: judge.shipped", judge_data.get("shipped", False)),
    )
    stages_data = data["stages"]
    if isinstance(stages_data, str):  # another recipe's stages, at this recipe's table, budget and judge
        if stages_data == name:
            _fail(f"{source}: stages", "a recipe cannot take its own stages")
        stages_data = [{"name": s.name, "config": s.config, "share": s.share, "set": dict(s.set),
                        "optional": list(s.optional)} for s in load_recipe(stages_data).stages]
    if not isinstance(stages_data, list) or not stages_data:
        _fail(f"{source}: stages", "must be a non-empty list of stages (or the name of a recipe whose stages to take)")
    stages: list[Stage] = []
    for i, raw in enumerate(stages_data, 1):
        where = f"{source}: stage {i}"
        raw = _keys(where, raw, STAGE_KEYS, required=("name", "config", "share"))
        stage_name = raw["name"]
        if not isinstance(stage_name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", stage_name):
            _fail(where, f"name must be an identifier (letters, digits, _), got {stage_name!r}")
        where = f"{source}: stage {stage_name!r}"
        if any(s.name == stage_name for s in stages):
            _fail(where, "a second stage of that name")
        if stage_name == SHIPPED:
            _fail(where, f"{SHIPPED!r} is the name of the shipped policy of the table (@{SHIPPED}); call the stage otherwise")
        if not isinstance(raw["config"], str) or not raw["config"]:
            _fail(where, f"config must name a train config, got {raw['config']!r}")
        share = _number(f"{where}: share", raw["share"], 0, strict=True)
        settings = _keys(f"{where}: set", raw.get("set") or {}, tuple(FIELDS))
        for key in settings:
            if key in PIPELINE_FIELDS:
                _fail(f"{where}: set", f"{key!r} is the pipeline's (the table, seed, name and budget apply to every "
                                       f"stage: give them on the command line)")
        optional = tuple(_texts(f"{where}: optional", raw.get("optional") or []))
        for key in optional:
            if key not in settings:
                _fail(f"{where}: optional", f"{key!r} is not set by this stage")
        earlier = [s.name for s in stages]
        for key, value in settings.items():
            for ref in _references(value):
                if key not in REFERENCE_FIELDS:
                    _fail(f"{where}: {key}", f"@{ref}: only {', '.join(REFERENCE_FIELDS)} may name a stage's policy")
                if ref == SHIPPED:
                    continue
                if ref == stage_name or ref not in earlier:
                    later = any(isinstance(r, dict) and r.get("name") == ref for r in stages_data[i:])
                    _fail(f"{where}: {key}", f"@{ref} is {'a later stage' if later else 'no stage'}; a stage refers "
                                             f"only to earlier ones: {', '.join(earlier) or '(none before it)'}")
        stages.append(Stage(stage_name, raw["config"], share, dict(settings), optional))
    total = sum(s.share for s in stages)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        _fail(f"{source}: stages", f"the shares add up to {total:g}, not 1 ({', '.join(f'{s.name} {s.share:g}' for s in stages)})")
    table_obj = Table(game=table.get("game", ""), rules=table.get("rules", "") or "",
                      overrides=dict(table.get("overrides") or {}), players=tuple(table.get("players") or ()))
    return Recipe(name, source, description, minutes, table_obj, seed, judge, tuple(stages))


def _texts(where: str, value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) and v for v in items):
        _fail(where, f"must be a list of non-empty strings, got {value!r}")
    return list(items)


def _flag(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        _fail(where, f"must be true or false, got {value!r}")
    return value


def _sprt(where: str, value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        _fail(where, f"must be [p0, p1], got {value!r}")
    p0, p1 = (_number(where, v, 0, strict=True) for v in value)
    if not p0 < p1 < 1:
        _fail(where, f"must be [p0, p1] with p0 < p1 < 1, got {value!r}")
    return p0, p1


def _references(value: Any) -> list[str]:
    if isinstance(value, str):
        return REFERENCE.findall(value)
    if isinstance(value, list):
        return [r for v in value for r in _references(v)]
    return []


def _substitute(value: Any, paths: dict[str, str]) -> Any:
    """``value`` with every ``@name`` replaced by that stage's policy path (a settings dict:
    in the fields that may name one)."""
    if isinstance(value, dict):
        return {k: _substitute(v, paths) if k in REFERENCE_FIELDS else v for k, v in value.items()}
    if isinstance(value, str):
        return REFERENCE.sub(lambda m: paths[m.group(1)], value)
    if isinstance(value, list):
        return [_substitute(v, paths) for v in value]
    return value


# ====================================================================== the table
def make_table(recipe: Recipe, game: str | None = None, rules: str | None = None, overrides: dict | None = None,
               players: list[int] | None = None) -> Table:
    """The recipe's default table with the command line's changes. Naming another game
    starts from that game's default preset, without the recipe's overrides."""
    from redbeard_env.registry import game_named, registered_games

    base = recipe.table
    default_game = base.game or registered_games()[0]
    chosen = game or default_game
    try:
        info = game_named(chosen)
    except ValueError as exc:
        raise RecipeError(f"--game: {exc}") from None
    same_game = info.name == default_game
    table_rules = rules or (base.rules if same_game and base.rules else info.default_rules)
    table_overrides = dict(base.overrides) if same_game and not rules else {}
    table_overrides.update(overrides or {})
    table_players = tuple(players) if players else (base.players if base.players else (4,))
    lo, hi = info.player_range
    if not players and not all(lo <= n <= hi for n in table_players):
        table_players = (max(lo, min(hi, 4)),)
    return Table(info.name, table_rules, table_overrides, table_players)


# ====================================================================== resolving stages
def stage_settings(recipe: Recipe, stage: Stage, table: Table, seed: int) -> dict:
    """The stage's config as plain values, references still as ``@name``: its config file,
    its ``set``, then the pipeline's table and seed."""
    cfg = load_config(stage.config)
    data = dataclasses.asdict(cfg)
    data.update(stage.set)
    data.update(table.as_dict(), seed=seed)
    data["max_minutes"] = 0.0  # fixed when the stage starts
    data["stop_after"] = 0
    return data


def check_stage(data: dict, stage: Stage, where: str) -> tuple[dict, list[str]]:
    """Check a stage's settings at its table, references replaced by stand-ins (their
    policies do not exist yet). Returns the settings without the optional fields the
    table does not take, and those fields' names."""
    dropped: list[str] = []
    while True:
        trial = dict(data)
        for key in REFERENCE_FIELDS:
            value = trial.get(key)
            if key == "init_from" and _references(value):
                trial[key] = ""
            elif key == "teacher" and _references(value):
                trial[key] = "heuristic"
            elif key == "opponents":
                kept = [v for v in value if not _references(v)]
                trial[key] = kept or ["heuristic"]
        try:
            check_config(Config(**trial))
            return data, dropped
        except ConfigError as exc:
            name = getattr(exc, "field", None)
            if name in stage.optional and name not in dropped:
                data = {**data, name: dataclasses.asdict(Config())[name]}
                dropped.append(name)
                continue
            raise RecipeError(f"{where}: {exc}") from None


def resolve_stages(recipe: Recipe, table: Table, seed: int) -> list[dict]:
    """Every stage's settings at ``table``, checked before anything trains; a list of
    ``{"name", "share", "settings", "dropped"}``."""
    out = []
    for stage in recipe.stages:
        where = f"recipe {recipe.name!r}, stage {stage.name!r}"
        try:
            data = stage_settings(recipe, stage, table, seed)
        except ConfigError as exc:
            raise RecipeError(f"{where}: {exc}") from None
        if SHIPPED in _references([data.get(k) for k in REFERENCE_FIELDS]):
            shipped = shipped_for_table(table.as_dict())
            if not shipped:
                raise RecipeError(f"{where}: @{SHIPPED} is the shipped policy trained at this table "
                                  f"({_table_text(table.as_dict())}), and there is none; use a recipe that trains its "
                                  f"own teacher, e.g. --recipe strong")
            data = _substitute(data, {SHIPPED: shipped[0]})
        data, dropped = check_stage(data, stage, where)
        out.append({"name": stage.name, "share": stage.share, "settings": data, "dropped": dropped,
                    "steps_cap": data["total_steps"] if "total_steps" in stage.set else None})
    return out


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
                 f"{self.state['minutes']:g} minutes, table {_table_text(self.state['table'])}")
        try:
            for i, stage in enumerate(stages):
                if stage["status"] == "done":
                    continue
                settings = _substitute(stage["settings"], self.policy_paths())
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
    me = res["agents"][spec]
    row = {"players": n, "opponent": opponent, "games": res["config"]["games"], "win_rate": me["win_rate"],
           "win_rate_ci": list(me["win_rate_ci"]), "parity": 1.0 / n, "ratio": me["win_rate"] * n,
           "ms_per_decision": me.get("ms_per_decision")}
    for key in ("contract_rate", "exact_rate", "bid_error", "bid_bias", "join_rate"):
        if me.get(key) is not None:
            row[key] = me[key]
    return row


def shipped_for_table(table: dict) -> list[str]:
    """Names of the shipped policies trained at ``table`` (as their files record it,
    :func:`agents.ppo.fits_table`): at each of its player counts and at no other."""
    from agents.ppo import PRETRAINED_DIR, fits_table, read_payload, trained_table
    from redbeard_env.registry import game_named

    rules = game_named(table["game"]).make_rules(table["rules"], **table["overrides"])
    out = []
    for path in sorted(PRETRAINED_DIR.glob("*.pt")):
        try:
            trained = trained_table(read_payload(path))
        except ValueError:
            continue
        if set(trained.players) == set(table["players"]) and \
                all(fits_table(trained, table["game"], rules, n) for n in table["players"]):
            out.append(path.stem)
    return out


def _eval_summary(res: dict | None) -> dict | None:
    if not res:
        return None
    spec = next(s for s in res["agents"] if s.startswith("ppo:"))
    me = res["agents"][spec]
    others = [s for s in res["agents"] if s != spec]
    return {"win_rate": me["win_rate"], "win_rate_ci": list(me["win_rate_ci"]), "games": res["config"]["games"],
            "opponent": f"{res['config']['players'] - 1} x {others[0] if others else '?'}"}


def _table_text(table: dict) -> str:
    over = " ".join(f"{k}={v}" for k, v in table["overrides"].items())
    return f"{table['game']} {table['rules']}{' ' + over if over else ''}, {'/'.join(map(str, table['players']))} players"


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
                           title=f"recipe {pipeline.state['recipe']}: {_table_text(pipeline.state['table'])}")
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
        rows.append(f"| `{name}` | {_table_text(table.as_dict())} | {recipe.minutes:g} | {len(recipe.stages)} | "
                    f"shipped `ppo:{name}` | {'; '.join(cells)} |")
    for path in runs:
        state = Pipeline.load(path).state
        results = (state["judge"] or {}).get("results") or {}
        cells = [_cell(r) for r in results.get("tables", [])]
        rows.append(f"| `{state['recipe']}` | {_table_text(state['table'])} | {state['minutes']:g} | "
                    f"{len(state['stages'])} | run `{Path(path).name}` ({state.get('training_seconds', 0) / 60:.0f} min) | "
                    f"{'; '.join(cells) or 'not judged'} |")
    return rows


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


def main(argv: list[str] | None = None) -> int:
    """``python -m redbeard_train.recipe results [--games N] [--runs DIR ...] [--out FILE]``:
    judge every shipped recipe's bot (and the given pipelines) and write the table of
    results into ``--out`` (default docs/training.md) between its markers."""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m redbeard_train.recipe", description=main.__doc__)
    p.add_argument("what", choices=["results"])
    p.add_argument("--games", type=int, default=None, help="games a table (default: each recipe's judge's)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--runs", nargs="*", default=[], help="pipeline directories whose judged results join the table")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "training.md"))
    ns = p.parse_args(argv)
    try:
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
