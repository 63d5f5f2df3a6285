"""The layout the architecture promises (docs/architecture.md), checked on the source:

- outside the games' own folders (``redbeard_env/<game>/``, ``agents/<game>/``) and the
  registry, no module names a game: it imports no game's folder and holds no game's name
  as a string (docstrings and comments may mention games); so the family's home
  (``redbeard_env/family/``, ``agents/family/``), which its games share, is not a game;
- no game's folder imports another game's folder (what two games share has a home of its
  own);
- no module over 800 lines and no function over 100 lines outside the tests.

Two modules are allowed to name the first game, because SPEC §3 and §3b put its API
there: ``redbeard_env/__init__.py`` (``redbeard_env.env`` ...) and ``redbeard_env/vector.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from redbeard_env.registry import registered_games

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("redbeard_env", "agents", "redbeard_eval", "redbeard_train", "redbeard_web")
SPEC_HOMES = {"redbeard_env/__init__.py", "redbeard_env/vector.py", "redbeard_env/registry.py"}
GAMES = registered_games()


def sources(include_games: bool) -> list[Path]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    files += [ROOT / "train.py", ROOT / "evaluate.py"]
    if include_games:
        return files
    return [p for p in files if not (len(p.relative_to(ROOT).parts) > 2 and p.relative_to(ROOT).parts[1] in GAMES)]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def games_imported_by(tree: ast.AST) -> list[tuple[int, str, str]]:
    """The imports of a game's folder in a module: (line, the game, how it reads): absolute
    (``redbeard_env.<game>``, ``agents.<game>``) or relative (``..<game>`` from a sibling
    folder, or ``from .. import <game>``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            parts = module.split(".")
            if node.level == 0 and len(parts) > 1 and parts[0] in ("redbeard_env", "agents") and parts[1] in GAMES:
                found.append((node.lineno, parts[1], f"from {module} import ..."))
            if node.level > 0 and parts[0] in GAMES:
                found.append((node.lineno, parts[0], "relative import of a game's folder"))
            elif node.level > 0:
                found += [(node.lineno, a.name, "relative import of a game's folder") for a in node.names if a.name in GAMES]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if len(parts) > 1 and parts[0] in ("redbeard_env", "agents") and parts[1] in GAMES:
                    found.append((node.lineno, parts[1], f"import {alias.name}"))
    return found


def game_names_in(path: Path) -> list[str]:
    """What in ``path``'s code names a game: imports of a game's folder, a game's name as a
    string constant."""
    tree = ast.parse(path.read_text())
    docs = _docstrings(tree)
    found = [f"line {line}: {how}" for line, _, how in games_imported_by(tree)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value in GAMES or any(node.value.startswith(f"{g}_") for g in GAMES if g != "redbeard"):
                found.append(f"line {node.lineno}: the string {node.value!r}")
    return found


def test_no_module_outside_the_games_folders_names_a_game():
    offenders = {}
    for path in sources(include_games=False):
        rel = path.relative_to(ROOT).as_posix()
        if rel in SPEC_HOMES:
            continue
        found = game_names_in(path)
        if found:
            offenders[rel] = found
    assert not offenders, "modules that name a game:\n" + "\n".join(f"{k}: {v}" for k, v in offenders.items())


def test_the_scanner_finds_a_game_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""A docstring may say redbeard."""\nfrom redbeard_env.sortskaeg import env\nGAME = "redbeard"\n')
    assert [f.split(":")[0] for f in game_names_in(bad)] == ["line 2", "line 3"]


def test_no_game_folder_imports_another_games_folder():
    offenders = {}
    for path in sources(include_games=True):
        parts = path.relative_to(ROOT).parts
        if len(parts) > 2 and parts[1] in GAMES:
            found = [f"line {line}: {how}" for line, game, how in games_imported_by(ast.parse(path.read_text()))
                     if game != parts[1]]
            if found:
                offenders["/".join(parts)] = found
    assert not offenders, "game folders that import another game's folder:\n" + "\n".join(
        f"{k}: {v}" for k, v in offenders.items())


def test_the_scanner_finds_an_import_of_another_game():
    code = ("from ..sortskaeg.game import legal_bids\nfrom .. import oh_hell\nfrom . import cards\n"
            "from ..family import game\nimport agents.sortskaeg.pimc\n")
    assert [(line, game) for line, game, _ in games_imported_by(ast.parse(code))] == [
        (1, "sortskaeg"), (2, "oh_hell"), (5, "sortskaeg")]


@pytest.mark.parametrize("home", ["redbeard_env/family", "agents/family"])
def test_the_familys_home_is_no_game_and_names_none(home):
    """What the games of the family share lives in a folder that is not a game's: it is
    not registered, and like every shared module it names no game."""
    files = sorted((ROOT / home).glob("*.py"))
    assert files and home.split("/")[1] not in GAMES
    named = {p.name: game_names_in(p) for p in files if game_names_in(p)}
    assert not named, named


@pytest.mark.parametrize("limit,kind", [(800, "module"), (100, "function")])
def test_modules_and_functions_stay_short(limit, kind):
    long = []
    for path in sources(include_games=True):
        text = path.read_text()
        if kind == "module":
            if len(text.splitlines()) > limit:
                long.append(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not long, f"over {limit} lines:\n" + "\n".join(long)
