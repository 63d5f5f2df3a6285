"""Tiny Trick's tournament engine: the reference engine only (it has no batch engine), with
each round's bids and tricks reported."""

from __future__ import annotations

from redbeard_env.engine import ReferenceBatchBase

from . import records
from .parts import TINYTRICK

ROUND_FIELDS = {"round_bids": (-1, True)}
ROUND_KEYS = (*ROUND_FIELDS, "round_tricks")


class ReferenceBatch(ReferenceBatchBase):
    parts = TINYTRICK
    records = records
    round_fields = ROUND_FIELDS

    def round_events(self, ev: dict, b: int, event: tuple) -> None:
        _, _, bids, tricks, _ = event
        ev["round_bids"][b] = bids
        ev["round_tricks"][b] = tricks


ENGINES = {"reference": ReferenceBatch}
