"""PPO self-play on the batch engine. :func:`train` reads top to bottom, CleanRL-style:
each update is a rollout, advantages, a PPO update, logging, and now and then a
snapshot, a checkpoint and an evaluation.

Prior
    With ``prior: heuristic`` the policy's logits add the heuristic bot's
    action utilities with learned scales (agents/ppo.py): training starts from a softened
    copy of the heuristic, and PPO learns corrections on top (residual policy learning).
    One call of the heuristic per step serves the learner's prior, the snapshots' priors
    and the heuristic opponents.

Length
    ``total_steps`` environment steps or, with ``max_minutes``, that much wall time
    (resumes add up), whichever comes first: the minutes become a number of updates once
    the first updates are timed (:class:`Plan`). The learning rate anneals to 0 over the
    run, and the run ends with its checkpoint and a final evaluation; a run from scratch
    also evaluates its untrained policy first (the learning curve's minute 0).

Reward
    ``reward: win`` — the environment's terminal reward (winner +1, others −1/(n−1)).
    ``reward: shaped`` — plus ``shaping_coef`` × the game's progress in every scored round
    (its training part's ``round_gain``, ``agents/<game>/training.py``: what progress is,
    is the game's to say).

Games
    ``game``: any registered game with a batch engine and a training part (default:
    :data:`~redbeard_env.registry.LEGACY_GAME`): the arenas play that game's batch engine,
    the policy reads its observation (``agents/ppo.py``), opponents and the evaluation bot
    (``heuristic``) are that game's bots, and the evaluation logs its metrics' columns.

Outputs (``runs/<exp_name>__<seed>__<time>/``)
    TensorBoard events (``charts/``, ``losses/``, ``eval/``, ``pool/``), ``config.yaml``,
    ``checkpoint.pt`` (everything needed to resume, as plain data: policy, optimizer, pool,
    random states, counters, the games in progress; see :mod:`redbeard_train.state`),
    ``policy.pt`` (a self-describing policy checkpoint usable as ``ppo:<path>``).

Exact resume
    A run stopped after any update and resumed ends bit-identical to an uninterrupted run
    (with a ``max_minutes`` budget: once its length in updates is fixed, see :class:`Plan`):
    every random state is in the checkpoint, and nothing between checkpoints draws from the
    global torch generator except the training itself (networks built from saved weights
    are made on the meta device: no random initialisation).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Callable

import numpy as np
import yaml

from redbeard_env.registry import as_game

from . import state as checkpoints
from .config import Config, ConfigError, check_config
from .pool import Pool
from .rollout import make_workers
from .state import Run, make_optimizer


# ====================================================================== the loop
def bfloat16_units() -> bool:
    """Whether this CPU has bfloat16 matrix units (AMX tiles or AVX512-BF16), the only place
    where the update's bfloat16 layer is faster than float32."""
    import torch

    return any(getattr(torch.cpu, name, lambda: False)() for name in ("_is_amx_tile_supported", "_is_avx512_bf16_supported"))


def train(cfg: Config, resume: "str | Path | None" = None, quiet: bool = False,
          callback: "Callable[[dict], bool] | None" = None) -> dict:
    """Train (or, with ``resume``, continue) a run; returns its last statistics.

    ``callback(info)`` is called after every update with the run's progress (``run_dir``,
    ``update``, ``planned_updates``, ``global_step``, ``seconds``, ``sps``, ``win_rate``,
    ``eval_win``); when it returns True the run ends there with a checkpoint (``stopped``
    in the result) and ``--resume`` continues it exactly."""
    cfg = check_config(cfg)
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    torch.set_num_threads(cfg.torch_threads)
    if cfg.device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"config field 'device' = {cfg.device!r}: torch sees no CUDA device")
    device = torch.device(cfg.device)
    if cfg.update_dtype == "auto":  # decided once: the run's saved config holds the choice, a resume keeps it
        cfg = dataclasses.replace(cfg, update_dtype="bfloat16" if cfg.device == "cpu" and bfloat16_units() else "float32")
    run = checkpoints.resume_run(Path(resume), cfg, device) if resume else start_run(cfg, device)
    cfg = run.cfg
    writer = SummaryWriter(str(run.run_dir))
    if not resume:
        writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(cfg).items()))

    plan = Plan(cfg, run.counters)
    # until a time budget has become a number of updates the bar shows no total (and no ETA)
    # rather than total_steps' count, which the minutes may cut to a fraction
    planned = not cfg.max_minutes or run.counters.get("plan_for") == [cfg.total_steps, cfg.max_minutes]
    progress = tqdm(total=plan.updates if planned else None, initial=run.counters["update"], desc="train", unit="upd",
                    disable=quiet, dynamic_ncols=True)
    start_time, start_step = time.time(), run.counters["global_step"]
    seconds_before = run.counters["seconds"]  # wall time of earlier invocations of this run

    def seconds() -> float:
        return seconds_before + time.time() - start_time

    results: dict = {"run_dir": str(run.run_dir), "stopped": False}
    if not resume and not cfg.init_from and cfg.eval_every and cfg.eval_games:
        # a run from scratch first measures its untrained policy: the learning curve's minute 0
        checkpoints.save_run(run)
        warm_evaluation(run.run_dir / "policy.pt", cfg)  # one-off costs out of the evaluation's timing
        eval_start = time.time()
        ev = evaluate_policy(run.run_dir / "policy.pt", cfg, 0, writer)
        run.counters["eval_seconds"] = time.time() - eval_start
        if ev:
            results["eval"] = ev
    updates_this_run = 0
    try:  # the rollout threads end with the run, also when it fails
        while plan.done_fraction(run.counters["update"]) < 1.0 and not (cfg.stop_after and updates_this_run >= cfg.stop_after):
            updates_this_run += 1
            done = plan.done_fraction(run.counters["update"])
            if cfg.anneal_lr:
                run.optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1.0 - done)

            distill = distill_weight(cfg, done)
            batch, returns = collect_rollout(run, teach=distill > 0)
            losses = ppo_update(run, batch, returns, device, distill)

            run.counters["update"] += 1
            run.counters["seconds"] = seconds()
            if plan.observe(run.counters, updates_this_run, seconds()):
                progress.total = plan.updates  # the minutes are now a number of updates
                progress.refresh()
            progress.update(1)
            step = run.counters["global_step"]
            sps = int((step - start_step) / max(time.time() - start_time, 1e-9))
            win_rate = log_update(run, writer, batch, returns, losses, sps)
            progress.set_postfix(SPS=sps, win=f"{win_rate:.3f}", kl=f"{losses['approx_kl']:.4f}")
            results.update(sps=sps, win_rate=win_rate, global_step=step, updates=run.counters["update"], losses=losses)

            if cfg.snapshot_every and run.counters["update"] % cfg.snapshot_every == 0:
                run.pool.add_snapshot(run.net.state_dict(), step)
            last = plan.done_fraction(run.counters["update"]) >= 1.0
            stop = bool(callback and callback({
                "run_dir": str(run.run_dir), "update": run.counters["update"], "planned_updates": plan.updates,
                "global_step": step, "seconds": run.counters["seconds"], "sps": sps, "win_rate": win_rate,
                "eval_win": _eval_win(results.get("eval"))})) and not last
            if last or stop or updates_this_run == cfg.stop_after or (cfg.checkpoint_every and run.counters["update"] % cfg.checkpoint_every == 0):
                checkpoints.save_run(run)
            if (cfg.eval_every and run.counters["update"] % cfg.eval_every == 0) or last:
                ev = evaluate_policy(run.run_dir / "policy.pt", cfg, step, writer)
                if ev:
                    results["eval"] = ev
            if stop:
                results["stopped"] = True
                break
    finally:
        run.workers.close()
    progress.close()
    writer.close()
    results["wall_seconds"] = time.time() - start_time
    results.update(seconds=run.counters["seconds"], global_step=run.counters["global_step"],
                   updates=run.counters["update"], planned_updates=plan.updates)
    return results


def _eval_win(res: dict | None) -> float | None:
    if not res:
        return None
    spec = next((s for s in res["agents"] if s.startswith("ppo:")), None)
    return res["agents"][spec]["win_rate"] if spec else None


#: a time budget becomes a number of updates after the first WARMUP_UPDATES of an invocation
#: (slower: threads, caches and allocations settle) and then at least CALIBRATION_UPDATES timed
#: ones spanning at least CALIBRATION_SHARE of the budget
WARMUP_UPDATES, CALIBRATION_UPDATES, CALIBRATION_SHARE = 2, 3, 0.05


class Plan:
    """How many updates a run makes. ``total_steps`` gives a number; ``max_minutes`` is
    turned into one once the run has timed its updates (see the constants above; an
    evaluation's measured time is spread over the updates between evaluations), and
    whichever is smaller is the run's length. The number is kept in the checkpoint's
    counters, so the learning rate and distillation schedules are functions of the update
    alone and a resumed run repeats an uninterrupted one bit for bit. A resume with another
    ``total_steps`` or ``max_minutes`` plans again from the recorded speed."""

    def __init__(self, cfg: Config, counters: dict):
        self.cfg = cfg
        self.step_updates = max(1, cfg.total_steps // (cfg.num_steps * cfg.num_envs * len(cfg.players)))
        self.budget = 60.0 * cfg.max_minutes
        key = [cfg.total_steps, cfg.max_minutes]
        planned = counters.get("planned_updates")
        if not self.budget:
            self.updates = self.step_updates
        elif planned is not None and counters.get("plan_for") == key:
            self.updates = planned
        elif counters.get("seconds_per_update"):  # a resume with another budget: plan again from the recorded speed
            self.updates = self._fix(counters, counters["update"], counters["seconds"])
        else:
            self.updates = self.step_updates  # until the first updates are timed
        self._timer: tuple[int, float] | None = None

    def _fix(self, counters: dict, update: int, elapsed: float) -> int:
        per_update = counters["seconds_per_update"]
        eval_seconds = counters.get("eval_seconds", 0.0)
        if self.cfg.eval_every and eval_seconds:
            per_update += eval_seconds / self.cfg.eval_every
        left = self.budget - elapsed - eval_seconds  # the final evaluation comes out of the budget too
        updates = min(self.step_updates, update + max(0, int(left // per_update)))
        counters["planned_updates"] = max(updates, update)
        counters["plan_for"] = [self.cfg.total_steps, self.cfg.max_minutes]
        return counters["planned_updates"]

    def observe(self, counters: dict, updates_this_run: int, elapsed: float) -> bool:
        """Take an update's end into account; True when the plan has just been fixed."""
        if not self.budget or counters.get("plan_for") == [self.cfg.total_steps, self.cfg.max_minutes]:
            return False
        if updates_this_run == WARMUP_UPDATES:
            self._timer = (counters["update"], time.time())
        if elapsed >= self.budget:  # out of time before the speed was known: stop here
            counters["seconds_per_update"] = counters.get("seconds_per_update") or elapsed / max(counters["update"], 1)
            self.updates = max(counters["update"], 1)
            counters["planned_updates"], counters["plan_for"] = self.updates, [self.cfg.total_steps, self.cfg.max_minutes]
            return True
        if self._timer is None or counters["update"] - self._timer[0] < CALIBRATION_UPDATES or \
                time.time() - self._timer[1] < CALIBRATION_SHARE * self.budget:
            return False
        counters["seconds_per_update"] = (time.time() - self._timer[1]) / (counters["update"] - self._timer[0])
        self.updates = self._fix(counters, counters["update"], elapsed)
        return True

    def done_fraction(self, update: int) -> float:
        return min(update / self.updates, 1.0)


# ====================================================================== start
def start_run(cfg: Config, device) -> Run:
    """A fresh run; its directory is made only once everything has loaded."""
    import torch

    from agents.ppo import PolicyNet, load_checkpoint

    torch.manual_seed(cfg.seed)
    net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior, prior_scale=cfg.prior_scale, game=cfg.game,
                    critic=cfg.critic, belief=cfg.belief).to(device)
    if cfg.init_from:
        try:
            init_net, _ = load_checkpoint(cfg.init_from)
        except ValueError as exc:
            raise ConfigError(f"config field 'init_from' = {cfg.init_from!r}: {exc}") from None
        mine = (tuple(cfg.hidden), cfg.prior, cfg.game, cfg.belief)
        theirs = (tuple(init_net.hidden), init_net.prior, init_net.game, init_net.belief)
        if mine != theirs:
            raise ConfigError(f"init_from {cfg.init_from!r} has hidden sizes, prior, game and belief head {theirs}; "
                              f"the config asks for {mine}")
        # the policy (and belief head) carry over; a critic of another kind starts afresh
        state = {k: v for k, v in init_net.state_dict().items()
                 if init_net.critic_kind == cfg.critic or not k.startswith(("value.", "critic."))}
        net.load_state_dict(state, strict=False)
        checkpoints.check_policy_outputs(net, cfg, f"config field 'init_from' = {cfg.init_from!r}:")
    optimizer = make_optimizer(net, cfg)
    workers = make_workers(cfg, net)
    run_dir = Path(cfg.run_dir) / f"{cfg.exp_name}__{cfg.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    return Run(cfg, run_dir, net, optimizer, Pool(cfg), workers,
               counters={"global_step": 0, "update": 0, "episodes": 0, "seconds": 0.0},
               ret_stats=np.array([0.0, 1.0, 1e-4]), recent_wins=[])


# ====================================================================== rollout and advantages
def distill_weight(cfg: Config, done: float) -> float:
    """The teacher's loss weight at this point of the run: ``distill_coef`` falling
    linearly to 0 at ``distill_frac`` of the run, 0 after (and without a teacher)."""
    if not cfg.teacher or cfg.distill_frac <= 0 or done >= cfg.distill_frac:
        return 0.0
    return cfg.distill_coef * (1.0 - done / cfg.distill_frac)


def collect_rollout(run: Run, teach: bool = False) -> tuple[dict, np.ndarray]:
    """Every worker plays ``num_steps`` steps and runs GAE over its games; the batches are
    merged in worker order, the finished games go into the pool's statistics, and the
    running return statistics (the value head learns normalised returns) take the new
    returns in. ``teach``: the teacher labels the learner's decisions (distillation)."""
    results = run.workers.rollout(run.net, {**run.pool.statistics(), "teach": teach}, run.ret_stats)
    batch = results[0]["batch"] if len(results) == 1 else \
        {key: np.concatenate([r["batch"][key] for r in results]) for key in results[0]["batch"]}
    for r in results:
        for opponents, won in r["records"]:
            run.pool.record(opponents, won)
            run.recent_wins.extend(won.astype(float).tolist())
        run.counters["episodes"] += r["episodes"]
        run.counters["global_step"] += r["steps"]
    returns = batch["adv"] + batch["value"]
    mean, var, count = run.ret_stats
    b_mean, b_var, b_count = returns.mean(), returns.var(), len(returns)
    delta, tot = b_mean - mean, count + b_count
    run.ret_stats = np.array([mean + delta * b_count / tot, (var * count + b_var * b_count + delta**2 * count * b_count / tot) / tot, tot])
    return batch, returns


# ====================================================================== update
def ppo_update(run: Run, batch: dict, returns: np.ndarray, device, distill: float = 0.0) -> dict:
    """``update_epochs`` passes of clipped PPO over the batch in ``num_minibatches`` parts;
    returns the losses (minibatch means) and the last approximate KL. With the recipe's
    parts: the privileged critic's value from ``batch["priv"]``, the belief head's
    cross-entropy against ``batch["btarget"]`` (``belief_coef``) and the teacher's
    cross-entropy on the labelled rows of ``batch["teacher"]`` (weight ``distill``)."""
    import torch

    cfg, net, optimizer = run.cfg, run.net, run.optimizer
    net.train()
    N = len(batch["action"])
    tensors = update_tensors(run, batch, returns, device)
    clipfracs, approx_kl = [], torch.tensor(0.0)
    seen: dict[str, list[float]] = {"policy": [], "value": [], "entropy": []}
    for _ in range(cfg.update_epochs):
        # exactly num_minibatches near-equal parts: no tiny remainder batch taking a step of its own
        for mb in torch.randperm(N, device=device).tensor_split(min(cfg.num_minibatches, max(N, 1))):
            # index_select, not t[mb]: the same rows, ~1.6x faster for the features on a CPU
            part = {k: t.index_select(0, mb) for k, t in tensors.items()}
            loss, parts, kl, clipfrac = minibatch_loss(cfg, net, part, distill)
            approx_kl = kl
            clipfracs.append(clipfrac)
            for key, value in parts.items():
                seen.setdefault(key, []).append(value)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
        if cfg.target_kl and approx_kl > cfg.target_kl:
            break
    return {**{key: float(np.mean(v)) for key, v in seen.items()},
            "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs))}


def update_tensors(run: Run, batch: dict, returns: np.ndarray, device) -> dict:
    """The batch as tensors for the update (features in the update's dtype; the prior's
    block apart, in float32, when that dtype is bfloat16)."""
    import torch

    t = {}
    t["obs"], prior_block = run.net.inputs(torch.as_tensor(batch["obs"], device=device), run.cfg.update_dtype == "bfloat16")
    if prior_block is not None:
        t["prior"] = prior_block
    t["mask"] = torch.as_tensor(batch["mask"], device=device).bool()
    t["act"] = torch.as_tensor(batch["action"], device=device)
    t["logp"] = torch.as_tensor(batch["logp"], device=device)
    t["adv"] = torch.as_tensor(batch["adv"], device=device)
    t["ret"] = torch.as_tensor(run.ret_norm(returns).astype(np.float32), device=device)
    t["val_old"] = torch.as_tensor(run.ret_norm(batch["value"]).astype(np.float32), device=device)
    for key in ("priv", "btarget", "teacher"):
        if key in batch:
            t[key] = torch.as_tensor(batch[key].astype(np.int64 if key != "priv" else np.float32), device=device)
    if "priv" in t:  # every hand, 0/1: exact in the critic's input dtype
        t["priv"] = t["priv"].to(t["obs"].dtype)
    return t


def minibatch_loss(cfg: Config, net, part: dict, distill: float) -> tuple:
    """The loss of one minibatch: clipped policy loss, clipped value loss, entropy bonus,
    and the recipe's belief and teacher losses; returns (loss, its parts, approx KL,
    clip fraction)."""
    import torch

    from agents.ppo import belief_log_probs, masked_entropy

    out = net.heads(part["obs"], part["mask"], part.get("prior"), part.get("priv"))
    logits, new_value = out["logits"], out["value"]
    logp_all = torch.log_softmax(logits, -1)
    new_logp = logp_all.gather(-1, part["act"][:, None]).squeeze(-1)
    log_ratio = new_logp - part["logp"]
    ratio = log_ratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item()
    adv = part["adv"]
    if cfg.norm_adv and len(adv) > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
    val_old, ret = part["val_old"], part["ret"]
    v_clipped = val_old + (new_value - val_old).clamp(-cfg.clip_coef, cfg.clip_coef)
    v_loss = 0.5 * torch.max((new_value - ret) ** 2, (v_clipped - ret) ** 2).mean()
    entropy = masked_entropy(logp_all, part["mask"]).mean()
    loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
    parts = {"policy": pg_loss.item(), "value": v_loss.item(), "entropy": entropy.item()}
    if out["belief"] is not None:
        # the cross-entropy over every card's holder, mean over the rows' cards
        belief_loss = -belief_log_probs(out["belief"]).gather(-1, part["btarget"][..., None]).mean()
        loss = loss + cfg.belief_coef * belief_loss
        parts["belief"] = belief_loss.item()
    if distill > 0 and "teacher" in part:
        labelled = part["teacher"] >= 0
        if bool(labelled.any()):
            teacher_loss = -logp_all[labelled].gather(-1, part["teacher"][labelled][:, None]).mean()
            loss = loss + distill * teacher_loss
            parts["teacher"] = teacher_loss.item()
    return loss, parts, approx_kl, clipfrac


# ====================================================================== logging
def log_update(run: Run, writer, batch: dict, returns: np.ndarray, losses: dict, sps: int) -> float:
    """TensorBoard scalars of one update; returns the learner's recent win rate."""
    step, net = run.counters["global_step"], run.net
    var_y = np.var(returns)
    explained = float("nan") if var_y == 0 else 1 - np.var(returns - batch["value"]) / var_y
    run.recent_wins = run.recent_wins[-2000:]
    win_rate = float(np.mean(run.recent_wins)) if run.recent_wins else float("nan")
    writer.add_scalar("charts/SPS", sps, step)
    writer.add_scalar("charts/win_rate", win_rate, step)
    writer.add_scalar("charts/episodes", run.counters["episodes"], step)
    writer.add_scalar("charts/learning_rate", run.optimizer.param_groups[0]["lr"], step)
    writer.add_scalar("charts/learner_samples", len(batch["action"]), step)
    for key, value in losses.items():
        writer.add_scalar(f"losses/{key}", value, step)
    writer.add_scalar("losses/explained_variance", explained, step)
    if net.prior:
        writer.add_scalar("charts/prior_scale_value", net.prior_log_scale[0].exp().item(), step)
        writer.add_scalar("charts/prior_scale_choice", net.prior_log_scale[1].exp().item(), step)
    for i, name in enumerate(run.pool.names):
        writer.add_scalar(f"pool/win_ema/{name.split('@')[0]}_{i}", run.pool.win_ema[i], step)
    return win_rate


# ====================================================================== evaluation
EVAL_OPPONENT = "heuristic"  # the game's own heuristic bot


def eval_tournament(policy_path: Path, cfg: Config, games: int) -> dict:
    """The policy in one seat against the evaluation's heuristics, ``games`` duplicate games
    on the evaluation's seed."""
    from redbeard_eval import run_tournament

    n = cfg.players[0]
    return run_tournament([f"ppo:{policy_path}"] + [EVAL_OPPONENT] * (n - 1), rules=cfg.rules, players=n,
                          game=cfg.game, games=games, seed=cfg.seed + 12345, overrides=cfg.overrides, progress=False)


def warm_evaluation(policy_path: Path, cfg: Config) -> None:
    """A one-deal evaluation, untimed: on a fresh checkout the first evaluation also compiles
    the bots' kernels and loads the policy, which the time budget's plan must not take for
    the cost of every evaluation (it would plan far fewer updates than the budget holds)."""
    if cfg.eval_games and policy_path.is_file():
        eval_tournament(policy_path, cfg, games=1)


def evaluate_policy(policy_path: Path, cfg: Config, step: int, writer) -> dict | None:
    """Duplicate tournament of the current policy vs heuristic bots; logs eval/* and
    returns the tournament's results."""
    if not cfg.eval_games or not policy_path.is_file():
        return None
    spec = f"ppo:{policy_path}"
    res = eval_tournament(policy_path, cfg, cfg.eval_games)
    me = res["agents"][spec]
    writer.add_scalar("eval/win_rate_vs_heuristic", me["win_rate"], step)
    writer.add_scalar("eval/win_rate_vs_heuristic_ci_low", me["win_rate_ci"][0], step)
    writer.add_scalar("eval/win_rate_vs_heuristic_ci_high", me["win_rate_ci"][1], step)
    for _, _, key, _ in as_game(cfg.game).metrics_type.COLUMNS:  # the game's own metrics
        if me.get(key) is not None:
            writer.add_scalar(f"eval/{key}", me[key], step)
    return res
