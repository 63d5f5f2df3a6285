"""numba's on-disk cache for compiled code that calls compiled code of other files.

numba (``cache=True``) decides whether a cached compilation is still good by the source of
the compiled function's own file only. A kernel that calls the compiled functions of
other files -- a search's playout loop running the engine's step and the heuristic's
row valuation -- would keep running the old versions of those after they change. The
engine and the heuristic avoid this by keeping each compiled family in one file; a kernel
that joins two families cannot. :func:`cache_with` makes the cache of one module's
functions stale whenever that module *or any of the named dependency modules* changes: it
wraps numba's own locator (where the cache lives, unchanged) and stamps the cache with a
digest of every file's content.

The hook is numba's list of cache locators (``numba.core.caching.CacheImpl``); if a numba
version lacks it, or ``NUMBA_CACHE_LOCATOR_CLASSES`` replaces that list, :func:`cache_with`
returns False and the caller compiles without a cache (correct, only slower to start).
"""

from __future__ import annotations

import hashlib
import os
import types

try:
    from numba.core import caching as _caching

    _LOCATORS = _caching.CacheImpl._locator_classes
    _Base = _caching._CacheLocator
except (ImportError, AttributeError):  # pragma: no cover - another numba
    _LOCATORS, _Base = None, object

_DEPENDENCIES: dict[str, tuple[str, ...]] = {}  # real path of a module's file -> files its cache depends on


def _digest(files: tuple[str, ...]) -> bytes:
    h = hashlib.sha256()
    for path in files:
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.digest()


class _DependentLocator(_Base):
    """numba's locator for a registered module's functions, with a stamp over its files."""

    def __init__(self, inner, files: tuple[str, ...]):
        self._inner, self._files = inner, files

    @classmethod
    def from_function(cls, py_func, py_file):
        files = _DEPENDENCIES.get(os.path.realpath(py_file))
        if files is None:
            return None
        for locator in _LOCATORS:
            if locator is not cls:
                inner = locator.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, files)
        return None

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        # the files' contents (numba's own stamp hashes only the first)
        return _digest(self._files)

    def get_disambiguator(self):
        return self._inner.get_disambiguator()


def cache_with(module_file: str, *dependencies: types.ModuleType) -> bool:
    """Stamp the cache of the compiled functions defined in ``module_file`` with its content
    and the content of the ``dependencies``' files (and of the files they are stamped with). Call before the first compilation (at
    the top of the module). Returns whether the hook is in place (else: compile with
    ``cache=False``)."""
    if _LOCATORS is None:
        return False
    from numba.core import config

    if getattr(config, "CACHE_LOCATOR_CLASSES", None):  # numba then ignores its locator list, and so ours
        return False
    if _DependentLocator not in _LOCATORS:
        _LOCATORS.insert(0, _DependentLocator)
    files = [os.path.realpath(module_file)]
    for module in dependencies:  # a dependency's own stamped files too: a change anywhere below counts
        path = os.path.realpath(module.__file__)
        files += [f for f in _DEPENDENCIES.get(path, (path,)) if f not in files]
    _DEPENDENCIES[files[0]] = tuple(files)
    return True
