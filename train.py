"""PPO self-play for Rödskägg on the batch engine (CleanRL-style: reads top to bottom).

    python train.py --config classic_4p                       # configs/classic_4p.yaml
    python train.py --config classic_4p --total-steps 2e6 --num-envs 512
    python train.py --resume runs/classic_4p__1__20261129-140000
    tensorboard --logdir runs

How it works
    Every game of the batch has one *learner* seat (or, in self-play games, learner on
    every seat); the other seats are played by an opponent drawn from a pool — the
    current policy ("self"), bots from the agent registry (``heuristic``, optionally
    ``pimc``) and frozen snapshots of the learner — with prioritised sampling towards the
    opponents the learner does worst against (PFSP weight (1 − win share)^p). Only the
    learner's decisions are trained on. A learner transition's reward is everything its
    seat receives until its next decision; GAE runs over each seat's own decision chain,
    a chain cut by the end of a rollout bootstraps from the value of its last decision,
    which is carried over and trained on in the next rollout.

Prior
    With ``prior: heuristic`` (the default) the policy's logits add the heuristic bot's
    action utilities with learned scales (agents/ppo.py): training starts from a softened
    copy of the heuristic, and PPO learns corrections on top (residual policy learning).
    ``prior: ""`` learns from the observation alone. One call of the heuristic per step
    serves the learner's prior, the snapshots' priors and the heuristic opponents.

Length
    ``total_steps`` environment steps or, with ``max_minutes``, that much wall time
    (resumes add up), whichever comes first; the learning rate anneals to 0 over the same
    span, and the run ends with its checkpoint and a final evaluation.

Reward
    ``reward: win`` — the environment's terminal reward (winner +1, others −1/(n−1)).
    ``reward: shaped`` — plus ``shaping_coef`` × (|score| before − |score| after)/start_score
    at every scored round: getting closer to zero pays.

Outputs (``runs/<config>__<seed>__<time>/``)
    TensorBoard events (``charts/``, ``losses/``, ``eval/``, ``pool/``), ``config.yaml``,
    ``checkpoint.pt`` (everything needed to resume: policy, optimizer, pool, RNG states,
    counters, the games in progress), ``policy.pt`` (a self-describing policy checkpoint
    usable as ``ppo:<path>``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from redbeard_env.rules import make_rules

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


# ====================================================================== config
@dataclass
class Config:
    """Every field can be set in configs/<name>.yaml and overridden on the command line
    (``--total-steps 2e6``, ``--players 3 4 5``)."""

    exp_name: str = "classic_4p"  # name of the config / run prefix
    seed: int = 1  # seeds the engines, the pool and torch
    rules: str = "classic"  # rules preset
    overrides: dict = field(default_factory=dict)  # Rules field overrides
    players: list = field(default_factory=lambda: [4])  # player counts (one batch each)
    device: str = "cpu"  # cpu | cuda
    torch_threads: int = 2  # intra-op threads on the CPU (2 suits a 2-core machine running nothing else)
    total_steps: int = 20_000_000  # environment steps (decisions of all seats)
    num_envs: int = 1024  # games in lock-step per player count
    num_steps: int = 32  # environment steps per rollout
    hidden: list = field(default_factory=lambda: [256, 256])  # torso widths
    prior: str = "heuristic"  # bot whose action utilities the policy builds on ("" = none; agents/ppo.py)
    prior_scale: float = 2.0  # initial weight of the prior in the logits (learned from there)
    learning_rate: float = 1e-3
    anneal_lr: bool = True  # linear decay to 0 over the run (total_steps or max_minutes)
    gamma: float = 0.999  # discount per learner decision
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 3
    clip_coef: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop the epoch loop above this KL (0 = never)
    norm_adv: bool = True
    reward: str = "shaped"  # win | shaped
    shaping_coef: float = 0.5
    opponents: list = field(default_factory=lambda: ["heuristic"])  # registry specs in the pool
    self_play_frac: float = 0.2  # share of games where the learner plays every seat
    snapshot_every: int = 25  # updates between frozen snapshots entering the pool (0 = none)
    pool_size: int = 6  # most snapshots kept
    pfsp_power: float = 2.0  # prioritisation exponent
    eval_every: int = 50  # updates between evaluations vs heuristic (0 = only at the end)
    eval_games: int = 400  # duplicate games per evaluation
    checkpoint_every: int = 10  # updates between checkpoints
    run_dir: str = "runs"  # parent directory of runs
    init_from: str = ""  # start from the weights of a policy checkpoint (path or shipped name)
    stop_after: int = 0  # end this invocation after this many updates; --resume continues (0 = run to the end)
    max_minutes: float = 0.0  # wall-clock budget of the run, resumes added up (0 = none); the learning rate anneals over steps or time, whichever runs out first


def load_config(name_or_path: str) -> Config:
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
        raise ValueError(f"no config {name_or_path!r} (looked for {path}); known: {known}")
    data = yaml.safe_load(path.read_text()) or {}
    return apply_overrides(Config(exp_name=path.stem), data, source=str(path))


def apply_overrides(cfg: Config, data: dict, source: str) -> Config:
    fields = {f.name: f for f in dataclasses.fields(Config)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(f"{source}: unknown config field(s) {unknown}; allowed: {sorted(fields)}")
    values = {}
    for key, value in data.items():
        default = getattr(Config(), key)
        try:
            if isinstance(default, bool):
                value = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
            elif isinstance(default, int):
                as_float = float(value)
                if as_float != int(as_float):
                    raise ValueError
                value = int(as_float)
            elif isinstance(default, float):
                value = float(value)
            elif isinstance(default, list) and not isinstance(value, list):
                value = [value]
        except (TypeError, ValueError):
            raise ValueError(f"{source}: config field {key!r} expects {type(default).__name__}, got {value!r}") from None
        values[key] = value
    return dataclasses.replace(cfg, **values)


def parse_args(argv: list[str] | None) -> tuple[Config, str | None]:
    parser = argparse.ArgumentParser(description="PPO self-play trainer for Rödskägg", allow_abbrev=False)
    parser.add_argument("--config", default="classic_4p", help="configs/<name>.yaml or a path")
    parser.add_argument("--resume", default=None, help="a run directory to continue")
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(Config(), f.name)
        if isinstance(default, list):
            parser.add_argument(flag, nargs="+", default=None)
        elif isinstance(default, dict):
            parser.add_argument(flag, nargs="+", default=None, metavar="FIELD=VALUE")
        else:
            parser.add_argument(flag, default=None)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    cli = {}
    for f in dataclasses.fields(Config):
        value = getattr(args, f.name)
        if value is None:
            continue
        if isinstance(getattr(Config(), f.name), dict):
            pairs = {}
            for item in value:
                if "=" not in item:
                    raise ValueError(f"--{f.name.replace('_', '-')} expects FIELD=VALUE items, got {item!r}")
                key, text = item.split("=", 1)
                pairs[key] = yaml.safe_load(text)
            value = pairs
        elif f.name == "players":
            value = [int(v) for v in value]
        cli[f.name] = value
    return apply_overrides(cfg, cli, source="command line"), args.resume


# ====================================================================== rollout state
class Arena:
    """One batch of games at a fixed player count, with who-plays-which-seat and the
    learner's open transition chains. Pure numpy, so it pickles into checkpoints."""

    def __init__(self, cfg: Config, num_players: int, seed: int):
        from redbeard_env.vector import VectorEnv

        self.n = num_players
        self.venv = VectorEnv(num_envs=cfg.num_envs, num_players=num_players, rules=cfg.rules, seed=seed, **cfg.overrides)
        self.obs, self.mask, self.seat = self.venv.reset()
        B = cfg.num_envs
        self.B = B
        self.learner = np.zeros((B, num_players), dtype=bool)
        self.opponent = np.zeros(B, dtype=np.int64)  # pool index (0 = self)
        self.last = np.full((B, num_players), -1, dtype=np.int64)  # open transition per seat
        self.pending = np.zeros((B, num_players), dtype=np.float32)  # reward since that decision
        self.start_score = float(make_rules(cfg.rules, **cfg.overrides).start_score)
        self.prev_distance = np.full((B, num_players), abs(self.start_score), dtype=np.float32)

    def assign(self, games: np.ndarray, rng: np.random.Generator, pool: "Pool") -> None:
        """Draw an opponent and the learner's seat(s) for new games."""
        if len(games) == 0:
            return
        opp = pool.sample(len(games), rng)
        self.opponent[games] = opp
        self.learner[games] = False
        seats = rng.integers(self.n, size=len(games))
        self.learner[games, seats] = True
        self.learner[games[opp == 0]] = True  # self-play: every seat is the learner


class Pool:
    """Opponents: index 0 is the learner itself, then registry bots, then snapshots."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.names = ["self"] + list(cfg.opponents)
        self.snapshots: dict[int, dict] = {}  # pool index -> state_dict
        self.win_ema = np.full(len(self.names), 1.0 / max(cfg.players), dtype=np.float64)
        self.games = np.zeros(len(self.names), dtype=np.int64)
        self.agents: dict[int, Any] = {}

    def add_snapshot(self, state_dict: dict, step: int) -> None:
        if self.cfg.pool_size <= 0:
            return
        snaps = [i for i in range(len(self.names)) if i in self.snapshots]
        if len(snaps) >= self.cfg.pool_size:  # retire the oldest snapshot's slot
            idx = snaps[0]
            del self.snapshots[idx]
            self.agents.pop(idx, None)
        else:
            idx = len(self.names)
            self.names.append("")
            self.win_ema = np.append(self.win_ema, 1.0 / max(self.cfg.players))
            self.games = np.append(self.games, 0)
        self.names[idx] = f"snapshot@{step}"
        self.snapshots[idx] = {k: v.clone() for k, v in state_dict.items()}
        self.win_ema[idx] = 1.0 / max(self.cfg.players)
        self.games[idx] = 0

    def probabilities(self) -> np.ndarray:
        weights = np.clip(1.0 - self.win_ema[1:], 0.02, 1.0) ** self.cfg.pfsp_power
        probs = np.concatenate([[self.cfg.self_play_frac], (1 - self.cfg.self_play_frac) * weights / weights.sum()])
        return probs / probs.sum()

    def sample(self, k: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(len(self.names), size=k, p=self.probabilities())

    def record(self, opponent: np.ndarray, learner_won: np.ndarray) -> None:
        for idx, won in zip(opponent, learner_won):
            self.games[idx] += 1
            self.win_ema[idx] += 0.02 * (float(won) - self.win_ema[idx])

    def is_prior_bot(self, idx: int) -> bool:
        """Whether opponent ``idx`` is the policy's prior bot itself (the same deterministic
        bot: its actions are the argmax of the prior's values)."""
        return bool(self.cfg.prior) and idx not in self.snapshots and self.names[idx] == self.cfg.prior

    def uses_prior(self, idx: int) -> bool:
        """Whether opponent ``idx`` needs the prior bot's values (it is that bot, or a
        snapshot of a policy with that prior)."""
        return self.is_prior_bot(idx) or (bool(self.cfg.prior) and idx in self.snapshots)

    def agent(self, idx: int, cfg: Config, device: str):
        """A bot for pool index ``idx`` (built lazily, not pickled)."""
        if idx not in self.agents:
            if idx in self.snapshots:
                from agents.ppo import PolicyNet

                net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior).to(device)
                net.load_state_dict(self.snapshots[idx])
                net.eval()
                self.agents[idx] = net
            else:
                from agents.registry import make_agent

                self.agents[idx] = make_agent(self.names[idx], seed=cfg.seed + idx)
        return self.agents[idx]

    def __getstate__(self):
        # Bots (with their RNG states) are saved; snapshot networks are rebuilt from weights.
        state = dict(self.__dict__)
        state["agents"] = {i: a for i, a in self.agents.items() if i not in self.snapshots}
        return state


# ====================================================================== training
def main(argv: list[str] | None = None) -> dict:
    cfg, resume = parse_args(argv)
    return train(cfg, resume)


def train(cfg: Config, resume: str | None = None, quiet: bool = False) -> dict:
    os.environ.setdefault("OMP_NUM_THREADS", str(cfg.torch_threads))
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from agents.ppo import PolicyNet, masked_entropy, prior_agent, save_checkpoint
    from redbeard_env.cards import NUM_ACTIONS

    torch.set_num_threads(cfg.torch_threads)
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda asked for, but torch sees no CUDA device")
    if not cfg.max_minutes >= 0:
        raise ValueError(f"max_minutes must be >= 0 (0 = no time limit), got {cfg.max_minutes}")
    if cfg.reward not in ("win", "shaped"):
        raise ValueError(f"reward must be 'win' or 'shaped', got {cfg.reward!r}")
    device = torch.device(cfg.device)
    rules = make_rules(cfg.rules, **cfg.overrides)

    # ---------------------------------------------------------------- state (fresh or resumed)
    if resume:
        run_dir = Path(resume)
        state = torch.load(run_dir / "checkpoint.pt", map_location="cpu", weights_only=False)
        saved = state["config"]
        gone = sorted(set(saved) - {f.name for f in dataclasses.fields(Config)})
        if gone:
            raise ValueError(f"{run_dir} was written by an older train.py (config fields {gone} no longer exist); start a new run, "
                             f"optionally with --init-from <its policy.pt> if the network still loads")
        cfg = dataclasses.replace(Config(**saved), stop_after=cfg.stop_after)  # the saved run's config
    else:
        run_dir = Path(cfg.run_dir) / f"{cfg.exp_name}__{cfg.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        state = None

    torch.manual_seed(cfg.seed)
    net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior, prior_scale=cfg.prior_scale).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    if state is None:
        if cfg.init_from:
            from agents.ppo import load_checkpoint

            init_net, _ = load_checkpoint(cfg.init_from)
            if tuple(init_net.hidden) != tuple(cfg.hidden) or init_net.prior != cfg.prior:
                raise ValueError(f"init_from {cfg.init_from!r} has hidden sizes {list(init_net.hidden)} and prior {init_net.prior!r}; "
                                 f"the config asks for {cfg.hidden} and {cfg.prior!r}")
            net.load_state_dict(init_net.state_dict())
        run_dir.mkdir(parents=True, exist_ok=True)  # only once the config has proved usable
        (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
        pool_rng = np.random.default_rng(cfg.seed)
        pool = Pool(cfg)
        arenas = [Arena(cfg, n, cfg.seed * 1000 + n) for n in cfg.players]
        for a in arenas:
            a.assign(np.arange(a.B), pool_rng, pool)
        carry = None
        counters = {"global_step": 0, "update": 0, "episodes": 0, "seconds": 0.0}
        ret_stats = np.array([0.0, 1.0, 1e-4])  # running mean, var, count of returns
        recent_wins: list[float] = []
    else:
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        pool_rng = state["pool_rng"]
        pool = state["pool"]
        arenas = state["arenas"]
        carry = state["carry"]
        counters = state["counters"]
        ret_stats = state["ret_stats"]
        recent_wins = state["recent_wins"]

    writer = SummaryWriter(str(run_dir))
    if state is None:
        writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(cfg).items()))

    def ret_norm(x):
        return (x - ret_stats[0]) / np.sqrt(ret_stats[1] + 1e-8)

    def ret_denorm(x):
        return x * np.sqrt(ret_stats[1] + 1e-8) + ret_stats[0]

    prior_bot = prior_agent(cfg.prior) if cfg.prior else None
    steps_per_update = cfg.num_steps * cfg.num_envs * len(arenas)
    num_updates = max(1, cfg.total_steps // steps_per_update)
    progress = tqdm(total=num_updates, initial=counters["update"], desc="train", unit="upd", disable=quiet, dynamic_ncols=True)
    start_time, start_step = time.time(), counters["global_step"]
    seconds_before = counters.get("seconds", 0.0)  # wall time of earlier invocations of this run
    budget = 60.0 * cfg.max_minutes

    def done_fraction() -> float:
        """How much of the run is behind us: steps or wall time, whichever is further."""
        steps = counters["update"] / num_updates
        return max(steps, (seconds_before + time.time() - start_time) / budget) if budget else steps
    results: dict = {"run_dir": str(run_dir)}

    updates_this_run = 0
    while done_fraction() < 1.0 and not (cfg.stop_after and updates_this_run >= cfg.stop_after):
        updates_this_run += 1
        if cfg.anneal_lr:
            optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1.0 - done_fraction())

        # ------------------------------------------------------------ rollout
        buf = Buffer(carry)
        net.eval()
        with torch.no_grad():
            for _ in range(cfg.num_steps):
                for ai, arena in enumerate(arenas):
                    B = arena.B
                    rows = np.arange(B)
                    acting_learner = arena.learner[rows, arena.seat]
                    actions = np.empty(B, dtype=np.int64)
                    lrn = np.flatnonzero(acting_learner)
                    opp_rows = np.flatnonzero(~acting_learner)
                    # One call of the prior bot serves the learner's prior, the frozen
                    # snapshots' priors and the opponents that are that bot.
                    values = np.zeros((B, NUM_ACTIONS))
                    if prior_bot is not None:
                        uses_prior = np.array([pool.uses_prior(i) for i in range(len(pool.names))])
                        shared = np.sort(np.concatenate([lrn, opp_rows[uses_prior[arena.opponent[opp_rows]]]]))
                        if len(shared):
                            values[shared] = prior_bot.action_values(arena.obs[shared], arena.mask[shared])
                    if len(lrn):
                        feats = net.features(arena.obs[lrn], arena.mask[lrn], values[lrn] if prior_bot else None)
                        o = torch.as_tensor(feats, device=device)
                        m = torch.as_tensor(arena.mask[lrn], device=device).bool()
                        act, logp, value = net.act(o, m)
                        act_np = act.cpu().numpy()
                        actions[lrn] = act_np
                        idx = buf.add(feats, arena.mask[lrn], act_np, logp.cpu().numpy(), ret_denorm(value.cpu().numpy()))
                        seats = arena.seat[lrn]
                        prev = arena.last[lrn, seats]
                        linked = prev >= 0
                        buf.link(prev[linked], idx[linked], arena.pending[lrn[linked], seats[linked]])
                        arena.pending[lrn, seats] = 0.0
                        arena.last[lrn, seats] = idx
                    for k in np.unique(arena.opponent[opp_rows]):
                        sel = opp_rows[arena.opponent[opp_rows] == k]
                        if pool.is_prior_bot(int(k)):
                            actions[sel] = values[sel].argmax(1)  # what its act_batch returns
                            continue
                        agent = pool.agent(int(k), cfg, device)
                        if hasattr(agent, "act_batch"):
                            actions[sel] = agent.act_batch(arena.obs[sel], arena.mask[sel])
                        else:  # a frozen snapshot network
                            o = torch.as_tensor(agent.features(arena.obs[sel], arena.mask[sel], values[sel] if prior_bot else None), device=device)
                            m = torch.as_tensor(arena.mask[sel], device=device).bool()
                            actions[sel] = agent.act(o, m)[0].cpu().numpy()
                    arena.obs, arena.mask, arena.seat, rewards, terminated, truncated, info = arena.venv.step(actions)
                    arena.pending += np.where(arena.learner, rewards, 0.0)
                    if cfg.reward == "shaped":
                        rounds = np.flatnonzero(info["round_over"])
                        if len(rounds):
                            dist = np.abs(info["round_score"][rounds] if "round_score" in info else info["score"][rounds]).astype(np.float32)
                            gain = (arena.prev_distance[rounds] - dist) / arena.start_score
                            arena.pending[rounds] += np.where(arena.learner[rounds], cfg.shaping_coef * gain, 0.0)
                            arena.prev_distance[rounds] = dist
                    done = np.flatnonzero(terminated | truncated)
                    if len(done):
                        seats_open = arena.last[done] >= 0
                        g_idx, s_idx = np.nonzero(seats_open)
                        buf.finish(arena.last[done][g_idx, s_idx], arena.pending[done][g_idx, s_idx])
                        arena.last[done] = -1
                        arena.pending[done] = 0.0
                        winner = info["winner"][done]
                        not_self = arena.opponent[done] != 0
                        learner_won = arena.learner[done, np.maximum(winner, 0)] & (winner >= 0)
                        pool.record(arena.opponent[done][not_self], learner_won[not_self])
                        recent_wins.extend(learner_won[not_self].astype(float).tolist())
                        counters["episodes"] += len(done)
                        arena.prev_distance[done] = abs(arena.start_score)
                        arena.assign(done, pool_rng, pool)
                counters["global_step"] += cfg.num_envs * len(arenas)

        # ------------------------------------------------------------ advantages
        open_tails = np.concatenate([a.last[a.last >= 0] for a in arenas]) if arenas else np.array([], dtype=np.int64)
        batch, carry, remap = buf.finalize(cfg.gamma, cfg.gae_lambda, open_tails)
        for a in arenas:  # open chains now point into the carried buffer
            a.last[a.last >= 0] = remap[a.last[a.last >= 0]]
        returns = batch["adv"] + batch["value"]
        mean, var, count = ret_stats
        b_mean, b_var, b_count = returns.mean(), returns.var(), len(returns)
        delta, tot = b_mean - mean, count + b_count
        ret_stats = np.array([mean + delta * b_count / tot, (var * count + b_var * b_count + delta**2 * count * b_count / tot) / tot, tot])

        # ------------------------------------------------------------ PPO update
        net.train()
        N = len(batch["action"])
        t_obs = torch.as_tensor(batch["obs"], device=device)
        t_mask = torch.as_tensor(batch["mask"], device=device).bool()
        t_act = torch.as_tensor(batch["action"], device=device)
        t_logp = torch.as_tensor(batch["logp"], device=device)
        t_adv = torch.as_tensor(batch["adv"], device=device)
        t_ret = torch.as_tensor(ret_norm(returns).astype(np.float32), device=device)
        t_val_old = torch.as_tensor(ret_norm(batch["value"]).astype(np.float32), device=device)
        clipfracs, approx_kl = [], torch.tensor(0.0)
        seen = {"policy": [], "value": [], "entropy": []}  # per minibatch, logged as means
        for epoch in range(cfg.update_epochs):
            # exactly num_minibatches near-equal parts: no tiny remainder batch taking a step of its own
            for mb in torch.randperm(N, device=device).tensor_split(min(cfg.num_minibatches, max(N, 1))):
                logits, new_value = net(t_obs[mb], t_mask[mb])
                logp_all = torch.log_softmax(logits, -1)
                new_logp = logp_all.gather(-1, t_act[mb, None]).squeeze(-1)
                log_ratio = new_logp - t_logp[mb]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                adv = t_adv[mb]
                if cfg.norm_adv and len(mb) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_clipped = t_val_old[mb] + (new_value - t_val_old[mb]).clamp(-cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((new_value - t_ret[mb]) ** 2, (v_clipped - t_ret[mb]) ** 2).mean()
                entropy = masked_entropy(logits, t_mask[mb]).mean()
                loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                for key, part in (("policy", pg_loss), ("value", v_loss), ("entropy", entropy)):
                    seen[key].append(part.item())
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                optimizer.step()
            if cfg.target_kl and approx_kl > cfg.target_kl:
                break
        counters["update"] += 1
        counters["seconds"] = seconds_before + time.time() - start_time
        progress.update(1)

        # ------------------------------------------------------------ logging
        step = counters["global_step"]
        y_pred, y_true = batch["value"], returns
        var_y = np.var(y_true)
        explained = float("nan") if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        sps = int((step - start_step) / max(time.time() - start_time, 1e-9))
        recent_wins = recent_wins[-2000:]
        win_rate = float(np.mean(recent_wins)) if recent_wins else float("nan")
        writer.add_scalar("charts/SPS", sps, step)
        writer.add_scalar("charts/win_rate", win_rate, step)
        writer.add_scalar("charts/episodes", counters["episodes"], step)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], step)
        writer.add_scalar("charts/learner_samples", N, step)
        losses = {key: float(np.mean(v)) for key, v in seen.items()}
        for key, value in losses.items():
            writer.add_scalar(f"losses/{key}", value, step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), step)
        writer.add_scalar("losses/clipfrac", float(np.mean(clipfracs)), step)
        writer.add_scalar("losses/explained_variance", explained, step)
        if net.prior:
            writer.add_scalar("charts/prior_scale_value", net.prior_log_scale[0].exp().item(), step)
            writer.add_scalar("charts/prior_scale_choice", net.prior_log_scale[1].exp().item(), step)
        for i, name in enumerate(pool.names):
            writer.add_scalar(f"pool/win_ema/{name.split('@')[0]}_{i}", pool.win_ema[i], step)
        progress.set_postfix(SPS=sps, win=f"{win_rate:.3f}", kl=f"{approx_kl.item():.4f}")
        results.update(
            sps=sps, win_rate=win_rate, global_step=step, updates=counters["update"],
            losses={**losses, "approx_kl": approx_kl.item()},
        )

        if cfg.snapshot_every and counters["update"] % cfg.snapshot_every == 0:
            pool.add_snapshot(net.state_dict(), step)
        last = done_fraction() >= 1.0
        if last or updates_this_run == cfg.stop_after or (cfg.checkpoint_every and counters["update"] % cfg.checkpoint_every == 0):
            save_checkpoint(run_dir / "policy.pt", net, rules=rules, num_players=cfg.players[0] if len(cfg.players) == 1 else None,
                            config=dataclasses.asdict(cfg), meta={"global_step": step, "updates": counters["update"], "wall_seconds": counters["seconds"]})
            full = {
                "config": dataclasses.asdict(cfg), "net": net.state_dict(), "optimizer": optimizer.state_dict(),
                "torch_rng": torch.get_rng_state(), "pool_rng": pool_rng, "pool": pool, "arenas": arenas,
                "carry": carry, "counters": counters, "ret_stats": ret_stats, "recent_wins": recent_wins,
            }
            tmp = run_dir / "checkpoint.pt.tmp"
            torch.save(full, tmp)
            tmp.replace(run_dir / "checkpoint.pt")
        if (cfg.eval_every and counters["update"] % cfg.eval_every == 0) or last:
            ev = evaluate_policy(run_dir / "policy.pt", cfg, step, writer)
            if ev:
                results["eval"] = ev
    progress.close()
    writer.close()
    results["wall_seconds"] = time.time() - start_time
    return results


def evaluate_policy(policy_path: Path, cfg: Config, step: int, writer) -> dict | None:
    """Duplicate tournament of the current policy vs heuristic bots (evaluate.py's API);
    logs eval/* and returns the tournament's results."""
    if not cfg.eval_games or not policy_path.is_file():
        return None
    from evaluate import run_tournament

    n = cfg.players[0]
    spec = f"ppo:{policy_path}"
    res = run_tournament([spec] + ["heuristic"] * (n - 1), rules=cfg.rules, players=n,
                         games=cfg.eval_games, seed=cfg.seed + 12345, overrides=cfg.overrides, progress=False)
    me = res["agents"][spec]
    writer.add_scalar("eval/win_rate_vs_heuristic", me["win_rate"], step)
    writer.add_scalar("eval/win_rate_vs_heuristic_ci_low", me["win_rate_ci"][0], step)
    writer.add_scalar("eval/win_rate_vs_heuristic_ci_high", me["win_rate_ci"][1], step)
    for key in ("contract_rate", "bid_error", "join_success"):
        if me.get(key) is not None:
            writer.add_scalar(f"eval/{key}", me[key], step)
    return res


class Buffer:
    """Learner transitions of one rollout (plus open ones carried from the last).

    Transition i's reward is what its seat received until its next decision ``nxt[i]``;
    ``done[i]`` marks the last decision of a game. GAE runs backwards over creation order
    (a successor is always created later)."""

    FIELDS = ("obs", "mask", "action", "logp", "value")

    def __init__(self, carry: dict | None):
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in self.FIELDS}
        self.size = 0
        self.chunks: list[tuple[int, int]] = []
        self.links: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.finishes: list[tuple[np.ndarray, np.ndarray]] = []
        if carry is not None and len(carry["action"]):
            self.add(*(carry[k] for k in self.FIELDS))

    def add(self, obs, mask, action, logp, value) -> np.ndarray:
        for key, arr in zip(self.FIELDS, (obs, mask, action, logp, value)):
            self.parts[key].append(np.asarray(arr))
        idx = np.arange(self.size, self.size + len(action))
        self.chunks.append((self.size, self.size + len(action)))
        self.size += len(action)
        return idx

    def link(self, prev: np.ndarray, nxt: np.ndarray, reward: np.ndarray) -> None:
        self.links.append((prev.copy(), nxt.copy(), reward.astype(np.float32)))

    def finish(self, last: np.ndarray, reward: np.ndarray) -> None:
        self.finishes.append((last.copy(), reward.astype(np.float32)))

    def finalize(self, gamma: float, lam: float, open_tails: np.ndarray):
        data = {k: np.concatenate(v) if v else np.zeros(0) for k, v in self.parts.items()}
        N = self.size
        nxt = np.full(N, -1, dtype=np.int64)
        reward = np.zeros(N, dtype=np.float32)
        done = np.zeros(N, dtype=bool)
        for prev, new, r in self.links:
            nxt[prev], reward[prev] = new, r
        for last, r in self.finishes:
            done[last], reward[last] = True, r
        value = data["value"].astype(np.float32)
        adv = np.zeros(N, dtype=np.float32)
        ready = done | (nxt >= 0)
        nv = np.where(nxt >= 0, value[np.maximum(nxt, 0)], 0.0)
        delta = reward + gamma * np.where(done, 0.0, nv) - value
        # A successor is always in a later chunk: sweeping chunks backwards sees adv[nxt]
        # first. A chain cut by the rollout's end bootstraps from V (its GAE tail is 0).
        for start, end in reversed(self.chunks):
            i = np.arange(start, end)
            j = nxt[i]
            follow = np.where((j >= 0) & ready[np.maximum(j, 0)], adv[np.maximum(j, 0)], 0.0)
            adv[i] = np.where(ready[i], delta[i] + np.where(done[i], 0.0, gamma * lam * follow), 0.0)
        keep = np.flatnonzero(ready)
        batch = {k: v[keep] for k, v in data.items()}
        batch["adv"] = adv[keep]
        tails = np.sort(open_tails)
        carry = {k: v[tails] for k, v in data.items()}
        remap = np.full(max(N, 1), -1, dtype=np.int64)
        remap[tails] = np.arange(len(tails))
        return batch, carry, remap


if __name__ == "__main__":
    out = main()
    if "eval" in out:
        from evaluate import format_table

        print("\nfinal tournament of the trained policy against heuristic bots:")
        print(format_table(out["eval"]))
    print(f"\nrun directory: {out['run_dir']} (policy.pt, checkpoint.pt)")
    print(f"TensorBoard logs: tensorboard --logdir {Path(out['run_dir']).parent}")
