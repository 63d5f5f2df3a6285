"""Rödskägg as a PettingZoo AEC environment.

```python
import redbeard_env
env = redbeard_env.env(num_players=4, rules="classic", render_mode=None, **overrides)
env.reset(seed=7)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else policy(obs)   # obs["action_mask"]
    env.step(action)
```

Agents
    ``player_0`` … ``player_{n-1}``; the agent name's number is its seat. Play goes
    clockwise, i.e. by increasing seat.

Action space
    ``Discrete(69)`` for every agent; ids and names in :mod:`redbeard_env.redbeard.cards`
    (``redbeard_env.action_id("play:AS") == 51``).

Observation space
    ``Dict(observation=Box(-10, 10, (542,), float32), action_mask=Box(0, 1, (69,), int8))``.
    The vector's named blocks are documented in :mod:`redbeard_env.redbeard.observation`; it is
    from the observing agent's point of view (relative seats, padded to 7) and holds only
    what that agent may know. The mask is all zeros for an agent that is not acting and
    at the end of the game (the observation is still defined there).

Who is asked
    Every auction call and card play is asked, even with one legal option. The redeal,
    look and join questions are asked only of players with a real choice; the ask/skip
    question only when ``ask_optional``.

Rewards (``reward="win"``, the only mode so far)
    Terminal only: the winner +1, every other seat −1/(n−1); truncation (``max_rounds``)
    gives 0. An eliminated player is terminated when it is eliminated and gets its
    −1/(n−1) then; it takes no further turns.

Reset options
    ``dealer`` (seat), ``scores`` (one int per seat, within ±10**9 = ``rules.SCORE_LIMIT``),
    ``hands`` (one list of 6 card strings per seat: the first deal), ``stock`` (the first
    cards redeals draw, in this order), ``decks`` (the deck orders of the next deals — rounds and duels — each a list
    of 52 cards top first, optionally followed by 52 more: the order in which thrown-in
    cards are reshuffled). Bad options raise ``ValueError`` and change nothing (the
    generator is neither reseeded nor drawn from); unknown keys warn.

Info
    ``phase``, ``score`` (running), ``tricks`` (this deal), ``round`` (rounds scored) and,
    once the game is over, ``winner`` (agent name, or ``None`` after truncation).

Illegal actions raise ``ValueError`` naming the action and the phase; the state is
unchanged. The same seed, options and actions give the same game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import game as G
from ..aec_base import TableEnv, is_list
from .cards import NUM_CARDS, card_name, parse_cards
from .parts import REDBEARD
from .rules import HAND_SIZE, Rules


def env(num_players: int = 4, rules: "str | Rules" = "classic", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (there is nothing to wrap: illegal actions already
    raise and observations are always defined)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


class raw_env(TableEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "redbeard_v0", "is_parallelizable": False}
    parts = REDBEARD
    reward_modes = ("win",)
    option_keys = ("dealer", "scores", "hands", "stock", "decks")

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "classic", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
        super().__init__(num_players, rules, render_mode, reward, **overrides)

    # ------------------------------------------------------------------ deal options
    def parse_deal_options(self, options: dict):
        """``decks`` as ``(card ids, reshuffle rank or None)`` pairs; ``hands``/``stock``
        as the first deal ``(hand ids per seat, stock ids)``."""
        if "decks" in options:
            if "hands" in options or "stock" in options:
                raise ValueError("reset option 'decks' cannot be combined with 'hands' or 'stock'")
            if not is_list(options["decks"]):
                raise ValueError(f"reset option 'decks' must be a list of decks, got {options['decks']!r:.80}")
            return [self._parse_deck(deck, f"decks[{i}]") for i, deck in enumerate(options["decks"])], None
        if "hands" in options or "stock" in options:
            return [], self._parse_first_deal(options.get("hands"), options.get("stock", []))
        return [], None

    @staticmethod
    def _parse_deck(deck, what):
        if not is_list(deck) or len(deck) not in (NUM_CARDS, 2 * NUM_CARDS):
            raise ValueError(f"{what} must list the 52 cards (optionally followed by 52 more), got {deck!r:.80}")
        cards = parse_cards(deck[:NUM_CARDS], what)
        rank = None
        if len(deck) == 2 * NUM_CARDS:
            order = parse_cards(deck[NUM_CARDS:], what + " reshuffle order")
            rank = np.empty(NUM_CARDS, dtype=np.int64)
            rank[order] = np.arange(NUM_CARDS)
        return cards, rank

    def _parse_first_deal(self, hands, stock) -> tuple[list[list[int]], list[int]]:
        """The ``hands`` and ``stock`` options as card ids, checked."""
        n = self.num_players
        if not is_list(stock):
            raise ValueError(f"reset option 'stock' must be a list of cards, got {stock!r}")
        stock_ids = parse_cards(stock, "reset option 'stock'")
        if len(stock_ids) > NUM_CARDS - HAND_SIZE * n:
            raise ValueError(
                f"reset option 'stock' has {len(stock_ids)} cards; with {n} players at most "
                f"{NUM_CARDS - HAND_SIZE * n} are left after the deal"
            )
        hand_ids = [] if hands is None else self.parse_hands(hands, HAND_SIZE)
        fixed = [c for h in hand_ids for c in h] + stock_ids
        if len(set(fixed)) != len(fixed):
            dup = next(c for c in fixed if fixed.count(c) > 1)
            raise ValueError(f"card {card_name(dup)} appears twice in reset options 'hands'/'stock'")
        return hand_ids, stock_ids

    def first_deck(self, first_deal, dealer):
        """The first deal's deck: the given hands (in dealing order) and stock on top, the
        other cards shuffled around them."""
        hand_ids, stock_ids = first_deal
        n = self.num_players
        order = [(dealer + k) % n for k in range(1, n + 1)]  # dealing order
        fixed = {c for h in hand_ids for c in h} | set(stock_ids)
        shuffled = [int(c) for c in self._rng.permutation(NUM_CARDS) if c not in fixed]
        rank = self._rng.permutation(NUM_CARDS)
        if hand_ids:
            deck = [c for s in order for c in hand_ids[s]] + stock_ids + shuffled
        else:
            deck = shuffled[: HAND_SIZE * n] + stock_ids + shuffled[HAND_SIZE * n :]
        return deck, rank

    # ------------------------------------------------------------------ events
    def settle(self, g: G.Game) -> None:
        loss = -1.0 / (self.num_players - 1)
        for event in g.events:
            if event[0] == "eliminated":
                agent = self.possible_agents[event[1]]
                self.rewards[agent] += loss
                self.terminations[agent] = True
        if g.terminated:
            for seat, agent in enumerate(self.possible_agents):
                if agent in self.agents and not self.terminations[agent]:
                    self.rewards[agent] += 1.0 if seat == g.winner else loss
                    self.terminations[agent] = True
        elif g.truncated:  # those eliminated in the last round stay terminated, not truncated
            for agent in self.agents:
                self.truncations[agent] = not self.terminations[agent]

    def agent_info(self, g: G.Game, seat: int) -> dict:
        info = {"phase": g.phase, "score": g.scores[seat], "tricks": g.tricks[seat], "round": g.rounds_played}
        if g.game_over:
            info["winner"] = None if g.winner is None else self.possible_agents[g.winner]
        return info
