"""``pimc``: determinised search (perfect-information Monte Carlo) over the heuristic.

At each decision with more than one legal action (auction, ask, join, card play; the
redeal and look questions are left to the rollout policy):

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player
   has seen: its hand, the cards played (finished tricks and the current one), thrown-in
   cards it has seen, each player's hand size, and the voids revealed by not following
   suit. Cards are dealt uniformly subject to those constraints (players with voids first).
2. **Rebuild** a reference :class:`~redbeard_env.game.Game` per sample from the decoded
   observation (relative seats: the player is seat 0) and, for every candidate action,
   apply it to a copy.
3. **Play out** every (sample, action) copy with the rollout policy (``heuristic`` by
   default) for every seat, all samples and actions of all pending decisions as one batch
   on the batch engine (``redbeard_env.vector.VectorEnv.load_games``; the reference engine
   when the batch engine cannot load states).
4. **Choose** the action with the best mean outcome over the samples (common random
   numbers: every action sees the same samples): by default the round's end, valued as
   the heuristic values a score (distance to 0, a win for exactly 0); when some active
   player could finish this round (``close_at``), the outcome is the game's: +win for
   winning, -win for someone else winning, within ``game_rounds`` more rounds.

Cost per decision is about ``samples x min(legal actions, max_actions) x`` (remaining
decisions of the round) rollout steps; ``samples`` is the knob (``pimc:samples=128``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from redbeard_env import game as G
from redbeard_env.cards import NUM_CARDS, NUM_RANKS
from redbeard_env.observation import JOIN_STATES
from redbeard_env.rules import HAND_SIZE, Rules

from .base import Agent, check_masks
from .cardmodel import SUIT_OF
from .decode import PHASE, ObsBatch, decode_batch, led_suit, rules_from_obs, rules_groups
from .registry import make_agent, register

SEARCH_PHASES = ("bid", "ask", "join", "play", "duel")


# ====================================================================== rebuilding games
def _clone(g: G.Game, rng: np.random.Generator) -> G.Game:
    """A copy of a game that shares nothing mutable with it."""
    return dataclasses.replace(
        g,
        rng=rng,
        scores=list(g.scores),
        deck_queue=[],
        active=list(g.active),
        hands=[set(h) for h in g.hands],
        stock=list(g.stock),
        thrown=list(g.thrown),
        throws=list(g.throws),
        seen_thrown=[set(s) for s in g.seen_thrown],
        queue=list(g.queue),
        thrown_hand=list(g.thrown_hand),
        resume_queue=list(g.resume_queue),
        calls=list(g.calls),
        in_round=list(g.in_round),
        tricks=list(g.tricks),
        trick=list(g.trick),
        played=set(g.played),
        voids=[list(v) for v in g.voids],
        joiner=list(g.joiner),
        bounced=list(g.bounced),
        duellists=list(g.duellists),
        events=[],
    )


def hand_sizes(view: ObsBatch, rules: Rules) -> np.ndarray:
    """int [B, 7]: cards each other position holds (0 for the observer and non-players)."""
    B = len(view)
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


def _trick_order(view: ObsBatch, i: int, n: int, led: int) -> list[tuple[int, int]]:
    """(seat, card) pairs of the current trick in play order, consistent with what the
    observation shows: the leader's card is of the led suit and the position holding the
    winning card holds the highest card of the led suit."""
    cards = [int(c) for c in np.flatnonzero(view.trick[i])]
    if not cards:
        return []
    leader = int(view.leader[i])
    seats = [leader] + [p for p in ((leader + k) % n for k in range(1, n)) if view.in_round[i, p]]
    seats = [p for p in seats if view.trick_played[i, p]]
    seats = seats[: len(cards)]
    led_cards = sorted((c for c in cards if c // NUM_RANKS == led), reverse=True)
    other = [c for c in cards if c // NUM_RANKS != led]
    assign: dict[int, int] = {}
    winner = int(view.trick_winning[i])
    if led_cards and winner in seats:
        assign[winner] = led_cards.pop(0)
    if leader not in assign and led_cards:
        assign[leader] = led_cards.pop(-1)
    rest = led_cards + other
    for p in seats:
        if p not in assign and rest:
            assign[p] = rest.pop()
    if leader not in assign and rest:  # inconsistent inference: keep the trick well-formed
        assign[leader] = rest.pop()
    return [(p, assign[p]) for p in seats if p in assign]


def build_game(view: ObsBatch, i: int, rules: Rules, owner: np.ndarray, rng: np.random.Generator,
               led: int = -1) -> G.Game:
    """The reference game of observation row ``i`` with hidden cards dealt by ``owner``
    (relative seats: the observer is seat 0)."""
    n = int(view.num_players[i])
    phase = G.PHASES[int(view.phase[i])]
    hands = [set() for _ in range(n)]
    hands[0] = {int(c) for c in np.flatnonzero(view.hand[i])}
    for c in np.flatnonzero(owner >= 0):
        hands[int(owner[c])].add(int(c))
    keys = rng.random(NUM_CARDS)
    loose = sorted(np.flatnonzero(owner == -1).tolist(), key=lambda c: keys[c])
    stock_size = int(view.stock_size[i])
    seen = view.seen_thrown[i] & ~view.reshuffled[i]
    calls = [None if c == -2 else int(c) for c in view.call[i, :n]]
    g = G.Game(
        rules=rules,
        num_players=n,
        rng=rng,
        scores=[int(s) for s in view.score[i, :n]],
        dealer=int(view.dealer[i]),
        active=[bool(a) for a in view.active[i, :n]],
        rounds_played=int(round(float(view.progress[i]) * rules.max_rounds)),
        phase=phase,
        to_act=0,
    )
    g.hands = hands
    g.stock = loose[:stock_size]
    g.thrown = loose[stock_size:] + [int(c) for c in np.flatnonzero(seen)]
    g.reshuffle_rank = rng.permutation(NUM_CARDS)
    g.redeals_open = bool(view.redeals_open[i])
    g.reshuffled = bool(view.reshuffled[i])
    g.throws = [int(t) for t in view.throws[i, :n]]
    g.seen_thrown = [set() for _ in range(n)]
    g.seen_thrown[0] = {int(c) for c in np.flatnonzero(view.seen_thrown[i])}
    g.calls = calls
    g.high_level = int(view.high_bid[i])
    g.declarer = int(view.declarer[i])
    g.in_round = [bool(x) for x in view.in_round[i, :n]]
    g.tricks = [int(t) for t in view.tricks[i, :n]]
    g.tricks_done = int(view.tricks_done[i])
    g.leader = int(view.leader[i])
    g.played = {int(c) for c in np.flatnonzero(view.played[i])}
    g.voids = [[bool(x) for x in view.voids[i, p]] for p in range(n)]
    g.join_state = JOIN_STATES[int(view.join_state[i])]
    g.joiner = [bool(x) for x in view.joiner[i, :n]]
    g.bounced = [bool(x) for x in view.bounced[i, :n]]
    g.tied_duels = int(view.tied_duels[i])
    if phase == "bid":
        if rules.auction == "single":
            dealer = g.dealer
            upto = [(k % n) for k in range(0, ((dealer - 0) % n) + 1)]  # me .. dealer
            g.queue = [p for p in upto if g.active[p] and calls[p] is None]
        else:
            g.queue = []
    elif phase == "join":
        d = g.declarer
        seq = [(d + k) % n for k in range(1, n)]
        seq = [p for p in seq if g.in_round[p]]
        g.queue = seq[seq.index(0):] if 0 in seq else [0]
    elif phase in ("play", "duel"):
        if led < 0 and view.trick[i].any():
            led = int(led_suit(view.rows([i]))[0])
        g.trick = _trick_order(view, i, n, led)
        if phase == "duel":
            g.duellists = [p for p in range(n) if g.in_round[p]]
    return g


# ====================================================================== rollouts
class _ReferenceRollout:
    """Play games to the horizon on the reference engine (Python; the fallback)."""

    def run(self, games: list[G.Game], policy: Agent, stop_round: list[bool], max_rounds: list[int]):
        from redbeard_env.observation import OBS_SIZE, encode, static_prefix

        N = len(games)
        prefix = static_prefix(games[0].rules, games[0].num_players) if N else None
        live = np.array([not g.game_over for g in games], dtype=bool)
        start_rounds = [g.rounds_played for g in games]
        while live.any():
            idx = np.flatnonzero(live)
            obs = np.empty((len(idx), OBS_SIZE), np.float32)
            mask = np.zeros((len(idx), 69), np.int8)
            for k, b in enumerate(idx):
                g = games[b]
                obs[k] = encode(g, g.to_act, prefix)
                mask[k, G.legal_actions(g)] = 1
            acts = policy.act_batch(obs, mask)
            for k, b in enumerate(idx):
                g = games[b]
                G.apply_action(g, int(acts[k]))
                ended_round = any(e[0] == "round_end" for e in g.events)
                if g.game_over:
                    live[b] = False
                elif ended_round and (stop_round[b] or g.rounds_played - start_rounds[b] >= max_rounds[b]):
                    live[b] = False
        return games


def _vector_rollout_available() -> bool:
    try:
        from redbeard_env.vector import VectorEnv
    except Exception:
        return False
    return hasattr(VectorEnv, "load_games")


class _VectorRollout:
    """Play games to the horizon on the batch engine (states loaded from reference games)."""

    def run_values(self, games, policy, stop_round, max_rounds, rules, n, value_fn):
        from redbeard_env.vector import VectorEnv

        N = len(games)
        venv = VectorEnv(num_envs=N, num_players=n, rules=rules, seed=int(games[0].rng.integers(1 << 31)))
        obs, mask, seat = venv.load_games(games)
        live = np.ones(N, dtype=bool)
        values = np.zeros(N)
        rounds = np.zeros(N, np.int64)
        stop_round = np.asarray(stop_round)
        max_rounds = np.asarray(max_rounds)
        arN = np.arange(N)
        while live.any():
            actions = mask.argmax(1).astype(np.int64)
            idx = np.flatnonzero(live)
            actions[idx] = policy.act_batch(obs[idx], mask[idx])
            obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
            over = info["round_over"] & live
            rounds += over
            done = (term | trunc) & live
            if done.any():
                w = np.asarray(info["winner"])[done]
                fs = np.asarray(info["final_score"])[done, 0]
                values[done] = value_fn(w, fs, trunc[done])
            fin = over & ~done & (stop_round | (rounds >= max_rounds))
            if fin.any():
                values[fin] = value_fn(np.full(fin.sum(), -1), np.asarray(info["score"])[fin, 0], np.ones(fin.sum(), bool))
            live &= ~(done | fin)
        del arN
        return values


# ====================================================================== the agent
class PimcAgent(Agent):
    """Determinised search; see the module docstring. Parameters:

    ``samples`` deals per decision; ``max_actions`` candidate actions searched (the
    rollout policy's choice and its nearest alternatives); ``rollout`` the spec of the
    policy playing every seat in the rollouts; ``horizon`` ``auto`` | ``round`` | ``game``;
    ``close_at``: under ``auto``, play to the game's end (at most ``game_rounds`` more
    rounds) when an active player's score is at most this; ``engine`` ``auto`` |
    ``vector`` | ``reference``; ``chunk`` rollouts per batch."""

    batched = True

    def __init__(
        self,
        samples: int = 32,
        max_actions: int = 8,
        rollout: str = "heuristic",
        horizon: str = "auto",
        close_at: int = 6,
        game_rounds: int = 3,
        engine: str = "auto",
        chunk: int = 8192,
        seed: int | None = 0,
        rules: Rules | None = None,
    ):
        if not isinstance(samples, int) or samples < 1:
            raise ValueError(f"pimc: samples must be an int >= 1, got {samples!r}")
        if not isinstance(max_actions, int) or max_actions < 2:
            raise ValueError(f"pimc: max_actions must be an int >= 2, got {max_actions!r}")
        if horizon not in ("auto", "round", "game"):
            raise ValueError(f"pimc: horizon must be 'auto', 'round' or 'game', got {horizon!r}")
        if engine not in ("auto", "vector", "reference"):
            raise ValueError(f"pimc: engine must be 'auto', 'vector' or 'reference', got {engine!r}")
        self.samples, self.max_actions = samples, max_actions
        self.policy = make_agent(rollout)
        self.horizon, self.close_at, self.game_rounds = horizon, int(close_at), int(game_rounds)
        self.engine, self.chunk = engine, int(chunk)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.rules = rules
        self.decisions = 0  # searched decisions (for cost reports)
        self.rollouts = 0
        self.failures = 0  # candidate actions the rebuilt state did not allow (should stay 0)

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
            out[rows] = self._search(sub, legal[rows], base[rows], rules)
        return out

    def _candidates(self, legal_row: np.ndarray, base_action: int) -> list[int]:
        acts = np.flatnonzero(legal_row)
        if len(acts) <= self.max_actions:
            return [int(a) for a in acts]
        near = sorted(acts, key=lambda a: (abs(int(a) - base_action), int(a)))
        return sorted(int(a) for a in near[: self.max_actions])

    def _search(self, view: ObsBatch, legal: np.ndarray, base: np.ndarray, rules: Rules) -> np.ndarray:
        B, S = len(view), self.samples
        n = int(view.num_players[0])
        cands = [self._candidates(legal[i], int(base[i])) for i in range(B)]
        # how far to look
        active_scores = np.where(view.active, view.score, 10**6)[:, :n]
        close = (active_scores <= self.close_at).any(1)
        game_level = np.full(B, self.horizon == "game") | ((self.horizon == "auto") & close)
        # deal the hidden cards: S samples per row, shared by all candidate actions
        seen_thrown = view.seen_thrown & ~view.reshuffled[:, None]
        unseen = ~(view.hand | view.played | view.trick | seen_thrown)
        sizes = hand_sizes(view, rules)
        led = led_suit(view, legal)
        rep = np.repeat(np.arange(B), S)
        owners = sample_owners(unseen[rep], sizes[rep], view.voids[rep], self.rng)
        # rollout jobs: (row, sample, candidate)
        games: list[G.Game] = []
        meta: list[tuple[int, int]] = []  # (row, candidate index)
        stop_round: list[bool] = []
        max_rounds: list[int] = []
        seeds = self.rng.integers(1 << 62, size=B * S)
        for i in range(B):
            for j in range(S):
                k = i * S + j
                template = build_game(view, i, rules, owners[k], np.random.default_rng(seeds[k]), int(led[i]))
                for c, a in enumerate(cands[i]):
                    g = _clone(template, np.random.default_rng(seeds[k]))
                    try:
                        G.apply_action(g, a)
                    except ValueError:  # the rebuilt state disagrees with the mask: never pick it
                        self.failures += 1
                        g = _clone(template, np.random.default_rng(seeds[k]))
                        g.winner, g.terminated, g.phase, g.to_act = 1 % n, True, "done", -1
                    games.append(g)
                    meta.append((i, c))
                    stop_round.append(not game_level[i])
                    max_rounds.append(self.game_rounds if game_level[i] else 1)
        values = self._rollout_values(games, stop_round, max_rounds, rules, n)
        self.decisions += B
        self.rollouts += len(games)
        totals = [np.zeros(len(c)) for c in cands]
        for (i, c), v in zip(meta, values):
            totals[i][c] += v
        out = np.empty(B, dtype=np.int64)
        for i in range(B):
            t = totals[i] / S
            t = t + 1e-9 * np.array([a == base[i] for a in cands[i]])  # ties: the policy's choice
            out[i] = cands[i][int(np.argmax(t))]
        return out

    def _value_fn(self, rules: Rules):
        h = self.policy
        win = getattr(h, "win_value", 10.0)
        value_of_score = getattr(h, "value_of_score", None)

        def value(winner: np.ndarray, my_score: np.ndarray, unresolved: np.ndarray) -> np.ndarray:
            winner = np.asarray(winner)
            my_score = np.asarray(my_score)
            if value_of_score is not None:
                v = value_of_score(my_score, rules)
            else:
                v = -np.abs(my_score).astype(float)
            v = np.where(winner == 0, win, np.where(winner > 0, -win, v))
            return v

        return value

    def _rollout_values(self, games, stop_round, max_rounds, rules, n) -> np.ndarray:
        value_fn = self._value_fn(rules)
        values = np.zeros(len(games))
        use_vector = self.engine == "vector" or (self.engine == "auto" and _vector_rollout_available())
        for lo in range(0, len(games), self.chunk):
            hi = min(lo + self.chunk, len(games))
            part = games[lo:hi]
            if use_vector:
                values[lo:hi] = _VectorRollout().run_values(part, self.policy, stop_round[lo:hi], max_rounds[lo:hi],
                                                           rules, n, value_fn)
            else:
                _ReferenceRollout().run(part, self.policy, stop_round[lo:hi], max_rounds[lo:hi])
                values[lo:hi] = [self._game_value(g, value_fn) for g in part]
        return values

    def _game_value(self, g: G.Game, value_fn) -> float:
        if not g.active[0] and g.winner != 0:
            return -getattr(self.policy, "elim_value", 30.0)
        winner = -1 if g.winner is None else g.winner
        return float(value_fn(np.array([winner]), np.array([g.scores[0]]), np.array([True]))[0])


register("pimc", PimcAgent)
