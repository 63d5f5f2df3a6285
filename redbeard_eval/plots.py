"""Tournament plots: win rates against parity, bid-vs-tricks calibration, contract rate by
bid (Sortskæg: exact-bid rate by hand size instead; matplotlib, from the eval extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from redbeard_env.registry import game_of_data
from .report import short_name

__all__ = ["make_plots"]


def make_plots(results: dict, out: Path) -> list[Path]:
    """Draw win_rates.png, calibration.png and contract_by_bid.png (Sortskæg:
    exact_by_hand_size.png) into ``out``; return their paths (none, with a note on stderr,
    when matplotlib is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[eval]'): no plots", file=sys.stderr)
        return []
    agents = results["agents"]
    cfg = results["config"]
    names = list(agents)
    title = f"{cfg['rules']}, {cfg['players']} players, {cfg['games']} {'games' if cfg['mode'] == 'game' else 'rounds'}"
    paths = []
    # win rates with CIs against parity
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(names), 3.6))
    rates = [agents[a]["win_rate"] for a in names]
    lo = [agents[a]["win_rate"] - agents[a]["win_rate_ci"][0] for a in names]
    hi = [agents[a]["win_rate_ci"][1] - agents[a]["win_rate"] for a in names]
    ax.bar(range(len(names)), rates, yerr=[lo, hi], capsize=6, color="#4c72b0")
    ax.axhline(agents[names[0]]["parity"], color="#c44e52", ls="--", label="parity 1/n")
    ax.set_xticks(range(len(names)), [short_name(a) for a in names])
    ax.set_ylabel("win rate" if cfg["mode"] == "game" else "rounds ending on 0")
    ax.set_ylim(0, max(0.05, min(1.0, max(r + h for r, h in zip(rates, hi)) * 1.15)))
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    paths.append(_save(plt, fig, out / "win_rates.png"))
    spec = game_of_data(cfg).metrics_type.success_plot(agents)
    if spec is None:  # a game whose metrics plot no success rate (nor calibration)
        return paths
    series, bid_labels = spec["series"], spec["bid_labels"]
    # bid vs tricks calibration, one heat map per agent
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.6), squeeze=False)
    for ax, a in zip(axes[0], names):
        _heat_map(ax, np.asarray(agents[a]["calibration"], dtype=float), bid_labels, f"{short_name(a)}: bid vs tricks")
        ax.set_xlabel("tricks taken")
        ax.set_ylabel("bid")
    fig.suptitle(title, fontsize=9)
    paths.append(_save(plt, fig, out / "calibration.png"))
    # the game's success rate (Rödskägg: contracts made by bid; Sortskæg: exact bids by hand size)
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for a in names:
        xs = [x for x, rate in series[a].items() if rate is not None]
        ax.plot(xs, [series[a][x] for x in xs], marker="o", label=short_name(a))
    if spec["xticks"]:
        ax.set_xticks(range(len(spec["xticks"])), spec["xticks"])
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    paths.append(_save(plt, fig, out / f"{spec['file']}.png"))
    return paths


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _heat_map(ax, m: np.ndarray, labels_y, title: str) -> None:
    """Row-normalised counts as colours, the counts written in, the diagonal dotted."""
    rows = m.sum(1, keepdims=True)
    frac = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    ax.imshow(frac, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=6, color="w" if frac[i, j] < 0.6 else "k")
    d = min(m.shape) - 1
    ax.plot([0, d], [0, d], color="w", lw=0.6, ls=":")
    ax.set_xticks(range(m.shape[1]))
    ax.set_yticks(range(m.shape[0]), labels_y)
    ax.set_title(title, fontsize=9)
