"""Agent spec strings -> agents.

A spec is ``name`` or ``name:arg,key=value,...``::

    random                     uniform over legal actions
    random:seed=3
    heuristic                  the rule-based baseline (agents/heuristic.py)
    heuristic:win_value=6      any keyword of the agent's constructor
    pimc                       determinised search over the heuristic (agents/pimc.py)
    pimc:samples=128,horizon=round
    ppo:runs/train/x/model.pt  a trained policy (agents/ppo.py registers "ppo")
    sortskaeg_heuristic        Sortskæg's bots: sortskaeg_random, sortskaeg_heuristic,
                               sortskaeg_pimc (agents/sortskaeg/)

The part after ``:`` is a comma-separated list of ``key=value`` items; a bare item is the
agent's first positional argument (``ppo:<checkpoint or name>``). Values are Python
literals when they parse as one (``128``, ``0.5``, ``True``), else strings.

Agents register with :func:`register`. Names in ``LAZY_MODULES`` are imported on first
use, so ``ppo`` costs nothing (no torch import) until a ``ppo:`` spec is made; an entry
``"module:Class"`` also names the factory, for a module that does not call ``register``
itself. A factory returns an :class:`~agents.base.Agent` (the interface is in
:mod:`agents.base`).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from redbeard_env.common import parse_literal

from .base import Agent

_REGISTRY: dict[str, Callable[..., Agent]] = {}
#: agent names whose module registers them when imported
LAZY_MODULES: dict[str, str] = {
    "random": "agents.random_agent",
    "heuristic": "agents.redbeard.heuristic",
    "pimc": "agents.redbeard.pimc",
    "joins": "agents.redbeard.join_policy",  # a bot with fixed join decisions: joins:always,base=<spec>
    "ppo": "agents.ppo:PPOAgent",  # the registry hook for trained policies
    "sb3": "agents.sb3_agent:MaskablePPOAgent",  # a saved sb3-contrib MaskablePPO model (sb3 extra)
    # Sortskæg's bots (agents/sortskaeg/; ppo:<checkpoint> serves both games)
    "sortskaeg_random": "agents.sortskaeg.random_agent",
    "sortskaeg_heuristic": "agents.sortskaeg.heuristic",
    "sortskaeg_pimc": "agents.sortskaeg.pimc",
}


@dataclass(frozen=True)
class Spec:
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    text: str = ""


def register(name: str, factory: Callable[..., Agent] | None = None, *, overwrite: bool = False):
    """Register ``factory(*args, **kwargs) -> Agent`` under ``name``; usable as a decorator."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"agent name must be alphanumeric (with _ or -), got {name!r}")

    def add(f):
        if name in _REGISTRY and _REGISTRY[name] is not f and not overwrite:
            raise ValueError(f"agent name {name!r} is already registered")
        _REGISTRY[name] = f
        return f

    return add if factory is None else add(factory)


def parse_spec(spec: str) -> Spec:
    """Split a spec string; a malformed one raises ``ValueError`` saying what is expected."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string like 'heuristic' or 'pimc:samples=128', got {spec!r}")
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"bad agent spec {spec!r}: the name before ':' must be alphanumeric, e.g. 'pimc:samples=128'")
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    if rest.strip():
        for item in rest.split(","):
            item = item.strip()
            if not item:
                raise ValueError(f"bad agent spec {spec!r}: empty item between commas")
            if "=" in item:
                key, value = (x.strip() for x in item.split("=", 1))
                if not key.isidentifier():
                    raise ValueError(f"bad agent spec {spec!r}: {key!r} is not a parameter name")
                if key in kwargs:
                    raise ValueError(f"bad agent spec {spec!r}: parameter {key!r} given twice")
                kwargs[key] = parse_literal(value)
            else:
                if kwargs or args:
                    raise ValueError(
                        f"bad agent spec {spec!r}: only one bare argument is allowed and it comes first "
                        f"(e.g. 'ppo:path/to/model.pt,device=cpu')"
                    )
                args.append(item)  # paths and names stay strings
    elif ":" in text:
        raise ValueError(f"bad agent spec {spec!r}: nothing after ':'")
    return Spec(name, tuple(args), kwargs, text)


def _factory(name: str) -> Callable[..., Agent]:
    if name not in _REGISTRY and name in LAZY_MODULES:
        module_name, _, attr = LAZY_MODULES[name].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                raise ValueError(f"agent {name!r} is not available: module {module_name} does not exist") from exc
            raise ValueError(f"agent {name!r} needs a package that is not installed: {exc.name}") from exc
        if name not in _REGISTRY and attr and hasattr(module, attr):
            _REGISTRY[name] = getattr(module, attr)
    if name not in _REGISTRY:
        known = sorted(set(_REGISTRY) | set(LAZY_MODULES))
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(known)}")
    return _REGISTRY[name]


def make_agent(spec: "str | Agent", **defaults: Any) -> Agent:
    """Build an agent from a spec string. ``defaults`` (e.g. ``seed=``, ``rules=``) are passed
    only to factories that accept them, and never override the spec's own values."""
    if isinstance(spec, Agent):
        return spec
    parsed = parse_spec(spec)
    factory = _factory(parsed.name)
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        params = {}
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = dict(parsed.kwargs)
    for key, value in defaults.items():
        if key not in kwargs and (var_kw or key in params):
            kwargs[key] = value
    unknown = [k for k in parsed.kwargs if not var_kw and k not in params]
    if unknown:
        allowed = [k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        raise ValueError(
            f"bad agent spec {spec!r}: {parsed.name} has no parameter {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(allowed) or '(none)'}"
        )
    try:
        agent = factory(*parsed.args, **kwargs)
    except TypeError as exc:
        raise ValueError(f"bad agent spec {spec!r}: {exc}") from exc
    agent.spec = parsed.text
    return agent


def available_agents() -> list[str]:
    return sorted(set(_REGISTRY) | set(LAZY_MODULES))
