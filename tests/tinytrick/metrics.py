"""What a Tiny Trick tournament measures besides the shared win rates: the exact-bid rate."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from redbeard_env.metrics import MetricsBase


@dataclass
class Records(MetricsBase):
    exact: dict = field(default_factory=dict)  # spec -> [rounds, exact bids]

    COUNTS = ("exact",)
    COLUMNS = MetricsBase.COLUMNS + [("exact", 7, "exact_rate", ".3f")]

    def __post_init__(self):
        self.exact = {s: np.zeros(2, np.int64) for s in self.specs}

    def on_step(self, ev: dict, lineups: np.ndarray, mode: str) -> None:
        for b in np.flatnonzero(ev["round_over"]):
            for s, (bid, tricks) in enumerate(zip(ev["round_bids"][b], ev["round_tricks"][b])):
                self.exact[self.specs[lineups[b, s]]] += (1, int(bid == tricks))
        super().on_step(ev, lineups, mode)

    def agent_metrics(self, spec: str, rows: list[dict], mode: str) -> dict:
        rounds, exact = (int(x) for x in self.exact[spec])
        return {**super().agent_metrics(spec, rows, mode), "exact_rate": exact / rounds if rounds else None}
