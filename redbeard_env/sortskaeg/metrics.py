"""What a Sortskæg tournament measures, for :mod:`redbeard_eval` (the protocol is in
:mod:`redbeard_eval.metrics`): the family's metrics (:mod:`redbeard_env.family.metrics`:
exact-bid rate by hand size, the bid x tricks calibration, bid error and bias) for bids and
tricks 0..7 and hand sizes 1..7.
"""

from __future__ import annotations

from ..family.metrics import Records as _FamilyRecords
from .cards import MAX_BID

__all__ = ["Records"]


class Records(_FamilyRecords):
    """Sortskæg's metrics (see the family's)."""

    SIZES = MAX_BID + 1
