"""The card table's own API routes, registered in one place by :func:`table_routes`
(:func:`redbeard_web.app.create_app` adds them to its routes):

    GET /api/ready                          -> {"ready", "state", "loaded", "total", "seconds", "error"}
                                               (:mod:`redbeard_web.ready`)
    GET /api/levels?game=G[&rules=P]        -> {"levels": [{"name", "bot", "rating", "sigma", ...}], ...}
                                               weakest first (:mod:`redbeard_web.levels`)
    GET /api/bots?game=G[&rules=P][&players=N][&overrides=JSON]
                                            -> {"game", "rules", "players", "overrides", "table", "bots":
                                               [{"bot": "ppo:NAME", "shipped", "fits", "trained"}]}: the
                                               policies the table plays in G (shipped, then its --bots
                                               folders'), each with the table it was trained at in words
                                               and whether that is this one (the sheet P with the Rules
                                               fields of the JSON object, N players)
                                               (:func:`redbeard_web.bots.bots_for_table`)
    GET /api/games/{id}/review?bot=SPEC     -> {"entries": [{"move", "chosen", "suggested", "cost", "units",
                                               ...}], ...} dearest first (:mod:`redbeard_web.review`)
    GET /api/games/{id}/log                 -> the moves so far as you saw them, with trick winners and
                                               rounds' results (:mod:`redbeard_web.movelog`)
    GET /api/games/{id}/rules               -> {"title", "rules", "page": [{"title", "text"}]}: the game's
                                               rules (with its overrides) in words
    GET /api/replays/{id}/log               -> the replayed game's moves, trick winners and where each
                                               round starts (your seat: the record's "human"), and
                                               "moves", "entries_left_out": at most ``log_size``
                                               bytes, made once per replay and kept with it

Errors are ``{"error": "<one line>"}`` as for every route (:mod:`redbeard_web.app`): 400 a bad
parameter or a bot that cannot review, 404 an unknown or expired game or replay, 429 too
many hints and reviews at once, more than ``replay_logs_per_minute`` replay logs or
``replay_seconds_per_minute`` of replay work (move logs are replay work) from one address,
503 a game busy too long or a review over its time. The
routes go through the app's :class:`~redbeard_web.app.WebTable`: requests for one game take
turns, work runs in its thread pools, and a review thinks in the hints' pool within
``review_seconds``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from redbeard_env.records import rules_dict

from .bots import bots_for_table
from .guards import SECURITY_HEADERS, address_of, log, race_client, refuse
from .levels import levels_of
from .movelog import session_log
from .ready import status
from .review import ReviewJob, TimeUp
from .session import BotFailed


def _rules_page(session: Any) -> dict:
    return {"title": session.info.title, "rules": rules_dict(session.game.rules),
            "page": session.views.rules_page(session.game.rules)}


def table_routes(table: Any) -> list[Route]:
    """The routes above, over ``table`` (a :class:`~redbeard_web.app.WebTable`)."""
    store = table.store

    def on_session(game_id: str, fn):
        def run():
            session = store.session(game_id)
            with store.locked(session):
                return fn(session)
        return run

    async def ready(request: Request) -> Response:
        return JSONResponse(status(), headers=SECURITY_HEADERS)

    async def levels(request: Request) -> Response:
        game = request.query_params.get("game")
        if game is None:
            raise refuse(400, "say which game: /api/levels?game=<name>")
        return await table.run(request, "view", levels_of, game, request.query_params.get("rules"))

    async def bots(request: Request) -> Response:
        query = request.query_params
        if query.get("game") is None:
            raise refuse(400, "say which game: /api/bots?game=<name>[&rules=<preset>][&players=<n>][&overrides=<json>]")
        return await table.run(request, "view", bots_for_table, query["game"], query.get("rules"), query.get("players"),
                               query.get("overrides"))

    async def game_review(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        spec = request.query_params.get("bot")
        job = await table.with_game(request, game_id, "view", on_session(game_id, lambda s: ReviewJob(s, spec)),
                                    raw=True)
        seconds = table.limits.review_seconds
        future = table.hints.submit(lambda: json.dumps(job.run(seconds), separators=(",", ":"), ensure_ascii=False),
                                    seconds, address_of(request))
        try:
            body = await race_client(request, future, seconds + 1.0)  # the bot stops itself at ``seconds``
        except (asyncio.TimeoutError, TimeUp) as exc:
            raise refuse(503, str(exc) or f"the review took longer than {seconds:g} s; try again later or ask "
                                          f"a cheaper bot", retry_after=seconds) from None
        except ValueError as exc:
            if isinstance(exc, BotFailed):
                log.warning("a review: %s", exc, exc_info=exc.__cause__)
            raise refuse(400, str(exc)) from None
        return Response(body, media_type="application/json", headers=SECURITY_HEADERS)

    async def game_log(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return await table.with_game(request, game_id, "work", on_session(game_id, session_log), replay=True)

    async def game_rules(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return await table.with_game(request, game_id, "view", on_session(game_id, _rules_page))

    async def replay_log(request: Request) -> Response:
        replay_id = request.path_params["replay_id"]
        store.replay(replay_id)  # an unknown replay is a 404 and takes no token
        table.take_log_token(request)
        body = store.cached_replay_log(replay_id)  # made already: no thread, no wait for the replay
        if body is None:
            body = await table.with_game(request, replay_id, "work", store.replay_log, replay_id, raw=True,
                                         replay=True)
        return Response(body, media_type="application/json", headers=SECURITY_HEADERS)

    return [
        Route("/api/ready", ready),
        Route("/api/levels", levels),
        Route("/api/bots", bots),
        Route("/api/games/{game_id}/review", game_review),
        Route("/api/games/{game_id}/log", game_log),
        Route("/api/games/{game_id}/rules", game_rules),
        Route("/api/replays/{replay_id}/log", replay_log),
    ]
