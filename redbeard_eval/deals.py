"""Duplicate deals and seatings: what a tournament's games are made of.

Game ``d`` of a tournament fixes a deal sequence (:func:`deal_sequence`): the first dealer
and the deck of every deal, a function of ``(seed, d)`` only. It is replayed once per
distinct rotation of the lineup (:func:`distinct_rotations`), so every agent plays every
seat's cards.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["deal_sequence", "deal_sequences", "check_scores", "start_scores", "pooled_lineup", "distinct_rotations"]


def deal_sequence(seed: int, deal: int, num_players: int, num_decks: int, deck_size: int,
                  parts: int) -> tuple[int, np.ndarray]:
    """The first dealer and ``num_decks`` decks [K, parts * deck_size] of deal sequence
    ``deal``: they depend only on (seed, deal), never on how games are batched. A row is
    ``parts`` permutations of ``deck_size`` cards (the game's deck format, its ``Game``'s
    ``deck_size`` and ``deck_parts``: Rödskägg's 52 cards then the order in which thrown-in
    cards are reshuffled, Sortskæg's 42 cards alone)."""
    rng = np.random.default_rng([seed, deal, 7])
    dealer = int(rng.integers(num_players))
    decks = rng.permuted(np.tile(np.arange(deck_size, dtype=np.int8), (num_decks * parts, 1)), axis=1)
    return dealer, decks.reshape(num_decks, parts * deck_size)


def deal_sequences(seed: int, deals: np.ndarray, num_players: int, num_decks: int, deck_size: int,
                   parts: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`deal_sequence` for several deals (each computed once)."""
    deals = np.asarray(deals)
    uniq, inverse = np.unique(deals, return_inverse=True)
    out = [deal_sequence(seed, int(d), num_players, num_decks, deck_size, parts) for d in uniq]
    dealers = np.array([o[0] for o in out], dtype=np.int64)
    decks = np.stack([o[1] for o in out])
    return dealers[inverse], decks[inverse]


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def check_scores(scores: Any, num_players: int, score_range: tuple[int, int]) -> None:
    """Round mode's starting scores: ``None``, ``"sample"`` (then ``score_range`` = (lo, hi),
    ints with lo <= hi) or one int per seat; anything else is a ``ValueError``."""
    if scores is None:
        return
    if isinstance(scores, str):
        if scores != "sample":
            raise ValueError(f"scores must be one int per seat or 'sample', got {scores!r}")
        if len(score_range) != 2 or not all(map(_is_int, score_range)) or score_range[1] < score_range[0]:
            raise ValueError(f"score_range must be two ints lo <= hi, got {tuple(score_range)!r}")
        return
    if not isinstance(scores, (list, tuple, np.ndarray)) or not all(map(_is_int, scores)) or len(scores) != num_players:
        raise ValueError(f"scores needs one int per seat ({num_players}) or 'sample', got {scores!r}")


def start_scores(seed: int, deals: np.ndarray, num_players: int, scores: Any,
                 score_range: tuple[int, int]) -> np.ndarray | None:
    """Round mode: the starting scores [len(deals), n] (``None``: the rules' start score);
    ``scores`` is a list (one per seat) or ``"sample"`` (uniform in ``score_range``)."""
    check_scores(scores, num_players, score_range)
    if scores is None:
        return None
    deals = np.asarray(deals)
    if isinstance(scores, str):
        lo, hi = score_range
        return np.array([np.random.default_rng([seed, int(d), 11]).integers(lo, hi + 1, size=num_players)
                         for d in deals], dtype=np.int64).reshape(len(deals), num_players)
    return np.tile(np.array([int(s) for s in scores], dtype=np.int64), (len(deals), 1))


def pooled_lineup(specs: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    """The distinct specs (in order of first appearance) and each seat's index into them:
    identical specs are one pooled agent."""
    unique: list[str] = []
    for s in specs:
        if s not in unique:
            unique.append(s)
    return unique, tuple(unique.index(s) for s in specs)


def distinct_rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Distinct rotations of the lineup, as the agent index of each seat."""
    n = len(lineup)
    seen: list[tuple[int, ...]] = []
    for r in range(n):
        rot = tuple(lineup[(s + r) % n] for s in range(n))
        if rot not in seen:
            seen.append(rot)
    return seen
