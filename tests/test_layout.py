"""The layout the architecture promises (docs/architecture.md), checked on the source:

- outside the games' own folders (``redbeard_env/<game>/``, ``agents/<game>/``) and the
  registry, no module names a game: it imports no game's folder and holds no game's name
  as a string (docstrings and comments may mention games); so the family's home
  (``redbeard_env/family/``, ``agents/family/``), which its games share, is not a game;
- no game's folder imports another game's folder (what two games share has a home of its
  own);
- no module over 800 lines and no function over 100 lines outside the tests;
- no import cycle between modules, imports inside functions included (a package's
  ``__init__`` and its own submodules aside: that is one package);
- no ``registered_games()[0]``: the game of a call that names none is
  ``redbeard_env.registry.as_game(None)``, read in one named place (``LEGACY_GAME``);
- no block of six or more code lines repeated between modules (imports, comments and
  lines of three characters or fewer aside), nor between the test modules.

Two modules are allowed to name the first game, because SPEC §3 and §3b put its API
there: ``redbeard_env/__init__.py`` (``redbeard_env.env`` ...) and ``redbeard_env/vector.py``.
"""

from __future__ import annotations

import ast
import collections
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


# ---------------------------------------------------------------- imports as a graph
def module_names() -> dict[str, Path]:
    names = {}
    for path in sources(include_games=True):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts)
        names[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its code (inside functions too), a
    package and its own submodules aside."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        out |= {t for t in targets if t in modules and t != name
                and not name.startswith(t + ".") and not t.startswith(name + ".")}
    return out


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_import_cycle_between_modules():
    modules = module_names()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert not import_cycles(graph), import_cycles(graph)


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_takes_the_first_registered_game_as_a_default():
    found = [f"{p.relative_to(ROOT)}:{i}" for p in sources(include_games=True)
             for i, line in enumerate(p.read_text().splitlines(), 1) if "registered_games()[0]" in line]
    assert not found, found


# ---------------------------------------------------------------- repeated blocks
BLOCK = 6


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped text) of the lines that count towards a repeated block:
    not blank, a comment, an import (a parenthesised import list included) or three
    characters or fewer."""
    out, in_import = [], False
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if in_import:
            in_import = not s.endswith(")")
            continue
        if s.startswith(("import ", "from ")):
            in_import = s.endswith("(")
            continue
        if len(s) > 3 and not s.startswith("#"):
            out.append((number, s))
    return out


def repeated_blocks(texts: dict[str, str]) -> dict[tuple[str, str], int]:
    """Pairs of modules sharing a block of ``BLOCK`` code lines: the first line of the
    first such block in the first module."""
    seen = collections.defaultdict(set)
    first = {}
    for name, text in texts.items():
        lines = code_lines(text)
        for k in range(len(lines) - BLOCK + 1):
            key = tuple(s for _, s in lines[k:k + BLOCK])
            seen[key].add(name)
            first.setdefault((key, name), lines[k][0])
    pairs = {}
    for key, names in seen.items():
        names = sorted(names)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                pairs.setdefault((a, b), first[key, a])
    return pairs


def test_no_block_of_six_lines_repeats_between_modules():
    texts = {str(p.relative_to(ROOT)): p.read_text() for p in sources(include_games=True)}
    pairs = repeated_blocks(texts)
    assert not pairs, "modules repeating a block of six lines:\n" + "\n".join(
        f"{a}:{line} and {b}" for (a, b), line in sorted(pairs.items()))


def test_no_block_of_six_lines_repeats_between_test_modules():
    """What tests share (a game-independent runner, fixtures, scripted hands) lives in a
    helper module under tests/, not in copies."""
    texts = {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "tests").rglob("*.py")}
    pairs = repeated_blocks(texts)
    assert not pairs, "test modules repeating a block of six lines:\n" + "\n".join(
        f"{a}:{line} and {b}" for (a, b), line in sorted(pairs.items()))


def test_the_block_finder_finds_a_copy_and_passes_imports():
    body = "".join(f"    total = total + value_{i} * weight_{i}\n" for i in range(BLOCK))
    imports = "from x import (\n    alpha,\n    beta,\n    gamma,\n    delta,\n    epsilon,\n    zeta,\n)\n"
    assert repeated_blocks({"a.py": "def f():\n" + body, "b.py": "x = 1\n\n" + body}) == {("a.py", "b.py"): 2}
    assert repeated_blocks({"a.py": imports, "b.py": imports}) == {}
    assert repeated_blocks({"a.py": body[: body.rindex("    total")], "b.py": body}) == {}
