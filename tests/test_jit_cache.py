"""``redbeard_env.jit_cache``: the on-disk cache of a compiled function that calls compiled
functions of another file goes stale when that other file changes (numba alone would
keep running the old code), and stays valid while nothing changes.

Two throwaway modules in a temporary directory, each run in a fresh interpreter (the
cache is what carries over between processes): ``dep.py`` compiles ``f``, ``main.py``
compiles ``g``, which calls ``f``. And the project's compiled modules (the batch engine's
phases and drivers, the heuristic, pimc's playouts) stamp their caches with every file they
call into.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MAIN = """
from numba import njit
import dep
{hook}

@njit(cache=True)
def g(x):
    return dep.f(x) + 1000
"""
DEP = """
from numba import njit

@njit(cache=True)
def f(x):
    return x * {factor}
"""
RUN = "import main; print(main.g(2)); print(len(main.g.stats.cache_hits))"


def _run(tmp: Path) -> tuple[int, int]:
    env = dict(os.environ, PYTHONPATH=f"{tmp}{os.pathsep}{ROOT}", PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", RUN], cwd=tmp, env=env, capture_output=True, text=True, check=True)
    value, hits = out.stdout.split()
    return int(value), int(hits)


def _write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))
    # a new mtime even within the file system's time resolution (numba's own check)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


@pytest.mark.parametrize("hooked", [True, False], ids=["cache_with", "numba_alone"])
def test_a_changed_dependency_makes_the_cache_stale(tmp_path, hooked):
    hook = "from redbeard_env.jit_cache import cache_with\nassert cache_with(__file__, dep)" if hooked else ""
    _write(tmp_path / "main.py", MAIN.format(hook=hook))
    _write(tmp_path / "dep.py", DEP.format(factor=3))
    assert _run(tmp_path) == (1006, 0)  # compiled: 2 * 3 + 1000
    assert _run(tmp_path) == (1006, 1)  # nothing changed: from the cache
    _write(tmp_path / "dep.py", DEP.format(factor=5))
    value, _ = _run(tmp_path)
    if hooked:
        assert value == 1010  # recompiled with the new f: 2 * 5 + 1000
    elif value == 1010:
        pytest.skip("this numba notices a changed dependency by itself: jit_cache is no longer needed")
    else:
        assert value == 1006  # numba alone: g's cache still holds the old f (why the hook exists)


def test_no_hook_when_numba_is_told_other_locators(tmp_path):
    """``NUMBA_CACHE_LOCATOR_CLASSES`` replaces numba's locator list, and so the hook:
    cache_with then says so (its callers compile without a cache) instead of leaving a
    cache that only its own file stamps."""
    code = "import redbeard_env.jit_cache as j; print(j.cache_with(j.__file__))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    locators = {**env, "NUMBA_CACHE_LOCATOR_CLASSES": "InTreeCacheLocator"}
    told = subprocess.run([sys.executable, "-c", code], env=locators, capture_output=True, text=True, check=True)
    assert plain.stdout.split() == ["True"] and told.stdout.split() == ["False"]


def test_every_kernel_module_stamps_its_cache_with_what_it_calls():
    """The project's compiled modules: each one's cache covers its own file, the files of
    the compiled functions (and the modules of them) it refers to, and, transitively, what
    those cover -- a kernel that calls into a file its cache is not stamped with would keep
    that file's old code."""
    import inspect
    import types

    from numba.core.registry import CPUDispatcher

    from agents.family import heuristic_kernels as family_heuristic
    from agents.redbeard import heuristic_kernels, playout_kernels
    from redbeard_env import jit_cache
    from redbeard_env.family import vector_kernels as family_kernels
    from redbeard_env.family import vector_observe as family_observe
    from redbeard_env.family import vector_rules as family_rules
    from redbeard_env.redbeard import vector_kernels

    if not jit_cache._DEPENDENCIES:
        pytest.skip("no cache hook in this numba (the kernels compile without a cache)")
    modules = [*vector_kernels.KERNEL_MODULES, vector_kernels, heuristic_kernels, playout_kernels,
               family_rules, family_observe, family_kernels, family_heuristic]

    def real(path):
        return os.path.realpath(path)

    def covered(module):
        return set(jit_cache._DEPENDENCIES.get(real(module.__file__), (real(module.__file__),)))

    def compiled(obj):
        return isinstance(obj, CPUDispatcher)

    for module in modules:
        called = set()
        for obj in vars(module).values():
            if compiled(obj):
                called.add(real(inspect.getfile(obj.py_func)))
            elif isinstance(obj, types.ModuleType) and any(compiled(v) for v in vars(obj).values()):
                called.add(real(obj.__file__))
        files = covered(module)
        assert called <= files, (module.__name__, sorted(called - files))
        for other in modules:
            if real(other.__file__) in files:
                assert covered(other) <= files, (module.__name__, other.__name__, sorted(covered(other) - files))
