"""Sortskæg observations as named arrays (the inverse of
:mod:`redbeard_env.sortskaeg.observation` for the parts bots use): the family's fields
(:class:`agents.family.decode.FamilyObs`) and Sortskæg's own.

``decode_batch(obs)`` -> :class:`SObs`: every field has a leading batch axis; per-position
fields are indexed by relative position (0 = the observer, 1 = its left, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from redbeard_env.sortskaeg.cards import NUM_CARDS
from redbeard_env.sortskaeg.observation import LAYOUT, POSITIONS, ROUND_SCALE

from ..family.decode import PHASE, FamilyObs, decode_family

P = POSITIONS


@dataclass
class SObs(FamilyObs):
    carry: np.ndarray  # bool [B]: deal = carry
    dealer_hook: np.ndarray  # bool [B]
    round: np.ndarray  # int [B]: index of the current round
    rounds_left: np.ndarray  # int [B]: rounds after this one
    seen_game: np.ndarray  # bool [B, 42] (carry)
    took_back: np.ndarray  # bool [B, P, 42] (carry): cards each position took back after the last round
    rules_fields: np.ndarray  # float [B, 8]: the rules block


def decode_batch(obs: np.ndarray) -> SObs:
    b, fields = decode_family(obs, LAYOUT, "Sortskæg")
    rules, prog = b["rules"], b["progress"]
    return SObs(
        **fields,
        carry=rules[:, 1] > 0.5,
        dealer_hook=rules[:, 2] > 0.5,
        round=np.rint(prog[:, 0] * ROUND_SCALE).astype(np.int64),
        rounds_left=np.rint(prog[:, 1] * ROUND_SCALE).astype(np.int64),
        seen_game=b["seen_game"] > 0.5,
        took_back=b.per_position("took_back", NUM_CARDS) > 0.5,
        rules_fields=rules,
    )


__all__ = ["SObs", "decode_batch", "PHASE", "P", "NUM_CARDS"]
