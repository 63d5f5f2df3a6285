"""Play a few hundred full games between random bots and print what happened.

    python -m redbeard_env.redbeard.demo --rules classic --players 4 --games 300 --seed 0
    python -m redbeard_env.redbeard.demo --rules fem_opp --players 6 --set leader=trick_winner

Prints, per seat, wins and how games ended, then rounds per game and the declarers'
contract rate. Uses the AEC environment exactly as a user would.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

import redbeard_env
from redbeard_env.redbeard.cards import REDBEARD_LEVEL, bid_tricks
from redbeard_env.redbeard.rules import PRESETS, parse_overrides


def play_games(num_players: int, rules: str, games: int, seed: int, overrides: dict) -> dict:
    env = redbeard_env.env(num_players=num_players, rules=rules, **overrides)
    rng = np.random.default_rng(seed)
    wins = Counter()
    ends = Counter()
    rounds = []
    contracts = made = 0
    for game_index in range(games):
        env.reset(seed=seed + game_index)
        g = env.unwrapped.game
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            for event in g.events:
                if event[0] == "round_end" and event[2] >= 0:  # a round with a declarer
                    _, _, declarer, level, tricks = event[:5]
                    contracts += 1
                    if level == REDBEARD_LEVEL:
                        made += tricks[declarer] == 6
                    elif g.rules.contract == "exact":
                        made += tricks[declarer] == bid_tricks(level)
                    else:
                        made += tricks[declarer] >= bid_tricks(level)
        rounds.append(g.rounds_played)
        if g.truncated:
            ends["truncated"] += 1
        else:
            wins[g.winner] += 1
            ends["won"] += 1
    return {"wins": wins, "ends": ends, "rounds": rounds, "contracts": contracts, "made": made}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="Rules overrides")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seed < 0:
        parser.error(f"--games must be >= 1 and --seed >= 0, got {args.games} and {args.seed}")
    try:  # the player count and the overrides are checked by the env, before any game
        overrides = parse_overrides(args.set)
        redbeard_env.env(num_players=args.players, rules=args.rules, **overrides)
    except ValueError as exc:
        parser.error(str(exc))
    start = time.perf_counter()
    r = play_games(args.players, args.rules, args.games, args.seed, overrides)
    seconds = time.perf_counter() - start
    n, games = args.players, args.games
    print(f"Rödskägg demo: {games} games, {n} random players, rules={args.rules} {overrides or ''}")
    print(f"{'seat':<10}{'wins':>6}{'win rate':>10}")
    for seat in range(n):
        print(f"player_{seat:<3}{r['wins'][seat]:>6}{r['wins'][seat] / games:>10.1%}")
    rounds = np.asarray(r["rounds"])
    print(f"games won: {r['ends']['won']}, truncated at max_rounds: {r['ends']['truncated']}")
    print(f"rounds per game: mean {rounds.mean():.1f}, median {np.median(rounds):.0f}, max {rounds.max()}")
    rate = r["made"] / max(r["contracts"], 1)
    print(f"contract rate: {rate:.1%} of {r['contracts']} contracts")
    print(f"({seconds:.1f} s)")


if __name__ == "__main__":
    main()
