"""Record positions of the family's games (Sortskæg, Oh Hell) and their heuristic's action
values on them (the golden files ``tests/golden/<game>_heuristic_values.npz`` that
tests/test_family_heuristic_golden.py checks).

    PYTHONPATH=<tree> python tests/golden/make_family_heuristic_golden.py <game>

The heuristic is the family search's playout policy and the training recipe's first
teacher: its values must not change unnoticed. Positions come from games of the heuristic
(80 %) and random moves (20 %) on the game's batch engine, for several player counts and
rule overrides, every phase; values are recorded for the default bot and for one with every
parameter moved. Both files were made with the vectorised numpy implementations (commit
e5ff977) before the compiled one replaced them; the positions are stored as they are, so the
check depends on neither engine nor bot version that produced them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

try:  # as a script from tests/golden, or imported as golden.<module> by the tests
    from make_heuristic_golden import mixed_play
except ImportError:
    from golden.make_heuristic_golden import mixed_play

HERE = Path(__file__).resolve().parent
# game -> (players, overrides) of each table
CONFIGS = {
    "sortskaeg": [
        (4, {}),
        (3, {"deal": "carry"}),
        (5, {"dealer_hook": True}),
        (2, {"hand_sizes": (7, 6, 5, 4, 3, 2, 1, 2, 3), "deal": "carry"}),
        (6, {"hand_sizes": (3, 5, 7, 1)}),
    ],
    "oh_hell": [
        (4, {}),
        (3, {"num_tricks": 8}),
        (5, {"num_suits": 3, "off_bid_penalty": True}),
        (7, {"num_cards_per_suit": 8, "num_tricks": 4}),
        (6, {"points_per_trick": 2}),
    ],
}
SPECS = {
    "sortskaeg": ["heuristic", "heuristic:bid_scale=0.9,joker_value=0.6,lead_factor=0.7,trump_factor=0.8"],
    "oh_hell": ["heuristic", "heuristic:bid_scale=1.4,lead_factor=0.7,trump_factor=0.8"],
}
PER_CONFIG = 400
PHASES = {"sortskaeg": 3, "oh_hell": 2}  # bid, play (, discard)


def golden_file(game: str) -> Path:
    return HERE / f"{game}_heuristic_values.npz"


def record_positions(game: str, n: int, overrides: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.registry import make_agent
    from redbeard_env.registry import game_named

    G = game_named(game)
    decode = __import__(f"agents.{game}.decode", fromlist=["decode_batch"]).decode_batch
    venv = G.vector_env(num_envs=48, num_players=n, seed=seed, **overrides)
    bot, rnd = make_agent("heuristic", game=game), make_agent("random", game=game, seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask = mixed_play(venv, bot, rnd, rng, 160)
    phase = decode(obs).phase
    # every phase that occurs, then the rest at random
    pick = np.concatenate([rng.permutation(np.flatnonzero(phase == p))[:60] for p in range(PHASES[game])])
    rest = np.setdiff1d(np.arange(len(obs)), pick)
    pick = np.sort(np.concatenate([pick, rng.choice(rest, PER_CONFIG - len(pick), replace=False)]))
    return obs[pick], mask[pick]


def main(game: str) -> None:
    from agents.registry import make_agent

    obs, mask, config = [], [], []
    for i, (n, overrides) in enumerate(CONFIGS[game]):
        o, m = record_positions(game, n, overrides, seed=200 + i)
        obs.append(o)
        mask.append(m)
        config.append(np.full(len(o), i))
    obs, mask, config = np.concatenate(obs), np.concatenate(mask), np.concatenate(config)
    values = np.stack([make_agent(spec, game=game).action_values(obs, mask) for spec in SPECS[game]])
    np.savez_compressed(golden_file(game), obs=obs, mask=mask, config=config, values=values,
                        specs=np.array(SPECS[game]))
    print(f"{game}: {len(obs)} positions -> {golden_file(game)}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CONFIGS:
        sys.exit(f"usage: make_family_heuristic_golden.py {{{','.join(CONFIGS)}}}")
    main(sys.argv[1])
