"""Batch engines: one small interface over every game's two rules engines, for tournaments
and tests.

A batch engine plays a batch of games side by side from given deals and reports what
happened in each step as arrays, one entry per game slot. Each game has two
implementations that play the very same games for the same jobs and actions: ``"vector"``
on its batch engine (fast; every bot must answer whole batches) and ``"reference"`` on its
reference engine (one game object per slot: slow, the rules' definition). A game's own
``engine`` module subclasses :class:`ReferenceBatchBase` and, if the game has a batch
engine, :class:`VectorBatchBase` (a game without one plays its tournaments on the
reference engine); :func:`make_engine` builds either for a registry ``Game``.

```python
engine = make_engine("vector", rules, num_players=4, seed=0, game=game_named(name))
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
                   [B])``: the acting seat's observation, its legal actions and the seat;
                   ``seat`` is -1 where not live.
    ``step(actions)``  apply one action per live slot; returns the events below.
    ``release(slots)``  the caller is done with these slots (e.g. a round-mode round that
                   has been scored): they stop being live.

Events (``step``'s dict of numpy arrays, B = batch size, n = players)
    ``done`` bool [B]            the game ended in this step (won or truncated)
    ``truncated`` bool [B]       ... by a round limit
    ``winner`` int64 [B]         the single winner's seat where ``done``, else -1
    ``winners`` bool [B, n]      where ``done``: the seats that share the win
    ``final_score`` int64 [B, n] the final scores where ``done``
    ``score`` int64 [B, n]       scores after the step (a finished game: its final scores)
    ``rounds`` int64 [B]         rounds scored in the game where ``done``
    ``round_over`` bool [B]      a round was scored in this step; then
    ``round_tricks`` int64 [B, n]  tricks taken in the round, and the game's own round keys
                                 (its engine module's ``ROUND_KEYS``)
    Entries of slots that were not live before the step are meaningless.

Deals and randomness: a game's first K deals come from ``job.decks`` (``[K, deck_size *
deck_parts]``, the game's deck format), so both engines deal the same cards. Deals beyond
the K come from the engine's seeded generator (reference: one per job, keyed by ``(seed,
job.deal)``; vector: one per ``start``), where the two engines differ: give enough decks
(tournaments give the game's ``decks_per_game``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .common import check_int
from .parts import GameParts

__all__ = ["Job", "BatchEngine", "ReferenceBatchBase", "VectorBatchBase", "ENGINE_NAMES", "make_engine", "empty_events"]

ENGINE_NAMES = ("vector", "reference")


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
    decks: np.ndarray  # [K, deck_size * deck_parts]: the game's deck format
    scores: list[int] | None = None


def empty_events(B: int, n: int) -> dict:
    """The shared events of a step in which nothing happened (see the module docstring);
    a game's engine adds its round keys."""
    return {
        "round_over": np.zeros(B, bool),
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
    """The interface (see the module docstring); subclasses implement start, observe and step.
    A game's engines name its per-round events in ``round_fields``: key -> (value where no
    round was scored, one per seat?)."""

    name: str
    live: np.ndarray
    round_fields: dict[str, tuple[int, bool]] = {}

    def __init__(self, rules: Any, num_players: int, seed: int):
        self.rules, self.n, self.seed = rules, num_players, check_int(seed, "seed", 0)

    def start(self, jobs: list[Job]) -> None:
        raise NotImplementedError

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> dict:
        raise NotImplementedError

    def release(self, slots: np.ndarray) -> None:
        self.live[slots] = False

    def empty_events(self, B: int) -> dict:
        """The events of a step in which nothing happened, the game's round keys included."""
        ev = empty_events(B, self.n)
        for key, (fill, per_seat) in self.round_fields.items():
            ev[key] = np.full((B, self.n) if per_seat else B, fill, np.int64)
        return ev


class ReferenceBatchBase(BatchEngine):
    """Jobs on a reference engine, one ``Game`` per slot; ``record`` keeps a game record
    (:mod:`redbeard_env.records`) of every job. A subclass names the game's ``parts`` and
    ``records`` module; it may say otherwise how a job's decks start a game and what a
    game's events report (:meth:`new_game`, :meth:`round_events`, :meth:`end_events`)."""

    name = "reference"
    parts: GameParts
    records: Any  # the game's records module (its Recorder)

    def __init__(self, rules, num_players: int, seed: int, record: bool = False):
        super().__init__(rules, num_players, seed)
        self.prefix = self.parts.observation.static_prefix(rules, num_players)
        self.record = record

    def new_game(self, job: Job, rng: np.random.Generator):
        """A job's game: by default its deck rows, as lists of ints, are the game
        module's ``decks``."""
        return self.parts.game.new_game(self.rules, self.n, rng, dealer=job.dealer, scores=job.scores,
                                        decks=[[int(c) for c in deck] for deck in job.decks])

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        """Record a ``round_end`` event of slot ``b`` in ``ev`` (the game may have dealt
        again by then: read the event, not the game). By default nothing beyond
        ``round_over``: a game whose metrics read its rounds reports them here."""

    def end_events(self, ev: dict, b: int, g) -> None:
        """Record the end of slot ``b``'s game ``g`` in ``ev`` (``done`` is set already): by
        default the seats in ``g.winners`` share the win (``winner`` is the one seat, -1 for
        a tie), ``g.truncated`` (if it has it) and the rounds played (``g.round``)."""
        ev["truncated"][b] = bool(getattr(g, "truncated", False))
        ev["winners"][b, list(g.winners)] = True
        ev["winner"][b] = g.winners[0] if len(g.winners) == 1 else -1
        ev["rounds"][b] = g.round

    def start(self, jobs: list[Job]) -> None:
        # deals after the job's decks come from a generator keyed by the deal: the same in
        # every rotation of it
        self.games = [self.new_game(job, np.random.default_rng([self.seed, job.deal, 13])) for job in jobs]
        self.live = np.ones(len(jobs), dtype=bool)
        if self.record:
            self.recorders = [self.records.Recorder(g, seed=self.seed,
                                                    meta={"game": job.index, "deal": job.deal, "rotation": job.rotation})
                              for g, job in zip(self.games, jobs)]

    def apply(self, b: int, action: int) -> None:
        if self.record:
            self.recorders[b].apply(action)
        else:
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
        for key in ("round_tricks", *self.round_fields):
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


def make_engine(name: str, rules: Any, num_players: int, seed: int, *, game: Any, record: bool = False) -> BatchEngine:
    """The batch engine called ``name`` (``"vector"`` or ``"reference"``) of ``game`` (a
    registry ``Game``, resolved by the caller) at ``rules``; ``record`` (the reference
    engine only) keeps a game record of every job (:mod:`redbeard_env.records`)."""
    if name not in ENGINE_NAMES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINE_NAMES))}, got {name!r}")
    if name not in game.engines:
        raise ValueError(f"{game.title} has no {name} engine (it has {', '.join(game.engines)}): use engine='reference'")
    if record:
        if name != "reference":
            raise ValueError("game records are kept by the reference engine: use engine='reference' (or 'auto')")
        return game.engines[name](rules, num_players, seed, record=True)
    return game.engines[name](rules, num_players, seed)
