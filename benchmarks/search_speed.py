"""Time per decision of every game's ``search`` bot, and the cost model's two constants.

A search turns its ``ms`` budget into a number of worlds by a fixed cost model
(:func:`agents.search.worlds_for`: candidates x engine steps left x the ms of a playout step
per world, ``MS_PER_PLAYOUT_STEP`` with the network playing, ``MS_PER_HEURISTIC_STEP`` with the
heuristic), so that the same seed plays the same game on any machine. This script measures
what a searched decision really costs on this machine, at a fixed number of worlds and at
the default budget:

1. positions: ``--positions`` decisions the search would search, from games of the game's
   heuristic bots (seeded);
2. per decision alone (the web table's case: one row per call) and all at once (a
   tournament's batch), the wall time per decision of ``search:worlds=W`` for each
   ``--worlds`` W, and of ``search`` at its default budget, beside ``pimc`` (the yardstick,
   measured in the same run);
3. the fitted ms per playout step: measured time over (worlds x candidates x steps left),
   the number to set as the game's ``MS_PER_PLAYOUT_STEP`` (the policy's playouts) and
   ``MS_PER_HEURISTIC_STEP`` (from the ``search:worlds=W,playout=heuristic`` rows).

    .venv/bin/python benchmarks/search_speed.py --game oh_hell --positions 40

Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def positions(game, count: int, seed: int, players: int):
    """(obs [k, D], mask [k, A]) of decisions the game's search would search."""
    import redbeard_env
    from agents import make_agent

    search = make_agent("search:worlds=1", game=game.name, seed=0)
    bot = make_agent("heuristic", game=game.name, seed=seed)
    obs_rows, mask_rows = [], []
    g = 0
    while len(obs_rows) < count:
        env = redbeard_env.make(game.name, num_players=players)
        env.reset(seed=seed + g)
        g += 1
        for _ in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = o["action_mask"][None].astype(np.int8)
            if search.searches(o["observation"][None], mask)[0] and len(obs_rows) < count:
                obs_rows.append(o["observation"])
                mask_rows.append(o["action_mask"])
            env.step(bot.act(o))
    return np.stack(obs_rows), np.stack(mask_rows).astype(np.int8)


def timed(bot, obs: np.ndarray, mask: np.ndarray, alone: bool) -> float:
    """ms per decision: one call per row (alone) or one call for all."""
    bot.act_batch(obs[:1], mask[:1])  # warm-up: compilation, the network's first pass
    start = time.perf_counter()
    if alone:
        for i in range(len(obs)):
            bot.act_batch(obs[i:i + 1], mask[i:i + 1])
    else:
        bot.act_batch(obs, mask)
    return (time.perf_counter() - start) * 1000 / len(obs)


def main() -> None:
    from agents import make_agent
    from redbeard_env.registry import game_named, registered_games

    from agents.registry import available_agents

    games = [g for g in registered_games() if "search" in available_agents(g)]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=games, action="append", help="the games (default: every game with a search)")
    p.add_argument("--positions", type=int, default=40)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--worlds", type=int, nargs="+", default=[8, 32])
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args()
    for name in args.game or games:
        game = game_named(name)
        obs, mask = positions(game, args.positions, args.seed, args.players)
        probe = make_agent("search:worlds=1", game=name, seed=0)
        probe.act_batch(obs[:1], mask[:1])
        model = next(m for m in (sys.modules[c.__module__] for c in type(probe).__mro__)
                     if hasattr(m, "MS_PER_PLAYOUT_STEP"))
        print(f"\n{game.title}, {args.players} players, {len(obs)} searched positions (cost model: "
              f"{model.__name__}.MS_PER_PLAYOUT_STEP = {model.MS_PER_PLAYOUT_STEP}, "
              f"MS_PER_HEURISTIC_STEP = {model.MS_PER_HEURISTIC_STEP})")
        print(f"  {'bot':38s} {'ms alone':>9s} {'ms batched':>11s} {'ms/playout step':>16s}")
        fixed = [f"search:worlds={w}{p}" for p in ("", ",playout=heuristic") for w in args.worlds]
        for spec in ["pimc"] + fixed + ["search", "search:playout=heuristic"]:
            bot = make_agent(spec, game=name, seed=0)
            alone = timed(bot, obs, mask, True)
            batched = timed(bot, obs, mask, False)
            per_step = ""
            if spec in fixed:
                worlds = int(spec.split("=")[1].split(",")[0])
                steps = work_of(bot, obs, mask)
                per_step = f"{alone / (worlds * steps):.4f}"
            print(f"  {spec:38s} {alone:9.1f} {batched:11.2f} {per_step:>16s}")


def work_of(bot, obs: np.ndarray, mask: np.ndarray) -> float:
    """Mean (candidates x engine steps left) of the positions, as the bot's cost model counts
    them (its ``_plan`` with one world)."""
    total = 0.0
    for i in range(len(obs)):
        bot.act_batch(obs[i:i + 1], mask[i:i + 1])  # plans the decision: sets last_work
        total += getattr(bot, "last_work", 1.0)
    return total / len(obs)


if __name__ == "__main__":
    main()
