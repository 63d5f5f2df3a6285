"""What the ``Rules`` of the family's games share: :class:`FamilyRules`, the base of each
game's ``Rules`` (a frozen dataclass in the game's ``rules.py``, beside its ``make_rules`` and
``family_of``), and the checks of their plain fields (a game's ``validate`` calls
:func:`check_fields`, then checks the fields of its own kind)."""

from __future__ import annotations

import sys
from typing import Any, Mapping

from ..common import is_int, shown
from .family import Family


class FamilyRules:
    """The base of a family game's ``Rules``: ``family``, what the family's engines read of
    them, and ``replace``, from the functions of the game's rules module."""

    @property
    def family(self) -> Family:
        """These rules as the family's engines read them (the game's ``family_of``)."""
        return sys.modules[type(self).__module__].family_of(self)

    def replace(self, **overrides: Any) -> Any:
        """A validated copy with some fields changed (the game's ``make_rules``)."""
        return sys.modules[type(self).__module__].make_rules(self, **overrides)


def check_fields(rules: Any, choices: Mapping[str, tuple[str, ...]], bool_fields: tuple[str, ...],
                 int_ranges: Mapping[str, tuple[int, int]]) -> None:
    """``ValueError`` naming the first field of ``rules`` outside what it allows: one of its
    ``choices``, a bool, an int in its range."""
    for name, allowed in choices.items():
        if getattr(rules, name) not in allowed:
            raise ValueError(f"Rules field {name!r} got {shown(getattr(rules, name))}; allowed: "
                             f"{' | '.join(map(repr, allowed))}")
    for name in bool_fields:
        if not isinstance(getattr(rules, name), bool):
            raise ValueError(f"Rules field {name!r} got {shown(getattr(rules, name))}; allowed: True or False")
    for name, (lo, hi) in int_ranges.items():
        value = getattr(rules, name)
        if not is_int(value) or not lo <= value <= hi:
            raise ValueError(f"Rules field {name!r} got {shown(value)}; allowed: an int in {lo}..{hi}")
