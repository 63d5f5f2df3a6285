"""Tournaments between bots: duplicate deals, win rates, ratings and research metrics.

    python evaluate.py --agents heuristic random random random --rules classic --players 4 \\
        --games 2000 --seed 0 --out runs/eval/heuristic_vs_random
    python evaluate.py --agents pimc heuristic --players 4 --games 2000 --out runs/eval/pimc
    python evaluate.py --agents heuristic --players 5 --rules fem_opp --set leader=trick_winner
    python evaluate.py --mode round --agents heuristic --players 4 --games 20000 --scores sample

**Duplicate deals.** Game ``d`` of a tournament fixes a deal sequence: the first dealer
and the deck of every deal (rounds and duels, in order, with the order in which thrown-in
cards are reshuffled). The sequence is replayed once per distinct rotation of the lineup,
agent ``i`` of ``--agents`` sitting in seat ``(i + r) % n`` in rotation ``r``, so every
agent plays every seat's cards and the luck of the cards cancels. Identical specs are one
agent (pooled): ``heuristic random random random`` reports two rows, and ``random``'s
win rate is per seat (comparable with the parity ``1/n``). ``--games`` counts games
(deals x rotations), rounded up to whole deals.

**Engines** (:mod:`redbeard_env.engine`). The batch engine (``redbeard_env.vector.VectorEnv``)
when every agent has ``act_batch``; otherwise the reference engine (``game.py``, one Python
game object per slot). Both give the same games for the same seed and agents.

**Outputs** (``--out DIR``): ``results.json`` (per agent spec: ``games``, ``win_rate``,
``win_rate_ci`` (95 %, bootstrap over deals), ``parity``, ``rating`` (OpenSkill
Plackett-Luce ``mu``, ``sigma``, ``ordinal``; the winner ranks first, everyone else ties),
``contract_rate``, ``bid_error``, ``bid_bias``, ``join_rate``, ``join_success``,
``mean_rounds``, ``final_distance``, per-bid-level counts), ``games.csv`` (one row per game
and seat; ``rounds.csv`` in round mode), and the plots ``win_rates.png``,
``calibration.png`` (bid vs tricks taken, per agent) and ``contract_by_bid.png``.

**Round mode** (``--mode round``) plays single rounds for bid-accuracy research: each
starts from ``--scores`` (one int per seat, or ``sample`` for uniform scores in
``--score-range``), runs to the round's scoring and reports the same bid and join
metrics (and ``zero_rate``: rounds that left the player on exactly 0).

Metric definitions (SPEC §4): a *contract* is a round an agent declared; it is made when
the declarer took exactly (``exact``) or at least (``at_least``) the bid, all six for
Rödskägg. ``bid_error`` = mean |tricks - bid| and ``bid_bias`` = mean (tricks - bid) over
contracts (Rödskägg counts as 6). A *join decision* is a join/fold answer; ``join_rate`` =
joins / decisions; ``join_success`` = joins after which the player took at least one more
trick / joins (a round cut short by an immediate win leaves its joins out).

Python API (what ``train.py`` calls)::

    from evaluate import run_tournament
    res = run_tournament(["ppo:runs/x/policy.pt", "heuristic", "heuristic", "heuristic"],
                         rules="classic", players=4, games=400, seed=0, progress=False)
    res["agents"]["heuristic"]["win_rate"], res["agents"]["heuristic"]["win_rate_ci"]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.registry import make_agent
from redbeard_env.cards import FOLD, JOIN, NUM_CARDS, REDBEARD_LEVEL
from redbeard_env.engine import Job, ReferenceBatch, VectorBatch, make_engine  # noqa: F401  (re-exported)
from redbeard_env.observation import OFF
from redbeard_env.rules import Rules, check_num_players, make_rules, parse_overrides

LEVELS = 8  # bid levels 0..6 and Rödskägg (7)
LEVEL_NAMES = [str(k) for k in range(7)] + ["R"]


# ====================================================================== deals
def deal_sequence(seed: int, deal: int, num_players: int, num_decks: int) -> tuple[int, np.ndarray]:
    """The first dealer and ``num_decks`` decks [K, 104] (deck top first, then the order in
    which thrown-in cards are reshuffled) of deal sequence ``deal``: they depend only on
    (seed, deal), never on how games are batched."""
    rng = np.random.default_rng([seed, deal, 7])
    dealer = int(rng.integers(num_players))
    decks = rng.permuted(np.tile(np.arange(NUM_CARDS, dtype=np.int8), (num_decks * 2, 1)), axis=1)
    return dealer, decks.reshape(num_decks, 2 * NUM_CARDS)


def deal_sequences(seed: int, deals: np.ndarray, num_players: int, num_decks: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`deal_sequence` for several deals (each computed once)."""
    deals = np.asarray(deals)
    uniq, inverse = np.unique(deals, return_inverse=True)
    out = [deal_sequence(seed, int(d), num_players, num_decks) for d in uniq]
    dealers = np.array([o[0] for o in out], dtype=np.int64)
    decks = np.stack([o[1] for o in out])
    return dealers[inverse], decks[inverse]


def start_scores(seed: int, deals: np.ndarray, num_players: int, scores: Any,
                 score_range: tuple[int, int]) -> np.ndarray | None:
    """Round mode: the starting scores [len(deals), n] (``None``: the rules' start score);
    ``scores`` is a list (one per seat) or ``"sample"`` (uniform in ``score_range``)."""
    if scores is None:
        return None
    deals = np.asarray(deals)
    if isinstance(scores, str):
        if scores != "sample":
            raise ValueError(f"scores must be a list of ints or 'sample', got {scores!r}")
        lo, hi = score_range
        if hi < lo:
            raise ValueError(f"score range {score_range} is empty")
        return np.array([np.random.default_rng([seed, int(d), 11]).integers(lo, hi + 1, size=num_players)
                         for d in deals], dtype=np.int64).reshape(len(deals), num_players)
    scores = [int(s) for s in scores]
    if len(scores) != num_players:
        raise ValueError(f"scores needs one int per seat ({num_players}), got {scores}")
    return np.tile(np.array(scores, dtype=np.int64), (len(deals), 1))


def vector_engine_available() -> bool:
    """Always true (the batch engine is part of the package); kept for tests/test_agents.py."""
    return True


# ====================================================================== records
@dataclass
class Records:
    """Everything measured in a tournament, per game-seat and per round."""

    num_players: int
    specs: list[str]
    contract: str
    seat_rows: list[dict] = field(default_factory=list)  # one per job and seat
    # per agent: bid level x tricks taken (declarers), made per level
    calib: dict = field(default_factory=dict)
    made: dict = field(default_factory=dict)
    joins: dict = field(default_factory=lambda: defaultdict(lambda: np.zeros(3, np.int64)))  # decisions, joins, successes
    round_rows: list[dict] = field(default_factory=list)

    def __post_init__(self):
        for s in self.specs:
            self.calib[s] = np.zeros((LEVELS, 7), np.int64)
            self.made[s] = np.zeros(LEVELS, np.int64)

    def contract_made(self, level: int, tricks: int) -> bool:
        if level == REDBEARD_LEVEL:
            return tricks == 6
        return tricks == level if self.contract == "exact" else tricks >= level


def _bootstrap_ci(wins: np.ndarray, games: np.ndarray, rng: np.random.Generator, reps: int = 1000) -> tuple[float, float]:
    """95 % percentile CI of sum(wins)/sum(games) resampling deals (rows) with replacement."""
    D = len(wins)
    if D == 0 or games.sum() == 0:
        return (float("nan"), float("nan"))
    w = np.empty(reps)
    g = np.empty(reps)
    chunk = max(1, 4_000_000 // D)
    for lo in range(0, reps, chunk):
        idx = rng.integers(0, D, size=(min(chunk, reps - lo), D))
        w[lo:lo + len(idx)] = wins[idx].sum(1)
        g[lo:lo + len(idx)] = games[idx].sum(1)
    rates = np.divide(w, g, out=np.zeros_like(w), where=g > 0)
    lo, hi = np.percentile(rates, [2.5, 97.5])
    return (float(lo), float(hi))


def _ratings(seat_rows: list[dict], specs: list[str], num_players: int, seed: int) -> dict:
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # the eval extra is not installed
        return {s: None for s in specs}
    model = PlackettLuce()
    rating = {s: model.rating(name=s) for s in specs}
    by_job: dict[int, list[dict]] = defaultdict(list)
    for row in seat_rows:
        by_job[row["game"]].append(row)
    order = list(by_job)
    np.random.default_rng([seed, 23]).shuffle(order)  # rate in a seeded random order of games
    for job in order:
        rows = sorted(by_job[job], key=lambda r: r["seat"])
        if not any(r["won"] for r in rows) or len({r["agent"] for r in rows}) < 2:
            continue  # a truncated game, or nobody to compare with
        teams = [[model.rating(mu=rating[r["agent"]].mu, sigma=rating[r["agent"]].sigma)] for r in rows]
        ranks = [1 if r["won"] else 2 for r in rows]
        new = model.rate(teams, ranks=ranks)
        acc: dict[str, list] = defaultdict(list)
        for r, t in zip(rows, new):
            acc[r["agent"]].append((t[0].mu, t[0].sigma))
        for spec, vals in acc.items():
            mu = float(np.mean([v[0] for v in vals]))
            sigma = float(np.mean([v[1] for v in vals]))
            rating[spec] = model.rating(mu=mu, sigma=sigma)
    return {
        s: {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal(), 3)}
        for s, r in rating.items()
    }


def _mean(x) -> float | None:
    return float(np.mean(x)) if len(x) else None


def summarise(rec: Records, seed: int, mode: str) -> dict:
    n = rec.num_players
    rng = np.random.default_rng([seed, 29])
    out: dict[str, dict] = {}
    deals = sorted({r["deal"] for r in rec.seat_rows})
    deal_index = {d: i for i, d in enumerate(deals)}
    ratings = _ratings(rec.seat_rows, rec.specs, n, seed) if mode == "game" else {s: None for s in rec.specs}
    for spec in rec.specs:
        rows = [r for r in rec.seat_rows if r["agent"] == spec]
        wins_d = np.zeros(len(deals))
        games_d = np.zeros(len(deals))
        for r in rows:
            wins_d[deal_index[r["deal"]]] += r["won"]
            games_d[deal_index[r["deal"]]] += 1
        calib = rec.calib[spec]
        contracts = calib.sum(1)
        levels = np.arange(LEVELS)
        bid_tricks = np.minimum(levels, 6)
        diff = np.arange(7)[None, :] - bid_tricks[:, None]
        total_contracts = int(contracts.sum())
        dec, joins, succ = (int(x) for x in rec.joins[spec])
        res = {
            "games": len(rows),
            "wins": int(sum(r["won"] for r in rows)),
            "win_rate": float(wins_d.sum() / max(games_d.sum(), 1)),
            "win_rate_ci": list(_bootstrap_ci(wins_d, games_d, rng)),
            "parity": 1.0 / n,
            "rating": ratings.get(spec),
            "contracts": total_contracts,
            "contract_rate": float(rec.made[spec].sum() / total_contracts) if total_contracts else None,
            "bid_error": float((calib * np.abs(diff)).sum() / total_contracts) if total_contracts else None,
            "bid_bias": float((calib * diff).sum() / total_contracts) if total_contracts else None,
            "join_decisions": dec,
            "join_rate": joins / dec if dec else None,
            "join_success": succ / joins if joins else None,
            "mean_rounds": _mean([r["rounds"] for r in rows]),
            "final_distance": _mean([abs(r["final_score"]) for r in rows]),
            "truncated_rate": _mean([r["truncated"] for r in rows]),
            "contracts_by_bid": {LEVEL_NAMES[k]: int(contracts[k]) for k in range(LEVELS)},
            "made_by_bid": {LEVEL_NAMES[k]: int(rec.made[spec][k]) for k in range(LEVELS)},
            "calibration": calib.tolist(),
        }
        if mode == "round":
            res["zero_rate"] = res["win_rate"]
            res["declare_rate"] = total_contracts / max(len(rows), 1)
        out[spec] = res
    return out


# ====================================================================== the tournament loop
def _lineup(specs: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    unique: list[str] = []
    for s in specs:
        if s not in unique:
            unique.append(s)
    return unique, tuple(unique.index(s) for s in specs)


def _rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Distinct rotations of the lineup, as the agent index of each seat."""
    n = len(lineup)
    seen: list[tuple[int, ...]] = []
    for r in range(n):
        rot = tuple(lineup[(s + r) % n] for s in range(n))
        if rot not in seen:
            seen.append(rot)
    return seen


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
    last one. ``mode``: ``game`` (full games) or ``round`` (single rounds from ``scores``:
    ``None`` = start scores, a list per seat, or ``"sample"``). ``engine``: ``auto`` |
    ``vector`` | ``reference``."""
    if mode not in ("game", "round"):
        raise ValueError(f"mode must be 'game' or 'round', got {mode!r}")
    rules_obj = make_rules(rules, **(overrides or {}))
    specs_in = list(agent_specs)
    if not specs_in:
        raise ValueError("at least one agent spec is needed")
    n = players if players is not None else len(specs_in)
    n = check_num_players(n, rules_obj)
    if len(specs_in) > n:
        raise ValueError(f"{len(specs_in)} agents for {n} players")
    specs_in = specs_in + [specs_in[-1]] * (n - len(specs_in))
    keys = [s if isinstance(s, str) else (getattr(s, "spec", "") or repr(s)) for s in specs_in]
    unique, lineup = _lineup(keys)
    bots = []
    for i, key in enumerate(unique):
        obj = specs_in[keys.index(key)]
        bot = make_agent(obj, seed=seed * 1000 + i, **(agent_kwargs or {})) if isinstance(obj, str) else obj
        if hasattr(bot, "reset"):
            bot.reset(seed * 1000 + i)
        bots.append(bot)
    rotations = _rotations(lineup)
    num_deals = max(1, math.ceil(games / len(rotations)))
    K = decks_per_game or (4 if mode == "round" else min(rules_obj.max_rounds + 8, 96))
    if engine == "auto":
        batched = all(hasattr(b, "act_batch") for b in bots)
        engine = "vector" if batched else "reference"
    backend = make_engine(engine, rules_obj, n, seed)
    if batch_size is None:
        batch_size = 4096 if engine == "vector" else 512
    jobs_total = num_deals * len(rotations)
    rec = Records(n, unique, rules_obj.contract)
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
            "agents": keys,
            "rules": rules if isinstance(rules, str) else "custom",
            "rules_fields": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(rules_obj).items()},
            "overrides": overrides or {},
            "players": n,
            "games": jobs_total,
            "deals": num_deals,
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
        write_outputs(results, rec, Path(out), plots=plots)
    return results


# ====================================================================== output
def write_outputs(results: dict, rec: Records, out: Path, plots: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "results.json", "w") as f:
        json.dump(results, f, indent=2, default=_json_default)
    name = "games.csv" if results["config"]["mode"] == "game" else "rounds.csv"
    if rec.seat_rows:
        with open(out / name, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rec.seat_rows[0]))
            writer.writeheader()
            writer.writerows(sorted(rec.seat_rows, key=lambda r: (r["game"], r["seat"])))
    if plots:
        make_plots(results, out)


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(repr(x))


def make_plots(results: dict, out: Path) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[eval]'): no plots", file=sys.stderr)
        return []
    agents = results["agents"]
    cfg = results["config"]
    names = list(agents)
    title = f"{cfg['rules']}, {cfg['players']} players, {cfg['games']} {'games' if cfg['mode'] == 'game' else 'rounds'}"
    paths = []
    # win rates with CIs against parity
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(names), 3.6))
    rates = [agents[a]["win_rate"] for a in names]
    lo = [agents[a]["win_rate"] - agents[a]["win_rate_ci"][0] for a in names]
    hi = [agents[a]["win_rate_ci"][1] - agents[a]["win_rate"] for a in names]
    ax.bar(range(len(names)), rates, yerr=[lo, hi], capsize=6, color="#4c72b0")
    ax.axhline(agents[names[0]]["parity"], color="#c44e52", ls="--", label="parity 1/n")
    ax.set_xticks(range(len(names)), [_short(a) for a in names])
    ax.set_ylabel("win rate" if cfg["mode"] == "game" else "rounds ending on 0")
    ax.set_ylim(0, max(0.05, min(1.0, max(r + h for r, h in zip(rates, hi)) * 1.15)))
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out / "win_rates.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    # bid vs tricks calibration, one heat map per agent
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.6), squeeze=False)
    for ax, a in zip(axes[0], names):
        m = np.asarray(agents[a]["calibration"], dtype=float)
        rows = m.sum(1, keepdims=True)
        frac = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
        ax.imshow(frac, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=6,
                            color="w" if frac[i, j] < 0.6 else "k")
        ax.plot([0, 6], [0, 6], color="w", lw=0.6, ls=":")
        ax.set_xticks(range(7))
        ax.set_yticks(range(LEVELS), LEVEL_NAMES)
        ax.set_xlabel("tricks taken")
        ax.set_ylabel("bid")
        ax.set_title(f"{_short(a)}: bid vs tricks", fontsize=9)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    paths.append(out / "calibration.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    # contract rate by bid size
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for a in names:
        c = np.array([agents[a]["contracts_by_bid"][k] for k in LEVEL_NAMES], dtype=float)
        mk = np.array([agents[a]["made_by_bid"][k] for k in LEVEL_NAMES], dtype=float)
        ok = c > 0
        rate = np.divide(mk, c, out=np.zeros_like(mk), where=ok)
        ax.plot(np.arange(LEVELS)[ok], rate[ok], marker="o", label=_short(a))
    ax.set_xticks(range(LEVELS), LEVEL_NAMES)
    ax.set_xlabel("bid")
    ax.set_ylabel("contract rate")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out / "contract_by_bid.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def _short(spec: str, width: int = 22) -> str:
    return spec if len(spec) <= width else "…" + spec[-(width - 1):]


def format_table(results: dict) -> str:
    agents = results["agents"]
    cfg = results["config"]
    head = (f"{'agent':<24}{'games':>7}{'win':>8}{'95% CI':>16}{'parity':>8}{'rating':>8}"
            f"{'contract':>9}{'bid_err':>8}{'bias':>7}{'join':>6}{'join_ok':>8}{'rounds':>7}")
    lines = [f"{cfg['rules']} | {cfg['players']} players | {cfg['games']} {cfg['mode']}s "
             f"({cfg['deals']} deals x {len(cfg['rotations'])} seatings) | seed {cfg['seed']} | {cfg['engine']} engine",
             head, "-" * len(head)]

    def f(x, fmt):
        return "-" if x is None else format(x, fmt)

    for name, a in agents.items():
        ci = f"[{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}]"
        rating = a["rating"]["ordinal"] if a.get("rating") else None
        lines.append(
            f"{_short(name, 23):<24}{a['games']:>7}{a['win_rate']:>8.3f}{ci:>16}{a['parity']:>8.3f}{f(rating, '.1f'):>8}"
            f"{f(a['contract_rate'], '.3f'):>9}{f(a['bid_error'], '.2f'):>8}{f(a['bid_bias'], '+.2f'):>7}"
            f"{f(a['join_rate'], '.2f'):>6}{f(a['join_success'], '.2f'):>8}{f(a['mean_rounds'], '.1f'):>7}"
        )
    t = results["timing"]
    rate_key = "games_per_second" if cfg["mode"] == "game" else "rounds_per_second"
    lines.append(f"{t['wall_seconds']:.1f} s, {t[rate_key]:.1f} {rate_key.replace('_', ' ')}, "
                 f"{t['decisions_per_second']:.0f} decisions/s; agent ms/decision: "
                 + ", ".join(f"{_short(k, 16)} {v:.3f}" for k, v in t["agent_ms_per_decision"].items() if v is not None))
    return "\n".join(lines)


# ====================================================================== CLI
def main(argv: Sequence[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the module docstring (python -c 'import evaluate; help(evaluate)').")
    p.add_argument("--agents", nargs="+", required=True, help="agent specs, one per seat (the last repeats)")
    p.add_argument("--rules", default="classic", help="rules preset (classic, fem_opp, raudskjegg, wikipedia)")
    p.add_argument("--players", type=int, default=None, help="player count (default: number of --agents)")
    p.add_argument("--games", type=int, default=2000, help="games (round mode: rounds) to play, rounded up to whole deals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="rules overrides, e.g. leader=trick_winner")
    p.add_argument("--mode", choices=("game", "round"), default="game")
    p.add_argument("--scores", nargs="*", default=None,
                   help="round mode: starting scores, one per seat, or 'sample' (default: the start score)")
    p.add_argument("--score-range", nargs=2, type=int, default=(1, 12), metavar=("LO", "HI"),
                   help="round mode with --scores sample: uniform scores in LO..HI")
    p.add_argument("--engine", choices=("auto", "vector", "reference"), default="auto")
    p.add_argument("--batch-size", type=int, default=None, help="games played at once")
    p.add_argument("--out", default=None, help="output folder (results.json, games.csv, plots)")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    scores: Any = None
    if args.scores:
        scores = "sample" if args.scores == ["sample"] else [int(s) for s in args.scores]
    try:
        results = run_tournament(
            args.agents,
            rules=args.rules,
            players=args.players,
            games=args.games,
            seed=args.seed,
            overrides=parse_overrides(args.set),
            mode=args.mode,
            scores=scores,
            score_range=tuple(args.score_range),
            engine=args.engine,
            batch_size=args.batch_size,
            out=args.out,
            plots=not args.no_plots,
            progress=not args.quiet,
        )
    except ValueError as exc:
        p.error(str(exc))
    print(format_table(results))
    if args.out:
        print(f"wrote {args.out}/results.json, {'games' if args.mode == 'game' else 'rounds'}.csv"
              + ("" if args.no_plots else ", win_rates.png, calibration.png, contract_by_bid.png"))
    return results


if __name__ == "__main__":
    main()
