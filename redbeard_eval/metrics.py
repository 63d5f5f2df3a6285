"""What a tournament measures: per-seat records, win-rate confidence intervals, ratings and
the bid and join metrics (definitions in :mod:`redbeard_eval`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from redbeard_env.redbeard.cards import BID0, FOLD, JOIN, REDBEARD, REDBEARD_LEVEL
from redbeard_env.redbeard.observation import OFF

__all__ = ["LEVELS", "LEVEL_NAMES", "Records", "bootstrap_ci", "ratings", "summarise"]

LEVELS = 8  # bid levels 0..6 and Rödskägg (7)
LEVEL_NAMES = [str(k) for k in range(7)] + ["R"]
SCORE_BUCKETS = 21  # the declarer's score when it bid: 0 (or below) .. 20 (or above)


def merge_records(into, part, count_fields: tuple[str, ...]) -> None:
    """Add a shard's records ``part`` to ``into`` (any game's records): the rows in order,
    the per-agent count arrays of ``count_fields`` summed."""
    into.seat_rows.extend(part.seat_rows)
    into.round_rows.extend(part.round_rows)
    for name in count_fields:
        mine = getattr(into, name)
        for spec, counts in getattr(part, name).items():
            mine[spec] = mine[spec] + counts if spec in mine else counts.copy()


@dataclass
class Records:
    """Everything a Rödskägg tournament measures, per game-seat and per round.

    The tournament loop (:func:`redbeard_eval.tournament.play_shard`) drives a game's
    records through one small protocol, which Sortskæg's records
    (:class:`redbeard_eval.metrics_sortskaeg.SortskaegRecords`) implement too:
    ``begin(slots, scores)`` before a shard's games (their starting scores [slots, n]), ``on_decisions(live, obs, actions, seat,
    lineups)`` before each step, ``on_step(events, lineups, mode)`` after it,
    ``won(events, slot, seat, mode)`` and ``seat_fields(slot, seat)`` for the rows of a
    finished game, ``end()`` after the shard, ``merge(other)``, and
    ``agent_metrics(spec, rows, mode)`` for :func:`summarise`."""

    num_players: int
    specs: list[str]
    rules: Any  # the tournament's Rules (the contract rule is read from it)
    seat_rows: list[dict] = field(default_factory=list)  # one per job and seat
    # per agent: bid level x tricks taken (declarers), made per level
    calib: dict = field(default_factory=dict)
    made: dict = field(default_factory=dict)
    by_score: dict = field(default_factory=dict)  # declarer's score at its bid -> (contracts, made)
    # the score at a join decision -> decisions, joins, joins that took a trick, and the
    # round's score change summed over joins and over folds
    joins_by_score: dict = field(default_factory=dict)
    joins: dict = field(default_factory=lambda: defaultdict(lambda: np.zeros(3, np.int64)))  # decisions, joins, successes
    round_rows: list[dict] = field(default_factory=list)

    def __post_init__(self):
        for s in self.specs:
            self.calib[s] = np.zeros((LEVELS, 7), np.int64)
            self.made[s] = np.zeros(LEVELS, np.int64)
            self.by_score[s] = np.zeros((SCORE_BUCKETS, 2), np.int64)
            self.joins_by_score[s] = np.zeros((SCORE_BUCKETS, 5), np.int64)

    def contract_made(self, level: int, tricks: int) -> bool:
        if level == REDBEARD_LEVEL:
            return tricks == 6
        return tricks == level if self.rules.contract == "exact" else tricks >= level

    # ------------------------------------------------------------ the tournament's protocol
    def begin(self, slots: int, scores: np.ndarray) -> None:
        n = self.num_players
        self.score = np.array(scores, np.int64)  # each slot's scores as of the last step
        self.pending_join = np.full((slots, n), -1, np.int64)  # tricks at a join, awaiting the round's end
        self.bid_score = np.zeros((slots, n), np.int64)  # each seat's score at its last bid
        self.join_score = np.full((slots, n), -10**9, np.int64)  # score at a join decision (or none)
        self.joined = np.zeros((slots, n), bool)
        self.slot_stats = [dict(declared=np.zeros(n, int), made=np.zeros(n, int), joins=np.zeros(n, int),
                                join_decisions=np.zeros(n, int)) for _ in range(slots)]

    def on_decisions(self, live: np.ndarray, obs: np.ndarray, actions: np.ndarray, seat: np.ndarray,
                     lineups: np.ndarray) -> None:
        """Bids: remember the bidder's score; join decisions: the tricks the player had
        when it answered."""
        for b in live[(actions[live] >= BID0) & (actions[live] <= REDBEARD)]:
            self.bid_score[b, seat[b]] = self.score[b, seat[b]]
        for b in live[(actions[live] == JOIN) | (actions[live] == FOLD)]:
            s = seat[b]
            spec = self.specs[lineups[b, s]]
            self.joins[spec][0] += 1
            self.slot_stats[b]["join_decisions"][s] += 1
            self.join_score[b, s] = self.score[b, s]
            self.joined[b, s] = actions[b] == JOIN
            if actions[b] == JOIN:
                self.joins[spec][1] += 1
                self.slot_stats[b]["joins"][s] += 1
                self.pending_join[b, s] = int(round(obs[b, OFF["tricks"]] * 6))

    def on_step(self, ev: dict, lineups: np.ndarray, mode: str) -> None:
        """Scored rounds: join successes and the declarer's contract; in round mode a
        scored round ends the job."""
        self.score = np.array(ev["score"], np.int64)  # slots no longer live keep meaningless entries
        for b in np.flatnonzero(ev["round_over"]):
            d = int(ev["round_declarer"][b])
            tricks = ev["round_tricks"][b]
            for s in np.flatnonzero(self.join_score[b] > -10**9):
                took = bool(self.joined[b, s] and tricks[s] > self.pending_join[b, s])
                self.joins[self.specs[lineups[b, s]]][2] += took
                change = int(ev["score"][b, s]) - int(self.join_score[b, s])
                row = self.joins_by_score[self.specs[lineups[b, s]]][min(max(self.join_score[b, s], 0), SCORE_BUCKETS - 1)]
                row += (1, self.joined[b, s], took, change if self.joined[b, s] else 0, 0 if self.joined[b, s] else change)
            self.pending_join[b] = -1
            self.join_score[b] = -10**9
            if d >= 0:
                level = int(ev["round_bid"][b])
                t = int(tricks[d])
                spec = self.specs[lineups[b, d]]
                self.calib[spec][level, t] += 1
                made = self.contract_made(level, t)
                self.made[spec][level] += made
                self.by_score[spec][min(max(self.bid_score[b, d], 0), SCORE_BUCKETS - 1)] += (1, made)
                self.slot_stats[b]["declared"][d] += 1
                self.slot_stats[b]["made"][d] += made
            if mode == "round":
                ev["done"][b] = True

    def won(self, ev: dict, b: int, s: int, mode: str) -> int:
        """1 for the game's winner (round mode without a winner: a player left on 0)."""
        winner = int(ev["winner"][b])
        return int(winner == s if (mode == "game" or winner >= 0) else ev["score"][b][s] == 0)

    def seat_fields(self, b: int, s: int) -> dict:
        st = self.slot_stats[b]
        return {"declared": int(st["declared"][s]), "made": int(st["made"][s]),
                "join_decisions": int(st["join_decisions"][s]), "joins": int(st["joins"][s])}

    def end(self) -> None:
        """After a shard: drop the per-slot state; plain dicts, so the records pickle back
        from a worker."""
        del self.pending_join, self.slot_stats, self.bid_score, self.join_score, self.joined, self.score
        self.joins = dict(self.joins)

    def merge(self, part: "Records") -> None:
        merge_records(self, part, ("calib", "made", "by_score", "joins_by_score", "joins"))

    def agent_metrics(self, spec: str, rows: list[dict], mode: str) -> dict:
        """The bid, contract and join metrics of one agent (SPEC §4)."""
        calib = self.calib[spec]
        contracts = calib.sum(1)
        levels = np.arange(LEVELS)
        bid_tricks = np.minimum(levels, 6)
        diff = np.arange(7)[None, :] - bid_tricks[:, None]
        total_contracts = int(contracts.sum())
        dec, joins, succ = (int(x) for x in self.joins[spec])
        res = {
            "contracts": total_contracts,
            "contract_rate": float(self.made[spec].sum() / total_contracts) if total_contracts else None,
            "bid_error": float((calib * np.abs(diff)).sum() / total_contracts) if total_contracts else None,
            "bid_bias": float((calib * diff).sum() / total_contracts) if total_contracts else None,
            "join_decisions": dec,
            "join_rate": joins / dec if dec else None,
            "join_success": succ / joins if joins else None,
            "mean_rounds": _mean([r["rounds"] for r in rows]),
            "final_distance": _mean([abs(r["final_score"]) for r in rows]),
            "truncated_rate": _mean([r["truncated"] for r in rows]),
            "contracts_by_bid": {LEVEL_NAMES[k]: int(contracts[k]) for k in range(LEVELS)},
            "made_by_bid": {LEVEL_NAMES[k]: int(self.made[spec][k]) for k in range(LEVELS)},
            # the declarer's score when it bid (0: 0 or below, 20: 20 or above) -> [contracts, made]
            "contracts_by_score": {str(k): [int(c), int(m)] for k, (c, m) in enumerate(self.by_score[spec]) if c},
            # the score at a join decision -> decisions, joins, joins that took a trick, and the
            # mean change of the score over the rest of the round after joining / folding
            "joins_by_score": {str(k): {"decisions": int(d), "joins": int(j), "took_a_trick": int(t),
                                        "change_joined": c_j / j if j else None,
                                        "change_folded": c_f / (d - j) if d > j else None}
                               for k, (d, j, t, c_j, c_f) in enumerate(self.joins_by_score[spec]) if d},
            "calibration": calib.tolist(),
        }
        if mode == "round":
            res["zero_rate"] = float(np.mean([r["won"] for r in rows])) if rows else 0.0
            res["declare_rate"] = total_contracts / max(len(rows), 1)
        return res


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
