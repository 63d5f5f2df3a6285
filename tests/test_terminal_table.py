"""``redbeard-play`` as a card table in a terminal: suit symbols (and ``--ascii``), bot moves
one line each with ``--pause``, each round's result with every score change and its reason,
illegal moves explained, digits read by phase, the stakes before each question, and Ctrl-C
or the end of input leaving without a traceback."""

from __future__ import annotations

import io
import re

import pytest

import redbeard_env
from redbeard_web import terminal
from redbeard_web.session import BotPool, GameSession, parse_new_game
from redbeard_web.terminal import main, parse_input

from test_terminal import Script


def run(args: list[str], lines: list[str] | None = None) -> tuple[int, str]:
    out = io.StringIO()
    code = main(args, stdin=Script(lines or []), stdout=out)
    return code, out.getvalue()


def test_suit_symbols_by_default_and_plain_ascii_on_request():
    code, text = run(["--rules", "fem_opp", "--seed", "3", "--set", "start_score=3"])
    assert code == 0
    assert re.search(r"(?:10|[2-9JQKA])[♣♦♥♠]", text)  # "4♦", not "4D"
    assert not re.search(r"plays (?:10|[2-9TJQKA])[CDHS]\b", text)
    code, plain = run(["--rules", "fem_opp", "--seed", "3", "--set", "start_score=3", "--ascii"])
    assert code == 0 and plain.isascii()
    assert re.search(r"plays (?:10|[2-9JQKA])[CDHS]\b", plain)


def test_bot_moves_one_line_each_and_the_rounds_results_with_every_change():
    code, text = run(["--rules", "fem_opp", "--seed", "3", "--set", "start_score=3", "--opponents", "random"])
    assert code == 0
    lines = text.splitlines()
    moves = [ln for ln in lines if re.match(r"^  player_\d (plays|bids|passes|keeps|throws|looks|does|joins|folds|asks|skips)", ln)]
    assert len(moves) > 20
    # between two bot moves of the same trick no table is drawn
    first = lines.index(moves[0])
    assert lines[first + 1].startswith(("  player_", "==", "Round", "> ", "  You")), lines[first + 1]
    # each round's result: a headline, then one line per player whose score changed, with reasons
    heads = [i for i, ln in enumerate(lines) if ln.startswith("== Round")]
    assert heads
    changes = lines[heads[0] + 1]
    assert re.match(r"^   (You|player_\d): -?\d+ → -?\d+ \(.+\)$", changes), changes
    reasons = " ".join(ln for ln in lines if ln.startswith("   ") and "→" in ln)
    assert "trick" in reasons and ("look" in reasons or "joined" in reasons or "contract" in reasons), reasons


def test_stakes_come_before_each_question():
    code, text = run(["--rules", "fem_opp", "--seed", "3", "--set", "start_score=3"], ["quit"])
    question = text.index("Keep your hand, or throw it in for a new one?")
    stakes = text[question:].splitlines()[1:4]
    assert all(s.startswith("  · ") for s in stakes), stakes
    assert "Throw in" in text and "+5" in text


def test_illegal_moves_are_explained():
    """A card of another suit while holding the led one: "you must follow ♣: ..."."""
    for seed in range(40):
        opts = parse_new_game({"rules": "classic", "seed": seed, "seat": 0, "opponents": "heuristic"})
        session = GameSession("x", opts["rules"], 4, 0, opts["agents"], seed, BotPool())
        session.run_bots()
        g = session.game
        while not g.game_over:
            if g.phase == "play" and g.trick:
                led = g.trick[0][1] // 13
                off = [c for c in g.hands[0] if c // 13 != led]
                if off and any(c // 13 == led for c in g.hands[0]):
                    name = "play:" + redbeard_env.game_named("redbeard").card_name(off[0])
                    with pytest.raises(ValueError, match=r"is not allowed now: you must follow [♣♦♥♠]: "):
                        parse_input(name[5:], session.legal_names(), session.info,
                                    why=lambda n: session.views.why_illegal(g, 0, n))
                    return
            session.act(session.legal_names()[0])
    raise AssertionError("no position to test")


def test_digits_are_read_by_phase():
    with pytest.raises(ValueError, match="no bid is asked now"):
        parse_input("5", ["play:5C", "play:AS"])
    assert parse_input("5c", ["play:5C", "play:AS"]) == "play:5C"
    assert parse_input("5", ["pass", "bid:5"]) == "bid:5"


def test_a_pause_after_each_bot_move(monkeypatch):
    waits = []
    monkeypatch.setattr(terminal.time, "sleep", lambda s: waits.append(s))
    code, _ = run(["--seed", "4", "--pause", "0.25", "--set", "start_score=3"])
    assert code == 0 and waits and set(waits) == {0.25}


class Interrupted(io.StringIO):
    """Input that is interrupted (Ctrl-C) at the first read."""

    def readline(self, *args):
        raise KeyboardInterrupt


def test_ctrl_c_and_end_of_input_leave_without_a_traceback():
    out = io.StringIO()
    assert main(["--seed", "1"], stdin=Interrupted(), stdout=out) == 130
    assert out.getvalue().rstrip().endswith("Bye.") and "Traceback" not in out.getvalue()
    out = io.StringIO()
    assert main(["--game", "sortskaeg", "--seed", "1"], stdin=io.StringIO(""), stdout=out) == 0
    assert out.getvalue().rstrip().endswith("Bye.")


@pytest.mark.parametrize("game", redbeard_env.registered_games())
def test_every_game_explains_its_illegal_cards(game):
    """The views of every game say why a card is not allowed (not held, or not following)."""
    info = redbeard_env.game_named(game)
    opts = parse_new_game({"game": game, "seed": 2, "seat": 0})
    session = GameSession("x", opts["rules"], opts["players"], 0, opts["agents"], 2, BotPool())
    session.run_bots()
    while session.game.phase not in ("play", "duel"):
        session.act(session.legal_names()[0])
    held = set(session.views.hand(session.game, 0))
    missing = next(info.card_name(c) for c in range(info.parts.cards.NUM_CARDS) if info.card_name(c) not in held)
    reason = session.views.why_illegal(session.game, 0, f"play:{missing}")
    assert reason.startswith("you do not hold")
