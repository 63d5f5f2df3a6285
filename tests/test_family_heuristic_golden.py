"""The family heuristics' action values (Sortskæg's, Oh Hell's) on recorded positions
(tests/golden/<game>_heuristic_values.npz, made by
tests/golden/make_family_heuristic_golden.py with the earlier numpy implementations): the
same legal actions valued, the same values up to TOLERANCE, the same decisions except where
the recorded values of the two best actions are within TOLERANCE of each other.

TOLERANCE: the compiled implementation keeps numpy's order of operations, but numpy's
vectorised ``power`` and libm's may differ in the last bit for some inputs."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from golden.make_family_heuristic_golden import CONFIGS, golden_file
from golden.make_heuristic_golden import assert_values_match

TOLERANCE = 1e-9


def load(game):
    return np.load(golden_file(game))


@pytest.mark.parametrize("game", sorted(CONFIGS))
@pytest.mark.parametrize("k", [0, 1])
def test_heuristic_values_match_the_recorded_ones(game, k):
    golden = load(game)
    spec = str(golden["specs"][k])
    obs, mask, want = golden["obs"], golden["mask"], golden["values"][k]
    bot = make_agent(spec, game=game)
    assert_values_match(bot, spec, obs, mask, want, TOLERANCE)


def test_the_sortskaeg_positions_cover_every_phase_and_table():
    from agents.sortskaeg.decode import decode_batch

    v = decode_batch(load("sortskaeg")["obs"])
    assert (np.bincount(v.phase, minlength=3)[:3] > 50).all()  # bid, play, discard
    assert set(np.unique(v.num_players)) == {2, 3, 4, 5, 6}
    assert v.carry.any() and (~v.carry).any() and v.dealer_hook.any()
    assert (v.trick.any(1) & (v.led < 0)).any()  # tricks led by a joker


def test_the_oh_hell_positions_cover_every_phase_and_table():
    from agents.oh_hell.decode import decode_batch

    v = decode_batch(load("oh_hell")["obs"])
    assert (np.bincount(v.phase, minlength=2)[:2] > 50).all()  # bid, play
    assert set(np.unique(v.num_players)) == {3, 4, 5, 6, 7}
    assert set(np.unique(v.trumps)) == {0, 1, 2, 3}  # every suit as trumps (a card is always turned)
    assert v.off_bid_penalty.any() and (v.num_suits == 3).any()
