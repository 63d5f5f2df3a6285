"""Batch engines: one small interface over both rules engines, for tournaments and tests.

A batch engine plays a batch of games side by side from given deals and reports what
happened in each step as arrays, one entry per game slot. Two implementations play the
very same games for the same jobs and actions (``tests/test_evaluate.py``):

- :class:`VectorBatch` on the batch engine (:class:`redbeard_env.vector.VectorEnv`): fast;
  every bot must answer whole batches.
- :class:`ReferenceBatch` on the reference engine (:mod:`redbeard_env.game`, one ``Game``
  per slot): slow, the rules' definition.

```python
engine = make_engine("vector", rules, num_players=4, seed=0)
engine.start(jobs)                      # one game per Job, slots 0..B-1
while engine.live.any():
    obs, mask, seat = engine.observe()  # the acting seat's view in every slot
    events = engine.step(actions)       # actions int [B]; slots not live are ignored
    engine.release(np.flatnonzero(events["done"]))
```

Interface (:class:`BatchEngine`)
    ``name``       ``"vector"`` or ``"reference"``.
    ``live``       bool [B]: slots whose game the caller still plays; a slot stops being
                   live when its game ends in :meth:`~BatchEngine.step` or when released.
    ``start(jobs)``  begin one game per :class:`Job` (replacing any earlier batch): first
                   dealer ``job.dealer``, the deals ``job.decks`` in order, starting scores
                   ``job.scores`` (``None``: the rules' start score).
    ``observe()``  ``(obs float32 [B, OBS_SIZE], mask int8 [B, NUM_ACTIONS], seat int64
                   [B])``: the acting seat's observation (:mod:`redbeard_env.observation`),
                   its legal actions and the seat; ``seat`` is -1 where not live.
    ``step(actions)``  apply one action per live slot; returns the events below.
    ``release(slots)``  the caller is done with these slots (e.g. a round-mode round that
                   has been scored): they stop being live.

Events (``step``'s dict of numpy arrays, B = batch size, n = players)
    ``done`` bool [B]            the game ended in this step (won or truncated)
    ``truncated`` bool [B]       ... by ``max_rounds``
    ``winner`` int64 [B]         the winner's seat where ``done``, else -1 (-1 if truncated)
    ``winners`` bool [B, n]      where ``done``: the seats that share the win (Rödskägg:
                                 the winner alone; Sortskæg: everyone tied on top)
    ``final_score`` int64 [B, n] the final scores where ``done``
    ``score`` int64 [B, n]       scores after the step (a finished game: its final scores)
    ``rounds`` int64 [B]         rounds scored in the game where ``done``
    ``round_over`` bool [B]      a round was scored in this step; then:
    ``round_declarer`` int64 [B] the declarer (-1: all passed)
    ``round_bid`` int64 [B]      its bid level 0..6, 7 = Rödskägg
    ``round_tricks`` int64 [B, n]  tricks taken in the round
    Entries of slots that were not live before the step are meaningless.

Games: the same interface serves both games of the family. :func:`make_engine` picks the
game from the type of its ``Rules`` (:func:`game_of_rules`); :class:`GameInfo` tells
tournaments and the trainer each game's sizes, presets and deck format. Sortskæg's
engines and events: :mod:`redbeard_env.sortskaeg.engine`.

Deals and randomness: a game's first K deals come from ``job.decks`` (``[K, 104]``: deck
top first, then the order in which thrown-in cards are reshuffled), so both engines deal
the same cards. Deals beyond the K come from the engine's seeded generator (reference:
one per job, keyed by ``(seed, job.deal)``; vector: one per ``start``), where the two
engines differ: give enough decks (tournaments give ``min(max_rounds + 8, 96)``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import game as G
from .cards import NUM_ACTIONS, NUM_CARDS
from .observation import OBS_SIZE
from .parts import REDBEARD, GameParts
from .rules import Rules
from .vector import VectorEnv

__all__ = ["Job", "BatchEngine", "ReferenceBatchBase", "VectorBatchBase", "ReferenceBatch", "VectorBatch", "ENGINES", "make_engine", "empty_events",
           "GameInfo", "GAME_NAMES", "game_info", "game_of_rules"]


@dataclass
class Job:
    """One game (or round) to play: deal sequence ``deal`` in lineup rotation ``rotation``.

    Engines read ``deal`` (the key of the game's extra randomness), ``dealer``, ``decks``
    and ``scores``; ``index``, ``rotation`` and ``lineup`` are the caller's bookkeeping."""

    index: int
    deal: int
    rotation: int
    lineup: tuple[int, ...]  # agent index per seat
    dealer: int
    decks: np.ndarray  # [K, 104] (Sortskæg: [K, 42], one deck per deal)
    scores: list[int] | None = None


def empty_events(B: int, n: int) -> dict:
    """The events dict of a step in which nothing happened (see the module docstring)."""
    return {
        "round_over": np.zeros(B, bool),
        "round_declarer": np.full(B, -1, np.int64),
        "round_bid": np.full(B, -1, np.int64),
        "round_tricks": np.zeros((B, n), np.int64),
        "done": np.zeros(B, bool),
        "truncated": np.zeros(B, bool),
        "winner": np.full(B, -1, np.int64),
        "winners": np.zeros((B, n), bool),
        "final_score": np.zeros((B, n), np.int64),
        "score": np.zeros((B, n), np.int64),
        "rounds": np.zeros(B, np.int64),
    }


class BatchEngine:
    """The interface (see the module docstring); subclasses implement start, observe and step."""

    name: str
    live: np.ndarray

    def __init__(self, rules: Rules, num_players: int, seed: int):
        self.rules, self.n, self.seed = rules, num_players, seed

    def start(self, jobs: list[Job]) -> None:
        raise NotImplementedError

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> dict:
        raise NotImplementedError

    def release(self, slots: np.ndarray) -> None:
        self.live[slots] = False

    def empty_events(self, B: int) -> dict:
        """The events of a step in which nothing happened (a game adds its own keys)."""
        return empty_events(B, self.n)


class ReferenceBatchBase(BatchEngine):
    """Jobs on a reference engine, one ``Game`` per slot. A subclass names the game's
    ``parts`` and says how a job's decks start a game and what a game's events report
    (:meth:`new_game`, :meth:`round_events`, :meth:`end_events`)."""

    name = "reference"
    parts: GameParts

    def __init__(self, rules, num_players: int, seed: int):
        super().__init__(rules, num_players, seed)
        self.prefix = self.parts.observation.static_prefix(rules, num_players)

    def new_game(self, job: Job, rng: np.random.Generator):
        raise NotImplementedError

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        """Record a ``round_end`` event of slot ``b`` in ``ev``."""
        raise NotImplementedError

    def end_events(self, ev: dict, b: int, g) -> None:
        """Record the end of slot ``b``'s game ``g`` in ``ev`` (``done`` is set already)."""
        raise NotImplementedError

    def start(self, jobs: list[Job]) -> None:
        # deals after the job's decks come from a generator keyed by the deal: the same in
        # every rotation of it
        self.games = [self.new_game(job, np.random.default_rng([self.seed, job.deal, 13])) for job in jobs]
        self.live = np.ones(len(jobs), dtype=bool)

    def apply(self, b: int, action: int) -> None:
        self.parts.game.apply_action(self.games[b], action)

    def observe(self):
        B = len(self.games)
        game, encode = self.parts.game, self.parts.observation.encode
        obs = np.zeros((B, self.parts.observation.OBS_SIZE), dtype=np.float32)
        mask = np.zeros((B, self.parts.cards.NUM_ACTIONS), dtype=np.int8)
        seat = np.full(B, -1, dtype=np.int64)
        for b in np.flatnonzero(self.live):
            g = self.games[b]
            obs[b] = encode(g, g.to_act, self.prefix)
            mask[b, game.legal_actions(g)] = 1
            seat[b] = g.to_act
        return obs, mask, seat

    def step(self, actions: np.ndarray) -> dict:
        ev = self.empty_events(len(self.games))
        for b in np.flatnonzero(self.live):
            g = self.games[b]
            self.apply(b, int(actions[b]))
            ev["score"][b] = g.scores
            for e in g.events:
                if e[0] == "round_end":
                    ev["round_over"][b] = True
                    self.round_events(ev, b, e)
            if g.game_over:
                ev["done"][b] = True
                ev["final_score"][b] = g.scores
                self.end_events(ev, b, g)
                self.live[b] = False
        return ev


class VectorBatchBase(BatchEngine):
    """Jobs on a game's batch engine; finished games halt (``auto_reset=False``). A
    subclass names its ``VectorEnv``, the per-round ``info`` keys it passes on and how
    the winners are read from ``info``."""

    name = "vector"
    vector_env: type
    round_keys: tuple[str, ...]

    def __init__(self, rules, num_players: int, seed: int):
        super().__init__(rules, num_players, seed)
        self.wave = 0  # batches started so far: each gets its own engine seed

    def winners(self, info: dict) -> np.ndarray:
        """bool [B, n]: the seats that share the win of a game that ended in this step."""
        raise NotImplementedError

    def start(self, jobs: list[Job]) -> None:
        B = len(jobs)
        self.env = self.vector_env(B, self.n, rules=self.rules, seed=[self.seed, self.wave, 17], auto_reset=False)
        self.wave += 1
        dealer = np.array([j.dealer for j in jobs], dtype=np.int64)
        decks = np.stack([j.decks for j in jobs]).astype(np.int64)
        scores = None if jobs[0].scores is None else np.array([j.scores for j in jobs], dtype=np.int64)
        self._obs = self.env.reset(dealer=dealer, scores=scores, decks=decks)
        self.live = np.ones(B, dtype=bool)

    def observe(self):
        obs, mask, seat = self._obs
        return obs, mask, np.where(self.live, seat, -1)

    def step(self, actions: np.ndarray) -> dict:
        _, mask, _ = self._obs
        # released games play on with their first legal action (halted ones ignore theirs)
        actions = np.where(self.live, actions, mask.argmax(1))
        obs, mask, seat, rewards, terminated, truncated, info = self.env.step(actions)
        self._obs = (obs, mask, seat)
        live = self.live
        done = (terminated | truncated) & live
        ev = self.empty_events(len(actions))
        ev["round_over"] = info["round_over"] & live
        for key in self.round_keys:
            ev[key] = np.asarray(info[key], np.int64)
        ev["done"] = done
        ev["truncated"] = truncated & live
        ev["winner"] = np.where(done, np.asarray(info["winner"], np.int64), -1)
        ev["winners"] = self.winners(info) & done[:, None]
        ev["final_score"] = np.asarray(info["final_score"], np.int64)
        ev["score"] = np.asarray(info["score"], np.int64)
        ev["rounds"] = np.asarray(info["rounds"], np.int64)
        self.live = live & ~done
        return ev


class ReferenceBatch(ReferenceBatchBase):
    """Rödskägg's jobs on the reference engine; ``record`` keeps a game record
    (:mod:`redbeard_env.records`) of every job."""

    parts = REDBEARD

    def __init__(self, rules: Rules, num_players: int, seed: int, record: bool = False):
        super().__init__(rules, num_players, seed)
        self.record = record

    def new_game(self, job: Job, rng: np.random.Generator):
        decks = [(list(map(int, d[:NUM_CARDS])), _rank_of(d[NUM_CARDS:])) for d in job.decks]
        return G.new_game(self.rules, self.n, rng, dealer=job.dealer, scores=job.scores, decks=decks)

    def start(self, jobs: list[Job]) -> None:
        super().start(jobs)
        if self.record:
            from .records import Recorder

            self.recorders = [Recorder(g, seed=self.seed, meta={"game": job.index, "deal": job.deal, "rotation": job.rotation})
                              for g, job in zip(self.games, jobs)]

    def apply(self, b: int, action: int) -> None:
        if self.record:
            self.recorders[b].apply(action)
        else:
            G.apply_action(self.games[b], action)

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        _, _, declarer, level, tricks, _joiner, _in_round = event
        ev["round_declarer"][b] = declarer
        ev["round_bid"][b] = level
        ev["round_tricks"][b] = tricks

    def end_events(self, ev: dict, b: int, g) -> None:
        ev["truncated"][b] = g.truncated
        if g.winner is not None:
            ev["winner"][b] = g.winner
            ev["winners"][b, g.winner] = True
        ev["rounds"][b] = g.rounds_played


def _rank_of(order: np.ndarray) -> np.ndarray:
    """A reshuffle order (cards, first reshuffled first) as each card's position in it."""
    rank = np.empty(NUM_CARDS, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(NUM_CARDS)
    return rank


class VectorBatch(VectorBatchBase):
    """Rödskägg's jobs on the batch engine."""

    vector_env = VectorEnv
    round_keys = ("round_declarer", "round_bid", "round_tricks")

    def winners(self, info: dict) -> np.ndarray:
        return np.asarray(info["winner"])[:, None] == np.arange(self.n)


ENGINES = {"vector": VectorBatch, "reference": ReferenceBatch}


# ---------------------------------------------------------------------- games
@dataclass(frozen=True)
class GameInfo:
    """What tournaments and training need to know about a game of the family."""

    name: str  # "redbeard" | "sortskaeg"
    rules_type: type
    presets: dict  # preset name -> Rules
    default_rules: str  # preset used when none is named
    make_rules: Callable[..., Any]  # (preset or Rules, **overrides) -> Rules, ValueError when bad
    check_num_players: Callable[[Any, Any], int]  # (count, rules) -> count, ValueError when bad
    player_range: tuple[int, int]
    num_actions: int
    obs_size: int
    deck_size: int  # cards in one deck row of Job.decks (Rödskägg: 52, then the reshuffle order)
    deck_parts: int  # permutations per deck row: 2 (deck + reshuffle order) or 1
    decks_per_game: Callable[[Any], int]  # decks a tournament fixes per game, from the rules
    engines: Callable[[], dict]  # name -> BatchEngine class (imported on first use)
    vector_env: Callable[[], type]  # the game's VectorEnv class (imported on first use)


def _sortskaeg_engines() -> dict:
    from .sortskaeg.engine import ENGINES as SORTSKAEG_ENGINES

    return SORTSKAEG_ENGINES


def _sortskaeg_vector_env() -> type:
    from .sortskaeg.vector import VectorEnv as SortskaegVectorEnv

    return SortskaegVectorEnv


@functools.cache
def _games() -> dict[str, GameInfo]:
    from . import rules as redbeard_rules
    from .sortskaeg import cards as s_cards, observation as s_obs, rules as s_rules

    return {
        "redbeard": GameInfo("redbeard", Rules, redbeard_rules.PRESETS, "classic", redbeard_rules.make_rules,
                             redbeard_rules.check_num_players, (redbeard_rules.MIN_PLAYERS, redbeard_rules.MAX_PLAYERS),
                             NUM_ACTIONS, OBS_SIZE, NUM_CARDS, 2, lambda r: min(r.max_rounds + 8, 96),
                             lambda: ENGINES, lambda: VectorEnv),
        "sortskaeg": GameInfo("sortskaeg", s_rules.Rules, s_rules.PRESETS, "sortskaeg", s_rules.make_rules,
                              s_rules.check_num_players, (s_rules.MIN_PLAYERS, s_rules.MAX_PLAYERS),
                              s_cards.NUM_ACTIONS, s_obs.OBS_SIZE, s_cards.NUM_CARDS, 1, lambda r: r.num_rounds,
                              _sortskaeg_engines, _sortskaeg_vector_env),
    }


GAME_NAMES = ("redbeard", "sortskaeg")


def game_info(game: str) -> GameInfo:
    """The :class:`GameInfo` of ``"redbeard"`` (Rödskägg) or ``"sortskaeg"``."""
    if game not in GAME_NAMES:
        raise ValueError(f"game must be one of {', '.join(map(repr, GAME_NAMES))}, got {game!r}")
    return _games()[game]


def game_of_rules(rules: Any) -> GameInfo:
    """The game a ``Rules`` value belongs to (each game has its own ``Rules`` type)."""
    for info in _games().values():
        if isinstance(rules, info.rules_type):
            return info
    raise ValueError(f"not the Rules of any game: {rules!r:.80}")


def make_engine(name: str, rules: Any, num_players: int, seed: int, record: bool = False) -> BatchEngine:
    """The batch engine called ``name`` (``"vector"`` or ``"reference"``) of the game whose
    ``Rules`` these are (Rödskägg's or Sortskæg's); ``record`` (Rödskägg's reference engine
    only) keeps a game record of every job."""
    if name not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {name!r}")
    info = game_of_rules(rules)
    if record:
        if name != "reference" or info.name != "redbeard":
            raise ValueError("game records are kept by Rödskägg's reference engine: use engine='reference' (or 'auto')")
        return ReferenceBatch(rules, num_players, seed, record=True)
    return info.engines()[name](rules, num_players, seed)
