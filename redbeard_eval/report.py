"""Tournament outputs: ``results.json``, ``games.csv`` / ``rounds.csv`` and the printed
table (the plots: :mod:`redbeard_eval.plots`), and the check that the places they go to can
be written (:func:`check_output_paths`), made before a tournament plays so that its
results are never lost to a bad path."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

import numpy as np

from redbeard_env.records import check_appendable
from redbeard_env.registry import game_of_data

__all__ = ["write_outputs", "check_output_paths", "format_table", "short_name"]

#: the files a tournament writes into its output folder (the plots aside)
OUTPUT_FILES = ("results.json", "games.csv", "rounds.csv")


def check_output_paths(out: "str | Path | None" = None, record: "str | Path | None" = None,
                       names: tuple[str, str] = ("out", "record")) -> None:
    """A one-line ``ValueError`` unless ``out`` is (or can be made) a folder this process
    may write in, and ``record`` names a file that can be appended to (its folder must
    exist, as for any file one appends to). ``names``: what the two are called in the
    message (the command line's ``--out`` and ``--record``). Nothing is created."""
    if out is not None:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise ValueError(f"{names[0]} {str(out)[:200]} is an existing file; it must name a folder "
                             f"(for {', '.join(OUTPUT_FILES[:2])} and the plots)")
        for name in OUTPUT_FILES:
            if (out / name).is_dir():
                raise ValueError(f"{names[0]} {str(out)[:200]} holds a folder named {name}, where the file goes")
        _check_writable_folder(out, names[0])
    if record is not None:
        check_appendable(record, names[1])


def _check_writable_folder(path: Path, name: str) -> None:
    """The folder ``path`` or, where it does not exist yet, its nearest existing parent
    (where it would be made) must be a folder a file can be created in (tried with a
    temporary file, which is removed: permissions alone do not tell, e.g. as root on a
    read-only file system)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ValueError(f"{name} {str(path)[:200]}: {str(probe)[:200]} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        raise ValueError(f"{name} {str(path)[:200]}: cannot write in {str(probe)[:200]} ({exc.strerror})") from None


def write_outputs(results: dict, rec, out: Path) -> None:
    """``results.json`` and ``games.csv`` (round mode: ``rounds.csv``) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "results.json", "w") as f:
        json.dump(results, f, indent=2, default=_json_default)
    name = "games.csv" if results["config"]["mode"] == "game" else "rounds.csv"
    if rec.seat_rows:
        with open(out / name, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rec.seat_rows[0]))
            writer.writeheader()
            writer.writerows(sorted(rec.seat_rows, key=lambda r: (r["game"], r["seat"])))


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(repr(x))


def short_name(spec: str, width: int = 22) -> str:
    """``spec`` cut to ``width`` characters from the left (the end of a path says most)."""
    return spec if len(spec) <= width else "…" + spec[-(width - 1):]


def _f(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def format_table(results: dict) -> str:
    """The results as the printed table: a header line, one row per agent with the shared
    columns and the game's (its metrics' ``COLUMNS``), the game's notes, a timing line."""
    agents = results["agents"]
    cfg = results["config"]
    game_metrics = game_of_data(cfg).metrics_type  # files from before games had names: LEGACY_GAME's
    columns = game_metrics.COLUMNS
    head = (f"{'agent':<24}{'games':>7}{'win':>8}{'95% CI':>16}{'parity':>8}{'rating':>8}"
            + "".join(f"{title:>{width}}" for title, width, _, _ in columns))
    lines = [f"{cfg['rules']} | {cfg['players']} players | {cfg['games']} {cfg['mode']}s "
             f"({cfg['deals']} deals x {len(cfg['rotations'])} seatings) | seed {cfg['seed']} | {cfg['engine']} engine",
             head, "-" * len(head)]
    for name, a in agents.items():
        ci = f"[{a['win_rate_ci'][0]:.3f}, {a['win_rate_ci'][1]:.3f}]"
        rating = a["rating"]["ordinal"] if a.get("rating") else None
        lines.append(
            f"{short_name(name, 23):<24}{a['games']:>7}{a['win_rate']:>8.3f}{ci:>16}{a['parity']:>8.3f}{_f(rating, '.1f'):>8}"
            + "".join(f"{_f(a.get(key), fmt):>{width}}" for _, width, key, fmt in columns)
        )
    lines += game_metrics.table_notes(agents)
    t = results["timing"]
    rate_key = "games_per_second" if cfg["mode"] == "game" else "rounds_per_second"
    lines.append(f"{t['wall_seconds']:.1f} s, {t[rate_key]:.1f} {rate_key.replace('_', ' ')}, "
                 f"{t['decisions_per_second']:.0f} decisions/s; agent ms/decision: "
                 + ", ".join(f"{short_name(k, 16)} {v:.3f}" for k, v in t["agent_ms_per_decision"].items() if v is not None))
    return "\n".join(lines)
