"""The ``evaluate.py`` / ``redbeard-evaluate`` command line over :func:`run_tournament`."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

import redbeard_eval
from redbeard_env.rules import parse_overrides

from .report import format_table
from .tournament import run_tournament


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=redbeard_eval.__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the package docstring (python -c 'import redbeard_eval; help(redbeard_eval)').")
    p.add_argument("--agents", nargs="+", required=True, help="agent specs, one per seat (the last repeats)")
    p.add_argument("--rules", default="classic", help="rules preset (classic, fem_opp, raudskjegg, wikipedia)")
    p.add_argument("--players", type=int, default=None, help="player count (default: number of --agents)")
    p.add_argument("--games", type=int, default=2000, help="games (round mode: rounds) to play, rounded up to whole deals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="rules overrides, e.g. leader=trick_winner")
    p.add_argument("--mode", choices=("game", "round"), default="game")
    p.add_argument("--scores", nargs="*", default=None,
                   help="round mode: starting scores, one per seat, or 'sample' (default: the start score)")
    p.add_argument("--score-range", nargs=2, type=int, default=(1, 12), metavar=("LO", "HI"),
                   help="round mode with --scores sample: uniform scores in LO..HI")
    p.add_argument("--engine", choices=("auto", "vector", "reference"), default="auto")
    p.add_argument("--batch-size", type=int, default=None, help="games played at once")
    p.add_argument("--out", default=None, help="output folder (results.json, games.csv, plots)")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    scores: Any = None
    if args.scores:
        scores = "sample" if args.scores == ["sample"] else [int(s) for s in args.scores]
    try:
        results = run_tournament(
            args.agents,
            rules=args.rules,
            players=args.players,
            games=args.games,
            seed=args.seed,
            overrides=parse_overrides(args.set),
            mode=args.mode,
            scores=scores,
            score_range=tuple(args.score_range),
            engine=args.engine,
            batch_size=args.batch_size,
            out=args.out,
            plots=not args.no_plots,
            progress=not args.quiet,
        )
    except ValueError as exc:
        p.error(str(exc))
    print(format_table(results))
    if args.out:
        print(f"wrote {args.out}/results.json, {'games' if args.mode == 'game' else 'rounds'}.csv"
              + ("" if args.no_plots else ", win_rates.png, calibration.png, contract_by_bid.png"))


