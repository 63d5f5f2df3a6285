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

A resume checks the whole file before training starts (:func:`check_resumable`): every
part must be what a run of its config carries, in the types and shapes this code makes
them (compared with a freshly built rollout worker), with finite numbers, indices in
range and a policy whose outputs are finite on real observations. A damaged or edited
file is one :class:`~redbeard_train.config.ConfigError` line naming the part, never a
traceback (or a crash in compiled code) in the middle of the run.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .config import Config, ConfigError, from_dict, resume_changes
from .pool import Pool, from_plain, to_plain
from .rollout import RolloutWorker, make_workers


@dataclass
class Run:
    """Everything a run carries from one update to the next (all of it is checkpointed here;
    :mod:`redbeard_train.loop` trains it)."""

    cfg: Config
    run_dir: Path
    net: Any
    optimizer: Any
    pool: Pool  # the learner's: names, snapshots, statistics (the workers' bots live in the workers)
    workers: Any  # rollout.LocalWorkers or rollout.RayWorkers
    counters: dict
    ret_stats: np.ndarray  # running mean, variance, count of returns
    recent_wins: list

    def ret_norm(self, x: np.ndarray) -> np.ndarray:
        return (x - self.ret_stats[0]) / np.sqrt(self.ret_stats[1] + 1e-8)


def make_optimizer(net, cfg: Config):
    """Adam over the network's parameters; the fused kernel (one pass over each tensor,
    half the time of the per-operation one on the CPU) where torch has it for the device."""
    import torch

    fused = cfg.device == "cpu" or cfg.device.startswith("cuda")
    return torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=fused or None)

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
    from redbeard_env.registry import as_game

    return as_game(cfg.game).make_rules(cfg.rules, **cfg.overrides)


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
    max_minutes, stop_after); any other change to the config is a ``ConfigError``, and so
    is a checkpoint this config cannot continue (:func:`check_resumable`). Nothing is
    written before the run has loaded."""
    path = run_dir / "checkpoint.pt"
    payload = _renamed_parts(load_payload(path))
    if not isinstance(payload.get("config"), dict):
        raise ConfigError(damaged(path, "config", "is not a mapping of config fields"))
    try:
        saved = from_dict(payload["config"], source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{run_dir} was written by an older train.py ({exc}); start a new run, "
                          f"optionally with --init-from <its policy.pt> if the network still loads") from None
    except TypeError as exc:  # e.g. a field name that is not a string
        raise ConfigError(damaged(path, "config", str(exc))) from None
    cfg = resume_changes(saved, asked)
    try:
        run = _restore(payload, cfg, run_dir, device)
    except ConfigError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, RuntimeError, AttributeError, OverflowError,
            MemoryError) as exc:  # whatever the checks did not foresee: still one line, before training
        raise ConfigError(damaged(path, "its contents", f"do not load ({type(exc).__name__}: {exc})")) from None
    if cfg != saved:  # a longer budget: the run directory's config says so
        (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    return run


def _renamed_parts(payload: dict) -> dict:
    """A checkpoint with the names this code gives its parts: an arena's shaped-reward state
    was ``prev_distance`` (after Rödskägg's use of it) in checkpoints written before."""
    workers = payload.get("workers")
    for worker in workers if isinstance(workers, list) else []:
        arenas = worker.get("arenas") if isinstance(worker, dict) else None
        for arena in arenas if isinstance(arenas, list) else []:
            if isinstance(arena, dict) and "prev_distance" in arena and "shaping" not in arena:
                arena["shaping"] = arena.pop("prev_distance")
    return payload


def _restore(payload: dict, cfg: Config, run_dir: Path, device):
    import torch

    from agents.ppo import policy_from_weights

    path = run_dir / "checkpoint.pt"
    check_resumable(payload, cfg, path)
    net = policy_from_weights(payload["net"], tuple(cfg.hidden), cfg.prior, cfg.game, critic=cfg.critic,
                              belief=cfg.belief).to(device)
    optimizer = make_optimizer(net, cfg)
    check_optimizer_state(payload["optimizer"], optimizer, path)
    optimizer.load_state_dict(payload["optimizer"])
    check_workers(payload["workers"], cfg, net, payload["pool"]["names"], path)
    check_policy_outputs(net, cfg, f"{path}: the policy")
    for idx, weights in payload["pool"]["snapshots"].items():
        snapshot = policy_from_weights(weights, tuple(cfg.hidden), cfg.prior, cfg.game, critic=cfg.critic,
                                       belief=cfg.belief)
        check_policy_outputs(snapshot, cfg, f"{path}: pool snapshot {idx}")
    torch.set_rng_state(payload["torch_rng"])  # after the checks: they build bots and engines
    pool = Pool.from_state(cfg, payload["pool"])
    workers = make_workers(cfg, net, payload["workers"])
    workers.restore_bots(pool.statistics())
    return Run(
        cfg, run_dir, net, optimizer, pool, workers,
        counters=dict(payload["counters"]),
        ret_stats=from_plain(payload["ret_stats"]),
        recent_wins=list(payload["recent_wins"]),
    )


# ---------------------------------------------------------------------- checks
PARTS = ("config", "net", "optimizer", "torch_rng", "pool", "workers", "counters", "ret_stats", "recent_wins")
COUNTERS = ("global_step", "update", "episodes", "seconds")


def damaged(path: Path, part: str, what: str) -> str:
    """The one line a checkpoint that cannot be continued gets."""
    return (f"cannot resume from {path}: {part} {' '.join(str(what).split())[:300]} (a damaged or edited "
            f"checkpoint; start a new run, optionally with --init-from {path.parent / 'policy.pt'})")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _finite(tensor) -> bool:
    import torch

    return not tensor.is_floating_point() or bool(torch.isfinite(tensor).all())


def check_resumable(payload: dict, cfg: Config, path: Path) -> None:
    """The parts of a checkpoint that need no network or engine to check: every part is
    there, the counters, return statistics and recent results are finite numbers, the
    random state has torch's size, the pool's names, statistics and snapshots agree with
    the config and with each other, and the weights are finite tensors of the
    network's names and shapes. ``ConfigError`` naming the first part at fault."""
    import torch

    from agents.ppo import PolicyNet

    def fail(part: str, what: str):
        raise ConfigError(damaged(path, part, what))

    missing = [p for p in PARTS if p not in payload]
    if missing:
        fail("the part(s)", f"{', '.join(missing)} are missing")
    counters = payload["counters"]
    if not isinstance(counters, dict):
        fail("counters", "is not a mapping")
    for key in COUNTERS:
        value = counters.get(key)
        if not _number(value) or value < 0 or (key != "seconds" and not isinstance(value, int)):
            fail(f"counter {key!r}", f"= {str(value)[:40]!r}: must be a {'number' if key == 'seconds' else 'whole number'} >= 0")
    for key, value in counters.items():  # what else a run counts (its time plan): numbers
        if not (_number(value) or (isinstance(value, list) and all(_number(v) for v in value))):
            fail(f"counter {str(key)[:40]!r}", f"= {str(value)[:40]!r}: must be a finite number")
    stats = payload["ret_stats"]
    if not (isinstance(stats, torch.Tensor) and stats.shape == (3,) and stats.is_floating_point() and _finite(stats)
            and stats[1] >= 0 and stats[2] > 0):
        fail("ret_stats", "must be 3 finite numbers (mean, variance >= 0, count > 0)")
    wins = payload["recent_wins"]
    if not isinstance(wins, list) or not all(_number(w) and 0 <= w <= 1 for w in wins):
        fail("recent_wins", "must be a list of results in [0, 1]")
    rng = payload["torch_rng"]
    reference = torch.get_rng_state()
    if not (isinstance(rng, torch.Tensor) and rng.dtype == reference.dtype and rng.shape == reference.shape):
        fail("torch_rng", f"must be torch's random state (uint8 [{len(reference)}])")

    with torch.device("meta"):
        net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior, game=cfg.game, critic=cfg.critic, belief=cfg.belief)
    shapes = {k: (tuple(v.shape), v.dtype) for k, v in net.state_dict().items()}

    def check_weights(weights: Any, part: str) -> None:
        if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
            fail(part, "must map the network's parameter names to tensors")
        got = {k: (tuple(v.shape), v.dtype) for k, v in weights.items()}
        if got != shapes:
            bad = sorted(set(shapes) ^ set(got), key=str) or [k for k in shapes if shapes[k] != got[k]]
            fail(part, f"do not fit the config's network (hidden={list(cfg.hidden)}): {str(bad[0])[:60]!r} is "
                       f"{got.get(bad[0], 'missing')}, expected {shapes.get(bad[0], 'no such parameter')}")
        for name, tensor in weights.items():
            if not _finite(tensor):
                fail(part, f"hold non-finite values (NaN or inf) in {name!r}")

    check_weights(payload["net"], "the policy's weights")
    pool = payload["pool"]
    if not isinstance(pool, dict) or set(pool) != {"names", "snapshots", "win_ema", "games"}:
        fail("pool", "must hold names, snapshots, win_ema and games")
    names = pool["names"]
    fixed = ["self", *cfg.opponents]
    if not (isinstance(names, list) and all(isinstance(x, str) for x in names) and names[:len(fixed)] == fixed
            and all(x.startswith("snapshot@") for x in names[len(fixed):])):
        fail("pool names", f"must be {fixed} followed by snapshots ('snapshot@<step>'), got {str(names)[:120]}")
    for key, dtype in (("win_ema", torch.float64), ("games", torch.int64)):
        value = pool[key]
        if not (isinstance(value, torch.Tensor) and value.dtype == dtype and value.shape == (len(names),)
                and _finite(value) and bool((value >= 0).all()) and (key == "games" or bool((value <= 1).all()))):
            fail(f"pool {key}", f"must be {len(names)} {'win shares in [0, 1]' if key == 'win_ema' else 'counts >= 0'}, "
                                f"one per pool entry")
    snapshots = pool["snapshots"]
    slots = {i for i, x in enumerate(names) if x.startswith("snapshot@")}
    if not isinstance(snapshots, dict) or set(snapshots) != slots or len(slots) > cfg.pool_size:
        fail("pool snapshots", f"must be the weights of the pool entries {sorted(slots)} (at most pool_size "
                               f"{cfg.pool_size})")
    for idx, weights in snapshots.items():
        check_weights(weights, f"pool snapshot {idx}'s weights")
    workers = payload["workers"]
    if not isinstance(workers, list) or len(workers) != cfg.rollout_workers:
        fail("workers", f"must be the states of the config's {cfg.rollout_workers} rollout worker(s)")


def check_optimizer_state(state: Any, optimizer, path: Path) -> None:
    """The optimizer's saved state against the optimizer built for the network: the same
    parameter groups and settings (finite numbers), and for each parameter moments of its
    shape and type, finite (torch itself does not check the shapes, and its fused kernel
    then writes out of bounds)."""
    import torch

    def fail(part: str, what: str):
        raise ConfigError(damaged(path, part, what))

    fresh = optimizer.state_dict()
    if not isinstance(state, dict) or set(state) != {"state", "param_groups"}:
        fail("optimizer", "must hold state and param_groups")
    groups = state["param_groups"]
    if not (isinstance(groups, list) and len(groups) == len(fresh["param_groups"])
            and all(isinstance(g, dict) and set(g) == set(f) and g["params"] == f["params"]
                    for g, f in zip(groups, fresh["param_groups"]))):
        fail("optimizer param_groups", "do not match the network's parameters")
    for group in groups:
        for key, value in group.items():
            numbers = value if key == "betas" and isinstance(value, (list, tuple)) else [value]
            if key != "params" and any(isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isfinite(v)
                                       for v in numbers):
                fail(f"optimizer setting {key!r}", f"= {value!r}: must be finite")
    params = [p for group in optimizer.param_groups for p in group["params"]]
    moments = state["state"]
    if not isinstance(moments, dict) or not set(moments) <= set(range(len(params))):
        fail("optimizer state", f"must be keyed by parameter numbers 0..{len(params) - 1}")
    for idx, entry in moments.items():
        param = params[idx]
        if not isinstance(entry, dict) or not {"step", "exp_avg", "exp_avg_sq"} <= set(entry) \
                or not set(entry) <= {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}:
            fail(f"optimizer state of parameter {idx}", "must hold step, exp_avg and exp_avg_sq")
        step = entry["step"]
        if not (isinstance(step, torch.Tensor) and step.numel() == 1 and _finite(step) and float(step) >= 0):
            fail(f"optimizer step of parameter {idx}", "must be a finite number >= 0")
        for key in set(entry) - {"step"}:
            value = entry[key]
            if not (isinstance(value, torch.Tensor) and value.shape == param.shape and value.dtype == param.dtype):
                fail(f"optimizer {key} of parameter {idx}", f"must be {param.dtype} of shape {tuple(param.shape)}, got "
                     f"{tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__}")
            if not _finite(value) or (key != "exp_avg" and bool((value < 0).any())):
                fail(f"optimizer {key} of parameter {idx}", "must be finite" + ("" if key == "exp_avg" else " and >= 0"))


def check_workers(states: list, cfg: Config, net, names: list[str], path: Path) -> None:
    """Each rollout worker's state against a fresh worker of the config: the same parts
    (games, open chains, random states) of the same types and shapes (an axis of length 0
    in the fresh worker, a queue of given deals, may have any length), the same game, rules
    and table; indices in range (seats, pool entries, open chains), finite numbers."""
    import torch

    from .buffer import Buffer

    def fail(part: str, what: str):
        raise ConfigError(damaged(path, part, what))

    def like(saved: Any, fresh: Any, part: str) -> None:
        if isinstance(fresh, dict):
            if not isinstance(saved, dict) or set(saved) != set(fresh):
                fail(part, f"must hold {sorted(map(str, fresh))[:12]}")
            for key in fresh:
                like(saved[key], fresh[key], f"{part}.{key}")
        elif isinstance(fresh, (list, tuple)):
            if not isinstance(saved, type(fresh)) or len(saved) != len(fresh):
                fail(part, f"must be a {type(fresh).__name__} of {len(fresh)}")
            for i, (a, b) in enumerate(zip(saved, fresh)):
                like(a, b, f"{part}[{i}]")
        elif isinstance(fresh, torch.Tensor):
            if not (isinstance(saved, torch.Tensor) and saved.dtype == fresh.dtype and saved.ndim == fresh.ndim
                    and all(a == b or b == 0 for a, b in zip(saved.shape, fresh.shape))):
                fail(part, f"must be {fresh.dtype} of shape {tuple(fresh.shape)}, got "
                     f"{(saved.dtype, tuple(saved.shape)) if isinstance(saved, torch.Tensor) else type(saved).__name__}")
            if not _finite(saved):
                fail(part, "holds non-finite values")
        elif type(saved) is not type(fresh):
            fail(part, f"must be a {type(fresh).__name__}, got {type(saved).__name__}")

    def in_range(values, low: int, high: int, part: str) -> None:
        if len(values) and not (int(values.min()) >= low and int(values.max()) < high):
            fail(part, f"must be in {low}..{high - 1}")

    for index, state in enumerate(states):
        part = f"rollout worker {index}"
        if not isinstance(state, dict) or state.get("index") != index:
            fail(part, f"must be the state of worker {index}")
        fresh_worker = RolloutWorker(cfg, index, net=net)  # workers differ in their number of games
        fresh = fresh_worker.state()
        like({k: v for k, v in state.items() if k not in ("carry", "bots")},
             {k: v for k, v in fresh.items() if k not in ("carry", "bots")}, part)
        for a, (saved, made) in enumerate(zip(state["arenas"], fresh["arenas"])):
            where = f"{part}.arenas[{a}]"
            for key, value, expected in [("n", saved["n"], made["n"])] + [
                    (f"venv.{k}", saved["venv"][k], made["venv"][k]) for k in ("game", "num_envs", "num_players", "rules")]:
                if value != expected:
                    fail(f"{where}.{key}", f"= {str(value)[:80]}: the config's is {str(expected)[:80]}")
            generator = np.random.default_rng()
            generator.bit_generator.state = saved["venv"]["rng"]  # a bad state raises here (caught by the caller)
            n = made["n"]
            in_range(saved["seat"].numpy(), 0, n, f"{where}.seat")
            in_range(saved["opponent"].numpy(), 0, len(names), f"{where}.opponent")
        carry = state["carry"]
        fields = Buffer.FIELDS + fresh_worker.extra
        rows = 0
        if carry is not None:
            if not isinstance(carry, dict) or set(carry) != set(fields) \
                    or not all(isinstance(v, torch.Tensor) and v.ndim >= 1 for v in carry.values()):
                fail(f"{part}.carry", f"must be None or the arrays {list(fields)}")
            rows = len(carry["action"])
            widths = {"obs": net.obs_size, "mask": net.num_actions}
            for key, value in carry.items():
                if len(value) != rows or (key in widths and tuple(value.shape[1:]) != (widths[key],)) or not _finite(value):
                    fail(f"{part}.carry.{key}", f"must be {rows} finite rows" + (f" of {widths[key]}" if key in widths else ""))
        for a, saved in enumerate(state["arenas"]):
            in_range(saved["last"].numpy(), -1, rows, f"{part}.arenas[{a}].last (open chains: {rows} carried)")
        bots = state["bots"]
        if not isinstance(bots, dict) or not all(isinstance(i, int) and 0 < i < len(names) for i in bots):
            fail(f"{part}.bots", f"must be keyed by pool entries 1..{len(names) - 1}")


def check_policy_outputs(net, cfg: Config, what: str) -> None:
    """The policy's logits and values on real positions of the config's table (a few
    random games at each player count) must be finite: weights that overflow (a huge prior
    scale, say) would otherwise sample illegal actions or NaN losses mid-run. Draws nothing
    from torch's global generator."""
    import torch

    from agents.ppo import prior_agent
    from redbeard_env.registry import as_game

    info = as_game(cfg.game)
    rules = info.make_rules(cfg.rules, **cfg.overrides)
    rng = np.random.default_rng(0)
    obs_rows, mask_rows = [], []
    for n in cfg.players:
        venv = info.vector_env(16, n, rules=rules, seed=0)
        obs, mask, _ = venv.reset()
        for _ in range(8):
            obs_rows.append(obs)
            mask_rows.append(mask)
            obs, mask, *_ = venv.step((rng.random(mask.shape) * mask).argmax(1))
    obs, mask = np.concatenate(obs_rows), np.concatenate(mask_rows)
    values = prior_agent(cfg.prior, info).action_values(obs, mask) if cfg.prior else None
    was_training = net.training
    net.eval()
    try:
        with torch.no_grad():
            device = next(net.parameters()).device
            x, prior_block = net.inputs(torch.as_tensor(net.features(obs, mask, values), device=device),
                                        cfg.update_dtype == "bfloat16")
            logits, value = net(x, torch.as_tensor(mask, device=device).bool(), prior_block)
    finally:
        net.train(was_training)
    if not bool(torch.isfinite(logits).all()) or (value is not None and not bool(torch.isfinite(value).all())):
        raise ConfigError(f"{what} gives non-finite {'action logits' if not bool(torch.isfinite(logits).all()) else 'values'}"
                          f" (NaN or inf) on ordinary positions: its weights overflow; it cannot be trained on")
