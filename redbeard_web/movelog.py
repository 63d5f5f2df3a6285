"""The move log of a game from its record: every move as one seat read it, with the trick
winners, the rounds' results and where each round starts -- for a game reopened in the page
(the log so far) and for a replay (jump to any round).

A game's record is replayed on its reference engine (its records module) and each move told
by the game's views (``shown_action``, ``describe``, ``effects``) as seat ``you`` saw it:
another player's face-down move (a Sortskæg discard) without its card. A replay's log
(:func:`move_log_json`) is bounded in size: a longer one lists the first moves and says how
many it leaves out.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from redbeard_env.records import game_of_record

from .session import views_of


def _moves(record: dict, you: int | None, upto: int | None, start: Any) -> Iterator[tuple[dict, dict | None]]:
    """Each move's log entry, with the round that starts after it (None if none does)."""
    info = game_of_record(record)
    views = views_of(info)
    game, rec = (start or info.records.start_replay)(record)
    actions = record["actions"] if upto is None else record["actions"][:upto]
    earlier: list[dict] = []
    round_no = 1
    for i, (seat, name) in enumerate(actions):
        trick_before = list(game.trick)
        action = info.action_id(name)
        shown = views.shown_action(seat, views.action_name(game, action), you)
        deals = len(rec.deals)
        info.records.apply_recorded(rec, record, i)
        deal = rec.deals[-1] if len(rec.deals) > deals else None
        effects = views.effects(game, seat, action, list(game.events), trick_before, deal, you, earlier)
        end = next((e for e in effects if e["type"] == "round_end"), None)
        trick = next((e for e in effects if e["type"] == "trick"), None)
        earlier = [] if end is not None else earlier + [e for e in effects if e["type"] == "score"]
        entry = {"move": i, "seat": seat, "action": shown, "text": views.describe(seat, shown, you),
                 "notes": [e["text"] for e in effects if e.get("text") and e["type"] != "round_end"],
                 "round": round_no, "winner": trick["winner"] if trick else None,
                 "trick": trick["cards"] if trick else None,
                 "summary": end.get("summary") if end else None, "changes": end.get("changes") if end else None}
        following = None
        if end is not None and i + 1 < len(record["actions"]):
            round_no += 1
            following = {"round": round_no, "move": i + 1}
        yield entry, following


def move_log(record: dict, you: int | None, upto: int | None = None, start: Any = None) -> dict:
    """``{"entries": [{"move", "seat", "action", "text", "notes", "round", "winner", "trick",
    "summary", "changes"}], "rounds": [{"round", "move"}]}`` of the first ``upto`` moves
    (default: all): ``winner`` is the seat that took a trick with this move (else None) and
    ``trick`` that trick's cards (``{"seat", "card"}``, face up on the table), ``summary`` and
    ``changes`` the round's result when the move ended a round, ``rounds`` the move index at
    which each round starts. ``start(record)`` sets the game up (default: the game's
    ``start_replay``, which checks a finished game's record)."""
    entries: list[dict] = []
    rounds = [{"round": 1, "move": 0}]
    for entry, following in _moves(record, you, upto, start):
        entries.append(entry)
        if following is not None:
            rounds.append(following)
    return {"entries": entries, "rounds": rounds}


def move_log_json(record: dict, you: int | None, max_bytes: int) -> bytes:
    """:func:`move_log` of a whole record as compact JSON of at most about ``max_bytes``,
    with ``"you": you``, ``"moves"`` (all the record's moves) and ``"entries_left_out"``: a
    log that would be longer lists its first moves (and the rounds starting among them) and
    says how many it leaves out. The replay stops there, so the work is bounded too."""
    dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    parts: list[str] = []
    rounds = [{"round": 1, "move": 0}]
    size = 0
    for entry, following in _moves(record, you, None, None):
        text = dump(entry)
        size += len(text.encode()) + 1
        if size > max_bytes:
            break
        parts.append(text)
        if following is not None:
            rounds.append(following)
    moves = len(record["actions"])
    tail = dump({"rounds": rounds, "you": you, "moves": moves, "entries_left_out": moves - len(parts)})
    return ('{"entries":[' + ",".join(parts) + "]," + tail[1:]).encode()


def human_seat(record: dict) -> int | None:
    """The seat a record's ``"human"`` played (None: bots only)."""
    agents = record.get("agents") or []
    return agents.index("human") if "human" in agents else None


def session_log(session: Any) -> dict:
    """The log of a session's game so far, as its human saw it."""
    from .review import record_so_far, start_so_far

    out = move_log(record_so_far(session.recorder), session.seat, start=lambda r: start_so_far(session.info, r))
    out["actions"] = len(session.recorder.actions)
    return out
