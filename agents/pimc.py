"""``pimc``: determinised search (perfect-information Monte Carlo) over the heuristic.

At each decision with more than one legal action in the auction, the ask and join
questions and card play (the redeal and look questions and duels are left to the
rollout policy):

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player
   has seen: its hand, the cards played (finished tricks and the current one), thrown-in
   cards it has seen, each player's hand size, and the voids revealed by not following
   suit. Cards are dealt uniformly subject to those constraints (players with voids first).
2. **Play out** every (sample, candidate action) pair to the end of the round with the
   rollout policy (``heuristic``) in every seat: all samples and actions of all pending
   decisions run as one batch on :mod:`agents.playout` (a numpy round engine, tested
   step for step against the reference engine).
3. **Choose** the action with the best mean outcome over the samples (common random
   numbers: every action sees the same samples). A playout is worth the heuristic's
   value of the player's score at the round's end (minus the distance to 0, a win for
   exactly 0) -- the change in distance to zero; when the game is close to its end (an
   active score at most ``close_at``, or ``horizon=game``) it is worth the game result
   decided at the round's end: +win, -win when someone else finishes, a share of the
   win when several do.

Cost per decision is about ``samples x min(legal actions, max_actions) x`` (remaining
decisions of the round) policy steps; ``samples`` is the knob (``pimc:samples=128``).
"""

from __future__ import annotations

import numpy as np

from redbeard_env.cards import NUM_CARDS, PASS
from redbeard_env.rules import HAND_SIZE, Rules

from .base import Agent, check_masks
from .cardmodel import SUIT_OF
from .decode import PHASE, ObsBatch, decode_batch, led_suit, rules_from_obs, rules_groups
from .playout import Playout, run
from .registry import make_agent, register

SEARCH_PHASES = ("bid", "ask", "join", "play")  # redeal, look and duels: the rollout policy decides


# ====================================================================== sampling
def hand_sizes(view: ObsBatch, rules: Rules) -> np.ndarray:
    """int [B, 7]: cards each other position holds (0 for the observer and non-players)."""
    phase = view.phase
    in_play = np.isin(phase, [PHASE[p] for p in ("ask", "join", "play", "duel")])
    trick_live = np.isin(phase, [PHASE["play"], PHASE["duel"]])
    left = (HAND_SIZE - view.tricks_done)[:, None]
    played_now = view.trick_played & trick_live[:, None]
    playing = np.where(view.in_round, left - played_now, 0)
    folded = view.active & ~view.in_round & (phase != PHASE["duel"])[:, None]
    sizes_play = np.where(folded, np.minimum(left, max(rules.join_at, 0)), playing)
    sizes_deal = np.where(view.active, HAND_SIZE, 0)
    sizes = np.where(in_play[:, None], sizes_play, sizes_deal)
    sizes = np.where(np.arange(7)[None, :] < view.num_players[:, None], np.maximum(sizes, 0), 0)
    sizes[:, 0] = 0
    return sizes


def sample_owners(unseen: np.ndarray, sizes: np.ndarray, voids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Deal hidden cards: ``unseen`` bool [N, 52], ``sizes`` int [N, 7], ``voids`` bool
    [N, 7, 4] -> owner int [N, 52] (position, -1 = not in a hand, -2 = not hidden).
    Players with more voids are dealt first; a player who cannot be served within its
    voids (contradictory information) gets any remaining cards."""
    N = len(unseen)
    keys = rng.random((N, NUM_CARDS))
    owner = np.where(unseen, -1, -2)
    available = unseen.copy()
    order = np.argsort(-voids.sum(2) * 8 - sizes, axis=1, kind="stable")  # most constrained first
    rows = np.arange(N)
    for r in range(7):
        p = order[:, r]
        k = sizes[rows, p]
        if not k.any():
            continue
        allowed = available & ~voids[rows, p][:, SUIT_OF]
        short = allowed.sum(1) < k
        allowed[short] = available[short]
        masked = np.where(allowed, keys, np.inf)
        pick = np.argsort(masked, axis=1)[:, :HAND_SIZE]
        take = np.arange(HAND_SIZE)[None, :] < k[:, None]
        rr = np.broadcast_to(rows[:, None], pick.shape)[take]
        cc = pick[take]
        owner[rr, cc] = np.repeat(p, take.sum(1))
        available[rr, cc] = False
    return owner


# ====================================================================== the agent
class PimcAgent(Agent):
    """Determinised search; see the module docstring. Parameters:

    ``samples`` deals per decision; ``max_actions`` candidate actions searched (the
    rollout policy's choice and its nearest alternatives by action id); ``rollout`` the
    spec of the policy playing every seat in the playouts (it must offer
    ``decide(view, legal, rules)``, as ``heuristic`` does); ``horizon`` ``auto`` |
    ``round`` | ``game``: under ``round`` a playout is worth the heuristic's value of the
    player's score at the round's end (a win for exactly 0); under ``game`` someone
    else finishing counts as a loss (``-win_value``) and a shared finish as a share of
    the win; ``auto`` uses ``game`` when an active player's score is at most
    ``close_at`` (the game may end this round) and ``round`` otherwise; ``chunk``
    playouts per batch."""

    batched = True

    def __init__(
        self,
        samples: int = 16,
        max_actions: int = 4,
        rollout: str = "heuristic",
        horizon: str = "auto",
        close_at: int = 6,
        chunk: int = 16384,
        seed: int | None = 0,
        rules: Rules | None = None,
    ):
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"pimc: samples must be an int >= 1, got {samples!r}")
        if isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 2:
            raise ValueError(f"pimc: max_actions must be an int >= 2, got {max_actions!r}")
        if horizon not in ("auto", "round", "game"):
            raise ValueError(f"pimc: horizon must be 'auto', 'round' or 'game', got {horizon!r}")
        self.samples, self.max_actions = samples, max_actions
        self.policy = make_agent(rollout)
        if not hasattr(self.policy, "decide"):
            raise ValueError(f"pimc: the rollout policy {rollout!r} has no decide(view, legal, rules)")
        self.horizon, self.close_at = horizon, int(close_at)
        self.chunk = int(chunk)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.rules = rules
        self.decisions = 0  # searched decisions (for cost reports)
        self.playouts = 0

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    # -------------------------------------------------------------- entry
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = check_masks(mask)
        obs = np.asarray(obs, dtype=np.float32)
        base = np.asarray(self.policy.act_batch(obs, np.asarray(mask)), dtype=np.int64)
        view = decode_batch(obs)
        search = np.isin(view.phase, [PHASE[p] for p in SEARCH_PHASES]) & (legal.sum(1) > 1)
        out = base.copy()
        rows_all = np.flatnonzero(search)
        if not len(rows_all):
            return out
        for group in rules_groups(view.rows(rows_all)):
            rows = rows_all[group]
            sub = view.rows(rows)
            rules = self.rules if self.rules is not None else rules_from_obs(sub)
            # rows per chunk so that a chunk's playouts stay below ``chunk``
            per_row = self.samples * min(self.max_actions, int(legal[rows].sum(1).max()))
            step = max(1, self.chunk // max(per_row, 1))
            for lo in range(0, len(rows), step):
                part = np.arange(lo, min(lo + step, len(rows)))
                out[rows[part]] = self._search(sub.rows(part), legal[rows[part]], base[rows[part]], rules)
        return out

    def _candidates(self, legal_row: np.ndarray, base_action: int) -> list[int]:
        """The legal actions, or when there are more than ``max_actions``: the policy's
        choice, passing (in the auction) and the actions nearest the choice by id (the
        neighbouring bids, the neighbouring cards of a suit)."""
        acts = np.flatnonzero(legal_row)
        if len(acts) <= self.max_actions:
            return [int(a) for a in acts]
        keep = [base_action] + ([PASS] if legal_row[PASS] and base_action != PASS else [])
        near = sorted((int(a) for a in acts if a not in keep), key=lambda a: (abs(a - base_action), a))
        return sorted(keep + near[: self.max_actions - len(keep)])

    def _search(self, view: ObsBatch, legal: np.ndarray, base: np.ndarray, rules: Rules) -> np.ndarray:
        B, S = len(view), self.samples
        n = int(view.num_players[0])
        cands = [self._candidates(legal[i], int(base[i])) for i in range(B)]
        counts = np.array([len(c) for c in cands])
        # deal the hidden cards: S samples per row, shared by all candidate actions
        seen_thrown = view.seen_thrown & ~view.reshuffled[:, None]
        unseen = ~(view.hand | view.played | view.trick | seen_thrown)
        sizes = hand_sizes(view, rules)
        rep = np.repeat(np.arange(B), S)
        owners = sample_owners(unseen[rep], sizes[rep], view.voids[rep], self.rng)  # [B*S, 52]
        hands = owners[:, None, :] == np.arange(n)[None, :, None]
        hands[:, 0] = view.hand[rep]
        led = led_suit(view, legal)
        # one playout per (row, sample, candidate)
        row_of = np.repeat(np.arange(B), S * counts)
        sample_of = np.concatenate([np.repeat(np.arange(i * S, (i + 1) * S), counts[i]) for i in range(B)])
        cand_of = np.concatenate([np.tile(np.arange(counts[i]), S) for i in range(B)])
        action_of = np.concatenate([np.tile(np.array(cands[i]), S) for i in range(B)])
        po = Playout(rules, n, view, row_of, hands[sample_of], led[row_of])
        po.step(np.arange(len(row_of)), action_of)
        run(po, self.policy, rules)
        values = self._values(po, view, row_of, rules)
        self.decisions += B
        self.playouts += len(row_of)
        out = np.empty(B, dtype=np.int64)
        for i in range(B):
            sel = row_of == i
            mean = np.bincount(cand_of[sel], weights=values[sel], minlength=counts[i]) / S
            mean = mean + 1e-9 * (np.array(cands[i]) == base[i])  # ties: the policy's choice
            out[i] = cands[i][int(np.argmax(mean))]
        return out

    def _values(self, po: Playout, view: ObsBatch, row_of: np.ndarray, rules: Rules) -> np.ndarray:
        """The worth of each finished playout for the searching player (seat 0)."""
        h = self.policy
        win = float(getattr(h, "win_value", 10.0))
        elim = float(getattr(h, "elim_value", 30.0))
        res = po.outcome()
        my = res["scores"][:, 0]
        value = h.value_of_score(my, rules) if hasattr(h, "value_of_score") else -np.abs(my).astype(float)
        n = po.n
        scores = view.score[:, :n]
        active = view.active[:, :n]
        close = (np.where(active, scores, 10**6) <= self.close_at).any(1)
        game = np.full(len(view), self.horizon == "game") | ((self.horizon == "auto") & close)
        game = game[row_of]
        on_zero = res["on_zero"]
        k = on_zero.sum(1)
        finished = on_zero.any(1)
        shared = np.where(on_zero[:, 0], win / np.maximum(k, 1), -win)
        value = np.where(game & finished, shared, value)
        winner = res["winner"]
        value = np.where(winner == 0, win, np.where(winner > 0, np.where(game, -win, value), value))
        value = np.where(res["eliminated"][:, 0], -elim, value)
        return value


register("pimc", PimcAgent)
