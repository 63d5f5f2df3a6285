"""``redbeard-play`` driven by scripted input."""

from __future__ import annotations

import io
import itertools
import re
import subprocess
import sys

import pytest

from redbeard_env.redbeard import records as R
from redbeard_env.redbeard.cards import card_name
from redbeard_web.session import BotPool, GameSession, parse_new_game
from redbeard_web.terminal import main, parse_input

LEGAL_BID = ["pass", "bid:1", "bid:2", "redbeard"]
LEGAL_PLAY = ["play:TD", "play:AS", "play:2C"]


@pytest.mark.parametrize("typed,expected,legal", [
    ("AS", "play:AS", LEGAL_PLAY),
    ("as", "play:AS", LEGAL_PLAY),
    ("10d", "play:TD", LEGAL_PLAY),
    ("play:10D", "play:TD", LEGAL_PLAY),
    (" play:2c ", "play:2C", LEGAL_PLAY),
    ("2", "bid:2", LEGAL_BID),
    ("bid:1", "bid:1", LEGAL_BID),
    ("p", "pass", LEGAL_BID),
    ("PASS", "pass", LEGAL_BID),
    ("r", "redbeard", LEGAL_BID),
    ("red", "redbeard", LEGAL_BID),  # an unambiguous start of a legal name
    ("k", "keep", ["keep", "redeal"]),
    ("t", "redeal", ["keep", "redeal"]),
    ("y", "look", ["look", "no_look"]),
    ("n", "no_look", ["look", "no_look"]),
    ("no", "no_look", ["look", "no_look"]),
    ("a", "ask", ["ask", "skip"]),
    ("s", "skip", ["ask", "skip"]),
    ("j", "join", ["join", "fold"]),
    ("f", "fold", ["join", "fold"]),
])
def test_short_forms(typed, expected, legal):
    assert parse_input(typed, legal) == expected


@pytest.mark.parametrize("typed,legal,message", [
    ("KS", LEGAL_PLAY, "play:KS is not allowed now"),
    ("5", LEGAL_BID, "bid:5 is not allowed"),
    ("xyz", LEGAL_BID, "is not an action"),
    ("", LEGAL_BID, "type an action"),
    ("bid", LEGAL_BID, "could be bid:1, bid:2"),
    ("p", ["keep", "redeal"], "pass is not allowed"),
])
def test_bad_input_is_explained(typed, legal, message):
    with pytest.raises(ValueError, match=message):
        parse_input(typed, legal)


class Script(io.StringIO):
    """Input: some fixed lines, then an endless round of tries (most of them illegal at
    any moment; the game re-prompts, so some legal one always comes)."""

    TRIES = ["k", "n", "1", "2", "p", "a", "j"] + [r + s for s in "CDHS" for r in "23456789TJQKA"]
    LIMIT = 200_000  # lines read before a safety stop: the game should have ended long before

    def __init__(self, first: list[str], tries: list[str] | None = None):
        super().__init__()
        self.lines = itertools.chain(first, itertools.cycle(tries or self.TRIES))
        self.read_lines = 0

    def readline(self, *args):
        self.read_lines += 1
        if self.read_lines > self.LIMIT:
            return ""
        return next(self.lines) + "\n"


def test_a_full_game_from_scripted_input(tmp_path):
    path = tmp_path / "games.jsonl"
    out = io.StringIO()
    code = main(["--rules", "fem_opp", "--players", "4", "--seat", "1", "--seed", "3", "--set", "start_score=4",
                 "--record", str(path)], stdin=Script(["help", "hint", "hint random", "hint ppo:/etc/x", "table",
                                                       "xyz"]), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "Type an action at the prompt" in text  # help
    assert "heuristic would choose" in text and "random would choose" in text  # hints
    assert "hint: no PPO checkpoint '/etc/x': not a file" in text  # a path that is no policy is refused
    assert "'xyz' is not an action" in text
    assert "your hand:" in text and "player_0 (heuristic)" in text  # the table
    assert "Final scores:" in text and ("You win!" in text or "wins the game" in text or "round limit" in text)
    (record,) = R.load_records(path)  # written, and it replays exactly
    assert record["agents"][1] == "human" and record["seed"] == 3
    assert record["meta"]["app"] == "redbeard-play"
    # the final line of scores is the record's
    final = text.split("Final scores: ")[1].splitlines()[0]
    assert final == ", ".join(f"{'You' if s == 1 else f'player_{s}'} {v}" for s, v in enumerate(record["scores"]))


def test_quit_and_end_of_input_leave_quietly(tmp_path):
    path = tmp_path / "none.jsonl"
    out = io.StringIO()
    assert main(["--seed", "1", "--record", str(path)], stdin=io.StringIO("quit\n"), stdout=out) == 0
    assert out.getvalue().rstrip().endswith("Bye.") and not path.exists()
    out = io.StringIO()
    assert main(["--seed", "1"], stdin=io.StringIO(""), stdout=out) == 0
    assert "Bye." in out.getvalue()


def test_only_known_cards_are_printed():
    """Before any card is played the output names no card, and the hand line shows
    exactly the player's own hand (never another seat's)."""
    out = io.StringIO()
    main(["--seed", "5", "--seat", "0"], stdin=io.StringIO("quit\n"), stdout=out)
    text = out.getvalue()
    assert not re.findall(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[CDHS♣♦♥♠](?![A-Za-z0-9])", text)
    opts = parse_new_game({"seed": 5, "seat": 0})
    game = GameSession("x", opts["rules"], 4, 0, opts["agents"], 5, BotPool()).game  # the same deal
    hand_line = [line for line in text.splitlines() if "your hand:" in line][-1]
    letter = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
    shown = {("T" if rank == "10" else rank) + letter[suit]
             for group in hand_line.split("your hand:")[1].split("   ")
             for suit, ranks in [group.strip().split(": ")] for rank in ranks.split()}
    assert shown == {card_name(c) for c in game.hands[0]}


def test_bad_options_exit_with_a_message():
    out = io.StringIO()
    assert main(["--players", "9"], stdin=io.StringIO(""), stdout=out) == 2
    assert "players must be an int in 3..7" in out.getvalue()
    out = io.StringIO()
    assert main(["--set", "colour=red"], stdin=io.StringIO(""), stdout=out) == 2
    assert "colour" in out.getvalue()


def test_console_entry_point_runs():
    p = subprocess.run([sys.executable, "-m", "redbeard_web.terminal", "--seed", "2"], input="help\nquit\n",
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Type an action" in p.stdout and "Bye." in p.stdout
