"""Learning curves from runs' TensorBoard logs: the periodic evaluation's win rate against
heuristic bots (``eval/win_rate_vs_heuristic`` with its 95 % CI) against wall-clock
minutes since the run started, as a PNG.

    python -m redbeard_train.curve runs/classic_4p__1__1764... --out docs/img/learning_curve_classic_4p.png
    python -m redbeard_train.curve runs/a runs/b --label "prior" --label "no prior" --out curves.png

The clock of a point is the wall time of its event minus that of the run's first logged
update, less the time that update took (so minute 0 is the start of training); it includes
the evaluations themselves. A run from scratch evaluates its untrained policy before its
first update: that point (step 0) is minute 0. A resumed run's pause is not subtracted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

WIN = "eval/win_rate_vs_heuristic"


def read_curve(run_dir: "str | Path") -> dict:
    """``{"minutes", "steps", "win", "low", "high", "parity"}`` (lists) of one run."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ValueError(f"no run directory {str(run_dir)!r}")
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags().get("scalars", [])
    if WIN not in tags or "charts/SPS" not in tags:
        raise ValueError(f"{run_dir} has no {WIN!r} and charts/SPS scalars (not a training run, or eval_games 0?)")
    sps = acc.Scalars("charts/SPS")
    first = sps[0]
    start = first.wall_time - first.step / max(first.value, 1.0)  # the first update's start
    win, low, high = (acc.Scalars(t) for t in (WIN, WIN + "_ci_low", WIN + "_ci_high"))
    players = _players(acc)
    return {
        "minutes": [0.0 if e.step == 0 else (e.wall_time - start) / 60.0 for e in win],
        "steps": [e.step for e in win],
        "win": [e.value for e in win],
        "low": [e.value for e in low],
        "high": [e.value for e in high],
        "parity": 1.0 / players if players else None,
    }


def _players(acc) -> int | None:
    """The evaluation table's size, from the hyperparameter text (``|players|[4]|``)."""
    try:
        text = acc.Tensors("hyperparameters/text_summary")[0].tensor_proto.string_val[0].decode()
    except (KeyError, IndexError):
        return None
    for line in text.splitlines():
        if line.startswith("|players|"):
            counts = [int(x) for x in line.split("|")[2].strip("[] ").split(",") if x.strip()]
            return counts[0] if counts else None
    return None


def plot_curves(curves: list[dict], labels: list[str], out: Path, title: str = "") -> Path:
    """Draw curves (from :func:`read_curve`) into one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    parity = None
    for c, label in zip(curves, labels):
        ax.plot(c["minutes"], c["win"], marker="o", ms=3, label=label)
        ax.fill_between(c["minutes"], c["low"], c["high"], alpha=0.2)
        parity = parity or c["parity"]
    if parity:
        ax.axhline(parity, color="#c44e52", ls="--", lw=1, label=f"parity 1/{round(1 / parity)}")
        ax.axhline(1.5 * parity, color="#c44e52", ls=":", lw=1, label="1.5x parity")
    ax.set_xlabel("wall-clock minutes of training")
    ax.set_ylabel("win rate vs heuristic bots")
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run directories (with TensorBoard event files)")
    parser.add_argument("--label", action="append", default=[], help="legend label per run (default: the directory name)")
    parser.add_argument("--title", default="")
    parser.add_argument("--out", default="learning_curve.png")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.runs):
        parser.error(f"{len(args.label)} --label for {len(args.runs)} runs: give one per run or none")
    labels = args.label or [Path(r).name for r in args.runs]
    try:
        curves = [read_curve(run) for run in args.runs]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    path = plot_curves(curves, labels, Path(args.out), args.title)
    for run, c in zip(args.runs, curves):
        points = ", ".join(f"{m:.1f} min {w:.3f}" for m, w in zip(c["minutes"], c["win"]))
        print(f"{run}: {points}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
