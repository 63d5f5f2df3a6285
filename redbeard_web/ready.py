"""Start-up without silent waits: load and compile the bots the page offers before anyone
waits for them, and say when the server is ready.

:func:`start_warm_up` (called by ``redbeard-web`` before it serves) builds, in a background
thread, every level's bot of every game (:mod:`redbeard_web.levels`) plus the hint and
review bots, and plays a few moves of a throwaway game with each: numba's compiled kernels
are loaded (or compiled, the first time in a checkout), checkpoints read, torch imported.
``GET /api/ready`` answers :func:`status`: ``{"ready", "state", "loaded", "total",
"seconds", "error"}``; ``ready`` is true when no warm-up was started (e.g. an app made in a
test) or once it has finished. A log line says when it is done. Then what start-up made is
left out of the garbage collector's passes (:func:`settle_heap`).
"""

from __future__ import annotations

import gc
import random
import sys
import threading
import time
from typing import Any, Callable

from redbeard_env.registry import game_named, registered_games

from .levels import levels_of
from .review import default_bot
from .session import HUMAN, GameSession, views_of


class Readiness:
    """What the warm-up has done so far (one per server; thread-safe reads of plain fields)."""

    def __init__(self) -> None:
        self.state = "idle"  # idle (no warm-up: ready) | loading | ready | failed
        self.loaded: list[str] = []
        self.total = 0
        self.started: float | None = None
        self.seconds: float | None = None
        self.error: str | None = None

    def status(self) -> dict:
        running = self.state == "loading"
        return {"ready": not running, "state": self.state, "loaded": list(self.loaded), "total": self.total,
                "seconds": round(self.seconds if self.seconds is not None else
                                 (time.monotonic() - self.started if self.started else 0.0), 2),
                "error": self.error}


READINESS = Readiness()


def status() -> dict:
    return READINESS.status()


def hint_specs(game: str) -> list[str]:
    """The bots the page asks for hints and reviews in ``game`` (they think apart from the
    bots playing: the pool's role "hint")."""
    return ["heuristic", default_bot(game, getattr(views_of(game_named(game)), "REVIEW_BOT", "heuristic"))]


def warm_up_specs() -> list[tuple[str, str]]:
    """(game, bot spec) pairs to load: every level's bot, the hint bot and the review bot."""
    pairs: list[tuple[str, str]] = []
    for game in registered_games():
        specs = [lv["bot"] for lv in levels_of(game)["levels"]] + hint_specs(game)
        for spec in specs:
            if (game, spec) not in pairs:
                pairs.append((game, spec))
    return pairs


def warm_up(bots: Any, readiness: Readiness = READINESS, moves: int = 12,
            say: Callable[[str], None] | None = None) -> None:
    """Build every bot of :func:`warm_up_specs` and let it play ``moves`` moves of a
    throwaway game against a random human; records progress in ``readiness``."""
    pairs = warm_up_specs()
    readiness.total, readiness.state, readiness.started = len(pairs), "loading", time.monotonic()
    rng = random.Random(0)
    try:
        for game, spec in pairs:
            info = game_named(game)
            lo, hi = info.player_range
            players = min(max(4, lo), hi)
            agents = [HUMAN] + [spec] * (players - 1)
            session = GameSession("warm-up", info.make_rules(), players, 0, agents, 0, bots)
            for _ in range(moves):
                session.run_bots()
                if session.finished:
                    break
                session.act(rng.choice(session.legal_names()))
            if spec in hint_specs(game) and hasattr(bots, "get"):
                bots.get(spec, game, role="hint")
            readiness.loaded.append(f"{game}:{spec}")
        readiness.state = "ready"
    except Exception as exc:  # a bot that cannot load: the server still serves the others
        readiness.state, readiness.error = "failed", f"{type(exc).__name__}: {exc}"[:300]
    readiness.seconds = time.monotonic() - readiness.started
    if say is not None:
        if readiness.state == "ready":
            say(f"redbeard-web: ready ({len(readiness.loaded)} bots loaded in {readiness.seconds:.1f} s)")
        else:
            say(f"redbeard-web: warm-up failed after {readiness.seconds:.1f} s: {readiness.error}")


def settle_heap() -> None:
    """Leave what start-up made (modules, the bots, their networks: hundreds of thousands of
    objects) out of the garbage collector's full passes: each pass walks every tracked
    object with the interpreter stopped, and over that heap it stalled every request for a
    good part of a second whenever a replay's record was checked."""
    gc.collect()
    gc.freeze()


def start_warm_up(store: Any, readiness: Readiness = READINESS) -> threading.Thread:
    """:func:`warm_up` with the store's bot pool in a daemon thread (the server answers
    meanwhile; ``/api/ready`` says how far it is)."""
    readiness.state, readiness.started = "loading", time.monotonic()

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    def run() -> None:
        warm_up(store.bots, readiness, say=say)
        settle_heap()

    thread = threading.Thread(target=run, name="redbeard-warm-up", daemon=True)
    thread.start()
    return thread
