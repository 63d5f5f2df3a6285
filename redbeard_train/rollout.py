"""Rollouts: the games of a run, split over ``rollout_workers`` workers.

A :class:`RolloutWorker` owns a slice of the games (``num_envs`` split as evenly as
possible, per player count), its own view of the opponent pool with the bots it has
built, its own generators (opponent sampling, the learner's action sampling) and the open
transition chains of its games. Each update the learner sends every worker the policy
weights, the pool (names, snapshots, statistics) and the return statistics; each worker
plays ``num_steps`` steps, runs GAE over its own chains and sends back its batch and the
games it finished. Workers are run

* ``backend: local`` — in this process, a thread per worker when there are several;
* ``backend: ray`` — as Ray actors in parallel (``ray.init()`` without an address starts an
  embedded local cluster; ``ray_address`` or ``RAY_ADDRESS`` joins a running one).

The learner merges the batches in worker order, so a run is the same for a fixed seed
and worker count whichever backend plays it (synchronous PPO).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .buffer import Buffer
from .config import Config
from .pool import Arena, Pool, from_plain, generator_states, map_leaves, set_generator_states, to_plain


def worker_envs(cfg: Config, index: int) -> int:
    """Games per player count in worker ``index`` (the first workers take the remainder)."""
    share, extra = divmod(cfg.num_envs, cfg.rollout_workers)
    return share + (index < extra)


class RolloutWorker:
    """See the module docstring. ``net`` is the learner's network in a local run (no copy);
    a Ray actor builds its own and loads the weights it is sent."""

    def __init__(self, cfg: Config, index: int, net: Any = None, state: dict | None = None):
        import torch

        from agents.ppo import PolicyNet, prior_agent
        from redbeard_env.registry import as_game

        self.cfg, self.index = cfg, index
        game = as_game(cfg.game)  # the worker's game, resolved once
        if net is None:  # weights arrive with every rollout: no random initialisation
            with torch.device("meta"):
                net = PolicyNet(hidden=tuple(cfg.hidden), prior=cfg.prior, game=game, critic=cfg.critic,
                                belief=cfg.belief)
            net = net.to_empty(device="cpu")
        self.net = net
        self.device = next(net.parameters()).device
        self.prior_bot = prior_agent(cfg.prior, game) if cfg.prior else None
        self.extra = tuple(k for k, on in (("priv", cfg.critic == "privileged"), ("btarget", cfg.belief),
                                           ("teacher", bool(cfg.teacher))) if on)
        self.teacher = None
        if cfg.teacher:
            from agents.registry import make_agent

            self.teacher = make_agent(cfg.teacher, game=game, seed=cfg.seed * 104729 + index)
            self.teach_rng = np.random.default_rng([cfg.seed, index, 31])
        self.teach = False  # the learner says, each rollout, whether the distillation phase is on
        self.pool = Pool(cfg)
        self.generator = torch.Generator(device=self.device).manual_seed(cfg.seed * 7919 + index)  # the learner's action sampling
        if state is not None:
            self._load(state)
            return
        self.pool_rng = np.random.default_rng([cfg.seed, index])
        B = worker_envs(cfg, index)
        seeds = [int(np.random.SeedSequence([cfg.seed, n, index]).generate_state(1)[0]) for n in cfg.players]
        self.arenas = [Arena(cfg, n, B, seed=seed) for n, seed in zip(cfg.players, seeds)]
        for a in self.arenas:
            a.assign(np.arange(a.B), self.pool_rng, self.pool)
        self.carry: dict | None = None

    # ------------------------------------------------------------------ one rollout
    def rollout(self, weights: dict | None, pool_stats: dict, ret_stats: np.ndarray) -> dict:
        """Play ``num_steps`` steps with these weights (None: the shared network as it is)
        and return the batch with advantages, the finished games and the step count."""
        import torch

        if weights is not None:
            self.net.load_state_dict(weights)
        self.pool.sync(pool_stats)
        self.teach = bool(pool_stats.get("teach", False))
        self.ret_stats = ret_stats
        self.records: list[tuple[np.ndarray, np.ndarray]] = []
        self.episodes = 0
        buf = Buffer(self.carry, self.extra)
        self.net.eval()
        uses_prior = np.array([self.pool.uses_prior(i) for i in range(len(self.pool.names))])
        # Rollouts run on one torch thread wherever they run: a float sum split over other
        # thread counts differs in the last bit, and a Ray actor holds one CPU (two
        # threads in each of two actors on two cores slowed rollouts 3x).
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.no_grad():
                for _ in range(self.cfg.num_steps):
                    for arena in self.arenas:
                        self._step(arena, buf, uses_prior)
        finally:
            torch.set_num_threads(threads)
        open_tails = np.concatenate([a.last[a.last >= 0] for a in self.arenas])
        batch, self.carry, remap = buf.finalize(self.cfg.gamma, self.cfg.gae_lambda, open_tails)
        for a in self.arenas:  # open chains now point into the carried buffer
            a.last[a.last >= 0] = remap[a.last[a.last >= 0]]
        steps = self.cfg.num_steps * sum(a.B for a in self.arenas)
        return {"batch": batch, "records": self.records, "episodes": self.episodes, "steps": steps}

    def _ret_denorm(self, x: np.ndarray) -> np.ndarray:
        return x * np.sqrt(self.ret_stats[1] + 1e-8) + self.ret_stats[0]

    def _step(self, arena: Arena, buf: Buffer, uses_prior: np.ndarray) -> None:
        """Every seat to act in this arena decides; the learner's decisions go into the buffer."""
        import torch

        net, pool = self.net, self.pool
        acting_learner = arena.learner[np.arange(arena.B), arena.seat]
        actions = np.empty(arena.B, dtype=np.int64)
        lrn = np.flatnonzero(acting_learner)
        opp_rows = np.flatnonzero(~acting_learner)
        # One call of the prior bot serves the learner's prior, the frozen snapshots'
        # priors and the opponents that are that bot.
        values = np.zeros((arena.B, net.num_actions))
        if self.prior_bot is not None:
            shared = np.sort(np.concatenate([lrn, opp_rows[uses_prior[arena.opponent[opp_rows]]]]))
            if len(shared):
                values[shared] = self.prior_bot.action_values(arena.obs[shared], arena.mask[shared])
        prior_values = values if self.prior_bot is not None else None
        if len(lrn):
            feats = net.features(arena.obs[lrn], arena.mask[lrn], None if prior_values is None else values[lrn])
            extra = self._recipe_data(arena, lrn)
            priv = torch.as_tensor(extra["priv"], device=self.device).float() if "priv" in extra else None
            x, prior_block = self._net_input(net, feats)
            act, logp, value = net.act(x, torch.as_tensor(arena.mask[lrn], device=self.device).bool(),
                                       generator=self.generator, privileged=priv, prior_block=prior_block)
            act_np = act.cpu().numpy()
            actions[lrn] = act_np
            idx = buf.add(obs=feats, mask=arena.mask[lrn], action=act_np, logp=logp.cpu().numpy(),
                          value=self._ret_denorm(value.cpu().numpy()), **extra)
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
            agent = pool.agent(int(k), self.device)
            if hasattr(agent, "act_batch"):
                actions[sel] = agent.act_batch(arena.obs[sel], arena.mask[sel])
            else:  # a frozen snapshot network
                x, prior_block = self._net_input(agent, agent.features(arena.obs[sel], arena.mask[sel],
                                                                       None if prior_values is None else values[sel]))
                actions[sel] = agent.act(x, torch.as_tensor(arena.mask[sel], device=self.device).bool(),
                                         generator=self.generator, prior_block=prior_block)[0].cpu().numpy()
        self._apply(arena, actions, buf)

    def _net_input(self, net, feats: np.ndarray) -> tuple:
        """A network's input for these features in the update's dtype: the rollout's
        log-probabilities, which the update's probability ratios start from, then come from
        the same arithmetic, and on bfloat16 units the passes are cheaper."""
        import torch

        return net.inputs(torch.as_tensor(feats, device=self.device), self.cfg.update_dtype == "bfloat16")

    def _recipe_data(self, arena: Arena, lrn: np.ndarray) -> dict:
        """What the training recipe keeps of the learner's decisions ``lrn`` besides the
        transition: every hand from the acting seat (the privileged critic's input, as
        uint8), each card's holder (the belief head's target) and the teacher's action
        (-1 where it gives none: outside the distillation phase or not sampled)."""
        out: dict = {}
        if "priv" in self.extra or "btarget" in self.extra:
            from agents.ppo import privileged_view

            held = arena.training.held_cards(arena.venv)[lrn]
            priv, target = privileged_view(held, arena.seat[lrn], self.net.belief_shape[1] - 1)
            if "priv" in self.extra:
                out["priv"] = priv.astype(np.uint8)  # 0/1: a quarter of the memory in the buffer
            if "btarget" in self.extra:
                out["btarget"] = target.astype(np.int8)
        if "teacher" in self.extra:
            labels = np.full(len(lrn), -1, np.int64)
            if self.teach:
                rows = np.flatnonzero(self.teach_rng.random(len(lrn)) < self.cfg.teacher_share)
                if len(rows):
                    labels[rows] = self.teacher.act_batch(arena.obs[lrn[rows]], arena.mask[lrn[rows]])
            out["teacher"] = labels
        return out

    def _apply(self, arena: Arena, actions: np.ndarray, buf: Buffer) -> None:
        """Play one step; credit rewards to the learner's open decisions, close finished
        games' chains and seat new opponents there."""
        cfg = self.cfg
        arena.obs, arena.mask, arena.seat, rewards, terminated, truncated, info = arena.venv.step(actions)
        arena.pending += np.where(arena.learner, rewards, 0.0)
        if cfg.reward == "shaped":
            rounds = np.flatnonzero(info["round_over"])
            if len(rounds):
                gain = arena.round_gain(info, rounds)
                arena.pending[rounds] += np.where(arena.learner[rounds], cfg.shaping_coef * gain, 0.0)
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            g_idx, s_idx = np.nonzero(arena.last[done] >= 0)
            buf.finish(arena.last[done][g_idx, s_idx], arena.pending[done][g_idx, s_idx])
            arena.last[done] = -1
            arena.pending[done] = 0.0
            # the seats that won (Sortskæg: all tied on top; a shared win counts as won)
            won_seats = info["winners"][done] if "winners" in info else info["winner"][done][:, None] == np.arange(arena.n)
            not_self = arena.opponent[done] != 0
            learner_won = (arena.learner[done] & won_seats).any(1)
            opponents, won = arena.opponent[done][not_self], learner_won[not_self]
            self.pool.record(opponents, won)  # this rollout's later draws see it at once
            self.records.append((opponents, won))
            self.episodes += len(done)
            arena.restart(done)
            arena.assign(done, self.pool_rng, self.pool)
            if cfg.start_scores:
                arena.start_at_scores(done, self.pool_rng, *cfg.start_scores, cfg.start_scores_share)

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict:
        """Plain data: the games, the open chains and every random state of this worker."""
        return {
            "index": self.index, "arenas": [a.state() for a in self.arenas], "carry": to_plain(self.carry),
            "pool_rng": self.pool_rng.bit_generator.state, "generator": self.generator.get_state(),
            "bots": {i: generator_states(a) for i, a in self.pool.agents.items() if i not in self.pool.snapshots},
            **({"teach_rng": self.teach_rng.bit_generator.state, "teacher": generator_states(self.teacher)}
               if self.teacher is not None else {}),
        }

    def _load(self, state: dict) -> None:
        self.arenas = [Arena.from_state(self.cfg, a) for a in state["arenas"]]
        self.carry = from_plain(state["carry"])
        self.pool_rng = np.random.default_rng()
        self.pool_rng.bit_generator.state = state["pool_rng"]
        self.generator.set_state(state["generator"])
        self._bot_states = state["bots"]
        if self.teacher is not None:
            self.teach_rng.bit_generator.state = state["teach_rng"]
            set_generator_states(self.teacher, state["teacher"])

    def restore_bots(self, pool_stats: dict) -> None:
        """After a resume: rebuild the bots this worker had built, with their random states
        (they need the pool's names, which come with the learner's statistics)."""
        self.pool.sync(pool_stats)
        for idx, generators in getattr(self, "_bot_states", {}).items():
            set_generator_states(self.pool.agent(idx, self.device), generators)
        self._bot_states = {}


# ====================================================================== backends
class LocalWorkers:
    """The workers in this process, sharing the learner's network, each in a thread of its
    own when there are several: the engine and bot kernels release the GIL (numba
    ``nogil``), as do torch and numpy's large operations, so two workers keep two cores
    busy where one leaves the second idle. Workers share no mutable state (each has its
    games, generators and bots; the network is only read), so a run is the same as with
    the workers one after another."""

    def __init__(self, cfg: Config, net, states: list[dict] | None = None):
        self.workers = [RolloutWorker(cfg, i, net=net, state=states[i] if states else None) for i in range(cfg.rollout_workers)]
        self.threads = None
        if len(self.workers) > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.threads = ThreadPoolExecutor(max_workers=len(self.workers), thread_name_prefix="rollout")

    def restore_bots(self, pool_stats: dict) -> None:
        for w in self.workers:
            w.restore_bots(pool_stats)

    def rollout(self, net, pool_stats: dict, ret_stats: np.ndarray) -> list[dict]:
        if self.threads is None:
            return [w.rollout(None, pool_stats, ret_stats) for w in self.workers]
        import torch

        threads = torch.get_num_threads()
        try:
            jobs = [self.threads.submit(_on_one_thread, w, pool_stats, ret_stats) for w in self.workers]
            return [job.result() for job in jobs]
        finally:  # torch's thread count may be process-wide: the learner's comes back
            torch.set_num_threads(threads)

    def states(self) -> list[dict]:
        return [w.state() for w in self.workers]

    def close(self) -> None:
        if self.threads is not None:
            self.threads.shutdown()


def _on_one_thread(worker: RolloutWorker, pool_stats: dict, ret_stats: np.ndarray) -> dict:
    """A worker's rollout in a pool thread, on one torch thread from its start to its end
    (the worker restores the count it finds, which must not be the learner's)."""
    import torch

    torch.set_num_threads(1)
    return worker.rollout(None, pool_stats, ret_stats)


def pack(value: Any) -> Any:
    """Tensors -> ``("__tensor__", array)`` pairs, recursively: Ray's own pickling of torch
    tensors fails with some torch builds, numpy arrays always travel."""
    import torch

    return map_leaves(value, lambda v: ("__tensor__", v.detach().cpu().numpy()) if isinstance(v, torch.Tensor) else v)


def unpack(value: Any) -> Any:
    """The inverse of :func:`pack`."""
    import torch

    return map_leaves(value, lambda v: torch.from_numpy(np.array(v[1])) if isinstance(v, tuple) and v[:1] == ("__tensor__",) else v)


class PackedWorker(RolloutWorker):
    """A rollout worker whose inputs and outputs cross Ray packed (see :func:`pack`)."""

    def __init__(self, cfg: Config, index: int, state: Any = None):
        super().__init__(cfg, index, None, unpack(state))

    def packed_rollout(self, weights: Any, pool_stats: Any, ret_stats: np.ndarray) -> dict:
        return self.rollout(unpack(weights), unpack(pool_stats), ret_stats)

    def packed_state(self) -> Any:
        return pack(self.state())

    def packed_restore_bots(self, pool_stats: Any) -> None:
        self.restore_bots(unpack(pool_stats))


class RayWorkers:
    """The workers as Ray actors; weights and the pool go out once per update through the
    object store, results come back in worker order."""

    def __init__(self, cfg: Config, net, states: list[dict] | None = None):
        import ray

        if not ray.is_initialized():
            address = cfg.ray_address or os.environ.get("RAY_ADDRESS") or None
            # the working directory ships the project to a real cluster's nodes
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     runtime_env=None if address is None else {"working_dir": os.getcwd()})
        actor = ray.remote(num_cpus=1)(PackedWorker)
        self.ray = ray
        self.actors = [actor.remote(cfg, i, pack(states[i]) if states else None) for i in range(cfg.rollout_workers)]

    def restore_bots(self, pool_stats: dict) -> None:
        self.ray.get([a.packed_restore_bots.remote(pack(pool_stats)) for a in self.actors])

    def rollout(self, net, pool_stats: dict, ret_stats: np.ndarray) -> list[dict]:
        weights = self.ray.put(pack(net.state_dict()))
        stats = self.ray.put(pack(pool_stats))
        return self.ray.get([a.packed_rollout.remote(weights, stats, ret_stats) for a in self.actors])

    def states(self) -> list[dict]:
        return [unpack(s) for s in self.ray.get([a.packed_state.remote() for a in self.actors])]

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)


def make_workers(cfg: Config, net, states: list[dict] | None = None):
    return (RayWorkers if cfg.backend == "ray" else LocalWorkers)(cfg, net, states)
