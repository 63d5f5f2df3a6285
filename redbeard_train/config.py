"""The training configuration: one typed dataclass, checked in full before a run starts.

A config comes from ``configs/<name>.yaml`` (or a path) and command-line flags on top
(``--total-steps 2e6 --players 3 4 5``); the flags are generated from :class:`Config` by
tyro, so ``python train.py --help`` shows every field's meaning (the docstring under the
field), type and default. Every value is type- and range-checked when the config is
loaded (:func:`check_config`): a bad one is a :class:`ConfigError` naming the field, the
value and what is allowed, before anything is written.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro
import yaml
from tyro.constructors import PrimitiveConstructorSpec

from redbeard_env.common import MAX_NUM_ENVS, parse_overrides
from redbeard_env.registry import LEGACY_GAME, Game, game_named, registered_games

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
#: fields a resumed run may change: its budget and where this invocation stops
RESUME_FIELDS = ("total_steps", "max_minutes", "stop_after", "backend", "ray_address")


class ConfigError(ValueError):
    """A config value that is not allowed (the message names field, value and rule;
    ``field`` is the field's name where one field is at fault)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def whole_number(text: str) -> int:
    """``"2e6"`` -> 2000000; a number with a fraction is an error, not rounded."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"expected a whole number, got {text!r}") from None
    if not math.isfinite(value) or value != int(value):
        raise ValueError(f"expected a whole number, got {text!r}")
    return int(value)


def _parsed_or_text(parse, text: str):
    try:
        return parse(text)
    except ValueError:
        return text  # check_config names the field and what it allows, in one line


def _boolean(text: str) -> bool:
    words = {"true": True, "false": False}
    if text.lower() not in words:
        raise ValueError(text)
    return words[text.lower()]


def _flag(metavar: str, parse, many: bool = False):
    """How tyro reads a field's flag: with ``parse``, keeping text it cannot read so that
    :func:`check_config` reports it (one line, like a bad value in a config file)."""
    if many:
        return PrimitiveConstructorSpec(
            nargs="*", metavar=metavar, instance_from_str=lambda args: [_parsed_or_text(parse, a) for a in args],
            is_instance=lambda x: isinstance(x, list), str_from_instance=lambda x: [str(v) for v in x])
    return PrimitiveConstructorSpec(
        nargs=1, metavar=metavar, instance_from_str=lambda args: _parsed_or_text(parse, args[0]),
        is_instance=lambda x: True, str_from_instance=lambda x: [str(x)])


# Field types as tyro reads them: counts may be written 2e6, rules overrides as
# FIELD=VALUE items (one parser for such items: rules.py's).
Count = Annotated[int, _flag("INT", whole_number)]
Number = Annotated[float, _flag("FLOAT", float)]
Flag = Annotated[bool, _flag("{True,False}", _boolean)]
Counts = Annotated[list[int], _flag("INT", whole_number, many=True)]
Texts = Annotated[list[str], _flag("STR", str, many=True)]
Overrides = Annotated[dict, PrimitiveConstructorSpec(
    nargs="*", metavar="FIELD=VALUE", instance_from_str=lambda args: _parsed_or_text(parse_overrides, args),
    is_instance=lambda x: isinstance(x, dict), str_from_instance=lambda d: [f"{k}={v}" for k, v in d.items()])]


def _choice(*choices: str):
    return Annotated[Literal[choices], _flag("{" + ",".join(choices) + "}", str)]


Prior = str  # checked against the game's priors (agents.ppo.check_prior)
Critic = _choice("shared", "privileged")
GameName = _choice(*registered_games())
#: the help of game and rules: the registered games and their presets, from the registry
_GAMES = [game_named(g) for g in registered_games()]
GAME_HELP = "The game: " + "; ".join(f"{g.name} ({g.title})" for g in _GAMES) + "; bot specs are that game's."
RULES_HELP = ("Rules preset of the game (" + "; ".join(f"{g.title}: {', '.join(g.presets)}" for g in _GAMES)
              + '); "" = the game\'s default preset.')
Reward = _choice("win", "shaped")
Backend = _choice("local", "ray")
UpdateDtype = _choice("float32", "bfloat16", "auto")


@dataclass
class Config:
    """PPO self-play training run. Every field can be set in configs/<name>.yaml and on the
    command line (``--total-steps 2e6``, ``--players 3 4 5``, ``--overrides leader=trick_winner``)."""

    exp_name: str = "classic_4p"
    """Name of the run (the config file's name by default); prefixes the run directory."""
    seed: Count = 1
    """Seeds the engines, the opponent pool and torch."""
    game: Annotated[GameName, tyro.conf.arg(help=GAME_HELP)] = LEGACY_GAME
    rules: Annotated[str, tyro.conf.arg(help=RULES_HELP)] = ""
    overrides: Overrides = field(default_factory=dict)
    """Rules fields changed on top of the preset, e.g. leader=trick_winner."""
    players: Counts = field(default_factory=lambda: [4])
    """Player counts (within the game's range), one batch of games each."""
    device: str = "cpu"
    """Torch device: cpu or cuda[:N]."""
    torch_threads: Count = 2
    """Intra-op torch threads of the learner's update on the CPU (2 suits a 2-core machine running nothing else;
    rollouts always use one thread)."""
    total_steps: Count = 20_000_000
    """Environment steps of the run (decisions of all seats)."""
    num_envs: Count = 1024
    """Games in lock-step per player count."""
    num_steps: Count = 32
    """Environment steps per rollout."""
    hidden: Counts = field(default_factory=lambda: [256, 256])
    """Widths of the network's hidden layers."""
    prior: Prior = ""
    """Bot whose action utilities the policy builds on ("" = none, the network alone; see agents/ppo.py). A prior
    bot needs that bot at every decision of play; the shipped prior-free bots learn from one as a teacher."""
    prior_scale: Number = 2.0
    """Initial weight of the prior in the logits (learned from there); > 0."""
    critic: Critic = "shared"
    """shared: the value head on the policy's torso; privileged: an asymmetric critic, its own network over the
    features and every player's hand (from the engine; the policy never sees them), used for the advantages."""
    belief: Flag = False
    """A belief head that predicts where each card is (which seat holds it, or none) from the features, trained on
    the true deal (belief_coef); its probabilities join the policy's input."""
    belief_coef: Number = 0.5
    """Weight of the belief head's cross-entropy loss."""
    teacher: str = ""
    """A bot of the game (e.g. pimc:samples=8 or heuristic) the policy imitates during the first distill_frac of the
    run: a cross-entropy loss on the teacher's action at the learner's own decisions ("" = none)."""
    distill_frac: Number = 0.0
    """Share of the run (steps or minutes) with the teacher's loss, its weight falling linearly from distill_coef to
    0; in [0, 1]."""
    distill_coef: Number = 1.0
    """Weight of the teacher's loss at the start of the run."""
    teacher_share: Number = 1.0
    """Share of the learner's decisions the teacher labels (a search teacher is expensive), in (0, 1]."""
    learning_rate: Number = 1e-3
    """Adam learning rate at the start."""
    anneal_lr: Flag = True
    """Decay the learning rate linearly to 0 over the run (total_steps or max_minutes)."""
    gamma: Number = 0.999
    """Discount per learner decision, in [0, 1]."""
    gae_lambda: Number = 0.95
    """GAE lambda, in [0, 1]."""
    num_minibatches: Count = 8
    """Minibatches per epoch."""
    update_epochs: Count = 3
    """Passes over each rollout."""
    clip_coef: Number = 0.2
    """PPO clip range of the probability ratio (and of the value change)."""
    ent_coef: Number = 0.003
    """Entropy bonus weight."""
    vf_coef: Number = 0.5
    """Value loss weight."""
    max_grad_norm: Number = 0.5
    """Gradient norm clip."""
    target_kl: Number = 0.0
    """Stop an update's epochs above this approximate KL (0 = never)."""
    norm_adv: Flag = True
    """Normalise advantages per minibatch."""
    update_dtype: UpdateDtype = "float32"
    """Number format of the first (largest) layer of each network (policy torso, privileged critic, belief head) in
    the PPO update: bfloat16 halves its cost on a CPU with bfloat16 matrix units (Intel AMX, AVX512-BF16) and doubles
    it where they are missing; auto: bfloat16 on such a CPU, float32 elsewhere (decided when the run starts and saved
    with it, so a resume keeps it). The rollout's network passes take the same format, so the log-probabilities a
    batch stores are the update's own; the other layers, the teacher and the saved weights stay float32."""
    reward: Reward = "shaped"
    """win: the env's terminal reward; shaped: plus shaping_coef x each round's progress, as the game's training
    part measures it (agents/<game>/training.py: round_gain)."""
    shaping_coef: Number = 0.5
    """Weight of the shaped reward."""
    start_scores: Counts = field(default_factory=list)
    """[LO, HI] starts a share (start_scores_share) of the training games with each seat on a score drawn uniformly
    from LO..HI instead of the start score, in a game whose training part can (its start_games; the range it allows:
    its check_start_scores): more of the decisions where games are won. [] = off. The first games of a run start at
    the start score; every game counts alike in the opponent pool's win rates; evaluations play ordinary games."""
    start_scores_share: Number = 0.5
    """Share of the training games that start_scores starts near 0, in [0, 1]."""
    opponents: Texts = field(default_factory=lambda: ["heuristic"])
    """Agent specs in the opponent pool (e.g. heuristic, pimc:samples=16, ppo:classic_4p)."""
    self_play_frac: Number = 0.2
    """Share of games in which the learner plays every seat, in [0, 1]."""
    snapshot_every: Count = 25
    """Updates between frozen snapshots of the learner entering the pool (0 = none)."""
    pool_size: Count = 6
    """Most snapshots kept in the pool."""
    pfsp_power: Number = 2.0
    """Prioritised opponent sampling: weight (1 - win share) ** pfsp_power."""
    eval_every: Count = 50
    """Updates between evaluations against heuristic bots (0 = only at the end)."""
    eval_games: Count = 400
    """Duplicate games per evaluation (0 = no evaluation)."""
    checkpoint_every: Count = 10
    """Updates between checkpoints (0 = only at the end)."""
    run_dir: str = "runs"
    """Parent directory of the run directories."""
    init_from: str = ""
    """Start from the weights of a policy checkpoint (path or shipped name)."""
    stop_after: Count = 0
    """End this invocation after this many updates; --resume continues (0 = run to the end)."""
    rollout_workers: Count = 1
    """Workers the games are split over (each plays num_envs / rollout_workers games per
    player count); a run is the same for a fixed seed and worker count on either backend."""
    backend: Backend = "local"
    """Where rollout workers run: local (threads of this process, in parallel: the engine,
    bots and network release the GIL) or ray (Ray actors, in parallel)."""
    ray_address: str = ""
    """Ray cluster to join with backend ray ("" = $RAY_ADDRESS, else an embedded local Ray)."""
    max_minutes: Number = 0.0
    """Wall-clock budget of the run, resumes added up (0 = none); the learning rate anneals
    over steps or time, whichever runs out first (a time budget makes the schedule, and so
    the run, depend on the machine's speed)."""


FIELDS = {f.name: f for f in dataclasses.fields(Config)}
_TYPES = typing.get_type_hints(Config)


# ---------------------------------------------------------------------- checking
def _fail(name: str, value: Any, allowed: str) -> typing.NoReturn:
    raise ConfigError(f"config field {name!r} = {value!r}: {allowed}", field=name)


def _coerce(name: str, value: Any) -> Any:
    """A YAML or Python value as the field's type (2e7 and "2e7" for a count are fine,
    "maybe" for a boolean is not)."""
    kind = _TYPES[name]
    origin = typing.get_origin(kind)
    if kind is bool:
        if not isinstance(value, bool):
            _fail(name, value, "must be true or false")
        return value
    if kind is int:
        if isinstance(value, bool):
            _fail(name, value, "must be a whole number")
        try:
            return whole_number(value) if not isinstance(value, int) else value
        except ValueError:
            _fail(name, value, "must be a whole number")
    if kind is float:
        if isinstance(value, bool):
            _fail(name, value, "must be a number")
        try:
            value = float(value)
        except (TypeError, ValueError):
            _fail(name, value, "must be a number")
        if not math.isfinite(value):
            _fail(name, value, "must be a finite number")
        return value
    if kind is str:
        if value is None:  # YAML's empty value, e.g. "prior:" for no prior
            return ""
        if not isinstance(value, str):
            _fail(name, value, "must be a string")
        return value
    if origin is Literal:
        choices = typing.get_args(kind)
        if value is None and "" in choices:
            value = ""
        if value not in choices:
            _fail(name, value, f"allowed: {', '.join(repr(c) for c in choices)}")
        return value
    if origin is list:
        (item,) = typing.get_args(kind)
        items = value if isinstance(value, list) else [value]
        if item is int:
            out = []
            for v in items:
                if isinstance(v, bool):
                    _fail(name, value, "must be a list of whole numbers")
                try:
                    out.append(v if isinstance(v, int) else whole_number(v))
                except ValueError:
                    _fail(name, value, "must be a list of whole numbers")
            return out
        if not all(isinstance(v, str) for v in items):
            _fail(name, value, "must be a list of strings")
        return list(items)
    if kind is dict:
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            _fail(name, value, "must be rules fields with values (FIELD=VALUE items on the command line)")
        return dict(value)
    raise AssertionError(f"no check for the type of {name}: {kind}")  # pragma: no cover


def check_config(cfg: Config) -> Config:
    """Every field's type and range, the rules, the player counts and the opponent specs;
    the first problem is a :class:`ConfigError`. Returns the config with values coerced to
    their types."""
    cfg = dataclasses.replace(cfg, **{name: _coerce(name, getattr(cfg, name)) for name in FIELDS})

    def at_least(name: str, low: int | float) -> None:
        if not getattr(cfg, name) >= low:
            _fail(name, getattr(cfg, name), f"must be >= {low}")

    def fraction(name: str) -> None:
        if not 0.0 <= getattr(cfg, name) <= 1.0:
            _fail(name, getattr(cfg, name), "must be in [0, 1]")

    def positive(name: str) -> None:
        if not getattr(cfg, name) > 0:
            _fail(name, getattr(cfg, name), "must be > 0")

    if not cfg.exp_name or "/" in cfg.exp_name or "\\" in cfg.exp_name:
        _fail("exp_name", cfg.exp_name, "must be a non-empty name without path separators")
    for name in ("total_steps", "num_envs", "num_steps", "num_minibatches", "update_epochs", "torch_threads", "rollout_workers"):
        at_least(name, 1)
    for name in ("seed", "snapshot_every", "pool_size", "eval_every", "eval_games", "checkpoint_every", "stop_after",
                 "ent_coef", "vf_coef", "target_kl", "pfsp_power", "max_minutes", "belief_coef", "distill_coef"):
        at_least(name, 0)
    for name in ("gamma", "gae_lambda", "self_play_frac", "distill_frac"):
        fraction(name)
    if not 0.0 < cfg.teacher_share <= 1.0:
        _fail("teacher_share", cfg.teacher_share, "must be in (0, 1]")
    if cfg.distill_frac > 0 and not cfg.teacher:
        _fail("distill_frac", cfg.distill_frac, "needs a teacher (e.g. --teacher pimc:samples=8)")
    if cfg.teacher and cfg.distill_frac <= 0:
        _fail("teacher", cfg.teacher, "teaches only during distill_frac of the run: set distill_frac > 0 (or no teacher)")
    for name in ("learning_rate", "prior_scale", "clip_coef", "max_grad_norm"):
        positive(name)
    if cfg.num_envs > MAX_NUM_ENVS:  # a batch engine's bound (its arrays would not fit)
        _fail("num_envs", cfg.num_envs, f"must be <= {MAX_NUM_ENVS}")
    if cfg.rollout_workers > cfg.num_envs:
        _fail("rollout_workers", cfg.rollout_workers, f"must be <= num_envs ({cfg.num_envs}): every worker plays games")
    if cfg.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            _fail("backend", cfg.backend, "needs Ray: pip install -e '.[ray]'")
    if not cfg.hidden or min(cfg.hidden) < 1:
        _fail("hidden", cfg.hidden, "must be a non-empty list of layer widths >= 1")
    if cfg.device != "cpu" and not cfg.device.startswith("cuda"):
        _fail("device", cfg.device, "allowed: cpu, cuda or cuda:N")
    info = game_named(cfg.game)  # the config's game, resolved once for its checks
    if info.vector_env is None:
        _fail("game", cfg.game, f"{info.title} has no batch engine, which the trainer plays on")
    if not cfg.rules:
        cfg = dataclasses.replace(cfg, rules=info.default_rules)
    if cfg.rules not in info.presets:
        _fail("rules", cfg.rules, f"allowed for game {cfg.game!r}: {', '.join(info.presets)}")
    try:
        info.make_rules(cfg.rules, **cfg.overrides)
    except ValueError as exc:
        _fail("overrides", cfg.overrides, str(exc))
    from agents.registry import training_of  # the game's training part, without importing torch

    training = training_of(info)
    if cfg.start_scores:
        check = getattr(training, "check_start_scores", None)
        if check is None:
            _fail("start_scores", cfg.start_scores, f"{info.title}'s training part starts no games at chosen scores")
        if len(cfg.start_scores) != 2:
            _fail("start_scores", cfg.start_scores, "must be [LO, HI], or [] (off)")
        try:
            check(info.make_rules(cfg.rules, **cfg.overrides), *cfg.start_scores)
        except ValueError as exc:
            _fail("start_scores", cfg.start_scores, str(exc))
    fraction("start_scores_share")
    if not cfg.players:
        _fail("players", cfg.players, "must name at least one player count")
    lo, hi = info.player_range
    for n in cfg.players:
        if not lo <= n <= hi:
            _fail("players", cfg.players, f"each player count must be in {lo}..{hi}")
    if len(set(cfg.players)) != len(cfg.players):
        _fail("players", cfg.players, "each player count at most once")
    priors = training.PRIORS
    if cfg.prior not in priors:
        _fail("prior", cfg.prior, f"unknown policy prior {cfg.prior!r} for {cfg.game}; allowed: {', '.join(map(repr, priors))}")
    for spec in cfg.opponents:
        check_opponent(spec, info)
    if cfg.teacher:
        check_opponent(cfg.teacher, info, field="teacher")
    return cfg


def check_opponent(spec: str, game: "Game | str", field: str = "opponents") -> None:
    """A bot spec (an opponent, the teacher) must build (a ppo: spec loads its checkpoint,
    safely) and play the game."""
    from agents.registry import make_agent

    try:
        make_agent(spec, game=game, seed=0)
    except ValueError as exc:
        _fail(field, spec, str(exc))


# ---------------------------------------------------------------------- loading
def load_config(name_or_path: str) -> Config:
    """``configs/<name>.yaml`` or a YAML path -> a checked :class:`Config`."""
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
        raise ConfigError(f"no config {name_or_path!r} (looked for {path}); known: {known}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
                          f"save it as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(f"{path} is not valid YAML: {' '.join(str(exc).split())[:300]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of config fields, got {type(data).__name__}")
    return from_dict({"exp_name": path.stem, **data}, source=str(path))


def from_dict(data: dict, source: str = "config") -> Config:
    """A checked :class:`Config` from plain values (a YAML file's, or a checkpoint's)."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ConfigError(f"{source}: unknown config field(s) {unknown}; allowed: {sorted(FIELDS)}")
    return check_config(Config(**data))


def resume_changes(saved: Config, asked: Config) -> Config:
    """The saved run's config with the budget of ``asked``; any other difference is a
    :class:`ConfigError` (a resumed run continues the same experiment)."""
    changed = [f for f in FIELDS if getattr(saved, f) != getattr(asked, f) and f not in RESUME_FIELDS]
    if changed:
        what = ", ".join(f"{f} ({getattr(saved, f)!r} -> {getattr(asked, f)!r})" for f in changed)
        raise ConfigError(f"a resumed run keeps its config; only {', '.join(RESUME_FIELDS)} may change, "
                          f"but these differ: {what}. Start a new run (optionally --init-from its policy.pt) instead")
    return dataclasses.replace(saved, **{f: getattr(asked, f) for f in RESUME_FIELDS})
