"""The one interface every bot implements.

* ``act(observation, action_mask) -> action`` for the AEC env (one decision);
* ``act_batch(obs[B, D], mask[B, A]) -> actions[B]`` for the batch engine (A: the game's actions);
* ``reset(seed)`` reseeds the bot's randomness (tournaments call it once);
* ``spec``: the spec string the bot was made from (set by the registry);
* ``decisions``: decisions the bot searched (a search bot counts them, tournaments then
  report its time per searched decision; 0 for bots that do not search).

Every game's bots share it (masks [B, the game's number of actions]); a bot's ``game``
attribute names the game it plays (None: any game). A factory that takes a ``game`` is given
the registry's ``Game`` by :func:`agents.registry.make_agent` (or a name, from older code:
:func:`redbeard_env.registry.as_game` reads both).

Every shipped bot declares the parameters a spec may set and what a decision costs
(``PARAMS`` and ``COST``, :mod:`agents.params`): the registry checks specs against them, and
a table can refuse a spec beyond its budget (the web table does) instead of running it.

A bot implements at least one of ``act`` and ``act_batch``; the base class derives the
other. Nothing else is asked of a bot: the search bot ``pimc`` plays its rollout bot
through ``act_batch`` too. Bots see only what is in their observation (decode it with
:mod:`agents.redbeard.decode`); the rules come from the observation's ``rules`` block or are
passed at construction.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from redbeard_env.registry import Game, as_game


class Agent:
    """Base class. Subclasses override :meth:`act_batch` (vectorised) or :meth:`act`."""

    #: the spec string the agent was made from (set by the registry)
    spec: str = ""
    #: the registered game the bot plays (None: any); tables refuse a bot of another game
    game: str | None = None
    #: decisions searched so far (search bots count them)
    decisions: int = 0

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's randomness (called once per tournament)."""

    def act(self, observation: Any, action_mask: Any = None) -> int:
        """One action for one observation. ``observation`` may be the env's dict
        (``{"observation", "action_mask"}``), in which case ``action_mask`` may be omitted."""
        if isinstance(observation, dict):
            if action_mask is None:
                action_mask = observation["action_mask"]
            observation = observation["observation"]
        if action_mask is None:
            raise ValueError("act() needs the action mask (or the env's observation dict)")
        if type(self).act_batch is Agent.act_batch:
            raise NotImplementedError(f"{type(self).__name__} implements neither act nor act_batch")
        obs = np.asarray(observation, dtype=np.float32)[None]
        mask = np.asarray(action_mask, dtype=np.int8)[None]
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions for a batch of observations ``float32 [B, D]`` and masks ``int8 [B, A]``."""
        if type(self).act is Agent.act:
            raise NotImplementedError(f"{type(self).__name__} implements neither act nor act_batch")
        obs = np.asarray(obs)
        mask = np.asarray(mask)
        return np.array([self.act(o, m) for o, m in zip(obs, mask)], dtype=np.int64)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def finite_number(name: str, value: Any) -> float:
    """A bot parameter as a finite float; ``ValueError`` naming it otherwise (a spec such as
    ``heuristic:INFINITY`` or ``bid_scale=nan`` would turn every value into NaN and the bot's
    choice into an arbitrary, possibly illegal, action)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"bot parameter {name} must be a number, got {str(value)[:40]!r}") from None
    if not np.isfinite(number):
        raise ValueError(f"bot parameter {name} must be finite, got {str(value)[:40]!r}")
    return number


def check_masks(mask: np.ndarray, num_actions: int) -> np.ndarray:
    """The masks as bool [B, num_actions] (the game's number of actions); a wrong shape, a
    value other than 0 and 1 (True and False) or a row without a legal action is a
    ``ValueError``."""
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.shape[1] != num_actions:
        raise ValueError(f"action masks must have shape [B, {num_actions}], got {mask.shape}")
    if mask.dtype != np.bool_ and mask.size:
        if np.issubdtype(mask.dtype, np.integer):
            ok = mask.min() >= 0 and mask.max() <= 1
        else:
            ok = bool(((mask == 0) | (mask == 1)).all())
        if not ok:
            row, col = np.argwhere((mask != 0) & (mask != 1))[0]
            raise ValueError(f"action masks hold 0 (illegal) and 1 (legal) only; row {row} holds {mask[row, col]} "
                             f"at action {col}")
    if len(mask) and not (mask > 0).any(1).all():
        bad = int(np.flatnonzero(~(mask > 0).any(1))[0])
        raise ValueError(f"row {bad} of the action mask has no legal action (game over or not this seat's turn)")
    return mask > 0


@functools.cache
def _batch_shape(game: str) -> tuple[int, int, float, float]:
    """``(number of actions, observation size, least and greatest observation value)`` of
    the game named ``game`` (looked up once: bots name their game)."""
    info = as_game(game)
    return info.num_actions, info.obs_size, float(info.parts.observation.OBS_LOW), float(info.parts.observation.OBS_HIGH)


def observation_bounds(game: "Game | str") -> tuple[float, float]:
    """The least and greatest value of ``game``'s observations (its observation space)."""
    return _batch_shape(game.name if isinstance(game, Game) else game)[2:]


def check_finite(obs: np.ndarray, game: "Game | str | None" = None) -> np.ndarray:
    """``obs`` [B, D] unchanged if every value is a finite number (with ``game``: within
    its observation bounds, :func:`observation_bounds`); else a ``ValueError`` naming the
    first bad row and column (a NaN, an infinity or a value no game state encodes, such as
    1e30, would otherwise turn into an arbitrary, possibly illegal, action or overflow deep
    in a decoder). Two reductions: NaN fails both comparisons."""
    low, high = observation_bounds(game) if game is not None else (-np.inf, np.inf)
    if obs.size and not (low <= np.min(obs) and np.max(obs) <= high):
        bad = ~((obs >= low) & (obs <= high)) | ~np.isfinite(obs)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            where = f" in {low:g}..{high:g}" if game is not None else ""
            raise ValueError(f"observation row {row} holds {obs[row, col]} at index {col}; observations are finite "
                             f"numbers{where}")
    return obs


def check_batch(obs: Any, mask: Any, game: "Game | str") -> tuple[np.ndarray, np.ndarray]:
    """A batch as ``game``'s bots take it: ``(observations float32 [B, D], legal bool [B,
    A])``; a ``ValueError`` for masks :func:`check_masks` refuses, observations of another
    shape or count than the masks, and values :func:`check_finite` refuses."""
    num_actions, obs_size, _, _ = _batch_shape(game.name if isinstance(game, Game) else game)
    legal = check_masks(mask, num_actions)
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape != (len(legal), obs_size):
        raise ValueError(f"observations must have shape [{len(legal)}, {obs_size}] (one per mask), "
                         f"got {list(obs.shape)}")
    return check_finite(obs, game), legal
