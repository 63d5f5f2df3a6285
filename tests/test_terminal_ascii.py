"""``redbeard-play --ascii`` prints ASCII only: whole games of every registered game (every
rule sheet) through the terminal's main, with help, hints, the table, a typed accent and
the question after an elimination, and every symbol the views can write has an ASCII form."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

import redbeard_env
from redbeard_env.viewparts import ASCII
from redbeard_web import terminal
from redbeard_web.terminal import main, plain

from test_terminal_games import Tries, players_of, short
from test_terminal_table import KnockedOut

ROOT = Path(__file__).resolve().parents[1]
SHEETS = [(game, rules) for game in redbeard_env.registered_games()
          for rules in sorted(redbeard_env.game_named(game).presets)]


def utf8_out() -> io.TextIOWrapper:
    """An output that takes any character (so ``--ascii`` is not switched on by its encoding)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)


def written(out: io.TextIOWrapper) -> bytes:
    out.flush()
    return out.buffer.getvalue()


@pytest.mark.parametrize("game,rules", SHEETS)
def test_a_whole_game_in_ascii_prints_only_ascii(game, rules):
    out = utf8_out()
    first = ["help", "hint", "hint random", "table", "héllo", "spëcial ≥"]
    code = main(["--game", game, "--rules", rules, "--players", str(players_of(game)), "--seat", "1",
                 "--seed", "3", "--ascii"] + short(game), stdin=Tries(game, first), stdout=out)
    data = written(out)
    assert code == 0, data[-2000:]
    assert b"Final scores: " in data  # played to the end
    bad = sorted({chr(b) for b in data if b > 127})
    assert all(b < 128 for b in data), (bad, [line for line in data.decode().splitlines() if not line.isascii()][:5])


def test_the_question_after_an_elimination_is_ascii():
    out = utf8_out()
    code = main(["--seed", "0", "--rules", "classic", "--ascii"],
                stdin=KnockedOut(lambda: written(out).decode(), ["watch?", "w"]), stdout=out)
    data = written(out)
    assert code == 0 and KnockedOut.QUESTION.encode() in data and all(b < 128 for b in data)


def _texts(path: Path) -> set[str]:
    """The non-ASCII characters of a module's string literals (not its docstrings)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return {ch for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs for ch in node.value if not ch.isascii()}


def test_every_symbol_the_views_write_has_an_ascii_form():
    """Every non-ASCII character in the texts of the games (views, stakes, titles, error
    messages) and of the terminal is in the ASCII table, so ``--ascii`` writes ``>=`` for
    ≥ rather than a ``?``."""
    modules = sorted((ROOT / "redbeard_env").rglob("*.py")) + [ROOT / "redbeard_web" / f"{m}.py"
                                                               for m in ("terminal", "session", "bots")]
    missing = {f"{ch!r} in {path.relative_to(ROOT)}" for path in modules for ch in _texts(path) if ord(ch) not in ASCII}
    assert not missing, sorted(missing)


def test_plain_text():
    assert plain("7♣ → 5 ≥ 1 × 2 — Rödskägg, Sortskæg") == "7C -> 5 >= 1 x 2 - Rodskagg, Sortskaeg"
    assert plain("héllo ✓") == "hello ?"  # typed text loses its accents; no ASCII form at all: "?"
    assert plain("plain") == "plain"


def test_ascii_is_automatic_where_the_output_cannot_show_the_symbols():
    """An output whose encoding lacks a symbol the views write gets the ASCII forms."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="latin-1", write_through=True)  # has ö, ×; not ♠ or ≥
    assert terminal._plain_only(out)
    assert main(["--game", "sortskaeg", "--seed", "1"], stdin=io.StringIO("quit\n"), stdout=out) == 0
    assert all(b < 128 for b in written(out))
    assert not terminal._plain_only(utf8_out())


@pytest.mark.parametrize("game", redbeard_env.registered_games())
def test_the_help_of_the_command_is_ascii(game):
    assert terminal.build_parser(game).format_help().isascii()
