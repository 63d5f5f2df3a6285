"""What a bot spec may say: every bot declares its parameters and what a decision costs.

A bot's factory (the class a game's ``BOTS`` or :data:`agents.registry.SHARED_BOTS` names)
carries two class attributes::

    PARAMS = {"samples": Int(1, 4096, per=1, help="deals sampled per decision"),
              "rollout": Bot(calls=5, help="the bot playing every seat of the playouts"),
              "horizon": Choice("auto", "round", "game"), ...}
    COST = 1.0

``PARAMS`` names every parameter a spec may set (exactly the factory's keywords, but
``game``, which the table sets) with its type and allowed values; the registry checks a
spec's values against it before the bot is built (:func:`agents.registry.check_spec`), in
the library, on the command lines and on the web alike, so a value out of range is a
one-line ``ValueError`` naming the parameter and what it allows -- never a bot that
divides by zero, fills the memory or returns an illegal action. The ranges are the ones
that make sense for play; a test plays every bot of every game at each bound.

``COST`` is what one decision of the bot costs at its parameters' unit values, in **cost
units**: about 25 microseconds of one core, the time of one playout of a round in
Rödskägg's compiled search. A parameter scales it:

* a number with ``per``: the cost is multiplied by ``max(1, value / per)`` (``samples``
  with ``per=1`` doubles the cost when doubled; ``bid_samples`` with ``per=1024`` costs
  extra only beyond 1024);
* a nested bot (:func:`Bot`, e.g. pimc's ``rollout``): multiplied by ``calls`` times that
  bot's own cost (a search asks its rollout bot ``calls`` times per playout), so
  ``pimc:rollout=pimc`` costs the product of the two searches.

For a cheap bot the cost is that of a decision asked among many in one batch (what a
search's playouts pay for it); a decision asked alone adds a fixed overhead of a few units,
too small to matter to a budget. The web table refuses specs above its search budget
(``redbeard-web --search-budget``). The units were calibrated on recorded positions of
each game (``python benchmarks/bot_cost.py``; docs/performance.md, "What a bot's decision
costs").

A bot added at run time with :func:`agents.registry.register` may declare the same two
attributes; without ``PARAMS`` its values are checked only by the bot itself and a
decision costs 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: nested bot specs (``pimc:rollout=pimc:rollout=heuristic``) go at most this deep
MAX_NESTING = 3
#: characters of a text value (a checkpoint's path)
MAX_TEXT = 1024


def _quote(value: Any, limit: int = 40) -> str:
    """``repr`` of a value from a spec, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _number(x: float) -> str:
    """A bound as a range spells it (``4096``, ``0.5``, ``2**63-1``)."""
    if x == 2**63 - 1:
        return "2**63-1"
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


@dataclass(frozen=True)
class Param:
    """One parameter of a bot spec: its ``kind`` and allowed values, and how it scales the
    cost of a decision (see the module docstring). Build one with :func:`Int`,
    :func:`Float`, :func:`Bool`, :func:`Choice`, :func:`Text`, :func:`Bot` or
    :func:`RulesParam`."""

    kind: str  # int | float | bool | choice | text | bot | policy | rules
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    per: float | None = None  # numbers: the cost is multiplied by max(1, value / per)
    calls: float | None = None  # bots: the cost is multiplied by calls x the bot's cost
    shown: str = ""  # how the allowed values read in an error (default: the range or choices)
    help: str = ""

    def allowed(self) -> str:
        """The allowed values in words, as errors give them."""
        if self.shown:
            return self.shown
        if self.kind == "int":
            return f"an int in {_number(self.low)}..{_number(self.high)}"
        if self.kind == "float":
            return f"a number in {_number(self.low)}..{_number(self.high)}"
        if self.kind == "bool":
            return "True or False"
        if self.kind == "choice":
            return f"one of {', '.join(self.choices)}"
        if self.kind == "text":
            return f"a name or path of at most {MAX_TEXT} characters"
        if self.kind == "bot":
            return "a bot spec of this game (e.g. 'heuristic')"
        if self.kind == "policy":
            return "a trained network's spec (ppo:<name or checkpoint>)"
        return "a rules preset of this game"

    def check(self, name: str, value: Any) -> Any:
        """``value`` if this parameter allows it, else a one-line ``ValueError`` naming
        ``name`` and what is allowed. (Nested bots and rules are checked further by the
        registry, which knows the game.)"""
        kind = self.kind
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
        elif kind == "float":
            number = _real(value)
            if number is None:
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
            if not math.isfinite(number):
                raise ValueError(f"{name} must be finite, {self.allowed()}; got {_quote(value)}")
            if not self.low <= number <= self.high:
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, got {_quote(value)}")
        elif kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
        elif kind == "text":
            if not isinstance(value, str) or not value or len(value) > MAX_TEXT or "\x00" in value:
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
        elif kind in ("bot", "policy"):
            if not isinstance(value, str):
                raise ValueError(f"{name} must be {self.allowed()}, got {_quote(value)}")
        return value

    def number(self, name: str, value: Any) -> float | int:
        """A number :meth:`check` allows, as the bot keeps it (a float of a ``float``
        parameter): for constructors, which code may call without the registry."""
        self.check(name, value)
        return float(value) if self.kind == "float" else int(value)

    def factor(self, value: Any) -> float:
        """What a number of this parameter multiplies a decision's cost by (1 for
        parameters that do not scale it)."""
        number = _real(value)
        if self.per is None or number is None or not math.isfinite(number):
            return 1.0
        return max(1.0, number / self.per)


def set_numbers(bot: Any, declared: dict | None = None, **values: Any) -> None:
    """Set each number of ``values`` on ``bot`` as its declared parameter of that name
    allows it (:meth:`Param.number`; ``ValueError`` otherwise): the declared ranges hold for
    code that builds a bot without the registry too. ``declared``: the declarations to read
    (default ``bot.PARAMS``; a base class passes its own when a subclass declares others)."""
    declared = bot.PARAMS if declared is None else declared
    for name, value in values.items():
        setattr(bot, name, declared[name].number(name, value))


def _real(value: Any) -> float | None:
    """``value`` as a float if it is a real number (a string spelling an infinity or NaN,
    such as ``inf``, counts: a spec cannot write those as literals), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            return math.inf
    if isinstance(value, str) and value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return float(value)
    return None


def Int(low: int, high: int, *, per: float | None = None, help: str = "") -> Param:
    """An int in ``low..high``; with ``per`` a decision's cost grows with it."""
    return Param("int", low, high, per=per, help=help)


def Float(low: float, high: float, *, per: float | None = None, help: str = "") -> Param:
    """A finite number in ``low..high`` (an int is fine)."""
    return Param("float", low, high, per=per, help=help)


def Bool(*, help: str = "") -> Param:
    return Param("bool", help=help)


def Choice(*choices: str, shown: str = "", help: str = "") -> Param:
    """One of ``choices`` (exact text)."""
    return Param("choice", choices=tuple(choices), shown=shown, help=help)


def Text(*, help: str = "") -> Param:
    """A name or a path (a checkpoint), at most :data:`MAX_TEXT` characters."""
    return Param("text", help=help)


def Bot(*, calls: float = 1.0, help: str = "") -> Param:
    """A nested bot spec of the same game, checked as a spec of its own; a decision costs
    ``calls`` times that bot's cost."""
    return Param("bot", calls=calls, help=help)


def Policy(*, help: str = "") -> Param:
    """A trained network's spec (``ppo:...``) of the same game, checked as a spec of its own;
    it adds nothing to the cost (the bot's own budget bounds what it asks of it)."""
    return Param("policy", help=help)


def RulesParam(*, help: str = "") -> Param:
    """A rules preset of the game, or a mapping of Rules fields (the game's ``make_rules``
    checks it)."""
    return Param("rules", help=help or "the rules (default: read from every observation)")


#: every bot's ``seed``
SEED = Int(0, 2**63 - 1, help="seeds the bot's random numbers")

__all__ = ["MAX_NESTING", "MAX_TEXT", "Param", "set_numbers", "Int", "Float", "Bool", "Choice", "Text", "Bot",
           "Policy", "RulesParam", "SEED"]
