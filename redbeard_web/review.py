"""Review your play: each of your decisions where a strong bot would have chosen otherwise,
with both actions and what the difference is worth in the bot's own terms, dearest first.
The bot asked by default is :func:`default_bot`: the strongest of the game's levels
(:mod:`redbeard_web.levels`) that values actions.

    GET /api/games/{id}/review?bot=<spec>
    -> {"bot", "units", "reviewed", "decisions", "rounds", "finished",
        "entries": [{"move", "chosen", "suggested", "cost", "units", "round", "question",
                     "hand", "trick", "values"}, ...]}

Only what you knew goes into the bot's judgement: the game's record (kept by the session)
is replayed on the game's reference engine (its records module) up to each of your
decisions, and the bot is given the observation your seat had then
(``game.parts.observation.encode(game, seat)``) and its legal actions -- never the full
state. The bot must value every legal action (``action_values``) in units it names
(``value_units``: ``"points"`` or ``"win probability"``); a decision it leaves unvalued
(``nan``) is not reviewed. While the game runs only the decisions of finished rounds are
reviewed ("after a round"); once it is over, all of them.

``cost`` = the bot's value of its own choice minus its value of yours (>= 0), both values
rounded to what a player can tell apart (:data:`PRECISION`: a tenth of a point, a tenth of a
per cent of win probability), so the cost is exactly the difference of the values shown; a
decision whose rounded cost is 0 is a tie and not listed. Results are cached per (game,
bot, moves so far).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.registry import parse_spec, resolve
from redbeard_env.records import FORMAT, VERSION, rules_dict

from .bots import check_bot_spec
from .levels import levels_of

UNITS = ("points", "win probability")
#: decimals kept of values and costs, per unit: finer differences are noise to a player
PRECISION = {"points": 1, "win probability": 3}
MAX_CACHE = 4  # reviews kept per session
CHUNK = 4  # decisions valued at a time between looks at the clock


class NoValues(ValueError):
    """The bot gives no values in a unit the review can show."""


def values_actions(spec: str, game: str) -> bool:
    """Whether bot ``spec`` of ``game`` values every action in a unit the review shows
    (asked of its class: nothing is built)."""
    try:
        factory, _ = resolve(parse_spec(spec).name, game)
    except ValueError:
        return False
    return callable(getattr(factory, "action_values", None)) and getattr(factory, "value_units", None) in UNITS


def default_bot(game: str, fallback: str = "heuristic") -> str:
    """The bot a review asks unless told: the strongest level of ``game`` whose bot values
    actions; without one, ``fallback`` (the game's views' ``REVIEW_BOT``)."""
    for level in reversed(levels_of(game)["levels"]):
        if values_actions(level["bot"], game):
            return level["bot"]
    return fallback


def record_so_far(recorder: Any) -> dict:
    """The record of a game so far (running or finished): the fields a replay needs."""
    g = recorder.game
    return {"format": FORMAT, "version": VERSION, "game": recorder.game_name, "rules": rules_dict(g.rules),
            "players": g.num_players, "agents": list(recorder.agents), "seed": recorder.seed,
            "start_scores": list(recorder.start_scores), "deals": [dict(d) for d in recorder.deals],
            "actions": [list(a) for a in recorder.actions], "rounds": [dict(r) for r in recorder.rounds],
            "scores": [int(s) for s in g.scores], **recorder.outcome(), "meta": {}}


def start_so_far(info: Any, record: dict) -> tuple[Any, Any]:
    """The game's reference engine at the start of a record made by :func:`record_so_far`
    (with a recorder following it), by the game's own ``start_replay``: dealt only from the
    record's deals. Only the deals and actions are replayed; a running game has no winners
    yet, so where the record names none, seat 0 stands in to pass the records' structure
    check (the outcome is never read here; the record comes from the server's own recorder)."""
    if not record.get("winners"):
        record = dict(record, winners=[0])
    return info.records.start_replay(record)


def decisions(session: Any) -> tuple[list[dict], int]:
    """The human's decisions with more than one legal action, replayed from the session's
    record: ``[{"move", "obs", "mask", "chosen" (id), "names" (id -> name), "round",
    "question", "hand", "trick"}]``, and how many moves finished rounds cover."""
    info, views, seat = session.info, session.views, session.seat
    record = record_so_far(session.recorder)
    game, rec = start_so_far(info, record)
    prefix = info.parts.observation.static_prefix(game.rules, game.num_players)
    engine = info.parts.game
    out: list[dict] = []
    covered = 0
    for i, (mover, name) in enumerate(record["actions"]):
        if mover == seat:
            legal = engine.legal_actions(game)
            if len(legal) > 1:
                mask = np.zeros(info.num_actions, dtype=np.int8)
                mask[legal] = 1
                out.append({"move": i, "obs": info.parts.observation.encode(game, seat, prefix), "mask": mask,
                            "chosen": info.action_id(name), "names": {a: views.action_name(game, a) for a in legal},
                            "round": len(rec.rounds) + 1, "question": views.question(game, seat),
                            "hand": views.hand(game, seat),
                            "trick": [{"seat": s, "card": info.card_name(c)} for s, c in game.trick]})
        rounds = len(rec.rounds)
        info.records.apply_recorded(rec, record, i)
        if len(rec.rounds) > rounds:
            covered = i + 1
    return out, (len(record["actions"]) if game.game_over else covered)


class TimeUp(RuntimeError):
    """The review ran out of its time (the server's ``review_seconds``)."""


def bot_values(bot: Any, spec: str, rows: list[dict], default: str = "heuristic",
               deadline: float | None = None) -> tuple[np.ndarray, str]:
    """The bot's values of every action at each decision [k, actions], and their units.
    Asked a few decisions at a time, so that a ``deadline`` (``time.monotonic()``) stops the
    bot soon after it passes (:class:`TimeUp`)."""
    units = getattr(bot, "value_units", None)
    if not callable(getattr(bot, "action_values", None)) or units not in UNITS:
        raise NoValues(f"bot {spec!r} gives no values in {' or '.join(UNITS)} to review with; "
                       f"try {default}")
    if not rows:
        return np.zeros((0, 0)), units
    out = []
    for i in range(0, len(rows), CHUNK):
        if deadline is not None and time.monotonic() > deadline:
            cheaper = f", e.g. {default}" if default != spec else ""
            raise TimeUp(f"the review by {spec!r} took too long ({i} of {len(rows)} decisions valued); "
                         f"try again later or ask a cheaper bot{cheaper}")
        part = rows[i:i + CHUNK]
        out.append(np.asarray(bot.action_values(np.stack([r["obs"] for r in part]),
                                                np.stack([r["mask"] for r in part])), dtype=float))
    return np.concatenate(out), units


class ReviewJob:
    """A review's question -- your decisions replayed from the game's record -- taken when
    made (under the game's lock); :meth:`run` values them with the bot without the lock,
    like a hint (the bot is a hint bot of the pool, never one playing in a game)."""

    def __init__(self, session: Any, spec: Any = None):
        self.default = default_bot(session.info.name, getattr(session.views, "REVIEW_BOT", "heuristic"))
        check = getattr(session.bots, "check", None)
        spec = self.default if spec is None else spec
        self.spec = check(spec, session.info.name) if check else check_bot_spec(spec, session.info.name)
        self.game, self.bots = session.info.name, session.bots
        self.cache = session.__dict__.setdefault("_reviews", {})
        self.key = (self.spec, len(session.recorder.actions))
        self.done = self.cache.get(self.key)
        if self.done is None:
            rows, self.covered = decisions(session)
            self.rows = [r for r in rows if r["move"] < self.covered]
            self.finished = bool(session.finished)
            self.rounds = len(session.recorder.rounds)
        session.touched = session.clock()

    def run(self, seconds: float | None = None) -> dict:
        if self.done is not None:
            return self.done
        deadline = None if seconds is None else time.monotonic() + seconds
        bot, lock = self.bots.get(self.spec, self.game, role="hint")
        with lock:
            values, units = bot_values(bot, self.spec, self.rows, self.default, deadline)
        out = summary(self.rows, values, units)
        out.update(bot=self.spec, finished=self.finished, reviewed=len(self.rows), moves=self.covered,
                   rounds=self.rounds)
        if len(self.cache) >= MAX_CACHE:
            self.cache.pop(next(iter(self.cache)), None)
        self.cache[self.key] = out
        return out


def summary(rows: list[dict], values: np.ndarray, units: str) -> dict:
    """The entries where the bot would have chosen otherwise, dearest first, and their sum."""
    digits = PRECISION[units]
    entries = []
    for r, v in zip(rows, values):
        legal = sorted(r["names"])
        vals = {a: round(float(v[a]), digits) for a in legal if np.isfinite(v[a])}
        if r["chosen"] not in vals or len(vals) < 2:
            continue  # a decision the bot leaves to others (no values)
        best = max(vals, key=lambda a: (vals[a], a == r["chosen"]))
        cost = round(vals[best] - vals[r["chosen"]], digits)
        if best == r["chosen"] or cost <= 0:
            continue  # the same to the shown precision: a tie
        entries.append({"move": r["move"], "chosen": r["names"][r["chosen"]], "suggested": r["names"][best],
                        "cost": cost, "units": units, "round": r["round"], "question": r["question"],
                        "hand": r["hand"], "trick": r["trick"],
                        "values": {r["names"][a]: x for a, x in sorted(vals.items(), key=lambda t: -t[1])}})
    entries.sort(key=lambda e: (-e["cost"], e["move"]))
    return {"units": units, "entries": entries, "total_cost": round(sum(e["cost"] for e in entries), digits)}


def review(session: Any, spec: Any = None, seconds: float | None = None) -> dict:
    """The review of the session's game by bot ``spec`` (default: :func:`default_bot`); see
    the module docstring."""
    return ReviewJob(session, spec).run(seconds)
