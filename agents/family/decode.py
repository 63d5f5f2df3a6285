"""Observations of a family game as named arrays: the blocks every game of the family has
(:func:`redbeard_env.family.layout.table_blocks` and ``seat_blocks``), decoded from the game's
``Layout``. A game's ``decode.py`` subclasses :class:`FamilyObs` with its own blocks (the rules,
the turned card, ...) and builds it from :func:`decode_family`'s fields.

Every field has a leading batch axis; per-position fields are indexed by relative position
(0 = the observer, 1 = its left, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from redbeard_env.family.game import PHASE_NAMES
from redbeard_env.family.layout import Layout

PHASE = {name: code for code, name in enumerate(PHASE_NAMES)}


@dataclass
class FamilyObs:
    phase: np.ndarray  # int [B]
    num_players: np.ndarray  # int [B]
    hand_size: np.ndarray  # int [B] (0 when over)
    hand: np.ndarray  # bool [B, C]
    played: np.ndarray  # bool [B, C] finished tricks of this round
    trick: np.ndarray  # bool [B, C]
    led: np.ndarray  # int [B]: led colour, -1 none
    bid: np.ndarray  # int [B, P]: -1 not yet
    tricks: np.ndarray  # int [B, P]
    score: np.ndarray  # float [B, P] (approximate: the block times its scale)
    score_gap: np.ndarray  # float [B, P]: score - best score
    dealer: np.ndarray  # int [B] position
    leader: np.ndarray  # int [B] position (-1 outside play)
    winning: np.ndarray  # int [B] position holding the winning card of the trick (-1 none)
    trick_played: np.ndarray  # bool [B, P]
    voids: np.ndarray  # bool [B, P, colours]

    @property
    def tricks_done(self) -> np.ndarray:
        return self.tricks.sum(1)


class Blocks:
    """A batch of observations read by block name."""

    def __init__(self, obs: np.ndarray, layout: Layout):
        self.obs, self.layout = obs, layout

    def __getitem__(self, name: str) -> np.ndarray:
        return self.obs[:, self.layout.slices[name]]

    def position(self, name: str) -> np.ndarray:
        """Relative position one-hot -> position (-1 when none)."""
        blk = self[name]
        return np.where(blk.any(1), blk.argmax(1), -1)

    def per_position(self, name: str, width: int) -> np.ndarray:
        """A per-position block as [B, positions, width]."""
        return self[name].reshape(-1, self.layout.positions, width)


def decode_family(obs: np.ndarray, layout: Layout, game: str) -> tuple[Blocks, dict]:
    """The observations' blocks and the :class:`FamilyObs` fields from them; ``ValueError``
    naming the ``game`` for a batch of another shape."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != layout.size:
        raise ValueError(f"{game} observations must have shape [B, {layout.size}], got {obs.shape}")
    b, L = Blocks(obs, layout), layout
    hs = b["hand_size"]
    fields = dict(
        phase=b["phase"].argmax(1),
        num_players=b["num_players"].argmax(1) + L.min_players,
        hand_size=np.where(hs.any(1), hs.argmax(1) + 1, 0),
        hand=b["hand"] > 0.5,
        played=b["played"] > 0.5,
        trick=b["trick"] > 0.5,
        led=b["led"].argmax(1) - 1,
        bid=b.per_position("bid", L.max_bid + 2).argmax(2) - 1,
        tricks=b.per_position("tricks", L.max_hand + 1).argmax(2),
        score=b["score"] * L.score_scale,
        score_gap=b["score_gap"] * L.gap_scale,
        dealer=b.position("dealer"),
        leader=b.position("leader"),
        winning=b.position("trick_winning"),
        trick_played=b["trick_played"] > 0.5,
        voids=b.per_position("voids", L.colours) > 0.5,
    )
    return b, fields


__all__ = ["PHASE", "FamilyObs", "Blocks", "decode_family"]
