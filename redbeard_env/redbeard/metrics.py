"""What a Rödskägg tournament measures (SPEC §4), for :mod:`redbeard_eval` (the protocol is
in :mod:`redbeard_eval.metrics`): per declarer the bid level x tricks taken, contracts made
by level and by the declarer's score; per join decision its score and outcome.

Metrics per agent: ``contract_rate``, ``bid_error`` (mean |tricks - bid|), ``bid_bias``
(mean tricks - bid), ``join_rate``, ``join_success`` (joins that took a trick / joins),
``mean_rounds``, ``final_distance`` (|score| at the end), ``truncated_rate``, the counts by
bid, by score and by join score, and the ``calibration`` table; in round mode also
``zero_rate`` (rounds ending on 0) and ``declare_rate``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..common import mean_or_none as _mean, merge_counts
from .cards import BID0, FOLD, JOIN, REDBEARD, REDBEARD_LEVEL
from .observation import OFF
from .rules import TRICKS_PER_ROUND

__all__ = ["LEVELS", "LEVEL_NAMES", "Records"]

LEVELS = 8  # bid levels 0..6 and Rödskägg (7)
LEVEL_NAMES = [str(k) for k in range(7)] + ["R"]
SCORE_BUCKETS = 21  # the declarer's score when it bid: 0 (or below) .. 20 (or above)


@dataclass
class Records:
    """Everything a Rödskägg tournament measures, per game-seat and per round (the
    protocol: :mod:`redbeard_eval.metrics`)."""

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
                self.pending_join[b, s] = int(round(obs[b, OFF["tricks"]] * TRICKS_PER_ROUND))

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
        merge_counts(self, part, ("calib", "made", "by_score", "joins_by_score", "joins"))

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

    # ------------------------------------------------------------ what the report shows
    #: the table's metric columns after the shared ones: (header, width, results key, format)
    COLUMNS = [("contract", 9, "contract_rate", ".3f"), ("bid_err", 8, "bid_error", ".2f"), ("bias", 7, "bid_bias", "+.2f"),
               ("join", 6, "join_rate", ".2f"), ("join_ok", 8, "join_success", ".2f"), ("rounds", 7, "mean_rounds", ".1f")]

    @staticmethod
    def table_notes(agents: dict) -> list[str]:
        return []

    @staticmethod
    def success_plot(agents: dict) -> dict:
        """Contracts made by bid level, per agent (and the calibration's row labels)."""
        series = {a: {k: (m["made_by_bid"][name] / m["contracts_by_bid"][name] if m["contracts_by_bid"][name] else None)
                      for k, name in enumerate(LEVEL_NAMES)} for a, m in agents.items()}
        return {"series": series, "xlabel": "bid", "ylabel": "contract rate", "file": "contract_by_bid",
                "xticks": LEVEL_NAMES, "bid_labels": LEVEL_NAMES}


    # ------------------------------------------------------------ the research report (redbeard_eval.research)
    @staticmethod
    def research_experiments(sheet: str, best: str) -> list[dict]:
        """Round experiments for the report: the sheet's best bot as it plays, forced to
        join whenever it may and forced to fold (:mod:`agents.redbeard.join_policy`), from
        every seat on the same score, against three heuristics."""
        # "free" is the bot unchanged under a name of its own (the heuristic would otherwise
        # be pooled with its three heuristic opponents into one agent)
        variants = (("free", "as it plays"), ("always", "always joins"), ("never", "never joins"))
        return [dict(label=label, score=score, agents=[f"joins:{mode},base={best}"] + ["heuristic"] * 3,
                     mode="round", scores=[score] * 4)
                for score in JOIN_SCORES for mode, label in variants]

    @staticmethod
    def research_sections(tables: list[dict], experiments: list[dict]) -> list[str]:
        """Rödskägg's sections of the report: Rödskägg calls, contracts by the declarer's
        score, join decisions by score, and the join experiments."""
        lines = ["Rödskägg called / made, join rate and join success per agent:", "",
                 "| sheet | agent | Rödskägg called / made | join rate | join success |", "|---|---|---|---:|---:|"]
        for res in tables:
            for spec, a in res["agents"].items():
                lines.append(f"| {res['sheet']} | `{_short(spec)}` | {a['contracts_by_bid']['R']} / {a['made_by_bid']['R']} | "
                             f"{_fmt(a['join_rate'])} | {_fmt(a['join_success'])} |")
        return lines + [""] + _by_score_section(tables) + _joins_by_score_section(tables) + _join_experiments_section(experiments)


# ---------------------------------------------------------------- the report's Rödskägg sections
JOIN_SCORES = (1, 2, 3, 4, 6)  # every seat's score at the round's start in the join experiments


def _short(spec: str, width: int = 24) -> str:
    return spec if len(spec) <= width else "…" + spec[-(width - 1):]


def _fmt(x, spec: str = ".2f") -> str:
    return "–" if x is None else format(x, spec)


def _rate(made: int, tried: int) -> str:
    return f"{made / tried:.2f} ({tried})" if tried else "–"


def _by_score_section(tables: list[dict]) -> list[str]:
    lines = ["### Contract rate by the declarer's score when it bid", "",
             "Rate made (contracts) by the declarer's own score at its bid (0: 0 or below; 20: 20 or above). "
             "A bid above one's score under `bid_over_score = penalty` costs +5 at once.", ""]
    buckets = sorted({int(k) for res in tables for a in res["agents"].values() for k in a["contracts_by_score"]})
    lines += ["| sheet | agent | " + " | ".join(map(str, buckets)) + " |", "|---|---|" + "---:|" * len(buckets)]
    for res in tables:
        for spec, a in res["agents"].items():
            by = a["contracts_by_score"]
            cells = [_rate(by[str(k)][1], by[str(k)][0]) if str(k) in by else "–" for k in buckets]
            lines.append(f"| {res['sheet']} | `{_short(spec)}` | " + " | ".join(cells) + " |")
    return lines + [""]


def _joins_by_score_section(tables: list[dict]) -> list[str]:
    lines = ["### Following along (följa med)", "",
             "Join decisions by the player's score when asked: decisions, the share that joined, the share of "
             "joins that took a trick afterwards, and the mean change of the player's score over the rest of "
             "the round after joining and after folding (negative = towards the win at 0). Observational: "
             "a bot joins where it expects to gain, so the columns compare its choices, not random ones.", ""]
    for res in tables:
        for spec, a in res["agents"].items():
            rows = a["joins_by_score"]
            if not rows:
                continue
            lines += [f"**{res['sheet']}, `{_short(spec)}`** ({a['join_decisions']} decisions)", "",
                      "| score | decisions | joined | took a trick | change after joining | change after folding |",
                      "|---:|---:|---:|---:|---:|---:|"]
            for k in sorted(rows, key=int):
                r = rows[k]
                took = f"{r['took_a_trick'] / r['joins']:.2f}" if r["joins"] else "–"
                lines.append(f"| {k} | {r['decisions']} | {r['joins'] / r['decisions']:.2f} | {took} | "
                             f"{_fmt(r['change_joined'], '+.2f')} | {_fmt(r['change_folded'], '+.2f')} |")
            lines.append("")
    return lines


def _join_experiments_section(experiments: list[dict]) -> list[str]:
    """The experiments' results: each has its ``sheet``, ``score``, ``label`` and the tested
    bot's (its first agent's) results ``agent``."""
    if not experiments:
        return []
    games = experiments[0]["agent"]["games"]
    lines = ["### Does following along pay? Round experiments", "",
             f"Single rounds ({games} per cell, the same deals in every cell of a sheet and score) with every seat "
             "on the same score; the sheet's best bot as it plays, forced to join whenever it may, and forced to "
             "fold whenever it may (`joins:always,base=…`, `joins:never,base=…`), against three heuristics. "
             "Win: the round ends with the bot on 0 (the game won); distance: its mean |score| after the round. "
             "Where always-join beats never-join, joining pays at that score; the bot's own choice should match "
             "the better one.", "",
             "| sheet | score | variant | win [95 % CI] | distance | join rate |", "|---|---:|---|---|---:|---:|"]
    for r in experiments:
        a = r["agent"]
        lines.append(f"| {r['sheet']} | {r['score']} | {r['label']} (`{_short(r['spec'], 40)}`) | {a['win_rate']:.3f} "
                     f"[{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}] | {_fmt(a['final_distance'])} | "
                     f"{_fmt(a['join_rate'])} |")
    # per sheet and score: which forced policy did better, and what the bot chose
    lines += ["", "| sheet | score | better forced choice (win) | the bot's join rate |", "|---|---:|---|---:|"]
    for sheet in dict.fromkeys(r["sheet"] for r in experiments):
        for score in dict.fromkeys(r["score"] for r in experiments if r["sheet"] == sheet):
            cell = {r["label"]: r["agent"] for r in experiments if r["sheet"] == sheet and r["score"] == score}
            always, never = cell["always joins"], cell["never joins"]
            if always["win_rate_ci"][0] > never["win_rate_ci"][1]:
                verdict = f"join ({always['win_rate']:.3f} vs {never['win_rate']:.3f})"
            elif never["win_rate_ci"][0] > always["win_rate_ci"][1]:
                verdict = f"fold ({never['win_rate']:.3f} vs {always['win_rate']:.3f})"
            else:
                verdict = f"no clear difference ({always['win_rate']:.3f} vs {never['win_rate']:.3f})"
            lines.append(f"| {sheet} | {score} | {verdict} | {_fmt(cell['as it plays']['join_rate'])} |")
    return lines + [""]
