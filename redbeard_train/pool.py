"""Who plays the learner: the opponent pool, and the batches of games (arenas).

Every game of an arena has one *learner* seat (or, in self-play games, the learner on
every seat); the other seats are played by an opponent drawn from the :class:`Pool` —
the current policy ("self", index 0), bots from the agent registry and frozen snapshots
of the learner — with prioritised sampling towards the opponents the learner does worst
against (PFSP weight (1 − win share)^p).

Both classes turn into plain data (``state()``) and back (``from_state``) for the
training checkpoint, which is loaded with ``torch.load(weights_only=True)``: numpy
arrays travel as tensors, random generators as their state dicts.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from agents.registry import training_of
from redbeard_env.registry import as_game, game_of_data

from .config import Config


# ---------------------------------------------------------------------- plain data
def map_leaves(value: Any, leaf) -> Any:
    """``leaf`` applied to every value inside dicts, lists and tuples (kept as they are)."""
    if isinstance(value, dict):
        return {k: map_leaves(v, leaf) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not (isinstance(value, tuple) and value[:1] == ("__tensor__",)):
        return type(value)(map_leaves(v, leaf) for v in value)
    return leaf(value)


def _to_tensor(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value).copy())
    return value.item() if isinstance(value, np.generic) else value


def to_plain(value: Any) -> Any:
    """numpy arrays -> tensors (numpy scalars -> Python numbers), recursively."""
    return map_leaves(value, _to_tensor)


def from_plain(value: Any) -> Any:
    """The inverse of :func:`to_plain` (every tensor becomes a numpy array)."""
    return map_leaves(value, lambda v: v.numpy().copy() if isinstance(v, torch.Tensor) else v)


def engine_state(venv: Any, game: str) -> dict:
    """A batch engine (any game's ``VectorEnv``) mid-game as plain data: how it was
    built, its arrays, its plain attributes and its generator. Tables derived from the
    rules are rebuilt on load."""
    arrays, scalars = {}, {}
    for key, value in vars(venv).items():
        if isinstance(value, np.ndarray):
            arrays[key] = value
        elif isinstance(value, (bool, int, float, str)) or value is None:
            scalars[key] = value
    return {
        "game": game, "num_envs": venv.num_envs, "num_players": venv.num_players, "rules": dataclasses.asdict(venv.rules),
        "arrays": to_plain(arrays), "scalars": scalars, "rng": venv.rng.bit_generator.state,
    }


def engine_from_state(state: dict) -> Any:
    """Rebuild an engine from :func:`engine_state`; it continues exactly."""
    info = game_of_data(state)  # states from before games had names: LEGACY_GAME's
    rules = info.make_rules(info.rules_type(), **state["rules"])
    venv = info.vector_env(state["num_envs"], state["num_players"], rules=rules,
                             auto_reset=state["scalars"].get("auto_reset", True))
    for key, value in state["arrays"].items():
        value = value.numpy()
        current = getattr(venv, key, None)
        # many arrays are views into shared buffers: write into them, keep the views
        if isinstance(current, np.ndarray) and current.shape == value.shape and current.flags.writeable:
            current[...] = value
        else:
            setattr(venv, key, value.copy())
    for key, value in state["scalars"].items():
        setattr(venv, key, value)
    venv.rng.bit_generator.state = state["rng"]
    return venv


def generator_states(agent: Any) -> dict:
    """The states of an agent's random generators (numpy and torch), by attribute."""
    out = {}
    for key, value in vars(agent).items():
        if isinstance(value, np.random.Generator):
            out[key] = {"numpy": value.bit_generator.state}
        elif isinstance(value, torch.Generator):
            out[key] = {"torch": value.get_state()}
    return out


def set_generator_states(agent: Any, states: dict) -> None:
    for key, state in states.items():
        if "numpy" in state:
            getattr(agent, key).bit_generator.state = state["numpy"]
        else:
            getattr(agent, key).set_state(state["torch"])


# ---------------------------------------------------------------------- arena
class Arena:
    """One batch of games at a fixed player count, with who plays which seat and the
    learner's open transition chains. What is the game's own -- the shaped reward, games
    started at chosen scores, who holds which card -- comes from its training part
    (``agents/<game>/training.py``, :func:`agents.registry.training_of`)."""

    ARRAYS = ("obs", "mask", "seat", "learner", "opponent", "last", "pending", "shaping")

    def __init__(self, cfg: Config, num_players: int, num_envs: int, seed: int | None, venv: Any = None):
        self.n = num_players
        self.info = info = as_game(cfg.game)
        self.game = info.name
        self.training = training_of(info)
        self.rules = rules = info.make_rules(cfg.rules, **cfg.overrides)
        self.start_score = int(info.start_score(rules))  # a seat's score before any round was scored
        if venv is not None:  # restored from a checkpoint: the arrays follow
            self.venv, self.B = venv, venv.num_envs
            return
        self.venv = info.vector_env(num_envs=num_envs, num_players=num_players, rules=rules, seed=seed)
        self.obs, self.mask, self.seat = self.venv.reset()
        B = self.B = num_envs
        self.learner = np.zeros((B, num_players), dtype=bool)
        self.opponent = np.zeros(B, dtype=np.int64)  # pool index (0 = self)
        self.last = np.full((B, num_players), -1, dtype=np.int64)  # open transition per seat
        self.pending = np.zeros((B, num_players), dtype=np.float32)  # reward since that decision
        self.shaping = self.shaping_start(np.full((B, num_players), self.start_score))

    def shaping_start(self, scores: np.ndarray) -> np.ndarray:
        """float32 [k, n]: the shaped reward's state of each seat of games that start at
        ``scores`` [k, n], as the game's training part keeps it for its ``round_gain``
        (its ``shaping_start``; a game without one keeps none: zeros)."""
        start = getattr(self.training, "shaping_start", None)
        return np.zeros(scores.shape, np.float32) if start is None else np.asarray(start(scores), np.float32)

    def assign(self, games: np.ndarray, rng: np.random.Generator, pool: "Pool") -> None:
        """Draw an opponent and the learner's seat(s) for new games."""
        if len(games) == 0:
            return
        opp = pool.sample(len(games), rng)
        self.opponent[games] = opp
        self.learner[games] = False
        seats = rng.integers(self.n, size=len(games))
        self.learner[games, seats] = True
        self.learner[games[opp == 0]] = True  # self-play: every seat is the learner

    def restart(self, games: np.ndarray) -> None:
        """New games in these slots (the engine dealt them at the start score)."""
        self.shaping[games] = self.shaping_start(np.full((len(games), self.n), self.start_score))

    def start_at_scores(self, games: np.ndarray, rng: np.random.Generator, low: int, high: int, share: float) -> None:
        """Start a ``share`` of ``games`` (new games, at the start score) again with each seat
        on a score drawn from ``low..high`` (config ``start_scores``), dealt from ``rng`` by
        the game's training part (its ``start_games``: the games loaded into their slots)."""
        pick = games[rng.random(len(games)) < share]
        if not len(pick):
            return
        scores = rng.integers(low, high + 1, size=(len(pick), self.n))
        obs, mask, seat = self.training.start_games(self.venv, self.rules, pick, scores, rng)
        self.obs[pick], self.mask[pick], self.seat[pick] = obs[pick], mask[pick], seat[pick]
        self.shaping[pick] = self.shaping_start(scores)

    def round_gain(self, info: dict, rounds: np.ndarray) -> np.ndarray:
        """float32 [len(rounds), n]: each seat's progress in the rounds just scored (the
        ``shaped`` reward before ``shaping_coef``), by the game's training part's
        ``round_gain`` (which updates :attr:`shaping`)."""
        return self.training.round_gain(info, rounds, self.shaping, self.rules)

    def state(self) -> dict:
        return {"n": self.n, "venv": engine_state(self.venv, self.game),
                **to_plain({k: getattr(self, k) for k in self.ARRAYS})}

    @classmethod
    def from_state(cls, cfg: Config, state: dict) -> "Arena":
        venv = engine_from_state(state["venv"])
        arena = cls(cfg, state["n"], venv.num_envs, None, venv=venv)
        for key in cls.ARRAYS:
            setattr(arena, key, state[key].numpy().copy())
        return arena


# ---------------------------------------------------------------------- pool
class Pool:
    """Opponents: index 0 is the learner itself, then registry bots, then snapshots."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.names = ["self"] + list(cfg.opponents)
        self.snapshots: dict[int, dict] = {}  # pool index -> state_dict
        self.win_ema = np.full(len(self.names), 1.0 / max(cfg.players), dtype=np.float64)
        self.games = np.zeros(len(self.names), dtype=np.int64)
        self.agents: dict[int, Any] = {}  # built lazily

    def add_snapshot(self, state_dict: dict, step: int) -> None:
        if self.cfg.pool_size <= 0:
            return
        snaps = [i for i in range(len(self.names)) if i in self.snapshots]
        if len(snaps) >= self.cfg.pool_size:  # retire the oldest snapshot's slot
            idx = snaps[0]
            del self.snapshots[idx]
            self.agents.pop(idx, None)
        else:
            idx = len(self.names)
            self.names.append("")
            self.win_ema = np.append(self.win_ema, 1.0 / max(self.cfg.players))
            self.games = np.append(self.games, 0)
        self.names[idx] = f"snapshot@{step}"
        self.snapshots[idx] = {k: v.detach().clone() for k, v in state_dict.items()}
        self.win_ema[idx] = 1.0 / max(self.cfg.players)
        self.games[idx] = 0

    def probabilities(self) -> np.ndarray:
        if len(self.names) == 1:  # nothing but self-play (no opponents, no snapshot yet)
            return np.ones(1)
        weights = np.clip(1.0 - self.win_ema[1:], 0.02, 1.0) ** self.cfg.pfsp_power
        probs = np.concatenate([[self.cfg.self_play_frac], (1 - self.cfg.self_play_frac) * weights / weights.sum()])
        return probs / probs.sum()

    def sample(self, k: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(len(self.names), size=k, p=self.probabilities())

    def record(self, opponent: np.ndarray, learner_won: np.ndarray) -> None:
        for idx, won in zip(opponent, learner_won):
            self.games[idx] += 1
            self.win_ema[idx] += 0.02 * (float(won) - self.win_ema[idx])

    def is_prior_bot(self, idx: int) -> bool:
        """Whether opponent ``idx`` is the policy's prior bot itself (the same deterministic
        bot: its actions are the argmax of the prior's values)."""
        return bool(self.cfg.prior) and idx not in self.snapshots and self.names[idx] == self.cfg.prior

    def uses_prior(self, idx: int) -> bool:
        """Whether opponent ``idx`` needs the prior bot's values (it is that bot, or a
        snapshot of a policy with that prior)."""
        return self.is_prior_bot(idx) or (bool(self.cfg.prior) and idx in self.snapshots)

    def agent(self, idx: int, device):
        """The bot (or frozen network) for pool index ``idx``."""
        if idx not in self.agents:
            if idx in self.snapshots:
                from agents.ppo import policy_from_weights

                net = policy_from_weights(self.snapshots[idx], tuple(self.cfg.hidden), self.cfg.prior, self.cfg.game,
                                          critic=self.cfg.critic, belief=self.cfg.belief)
                self.agents[idx] = net.to(device).eval()
            else:
                from agents.registry import make_agent

                self.agents[idx] = make_agent(self.names[idx], game=self.cfg.game, seed=self.cfg.seed + idx)
        return self.agents[idx]

    def statistics(self) -> dict:
        """What the learner sends its rollout workers each update."""
        return {"names": list(self.names), "snapshots": self.snapshots, "win_ema": self.win_ema.copy(), "games": self.games.copy()}

    def sync(self, stats: dict) -> None:
        """Take the learner's names, snapshots and statistics; keep the bots already built
        for entries that did not change (their random states go on)."""
        for idx in list(self.agents):
            if idx >= len(stats["names"]) or stats["names"][idx] != self.names[idx]:
                del self.agents[idx]
        self.names = list(stats["names"])
        self.snapshots = dict(stats["snapshots"])
        self.win_ema = np.array(stats["win_ema"], dtype=np.float64)
        self.games = np.array(stats["games"], dtype=np.int64)

    def state(self) -> dict:
        """Plain data: names, statistics and snapshot weights (the bots a rollout worker
        built are in that worker's state)."""
        return {"names": list(self.names), "snapshots": self.snapshots,
                "win_ema": to_plain(self.win_ema), "games": to_plain(self.games)}

    @classmethod
    def from_state(cls, cfg: Config, state: dict) -> "Pool":
        pool = cls(cfg)
        pool.sync({**state, "win_ema": state["win_ema"].numpy(), "games": state["games"].numpy()})
        return pool
