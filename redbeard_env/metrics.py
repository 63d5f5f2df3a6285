"""What every game's tournament metrics share: :class:`MetricsBase`, the defaults of the
protocol that :mod:`redbeard_eval.metrics` describes and
:class:`redbeard_env.contract.TournamentMetrics` lists. A game's ``metrics.py`` subclasses
it (its ``Records``) and overrides what it measures besides the shared win rates: the rows
and counts it keeps, its ``agent_metrics``, the report's ``COLUMNS``, ``table_notes`` and
``success_plot``, and the research report's sections.

The defaults measure nothing of the game's own: a win shared by k seats counts 1/k for
each (in round mode: a share of the top total after the round), and an agent's metrics
are its mean final score and mean rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .common import mean_or_none, merge_counts

__all__ = ["MetricsBase"]


@dataclass
class MetricsBase:
    """A game's tournament metrics, with every hook of the protocol a default."""

    num_players: int
    specs: list[str]
    rules: Any = None  # the tournament's Rules
    seat_rows: list[dict] = field(default_factory=list)
    round_rows: list[dict] = field(default_factory=list)

    #: per-agent count arrays (attributes: spec -> array) that merge adds up
    COUNTS: ClassVar[tuple[str, ...]] = ()
    #: the table's metric columns after the shared ones: (header, width, results key, format)
    COLUMNS: ClassVar[list] = [("score", 8, "mean_final_score", ".1f"), ("rounds", 8, "mean_rounds", ".1f")]

    # ------------------------------------------------------------ the tournament's protocol
    def begin(self, slots: int, scores: np.ndarray) -> None:
        """Before a shard's games (their starting scores [slots, n])."""

    def on_decisions(self, live, obs, actions, seat, lineups) -> None:
        """Before each step: the acting seats' observations and actions."""

    def on_step(self, ev: dict, lineups: np.ndarray, mode: str) -> None:
        """After each step; in round mode a scored round ends its slot's job."""
        if mode == "round":
            ev["done"][ev["round_over"]] = True

    def won(self, ev: dict, b: int, s: int, mode: str) -> float:
        """The seat's share of the win: 1/k for each of k seats sharing it (of the game; in
        round mode, of the top total after the round)."""
        winners = ev["score"][b] == ev["score"][b].max() if mode == "round" else ev["winners"][b]
        return float(winners[s]) / max(int(winners.sum()), 1)

    def seat_fields(self, b: int, s: int) -> dict:
        """The game's own columns of a finished game's row for seat ``s`` (games.csv)."""
        return {}

    def end(self) -> None:
        """After the shard's last step."""

    def merge(self, part: "MetricsBase") -> None:
        merge_counts(self, part, self.COUNTS)

    def agent_metrics(self, spec: str, rows: list[dict], mode: str) -> dict:
        """The game's metrics of one agent, from its rows (and what the hooks counted)."""
        return {"mean_final_score": mean_or_none([r["final_score"] for r in rows]),
                "mean_rounds": mean_or_none([r["rounds"] for r in rows])}

    # ------------------------------------------------------------ what the report shows
    @classmethod
    def table_notes(cls, agents: dict) -> list[str]:
        """Lines under the results table."""
        return []

    @classmethod
    def success_plot(cls, agents: dict) -> dict | None:
        """The game's success rate to plot (``series``, ``xlabel``, ``ylabel``, ``file``,
        ``xticks``, ``bid_labels``; the bid x tricks ``calibration`` of each agent is drawn
        beside it), or None for none."""
        return None

    # ------------------------------------------------------------ the research report (redbeard_eval.research)
    @staticmethod
    def research_experiments(sheet: str, best: str) -> list[dict]:
        return []

    @classmethod
    def research_sections(cls, tables: list[dict], experiments: list[dict]) -> list[str]:
        return []
