"""``redbeard-play``: Rödskägg against the bots in a terminal.

    redbeard-play                                   # classic, 4 players, you in seat 0, heuristic bots
    redbeard-play --rules fem_opp --players 5 --seat 2 --opponents ppo:classic_4p --seed 7
    redbeard-play --set start_score=6 --record my_games.jsonl

After every move the table is printed (scores, calls, tricks, the current trick, your
hand). At your turn type an action: its full name (``play:AS``, ``bid:3``, ``pass``) or a
short form -- a card (``AS``, ``10d``), a bid number (``3``), ``p`` pass, ``r`` Rödskägg,
``k``/``t`` keep or throw in, ``y``/``n`` look or not, ``a``/``s`` ask or skip, ``j``/``f``
join or fold, or any unambiguous start of a legal action's name. Also ``help``,
``hint [bot]``, ``table`` and ``quit``.

The table is drawn from the same view the web page gets, so it shows only what you may
know. With ``--record FILE`` the finished game is appended to a JSON-lines records file
(:mod:`redbeard_env.redbeard.records`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from redbeard_env.redbeard.cards import action_id, action_name
from redbeard_env.records import append_records
from redbeard_env.redbeard.rules import PRESETS, parse_overrides

from .session import BotPool, GameSession, parse_new_game, seat_label

SHORT = {
    "p": "pass", "r": "redbeard", "rb": "redbeard", "rödskägg": "redbeard", "rodskagg": "redbeard",
    "k": "keep", "t": "redeal", "throw": "redeal", "rd": "redeal", "y": "look", "yes": "look", "n": "no_look",
    "no": "no_look", "a": "ask", "s": "skip", "j": "join", "f": "fold",
}
HELP = """Type an action at the prompt:
  a card to play:  AS  10d  play:QH          a bid:  3  bid:3  p (pass)  r (Rödskägg)
  k / t  keep the hand / throw it in         y / n  look at a thrown-in hand or not
  a / s  ask who joins / skip the question   j / f  join / fold
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


def parse_input(text: str, legal: list[str]) -> str:
    """The legal action a typed line means; ``ValueError`` explaining why not."""
    word = text.strip().lower()
    if not word:
        raise ValueError("type an action (or help)")
    candidates: list[str] = []
    if word in SHORT:
        candidates = [SHORT[word]]
    elif word.isdigit():
        candidates = [f"bid:{word}"]
    else:
        for form in (word, "play:" + word):
            try:
                aid = action_id(form)
            except ValueError:
                continue
            candidates = [name for name in legal if action_id(name) == aid] or [action_name(aid)]
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


def _cards_by_suit(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(c[1], []).append("10" if c[0] == "T" else c[0])
    return "   ".join(f"{suit}: {' '.join(ranks)}" for suit, ranks in groups.items()) or "(none)"


def _call_text(call: str | None) -> str:
    if call is None:
        return "-"
    return {"pass": "pass", "redbeard": "Rödskägg"}.get(call, call.replace("bid:", "bid "))


def render_table(table: dict, you: int, agents: list[str]) -> str:
    """The public table and your hand as text."""
    head = [f"Round {table['round']}", f"dealer {seat_label(table['dealer'], you)}"]
    if table["declarer"] is not None:
        head.append(f"declarer {seat_label(table['declarer'], you)} ({_call_text(table['high_bid'])})")
    if table["phase"] == "duel":
        head.append("duel")
    head.append(f"stock {table['stock_size']}")
    lines = [" · ".join(head), f"  {'player':<22}{'score':>6}  {'call':<10}{'tricks':>6}  "]
    for p in table["players"]:
        name = p["name"] + ("" if agents[p["seat"]] == "human" else f" ({agents[p['seat']]})")
        marks = []
        if p["dealer"]:
            marks.append("dealer")
        if p["declarer"]:
            marks.append("declarer")
        if not p["active"]:
            marks.append("out of the game")
        elif not p["in_round"]:
            marks.append("folded")
        if p["joiner"]:
            marks.append("joined")
        if p["to_act"]:
            marks.append("<- to act")
        if p["winner"]:
            marks.append("WINNER")
        lines.append(f"  {name[:22]:<22}{p['score']:>6}  {_call_text(p['call']):<10}{p['tricks']:>6}  {' '.join(marks)}")
    if table["trick"]:
        lines.append("  trick: " + "  ".join(f"{seat_label(t['seat'], you)} {t['card']}" for t in table["trick"]))
    elif table["last_trick"]:
        last = table["last_trick"]
        lines.append("  last trick: " + "  ".join(f"{seat_label(t['seat'], you)} {t['card']}" for t in last["cards"])
                     + f"  -> {seat_label(last['winner'], you)}")
    lines.append(f"  your hand: {_cards_by_suit(table['your_hand'])}")
    return "\n".join(lines)


def _effects_text(effects: list[dict], you: int) -> str:
    notes = []
    for e in effects:
        if e["type"] == "score":
            notes.append(f"{seat_label(e['seat'], you)} {e['delta']:+d} ({e['reason']})")
        elif e["type"] == "trick":
            notes.append(f"{seat_label(e['winner'], you)} took the trick")
        elif e["type"] == "round_end":
            notes.append(f"round {e['round']} is over")
        elif e["type"] == "eliminated":
            notes.append(f"{seat_label(e['seat'], you)} is out of the game")
        elif e["type"] == "duel":
            notes.append("duel between " + " and ".join(seat_label(s, you) for s in e["seats"]))
        elif e["type"] == "winner":
            notes.append(f"{seat_label(e['seat'], you)} won the game")
        elif e["type"] == "truncated":
            notes.append("the round limit is reached")
        elif e["type"] == "deal":
            notes.append("new duel deal" if e["kind"] == "duel" else f"new deal, dealer {seat_label(e['dealer'], you)}")
    return "; ".join(notes)


def question(view: dict) -> str:
    t = view["table"]
    return {
        "redeal": "Your hand has no face card. Keep it (k) or throw it in (t)?",
        "look": f"player_{t['thrower']} threw in a hand. Look at it (y/n)? No face card in it: +5 for you; else +5 for them.",
        "bid": f"Your call (highest so far: {_call_text(t['high_bid']) if t['high_bid'] else 'none'}).",
        "ask": "You are the declarer: ask who joins (a) or skip the question (s)?",
        "join": "Join the last tricks (j) or fold (f)?",
    }.get(view["phase"], "Your card." if t["trick"] else "Your lead.")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="redbeard-play", description="Play Rödskägg against the bots in a terminal.")
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS), help="rule sheet (default classic)")
    p.add_argument("--players", type=int, default=4, help="3..7 (default 4)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="bot spec for the other seats (one, or one per other seat), e.g. ppo:classic_4p")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random)")
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE", help="rules overrides, e.g. start_score=6")
    p.add_argument("--record", default=None, metavar="FILE", help="append the finished game's record to FILE")
    return p


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = stdout or sys.stdout
    inp = stdin or sys.stdin

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    try:
        opponents = args.opponents[0] if len(args.opponents) == 1 else list(args.opponents)
        opts = parse_new_game({"rules": args.rules, "players": args.players, "seat": args.seat,
                               "opponents": opponents, "seed": args.seed, "overrides": parse_overrides(args.set)})
        session = GameSession("terminal", opts["rules"], opts["players"], opts["seat"], opts["agents"],
                              opts["seed"], BotPool(), app="redbeard-play")
        session.run_bots()
    except ValueError as exc:
        say(f"redbeard-play: {exc}")
        return 2
    you = session.seat
    say(f"Rödskägg, sheet {args.rules}, {opts['players']} players; you are seat {you}. Type help for help.")
    view = session.view()
    while True:
        for ev in view["events"]:
            line = f"* {ev['text']}"
            effects = _effects_text(ev["effects"], you)
            say(line + (f"  [{effects}]" if effects else ""))
            say(render_table(ev["table"], you, view["agents"]))
        if view["finished"]:
            break
        if not view["events"]:  # otherwise the last move's table is the current one
            say(render_table(view["table"], you, view["agents"]))
        say(question(view))
        say("legal: " + ", ".join(view["legal"]))
        view = _prompt(session, view, inp, out)
        if view is None:
            say("Bye.")
            return 0
    if view["truncated"]:
        say("The game reached its round limit without a winner.")
    else:
        winner = view["winner"]
        say("You win!" if winner == you else f"player_{winner} ({view['agents'][winner]}) wins the game.")
    say("Final scores: " + ", ".join(f"{seat_label(s, you)} {score}" for s, score in enumerate(view["scores"])))
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
            say(HELP)
            say("legal now: " + ", ".join(view["legal"]))
            continue
        if command and command[0] == "table":
            say(render_table(view["table"], session.seat, view["agents"]))
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
            action = parse_input(word, view["legal"])
        except ValueError as exc:
            say(str(exc))
            continue
        session.act(action)
        return session.view()


if __name__ == "__main__":
    sys.exit(main())
