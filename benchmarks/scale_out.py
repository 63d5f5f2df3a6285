"""Scale-out on this machine: tournaments with 1 and more workers (local process pool and
Ray), and PPO rollouts with K = 1 and more workers, each against the one-worker run of the
same job in the same invocation.

    python benchmarks/scale_out.py                       # all, 2 workers
    python benchmarks/scale_out.py --only tournaments --workers 2 --games 2000
    python benchmarks/scale_out.py --only training --updates 6

A tournament's results must not depend on the workers: the script checks that every run
gives the same results as the first. Speed-ups are wall-clock ratios, start-up of the
workers included (a worker process or Ray actor imports the project and builds its bots
first); Ray itself is started before the clock, as a running cluster would be.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time


def start_ray(args) -> None:
    """Ray up before any timing, as a cluster would be (its own start-up is ~3 s here)."""
    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)


def tournaments(args) -> None:
    from redbeard_eval.tournament import play_tournament, prepare_tournament

    start_ray(args)

    jobs = [("heuristic", ["heuristic"], args.games, args.batch_size),
            ("pimc", ["pimc", "heuristic", "heuristic", "heuristic"], args.pimc_games, args.pimc_batch_size)]
    for name, specs, games, batch_size in jobs:
        setup = dict(agent_specs=specs, rules="classic", players=4, games=games, seed=0, batch_size=batch_size)
        rows, first = [], None
        for backend, workers in (("local", 1), ("local", args.workers), ("ray", args.workers)):
            tr = prepare_tournament(**setup)
            t0 = time.perf_counter()
            res = play_tournament(tr, progress=False, backend=backend, workers=workers)
            wall = time.perf_counter() - t0
            same = first is None or res["agents"] == first
            first = first or res["agents"]
            rows.append((backend, workers, wall, same))
        base = rows[0][2]
        print(f"\n{name}: {games} games, {tr.num_shards} shards of {tr.deals_per_shard} deals")
        for backend, workers, wall, same in rows:
            print(f"  {backend:6s} workers={workers}  {wall:8.1f} s  speed-up {base / wall:5.2f}x  results {'same' if same else 'DIFFER'}")


def training(args) -> None:
    import redbeard_train as train

    cfg = train.load_config(args.config)
    start_ray(args)
    rows = []
    for backend, k in (("local", 1), ("local", args.workers), ("ray", args.workers)):
        with tempfile.TemporaryDirectory() as tmp:
            run = dataclasses.replace(cfg, run_dir=tmp, rollout_workers=k, backend=backend, eval_games=0, eval_every=0,
                                      checkpoint_every=0, max_minutes=0.0,
                                      total_steps=cfg.num_envs * cfg.num_steps * len(cfg.players) * args.updates)
            t0 = time.perf_counter()
            out = train.train(run, quiet=True)
            wall = time.perf_counter() - t0
        rows.append((backend, k, out["global_step"] / wall, out["sps"]))
    print(f"\ntraining {args.config}: {args.updates} updates of {cfg.num_envs} games x {cfg.num_steps} steps")
    base = rows[0][2]
    for backend, k, sps, logged in rows:
        print(f"  {backend:6s} rollout_workers={k}  {sps:10,.0f} steps/s end to end  ({base and sps / base:4.2f}x; charts/SPS {logged:,})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["tournaments", "training"], default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=8000, help="heuristic tournament games")
    parser.add_argument("--pimc-games", type=int, default=384, help="pimc tournament games")
    parser.add_argument("--batch-size", type=int, default=256, help="games per shard (heuristic)")
    parser.add_argument("--pimc-batch-size", type=int, default=64, help="games per shard (pimc: small, so shards outnumber workers)")
    parser.add_argument("--config", default="classic_4p")
    parser.add_argument("--updates", type=int, default=12)
    args = parser.parse_args()
    if args.workers < 2 or min(args.games, args.pimc_games, args.updates, args.batch_size, args.pimc_batch_size) < 1:
        parser.error("--workers must be >= 2, --games, --pimc-games, --updates and the batch sizes >= 1")
    if args.only in (None, "tournaments"):
        tournaments(args)
    if args.only in (None, "training"):
        training(args)


if __name__ == "__main__":
    main()
