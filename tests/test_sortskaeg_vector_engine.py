"""Sortskæg's compiled batch engine beyond parity: its compiled step releases the GIL
(rollout threads run in parallel), threads give the same games as one thread, the seed
fixes the games, and a pickled engine continues exactly."""

from __future__ import annotations

import pickle
import sys
import threading
import time

import numpy as np

from redbeard_env import vector_base
from redbeard_env.family import vector_kernels as K
from redbeard_env.sortskaeg.vector import VectorEnv, random_legal_actions


def play(venv: VectorEnv, steps: int, seed: int) -> list[np.ndarray]:
    """Observations along ``steps`` random legal steps from a reset."""
    rng = np.random.default_rng(seed)
    obs, mask, seat = venv.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, mask, seat, rewards, term, trunc, info = venv.step(random_legal_actions(mask, rng))
        out.append(np.concatenate([obs.ravel(), rewards.ravel(), info["score"].ravel().astype(np.float32)]))
    return out


def test_every_driver_is_compiled_to_release_the_gil():
    for driver in (K.step_games, K.reset_games, K.observe_games, K.first_illegal, vector_base._random_legal):
        assert driver.targetoptions.get("nogil") is True, driver


def test_another_thread_runs_while_the_engine_is_in_its_compiled_code():
    # With a long switch interval a thread keeps the GIL until it blocks or releases it.
    # The worker observes in a loop (compiled calls) until the main thread, which needs
    # the GIL for every line it runs, has seen it inside the loop: that happens only if
    # the compiled code releases the GIL. Held, the main thread would starve for the
    # whole loop (a second at most, well within the interval) and see nothing.
    # (the worker calls the driver itself: numpy, between calls, releases the GIL too)
    venv = VectorEnv(4096, 4, seed=0)
    venv.reset()
    args = (venv._games(), venv._rules_table[0], venv._params(), np.zeros(4096, np.int64),
            np.empty((4096, 671), np.float32), venv.mask, False)
    observe = K.observe_games
    observe(*args)  # compiled before the timing
    state = {"inside": False, "seen": False}

    def worker():
        state["inside"] = True
        start = time.perf_counter()
        while not state["seen"] and time.perf_counter() - start < 1.0:
            observe(*args)
        state["inside"] = False

    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while t.is_alive():
            if state["inside"]:
                state["seen"] = True
            time.sleep(0.0005)  # lets the worker have the GIL back
        t.join()
    finally:
        sys.setswitchinterval(interval)
    assert state["seen"], "the main thread never ran while the worker was in the compiled code: the GIL is held"


def test_threads_play_the_same_games_as_one_thread():
    seeds = [3, 4]
    alone = [play(VectorEnv(64, 4, seed=s, deal="carry", hand_sizes=(3, 2, 1, 2)), 120, s) for s in seeds]
    together: list = [None, None]

    def run(k):
        together[k] = play(VectorEnv(64, 4, seed=seeds[k], deal="carry", hand_sizes=(3, 2, 1, 2)), 120, seeds[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, together):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_the_seed_fixes_the_games_and_a_reset_draws_new_ones():
    a, b, c = (play(VectorEnv(32, 3, seed=s), 80, 0) for s in (7, 7, 8))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])
    venv = VectorEnv(32, 3, seed=7)
    first = venv.reset()[0].copy()
    assert not np.array_equal(first, venv.reset()[0])  # the generator goes on
    assert np.array_equal(first, venv.reset(seed=7)[0])


def test_a_pickled_engine_continues_exactly():
    venv = VectorEnv(16, 4, seed=1, deal="carry")
    rng = np.random.default_rng(1)
    obs, mask, seat = venv.reset()
    for _ in range(50):
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
    copy = pickle.loads(pickle.dumps(venv))
    assert np.array_equal(copy.observe(), venv.observe()) and np.array_equal(copy.scores, venv.scores)
    for _ in range(300):  # across game ends and new deals
        actions = random_legal_actions(mask, rng)
        one, two = venv.step(actions), copy.step(actions)
        for x, y in zip(one[:5], two[:5]):
            assert np.array_equal(x, y)
        mask = one[1]
