"""What every tournament measures: win rates with bootstrap confidence intervals over
deals, parity and OpenSkill ratings (:func:`summarise`), on top of the game's own metrics.

A game's metrics are its ``metrics`` module (the registry's ``Game.metrics``, e.g.
:mod:`redbeard_env.redbeard.metrics`): a ``Records`` class that the tournament loop
(:func:`redbeard_eval.tournament.play_shard`) drives through one small protocol --
``Records(num_players, specs, rules)``, ``begin(slots, scores)`` before a shard's games
(their starting scores [slots, n]), ``on_decisions(live, obs, actions, seat, lineups)``
before each step, ``on_step(events, lineups, mode)`` after it (in round mode it marks a
scored round's slot ``done``), ``won(events, slot, seat, mode)`` and ``seat_fields(slot,
seat)`` for the rows of a finished game, ``end()`` after the shard, ``merge(other)``, and
``agent_metrics(spec, rows, mode)`` for :func:`summarise` -- plus what the report shows:
``COLUMNS`` (the table's metric columns), ``table_notes(agents)`` (lines under the table)
and ``success_plot(agents)`` (a success rate by bid or hand size).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

__all__ = ["bootstrap_ci", "ratings", "summarise"]


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


def summarise(rec, seed: int, mode: str) -> dict:
    """Per agent spec: games, wins, the win rate (a shared win counts its share) with a
    95 % bootstrap CI over deals, parity and rating, then the game's own metrics
    (``rec.agent_metrics``)."""
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
        wins = sum(r["won"] for r in rows)
        out[spec] = {
            "games": len(rows),
            "wins": int(wins) if float(wins).is_integer() else float(wins),
            "win_rate": float(wins_d.sum() / max(games_d.sum(), 1)),
            "win_rate_ci": list(bootstrap_ci(wins_d, games_d, rng)),
            "parity": 1.0 / n,
            "rating": rated.get(spec),
            **rec.agent_metrics(spec, rows, mode),
        }
    return out
