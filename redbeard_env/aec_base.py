"""What the AEC environments of the family's games share (:mod:`redbeard_env.redbeard.env`,
:mod:`redbeard_env.sortskaeg.env`): construction and spaces, the reset skeleton and the
checks of the options every game has (``dealer``, ``scores``, ``hands``), the step protocol
(illegal actions raise, done agents step with ``None``), observation and rendering.

Calls out of turn are one-line ``ValueError`` errors, as illegal actions are: ``step``,
``last`` and ``observe`` before the first ``reset``, and ``step`` or ``last`` once every
agent has stepped out at the game's end (``agents`` is empty; PettingZoo's ``agent_iter``
stops there, and its base ``last`` would fail on the missing agent). A seed is None or an
int >= 0 (numpy integer types too).

A game's env subclasses :class:`TableEnv` and sets its ``parts``
(:class:`~redbeard_env.parts.GameParts`: the game's modules), reward modes and option
keys; it may override how its deal options are read
(:meth:`~TableEnv.parse_deal_options`, :meth:`~TableEnv.first_deck`; by default it has
none), how a game's events become rewards and terminations (:meth:`~TableEnv.settle`; by
default the ``win`` reward of the seats in the game's ``winners``) and what ``info`` holds
(:meth:`~TableEnv.agent_info`; by default phase, score, tricks and the winner). The
spaces, rewards and options each game offers are documented in its env module.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .common import check_seed, is_int
from .parts import GameParts

__all__ = ["TableEnv", "is_int", "is_list", "win_rewards"]


def is_list(value) -> bool:
    """A list-like option value (not a string, number or mapping)."""
    return isinstance(value, (list, tuple, np.ndarray))


def win_rewards(num_players: int, winners) -> list[float]:
    """The ``win`` reward per seat: +1/k to each of the k ``winners``, -1/(n-k) to the
    others; 0 to everyone when all or none share the win."""
    k = len(winners)
    if k in (0, num_players):
        return [0.0] * num_players
    return [1.0 / k if seat in winners else -1.0 / (num_players - k) for seat in range(num_players)]


class TableEnv(AECEnv):
    """The shared AEC env; see the module docstring for what a game's subclass supplies."""

    parts: GameParts  # the game's modules
    reward_modes: tuple[str, ...] = ("win",)
    option_keys: tuple[str, ...] = ("dealer", "scores")

    def __init__(self, num_players: int, rules: Any, render_mode: str | None = None, reward: str = "win", **overrides: Any):
        super().__init__()
        parts = self.parts
        self.rules = parts.rules.make_rules(rules, **overrides)
        self.num_players = parts.rules.check_num_players(num_players, self.rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if reward not in self.reward_modes:
            raise ValueError(f"reward must be one of {self.reward_modes}, got {reward!r}")
        self.render_mode = render_mode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs, num_actions = parts.observation, parts.cards.NUM_ACTIONS
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(obs.OBS_LOW, obs.OBS_HIGH, (obs.OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self._act_space = spaces.Discrete(num_actions)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self._prefix = obs.static_prefix(self.rules, self.num_players)
        self._rng: np.random.Generator | None = None
        self.game = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    # ------------------------------------------------------------------ what a game supplies
    def parse_deal_options(self, options: dict) -> tuple[list, Any]:
        """Checked deal options: ``(decks, first_deal)`` -- the decks of the next deals in
        the game module's format, and the given first deal (None: not given), which
        :meth:`first_deck` completes once every option is checked. By default a game
        has no deal options: every deal is drawn from the generator."""
        return [], None

    def first_deck(self, first_deal: Any, dealer: int):
        """The first deal's deck around ``first_deal``, the rest drawn from the generator
        (a game whose :meth:`parse_deal_options` gives a first deal says how)."""
        raise NotImplementedError(f"{type(self).__name__} reads a first deal but does not say how it is dealt")

    def settle(self, g) -> None:
        """Turn ``g``'s events of the last step into ``rewards`` and ``terminations``/
        ``truncations``. By default: once the game is over, every agent is terminated with
        the ``win`` reward (:func:`win_rewards` of ``g.winners``), or truncated with none
        where the game says it was cut short (``g.truncated``)."""
        if not g.game_over:
            return
        if getattr(g, "truncated", False):
            for agent in self.agents:
                self.truncations[agent] = True
            return
        for seat, reward in enumerate(win_rewards(self.num_players, g.winners)):
            self.rewards[self.possible_agents[seat]] += reward
        for agent in self.agents:
            self.terminations[agent] = True

    def agent_info(self, g, seat: int) -> dict:
        """What ``info`` holds for ``seat``. By default its phase, score and tricks, and at
        the game's end ``winner``: the winner's agent name, the list of names sharing the
        win, or None."""
        info = {"phase": g.phase, "score": g.scores[seat], "tricks": g.tricks[seat]}
        if g.game_over:
            names = [self.possible_agents[s] for s in getattr(g, "winners", ())]
            info["winner"] = (names[0] if len(names) == 1 else names) if names else None
        return info

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # the seed and every option are checked before the generator is touched: a
        # rejected call leaves the env as it was (no reseed, no draw)
        seed = check_seed(seed)
        dealer, scores, decks, first_deal = self._parse_options({} if options is None else options)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        if dealer is None:
            dealer = int(self._rng.integers(self.num_players))
        if first_deal is not None:
            decks = [self.first_deck(first_deal, dealer)]
        self.game = self.parts.game.new_game(self.rules, self.num_players, self._rng, dealer=dealer, scores=scores, decks=decks)
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
        """Checked options: ``(dealer or None, scores or None, decks, first_deal or None)``."""
        n = self.num_players
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        for key in options:
            if key not in self.option_keys:
                warnings.warn(f"unknown reset option {key!r} ignored; known: {', '.join(self.option_keys)}", UserWarning)
        dealer = options.get("dealer")
        if dealer is not None:
            if not is_int(dealer) or not 0 <= dealer < n:
                raise ValueError(f"reset option 'dealer' must be a seat 0..{n - 1}, got {dealer!r}")
            dealer = int(dealer)
        scores = options.get("scores")
        if scores is not None:
            limit = self.parts.rules.SCORE_LIMIT
            if not is_list(scores) or len(scores) != n or not all(is_int(s) and -limit <= s <= limit for s in scores):
                raise ValueError(f"reset option 'scores' must be a list of {n} ints (one per seat) in "
                                 f"-{limit}..{limit}, got {scores!r}")
            scores = [int(s) for s in scores]
        decks, first_deal = self.parse_deal_options(options)
        return dealer, scores, decks, first_deal

    def parse_hands(self, hands: Any, size: int, what: str = "") -> list[list[int]]:
        """The ``hands`` option: one list of ``size`` cards per seat, as card ids (whether
        a card appears twice is the caller's check: it may count other options' cards)."""
        n = self.num_players
        if not is_list(hands) or len(hands) != n:
            raise ValueError(f"reset option 'hands' must hold one hand per seat ({n}), got {hands!r}")
        ids = []
        for seat, hand in enumerate(hands):
            if not is_list(hand):
                raise ValueError(f"reset option 'hands'[{seat}] must be a list of cards, got {hand!r}")
            cards = self.parts.cards.parse_cards(hand, f"reset option 'hands'[{seat}]")
            if len(cards) != size:
                raise ValueError(f"reset option 'hands'[{seat}] must have {size} cards{what}, got {len(cards)}")
            ids.append(cards)
        return ids

    # ------------------------------------------------------------------ step
    def action_name(self, action: int) -> str:
        """An action id's name now (a game whose names depend on the phase overrides it)."""
        return self.parts.cards.action_name(action)

    def _action_text(self, action) -> str:
        """``play:AS (id 51)`` for a valid id, else the value's repr (for error messages)."""
        if is_int(action) and 0 <= action < self.parts.cards.NUM_ACTIONS:
            return f"{self.action_name(int(action))} (id {int(action)})"
        return repr(action)

    def _require_reset(self, call: str) -> None:
        if self.game is None:
            raise ValueError(f"{call} before reset(): call reset() first")

    def last(self, observe: bool = True):
        """PettingZoo's ``last``; a clear ``ValueError`` before ``reset`` and once every
        agent is done (there is no current agent then)."""
        self._require_reset("last()")
        if self.agent_selection not in self.terminations:
            raise ValueError(f"last() after the game's end: every agent is done and has stepped out (agents is "
                             f"empty), so there is no current agent; call reset()")
        return super().last(observe)

    def step(self, action) -> None:
        self._require_reset("step()")
        agent = self.agent_selection
        if agent not in self.terminations:  # every agent has already stepped out
            raise ValueError(f"illegal action {self._action_text(action)} in phase {self.game.phase!r}: the game is "
                             "over and every agent is done; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"illegal action {self._action_text(action)} for {agent} in phase {self.game.phase!r}: "
                                 "the agent is done, the only valid action is None")
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is not done; an action id is required in phase {self.game.phase!r}")
        self.parts.game.apply_action(self.game, action)  # raises ValueError on an illegal action, state unchanged
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._after_game_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_game_change(self) -> None:
        """Rewards and terminations from the game's events, every agent's info, the next agent."""
        g = self.game
        self.settle(g)
        for agent in self.agents:
            self.infos[agent] = self.agent_info(g, self.agent_name_mapping[agent])
        if not g.game_over:
            self.agent_selection = self.possible_agents[g.to_act]
        self._deads_step_first()

    # ------------------------------------------------------------------ observe / render
    def observe(self, agent):
        self._require_reset("observe()")
        if not isinstance(agent, str) or agent not in self.agent_name_mapping:
            raise ValueError(f"observe(): unknown agent {str(agent)[:40]!r}; agents are {', '.join(self.possible_agents)}")
        seat = self.agent_name_mapping[agent]
        g = self.game
        mask = np.zeros(self.parts.cards.NUM_ACTIONS, dtype=np.int8)
        if g.to_act == seat and not g.game_over:
            mask[self.parts.game.legal_actions(g)] = 1
        return {"observation": self.parts.observation.encode(g, seat, self._prefix), "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", UserWarning)
            return None
        if self.game is None:
            return None
        observer = self.game.to_act if self.game.to_act >= 0 else None
        text = self.parts.render_text(self.game, observer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
