"""``ReferenceVectorEnv``: the batch-engine contract (SPEC §3b) over B reference games.

A plain loop over :class:`redbeard_env.game.Game` objects — slow, but obviously right. It
serves as the yardstick the fast :mod:`redbeard_env.vector` engine is compared with, and
as a drop-in for small experiments. Same constructor, ``reset``/``step`` and ``info``
keys as ``VectorEnv``:

    obs float32 [B, D], mask int8 [B, 69], seat int64 [B]
    rewards float32 [B, n], terminated / truncated bool [B]
    info: score int [B, n] (running; a finished game's final scores), phase int [B]
          (index into observation.PHASE_NAMES), winner int [B] (-1: none/truncated),
          final_score int [B, n], rounds int [B], and the record of a round scored in
          this step: round_over bool [B], round_declarer int [B] (-1 all passed),
          round_bid int [B] (0..6, 7 = Rödskägg), round_tricks int [B, n],
          round_joiner bool [B, n], round_folded bool [B, n].
"""

from __future__ import annotations

import numpy as np

from . import game as G
from .cards import NUM_ACTIONS
from .observation import OBS_SIZE, PHASE_NAMES, encode, static_prefix
from .rules import Rules, check_num_players, make_rules


class ReferenceVectorEnv:
    def __init__(self, num_envs: int, num_players: int = 4, rules: "str | Rules" = "classic", seed: int | None = 0, **overrides):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        self.rules = make_rules(rules, **overrides)
        self.num_players = check_num_players(num_players, self.rules)
        self.num_envs = num_envs
        self.rng = np.random.default_rng(seed)
        self._prefix = static_prefix(self.rules, self.num_players)
        self.games: list[G.Game] = []

    @property
    def scores(self) -> np.ndarray:
        return np.array([g.scores for g in self.games], dtype=np.int64)

    def _new_game(self) -> G.Game:
        return G.new_game(self.rules, self.num_players, self.rng)

    def _view(self):
        B = self.num_envs
        obs = np.empty((B, OBS_SIZE), dtype=np.float32)
        mask = np.zeros((B, NUM_ACTIONS), dtype=np.int8)
        seat = np.empty(B, dtype=np.int64)
        for b, g in enumerate(self.games):
            obs[b] = encode(g, g.to_act, self._prefix)
            mask[b, G.legal_actions(g)] = 1
            seat[b] = g.to_act
        return obs, mask, seat

    def reset(self):
        self.games = [self._new_game() for _ in range(self.num_envs)]
        return self._view()

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        for b, g in enumerate(self.games):
            if int(actions[b]) not in G.legal_actions(g):
                raise ValueError(f"game {b}: illegal action {int(actions[b])} in phase {g.phase!r}")
        B, n = self.num_envs, self.num_players
        rewards = np.zeros((B, n), dtype=np.float32)
        terminated = np.zeros(B, dtype=bool)
        truncated = np.zeros(B, dtype=bool)
        info = {
            "winner": np.full(B, -1, dtype=np.int64),
            "final_score": np.zeros((B, n), dtype=np.int64),
            "round_over": np.zeros(B, dtype=bool),
            "round_declarer": np.full(B, -1, dtype=np.int64),
            "round_bid": np.full(B, -1, dtype=np.int64),
            "round_tricks": np.zeros((B, n), dtype=np.int64),
            "round_joiner": np.zeros((B, n), dtype=bool),
            "round_folded": np.zeros((B, n), dtype=bool),
        }
        loss = -1.0 / (n - 1)
        for b, g in enumerate(self.games):
            G.apply_action(g, int(actions[b]))
            eliminated = {e[1] for e in g.events if e[0] == "eliminated"}
            for event in g.events:
                if event[0] == "eliminated":
                    rewards[b, event[1]] += loss
                elif event[0] == "round_end":
                    _, _, declarer, level, tricks, joiner, in_round = event
                    info["round_over"][b] = True
                    info["round_declarer"][b] = declarer
                    info["round_bid"][b] = level
                    info["round_tricks"][b] = tricks
                    info["round_joiner"][b] = joiner
                    dealt_in = [g.active[s] or s in eliminated for s in range(n)]
                    info["round_folded"][b] = [dealt_in[s] and not in_round[s] for s in range(n)]
            if g.game_over:
                info["final_score"][b] = g.scores
                if g.terminated:
                    terminated[b] = True
                    info["winner"][b] = g.winner
                    for s in range(n):
                        if g.active[s] or s == g.winner:
                            rewards[b, s] += 1.0 if s == g.winner else loss
                else:
                    truncated[b] = True
        info["score"] = np.where((terminated | truncated)[:, None], info["final_score"], self.scores)
        info["rounds"] = np.array([g.rounds_played for g in self.games], dtype=np.int64)
        info["phase"] = np.array([PHASE_NAMES.index(g.phase) for g in self.games], dtype=np.int64)
        for b in np.flatnonzero(terminated | truncated):
            self.games[b] = self._new_game()
        obs, mask, seat = self._view()
        return obs, mask, seat, rewards, terminated, truncated, info
