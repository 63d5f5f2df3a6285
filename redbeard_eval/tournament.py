"""The tournament loop: check the set-up, then play duplicate deals in every seating on a
batch engine (:mod:`redbeard_env.engine`), record and summarise.

:func:`run_tournament` = :func:`play_tournament` (:func:`prepare_tournament` (...)): the
preparation checks every argument and builds the bots, so a bad argument fails with a
``ValueError`` before any game is played.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.registry import check_game, make_agent
from redbeard_env.engine import ENGINE_NAMES, Job, make_engine
from redbeard_env.registry import Game, as_game, game_of_preset, game_of_rules

from .deals import check_scores, deal_sequences, distinct_rotations, pooled_lineup, start_scores
from .metrics import summarise
from .plots import make_plots
from .report import check_output_paths, write_outputs

__all__ = ["MODES", "Tournament", "prepare_tournament", "play_tournament", "run_tournament"]

MODES = ("game", "round")


def resolve_game(rules: Any, game: "Game | str | None") -> tuple[Game, Any]:
    """The game and its rules argument. ``rules`` None: the game's default preset;
    ``game`` None: the game of ``rules`` (a preset name belongs to one game, a ``Rules``
    value to its type; a mapping of fields, or no rules either, to
    :data:`~redbeard_env.registry.LEGACY_GAME`); both given must agree."""
    if game is not None or rules is None or isinstance(rules, dict):
        info = as_game(game)
        if rules is None:
            return info, info.default_rules
        if isinstance(rules, str) and rules not in info.presets:
            raise ValueError(f"rules preset {rules[:100]!r} is not a {info.name} preset; allowed: "
                             f"{', '.join(map(repr, info.presets))}")
        if not isinstance(rules, (str, dict)) and not isinstance(rules, info.rules_type):
            raise ValueError(f"these rules are not {info.name}'s: {str(rules)[:80]!r}")
        return info, rules
    if isinstance(rules, str):
        return game_of_preset(rules), rules
    return game_of_rules(rules), rules


def new_records(info: Game, rules: Any, num_players: int, specs: list[str]):
    """The game's tournament records (its metrics class: the protocol of :mod:`redbeard_eval.metrics`)."""
    return info.metrics_type(num_players, specs, rules)


@dataclass
class Tournament:
    """A checked tournament, ready to play (made by :func:`prepare_tournament`)."""

    game: Game
    rules: Any  # the game's Rules
    rules_name: str  # the preset name, or "custom" for a Rules object
    overrides: dict
    num_players: int
    keys: list[str]  # agent spec per seat
    unique: list[str]  # distinct specs: the pooled agents
    bots: list
    rotations: list[tuple[int, ...]]  # agent index per seat, per seating
    num_deals: int
    decks_per_game: int
    engine: str  # "vector" or "reference"; each shard builds its own
    batch_size: int
    seed: int
    mode: str
    scores: Any
    score_range: tuple[int, int]
    setup: dict  # prepare_tournament's arguments: another process rebuilds the tournament from them
    record: bool = False  # keep a game record of every game (reference engine)

    @property
    def num_jobs(self) -> int:
        return self.num_deals * len(self.rotations)

    @property
    def deals_per_shard(self) -> int:
        """Whole deals (all their seatings) per shard: as many as fill a batch."""
        return max(1, self.batch_size // len(self.rotations))

    @property
    def num_shards(self) -> int:
        return math.ceil(self.num_deals / self.deals_per_shard)


#: the most games a shard plays at once (``batch_size``): its deals are drawn up front
#: (``decks_per_game`` decks per game), and a batch engine holds at most
#: ``redbeard_env.common.MAX_NUM_ENVS`` games
MAX_BATCH_SIZE = 1 << 16


def _check_count(name: str, value: Any, *, optional: bool = False, most: int | None = None) -> int | None:
    """A count that must be an int >= 1 (at most ``most``; or None when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1 or (most and value > most):
        allowed = ("an int >= 1" if most is None else f"an int in 1..{most}") + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}, got {str(value)[:60]}")
    return int(value)


def _check_settings(mode: str, engine: str, games: Any, batch_size: Any, decks_per_game: Any, seed: Any) -> tuple:
    """The checked counts ``(games, batch_size, decks_per_game)``; ``ValueError`` for a bad
    mode, engine, count or seed."""
    if mode not in MODES:
        raise ValueError(f"mode must be 'game' or 'round', got {mode!r}")
    if engine != "auto" and engine not in ENGINE_NAMES:
        raise ValueError(f"engine must be 'auto', 'vector' or 'reference', got {engine!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    return (_check_count("games", games), _check_count("batch_size", batch_size, optional=True, most=MAX_BATCH_SIZE),
            _check_count("decks_per_game", decks_per_game, optional=True))


def prepare_tournament(
    agent_specs: Sequence[Any],
    rules: Any = None,
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    overrides: dict | None = None,
    *,
    game: "Game | str | None" = None,
    mode: str = "game",
    scores: Any = None,
    score_range: tuple[int, int] = (1, 12),
    engine: str = "auto",
    batch_size: int | None = None,
    decks_per_game: int | None = None,
    agent_kwargs: dict | None = None,
    record: bool = False,
) -> Tournament:
    """Check the arguments (``ValueError`` naming the argument, the value and what is
    allowed) and build the bots and the engine of a duplicate tournament.

    ``agent_specs``: one spec (or agent object) per seat; fewer than ``players`` repeat the
    last one. ``rules``: a preset name, a ``Rules`` or None (the game's default preset).
    ``game``: a registered ``Game`` or its name (None: the game of ``rules``).
    ``games`` >= 1: games (round mode: rounds), rounded up to whole deals.
    ``mode``: ``game`` (full games) or ``round`` (single rounds from ``scores``: ``None`` =
    start scores, a list per seat, or ``"sample"``: uniform in ``score_range``).
    ``engine``: ``auto`` | ``vector`` | ``reference``. ``batch_size`` (1..``MAX_BATCH_SIZE``):
    games played at once (default 4096 on the vector engine, 512 on the reference engine).
    ``decks_per_game``: deals fixed in advance per game. ``seed`` >= 0.
    ``agent_kwargs``: passed to every agent built from a spec. ``record``: keep a game record
    of every game (on the reference engine)."""
    games, batch_size, decks_per_game = _check_settings(mode, engine, games, batch_size, decks_per_game, seed)
    info, rules = resolve_game(rules, game)
    rules_obj = info.make_rules(rules, **(overrides or {}))
    specs_in = list(agent_specs)
    if not specs_in:
        raise ValueError("at least one agent spec is needed")
    n = players if players is not None else len(specs_in)
    n = info.check_num_players(n, rules_obj)
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
        if isinstance(obj, str):
            bot = make_agent(obj, game=info, seed=seed * 1000 + i, **(agent_kwargs or {}))
        elif callable(getattr(obj, "act_batch", None)) or callable(getattr(obj, "act", None)):
            bot = obj
            check_game(bot, info)
        else:
            raise ValueError(f"agent {key[:100]!r} is neither a spec string nor a bot (an object with act or act_batch)")
        if hasattr(bot, "reset"):
            bot.reset(seed * 1000 + i)
        bots.append(bot)
    rotations = distinct_rotations(lineup)
    if record and mode != "game":
        raise ValueError("game records are made of whole games: record needs mode='game'")
    if record and engine == "vector":
        raise ValueError("game records are kept by the reference engine: use engine='reference' (or 'auto') with record")
    if engine == "auto":  # the batch engine where the game has one and every bot answers batches
        engine = "vector" if "vector" in info.engines and all(hasattr(b, "act_batch") for b in bots) and not record \
            else "reference"
    return Tournament(
        game=info,
        rules=rules_obj,
        rules_name=rules if isinstance(rules, str) else "custom",
        overrides=overrides or {},
        num_players=n,
        keys=keys,
        unique=unique,
        bots=bots,
        rotations=rotations,
        num_deals=max(1, math.ceil(games / len(rotations))),
        decks_per_game=decks_per_game or (4 if mode == "round" else info.decks_per_game(rules_obj)),
        engine=make_engine(engine, rules_obj, n, seed, game=info).name,
        batch_size=batch_size or (4096 if engine == "vector" else 512),
        seed=int(seed),
        mode=mode,
        scores=scores,
        score_range=score_range,
        setup=dict(agent_specs=list(agent_specs), rules=rules, players=players, games=games, seed=seed,
                   overrides=overrides, game=info.name, mode=mode, scores=scores, score_range=score_range, engine=engine,
                   batch_size=batch_size, decks_per_game=decks_per_game, agent_kwargs=agent_kwargs, record=record),
        record=record,
    )


def run_tournament(*args: Any, out: "str | Path | None" = None, plots: bool = True, progress: bool = True,
                   backend: str = "local", workers: int = 1, ray_address: str | None = None,
                   record_path: "str | Path | None" = None, **kwargs: Any) -> dict:
    """Play a duplicate tournament and return the results dict (also written to ``out``):
    :func:`prepare_tournament` with the other arguments, then :func:`play_tournament`
    (``record_path``: the JSON-lines file that ``record=True`` appends the games to)."""
    if kwargs.get("record") and record_path is None:
        raise ValueError("record=True needs record_path=: the JSON-lines file the game records go to")
    if record_path is not None:
        kwargs["record"] = True
    tournament = prepare_tournament(*args, **kwargs)
    return play_tournament(tournament, out=out, plots=plots, progress=progress, backend=backend, workers=workers,
                           ray_address=ray_address, record=record_path)


@dataclass
class ShardResult:
    """What one shard measured (merged in shard order by :func:`play_tournament`)."""

    rec: Any  # the game's Records
    decisions: int
    agent_time: np.ndarray  # seconds in each agent's decisions
    agent_decisions: np.ndarray
    searched: np.ndarray  # decisions the search bots actually searched
    records: list  # game records (redbeard_env.records), with the tournament's record option


def shard_seed(seed: int, shard: int, part: int) -> int:
    """The seed of one part of one shard (the engine: part -1, agent i: part i)."""
    return int(np.random.SeedSequence([seed, shard, part + 1]).generate_state(1)[0])


@contextlib.contextmanager
def one_torch_thread():
    """Network bots compute on one thread while a shard plays (restored after): a shard
    holds one CPU on every backend (two threads in each of two workers on two cores
    slow them several-fold), and one thread count everywhere keeps a shard's float sums,
    and so its results, the same wherever it runs."""
    torch = sys.modules.get("torch")  # imported by the bots that need it, if any
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def play_shard(tr: Tournament, shard: int, on_games=None) -> ShardResult:
    """Play shard ``shard``: whole deals ``[shard * deals_per_shard, ...)`` in all their
    seatings, at once, on a fresh engine, with every bot reseeded, all from seeds derived
    from the tournament's seed and the shard's index — so a shard plays the same wherever
    and whenever it runs."""
    with one_torch_thread():
        return _play_shard(tr, shard, on_games)


def _play_shard(tr: Tournament, shard: int, on_games=None) -> ShardResult:
    n, unique, bots, rotations = tr.num_players, tr.unique, tr.bots, tr.rotations
    seed, mode, scores, score_range = tr.seed, tr.mode, tr.scores, tr.score_range
    backend = make_engine(tr.engine, tr.rules, n, shard_seed(seed, shard, -1), record=tr.record, game=tr.game)
    game_records: list[dict] = []
    for i, bot in enumerate(bots):
        if hasattr(bot, "reset"):
            bot.reset(shard_seed(seed, shard, i))
    searched_before = np.array([getattr(b, "decisions", 0) for b in bots], np.int64)
    rec = new_records(tr.game, tr.rules, n, unique)
    decisions = 0
    agent_time = np.zeros(len(bots))
    agent_decisions = np.zeros(len(bots), np.int64)
    first = shard * tr.deals_per_shard * len(rotations)
    count = min(tr.deals_per_shard * len(rotations), tr.num_jobs - first)
    deal_of, rot_of = np.divmod(np.arange(first, first + count), len(rotations))
    dealers, decks = deal_sequences(seed, deal_of, n, tr.decks_per_game, tr.game.deck_size, tr.game.deck_parts)
    sc = start_scores(seed, deal_of, n, scores, score_range) if mode == "round" else None
    jobs = [Job(first + k, int(deal_of[k]), int(rot_of[k]), rotations[rot_of[k]], int(dealers[k]), decks[k],
                None if sc is None else [int(x) for x in sc[k]]) for k in range(count)]
    backend.start(jobs)
    lineups = np.array([job.lineup for job in jobs])  # [B, n] agent index per seat
    for b, recorder in enumerate(getattr(backend, "recorders", [])):
        recorder.agents = [unique[a] for a in lineups[b]]
    rec.begin(count, np.array([job.scores if job.scores is not None else [tr.game.start_score(tr.rules)] * n
                               for job in jobs], np.int64))
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
        rec.on_decisions(live, obs, actions, seat, lineups)
        ev = backend.step(actions)
        rec.on_step(ev, lineups, mode)  # in round mode a scored round ends the job
        finished = np.flatnonzero(ev["done"])
        for b in finished:
            job = jobs[b]
            final = ev["score"][b]
            for s in range(n):
                rec.seat_rows.append(
                    {
                        "game": job.index,
                        "deal": job.deal,
                        "rotation": job.rotation,
                        "seat": s,
                        "agent": unique[lineups[b, s]],
                        "won": rec.won(ev, b, s, mode),
                        "final_score": int(final[s]),
                        "rounds": int(ev["rounds"][b]) if mode == "game" else 1,
                        "truncated": int(bool(ev["truncated"][b])),
                        **rec.seat_fields(b, s),
                        "start_score": "" if job.scores is None else job.scores[s],
                    }
                )
        if len(finished):
            if tr.record:
                game_records.extend(backend.recorders[b].record() for b in finished)
            backend.release(finished)
            if on_games is not None:
                on_games(len(finished))
    rec.end()
    searched = np.array([getattr(b, "decisions", 0) for b in bots], np.int64) - searched_before
    return ShardResult(rec, decisions, agent_time, agent_decisions, searched, game_records)


BACKENDS = ("local", "ray")


def _shard_in_worker(setup: dict, shard: int, games_done: Any = None, bot_folders: Sequence[str] = ()) -> ShardResult:
    """A shard in another process: the tournament is rebuilt from its set-up (once per
    process) and the shard played there. Each time games finish, their number is put on
    ``games_done`` (a queue the caller reads for the progress bar; for a process pool the
    one its workers were started with). ``bot_folders``: the caller's (a program's
    ``--bots``), searched for ``ppo:NAME`` while the bots are built."""
    key = repr((setup, list(bot_folders)))
    if _WORKER_TOURNAMENT.get("key") != key:
        before = None
        if bot_folders:
            from agents.ppo import set_bot_folders

            before = set_bot_folders(bot_folders)
        try:
            tournament = prepare_tournament(**setup)
        finally:
            if before is not None:
                set_bot_folders(before)
        _WORKER_TOURNAMENT.update(key=key, tournament=tournament)
    queue = games_done if games_done is not None else _WORKER_TOURNAMENT.get("games_done")
    return play_shard(_WORKER_TOURNAMENT["tournament"], shard, on_games=None if queue is None else queue.put)


_WORKER_TOURNAMENT: dict = {}


def _report_games_to(games_done: Any) -> None:
    """A pool worker's start: the queue its shards put their finished games on."""
    _WORKER_TOURNAMENT["games_done"] = games_done


#: how often (seconds) the progress bar takes the finished games the workers reported
PROGRESS_SECONDS = 0.25


def _run_shards(tr: Tournament, backend: str, workers: int, ray_address: str | None, bar) -> list[ShardResult]:
    """Every shard's result, in shard order, from the chosen backend. The progress bar
    advances as games finish, wherever they are played: workers put the number of each
    step's finished games on a queue, which is read while the shards run (the puts of a
    shard are done before its result arrives, so the bar ends on the exact total)."""
    shards = range(tr.num_shards)
    ppo = sys.modules.get("agents.ppo")  # only a program that imported it can have set bot folders
    folders = [str(f.resolve()) for f in ppo.bot_folders()] if ppo is not None else []
    if backend == "local" and workers == 1:
        return [play_shard(tr, k, on_games=None if bar is None else bar.update) for k in shards]
    if any(not isinstance(spec, str) for spec in tr.setup["agent_specs"]):
        raise ValueError("more than one worker needs agents given as spec strings (each worker builds its own)")
    done: dict[int, ShardResult] = {}
    if backend == "local":
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        context = multiprocessing.get_context("spawn")
        # a SimpleQueue writes at once (no feeder thread): a shard's counts are in the pipe
        # before its result is sent
        games_done = context.SimpleQueue() if bar is not None else None

        def take_reports() -> None:
            while games_done is not None and not games_done.empty():
                bar.update(games_done.get())

        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_report_games_to,
                                 initargs=(games_done,)) as pool:
            futures = {pool.submit(_shard_in_worker, tr.setup, k, None, folders): k for k in shards}
            running = set(futures)
            while running:
                finished, running = wait(running, timeout=PROGRESS_SECONDS, return_when=FIRST_COMPLETED)
                take_reports()
                for future in finished:
                    done[futures[future]] = future.result()
        if games_done is not None:
            games_done.close()
    else:
        import ray

        if not ray.is_initialized():
            address = ray_address or os.environ.get("RAY_ADDRESS") or None
            # an embedded Ray gets one CPU per worker; a cluster offers what it has
            ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False, log_to_driver=False)
        games_done = None
        if bar is not None:
            from ray.util.queue import Empty, Queue

            games_done = Queue(actor_options={"num_cpus": 0})  # put() returns once the count is queued

        def take_reports() -> None:
            while games_done is not None:
                try:
                    bar.update(games_done.get_nowait())
                except Empty:
                    return

        task = ray.remote(num_cpus=1)(_shard_in_worker)
        setup = ray.put(tr.setup)
        pending = {task.remote(setup, k, games_done, folders): k for k in shards}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=PROGRESS_SECONDS)
            take_reports()
            for ref in ready:
                done[pending.pop(ref)] = ray.get(ref)
        if games_done is not None:
            games_done.shutdown()
    return [done[k] for k in shards]


def play_tournament(tournament: Tournament, *, out: "str | Path | None" = None, plots: bool = True,
                    progress: bool = True, backend: str = "local", workers: int = 1,
                    ray_address: str | None = None, record: "str | Path | None" = None) -> dict:
    """Play a prepared tournament; return the results dict (also written to ``out``).

    The deals are played in shards of whole deals (:func:`play_shard`), each seeded from
    the tournament's seed and its index, so the results are the same for any ``backend``
    and number of ``workers`` (timings aside). ``backend``: ``local`` (``workers`` = 1: this
    process; more: a process pool) or ``ray`` (Ray tasks; ``ray.init()`` without an address
    starts a local Ray, ``ray_address`` or ``RAY_ADDRESS`` joins a cluster). ``record``: a
    JSON-lines file to append every game's record to (in game order; the tournament must
    have been prepared with ``record=True``)."""
    tr = tournament
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    workers = _check_count("workers", workers)
    check_output_paths(out, record)  # before any game: results are never lost to a bad path
    if record is not None and not tr.record:
        raise ValueError("record= needs a tournament prepared with record=True")
    n, unique, rotations, seed, mode = tr.num_players, tr.unique, tr.rotations, tr.seed, tr.mode
    jobs_total = tr.num_jobs
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=jobs_total, unit="game" if mode == "game" else "round", dynamic_ncols=True,
                       desc=" vs ".join(unique))
        except ImportError:
            bar = None
    t0 = time.time()
    results_by_shard = _run_shards(tr, backend, workers, ray_address, bar)
    if bar is not None:
        bar.close()
    wall = time.time() - t0
    if record is not None:
        from redbeard_env.records import append_records

        append_records(record, sorted((g for r in results_by_shard for g in r.records), key=lambda g: g["meta"]["game"]))
    rec = new_records(tr.game, tr.rules, n, unique)
    for part in results_by_shard:
        rec.merge(part.rec)
    decisions = sum(r.decisions for r in results_by_shard)
    agent_time = sum(r.agent_time for r in results_by_shard)
    agent_decisions = sum(r.agent_decisions for r in results_by_shard)
    searched = sum(r.searched for r in results_by_shard)
    results = {
        "config": {
            "game": tr.game.name,
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
            "scores": tr.scores,
            "engine": tr.engine,
        },
        "agents": summarise(rec, seed, mode),
        "timing": {
            "wall_seconds": wall,
            "backend": backend,
            "workers": workers,
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
                unique[i]: 1000 * agent_time[i] / searched[i] for i in range(len(unique)) if searched[i]
            },
        },
    }
    if out is not None:
        write_outputs(results, rec, Path(out))
        if plots:
            make_plots(results, Path(out))
    return results
