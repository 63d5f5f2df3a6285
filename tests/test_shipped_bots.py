"""Every shipped bot loads (safely, with its recorded identity) and plays as recorded:
its greedy decisions on fixed positions match tests/golden/ppo_decisions.json."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo import PRETRAINED_DIR, load_checkpoint  # noqa: E402
from golden.make_golden import GOLDEN, HERE, greedy_decisions  # noqa: E402

SHIPPED = sorted(p.stem for p in PRETRAINED_DIR.glob("*.pt"))
NEAR_TIE = 1e-4  # logit margin below which another machine's arithmetic may pick the runner-up


def test_bots_are_shipped_and_each_has_golden_decisions():
    assert SHIPPED, "no shipped bot found"
    golden = json.loads(GOLDEN.read_text())
    missing = sorted(set(SHIPPED) - set(golden))
    assert not missing, f"shipped bots without golden decisions (run tests/golden/make_golden.py): {missing}"


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_bot_plays_its_golden_decisions(name):
    entry = json.loads(GOLDEN.read_text())[name]
    data = np.load(HERE / entry["positions"])
    obs, mask = data["obs"], data["mask"]
    expected = np.array(entry["actions"])
    margins = np.array(entry["margins"])
    net, payload = load_checkpoint(name)  # refuses another prior, table or layout
    assert obs.shape[0] == len(expected) > 100
    if payload["num_players"] is None:  # a bot of several table sizes is recorded at 3, 5 and 7 players
        from agents.redbeard.decode import decode_batch

        assert np.unique(decode_batch(obs).num_players).tolist() == [3, 5, 7]
    actions, _ = greedy_decisions(f"ppo:{name}", obs, mask)
    differ = np.flatnonzero(actions != expected)
    real = differ[margins[differ] >= NEAR_TIE]
    assert len(real) == 0, f"{name} plays differently at {len(real)} of {len(expected)} recorded positions, e.g. {real[:5]}"
    assert (np.asarray(mask)[np.arange(len(actions)), actions] == 1).all()


# ---------------------------------------------------------------------- strength
# the wikipedia bot clears the 1.5x bar at seed 7 by a thin margin (docs/results.md, the sheet table)
SHEET_BOTS = [name for name in SHIPPED if name.endswith("_4p") and name[: -len("_4p")] in
              ("classic", "fem_opp", "raudskjegg", "wikipedia")]


@pytest.mark.slow
@pytest.mark.parametrize("name", SHEET_BOTS)
def test_a_shipped_sheet_bot_beats_three_heuristics_at_its_own_table(name):
    # at least 1.5x parity, the CI's low end above parity: 1,000 duplicate games on a seed no run was tuned on
    from redbeard_eval import run_tournament

    sheet = name[: -len("_4p")]
    res = run_tournament([f"ppo:{name}", "heuristic", "heuristic", "heuristic"], rules=sheet, players=4, games=1000,
                         seed=7, progress=False, plots=False)
    me = res["agents"][f"ppo:{name}"]
    assert me["win_rate"] >= 1.5 * 0.25 and me["win_rate_ci"][0] > 0.25, (me["win_rate"], me["win_rate_ci"])


MIXED_BOTS = [name for name in SHIPPED if name == "mixed_3to7p"]


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 5, 7])
@pytest.mark.parametrize("name", MIXED_BOTS)
def test_the_mixed_bot_beats_heuristics_at_every_table_size(name, players):
    # at least 1.2x parity (1 / players), the CI's low end above parity: 1,000 duplicate games, classic rules
    from redbeard_eval import run_tournament

    parity = 1.0 / players
    res = run_tournament([f"ppo:{name}"] + ["heuristic"] * (players - 1), rules="classic", players=players,
                         games=1000, seed=7, progress=False, plots=False)
    me = res["agents"][f"ppo:{name}"]
    assert me["win_rate"] >= 1.2 * parity and me["win_rate_ci"][0] > parity, (me["win_rate"], me["win_rate_ci"])
