"""Oh Hell's game records: the family's (:mod:`redbeard_env.family.records`, which documents a
record's fields), with the turned card in each deal::

    {"format": "redbeard-record", "version": 1, "game": "oh_hell",
     "rules": {"num_tricks": -1, "num_suits": 4, ...}, "players": 4, "agents": [...], "seed": 7,
     "start_scores": [0, 0, 0, 0],
     "deals": [{"round": 0, "dealer": 2, "hands": [["2C", "AS", ...], ...], "trump_card": "QH"}],
     "actions": [[3, "bid:2"], [0, "play:AS"], ...],
     "rounds": [{"round": 0, "dealer": 2, "hand_size": 5, "bids": [...], "tricks": [...],
                 "points": [...], "scores": [...]}],
     "scores": [...OpenSpiel's returns...], "winners": [1], "rounds_played": 1, "meta": {...}}
"""

from __future__ import annotations

from ..family.records import FamilyRecords
from ..family.records import Recorder as _FamilyRecorder

__all__ = ["Recorder", "check_structure", "replay", "start_replay", "apply_recorded", "validate"]


class Recorder(_FamilyRecorder):
    """Records an Oh Hell game as it is played (see the family's Recorder)."""

    game_name = "oh_hell"


check_structure, start_replay, apply_recorded, replay, validate = FamilyRecords(Recorder).functions()
