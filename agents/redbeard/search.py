"""Rödskägg's ``search``: :class:`~agents.redbeard.pimc.PimcAgent` guided and played out by a
trained network (the method: :mod:`agents.search`).

A world is worth what pimc says (the utility of the searcher's score at the round's end, or
the game's result when the game may end this round: ``horizon``); the worlds are dealt by
the network's belief, the candidates are the policy's most likely actions, and the policy
plays every seat of the playouts. The auction, the ask and join questions and card play are
searched; the redeal and look questions and duels are the policy's.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.redbeard.rules import HAND_SIZE

from ..params import SEED, Policy, RulesParam, set_numbers
from ..registry import make_agent
from ..search import SEARCH_PARAMS, UNITS_PER_MS, PolicyGuide, choose, worlds_for
from .decode import ObsBatch
from .heuristic import ELIM_VALUE, NEG_EXTRA, WIN_VALUE, HeuristicAgent
from .pimc import PimcAgent

#: the cost model of a playout (agents.search.worlds_for): ms of one world's engine step with
#: the network playing, on the development machine (benchmarks/search_speed.py)
MS_PER_PLAYOUT_STEP = 0.008
#: the same with the heuristic playing (``playout=heuristic``: no network in the playouts)
MS_PER_HEURISTIC_STEP = 0.0015


class SearchAgent(PimcAgent):
    """See the module docstring and :mod:`agents.search`."""

    DEFAULT_POLICY = "ppo:classic_4p"  # the network a search uses when the spec names none
    PARAMS = {
        "policy": Policy(help="the trained network that guides the search and plays it out"),
        **SEARCH_PARAMS,
        "horizon": PimcAgent.PARAMS["horizon"],
        "close_at": PimcAgent.PARAMS["close_at"],
        "win_value": HeuristicAgent.PARAMS["win_value"],
        "neg_extra": HeuristicAgent.PARAMS["neg_extra"],
        "elim_value": HeuristicAgent.PARAMS["elim_value"],
        "chunk": PimcAgent.PARAMS["chunk"],
        "seed": SEED,
        "rules": RulesParam(),
    }
    COST = UNITS_PER_MS  # a millisecond (``ms`` scales it)

    def __init__(self, policy: str = "", ms: float = 50.0, worlds: int = 0, top_k: int = 4,
                 mass: float = 0.95, belief: bool = True, margin: float = 0.0, playout: str = "policy",
                 horizon: str = "auto", close_at: int = 6, win_value: float = WIN_VALUE,
                 neg_extra: float = NEG_EXTRA, elim_value: float = ELIM_VALUE, chunk: int = 16384,
                 seed: int | None = 0, rules=None):
        super().__init__(samples=max(worlds, 1), max_actions=16, rollout=policy or self.DEFAULT_POLICY,
                         horizon=horizon, close_at=close_at, win_value=win_value, neg_extra=neg_extra,
                         elim_value=elim_value, chunk=chunk, seed=seed, rules=rules)
        if getattr(self.policy, "net", None) is None:
            raise ValueError(f"policy must be a trained network (a ppo: spec), got {str(policy)[:60]!r}")
        set_numbers(self, ms=ms, worlds=worlds, top_k=top_k, mass=mass, margin=margin)
        self.belief = SEARCH_PARAMS["belief"].check("belief", belief)
        self.playout = SEARCH_PARAMS["playout"].check("playout", playout)
        self.network = self.policy  # guides the search; pimc's playouts ask self.policy
        self.ms_per_step = MS_PER_HEURISTIC_STEP if self.playout == "heuristic" else MS_PER_PLAYOUT_STEP
        if self.playout == "heuristic":
            self.policy = make_agent("heuristic", game=self.game, seed=seed)
        self._guide: PolicyGuide | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.network is not self.policy:
            self.network.reset(seed)

    # the network's reading of the batch, asked once per call
    def _base_actions(self, obs: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> np.ndarray:
        self._guide = PolicyGuide(self.network, obs, legal)
        return self._guide.choice.astype(np.int64)

    def _candidates(self, row: int, legal_row: np.ndarray, base_action: int, every_action: bool = False) -> list[int]:
        if every_action:
            return [int(a) for a in np.flatnonzero(legal_row)]
        return sorted(self._guide.candidates(row, self.top_k, self.mass))

    def _owner_weights(self, rows: np.ndarray) -> np.ndarray | None:
        return self._guide.owner_weights(rows, 7) if self.belief else None

    def _search(self, view: ObsBatch, legal: np.ndarray, base: np.ndarray, rules, rows: np.ndarray) -> np.ndarray:
        searched = np.array([len(self._candidates(int(r), legal[i], int(base[i]))) > 1 for i, r in enumerate(rows)])
        out = base.copy()
        if not searched.any():
            return out  # the policy is sure: nothing to search
        keep = np.flatnonzero(searched)
        candidates = max(len(self._candidates(int(rows[i]), legal[i], int(base[i]))) for i in keep)
        steps = int(np.max((HAND_SIZE - view.tricks_done[keep] + 1) * view.num_players[keep]))
        self.last_work = candidates * steps  # the cost model's units (benchmarks/search_speed.py)
        self.samples = self.worlds or worlds_for(self.ms, candidates, steps, self.ms_per_step)
        table, mean = self._search_values(view.rows(keep), legal[keep], base[keep], rules, rows[keep])
        out[keep] = choose(table, mean, base[keep], self.margin)
        return out
