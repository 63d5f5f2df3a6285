"""Oh Hell as a PettingZoo AEC environment (SPEC §7): OpenSpiel's ``oh_hell``, parameter for
parameter, on the family's AEC env (:class:`redbeard_env.family.env.FamilyEnv`)::

    import redbeard_env
    env = redbeard_env.make("oh_hell", num_players=4, num_tricks=5, num_suits=4, num_cards_per_suit=13,
                            points_per_trick=1, off_bid_penalty=False)
    env.reset(seed=7, options={"dealer": 3, "hands": [["AS", "TD", ...], ...], "trump_card": "QH"})

Agents
    ``player_0`` … ``player_{n-1}`` (3..7 players); the agent name's number is its seat (OpenSpiel's
    player number). Play goes clockwise, i.e. by increasing seat.

Action space
    ``Discrete(70)`` for every agent, deck and player count: 0–51 play a card (id ``suit * 13 +
    rank``, suits C D S H), 52–69 bid 0..17. Names ``play:AS``, ``bid:3``
    (:mod:`redbeard_env.oh_hell.cards`: ``action_id`` / ``action_name``).

Observation space
    ``Dict(observation=Box(-10, 10, (1012,), float32), action_mask=Box(0, 1, (70,), int8))``: the
    blocks of :mod:`redbeard_env.oh_hell.observation`, from the observing agent's point of view,
    holding only what it may know (its hand, the turned card, the cards played, the bids and
    tricks). The mask is all zeros for an agent that is not acting and at the end.

The deal
    One deal of ``num_tricks`` cards each (-1: drawn uniformly in 1..(deck - 1) // players), the
    first dealer from the seed (or the ``dealer`` option). As OpenSpiel deals: one card at a time
    starting with player 0, then one card turned face up (its suit is trumps; it is out of play).
    Bids from the dealer's left, the dealer last, who may not make the bids add up to
    ``num_tricks``; the dealer's left leads the first trick.

Rewards
    ``reward="win"`` (default), terminal: the k players tied on the most points get +1/k each,
    the others -1/(n-k) each (0 if all tie). ``reward="score"``: each player's points (OpenSpiel's
    return) when the deal is scored.

Reset options
    ``dealer`` (seat), ``hands`` (one list of card names per seat, each of ``num_tricks`` cards --
    or, with ``num_tricks=-1``, of any one size the deck deals), ``trump_card`` (the turned card's
    name; with ``hands`` or alone), ``scores`` (starting totals, default 0), ``decks`` (deck rows:
    the 52 card ids top first, then a permutation of 0..51 that draws a drawn hand size). Cards
    outside the deck, duplicates and bad sizes raise ``ValueError`` and change nothing; unknown
    keys warn.

Info
    ``phase``, ``score`` (points; at the end: that player's OpenSpiel return), ``tricks``, ``bid``,
    ``round``, ``hand_size``, ``dealer``, ``trump_card`` (name) and, once over, ``winner`` /
    ``winners`` (the players on the most points).

Illegal actions raise ``ValueError`` naming the action and the phase; the state is unchanged.
The same seed, options and actions give the same game.
"""

from __future__ import annotations

from typing import Any

from ..family.env import FamilyEnv
from .parts import OH_HELL
from .rules import Rules


def env(num_players: int = 4, rules: "str | Rules" = "oh_hell", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (illegal actions already raise, observations are always
    defined: there is nothing to wrap)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


class raw_env(FamilyEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "oh_hell_v0", "is_parallelizable": False}
    parts = OH_HELL
    option_keys = ("dealer", "scores", "hands", "trump_card", "decks")

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "oh_hell", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
        super().__init__(num_players, rules, render_mode, reward, **overrides)
