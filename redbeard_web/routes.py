"""The card table's own API routes, registered in one place by :func:`table_routes`
(:func:`redbeard_web.app.create_app` adds them to its routes):

    GET /api/ready                          -> {"ready", "state", "loaded", "total", "seconds", "error"}
                                               (:mod:`redbeard_web.ready`)
    GET /api/levels?game=G[&rules=P]        -> {"levels": [{"name", "bot", "rating", "sigma", ...}], ...}
                                               weakest first (:mod:`redbeard_web.levels`)
    GET /api/games/{id}/review?bot=SPEC     -> {"entries": [{"move", "chosen", "suggested", "cost", "units",
                                               ...}], ...} dearest first (:mod:`redbeard_web.review`)
    GET /api/games/{id}/log                 -> the moves so far as you saw them, with trick winners and
                                               rounds' results (:mod:`redbeard_web.movelog`)
    GET /api/games/{id}/rules               -> {"title", "rules", "page": [{"title", "text"}]}: the game's
                                               rules (with its overrides) in words
    GET /api/replays/{id}/log               -> the replayed game's moves, trick winners and where each
                                               round starts (your seat: the record's "human")

Errors are ``{"error": "<one line>"}``: 400 a bad parameter or a bot that cannot review,
404 an unknown or expired game or replay, 503 a game busy too long.
"""

from __future__ import annotations

from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from redbeard_env.records import rules_dict

from .levels import levels_of
from .movelog import human_seat, move_log, session_log
from .ready import status
from .review import review

HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def _error(status_code: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())[:500]}, status_code=status_code, headers=HEADERS)


async def _answer(fn: Callable[[], Any]) -> JSONResponse:
    """``fn()`` in a worker thread as JSON; the store's errors as their status codes."""
    from .store import Busy, UnknownId

    try:
        return JSONResponse(await run_in_threadpool(fn), headers=HEADERS)
    except UnknownId as exc:
        return _error(404, str(exc))
    except Busy as exc:
        return _error(503, str(exc))
    except KeyError as exc:
        return _error(400, str(exc.args[0]) if exc.args else "bad request")
    except ValueError as exc:
        return _error(400, str(exc))


def table_routes(store: Any) -> list[Route]:
    """The routes above, over ``store`` (a :class:`~redbeard_web.store.GameStore`)."""

    def with_session(game_id: str, fn: Callable[[Any], Any]) -> Callable[[], Any]:
        def run():
            session = store.session(game_id)
            with store.locked(session):
                return fn(session)
        return run

    def with_replay(replay_id: str, fn: Callable[[Any], Any]) -> Callable[[], Any]:
        def run():
            replay = store.replay(replay_id)
            with store.locked(replay):
                return fn(replay)
        return run

    async def ready(request: Request) -> JSONResponse:
        return JSONResponse(status(), headers=HEADERS)

    async def levels(request: Request) -> JSONResponse:
        game = request.query_params.get("game")
        if game is None:
            return _error(400, "say which game: /api/levels?game=<name>")
        return await _answer(lambda: levels_of(game, request.query_params.get("rules")))

    async def game_review(request: Request) -> JSONResponse:
        spec = request.query_params.get("bot")
        return await _answer(with_session(request.path_params["game_id"], lambda s: review(s, spec)))

    async def game_log(request: Request) -> JSONResponse:
        return await _answer(with_session(request.path_params["game_id"], session_log))

    async def game_rules(request: Request) -> JSONResponse:
        def page(s):
            return {"title": s.info.title, "rules": rules_dict(s.game.rules), "page": s.views.rules_page(s.game.rules)}
        return await _answer(with_session(request.path_params["game_id"], page))

    async def replay_log(request: Request) -> JSONResponse:
        def log(r):
            you = human_seat(r.record)
            return dict(move_log(r.record, you), you=you)
        return await _answer(with_replay(request.path_params["replay_id"], log))

    return [
        Route("/api/ready", ready),
        Route("/api/levels", levels),
        Route("/api/games/{game_id}/review", game_review),
        Route("/api/games/{game_id}/log", game_log),
        Route("/api/games/{game_id}/rules", game_rules),
        Route("/api/replays/{replay_id}/log", replay_log),
    ]
