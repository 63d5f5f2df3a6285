"""What a tournament of a family game measures, for :mod:`redbeard_eval` (the protocol is in
:mod:`redbeard_eval.metrics`); a game's ``metrics.py`` subclasses :class:`Records`, setting
``SIZES`` (its bids, tricks and hand sizes are 0..SIZES-1) and adding its own.

Every player bids every round, so every round-seat is a bid: per agent, a bid x tricks
table (``calibration``) and the exact-bid counts by hand size.

Metrics per agent (besides the shared games, win rate with CI, parity, rating):

* ``exact_rate``: rounds in which the agent took exactly its bid / rounds;
  ``exact_by_hand_size``: the same per hand size 1..SIZES-1 (None where no round had it),
  ``rounds_by_hand_size``: the round counts behind them;
* ``bid_error`` = mean |tricks - bid|, ``bid_bias`` = mean (tricks - bid) (positive: the
  agent underbids), ``mean_bid``;
* ``calibration``: the bid x tricks counts (rows: bids, columns: tricks);
* ``mean_final_score``, ``mean_round_points`` (final score / rounds), ``mean_rounds``.

A win shared by k players counts 1/k for each (``won`` in games.csv), so win rates sum
to 1 over the seats and parity stays 1/n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..common import mean_or_none as _mean, merge_counts

__all__ = ["Records"]


@dataclass
class Records:
    """The family's metrics; a game's subclass sets ``SIZES`` (bids, tricks and hand sizes
    0..SIZES-1; index 0 of the hand sizes unused)."""

    SIZES = 0
    num_players: int
    specs: list[str]
    rules: Any = None  # the tournament's Rules (not needed: every round's facts are in its events)
    seat_rows: list[dict] = field(default_factory=list)
    round_rows: list[dict] = field(default_factory=list)
    calib: dict = field(default_factory=dict)  # spec -> [bid, tricks] counts
    by_size: dict = field(default_factory=dict)  # spec -> [hand size, (rounds, exact)]

    def __post_init__(self):
        for s in self.specs:
            self.calib[s] = np.zeros((self.SIZES, self.SIZES), np.int64)
            self.by_size[s] = np.zeros((self.SIZES, 2), np.int64)

    # ------------------------------------------------------------ the tournament's protocol
    def begin(self, slots: int, scores: np.ndarray) -> None:
        self.slot_exact = np.zeros((slots, self.num_players), np.int64)
        self.slot_rounds = np.zeros((slots, self.num_players), np.int64)

    def on_decisions(self, live, obs, actions, seat, lineups) -> None:
        pass  # everything is in the scored rounds

    def on_step(self, ev: dict, lineups: np.ndarray, mode: str) -> None:
        for b in np.flatnonzero(ev["round_over"]):
            size = int(ev["round_hand_size"][b])
            for s, (bid, tricks) in enumerate(zip(ev["round_bids"][b], ev["round_tricks"][b])):
                spec = self.specs[lineups[b, s]]
                exact = int(bid == tricks)
                self.calib[spec][bid, tricks] += 1
                self.by_size[spec][size] += (1, exact)
                self.slot_exact[b, s] += exact
                self.slot_rounds[b, s] += 1
            if mode == "round":
                ev["done"][b] = True  # a single round: the job ends with its scoring

    def won(self, ev: dict, b: int, s: int, mode: str) -> float:
        """The seat's share of the win: 1/k for each of k players tied on top (of the game;
        in round mode, of the totals after the round)."""
        winners = ev["score"][b] == ev["score"][b].max() if mode == "round" else ev["winners"][b]
        return float(winners[s]) / max(int(winners.sum()), 1)

    def seat_fields(self, b: int, s: int) -> dict:
        return {"exact": int(self.slot_exact[b, s]), "bids": int(self.slot_rounds[b, s])}

    def end(self) -> None:
        del self.slot_exact, self.slot_rounds

    def merge(self, part: "Records") -> None:
        merge_counts(self, part, ("calib", "by_size"))

    def agent_metrics(self, spec: str, rows: list[dict], mode: str) -> dict:
        calib, by_size, SIZES = self.calib[spec], self.by_size[spec], self.SIZES
        rounds = int(calib.sum())
        bid = np.arange(SIZES)[:, None]
        diff = np.arange(SIZES)[None, :] - bid
        return {
            "rounds_bid": rounds,
            "exact_rate": float(np.trace(calib) / rounds) if rounds else None,
            "exact_by_hand_size": {str(h): (float(by_size[h, 1] / by_size[h, 0]) if by_size[h, 0] else None)
                                   for h in range(1, SIZES)},
            "rounds_by_hand_size": {str(h): int(by_size[h, 0]) for h in range(1, SIZES)},
            "bid_error": float((calib * np.abs(diff)).sum() / rounds) if rounds else None,
            "bid_bias": float((calib * diff).sum() / rounds) if rounds else None,
            "mean_bid": float((calib * bid).sum() / rounds) if rounds else None,
            "mean_final_score": _mean([r["final_score"] for r in rows]),
            "mean_round_points": _mean([r["final_score"] / max(r["rounds"], 1) for r in rows]),
            "mean_rounds": _mean([r["rounds"] for r in rows]),
            "calibration": calib.tolist(),
        }

    # ------------------------------------------------------------ what the report shows
    #: the table's metric columns after the shared ones: (header, width, results key, format)
    COLUMNS = [("exact", 7, "exact_rate", ".3f"), ("bid_err", 8, "bid_error", ".2f"), ("bias", 7, "bid_bias", "+.2f"),
               ("score", 8, "mean_final_score", ".1f")]

    @classmethod
    def table_notes(cls, agents: dict) -> list[str]:
        SIZES = cls.SIZES
        return [f"exact bids by hand size 1..{SIZES - 1}: " + "; ".join(
            f"{name[-16:]} " + " ".join("-" if a["exact_by_hand_size"][str(h)] is None else f"{a['exact_by_hand_size'][str(h)]:.2f}"
                                        for h in range(1, SIZES))
            for name, a in agents.items())]

    @classmethod
    def success_plot(cls, agents: dict) -> dict:
        """Exact bids by hand size, per agent (and the calibration's row labels)."""
        SIZES = cls.SIZES
        series = {a: {h: m["exact_by_hand_size"][str(h)] for h in range(1, SIZES)} for a, m in agents.items()}
        return {"series": series, "xlabel": "hand size", "ylabel": "exact-bid rate", "file": "exact_by_hand_size",
                "xticks": None, "bid_labels": [str(k) for k in range(SIZES)]}

    # ------------------------------------------------------------ the research report (redbeard_eval.research)
    @staticmethod
    def research_experiments(sheet: str, best: str) -> list[dict]:
        return []

    @classmethod
    def research_sections(cls, tables: list[dict], experiments: list[dict]) -> list[str]:
        """The family's section: exact bids by hand size, per agent, with the rounds behind them."""
        SIZES = cls.SIZES
        lines = ["Exact bids by hand size (rounds):", "",
                 "| sheet | agent | " + " | ".join(str(h) for h in range(1, SIZES)) + " | mean bid |",
                 "|---|---|" + "---:|" * SIZES]
        for res in tables:
            for spec, a in res["agents"].items():
                cells = ["–" if a["exact_by_hand_size"][str(h)] is None else
                         f"{a['exact_by_hand_size'][str(h)]:.2f} ({a['rounds_by_hand_size'][str(h)]})" for h in range(1, SIZES)]
                mean_bid = "–" if a["mean_bid"] is None else f"{a['mean_bid']:.2f}"
                lines.append(f"| {res['sheet']} | `{spec}` | " + " | ".join(cells) + f" | {mean_bid} |")
        return lines + [""]
