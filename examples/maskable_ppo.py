"""Train sb3-contrib's MaskablePPO on the single-agent env, then evaluate it with the
project's tournament runner.

    pip install -e ".[sb3]"
    python examples/maskable_ppo.py --minutes 5                  # train, save, evaluate
    python evaluate.py --agents sb3:runs/sb3/maskable_ppo.zip heuristic heuristic heuristic --games 400

One seat is the learner, three heuristic bots play the others (``seat="random"``, so it
plays every position); the reward is the game's (+1 win, -1/3 otherwise) plus the
shaped progress towards zero. The saved model is a bot like any other
(``sb3:<path>``, agents/sb3_agent.py), so ``evaluate.py`` can seat it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import agents


class TimeLimit:
    """Stop learning after a wall-clock budget (an sb3 callback)."""

    def __new__(cls, seconds: float):
        from stable_baselines3.common.callbacks import BaseCallback

        class _Stop(BaseCallback):
            def _on_training_start(self) -> None:
                self.start = time.time()

            def _on_step(self) -> bool:
                return time.time() - self.start < seconds

        return _Stop()


def train(minutes: float, steps: int, out: Path, seed: int = 0, opponents: str = "heuristic") -> Path:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    def make():
        return agents.single_agent_env(rules="classic", num_players=4, opponents=opponents, seat="random", reward="shaped")

    venv = make_vec_env(make, n_envs=8, seed=seed)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=256, batch_size=512, learning_rate=3e-4, gamma=0.999,
                        ent_coef=0.003, seed=seed, device="cpu", verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # sb3's default makes an empty /tmp/SB3-<time> each run
    model.learn(total_timesteps=steps, callback=TimeLimit(60 * minutes), progress_bar=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(f"trained {model.num_timesteps} agent steps in up to {minutes} min -> {out}")
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="training wall-clock budget")
    parser.add_argument("--steps", type=int, default=10_000_000, help="most agent steps")
    parser.add_argument("--games", type=int, default=400, help="duplicate games of the evaluation (0 = none)")
    parser.add_argument("--opponents", default="heuristic", help="agent spec of the other seats while training")
    parser.add_argument("--out", default="runs/sb3/maskable_ppo.zip")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.steps < 1 or args.games < 0:
        parser.error("--minutes must be > 0, --steps >= 1 and --games >= 0")
    path = train(args.minutes, args.steps, Path(args.out), opponents=args.opponents)
    if not args.games:
        return {}
    from redbeard_eval import format_table, run_tournament

    spec = f"sb3:{path}"
    results = run_tournament([spec, "heuristic", "heuristic", "heuristic"], rules="classic", players=4,
                             games=args.games, seed=0, progress=False)
    print(format_table(results))
    return results


if __name__ == "__main__":
    main()
