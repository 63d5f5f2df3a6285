"""The move log of a game from its record: every move as one seat read it, with the trick
winners, the rounds' results and where each round starts -- for a game reopened in the page
(the log so far) and for a replay (jump to any round).

A game's record is replayed on its reference engine (its records module) and each move told
by the game's views (``shown_action``, ``describe``, ``effects``) as seat ``you`` saw it:
another player's face-down move (a Sortskæg discard) without its card.
"""

from __future__ import annotations

from typing import Any

from redbeard_env.records import game_of_record

from .session import views_of


def move_log(record: dict, you: int | None, upto: int | None = None, start: Any = None) -> dict:
    """``{"entries": [{"move", "seat", "action", "text", "notes", "round", "winner", "trick",
    "summary", "changes"}], "rounds": [{"round", "move"}]}`` of the first ``upto`` moves
    (default: all): ``winner`` is the seat that took a trick with this move (else None) and
    ``trick`` that trick's cards (``{"seat", "card"}``, face up on the table), ``summary`` and
    ``changes`` the round's result when the move ended a round, ``rounds`` the move index at
    which each round starts. ``start(record)`` sets the game up (default: the game's
    ``start_replay``, which checks a finished game's record)."""
    info = game_of_record(record)
    views = views_of(info)
    game, rec = (start or info.records.start_replay)(record)
    actions = record["actions"] if upto is None else record["actions"][:upto]
    entries: list[dict] = []
    rounds = [{"round": 1, "move": 0}]
    earlier: list[dict] = []
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
        entries.append({"move": i, "seat": seat, "action": shown, "text": views.describe(seat, shown, you),
                        "notes": [e["text"] for e in effects if e.get("text") and e["type"] != "round_end"],
                        "round": rounds[-1]["round"], "winner": trick["winner"] if trick else None,
                        "trick": trick["cards"] if trick else None,
                        "summary": end.get("summary") if end else None, "changes": end.get("changes") if end else None})
        if end is not None and i + 1 < len(record["actions"]):
            rounds.append({"round": rounds[-1]["round"] + 1, "move": i + 1})
    return {"entries": entries, "rounds": rounds}


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
