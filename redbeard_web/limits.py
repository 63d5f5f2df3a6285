"""The web table's budgets: what one client may cost the server, with their defaults.

Every budget is a field of :class:`Limits` and an option of ``redbeard-web`` (its help text
is the field's ``help``)::

    bot cache         --bot-cache 32          bots kept built (least recently used dropped)
    search budget     --search-budget 4096    cost units a bot's decision may cost (agents.params)
    hint time         --hint-seconds 10       a hint answers within this or is a 503
    hint concurrency  --hint-concurrency 2    hints thinking at once
    hint queue        --hint-queue 8          hints waiting for a thinker; more are 429s
    hints per address --hints-per-address 4   hints one address may have thinking or waiting
    review time       --review-seconds 30     a review of your play answers within this or is a 503
    game creation     --games-per-minute 60   new games and replays per client address
    games kept        --games-per-address 20  games and replays one address keeps (its oldest dropped)
    replay logs       --replay-logs-per-minute 30  replays' move logs per client address
                      --log-size 1M           the largest replay log answered (its first moves beyond)
    request bodies    --body-size 64K         a new game's or an action's body
    record uploads    --record-size 1M        a record sent for a replay, one at a time per address
    replay memory     --replay-memory 32M     the estimated memory of every open replay
    replay work       --replay-seconds-per-minute 6  worker seconds a minute per address on replays
    records file      --records-size 64M      the --records file is rotated at this size
    busy games        --lock-seconds 10       a request waits this long for a busy game
    worker threads    --threads-per-address 4 threads of each worker pool one address may hold
    slow clients      --header-seconds 10     a request's head must arrive within this
                      --body-seconds 30       and its body within this
    connections       --max-connections 1000  open connections; more are closed at once
                      --connections-per-address 50   open connections from one address

Per address: a client address (the connection's peer; behind a proxy named with
``--trusted-proxy``, the address the proxy forwards) may hold at most
``connections_per_address`` connections, ``threads_per_address`` threads of each worker
pool (its further requests wait their turn in the event loop), ``hints_per_address`` hints
and reviews thinking or waiting (it thinks in at most half the hint threads, at least one),
and ``games_per_address`` games and replays in the store, so that whatever one address asks,
another address's requests keep being answered.

The per-client rates are token buckets (:class:`RateLimiter`): ``games_per_minute`` tokens,
refilled continuously, one per new game or replay; ``replay_logs_per_minute`` likewise, one
per replay's move log; ``replay_seconds_per_minute`` seconds of worker time (the thread's
CPU time), charged after each piece of replay work -- a record checked, a frame, a move log
made -- so that one address's replays take at most that share of the server however large
its records.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

KIB, MIB = 1024, 1024 * 1024


def _limit(default: Any, help: str, unit: str = "", zero: bool = False) -> Any:
    """A budget: its default, its help text, its unit ("s", "bytes" or none); ``zero``: 0
    is allowed (it switches a rate off)."""
    return field(default=default, metadata={"help": help, "unit": unit, "zero": zero})


@dataclass(frozen=True)
class Limits:
    """What a client may cost the web table (see the module docstring). Sizes are bytes,
    times seconds; a rate of 0 (``games_per_minute``, ``replay_logs_per_minute``,
    ``replay_seconds_per_minute``) switches it off."""

    bot_cache: int = _limit(32, "bots kept built at once; the least recently used is dropped")
    search_budget: int = _limit(4096, "cost units a bot spec's decision may cost, as the bots declare them "
                                      "(agents.params: pimc's samples x candidates x its rollout bot's cost); "
                                      "costlier specs are refused")
    hint_seconds: float = _limit(10.0, "a hint (waiting and thinking) answers within this or is a 503", "s")
    hint_concurrency: int = _limit(2, "hints thinking at once")
    hint_queue: int = _limit(8, "hints waiting for a free thinker; more are refused with 429")
    hints_per_address: int = _limit(4, "hints and reviews one client address may have thinking or waiting at "
                                       "once (it thinks in at most half the hint threads); more are refused with 429")
    review_seconds: float = _limit(30.0, "a review of your play (a bot's values at each of your decisions, "
                                         "in the hints' pool) answers within this or is a 503; the bot stops then",
                                   "s")
    games_per_minute: float = _limit(60.0, "new games and replays per client address and minute "
                                           "(a burst of as many); 0: no limit", zero=True)
    games_per_address: int = _limit(20, "games and replays one client address keeps at once; for a new one, its "
                                        "finished games and replays, then its least recently used, are dropped")
    replay_seconds_per_minute: float = _limit(6.0, "worker seconds one client address may spend a minute on "
                                                    "replays: checking records, frames, move logs of replays and "
                                                    "games (a burst of as many); 0: no limit", "s", zero=True)
    replay_logs_per_minute: float = _limit(30.0, "replays' move logs per client address and minute (a burst of "
                                                 "as many); 0: no limit", zero=True)
    log_size: int = _limit(1 * MIB, "largest replay log answered; a longer game's log lists its first moves "
                                    "and says how many it leaves out", "bytes")
    body_size: int = _limit(64 * KIB, "largest body of a new game or an action", "bytes")
    record_size: int = _limit(1 * MIB, "largest record uploaded for a replay (one at a time from an address)",
                              "bytes")
    replay_memory: int = _limit(32 * MIB, "estimated memory of all open replays; the least recently "
                                           "used are dropped beyond it", "bytes")
    records_size: int = _limit(64 * MIB, "the --records file is renamed FILE.1 (older ones FILE.2 ... FILE.4, "
                                         "the oldest dropped) when a record would take it beyond this", "bytes")
    lock_seconds: float = _limit(10.0, "a request waits this long for a game busy with its bots, then 503", "s")
    header_seconds: float = _limit(10.0, "a request's head must arrive within this (else the connection is closed)", "s")
    body_seconds: float = _limit(30.0, "a request's body must arrive within this (else 408)", "s")
    max_connections: int = _limit(1000, "open connections at once; more are closed at once")
    connections_per_address: int = _limit(50, "open connections from one client address (a trusted proxy's are "
                                              "not counted); more are closed at once")
    threads_per_address: int = _limit(4, "threads of each worker pool (moves and replays; views) one client "
                                         "address may hold; its other requests wait their turn")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "int":
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
                what = "an int >= 1"
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                ok = ok and (value >= 0 if f.metadata["zero"] else value > 0)
                what = "a finite number >= 0" if f.metadata["zero"] else "a finite number > 0"
            if not ok:
                raise ValueError(f"limit {f.name} must be {what}, got {str(value)[:40]!r}")


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def parse_size(text: str) -> int:
    """``"64K"``, ``"4M"``, ``"1G"`` or a number of bytes -> bytes."""
    text = str(text).strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": KIB, "M": MIB, "G": 1024 * MIB}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    if not digits.isdigit() or len(digits) > 12 or int(digits) < 1:
        raise ValueError(f"a size is a positive number of bytes, or with K, M or G (e.g. 64K, 4M), got {text[:40]!r}")
    return int(digits) * scale


def positive_number(text: str, allow_zero: bool = False) -> float:
    """A finite number > 0 (>= 0 with ``allow_zero``) from the command line."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number: {str(text)[:40]!r}") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"must be a finite number {'>= 0' if allow_zero else '> 0'}, got {str(text)[:40]!r}")
    return value


def show_size(n: int) -> str:
    for unit, size in (("G", 1024 * MIB), ("M", MIB), ("K", KIB)):
        if n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


# ---------------------------------------------------------------- per-client rate
class RateLimiter:
    """A token bucket per client address: ``per_minute`` tokens (the burst), refilled
    continuously. Memory stays bounded: at most ``max_clients`` buckets are kept (the least
    recently used is forgotten, which only ever gives its client a full bucket)."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic, max_clients: int = 10_000):
        self.per_minute = float(per_minute)
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str, cost: float = 1.0) -> float:
        """Take ``cost`` tokens for ``client``: 0.0 if it had them, else the seconds until it
        has (nothing is taken then). ``cost=0`` asks whether the client is out of debt."""
        if self.per_minute <= 0:
            return 0.0
        with self._lock:
            tokens = self._refilled(client)
            wait = 0.0
            if tokens >= cost:
                tokens -= cost
            else:
                wait = (cost - tokens) * 60.0 / self.per_minute
            self._keep(client, tokens)
        return wait

    def charge(self, client: str, cost: float) -> None:
        """Take ``cost`` tokens for work already done: the bucket may go below zero (then
        :meth:`take` makes the client wait until it is refilled past the debt)."""
        if self.per_minute <= 0:
            return
        with self._lock:
            self._keep(client, self._refilled(client) - cost)

    def _refilled(self, client: str) -> float:
        """The client's tokens now (lock held; its bucket taken out, :meth:`_keep` puts it back)."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (self.per_minute, now))
        return min(self.per_minute, tokens + (now - then) * self.per_minute / 60.0)

    def _keep(self, client: str, tokens: float) -> None:
        self._buckets[client] = (tokens, self.clock())
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._buckets)


# ---------------------------------------------------------------- memory estimates
def estimate_bytes(data: Any) -> int:
    """An estimate of the memory of parsed JSON data (dicts, lists, strings, numbers): the
    sum of ``sys.getsizeof`` over every object and the containers' slots, walked without
    recursion (so any nesting depth is fine)."""
    total, stack = 0, [data]
    while stack:
        item = stack.pop()
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return total


__all__ = ["Limits", "RateLimiter", "estimate_bytes", "parse_size", "positive_number", "option_name", "show_size",
           "KIB", "MIB"]
