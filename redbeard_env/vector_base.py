"""What every game's batch engine shares: card sets as bits, a random legal policy, and
the engine's state as views of one buffer.

- :func:`low_card`, :func:`bit`, :func:`has`: a card set is a ``uint64`` with bit ``c`` set
  for card ``c``; compiled by numba, to be called from the engines' compiled code (no Python
  wrappers). An engine module that calls them stamps its numba cache with this file
  (:func:`redbeard_env.jit_cache.cache_with`).
- :func:`random_legal_rows`: one uniformly random legal action per row of a mask.
- :class:`BufferViews`: an engine whose state arrays are views of shared buffers pickles as
  independent arrays and is rebuilt as views when unpickled.
- :class:`ObsBuffers`: the observation arrays a step returns, reused once released.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

# compiled into the engines' code, never called from Python
bits = njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


@intrinsic
def _cttz(typingctx, x):
    """Index of the lowest set bit of a uint64 (x != 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir

        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@bits
def low_card(h):
    """The lowest card of the non-empty card set ``h``."""
    return np.int64(_cttz(np.uint64(h)))


@bits
def bit(c):
    """The card set holding card ``c`` alone."""
    return np.uint64(1) << np.uint64(c)


@bits
def has(h, c):
    """Whether card ``c`` is in the card set ``h``."""
    return (h >> np.uint64(c)) & np.uint64(1) != 0


@njit(cache=True, nogil=True)
def _random_legal(mask, uniform, out):
    """The ``k``-th legal action of each row, ``k = floor(uniform[b] * count)`` (0 for a row
    without one); returns the first such row, or -1."""
    A = mask.shape[1]
    empty = -1
    for b in range(mask.shape[0]):
        count = 0
        for a in range(A):
            count += mask[b, a] != 0
        out[b] = 0
        if count == 0:
            empty = b if empty < 0 else empty
            continue
        k = min(np.int64(uniform[b] * count), count - 1)
        for a in range(A):
            if mask[b, a] != 0:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return empty


def random_legal_rows(mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """One uniformly random legal action per row of ``mask`` (int8/bool [B, A]), drawn from
    ``rng``, 0 in a row without one; and the first such row (-1: none)."""
    m = np.asarray(mask)
    if m.ndim != 2:
        raise ValueError(f"random_legal_actions: mask must be [B, A], got shape {m.shape}")
    m = m.view(np.int8) if m.dtype in (np.bool_, np.int8, np.uint8) else (m != 0).view(np.int8)
    out = np.empty(len(m), np.int64)
    empty = _random_legal(np.ascontiguousarray(m), rng.random(len(m)), out)
    return out, int(empty)


class BufferViews:
    """An engine whose state attributes are views into buffers its ``_alloc()`` makes.
    Pickling turns the views into independent copies; unpickling rebuilds the buffers and
    views, then copies the values in, so an unpickled engine continues exactly."""

    def _alloc(self) -> None:  # pragma: no cover - every engine has its own
        raise NotImplementedError

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._alloc()
        for key, value in state.items():
            current = self.__dict__.get(key)
            if isinstance(value, np.ndarray) and isinstance(current, np.ndarray) and current is not value:
                if current.shape == value.shape and current.flags.writeable:
                    current[...] = value
                    continue
            self.__dict__[key] = value


_probe = [np.empty(1)]
FREE_REFS = sys.getrefcount(_probe[0])  # the count of an array held only by a list
del _probe


class ObsBuffers:
    """Output arrays float32 [B, size] for new observations: one of ours that nobody else
    holds any more (checked by reference count), else a new one. Returning an array the
    caller owns each step is the contract; reusing a released one saves the page faults
    of fresh memory (large arrays are mmapped anew by malloc)."""

    def __init__(self, num_envs: int, size: int):
        self.num_envs, self.size = num_envs, size
        self.pool: list[np.ndarray] = []

    def __getstate__(self) -> dict:
        return {"num_envs": self.num_envs, "size": self.size, "pool": []}  # spare buffers are not state

    def get(self) -> np.ndarray:
        for buf in self.pool:
            if sys.getrefcount(buf) <= FREE_REFS + 1:  # only the pool (and this loop) hold it
                return buf
        buf = np.empty((self.num_envs, self.size), np.float32)
        self.pool.append(buf)
        if len(self.pool) > 3:
            self.pool.pop(0)
        return buf
