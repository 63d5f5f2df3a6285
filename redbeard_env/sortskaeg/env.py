"""Sortskæg as a PettingZoo AEC environment (SPEC §6).

Played like Rödskägg's env (the loop in :mod:`redbeard_env.redbeard.env`); the machinery is the
family's :class:`redbeard_env.family.env.FamilyEnv` on :class:`redbeard_env.aec_base.TableEnv`::

    from redbeard_env import sortskaeg
    env = sortskaeg.env(num_players=4, rules="sortskaeg", render_mode=None, **overrides)

Agents
    ``player_0`` … ``player_{n-1}`` (2..6 players); the agent name's number is its seat.
    Play goes clockwise, i.e. by increasing seat.

Action space
    ``Discrete(50)`` for every agent: 0–41 a card (play it; in the ``discard`` phase
    discard it), 42–49 bid 0..7. Ids and names in :mod:`redbeard_env.sortskaeg.cards`
    (``action_id("play:Y10") == 39``, ``action_id("bid:3") == 45``).

Observation space
    ``Dict(observation=Box(-10, 10, (671,), float32), action_mask=Box(0, 1, (50,), int8))``.
    The vector's named blocks are documented in :mod:`redbeard_env.sortskaeg.observation`;
    it is from the observing agent's point of view (relative seats, padded to 6) and holds
    only what that agent may know. The mask is all zeros for an agent that is not acting
    and at the end of the game (the observation is still defined there).

Who is asked
    Every bid, card play and discard, even with one legal option. Phases: ``bid``,
    ``play``, ``discard`` (``deal = carry`` only), ``over``.

Rewards
    ``reward="win"`` (default), terminal only: the k players tied on the highest total get
    +1/k each, the others −1/(n−k) each (all 0 if everyone ties). ``reward="score"``:
    each round's score change, to every agent, at the step that scores the round (no
    terminal win reward).

Reset options
    ``dealer`` (seat of the first dealer), ``scores`` (one int per seat: the starting
    totals), ``hands`` (one list of ``hand_sizes[0]`` card strings per seat: the first deal;
    under ``carry`` these are all the game's cards), ``decks`` (the deck orders of the next
    deals, each a list of the 42 cards top first; not with ``hands``). Bad options raise
    ``ValueError`` and change nothing (the generator is neither reseeded nor drawn from);
    unknown keys warn.

Info
    ``phase``, ``score`` (running total), ``tricks`` (this round), ``bid`` (None until bid),
    ``round`` (rounds scored so far = index of the current round), ``hand_size`` (this
    round's; during a discard the next round's), ``dealer`` (seat) and, once the game is
    over, ``winner`` (the agent name, or the list of tied agents' names) and ``winners``
    (always the list).

Illegal actions raise ``ValueError`` naming the action and the phase; the state is
unchanged. The same seed, options and actions give the same game.
"""

from __future__ import annotations

from typing import Any

from ..family.env import FamilyEnv
from .parts import SORTSKAEG
from .rules import Rules


def env(num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (illegal actions already raise, observations are
    always defined: there is nothing to wrap)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


class raw_env(FamilyEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "sortskaeg_v0", "is_parallelizable": False}
    parts = SORTSKAEG

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
        super().__init__(num_players, rules, render_mode, reward, **overrides)
