"""Tournament plots: win rates against parity, bid-vs-tricks calibration, contract rate by
bid (Sortskæg: exact-bid rate by hand size instead; matplotlib, from the eval extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from .metrics import LEVEL_NAMES, LEVELS
from .report import short_name

__all__ = ["make_plots"]


def make_plots(results: dict, out: Path) -> list[Path]:
    """Draw win_rates.png, calibration.png and contract_by_bid.png into ``out``; return their
    paths (none, with a note on stderr, when matplotlib is missing)."""
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
    fig.tight_layout()
    paths.append(out / "win_rates.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    if cfg.get("game", "redbeard") == "sortskaeg":
        return paths + _sortskaeg_plots(plt, agents, names, title, out)
    # bid vs tricks calibration, one heat map per agent
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.6), squeeze=False)
    for ax, a in zip(axes[0], names):
        m = np.asarray(agents[a]["calibration"], dtype=float)
        rows = m.sum(1, keepdims=True)
        frac = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
        ax.imshow(frac, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=6,
                            color="w" if frac[i, j] < 0.6 else "k")
        ax.plot([0, 6], [0, 6], color="w", lw=0.6, ls=":")
        ax.set_xticks(range(7))
        ax.set_yticks(range(LEVELS), LEVEL_NAMES)
        ax.set_xlabel("tricks taken")
        ax.set_ylabel("bid")
        ax.set_title(f"{short_name(a)}: bid vs tricks", fontsize=9)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    paths.append(out / "calibration.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    # contract rate by bid size
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for a in names:
        c = np.array([agents[a]["contracts_by_bid"][k] for k in LEVEL_NAMES], dtype=float)
        mk = np.array([agents[a]["made_by_bid"][k] for k in LEVEL_NAMES], dtype=float)
        ok = c > 0
        rate = np.divide(mk, c, out=np.zeros_like(mk), where=ok)
        ax.plot(np.arange(LEVELS)[ok], rate[ok], marker="o", label=short_name(a))
    ax.set_xticks(range(LEVELS), LEVEL_NAMES)
    ax.set_xlabel("bid")
    ax.set_ylabel("contract rate")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out / "contract_by_bid.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def _heat_map(ax, m: np.ndarray, labels_y, title: str) -> None:
    """Row-normalised counts as colours, the counts written in."""
    rows = m.sum(1, keepdims=True)
    frac = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    ax.imshow(frac, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=6, color="w" if frac[i, j] < 0.6 else "k")
    ax.plot([0, m.shape[1] - 1], [0, m.shape[0] - 1], color="w", lw=0.6, ls=":")
    ax.set_xticks(range(m.shape[1]))
    ax.set_yticks(range(m.shape[0]), labels_y)
    ax.set_title(title, fontsize=9)


def _sortskaeg_plots(plt, agents: dict, names: list[str], title: str, out: Path) -> list[Path]:
    """Sortskæg: calibration.png (bid vs tricks, every round-seat) and exact_by_hand_size.png."""
    paths = []
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.6), squeeze=False)
    for ax, a in zip(axes[0], names):
        _heat_map(ax, np.asarray(agents[a]["calibration"], dtype=float), [str(k) for k in range(8)],
                  f"{short_name(a)}: bid vs tricks")
        ax.set_xlabel("tricks taken")
        ax.set_ylabel("bid")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    paths.append(out / "calibration.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for a in names:
        sizes = [h for h in range(1, 8) if agents[a]["exact_by_hand_size"][str(h)] is not None]
        ax.plot(sizes, [agents[a]["exact_by_hand_size"][str(h)] for h in sizes], marker="o", label=short_name(a))
    ax.set_xlabel("hand size")
    ax.set_ylabel("exact-bid rate")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out / "exact_by_hand_size.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths
