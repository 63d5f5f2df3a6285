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

from agents.registry import make_agent
from golden.make_heuristic_golden import GOLDEN

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def golden():
    return np.load(GOLDEN)


@pytest.mark.parametrize("k", [0, 1])
def test_heuristic_values_match_the_recorded_ones(golden, k):
    spec = str(golden["specs"][k])
    obs, mask, want = golden["obs"], golden["mask"], golden["values"][k]
    bot = make_agent(spec)
    got = bot.action_values(obs, mask)
    assert np.array_equal(bot.act_batch(obs, mask), got.argmax(1))  # the kernel's own argmax
    assert np.array_equal(np.isfinite(got), np.isfinite(want)), f"{spec}: other actions valued"
    fin = np.isfinite(want)
    err = np.abs(got[fin] - want[fin])
    assert err.max() <= TOLERANCE * np.maximum(1.0, np.abs(want[fin])).max(), (spec, err.max())
    # decisions: identical unless the recorded best two are a near tie
    top2 = np.sort(np.where(fin, want, -np.inf), 1)[:, -2:]
    clear = ~(np.isfinite(top2[:, 0]) & (top2[:, 1] - top2[:, 0] <= TOLERANCE))
    assert (got.argmax(1)[clear] == want.argmax(1)[clear]).all(), spec


def test_the_golden_positions_cover_every_phase(golden):
    phases = np.bincount(golden["obs"][:, :8].argmax(1), minlength=8)
    assert (phases[:7] > 0).all(), phases  # redeal look bid ask join play duel
