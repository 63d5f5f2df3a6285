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
    ... and the card table's routes (ready, levels, review, logs, rules): :mod:`redbeard_web.routes`

Status codes: 400 malformed or illegal (the game is unchanged), 404 unknown or expired
id, 409 record of a running game, 413 body too large, 415 a POST that is not JSON, 503
no room for another game or a game busy too long. A POST must say
``Content-Type: application/json`` (so another web site cannot post to the local server
with a plain form), and by default only requests addressed to a loopback host name are
served (against DNS rebinding). The view format is in :mod:`redbeard_web.session`.

Bots run in worker threads (Starlette's thread pool), one game at a time per game lock,
so a game whose bots are thinking never holds up the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from redbeard_env.records import rules_dict
from redbeard_env.registry import game_named, registered_games

from .routes import table_routes
from .session import DEFAULT_PLAYERS, NotFinished, suggested_bots, views_of
from .store import Busy, GameStore, StoreFull, UnknownId

STATIC_DIR = Path(__file__).resolve().parent / "static"
MAX_BODY = 4 * 1024 * 1024  # a record of a very long game stays well below this
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=SECURITY_HEADERS)


def _ok(data: Any) -> JSONResponse:
    return JSONResponse(data, headers=SECURITY_HEADERS)


async def _json_body(request: Request) -> Any:
    """The request's JSON body; ``ValueError``-style responses are raised as HTTPException."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise HTTPException(415, "send JSON with Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise HTTPException(413, f"the body is larger than {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        return json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"the body is not valid JSON: {exc}") from None


async def _call(fn, *args) -> JSONResponse:
    """Run store work in a worker thread and turn its errors into status codes."""
    try:
        # the JSON is made in the worker thread too: the event loop only moves bytes
        body = await run_in_threadpool(lambda: json.dumps(fn(*args), separators=(",", ":"), ensure_ascii=False))
        return Response(body, media_type="application/json", headers=SECURITY_HEADERS)
    except UnknownId as exc:
        return _error(404, str(exc))
    except (StoreFull, Busy) as exc:
        return _error(503, str(exc))
    except NotFinished as exc:
        return _error(409, str(exc))
    except ValueError as exc:
        return _error(400, str(exc))


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
    """Every game's options; ``first`` (default: the first registered game) also at the top
    level, as the API gave them when it had one game."""
    games = [game_options(name) for name in registered_games()]
    first = game_named(first or registered_games()[0]).name
    top = next(g for g in games if g["name"] == first)
    return {"games": games, "default_game": registered_games()[0],
            **{k: top[k] for k in ("presets", "choices", "ranges", "players", "bots")}}


def create_app(store: GameStore | None = None, allowed_hosts: Sequence[str] | None = LOOPBACK_HOSTS) -> Starlette:
    """The ASGI app. ``allowed_hosts=None`` serves any Host header (for a public --host)."""
    store = GameStore() if store is None else store

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers=SECURITY_HEADERS)

    async def options(request: Request) -> JSONResponse:
        return await _call(all_options, request.query_params.get("game"))

    async def new_game(request: Request) -> JSONResponse:
        return await _call(store.create, await _json_body(request))

    async def get_game(request: Request) -> JSONResponse:
        return await _call(store.view, request.path_params["game_id"])

    async def post_action(request: Request) -> JSONResponse:
        body = await _json_body(request)
        game_id = request.path_params["game_id"]
        if not isinstance(body, dict) or set(body) != {"action"}:
            try:  # an unknown game is a 404, whatever the body
                store.session(game_id)
            except UnknownId as exc:
                return _error(404, str(exc))
            return _error(400, 'an action is {"action": "<action name>"}, e.g. {"action": "play:AS"}')
        return await _call(store.act, game_id, body["action"])

    async def hint(request: Request) -> JSONResponse:
        spec = request.query_params.get("bot", "heuristic")
        return await _call(store.hint, request.path_params["game_id"], spec)

    async def record(request: Request) -> JSONResponse:
        return await _call(store.record, request.path_params["game_id"])

    async def open_replay(request: Request) -> JSONResponse:
        body = await _json_body(request)
        if not isinstance(body, dict) or set(body) != {"record"}:
            return _error(400, 'open a replay with {"record": {...one game record...}}')
        return await _call(store.open_replay, body["record"])

    async def replay_frame(request: Request) -> JSONResponse:
        text = request.query_params.get("step", "0")
        if not text.isdigit():
            return _error(400, f"step must be an int >= 0, got {text!r:.40}")
        return await _call(store.replay_frame, request.path_params["replay_id"], int(text))

    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return _error(404, f"no such page: {request.url.path}")

    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/actions", post_action, methods=["POST"]),
        Route("/api/games/{game_id}/hint", hint),
        Route("/api/games/{game_id}/record", record),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{replay_id}", replay_frame),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ] + table_routes(store)  # the card table's routes: ready, levels, review, log, rules (redbeard_web.routes)
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={404: not_found, HTTPException: http_error})
    app.state.store = store
    return app

