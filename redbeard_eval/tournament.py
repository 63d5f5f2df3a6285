"""The tournament loop: check the set-up, then play duplicate deals in every seating on a
batch engine (:mod:`redbeard_env.engine`), record and summarise.

:func:`run_tournament` = :func:`play_tournament` (:func:`prepare_tournament` (...)): the
preparation checks every argument and builds the bots, so a bad argument fails with a
``ValueError`` before any game is played.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.registry import make_agent
from redbeard_env.cards import FOLD, JOIN
from redbeard_env.engine import ENGINES, BatchEngine, Job, make_engine
from redbeard_env.observation import OFF
from redbeard_env.rules import Rules, check_num_players, make_rules

from .deals import check_scores, deal_sequences, distinct_rotations, pooled_lineup, start_scores
from .metrics import Records, summarise
from .plots import make_plots
from .report import write_outputs

__all__ = ["MODES", "Tournament", "prepare_tournament", "play_tournament", "run_tournament"]

MODES = ("game", "round")


@dataclass
class Tournament:
    """A checked tournament, ready to play (made by :func:`prepare_tournament`)."""

    rules: Rules
    rules_name: str  # the preset name, or "custom" for a Rules object
    overrides: dict
    num_players: int
    keys: list[str]  # agent spec per seat
    unique: list[str]  # distinct specs: the pooled agents
    bots: list
    rotations: list[tuple[int, ...]]  # agent index per seat, per seating
    num_deals: int
    decks_per_game: int
    engine: BatchEngine
    batch_size: int
    seed: int
    mode: str
    scores: Any
    score_range: tuple[int, int]

    @property
    def num_jobs(self) -> int:
        return self.num_deals * len(self.rotations)


def _check_count(name: str, value: Any, *, optional: bool = False) -> int | None:
    """A count that must be an int >= 1 (or None when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        allowed = "an int >= 1" + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def prepare_tournament(
    agent_specs: Sequence[Any],
    rules: "str | Rules" = "classic",
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    overrides: dict | None = None,
    *,
    mode: str = "game",
    scores: Any = None,
    score_range: tuple[int, int] = (1, 12),
    engine: str = "auto",
    batch_size: int | None = None,
    decks_per_game: int | None = None,
    agent_kwargs: dict | None = None,
) -> Tournament:
    """Check the arguments of :func:`run_tournament` (``ValueError`` naming the argument, the
    value and what is allowed) and build the bots and the engine."""
    if mode not in MODES:
        raise ValueError(f"mode must be 'game' or 'round', got {mode!r}")
    if engine != "auto" and engine not in ENGINES:
        raise ValueError(f"engine must be 'auto', 'vector' or 'reference', got {engine!r}")
    games = _check_count("games", games)
    batch_size = _check_count("batch_size", batch_size, optional=True)
    decks_per_game = _check_count("decks_per_game", decks_per_game, optional=True)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    rules_obj = make_rules(rules, **(overrides or {}))
    specs_in = list(agent_specs)
    if not specs_in:
        raise ValueError("at least one agent spec is needed")
    n = players if players is not None else len(specs_in)
    n = check_num_players(n, rules_obj)
    if len(specs_in) > n:
        raise ValueError(f"{len(specs_in)} agents for {n} players")
    if mode == "round":
        check_scores(scores, n, score_range)
    elif scores is not None:
        raise ValueError(f"scores are only used with mode='round', got scores={scores!r} with mode={mode!r}")
    specs_in = specs_in + [specs_in[-1]] * (n - len(specs_in))
    keys = [s if isinstance(s, str) else (getattr(s, "spec", "") or repr(s)) for s in specs_in]
    unique, lineup = pooled_lineup(keys)
    bots = []
    for i, key in enumerate(unique):
        obj = specs_in[keys.index(key)]
        bot = make_agent(obj, seed=seed * 1000 + i, **(agent_kwargs or {})) if isinstance(obj, str) else obj
        if hasattr(bot, "reset"):
            bot.reset(seed * 1000 + i)
        bots.append(bot)
    rotations = distinct_rotations(lineup)
    if engine == "auto":
        engine = "vector" if all(hasattr(b, "act_batch") for b in bots) else "reference"
    return Tournament(
        rules=rules_obj,
        rules_name=rules if isinstance(rules, str) else "custom",
        overrides=overrides or {},
        num_players=n,
        keys=keys,
        unique=unique,
        bots=bots,
        rotations=rotations,
        num_deals=max(1, math.ceil(games / len(rotations))),
        decks_per_game=decks_per_game or (4 if mode == "round" else min(rules_obj.max_rounds + 8, 96)),
        engine=make_engine(engine, rules_obj, n, seed),
        batch_size=batch_size or (4096 if engine == "vector" else 512),
        seed=int(seed),
        mode=mode,
        scores=scores,
        score_range=score_range,
    )


def run_tournament(
    agent_specs: Sequence[Any],
    rules: "str | Rules" = "classic",
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    overrides: dict | None = None,
    *,
    mode: str = "game",
    scores: Any = None,
    score_range: tuple[int, int] = (1, 12),
    engine: str = "auto",
    batch_size: int | None = None,
    decks_per_game: int | None = None,
    out: "str | Path | None" = None,
    plots: bool = True,
    progress: bool = True,
    agent_kwargs: dict | None = None,
) -> dict:
    """Play a duplicate tournament and return the results dict (also written to ``out``).

    ``agent_specs``: one spec (or agent object) per seat; fewer than ``players`` repeat the
    last one. ``games`` >= 1: games (round mode: rounds), rounded up to whole deals.
    ``mode``: ``game`` (full games) or ``round`` (single rounds from ``scores``: ``None`` =
    start scores, a list per seat, or ``"sample"``: uniform in ``score_range``).
    ``engine``: ``auto`` | ``vector`` | ``reference``. ``batch_size`` (>= 1): games played
    at once (default 4096 on the vector engine, 512 on the reference engine).
    ``decks_per_game``: deals fixed in advance per game. ``seed`` >= 0."""
    tournament = prepare_tournament(agent_specs, rules, players, games, seed, overrides, mode=mode, scores=scores,
                                    score_range=score_range, engine=engine, batch_size=batch_size,
                                    decks_per_game=decks_per_game, agent_kwargs=agent_kwargs)
    return play_tournament(tournament, out=out, plots=plots, progress=progress)


def play_tournament(tournament: Tournament, *, out: "str | Path | None" = None, plots: bool = True,
                    progress: bool = True) -> dict:
    """Play a prepared tournament; return the results dict (also written to ``out``)."""
    tr = tournament
    n, unique, bots, rotations, backend = tr.num_players, tr.unique, tr.bots, tr.rotations, tr.engine
    seed, mode, scores, score_range, batch_size = tr.seed, tr.mode, tr.scores, tr.score_range, tr.batch_size
    K = tr.decks_per_game
    jobs_total = tr.num_jobs
    rec = Records(n, unique, tr.rules.contract)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=jobs_total, unit="game" if mode == "game" else "round", dynamic_ncols=True,
                       desc=" vs ".join(unique))
        except ImportError:
            bar = None
    t0 = time.time()
    decisions = 0
    agent_time = np.zeros(len(bots))
    agent_decisions = np.zeros(len(bots), np.int64)
    next_job = 0
    while next_job < jobs_total:
        # one wave: as many jobs as fit, deal-major so rotations of a deal share a wave
        count = min(batch_size, jobs_total - next_job)
        jobs = []
        deal_of, rot_of = np.divmod(np.arange(next_job, next_job + count), len(rotations))
        dealers, decks = deal_sequences(seed, deal_of, n, K)
        sc = start_scores(seed, deal_of, n, scores, score_range) if mode == "round" else None
        for k, j in enumerate(range(next_job, next_job + count)):
            jobs.append(Job(j, int(deal_of[k]), int(rot_of[k]), rotations[rot_of[k]], int(dealers[k]), decks[k],
                            None if sc is None else [int(x) for x in sc[k]]))
        next_job += count
        backend.start(jobs)
        lineups = np.array([job.lineup for job in jobs])  # [B, n] agent index per seat
        pending_join = np.full((count, n), -1, np.int64)  # tricks at a join, awaiting the round's end
        slot_stats = [dict(declared=np.zeros(n, int), made=np.zeros(n, int), joins=np.zeros(n, int),
                           join_decisions=np.zeros(n, int)) for _ in range(count)]
        while backend.live.any():
            obs, mask, seat = backend.observe()
            live = np.flatnonzero(backend.live)
            actions = np.zeros(count, np.int64)
            who = lineups[live, seat[live]]
            for a in np.unique(who):
                rows = live[who == a]
                ts = time.perf_counter()
                if hasattr(bots[a], "act_batch"):
                    acts = np.asarray(bots[a].act_batch(obs[rows], mask[rows]), dtype=np.int64)
                else:
                    acts = np.array([bots[a].act(o, m) for o, m in zip(obs[rows], mask[rows])], dtype=np.int64)
                agent_time[a] += time.perf_counter() - ts
                agent_decisions[a] += len(rows)
                actions[rows] = acts
            decisions += len(live)
            # join decisions: remember the tricks the player had when it answered
            jf = live[(actions[live] == JOIN) | (actions[live] == FOLD)]
            for b in jf:
                s = seat[b]
                spec = unique[lineups[b, s]]
                rec.joins[spec][0] += 1
                slot_stats[b]["join_decisions"][s] += 1
                if actions[b] == JOIN:
                    rec.joins[spec][1] += 1
                    slot_stats[b]["joins"][s] += 1
                    pending_join[b, s] = int(round(obs[b, OFF["tricks"]] * 6))
            ev = backend.step(actions)
            for b in np.flatnonzero(ev["round_over"]):
                d = int(ev["round_declarer"][b])
                tricks = ev["round_tricks"][b]
                for s in np.flatnonzero(pending_join[b] >= 0):
                    if tricks[s] > pending_join[b, s]:
                        rec.joins[unique[lineups[b, s]]][2] += 1
                pending_join[b] = -1
                if d >= 0:
                    level = int(ev["round_bid"][b])
                    t = int(tricks[d])
                    spec = unique[lineups[b, d]]
                    rec.calib[spec][level, t] += 1
                    made = rec.contract_made(level, t)
                    rec.made[spec][level] += made
                    slot_stats[b]["declared"][d] += 1
                    slot_stats[b]["made"][d] += made
                if mode == "round":
                    ev["done"][b] = True
            finished = np.flatnonzero(ev["done"])
            for b in finished:
                job = jobs[b]
                winner = int(ev["winner"][b])
                final = ev["score"][b]
                for s in range(n):
                    st = slot_stats[b]
                    rec.seat_rows.append(
                        {
                            "game": job.index,
                            "deal": job.deal,
                            "rotation": job.rotation,
                            "seat": s,
                            "agent": unique[lineups[b, s]],
                            "won": int(winner == s if (mode == "game" or winner >= 0) else final[s] == 0),
                            "final_score": int(final[s]),
                            "rounds": int(ev["rounds"][b]) if mode == "game" else 1,
                            "truncated": int(bool(ev["truncated"][b])),
                            "declared": int(st["declared"][s]),
                            "made": int(st["made"][s]),
                            "join_decisions": int(st["join_decisions"][s]),
                            "joins": int(st["joins"][s]),
                            "start_score": "" if job.scores is None else job.scores[s],
                        }
                    )
            if len(finished):
                backend.release(finished)
                if bar is not None:
                    bar.update(len(finished))
    if bar is not None:
        bar.close()
    wall = time.time() - t0
    results = {
        "config": {
            "agents": tr.keys,
            "rules": tr.rules_name,
            "rules_fields": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(tr.rules).items()},
            "overrides": tr.overrides,
            "players": n,
            "games": jobs_total,
            "deals": tr.num_deals,
            "rotations": [list(r) for r in rotations],
            "seed": seed,
            "mode": mode,
            "scores": scores,
            "engine": backend.name,
        },
        "agents": summarise(rec, seed, mode),
        "timing": {
            "wall_seconds": wall,
            "decisions": int(decisions),
            "decisions_per_second": decisions / wall if wall > 0 else None,
            ("games_per_second" if mode == "game" else "rounds_per_second"): jobs_total / wall if wall > 0 else None,
            "agent_ms_per_decision": {
                unique[i]: (1000 * agent_time[i] / agent_decisions[i] if agent_decisions[i] else None)
                for i in range(len(unique))
            },
            "agent_decisions": {unique[i]: int(agent_decisions[i]) for i in range(len(unique))},
            # bots that search (pimc) count the decisions they actually searched
            "agent_ms_per_searched_decision": {
                unique[i]: 1000 * agent_time[i] / bots[i].decisions
                for i in range(len(unique)) if getattr(bots[i], "decisions", 0)
            },
        },
    }
    if out is not None:
        write_outputs(results, rec, Path(out))
        if plots:
            make_plots(results, Path(out))
    return results


