"""The policies shipped with the bots (``agents/pretrained``) and the table each was trained
at, read from its file (again when the file changes). Shared by the bot pool
(:mod:`redbeard_web.bots`) and the levels (:mod:`redbeard_web.levels`)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any


def pretrained_dir() -> Path | None:
    spec = importlib.util.find_spec("agents")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "pretrained"


@functools.lru_cache(maxsize=512)
def _trained(path: str, mtime_ns: int, size: int) -> Any:
    """The :class:`agents.ppo.TrainedTable` a checkpoint file records (its game among
    them), or None if it cannot be read (or torch is not installed)."""
    try:
        from agents.ppo import read_payload, trained_table

        payload = read_payload(Path(path))
        return trained_table(payload) if isinstance(payload, dict) else None
    except (ImportError, ValueError):
        return None


def trained_at(path: Path) -> Any:
    """:func:`_trained` of a file, read again when it changes (None: unreadable)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    if importlib.util.find_spec("torch") is None:
        return None
    return _trained(str(path), stat.st_mtime_ns, stat.st_size)


def shipped_checkpoints(game: str | None = None) -> list[str]:
    """Names of the policies shipped in ``agents/pretrained`` (usable as ``ppo:<name>``);
    with ``game``, only those that play it (which needs torch to read the files)."""
    folder = pretrained_dir()
    if folder is None:
        return []
    paths = sorted(folder.glob("*.pt"))
    if game is None:
        return [p.stem for p in paths]
    return [p.stem for p in paths if getattr(trained_at(p), "game", None) == game]
