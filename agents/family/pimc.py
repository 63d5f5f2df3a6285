"""The family's ``pimc``: determinised search (perfect-information Monte Carlo) over a rollout
bot, for every game of the family (:mod:`redbeard_env.family`).

At each bid and card play with more than one legal action (discards are left to the
rollout bot):

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player
   has seen (:func:`deal_constrained`: each player's hand size, the cards it may hold; the
   most constrained players first). What a player may hold is the game's to say: its
   ``hidden_hands`` reads its decoded observation (the cards played, the voids shown by not
   following, the turned card, the cards taken back under ``deal = carry`` ...).
2. **Play out** every (sample, candidate action) pair to the end of the round on the game's
   batch engine (worlds loaded as arrays with ``stop_at_round_end``): the candidate first,
   then the rollout bot in every seat. Seats are the searching player's relative positions
   (it is seat 0). Rödskägg's ``pimc`` rebuilds its worlds from Rödskägg's state and
   observation; both play out on their game's batch engine, never on a copy of the rules.
3. **Choose** the action with the best mean value over the samples (common random
   numbers: every candidate sees the same samples). A playout is worth the player's
   points for the round minus ``spite`` times the mean of the others' points (the game
   is won on the highest total).

Cost per decision: about ``samples x legal actions x`` (remaining decisions of the round)
rollout decisions, played in chunks of at most ``max_worlds`` worlds. A game's ``pimc``
subclasses :class:`FamilyPIMC`, naming its batch engine, its observation decoder, how the
rules and the hidden hands are read from an observation and how a world is loaded.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from redbeard_env.family.vector import BID, PLAY

from ..base import Agent, check_batch
from ..params import SEED, Bot, Float, Int, set_numbers
from ..registry import make_agent
from ..search import weighted_keys
from .decode import PHASE

PLAYOUT_CALLS = 5  # decisions of its rollout bot a playout costs, measured (agents.params)
MAX_PLAYOUT_STEPS = 1000  # decisions to a round's end: far more than any round takes


def hold_counts(v, rows: np.ndarray, phase_play: int) -> np.ndarray:
    """int [len(rows), P]: how many cards each other position holds now (position 0, the
    observer, and the seats beyond the table: 0). Any family game's decoded observation."""
    P = v.bid.shape[1]
    n = v.num_players[rows]
    h = v.hand_size[rows]
    playing = v.phase[rows] == phase_play
    left = np.where(playing, h - v.tricks[rows].sum(1), h)
    hold = np.where(np.arange(P)[None, :] < n[:, None], left[:, None] - (v.trick_played[rows] & playing[:, None]), 0)
    hold[:, 0] = 0
    return hold


def deal_constrained(hold: np.ndarray, allowed: np.ndarray, available: np.ndarray, samples: int,
                     rng: np.random.Generator, weights: np.ndarray | None = None) -> np.ndarray:
    """bool [m, samples, P, cards]: ``samples`` deals giving each position ``hold`` cards
    from ``available`` [m, cards] within its ``allowed`` [m, P, cards], the most constrained
    positions first (contradictory information: any card left); uniformly, or with
    ``weights`` [m, P, cards] (> 0) drawn without replacement in proportion to them
    (:func:`agents.search.weighted_keys`: the search's belief-dealt worlds)."""
    m, P, num_cards = allowed.shape
    order = np.argsort(allowed.sum(2) - hold + np.where(hold > 0, 0, 10**6), axis=1, kind="stable")
    out = np.zeros((m, samples, P, num_cards), bool)
    available = np.broadcast_to(available[:, None, :], (m, samples, num_cards)).copy()
    ar = np.arange(m)
    for r in range(P):
        p = order[:, r]
        k = hold[ar, p]
        if not k.any():
            continue
        ok = available & allowed[ar, p][:, None, :]
        short = ok.sum(2) < k[:, None]
        ok = np.where(short[:, :, None], available, ok)
        w = None if weights is None else np.broadcast_to(weights[ar, p][:, None, :], ok.shape)
        keys = np.where(ok, weighted_keys(rng, w, ok.shape), np.inf)
        rank = keys.argsort(2).argsort(2)
        chosen = ok & (rank < k[:, None, None])
        out[ar, :, p] = chosen
        available &= ~chosen
    return out


class FamilyPIMC(Agent):
    """The search of the module docstring. A game's subclass sets ``game``, ``COST`` (its
    largest bid + 1: the most candidates) and ``world_parts``, the game's pimc module, which
    says how the game's worlds are read and loaded: its batch engine ``VectorEnv``, its
    observation decoder ``decode_batch``, ``rules_from_obs(v, row)`` (the ``Rules`` of a row,
    with the round's hand size), ``hidden_hands(v, rows, samples, rng)`` (the others' sampled
    hands), ``trick_seats(v, row)`` (position -> its card in the current trick) and
    ``world_state(v, src, n)`` (the game's own state arrays of the worlds)."""

    game = ""
    value_units = "points"  # action_values: the round's expected points (minus spite x the others')
    world_parts: ModuleType

    #: the spec's parameters (agents.params); a decision costs samples x candidates playouts
    #: (at most max_bid + 1 candidates: COST), a playout about PLAYOUT_CALLS decisions of the rollout bot
    PARAMS = {
        "samples": Int(1, 1024, per=1, help="deals sampled per decision"),
        "rollout": Bot(calls=PLAYOUT_CALLS, help="the bot playing every seat of the playouts"),
        "spite": Float(0, 2, help="weight of the others' mean points in a playout's worth"),
        "max_worlds": Int(1, 65536, help="worlds per batch (bounds the engine's memory)"),
        "seed": SEED,
    }
    COST: float  # cost units (agents.params) per sample and rollout decision: the game's most candidates

    def __init__(self, samples: int = 16, rollout: str = "heuristic", spite: float = 0.5,
                 max_worlds: int = 4096, seed: int | None = None):
        set_numbers(self, FamilyPIMC.PARAMS, samples=samples, spite=spite, max_worlds=max_worlds)
        self.rollout = make_agent(rollout, game=self.game, seed=seed)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.decisions = 0  # decisions searched (tournaments report ms per searched decision)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)
        if hasattr(self.rollout, "reset"):
            self.rollout.reset(seed)

    def searches(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """bool [B]: the rows this bot searches; its rollout bot decides the others."""
        obs, legal = check_batch(obs, mask, self.game)
        return self._searched(self.world_parts.decode_batch(obs), legal)

    @staticmethod
    def _searched(v, legal: np.ndarray) -> np.ndarray:
        return np.isin(v.phase, [PHASE["bid"], PHASE["play"]]) & (legal.sum(1) > 1)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, A]: the mean worth of every legal action over the sampled deals (the
        round's points minus ``spite`` times the others' mean); ``-inf`` for illegal actions,
        ``nan`` for the legal actions of decisions left to the rollout bot (discards) or with
        one legal action."""
        obs, legal = check_batch(obs, mask, self.game)
        out = np.where(legal, np.nan, -np.inf)
        v = self.world_parts.decode_batch(obs)
        search = np.flatnonzero(self._searched(v, legal))
        for chunk, n, rules in self._chunks(v, legal, search):
            self._search(v, legal, chunk, n, rules)
            for r, (cands, means) in zip(chunk, self.last_means):
                out[r, cands] = means
        return out

    def _chunks(self, v, legal: np.ndarray, search: np.ndarray):
        """The searched rows by (players, rules), in chunks of at most ``max_worlds`` worlds
        (at least one row): ``(rows, players, rules)``."""
        groups: dict = {}
        for r in search:
            groups.setdefault((int(v.num_players[r]), self.world_parts.rules_from_obs(v, r)), []).append(r)
        for (n, rules), rows in groups.items():
            rows = np.array(rows)
            per_row = self.samples * np.array([len(self._candidates(int(r), legal[r])) for r in rows])
            start = 0
            while start < len(rows):
                end = start + max(1, int(np.searchsorted(np.cumsum(per_row[start:]), self.max_worlds, side="right")))
                yield rows[start:end], n, rules
                start = end

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        actions = np.asarray(self.rollout.act_batch(obs, mask), dtype=np.int64)
        v = self.world_parts.decode_batch(obs)
        search = np.flatnonzero(self._searched(v, legal))
        if len(search) == 0:
            return actions
        self.decisions += len(search)
        for chunk, n, rules in self._chunks(v, legal, search):  # one engine per rules seen (a tournament has one)
            actions[chunk] = self._search(v, legal, chunk, n, rules)
        return actions

    # what a subclass guides (agents.family.search): the candidates of a row, the weights of
    # each position's cards in the worlds dealt for rows (None: uniform)
    def _candidates(self, row: int, legal_row: np.ndarray) -> np.ndarray:
        return np.flatnonzero(legal_row)

    def _owner_weights(self, rows: np.ndarray) -> np.ndarray | None:
        return None

    def _search(self, v, legal: np.ndarray, rows: np.ndarray, n: int, rules: Any) -> np.ndarray:
        S = self.samples
        cand = [self._candidates(int(r), legal[r]) for r in rows]
        # world w: row index, sample, candidate
        row_of, sample_of, action_of = [], [], []
        for i, c in enumerate(cand):
            row_of.append(np.repeat(i, S * len(c)))
            sample_of.append(np.tile(np.arange(S), len(c)))
            action_of.append(np.repeat(c, S))
        row_of, sample_of, action_of = (np.concatenate(x) for x in (row_of, sample_of, action_of))
        W = len(row_of)
        venv = self.world_parts.VectorEnv(W, n, rules=rules, seed=int(self.rng.integers(2**31)), auto_reset=False)
        try:
            hands = self.world_parts.hidden_hands(v, rows, S, self.rng, self._owner_weights(rows))  # [m, S, P, cards]
            hands[:, :, 0] = v.hand[rows][:, None, :]
            self._load_worlds(venv, v, rows, row_of, hands[row_of, sample_of][:, :n])
        except (IndexError, StopIteration) as exc:  # a trick or hands no game state has
            raise ValueError(f"pimc: observation row {int(rows[0])} does not describe a game state "
                             f"({type(exc).__name__}: {str(exc)[:80]})") from None
        value = self._play_out(venv, action_of, rows, row_of)
        best = np.empty(len(rows), np.int64)
        self.last_means = []  # per row: (candidates, their mean values), for action_values
        for i, c in enumerate(cand):
            means = value[row_of == i].reshape(len(c), S).mean(1)
            best[i] = c[int(means.argmax())]
            self.last_means.append((c, means))
        return best

    def _play_out(self, venv, first: np.ndarray, rows: np.ndarray, row_of: np.ndarray) -> np.ndarray:
        """float [W]: each loaded world's worth (the searcher's points for the round minus
        ``spite`` times the others' mean), played from its ``first`` action to the round's
        end by the rollout bot in every seat."""
        W = len(first)
        value = np.zeros(W)
        actions = first
        for _ in range(MAX_PLAYOUT_STEPS):
            obs, mask, seat, _, _, _, info = venv.step(actions)
            over = info["round_over"]
            if over.any():
                value[over] = self._round_worth(info, over)
            live = np.flatnonzero(~venv.halted)
            if len(live) == 0:
                return value
            actions = np.zeros(W, np.int64)
            actions[live] = self.rollout.act_batch(obs[live], mask[live])
        # worlds loaded from a view no game state has (e.g. a player count its hands contradict)
        raise ValueError(f"pimc: a playout of observation row {int(rows[0])} did not reach the round's end: "
                         f"the observation does not describe a game state")

    def _round_worth(self, info: dict, over: np.ndarray) -> np.ndarray:
        """float [over.sum()]: the worth of the worlds whose round ended in this step (the
        searcher's points minus ``spite`` times the others' mean)."""
        delta = info["round_delta"][over].astype(float)
        return delta[:, 0] - self.spite * delta[:, 1:].mean(1)

    @classmethod
    def _load_worlds(cls, venv, v, rows: np.ndarray, row_of: np.ndarray, hands: np.ndarray):
        """Load the sampled worlds (position = seat: the searcher is seat 0 and acts; each
        world halts at its round's end): what every game of the family shows, then the
        game's own arrays (:attr:`world_state`)."""
        n = venv.num_players
        src = rows[row_of]
        phase = np.where(v.phase[src] == PHASE["bid"], BID, PLAY)
        trick_card = np.full((len(src), n), -1, np.int64)
        for i, r in enumerate(rows):
            for pos, card in cls.world_parts.trick_seats(v, r).items():
                trick_card[row_of == i, pos] = card
        return venv.load_arrays(dict(
            hands=hands, phase=phase, dealer=v.dealer[src], to_act=np.zeros(len(src), np.int64),
            leader=np.where(phase == PLAY, v.leader[src], -1), scores=np.rint(v.score[src, :n]).astype(np.int64),
            bids=v.bid[src, :n], tricks=v.tricks[src, :n], trick_card=trick_card, trick_len=v.trick[src].sum(1),
            led=v.led[src], played=v.played[src], voids=v.voids[src, :n], **cls.world_parts.world_state(v, src, n)),
            stop_at_round_end=True)
