"""The layout the architecture promises (docs/architecture.md), checked on the source:

- outside the games' own folders (``redbeard_env/<game>/``, ``agents/<game>/``) and the
  registry, no module names a game: it imports no game's folder and holds no game's name
  as a string (docstrings and comments may mention games);
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


def game_names_in(path: Path) -> list[str]:
    """What in ``path``'s code names a game: imports of a game's folder, a game's name as a
    string constant."""
    tree = ast.parse(path.read_text())
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            parts = module.split(".")
            if node.level == 0 and len(parts) > 1 and parts[0] in ("redbeard_env", "agents") and parts[1] in GAMES:
                found.append(f"line {node.lineno}: from {module} import ...")
            if node.level > 0 and (parts[0] in GAMES or any(a.name in GAMES for a in node.names)):
                found.append(f"line {node.lineno}: relative import of a game's folder")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if len(parts) > 1 and parts[0] in ("redbeard_env", "agents") and parts[1] in GAMES:
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
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
