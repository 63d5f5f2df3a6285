"""Game records: one finished game as plain JSON, replayable to the identical game.

A record file is JSON lines, one game per line (:func:`append_records`, :func:`load_records`).
A record (format ``redbeard-record``, version 1) holds::

    {"format": "redbeard-record", "version": 1,
     "rules": {...every Rules field...}, "players": 4,
     "agents": ["human", "ppo:classic_4p", ...],     # who played each seat (free text)
     "seed": 7,                                       # the seed the deals came from, or null
     "start_scores": [12, 12, 12, 12],
     "deals": [{"dealer": 2, "kind": "round",         # or "duel"
                "hands": [["AS", "KS", ...], [...], [], ...],   # per seat as dealt; [] = not dealt in
                "stock": ["7H", ...],                  # the rest of the deck, top first
                "reshuffle": ["2C", ...]}, ...],       # all 52 cards: the order in which
                                                       # thrown-in hands return if the stock runs short
     "actions": [[3, "bid:2"], [0, "pass"], [1, "play:AS"], ...],   # seat, SPEC action name
     "rounds": [{"round": 1, "dealer": 2, "declarer": 3, "bid": "bid:2",   # declarer/bid null: all passed
                 "tricks": [...], "joiners": [...], "in_round": [...], "scores": [...]}, ...],
     "scores": [...final...], "winner": 1, "truncated": false, "rounds_played": 9,
     "meta": {...free, e.g. the app that wrote it...}}

Cards are SPEC names (``AS``, ``TD``), actions SPEC action names (``play:AS``,
``bid:3``). ``rounds[i].scores`` are the running scores after that round's scoring.

:class:`Recorder` follows a live reference-engine game (:mod:`redbeard_env.redbeard.game`) and
builds its record; :func:`record_from_actions` builds one from a deal list and the
actions; :func:`replay` plays a record on the reference engine -- every deal comes from
the record, never from a random generator -- and checks that it gives the identical game
(same deals, rounds, scores and winner); :func:`validate` = replay, returning the record.
Bad records raise ``ValueError`` saying which field or action is wrong. Loading only
parses JSON: nothing in a record can run code.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from . import game as G
from .cards import NUM_CARDS, REDBEARD_LEVEL, action_id, action_name, card_name, parse_card
from .rules import FIELD_NAMES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, Rules, make_rules

FORMAT = "redbeard-record"
VERSION = 1
KEYS = ("format", "version", "rules", "players", "agents", "seed", "start_scores", "deals", "actions",
        "rounds", "scores", "winner", "truncated", "rounds_played")
DEAL_KINDS = ("round", "duel")


def _bid_name(level: int) -> str | None:
    if level < 0:
        return None
    return "redbeard" if level == REDBEARD_LEVEL else f"bid:{level}"


def rules_dict(rules: Rules) -> dict:
    """Every Rules field as plain JSON data (``players`` as a list)."""
    out = dataclasses.asdict(rules)
    out["players"] = list(rules.players)
    return out


class Recorder:
    """Records a reference-engine game as it is played. Create it right after
    :func:`~redbeard_env.redbeard.game.new_game` (before any action) and apply every action
    through :meth:`apply`; :meth:`record` gives the record once the game is over.

    A deal is noticed by ``game.hands`` being a new list (:func:`game._deal` builds one
    per deal). Every deal is followed by at least one asked decision (a bid or card play
    is always asked), so one action causes at most one deal and the state right after the
    action still holds the deal untouched.
    """

    def __init__(self, game: G.Game, agents: Sequence[str] | None = None, seed: int | None = None,
                 meta: dict | None = None):
        # what can be seen of earlier actions (a kept hand leaves no trace; callers must
        # create the Recorder before the first action)
        if game.rounds_played or game.game_over or any(game.throws) or game.tricks_done or any(
                c is not None for c in game.calls):
            raise ValueError("a Recorder must be created right after new_game, before any action")
        n = game.num_players
        self.game = game
        self.agents = [str(a) for a in agents] if agents is not None else [f"player_{s}" for s in range(n)]
        if len(self.agents) != n:
            raise ValueError(f"agents must name one agent per seat ({n}), got {len(self.agents)}")
        self.seed = seed
        self.meta = dict(meta or {})
        self.start_scores = [int(s) for s in game.scores]
        self.deals: list[dict] = []
        self.actions: list[list] = []
        self.rounds: list[dict] = []
        self._hands_list = None
        self._note_deal()

    def _note_deal(self) -> bool:
        """Append the current deal if the game dealt since the last look; True if it did."""
        g = self.game
        if g.hands is self._hands_list:
            return False
        self._hands_list = g.hands
        order = np.argsort(g.reshuffle_rank)  # cards by reshuffle rank = the order they return
        self.deals.append({
            "dealer": int(g.dealer),
            "kind": "duel" if g.phase == "duel" else "round",
            "hands": [[card_name(c) for c in sorted(h)] for h in g.hands],
            "stock": [card_name(c) for c in g.stock],
            "reshuffle": [card_name(int(c)) for c in order],
        })
        return True

    def apply(self, action: int) -> list[tuple]:
        """Apply the acting seat's action (``ValueError`` and nothing recorded if it is
        illegal) and return the game's events for it."""
        g = self.game
        seat = g.to_act
        dealer = int(g.dealer)
        G.apply_action(g, action)
        self.actions.append([int(seat), action_name(int(action))])
        for event in g.events:
            if event[0] == "round_end":
                _, number, declarer, level, tricks, joiners, in_round = event
                self.rounds.append({
                    "round": number,
                    "dealer": dealer,
                    "declarer": int(declarer) if declarer >= 0 else None,
                    "bid": _bid_name(level),
                    "tricks": [int(t) for t in tricks],
                    "joiners": [bool(j) for j in joiners],
                    "in_round": [bool(i) for i in in_round],
                    "scores": None,  # filled below: penalties of the scoring come after the event
                })
        if self.rounds and self.rounds[-1]["scores"] is None:
            self.rounds[-1]["scores"] = [int(s) for s in g.scores]
        self._note_deal()
        return list(g.events)

    def record(self) -> dict:
        """The record of the finished game (``ValueError`` while it is still running)."""
        g = self.game
        if not g.game_over:
            raise ValueError(f"the game is not over (phase {g.phase!r}); a record is made of a finished game")
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": rules_dict(g.rules),
            "players": g.num_players,
            "agents": list(self.agents),
            "seed": self.seed,
            "start_scores": list(self.start_scores),
            "deals": [dict(d) for d in self.deals],
            "actions": [list(a) for a in self.actions],
            "rounds": [dict(r) for r in self.rounds],
            "scores": [int(s) for s in g.scores],
            "winner": None if g.winner is None else int(g.winner),
            "truncated": bool(g.truncated),
            "rounds_played": int(g.rounds_played),
            "meta": dict(self.meta),
        }


class _RecordedDealsOnly:
    """Stands in for the game's random generator during a replay: every deal must come
    from the record, so drawing randomness means the record has too few deals."""

    def __init__(self, deals: int):
        self.deals = deals

    def _fail(self, *args, **kwargs):
        raise ValueError(f"the record lists {self.deals} deal(s) but the game deals again after its actions' "
                         "last recorded deal; the record is incomplete")

    integers = permutation = _fail


def deck_of(deal: dict, num_players: int) -> tuple[list[int], np.ndarray]:
    """The engine's (deck top first, reshuffle rank) for a recorded deal: the dealt hands
    in dealing order (clockwise from the dealer's left) followed by the stock."""
    dealer = deal["dealer"]
    hands = deal["hands"]
    deck: list[int] = []
    for k in range(1, num_players + 1):
        deck += [parse_card(c) for c in hands[(dealer + k) % num_players]]
    deck += [parse_card(c) for c in deal["stock"]]
    rank = np.empty(NUM_CARDS, dtype=np.int64)
    rank[[parse_card(c) for c in deal["reshuffle"]]] = np.arange(NUM_CARDS)
    return deck, rank


# ---------------------------------------------------------------- structure checks
def _fail(where: str, message: str):
    raise ValueError(f"bad record: {where}: {message}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        _fail(where, f"must be a list of card names, got {type(value).__name__}")
    ids = []
    for i, c in enumerate(value):
        if not isinstance(c, str):
            _fail(f"{where}[{i}]", f"a card is a name like 'AS', got {c!r}")
        try:
            ids.append(parse_card(c))
        except ValueError as exc:
            _fail(f"{where}[{i}]", str(exc))
    return ids


def _check_seat_list(value: Any, n: int, where: str, kind=_is_int, what: str = "ints") -> None:
    if not isinstance(value, list) or len(value) != n or not all(kind(v) for v in value):
        _fail(where, f"must be a list of {n} {what} (one per seat), got {value!r:.120}")


def check_structure(record: Any) -> Rules:
    """Check a record's fields and types (not yet the game itself); return its Rules."""
    if not isinstance(record, dict):
        _fail("record", f"must be a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        _fail("format", f"must be {FORMAT!r}, got {record.get('format')!r}")
    if record.get("version") != VERSION:
        _fail("version", f"this code reads version {VERSION}, got {record.get('version')!r}")
    missing = [k for k in KEYS if k not in record]
    if missing:
        _fail("record", f"missing field(s) {', '.join(missing)}")
    raw_rules = record["rules"]
    if not isinstance(raw_rules, dict) or sorted(raw_rules) != sorted(FIELD_NAMES):
        _fail("rules", f"must be an object with every Rules field ({', '.join(FIELD_NAMES)})")
    try:
        rules = make_rules(raw_rules)
    except ValueError as exc:
        _fail("rules", str(exc))
    n = record["players"]
    if not _is_int(n) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        _fail("players", f"must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
    _check_seat_list(record["agents"], n, "agents", lambda v: isinstance(v, str), "strings")
    if record["seed"] is not None and not _is_int(record["seed"]):
        _fail("seed", f"must be an int or null, got {record['seed']!r}")
    _check_seat_list(record["start_scores"], n, "start_scores")
    _check_seat_list(record["scores"], n, "scores")
    winner = record["winner"]
    if winner is not None and not (_is_int(winner) and 0 <= winner < n):
        _fail("winner", f"must be a seat 0..{n - 1} or null, got {winner!r}")
    if not isinstance(record["truncated"], bool):
        _fail("truncated", f"must be true or false, got {record['truncated']!r}")
    if not _is_int(record["rounds_played"]) or record["rounds_played"] < 0:
        _fail("rounds_played", f"must be an int >= 0, got {record['rounds_played']!r}")
    deals = record["deals"]
    if not isinstance(deals, list) or not deals:
        _fail("deals", "must be a non-empty list of deals")
    for i, deal in enumerate(deals):
        where = f"deals[{i}]"
        if not isinstance(deal, dict) or sorted(deal) != sorted(("dealer", "kind", "hands", "stock", "reshuffle")):
            _fail(where, "must be an object with dealer, kind, hands, stock, reshuffle")
        if not _is_int(deal["dealer"]) or not 0 <= deal["dealer"] < n:
            _fail(f"{where}.dealer", f"must be a seat 0..{n - 1}, got {deal['dealer']!r}")
        if deal["kind"] not in DEAL_KINDS:
            _fail(f"{where}.kind", f"must be one of {DEAL_KINDS}, got {deal['kind']!r}")
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != n:
            _fail(f"{where}.hands", f"must hold one list per seat ({n})")
        cards: list[int] = []
        for s, hand in enumerate(hands):
            ids = _check_cards(hand, f"{where}.hands[{s}]")
            if len(ids) not in (0, HAND_SIZE):
                _fail(f"{where}.hands[{s}]", f"a dealt hand has {HAND_SIZE} cards ([] = not dealt in), got {len(ids)}")
            cards += ids
        cards += _check_cards(deal["stock"], f"{where}.stock")
        if sorted(cards) != list(range(NUM_CARDS)):
            _fail(where, "hands and stock together must hold each of the 52 cards exactly once")
        if sorted(_check_cards(deal["reshuffle"], f"{where}.reshuffle")) != list(range(NUM_CARDS)):
            _fail(f"{where}.reshuffle", "must list each of the 52 cards exactly once")
    actions = record["actions"]
    if not isinstance(actions, list):
        _fail("actions", "must be a list of [seat, action name] pairs")
    for i, item in enumerate(actions):
        if not (isinstance(item, list) and len(item) == 2 and _is_int(item[0]) and isinstance(item[1], str)):
            _fail(f"actions[{i}]", f"must be [seat, action name], got {item!r:.80}")
        if not 0 <= item[0] < n:
            _fail(f"actions[{i}]", f"seat must be 0..{n - 1}, got {item[0]}")
        try:
            action_id(item[1])
        except ValueError as exc:
            _fail(f"actions[{i}]", str(exc))
    if not isinstance(record["rounds"], list) or not all(isinstance(r, dict) for r in record["rounds"]):
        _fail("rounds", "must be a list of round objects")
    if not isinstance(record.get("meta", {}), dict):
        _fail("meta", "must be an object")
    return rules


# ---------------------------------------------------------------- replay
def start_replay(record: dict) -> tuple[G.Game, Recorder]:
    """A fresh reference game set up from a structurally checked record (no action yet),
    with a Recorder following it. Deals come only from the record."""
    rules = check_structure(record)
    n = record["players"]
    decks = [deck_of(d, n) for d in record["deals"]]
    game = G.new_game(rules, n, _RecordedDealsOnly(len(decks)), dealer=record["deals"][0]["dealer"],
                      scores=record["start_scores"], decks=decks)
    return game, Recorder(game, agents=record["agents"], seed=record["seed"], meta=record.get("meta"))


def apply_recorded(recorder: Recorder, record: dict, index: int) -> None:
    """Apply ``record["actions"][index]``, checking it is the acting seat's and legal."""
    g = recorder.game
    seat, name = record["actions"][index]
    if g.game_over:
        _fail(f"actions[{index}]", f"{name!r} comes after the game ended")
    if seat != g.to_act:
        _fail(f"actions[{index}]", f"seat {seat} plays {name!r} but seat {g.to_act} is to act (phase {g.phase!r})")
    deals = len(recorder.deals)
    try:
        recorder.apply(action_id(name))
    except ValueError as exc:
        _fail(f"actions[{index}]", str(exc))
    if len(recorder.deals) > deals and deals < len(record["deals"]):
        # a new deal: it must be the recorded one as the game dealt it (dealer, seats dealt in)
        mine, theirs = recorder.deals[-1], _normalised_deal(record["deals"][deals])
        for key in ("dealer", "kind", "hands"):
            if mine[key] != theirs[key]:
                _fail(f"deals[{deals}].{key}", f"after actions[{index}] the game deals with {key} "
                                              f"{mine[key]!r:.200}, the record says {theirs[key]!r:.200}")


def replay(record: dict) -> G.Game:
    """Play a record on the reference engine and check it is the identical game; return
    the finished game. ``ValueError`` names the first field or action that disagrees."""
    game, recorder = start_replay(record)
    for i in range(len(record["actions"])):
        apply_recorded(recorder, record, i)
    if not game.game_over:
        _fail("actions", f"the game is not over after the {len(record['actions'])} recorded actions "
                         f"(phase {game.phase!r}, seat {game.to_act} to act)")
    again = recorder.record()
    recorded = dict(record, deals=[_normalised_deal(d) for d in record["deals"]])
    if len(again["deals"]) != len(record["deals"]):
        _fail("deals", f"the game used {len(again['deals'])} deal(s), the record lists {len(record['deals'])}")
    for key in ("deals", "rounds", "scores", "winner", "truncated", "rounds_played"):
        mine, theirs = again[key], recorded[key]
        if mine != theirs:
            if isinstance(mine, list) and isinstance(theirs, list):
                i = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
                got = mine[i] if i < len(mine) else "nothing"
                said = theirs[i] if i < len(theirs) else "nothing"
                _fail(f"{key}[{i}]", f"the replay gives {got!r:.200}, the record says {said!r:.200}")
            _fail(key, f"the replay gives {mine!r}, the record says {theirs!r}")
    return game


def _normalised_deal(deal: dict) -> dict:
    """A deal with each hand in card-id order, as :class:`Recorder` writes it (the order of
    cards within a hand does not matter to the game)."""
    hands = [[card_name(c) for c in sorted(parse_card(x) for x in h)] for h in deal["hands"]]
    return dict(deal, hands=hands, stock=[card_name(parse_card(c)) for c in deal["stock"]],
                reshuffle=[card_name(parse_card(c)) for c in deal["reshuffle"]])


def validate(record: Any) -> dict:
    """Check a record completely (fields, then an exact replay); return it."""
    replay(record)
    return record


def record_from_actions(rules: "str | Rules", num_players: int, *, dealer: int,
                        decks: Sequence[tuple[Sequence[int], Any]], actions: Iterable[tuple[int, int]],
                        scores: Sequence[int] | None = None, agents: Sequence[str] | None = None,
                        seed: int | None = None, meta: dict | None = None) -> dict:
    """The record of a game given its first dealer, the decks of its deals (as for
    :func:`~redbeard_env.redbeard.game.new_game`: deck top first and the reshuffle rank, or None)
    and its actions as ``(seat, action id)``. It is rebuilt on the reference engine;
    ``ValueError`` if an action is not the acting seat's or illegal, if the game needs more
    decks than given, or if it is not over after the actions."""
    rules = make_rules(rules)
    decks = list(decks)
    game = G.new_game(rules, num_players, _RecordedDealsOnly(len(decks)), dealer=int(dealer),
                      scores=None if scores is None else [int(s) for s in scores], decks=decks)
    recorder = Recorder(game, agents=agents, seed=seed, meta=meta)
    for i, (seat, action) in enumerate(actions):
        if game.game_over:
            raise ValueError(f"action {i} ({action_name(int(action))}) comes after the game ended")
        if seat != game.to_act:
            raise ValueError(f"action {i}: seat {seat} acts but seat {game.to_act} is to act (phase {game.phase!r})")
        recorder.apply(int(action))
    return recorder.record()


# ---------------------------------------------------------------- files
def append_records(path: "str | Path", records: Iterable[dict]) -> int:
    """Append records to a JSON-lines file (created if missing); returns how many."""
    lines = [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records]
    if lines:
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return len(lines)


def parse_record_line(line: str, where: str = "record") -> dict:
    """One JSON line -> a record object (JSON only; ``ValueError`` for anything else)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad record: {where}: not valid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise ValueError(f"bad record: {where}: must be a JSON object, got {type(record).__name__}")
    return record


def load_records(path: "str | Path", check: bool = True) -> list[dict]:
    """The records of a JSON-lines file (blank lines skipped). With ``check`` each one is
    replayed (:func:`validate`); errors name the line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            record = parse_record_line(line, f"{path} line {number}")
            if check:
                try:
                    validate(record)
                except ValueError as exc:
                    raise ValueError(f"{path} line {number}: {exc}") from None
            out.append(record)
    return out


__all__ = [
    "FORMAT", "VERSION", "Recorder", "append_records", "check_structure", "deck_of", "load_records",
    "parse_record_line", "record_from_actions", "replay", "rules_dict", "start_replay", "apply_recorded",
    "validate",
]
