"""Oh Hell's ``pimc``: determinised search (perfect-information Monte Carlo) over the heuristic.

At each bid and card play with more than one legal action:

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player has
   seen: its hand, the turned card, the cards played (finished tricks and the current one),
   each player's hand size and the voids shown by not following. Cards are dealt uniformly
   subject to those constraints, the most constrained players first.
2. **Play out** every (sample, candidate action) pair to the end of the deal on the batch
   engine (:class:`redbeard_env.oh_hell.VectorEnv`, worlds loaded as arrays with
   ``stop_at_round_end``): the candidate first, then the rollout bot (``heuristic``) in every
   seat. Seats are the searching player's relative positions (it is seat 0).
3. **Choose** the action with the best mean value over the samples (common random numbers:
   every candidate sees the same samples). A playout is worth the player's points minus
   ``spite`` times the mean of the others' points (the deal is won on the most points).

Cost per decision: about ``samples x legal actions x`` (remaining decisions of the deal)
rollout decisions, played in chunks of at most ``max_worlds`` worlds.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.oh_hell.cards import MAX_BID, NUM_ACTIONS, NUM_CARDS
from redbeard_env.oh_hell.rules import Rules, make_rules
from redbeard_env.oh_hell.vector import VectorEnv
from redbeard_env.sortskaeg.vector import BID, PLAY

from ..base import Agent, check_finite, check_masks, cost_number
from ..registry import make_agent
from .decode import CARD_SUIT, PHASE, OObs, decode_batch


def rules_from_obs(v: OObs, row: int) -> Rules:
    """The rules a row's observation shows, with this deal's hand size fixed."""
    return make_rules("oh_hell", num_tricks=max(int(v.hand_size[row]), 1), num_suits=int(v.num_suits[row]),
                      num_cards_per_suit=int(v.num_cards_per_suit[row]), points_per_trick=int(v.points_per_trick[row]),
                      off_bid_penalty=bool(v.off_bid_penalty[row]))


def hidden_hands(v: OObs, rows: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """bool [len(rows), samples, P, 52]: sampled hands of the other positions (position 0, the
    observer, holds nothing here), consistent with the observation."""
    P = v.bid.shape[1]
    m = len(rows)
    n = v.num_players[rows]
    h = v.hand_size[rows]
    playing = v.phase[rows] == PHASE["play"]
    left = np.where(playing, h - v.tricks[rows].sum(1), h)
    hold = np.where(np.arange(P)[None, :] < n[:, None], left[:, None] - (v.trick_played[rows] & playing[:, None]), 0)
    hold[:, 0] = 0
    known = v.hand[rows] | v.played[rows] | v.trick[rows] | v.trump_card[rows]
    universe = v.in_play[rows] & ~known
    allowed = np.broadcast_to(universe[:, None, :], (m, P, NUM_CARDS)) & ~v.voids[rows][:, :, CARD_SUIT]
    # the most constrained first: fewest places for its cards; positions holding nothing last
    order = np.argsort(allowed.sum(2) - hold + np.where(hold > 0, 0, 10**6), axis=1, kind="stable")
    out = np.zeros((m, samples, P, NUM_CARDS), bool)
    available = np.broadcast_to(universe[:, None, :], (m, samples, NUM_CARDS)).copy()
    ar = np.arange(m)
    for r in range(P):
        p = order[:, r]
        k = hold[ar, p]
        if not k.any():
            continue
        ok = available & allowed[ar, p][:, None, :]
        short = ok.sum(2) < k[:, None]
        ok = np.where(short[:, :, None], available, ok)  # contradictory information: any card left
        keys = np.where(ok, rng.random(ok.shape), np.inf)
        rank = keys.argsort(2).argsort(2)
        chosen = ok & (rank < k[:, None, None])
        out[ar, :, p] = chosen
        available &= ~chosen
    return out


def trick_seats(v: OObs, row: int) -> dict[int, int]:
    """Position -> its card in the current trick (the observation's ``played_by``)."""
    cards = np.flatnonzero(v.trick[row])
    return {int(np.flatnonzero(v.played_by[row, :, c])[0]): int(c) for c in cards}


class OhHellPIMC(Agent):
    """See the module docstring."""

    game = "oh_hell"

    def __init__(self, samples: int = 16, rollout: str = "heuristic", spite: float = 0.5,
                 max_worlds: int = 4096, seed: int | None = None):
        if samples < 1 or max_worlds < 1:
            raise ValueError(f"samples and max_worlds must be >= 1, got {samples}, {max_worlds}")
        self.samples, self.spite, self.max_worlds = int(samples), float(spite), int(max_worlds)
        self.rollout = make_agent(rollout, game=self.game, seed=seed)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.decisions = 0  # decisions searched (tournaments report ms per searched decision)

    @staticmethod
    def search_cost(samples=16, **_) -> float:
        """Playouts a searched decision costs at most: ``samples x`` candidates (at most
        the MAX_BID + 1 bids; the rollout bot's own cost multiplies it; see :mod:`agents.base`)."""
        return cost_number(samples) * (MAX_BID + 1)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)
        if hasattr(self.rollout, "reset"):
            self.rollout.reset(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = check_masks(mask, NUM_ACTIONS)
        obs = check_finite(np.asarray(obs, dtype=np.float32))
        actions = np.asarray(self.rollout.act_batch(obs, mask), dtype=np.int64)
        v = decode_batch(obs)
        search = np.flatnonzero(np.isin(v.phase, [PHASE["bid"], PHASE["play"]]) & (legal.sum(1) > 1))
        if len(search) == 0:
            return actions
        self.decisions += len(search)
        groups: dict = {}
        for r in search:
            groups.setdefault((int(v.num_players[r]), rules_from_obs(v, r)), []).append(r)
        for (n, rules), rows in groups.items():
            rows = np.array(rows)
            per_row = self.samples * legal[rows].sum(1)
            start = 0
            while start < len(rows):  # chunks of at most max_worlds worlds (at least one row)
                end = start + max(1, int(np.searchsorted(np.cumsum(per_row[start:]), self.max_worlds, side="right")))
                chunk = rows[start:end]
                actions[chunk] = self._search(v, legal, chunk, n, rules)
                start = end
        return actions

    def _search(self, v: OObs, legal: np.ndarray, rows: np.ndarray, n: int, rules: Rules) -> np.ndarray:
        S = self.samples
        hands = hidden_hands(v, rows, S, self.rng)  # [m, S, P, 52]
        hands[:, :, 0] = v.hand[rows][:, None, :]
        cand = [np.flatnonzero(legal[r]) for r in rows]
        row_of = np.concatenate([np.repeat(i, S * len(c)) for i, c in enumerate(cand)])
        sample_of = np.concatenate([np.tile(np.arange(S), len(c)) for c in cand])
        action_of = np.concatenate([np.repeat(c, S) for c in cand])
        W = len(row_of)
        venv = VectorEnv(W, n, rules=rules, seed=int(self.rng.integers(2**31)), auto_reset=False)
        self._load_worlds(venv, v, rows, row_of, hands[row_of, sample_of][:, :n])
        value = np.zeros(W)
        actions = action_of
        while True:
            obs, mask, seat, _, _, _, info = venv.step(actions)
            over = info["round_over"]
            if over.any():
                delta = info["round_delta"][over].astype(float)
                value[over] = delta[:, 0] - self.spite * delta[:, 1:].mean(1)
            live = np.flatnonzero(~venv.halted)
            if len(live) == 0:
                break
            actions = np.zeros(W, np.int64)
            actions[live] = self.rollout.act_batch(obs[live], mask[live])
        best = np.empty(len(rows), np.int64)
        for i, c in enumerate(cand):
            means = value[row_of == i].reshape(len(c), S).mean(1)
            best[i] = c[int(means.argmax())]
        return best

    @staticmethod
    def _load_worlds(venv: VectorEnv, v: OObs, rows: np.ndarray, row_of: np.ndarray, hands: np.ndarray):
        """Load the sampled worlds (position = seat: the searcher is seat 0 and acts; each
        world halts at the deal's end)."""
        n = venv.num_players
        src = rows[row_of]
        phase = np.where(v.phase[src] == PHASE["bid"], BID, PLAY)
        trick_card = np.full((len(src), n), -1, np.int64)
        for i, r in enumerate(rows):
            for pos, card in trick_seats(v, r).items():
                trick_card[row_of == i, pos] = card
        turned = np.where(v.trump_card[src].any(1), v.trump_card[src].argmax(1), -1)
        return venv.load_arrays(dict(
            hands=hands, phase=phase, round=np.zeros(len(src), np.int64), dealer=v.dealer[src],
            first_dealer=v.dealer[src], to_act=np.zeros(len(src), np.int64),
            leader=np.where(phase == PLAY, v.leader[src], -1), scores=np.rint(v.score[src, :n]).astype(np.int64),
            bids=v.bid[src, :n], tricks=v.tricks[src, :n], trick_card=trick_card, trick_len=v.trick[src].sum(1),
            led=v.led[src], played=v.played[src], voids=v.voids[src, :n], trumps=v.trumps[src],
            trump_card=turned), stop_at_round_end=True)
