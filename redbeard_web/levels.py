"""Levels of play for the web table: per game, bots from the weakest to the strongest, each
with a rating measured in one OpenSkill tournament of that game.

    python -m redbeard_web.levels                              # print the shipped levels
    python -m redbeard_web.levels --measure --game redbeard --games 400 --workers 2
    python -m redbeard_web.levels --measure --game sortskaeg --games 140 --workers 2
    python -m redbeard_web.levels --measure --game oh_hell --games 400 --workers 2

(the shipped ``levels.json`` was measured with these three: docs/results.md, "Levels of the
web table", which gives each one's CPU time; ``search`` costs several times ``pimc``'s a
decision and is most of it).

``--measure`` plays, for each game, a round robin between the candidate bots
(:func:`candidates`: ``random``, ``heuristic``, ``pimc``, ``search`` and the shipped PPO
policies trained on the game's default sheet) on the game's default sheet with 4 players:
every pair of candidates, seated A B A B, is one duplicate tournament
(:func:`redbeard_eval.run_tournament`: every deal in both seatings), and the games of all of
them rate the candidates together with OpenSkill's Plackett-Luce model
(:func:`redbeard_eval.metrics.ratings`: a game's winner ranks above the others). The best
rated candidate of each kind (the agent a spec names: the policies are one kind), sorted by
rating, become the levels (``Beginner``, ``Club``, ``Strong``, ``Expert``; with more kinds
than names, the weakest and the strongest are kept and the rest evenly spaced), so ratings
rise strictly from level to level. The results are written to ``levels.json`` beside this
module, which ships with the package; ``docs/results.md`` says when and how the shipped
file was measured.

A level's bot plays every sheet of its game; where the level's bot is a policy trained on
the default sheet and the game ships a policy of the same kind for another sheet, that
sheet's policy plays instead (``per_rules`` in the file; those are not rated).

``GET /api/levels?game=G`` answers :func:`levels_of` (``{"levels": [{"name", "bot",
"rating", ...}, ...]}``, weakest first). The levels' bots, every sheet's, are among those a
table offers (:func:`redbeard_web.bots.offered_specs`): the only ones, with the page's, that
``redbeard-web`` plays unless started with ``--free-specs``.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import functools
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

from redbeard_env.registry import game_named, registered_games

from .shipped import pretrained_dir, shipped_checkpoints

LEVELS_PATH = Path(__file__).resolve().parent / "levels.json"
LEVEL_NAMES = ("Beginner", "Club", "Strong", "Expert")
TABLE_SIZE = 4  # players at the measuring tables
#: bots measured for every game that has them (besides its shipped policies)
BUILT_IN = ("random", "heuristic", "pimc", "search")


# ---------------------------------------------------------------- the shipped levels
@functools.lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def shipped(path: "str | Path | None" = None) -> dict:
    """The levels file (``{"games": {name: {...}}}``); an empty one if it is missing."""
    p = Path(path) if path is not None else LEVELS_PATH
    if not p.is_file():
        return {"games": {}}
    return _load(str(p), p.stat().st_mtime)


def levels_of(game: str, rules: str | None = None, path: "str | Path | None" = None) -> dict:
    """``{"levels": [...], "rules", "players", "measured"}`` of ``game`` (weakest first);
    with ``rules`` (a preset of the game) each level's bot is the one that plays that sheet,
    and ``policy`` the shipped policy it plays by (:func:`policy_of`; None: none), which says
    what table the level was trained for.
    ``ValueError`` for an unknown game or preset."""
    info = game_named(game)
    if rules is not None and rules not in info.presets:
        raise ValueError(f"rules must be a preset of {info.title}: {', '.join(info.presets)}; got {rules!r:.40}")
    entry = shipped(path)["games"].get(info.name)
    if not entry:
        return {"levels": [], "rules": info.default_rules, "players": TABLE_SIZE, "measured": None}
    swap = entry.get("per_rules", {}).get(rules or entry["rules"], {})
    levels = []
    for level in entry["levels"]:
        bot = swap.get(level["bot"], level["bot"])
        levels.append({"name": level["name"], "bot": bot, "rating": level["rating"], "sigma": level["sigma"],
                       "rated_bot": level["bot"], "rated": bot == level["bot"], "policy": _policy_or_none(bot, info.name)})
    return {"levels": levels, "rules": entry["rules"], "players": entry["players"], "measured": entry["measured"]}


def _policy_or_none(bot: str, game: str) -> str | None:
    """:func:`policy_of`, None for a spec that does not check here (a bot this install
    lacks)."""
    try:
        return policy_of(bot, game)
    except ValueError:
        return None


# ---------------------------------------------------------------- the candidates
def _policies(game: str) -> dict[str, dict]:
    """The game's shipped policies: name -> {"rules", "players"} from their payloads."""
    from agents.ppo import read_payload

    out = {}
    folder = pretrained_dir()
    for name in shipped_checkpoints(game):
        payload = read_payload(folder / f"{name}.pt")
        config = payload.get("config") if isinstance(payload.get("config"), dict) else {}
        out[name] = {"rules": config.get("rules", payload.get("rules")), "players": payload.get("num_players")}
    return out


def candidates(game: str) -> list[str]:
    """The bots measured for ``game``: its built-in ``random``, ``heuristic``, ``pimc`` and
    ``search`` (on the network it searches by default), and its shipped policies trained on
    its default sheet."""
    from agents.registry import available_agents

    info = game_named(game)
    known = available_agents(info.name)
    out = [b for b in BUILT_IN if b in known]
    if "ppo" in known:
        out += [f"ppo:{n}" for n, p in _policies(info.name).items() if p["rules"] == info.default_rules]
    return out


def policy_of(bot: str, game: str) -> str | None:
    """The shipped policy a bot plays by, as a ``ppo:NAME`` spec: a policy itself, a search or
    rollout naming one (``search:policy=ppo:fem_opp_4p``), or the network a bot searches when
    its spec names none (``search``); None for a bot without one."""
    from agents.registry import check_spec

    if bot.startswith("ppo:"):
        return bot
    checked = check_spec(bot, game)
    named = [v for v in checked.values.values() if isinstance(v, str) and v.startswith("ppo:")]
    return named[0] if named else getattr(checked.factory, "DEFAULT_POLICY", "") or None


def per_rules(game: str, bots: list[str]) -> dict[str, dict[str, str]]:
    """For each other sheet of ``game``: a rated policy -> the shipped policy of that sheet
    trained for the same number of players (``search`` -> the search on that policy)."""
    info = game_named(game)
    policies = _policies(info.name)
    out: dict[str, dict[str, str]] = {}
    for preset in info.presets:
        if preset == info.default_rules:
            continue
        swap = {}
        for bot in bots:
            policy = policy_of(bot, info.name)
            if policy is None or policy[4:] not in policies or (bot != policy and bot != "search"):
                continue
            wrap = "{}" if bot == policy else "search:policy={}"
            players = policies[policy[4:]]["players"]
            same = [n for n, p in policies.items() if p["rules"] == preset and p["players"] == players]
            if same:
                swap[bot] = wrap.format(f"ppo:{same[0]}")
        if swap:
            out[preset] = swap
    return out


def lineups(bots: list[str], size: int = TABLE_SIZE) -> list[tuple[str, ...]]:
    """The round robin's tables: every pair of bots, seated alternately (A B A B): a pair's
    games compare the two directly, so even bots that rarely beat the strongest are told
    apart."""
    if len(bots) < 2:
        raise ValueError(f"at least two bots are needed to rate them, got {bots}")
    return [tuple(pair[s % 2] for s in range(size)) for pair in itertools.combinations(bots, 2)]


def kind_of(bot: str) -> str:
    """A bot's kind, the agent its spec names (``ppo:classic_4p`` -> ``ppo``)."""
    return bot.split(":", 1)[0]


def pick_levels(rated: dict[str, dict], names: tuple[str, ...] = LEVEL_NAMES) -> list[dict]:
    """The levels from rated bots: the best rated of each kind (:func:`kind_of`: two
    policies are one kind, so the search on a policy and the policy itself both stay, each
    with its per-sheet swap), sorted by rating, the weakest and strongest kept and the rest
    evenly spaced; bots rated no higher than the level below are left out. With fewer levels
    than names, the first names go to the weaker ones and the last to the strongest."""
    best: dict[str, str] = {}
    for bot in sorted(rated, key=lambda b: -rated[b]["mu"]):
        best.setdefault(kind_of(bot), bot)
    order = sorted(best.values(), key=lambda b: rated[b]["mu"])
    if len(order) > len(names):
        k = len(order) - 1
        order = [order[round(i * k / (len(names) - 1))] for i in range(len(names))]
    out: list[dict] = []
    for bot in order:
        if out and round(rated[bot]["mu"], 2) <= out[-1]["rating"]:
            continue
        out.append({"bot": bot, "rating": round(rated[bot]["mu"], 2), "sigma": round(rated[bot]["sigma"], 2)})
    if len(out) < len(names):  # fewer levels: the weakest is still the beginners', the strongest the experts'
        names = names[:max(len(out) - 1, 0)] + names[-1:]
    for level, name in zip(out, names):
        level["name"] = name
    return [{"name": lv["name"], "bot": lv["bot"], "rating": lv["rating"], "sigma": lv["sigma"]} for lv in out]


# ---------------------------------------------------------------- measuring
def _play_table(game: str, lineup: tuple[str, ...], games: int, seed: int) -> tuple[list[dict], dict, float]:
    """One table of the round robin, in this process: its games' seat rows, the win rates
    and the CPU seconds it took."""
    from redbeard_eval import run_tournament

    info = game_named(game)
    cpu = time.process_time()
    with tempfile.TemporaryDirectory() as out:
        res = run_tournament(list(lineup), rules=info.default_rules, players=TABLE_SIZE, games=games, seed=seed,
                             game=info.name, out=out, plots=False, progress=False, workers=1)
        with open(Path(out) / "games.csv", newline="") as f:
            rows = [{"game": f"{seed}:{r['game']}", "seat": int(r["seat"]), "agent": r["agent"], "won": float(r["won"])}
                    for r in csv.DictReader(f)]
    wins = {a: round(v["win_rate"], 3) for a, v in res["agents"].items()}
    return rows, wins, time.process_time() - cpu


def measure(game: str, games: int, seed: int = 0, workers: int = 2, progress: bool = True) -> dict:
    """One game's round robin (see the module docstring); returns its entry of the file.
    The tables are played by ``workers`` processes, each table in one of them."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from redbeard_eval.metrics import ratings

    info = game_named(game)
    bots = candidates(info.name)
    tables = lineups(bots)
    rows: list[dict] = []
    cpu = 0.0
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_play_table, info.name, lineup, games, seed * 1000 + t): t
                   for t, lineup in enumerate(tables)}
        done = 0
        for future in as_completed(futures):
            table_rows, wins, seconds = future.result()
            rows += table_rows
            cpu += seconds
            done += 1
            if progress:
                print(f"  {info.name} table {done}/{len(tables)} {' vs '.join(tables[futures[future]][:2])}: "
                      f"win rates {wins}, {seconds:.0f} s CPU, {time.time() - t0:.0f} s so far", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: (r["game"], r["seat"]))  # the rating order is seeded, not the finishing order
    rated = ratings(rows, bots, TABLE_SIZE, seed)
    for bot in bots:
        mine = [r for r in rows if r["agent"] == bot]
        rated[bot]["games"] = len({r["game"] for r in mine})
        rated[bot]["win_rate"] = round(sum(r["won"] for r in mine) / max(len(mine), 1), 4)
    levels = pick_levels(rated)
    return {"rules": info.default_rules, "players": TABLE_SIZE, "games_per_table": games, "tables": len(tables),
            "seed": seed, "cpu_seconds": round(cpu), "wall_seconds": round(time.time() - t0), "candidates": rated,
            "levels": levels, "per_rules": per_rules(info.name, [lv["bot"] for lv in levels]),
            "measured": datetime.date.today().isoformat()}


def write(entries: dict[str, dict], command: str, path: "str | Path | None" = None) -> Path:
    """Merge measured entries into the levels file (other games' entries are kept)."""
    p = Path(path) if path is not None else LEVELS_PATH
    data = json.loads(p.read_text()) if p.is_file() else {"games": {}}
    for game, entry in entries.items():
        data["games"][game] = dict(entry, command=command)
    p.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return p


def _table(game: str) -> str:
    lv = levels_of(game)
    lines = [f"{game_named(game).title} (rated on {lv['rules']}, {lv['players']} players, measured {lv['measured']}):"]
    lines += [f"  {x['name']:<9} {x['bot']:<18} rating {x['rating']:6.2f} ± {x['sigma']:.2f}" for x in lv["levels"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m redbeard_web.levels", description=__doc__.split("\n\n")[0])
    p.add_argument("--measure", action="store_true", help="play the round robin and write levels.json")
    p.add_argument("--game", choices=list(registered_games()), action="append",
                   help="the game(s) to measure (default: every registered game)")
    p.add_argument("--games", type=int, default=240, help="games per table (a pair of candidates, seated A B A B; default 240)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=None, help=f"the levels file (default {LEVELS_PATH.name} beside this module)")
    args = p.parse_args(argv)
    games = args.game or list(registered_games())
    if args.measure:
        command = "python -m redbeard_web.levels --measure " + " ".join(
            [f"--game {g}" for g in (args.game or [])] + [f"--games {args.games}", f"--seed {args.seed}",
                                                         f"--workers {args.workers}"])
        for game in games:
            entry = measure(game, args.games, args.seed, args.workers)
            write({game: entry}, command, args.out)
    for game in games:
        print(_table(game) if args.out is None else json.dumps(levels_of(game, path=args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
