"""What keeps one client from holding up the others: JSON errors of one line, bounded
request bodies read within a time limit, one game's requests queued in the event loop (not
in worker threads), per-address shares of the worker threads and of the hint thinkers, a
small pool of hint thinkers with a bounded queue, noticing when a client goes away, and
which address a request comes from.

Everything here runs in the event loop; the work itself runs in worker threads:

* :class:`GameGates` -- one asyncio lock per game: a request for a busy game waits in the
  event loop (holding no thread) at most ``lock_seconds``, then gets a 503 with
  ``Retry-After``; a request for another game never waits for it.
* :class:`AddressShares` -- at most ``threads_per_address`` requests of one client address
  in a worker pool at once; its further requests wait their turn in the event loop (at
  most ``lock_seconds``, then 429), so one address never holds every thread.
* :class:`HintPool` -- ``hint_concurrency`` threads think about hints, at most
  ``hint_queue`` hints wait, and one address has at most ``hints_per_address`` of them
  thinking or waiting; more are a 429 with ``Retry-After``. Waiting hints are taken in
  turn by address, and an address thinks in at most half the threads (at least one), so a
  flood of dear hints from one address never starves another's cheap ones. A hint that has
  not started when its client goes away (or its time is up) is dropped unstarted; one that
  has started ends within the search budget and its answer is dropped.
* :func:`read_json` -- the body of a POST: JSON only, at most ``max_bytes``, within
  ``seconds``; anything else is a 4xx saying why.
* :class:`TrustedProxies` and :class:`ClientAddress` -- a request's client address is the
  connection's peer; only when the peer is a proxy named with ``--trusted-proxy`` are its
  forwarded headers (``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) believed, so no
  client can pass for another address to dodge a per-address limit.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
import re
import threading
from collections import Counter, OrderedDict, deque
from concurrent.futures import Future
from typing import Any, Awaitable, Callable, Iterable

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
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
    except ClientDisconnect:  # gone before its body arrived: nobody to answer, nothing to log
        raise refuse(400, "the client closed the connection before its body arrived") from None
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


class _KeyedGates:
    """Gates (an asyncio lock or semaphore) by key, made on first use and dropped when nobody
    holds one or waits for it (so the table stays as small as the requests in flight)."""

    def __init__(self) -> None:
        self._gates: dict[str, list] = {}  # key -> [gate, users]

    def __len__(self) -> int:
        return len(self._gates)

    def _new_gate(self) -> Any:
        raise NotImplementedError

    def _busy(self, timeout: float) -> HTTPException:
        """The refusal of a request that waited ``timeout`` s in vain."""
        raise NotImplementedError

    async def enter(self, key: str, request: Request, timeout: float) -> Callable[[], None]:
        """Wait for ``key``'s gate (at most ``timeout`` s, then :meth:`_busy`); returns the
        release call."""
        gate = self._gates.setdefault(key, [self._new_gate(), 0])
        gate[1] += 1
        try:
            await race_client(request, gate[0].acquire(), timeout)
        except BaseException as exc:
            self._leave(key, gate)
            if isinstance(exc, asyncio.TimeoutError):
                raise self._busy(timeout) from None
            raise
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                gate[0].release()
                self._leave(key, gate)

        return release

    def _leave(self, key: str, gate: list) -> None:
        gate[1] -= 1
        if gate[1] == 0 and self._gates.get(key) is gate:
            del self._gates[key]


class GameGates(_KeyedGates):
    """One asyncio lock per game or replay id: its requests take turns."""

    def _new_gate(self) -> asyncio.Lock:
        return asyncio.Lock()

    def _busy(self, timeout: float) -> HTTPException:
        return refuse(503, "this game is busy (its bots are thinking); try again in a moment", retry_after=timeout)


class AddressShares(_KeyedGates):
    """At most ``share`` requests of one client address at once in a worker pool (see the
    module docstring)."""

    def __init__(self, share: int) -> None:
        super().__init__()
        self.share = share

    def _new_gate(self) -> asyncio.Semaphore:
        return asyncio.Semaphore(self.share)

    def _busy(self, timeout: float) -> HTTPException:  # the address's own requests held it up: too many
        return refuse(429, f"your address has {self.share} requests being worked on and more waiting; try "
                           f"again in a moment", retry_after=timeout)


class _HintJob:
    __slots__ = ("address", "fn", "future", "counted", "thinking")

    def __init__(self, address: str, fn: Callable[[], Any]):
        self.address, self.fn, self.future = address, fn, Future()
        self.counted, self.thinking = True, False  # holding a place in the pool; in a thread's hands


class HintPool:
    """``workers`` threads answering hints, room for ``queue`` more waiting, at most
    ``per_address`` of them (thinking or waiting) from one address, which thinks in at most
    half the threads (at least one); see the module docstring."""

    def __init__(self, workers: int, queue: int, per_address: int | None = None):
        self.capacity = workers + queue
        self.workers = workers
        self.per_address = min(per_address or self.capacity, self.capacity)
        self.thinking_share = max(1, workers // 2)  # threads one address may think in at once
        self._waiting: OrderedDict[str, deque] = OrderedDict()  # address -> its waiting jobs; addresses in turn
        self._thinking: Counter = Counter()  # address -> jobs thinking
        self._held: Counter = Counter()  # address -> jobs thinking or waiting
        self._in_flight = 0
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._closed = False
        self._cond = threading.Condition()

    @property
    def in_flight(self) -> int:
        """Hints thinking or waiting (a hint counts until its thread is done with it)."""
        return self._in_flight

    def held(self, address: str) -> int:
        """Hints of ``address`` thinking or waiting."""
        return self._held[address]

    def submit(self, fn: Callable[[], Any], retry_after: float, address: str = "") -> asyncio.Future:
        """``fn()`` in a thinker's thread, as an asyncio future (cancelling it before the job
        starts drops the job); 429 if the pool or the address's share is full."""
        with self._cond:
            if self._closed:
                raise refuse(503, "the server is shutting down", retry_after=retry_after)
            if self._held[address] >= self.per_address:
                raise refuse(429, f"too many hints from your address at once ({self.per_address} thinking or "
                                  f"waiting); try again shortly", retry_after=retry_after)
            if self._in_flight >= self.capacity:
                raise refuse(429, f"too many hints at once ({self.capacity} thinking or waiting); try again shortly",
                             retry_after=retry_after)
            job = _HintJob(address, fn)
            self._in_flight += 1
            self._held[address] += 1
            self._waiting.setdefault(address, deque()).append(job)
            if self._idle == 0 and len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name=f"redbeard-hint-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify_all()
        job.future.add_done_callback(lambda _f: self._cancelled(job) if _f.cancelled() else None)
        return asyncio.wrap_future(job.future)

    def _uncount(self, job: _HintJob) -> None:
        """The job no longer holds a place (called with the lock held; once per job)."""
        if job.counted:
            job.counted = False
            self._in_flight -= 1
            self._held[job.address] -= 1
            if self._held[job.address] <= 0:
                del self._held[job.address]

    def _cancelled(self, job: _HintJob) -> None:
        """A job cancelled before it started: out of the queue, its place freed."""
        with self._cond:
            waiting = self._waiting.get(job.address)
            if waiting is not None and job in waiting:
                waiting.remove(job)
                if not waiting:
                    del self._waiting[job.address]
            self._uncount(job)

    def _next(self) -> _HintJob | None:
        """The next job to think about (lock held): the first address in turn, among those
        thinking in fewer than their share, takes its oldest job and goes to the end."""
        for address, waiting in self._waiting.items():
            if self._thinking[address] < self.thinking_share:
                job = waiting.popleft()
                if waiting:
                    self._waiting.move_to_end(address)
                else:
                    del self._waiting[address]
                return job
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                job = self._next()
                while job is None:
                    if self._closed:
                        return
                    self._idle += 1
                    self._cond.wait()
                    self._idle -= 1
                    job = self._next()
                self._thinking[job.address] += 1
                job.thinking = True
            try:
                if job.future.set_running_or_notify_cancel():
                    try:
                        result = job.fn()
                    except BaseException as exc:  # the caller sees it
                        self._done(job)  # the place is free before the caller hears
                        job.future.set_exception(exc)
                    else:
                        self._done(job)
                        job.future.set_result(result)
            finally:
                self._done(job)

    def _done(self, job: _HintJob) -> None:
        """A job's thread is done with it: its places are free (once per job)."""
        with self._cond:
            if job.thinking:
                job.thinking = False
                self._thinking[job.address] -= 1
                if self._thinking[job.address] <= 0:
                    del self._thinking[job.address]
            self._uncount(job)
            self._cond.notify_all()  # the address may be under its share again

    def shutdown(self) -> None:
        with self._cond:
            self._closed = True
            jobs = [job for waiting in self._waiting.values() for job in waiting]
            self._cond.notify_all()
        for job in jobs:
            job.future.cancel()


# ---------------------------------------------------------------- client addresses
def _address(text: str) -> str | None:
    """An IP address as text in its normal form, from a header's spelling of it
    (``1.2.3.4``, ``1.2.3.4:80``, ``[::1]:80``, ``"[::1]"``); None if it is none."""
    text = text.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        return str(ipaddress.ip_address(text.partition("%")[0]))
    except ValueError:
        return None


class TrustedProxies:
    """The proxies (addresses or networks, ``--trusted-proxy``) whose forwarded headers are
    believed; none by default. ``ValueError`` for an entry that is neither."""

    def __init__(self, entries: Iterable[str] = ()):
        self.networks = []
        for entry in entries:
            try:
                self.networks.append(ipaddress.ip_network(str(entry).strip().strip("[]"), strict=False))
            except ValueError:
                raise ValueError(f"a trusted proxy is an IP address or network (127.0.0.1, 10.0.0.0/8, ::1), "
                                 f"got {str(entry)[:60]!r}") from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, host: str | None) -> bool:
        address = _address(host) if host else None
        if address is None:
            return False
        ip = ipaddress.ip_address(address)
        return any(ip.version == n.version and ip in n for n in self.networks)

    def client(self, peer: str, headers: Iterable[tuple[bytes, bytes]]) -> str:
        """The client's address of a request from ``peer``: the peer itself, unless it is a
        trusted proxy; then the last address in ``X-Forwarded-For`` (else ``Forwarded``'s
        ``for=``, else ``X-Real-IP``) that is not a trusted proxy -- the one the nearest
        trusted proxy saw (addresses further left are the client's own word)."""
        if not self.trusts(peer):
            return peer
        found: dict[bytes, list[str]] = {}
        for name, value in headers:
            name = name.lower()
            if name in (b"x-forwarded-for", b"forwarded", b"x-real-ip"):
                found.setdefault(name, []).append(value.decode("latin-1"))
        if b"x-forwarded-for" in found:
            chain = [part for value in found[b"x-forwarded-for"] for part in value.split(",")]
        elif b"forwarded" in found:
            chain = [pair.partition("=")[2] for value in found[b"forwarded"] for element in value.split(",")
                     for pair in element.split(";") if pair.strip().lower().startswith("for=")]
        else:
            chain = found.get(b"x-real-ip", [])[-1:]
        for text in reversed(chain):
            address = _address(text)
            if address is None:
                break  # not an address (a proxy's placeholder, or garbage): go by the peer
            if not self.trusts(address):
                return address
        return peer


class ClientAddress:
    """ASGI middleware: a request from a trusted proxy gets the client address the proxy
    forwarded (see :class:`TrustedProxies`); every other request keeps its peer's."""

    def __init__(self, app, proxies: TrustedProxies):
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope, receive, send) -> None:
        client = scope.get("client") if scope["type"] in ("http", "websocket") else None
        if client and self.proxies.trusts(client[0]):
            address = self.proxies.client(client[0], scope.get("headers") or [])
            if address != client[0]:
                scope = dict(scope, client=(address, client[1]))
        await self.app(scope, receive, send)


def address_of(request: Request) -> str:
    """The client address a request counts against (see :class:`ClientAddress`)."""
    return request.client.host if request.client else "unknown"


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


__all__ = ["AddressShares", "ClientAddress", "ClientGone", "GameGates", "HintPool", "HostCheck", "TrustedProxies",
           "address_of", "SECURITY_HEADERS", "clean_message", "error",
           "parse_json", "race_client", "read_json", "refuse", "host_name", "log"]
