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
    ``Discrete(69)`` for every agent; ids and names in :mod:`redbeard_env.cards`
    (``redbeard_env.action_id("play:AS") == 51``).

Observation space
    ``Dict(observation=Box(-10, 10, (542,), float32), action_mask=Box(0, 1, (69,), int8))``.
    The vector's named blocks are documented in :mod:`redbeard_env.observation`; it is
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

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import game as G
from .cards import NUM_ACTIONS, NUM_CARDS, action_name, card_name, parse_cards
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE, encode, static_prefix
from .render import render_text
from .rules import HAND_SIZE, SCORE_LIMIT, Rules, check_num_players, make_rules

REWARD_MODES = ("win",)
OPTION_KEYS = ("dealer", "scores", "hands", "stock", "decks")


def _action_text(action) -> str:
    """``play:AS (id 51)`` for a valid id, else the value's repr (for error messages)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
        return f"{action_name(int(action))} (id {int(action)})"
    return repr(action)


def _is_list(value) -> bool:
    """A list-like option value (not a string, number or mapping)."""
    return isinstance(value, (list, tuple, np.ndarray))


def env(num_players: int = 4, rules: "str | Rules" = "classic", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (there is nothing to wrap: illegal actions already
    raise and observations are always defined)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "redbeard_v0", "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 4,
        rules: "str | Rules" = "classic",
        render_mode: str | None = None,
        reward: str = "win",
        **overrides: Any,
    ):
        super().__init__()
        self.rules = make_rules(rules, **overrides)
        self.num_players = check_num_players(num_players, self.rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.render_mode = render_mode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self._act_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self._prefix = static_prefix(self.rules, self.num_players)
        self._rng: np.random.Generator | None = None
        self.game: G.Game | None = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # every option is checked before the generator is touched: a rejected call leaves
        # the env as it was (no reseed, no draw)
        dealer, scores, decks, first_deal = self._parse_options(options or {})
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        if dealer is None:
            dealer = int(self._rng.integers(self.num_players))
        if first_deal is not None:
            decks = [self._first_deck(*first_deal, dealer)]
        self.game = G.new_game(self.rules, self.num_players, self._rng, dealer=dealer, scores=scores, decks=decks)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._after_game_change()
        if self.render_mode == "human":
            self.render()

    def _parse_options(self, options: dict):
        """Checked options: ``(dealer or None, scores or None, decks, first_deal)`` where
        ``first_deal`` is ``(hand ids per seat, stock ids)`` from ``hands``/``stock`` (the
        deck is completed from the generator once everything is checked) or None."""
        n = self.num_players
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        for key in options:
            if key not in OPTION_KEYS:
                warnings.warn(f"unknown reset option {key!r} ignored; known: {', '.join(OPTION_KEYS)}", UserWarning)
        dealer = options.get("dealer")
        if dealer is not None:
            if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
                raise ValueError(f"reset option 'dealer' must be a seat 0..{n - 1}, got {dealer!r}")
            dealer = int(dealer)
        scores = options.get("scores")
        if scores is not None:
            if not _is_list(scores) or len(scores) != n or not all(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool) and -SCORE_LIMIT <= s <= SCORE_LIMIT
                for s in scores
            ):
                raise ValueError(
                    f"reset option 'scores' must be a list of {n} ints (one per seat) in "
                    f"-{SCORE_LIMIT}..{SCORE_LIMIT}, got {scores!r}"
                )
            scores = [int(s) for s in scores]
        decks = []
        first_deal = None
        if "decks" in options:
            if "hands" in options or "stock" in options:
                raise ValueError("reset option 'decks' cannot be combined with 'hands' or 'stock'")
            if not _is_list(options["decks"]):
                raise ValueError(f"reset option 'decks' must be a list of decks, got {options['decks']!r:.80}")
            for i, deck in enumerate(options["decks"]):
                decks.append(self._parse_deck(deck, f"decks[{i}]"))
        elif "hands" in options or "stock" in options:
            first_deal = self._parse_first_deal(options.get("hands"), options.get("stock", []))
        return dealer, scores, decks, first_deal

    @staticmethod
    def _parse_deck(deck, what):
        if not _is_list(deck) or len(deck) not in (NUM_CARDS, 2 * NUM_CARDS):
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
        if not _is_list(stock):
            raise ValueError(f"reset option 'stock' must be a list of cards, got {stock!r}")
        stock_ids = parse_cards(stock, "reset option 'stock'")
        if len(stock_ids) > NUM_CARDS - HAND_SIZE * n:
            raise ValueError(
                f"reset option 'stock' has {len(stock_ids)} cards; with {n} players at most "
                f"{NUM_CARDS - HAND_SIZE * n} are left after the deal"
            )
        hand_ids: list[list[int]] = []
        if hands is not None:
            if not _is_list(hands) or len(hands) != n:
                raise ValueError(f"reset option 'hands' must hold one hand per seat ({n}), got {hands!r}")
            for seat, hand in enumerate(hands):
                if not _is_list(hand):
                    raise ValueError(f"reset option 'hands'[{seat}] must be a list of cards, got {hand!r}")
                ids = parse_cards(hand, f"reset option 'hands'[{seat}]")
                if len(ids) != HAND_SIZE:
                    raise ValueError(f"reset option 'hands'[{seat}] must have {HAND_SIZE} cards, got {len(ids)}")
                hand_ids.append(ids)
        fixed = [c for h in hand_ids for c in h] + stock_ids
        if len(set(fixed)) != len(fixed):
            dup = next(c for c in fixed if fixed.count(c) > 1)
            raise ValueError(f"card {card_name(dup)} appears twice in reset options 'hands'/'stock'")
        return hand_ids, stock_ids

    def _first_deck(self, hand_ids, stock_ids, dealer):
        """The first deal's deck: the given hands (in dealing order) and stock on top, the
        other cards shuffled around them."""
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

    # ------------------------------------------------------------------ step
    def step(self, action) -> None:
        agent = self.agent_selection
        if agent not in self.terminations:  # every agent has already stepped out
            raise ValueError(
                f"illegal action {_action_text(action)} in phase {self.game.phase!r}: the game is over and every "
                "agent is done; call reset()"
            )
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"illegal action {_action_text(action)} for {agent} in phase {self.game.phase!r}: the agent is "
                    "done, the only valid action is None"
                )
            self._was_dead_step(action)
            return
        g = self.game
        if action is None:
            raise ValueError(f"{agent} is not done; an action id is required in phase {g.phase!r}")
        G.apply_action(g, action)  # raises ValueError on an illegal action, state unchanged
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._after_game_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_game_change(self) -> None:
        """Turn the game's events into rewards and terminations, pick the next agent."""
        g = self.game
        n = self.num_players
        loss = -1.0 / (n - 1)
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
        winner = None if g.winner is None else self.possible_agents[g.winner]
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            info = {"phase": g.phase, "score": g.scores[seat], "tricks": g.tricks[seat], "round": g.rounds_played}
            if g.game_over:
                info["winner"] = winner
            self.infos[agent] = info
        if not g.game_over:
            self.agent_selection = self.possible_agents[g.to_act]
        self._deads_step_first()

    # ------------------------------------------------------------------ observe / render
    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        g = self.game
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if g.to_act == seat and not g.game_over:
            mask[G.legal_actions(g)] = 1
        return {"observation": encode(g, seat, self._prefix), "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", UserWarning)
            return None
        if self.game is None:
            return None
        observer = self.game.to_act if self.game.to_act >= 0 else None
        text = render_text(self.game, observer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
