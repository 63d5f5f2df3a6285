"""Tiny Trick's AEC env: the shared machinery (:class:`redbeard_env.aec_base.TableEnv`) with
its defaults -- the ``dealer`` and ``scores`` options, the ``win`` reward of the seats
sharing the top total, ``info`` with phase, score, tricks and the winner."""

from __future__ import annotations

from redbeard_env.aec_base import TableEnv

from .parts import TINYTRICK


class raw_env(TableEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "tinytrick_v0", "is_parallelizable": False}
    parts = TINYTRICK

    def __init__(self, num_players: int = 3, rules="tinytrick", render_mode: str | None = None, reward: str = "win",
                 **overrides):
        super().__init__(num_players, rules, render_mode, reward, **overrides)


def env(num_players: int = 3, rules="tinytrick", render_mode: str | None = None, **kwargs) -> raw_env:
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)
