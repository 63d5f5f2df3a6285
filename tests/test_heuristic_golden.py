"""The heuristic's action values on recorded positions (tests/golden/heuristic_values.npz,
made by tests/golden/make_heuristic_golden.py with the earlier numpy implementation):
the same legal actions valued, the same values up to TOLERANCE, the same decisions except
where the recorded values of the two best actions are within TOLERANCE of each other.

TOLERANCE: the compiled implementation keeps numpy's order of operations, but numpy's
vectorised ``exp``/``log1p``/``power`` and libm's differ in the last bit for some inputs;
such a difference stays around 1e-15 of the value through the arithmetic that follows."""

from __future__ import annotations

import numpy as np
import pytest

from agents.redbeard.heuristic import GROUP_KEY
from agents.registry import make_agent
from golden.make_heuristic_golden import GOLDEN, assert_values_match

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def golden():
    return np.load(GOLDEN)


@pytest.mark.parametrize("k", [0, 1])
def test_heuristic_values_match_the_recorded_ones(golden, k):
    spec = str(golden["specs"][k])
    obs, mask, want = golden["obs"], golden["mask"], golden["values"][k]
    bot = make_agent(spec)
    assert_values_match(bot, spec, obs, mask, want, TOLERANCE)


def test_the_golden_positions_cover_every_phase(golden):
    phases = np.bincount(golden["obs"][:, :8].argmax(1), minlength=8)
    assert (phases[:7] > 0).all(), phases  # redeal look bid ask join play duel


def test_act_rows_decides_as_act_batch_on_the_gathered_rows(golden):
    """act_rows (some rows of a large batch, valued in place) plays what act_batch
    plays on a copy of those rows: within one rules group (valued in place, repeated and
    unordered rows included) and across groups (gathered first)."""
    obs, mask = golden["obs"], golden["mask"]
    bot = make_agent("heuristic")
    key = obs[:, GROUP_KEY]  # player count and rules
    one_group = np.flatnonzero((key == key[0]).all(1))
    assert len(one_group) > 50  # the first configuration's positions
    rng = np.random.default_rng(0)
    for rows in (one_group[::-1], rng.choice(one_group, 80), rng.choice(len(obs), 300), one_group[:0]):
        want = bot.act_batch(obs[rows], mask[rows]) if len(rows) else np.zeros(0, np.int64)
        assert np.array_equal(bot.act_rows(obs, mask, rows), want)


@pytest.mark.parametrize("rows", [[-1], [2250], [[0, 1]], [0.5]])
def test_act_rows_rejects_rows_outside_the_batch(golden, rows):
    with pytest.raises(ValueError, match="rows must be"):
        make_agent("heuristic").act_rows(golden["obs"], golden["mask"], np.array(rows))
