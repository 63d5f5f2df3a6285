"""The bots of the web table and the terminal game: which a user may name, which the page
offers for each game, and one shared instance per (game, spec).

Bots are shared between games of the same kind (:class:`BotPool`: one instance per game
and spec, built on first use, one lock each, so a checkpoint is loaded once);
deterministic bots (``heuristic``, a greedy ``ppo``) therefore play a seeded game the same
way every time, bots that draw random numbers (``random``, ``pimc``) draw from their
shared generator. Specs resolve within the game being played
(:func:`agents.registry.make_agent` with ``game=``): a bot of another game is refused.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np

from agents.registry import available_agents, make_agent, parse_spec, resolve
from redbeard_env.registry import game_named, registered_games

#: the built-in bots the page offers after the shipped policies, where the game has them
OFFERED = ("heuristic", "pimc", "random")
# A bot spec from a user names an agent and plain values; a path could make the server
# read any file, so string values may only be names (shipped checkpoints like classic_4p).
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_+-]+$")


def default_game() -> str:
    return registered_games()[0]


def _pretrained_dir() -> Path | None:
    spec = importlib.util.find_spec("agents")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "pretrained"


@functools.cache
def _checkpoint_game(path: str, mtime: float) -> str | None:
    """The game a checkpoint file plays (read from the file; files without one are the
    first registered game's), or None if it cannot be read."""
    try:
        from agents.ppo import read_payload

        payload = read_payload(Path(path))
    except (ImportError, ValueError):
        return None
    return payload.get("game", default_game()) if isinstance(payload, dict) else None


def shipped_checkpoints(game: str | None = None) -> list[str]:
    """Names of the policies shipped in ``agents/pretrained`` (usable as ``ppo:<name>``);
    with ``game``, only those that play it (which needs torch to read the files)."""
    folder = _pretrained_dir()
    if folder is None:
        return []
    paths = sorted(folder.glob("*.pt"))
    if game is None:
        return [p.stem for p in paths]
    if importlib.util.find_spec("torch") is None:
        return []
    return [p.stem for p in paths if _checkpoint_game(str(p), p.stat().st_mtime) == game]


def checkpoint_game(name: str) -> str | None:
    """The game of the shipped policy ``name`` (None: not a shipped name, or unreadable)."""
    folder = _pretrained_dir()
    path = folder / f"{name}.pt" if folder is not None else None
    if path is None or not path.is_file() or importlib.util.find_spec("torch") is None:
        return None
    return _checkpoint_game(str(path), path.stat().st_mtime)


def suggested_bots(game: str | None = None) -> list[str]:
    """Bot specs offered on the page for ``game``: its shipped policies (when torch is
    installed), then its built-in bots."""
    game = game_named(game or default_game()).name
    known = available_agents(game)
    ppo = [f"ppo:{name}" for name in shipped_checkpoints(game)] if "ppo" in known else []
    return ppo + [b for b in OFFERED if b in known]


def check_bot_spec(spec: Any, game: str | None = None) -> str:
    """A bot spec from a user for ``game``: an agent of that game with plain values, never a
    file path. ``ValueError`` otherwise (a bot of another game: naming that game)."""
    info = game_named(game or default_game())
    if not isinstance(spec, str):
        raise ValueError(f"a bot is a spec string like 'heuristic' or 'ppo:<policy>', got {spec!r:.60}")
    parsed = parse_spec(spec)
    known = available_agents(info.name)
    if parsed.name not in known:
        others = [game_named(g).title for g in registered_games() if g != info.name and _knows(g, parsed.name)]
        if others:
            raise ValueError(f"bot {parsed.name!r} plays {' and '.join(others)}, not {info.title}; "
                             f"{info.title}'s bots: {', '.join(known)}")
        raise ValueError(f"unknown bot {parsed.name!r}; known: {', '.join(known)}")
    for value in list(parsed.args) + list(parsed.kwargs.values()):
        if isinstance(value, str) and not _SAFE_NAME.match(value):
            raise ValueError(
                f"bot spec {spec!r}: {value!r} is not allowed here; values are numbers or plain names "
                f"(shipped policies: {', '.join(shipped_checkpoints(info.name)) or 'none'}), not file paths"
            )
    if parsed.name == "ppo" and parsed.args:
        plays = checkpoint_game(str(parsed.args[0]))
        if plays is not None and plays != info.name:
            raise ValueError(f"ppo:{parsed.args[0]} is a policy of {game_named(plays).title}, not of {info.title}; "
                             f"{info.title}'s policies: {', '.join(shipped_checkpoints(info.name)) or 'none'}")
    return parsed.text


def _knows(game: str, name: str) -> bool:
    """Whether ``name`` is a bot (or an old name of one) of ``game``."""
    try:
        resolve(name, game)
    except ValueError:
        return False
    return True


class BotPool:
    """One shared bot per (game, spec), built on first use; each with a lock (a bot may keep
    state, e.g. a random generator, and is used by many games)."""

    def __init__(self, factory: Callable[[str, str], Any] | None = None):
        self._factory = factory or (lambda spec, game: make_agent(spec, game=game, seed=0))
        self._bots: dict[tuple[str, str], tuple[Any, threading.Lock]] = {}
        self._building: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, spec: str, game: str | None = None) -> tuple[Any, threading.Lock]:
        game = game_named(game or default_game()).name
        key = (game, check_bot_spec(spec, game))
        with self._lock:
            if key in self._bots:
                return self._bots[key]
            build_lock = self._building.setdefault(key, threading.Lock())
        with build_lock:  # one build per spec; other specs and games go on meanwhile
            with self._lock:
                if key in self._bots:
                    return self._bots[key]
            bot = self._factory(key[1], game)
            entry = (bot, threading.Lock())
            with self._lock:
                self._bots[key] = entry
            return entry

    def act(self, spec: str, obs: np.ndarray, mask: np.ndarray, game: str | None = None) -> int:
        bot, lock = self.get(spec, game)
        with lock:
            return int(bot.act(obs, mask))

    def values(self, spec: str, obs: np.ndarray, mask: np.ndarray,
               game: str | None = None) -> tuple[int, np.ndarray | None, str | None]:
        """The bot's action and, when it has them, its values of every action: a
        heuristic-style bot's ``action_values`` (utilities), a policy network's action
        probabilities. ``(action, None, None)`` for other bots."""
        bot, lock = self.get(spec, game)
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


__all__ = ["BotPool", "check_bot_spec", "suggested_bots", "shipped_checkpoints", "checkpoint_game", "default_game"]
