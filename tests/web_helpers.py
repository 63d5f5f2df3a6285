"""Helpers of the web tests that check the table's budgets (test_web_limits.py,
test_web_bad_requests.py, test_web_slow_clients.py, test_web_fuzz.py, test_web_hostile.py):
a live server with given limits, a bot that waits at a gate (and the ``gated`` fixture, for
a module that imports it), finished records."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from agents.base import Agent
from agents.registry import register


class GatedBot(Agent):
    """A bot of every game that waits at ``gate`` (an Event) before each move, counting its
    calls; ``entered`` is set when it starts waiting. Plays the first legal action."""

    gate = threading.Event()
    entered = threading.Event()
    calls = 0

    def act(self, observation, action_mask=None):
        type(self).calls += 1
        type(self).entered.set()
        if not type(self).gate.wait(30):
            raise RuntimeError("the gate was never opened")
        return int(np.flatnonzero(np.asarray(action_mask))[0])

    @classmethod
    def close(cls) -> None:
        cls.gate.clear()
        cls.entered.clear()
        cls.calls = 0


register("test_gated", GatedBot, overwrite=True)


@pytest.fixture
def gated():
    """GatedBot with its gate shut; opened afterwards, so that no bot is left waiting."""
    GatedBot.close()
    yield GatedBot
    GatedBot.gate.set()
    time.sleep(0.05)
    GatedBot.close()


class LiveServer:
    """The app served by uvicorn (with the project's protocol, ``limits`` and ``trusted``
    proxies) in a background thread on 127.0.0.1, a free port."""

    def __init__(self, app, limits=None, trusted=None):
        import uvicorn

        from redbeard_web.limits import Limits
        from redbeard_web.server import server_config

        config = server_config(app, limits or Limits(), trusted, host="127.0.0.1", port=0)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        for _ in range(1000):
            if self.server.started:
                break
            threading.Event().wait(0.01)
        else:
            raise RuntimeError("the test server did not start")
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


def play_out(client, view, rng, max_moves: int = 5000) -> dict:
    """The human plays uniformly random legal actions to the end."""
    for _ in range(max_moves):
        if view["finished"]:
            return view
        r = client.post(f"/api/games/{view['id']}/actions", json={"action": str(rng.choice(view["legal"]))})
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the game did not end")


def short_game(game: str, size: int = 3) -> dict:
    """Overrides that keep a game of ``game`` short, by whichever field its Rules have: a
    low start score, or few small hands (a game of one deal needs none)."""
    import redbeard_env

    fields = set(redbeard_env.game_named(game).make_rules().__dataclass_fields__)
    if "start_score" in fields:
        return {"start_score": size}
    return {"hand_sizes": [size, size - 1]} if "hand_sizes" in fields else {}


def finished_record(client, game: str = "redbeard", seed: int = 1) -> dict:
    """The record of a short finished game of ``game`` played through ``client``."""

    r = client.post("/api/games", json={"game": game, "seed": seed, "opponents": "random",
                                        "overrides": short_game(game, 3)})
    assert r.status_code == 200, r.text
    view = play_out(client, r.json(), np.random.default_rng(seed))
    return client.get(f"/api/games/{view['id']}/record").json()
