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


class KnockedOut(Script):
    """Input that calls Rödskägg at every chance (``r``, mostly lost: out of the game), then
    the first legal try; the question to watch or skip is answered from ``answers`` (the
    input sees the output, so it knows when that question is asked)."""

    QUESTION = "Watch them (w) or skip to the result (s)?"

    def __init__(self, shown, answers: list[str]):
        super().__init__([], ["r"] + Script.TRIES)
        self.shown, self.answers = shown, list(answers)

    def readline(self, *args):
        if self.answers and self.QUESTION in self.shown():  # once out, every read is for the question
            return self.answers.pop(0) + "\n"
        return super().readline()


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


def knocked_out(answers: list[str], monkeypatch, extra: list[str] = ()) -> tuple[int, str, list[int], dict]:
    """A classic game (seed 0) where you call Rödskägg, lose it and are out with many moves
    to come; the output, where in it each pause came, and the game's record."""
    import tempfile
    from pathlib import Path

    from redbeard_env.records import load_records

    out = io.StringIO()
    pauses: list[int] = []
    monkeypatch.setattr(terminal.time, "sleep", lambda s: pauses.append(len(out.getvalue())))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.jsonl"
        code = main(["--seed", "0", "--rules", "classic", "--pause", "0.5", "--record", str(path), *extra],
                    stdin=KnockedOut(out.getvalue, answers), stdout=out)
        records = load_records(path) if path.exists() else []
    return code, out.getvalue(), pauses, (records[0] if records else {})


MOVE = re.compile(r"^  (You|player_\d) ")


def test_once_out_you_may_skip_to_the_result(monkeypatch):
    code, text, pauses, record = knocked_out(["s"], monkeypatch)
    assert code == 0
    before, question, after = text.partition(KnockedOut.QUESTION)
    assert question, text[-1500:]
    assert "You are out of the game" in before.splitlines()[-1]
    assert re.search(r"^   You are out of the game$", before, re.M)  # the round's result says so
    assert pauses and max(pauses) < len(before)  # no wait after the answer
    moves = int(re.search(r"the bots play on to the end \((\d+) more moves\)", before).group(1))
    assert moves > 50
    lines = after.splitlines()
    assert lines[1] == f"> Skipped {moves} moves.", lines[:3]
    assert not [ln for ln in lines if MOVE.match(ln) or ln.startswith("==")]  # no move, no round result
    final = after.split("Final scores: ")[1].splitlines()[0]  # the result of the game played to its end
    assert record and final == ", ".join(f"{'You' if s == 0 else f'player_{s}'} {v}" for s, v in enumerate(record["scores"]))
    assert re.search(r"^player_\d \(heuristic\) wins the game\.$", after, re.M)


def test_once_out_you_may_watch_the_rest(monkeypatch):
    code, text, pauses, record = knocked_out(["x", "w"], monkeypatch)
    assert code == 0
    before, question, after = text.partition(KnockedOut.QUESTION)
    moves = int(re.search(r"the bots play on to the end \((\d+) more moves\)", before).group(1))
    assert "'x': type w to watch the rest, s to skip to the result" in after  # asked again
    shown = [ln for ln in after.splitlines() if re.match(r"^(> )?  player_\d ", ln)]
    assert len(shown) == moves  # every move, each with its pause
    assert len([p for p in pauses if p > len(before)]) == moves
    assert "Final scores: " in after and record


def test_quit_or_end_of_input_at_the_question_leaves(monkeypatch):
    for answers in (["q"], []):
        code, text, _, record = knocked_out(answers, monkeypatch)
        assert code == 0 and KnockedOut.QUESTION in text
        assert text.rstrip().endswith("Bye.") and "Final scores" not in text and not record


@pytest.mark.parametrize("game", redbeard_env.registered_games())
def test_the_question_comes_only_to_a_player_out_of_the_game(game, monkeypatch):
    """In every game, a whole game through main: asked exactly when the table shows your
    seat out of the game (inactive) with moves still to come; never in a game without
    eliminations. The game plays on to its end either way."""
    from test_terminal_games import Tries, players_of, short

    views = []
    real_view = GameSession.view
    monkeypatch.setattr(GameSession, "view", lambda self: views.append(real_view(self)) or views[-1])
    out = io.StringIO()
    code = main(["--game", game, "--players", str(players_of(game)), "--seat", "1", "--seed", "0"] + short(game),
                stdin=Tries(game, ["r"] * 40), stdout=out)
    text = out.getvalue()
    assert code == 0 and "Final scores: " in text
    out_with_moves_to_come = any(not next(p for p in ev["table"]["players"] if p["seat"] == 1)["active"]
                                 for v in views for ev in v["events"][:-1])
    assert text.count(KnockedOut.QUESTION) == int(out_with_moves_to_come)


def test_bot_names_in_full_through_the_terminal():
    code, text = run(["--rules", "fem_opp", "--seed", "3", "--opponents", "ppo:fem_opp_4p", "heuristic", "random"],
                     ["quit"])
    assert code == 0
    assert re.search(r"^  player_1 \(ppo:fem_opp_4p\) +12 ", text, re.M), text[:600]


LONG = "ppo:" + "a_very_long_policy_name_" * 3  # a spec longer than the widest name column


@pytest.mark.parametrize("game", redbeard_env.registered_games())
def test_the_table_shows_every_name_in_full_and_keeps_its_columns(game):
    """Names up to the column's widest fit on their row; a longer one wraps onto lines of
    its own under it; the score column stays aligned either way."""
    from redbeard_env.viewparts import NAME_COLUMN_MAX

    opts = parse_new_game({"game": game, "seed": 1, "seat": 0, "players": 4})
    session = GameSession("x", opts["rules"], 4, 0, opts["agents"], 1, BotPool())
    for agents in (["human", "ppo:fem_opp_4p", "heuristic", "random"], ["human", "ppo:fem_opp_4p", LONG, "random"]):
        lines = session.views.render_table(session.table(), 0, agents).splitlines()
        header = next(i for i, ln in enumerate(lines) if ln.startswith("  player "))
        word = next(w for w in ("score", "points") if w in lines[header])
        end = lines[header].index(word) + len(word)  # where the right-aligned score column ends
        width = end - len(word) - 1 - 2  # of the name column (the score's column is one wider than its word)
        assert 22 <= width <= NAME_COLUMN_MAX
        names: dict[int, str] = {}
        for ln in lines[header + 1:]:
            if not ln.startswith("    "):  # a seat's row: its name, then the score right-aligned
                row = re.match(r"^  (You|player_(\d))\b", ln)
                if not row:
                    break
                assert re.match(r" *-?\d+$", ln[2 + width:end]) and ln[end] == " ", (ln, width)
                seat = int(row.group(2) or 0)
                names[seat] = ln[2:2 + width]
            else:  # a long name goes on under its row
                names[seat] += ln
        assert sorted(names) == [0, 1, 2, 3]
        for seat, agent in enumerate(agents[1:], start=1):
            assert names[seat].replace(" ", "") == f"player_{seat}({agent})", names[seat]
