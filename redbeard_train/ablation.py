"""The training recipe's parts switched on one at a time at the same budget, each run then
measured on the same deals: a Markdown table and the learning curves.

    python -m redbeard_train.ablation --config classic_4p --minutes 15 --games 600 --out docs/ablation_classic.md
    python -m redbeard_train.ablation --config sortskaeg_4p --minutes 15 --variants base critic belief teacher all
    python -m redbeard_train.ablation --config classic_4p --minutes 8 --rollout-workers 1 --torch-threads 1
    python -m redbeard_train.ablation --config sortskaeg_4p --steps 6e6 --minutes 40 --teacher heuristic --teacher-share 1

Any other flag is train.py's and changes the config every variant starts from (above: one core,
so a second job can share the machine without the variants' budgets buying different work).

A budget is wall-clock minutes (``--minutes``: what a part costs at the start of a run) or, with
``--steps``, the same number of environment steps for every variant, ``--minutes`` then a cap
(what a part is worth per sample, whatever it costs in time).

Variants (each on top of the config, with ``max_minutes`` set to the budget):

    base     the config without the recipe's parts and without a prior (the plain learner)
    prior    base + the heuristic prior (today's shipped bots are trained so)
    critic   base + the privileged critic
    belief   base + the belief head
    teacher  base + distillation from the teacher (``--teacher``, default ``pimc:samples=8``)
             during the first third of the run on ``--teacher-share`` of the learner's decisions
             (a search teacher is the run's dearest part), the teacher also in the opponent pool
    all      base + critic + belief + teacher

Each trained policy then plays ``--games`` duplicate games in one seat against three of the
game's ``pimc`` (``--opponent``), on the same seed for every variant; the table gives the
win rate with its 95 % CI, the game's first metric column (its tournament metrics'
``COLUMNS``: Rödskägg's contract rate, the family's exact-bid rate) and, where the game's
training part names a probe (``ROUND_PROBE``: Rödskägg's join rate of rounds started at 2
points), that metric of rounds against heuristics started from its score. The learning
curves (win rate against the heuristic over wall-clock minutes, from the runs' own
evaluations) go into one PNG beside the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

from .config import Config

BASE = dict(prior="", critic="shared", belief=False, teacher="", distill_frac=0.0)  # none of the recipe's parts
VARIANTS = {
    "base": BASE,
    "prior": {**BASE, "prior": "heuristic"},
    "critic": {**BASE, "critic": "privileged"},
    "belief": {**BASE, "belief": True},
    "teacher": {**BASE, "distill_frac": 1 / 3},
    "all": {**BASE, "critic": "privileged", "belief": True, "distill_frac": 1 / 3},
}


def variant_config(cfg: Config, name: str, minutes: float, teacher: str, run_dir: str,
                   teacher_share: float = 1.0, steps: int = 0) -> Config:
    """The config of one variant (see the module docstring); ``steps`` > 0 trains to that many
    steps with ``minutes`` as a cap, else ``minutes`` is the budget."""
    changes = dict(VARIANTS[name])
    if steps:
        changes["total_steps"] = steps
    if changes["distill_frac"] > 0:
        changes.update(teacher=teacher, teacher_share=teacher_share,
                       opponents=list(dict.fromkeys([*cfg.opponents, teacher])))
    return dataclasses.replace(cfg, exp_name=f"{cfg.exp_name}_{name}", max_minutes=minutes, run_dir=run_dir,
                               **changes)


def measure(policy: Path, cfg: Config, opponent: str, games: int, seed: int, workers: int) -> dict:
    """The trained policy against three ``opponent`` bots: its win rate, the game's first
    metric column and, where the game's training part names one, its round probe."""
    from agents.registry import training_of
    from redbeard_env.registry import as_game
    from redbeard_eval import run_tournament

    game = as_game(cfg.game)
    n = cfg.players[0]
    spec = f"ppo:{policy}"
    res = run_tournament([spec] + [opponent] * (n - 1), game=game, rules=cfg.rules, overrides=cfg.overrides,
                         players=n, games=games, seed=seed, progress=False, workers=workers)
    me = res["agents"][spec]
    _, _, key, _ = game.metrics_type.COLUMNS[0]
    row = {"win": me["win_rate"], "ci": me["win_rate_ci"], "metric": me.get(key), "probe": None}
    probe = getattr(training_of(game), "ROUND_PROBE", None)
    if probe is not None:
        _, score, metric = probe
        rounds = run_tournament([spec] + ["heuristic"] * (n - 1), game=game, rules=cfg.rules, players=n,
                                overrides=cfg.overrides, games=games, seed=seed, mode="round", scores=[score] * n,
                                progress=False, workers=workers)
        row["probe"] = rounds["agents"][spec][metric]
    return row


def _fmt(x, spec: str = ".3f") -> str:
    return "–" if x is None else format(x, spec)


def budget_words(args: argparse.Namespace) -> str:
    """Each variant's budget, as the table and the log say it."""
    if args.steps:
        return f"{args.steps / 1e6:g}M steps (at most {args.minutes:g} minutes)"
    return f"{args.minutes:g} minutes"


def write_table(rows: dict, cfg: Config, args: argparse.Namespace, out: Path) -> None:
    from agents.registry import training_of
    from redbeard_env.registry import as_game

    game = as_game(cfg.game)
    metric = game.metrics_type.COLUMNS[0][2].replace("_", " ")
    probe = (getattr(training_of(game), "ROUND_PROBE", None) or ("–",))[0]
    lines = [f"# Recipe ablation: {cfg.exp_name} ({cfg.game}, {cfg.rules}, {cfg.players[0]} players)", "",
             f"Each variant trained {budget_words(args)} from scratch (seed {cfg.seed}), then played {args.games} "
             f"duplicate games in one seat against three `{args.opponent}` (seed {args.seed}; the same deals for every "
             f"variant); the teacher `{args.teacher}` labels {args.teacher_share:g} of the learner's decisions. "
             "Command: `python -m redbeard_train.ablation " + " ".join(sys.argv[1:]) + "`.", "",
             f"| variant | steps trained | minutes | win vs 3 {args.opponent} [95 % CI] | {metric} | {probe} | run |",
             "|---|---:|---:|---|---:|---:|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['steps'] / 1e6:.1f}M | {r['minutes']:.1f} | "
                     f"{r['win']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | "
                     f"{_fmt(r['metric'])} | {_fmt(r['probe'], '.2f')} | `{r['run']}` |")
    lines += ["", f"![learning curves]({out.with_suffix('.png').name})", ""]
    out.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False,
                                     epilog="Any other flag is train.py's (python train.py --help) and applies to "
                                            "every variant before the variant's own changes; --seed and --teacher "
                                            "are this driver's.")
    parser.add_argument("--config", default="classic_4p", help="the config the variants start from")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--minutes", type=float, default=15.0,
                        help="training budget of each variant (with --steps: its cap)")
    parser.add_argument("--steps", type=float, default=0,
                        help="train every variant to this many environment steps (e.g. 6e6) instead of for --minutes")
    parser.add_argument("--teacher", default="pimc:samples=8", help="the teacher of the teacher and all variants")
    parser.add_argument("--teacher-share", type=float, default=0.05,
                        help="share of the learner's decisions the teacher labels, in (0, 1]")
    parser.add_argument("--opponent", default="pimc", help="the three bots each policy is measured against")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7, help="seed of the measuring tournaments")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--run-dir", default="runs/ablation")
    parser.add_argument("--out", default="docs/ablation.md")
    args, train_flags = parser.parse_known_args(argv)
    # the measuring tournaments and the report come after every variant has trained: all checked first
    for ok, flag, value, allowed in [
            (0 < args.minutes < math.inf, "--minutes", args.minutes, "a finite number > 0"),
            (args.steps == 0 or 1 <= args.steps < math.inf, "--steps", args.steps, "0 (a budget in minutes) or a finite number >= 1"),
            (args.games >= 1, "--games", args.games, ">= 1"), (args.workers >= 1, "--workers", args.workers, ">= 1"),
            (args.seed >= 0, "--seed", args.seed, ">= 0")]:
        if not ok:
            parser.error(f"{flag} must be {allowed}, got {value}")
    if Path(args.out).is_dir():
        parser.error(f"--out {args.out} is a folder; it must name the report's file")
    if not 0 < args.teacher_share <= 1:
        parser.error(f"--teacher-share must be in (0, 1], got {args.teacher_share}")
    from .cli import parse_args
    from .config import ConfigError, check_config
    from .curve import plot_curves, read_curve
    from .loop import train

    if "--resume" in train_flags:
        parser.error("--resume does not apply: every variant trains from scratch")
    try:  # every variant's config checked before the first trains: a typo costs seconds, not a run
        base, _ = parse_args(["--config", args.config, *train_flags])
        configs = {name: check_config(variant_config(base, name, args.minutes, args.teacher, args.run_dir,
                                                     args.teacher_share, int(args.steps))) for name in args.variants}
    except ConfigError as exc:
        parser.error(str(exc))
    rows, curves = {}, []
    for name, cfg in configs.items():
        print(f"ablation: training {name} for {budget_words(args)}", file=sys.stderr)
        out = train(cfg, quiet=True)
        run = Path(out["run_dir"])
        rows[name] = {**measure(run / "policy.pt", cfg, args.opponent, args.games, args.seed, args.workers),
                      "run": str(run), "steps": out["global_step"], "minutes": out["wall_seconds"] / 60}
        print(f"ablation: {name}: {rows[name]}", file=sys.stderr)
        try:
            curves.append((read_curve(run), name))
        except ValueError:
            pass
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    write_table(rows, base, args, out_path)
    if curves:
        plot_curves([c for c, _ in curves], [n for _, n in curves], out_path.with_suffix(".png"),
                    f"{base.exp_name}: the recipe's parts, {budget_words(args)} each")
    print(f"wrote {out_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
