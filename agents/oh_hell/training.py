"""What the trainer and its policies need from Oh Hell.

Features (:mod:`agents.ppo`): the observation (1012), then the prior block (70) -> 1082; no
extra block. Shaped reward (:func:`round_gain`): the deal's points minus the others' mean, / 10.
"""

from __future__ import annotations

import hashlib

import numpy as np

from redbeard_env.oh_hell.cards import NUM_ACTIONS
from redbeard_env.oh_hell.observation import OBS_SIZE, OBS_SLICES

GAME = "oh_hell"
EXTRA_SIZE = 0
PRIORS = ("", "heuristic")
DESCRIPTION = "observation+prior70"
SHAPING_SCALE = 10.0  # points per unit of shaped reward


def extra(obs: np.ndarray) -> np.ndarray:
    return np.zeros((len(obs), 0), dtype=np.float32)


def identity() -> dict[str, str]:
    """The observation and feature layout a policy was trained with."""
    layout = ";".join(f"{name}:{sl.start}:{sl.stop}" for name, sl in OBS_SLICES.items())
    text = f"{GAME}|{layout}|features:{OBS_SIZE + NUM_ACTIONS}:prior:{NUM_ACTIONS}"
    return {"obs_layout": hashlib.sha256(text.encode()).hexdigest()[:16]}


def score_gain(before: float, after: float, rules) -> float:
    """One seat's progress when its points changed from ``before`` to ``after``: the points / 10."""
    return (after - before) / SHAPING_SCALE


def round_gain(info: dict, rounds: np.ndarray, prev_distance: np.ndarray, rules) -> np.ndarray:
    """float32 [len(rounds), n]: each seat's points in the deals just scored minus the others'
    mean, / 10."""
    delta = info["round_delta"][rounds].astype(np.float32)
    n = delta.shape[1]
    others = (delta.sum(1, keepdims=True) - delta) / max(n - 1, 1)
    return (delta - others) / SHAPING_SCALE


def held_cards(venv) -> np.ndarray:
    """bool [B, n, 52]: who holds which card now in each game of Oh Hell's batch engine."""
    return np.asarray(venv.hands, dtype=bool)
