"""Bot spec strings -> bots, resolved within the game being played.

A spec is ``name`` or ``name:arg,key=value,...``::

    random                     uniform over legal actions (every game)
    random:seed=3
    heuristic                  the game's rule-based bot (agents/<game>/heuristic.py)
    heuristic:win_value=6      any keyword of the bot's constructor
    pimc                       the game's determinised search (agents/<game>/pimc.py)
    pimc:samples=128,horizon=round
    ppo:classic_4p             a trained policy: a shipped name or a checkpoint path (every
                               game; the checkpoint says which game it plays)

The part after ``:`` is a comma-separated list of ``key=value`` items; a bare item is the
bot's first positional argument (``ppo:<checkpoint or name>``). Values are Python
literals when they parse as one (``128``, ``0.5``, ``True``), else strings.

Which bot a name means depends on the game: ``make_agent("heuristic", game="sortskaeg")``
is Sortskæg's heuristic. Names are looked up among the bots added with :func:`register` for
that game, then in the game's bots (the ``BOTS`` mapping of the module its registry entry
names, ``agents.<game>``, entries ``"module:factory"``, imported on first use), then among
the bots registered for every game, then in :data:`SHARED_BOTS` (so a registered name
shadows a shipped one). A name that only another game knows is refused with one line
naming that game; a game's ``ALIASES`` keep old flat names working
(``sortskaeg_heuristic``). A ``game`` is a registered ``Game`` or its name, resolved once
here and passed down as the object (to a factory that takes a ``game``); without one, an
alias means its own game and anything else :data:`~redbeard_env.registry.LEGACY_GAME` (calls
from before games had names). A bot of every game made without a ``game`` picks its own
(``ppo:`` the checkpoint's). A factory returns an :class:`~agents.base.Agent` (the interface
is in :mod:`agents.base`); the bot's ``game`` attribute names what it plays.

Every shipped bot declares its parameters (:mod:`agents.params`: a ``PARAMS`` table of
types and allowed values, and a ``COST`` a decision costs), and :func:`check_spec` checks
a spec against the declaration before anything is built: an unknown parameter, a value of
the wrong type or out of range (``heuristic:bid_samples=0``, ``trump_factor=1e308``), a
nested bot spec (``pimc:rollout=<spec>``) that is itself bad or nests more than
:data:`~agents.params.MAX_NESTING` deep is a one-line ``ValueError`` naming the parameter
and what it allows. :func:`make_agent` checks every spec so (the library, ``evaluate.py``,
``train.py`` opponents and teachers, the web table alike); :func:`spec_cost` is what a
decision of a spec costs, nested bots included (a table's budget reads it).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from redbeard_env.common import parse_literal
from redbeard_env.registry import LEGACY_GAME, Game, as_game, load_object, registered_games

from .base import Agent
from .params import MAX_NESTING, Param

#: bots of every game: name -> "module:factory" (imported on first use, so ``ppo`` costs
#: no torch import until a ``ppo:`` spec is made)
SHARED_BOTS: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "ppo": "agents.ppo:PPOAgent",  # trained policies
    "sb3": "agents.sb3_agent:MaskablePPOAgent",  # a saved sb3-contrib MaskablePPO model (sb3 extra)
}
#: bots added at run time: (game or None for every game, name) -> factory
_REGISTERED: dict[tuple[str | None, str], Callable[..., Agent]] = {}


def _quote(text: Any, limit: int = 100) -> str:
    """``repr`` of a client's text, cut to ``limit`` characters (an error never repeats a
    whole long input)."""
    text = str(text)
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


@dataclass(frozen=True)
class Spec:
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    text: str = ""


def register(name: str, factory: Callable[..., Agent] | None = None, *, game: "Game | str | None" = None,
             overwrite: bool = False):
    """Register ``factory(*args, **kwargs) -> Agent`` under ``name`` for ``game`` (None:
    every game); usable as a decorator."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"agent name must be alphanumeric (with _ or -), got {_quote(name)}")
    if game is not None:
        game = as_game(game).name  # ValueError for an unknown game

    def add(f):
        key = (game, name.lower())
        if key in _REGISTERED and _REGISTERED[key] is not f and not overwrite:
            raise ValueError(f"agent name {_quote(name)} is already registered")
        _REGISTERED[key] = f
        return f

    return add if factory is None else add(factory)


def parse_spec(spec: str) -> Spec:
    """Split a spec string; a malformed one raises ``ValueError`` saying what is expected."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string like 'heuristic' or 'pimc:samples=128', got {_quote(spec)}")
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"bad agent spec {_quote(spec)}: the name before ':' must be alphanumeric, e.g. 'pimc:samples=128'")
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    if rest.strip():
        for item in rest.split(","):
            item = item.strip()
            if not item:
                raise ValueError(f"bad agent spec {_quote(spec)}: empty item between commas")
            if "=" in item:
                key, value = (x.strip() for x in item.split("=", 1))
                if not key.isidentifier():
                    raise ValueError(f"bad agent spec {_quote(spec)}: {_quote(key)} is not a parameter name")
                if key in kwargs:
                    raise ValueError(f"bad agent spec {_quote(spec)}: parameter {_quote(key)} given twice")
                try:
                    kwargs[key] = parse_literal(value)
                except (MemoryError, RecursionError):  # the parser's own limits (deep nesting)
                    raise ValueError(f"bad agent spec {_quote(spec)}: the value of {_quote(key, 40)} is nested too "
                                     f"deeply") from None
            else:
                if kwargs or args:
                    raise ValueError(
                        f"bad agent spec {_quote(spec)}: only one bare argument is allowed and it comes first "
                        f"(e.g. 'ppo:path/to/model.pt,device=cpu')"
                    )
                args.append(item)  # paths and names stay strings
    elif ":" in text:
        raise ValueError(f"bad agent spec {_quote(spec)}: nothing after ':'")
    return Spec(name, tuple(args), kwargs, text)


@functools.cache
def _bots_module(game: Game) -> Any:
    """A game's bots module, checked: its part of the contract is a ``BOTS`` mapping."""
    module = load_object(game.bots)
    if not isinstance(getattr(module, "BOTS", None), dict):
        raise ValueError(f"game {game.name!r}: its bots module {game.bots} has no BOTS (bot name -> 'module:factory')")
    return module


def game_bots(game: "Game | str") -> dict[str, str]:
    """The bots of ``game``: name -> ``"module:factory"`` (its bots module's ``BOTS``)."""
    return dict(_bots_module(as_game(game)).BOTS)


@functools.cache
def _aliases_of(games: tuple[str, ...]) -> dict[str, tuple[Game, str]]:
    out: dict[str, tuple[Game, str]] = {}
    for name in games:
        game = as_game(name)
        for alias, bot in getattr(_bots_module(game), "ALIASES", {}).items():
            out[alias] = (game, bot)
    return out


def _aliases() -> dict[str, tuple[Game, str]]:
    """Old names of the registered games' bots: alias -> (game, name)."""
    return _aliases_of(registered_games())


def training_of(game: "Game | str") -> Any:
    """The game's training part (``agents/<game>/training.py``, named by its bots module's
    ``TRAINING``: what the trainer and its policies need from the game: ``EXTRA_SIZE``,
    ``PRIORS``, ``DESCRIPTION``, ``extra``, ``identity``, ``round_gain``, ``score_gain``,
    ``held_cards``); ``ValueError`` for an unknown game or one without a training part."""
    game = as_game(game)
    path = getattr(_bots_module(game), "TRAINING", None)
    if path is None:
        raise ValueError(f"{game.title} has no training part (its bots module {game.bots} names no TRAINING): "
                         f"games with one: {', '.join(g for g in registered_games() if _trains(g))}")
    return load_object(path)


def _trains(name: str) -> bool:
    try:
        return getattr(_bots_module(as_game(name)), "TRAINING", None) is not None
    except (ValueError, ImportError):
        return False


def available_agents(game: "Game | str | None" = None) -> list[str]:
    """The bot names a spec may use in ``game`` (None: :data:`~redbeard_env.registry.LEGACY_GAME`)."""
    game = as_game(game)
    names = set(game_bots(game)) | set(SHARED_BOTS) | {n for g, n in _REGISTERED if g in (None, game.name)}
    return sorted(names)


def _import(name: str, path: str) -> Callable[..., Agent]:
    module_name = path.partition(":")[0]
    try:
        return load_object(path)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ValueError(f"agent {_quote(name)} is not available: module {module_name} does not exist") from exc
        raise ValueError(f"agent {_quote(name)} needs a package that is not installed: {exc.name}") from exc


def resolve(name: str, game: "Game | str | None" = None) -> tuple[Callable[..., Agent], Game]:
    """The factory a bot name means in ``game`` and the game (see the module docstring);
    ``ValueError`` for a name the game does not know, naming the game that does."""
    name = name.lower()
    if game is not None:
        game = as_game(game)  # a ValueError for anything but a registered game
    if name in _aliases():
        alias_game, real = _aliases()[name]
        if game is not None and game is not alias_game:
            raise ValueError(f"agent {_quote(name)} plays {alias_game.name}, this table plays {game.name}; "
                             f"{game.name}'s bots: {', '.join(available_agents(game))}")
        game, name = alias_game, real
    game = as_game(game)
    bots = game_bots(game)
    if (game.name, name) in _REGISTERED:
        return _REGISTERED[(game.name, name)], game
    if name in bots:
        return _import(name, bots[name]), game
    if (None, name) in _REGISTERED:
        return _REGISTERED[(None, name)], game
    if name in SHARED_BOTS:
        return _import(name, SHARED_BOTS[name]), game
    others = [g for g in registered_games() if name in game_bots(g) or (g, name) in _REGISTERED]
    if others:
        raise ValueError(f"agent {_quote(name)} is a bot of {' and '.join(others)}, not of {game.name}; "
                         f"{game.name}'s bots: {', '.join(available_agents(game))}")
    raise ValueError(f"unknown agent {_quote(name)}; known agents: {', '.join(available_agents(game))}")


@dataclass(frozen=True)
class CheckedSpec:
    """A spec checked against its bot's declaration (:func:`check_spec`): the factory, the
    game it was checked for, the spec's values by parameter name (a bare argument under its
    parameter's name; ``args`` keeps it only for a bot without a declaration) and the
    checked specs of the bots it names (``nested``)."""

    text: str
    name: str
    game: Game
    factory: Callable[..., Agent]
    values: dict
    args: tuple = ()
    nested: dict = field(default_factory=dict)

    @property
    def declared(self) -> dict[str, Param] | None:
        return declaration(self.factory)

    @property
    def cost(self) -> float:
        """What a decision of this bot costs in cost units (:mod:`agents.params`): its
        ``COST`` scaled by each parameter's value or default, times ``calls`` x the cost of
        every nested bot; 1 for a bot without a declaration."""
        declared = self.declared
        if declared is None:
            return 1.0
        total = float(getattr(self.factory, "COST", 1.0))
        defaults = _signature_defaults(self.factory)
        for key, param in declared.items():
            value = self.values.get(key, defaults.get(key))
            if param.kind == "bot":
                nested = self.nested.get(key)
                if nested is None and isinstance(value, str):
                    nested = check_spec(value, self.game)
                total *= param.calls * (nested.cost if nested is not None else 1.0)
            else:
                total *= param.factor(value)
        return total


def declaration(factory: Any) -> dict[str, Param] | None:
    """The ``PARAMS`` a bot's factory declares (None: it declares nothing)."""
    declared = getattr(factory, "PARAMS", None)
    return declared if isinstance(declared, dict) else None


def _parameters(factory: Any) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(factory).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return {}


def _signature_defaults(factory: Any) -> dict[str, Any]:
    return {k: p.default for k, p in _parameters(factory).items() if p.default is not inspect.Parameter.empty}


def check_spec(spec: str, game: "Game | str | None" = None, _depth: int = 0) -> CheckedSpec:
    """``spec`` checked against its bot's declaration in ``game`` (see the module
    docstring); ``ValueError`` naming what is wrong. Nothing is built or loaded."""
    if _depth > MAX_NESTING:
        raise ValueError(f"bad agent spec {_quote(spec)}: bots nest at most {MAX_NESTING} deep")
    parsed = parse_spec(spec)
    factory, found = resolve(parsed.name, game)
    declared = declaration(factory)
    params = _parameters(factory)
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    allowed = list(declared) if declared is not None else [
        k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [k for k in parsed.kwargs if k not in allowed and (declared is not None or not var_kw)]
    if unknown:
        raise ValueError(
            f"bad agent spec {_quote(spec)}: {parsed.name} has no parameter {', '.join(_quote(k, 40) for k in unknown)}; "
            f"allowed: {', '.join(allowed) or '(none)'}"
        )
    if declared is None:
        return CheckedSpec(parsed.text, parsed.name, found, factory, dict(parsed.kwargs), parsed.args)
    values = dict(parsed.kwargs)
    if parsed.args:
        first = next((k for k, p in params.items() if p.kind is p.POSITIONAL_OR_KEYWORD), None)
        if first is None or first not in declared:
            raise ValueError(f"bad agent spec {_quote(spec)}: {parsed.name} takes no bare argument")
        if first in values:
            raise ValueError(f"bad agent spec {_quote(spec)}: parameter {_quote(first)} given twice")
        values = {first: parsed.args[0], **values}
    missing = [k for k, p in params.items() if k in declared and k not in values and p.default is p.empty]
    if missing:
        raise ValueError(f"bad agent spec {_quote(spec)}: {parsed.name} needs a value for {missing[0]}, "
                         f"e.g. '{parsed.name}:<{missing[0]}>'")
    nested: dict[str, CheckedSpec] = {}
    for key, value in values.items():
        param = declared[key]
        try:
            param.check(key, value)
            if param.kind in ("bot", "policy"):
                nested[key] = check_spec(value, found, _depth + 1)
                if param.kind == "policy" and nested[key].name != "ppo":
                    raise ValueError(f"must be {param.allowed()}, got {_quote(value, 60)}")
            elif param.kind == "rules":
                found.make_rules(value)
        except (ValueError, TypeError) as exc:
            message = str(exc)
            if param.kind in ("bot", "policy"):  # the nested spec's own message, after what it is
                message = f"{key} {message.removeprefix('bad agent spec ')}"
            raise ValueError(f"bad agent spec {_quote(spec)}: {_quote(message, 300)[1:-1]}") from None
    return CheckedSpec(parsed.text, parsed.name, found, factory, values, (), nested)


def spec_cost(spec: str, game: "Game | str | None" = None) -> float:
    """What a decision of ``spec`` costs in ``game``, in cost units (:mod:`agents.params`;
    nested bots included); ``ValueError`` for a spec :func:`check_spec` refuses."""
    return check_spec(spec, game).cost


def make_agent(spec: "str | Agent", game: "Game | str | None" = None, **defaults: Any) -> Agent:
    """Build a bot of ``game`` (a ``Game`` or its name) from a spec string, checked first
    (:func:`check_spec`; see the module docstring). ``defaults`` (e.g. ``seed=``, ``rules=``)
    and ``game`` (the ``Game``) are passed only to factories that accept them, and never
    override the spec's own values (they come from code: only the spec is checked). A bot
    object is returned as it is if it plays ``game``."""
    if game is not None:
        game = as_game(game)
    if isinstance(spec, Agent):
        check_game(spec, game)
        return spec
    checked = check_spec(spec, game)
    factory, found = checked.factory, checked.game
    if game is not None or checked.name in _aliases():
        game = found  # a bot of every game made without a game picks its own (ppo: its checkpoint's)
    if game is not None:
        defaults = {**defaults, "game": game}
    params = _parameters(factory)
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = dict(checked.values)
    for key, value in defaults.items():
        if key not in kwargs and (var_kw or key in params):
            kwargs[key] = value
    try:
        agent = factory(*checked.args, **kwargs)
    except (TypeError, RuntimeError, OverflowError, AttributeError) as exc:  # a value the bot cannot take
        raise ValueError(f"bad agent spec {_quote(spec)}: {_quote(str(exc), 300)[1:-1]}") from None
    agent.spec = checked.text
    if getattr(agent, "game", None) is None:
        agent.game = (game or found).name  # a bot of every game plays the game it was made for
    check_game(agent, game)
    return agent


def check_game(bot: Any, game: "Game | str | None") -> None:
    """``ValueError`` unless ``bot`` plays ``game``. A bot object without a ``game`` plays
    :data:`~redbeard_env.registry.LEGACY_GAME` (bots were that game's before games said so);
    a bot of every game gets the game it plays from :func:`make_agent`."""
    if game is None:
        return
    game = as_game(game)
    plays = getattr(bot, "game", None) or LEGACY_GAME
    if plays != game.name:
        raise ValueError(f"agent {getattr(bot, 'spec', '') or type(bot).__name__!r} plays {plays}, this table plays "
                         f"{game.name}; {game.name}'s bots: {', '.join(available_agents(game))}")
