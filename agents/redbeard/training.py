"""What the trainer and its policies need from Rödskägg.

Features (:mod:`agents.ppo`): the observation (542), then a hand-strength block (14),
then the prior block (69) -> 625.

Hand strength: the table estimate (:mod:`agents.redbeard.handeval`) of the probability
of taking 0..6 tricks with the observer's hand as declarer (7) and as a follower (7), under
the game's leader rule and player count, while the hand holds all six cards (zeros
afterwards). Bidding most needs this and is the hardest to learn from 52 card bits alone.

Shaped reward (:func:`round_gain`, the trainer's ``reward: shaped``): at every scored
round, the distance to zero gained, / start_score; the state it keeps per seat is the
distance after the last scored round (:func:`shaping_start`).

Games near zero (the trainer's ``start_scores``: :func:`check_start_scores`,
:func:`start_games`): a share of the training games starts with every seat on a score
between 1 and the start score, where following along and the last contracts are decided.
The ablation's round probe (:data:`ROUND_PROBE`): the join rate of rounds started at 2 points.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from redbeard_env.redbeard import game as G
from agents.redbeard import handeval
from redbeard_env.redbeard.cards import NUM_ACTIONS, NUM_CARDS
from redbeard_env.redbeard.observation import MIN_PLAYERS, OBS_SIZE, OBS_SLICES, OFF, RULES_SIZE
from redbeard_env.redbeard.rules import CHOICES, HAND_SIZE

GAME = "redbeard"
EXTRA_SIZE = 14  # hand strength: P(0..6 tricks) as declarer, then as a follower
PRIORS = ("", "heuristic")  # "" = no prior
DESCRIPTION = "observation+handeval14+prior69"
# where the leader rule sits in the observation's rules block (categoricals in CHOICES order)
_LEADER_COL = OFF["rules"] + sum(len(v) for k, v in CHOICES.items() if list(CHOICES).index(k) < list(CHOICES).index("leader"))
assert _LEADER_COL + len(CHOICES["leader"]) <= OFF["rules"] + RULES_SIZE
assert EXTRA_SIZE == 2 * (HAND_SIZE + 1)


def extra(obs: np.ndarray) -> np.ndarray:
    """float32 [B, 14]: the hand-strength block of each observation row."""
    out = np.zeros((len(obs), EXTRA_SIZE), dtype=np.float32)
    hands = obs[:, OBS_SLICES["hand"]] > 0.5
    full = np.flatnonzero(hands.sum(1) == HAND_SIZE)
    if len(full) == 0:
        return out
    players = MIN_PLAYERS + obs[full, OBS_SLICES["num_players"]].argmax(1)
    trick_winner = obs[full, _LEADER_COL + CHOICES["leader"].index("trick_winner")] > 0.5
    half = EXTRA_SIZE // 2
    for n in np.unique(players):
        for tw in (False, True):
            rows = full[(players == n) & (trick_winner == tw)]
            if len(rows):
                leader = "trick_winner" if tw else "declarer"
                out[rows, :half] = handeval.trick_distribution(hands[rows], int(n), "declarer", leader=leader)
                out[rows, half:] = handeval.trick_distribution(hands[rows], int(n), "follower", leader=leader)
    return out


def _digest(text: "str | bytes") -> str:
    return hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()[:16]


def identity() -> dict[str, str]:
    """What a policy's play depends on besides its weights and prior: the hand-evaluation
    table (hash of its file) and the observation and feature layout."""
    layout = ";".join(f"{name}:{sl.start}:{sl.stop}" for name, sl in OBS_SLICES.items())
    size = OBS_SIZE + EXTRA_SIZE + NUM_ACTIONS
    return {"handeval_table": _digest(Path(handeval.TABLE_PATH).read_bytes()),
            "obs_layout": _digest(f"{layout}|features:{size}:{EXTRA_SIZE}:{NUM_ACTIONS}")}


def score_gain(before: float, after: float, rules) -> float:
    """One seat's progress when its score changed from ``before`` to ``after``: the
    distance to zero gained, / start_score."""
    return (abs(before) - abs(after)) / abs(rules.start_score)


def round_gain(info: dict, rounds: np.ndarray, prev_distance: np.ndarray, rules) -> np.ndarray:
    """float32 [len(rounds), n]: each seat's distance to zero gained in the rounds just
    scored (rows ``rounds`` of the batch engine's ``info``), / start_score;
    ``prev_distance`` [B, n] (each seat's |score| after its last scored round) is updated."""
    dist = np.abs(info["round_score"][rounds] if "round_score" in info else info["score"][rounds]).astype(np.float32)
    gain = (prev_distance[rounds] - dist) / abs(rules.start_score)
    prev_distance[rounds] = dist
    return gain


def shaping_start(scores: np.ndarray) -> np.ndarray:
    """The shaped reward's state of each seat of games starting at ``scores``: the distance
    to zero."""
    return np.abs(scores).astype(np.float32)


def check_start_scores(rules, low: int, high: int) -> None:
    """``ValueError`` unless training games may start at scores ``low..high`` under ``rules``."""
    if not 1 <= low <= high <= rules.start_score:
        raise ValueError(f"must be [LO, HI] with 1 <= LO <= HI <= the start score ({rules.start_score}), or [] (off)")


def start_games(venv, rules, slots: np.ndarray, scores: np.ndarray, rng: np.random.Generator):
    """Games dealt from ``rng`` with each seat on ``scores`` (a row per slot), loaded into
    ``slots`` of the batch engine ``venv``; returns its ``(obs, mask, seat)``."""
    games = [G.new_game(rules, venv.num_players, rng, scores=[int(x) for x in row]) for row in scores]
    return venv.load_games(games, slots)


#: the ablation's probe of a trained policy (redbeard_train.ablation): its column, the score
#: every seat starts the probed rounds at, and the metric read (rounds against heuristics)
ROUND_PROBE = ("joins from 2 points", 2, "join_rate")


def held_cards(venv) -> np.ndarray:
    """bool [B, n, 52]: who holds which card now in each game of Rödskägg's batch engine
    (its hands are uint64 bitmasks per seat)."""
    bits = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
    return (venv.hands[:, :, None] & bits) != 0
