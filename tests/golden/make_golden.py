"""Record positions and the shipped bots' greedy decisions on them (the golden file
``tests/golden/ppo_decisions.json`` that tests/test_shipped_bots.py checks).

    python tests/golden/make_golden.py            # every shipped bot without an entry
    python tests/golden/make_golden.py --redo     # all of them (after a deliberate change)

Positions come from games of heuristic and random bots at the bot's own table (its
checkpoint's game, rules and player count; 3, 5 and 7 players for a bot of several), all phases, and are stored as they are
(``<name>_positions.npz``), so the check does not depend on the engine or the bots that
produced them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

try:  # as a script from tests/golden, or imported as golden.<module> by the tests
    from make_heuristic_golden import mixed_play
except ImportError:
    from golden.make_heuristic_golden import mixed_play

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "ppo_decisions.json"


def record_positions(rules: dict, num_players: int, seed: int = 0, steps: int = 160, keep: int = 600,
                     game: str = "redbeard"):
    from agents.registry import make_agent
    from redbeard_env.registry import game_named

    info = game_named(game)
    venv = info.vector_env(num_envs=32, num_players=num_players, rules=info.make_rules(info.rules_type(), **rules),
                             seed=seed)
    bots = [make_agent("heuristic", game=game), make_agent("random", game=game, seed=seed)]
    rng = np.random.default_rng(seed)
    obs, mask = mixed_play(venv, *bots, rng, steps)
    several = np.flatnonzero(mask.sum(1) > 1)  # a forced move says nothing about the bot
    pick = np.sort(rng.choice(several, size=min(keep, len(several)), replace=False))
    return obs[pick], mask[pick]


def greedy_decisions(spec: str, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bot's greedy actions and each one's logit margin over the runner-up (a near
    tie may flip between machines; the test allows that only below a small margin)."""
    import torch

    from agents.registry import make_agent

    agent = make_agent(spec)
    with torch.no_grad():
        feats = torch.as_tensor(agent.net.features(obs, mask))
        logits, _ = agent.net(feats, torch.as_tensor(mask).bool())
    top = torch.topk(logits, 2, dim=-1).values
    return logits.argmax(-1).numpy(), (top[:, 0] - top[:, 1]).numpy()


def main() -> None:
    import torch

    from agents.ppo import PRETRAINED_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redo", action="store_true", help="re-record every shipped bot")
    args = parser.parse_args()
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {}
    for path in sorted(PRETRAINED_DIR.glob("*.pt")):
        name = path.stem
        if name in golden and not args.redo:
            continue
        payload = torch.load(path, weights_only=True)
        # a bot for one table size: positions at it; one for several (num_players None): at 3, 5 and 7
        counts = [payload["num_players"]] if payload["num_players"] else [3, 5, 7]
        parts = [record_positions(payload["rules"], n, keep=600 // len(counts), game=payload.get("game", "redbeard"))
                 for n in counts]
        obs, mask = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        np.savez_compressed(HERE / f"{name}_positions.npz", obs=obs, mask=mask)
        actions, margins = greedy_decisions(f"ppo:{name}", obs, mask)
        golden[name] = {"positions": f"{name}_positions.npz", "actions": actions.tolist(),
                        "margins": [round(float(m), 6) for m in margins]}
        print(f"{name}: {len(actions)} positions")
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()
