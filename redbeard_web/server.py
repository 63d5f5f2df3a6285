"""Serving the app with uvicorn, with limits on slow and many clients.

uvicorn's HTTP/1.1 protocol (h11) closes idle keep-alive connections, but waits forever
for a request's head and body. :func:`timed_protocol` makes a subclass that also closes a
connection whose request head has not arrived ``header_seconds`` after the connection was
made (or after the previous response), or whose body has not arrived ``body_seconds``
after its head (the app answers such a body itself with a 408 first, when it reads it),
or whose client has not read the answers it was sent for ``body_seconds`` (a reader that
never reads would hold its connection and its request's task forever); and that closes new
connections at once beyond ``max_connections``. Heads are at most
16 KB (h11's limit), bodies are bounded by the app (:mod:`redbeard_web.limits`).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import Limits

GRACE_SECONDS = 2.0  # after body_seconds, before the connection is closed under the app
MAX_HEAD_BYTES = 16 * 1024


class TimedH11Protocol(H11Protocol):
    """H11 with time limits on a request's head and body (see the module docstring); the
    limits are class attributes, set by :func:`timed_protocol`."""

    header_seconds: float = Limits.header_seconds
    body_seconds: float = Limits.body_seconds
    max_connections: int = Limits.max_connections
    closed_slow = 0  # connections closed for a slow head or body (all instances)
    refused = 0  # connections closed at once for being too many

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._unread: asyncio.TimerHandle | None = None
        if len(self.connections) >= self.max_connections:
            type(self).refused += 1
            transport.close()
            return
        super().connection_made(transport)
        self._arm(self.header_seconds)

    def _arm(self, seconds: float | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(seconds, self._too_slow) if seconds is not None else None

    def _too_slow(self) -> None:
        self._deadline = None
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            return  # the request is complete: the app is working on it
        type(self).closed_slow += 1
        self.transport.abort()

    def pause_writing(self) -> None:
        """The client is not reading what it was sent: it has ``body_seconds`` to start."""
        super().pause_writing()
        if self._unread is None:
            self._unread = self.loop.call_later(self.body_seconds, self._not_reading)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._unread is not None:
            self._unread.cancel()
            self._unread = None

    def _not_reading(self) -> None:
        self._unread = None
        type(self).closed_slow += 1
        self.transport.abort()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        cycle = self.cycle
        if cycle is not before and cycle is not None:  # a new request's head arrived
            self._arm(self.body_seconds + GRACE_SECONDS if cycle.more_body else None)
        elif cycle is not None and not cycle.more_body and not cycle.response_complete:
            self._arm(None)  # its body is complete: the app is working on it

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm(self.header_seconds)  # the next request's head (keep-alive also applies)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._deadline, self._unread):
            if timer is not None:
                timer.cancel()
        self._deadline = self._unread = None
        if self.transport is not None:
            super().connection_lost(exc)


def timed_protocol(limits: Limits) -> type:
    """A :class:`TimedH11Protocol` subclass with ``limits``' time and connection limits."""
    return type("LimitedH11Protocol", (TimedH11Protocol,), {
        "header_seconds": limits.header_seconds, "body_seconds": limits.body_seconds,
        "max_connections": limits.max_connections,
    })


def server_config(app: Any, limits: Limits, **kwargs: Any):
    """A ``uvicorn.Config`` for ``app`` with ``limits`` (see the module docstring)."""
    import uvicorn

    return uvicorn.Config(app, http=timed_protocol(limits), h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                          timeout_keep_alive=5, log_level=kwargs.pop("log_level", "warning"), **kwargs)


BACKLOG = 2048  # uvicorn's default


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host`` (an IPv4 or IPv6 address or a name) and ``port``
    (0: a free one); ``OSError`` if it cannot be had."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    infos.sort(key=lambda info: info[0] != socket.AF_INET)  # "localhost": 127.0.0.1, as before
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    try:
        sock.bind(address)
        # listening from here on: a client that connects once the address is printed waits
        # in the backlog (while the bots load) instead of being refused
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


__all__ = ["TimedH11Protocol", "timed_protocol", "server_config", "bind"]
