"""Which registered games have the parts a game may lack, for the tests of those parts.

A game must have what :mod:`redbeard_env.contract` lists; a batch engine, a training part,
a given bot (``pimc``), shipped policies and the bots to make the web table's levels are its
own choice. A test of such a part runs
over the games that have it, chosen here by asking the registries (never by a game's name),
so a new game plugged in (``tests/tinytrick``) runs every test that applies to it.

:class:`OneTable` plays one game on a game's AEC env (every game has one) with the batch
interface bots answer: what tests of bots need without a batch engine.
"""

from __future__ import annotations

import numpy as np

import redbeard_env
from agents.registry import available_agents, training_of

GAMES = tuple(redbeard_env.registered_games())


def has_batch_engine(game: str) -> bool:
    return redbeard_env.game_named(game).vector_env is not None


def has_training_part(game: str) -> bool:
    try:
        training_of(game)
    except ValueError:  # the registry's answer for a game without one
        return False
    return True


def trains(game: str) -> bool:
    """The trainer plays on the batch engine, with the game's training part."""
    return has_batch_engine(game) and has_training_part(game)


def has_bot(game: str, name: str) -> bool:
    return name in available_agents(game)


def shipped_policies(game: str) -> list[str]:
    """The names of the PPO policies shipped for ``game`` (none for a game without any)."""
    from redbeard_web.bots import shipped_checkpoints

    return shipped_checkpoints(game)


def has_levels(game: str) -> bool:
    """The web table's levels rank a game's bots (:func:`redbeard_web.levels.candidates`):
    a game with at least three has levels to measure and show."""
    from redbeard_web.levels import candidates

    return len(candidates(game)) >= 3


def games_with(has, *args) -> tuple[str, ...]:
    """The registered games for which ``has(game, *args)`` holds."""
    return tuple(g for g in GAMES if has(g, *args))


class OneTable:
    """One game of ``game`` on its AEC env, seen as a batch of one: :meth:`observe` is the
    acting seat's ``(obs [1, OBS_SIZE], mask [1, NUM_ACTIONS])``, :meth:`step` applies its
    action; :attr:`over` once every seat is done."""

    def __init__(self, game: str, num_players: int = 4, rules: str | None = None, seed: int = 0):
        info = redbeard_env.game_named(game)
        self.env = redbeard_env.make(game, num_players=num_players, rules=rules or info.default_rules)
        self.env.reset(seed=seed)
        self._settle()

    def _settle(self) -> None:
        while self.env.agents:
            _, _, term, trunc, _ = self.env.last(observe=False)
            if not (term or trunc):
                return
            self.env.step(None)

    @property
    def over(self) -> bool:
        return not self.env.agents

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        seen = self.env.observe(self.env.agent_selection)
        return seen["observation"][None], seen["action_mask"][None]

    def step(self, action) -> None:
        self.env.step(int(np.asarray(action).reshape(-1)[0]))
        self._settle()
