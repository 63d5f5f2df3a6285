"""``train.py`` / ``redbeard-train``: the command line of the trainer.

    redbeard-train --config classic_4p                      # configs/classic_4p.yaml
    redbeard-train --config classic_4p --total-steps 2e6 --num-envs 512
    redbeard-train --resume runs/classic_4p__1__20261129-140000 [--total-steps 8e7]
    redbeard-train --help                                    # every field, its type and default
    redbeard-train --recipe strong --game oh_hell --players 5 --overrides num_tricks=7 --max-minutes 60 --exp-name oh5
    redbeard-train --resume runs/oh5                         # a stopped pipeline goes on

The flags are generated from :class:`redbeard_train.config.Config` (tyro): the config
file gives the defaults, flags override them. A bad value ends the program with one line
naming the field, the value and what is allowed (exit status 2), before anything is
written.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from pathlib import Path

import tyro

from .config import Config, ConfigError, from_dict, load_config

DESCRIPTION = """PPO self-play trainer for every registered game (--game).

--config NAME|PATH   configs/<NAME>.yaml or a YAML path: the defaults below (default: classic_4p)
--resume RUN_DIR     continue a run; only --total-steps, --max-minutes and --stop-after may change
                     (or a recipe's pipeline directory: it goes on where it stopped)
--recipe NAME|PATH   run a chain of stages for a table instead (train.py --recipe strong --help)"""


def parse_args(argv: list[str] | None = None) -> tuple[Config, str | None]:
    """``(config, resume directory or None)``; a bad value is a ``ConfigError``, a bad flag
    ``SystemExit(2)`` (tyro's message)."""
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--config", default=None)
    pre.add_argument("--resume", default=None)
    known, rest = pre.parse_known_args(sys.argv[1:] if argv is None else argv)
    if known.resume:
        if known.config:
            raise ConfigError("--resume continues a run with its own config; --config cannot be given with it")
        from .state import load_payload

        saved = from_dict(load_payload(Path(known.resume) / "checkpoint.pt")["config"], source=known.resume)
        base = dataclasses.replace(saved, stop_after=0)  # where the last invocation stopped is not part of the run
    else:
        base = load_config(known.config or "classic_4p")
    cfg = tyro.cli(Config, default=base, args=rest, prog="train.py", description=DESCRIPTION,
                   config=(tyro.conf.FlagConversionOff,))
    return cfg, known.resume


def main(argv: list[str] | None = None) -> dict:
    """Parse, train, print the final tournament; bad input exits with status 2. The
    process-wide settings (OpenMP threads, the allocator, Ctrl-C's handler) are made here,
    not in the library."""
    args = sys.argv[1:] if argv is None else list(argv)
    if "--recipe" in args or any(a.startswith("--recipe=") for a in args) or _resumes_pipeline(args):
        return recipe_main(args)
    try:
        cfg, resume = parse_args(argv)
        os.environ.setdefault("OMP_NUM_THREADS", str(cfg.torch_threads))  # before torch starts its pool
        keep_freed_memory()
        from .loop import train

        out = train(cfg, resume)
    except ConfigError as exc:
        print(f"train.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if "eval" in out:
        from redbeard_eval import format_table

        print("\nfinal tournament of the trained policy against heuristic bots:")
        print(format_table(out["eval"]))
        try:
            shipped = compare_with_shipped(cfg, out["eval"])
        except ValueError as exc:  # e.g. a shipped policy this code no longer loads: the run is done anyway
            shipped = f"\n(no comparison with the shipped policy: {str(exc)[:200]})"
        if shipped:
            print(shipped)
    curve = write_learning_curve(Path(out["run_dir"]))
    print(f"\nrun directory: {out['run_dir']} (policy.pt, checkpoint.pt)")
    if curve:
        print(f"learning curve: {curve}")
    print(f"TensorBoard logs: tensorboard --logdir {Path(out['run_dir']).parent}")
    return out


RECIPE_DESCRIPTION = """Run a training recipe (configs/recipes/<NAME>.yaml or a path): its stages one after
another, at the table given here (it applies to every stage), within --max-minutes in all;
then the final bot is judged at that table (configs/recipes/README or docs/training.md).
Ctrl-C ends the running stage after its update with a checkpoint; --resume RUN_DIR goes on.
The last line printed is `final: <path>`: the bot is ppo:<path>."""


def _resumes_pipeline(args: list[str]) -> bool:
    from .recipe import is_pipeline

    for i, a in enumerate(args):
        if a == "--resume" and i + 1 < len(args):
            return is_pipeline(args[i + 1])
        if a.startswith("--resume="):
            return is_pipeline(a.split("=", 1)[1])
    return False


def recipe_parser():
    from .recipe import known_recipes

    def minutes(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or value <= 0:
            raise ValueError(text)
        return value

    def count(text: str) -> int:
        from .config import whole_number

        value = whole_number(text)
        if value < 0:
            raise ValueError(text)
        return value

    minutes.__name__ = "a number of minutes > 0"
    count.__name__ = "a whole number >= 0"

    class Parser(argparse.ArgumentParser):
        def error(self, message: str):  # one line, like every other bad value
            self.exit(2, f"{self.prog}: error: {message}\n")

    p = Parser(prog="train.py", description=RECIPE_DESCRIPTION, allow_abbrev=False,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--recipe", metavar="NAME|PATH", help=f"the recipe; shipped: {', '.join(known_recipes())}")
    p.add_argument("--resume", metavar="RUN_DIR", help="go on with a stopped pipeline (runs/<exp-name>)")
    p.add_argument("--game", help="the game (default: the recipe's table)")
    p.add_argument("--rules", help="the rules preset (default: the recipe's, or the game's default preset)")
    p.add_argument("--overrides", nargs="*", default=[], metavar="FIELD=VALUE", help="rules fields on top of the preset")
    p.add_argument("--players", nargs="+", type=int, metavar="N", help="player counts (default: the recipe's table)")
    p.add_argument("--max-minutes", type=minutes, metavar="M", help="training minutes of the whole chain (default: the recipe's)")
    p.add_argument("--exp-name", metavar="NAME", help="the pipeline's directory under --run-dir (default: recipe, table and time)")
    p.add_argument("--run-dir", default="runs", metavar="DIR", help="parent of the pipeline's directory (default: runs)")
    p.add_argument("--seed", type=count, metavar="S", help="every stage's seed (default: the recipe's)")
    p.add_argument("--incumbent", metavar="SPEC", help="a bot the result is tested against (sequential test), e.g. ppo:classic_4p")
    p.add_argument("--judge-games", type=count, metavar="N", help="games of each judge's table (default: the recipe's)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def recipe_main(args: list[str]) -> dict:
    """``train.py --recipe ...`` and ``--resume <pipeline>``: bad input is one line and exit
    status 2, before anything trains; the last line printed is ``final: <path>``."""
    import signal

    from .recipe import Pipeline, load_recipe

    parser = recipe_parser()
    ns = parser.parse_args(args)
    try:
        if ns.resume:
            given = [a for a in ("recipe", "game", "rules", "players", "max_minutes", "exp_name", "seed", "incumbent",
                                 "judge_games") if getattr(ns, a) is not None] + (["overrides"] if ns.overrides else [])
            if given:
                raise ConfigError(f"--resume goes on with the pipeline as it was started; it takes no --{given[0].replace('_', '-')}")
            pipeline = Pipeline.load(ns.resume)
        else:
            from redbeard_env.common import parse_overrides

            try:
                overrides = parse_overrides(ns.overrides)
            except ValueError as exc:
                raise ConfigError(f"--overrides: {exc}") from None
            pipeline = Pipeline.create(load_recipe(ns.recipe), exp_name=ns.exp_name, run_dir=ns.run_dir, game=ns.game,
                                       rules=ns.rules, overrides=overrides, players=ns.players, minutes=ns.max_minutes,
                                       seed=ns.seed, incumbent=ns.incumbent, judge_games=ns.judge_games)
    except ConfigError as exc:
        print(f"train.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    keep_freed_memory()
    stopping = {"asked": False}

    def on_interrupt(signum, frame):  # the first Ctrl-C ends the stage after its update; the second at once
        if stopping["asked"]:
            raise KeyboardInterrupt
        stopping["asked"] = True
        print("\nstopping after this update with a checkpoint (Ctrl-C again to stop at once) ...", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        state = pipeline.run(quiet=ns.quiet, stop=lambda: stopping["asked"])
    except ConfigError as exc:
        print(f"train.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    finally:
        signal.signal(signal.SIGINT, previous)
    if state["status"] != "done":
        raise SystemExit(130)
    print(f"TensorBoard logs: tensorboard --logdir {pipeline.root}")
    print(f"final: {pipeline.root / state['final']}")
    return state


def compare_with_shipped(cfg: Config, results: dict) -> str | None:
    """The shipped policy for this game, sheet and table (``ppo:<rules>_<n>p``) on the same
    deals as the final tournament, as a line beside the trained policy's; None when no
    such policy is shipped."""
    from redbeard_eval import run_tournament

    from agents.ppo import PRETRAINED_DIR, read_payload
    from redbeard_env.registry import game_of_data

    n = results["config"]["players"]
    name = f"{cfg.rules}_{n}p"
    path = PRETRAINED_DIR / f"{name}.pt"
    if not path.is_file() or game_of_data(read_payload(path)).name != cfg.game or cfg.overrides:
        return None
    cfg_res = results["config"]
    shipped = run_tournament([f"ppo:{name}"] + ["heuristic"] * (n - 1), game=cfg.game, rules=cfg.rules, players=n,
                             games=cfg_res["games"], seed=cfg_res["seed"], progress=False)
    mine = next(a for spec, a in results["agents"].items() if spec.startswith("ppo:"))
    theirs = shipped["agents"][f"ppo:{name}"]

    def row(label: str, a: dict) -> str:
        return f"  {label:<28}{a['win_rate']:.3f} [{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}]"

    return "\n".join([f"\non the same {cfg_res['games']} games (seed {cfg_res['seed']}), win rate against heuristics:",
                      row("your policy", mine), row(f"shipped ppo:{name}", theirs),
                      f"  parity (1/{n})                {1 / n:.3f}"])


def write_learning_curve(run_dir: Path) -> Path | None:
    """``learning_curve.png`` in the run directory (the evaluations' win rate against wall
    minutes), if the run logged evaluations and matplotlib is installed."""
    from .curve import plot_curves, read_curve

    try:
        return plot_curves([read_curve(run_dir)], [run_dir.name], run_dir / "learning_curve.png")
    except (ValueError, ImportError):
        return None


def keep_freed_memory() -> bool:
    """Let glibc's malloc keep freed memory for reuse instead of mapping fresh pages.

    Every update allocates and frees the same large arrays (the rollout's observations are
    ~30 MB, the minibatches and activations several MB). By default glibc maps blocks
    above its threshold (at most 32 MB) afresh each time and trims the heap's free top,
    and the page faults of touching that memory again cost ~10 % of training time on this
    machine (benchmarks/train_throughput.py, measured with MALLOC_MMAP_THRESHOLD_). The
    process then keeps its peak memory instead of returning it between updates. Returns
    whether the setting took (False on other C libraries, where nothing changes)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold, limit = -1, -3, 1 << 30
    return bool(mallopt(m_mmap_threshold, limit)) and bool(mallopt(m_trim_threshold, limit))
