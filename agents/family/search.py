"""The family's ``search``: the family's :class:`~agents.family.pimc.FamilyPIMC` guided and played
out by a trained network (the method: :mod:`agents.search`), for every game of the family.

A world is worth what the family's pimc says: the searcher's points for the round minus
``spite`` times the others' mean (the game is won on the highest total). The worlds are
dealt by the network's belief within what the player knows, the candidates are the policy's
most likely actions, the policy plays every seat of the playouts (to the round's end, or to
the searcher's first decision after ``depth`` steps, where the critic values the world), and
the policy's own choice stands unless another beats it by more than ``margin``. With
``utility=win`` a world whose game ends with its round (a one-round game; a longer game's last
round) is worth the searcher's share of the win instead of points. Bids and
card plays are searched; discards are the policy's. A game's search subclasses :class:`FamilySearch` with its pimc's
``game``, ``world_parts``, the network it uses when the spec names none and its cut-off
(``DEFAULT_DEPTH``).
"""

from __future__ import annotations

import numpy as np

from ..base import check_batch
from ..params import SEED, Choice, Policy, set_numbers
from ..registry import make_agent, training_of
from ..search import DEPTH_PARAM, SEARCH_PARAMS, UNITS_PER_MS, PolicyGuide, choose, critic_values, worlds_for
from .decode import PHASE
from .pimc import MAX_PLAYOUT_STEPS, FamilyPIMC

#: the cost model of a playout (agents.search.worlds_for): ms of one world's engine step with
#: the network playing, on the development machine (benchmarks/search_speed.py)
MS_PER_PLAYOUT_STEP = 0.025
#: the same with the heuristic playing (``playout=heuristic``: no network in the playouts)
MS_PER_HEURISTIC_STEP = 0.007


class FamilySearch(FamilyPIMC):
    """See the module docstring and :mod:`agents.search`. A game's subclass sets ``game``,
    ``world_parts`` (as its pimc) and ``DEFAULT_POLICY``."""

    DEFAULT_POLICY = ""
    DEFAULT_DEPTH = 0  # the cut-off when the spec names none (a game's subclass sets its measured best)
    PARAMS = {
        "policy": Policy(help="the trained network that guides the search and plays it out"),
        **SEARCH_PARAMS,
        "depth": DEPTH_PARAM,
        "utility": Choice("points", "win", help="a world whose game ends with its round: worth its points as pimc "
                          "values them, or the searcher's share of the win (the game's result; margin is then in "
                          "shares of a win; hints and reviews stay in points)"),
        "spite": FamilyPIMC.PARAMS["spite"],
        "max_worlds": FamilyPIMC.PARAMS["max_worlds"],
        "seed": SEED,
    }
    COST = UNITS_PER_MS  # a millisecond (``ms`` scales it)

    def __init__(self, policy: str = "", ms: float = 50.0, worlds: int = 0, top_k: int = 4, mass: float = 0.95,
                 belief: bool = True, margin: float = 0.0, depth: int | None = None, playout: str = "policy",
                 utility: str = "points", spite: float = 0.5, max_worlds: int = 4096, seed: int | None = 0):
        super().__init__(samples=max(worlds, 1), rollout=policy or self.DEFAULT_POLICY, spite=spite,
                         max_worlds=max_worlds, seed=seed)
        if getattr(self.rollout, "net", None) is None:
            raise ValueError(f"policy must be a trained network (a ppo: spec), got {str(policy)[:60]!r}")
        depth = self.DEFAULT_DEPTH if depth is None else depth
        set_numbers(self, ms=ms, worlds=worlds, top_k=top_k, mass=mass, margin=margin, depth=depth)
        self.belief = SEARCH_PARAMS["belief"].check("belief", belief)
        self.playout = SEARCH_PARAMS["playout"].check("playout", playout)
        self.utility = self.PARAMS["utility"].check("utility", utility)
        self.network = self.rollout  # guides the search; the family's pimc plays out with self.rollout
        self.ms_per_step = MS_PER_HEURISTIC_STEP if self.playout == "heuristic" else MS_PER_PLAYOUT_STEP
        self._cut = np.zeros(0, bool)  # per row of the batch: its worlds are cut off at depth
        if self.playout == "heuristic":
            self.rollout = make_agent("heuristic", game=self.game, seed=seed)
        self._guide: PolicyGuide | None = None
        self._every_action = False

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.network is not self.rollout and hasattr(self.network, "reset"):
            self.network.reset(seed)

    # the network's reading of the batch (set by act_batch / action_values for their rows)
    def _candidates(self, row: int, legal_row: np.ndarray) -> np.ndarray:
        if self._every_action:  # action_values: a hint or a review values the move a player made
            return np.flatnonzero(legal_row)
        return np.array(sorted(self._guide.candidates(row, self.top_k, self.mass)), np.int64)

    def _owner_weights(self, rows: np.ndarray) -> np.ndarray | None:
        if not self.belief or self._guide.belief is None:
            return None
        positions = self._guide.belief.shape[2] - 1
        return self._guide.owner_weights(rows, positions)

    def _searched(self, v, legal: np.ndarray) -> np.ndarray:
        asked = np.isin(v.phase, [PHASE["bid"], PHASE["play"]]) & (legal.sum(1) > 1)
        if self._guide is None or self._every_action:  # values: every decision with a choice
            return asked
        return asked & np.array([len(self._guide.candidates(r, self.top_k, self.mass)) > 1
                                 for r in range(len(legal))])

    def _plan(self, v, legal: np.ndarray, rows: np.ndarray) -> None:
        """The worlds of the decisions ``rows`` (``worlds``, else what ``ms`` affords by the
        cost model; ``last_work``: the model's candidates x engine steps of a playout) and
        which are cut off: those whose round has, after ``depth`` steps, a whole trick
        beyond the current one left, so the searcher decides again in every world (not for
        ``action_values``, whose values stay in points)."""
        candidates = max(len(self._candidates(int(r), legal[r])) for r in rows)
        n = v.num_players[rows]
        playing = v.phase[rows] == PHASE["play"]
        cards_left = np.where(playing, v.hand_size[rows] - v.tricks[rows].sum(1), v.hand_size[rows])
        left = cards_left * n + np.where(playing, 0, n)  # at most; exactly for card play
        self._cut = np.zeros(len(legal), bool)
        if self.depth and not self._every_action:
            self._cut[rows] = left >= self.depth + 3 * n
        steps = int(np.max(np.where(self._cut[rows], self.depth + 2 * n, left)))
        self.last_work = candidates * steps
        self.samples = self.worlds or worlds_for(self.ms, candidates, steps, self.ms_per_step)

    def _round_worth(self, info: dict, over: np.ndarray) -> np.ndarray:
        """As pimc's; with ``utility=win`` a world whose game ended with its round is worth the
        searcher's share of the win (1 alone on top, 1/k tied with k-1 others, else 0), as the
        game is judged -- not for ``action_values``, whose values stay in points. (The world's
        totals before the round come from the observation's score block, exact within its
        range.)"""
        points = super()._round_worth(info, over)
        if self.utility != "win" or self._every_action:
            return points
        winners = info["winners"][over]
        ended = winners.any(1)
        share = winners[:, 0] / np.maximum(winners.sum(1), 1)
        return np.where(ended, share, points)

    def _play_out(self, venv, first: np.ndarray, rows: np.ndarray, row_of: np.ndarray) -> np.ndarray:
        """As pimc's, but the worlds of cut-off rows stop at the searcher's (seat 0's) first
        decision after ``depth`` steps, worth the network's critic value there."""
        cut = self._cut[rows][row_of] if len(self._cut) else np.zeros(len(first), bool)
        if not cut.any():
            return super()._play_out(venv, first, rows, row_of)
        W = len(first)
        value = np.zeros(W)
        valued = np.zeros(W, bool)
        actions = first
        for step in range(1, MAX_PLAYOUT_STEPS + 1):
            obs, mask, seat, _, _, _, info = venv.step(actions)
            over = info["round_over"] & ~valued
            if (over & cut).any():  # _plan's rule leaves every cut world a decision of the searcher
                raise RuntimeError("search: a cut-off world reached the round's end before its cut")
            if over.any():
                value[over] = self._round_worth(info, over)
                valued |= over
            if step >= self.depth:
                at = np.flatnonzero(cut & ~valued & (seat == 0))
                if len(at):
                    held = training_of(self.game).held_cards(venv)[at]
                    value[at] = critic_values(self.network, obs[at], mask[at].astype(bool), held)
                    valued[at] = True
            moving = ~venv.halted
            if not (moving & ~valued).any():
                return value
            actions = np.zeros(W, np.int64)
            play = np.flatnonzero(moving & ~valued)
            actions[play] = self.rollout.act_batch(obs[play], mask[play])
            idle = np.flatnonzero(moving & valued)  # valued but not yet halted: any legal move will do
            actions[idle] = mask[idle].argmax(1)
        raise ValueError(f"search: a playout of observation row {int(rows[0])} did not reach its end: "
                         f"the observation does not describe a game state")

    def searches(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        self._guide = PolicyGuide(self.network, obs, legal)
        return self._searched(self.world_parts.decode_batch(obs), legal)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        self._guide = PolicyGuide(self.network, obs, legal)
        base = self._guide.choice.astype(np.int64)
        v = self.world_parts.decode_batch(obs)
        search = np.flatnonzero(self._searched(v, legal))
        self._cut = np.zeros(len(legal), bool)
        if len(search) == 0:
            return base
        self.decisions += len(search)
        self._plan(v, legal, search)
        out = base.copy()
        for chunk, n, rules in self._chunks(v, legal, search):
            self._search(v, legal, chunk, n, rules)
            width = max(len(c) for c, _ in self.last_means)
            table = np.full((len(chunk), width), -1, np.int64)
            mean = np.full((len(chunk), width), -np.inf)
            for i, (cands, means) in enumerate(self.last_means):
                table[i, : len(cands)], mean[i, : len(cands)] = cands, means
            out[chunk] = choose(table, mean, base[chunk], self.margin)
        return out

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """As pimc's: every legal action of a searched decision valued over the worlds dealt
        by the belief and played out by the policy (a hint or a review values the move a
        player made, whether the policy ranks it or not)."""
        obs, legal = check_batch(obs, mask, self.game)
        self._guide = PolicyGuide(self.network, obs, legal)
        self._every_action = True
        try:
            v = self.world_parts.decode_batch(obs)
            search = np.flatnonzero(self._searched(v, legal))
            if len(search):
                self._plan(v, legal, search)
            return super().action_values(obs, mask)
        finally:
            self._every_action = False


__all__ = ["FamilySearch", "MS_PER_PLAYOUT_STEP", "MS_PER_HEURISTIC_STEP"]
