"""``redbeard-play``: any registered game against the bots in a terminal.

    redbeard-play                                   # Rödskägg, classic, 4 players, you in seat 0, heuristic bots
    redbeard-play --rules fem_opp --players 5 --seat 2 --opponents ppo:classic_4p --seed 7
    redbeard-play --set start_score=6 --record my_games.jsonl
    redbeard-play --game sortskaeg --players 3 --set deal=carry
    redbeard-play --bots runs --opponents ppo:my_pipeline     # runs/my_pipeline/final.pt
    redbeard-play --opponents ppo:runs/my_pipeline/final.pt

After every move the table is printed (scores, calls or bids, tricks, the current trick,
your hand). At your turn type an action: its full name (``play:AS``, ``bid:3``, ``pass``) or a
short form -- a card (``AS``, ``10d``, ``y10``), a bid number (``3``), the game's short
words (Rödskägg: ``p`` pass, ``r`` Rödskägg, ``k``/``t`` keep or throw in, ``y``/``n`` look or
not, ``a``/``s`` ask or skip, ``j``/``f`` join or fold), or any unambiguous start of a legal
action's name. Also ``help``, ``hint [bot]``, ``table`` and ``quit``.

Once you are out of the game (in a game with eliminations) while the bots play on, you are asked
whether to watch the rest (``w``, move by move with ``--pause``) or skip to the result
(``s``: no more moves are printed and nothing waits). ``--ascii`` prints plain ASCII only:
suits as letters (``7C``), ``->`` for arrows, ``>=`` and ``x`` for the stakes' formulas.

A policy is ``ppo:NAME`` (shipped, or in a ``--bots DIR`` folder: ``DIR/NAME.pt``,
``DIR/NAME/final.pt``, ``DIR/NAME/policy.pt``) or ``ppo:<path>``. A policy seated at a table
it was not trained for is named in a note at the start, and its seat says what it was
trained for.

The table is drawn by the game's views module (the registry's ``Game.views``) from the same
view the web page gets, so it shows only what you may know. With ``--record FILE`` the
finished game is appended to a JSON-lines records file (:mod:`redbeard_env.records`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import unicodedata
from typing import Callable, TextIO

from redbeard_env.common import parse_overrides
from redbeard_env.records import append_records, check_appendable
from redbeard_env.registry import LEGACY_GAME, Game, as_game, game_named, registered_games
from redbeard_env.viewparts import ASCII

from agents.registry import parse_spec

from .session import HUMAN, BotPool, GameSession, parse_new_game, views_of


def _game(game: "str | Game | None") -> Game:
    return as_game(game or None)


def parse_input(text: str, legal: list[str], game: "str | Game | None" = None,
                why: "Callable[[str], str] | None" = None) -> str:
    """The legal action a typed line means in ``game`` (default: the first registered
    game); ``ValueError`` explaining why not (``why(name)``: the game's reason a move is not
    allowed now, e.g. "you must follow ♣: 7♣, A♣"). A number is a bid, and only while bids
    are asked: during play "5" is not ``bid:5``."""
    info = _game(game)
    short = views_of(info).SHORT
    word = text.strip().lower()
    if not word:
        raise ValueError("type an action (or help)")
    candidates: list[str] = []
    if word in short:
        candidates = [short[word]]
    elif word.isdigit():
        if legal and not any(name.startswith("bid:") for name in legal):
            raise ValueError(f"{word!r} would be a bid, but no bid is asked now; legal: {', '.join(legal)}")
        candidates = [f"bid:{word}"]
    else:
        for form in (word, "play:" + word):
            try:
                aid = info.action_id(form)
            except ValueError:
                continue
            candidates = [name for name in legal if _same(info, name, aid)] or [_name(info, form, aid)]
            break
        if not candidates:
            candidates = [name for name in legal if name.startswith(word)]
            if len(candidates) > 1:
                raise ValueError(f"{text.strip()!r} could be {', '.join(candidates)}; type more of it")
    if not candidates:
        raise ValueError(f"{text.strip()!r} is not an action (help lists them); legal now: {', '.join(legal)}")
    chosen = candidates[0]
    if chosen not in legal:
        reason = (why(chosen) if why is not None else "").rstrip(".")
        raise ValueError(f"{chosen} is not allowed now" + (f": {reason}" if reason else "") + f"; legal: {', '.join(legal)}")
    return chosen


def _same(info: Game, name: str, aid: int) -> bool:
    try:
        return info.action_id(name) == aid
    except ValueError:
        return False


def _name(info: Game, form: str, aid: int) -> str:
    """The usual name of an action typed as ``form`` (for the message that it is not legal)."""
    name = info.action_name(aid)
    prefix = form.partition(":")[0] if ":" in form else ""
    if prefix and ":" in name and name.partition(":")[0] != prefix:
        return f"{prefix}:{name.partition(':')[2]}"
    return name


def _event_line(ev: dict) -> str:
    """A move on one line, with what it caused (a trick won, a score change, a new deal)."""
    notes = [e["text"] for e in ev["effects"] if e.get("text") and e["type"] not in ("round_end", "score")]
    scores = [e["text"] for e in ev["effects"] if e["type"] == "score" and e.get("reason") not in ("exact", "missed")]
    notes = [n for n in notes if n] + scores
    return f"  {ev['text']}" + (f"  — {'; '.join(notes)}" if notes else "")


def _round_lines(end: dict) -> list[str]:
    """A round's result: the headline, every score change with its reason, eliminations."""
    lines = [f"== {end.get('headline') or end.get('summary') or end.get('text')}"]
    lines += [f"   {c['text']}" for c in end.get("changes", [])]
    lines += [f"   {n}" for n in end.get("notes", [])]
    return lines


def _outcome(view: dict, you: int) -> str:
    if view["truncated"]:
        return "The game reached its round limit without a winner."
    winners = view["winners"]
    if winners == [you]:
        return "You win!"
    names = [("You" if w == you else f"player_{w} ({view['agents'][w]})") for w in winners]
    if len(winners) > 1:
        return f"{' and '.join(names)} share the win."
    return f"{names[0]} wins the game." if names else "The game ended without a winner."


def build_parser(game: "str | None" = None) -> argparse.ArgumentParser:
    info = _game(game)
    lo, hi = info.player_range
    p = argparse.ArgumentParser(prog="redbeard-play", description="Play a game of the family against the bots "
                                "in a terminal.")
    p.add_argument("--game", default=info.name, choices=list(registered_games()),
                   help=f"the game (default {LEGACY_GAME})")
    p.add_argument("--rules", default=info.default_rules, choices=sorted(info.presets),
                   help=f"rule sheet of the game (default {info.default_rules})")
    p.add_argument("--players", type=int, default=min(max(4, lo), hi), help=f"{lo}..{hi} (default {min(max(4, lo), hi)})")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="bot spec for the other seats (one, or one per other seat), e.g. heuristic, ppo:<name> "
                        "or ppo:<path>")
    p.add_argument("--bots", action="append", default=[], metavar="DIR",
                   help="a bot folder (repeat for more): ppo:NAME is then, after the shipped policies, DIR/NAME.pt, "
                        "DIR/NAME/final.pt or DIR/NAME/policy.pt")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random)")
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="rules overrides, e.g. start_score=6")
    p.add_argument("--record", default=None, metavar="FILE", help="append the finished game's record to FILE")
    p.add_argument("--pause", type=float, default=0.0, metavar="SECONDS",
                   help="wait this long after each bot move (default 0)")
    p.add_argument("--ascii", action="store_true",
                   help="plain ASCII output: suits as letters (7C), -> and >= for the symbols (automatic where "
                        "the terminal cannot show them)")
    return p


def _which_game(argv: list[str] | None) -> str:
    """The ``--game`` of a command line (the other options' choices depend on it)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default=LEGACY_GAME, choices=list(registered_games()))
    known, _ = pre.parse_known_args(argv)
    return known.game


def _plain_only(out: TextIO) -> bool:
    """Whether ``out`` cannot show some symbol the views write (its encoding lacks it)."""
    encoding = getattr(out, "encoding", None)
    if not encoding:
        return False
    try:
        "".join(map(chr, ASCII)).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def plain(text: str) -> str:
    """``text`` in ASCII: the views' symbols by their ASCII forms (:data:`ASCII`), any other
    letter without its accent (text a player typed, shown back in a message), ``?`` for
    what has no ASCII form at all."""
    text = text.translate(ASCII)
    if text.isascii():
        return text
    return "".join(ch if ch.isascii() else unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"
                   for ch in text)


class Console:
    """The terminal's output: every line through one place (ASCII when asked or needed), and
    the pause after a bot's move."""

    def __init__(self, out: TextIO, ascii_only: bool, pause: float = 0.0):
        self.out, self.ascii_only, self.pause = out, ascii_only, max(0.0, pause)

    def say(self, text: str = "") -> None:
        print(plain(text) if self.ascii_only else text, file=self.out, flush=True)

    def wait(self) -> None:
        if self.pause:
            time.sleep(self.pause)


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser(_which_game(argv)).parse_args(argv)
    info = game_named(args.game)
    out = stdout or sys.stdout
    con = Console(out, args.ascii or _plain_only(out), args.pause)
    try:
        if not (math.isfinite(args.pause) and args.pause >= 0):  # time.sleep would refuse it mid-game
            raise ValueError(f"--pause must be a finite number of seconds >= 0, got {args.pause}")
        if args.record:  # checked before the game whose record it would lose
            check_appendable(args.record, "--record")
        if args.bots:
            from agents.ppo import set_bot_folders

            try:
                set_bot_folders(args.bots)
            except ValueError as exc:
                raise ValueError(f"--bots: {exc}") from None
        opponents = args.opponents[0] if len(args.opponents) == 1 else list(args.opponents)
        bots = BotPool(paths=True)  # the person at the keyboard names the files
        opts = parse_new_game({"game": info.name, "rules": args.rules, "players": args.players, "seat": args.seat,
                               "opponents": opponents, "seed": args.seed,
                               "overrides": parse_overrides(args.set)}, check=bots.check)
        labels = seat_labels(opts["agents"], info.name, opts["rules"], opts["players"], args.rules, con)
        session = GameSession("terminal", opts["rules"], opts["players"], opts["seat"], opts["agents"],
                              opts["seed"], bots, app="redbeard-play")
        session.run_bots()
    except ValueError as exc:
        con.say(f"redbeard-play: {exc}")
        return 2
    except KeyboardInterrupt:
        con.say("\nBye.")
        return 130
    try:
        return _play(session, info, args, stdin or sys.stdin, con, labels)
    except KeyboardInterrupt:  # Ctrl-C: leave quietly, no traceback
        con.say("\nBye.")
        return 130


def seat_labels(agents: list[str], game: str, rules, players: int, preset: str, con: Console) -> list[str]:
    """Each seat's name on the table: its spec, and for a policy trained at another table
    what it was trained for (said once in a note, too)."""
    policies = [a for a in dict.fromkeys(agents) if a != HUMAN and parse_spec(a).name == "ppo"]
    if not policies:
        return list(agents)
    from agents.ppo import fits_table, misfit_note, spec_table

    labels = {}
    for spec in policies:
        trained = spec_table(spec)
        if not fits_table(trained, game, rules, players):
            con.say(f"note: {misfit_note(spec, trained, game, rules, players, preset)}")
            labels[spec] = f"{spec}, trained for {trained.text()}"
    return [labels.get(a, a) for a in agents]


def _play(session: GameSession, info: Game, args: argparse.Namespace, inp: TextIO, con: Console,
          labels: list[str]) -> int:
    """The game loop: the moves one line each, each round's result, the table, the question
    with its stakes, your answer; to the end (0) or until you leave (0). Once you are out
    of the game with moves still to come, you choose to watch them or skip to the result.
    ``labels``: each seat's name on the table (:func:`seat_labels`)."""
    views, you = session.views, session.seat
    con.say(f"{info.title}, sheet {args.rules}, {session.game.num_players} players; you are seat {you}. "
            "Type help for help.")
    view = session.view()
    asked = False  # whether to watch the rest was asked (once: you are out for good)
    while True:
        events = view["events"]
        if view.get("events_skipped"):
            con.say(f"  ... {view['events_skipped']} earlier moves not shown")
        for i, ev in enumerate(events):
            con.say(_event_line(ev))
            for end in (e for e in ev["effects"] if e["type"] == "round_end"):
                for line in _round_lines(end):
                    con.say(line)
            if ev["seat"] != you:
                con.wait()
            left = len(events) - i - 1
            if not asked and left and not _in_game(ev["table"], you):
                asked = True
                choice = _watch_or_skip(inp, con, left)
                if choice is None:
                    con.say("Bye.")
                    return 0
                if choice == "skip":
                    con.say(f"Skipped {left} moves.")
                    break
        if view["finished"]:
            break
        con.say(views.render_table(view["table"], you, labels))
        con.say(views.question(session.game, you, keys=True))
        for item in view.get("stakes", []):
            con.say(f"  · {item['text']}")
        con.say("legal: " + ", ".join(view["legal"]))
        view = _prompt(session, view, inp, con, labels)
        if view is None:
            con.say("Bye.")
            return 0
    con.say(_outcome(view, you))
    con.say("Final scores: " + ", ".join(f"{views.seat_label(s, you)} {score}" for s, score in enumerate(view["scores"])))
    if args.record:
        append_records(args.record, [session.record()])
        con.say(f"The game's record was appended to {args.record}.")
    return 0


def _in_game(table: dict, you: int) -> bool:
    """Whether seat ``you`` still plays (not out of the game) at a table of the views."""
    return next(p for p in table["players"] if p["seat"] == you)["active"]


def _watch_or_skip(inp: TextIO, con: Console, moves: int) -> str | None:
    """Ask whether to watch the ``moves`` the bots play after you are out: "watch",
    "skip", or None on quit or end of input."""
    con.say(f"You are out of the game; the bots play on to the end ({moves} more moves). "
            "Watch them (w) or skip to the result (s)?")
    while True:
        con.out.write("> ")
        con.out.flush()
        line = inp.readline()
        if not line:
            return None
        word = line.strip().lower()
        if word in ("w", "watch"):
            return "watch"
        if word in ("s", "skip"):
            return "skip"
        if word in ("q", "quit", "exit"):
            return None
        con.say(f"{line.strip()!r}: type w to watch the rest, s to skip to the result (quit leaves)")


def _prompt(session: GameSession, view: dict, inp: TextIO, con: Console, labels: list[str]) -> dict | None:
    """Read lines until one is a legal action (then apply it and return the new view);
    None on quit or end of input."""
    say = con.say
    why = getattr(session.views, "why_illegal", None)
    while True:
        con.out.write("> ")
        con.out.flush()
        line = inp.readline()
        if not line:
            return None
        word = line.strip()
        command = word.lower().split()
        if command and command[0] in ("quit", "exit", "q"):
            return None
        if command and command[0] in ("help", "?", "h"):
            say(session.views.HELP)
            say("legal now: " + ", ".join(view["legal"]))
            continue
        if command and command[0] == "table":
            say(session.views.render_table(view["table"], session.seat, labels))
            continue
        if command and command[0] == "hint":
            spec = word.split(None, 1)[1] if len(command) > 1 else "heuristic"
            try:
                h = session.hint(spec)
            except ValueError as exc:
                say(f"hint: {exc}")
                continue
            say(f"{h['bot']} would choose {h['action']}")
            if h["values"]:
                unit = "probability" if h["kind"] == "probability" else "value"
                for name, value in sorted(h["values"].items(), key=lambda kv: -kv[1]):
                    say(f"  {name:<12} {unit} {value:.3f}")
            continue
        try:
            action = parse_input(word, view["legal"], session.info,
                                 why=(lambda name: why(session.game, session.seat, name)) if why else None)
        except ValueError as exc:
            say(str(exc))
            continue
        session.act(action)
        return session.view()


if __name__ == "__main__":
    sys.exit(main())
