"""What keeps one client from holding up the others: JSON errors of one line, bounded
request bodies read within a time limit, one game's requests queued in the event loop (not
in worker threads), a small pool of hint thinkers with a bounded queue, and noticing when a
client goes away.

Everything here runs in the event loop; the work itself runs in worker threads:

* :class:`GameGates` -- one asyncio lock per game: a request for a busy game waits in the
  event loop (holding no thread) at most ``lock_seconds``, then gets a 503 with
  ``Retry-After``; a request for another game never waits for it.
* :class:`HintPool` -- ``hint_concurrency`` threads think about hints, at most
  ``hint_queue`` hints wait; more are a 429 with ``Retry-After``. A hint that has not
  started when its client goes away (or its time is up) is dropped unstarted; one that has
  started ends within the search budget and its answer is dropped.
* :func:`read_json` -- the body of a POST: JSON only, at most ``max_bytes``, within
  ``seconds``; anything else is a 4xx saying why.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

log = logging.getLogger("redbeard_web")

MAX_MESSAGE = 300  # characters of an error message sent to a client
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
# an absolute path of two or more parts (/usr/lib/x, C:\\Users\\x), not a relative one (a/b/c)
_PATH = re.compile(r"(?<![\w.~/\\-])(?:[A-Za-z]:[/\\]|[/\\])(?:[\w.+@~-]+[/\\])+[\w.+@~-]*")


class ClientGone(Exception):
    """The client closed its connection while its request waited."""


def clean_message(message: Any) -> str:
    """An error message as a client gets it: one line, no absolute path (only its last
    part), at most ``MAX_MESSAGE`` characters."""
    text = " ".join(str(message).split())
    text = _PATH.sub(lambda m: "…/" + re.split(r"[/\\]", m.group(0).rstrip("/\\"))[-1], text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def error(status: int, message: Any, retry_after: float | None = None) -> JSONResponse:
    headers = dict(SECURITY_HEADERS)
    if retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return JSONResponse({"error": clean_message(message)}, status_code=status, headers=headers)


def refuse(status: int, message: str, retry_after: float | None = None) -> HTTPException:
    """An HTTPException the app's handler turns into ``{"error": message}``."""
    headers = {"Retry-After": str(max(1, math.ceil(retry_after)))} if retry_after is not None else None
    return HTTPException(status, message, headers=headers)


# ---------------------------------------------------------------- bodies
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes) -> Any:
    """JSON text -> data; ``HTTPException`` 400 saying why not (never a 500: bad UTF-8,
    NaN or Infinity, nesting too deep, an integer of too many digits)."""
    try:
        return json.loads(body or b"null", parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise refuse(400, f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except UnicodeDecodeError as exc:
        raise refuse(400, f"the body is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise refuse(400, "the body is not JSON this server reads: arrays or objects nested too deeply") from None
    except ValueError as exc:
        text = str(exc)
        if "digits" in text:
            text = "an integer has too many digits"
        raise refuse(400, f"the body is not JSON this server reads: {text}") from None


async def read_json(request: Request, max_bytes: int, seconds: float) -> Any:
    """The JSON body of a POST (see the module docstring)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise refuse(415, "send JSON with Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isascii() or not length.isdigit() or len(length) > 15
                               or int(length) > max_bytes):
        raise refuse(413, f"the body is larger than {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise refuse(413, f"the body is larger than {max_bytes} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), seconds)
    except asyncio.TimeoutError:
        raise refuse(408, f"the body did not arrive within {seconds:g} s") from None
    body = b"".join(chunks)
    if size > 64 * 1024:  # a large body is parsed in a worker thread, not in the event loop
        return await asyncio.get_running_loop().run_in_executor(None, parse_json, body)
    return parse_json(body)


# ---------------------------------------------------------------- waiting, and leaving
async def _disconnected(request: Request) -> None:
    """Returns when the client has gone away (call it once the body has been read)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def race_client(request: Request, work: Awaitable, timeout: float | None) -> Any:
    """``work``'s result; ``asyncio.TimeoutError`` after ``timeout`` seconds, or
    :class:`ClientGone` when the client leaves first. ``work`` (a coroutine or a future) is
    cancelled in both cases."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, watch}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        watch.cancel()
    if task in done:
        return task.result()
    task.cancel()
    raise ClientGone() if watch in done else asyncio.TimeoutError()


class GameGates:
    """One asyncio lock per game or replay id, made on first use and dropped when nobody
    holds it or waits for it (so the table stays as small as the requests in flight)."""

    def __init__(self) -> None:
        self._gates: dict[str, list] = {}  # id -> [asyncio.Lock, users]

    def __len__(self) -> int:
        return len(self._gates)

    async def enter(self, key: str, request: Request, timeout: float) -> Callable[[], None]:
        """Wait for ``key``'s turn (see the module docstring); returns the release call."""
        gate = self._gates.setdefault(key, [asyncio.Lock(), 0])
        gate[1] += 1
        lock = gate[0]
        try:
            await race_client(request, lock.acquire(), timeout)
        except BaseException as exc:
            self._leave(key, gate)
            if isinstance(exc, asyncio.TimeoutError):
                raise refuse(503, "this game is busy (its bots are thinking); try again in a moment",
                             retry_after=timeout) from None
            raise
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                lock.release()
                self._leave(key, gate)

        return release

    def _leave(self, key: str, gate: list) -> None:
        gate[1] -= 1
        if gate[1] == 0 and self._gates.get(key) is gate:
            del self._gates[key]


class HintPool:
    """``workers`` threads answering hints, and room for ``queue`` more waiting; see the
    module docstring."""

    def __init__(self, workers: int, queue: int):
        self.capacity = workers + queue
        self.workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="redbeard-hint")
        self._in_flight = 0
        self._lock = threading.Lock()

    @property
    def in_flight(self) -> int:
        """Hints thinking or waiting (a hint counts until its thread is done with it)."""
        return self._in_flight

    def submit(self, fn: Callable[[], Any], retry_after: float) -> asyncio.Future:
        with self._lock:
            if self._in_flight >= self.capacity:
                raise refuse(429, f"too many hints at once ({self.capacity} thinking or waiting); try again shortly",
                             retry_after=retry_after)
            self._in_flight += 1
        future = self._executor.submit(fn)
        future.add_done_callback(self._done)  # also when it is cancelled before it starts
        return asyncio.wrap_future(future)

    def _done(self, _future) -> None:
        with self._lock:
            self._in_flight -= 1

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------- the Host header
def host_name(header: str) -> str:
    """The host name of a Host header, without the port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


class HostCheck:
    """ASGI middleware: serve only requests whose Host header names one of ``allowed``
    (against DNS rebinding); others get a JSON 400. IPv6 addresses are written ``[::1]``."""

    def __init__(self, app, allowed: "list[str] | tuple[str, ...]"):
        self.app = app
        self.allowed = {host_name(h) if h.startswith("[") else h.lower() for h in allowed}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            name = host_name(headers.get(b"host", b"").decode("latin-1"))
            if name not in self.allowed:
                if scope["type"] == "http":
                    response = error(400, f"invalid Host header; this server answers to {', '.join(sorted(self.allowed))}")
                    await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


__all__ = ["ClientGone", "GameGates", "HintPool", "HostCheck", "SECURITY_HEADERS", "clean_message", "error",
           "parse_json", "race_client", "read_json", "refuse", "host_name", "log"]
