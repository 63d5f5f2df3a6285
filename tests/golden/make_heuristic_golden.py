"""Record positions and the ``heuristic`` bot's action values on them (the golden file
``tests/golden/heuristic_values.npz`` that tests/test_heuristic_golden.py checks).

    PYTHONPATH=<tree> python tests/golden/make_heuristic_golden.py

The heuristic is the PPO prior and pimc's playout policy: its values must not change
unnoticed. Positions come from games of the heuristic (80 %) and random moves (20 %) on
the batch engine, for several presets, player counts and rule overrides, every phase;
values are recorded for the default bot and for one with every optional term switched on
(``defend``, ``block``). The file was made with the vectorised numpy implementation
(commit 945202f) before the compiled one replaced it; the positions are stored as they
are, so the check depends on neither engine nor bot version that produced them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "heuristic_values.npz"
# (preset, players, overrides)
CONFIGS = [
    ("classic", 4, {}),
    ("classic", 3, {"redeal": "challenge", "zero_rule": "immediate"}),
    ("classic", 6, {"leader": "trick_winner", "start_score": 5}),
    ("fem_opp", 4, {}),
    ("fem_opp", 7, {"start_score": 4}),
    ("raudskjegg", 5, {}),
    ("raudskjegg", 4, {"zero_rule": "bounce", "start_score": 3}),
    ("wikipedia", 4, {}),
    ("wikipedia", 5, {"bid_over_score": "penalty", "one_point_must_join": True, "start_score": 2}),
]
SPECS = ["heuristic", "heuristic:defend=0.5,block=0.5"]
PER_CONFIG = 250


def mixed_play(venv, bot, rnd, rng: np.random.Generator, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(obs, mask) of every decision of ``steps`` steps of a batch engine's games, each move
    the ``bot``'s (80 %) or the random bot ``rnd``'s (20 %)."""
    obs, mask, _ = venv.reset()
    seen_obs, seen_mask = [], []
    for _ in range(steps):
        seen_obs.append(obs.copy())
        seen_mask.append(mask.copy())
        mix = rng.random(len(obs)) < 0.8
        obs, mask, *_ = venv.step(np.where(mix, bot.act_batch(obs, mask), rnd.act_batch(obs, mask)))
    return np.concatenate(seen_obs), np.concatenate(seen_mask)


def assert_values_match(bot, spec: str, obs: np.ndarray, mask: np.ndarray, want: np.ndarray, tolerance: float) -> None:
    """The bot's action values on recorded positions against the recorded ``want``: its
    argmax is what it plays, the same actions valued, the values within ``tolerance``
    (relative to the largest), the same decisions except where the recorded best two are a
    near tie."""
    got = bot.action_values(obs, mask)
    assert np.array_equal(bot.act_batch(obs, mask), got.argmax(1))  # the kernel's own argmax
    assert np.array_equal(np.isfinite(got), np.isfinite(want)), f"{spec}: other actions valued"
    fin = np.isfinite(want)
    err = np.abs(got[fin] - want[fin])
    assert err.max() <= tolerance * np.maximum(1.0, np.abs(want[fin])).max(), (spec, err.max())
    top2 = np.sort(np.where(fin, want, -np.inf), 1)[:, -2:]
    clear = ~(np.isfinite(top2[:, 0]) & (top2[:, 1] - top2[:, 0] <= tolerance))
    assert (got.argmax(1)[clear] == want.argmax(1)[clear]).all(), spec


def record_positions(preset: str, n: int, overrides: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.registry import make_agent
    from redbeard_env.redbeard.vector import VectorEnv

    venv = VectorEnv(num_envs=48, num_players=n, rules=preset, seed=seed, **overrides)
    bot, rnd = make_agent("heuristic"), make_agent("random", seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask = mixed_play(venv, bot, rnd, rng, 120)
    phase = obs[:, :8].argmax(1)
    # every phase that occurs, then the rest at random
    pick = np.concatenate([rng.permutation(np.flatnonzero(phase == p))[:20] for p in range(8)])
    rest = np.setdiff1d(np.arange(len(obs)), pick)
    pick = np.sort(np.concatenate([pick, rng.choice(rest, PER_CONFIG - len(pick), replace=False)]))
    return obs[pick], mask[pick]


def main() -> None:
    import warnings

    from agents.registry import make_agent

    warnings.simplefilter("ignore", UserWarning)
    obs, mask, config = [], [], []
    for i, (preset, n, overrides) in enumerate(CONFIGS):
        o, m = record_positions(preset, n, overrides, seed=100 + i)
        obs.append(o)
        mask.append(m)
        config.append(np.full(len(o), i))
    obs, mask, config = np.concatenate(obs), np.concatenate(mask), np.concatenate(config)
    values = np.stack([make_agent(spec).action_values(obs, mask) for spec in SPECS])
    np.savez_compressed(GOLDEN, obs=obs, mask=mask, config=config, values=values, specs=np.array(SPECS))
    print(f"{len(obs)} positions, phases {np.bincount(obs[:, :8].argmax(1), minlength=8).tolist()} -> {GOLDEN}")


if __name__ == "__main__":
    main()
