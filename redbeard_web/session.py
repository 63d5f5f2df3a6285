"""One human against bots: a game session, its views, and the shared bots.

No web code here: the web app (:mod:`redbeard_web.app`) and the terminal game
(:mod:`redbeard_web.terminal`) both drive a :class:`GameSession`.

A session runs a reference-engine game (:mod:`redbeard_env.redbeard.game`) with a
:class:`~redbeard_env.redbeard.records.Recorder`; the human sits in one seat, bots from a
:class:`BotPool` in the others. :meth:`GameSession.act` applies the human's action and
then lets the bots move until it is the human's turn again or the game is over, so a
caller always gets back a view where the human can act (or the end).

**Views hold only what the human may know** (:meth:`GameSession.view`): their own hand,
the thrown-in cards they have seen (their own, a hand they looked at), cards played face
up, and public facts (calls, scores, tricks, how many cards each player holds, the size
of the stock). Never other hands, the stock's cards, a thrown-in hand not looked at, or
the seed (which would give away every deal); the record (with every hand and the seed)
is available only once the game is over.

A view (all seats absolute, cards and actions as SPEC names)::

    {"id", "your_seat", "phase", "to_act" (seat or null), "hand" (sorted by suit),
     "legal" (action names; [] when it is not your turn), "scores", "finished", "winner",
     "truncated", "events" (moves since your last view, at most the last 1000;
     "events_skipped" counts older ones left out), "table" (the public table, see
     :meth:`GameSession.table`), "sheet" (one row per scored round), "seen_thrown",
     "players", "agents", "rules", "actions" (moves so far)}

An event is ``{"seat", "action", "text", "effects", "table"}``: ``effects`` are the
public consequences of the move (a deal, score changes with their reason, a trick won, the
round's end, an elimination, a duel, the winner) and ``table`` the public table after it,
so a page can show the moves one by one.

Bots are shared between games (:class:`BotPool`: one instance per spec, built on first
use, one lock each, so a checkpoint is loaded once); deterministic bots (``heuristic``, a
greedy ``ppo``) therefore play a seeded game the same way every time, bots that draw
random numbers (``random``, ``pimc``) draw from their shared generator.
"""

from __future__ import annotations

import importlib.util
import re
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from agents.registry import available_agents, make_agent, parse_spec
from redbeard_env.redbeard import game as G
from redbeard_env.redbeard.cards import NUM_ACTIONS, REDBEARD_LEVEL, action_id, action_name, card_name
from redbeard_env.redbeard.observation import encode, static_prefix
from redbeard_env.redbeard.records import Recorder, rules_dict
from redbeard_env.redbeard.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules, make_rules

HUMAN = "human"
SUIT_ORDER = "SHCD"  # hands shown spades, hearts, clubs, diamonds: colours alternate
MAX_SEED = 2**53 - 1  # seeds stay exact in JavaScript numbers
MAX_PENDING_EVENTS = 1000  # a view carries at most the last 1000 moves
# A bot spec from a user names an agent and plain values; a path could make the server
# read any file, so string values may only be names (shipped checkpoints like classic_4p).
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_+-]+$")


class NotFinished(ValueError):
    """The record of a game that is still running was asked for."""


# ---------------------------------------------------------------- cards and text
def hand_order(card: int) -> tuple[int, int]:
    return SUIT_ORDER.index("CDHS"[card // 13]), -(card % 13)


def sorted_hand(cards) -> list[str]:
    """Card names sorted by suit (S H C D), high cards first."""
    return [card_name(c) for c in sorted(cards, key=hand_order)]


def call_name(call: int | None) -> str | None:
    """A seat's call as an action name: None (not called), ``pass``, ``bid:k``, ``redbeard``."""
    if call is None:
        return None
    if call < 0:
        return "pass"
    return "redbeard" if call == REDBEARD_LEVEL else f"bid:{call}"


_VERBS = {
    "pass": "passes", "redbeard": "calls Rödskägg", "join": "joins", "fold": "folds",
    "ask": "asks who joins", "skip": "skips the join question", "keep": "keeps the hand",
    "redeal": "throws the hand in", "look": "looks at the thrown-in hand", "no_look": "does not look",
}


def seat_label(seat: int, human_seat: int | None) -> str:
    return "You" if seat == human_seat else f"player_{seat}"


def describe(seat: int, name: str, human_seat: int | None = None) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play AS``."""
    who = seat_label(seat, human_seat)
    you = seat == human_seat
    if name.startswith("play:"):
        return f"{who} {'play' if you else 'plays'} {name[5:]}"
    if name.startswith("bid:"):
        return f"{who} {'bid' if you else 'bids'} {name[4:]}"
    verb = _VERBS.get(name, name)
    if you:  # "passes" -> "pass", "throws ..." -> "throw ...", "does not" -> "do not"
        first, _, rest = verb.partition(" ")
        first = {"does": "do", "asks": "ask", "passes": "pass"}.get(first, first[:-1] if first.endswith("s") else first)
        verb = f"{first} {rest}".strip()
    return f"{who} {verb}"


# ---------------------------------------------------------------- bots
def shipped_checkpoints() -> list[str]:
    """Names of the policies shipped in ``agents/pretrained`` (usable as ``ppo:<name>``)."""
    spec = importlib.util.find_spec("agents")
    if spec is None or not spec.submodule_search_locations:
        return []
    folder = Path(list(spec.submodule_search_locations)[0]) / "pretrained"
    return sorted(p.stem for p in folder.glob("*.pt"))


def suggested_bots() -> list[str]:
    """Bot specs offered on the page: the shipped policies (when torch is installed), then
    the built-in bots."""
    ppo = [f"ppo:{name}" for name in shipped_checkpoints()] if importlib.util.find_spec("torch") else []
    return ppo + ["heuristic", "pimc", "random"]


def check_bot_spec(spec: Any) -> str:
    """A bot spec from a user: a registered agent with plain values, never a file path.
    ``ValueError`` otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"a bot is a spec string like 'heuristic' or 'ppo:classic_4p', got {spec!r:.60}")
    parsed = parse_spec(spec)
    known = available_agents()
    if parsed.name not in known:
        raise ValueError(f"unknown bot {parsed.name!r}; known: {', '.join(known)}")
    for value in list(parsed.args) + list(parsed.kwargs.values()):
        if isinstance(value, str) and not _SAFE_NAME.match(value):
            raise ValueError(
                f"bot spec {spec!r}: {value!r} is not allowed here; values are numbers or plain names "
                f"(shipped policies: {', '.join(shipped_checkpoints()) or 'none'}), not file paths"
            )
    return parsed.text


class BotPool:
    """One shared bot per spec, built on first use; each with a lock (a bot may keep state,
    e.g. a random generator, and is used by many games)."""

    def __init__(self, factory: Callable[[str], Any] | None = None):
        self._factory = factory or (lambda spec: make_agent(spec, seed=0))
        self._bots: dict[str, tuple[Any, threading.Lock]] = {}
        self._building: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, spec: str) -> tuple[Any, threading.Lock]:
        spec = check_bot_spec(spec)
        with self._lock:
            if spec in self._bots:
                return self._bots[spec]
            build_lock = self._building.setdefault(spec, threading.Lock())
        with build_lock:  # one build per spec; other specs and games go on meanwhile
            with self._lock:
                if spec in self._bots:
                    return self._bots[spec]
            bot = self._factory(spec)
            entry = (bot, threading.Lock())
            with self._lock:
                self._bots[spec] = entry
            return entry

    def act(self, spec: str, obs: np.ndarray, mask: np.ndarray) -> int:
        bot, lock = self.get(spec)
        with lock:
            return int(bot.act(obs, mask))

    def values(self, spec: str, obs: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray | None, str | None]:
        """The bot's action and, when it has them, its values of every action: a
        heuristic-style bot's ``action_values`` (utilities), a policy network's action
        probabilities. ``(action, None, None)`` for other bots."""
        bot, lock = self.get(spec)
        with lock:
            action = int(bot.act(obs, mask))
            if callable(getattr(bot, "action_values", None)):
                return action, np.asarray(bot.action_values(obs[None], mask[None])[0], dtype=float), "utility"
            net = getattr(bot, "net", None)
            if net is not None and callable(getattr(net, "features", None)):
                return action, _policy_probabilities(net, obs, mask), "probability"
        return action, None, None


def _policy_probabilities(net, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A PPO network's action probabilities (the softmax of its masked logits)."""
    import torch

    with torch.no_grad():
        device = next(net.parameters()).device
        features = torch.as_tensor(net.features(obs[None], mask[None]), device=device)
        legal = torch.as_tensor(mask[None], device=device).bool()
        logits, _ = net(features, legal)
        return torch.softmax(logits, -1)[0].cpu().numpy().astype(float)


# ---------------------------------------------------------------- options
def parse_new_game(body: Any) -> dict:
    """Check a new-game request ``{"rules", "players", "seat", "opponents", "seed",
    "overrides"}`` (all optional); return the parsed settings or raise ``ValueError``."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ValueError(f"a new game is a JSON object, got {type(body).__name__}")
    allowed = ("rules", "players", "seat", "opponents", "seed", "overrides")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")
    preset = body.get("rules", "classic")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"rules must be a preset name: {', '.join(PRESETS)}; got {preset!r:.60}")
    overrides = body.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ValueError(f"overrides must be an object of Rules fields, e.g. {{\"start_score\": 6}}, got {overrides!r:.60}")
    rules = make_rules(preset, **overrides)
    players = body.get("players", 4)
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {players!r:.60}")
    seat = body.get("seat", 0)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat must be an int in 0..{players - 1}, got {seat!r:.60}")
    opponents = body.get("opponents", "heuristic")
    if isinstance(opponents, str):
        opponents = [opponents] * (players - 1)
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise ValueError(f"opponents must be one bot spec, or a list of {players - 1} (the other seats in order)")
    opponents = [check_bot_spec(o) for o in opponents]
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise ValueError(f"seed must be null or an int in 0..{MAX_SEED}, got {seed!r:.60}")
    agents = list(opponents)
    agents.insert(seat, HUMAN)
    return {"rules": rules, "players": players, "seat": seat, "agents": agents, "seed": seed}


# ---------------------------------------------------------------- the session
class GameSession:
    """A game between one human seat and bots; see the module docstring. Callers hold
    :attr:`lock` around every use (the web app does; the terminal game has one thread)."""

    def __init__(self, game_id: str, rules: Rules, num_players: int, seat: int, agents: Sequence[str],
                 seed: int | None, bots: BotPool, clock: Callable[[], float] = time.monotonic,
                 app: str = "redbeard_web"):
        if seed is None:
            seed = secrets.randbelow(MAX_SEED + 1)
        self.id = game_id
        self.seat = seat
        self.agents = list(agents)
        self.seed = seed
        self.bots = bots
        self.clock = clock
        self.lock = threading.Lock()
        self.touched = clock()
        self.game = G.new_game(rules, num_players, np.random.default_rng(seed))
        self.recorder = Recorder(self.game, agents=self.agents, seed=seed, meta={"app": app})
        self.prefix = static_prefix(rules, num_players)
        self.pending: list[dict] = []  # events not yet delivered in a view
        self.skipped = 0  # events dropped from ``pending`` to bound memory
        self.last_trick: dict | None = None
        self.saved = False  # written to the records file

    # ------------------------------------------------------------ moves
    @property
    def finished(self) -> bool:
        return self.game.game_over

    def observation(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if g.to_act == seat and not g.game_over:
            mask[G.legal_actions(g)] = 1
        return encode(g, seat, self.prefix), mask

    def act(self, name: Any) -> None:
        """The human's action by SPEC name; ``ValueError`` (nothing changes) if it is
        malformed, not the human's turn or illegal. Then the bots move."""
        g = self.game
        if not isinstance(name, str):
            raise ValueError(f"an action is a SPEC action name like 'play:AS' or 'bid:3', got {name!r:.60}")
        if g.game_over:
            raise ValueError("the game is over; no action is allowed")
        if g.to_act != self.seat:
            raise ValueError(f"it is not your turn: seat {g.to_act} is to act (phase {g.phase!r})")
        action = action_id(name)
        legal = G.legal_actions(g)
        if action not in legal:
            raise ValueError(f"illegal action {name!r} in phase {g.phase!r}; legal: "
                             f"{', '.join(action_name(a) for a in legal)}")
        self._apply(action)
        self.run_bots()

    def run_bots(self) -> None:
        """Bots move until the human is to act or the game is over."""
        g = self.game
        while not g.game_over and g.to_act != self.seat:
            seat = g.to_act
            obs, mask = self.observation(seat)
            self._apply(self.bots.act(self.agents[seat], obs, mask))

    def _apply(self, action: int) -> None:
        g = self.game
        seat = g.to_act
        if self.last_trick is not None and self.last_trick.get("deal_after"):
            self.last_trick = None  # the last trick of a round stays on show until the next deal's first move
        trick_before = list(g.trick)
        deals_before = len(self.recorder.deals)
        events = self.recorder.apply(action)  # ValueError, state unchanged, if illegal
        name = action_name(action)
        effects: list[dict] = []
        for e in events:
            kind = e[0]
            if kind == "score":
                effects.append({"type": "score", "seat": e[1], "delta": e[2], "reason": e[3]})
            elif kind == "trick":
                cards = [{"seat": s, "card": card_name(c)} for s, c in trick_before + [(seat, action)]]
                self.last_trick = {"cards": cards, "winner": e[1]}
                effects.append({"type": "trick", "winner": e[1], "cards": cards})
            elif kind == "round_end":
                _, number, declarer, level, tricks = e[:5]
                effects.append({"type": "round_end", "round": number, "declarer": declarer if declarer >= 0 else None,
                                "bid": call_name(level) if level >= 0 else None, "tricks": list(tricks)})
            elif kind == "eliminated":
                effects.append({"type": "eliminated", "seat": e[1]})
            elif kind == "duel":
                effects.append({"type": "duel", "seats": list(e[1])})
            elif kind == "winner":
                effects.append({"type": "winner", "seat": e[1]})
            elif kind == "truncated":
                effects.append({"type": "truncated"})
        if len(self.recorder.deals) > deals_before:
            deal = self.recorder.deals[-1]
            effects.append({"type": "deal", "dealer": deal["dealer"], "kind": deal["kind"]})
            if self.last_trick is not None:
                self.last_trick = dict(self.last_trick, deal_after=True)
        self.pending.append({"seat": seat, "action": name, "text": describe(seat, name, self.seat),
                             "effects": effects, "table": self.table()})
        if len(self.pending) > MAX_PENDING_EVENTS:  # bots playing on for long without a look
            drop = len(self.pending) - MAX_PENDING_EVENTS
            del self.pending[:drop]
            self.skipped += drop

    # ------------------------------------------------------------ views
    def table(self) -> dict:
        """The public table as the human sees it: everything here is known to every
        player, plus the human's own hand."""
        g = self.game
        in_play = g.phase in ("play", "duel", "ask", "join")
        players = []
        for s in range(g.num_players):
            players.append({
                "seat": s,
                "name": seat_label(s, self.seat),
                "agent": self.agents[s],
                "score": g.scores[s],
                "call": call_name(g.calls[s]),
                "tricks": g.tricks[s],
                "active": g.active[s],
                "in_round": g.in_round[s],
                "joiner": g.joiner[s],
                "bounced": g.bounced[s],
                "hand_size": len(g.hands[s]),
                "throws": g.throws[s],
                "dealer": s == g.dealer,
                "declarer": s == g.declarer,
                "to_act": s == g.to_act,
                "winner": s == g.winner,
            })
        return {
            "phase": g.phase,
            "to_act": g.to_act if g.to_act >= 0 else None,
            "round": g.rounds_played + (0 if g.game_over else 1),
            "dealer": g.dealer,
            "declarer": g.declarer if g.declarer >= 0 else None,
            "high_bid": call_name(g.high_level) if g.high_level >= 0 else None,
            "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
            "leader": g.leader if in_play and g.leader >= 0 else None,
            "last_trick": self.last_trick,
            "tricks_done": g.tricks_done,
            "join_state": g.join_state,
            "thrower": g.thrower if g.thrower >= 0 else None,
            "stock_size": len(g.stock),
            "redeals_open": g.redeals_open,
            "reshuffled": g.reshuffled,
            "duellists": list(g.duellists),
            "scores": list(g.scores),
            "players": players,
            "your_hand": sorted_hand(g.hands[self.seat]),
        }

    def view(self) -> dict:
        """The human's view (see the module docstring); marks the events as delivered."""
        g = self.game
        self.touched = self.clock()
        events, skipped = self.pending, self.skipped
        self.pending, self.skipped = [], 0
        legal = [action_name(a) for a in G.legal_actions(g)] if g.to_act == self.seat and not g.game_over else []
        return {
            "id": self.id,
            "your_seat": self.seat,
            "phase": g.phase,
            "to_act": g.to_act if g.to_act >= 0 else None,
            "hand": sorted_hand(g.hands[self.seat]),
            "legal": legal,
            "scores": list(g.scores),
            "finished": g.game_over,
            "winner": g.winner,
            "truncated": g.truncated,
            "events": events,
            "events_skipped": skipped,
            "table": self.table(),
            "sheet": [dict(r) for r in self.recorder.rounds],
            "seen_thrown": sorted_hand(g.seen_thrown[self.seat]),
            "players": g.num_players,
            "agents": list(self.agents),
            "rules": rules_dict(g.rules),
            "actions": len(self.recorder.actions),
        }

    def hint(self, spec: Any) -> dict:
        """What bot ``spec`` would do in the human's place, with its values of the legal
        actions (utilities or probabilities; None for bots without values)."""
        g = self.game
        if g.game_over or g.to_act != self.seat:
            raise ValueError("there is no decision of yours to hint at (it is not your turn)")
        spec = check_bot_spec(spec)
        obs, mask = self.observation(self.seat)
        action, values, kind = self.bots.values(spec, obs, mask)
        legal = np.flatnonzero(mask)
        out = None
        if values is not None:
            out = {action_name(int(a)): round(float(values[a]), 4) for a in legal if np.isfinite(values[a])}
        self.touched = self.clock()
        return {"bot": spec, "action": action_name(action), "kind": kind, "values": out}

    def record(self) -> dict:
        """The game record; ``ValueError`` while the game runs (it holds every hand)."""
        if not self.finished:
            raise NotFinished("the game is not finished; its record (every hand, the seed) is given only at the end")
        return self.recorder.record()


# ---------------------------------------------------------------- record replays
class ReplaySession:
    """A finished game from a record, stepped through with every hand face up."""

    def __init__(self, replay_id: str, record: dict, clock: Callable[[], float] = time.monotonic):
        from redbeard_env.redbeard.records import apply_recorded, start_replay, validate

        validate(record)  # the whole record replays exactly, or ValueError
        self._start, self._apply = start_replay, apply_recorded
        self.id = replay_id
        self.record = record
        self.steps = len(record["actions"])
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
        g = self.game
        actions = self.record["actions"]
        return {
            "id": self.id,
            "step": step,
            "steps": self.steps,
            "phase": g.phase,
            "to_act": g.to_act if g.to_act >= 0 else None,
            "last": {"seat": actions[step - 1][0], "action": actions[step - 1][1],
                     "text": describe(*actions[step - 1])} if step else None,
            "next": {"seat": actions[step][0], "action": actions[step][1]} if step < self.steps else None,
            "hands": [sorted_hand(h) for h in g.hands],
            "stock": [card_name(c) for c in g.stock],
            "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
            "scores": list(g.scores),
            "calls": [call_name(c) for c in g.calls],
            "tricks": list(g.tricks),
            "in_round": list(g.in_round),
            "active": list(g.active),
            "dealer": g.dealer,
            "declarer": g.declarer if g.declarer >= 0 else None,
            "round": g.rounds_played + (0 if g.game_over else 1),
            "finished": g.game_over,
            "winner": g.winner,
            "sheet": [dict(r) for r in self.recorder.rounds],
            "agents": list(self.record["agents"]),
            "players": g.num_players,
            "rules": rules_dict(g.rules),
        }


__all__ = ["BotPool", "GameSession", "NotFinished", "ReplaySession", "check_bot_spec", "describe", "parse_new_game",
           "sorted_hand", "suggested_bots", "shipped_checkpoints"]
