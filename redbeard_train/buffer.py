"""The learner's transitions of one rollout and their advantages (GAE).

A learner transition's reward is everything its seat receives until the seat's next
decision; GAE runs over each seat's own decision chain. A chain cut by the end of a
rollout bootstraps from the value of its last decision, which is carried over (``carry``)
and trained on in the next rollout.
"""

from __future__ import annotations

import numpy as np


class Buffer:
    """Learner transitions of one rollout (plus open ones carried from the last).

    Transition i's reward is what its seat received until its next decision ``nxt[i]``;
    ``done[i]`` marks the last decision of a game. GAE runs backwards over creation order
    (a successor is always created later)."""

    FIELDS = ("obs", "mask", "action", "logp", "value")

    def __init__(self, carry: dict | None, extra: tuple[str, ...] = ()):
        """``extra``: more per-transition arrays the training recipe keeps (``priv``: the
        hands for a privileged critic, ``btarget``: the belief head's targets, ``teacher``:
        the teacher's action or -1)."""
        self.fields = self.FIELDS + tuple(extra)
        self.parts: dict[str, list[np.ndarray]] = {k: [] for k in self.fields}
        self.size = 0
        self.chunks: list[tuple[int, int]] = []
        self.links: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.finishes: list[tuple[np.ndarray, np.ndarray]] = []
        if carry is not None and len(carry["action"]):
            self.add(**{k: carry[k] for k in self.fields})

    def add(self, **arrays: np.ndarray) -> np.ndarray:
        if set(arrays) != set(self.fields):
            raise ValueError(f"a transition has the fields {self.fields}, got {tuple(arrays)}")
        for key in self.fields:
            self.parts[key].append(np.asarray(arrays[key]))
        action = arrays["action"]
        idx = np.arange(self.size, self.size + len(action))
        self.chunks.append((self.size, self.size + len(action)))
        self.size += len(action)
        return idx

    def link(self, prev: np.ndarray, nxt: np.ndarray, reward: np.ndarray) -> None:
        self.links.append((prev.copy(), nxt.copy(), reward.astype(np.float32)))

    def finish(self, last: np.ndarray, reward: np.ndarray) -> None:
        self.finishes.append((last.copy(), reward.astype(np.float32)))

    def finalize(self, gamma: float, lam: float, open_tails: np.ndarray):
        data = {k: np.concatenate(v) if v else np.zeros(0) for k, v in self.parts.items()}
        N = self.size
        nxt = np.full(N, -1, dtype=np.int64)
        reward = np.zeros(N, dtype=np.float32)
        done = np.zeros(N, dtype=bool)
        for prev, new, r in self.links:
            nxt[prev], reward[prev] = new, r
        for last, r in self.finishes:
            done[last], reward[last] = True, r
        value = data["value"].astype(np.float32)
        adv = np.zeros(N, dtype=np.float32)
        ready = done | (nxt >= 0)
        nv = np.where(nxt >= 0, value[np.maximum(nxt, 0)], 0.0)
        delta = reward + gamma * np.where(done, 0.0, nv) - value
        # A successor is always in a later chunk: sweeping chunks backwards sees adv[nxt]
        # first. A chain cut by the rollout's end bootstraps from V (its GAE tail is 0).
        for start, end in reversed(self.chunks):
            i = np.arange(start, end)
            j = nxt[i]
            follow = np.where((j >= 0) & ready[np.maximum(j, 0)], adv[np.maximum(j, 0)], 0.0)
            adv[i] = np.where(ready[i], delta[i] + np.where(done[i], 0.0, gamma * lam * follow), 0.0)
        keep = np.flatnonzero(ready)
        batch = {k: v[keep] for k, v in data.items()}
        batch["adv"] = adv[keep]
        tails = np.sort(open_tails)
        carry = {k: v[tails] for k, v in data.items()}
        remap = np.full(max(N, 1), -1, dtype=np.int64)
        remap[tails] = np.arange(len(tails))
        return batch, carry, remap
