"""The ``evaluate.py`` / ``redbeard-evaluate`` command line: :class:`EvalConfig`'s fields are
the options (``--help`` shows each one's meaning, type and default, read from the field
docstrings by tyro). A value out of range, and an ``--out`` or ``--record`` path that cannot
be written, exits with status 2 and one line naming the option, the value and what is
allowed, before anything is played."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Annotated, Literal, Optional, Sequence, Union

import tyro

from redbeard_env.common import parse_overrides
from redbeard_env.registry import LEGACY_GAME, game_named, registered_games

from .report import check_output_paths, format_table
from .tournament import play_tournament, prepare_tournament, resolve_game

__all__ = ["EvalConfig", "parse_args", "main"]

GameName = Literal[registered_games()]  # type: ignore[valid-type]
PresetName = Literal[tuple(p for g in registered_games() for p in game_named(g).presets)]  # type: ignore[valid-type]
#: the registered games as the help names them: name (title), presets and player range
_GAMES = [game_named(g) for g in registered_games()]
GAME_HELP = ("The game: " + "; ".join(f"{g.name} ({g.title}: {', '.join(g.presets)})" for g in _GAMES)
             + f". Bot specs name its bots. None: the game of --rules (neither: {LEGACY_GAME}).")
PLAYERS_HELP = ("Player count, within the game's range (" + ", ".join(f"{g.title} {g.player_range[0]}..{g.player_range[1]}"
                                                                      for g in _GAMES) + "); None: the number of --agents.")


@dataclass(frozen=True)
class EvalConfig:
    """Play a duplicate tournament between bots (every deal replayed with the lineup rotated through the seats) and
    report win rates with 95 % CIs, OpenSkill ratings and bid and join metrics. Outputs and metrics are defined in
    the redbeard_eval package docstring: python -c 'import redbeard_eval; help(redbeard_eval)'."""

    agents: Annotated[tuple[str, ...], tyro.conf.arg(metavar="SPEC [SPEC ...]")]
    """Agent specs, one per seat (heuristic, random, pimc:samples=64, ppo:classic_4p, ...); the last repeats."""
    game: Annotated[Optional[GameName], tyro.conf.arg(help=GAME_HELP)] = None
    rules: Optional[PresetName] = None
    """Rules preset (change single fields with --set); each belongs to one game. None: the game's default preset."""
    players: Annotated[Optional[int], tyro.conf.arg(help=PLAYERS_HELP)] = None
    games: int = 2000
    """Games (round mode: rounds) to play, at least 1; rounded up to whole deals (x distinct seatings)."""
    seed: int = 0
    """Seed (>= 0) of the deals, the bots and the engine."""
    set: Annotated[tuple[str, ...], tyro.conf.arg(metavar="FIELD=VALUE [...]")] = ()
    """Rules overrides, values as Python literals, e.g. leader=trick_winner eliminate_at=40."""
    mode: Literal["game", "round"] = "game"
    """game: whole games; round: the first round of each game, from --scores (bid-accuracy research)."""
    scores: Union[Literal["sample"], tuple[int, ...], None] = None
    """Round mode: starting scores, one int per seat, or sample (uniform in --score-range); None: the start score."""
    score_range: Annotated[tuple[int, int], tyro.conf.arg(metavar="LO HI")] = (1, 12)
    """Round mode with --scores sample: scores drawn uniformly from LO..HI (LO <= HI)."""
    engine: Literal["auto", "vector", "reference"] = "auto"
    """vector: the batch engine (bots need act_batch); reference: the reference engine; auto: vector when every bot can."""
    batch_size: Optional[int] = None
    """Games played at once, 1..65536; None: 4096 on the vector engine, 512 on the reference engine."""
    out: Optional[str] = None
    """Output folder for results.json, games.csv (rounds.csv) and the plots; None: write nothing."""
    plots: bool = True
    """With --out, draw win_rates.png, calibration.png and the game's success rate (contract_by_bid.png, ...)."""
    quiet: bool = False
    """No progress bar."""
    backend: Literal["local", "ray"] = "local"
    """Where the shards of deals are played: local (this process, or a process pool with --workers > 1) or ray
    (Ray tasks; an embedded local Ray, or the cluster at --ray-address / $RAY_ADDRESS). Results do not depend on it."""
    workers: int = 1
    """Processes (local) or at most concurrent tasks' worth of CPUs (ray) to play shards on, at least 1."""
    record: Optional[str] = None
    """Append every game's record (JSON lines, redbeard_env.records: deals, moves, results; replayable) to this
    file; plays on the reference engine."""
    ray_address: Optional[str] = None
    """Ray cluster to join with --backend ray (None: $RAY_ADDRESS, else an embedded local Ray)."""
    sprt: Optional[Annotated[tuple[float, float], tyro.conf.arg(metavar="P0 P1")]] = None
    """Promotion test: --agents CANDIDATE INCUMBENT play (the candidate in one seat) until a sequential probability
    ratio test decides between the candidate's win rate P0 (H0, e.g. parity) and P1 (H1): a gain test with
    parity <= P0 < P1, or a non-regression test with P0 < P1 = parity (H1: as good, for a simpler candidate);
    --games is the most it plays. Prints the log-likelihood ratio after each batch (redbeard_eval.sprt)."""
    alpha: float = 0.05
    """With --sprt: the chance of accepting H1 (promoting) when H0 holds."""
    beta: float = 0.05
    """With --sprt: the chance of accepting H0 when H1 holds."""
    bots: Annotated[tuple[str, ...], tyro.conf.UseAppendAction, tyro.conf.arg(metavar="DIR")] = ()
    """A bot folder (repeat for more): ppo:NAME is then, after the shipped policies, DIR/NAME.pt, DIR/NAME/final.pt
    (a recipe pipeline) or DIR/NAME/policy.pt (a single run) of the first folder that has one."""


def _refuse(message: str) -> None:
    """A bad option: one line on stderr, exit status 2 (as argparse does)."""
    print("evaluate: error: " + " ".join(message.split()), file=sys.stderr)
    raise SystemExit(2)


def parse_args(argv: Sequence[str] | None = None) -> EvalConfig:
    """The options as a config (``--help`` prints the help and exits)."""
    return tyro.cli(EvalConfig, args=argv, prog=os.path.basename(sys.argv[0]))


def _use_bot_folders(cfg: EvalConfig) -> None:
    """``--bots``: the folders ``ppo:NAME`` searches after the shipped policies."""
    if cfg.bots:
        from agents.ppo import set_bot_folders

        try:
            set_bot_folders(cfg.bots)
        except ValueError as exc:
            _refuse(f"--bots: {exc}")


def _table_notes(specs: Sequence[str], game, rules, players: int, preset: str | None) -> None:
    """A line for each ``ppo`` bot seated at a table it was not trained at (its results
    stand; the note says how far they carry)."""
    if not any(isinstance(s, str) and s.strip().lower().startswith("ppo") for s in specs):
        return  # no policy: torch need not be imported
    from agents.ppo import table_notes

    for note in table_notes(specs, game, rules, players, preset):
        print(f"note: {note}", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    cfg = parse_args(argv)
    _use_bot_folders(cfg)
    if cfg.sprt is not None:
        return main_sprt(cfg)
    try:
        tournament = prepare_tournament(
            cfg.agents,
            rules=cfg.rules,  # None: the game's default preset
            game=cfg.game,
            players=cfg.players,
            games=cfg.games,
            seed=cfg.seed,
            overrides=parse_overrides(cfg.set),
            mode=cfg.mode,
            scores=cfg.scores,
            score_range=cfg.score_range,
            engine=cfg.engine,
            batch_size=cfg.batch_size,
            record=cfg.record is not None,
        )
        if cfg.workers < 1:
            raise ValueError(f"--workers must be an int >= 1, got {cfg.workers}")
        check_output_paths(cfg.out, cfg.record, names=("--out", "--record"))
        _table_notes(tournament.keys, tournament.game, tournament.rules, tournament.num_players,
                     None if tournament.rules_name == "custom" else tournament.rules_name)
    except ValueError as exc:
        _refuse(str(exc))
    results = play_tournament(tournament, out=cfg.out, plots=cfg.plots, progress=not cfg.quiet,
                              backend=cfg.backend, workers=cfg.workers, ray_address=cfg.ray_address,
                              record=cfg.record)
    print(format_table(results))
    if cfg.out:
        success = tournament.game.metrics_type.success_plot({})
        plots = "win_rates.png" + (f", calibration.png, {success['file']}.png" if success is not None else "")
        print(f"wrote {cfg.out}/results.json, {'games' if cfg.mode == 'game' else 'rounds'}.csv"
              + (f", {plots}" if cfg.plots else ""))


def main_sprt(cfg: EvalConfig) -> None:
    """``--sprt P0 P1``: the candidate (first agent) against the incumbent (second) until the
    test decides; one line per batch, then the decision (and ``sprt.json`` in ``--out``)."""
    import json
    from pathlib import Path

    from .sprt import run_sprt

    if len(cfg.agents) != 2:
        _refuse(f"--sprt plays two agents, a candidate and the incumbent, got {len(cfg.agents)}")
    if cfg.mode != "game" or cfg.record is not None or cfg.workers != 1:
        _refuse("--sprt plays whole games in this process (no --mode round, --record or --workers)")
    try:
        check_output_paths(cfg.out, names=("--out", "--record"))
        info, rules = resolve_game(cfg.rules, cfg.game)
        table = info.make_rules(rules, **parse_overrides(cfg.set))
        _table_notes(cfg.agents, info, table, info.check_num_players(cfg.players or 2, table), rules)
        result = run_sprt(cfg.agents[0], cfg.agents[1], cfg.sprt[0], cfg.sprt[1], alpha=cfg.alpha, beta=cfg.beta,
                          max_games=cfg.games, game=info, rules=rules,
                          players=cfg.players, seed=cfg.seed, overrides=parse_overrides(cfg.set), engine=cfg.engine,
                          batch_size=cfg.batch_size or 400)
    except ValueError as exc:
        _refuse(str(exc))
    verdict = {"H1": "H1 accepted: promote the candidate", "H0": "H0 accepted: keep the incumbent",
               "inconclusive": f"no decision within {cfg.games} games"}[result.decision]
    print(f"sprt: {verdict} (LLR {result.llr:+.3f}, bounds {result.lower:.3f} / {result.upper:.3f}, "
          f"{result.games} games of {result.game}/{result.rules} at {result.players} players, candidate win rate "
          f"{result.win_rate:.4f} (parity {result.parity:.4f}); p0 {cfg.sprt[0]}, p1 {cfg.sprt[1]}, "
          f"alpha {cfg.alpha}, beta {cfg.beta})")
    if cfg.out:
        Path(cfg.out).mkdir(parents=True, exist_ok=True)
        config = {"agents": list(cfg.agents), "p0": cfg.sprt[0], "p1": cfg.sprt[1], "alpha": cfg.alpha, "beta": cfg.beta,
                  "seed": cfg.seed, "max_games": cfg.games}
        (Path(cfg.out) / "sprt.json").write_text(json.dumps({"config": config, **result.as_dict()}, indent=1))
