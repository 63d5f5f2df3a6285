"""How long the web table's hints and reviews take with each bot that can give them, against
the table's limits.

Run it with::

    .venv/bin/python benchmarks/table_bots.py --games 3

For every registered game and each bot that values actions (the game's ``heuristic``,
``pimc`` and ``search`` where it has them, or ``--bots``), the web app runs in this process
(Starlette's test client: the server's own work, no network) and plays ``--games`` games
at the game's default table, the human moving at random among the legal actions, the
opponents the game's heuristic. At up to ``--hints`` of the human's decisions per game the
script asks ``GET /api/games/{id}/hint?bot=SPEC`` and, once the game is over,
``GET /api/games/{id}/review?bot=SPEC``, timing each request. It prints, per game and bot,
the median and the slowest hint and review beside the limits a bot must fit
(``Limits().hint_seconds`` and ``review_seconds``) and a review's decisions, so one can tell
whether a bot can be the table's hint or review bot (a review over its time is a 503).

Yardstick, measured in the same run: ``GET /api/options`` (a request with no bot's work).
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starlette.testclient import TestClient  # noqa: E402

from agents.registry import available_agents  # noqa: E402
from redbeard_env.registry import registered_games  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.bots import BotPool  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
from redbeard_web.review import values_actions  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402

CANDIDATES = ("heuristic", "pimc", "search")


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    r = call()
    return time.perf_counter() - start, r


def measure(client: TestClient, game: str, spec: str, games: int, hints: int, seed: int) -> dict:
    """Hint and review seconds of ``spec`` over ``games`` games of ``game``."""
    rng = np.random.default_rng(seed)
    hint_s, review_s, reviewed, failures = [], [], [], []
    for g in range(games):
        view = client.post("/api/games", json={"game": game, "seed": seed + g, "opponents": "heuristic"}).json()
        if "error" in view:
            raise SystemExit(f"{game}: {view['error']}")
        asked = 0
        while not view["finished"]:
            if asked < hints:
                s, r = timed(lambda: client.get(f"/api/games/{view['id']}/hint", params={"bot": spec}))
                if r.status_code == 200:
                    hint_s.append(s)
                else:
                    failures.append(f"hint {r.status_code}: {r.text[:120]}")
                asked += 1
            r = client.post(f"/api/games/{view['id']}/actions", json={"action": str(rng.choice(view["legal"]))})
            view = r.json()
        s, r = timed(lambda: client.get(f"/api/games/{view['id']}/review", params={"bot": spec}))
        if r.status_code == 200:
            review_s.append(s)
            reviewed.append(r.json()["reviewed"])
        else:
            failures.append(f"review {r.status_code}: {r.text[:120]}")
    return {"hints": hint_s, "reviews": review_s, "reviewed": reviewed, "failures": failures}


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} / {max(xs):.2f}" if xs else "-"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3, help="games per game and bot (default 3)")
    p.add_argument("--hints", type=int, default=8, help="hints asked per game (default 8)")
    p.add_argument("--game", action="append", help="only this game (repeatable; default every registered game)")
    p.add_argument("--bots", nargs="+", help=f"the bot specs (default those of {', '.join(CANDIDATES)} the game has)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    limits = Limits(games_per_minute=0, hints_per_address=1000, replay_seconds_per_minute=1e9)
    store = GameStore(BotPool(search_budget=limits.search_budget), max_games=10_000, per_owner=10_000)
    client = TestClient(create_app(store, allowed_hosts=None, limits=limits))
    yard = [timed(lambda: client.get("/api/options"))[0] for _ in range(20)]
    print(f"limits: a hint {limits.hint_seconds:g} s, a review {limits.review_seconds:g} s; "
          f"yardstick GET /api/options median {statistics.median(yard) * 1000:.1f} ms")
    print(f"{'game':<10} {'bot':<28} {'hint s (median / max)':>22} {'review s (median / max)':>24} "
          f"{'decisions reviewed':>19}  failures")
    for game in args.game or registered_games():
        known = available_agents(game)
        specs = args.bots or [b for b in CANDIDATES if b in known]
        for spec in specs:
            if not values_actions(spec, game):
                continue
            res = measure(client, game, spec, args.games, args.hints, args.seed)
            decisions = f"{statistics.median(res['reviewed']):.0f}" if res["reviewed"] else "-"
            print(f"{game:<10} {spec:<28} {spread(res['hints']):>22} {spread(res['reviews']):>24} {decisions:>19}  "
                  f"{len(res['failures'])}{': ' + res['failures'][0] if res['failures'] else ''}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
