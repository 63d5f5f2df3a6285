"""Many games at once, with bounded memory.

:class:`GameStore` keeps game sessions and record replays by id (random, unguessable
ids). Each session has its own lock, so one game's bots never hold up another game; the
store's own lock only guards the dictionary. Memory stays bounded: a finished game (or a
replay) expires ``finished_seconds`` after it was last looked at, a running game after
``idle_seconds``; at ``max_games`` entries the least recently used expired-or-finished
entry is dropped first, and when every entry is a live running game a new one is refused
(:class:`StoreFull`). One owner (a client address) keeps at most ``per_owner`` entries:
for a new one, its own finished games and replays, then its least recently used running
games, are dropped (so that no address can fill the store, and refuse everyone else's new
games, at its permitted rate). Open replays together stay within ``replay_memory`` bytes (each
replay's :attr:`~redbeard_web.session.ReplaySession.cost`, an estimate): the least recently
used replays are dropped to make room, and a record too large on its own is refused
(:class:`TooLarge`). A replay's move log is made once, at most ``log_size`` bytes (a longer
one lists the first moves), kept with the replay and counted in its memory. Finished games
can be appended to a records file (``records_path``), once each; when a record would take
the file beyond ``records_size`` bytes it is renamed ``FILE.1`` (``FILE.1`` to ``FILE.2``
and so on, ``RECORDS_KEPT`` old files at most) and a new file begun. A record that cannot
be written is logged; the move that finished the game stands.

A move applies whole or not at all (:meth:`GameSession.act`): a request that fails leaves
the game as it was.

A hint does not hold its game while the bot thinks: :meth:`GameStore.hint_job` takes the
question under the game's lock and its ``run()`` answers without it.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

from redbeard_env.common import shown

from .limits import Limits
from .movelog import human_seat, move_log_json
from .session import HUMAN, BotFailed, BotPool, GameSession, HintJob, ReplaySession, parse_new_game

LOCK_TIMEOUT = 120.0  # seconds a caller waits for a game that is busy with its bots
RECORDS_KEPT = 4  # rotated records files kept besides the one being written
log = logging.getLogger("redbeard_web")


class UnknownId(KeyError):
    """No game or replay with this id (never made, or expired)."""

    def __str__(self) -> str:
        return str(self.args[0])


class StoreFull(RuntimeError):
    """No room for another game: every stored game is running and recently used."""


class Busy(RuntimeError):
    """A game stayed locked (its bots are thinking) longer than the store's ``lock_seconds``."""


class TooLarge(ValueError):
    """A record whose replay would take more memory than the store allows for all replays."""


class GameStore:
    def __init__(self, bots: BotPool | None = None, max_games: int = 500, idle_seconds: float = 3600.0,
                 finished_seconds: float = 900.0, records_path: "str | Path | None" = None,
                 clock: Callable[[], float] = time.monotonic, app: str = "redbeard-web",
                 replay_memory: int = Limits.replay_memory, lock_seconds: float = LOCK_TIMEOUT,
                 records_size: int = Limits.records_size, log_size: int = Limits.log_size,
                 per_owner: int = Limits.games_per_address):
        if max_games < 1:
            raise ValueError(f"max_games must be >= 1, got {max_games}")
        self.bots = BotPool() if bots is None else bots
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.finished_seconds = finished_seconds
        self.records_path = Path(records_path) if records_path else None
        self.clock = clock
        self.app = app
        self.replay_memory = replay_memory
        self.lock_seconds = lock_seconds
        self.per_owner = per_owner
        self.records_size = records_size
        self.log_size = log_size
        self._entries: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._file_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    # ------------------------------------------------------------ expiry
    def _expired(self, entry: Any, now: float) -> bool:
        done = isinstance(entry, ReplaySession) or entry.finished
        return now - entry.touched > (self.finished_seconds if done else self.idle_seconds)

    def sweep(self) -> int:
        """Drop expired entries; returns how many."""
        now = self.clock()
        with self._lock:
            dead = [k for k, e in self._entries.items() if self._expired(e, now)]
            for k in dead:
                del self._entries[k]
        return len(dead)

    def _make_room(self, owner: str | None = None) -> None:
        """Called with the lock held, before adding an entry of ``owner``."""
        now = self.clock()
        for k in [k for k, e in self._entries.items() if self._expired(e, now)]:
            del self._entries[k]
        if owner is not None:
            own = sorted((not (isinstance(e, ReplaySession) or e.finished), e.touched, k)
                         for k, e in self._entries.items() if getattr(e, "owner", None) == owner)
            for _, _, k in own[:max(0, len(own) - self.per_owner + 1)]:
                del self._entries[k]  # the owner's own: finished games and replays first, then the oldest
        if len(self._entries) < self.max_games:
            return
        done = [(e.touched, k) for k, e in self._entries.items()
                if isinstance(e, ReplaySession) or e.finished]
        if not done:
            raise StoreFull(f"too many games running at once ({self.max_games}); try again later")
        del self._entries[min(done)[1]]

    def _insert(self, key: str, entry: Any, owner: str | None = None) -> None:
        with self._lock:
            self._make_room(owner)
            entry.owner = owner
            self._entries[key] = entry

    # ------------------------------------------------------------ games
    def create(self, body: Any, owner: str | None = None) -> dict:
        """A new game from a request body; returns the human's first view (bots that act
        before the human have moved). A refused request stores nothing: the settings, every
        bot and the bots' first moves are checked before the game is stored. ``owner`` (a
        client address) keeps at most ``per_owner`` games and replays."""
        opts = parse_new_game(body)
        for spec in set(opts["agents"]) - {HUMAN}:
            self.bots.get(spec, opts["game"])  # a spec that cannot be built fails here
        with self._lock:
            self._make_room(owner)  # StoreFull now, before the bots think
        key = secrets.token_hex(8)
        session = GameSession(key, opts["rules"], opts["players"], opts["seat"], opts["agents"], opts["seed"],
                              self.bots, clock=self.clock, app=self.app)
        with self.locked(session):
            try:
                session.run_bots()  # a bot failing on its first moves: the game is not stored
            except BotFailed as exc:
                raise BotFailed(f"{exc}; no game was made: choose other bots") from exc.__cause__
            self._insert(key, session, owner)
            self._save_if_finished(session)
            return session.view()

    def _live(self, key: str) -> Any:
        """The entry ``key``, or None if there is none or it has expired (then it is dropped:
        an expired game is a 404 even before a sweep)."""
        entry = self._entries.get(key)
        if entry is not None and self._expired(entry, self.clock()):
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
            return None
        return entry

    def session(self, game_id: str) -> GameSession:
        entry = self._live(game_id)
        if not isinstance(entry, GameSession):
            raise UnknownId(f"no game {shown(game_id, 40)} (unknown, or expired)")
        return entry

    def replay(self, replay_id: str) -> ReplaySession:
        entry = self._live(replay_id)
        if not isinstance(entry, ReplaySession):
            raise UnknownId(f"no replay {shown(replay_id, 40)} (unknown, or expired)")
        return entry

    def locked(self, entry):
        """The entry's lock as a context manager, waiting at most ``lock_seconds``."""
        return _Timed(entry.lock, self.lock_seconds)

    def view(self, game_id: str) -> dict:
        session = self.session(game_id)
        with self.locked(session):
            return session.view()

    def act(self, game_id: str, action: Any) -> dict:
        """The human's action, the bots' replies, the new view; the game as it was if any
        of it fails (see the module docstring)."""
        session = self.session(game_id)
        with self.locked(session):
            view = session.act(action, view=True)
            self._save_if_finished(session)
            return view

    def hint(self, game_id: str, spec: Any) -> dict:
        return self.hint_job(game_id, spec).run()

    def hint_job(self, game_id: str, spec: Any) -> HintJob:
        """A hint's question, taken under the game's lock; ``run()`` it without the lock."""
        session = self.session(game_id)
        with self.locked(session):
            return session.hint_job(spec)

    def record(self, game_id: str) -> dict:
        session = self.session(game_id)
        with self.locked(session):
            return session.record()

    def _save_if_finished(self, session: GameSession) -> None:
        if self.records_path is None or not session.finished or session.saved:
            return
        line = (json.dumps(session.record(), separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        try:
            with self._file_lock:
                self._rotate_records(len(line))
                with open(self.records_path, "ab") as f:
                    f.write(line)
        except OSError as exc:  # a full disk: the game is played all the same
            log.error("could not write the record of game %s to %s: %s", session.id, self.records_path, exc)
            return
        session.saved = True

    def _rotate_records(self, adding: int) -> None:
        """Rotate the records file if ``adding`` bytes would take it beyond ``records_size``
        (file lock held; see the module docstring)."""
        path = self.records_path
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0 or size + adding <= self.records_size:
            return
        def old(i: int) -> Path:
            return path.with_name(f"{path.name}.{i}")

        for i in range(RECORDS_KEPT, 0, -1):
            if old(i).exists():
                if i == RECORDS_KEPT:
                    old(i).unlink()
                else:
                    os.replace(old(i), old(i + 1))
        os.replace(path, old(1))

    # ------------------------------------------------------------ replays
    def open_replay(self, record: Any, owner: str | None = None) -> dict:
        key = secrets.token_hex(8)
        replay = ReplaySession(key, record, clock=self.clock)  # checked outside the store lock
        if replay.cost > self.replay_memory:
            raise TooLarge(f"this record would take about {replay.cost // 2**20 + 1} MB as a replay; this server "
                           f"keeps at most {self.replay_memory // 2**20} MB of replays")
        with self.locked(replay):
            frame = replay.frame(0)
        with self._lock:
            self._make_room(owner)
            replay.owner = owner
            self._replay_room(replay.cost)
            self._entries[key] = replay
        return frame

    def _replay_room(self, cost: int, keep: str | None = None) -> None:
        """Drop replays (never ``keep``) until ``cost`` more bytes fit (lock held): the least
        recently used of the address holding the most, so that one address opening replays
        again and again drops its own, not another's."""
        replays = sorted((e.touched, k) for k, e in self._entries.items() if isinstance(e, ReplaySession))
        held: dict = {}
        for _, k in replays:
            held[self._entries[k].owner] = held.get(self._entries[k].owner, 0) + self._entries[k].cost
        used = sum(held.values())
        while used + cost > self.replay_memory:
            droppable = [(t, k) for t, k in replays if k != keep and k in self._entries]
            if not droppable:
                break
            biggest = max(held, key=lambda o: (held[o], str(o)))
            mine = [(t, k) for t, k in droppable if self._entries[k].owner == biggest] or droppable
            replay = self._entries.pop(mine[0][1])
            held[replay.owner] -= replay.cost
            used -= replay.cost

    def replay_bytes(self) -> int:
        """The estimated memory of the open replays."""
        with self._lock:
            return sum(e.cost for e in self._entries.values() if isinstance(e, ReplaySession))

    def cached_replay_log(self, replay_id: str) -> bytes | None:
        """The replay's move log if it is made already (the replay counts as looked at), else
        None; ``UnknownId`` for an unknown replay. Needs no lock: the log, once made, never
        changes."""
        replay = self.replay(replay_id)
        if replay.log is not None:
            replay.touched = self.clock()
        return replay.log

    def replay_log(self, replay_id: str) -> bytes:
        """The replay's move log as JSON (:func:`~redbeard_web.movelog.move_log_json`, at
        most ``log_size`` bytes), made once and kept with the replay: its memory counts
        among the replays' (older replays are dropped to make room)."""
        replay = self.replay(replay_id)
        with self.locked(replay):
            replay.touched = self.clock()
            if replay.log is None:
                replay.log = move_log_json(replay.record, human_seat(replay.record), self.log_size)
                with self._lock:
                    replay.cost += len(replay.log)
                    self._replay_room(0, keep=replay_id)
            return replay.log

    def replay_frame(self, replay_id: str, step: int) -> dict:
        replay = self.replay(replay_id)
        with self.locked(replay):
            return replay.frame(step)


class _Timed:
    def __init__(self, lock: threading.Lock, timeout: float):
        self.lock = lock
        self.timeout = timeout

    def __enter__(self):
        if not self.lock.acquire(timeout=self.timeout):
            raise Busy(f"the game is busy (its bots have been thinking for over {self.timeout:g} s); try again")
        return self

    def __exit__(self, *exc):
        self.lock.release()
        return False
