"""The web app: a JSON API over :class:`~redbeard_web.store.GameStore` and the static page.

API (JSON in, JSON out; errors are ``{"error": "..."}``)::

    GET  /api/options[?game=G]           every registered game ("games": name, title, presets with
                                         every Rules field, allowed values, players, bots, how the
                                         page draws its cards); the first (or G) also at the top level
    POST /api/games                      {"game", "rules", "players", "seat", "opponents", "seed",
                                         "overrides"} -> the human's view (bots before the human have
                                         moved); "game" defaults to the first registered game
    GET  /api/games/{id}                 -> the view (events: moves since the last view)
    POST /api/games/{id}/actions         {"action": "play:AS"} -> the new view (the bots have moved)
    GET  /api/games/{id}/hint?bot=SPEC   -> {"bot", "action", "kind", "values"} for your decision
    GET  /api/games/{id}/record          -> the game record once finished (409 before)
    POST /api/replays                    {"record": {...}} -> frame 0 of a replay, every hand face up
    GET  /api/replays/{id}?step=K        -> the replay after K actions
    ... and the card table's routes (ready, levels, bots, review, logs, rules): :mod:`redbeard_web.routes`

Status codes: 400 malformed or illegal (the game is unchanged), 404 unknown or expired
id, 408 a body that took too long, 409 record of a running game, 413 a body or a record too
large, 415 a POST that is not JSON, 429 too many new games, replay logs or replay work from
one address, a second record from an address still sending one, an address's requests
waiting too long behind its own, or too many hints at once, 503 no room for another game or
a game busy too long (429 and 503 say when to try again in ``Retry-After``). A bot that
fails to move (it raises, or chooses an illegal action) is a 400 too: a move applies whole or
not at all (:mod:`redbeard_web.session`), so the game is as it was before the request and the
human is still to act. Every error is ``{"error": "<one line>"}``; an unexpected one is a 500
of the same form (logged on the server, never with a trace). A POST must say
``Content-Type: application/json`` (so another web site cannot post to the local server
with a plain form), and by default only requests addressed to a loopback host name are
served (against DNS rebinding). The view format is in :mod:`redbeard_web.session`; what a
client may cost (bot specs, hints, uploads, rates) is in :mod:`redbeard_web.limits`.

Work runs in worker threads, never in the event loop: bots' moves, record checks and
replays in one pool, views and records in another (so a view never waits for threads busy
with bots), hints in their own small pool (:class:`~redbeard_web.guards.HintPool`).
Requests for one game take turns in the event loop (:class:`~redbeard_web.guards.GameGates`),
so requests waiting for a busy game hold no thread, and a game whose bots are thinking never
holds up the others. A hint holds its game only while its question is copied, not while it
thinks. One client address holds at most ``threads_per_address`` threads of each pool
(:class:`~redbeard_web.guards.AddressShares`) and spends at most
``replay_seconds_per_minute`` of their time on replays (records checked, frames, move logs);
the address is the connection's peer, or what a trusted proxy forwards
(``trusted_proxies``; :class:`~redbeard_web.guards.ClientAddress`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import weakref
from pathlib import Path
from typing import Any, Sequence

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from redbeard_env.records import rules_dict
from redbeard_env.registry import as_game, game_named, registered_games

from .guards import (SECURITY_HEADERS, AddressShares, ClientAddress, ClientGone, GameGates, HintPool, HostCheck,
                     TrustedProxies, address_of, error, log, race_client, read_json, refuse)
from .limits import Limits, RateLimiter
from .routes import table_routes
from .session import DEFAULT_PLAYERS, BotFailed, NotFinished, suggested_bots, views_of
from .store import Busy, GameStore, StoreFull, TooLarge, UnknownId

STATIC_DIR = Path(__file__).resolve().parent / "static"
MAX_BODY = Limits.record_size  # the largest body by default (a record for a replay)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
WORK_THREADS = 8  # threads for bots' moves and record checks
VIEW_THREADS = 8  # threads for views, records and options
MAX_STEP_DIGITS = 9


def _status(exc: Exception) -> tuple[int, float | None]:
    """The status code (and Retry-After) of an error raised by the store or a session."""
    if isinstance(exc, UnknownId):
        return 404, None
    if isinstance(exc, (StoreFull, Busy)):
        return 503, 5.0
    if isinstance(exc, NotFinished):
        return 409, None
    if isinstance(exc, TooLarge):
        return 413, None
    return 400, None


def game_options(name: str) -> dict:
    """What the page needs to offer and draw one game."""
    game = game_named(name)
    rules = game.parts.rules
    lo, hi = game.player_range
    return {
        "name": game.name,
        "title": game.title,
        "default_rules": game.default_rules,
        "presets": {preset: rules_dict(r) for preset, r in game.presets.items()},
        "choices": {k: list(v) for k, v in getattr(rules, "CHOICES", {}).items()},
        "ranges": {k: list(v) for k, v in getattr(rules, "INT_RANGES", {}).items()},
        "players": [lo, hi],
        "default_players": min(max(DEFAULT_PLAYERS, lo), hi),
        "bots": suggested_bots(name),
        **views_of(game).page_info(),
    }


def all_options(first: str | None = None) -> dict:
    """Every game's options; ``first`` (default: the game of a request naming none) also at the top
    level, as the API gave them when it had one game."""
    games = [game_options(name) for name in registered_games()]
    first = as_game(first or None).name
    top = next(g for g in games if g["name"] == first)
    return {"games": games, "default_game": as_game(None).name,
            **{k: top[k] for k in ("presets", "choices", "ranges", "players", "bots")}}


class WebTable:
    """The route handlers, with what they share: the store, the budgets (``limits``), the
    game gates, the hint pool, the per-client rates, the worker-thread pools and each
    address's share of them."""

    def __init__(self, store: GameStore, limits: Limits):
        self.store = store
        self.limits = limits
        self.gates = GameGates()
        self.hints = HintPool(limits.hint_concurrency, limits.hint_queue, limits.hints_per_address)
        self.rate = RateLimiter(limits.games_per_minute, clock=store.clock)
        self.log_rate = RateLimiter(limits.replay_logs_per_minute, clock=store.clock)
        self.replay_work = RateLimiter(limits.replay_seconds_per_minute, clock=store.clock)  # worker seconds
        self._limiters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> kind -> limiter
        self._shares: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> kind -> shares
        self._uploading: set[str] = set()  # addresses whose record is being read, checked and opened

    def _limiter(self, kind: str) -> anyio.CapacityLimiter:
        """The thread pool ``kind`` of the running event loop (one loop when served; a test
        client without ``with`` makes a loop a request)."""
        limiters = self._limiters.setdefault(asyncio.get_running_loop(), {})
        if kind not in limiters:
            limiters[kind] = anyio.CapacityLimiter(WORK_THREADS if kind == "work" else VIEW_THREADS)
        return limiters[kind]

    def _share(self, kind: str) -> AddressShares:
        """Each address's share of the thread pool ``kind`` (per event loop, as the pools)."""
        shares = self._shares.setdefault(asyncio.get_running_loop(), {})
        if kind not in shares:
            shares[kind] = AddressShares(self.limits.threads_per_address)
        return shares[kind]

    async def run(self, request: Request, kind: str, fn, *args, raw: bool = False, replay: bool = False) -> Any:
        """``fn(*args)`` in a worker thread of pool ``kind`` ("work" or "view") once the
        request's address has a place in it, as a JSON response (the JSON made in the
        thread too), or as it is with ``raw``; the store's errors become their status codes.
        ``replay``: replay work, whose thread time is charged to the address (429 while it
        has spent its ``replay_seconds_per_minute``)."""
        address = address_of(request)
        if replay:
            wait = self.replay_work.take(address, 0.0)
            if wait:
                raise refuse(429, f"your address has spent its time for replays (at most "
                                  f"{self.limits.replay_seconds_per_minute:g} s of work a minute); try again in "
                                  f"{wait:.0f} s", retry_after=wait)

        def call():
            start = time.thread_time()
            try:
                out = fn(*args)
                return out if raw else json.dumps(out, separators=(",", ":"), ensure_ascii=False)
            finally:
                if replay:
                    self.replay_work.charge(address, time.thread_time() - start)

        release = await self._share(kind).enter(address, request, self.limits.lock_seconds)
        try:
            out = await anyio.to_thread.run_sync(call, limiter=self._limiter(kind))
        except (ValueError, UnknownId, StoreFull, Busy) as exc:
            if isinstance(exc, BotFailed):  # the client's choice, but a bot that accepts a spec should play
                log.warning("%s %s: %s", request.method, request.url.path[:200], exc, exc_info=exc.__cause__)
            raise refuse(*_status_and_text(exc)) from None
        finally:
            release()
        return out if raw else Response(out, media_type="application/json", headers=SECURITY_HEADERS)

    async def with_game(self, request: Request, key: str, kind: str, fn, *args, raw: bool = False,
                        replay: bool = False) -> Any:
        """:meth:`run` once it is game (or replay) ``key``'s turn: requests for one game
        take turns, waiting in the event loop at most ``lock_seconds``."""
        release = await self.gates.enter(key, request, self.limits.lock_seconds)
        try:
            return await self.run(request, kind, fn, *args, raw=raw, replay=replay)
        finally:
            release()

    def _take_token(self, request: Request) -> None:
        wait = self.rate.take(address_of(request))
        if wait:
            raise refuse(429, f"too many new games from your address (at most {self.limits.games_per_minute:g} a "
                              f"minute); try again in {wait:.0f} s", retry_after=wait)

    def take_log_token(self, request: Request) -> None:
        """A replay's move log costs a replay of its game: at most ``replay_logs_per_minute`` an
        address (counted also when it is made already)."""
        wait = self.log_rate.take(address_of(request))
        if wait:
            raise refuse(429, f"too many replay logs from your address (at most "
                              f"{self.limits.replay_logs_per_minute:g} a minute); try again in {wait:.0f} s",
                         retry_after=wait)

    # ------------------------------------------------------------ routes
    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers=SECURITY_HEADERS)

    async def options(self, request: Request) -> Response:
        return await self.run(request, "view", all_options, request.query_params.get("game"))

    async def new_game(self, request: Request) -> Response:
        body = await read_json(request, self.limits.body_size, self.limits.body_seconds)
        self._take_token(request)
        return await self.run(request, "work", self.store.create, body, address_of(request))

    async def get_game(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return await self.with_game(request, game_id, "view", self.store.view, game_id)

    async def post_action(self, request: Request) -> Response:
        body = await read_json(request, self.limits.body_size, self.limits.body_seconds)
        game_id = request.path_params["game_id"]
        if not isinstance(body, dict) or set(body) != {"action"}:
            self.store.session(game_id)  # an unknown game is a 404, whatever the body
            raise refuse(400, 'an action is {"action": "<action name>"}, the name one of the view\'s "legal" ones')
        return await self.with_game(request, game_id, "work", self.store.act, game_id, body["action"])

    async def hint(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        spec = request.query_params.get("bot", "heuristic")
        job = await self.with_game(request, game_id, "view", self.store.hint_job, game_id, spec, raw=True)
        seconds = self.limits.hint_seconds
        future = self.hints.submit(lambda: json.dumps(job.run(), separators=(",", ":"), ensure_ascii=False), seconds,
                                   address_of(request))
        try:
            body = await race_client(request, future, seconds)
        except asyncio.TimeoutError:
            raise refuse(503, f"the hint took longer than {seconds:g} s (the server is busy, or the bot searches "
                              f"too long); try again later or ask a cheaper bot", retry_after=seconds) from None
        except ValueError as exc:
            if isinstance(exc, BotFailed):
                log.warning("a hint: %s", exc, exc_info=exc.__cause__)
            raise refuse(400, str(exc)) from None
        return Response(body, media_type="application/json", headers=SECURITY_HEADERS)

    async def record(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return await self.with_game(request, game_id, "view", self.store.record, game_id)

    async def open_replay(self, request: Request) -> Response:
        address = address_of(request)
        if address in self._uploading:  # a record in memory is many times its size: one at a time
            raise refuse(429, "your address is sending a record already; one at a time", retry_after=1)
        self._uploading.add(address)
        try:
            body = await read_json(request, self.limits.record_size, self.limits.body_seconds)
            if not isinstance(body, dict) or set(body) != {"record"}:
                raise refuse(400, 'open a replay with {"record": {...one game record...}}')
            self._take_token(request)
            return await self.run(request, "work", self.store.open_replay, body["record"], address, replay=True)
        finally:
            self._uploading.discard(address)

    async def replay_frame(self, request: Request) -> Response:
        replay_id = request.path_params["replay_id"]
        text = request.query_params.get("step", "0")
        if not (text.isascii() and text.isdigit() and len(text) <= MAX_STEP_DIGITS):
            self.store.replay(replay_id)  # an unknown replay is a 404, whatever the step
            raise refuse(400, f"step must be an int >= 0 of at most {MAX_STEP_DIGITS} digits, got {_quote(text)}")
        return await self.with_game(request, replay_id, "work", self.store.replay_frame, replay_id, int(text),
                                    replay=True)

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/api/options", self.options),
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game_id}", self.get_game),
            Route("/api/games/{game_id}/actions", self.post_action, methods=["POST"]),
            Route("/api/games/{game_id}/hint", self.hint),
            Route("/api/games/{game_id}/record", self.record),
            Route("/api/replays", self.open_replay, methods=["POST"]),
            Route("/api/replays/{replay_id}", self.replay_frame),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ] + table_routes(self)  # the card table's routes: ready, levels, review, log, rules


def _status_and_text(exc: Exception) -> tuple[int, str, float | None]:
    status, retry = _status(exc)
    return status, str(exc), retry


def _quote(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


async def _http_error(request: Request, exc: HTTPException) -> Response:
    response = error(exc.status_code, exc.detail)
    response.headers.update(exc.headers or {})
    return response


async def _not_found(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException) and exc.detail != "Not Found":
        return await _http_error(request, exc)
    return error(404, f"no such page: {request.url.path[:100]}")


async def _store_error(request: Request, exc: Exception) -> Response:
    status, text, retry = _status_and_text(exc)
    return error(status, text, retry)


async def _client_gone(request: Request, exc: Exception) -> Response:
    return error(408, "the client went away")  # nobody reads it


async def _unexpected(request: Request, exc: Exception) -> Response:
    """Anything else: a JSON 500 without a trace (the trace goes to the server's log)."""
    log.error("unexpected error in %s %s: %s: %s", request.method, request.url.path[:200], type(exc).__name__,
              str(exc)[:500], exc_info=exc)
    return error(500, "internal error (logged on the server); the game is unchanged if it could be")


def create_app(store: GameStore | None = None, allowed_hosts: Sequence[str] | None = LOOPBACK_HOSTS,
               limits: Limits | None = None, trusted_proxies: TrustedProxies | Sequence[str] = ()) -> Starlette:
    """The ASGI app. ``allowed_hosts=None`` serves any Host header (for a public --host);
    ``limits``: what a client may cost (default :class:`~redbeard_web.limits.Limits()`);
    ``trusted_proxies``: addresses or networks whose forwarded headers name the client
    (default none: every request is its peer's)."""
    store = GameStore() if store is None else store
    table = WebTable(store, Limits() if limits is None else limits)
    if not isinstance(trusted_proxies, TrustedProxies):
        trusted_proxies = TrustedProxies(trusted_proxies)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        table.hints.shutdown()

    middleware = []
    if trusted_proxies:
        middleware.append(Middleware(ClientAddress, proxies=trusted_proxies))
    if allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, allowed=list(allowed_hosts)))
    handlers = {404: _not_found, HTTPException: _http_error, ClientGone: _client_gone, UnknownId: _store_error,
                Exception: _unexpected}
    app = Starlette(routes=table.routes(), middleware=middleware, exception_handlers=handlers, lifespan=lifespan)
    app.state.store = store
    app.state.table = table
    return app
