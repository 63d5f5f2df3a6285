"""The bots of the web table and the terminal game: which a user may name, which the page
offers for each game, and one shared instance per (game, spec).

A spec from a user is checked twice: against its bot's declaration
(:func:`agents.registry.check_spec`: every parameter's type and range, nested bots
included) and against what a table may take from a client (values are numbers or plain
names, never files; ``ppo:`` only a policy of the game by name -- shipped, or in a bot
folder the program was given, ``--bots DIR`` (:func:`agents.ppo.named_checkpoint`); a
decision costing at most the search budget, priced by the declarations:
:attr:`agents.registry.CheckedSpec.cost`). A :class:`BotPool` made with
``free_specs=False`` (``redbeard-web`` without ``--free-specs``) plays only the specs the
table offers (:func:`offered_specs`: the page's bots, every level's and the bot folders'
policies); with ``free_specs`` any spec that passes both checks. The terminal game's pool
(``paths=True``: the person at the keyboard names the files) also takes
``ppo:<path>``.

A policy records the table it was trained at (:func:`agents.ppo.trained_table`);
:func:`table_policies` lists the game's policies with whether each was trained at a
given table, for the page to offer the folders' bots trained for the chosen table and
to label any bot playing a table it was not trained for.

Bots are shared between games of the same kind (:class:`BotPool`: one instance per game
and spec, built on first use, one lock each, so a checkpoint is loaded once);
deterministic bots (``heuristic``, a greedy ``ppo``) therefore play a seeded game the same
way every time, bots that draw random numbers (``random``, ``pimc``) draw from their
shared generator. Specs resolve within the game being played
(:func:`agents.registry.make_agent` with ``game=``): a bot of another game is refused.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import re
import sys
import threading
import time
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

import numpy as np

from agents.registry import Spec, _quote, available_agents, check_spec, make_agent, parse_spec, resolve
from redbeard_env.common import parse_literal
from redbeard_env.registry import as_game, game_named, registered_games

from .levels import levels_of
from .limits import Limits
from .shipped import shipped_checkpoints, trained_at

#: the built-in bots the page offers after the shipped policies, where the game has them
OFFERED = ("heuristic", "pimc", "random")
# A bot spec from a user names an agent and plain values; a path could make the server
# read any file, so string values may only be names (shipped checkpoints like classic_4p).
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_+-]{1,64}$")
MAX_SPEC = 200  # characters of a bot spec from a user
#: search bots kept built, in search budgets: each game's strongest level and its hint and
#: review bot are a search at every sheet (a few budgets' worth); evicting them would rebuild
#: them for every game
SEARCHES_KEPT = 8
#: bots that load a file, and the parameter naming it: the web takes only shipped policies
FILE_BOTS = {"ppo": "checkpoint", "sb3": "path"}


def default_game() -> str:
    """The game of a request that names none (:func:`~redbeard_env.registry.as_game`)."""
    return as_game(None).name


def checkpoint_game(name: str) -> str | None:
    """The game of the policy ``name`` (shipped or in a bot folder; None: no such name, or
    unreadable)."""
    path = _named(name)
    return getattr(trained_at(path), "game", None) if path is not None else None


def _named(name: str) -> Path | None:
    """The file of a policy's name (:func:`agents.ppo.named_checkpoint`), None for a name
    that reaches none or a text that is not a name (or without torch)."""
    if importlib.util.find_spec("torch") is None:
        return None
    from agents.ppo import is_plain_name, named_checkpoint

    return named_checkpoint(name) if isinstance(name, str) and is_plain_name(name) else None


#: seconds a listing of the bot folders is reused (each ``/api/bots`` would list them again)
LISTING_SECONDS = 2.0
_listing: dict = {}
_listing_lock = threading.Lock()


def folder_policies(game: str) -> list[str]:
    """Names of the policies in the bot folders (:func:`agents.ppo.bot_folders`; none
    unless a program set them) that play ``game``, a shipped name hiding a folder's."""
    if not _has_folders():
        return []
    from agents.ppo import PRETRAINED_DIR, bot_folders, named_policies

    folders = bot_folders()
    with _listing_lock:
        at, key, names = _listing.get("at", -math.inf), _listing.get("key"), _listing.get("names")
        if key != folders or time.monotonic() - at > LISTING_SECONDS:
            names = {n: p for n, p in named_policies().items() if p.parent != PRETRAINED_DIR}
            _listing.update(at=time.monotonic(), key=folders, names=names)
    return [n for n, p in names.items() if getattr(trained_at(p), "game", None) == game]


def table_policies(game: str, rules: Any, players: int) -> list[dict]:
    """The policies this program plays in ``game`` -- the shipped ones, then the bot
    folders' -- each ``{"bot": "ppo:NAME", "shipped", "fits", "trained"}``: ``fits``
    whether it was trained at this table (``rules``, a ``Rules``, and ``players``;
    :func:`agents.ppo.fits_table`), ``trained`` the table it was, in words."""
    if importlib.util.find_spec("torch") is None:
        return []
    from agents.ppo import fits_table

    out = []
    for shipped, names in ((True, shipped_checkpoints(game)), (False, folder_policies(game))):
        for name in names:
            path = _named(name)
            trained = trained_at(path) if path is not None else None
            if trained is not None:
                out.append({"bot": f"ppo:{name}", "shipped": shipped, "fits": fits_table(trained, game, rules, players),
                            "trained": trained.text()})
    return out


MAX_OVERRIDES_TEXT = 2000  # characters of the rule changes a bots question names (JSON)


def bots_for_table(game: Any, rules: Any = None, players: Any = None, overrides: Any = None) -> dict:
    """``GET /api/bots``: the policies this program plays at a table (:func:`table_policies`)
    -- ``game`` (a name), ``rules`` (a preset of it; None: its default), ``players`` (the
    count as text; None: the page's default) and ``overrides`` (Rules fields as a JSON
    object's text) as a query gives them -- with the table in words. ``ValueError`` naming
    a bad parameter."""
    info = game_named(game)
    preset = info.default_rules if rules is None else rules
    if preset not in info.presets:
        raise ValueError(f"rules must be a preset of {info.title}: {', '.join(info.presets)}; got {_quote(preset, 40)}")
    lo, hi = info.player_range
    if players is None:
        count = min(max(4, lo), hi)
    elif isinstance(players, str) and players.isascii() and players.isdigit() and len(players) <= 2 \
            and lo <= int(players) <= hi:
        count = int(players)
    else:
        raise ValueError(f"players must be an int in {lo}..{hi}, got {_quote(players, 20)}")
    fields: Any = {}
    if overrides:
        if len(overrides) > MAX_OVERRIDES_TEXT:
            raise ValueError(f"overrides is at most {MAX_OVERRIDES_TEXT} characters of JSON, got {len(overrides)}")
        try:
            fields = json.loads(overrides, parse_constant=lambda c: _quote(c))  # NaN and Infinity stay text
        except (ValueError, RecursionError):
            raise ValueError(f"overrides must be a JSON object of Rules fields, e.g. {{\"start_score\": 6}}, "
                             f"got {_quote(overrides, 40)}") from None
        if not isinstance(fields, dict):
            raise ValueError(f"overrides must be a JSON object of Rules fields, e.g. {{\"start_score\": 6}}, "
                             f"got {_quote(overrides, 40)}")
    table = info.make_rules(preset, **fields)
    with warnings.catch_warnings():  # a count outside a rule sheet's own range is fine here
        warnings.simplefilter("ignore", UserWarning)
        info.check_num_players(count, table)
    sheet = dataclasses.asdict(info.make_rules(preset))
    changed = {k: v for k, v in dataclasses.asdict(table).items() if sheet.get(k) != v}
    if importlib.util.find_spec("torch") is None:  # no policies either
        words = f"{preset}, {count} players"
    else:
        from agents.ppo import table_text

        words = table_text(preset, changed, count)
    return {"game": info.name, "rules": preset, "players": count, "overrides": rules_dict_of(changed),
            "table": words, "bots": table_policies(info.name, table, count)}


def rules_dict_of(fields: dict) -> dict:
    """Rules fields as JSON data (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}


def suggested_bots(game: str | None = None) -> list[str]:
    """Bot specs offered on the page for ``game``: its shipped policies (when torch is
    installed), then its built-in bots."""
    game = game_named(game or default_game()).name
    known = available_agents(game)
    ppo = [f"ppo:{name}" for name in shipped_checkpoints(game)] if "ppo" in known else []
    return ppo + [b for b in OFFERED if b in known]


def offered_specs(game: str | None = None) -> list[str]:
    """The bot specs a table offers for ``game`` (normal forms): the page's bots
    (:func:`suggested_bots`), the bot of every level on every sheet of the game and the
    bot folders' policies of the game (:func:`folder_policies`)."""
    info = game_named(game or default_game())
    out = list(suggested_bots(info.name))
    for preset in info.presets:
        out += [level["bot"] for level in levels_of(info.name, preset)["levels"]]
    out += [f"ppo:{name}" for name in folder_policies(info.name)]
    return list(dict.fromkeys(normal_spec(parse_spec(s)) for s in out))


def check_bot_spec(spec: Any, game: str | None = None, budget: float | None = None, paths: bool = False) -> str:
    """A bot spec from a user for ``game``, in its normal form (:func:`normal_spec`): an agent
    of that game whose values are numbers or plain names (never a file: ``ppo:`` takes only
    a policy's name, :func:`_check_policy`), allowed by its declaration
    (:func:`agents.registry.check_spec`), costing at most ``budget`` cost units a decision
    (None: any; :mod:`agents.params`). ``paths``: ``ppo:`` also takes a checkpoint's path
    (a local program, whose user names the file). ``ValueError`` otherwise, naming what is
    wrong (a bot of another game: that game)."""
    info = game_named(game or default_game())
    if not isinstance(spec, str):
        raise ValueError(f"a bot is a spec string like 'heuristic' or 'ppo:<policy>', got {_quote(spec, 60)}")
    if len(spec) > MAX_SPEC:
        raise ValueError(f"a bot spec is at most {MAX_SPEC} characters, got {len(spec)} ({_quote(spec, 60)})")
    parsed = parse_spec(spec)
    known = available_agents(info.name)
    if parsed.name not in known:
        others = [game_named(g).title for g in registered_games() if g != info.name and _knows(g, parsed.name)]
        if others:
            raise ValueError(f"bot {parsed.name!r} plays {' and '.join(others)}, not {info.title}; "
                             f"{info.title}'s bots: {', '.join(known)}")
        raise ValueError(f"unknown bot {parsed.name!r}; known: {', '.join(known)}")
    file = _file_of(parsed)
    for value in list(parsed.args) + list(parsed.kwargs.values()):
        if not (paths and parsed.name == "ppo" and value is file):
            _check_value(value, spec, info.name)
    if parsed.name in FILE_BOTS:
        _check_policy(parsed, info, paths)
    checked = check_spec(spec, info.name)
    if budget is not None:
        cost = checked.cost
        if cost > budget:
            shown = f"{cost:.0f}" if math.isfinite(cost) else "unboundedly many"
            raise ValueError(f"bot spec {_quote(spec, 60)} costs {shown} units a decision; this table allows "
                             f"{budget:.0f} (its search budget): ask for fewer samples or a cheaper rollout bot")
    return normal_spec(parsed)


def _file_of(parsed: Spec) -> Any:
    """The value naming the file a bot loads (``ppo``'s checkpoint), or None."""
    if parsed.name not in FILE_BOTS:
        return None
    return parsed.args[0] if parsed.args else parsed.kwargs.get(FILE_BOTS[parsed.name])


def _check_value(value: Any, spec: str, game: str) -> None:
    """One value of a spec: a finite number up to 2**63, True/False/None, a plain name, or
    ``ppo:NAME`` naming one of the game's policies (a search's network; never a path)."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) <= 2**63:
        return
    if isinstance(value, float) and math.isfinite(value):
        return
    if isinstance(value, str) and _SAFE_NAME.match(value):
        return
    if isinstance(value, str) and value.startswith("ppo:") and value[4:] in _policy_names(game):
        return
    raise ValueError(
        f"bot spec {_quote(spec, 60)}: {_quote(value, 40)} is not allowed here; values are finite numbers up to "
        f"2**63, True, False, None, plain names or ppo:<policy>, not file paths (policies: "
        f"{', '.join(_policy_names(game)) or 'none'})"
    )


def _policy_names(game: str) -> list[str]:
    return shipped_checkpoints(game) + folder_policies(game)


def _check_policy(parsed: Spec, info, paths: bool = False) -> None:
    """A bot that loads a file (``ppo``) takes a policy of this game by name: shipped, or
    in a bot folder of the program (:func:`agents.ppo.named_checkpoint`); the server never
    reads a path a client names. With ``paths`` (a local program) ``ppo`` also takes a
    checkpoint's path, whose game the bot checks as it loads it."""
    name = _file_of(parsed)
    if name is None:
        return  # the bot refuses a missing argument itself
    named = isinstance(name, str) and bool(_SAFE_NAME.match(name))
    if parsed.name == "ppo" and named:
        plays = checkpoint_game(name)
        if plays == info.name:
            return
        if plays is not None:
            raise ValueError(f"ppo:{name} is a policy of {game_named(plays).title}, not of {info.title}; "
                             f"{info.title}'s policies: {', '.join(f'ppo:{n}' for n in _policy_names(info.name)) or 'none'}")
    if parsed.name == "ppo" and paths and not named:
        return  # a path: the bot reads it, and refuses a policy of another game
    shown = ", ".join(f"ppo:{s}" for s in _policy_names(info.name)) or "none"
    if paths:  # a local program: its user may see where it looked
        from agents.ppo import searched_text

        raise ValueError(f"{parsed.name}:{_quote(name, 40)[1:-1]}: no policy of {info.title} by that name in "
                         f"{searched_text()}; its policies: {shown}; a file is ppo:<path>")
    folders = " or in its bot folders" if _has_folders() else ""
    raise ValueError(f"{parsed.name}:{_quote(name, 40)[1:-1]} is not a shipped policy of {info.title}{folders}; this "
                     f"table plays policies by name only: {shown}")


def _has_folders() -> bool:
    """Whether this program was given bot folders (only a program that imported
    :mod:`agents.ppo` can have set them)."""
    ppo = sys.modules.get("agents.ppo")
    return bool(ppo is not None and ppo.bot_folders())


def normal_spec(parsed: Spec) -> str:
    """The one text of a parsed spec: its lower-case name, the bare argument, then the
    keyword values sorted by name (``PPO:classic_4p`` and ``ppo:classic_4p``, or
    ``pimc:seed=1,samples=8`` and ``pimc:samples=8,seed=1``, are one bot)."""
    items = [str(a) for a in parsed.args] + [f"{k}={_value_text(parsed.kwargs[k])}" for k in sorted(parsed.kwargs)]
    return parsed.name + (":" + ",".join(items) if items else "")


def _value_text(value: Any) -> str:
    """A value as a spec spells it (parses back to the same value)."""
    if isinstance(value, str) and parse_literal(value) == value:
        return value
    return repr(value)


def _knows(game: str, name: str) -> bool:
    """Whether ``name`` is a bot (or an old name of one) of ``game``."""
    try:
        resolve(name, game)
    except ValueError:
        return False
    return True


class BotPool:
    """Shared bots, one per (game, spec in normal form, role), built on first use, each with
    a lock (a bot may keep state, e.g. a random generator, and is used by many games); the
    bots giving hints are others than those playing, so a hint never waits for a game's
    bot or holds one up.

    Bounded: at most ``max_bots`` bots stay built, and search bots together at most
    ``max_search`` units of cost (default: :data:`SEARCHES_KEPT` times the search budget, so
    every game's searching levels and hint bots stay built with room for a few more); the least recently
    used are dropped first (and built again when asked for). A spec costing more than
    ``search_budget`` cost units a decision is refused (``ValueError``; None: no budget),
    and without ``free_specs`` any spec the table does not offer (:func:`offered_specs`).
    ``paths``: ``ppo:`` takes a checkpoint's path too (the terminal game, whose user names
    the file; never a server's pool)."""

    def __init__(self, factory: Callable[[str, str], Any] | None = None, max_bots: int = Limits.bot_cache,
                 search_budget: float | None = Limits.search_budget, max_search: float | None = None,
                 free_specs: bool = True, paths: bool = False):
        if max_bots < 1:
            raise ValueError(f"max_bots must be >= 1, got {max_bots}")
        self._factory = factory or (lambda spec, game: make_agent(spec, game=game, seed=0))
        self.max_bots = max_bots
        self.free_specs = bool(free_specs)
        self.paths = bool(paths)
        self.search_budget = search_budget
        self.max_search = max_search if max_search is not None else (
            SEARCHES_KEPT * search_budget if search_budget else None)
        self._bots: OrderedDict[tuple[str, str, str], tuple[Any, threading.Lock, float]] = OrderedDict()
        self._building: dict[tuple[str, str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self.builds = 0  # bots built so far (a cache miss each)

    def __len__(self) -> int:
        return len(self._bots)

    def check(self, spec: Any, game: str | None = None) -> str:
        """``spec`` in normal form if this pool would play it in ``game`` (else ``ValueError``)."""
        info = game_named(game or default_game())
        normal = check_bot_spec(spec, info.name, self.search_budget, paths=self.paths)
        if not self.free_specs:
            offered = offered_specs(info.name)
            if normal not in offered:
                raise ValueError(f"this table plays only the bots it offers (a table started with redbeard-web "
                                 f"--free-specs takes other specs); for {info.title}: {', '.join(offered)}")
        return normal

    def get(self, spec: str, game: str | None = None, role: str = "play") -> tuple[Any, threading.Lock]:
        """The bot and its lock. ``role``: bots giving hints are others than those playing
        in games (``"hint"``), so a long hint never holds up a game's moves."""
        game = game_named(game or default_game()).name
        parsed = parse_spec(self.check(spec, game))
        key = (game, normal_spec(parsed), role)
        with self._lock:
            if key in self._bots:
                self._bots.move_to_end(key)
                return self._bots[key][:2]
            build_lock = self._building.setdefault(key, threading.Lock())
        try:
            with build_lock:  # one build per spec; other specs and games go on meanwhile
                with self._lock:
                    if key in self._bots:
                        self._bots.move_to_end(key)
                        return self._bots[key][:2]
                bot = self._factory(key[1], game)
                cost = check_spec(key[1], game).cost
                entry = (bot, threading.Lock(), cost if cost > 1 else 0.0)
                with self._lock:
                    self._bots[key] = entry
                    self.builds += 1
                    self._evict(keep=key)
                return entry[:2]
        finally:
            with self._lock:
                if self._building.get(key) is build_lock:
                    del self._building[key]

    def _evict(self, keep: tuple[str, str, str]) -> None:
        """Drop the least recently used bots (never ``keep``) until the pool is in bounds.
        Called with the lock held."""
        def over() -> bool:
            searching = sum(cost for _, _, cost in self._bots.values())
            return len(self._bots) > self.max_bots or (self.max_search is not None and searching > self.max_search)

        for key in list(self._bots):
            if not over():
                return
            if key != keep:
                del self._bots[key]

    def act(self, spec: str, obs: np.ndarray, mask: np.ndarray, game: str | None = None) -> int:
        bot, lock = self.get(spec, game)
        with lock:
            return int(bot.act(obs, mask))

    def values(self, spec: str, obs: np.ndarray, mask: np.ndarray,
               game: str | None = None) -> tuple[int, np.ndarray | None, str | None]:
        """The bot's action and, when it has them, its values of every action: a
        heuristic-style bot's ``action_values`` (utilities), a policy network's action
        probabilities. ``(action, None, None)`` for other bots. (A hint: the bot is not the
        one playing in games.)"""
        bot, lock = self.get(spec, game, role="hint")
        with lock:
            action = int(bot.act(obs, mask))
            if callable(getattr(bot, "action_values", None)):
                return action, np.asarray(bot.action_values(obs[None], mask[None])[0], dtype=float), "utility"
            net = getattr(bot, "net", None)
            if net is not None and callable(getattr(net, "features", None)):
                return action, _policy_probabilities(net, obs, mask), "probability"
        return action, None, None


def _policy_probabilities(net, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A PPO network's action probabilities (the softmax of its masked logits)."""
    import torch

    with torch.no_grad():
        device = next(net.parameters()).device
        features = torch.as_tensor(net.features(obs[None], mask[None]), device=device)
        legal = torch.as_tensor(mask[None], device=device).bool()
        logits, _ = net(features, legal)
        return torch.softmax(logits, -1)[0].cpu().numpy().astype(float)


__all__ = ["BotPool", "check_bot_spec", "normal_spec", "offered_specs", "suggested_bots", "shipped_checkpoints",
           "checkpoint_game", "default_game", "folder_policies", "table_policies", "trained_at"]
