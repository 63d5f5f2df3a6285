"""Sortskæg's game records: the family's (:mod:`redbeard_env.family.records`, which documents a
record's fields) under Sortskæg's name::

    {"format": "redbeard-record", "version": 1, "game": "sortskaeg",
     "rules": {"hand_sizes": [7, 6, ...], "deal": "fresh", ...}, "players": 4, "agents": [...],
     "seed": 7, "start_scores": [0, 0, 0, 0],
     "deals": [{"round": 0, "dealer": 2, "hands": [["R7", "Y10", ...], ...]}, ...],
     "actions": [[3, "bid:2"], [0, "play:Y10"], [1, "discard:R2"], ...],
     "rounds": [{"round": 0, "dealer": 2, "hand_size": 7, "bids": [...], "tricks": [...],
                 "points": [...], "scores": [...]}, ...],
     "scores": [...final...], "winners": [1], "rounds_played": 13, "meta": {...}}

Under ``deal = carry`` a deal starts every round but those a discard leads into.
"""

from __future__ import annotations

from ..family.records import FamilyRecords
from ..family.records import Recorder as _FamilyRecorder

__all__ = ["Recorder", "check_structure", "replay", "start_replay", "apply_recorded", "validate"]


class Recorder(_FamilyRecorder):
    """Records a Sortskæg game as it is played (see the family's Recorder)."""

    game_name = "sortskaeg"


check_structure, start_replay, apply_recorded, replay, validate = FamilyRecords(Recorder).functions()
