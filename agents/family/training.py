"""What the trainer and its policies need from a game of the family, in common: no extra
features, the shaped rewards (a round's points against the others', / 10) and who holds
which card. A game's ``training.py`` names its game, priors and observation and takes the
rest from here.
"""

from __future__ import annotations

import hashlib

import numpy as np

from redbeard_env.family.layout import Layout

EXTRA_SIZE = 0
SHAPING_SCALE = 10.0  # points per unit of shaped reward


def extra(obs: np.ndarray) -> np.ndarray:
    return np.zeros((len(obs), 0), dtype=np.float32)


def layout_identity(game: str, layout: Layout, num_actions: int) -> dict[str, str]:
    """The observation and feature layout a policy of ``game`` was trained with (the
    observation, then the prior block)."""
    blocks = ";".join(f"{name}:{sl.start}:{sl.stop}" for name, sl in layout.slices.items())
    text = f"{game}|{blocks}|features:{layout.size + num_actions}:prior:{num_actions}"
    return {"obs_layout": hashlib.sha256(text.encode()).hexdigest()[:16]}


def score_gain(before: float, after: float, rules) -> float:
    """One seat's progress when its total changed from ``before`` to ``after``: the points / 10."""
    return (after - before) / SHAPING_SCALE


def round_gain(info: dict, rounds: np.ndarray, prev_distance: np.ndarray, rules) -> np.ndarray:
    """float32 [len(rounds), n]: each seat's points in the rounds just scored minus the
    others' mean, / 10 (``prev_distance`` is not needed: every round stands alone)."""
    delta = info["round_delta"][rounds].astype(np.float32)
    n = delta.shape[1]
    others = (delta.sum(1, keepdims=True) - delta) / max(n - 1, 1)
    return (delta - others) / SHAPING_SCALE


def held_cards(venv) -> np.ndarray:
    """bool [B, n, C]: who holds which card now in each game of the game's batch engine."""
    return np.asarray(venv.hands, dtype=bool)
