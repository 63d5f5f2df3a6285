"""Research on bid accuracy: tournaments of the best bots under every rule sheet of every
registered game, written up as a Markdown report with plots (``docs/research.md``).

    python -m redbeard_eval.research --games 4000 --pimc-games 800 --search-games 400 --workers 2 --out docs/research.md

Per game and sheet (4 players) the strongest shipped bot for it (``ppo:<sheet>_4p`` where a
checkpoint of that game is shipped, else the game's heuristic) plays duplicate games
against three heuristic bots; under each game's default sheet its searches play their own
tables too: ``pimc`` (``--pimc-games``, 0 = not) and ``search``, the search on the learned
networks (``--search-games``, 0 = not). The report gives, per game and agent: win
rate with CI and the game's bid metrics (its metrics' columns: Rödskägg's contract rate,
bid error and bias, joins; Sortskæg's exact-bid rate), the game's success rate (contracts
made by bid level; exact bids by hand size), bid calibration (bid vs tricks taken: a heat
map per table), then the game's own sections and round experiments (its metrics'
``research_sections`` and ``research_experiments``: Rödskägg's contracts by the declarer's
score, join decisions by score and the forced join/fold experiments, ``--join-games``).
Everything comes from the tournaments' metrics; re-running the command regenerates the file.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import subprocess
import sys
from pathlib import Path

import agents
from agents.registry import available_agents
from redbeard_env.registry import Game, as_game, game_of_data, game_of_preset, registered_games

from .report import check_output_paths, short_name
from .tournament import run_tournament

PRETRAINED_DIR = Path(agents.__file__).resolve().parent / "pretrained"  # (agents.ppo would import torch)


def best_bot(sheet: str, game: "Game | str | None" = None) -> str:
    """The strongest shipped bot for a sheet at 4 players: its PPO policy if one of the
    sheet's game is shipped (``<sheet>_4p``), else the game's heuristic."""
    info = game_of_preset(sheet) if game is None else as_game(game)
    path = PRETRAINED_DIR / f"{sheet}_4p.pt"
    if path.is_file():
        from agents.ppo import read_payload

        if game_of_data(read_payload(path)) is info:
            return f"ppo:{sheet}_4p"
    return "heuristic"


def run_tables(games: int, search_games: dict[str, int], seed: int, workers: int, runs_dir: Path,
               img_dir: Path) -> list[dict]:
    """One tournament per game and sheet (and, under each game's default sheet, one per
    search bot of ``search_games``: its name -> games, 0 = none), each written to
    ``runs_dir/<name>`` with its plots; the calibration heat map (of a game whose metrics plot
    one) is copied to ``img_dir/<name>_calibration.png``. Returns their results dicts. A game
    without a search bot has no table of it."""
    tables = []
    for game in registered_games():
        info = as_game(game)
        for sheet in info.presets:
            lineups = [([best_bot(sheet, info)] + ["heuristic"] * 3, games)]
            if sheet == info.default_rules:
                lineups += [([bot] + ["heuristic"] * 3, n) for bot, n in search_games.items()
                            if n and bot in available_agents(info)]
            for lineup, n_games in lineups:
                name = f"{sheet}_{short_name(lineup[0]).replace(':', '_')}"
                print(f"{sheet}: {' '.join(lineup)}, {n_games} games", file=sys.stderr)
                res = run_tournament(lineup, game=info, rules=sheet, players=4, games=n_games, seed=seed, progress=True,
                                     workers=workers, out=runs_dir / name, plots=True)
                if (runs_dir / name / "calibration.png").is_file():
                    img_dir.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(runs_dir / name / "calibration.png", img_dir / f"{name}_calibration.png")
                res["sheet"], res["name"], res["game"] = sheet, name, game
                tables.append(res)
    return tables


def run_experiments(games: int, seed: int, workers: int) -> list[dict]:
    """Each game's round experiments (its metrics' ``research_experiments``) per sheet,
    ``games`` rounds each, on the same deals; rows carry the tested bot's results."""
    rows = []
    for game in registered_games():
        info = as_game(game)
        metrics = info.metrics_type
        for sheet in info.presets:
            for exp in metrics.research_experiments(sheet, best_bot(sheet, info)):
                spec = exp["agents"][0]
                print(f"{sheet} {exp['label']}: {' '.join(exp['agents'])}", file=sys.stderr)
                res = run_tournament(exp["agents"], game=info, rules=sheet, players=len(exp["agents"]), games=games,
                                     seed=seed, mode=exp.get("mode", "game"), scores=exp.get("scores"),
                                     progress=False, workers=workers, plots=False)
                rows.append(dict(exp, game=game, sheet=sheet, spec=spec, agent=res["agents"][spec]))
    return rows


def _fmt(x, spec: str) -> str:
    return "–" if x is None else format(x, spec)


def game_section(game: str, tables: list[dict], experiments: list[dict]) -> list[str]:
    """One game's part of the report: the table of win rates and bid metrics, the success
    rate and the calibration heat maps (where the game's metrics plot them) and the game's
    own sections."""
    info = as_game(game)
    metrics = info.metrics_type
    columns = metrics.COLUMNS
    lines = [f"## {info.title}", "",
             "Each table: 4 players, the named bot against three `heuristic` bots in duplicate games "
             "(each deal in every seating), the sheet's rules.", "",
             "| sheet | agent | games | win rate [95 % CI] | " + " | ".join(title for title, *_ in columns) + " |",
             "|---|---|---:|---|" + "---:|" * len(columns)]
    for res in tables:
        for spec, a in res["agents"].items():
            cells = [_fmt(a.get(key), fmt) for _, _, key, fmt in columns]
            lines.append(f"| {res['sheet']} | `{short_name(spec)}` | {a['games']} | {a['win_rate']:.3f} "
                         f"[{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}] | " + " | ".join(cells) + " |")
    plot = metrics.success_plot(tables[0]["agents"])
    if plot is None:
        return lines + [""] + metrics.research_sections(tables, experiments)
    xs = list(next(iter(plot["series"].values())))
    labels = plot["xticks"] or [str(x) for x in xs]
    lines += ["", f"### {plot['ylabel'].capitalize()} by {plot['xlabel']}", "",
              "| sheet | agent | " + " | ".join(map(str, labels)) + " |", "|---|---|" + "---:|" * len(xs)]
    for res in tables:
        series = metrics.success_plot(res["agents"])["series"]
        for spec, by in series.items():
            lines.append(f"| {res['sheet']} | `{short_name(spec)}` | " + " | ".join(_fmt(by[x], ".2f") for x in xs) + " |")
    lines += ["", "### Bid calibration", "",
              "Bid (rows) against tricks taken (columns), each row normalised; the dotted line is bid = tricks.", ""]
    for res in tables:
        lines.append(f"**{res['sheet']}** (`{' '.join(short_name(s) for s in res['agents'])}`)  ")
        lines.append(f"![{res['name']} calibration](img/research/{res['name']}_calibration.png)")
        lines.append("")
    return lines + metrics.research_sections(tables, experiments)


def write_report(tables: list[dict], out: Path, command: str, experiments: list[dict] | None = None) -> None:
    lines = ["# Bid accuracy", "",
             f"Generated by `{command}` on {datetime.date.today()} (commit {_commit()}); do not edit by hand.", ""]
    for game in registered_games():
        mine = [t for t in tables if t["game"] == game]
        if mine:
            lines += game_section(game, mine, [e for e in experiments or [] if e["game"] == game])
    out.write_text("\n".join(lines) + "\n")


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="duplicate games per sheet")
    parser.add_argument("--pimc-games", type=int, default=800, help="games of pimc's table per game (0 = none)")
    parser.add_argument("--search-games", type=int, default=400,
                        help="games of the table of search (on the learned networks) per game (0 = none)")
    parser.add_argument("--join-games", type=int, default=2000,
                        help="rounds per cell of the games' round experiments (Rödskägg's join experiments; 0 = none)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=1, help="local worker processes per tournament")
    parser.add_argument("--out", default="docs/research.md")
    parser.add_argument("--runs-dir", default="runs/research", help="where each tournament's results and CSVs go")
    args = parser.parse_args(argv)
    if args.games < 1 or min(args.pimc_games, args.search_games, args.join_games, args.seed) < 0 or args.workers < 1:
        parser.error("--games and --workers must be >= 1, --pimc-games, --search-games, --join-games and --seed >= 0")
    try:  # the report comes after hours of tournaments: its places are checked first
        check_output_paths(args.runs_dir, names=("--runs-dir", ""))
        check_output_paths(Path(args.out).parent, names=("--out", ""))
        if Path(args.out).is_dir():
            raise ValueError(f"--out {args.out} is a folder; it must name the report's file")
    except ValueError as exc:
        parser.error(str(exc))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    img_dir = out.parent / "img" / "research"
    tables = run_tables(args.games, {"pimc": args.pimc_games, "search": args.search_games}, args.seed, args.workers,
                        Path(args.runs_dir), img_dir)
    command = "python -m redbeard_eval.research " + " ".join(argv if argv is not None else sys.argv[1:])
    experiments = run_experiments(args.join_games, args.seed, args.workers) if args.join_games else None
    write_report(tables, out, command.strip(), experiments)
    print(f"wrote {out} and {img_dir}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
