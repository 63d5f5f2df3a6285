"""A recipe file: its format, its table and its stages resolved at that table.

The format, with an example, is in :mod:`redbeard_train.recipe` (which runs recipes) and
docs/training.md. This module reads a recipe (:func:`load_recipe`), refusing a bad one in
one line (:class:`RecipeError`), makes the table a pipeline trains at (:func:`make_table`)
and resolves every stage's config at it (:func:`resolve_stages`), all before anything
trains.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .config import CONFIG_DIR, FIELDS, Config, ConfigError, check_config, load_config


RECIPE_DIR = CONFIG_DIR / "recipes"
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


def substitute(value: Any, paths: dict[str, str]) -> Any:
    """``value`` with every ``@name`` replaced by that stage's policy path (a settings dict:
    in the fields that may name one)."""
    if isinstance(value, dict):
        return {k: substitute(v, paths) if k in REFERENCE_FIELDS else v for k, v in value.items()}
    if isinstance(value, str):
        return REFERENCE.sub(lambda m: paths[m.group(1)], value)
    if isinstance(value, list):
        return [substitute(v, paths) for v in value]
    return value


# ====================================================================== the table
def make_table(recipe: Recipe, game: str | None = None, rules: str | None = None, overrides: dict | None = None,
               players: list[int] | None = None) -> Table:
    """The recipe's default table with the command line's changes. Naming another game
    starts from that game's default preset, without the recipe's overrides."""
    from redbeard_env.registry import as_game, game_named

    base = recipe.table
    default_game = as_game(base.game or None).name
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
                                  f"({table_text(table.as_dict())}), and there is none; use a recipe that trains its "
                                  f"own teacher, e.g. --recipe strong")
            data = substitute(data, {SHIPPED: shipped[0]})
        data, dropped = check_stage(data, stage, where)
        out.append({"name": stage.name, "share": stage.share, "settings": data, "dropped": dropped,
                    "steps_cap": data["total_steps"] if "total_steps" in stage.set else None})
    return out




# ====================================================================== shipped policies
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


def table_text(table: dict) -> str:
    over = " ".join(f"{k}={v}" for k, v in table["overrides"].items())
    return f"{table['game']} {table['rules']}{' ' + over if over else ''}, {'/'.join(map(str, table['players']))} players"
