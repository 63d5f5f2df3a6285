"""Serving the app with uvicorn, with limits on slow and many clients.

uvicorn's HTTP/1.1 protocol (h11) closes idle keep-alive connections, but waits forever
for a request's head and body. :func:`timed_protocol` makes a subclass that also closes a
connection whose request head has not arrived ``header_seconds`` after the connection was
made (or after the previous response), or whose body has not arrived ``body_seconds``
after its head (the app answers such a body itself with a 408 first, when it reads it),
or whose client has not read the answers it was sent for ``body_seconds`` (a reader that
never reads would hold its connection and its request's task forever); and that closes new
connections at once beyond ``max_connections``, or beyond ``connections_per_address``
from one peer address (a trusted proxy's connections are not counted per address: they
carry many clients).

A request head (its request line and headers) is at most 16 KB: a longer one is refused
with 431, whether it arrives in pieces or in one packet. Every error the server writes
itself, before the app sees a request (malformed HTTP: 400, a head too large: 431), is
JSON ``{"error": "..."}`` like the app's. Bodies are bounded by the app
(:mod:`redbeard_web.limits`). Forwarded headers are not read here: the app believes them
only from trusted proxies (:class:`~redbeard_web.guards.ClientAddress`).
"""

from __future__ import annotations

import asyncio
import http
import json
import socket
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .guards import SECURITY_HEADERS, TrustedProxies, clean_message
from .limits import Limits

GRACE_SECONDS = 2.0  # after body_seconds, before the connection is closed under the app
MAX_HEAD_BYTES = 16 * 1024


class TimedH11Protocol(H11Protocol):
    """H11 with time limits on a request's head and body (see the module docstring); the
    limits are class attributes, set by :func:`timed_protocol`."""

    header_seconds: float = Limits.header_seconds
    body_seconds: float = Limits.body_seconds
    max_connections: int = Limits.max_connections
    connections_per_address: int = Limits.connections_per_address
    trusted: TrustedProxies = TrustedProxies()
    per_address: Counter = Counter()  # peer address -> open connections (one per subclass: per server)
    closed_slow = 0  # connections closed for a slow head or body (all instances)
    refused = 0  # connections closed at once for being too many
    refused_address = 0  # of which for being too many from one address

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._unread: asyncio.TimerHandle | None = None
        self._address: str | None = None
        self._http_error: h11.RemoteProtocolError | None = None
        if len(self.connections) >= self.max_connections:
            type(self).refused += 1
            transport.close()
            return
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        if host is not None and not self.trusted.trusts(host):
            if self.per_address[host] >= self.connections_per_address:
                type(self).refused += 1
                type(self).refused_address += 1
                transport.close()
                return
            self.per_address[host] += 1
            self._address = host
        super().connection_made(transport)
        self._next_event = self.conn.next_event
        self.conn.next_event = self._checked_next_event  # type: ignore[method-assign]
        self._arm(self.header_seconds)

    def _checked_next_event(self) -> Any:
        """h11's next event, refusing a request head over ``MAX_HEAD_BYTES`` even when it
        came whole (h11 bounds only a head still incomplete), and keeping the error that
        :meth:`send_400_response` answers."""
        try:
            event = self._next_event()
        except h11.RemoteProtocolError as exc:
            self._http_error = exc
            raise
        if isinstance(event, h11.Request) and head_bytes(event) > MAX_HEAD_BYTES:
            self._http_error = h11.RemoteProtocolError("head too large", error_status_hint=431)
            raise self._http_error
        return event

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot read, as JSON: 431 for a head that is
        too large (h11's own limit or ours), else 400 with h11's reason."""
        exc = self._http_error
        status = getattr(exc, "error_status_hint", 400)
        if status == 431:
            text = f"the request head (request line and headers) is larger than {MAX_HEAD_BYTES // 1024} KB"
        else:
            status = 400
            text = f"invalid HTTP request: {exc}" if exc is not None and str(exc) else "invalid HTTP request"
        body = json.dumps({"error": clean_message(text)}).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
                   (b"content-length", str(len(body)).encode())]
        headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
        try:
            for event in (h11.Response(status_code=status, headers=headers, reason=http.HTTPStatus(status).phrase),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:
            pass  # a response was already under way: just close
        self.transport.close()

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
        if self._address is not None:
            self.per_address[self._address] -= 1
            if self.per_address[self._address] <= 0:
                del self.per_address[self._address]
            self._address = None
        for timer in (self._deadline, self._unread):
            if timer is not None:
                timer.cancel()
        self._deadline = self._unread = None
        if self.transport is not None:
            super().connection_lost(exc)


def head_bytes(request: h11.Request) -> int:
    """The size of a request's head as sent: its request line and its headers."""
    return (len(request.method) + len(request.target) + 11
            + sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items()))


def timed_protocol(limits: Limits, trusted: TrustedProxies | None = None) -> type:
    """A :class:`TimedH11Protocol` subclass with ``limits``' time and connection limits;
    ``trusted``: proxies whose connections are not counted per address."""
    return type("LimitedH11Protocol", (TimedH11Protocol,), {
        "header_seconds": limits.header_seconds, "body_seconds": limits.body_seconds,
        "max_connections": limits.max_connections, "connections_per_address": limits.connections_per_address,
        "trusted": trusted or TrustedProxies(), "per_address": Counter(),
    })


def server_config(app: Any, limits: Limits, trusted: TrustedProxies | None = None, **kwargs: Any):
    """A ``uvicorn.Config`` for ``app`` with ``limits`` (see the module docstring). uvicorn's
    own reading of ``X-Forwarded-For`` (which believes any local client) is off: the app
    reads forwarded headers from ``trusted`` proxies only."""
    import uvicorn

    return uvicorn.Config(app, http=timed_protocol(limits, trusted), h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                          timeout_keep_alive=5, proxy_headers=False, log_level=kwargs.pop("log_level", "warning"),
                          **kwargs)


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


__all__ = ["TimedH11Protocol", "head_bytes", "timed_protocol", "server_config", "bind"]
