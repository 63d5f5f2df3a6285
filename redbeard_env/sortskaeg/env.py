"""Sortskæg as a PettingZoo AEC environment (SPEC §6).

```python
from redbeard_env import sortskaeg
env = sortskaeg.env(num_players=4, rules="sortskaeg", render_mode=None, **overrides)
env.reset(seed=7)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else policy(obs)   # obs["action_mask"]
    env.step(action)
```

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

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import game as G
from .cards import NUM_ACTIONS, NUM_CARDS, action_name, card_name, format_cards, parse_cards
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE, encode, static_prefix
from .rules import SCORE_LIMIT, Rules, check_num_players, make_rules

REWARD_MODES = ("win", "score")
OPTION_KEYS = ("dealer", "scores", "hands", "decks")


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def env(num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (illegal actions already raise, observations are
    always defined: there is nothing to wrap)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


def win_rewards(num_players: int, winners) -> list[float]:
    """Per seat: +1/k for each of the k winners, -1/(n-k) for the others (0 if all tie)."""
    n, k = num_players, len(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if s in winners else -1.0 / (n - k) for s in range(n)]


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "sortskaeg_v0", "is_parallelizable": False}

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
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
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
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
        dealer, scores, decks, hands = self._parse_options(options or {})
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        if dealer is None:
            dealer = int(self._rng.integers(self.num_players))
        if hands is not None:
            decks = [self._first_deck(hands, dealer)]
        self.game = G.new_game(self.rules, self.num_players, self._rng, dealer=dealer, scores=scores, decks=decks)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_game_change()
        if self.render_mode == "human":
            self.render()

    def _parse_options(self, options: dict):
        """Checked options: ``(dealer, scores, decks, hands)`` (None where not given)."""
        n, h = self.num_players, self.rules.hand_sizes[0]
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        for key in options:
            if key not in OPTION_KEYS:
                warnings.warn(f"unknown reset option {key!r} ignored; known: {', '.join(OPTION_KEYS)}", UserWarning)
        dealer = options.get("dealer")
        if dealer is not None:
            if not _is_int(dealer) or not 0 <= dealer < n:
                raise ValueError(f"reset option 'dealer' must be a seat 0..{n - 1}, got {dealer!r}")
            dealer = int(dealer)
        scores = options.get("scores")
        if scores is not None:
            if not _is_list(scores) or len(scores) != n or not all(
                    _is_int(s) and -SCORE_LIMIT <= s <= SCORE_LIMIT for s in scores):
                raise ValueError(f"reset option 'scores' must be a list of {n} ints (one per seat) in "
                                 f"-{SCORE_LIMIT}..{SCORE_LIMIT}, got {scores!r}")
            scores = [int(s) for s in scores]
        decks: list[list[int]] = []
        hands = None
        if "decks" in options:
            if "hands" in options:
                raise ValueError("reset option 'decks' cannot be combined with 'hands'")
            if not _is_list(options["decks"]):
                raise ValueError(f"reset option 'decks' must be a list of decks, got {options['decks']!r:.80}")
            for i, deck in enumerate(options["decks"]):
                if not _is_list(deck) or len(deck) != NUM_CARDS:
                    raise ValueError(f"reset option 'decks'[{i}] must list the {NUM_CARDS} cards, got {deck!r:.80}")
                decks.append(parse_cards(deck, f"reset option 'decks'[{i}]"))
        elif "hands" in options:
            hands = options["hands"]
            if not _is_list(hands) or len(hands) != n:
                raise ValueError(f"reset option 'hands' must hold one hand per seat ({n}), got {hands!r}")
            ids: list[list[int]] = []
            for seat, hand in enumerate(hands):
                if not _is_list(hand):
                    raise ValueError(f"reset option 'hands'[{seat}] must be a list of cards, got {hand!r}")
                cards = parse_cards(hand, f"reset option 'hands'[{seat}]")
                if len(cards) != h:
                    raise ValueError(f"reset option 'hands'[{seat}] must have {h} cards (hand_sizes[0]), got {len(cards)}")
                ids.append(cards)
            parse_cards([card_name(c) for hand in ids for c in hand], "reset option 'hands'")  # no card twice
            hands = ids
        return dealer, scores, decks, hands

    def _first_deck(self, hands: list[list[int]], dealer: int) -> list[int]:
        """The first deal's deck: the given hands in dealing order on top, the other cards
        shuffled below them."""
        n = self.num_players
        order = [(dealer + k) % n for k in range(1, n + 1)]
        fixed = {c for h in hands for c in h}
        rest = [int(c) for c in self._rng.permutation(NUM_CARDS) if c not in fixed]
        return [c for s in order for c in hands[s]] + rest

    # ------------------------------------------------------------------ step
    def step(self, action) -> None:
        agent = self.agent_selection
        if agent not in self.terminations:  # every agent has already stepped out
            raise ValueError(f"illegal action {action!r} in phase 'over': the game is over and every agent is done; "
                             "call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"illegal action {action!r} for {agent} in phase {self.game.phase!r}: the agent "
                                 "is done, the only valid action is None")
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is not done; an action id is required in phase {self.game.phase!r}")
        G.apply_action(self.game, action)  # raises ValueError on an illegal action, state unchanged
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._after_game_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_game_change(self) -> None:
        """Turn the game's events into rewards and terminations, pick the next agent."""
        g = self.game
        if self.reward_mode == "score":
            for event in g.events:
                if event[0] == "round_end":
                    for seat, delta in enumerate(event[5]):
                        self.rewards[self.possible_agents[seat]] += float(delta)
        if g.game_over:
            if self.reward_mode == "win":
                for seat, r in enumerate(win_rewards(self.num_players, g.winners)):
                    self.rewards[self.possible_agents[seat]] += r
            for agent in self.agents:
                self.terminations[agent] = True
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            info = {"phase": g.phase, "score": g.scores[seat], "tricks": g.tricks[seat], "bid": g.bids[seat],
                    "round": g.round, "hand_size": g.hand_size, "dealer": g.dealer}
            if g.game_over:
                names = [self.possible_agents[s] for s in g.winners]
                info["winners"] = names
                info["winner"] = names[0] if len(names) == 1 else names
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


def render_text(g: G.Game, observer: int | None = None, reveal: bool = False) -> str:
    """A compact text view: round, hand size, phase, each seat's total, bid and tricks, the
    current trick and the observer's hand (other hands hidden unless ``reveal``)."""
    R = g.rules.num_rounds
    head = f"round {min(g.round + 1, R)}/{R}  hand size {g.hand_size}  phase: {g.phase}"
    lines = [head, f"{'seat':<10}{'score':>6}  {'bid':<4}{'tricks':>6}  status"]
    for s in range(g.num_players):
        marks = []
        if s == g.dealer:
            marks.append("dealer")
        if s == g.to_act:
            marks.append({"bid": "<- to bid", "play": "<- to play", "discard": "<- to discard"}[g.phase])
        if s in g.winners:
            marks.append("WINNER")
        bid = "-" if not g.bids or g.bids[s] is None else str(g.bids[s])
        name = f"player_{s}" + ("*" if s == observer else "")
        lines.append(f"{name:<10}{g.scores[s]:>6}  {bid:<4}{g.tricks[s]:>6}  {' '.join(marks)}")
    if g.trick:
        lines.append("trick: " + "  ".join(f"p{s}:{card_name(c)}" for s, c in g.trick))
    seats = range(g.num_players) if reveal else ([] if observer is None else [observer])
    for s in seats:
        if g.hands[s]:
            lines.append(f"hand of player_{s}: {format_cards(g.hands[s])}")
    return "\n".join(lines)
