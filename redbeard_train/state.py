"""The training checkpoint: a run as plain data, loaded without running any code.

``checkpoint.pt`` holds only tensors, numbers, strings, lists, tuples and dicts, and is
read with ``torch.load(weights_only=True)``: a crafted file cannot run code, and nothing
refers to classes of ``train.py`` or ``__main__`` (a run resumes the same from the command
line and from ``train.main([...])``)::

    {"format": "redbeard-train", "version": 1, "config": {...Config fields...},
     "net": state_dict, "optimizer": state_dict, "torch_rng": uint8 tensor,
     "pool": Pool.state(), "workers": [RolloutWorker.state()] (games, open chains,
     random states), "counters": {...}, "ret_stats": tensor, "recent_wins": [float]}

``policy.pt`` beside it is the policy alone (agents/ppo.py's format).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml

from .config import Config, ConfigError, from_dict, resume_changes
from .pool import Pool, from_plain, to_plain
from .rollout import make_workers

FORMAT = "redbeard-train"
VERSION = 1


def save_run(run) -> None:
    """Write ``policy.pt`` and ``checkpoint.pt`` (each to a temporary file first, so an
    interrupted write never leaves a half-written checkpoint)."""
    import torch

    from agents.ppo import save_checkpoint

    cfg = run.cfg
    save_checkpoint(run.run_dir / "policy.pt", run.net, rules=_rules(cfg), num_players=cfg.players[0] if len(cfg.players) == 1 else None,
                    config=dataclasses.asdict(cfg),
                    meta={"global_step": run.counters["global_step"], "updates": run.counters["update"], "wall_seconds": run.counters["seconds"]})
    payload = {
        "format": FORMAT, "version": VERSION, "config": dataclasses.asdict(cfg),
        "net": run.net.state_dict(), "optimizer": run.optimizer.state_dict(), "torch_rng": torch.get_rng_state(),
        "pool": run.pool.state(), "workers": run.workers.states(),
        "counters": dict(run.counters), "ret_stats": to_plain(run.ret_stats),
        "recent_wins": [float(w) for w in run.recent_wins],
    }
    tmp = run.run_dir / "checkpoint.pt.tmp"
    torch.save(payload, tmp)
    tmp.replace(run.run_dir / "checkpoint.pt")


def _rules(cfg: Config):
    from redbeard_env.registry import game_named

    return game_named(cfg.game).make_rules(cfg.rules, **cfg.overrides)


def load_payload(path: Path) -> dict:
    """The checkpoint's plain data; ``ConfigError`` for a missing, corrupt, foreign or
    unsafe file (its code, if any, never runs)."""
    from agents.ppo import read_payload

    if not path.is_file():
        raise ConfigError(f"cannot resume: {path} does not exist (is {path.parent} a run directory?)")
    try:
        payload = read_payload(path)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ConfigError(f"{path} is not a redbeard training checkpoint (no format tag {FORMAT!r})")
    if payload.get("version") != VERSION:
        raise ConfigError(f"{path} has training checkpoint version {payload.get('version')}; this code reads {VERSION}")
    return payload


def resume_run(run_dir: Path, asked: Config, device):
    """The run saved in ``run_dir``, continued with the budget of ``asked`` (total_steps,
    max_minutes, stop_after); any other change to the config is a ``ConfigError``."""
    import torch

    from agents.ppo import policy_from_weights

    from .loop import Run, make_optimizer

    payload = load_payload(run_dir / "checkpoint.pt")
    try:
        saved = from_dict(payload["config"], source=str(run_dir / "checkpoint.pt"))
    except ConfigError as exc:
        raise ConfigError(f"{run_dir} was written by an older train.py ({exc}); start a new run, "
                          f"optionally with --init-from <its policy.pt> if the network still loads") from None
    cfg = resume_changes(saved, asked)
    if cfg != saved:  # a longer budget: the run directory's config says so
        (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    net = policy_from_weights(payload["net"], tuple(cfg.hidden), cfg.prior, cfg.game, critic=cfg.critic,
                              belief=cfg.belief).to(device)
    optimizer = make_optimizer(net, cfg)
    optimizer.load_state_dict(payload["optimizer"])
    torch.set_rng_state(payload["torch_rng"])
    pool = Pool.from_state(cfg, payload["pool"])
    if len(payload["workers"]) != cfg.rollout_workers:
        raise ConfigError(f"{run_dir}: the checkpoint holds {len(payload['workers'])} rollout workers, the config {cfg.rollout_workers}")
    workers = make_workers(cfg, net, payload["workers"])
    workers.restore_bots(pool.statistics())
    return Run(
        cfg, run_dir, net, optimizer, pool, workers,
        counters=dict(payload["counters"]),
        ret_stats=from_plain(payload["ret_stats"]),
        recent_wins=list(payload["recent_wins"]),
    )
