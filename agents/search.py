"""``search``: a determinised search on what a trained network learned (every game).

A game's ``search`` bot is its ``pimc`` (sample worlds of the hidden cards, play each
candidate out in every world on the batch engine, choose by the mean outcome) with the
three guesses pimc makes by hand replaced by the network's (:class:`PolicyGuide`):

* **worlds from the belief head.** pimc deals the hidden cards uniformly within what the
  player knows (its hand, the cards seen, each hand's size, the voids shown); the search
  deals them within the same constraints, each position's cards drawn one after another
  with probability in proportion to the network's belief that the position holds them
  (sampling without replacement by weights: exponential keys divided by the weights, the
  smallest first), so the worlds follow the bidding and play the network has read;
* **candidates from the policy**: the legal actions the policy ranks highest, until they
  hold ``mass`` of its probability or ``top_k`` of them (pimc: the rollout bot's choice and
  its nearest neighbours by action id, or every legal action);
* **playouts by the policy**: the network plays every seat of every world (greedy, in one
  batch per engine step) where pimc plays the heuristic (``playout=heuristic`` plays them
  as pimc does, to measure what the policy's playouts are worth).

The choice: the candidate with the best mean outcome over the worlds (each game's pimc
says what an outcome is worth: Rödskägg the utility of the score at the round's end, or
the game's result when it may end this round; the Oh Hell family the round's points
against the others'), but the policy's own choice unless another beats it by more than
``margin`` -- a search with a few dozen worlds is noisy, and the policy is the better
judge of near-ties (SPARTA's deviation rule).

**Cut-off** (``depth`` > 0, where a game's search offers it): a playout stops at the
searcher's first decision after ``depth`` engine steps, and the world is worth what the
network's critic says of it there (:func:`critic_values`: the privileged critic sees every
hand of the world, the very input it was trained on; the expected game result, not the
round's points). A decision's worlds are all cut or all played out (only decisions with
enough of the round left are cut), so its candidates are compared in one unit; hints and
reviews (``action_values``) always play out, so their values stay in the game's points.

Budget: ``ms`` per searched decision on the development machine, turned into a number of
worlds by a fixed cost model (:func:`worlds_for`: the playouts' engine steps, each priced by
who plays it -- the network, or the cheaper heuristic), so the same seed gives the same game
on any machine; ``worlds`` fixes the number instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .params import Bool, Choice, Float, Int

#: the parameters every game's search adds to its pimc's (agents.params)
SEARCH_PARAMS = {
    "ms": Float(1, 2000, per=1, help="budget per searched decision, in milliseconds of the development machine"),
    "worlds": Int(0, 1024, help="worlds sampled per decision (0: as many as ms allows)"),
    "top_k": Int(1, 16, help="candidate actions at most (the policy's most likely)"),
    "mass": Float(0.5, 1.0, help="candidates: the policy's most likely actions until they hold this share"),
    "belief": Bool(help="deal the worlds by the network's belief (else uniformly, as pimc)"),
    "margin": Float(0, 100, help="how much better than the policy's choice another must be to be chosen"),
    "playout": Choice("policy", "heuristic", help="who plays every seat of the playouts (heuristic: pimc's playouts, "
                      "cheaper, so more worlds for the same ms)"),
}
#: a search that can cut its playouts off with the critic (agents.search.critic_values) adds this
DEPTH_PARAM = Int(0, 500, help="engine steps a playout runs before the network's critic values the world at the "
                  "searcher's next decision (0: every playout to the round's end; default: the game's own)")
#: cost units (agents.params) of one millisecond of search
UNITS_PER_MS = 40.0


class PolicyGuide:
    """What a trained network tells a search about one batch of decisions: the policy's
    probabilities ``probs`` [B, A] and its choice ``choice`` [B], and the belief head's
    probabilities ``belief`` [B, cards, seats + 1] (which relative position holds each card,
    the last column: in no hand; None for a network without the head)."""

    def __init__(self, agent: Any, obs: np.ndarray, legal: np.ndarray):
        import torch

        from .ppo import belief_log_probs

        net = agent.net
        with torch.no_grad():
            features = torch.as_tensor(net.features(obs, legal), device=agent.device)
            out = net.heads(features, torch.as_tensor(legal, device=agent.device))
            self.probs = torch.softmax(out["logits"], -1).cpu().numpy().astype(np.float64)
            self.belief = None if out["belief"] is None else belief_log_probs(out["belief"]).exp().cpu().numpy()
        self.probs = np.where(legal, self.probs, 0.0)
        self.choice = self.probs.argmax(1)

    def candidates(self, row: int, top_k: int, mass: float) -> list[int]:
        """The policy's most likely legal actions of ``row``, most likely first, until they
        hold ``mass`` of its probability or number ``top_k``."""
        p = self.probs[row]
        order = np.argsort(-p, kind="stable")
        order = order[p[order] > 0]
        cum = np.cumsum(p[order])
        k = min(top_k, int(np.searchsorted(cum, mass * cum[-1] - 1e-12)) + 1, len(order))
        return [int(a) for a in order[: max(k, 1)]]

    def owner_weights(self, rows: np.ndarray, positions: int, floor: float = 1e-3) -> np.ndarray | None:
        """float [len(rows), positions, cards]: the belief that relative position p holds
        each card (at least ``floor``, so a card the head rules out can still be dealt where
        the constraints leave no other place); None without a belief head."""
        if self.belief is None:
            return None
        b = self.belief[rows][:, :, :positions]  # [R, cards, positions]
        return np.maximum(np.transpose(b, (0, 2, 1)), floor)


def critic_values(agent: Any, obs: np.ndarray, legal: np.ndarray, held: np.ndarray) -> np.ndarray:
    """float [B]: the network's value of each position for the seat to act, which must be
    seat 0 of its world (the searcher): the privileged critic's given every hand ``held``
    bool [B, n, cards] (by seat), else the value head on the observation alone. The critic
    learned normalised returns of the game's reward; only their order within a decision is
    used."""
    import torch

    from .ppo import privileged_view

    net = agent.net
    priv = None
    if net.critic_kind == "privileged":
        rel, _ = privileged_view(held, np.zeros(len(obs), np.int64), net.belief_shape[1] - 1)
        priv = torch.as_tensor(rel, device=agent.device)
    with torch.no_grad():
        features = torch.as_tensor(net.features(obs, legal), device=agent.device)
        out = net.heads(features, torch.as_tensor(legal, device=agent.device), privileged=priv)
    return out["value"].float().cpu().numpy().astype(np.float64)


def weighted_keys(rng: np.random.Generator, weights: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """Sort keys for dealing cards: the smallest k of a position's allowed cards are its k
    cards. Uniform draws without weights (pimc's deal); with ``weights`` (of ``shape``),
    exponential draws divided by them, so that taking the smallest k samples k cards without
    replacement with probability in proportion to the weights."""
    if weights is None:
        return rng.random(shape)
    return rng.exponential(size=shape) / weights


def choose(table: np.ndarray, mean: np.ndarray, policy_choice: np.ndarray, margin: float) -> np.ndarray:
    """int [B]: per row the candidate of ``table`` [B, C] (-1: none) with the best ``mean``,
    unless it beats the policy's choice (when it is a candidate) by ``margin`` or less: then
    the policy's choice."""
    rows = np.arange(len(table))
    valid = table >= 0
    best = np.where(valid, mean, -np.inf).argmax(1)
    mine = np.where(valid & (table == policy_choice[:, None]), 1, 0).argmax(1)
    has_mine = (valid & (table == policy_choice[:, None])).any(1)
    gain = mean[rows, best] - np.where(has_mine, mean[rows, mine], -np.inf)
    pick = np.where(has_mine & (gain <= margin), mine, best)
    return table[rows, pick]


def worlds_for(ms: float, candidates: int, steps_left: int, ms_per_playout_step: float, low: int = 4,
               high: int = 256) -> int:
    """Worlds a decision can afford: ``ms`` over what one world costs (``candidates``
    playouts of ``steps_left`` engine steps, each step of a playout ``ms_per_playout_step``:
    a game's fixed cost model, measured once on the development machine), within
    ``low..high``."""
    per_world = max(candidates, 1) * max(steps_left, 1) * ms_per_playout_step
    return int(np.clip(ms / per_world, low, high))


__all__ = ["SEARCH_PARAMS", "DEPTH_PARAM", "UNITS_PER_MS", "PolicyGuide", "critic_values", "weighted_keys", "choose",
           "worlds_for"]
