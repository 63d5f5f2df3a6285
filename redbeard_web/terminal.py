"""``redbeard-play``: any registered game against the bots in a terminal.

    redbeard-play                                   # Rödskägg, classic, 4 players, you in seat 0, heuristic bots
    redbeard-play --rules fem_opp --players 5 --seat 2 --opponents ppo:classic_4p --seed 7
    redbeard-play --set start_score=6 --record my_games.jsonl
    redbeard-play --game sortskaeg --players 3 --set deal=carry

After every move the table is printed (scores, calls or bids, tricks, the current trick,
your hand). At your turn type an action: its full name (``play:AS``, ``bid:3``, ``pass``) or a
short form -- a card (``AS``, ``10d``, ``y10``), a bid number (``3``), the game's short
words (Rödskägg: ``p`` pass, ``r`` Rödskägg, ``k``/``t`` keep or throw in, ``y``/``n`` look or
not, ``a``/``s`` ask or skip, ``j``/``f`` join or fold), or any unambiguous start of a legal
action's name. Also ``help``, ``hint [bot]``, ``table`` and ``quit``.

The table is drawn by the game's views module (the registry's ``Game.views``) from the same
view the web page gets, so it shows only what you may know. With ``--record FILE`` the
finished game is appended to a JSON-lines records file (:mod:`redbeard_env.records`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from redbeard_env.common import parse_overrides
from redbeard_env.records import append_records
from redbeard_env.registry import Game, game_named, registered_games

from .session import BotPool, GameSession, parse_new_game, views_of


def _game(game: "str | Game | None") -> Game:
    if isinstance(game, Game):
        return game
    return game_named(game or registered_games()[0])


def parse_input(text: str, legal: list[str], game: "str | Game | None" = None) -> str:
    """The legal action a typed line means in ``game`` (default: the first registered
    game); ``ValueError`` explaining why not."""
    info = _game(game)
    short = views_of(info).SHORT
    word = text.strip().lower()
    if not word:
        raise ValueError("type an action (or help)")
    candidates: list[str] = []
    if word in short:
        candidates = [short[word]]
    elif word.isdigit():
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
        raise ValueError(f"{chosen} is not allowed now; legal: {', '.join(legal)}")
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


def _effects_text(effects: list[dict]) -> str:
    return "; ".join(e["text"] for e in effects if e.get("text"))


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
                   help=f"the game (default {registered_games()[0]})")
    p.add_argument("--rules", default=info.default_rules, choices=sorted(info.presets),
                   help=f"rule sheet of the game (default {info.default_rules})")
    p.add_argument("--players", type=int, default=min(max(4, lo), hi), help=f"{lo}..{hi} (default {min(max(4, lo), hi)})")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="bot spec for the other seats (one, or one per other seat), e.g. heuristic or ppo:<policy>")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random)")
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="rules overrides, e.g. start_score=6")
    p.add_argument("--record", default=None, metavar="FILE", help="append the finished game's record to FILE")
    return p


def _which_game(argv: list[str] | None) -> str:
    """The ``--game`` of a command line (the other options' choices depend on it)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default=registered_games()[0], choices=list(registered_games()))
    known, _ = pre.parse_known_args(argv)
    return known.game


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser(_which_game(argv)).parse_args(argv)
    info = game_named(args.game)
    views = views_of(info)
    out = stdout or sys.stdout
    inp = stdin or sys.stdin

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    try:
        opponents = args.opponents[0] if len(args.opponents) == 1 else list(args.opponents)
        opts = parse_new_game({"game": info.name, "rules": args.rules, "players": args.players, "seat": args.seat,
                               "opponents": opponents, "seed": args.seed,
                               "overrides": parse_overrides(args.set)})
        session = GameSession("terminal", opts["rules"], opts["players"], opts["seat"], opts["agents"],
                              opts["seed"], BotPool(), app="redbeard-play")
        session.run_bots()
    except ValueError as exc:
        say(f"redbeard-play: {exc}")
        return 2
    you = session.seat
    say(f"{info.title}, sheet {args.rules}, {opts['players']} players; you are seat {you}. Type help for help.")
    view = session.view()
    while True:
        for ev in view["events"]:
            effects = _effects_text(ev["effects"])
            say(f"* {ev['text']}" + (f"  [{effects}]" if effects else ""))
            say(views.render_table(ev["table"], you, view["agents"]))
        if view["finished"]:
            break
        if not view["events"]:  # otherwise the last move's table is the current one
            say(views.render_table(view["table"], you, view["agents"]))
        say(views.question(session.game, you, keys=True))
        say("legal: " + ", ".join(view["legal"]))
        view = _prompt(session, view, inp, out)
        if view is None:
            say("Bye.")
            return 0
    say(_outcome(view, you))
    say("Final scores: " + ", ".join(f"{views.seat_label(s, you)} {score}" for s, score in enumerate(view["scores"])))
    if args.record:
        append_records(args.record, [session.record()])
        say(f"The game's record was appended to {args.record}.")
    return 0


def _prompt(session: GameSession, view: dict, inp: TextIO, out: TextIO) -> dict | None:
    """Read lines until one is a legal action (then apply it and return the new view);
    None on quit or end of input."""

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    while True:
        out.write("> ")
        out.flush()
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
            say(session.views.render_table(view["table"], session.seat, view["agents"]))
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
            action = parse_input(word, view["legal"], session.info)
        except ValueError as exc:
            say(str(exc))
            continue
        session.act(action)
        return session.view()


if __name__ == "__main__":
    sys.exit(main())
