"""Helpers every game of the family shares: rule values from presets and overrides, lists
of cards, observation blocks, and checked ints. Nothing here knows a game's rules."""

from __future__ import annotations

import ast
import dataclasses
import numbers
import threading
from typing import Any, Callable, Iterable, Mapping

import numpy as np


#: the most games a batch engine holds (``VectorEnv(num_envs=...)``): far above the
#: batches the trainer and tournaments use (thousands), far below the numbers whose
#: arrays no machine allocates (each game takes a few kilobytes)
MAX_NUM_ENVS = 1 << 20


def is_int(value: Any) -> bool:
    """An integral number (Python's, numpy's or any other ``numbers.Integral``), not a bool."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(value: Any, name: str, low: int, high: "int | None" = None) -> int:
    """``value`` as an ``int`` in ``low..high`` (no upper bound for None); any integral
    number is accepted (numpy's too), a bool, a float or anything else is a
    ``ValueError`` naming ``name``, the value and the range."""
    if not is_int(value) or not low <= value <= (value if high is None else high):
        allowed = f"an int >= {low}" if high is None else f"an int in {low}..{high}"
        raise ValueError(f"{name} must be {allowed}, got {shown(value, 60)}")
    return int(value)


def check_seed(seed: Any, name: str = "seed", sequence: bool = False) -> Any:
    """A seed for ``np.random.default_rng``: None or an int >= 0 (numpy integer types
    too; not a bool), returned as a Python int; with ``sequence`` also a non-empty list,
    tuple or 1-d array of such ints (how the tournaments' engines seed themselves).
    Anything else is a ``ValueError`` saying what a seed may be."""
    if seed is None:
        return None
    if is_int(seed) and seed >= 0:
        return int(seed)
    if sequence and isinstance(seed, (list, tuple, np.ndarray)) and getattr(seed, "ndim", 1) == 1 and len(seed) \
            and all(is_int(s) and s >= 0 for s in seed):
        return [int(s) for s in seed]
    allowed = "None or an int >= 0" + (" (or a list of them)" if sequence else "")
    raise ValueError(f"{name} must be {allowed}, got {shown(seed, 60)}")


def replace_fields(rules: Any, overrides: dict, presets: dict, default: str, rules_type: type, tuple_field: str,
                   game: str = "") -> Any:
    """What every game's ``make_rules`` does before validating: the base (a preset name of
    ``presets``, None = ``default``, a ``rules_type`` value, or a mapping of fields over the
    default preset) with ``overrides`` replaced; unknown names raise ``ValueError``; a list
    given for ``tuple_field`` becomes a tuple (YAML and JSON have no tuples)."""
    if rules is None:
        rules = default
    if isinstance(rules, str):
        if rules not in presets:
            raise ValueError(f"unknown {game}rules preset {shown(rules, 60)}; allowed: {', '.join(map(repr, presets))}")
        base = presets[rules]
    elif isinstance(rules, rules_type):
        base = rules
    elif isinstance(rules, Mapping):
        base, overrides = presets[default], {**rules, **overrides}
    else:
        raise ValueError(f"rules must be a preset name, a Rules or a mapping of fields, got {type(rules).__name__}")
    names = [f.name for f in dataclasses.fields(rules_type)]
    bad_keys = [k for k in overrides if not isinstance(k, str)]
    if bad_keys:
        raise ValueError(f"Rules field names are strings, got {str(bad_keys[0])[:40]!r}")
    unknown = sorted(set(overrides) - set(names))
    if unknown:
        listed = ", ".join(shown(k, 40) for k in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ValueError(f"unknown Rules field(s) {listed}; allowed: {', '.join(names)}")
    if isinstance(overrides.get(tuple_field), list):
        overrides = {**overrides, tuple_field: tuple(overrides[tuple_field])}
    return dataclasses.replace(base, **overrides)


def shown(value: Any, limit: int = 100) -> str:
    """``repr`` of a value for an error message, cut to ``limit`` characters: an error never
    repeats a whole long input (an int too long to print is described by its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"an int of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except ValueError:  # e.g. a container holding an int too long to print
        return f"a {type(value).__name__} too large to print"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def parse_overrides(items: "Iterable[str] | None") -> dict[str, Any]:
    """Command-line overrides ``["leader=trick_winner", "eliminate_at=40"]`` -> a dict with
    Python literals where they parse (``40``, ``None``, ``True``), else strings. The
    fields themselves are checked by :func:`make_rules`."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"a rules override is field=value (e.g. leader=trick_winner), got {item!r}")
        key, text = item.split("=", 1)
        out[key.strip()] = parse_literal(text)
    return out


#: CPython 3.11's parser can fail with "SystemError: AST constructor recursion depth
#: mismatch" when threads compile at once (a server checks bot specs in worker threads)
_PARSE_LOCK = threading.Lock()


def parse_literal(text: str) -> Any:
    """A ``key=value`` item's value: the Python literal it spells (``40``, ``None``,
    ``True``, ``0.5``), else the text itself (also for agent specs' parameters)."""
    try:
        with _PARSE_LOCK:
            return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_card_list(cards: Iterable["str | int"], what: str, parse: Callable, name: Callable) -> list[int]:
    """Parse a list of cards with ``parse`` (one card -> id); a duplicate raises
    ``ValueError`` (the card printed by ``name``). Every game's ``parse_cards``."""
    if isinstance(cards, (str, bytes)):
        raise ValueError(f"{what} must be a list of cards, got the string {cards!r}")
    ids = [parse(c) for c in cards]
    seen: set[int] = set()
    for c in ids:
        if c in seen:
            raise ValueError(f"duplicate card {name(c)} in {what}")
        seen.add(c)
    return ids


def block_layout(blocks: dict[str, int]) -> tuple[dict[str, slice], dict[str, int], int]:
    """Named blocks laid end to end: ``(slices, offsets, size)`` (shared by every game's
    observation, e.g. :mod:`redbeard_env.sortskaeg.observation`)."""
    slices: dict[str, slice] = {}
    offset = 0
    for name, size in blocks.items():
        slices[name] = slice(offset, offset + size)
        offset += size
    return slices, {name: sl.start for name, sl in slices.items()}, offset


def constant_blocks(size: int, slices: dict[str, slice], player_slot: int, rules_vec: np.ndarray) -> np.ndarray:
    """A vector of ``size`` zeros but for the blocks that never change in a game: the
    ``num_players`` one-hot (at ``player_slot``) and ``rules`` (shared by every game's
    observation)."""
    vec = np.zeros(size, dtype=np.float32)
    vec[slices["num_players"].start + player_slot] = 1.0
    vec[slices["rules"]] = rules_vec
    return vec


def mean_or_none(values) -> float | None:
    """The mean, or None for no values."""
    return float(np.mean(values)) if len(values) else None


def merge_counts(into: Any, part: Any, count_fields: tuple[str, ...]) -> None:
    """Add a tournament shard's records ``part`` to ``into`` (any game's metrics): the rows
    in order, the per-agent count arrays of ``count_fields`` summed."""
    into.seat_rows.extend(part.seat_rows)
    into.round_rows.extend(part.round_rows)
    for name in count_fields:
        mine = getattr(into, name)
        for spec, counts in getattr(part, name).items():
            mine[spec] = mine[spec] + counts if spec in mine else counts.copy()
