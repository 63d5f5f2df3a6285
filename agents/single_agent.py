"""Any registered game as a single-agent gymnasium environment: one seat is yours, bots
play the rest.

```python
import gymnasium, agents
env = agents.single_agent_env(rules="classic", num_players=4, opponents="heuristic", seat="random")
env = agents.single_agent_env(game="sortskaeg", num_players=4, opponents="pimc")
# or: env = gymnasium.make("redbeard/Classic-v0", opponents="heuristic")   # <game>/<Preset>-v0
obs, info = env.reset(seed=0)
while True:
    action = policy(obs["observation"], env.action_masks())
    obs, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated:
        break
```

Opponents
    A spec string for every other seat (``"heuristic"``, ``"pimc:samples=16"``,
    ``"ppo:classic_4p"``; the game's bots, built by ``agents.make_agent``), a callable
    ``f(observation_dict) -> action``, an object with ``act(observation, action_mask)``, or
    a list of those, one per other seat in seat order. Bots with randomness are reseeded
    from the env's generator at every ``reset``.

Seat
    An int (that seat is yours in every game) or ``"random"``: drawn from the env's
    generator at every reset, so the agent plays every position.

Spaces
    The game's AEC env's: ``action_space = Discrete(A)``, ``observation_space =
    Dict(observation=Box(-10, 10, (D,), float32), action_mask=Box(0, 1, (A,), int8))`` —
    the observation of your seat (Rödskägg: A = 69, D = 542; the blocks are documented in
    each game's ``observation`` module). ``action_masks()`` returns the mask as bools
    (the convention of maskable-policy libraries such as sb3-contrib's MaskablePPO). At the
    end of an episode the observation is still defined and the mask is all zeros.

Rewards
    ``reward="win"``: the game's terminal reward for your seat (Rödskägg, SPEC §3: +1 when
    your seat wins, −1/(n−1) when another seat wins or when you are eliminated, 0 at
    truncation). ``reward="shaped"`` adds ``shaping_coef`` × the game's progress whenever
    your score changes (its training module's ``score_gain``; Rödskägg: (|score| before −
    |score| after) / start_score, getting closer to zero pays; Sortskæg: the points / 10).

Episode
    Ends (``terminated``) when the game ends or your seat is eliminated; ``truncated`` at
    a round limit.

Illegal actions
    ``illegal_action="raise"`` (default): ``ValueError`` naming the legal actions, and
    nothing changes. ``illegal_action="lose"``: the episode ends at once with the loss
    reward −1/(n−1) and ``info["illegal_action"] = True`` (the game is abandoned, no move
    is substituted) — for code that samples actions without the mask, such as
    gymnasium's ``check_env``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

from redbeard_env.registry import Game, as_game, game_named, registered_games

REWARDS = ("win", "shaped")
ILLEGAL = ("raise", "lose")


def _as_player(opponent: Any, game: Game) -> Any:
    """A spec string -> the game's bot from the agent registry; anything else is used as it is."""
    if isinstance(opponent, str):
        from agents.registry import make_agent

        return make_agent(opponent, game=game)
    if not (callable(opponent) or hasattr(opponent, "act")):
        raise ValueError(f"an opponent is an agent spec string, a callable or an object with act(), got {opponent!r:.100}")
    if hasattr(opponent, "act"):
        from agents.registry import check_game

        check_game(opponent, game)
    return opponent


class SingleAgentEnv(gymnasium.Env):
    """See the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: Any = None, num_players: int = 4,
                 opponents: "str | Callable | Sequence" = "heuristic", seat: "int | str" = 0,
                 reward: str = "win", shaping_coef: float = 0.5, illegal_action: str = "raise",
                 render_mode: str | None = None, game: "Game | str | None" = None, **overrides: Any):
        self.game = as_game(game)
        rules = self.game.default_rules if rules is None else rules
        self.aec = self.game.raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **overrides)
        n = self.num_players = self.aec.num_players
        if seat != "random" and not (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n):
            raise ValueError(f"seat must be an int in 0..{n - 1} or 'random', got {seat!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {ILLEGAL}, got {illegal_action!r}")
        self.illegal_action = illegal_action
        if not np.isfinite(shaping_coef):
            raise ValueError(f"shaping_coef must be a finite number, got {shaping_coef!r}")
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: one per other seat ({n - 1}), got {len(opponents)}")
            self.opponents = [_as_player(o, self.game) for o in opponents]
        else:
            self.opponents = [_as_player(opponents, self.game) for _ in range(n - 1)]
        self.seat_rule, self.reward_mode, self.shaping_coef = seat, reward, float(shaping_coef)
        self.render_mode = render_mode
        self.action_space = self.aec.action_space("player_0")
        self.observation_space = self.aec.observation_space("player_0")
        self.seat = 0 if seat == "random" else int(seat)
        self._done = True

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed, bot_seed = (int(x) for x in self.np_random.integers(2**31, size=2))
        seat = int(self.np_random.integers(self.num_players)) if self.seat_rule == "random" else self.seat
        self.aec.reset(seed=game_seed, options=options)  # rejected options raise before anything changed here
        self.seat, self.agent = seat, f"player_{seat}"
        for i, bot in enumerate(self.opponents):
            if hasattr(bot, "reset"):
                bot.reset(bot_seed + i)
        self._score = float(self.aec.game.scores[seat])
        self._done = False
        self._play_others()  # the bots before your first turn (nothing is scored yet)
        return self._observe(), self._info()

    def step(self, action):
        if self._done:
            raise ValueError("the episode is over; call reset()")
        mask = self.action_masks()
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < len(mask) and mask[action]):
            if self.illegal_action == "lose":
                self._done = True
                return self._observe(), -1.0 / (self.num_players - 1), True, False, {**self._info(), "illegal_action": True}
            legal = ", ".join(self.aec.action_name(int(a)) for a in np.flatnonzero(mask))
            raise ValueError(f"illegal action {action!r} for seat {self.seat}; legal now: {legal}")
        self.aec.step(int(action))
        reward, terminated, truncated = self._play_others()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """bool [69]: the legal actions of your seat now (all False when it is over)."""
        return self._observe()["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------------ inside
    def _observe(self) -> dict:
        return self.aec.observe(self.agent)

    def _info(self) -> dict:
        g = self.aec.game
        return {"seat": self.seat, "phase": g.phase, "score": list(map(int, g.scores)),
                "round": self.aec.infos.get(self.agent, {}).get("round")}

    def _play_others(self) -> tuple[float, bool, bool]:
        """Let the bots move until it is your turn or your episode ends; returns your
        reward over those moves and whether it ended."""
        env, reward = self.aec, 0.0
        while True:
            reward += float(env.rewards.get(self.agent, 0.0))  # the last step's reward
            reward += self._shaping()
            if self.agent not in env.agents or env.terminations.get(self.agent) or env.truncations.get(self.agent):
                truncated = bool(env.truncations.get(self.agent, False)) and not env.terminations.get(self.agent, False)
                self._done = True
                return reward, not truncated, truncated
            current = env.agent_selection
            if current == self.agent:
                return reward, False, False
            if env.terminations[current] or env.truncations[current]:
                env.step(None)
                continue
            obs = env.observe(current)
            seat = int(current.split("_")[1])
            bot = self.opponents[(seat - self.seat - 1) % self.num_players]
            action = bot.act(obs["observation"], obs["action_mask"]) if hasattr(bot, "act") else bot(obs)
            env.step(int(action))

    def _shaping(self) -> float:
        """The shaped part of the reward when a round changed your score."""
        score = float(self.aec.game.scores[self.seat])
        if self.reward_mode != "shaped" or score == self._score:
            return 0.0
        from agents.registry import training_of

        gain = training_of(self.game).score_gain(self._score, score, self.aec.rules)
        self._score = score
        return self.shaping_coef * gain


def single_agent_env(rules: Any = None, num_players: int = 4, opponents: Any = "heuristic",
                     seat: "int | str" = 0, game: "Game | str | None" = None, **kwargs: Any) -> SingleAgentEnv:
    """A :class:`SingleAgentEnv` of ``game`` (a ``Game`` or its name; None:
    :data:`~redbeard_env.registry.LEGACY_GAME`; ``rules`` None: its default preset); see the
    module docstring."""
    return SingleAgentEnv(rules=rules, num_players=num_players, opponents=opponents, seat=seat, game=game, **kwargs)


def gym_ids() -> dict[str, tuple[str, str]]:
    """gymnasium ids of every game's presets: ``"<game>/<Preset>-v0"`` -> (game, preset),
    e.g. ``gymnasium.make("redbeard/FemOpp-v0", num_players=5, opponents="pimc")``."""
    return {f"{g}/{''.join(w.capitalize() for w in preset.split('_'))}-v0": (g, preset)
            for g in registered_games() for preset in game_named(g).presets}


def register_gymnasium_envs() -> None:
    for env_id, (game, preset) in gym_ids().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="agents.single_agent:SingleAgentEnv",
                               kwargs={"game": game, "rules": preset})
