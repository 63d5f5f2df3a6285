"""One human against bots, in any registered game: a game session and its views.

No web code here: the web app (:mod:`redbeard_web.app`) and the terminal game
(:mod:`redbeard_web.terminal`) both drive a :class:`GameSession`. Nothing here knows a
game: everything comes from the registry (:mod:`redbeard_env.registry`). A session runs the
game's reference engine (``game.parts.game``: ``new_game`` / ``legal_actions`` /
``apply_action``) with the game's :class:`Recorder` (``game.records``); the human sits in one
seat, bots from a :class:`~redbeard_web.bots.BotPool` in the others, each seeing its
observation (``game.parts.observation``). :meth:`GameSession.act` applies the human's action
and then lets the bots move until it is the human's turn again or the game is over, so a
caller always gets back a view where the human can act (or the end).

**A move applies whole or not at all**: :meth:`GameSession.act` keeps the game's state as it
was before the human's move, and if anything fails -- a bot that raises or chooses an action
that is not legal (:class:`BotFailed`, a ``ValueError``), or any other error -- the game is
put back exactly as it was, the human's move included, so the human is still to act. A bot
cannot leave a game half-moved, or with a bot to act that never will.

Everything shown comes from the game's **views module** (``game.views``, e.g.
:mod:`redbeard_env.redbeard.views`): the table, the sorted hand, action names, texts, the
effects of a move, the score sheet. **Views hold only what the human may know** (see the
game's views module for what that is); never other hands, undealt cards or the seed (which
would give away every deal); the record (with every hand and the seed) is available only
once the game is over.

A view (all seats absolute, cards and actions as the game's names)::

    {"id", "game", "title", "your_seat", "phase", "to_act" (seat or null), "hand" (sorted),
     "legal" (action names; [] when it is not your turn), "question" (text, or null when
     it is not your turn), "scores", "finished", "winner" (a seat, a list of seats sharing
     the win, or null), "winners" (always a list), "truncated", "events" (moves since your
     last view, at most the last 1000; "events_skipped" counts older ones left out),
     "table" (the public table: the views module's ``table``), "sheet" (one row per scored
     round), "sheet_view" (the sheet as a table to draw), "players", "agents", "rules",
     "actions" (moves so far), ...the game's own fields (``extras``: Rödskägg's
     "seen_thrown", Sortskæg's "round", "hand_size", "discarded", ...)}

An event is ``{"seat", "action", "text", "said", "effects", "table"}``: ``action`` is the
move as the human may see it (another player's Sortskæg discard is just ``discard``),
``effects`` the public consequences of the move (each with a ``text``: a deal, score
changes with their reason, a trick won, the round's end with a ``summary``, the winner)
and ``table`` the public table after it, so a page can show the moves one by one.
"""

from __future__ import annotations

import pickle
import secrets
import threading
import time
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from redbeard_env.common import shown
from redbeard_env.records import COMMON_KEYS, game_of_record, rules_dict
from redbeard_env.registry import Game, game_named, game_of_rules, load_object

from .bots import BotPool, check_bot_spec, default_game, shipped_checkpoints, suggested_bots  # noqa: F401
from .limits import estimate_bytes

HUMAN = "human"
MAX_SEED = 2**53 - 1  # seeds stay exact in JavaScript numbers
MAX_PENDING_EVENTS = 1000  # a view carries at most the last 1000 moves
DEFAULT_PLAYERS = 4
MAX_ACTION_CHARS = 40  # an action name is short ("play:AS", "discard:R2")
REPLAY_OVERHEAD = 64 * 1024  # bytes of a replay besides its record (the game, the views' state)


class NotFinished(ValueError):
    """The record of a game that is still running was asked for."""


class BotFailed(ValueError):
    """A bot could not move (it raised, or chose an action that is not legal) or give a hint:
    the bot the client chose cannot play here. A 400 like every refused request: the game is
    as it was before the request (see :meth:`GameSession.act`)."""


def views_of(game: Game):
    """The views module of a game (its registry entry names it)."""
    return load_object(game.views)


def describe(seat: int, name: str, human_seat: int | None = None, game: str | None = None) -> str:
    """A move as a sentence in ``game`` (default: the first registered game)."""
    return views_of(game_named(game or default_game())).describe(seat, name, human_seat)


# ---------------------------------------------------------------- options
def _int_in(body: dict, key: str, default: Any, lo: int, hi: int, what: str) -> Any:
    value = body.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{key} must be {what} in {lo}..{hi}, got {value!r:.60}")
    return value


def parse_new_game(body: Any, check: Callable[[Any, str], str] = check_bot_spec) -> dict:
    """Check a new-game request ``{"game", "rules", "players", "seat", "opponents", "seed",
    "overrides"}`` (all optional; ``game`` defaults to the first registered game, ``rules``
    to its default preset, ``opponents`` to its ``heuristic``); return the parsed settings
    or raise ``ValueError`` saying what is wrong and what is allowed. ``check(spec, game)``
    checks each bot (a pool's :meth:`~redbeard_web.bots.BotPool.check` for its own rules)."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ValueError(f"a new game is a JSON object, got {type(body).__name__}")
    allowed = ("game", "rules", "players", "seat", "opponents", "seed", "overrides")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")
    game = game_named(body.get("game", default_game()))
    preset = body.get("rules", game.default_rules)
    if not isinstance(preset, str) or preset not in game.presets:
        raise ValueError(f"rules must be a preset name of {game.title}: {', '.join(game.presets)}; got {preset!r:.60}")
    overrides = body.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ValueError(f"overrides must be an object of Rules fields, e.g. {{\"start_score\": 6}}, got {overrides!r:.60}")
    rules = game.make_rules(preset, **overrides)
    lo, hi = game.player_range
    players = _int_in(body, "players", min(max(DEFAULT_PLAYERS, lo), hi), lo, hi, "an int")
    with warnings.catch_warnings():  # a count outside a rule sheet's own range is fine here
        warnings.simplefilter("ignore", UserWarning)
        game.check_num_players(players, rules)
    seat = _int_in(body, "seat", 0, 0, players - 1, "an int")
    opponents = body.get("opponents", "heuristic")
    if isinstance(opponents, str):
        opponents = [opponents] * (players - 1)
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise ValueError(f"opponents must be one bot spec, or a list of {players - 1} (the other seats in order)")
    opponents = [check(o, game.name) for o in opponents]
    seed = _int_in(body, "seed", None, 0, MAX_SEED, "null or an int")
    agents = list(opponents)
    agents.insert(seat, HUMAN)
    return {"game": game.name, "rules": rules, "players": players, "seat": seat, "agents": agents, "seed": seed}


# ---------------------------------------------------------------- the session
class GameSession:
    """A game between one human seat and bots; see the module docstring. The game is the
    one ``rules`` belong to. Callers hold :attr:`lock` around every use (the web app does;
    the terminal game has one thread)."""

    def __init__(self, game_id: str, rules: Any, num_players: int, seat: int, agents: Sequence[str],
                 seed: int | None, bots: BotPool, clock: Callable[[], float] = time.monotonic,
                 app: str = "redbeard_web"):
        if seed is None:
            seed = secrets.randbelow(MAX_SEED + 1)
        self.info = game_of_rules(rules)
        self.views = views_of(self.info)
        self.engine = self.info.parts.game
        self.id = game_id
        self.seat = seat
        self.agents = list(agents)
        self.seed = seed
        self.bots = bots
        self.clock = clock
        self.lock = threading.Lock()
        self.touched = clock()
        rng = np.random.default_rng(seed)
        dealer = int(rng.integers(num_players))  # the first dealer comes from the seed, as in the env
        self.game = self.engine.new_game(rules, num_players, rng, dealer=dealer)
        self.recorder = self.info.records.Recorder(self.game, agents=self.agents, seed=seed, meta={"app": app})
        self.prefix = self.info.parts.observation.static_prefix(rules, num_players)
        self.pending: list[dict] = []  # events not yet delivered in a view
        self.skipped = 0  # events dropped from ``pending`` to bound memory
        self.last_trick: dict | None = None
        self.round_scores: list[dict] = []  # score changes of the running round (its end lists them all)
        self.round_tricks: list[dict] = []  # the tricks of the running deal: cards and winner
        self.saved = False  # written to the records file
        self.owner: str | None = None  # the client address that made it (the store sets it)

    # ------------------------------------------------------------ moves
    @property
    def finished(self) -> bool:
        return self.game.game_over

    def my_turn(self) -> bool:
        return not self.game.game_over and self.game.to_act == self.seat

    def observation(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        mask = np.zeros(self.info.num_actions, dtype=np.int8)
        if g.to_act == seat and not g.game_over:
            mask[self.engine.legal_actions(g)] = 1
        return self.info.parts.observation.encode(g, seat, self.prefix), mask

    def legal_names(self) -> list[str]:
        g = self.game
        return [self.views.action_name(g, a) for a in self.engine.legal_actions(g)]

    def act(self, name: Any, view: bool = False) -> dict | None:
        """The human's action by name; ``ValueError`` (nothing changes) if it is malformed,
        not the human's turn or illegal. Then the bots move. If anything fails on the way
        (a bot: :class:`BotFailed`), the game is put back as it was and the error raised.
        With ``view``, returns the human's view after the move, made within the same
        all-or-nothing step."""
        g = self.game
        if not isinstance(name, str):
            raise ValueError(f"an action is an action name (a string of the view's \"legal\" list), got {shown(name, 60)}")
        if g.game_over:
            raise ValueError("the game is over; no action is allowed")
        if g.to_act != self.seat:
            raise ValueError(f"it is not your turn: seat {g.to_act} is to act (phase {g.phase!r})")
        try:
            if len(name) > MAX_ACTION_CHARS:
                raise ValueError("too long")
            action = self.info.parts.cards.action_id(name)
        except ValueError:  # the game's own message gives examples with cards: list the legal names
            raise ValueError(f"unknown action {shown(name, 40)}; legal now: {', '.join(self.legal_names())}") from None
        legal = self.engine.legal_actions(g)
        kind = self.views.action_name(g, action).partition(":")[0]  # play:X is not discard:X
        if action not in legal or name.strip().partition(":")[0].lower() != kind:
            raise ValueError(f"illegal action {name!r:.60} in phase {g.phase!r}; legal: {', '.join(self.legal_names())}")
        saved = self._state()
        try:
            self._apply(action)
            self.run_bots()
            return self.view() if view else None
        except BotFailed as exc:
            self._restore(saved)
            raise BotFailed(f"{exc}; your move was not applied, the game is as it was: start a new game with "
                            f"other bots") from exc.__cause__
        except BaseException:
            self._restore(saved)
            raise

    def run_bots(self) -> None:
        """Bots move until the human is to act or the game is over; :class:`BotFailed` if a
        bot raises or chooses an illegal action (the moves before it stay made: callers that
        need the game unchanged restore it, as :meth:`act` does)."""
        g = self.game
        while not g.game_over and g.to_act != self.seat:
            seat = g.to_act
            spec = self.agents[seat]
            obs, mask = self.observation(seat)
            try:
                action = self.bots.act(spec, obs, mask, self.info.name)
            except Exception as exc:
                raise BotFailed(f"the bot {spec!r} (seat {seat}) cannot play here: it failed to choose a move "
                                f"({type(exc).__name__}: {exc})") from exc
            if not (isinstance(action, (int, np.integer)) and 0 <= action < len(mask) and mask[action]):
                raise BotFailed(f"the bot {spec!r} (seat {seat}) cannot play here: it chose {shown(action, 40)}, "
                                f"which is not a legal action")
            self._apply(int(action))

    def _state(self) -> bytes:
        """Everything a move changes, as bytes (pickling costs less than a deep copy, and a
        failed move, when it has to be put back, is rare)."""
        return pickle.dumps((self.game, self.recorder, self.pending, self.skipped, self.last_trick,
                             self.round_scores, self.round_tricks, self.saved), pickle.HIGHEST_PROTOCOL)

    def _restore(self, state: bytes) -> None:
        (self.game, self.recorder, self.pending, self.skipped, self.last_trick, self.round_scores,
         self.round_tricks, self.saved) = pickle.loads(state)

    def _apply(self, action: int) -> None:
        g = self.game
        seat = g.to_act
        if self.last_trick is not None and self.last_trick.get("deal_after"):
            self.last_trick = None  # the last trick of a round stays on show until the next deal's first move
        trick_before = list(g.trick)
        name = self.views.action_name(g, action)
        deals_before = len(self.recorder.deals)
        events = self.recorder.apply(action)  # ValueError, state unchanged, if illegal
        deal = self.recorder.deals[-1] if len(self.recorder.deals) > deals_before else None
        effects = self.views.effects(g, seat, action, events, trick_before, deal, self.seat, self.round_scores)
        self._follow_round(effects)
        shown = self.views.shown_action(seat, name, self.seat)
        said = self.views.describe(seat, shown, None).split(" ", 1)[-1]
        self.pending.append({"seat": seat, "action": shown, "text": self.views.describe(seat, shown, self.seat),
                             "said": said, "effects": effects, "table": self.table()})
        if len(self.pending) > MAX_PENDING_EVENTS:  # bots playing on for long without a look
            drop = len(self.pending) - MAX_PENDING_EVENTS
            del self.pending[:drop]
            self.skipped += drop

    def _follow_round(self, effects: list[dict]) -> None:
        """Keep the last trick, the deal's tricks and the round's score changes up to date."""
        for e in effects:
            if e["type"] == "trick":
                self.last_trick = {"cards": e["cards"], "winner": e["winner"]}
                self.round_tricks.append(self.last_trick)
            elif e["type"] == "deal":
                self.round_tricks = []
                if self.last_trick is not None:
                    self.last_trick = dict(self.last_trick, deal_after=True)
        if any(e["type"] == "round_end" for e in effects):
            self.round_scores = []
        else:
            self.round_scores += [e for e in effects if e["type"] == "score"]

    # ------------------------------------------------------------ views
    def table(self) -> dict:
        """The public table as the human sees it, plus the human's own hand."""
        return self.views.table(self.game, self.seat, self.agents, self.last_trick)

    def view(self) -> dict:
        """The human's view (see the module docstring); marks the events as delivered (once
        the view is made: a view that fails loses no events)."""
        g, v = self.game, self.views
        self.touched = self.clock()
        events, skipped = self.pending, self.skipped
        mine = self.my_turn()
        sheet = v.sheet(self.recorder)
        view = {
            "id": self.id,
            "game": self.info.name,
            "title": self.info.title,
            "your_seat": self.seat,
            "phase": g.phase,
            "to_act": g.to_act if g.to_act >= 0 else None,
            "hand": v.hand(g, self.seat),
            "legal": self.legal_names() if mine else [],
            "question": v.question(g, self.seat) if mine else None,
            "stakes": v.stakes(g, self.seat) if mine else [],
            "scores": list(g.scores),
            "finished": g.game_over,
            "winner": v.winner(g),
            "winners": v.winners(g),
            "truncated": v.truncated(g),
            "events": events,
            "events_skipped": skipped,
            "table": self.table(),
            "sheet": sheet,
            "sheet_view": v.sheet_view(sheet, g.num_players, self.seat, self.recorder.start_scores),
            "round_tricks": list(self.round_tricks),
            "players": g.num_players,
            "agents": list(self.agents),
            "rules": rules_dict(g.rules),
            "actions": len(self.recorder.actions),
            **v.extras(g, self.seat),
        }
        self.pending, self.skipped = [], 0
        return view

    def hint(self, spec: Any) -> dict:
        """What bot ``spec`` (a bot of this game) would do in the human's place, with its
        values of the legal actions (utilities or probabilities; None for bots without)."""
        return self.hint_job(spec).run()

    def hint_job(self, spec: Any) -> "HintJob":
        """The question of a hint, taken now (callers hold :attr:`lock`); its
        :meth:`HintJob.run` thinks without the game, so the lock need not be held for it."""
        return HintJob(self, spec)

    def record(self) -> dict:
        """The game record; ``ValueError`` while the game runs (it holds every hand)."""
        if not self.finished:
            raise NotFinished("the game is not finished; its record (every hand, the seed) is given only at the end")
        return self.recorder.record()


class HintJob:
    """A hint: the human's decision as the bot would see it (observation, mask, the names of
    the legal actions), copied from the game when made, so that :meth:`run` -- the bot
    thinking, maybe for long -- needs no lock on the game."""

    def __init__(self, session: GameSession, spec: Any):
        if not session.my_turn():
            raise ValueError("there is no decision of yours to hint at (it is not your turn)")
        self.game = session.info.name
        self.bots = session.bots
        check = getattr(session.bots, "check", None)
        self.spec = check(spec, self.game) if check else check_bot_spec(spec, self.game)
        self.obs, self.mask = session.observation(session.seat)
        self.names = {int(a): session.views.action_name(session.game, int(a)) for a in np.flatnonzero(self.mask)}
        self.actions = len(session.recorder.actions)  # the decision the hint is about
        session.touched = session.clock()

    def run(self) -> dict:
        try:
            action, values, kind = self.bots.values(self.spec, self.obs, self.mask, self.game)
        except ValueError:
            raise  # a spec the bot itself refuses, with its own message
        except Exception as exc:
            raise BotFailed(f"the bot {self.spec!r} cannot give a hint here ({type(exc).__name__}: {exc}); "
                            f"ask another bot") from exc
        if action not in self.names:
            raise BotFailed(f"the bot {self.spec!r} cannot give a hint here: it chose action {action}, which is "
                            f"not legal; ask another bot")
        out = None
        if values is not None:
            out = {self.names[a]: round(float(values[a]), 4) for a in self.names if np.isfinite(values[a])}
        return {"bot": self.spec, "action": self.names[action], "kind": kind, "values": out}


# ---------------------------------------------------------------- record replays
def replay_fields(record: dict, records: Any) -> dict:
    """What a replay keeps of a checked record: the fields its game's records module lists
    (``COMMON_KEYS`` and its ``KEYS``), never ``meta`` or other free data, whose size is the
    sender's choice."""
    keys = getattr(records, "KEYS", None)
    if keys is None:
        return {k: v for k, v in record.items() if k != "meta"}
    return {k: record[k] for k in ("game", *COMMON_KEYS, *keys) if k in record}


class ReplaySession:
    """A finished game from a record (of any game), stepped through with every hand face up."""

    def __init__(self, replay_id: str, record: dict, clock: Callable[[], float] = time.monotonic):
        self.info = game_of_record(record)
        records = self.info.records
        records.validate(record)  # the whole record replays exactly, or ValueError
        self._start, self._apply = records.start_replay, records.apply_recorded
        self.views = views_of(self.info)
        self.id = replay_id
        self.record = replay_fields(record, records)
        #: estimated memory: the record's fields kept, and the replayed game's own copy of them
        self.cost = 2 * estimate_bytes(self.record) + REPLAY_OVERHEAD
        self.steps = len(record["actions"])
        self.log: bytes | None = None  # the move log's JSON, made once (the store bounds and counts it)
        self.owner: str | None = None  # the client address that opened it (the store sets it)
        self.clock = clock
        self.touched = clock()
        self.lock = threading.Lock()
        self._rewind()

    def _rewind(self) -> None:
        self.game, self.recorder = self._start(self.record)
        self.position = 0

    def frame(self, step: int) -> dict:
        """The game after ``step`` actions, every hand face up."""
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise ValueError(f"step must be an int in 0..{self.steps}, got {step!r:.40}")
        if step < self.position:
            self._rewind()
        while self.position < step:
            self._apply(self.recorder, self.record, self.position)
            self.position += 1
        self.touched = self.clock()
        g, v = self.game, self.views
        actions = self.record["actions"]
        sheet = v.sheet(self.recorder)
        return {
            "id": self.id,
            "game": self.info.name,
            "title": self.info.title,
            "step": step,
            "steps": self.steps,
            "phase": g.phase,
            "to_act": g.to_act if g.to_act >= 0 else None,
            "last": {"seat": actions[step - 1][0], "action": actions[step - 1][1],
                     "text": v.describe(*actions[step - 1])} if step else None,
            "next": {"seat": actions[step][0], "action": actions[step][1]} if step < self.steps else None,
            **v.frame(g, self.record["agents"]),
            "sheet": sheet,
            "sheet_view": v.sheet_view(sheet, g.num_players, None, self.recorder.start_scores),
            "agents": list(self.record["agents"]),
            "players": g.num_players,
            "rules": rules_dict(g.rules),
        }


__all__ = ["BotFailed", "BotPool", "GameSession", "HintJob", "NotFinished", "ReplaySession", "check_bot_spec", "describe", "parse_new_game",
           "suggested_bots", "shipped_checkpoints", "views_of"]
