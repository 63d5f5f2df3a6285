"""What a tournament measures: per-seat records, win-rate confidence intervals, ratings and
the bid and join metrics (definitions in :mod:`redbeard_eval`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from redbeard_env.cards import REDBEARD_LEVEL

__all__ = ["LEVELS", "LEVEL_NAMES", "Records", "bootstrap_ci", "ratings", "summarise"]

LEVELS = 8  # bid levels 0..6 and Rödskägg (7)
LEVEL_NAMES = [str(k) for k in range(7)] + ["R"]


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


def bootstrap_ci(wins: np.ndarray, games: np.ndarray, rng: np.random.Generator, reps: int = 1000) -> tuple[float, float]:
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


def ratings(seat_rows: list[dict], specs: list[str], num_players: int, seed: int) -> dict:
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
    rated = ratings(rec.seat_rows, rec.specs, n, seed) if mode == "game" else {s: None for s in rec.specs}
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
            "win_rate_ci": list(bootstrap_ci(wins_d, games_d, rng)),
            "parity": 1.0 / n,
            "rating": rated.get(spec),
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


