"""``train.py`` / ``redbeard-train``: the command line of the trainer.

    redbeard-train --config classic_4p                      # configs/classic_4p.yaml
    redbeard-train --config classic_4p --total-steps 2e6 --num-envs 512
    redbeard-train --resume runs/classic_4p__1__20261129-140000 [--total-steps 8e7]
    redbeard-train --help                                    # every field, its type and default

The flags are generated from :class:`redbeard_train.config.Config` (tyro): the config
file gives the defaults, flags override them. A bad value ends the program with one line
naming the field, the value and what is allowed (exit status 2), before anything is
written.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

import tyro

from .config import Config, ConfigError, from_dict, load_config

DESCRIPTION = """PPO self-play trainer for every registered game (--game).

--config NAME|PATH   configs/<NAME>.yaml or a YAML path: the defaults below (default: classic_4p)
--resume RUN_DIR     continue a run; only --total-steps, --max-minutes and --stop-after may change"""


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
    process-wide settings (OpenMP threads, the allocator) are made here, not in the
    library."""
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


def compare_with_shipped(cfg: Config, results: dict) -> str | None:
    """The shipped policy for this game, sheet and table (``ppo:<rules>_<n>p``) on the same
    deals as the final tournament, as a line beside the trained policy's; None when no
    such policy is shipped."""
    from redbeard_eval import run_tournament

    from agents.ppo import PRETRAINED_DIR, read_payload
    from redbeard_env.registry import registered_games

    n = results["config"]["players"]
    name = f"{cfg.rules}_{n}p"
    path = PRETRAINED_DIR / f"{name}.pt"
    if not path.is_file() or read_payload(path).get("game", registered_games()[0]) != cfg.game or cfg.overrides:
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
