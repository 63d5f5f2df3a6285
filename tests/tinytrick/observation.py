"""What one seat of Tiny Trick may know, as named blocks (seats relative to the observer:
0 = itself): its hand, the running trick, the cards played this deal, every bid (one-hot,
the last entry: none yet), tricks taken, scores / 50, the phase, the player count, the
rules (hand size and rounds / 3) and the rounds scored / 3."""

from __future__ import annotations

import numpy as np

from redbeard_env.common import block_layout, constant_blocks

from . import cards as C
from .game import PHASE_NAMES
from .rules import MAX_HAND, MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS

OBS_BLOCKS = {"hand": C.NUM_CARDS, "trick": C.NUM_CARDS, "played": C.NUM_CARDS,
              "bids": MAX_PLAYERS * (MAX_HAND + 2), "tricks": MAX_PLAYERS, "scores": MAX_PLAYERS,
              "phase": len(PHASE_NAMES), "num_players": MAX_PLAYERS - MIN_PLAYERS + 1, "rules": 2, "round": 1}
OBS_SLICES, OFF, OBS_SIZE = block_layout(OBS_BLOCKS)
assert OBS_SIZE == 3 * 12 + 4 * 5 + 4 + 4 + 3 + 3 + 2 + 1
OBS_LOW, OBS_HIGH = -1.0, 1.0


def static_prefix(rules, num_players: int) -> np.ndarray:
    vec = np.array([rules.hand_size / MAX_HAND, rules.num_rounds / MAX_ROUNDS], np.float32)
    return constant_blocks(OBS_SIZE, OBS_SLICES, num_players - MIN_PLAYERS, vec)


def encode(g, observer: int, prefix: np.ndarray | None = None) -> np.ndarray:
    obs = static_prefix(g.rules, g.num_players) if prefix is None else prefix.copy()
    obs[[OFF["hand"] + c for c in g.hands[observer]]] = 1.0
    obs[[OFF["trick"] + c for _, c in g.trick]] = 1.0
    obs[[OFF["played"] + c for c in g.played]] = 1.0
    for s in range(g.num_players):
        rel = (s - observer) % g.num_players
        bid = g.bids[s]
        obs[OFF["bids"] + rel * (MAX_HAND + 2) + (MAX_HAND + 1 if bid is None else bid)] = 1.0
        obs[OFF["tricks"] + rel] = g.tricks[s] / MAX_HAND
        obs[OFF["scores"] + rel] = np.clip(g.scores[s] / 50, -1.0, 1.0)
    obs[OFF["phase"] + PHASE_NAMES.index(g.phase)] = 1.0
    obs[OFF["round"]] = g.round / MAX_ROUNDS
    return obs
