"""What an Oh Hell tournament measures, for :mod:`redbeard_eval` (the protocol is in
:mod:`redbeard_eval.metrics`): the family's metrics (:mod:`redbeard_env.family.metrics`:
exact-bid rate by hand size, the bid x tricks calibration, bid error and bias) for hands up to
17, and the points -- OpenSpiel's return -- with a 95 % confidence interval.

Metrics per agent (besides the shared games, win rate with CI, parity, rating):

* ``mean_points``, ``points_ci`` ([lo, hi]: mean +- 1.96 standard errors over its games),
  ``points_sd``;
* ``exact_rate``, ``exact_by_hand_size`` (hand sizes 1..17), ``rounds_by_hand_size``,
  ``bid_error``, ``bid_bias``, ``mean_bid``, ``calibration`` (bids 0..17 by tricks 0..17).

A deal's win goes to the players with the most points (a shared win counts 1/k each).
"""

from __future__ import annotations

import numpy as np

from ..family.metrics import Records as _FamilyRecords
from .cards import MAX_BID

__all__ = ["Records"]


class Records(_FamilyRecords):
    """Oh Hell's metrics (see the module docstring)."""

    SIZES = MAX_BID + 1

    def agent_metrics(self, spec: str, rows: list[dict], mode: str) -> dict:
        out = super().agent_metrics(spec, rows, mode)
        points = np.array([r["final_score"] for r in rows], dtype=float)
        if len(points):
            sd = float(points.std(ddof=1)) if len(points) > 1 else 0.0
            half = 1.96 * sd / np.sqrt(len(points))
            out.update(mean_points=float(points.mean()), points_sd=sd,
                       points_ci=[float(points.mean() - half), float(points.mean() + half)])
        else:
            out.update(mean_points=None, points_sd=None, points_ci=None)
        return out

    #: the table's metric columns after the shared ones: (header, width, results key, format)
    COLUMNS = [("points", 8, "mean_points", ".2f"), ("exact", 7, "exact_rate", ".3f"),
               ("bid_err", 8, "bid_error", ".2f"), ("bias", 7, "bid_bias", "+.2f")]

    @classmethod
    def table_notes(cls, agents: dict) -> list[str]:
        ci = "; ".join(f"{name[-16:]} [{a['points_ci'][0]:.2f}, {a['points_ci'][1]:.2f}]"
                       for name, a in agents.items() if a.get("points_ci"))
        return [f"points 95% CI: {ci}"] + super().table_notes(agents)
