"""Game records of every game: one finished game as plain JSON, replayable to the identical
game.

A record file is JSON lines, one game per line (:func:`append_records`, :func:`iter_records`,
:func:`load_records`). Every record has the fields below; its game's records module
(``redbeard_env.<game>.records``, the registry's ``Game.records``) defines the deals, rounds
and outcome fields and replays it::

    {"format": "redbeard-record", "version": 1, "game": "sortskaeg",   # no "game": Rödskägg
     "rules": {...every Rules field...}, "players": 4,
     "agents": ["human", "ppo:classic_4p", ...],     # who played each seat (free text)
     "seed": 7,                                       # the seed the deals came from, or null
     "start_scores": [...], "deals": [...], "actions": [[3, "bid:2"], [0, "play:AS"], ...],
     "rounds": [...], "scores": [...final...], ..., "meta": {...free...}}

Cards and actions are the game's names (``AS``, ``play:AS``, ``Y10``, ``discard:R2``).
:func:`replay` plays a record on its game's reference engine -- every deal comes from the
record, never from a random generator -- and checks that it gives the identical game;
:func:`validate` = replay, returning the record. Bad records raise ``ValueError`` saying
which field or action is wrong (and, from a file, its line). Loading only parses JSON:
nothing in a record can run code.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .common import is_int
from .registry import Game, game_named, game_of_data

FORMAT = "redbeard-record"
VERSION = 1
#: the fields every record has (a game's records module lists its own besides)
COMMON_KEYS = ("format", "version", "rules", "players", "agents", "seed", "start_scores", "deals", "actions",
               "rounds", "scores")
MAX_LINE_BYTES = 16 * 2**20  # a record line longer than this is refused unread
MAX_TEXT = 120  # characters of a bad value quoted in an error

__all__ = ["FORMAT", "VERSION", "game_of_record", "replay", "validate", "append_records", "iter_records",
           "load_records", "parse_record_line", "rules_dict", "fail", "check_common", "check_cards",
           "check_seat_list", "RecordedDealsOnly", "compare_replay", "start_game", "apply_action", "finish_replay",
           "RecorderBase", "GameRecords"]


# ---------------------------------------------------------------- every game
def game_of_record(record: Any) -> Game:
    """The game a record belongs to (``"game"``; records without it are Rödskägg's)."""
    if not isinstance(record, dict):
        fail("record", f"must be a JSON object, got {type(record).__name__}")
    try:
        return game_of_data(record)
    except ValueError as exc:
        fail("game", str(exc))


def replay(record: Any):
    """Play a record on its game's reference engine and check it is the identical game;
    return the finished game. ``ValueError`` names the first field or action that differs."""
    return game_of_record(record).records.replay(record)


def validate(record: Any) -> dict:
    """Check a record completely (fields, then an exact replay); return it."""
    replay(record)
    return record


def rules_dict(rules: Any) -> dict:
    """Every Rules field as plain JSON data (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


# ---------------------------------------------------------------- files
def check_appendable(path: "str | Path", name: str = "record file") -> None:
    """A one-line ``ValueError`` unless records can be appended to ``path``: not a folder,
    in a folder that exists, a file that opens for appending (or, new, can be created
    there: tried with a temporary file). Nothing is created or changed; a program checks
    its record file before the games whose records would be lost."""
    import tempfile

    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{name} {str(path)[:200]} is a folder; it must name a file (JSON lines, appended to)")
    if not path.parent.is_dir():
        raise ValueError(f"{name} {str(path)[:200]}: the folder {str(path.parent)[:200]} does not exist")
    try:
        if path.exists():
            with open(path, "a", encoding="utf-8"):
                pass
        else:
            with tempfile.TemporaryFile(dir=path.parent):
                pass
    except OSError as exc:
        raise ValueError(f"{name} {str(path)[:200]} cannot be written: {exc.strerror}") from None


def append_records(path: "str | Path", records: Iterable[dict]) -> int:
    """Append records to a JSON-lines file (created if missing); returns how many."""
    lines = [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records]
    if lines:
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return len(lines)


def parse_record_line(line: "str | bytes", where: str = "record") -> dict:
    """One JSON line -> a record object (JSON only; ``ValueError`` for anything else:
    bad UTF-8, bad JSON, nesting too deep, an integer too long, not an object)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"bad record: {where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad record: {where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError(f"bad record: {where}: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ValueError(f"bad record: {where}: {str(exc)[:MAX_TEXT]}") from None
    if not isinstance(record, dict):
        raise ValueError(f"bad record: {where}: must be a JSON object, got {type(record).__name__}")
    return record


def iter_records(path: "str | Path", check: bool = True, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[dict]:
    """The records of a JSON-lines file, one at a time (blank lines skipped; a file of any
    size is read line by line). With ``check`` each one is replayed (:func:`validate`);
    every error names the file and line."""
    with open(path, "rb") as f:
        number = 0
        while True:
            line = f.readline(max_line_bytes + 1)
            if not line:
                return
            number += 1
            where = f"{path} line {number}"
            if len(line) > max_line_bytes:
                raise ValueError(f"{where}: longer than {max_line_bytes} bytes; not a record this code reads")
            if not line.strip():
                continue
            record = parse_record_line(line, where)
            if check:
                try:
                    validate(record)
                except (ValueError, RecursionError) as exc:
                    raise ValueError(f"{where}: {str(exc)[:2000]}") from None
            yield record


def load_records(path: "str | Path", check: bool = True) -> list[dict]:
    """Every record of a JSON-lines file (:func:`iter_records`)."""
    return list(iter_records(path, check))


# ---------------------------------------------------------------- what games' records modules share
def fail(where: str, message: str):
    raise ValueError(f"bad record: {where}: {message}")


def _text(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


def check_cards(value: Any, where: str, parse_card: Callable[[str], int]) -> list[int]:
    """A list of card names -> ids (``parse_card``: the game's)."""
    if not isinstance(value, list):
        fail(where, f"must be a list of card names, got {type(value).__name__}")
    ids = []
    for i, c in enumerate(value):
        if not isinstance(c, str):
            fail(f"{where}[{i}]", f"a card is a name like 'AS', got {_text(c)}")
        try:
            ids.append(parse_card(c))
        except ValueError as exc:
            fail(f"{where}[{i}]", str(exc)[:MAX_TEXT])
    return ids


def check_seat_list(value: Any, n: int, where: str, kind: Callable[[Any], bool] = is_int, what: str = "ints") -> None:
    if not isinstance(value, list) or len(value) != n or not all(kind(v) for v in value):
        fail(where, f"must be a list of {n} {what} (one per seat), got {_text(value)}")


def check_common(record: Any, game: Game, keys: tuple[str, ...]) -> Any:
    """Check the fields every record has (and that ``keys`` are present); return its Rules."""
    if not isinstance(record, dict):
        fail("record", f"must be a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        fail("format", f"must be {FORMAT!r}, got {_text(record.get('format'))}")
    if record.get("version") != VERSION:
        fail("version", f"this code reads version {VERSION}, got {_text(record.get('version'))}")
    missing = [k for k in COMMON_KEYS + keys if k not in record]
    if missing:
        fail("record", f"missing field(s) {', '.join(missing)}")
    names = [f.name for f in dataclasses.fields(game.rules_type)]
    raw_rules = record["rules"]
    if not isinstance(raw_rules, dict) or sorted(raw_rules) != sorted(names):
        fail("rules", f"must be an object with every Rules field of {game.name} ({', '.join(names)})")
    try:
        rules = game.make_rules(raw_rules)
    except (ValueError, TypeError) as exc:
        fail("rules", str(exc)[:300])
    n = record["players"]
    lo, hi = game.player_range
    if not is_int(n) or not lo <= n <= hi:
        fail("players", f"must be an int in {lo}..{hi}, got {_text(n)}")
    check_seat_list(record["agents"], n, "agents", lambda v: isinstance(v, str), "strings")
    if record["seed"] is not None and not is_int(record["seed"]):
        fail("seed", f"must be an int or null, got {_text(record['seed'])}")
    limit = game.parts.rules.SCORE_LIMIT
    check_seat_list(record["start_scores"], n, "start_scores", lambda v: is_int(v) and abs(v) <= limit,
                    f"ints within ±{limit}")
    check_seat_list(record["scores"], n, "scores")
    actions = record["actions"]
    if not isinstance(actions, list):
        fail("actions", "must be a list of [seat, action name] pairs")
    for i, item in enumerate(actions):
        if not (isinstance(item, list) and len(item) == 2 and is_int(item[0]) and isinstance(item[1], str)):
            fail(f"actions[{i}]", f"must be [seat, action name], got {_text(item)}")
        if not 0 <= item[0] < n:
            fail(f"actions[{i}]", f"seat must be 0..{n - 1}, got {item[0]}")
        try:
            game.action_id(item[1])
        except ValueError as exc:
            fail(f"actions[{i}]", str(exc)[:MAX_TEXT])
    if not isinstance(record["deals"], list) or not record["deals"]:
        fail("deals", "must be a non-empty list of deals")
    if not isinstance(record["rounds"], list) or not all(isinstance(r, dict) for r in record["rounds"]):
        fail("rounds", "must be a list of round objects")
    if not isinstance(record.get("meta", {}), dict):
        fail("meta", "must be an object")
    return rules


class RecordedDealsOnly:
    """Stands in for a game's random generator during a replay: every deal must come from
    the record, so drawing randomness means the record has too few deals."""

    def __init__(self, deals: int):
        self.deals = deals

    def _fail(self, *args, **kwargs):
        raise ValueError(f"the record lists {self.deals} deal(s) but the game deals again after its actions' "
                         "last recorded deal; the record is incomplete")

    integers = permutation = _fail


def compare_replay(again: dict, recorded: dict, keys: Iterable[str]) -> None:
    """``ValueError`` at the first of ``keys`` where the replay's record ``again`` differs
    from the ``recorded`` one (lists: at the first differing entry)."""
    for key in keys:
        mine, theirs = again[key], recorded[key]
        if mine != theirs:
            if isinstance(mine, list) and isinstance(theirs, list):
                i = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
                got = mine[i] if i < len(mine) else "nothing"
                said = theirs[i] if i < len(theirs) else "nothing"
                fail(f"{key}[{i}]", f"the replay gives {str(got)[:200]}, the record says {str(said)[:200]}")
            fail(key, f"the replay gives {_text(mine)}, the record says {_text(theirs)}")


# ---------------------------------------------------------------- recording, what every game's recorder shares
class RecorderBase:
    """What every game's ``Recorder`` keeps: the game it follows, who sits where, the seed,
    free ``meta``, the start scores and the lists of deals, actions and rounds; a game's
    recorder notes its deals and rounds and adds its outcome fields (:meth:`record`)."""

    game_name: str  # the registry name written into every record

    def __init__(self, game: Any, agents: Any = None, seed: int | None = None, meta: dict | None = None):
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

    def outcome(self) -> dict:
        """The game's own result fields (its winner or winners, ...)."""
        raise NotImplementedError

    def record(self) -> dict:
        """The record of the finished game (``ValueError`` while it is still running)."""
        g = self.game
        if not g.game_over:
            raise ValueError(f"the game is not over (phase {g.phase!r}); a record is made of a finished game")
        return {"format": FORMAT, "version": VERSION, "game": self.game_name, "rules": rules_dict(g.rules),
                "players": g.num_players, "agents": list(self.agents), "seed": self.seed,
                "start_scores": list(self.start_scores), "deals": [dict(d) for d in self.deals],
                "actions": [list(a) for a in self.actions], "rounds": [dict(r) for r in self.rounds],
                "scores": [int(s) for s in g.scores], **self.outcome(), "meta": dict(self.meta)}


# ---------------------------------------------------------------- replay, the steps every game takes
def start_game(record: dict, check_structure: Callable, deck_of: Callable, new_game: Callable,
               recorder: Callable) -> tuple:
    """A fresh reference game from a record (checked with the game's ``check_structure``),
    dealt only from the record's deals (``deck_of`` turns each into the game's deck format),
    with a recorder following it."""
    rules = check_structure(record)
    decks = [deck_of(d, record["players"]) for d in record["deals"]]
    game = new_game(rules, record["players"], RecordedDealsOnly(len(decks)), dealer=record["deals"][0]["dealer"],
                    scores=record["start_scores"], decks=decks)
    return game, recorder(game, agents=record["agents"], seed=record["seed"], meta=record.get("meta"))


def apply_action(recorder: Any, record: dict, index: int, action: int) -> None:
    """Apply ``record["actions"][index]`` (as the id ``action``), checking that the game
    goes on, that it is the acting seat's and that it is legal."""
    g = recorder.game
    seat, name = record["actions"][index]
    if g.game_over:
        fail(f"actions[{index}]", f"{name!r} comes after the game ended")
    if seat != g.to_act:
        fail(f"actions[{index}]", f"seat {seat} plays {name!r} but seat {g.to_act} is to act (phase {g.phase!r})")
    try:
        recorder.apply(action)
    except ValueError as exc:
        fail(f"actions[{index}]", str(exc))


def finish_replay(game: Any, recorder: Any, record: dict, deals: list, keys: tuple[str, ...]) -> Any:
    """After every recorded action: the game must be over and its record (``recorder``'s)
    equal the given one (its ``deals`` normalised as the recorder writes them) at ``keys``."""
    if not game.game_over:
        fail("actions", f"the game is not over after the {len(record['actions'])} recorded actions "
                        f"(phase {game.phase!r}, seat {game.to_act} to act)")
    again = recorder.record()
    if len(again["deals"]) != len(record["deals"]):
        fail("deals", f"the game used {len(again['deals'])} deal(s), the record lists {len(record['deals'])}")
    compare_replay(again, dict(record, deals=deals), keys)
    return game


# ---------------------------------------------------------------- a game's records functions, with the common steps
class GameRecords:
    """The functions a game's records module gives (:class:`redbeard_env.contract.RecordsModule`:
    ``check_structure``, ``start_replay``, ``apply_recorded``, ``replay``, ``validate``),
    with the steps every game takes as defaults. A game's subclass names its ``KEYS`` (its
    own fields besides :data:`COMMON_KEYS`), checks them and its deals
    (:meth:`check_fields`) and says how a recorded deal becomes a deck row of its
    reference engine (:meth:`deck_of`); its module takes the functions from
    ``Records(Recorder, new_game).functions()``."""

    KEYS: tuple[str, ...] = ()
    #: what a replay must give again, besides ``KEYS``
    COMPARED: tuple[str, ...] = ("deals", "rounds", "scores")

    def __init__(self, recorder: type, new_game: Callable):
        self.recorder, self.new_game = recorder, new_game

    def functions(self) -> tuple:
        """``(check_structure, start_replay, apply_recorded, replay, validate)``."""
        return self.check_structure, self.start_replay, self.apply_recorded, self.replay, self.validate

    def check_fields(self, record: dict, rules: Any) -> None:
        """Check the game's own fields and its deals (``fail`` names a bad one)."""

    def deck_of(self, deal: dict, num_players: int, rules: Any) -> Any:
        """The deck row of the reference engine's ``decks`` that deals a recorded deal."""
        raise NotImplementedError

    def check_structure(self, record: Any) -> Any:
        """Check a record's fields and types (not yet the game itself); return its Rules."""
        rules = check_common(record, game_named(self.recorder.game_name), self.KEYS)
        self.check_fields(record, rules)
        return rules

    def start_replay(self, record: dict) -> tuple:
        """A fresh reference game set up from a structurally checked record (no action yet),
        with a Recorder following it; deals come only from the record."""
        rules = self.check_structure(record)
        return start_game(record, self.check_structure, lambda deal, n: self.deck_of(deal, n, rules), self.new_game,
                          self.recorder)

    def apply_recorded(self, recorder: Any, record: dict, index: int) -> None:
        """Apply ``record["actions"][index]`` (its name read by the game's cards)."""
        name = record["actions"][index][1]
        try:
            action = game_named(self.recorder.game_name).action_id(name)
        except ValueError as exc:
            fail(f"actions[{index}]", str(exc)[:MAX_TEXT])
        apply_action(recorder, record, index, action)

    def replay(self, record: Any) -> Any:
        """Play a record on the reference engine and check it is the identical game; return
        the finished game. ``ValueError`` names the first field or action that disagrees."""
        game, recorder = self.start_replay(record)
        for i in range(len(record["actions"])):
            self.apply_recorded(recorder, record, i)
        return finish_replay(game, recorder, record, record["deals"], self.COMPARED + self.KEYS)

    def validate(self, record: Any) -> dict:
        """Check a record completely (fields, then an exact replay); return it."""
        self.replay(record)
        return record
