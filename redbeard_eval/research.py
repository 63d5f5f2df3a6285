"""Research on bid accuracy and following along: tournaments of the best bots under every
rule sheet, written up as a Markdown report with plots (``docs/research.md``).

    python -m redbeard_eval.research --games 4000 --pimc-games 800 --workers 2 --out docs/research.md

Per sheet (4 players) the strongest shipped bot for it (``ppo:<sheet>_4p`` where shipped,
else the heuristic) plays duplicate games against three heuristic bots; under ``classic``
the search bot ``pimc`` plays its own table too (``--pimc-games``, 0 = not). The report
gives, per agent: win rate with CI, contract rate by bid level and by the declarer's score
when it bid, bid calibration (bid vs tricks taken: a heat map per sheet), how often
Rödskägg is called and made, and the join decisions by the score they were taken at, with
the mean change of the joiner's score over the rest of the round after joining and after
folding (lower is better: the game is won at 0), and round experiments in which the bot is
forced to join or to fold (:mod:`agents.redbeard.join_policy`) from equal scores. Everything comes from the tournament
metrics of :mod:`redbeard_eval.metrics`; re-running the command regenerates the file.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import subprocess
import sys
from pathlib import Path

import agents
from redbeard_env.redbeard.rules import PRESETS

from redbeard_env.redbeard.metrics import LEVEL_NAMES
from .report import short_name
from .tournament import run_tournament

SHEETS = tuple(PRESETS)  # classic, fem_opp, raudskjegg, wikipedia
PRETRAINED_DIR = Path(agents.__file__).resolve().parent / "pretrained"  # (agents.ppo would import torch)


def best_bot(sheet: str) -> str:
    """The strongest shipped bot for a sheet at 4 players: its PPO policy, else the heuristic."""
    return f"ppo:{sheet}_4p" if (PRETRAINED_DIR / f"{sheet}_4p.pt").is_file() else "heuristic"


def run_tables(games: int, pimc_games: int, seed: int, workers: int, runs_dir: Path, img_dir: Path) -> list[dict]:
    """One tournament per sheet (and pimc's under classic), each written to ``runs_dir/<name>``
    with its plots; the calibration heat map is copied to ``img_dir/<name>_calibration.png``.
    Returns their results dicts."""
    tables = []
    for sheet in SHEETS:
        lineups = [[best_bot(sheet), "heuristic", "heuristic", "heuristic"]]
        if sheet == "classic" and pimc_games:
            lineups.append(["pimc", "heuristic", "heuristic", "heuristic"])
        for lineup in lineups:
            n_games = pimc_games if lineup[0] == "pimc" else games
            name = f"{sheet}_{short_name(lineup[0]).replace(':', '_')}"
            print(f"{sheet}: {' '.join(lineup)}, {n_games} games", file=sys.stderr)
            res = run_tournament(lineup, rules=sheet, players=4, games=n_games, seed=seed, progress=True,
                                 workers=workers, out=runs_dir / name, plots=True)
            img_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(runs_dir / name / "calibration.png", img_dir / f"{name}_calibration.png")
            res["sheet"], res["name"] = sheet, name
            tables.append(res)
    return tables


JOIN_SCORES = (1, 2, 3, 4, 6)  # every seat's score at the round's start in the join experiments


def join_experiments(games: int, seed: int, workers: int) -> list[dict]:
    """Round mode, every seat on the same score: the sheet's best bot as it is, always
    joining and never joining (agents/join_policy.py), each on the same deals against
    three heuristics. Rows: sheet, score, variant, win rate (rounds it ends on 0) with CI,
    mean distance from 0 after the round, join rate."""
    rows = []
    for sheet in SHEETS:
        best = best_bot(sheet)
        # "free" is the bot unchanged under a name of its own (the heuristic would otherwise
        # be pooled with its three heuristic opponents into one agent)
        variants = {mode_label: f"joins:{mode},base={best}" for mode, mode_label in
                    (("free", "as it plays"), ("always", "always joins"), ("never", "never joins"))}
        for score in JOIN_SCORES:
            for label, spec in variants.items():
                print(f"joins {sheet} score {score}: {spec}", file=sys.stderr)
                res = run_tournament([spec, "heuristic", "heuristic", "heuristic"], rules=sheet, players=4, games=games,
                                     seed=seed, mode="round", scores=[score] * 4, progress=False, workers=workers, plots=False)
                a = res["agents"][spec]
                rows.append(dict(sheet=sheet, score=score, variant=label, spec=spec, win=a["win_rate"], ci=a["win_rate_ci"],
                                 distance=a["final_distance"], join_rate=a["join_rate"], games=a["games"]))
    return rows


def _rate(made: int, tried: int) -> str:
    return f"{made / tried:.2f} ({tried})" if tried else "–"


def _fmt(x, spec: str = ".2f") -> str:
    return "–" if x is None else format(x, spec)


def write_report(tables: list[dict], out: Path, command: str, joins: list[dict] | None = None) -> None:
    img_rel = lambda res, png: f"img/research/{res['name']}_{png}"  # noqa: E731
    lines = [
        "# Bid accuracy and following along",
        "",
        f"Generated by `{command}` on {datetime.date.today()} (commit {_commit()}); do not edit by hand.",
        "Each table: 4 players, the named bot against three `heuristic` bots in duplicate games "
        "(each deal in every seating), the sheet's rules.",
        "",
        "## Who makes their contracts",
        "",
        "| sheet | agent | games | win rate [95 % CI] | contracts | contract rate | bid error | bias | "
        "Rödskägg called / made | join rate | join success |",
        "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for res in tables:
        for spec, a in res["agents"].items():
            rb = a["contracts_by_bid"]["R"], a["made_by_bid"]["R"]
            lines.append(
                f"| {res['sheet']} | `{short_name(spec)}` | {a['games']} | {a['win_rate']:.3f} "
                f"[{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}] | {a['contracts']} | {_fmt(a['contract_rate'])} | "
                f"{_fmt(a['bid_error'])} | {_fmt(a['bid_bias'], '+.2f')} | {rb[0]} / {rb[1]} | {_fmt(a['join_rate'])} | "
                f"{_fmt(a['join_success'])} |")
    lines += ["", "Bid error: mean |tricks − bid| of declarers (Rödskägg counts as 6); bias: mean tricks − bid "
              "(positive: the declarer took more than it bid).", "",
              "## Contract rate by bid level", "",
              "Rate made (contracts) per bid level; R = Rödskägg.", "",
              "| sheet | agent | " + " | ".join(LEVEL_NAMES) + " |",
              "|---|---|" + "---:|" * len(LEVEL_NAMES)]
    for res in tables:
        for spec, a in res["agents"].items():
            cells = [_rate(a["made_by_bid"][k], a["contracts_by_bid"][k]) for k in LEVEL_NAMES]
            lines.append(f"| {res['sheet']} | `{short_name(spec)}` | " + " | ".join(cells) + " |")
    lines += ["", "## Contract rate by the declarer's score when it bid", "",
              "Rate made (contracts) by the declarer's own score at its bid (0: 0 or below; 20: 20 or above). "
              "A bid above one's score under `bid_over_score = penalty` costs +5 at once.", ""]
    buckets = sorted({int(k) for res in tables for a in res["agents"].values() for k in a["contracts_by_score"]})
    lines += ["| sheet | agent | " + " | ".join(map(str, buckets)) + " |", "|---|---|" + "---:|" * len(buckets)]
    for res in tables:
        for spec, a in res["agents"].items():
            by = a["contracts_by_score"]
            cells = [_rate(by[str(k)][1], by[str(k)][0]) if str(k) in by else "–" for k in buckets]
            lines.append(f"| {res['sheet']} | `{short_name(spec)}` | " + " | ".join(cells) + " |")
    lines += ["", "## Bid calibration", "",
              "Bid (rows) against tricks taken (columns) by declarers, each row normalised; the dotted line is "
              "bid = tricks.", ""]
    for res in tables:
        lines.append(f"**{res['sheet']}** (`{' '.join(short_name(s) for s in res['agents'])}`)  ")
        lines.append(f"![{res['name']} calibration]({img_rel(res, 'calibration.png')})")
        lines.append("")
    lines += ["## Following along (följa med)", "",
              "Join decisions by the player's score when asked: decisions, the share that joined, the share of "
              "joins that took a trick afterwards, and the mean change of the player's score over the rest of "
              "the round after joining and after folding (negative = towards the win at 0). Observational: "
              "a bot joins where it expects to gain, so the columns compare its choices, not random ones.", ""]
    for res in tables:
        for spec, a in res["agents"].items():
            rows = a["joins_by_score"]
            if not rows:
                continue
            lines += [f"**{res['sheet']}, `{short_name(spec)}`** ({a['join_decisions']} decisions)", "",
                      "| score | decisions | joined | took a trick | change after joining | change after folding |",
                      "|---:|---:|---:|---:|---:|---:|"]
            for k in sorted(rows, key=int):
                r = rows[k]
                took = f"{r['took_a_trick'] / r['joins']:.2f}" if r["joins"] else "–"
                lines.append(f"| {k} | {r['decisions']} | {r['joins'] / r['decisions']:.2f} | {took} | "
                             f"{_fmt(r['change_joined'], '+.2f')} | {_fmt(r['change_folded'], '+.2f')} |")
            lines.append("")
    if joins:
        lines += _join_section(joins)
    out.write_text("\n".join(lines) + "\n")


def _join_section(rows: list[dict]) -> list[str]:
    games = rows[0]["games"]
    lines = ["## Does following along pay? Round experiments", "",
             f"Single rounds ({games} per cell, the same deals in every cell of a sheet and score) with every seat "
             "on the same score; the sheet's best bot as it plays, forced to join whenever it may, and forced to "
             "fold whenever it may (`joins:always,base=…`, `joins:never,base=…`), against three heuristics. "
             "Win: the round ends with the bot on 0 (the game won); distance: its mean |score| after the round. "
             "Where always-join beats never-join, joining pays at that score; the bot's own choice should match "
             "the better one.", "",
             "| sheet | score | variant | win [95 % CI] | distance | join rate |", "|---|---:|---|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['sheet']} | {r['score']} | {r['variant']} (`{short_name(r['spec'], 40)}`) | {r['win']:.3f} "
                     f"[{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | {_fmt(r['distance'])} | {_fmt(r['join_rate'])} |")
    # per sheet and score: which forced policy did better, and what the bot chose
    lines += ["", "| sheet | score | better forced choice (win) | the bot's join rate |", "|---|---:|---|---:|"]
    for sheet in dict.fromkeys(r["sheet"] for r in rows):
        for score in dict.fromkeys(r["score"] for r in rows if r["sheet"] == sheet):
            cell = {r["variant"]: r for r in rows if r["sheet"] == sheet and r["score"] == score}
            always, never = cell["always joins"], cell["never joins"]
            if always["ci"][0] > never["ci"][1]:
                verdict = f"join ({always['win']:.3f} vs {never['win']:.3f})"
            elif never["ci"][0] > always["ci"][1]:
                verdict = f"fold ({never['win']:.3f} vs {always['win']:.3f})"
            else:
                verdict = f"no clear difference ({always['win']:.3f} vs {never['win']:.3f})"
            lines.append(f"| {sheet} | {score} | {verdict} | {_fmt(cell['as it plays']['join_rate'])} |")
    return lines + [""]


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="duplicate games per sheet")
    parser.add_argument("--pimc-games", type=int, default=800, help="games of pimc's table under classic (0 = none)")
    parser.add_argument("--join-games", type=int, default=2000, help="rounds per cell of the join experiments (0 = none)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=1, help="local worker processes per tournament")
    parser.add_argument("--out", default="docs/research.md")
    parser.add_argument("--runs-dir", default="runs/research", help="where each tournament's results and CSVs go")
    args = parser.parse_args(argv)
    if args.games < 1 or args.pimc_games < 0 or args.join_games < 0 or args.seed < 0 or args.workers < 1:
        parser.error("--games and --workers must be >= 1, --pimc-games, --join-games and --seed >= 0")
    out = Path(args.out)
    img_dir = out.parent / "img" / "research"
    tables = run_tables(args.games, args.pimc_games, args.seed, args.workers, Path(args.runs_dir), img_dir)
    command = "python -m redbeard_eval.research " + " ".join(argv if argv is not None else sys.argv[1:])
    joins = join_experiments(args.join_games, args.seed, args.workers) if args.join_games else None
    write_report(tables, out, command.strip(), joins)
    print(f"wrote {out} and {img_dir}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
