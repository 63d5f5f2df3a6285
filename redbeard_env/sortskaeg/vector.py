"""The batched numpy engine of Sortskæg: B games in lock-step (SPEC §6, the §3b contract).

```python
from redbeard_env.sortskaeg import VectorEnv
venv = VectorEnv(num_envs=4096, num_players=4, rules="sortskaeg", seed=0, **overrides)
obs, mask, seat = venv.reset()        # float32 [B, 671], int8 [B, 50], int64 [B]
obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]
```

It implements every :class:`~redbeard_env.sortskaeg.rules.Rules` field and every phase
(bid, play, the ``discard`` of ``deal = carry``) and agrees with the reference engine
(:mod:`redbeard_env.sortskaeg.game`, wrapped by the AEC env) step for step on the same
deals and actions (``tests/test_sortskaeg_vector.py``). One ``Rules`` and one player count
for the whole batch; the games may be in different rounds and phases at once.

Spaces
    ``obs`` float32 [B, 671]: the acting seat's observation, bit for bit what the AEC env
    gives (:func:`redbeard_env.sortskaeg.observation.encode`). ``mask`` int8 [B, 50]: its
    legal actions. ``seat`` int64 [B]: the acting seat, -1 for a halted game. An illegal
    action (mask 0) for any game raises ``ValueError`` naming the game index, the action
    and the phase; nothing changes.

Rewards
    float32 [B, num_players] per seat for this step: ``reward="win"`` pays the AEC env's
    terminal reward when a game ends (+1/k to each of k winners, -1/(n-k) to the others);
    ``reward="score"`` pays each round's score change when the round is scored.

Auto-reset
    A finished game (``terminated``; Sortskæg is never truncated) is replaced at once by a
    new one (random first dealer, scores 0): the returned obs/mask/seat are the new game's
    first decision, while rewards, ``terminated`` and ``info`` describe the finished game.
    With ``auto_reset=False`` a finished game halts instead (phase 3 ``over``, mask all 0,
    seat -1, actions ignored) until the next ``reset``.

Info (numpy arrays, one entry per game)
    ``score`` int64 [B, n]     totals after this step (a game that ended: its final totals)
    ``final_score``            the same array (the name tournaments use)
    ``phase`` int8 [B]         phase code of the returned decision: 0 bid, 1 play, 2 discard, 3 over
    ``winners`` bool [B, n]    where a game ended in this step: the seats tied on top
    ``winner`` int64 [B]       the single winner's seat, -1 if none ended or several tied
    ``rounds`` int64 [B]       rounds scored so far in the game (before any reset)
    Per-round records, valid where ``round_over``:
    ``round_over`` bool [B], ``round_index`` int64 [B], ``round_hand_size`` int64 [B],
    ``round_bids`` / ``round_tricks`` / ``round_delta`` / ``round_score`` int64 [B, n]
    (bids, tricks taken, the round's points, totals after it).

Deals and loaded states
    ``reset(seed=None, dealer=None, scores=None, decks=None)``: ``decks`` int [B, K, 42] (each
    a deck order, top first) gives each game its next K deals -- the AEC env's ``decks``
    option. Deals beyond them are drawn from the engine's generator. ``load_games(games,
    indices=None, stop_at_round_end=False)`` sets games from reference ``Game`` objects in
    any phase (sampled worlds of a search bot); with ``stop_at_round_end`` they halt once
    their round is scored. ``export_game(b)`` returns game b as a reference ``Game``.
    ``observe(observer)`` encodes any seat's view of every game.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import game as G
from .cards import BID0, CARD_COLOUR, JOKERS, MAX_BID, NUM_ACTIONS, NUM_CARDS, NUM_COLOURS, NO_COLOUR, YELLOW, action_name
from .observation import (GAP_SCALE, OBS_HIGH, OBS_LOW, OFF, OBS_SLICES, ROUND_SCALE, SCORE_SCALE,
                          static_prefix)
from .rules import MAX_HAND, SCORE_LIMIT, Rules, check_num_players, deals_fresh, discard_follows, make_rules, round_score

BID, PLAY, DISCARD, OVER = range(4)
PHASE_NAMES = G.PHASE_NAMES
REWARD_MODES = ("win", "score")
_IS_JOKER = np.zeros(NUM_CARDS, bool)
_IS_JOKER[list(JOKERS)] = True


class VectorEnv:
    """See the module docstring."""

    def __init__(self, num_envs: int, num_players: int = 4, rules: "str | Rules" = "sortskaeg", seed: Any = None,
                 reward: str = "win", auto_reset: bool = True, **overrides: Any):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.rules = make_rules(rules, **overrides)
        self.num_players = n = check_num_players(num_players, self.rules)
        self.num_envs = B = int(num_envs)
        self.reward_mode = reward
        self.auto_reset = bool(auto_reset)
        self.rng = np.random.default_rng(seed)
        r = self.rules
        R = r.num_rounds
        # per round: its hand size, whether it starts with a deal, whether a discard follows
        self.sizes = np.array(r.hand_sizes, dtype=np.int64)
        self.fresh = np.array([deals_fresh(r, k) for k in range(R)] + [False])
        self.discard_after = np.array([discard_follows(r, k) for k in range(R)] + [False])
        self.prefix = static_prefix(r, n)
        # round points by (bid, tricks)
        self.points = np.array([[round_score(b, t, r) for t in range(MAX_HAND + 1)] for b in range(MAX_BID + 1)],
                               dtype=np.int64)
        self.hands = np.zeros((B, n, NUM_CARDS), bool)
        self.phase = np.zeros(B, np.int64)
        self.round = np.zeros(B, np.int64)
        self.first_dealer = np.zeros(B, np.int64)
        self.dealer = np.zeros(B, np.int64)
        self.to_act = np.zeros(B, np.int64)
        self.leader = np.full(B, -1, np.int64)
        self.scores = np.zeros((B, n), np.int64)
        self.bids = np.full((B, n), -1, np.int64)
        self.tricks = np.zeros((B, n), np.int64)
        self.trick_card = np.full((B, n), -1, np.int64)  # per seat, -1 = not played to this trick
        self.trick_len = np.zeros(B, np.int64)
        self.led = np.full(B, NO_COLOUR, np.int64)
        self.played = np.zeros((B, NUM_CARDS), bool)
        self.played_by = np.zeros((B, n, NUM_CARDS), bool)
        self.voids = np.zeros((B, n, NUM_COLOURS), bool)
        self.game_cards = np.zeros((B, NUM_CARDS), bool)
        self.seen_game = np.zeros((B, NUM_CARDS), bool)
        self.took_back = np.zeros((B, n, NUM_CARDS), bool)
        self.discarded = np.zeros((B, n, NUM_CARDS), bool)
        self.discards_left = np.zeros(B, np.int64)
        self.winners = np.zeros((B, n), bool)
        self.decks = np.zeros((B, 0, NUM_CARDS), np.int64)
        self.deck_next = np.zeros(B, np.int64)
        self.stop_at_round_end = np.zeros(B, bool)
        self.halt = np.zeros(B, bool)
        self.mask = np.zeros((B, NUM_ACTIONS), np.int8)

    # ================================================================== public API
    def reset(self, seed: Any = None, dealer=None, scores=None, decks=None):
        """Start B new games; returns ``(obs, mask, seat)``. ``dealer`` int [B] (default:
        drawn), ``scores`` int [B, n] (default 0), ``decks`` int [B, K, 42]. Every argument is
        checked before anything changes."""
        B, n = self.num_envs, self.num_players
        if dealer is not None:
            dealer = np.asarray(dealer)
            if dealer.shape != (B,) or dealer.dtype.kind not in "iu" or (dealer < 0).any() or (dealer >= n).any():
                raise ValueError(f"dealer must be {B} seats in 0..{n - 1}, got {dealer!r:.80}")
        if scores is not None:
            scores = np.asarray(scores)
            if scores.shape != (B, n) or scores.dtype.kind not in "iu" or (np.abs(scores) > SCORE_LIMIT).any():
                raise ValueError(f"scores must be ints [{B}, {n}] within +-{SCORE_LIMIT}, got shape {scores.shape}")
        if decks is not None:
            decks = np.asarray(decks)
            if (decks.ndim != 3 or decks.shape[0] != B or decks.shape[2] != NUM_CARDS or decks.dtype.kind not in "iu"
                    or not (np.sort(decks, axis=2) == np.arange(NUM_CARDS)).all()):
                raise ValueError(f"decks must be [{B}, K, {NUM_CARDS}], each a permutation of the {NUM_CARDS} cards")
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.decks = np.zeros((B, 0, NUM_CARDS), np.int64) if decks is None else decks.astype(np.int64)
        self.deck_next[:] = 0
        self.stop_at_round_end[:] = False
        self._new_game(np.arange(B), dealer, scores)
        return self._observe()

    def step(self, actions):
        """Apply one action per game (ignored for halted games); see the module docstring."""
        B, n = self.num_envs, self.num_players
        actions = np.asarray(actions)
        if actions.shape != (B,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {B} ints, got {actions!r:.80}")
        live = np.flatnonzero(~self.halt)
        a = actions[live].astype(np.int64)
        bad = (a < 0) | (a >= NUM_ACTIONS)
        bad[~bad] = self.mask[live[~bad], a[~bad]] == 0
        if bad.any():
            b = int(live[np.flatnonzero(bad)[0]])
            act = int(actions[b])
            name = action_name(act, PHASE_NAMES[self.phase[b]]) if 0 <= act < NUM_ACTIONS else "out of range"
            raise ValueError(f"illegal action {act} ({name}) in game {b}, phase {PHASE_NAMES[self.phase[b]]!r}, "
                             f"for seat {self.to_act[b]}")
        self.rewards = np.zeros((B, n), np.float32)
        self.info = self._empty_info()
        seat = self.to_act[live]
        phase = self.phase[live]
        for code, apply in ((BID, self._apply_bid), (PLAY, self._apply_play), (DISCARD, self._apply_discard)):
            sel = phase == code
            if sel.any():
                apply(live[sel], seat[sel], a[sel])
        terminated = self.info["done"]
        del self.info["done"]
        info = self.info
        info["score"] = np.where(terminated[:, None], info["final_score"], self.scores)
        info["final_score"] = info["score"]
        info["rounds"] = np.where(terminated, info["rounds"], self.round)
        finished = np.flatnonzero(terminated)
        if len(finished):
            if self.auto_reset:
                self.deck_next[finished] = self.decks.shape[1]  # given decks were for the finished game
                self._new_game(finished)
            else:
                self.halt[finished] = True
        halted_now = np.flatnonzero(self.stop_at_round_end & info["round_over"] & ~terminated)
        self.halt[halted_now] = True
        info["phase"] = self.phase.astype(np.int8)
        obs, mask, seats = self._observe()
        return obs, mask, seats, self.rewards, terminated, np.zeros(B, bool), info

    @property
    def halted(self) -> np.ndarray:
        """bool [B]: games that wait for a reset (ended without auto-reset, or stopped at
        their round's end)."""
        return self.halt.copy()

    def observe(self, observer=None) -> np.ndarray:
        """float32 [B, 671]: seat ``observer``'s view (int or int [B]; default the acting seat)."""
        if observer is None:
            observer = self.to_act
        observer = np.broadcast_to(np.asarray(observer, dtype=np.int64), (self.num_envs,))
        return self._encode(np.arange(self.num_envs), np.where(observer < 0, 0, observer))

    # ================================================================== games
    def _empty_info(self) -> dict:
        B, n = self.num_envs, self.num_players
        return {
            "done": np.zeros(B, bool),
            "final_score": np.zeros((B, n), np.int64),
            "winners": np.zeros((B, n), bool),
            "winner": np.full(B, -1, np.int64),
            "rounds": np.zeros(B, np.int64),
            "round_over": np.zeros(B, bool),
            "round_index": np.full(B, -1, np.int64),
            "round_hand_size": np.zeros(B, np.int64),
            "round_bids": np.full((B, n), -1, np.int64),
            "round_tricks": np.zeros((B, n), np.int64),
            "round_delta": np.zeros((B, n), np.int64),
            "round_score": np.zeros((B, n), np.int64),
        }

    def _new_game(self, idx: np.ndarray, dealer=None, scores=None) -> None:
        n = self.num_players
        self.first_dealer[idx] = self.rng.integers(n, size=len(idx)) if dealer is None else dealer
        self.scores[idx] = 0 if scores is None else scores
        self.round[idx] = 0
        self.halt[idx] = False
        self.winners[idx] = False
        for arr in (self.game_cards, self.seen_game, self.took_back, self.discarded, self.hands):
            arr[idx] = False
        self._start_round(idx)

    def _draw_decks(self, idx: np.ndarray) -> np.ndarray:
        """The next deck of each game in ``idx``: its own given deck, else a random one."""
        decks = np.empty((len(idx), NUM_CARDS), np.int64)
        given = self.deck_next[idx] < self.decks.shape[1]
        if given.any():
            g = idx[given]
            decks[given] = self.decks[g, self.deck_next[g]]
        if (~given).any():
            decks[~given] = self.rng.random(((~given).sum(), NUM_CARDS)).argsort(1)
        self.deck_next[idx] += 1
        return decks

    def _start_round(self, idx: np.ndarray) -> None:
        """Deal where the round starts with a deal, clear the round, the dealer's left bids."""
        n = self.num_players
        self.dealer[idx] = (self.first_dealer[idx] + self.round[idx]) % n
        deal = idx[self.fresh[self.round[idx]]]
        if len(deal):
            deck = self._draw_decks(deal)
            if self.rules.deal == "carry":
                first = self.round[deal] == 0
                self.game_cards[deal[first]] = False
                rows = np.flatnonzero(first)
                top = np.arange(NUM_CARDS)[None, :] < (self.sizes[0] * n)
                self.game_cards[deal[rows][:, None], deck[rows]] = top
                # later deals: the game's cards in the order the deck lists them
                keep = self.game_cards[deal[:, None], deck]
                deck = np.take_along_axis(deck, np.argsort(~keep, axis=1, kind="stable"), axis=1)
            h = self.sizes[self.round[deal]]
            pos = np.arange(NUM_CARDS)[None, :]
            dealt = pos < n * h[:, None]
            seat = (self.dealer[deal][:, None] + 1 + pos // h[:, None]) % n
            self.hands[deal] = False
            rows = np.broadcast_to(deal[:, None], deck.shape)
            self.hands[rows[dealt], seat[dealt], deck[dealt]] = True
            self.took_back[deal] = False
        self.bids[idx] = -1
        self.tricks[idx] = 0
        self.trick_card[idx] = -1
        self.trick_len[idx] = 0
        self.led[idx] = NO_COLOUR
        self.played[idx] = False
        self.played_by[idx] = False
        self.voids[idx] = False
        self.phase[idx] = BID
        self.leader[idx] = -1
        self.to_act[idx] = (self.dealer[idx] + 1) % n

    # ================================================================== phases
    def _apply_bid(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        n = self.num_players
        self.bids[idx, seat] = a - BID0
        last = seat == self.dealer[idx]
        self.to_act[idx] = (seat + 1) % n
        done = idx[last]
        self.phase[done] = PLAY
        self.leader[done] = self.to_act[done]

    def _apply_play(self, idx: np.ndarray, seat: np.ndarray, card: np.ndarray) -> None:
        n = self.num_players
        colour = CARD_COLOUR[card]
        led = self.led[idx]
        off = (led != NO_COLOUR) & (colour != NO_COLOUR) & (colour != led)
        self.voids[idx[off], seat[off], led[off]] = True  # a colour card off the led colour shows a void
        self.hands[idx, seat, card] = False
        self.played_by[idx, seat, card] = True
        self.trick_card[idx, seat] = card
        first = self.trick_len[idx] == 0
        self.led[idx[first]] = colour[first]  # -1 after a led joker: no led colour
        self.trick_len[idx] += 1
        self.to_act[idx] = (seat + 1) % n
        full = idx[self.trick_len[idx] == n]
        if len(full):
            self._complete_trick(full)

    def _trick_winner(self, idx: np.ndarray) -> np.ndarray:
        """Seat holding the winning card of the (possibly unfinished) trick; -1 if empty."""
        cards = self.trick_card[idx]
        valid = cards >= 0
        colour = np.where(valid, CARD_COLOUR[np.maximum(cards, 0)], NO_COLOUR)
        lead = cards[np.arange(len(idx)), np.maximum(self.leader[idx], 0)]
        yellow = valid & (colour == YELLOW)
        best_yellow = np.where(yellow, cards, -1).argmax(1)
        best_led = np.where(valid & (colour == self.led[idx][:, None]), cards, -1).argmax(1)
        winner = np.where(yellow.any(1), best_yellow, best_led)
        winner = np.where(lead >= JOKERS[0], self.leader[idx], winner)
        return np.where(self.trick_len[idx] > 0, winner, -1)

    def _complete_trick(self, idx: np.ndarray) -> None:
        winner = self._trick_winner(idx)
        self.tricks[idx, winner] += 1
        cards = self.trick_card[idx]
        self.played[np.repeat(idx, self.num_players), cards.ravel()] = True
        self.trick_card[idx] = -1
        self.trick_len[idx] = 0
        self.led[idx] = NO_COLOUR
        self.leader[idx] = self.to_act[idx] = winner
        over = idx[self.tricks[idx].sum(1) == self.sizes[self.round[idx]]]
        if len(over):
            self._score_round(over)

    def _score_round(self, idx: np.ndarray) -> None:
        info = self.info
        bids, tricks = self.bids[idx], self.tricks[idx]
        delta = self.points[bids, tricks]
        self.scores[idx] += delta
        if self.reward_mode == "score":
            self.rewards[idx] += delta
        info["round_over"][idx] = True
        info["round_index"][idx] = self.round[idx]
        info["round_hand_size"][idx] = self.sizes[self.round[idx]]
        info["round_bids"][idx] = bids
        info["round_tricks"][idx] = tricks
        info["round_delta"][idx] = delta
        info["round_score"][idx] = self.scores[idx]
        if self.rules.deal == "carry":
            self.seen_game[idx] |= self.played[idx]
        finished = self.round[idx]
        self.round[idx] += 1
        end = self.round[idx] == self.rules.num_rounds
        discard = ~end & self.discard_after[finished]
        if end.any():
            self._end_game(idx[end])
        if discard.any():
            self._start_discard(idx[discard])
        nxt = idx[~end & ~discard]
        if len(nxt):
            self._start_round(nxt)

    def _start_discard(self, idx: np.ndarray) -> None:
        self.hands[idx] = self.played_by[idx]
        self.took_back[idx] = self.played_by[idx]
        self.phase[idx] = DISCARD
        self.discards_left[idx] = self.num_players
        self.to_act[idx] = (self.dealer[idx] + 1) % self.num_players

    def _apply_discard(self, idx: np.ndarray, seat: np.ndarray, card: np.ndarray) -> None:
        self.hands[idx, seat, card] = False
        self.discarded[idx, seat, card] = True
        self.discards_left[idx] -= 1
        self.to_act[idx] = (seat + 1) % self.num_players
        done = idx[self.discards_left[idx] == 0]
        if len(done):
            self._start_round(done)

    def _end_game(self, idx: np.ndarray) -> None:
        n, info = self.num_players, self.info
        scores = self.scores[idx]
        winners = scores == scores.max(1, keepdims=True)
        k = winners.sum(1, keepdims=True)
        if self.reward_mode == "win":
            self.rewards[idx] += np.where(k == n, 0.0, np.where(winners, 1.0 / k, -1.0 / np.maximum(n - k, 1)))
        self.winners[idx] = winners
        self.phase[idx] = OVER
        self.to_act[idx] = -1
        info["done"][idx] = True
        info["winners"][idx] = winners
        info["winner"][idx] = np.where(k[:, 0] == 1, winners.argmax(1), -1)
        info["final_score"][idx] = scores
        info["rounds"][idx] = self.round[idx]

    # ================================================================== observation
    def _legal(self, idx: np.ndarray) -> np.ndarray:
        """int8 [len(idx), 50]: the acting seat's legal actions (zeros when over or halted)."""
        m = len(idx)
        mask = np.zeros((m, NUM_ACTIONS), np.int8)
        phase, seat = self.phase[idx], np.maximum(self.to_act[idx], 0)
        h = self.sizes[np.minimum(self.round[idx], len(self.sizes) - 1)]
        bid = phase == BID
        if bid.any():
            k = np.arange(MAX_BID + 1)[None, :]
            ok = k <= h[bid][:, None]
            if self.rules.dealer_hook:
                rows = idx[bid]
                is_dealer = seat[bid] == self.dealer[rows]
                others = np.where(self.bids[rows] >= 0, self.bids[rows], 0).sum(1)
                ok &= ~(is_dealer[:, None] & (others[:, None] + k == h[bid][:, None]))
            mask[bid, BID0:] = ok
        cards = (phase == PLAY) | (phase == DISCARD)
        if cards.any():
            rows = idx[cards]
            hand = self.hands[rows, seat[cards]]
            led = self.led[rows]
            follow = hand & (CARD_COLOUR[None, :] == led[:, None])
            must = (phase[cards] == PLAY) & (led != NO_COLOUR) & follow.any(1)
            legal = np.where(must[:, None], follow | (hand & _IS_JOKER), hand)
            mask[cards, :NUM_CARDS] = legal
        mask[self.halt[idx] | (phase == OVER)] = 0
        return mask

    def _observe(self):
        B = self.num_envs
        idx = np.arange(B)
        seat = np.where(self.halt | (self.phase == OVER), -1, self.to_act)
        self.mask = self._legal(idx)
        obs = self._encode(idx, np.maximum(self.to_act, 0))
        return obs, self.mask.copy(), seat.astype(np.int64)

    def _encode(self, idx: np.ndarray, observer: np.ndarray) -> np.ndarray:
        """float32 [len(idx), 671]: the view of seat ``observer`` [len(idx)] in each game."""
        n, m = self.num_players, len(idx)
        R = self.rules.num_rounds
        rows = np.arange(m)
        obs = np.tile(self.prefix, (m, 1))
        phase, rnd = self.phase[idx], self.round[idx]
        obs[rows, OFF["phase"] + phase] = 1.0
        p = OFF["progress"]
        obs[:, p] = rnd / ROUND_SCALE
        obs[:, p + 1] = np.maximum(R - rnd - 1, 0) / ROUND_SCALE
        obs[:, p + 2] = self.tricks[idx].sum(1) / MAX_HAND
        live = phase != OVER
        obs[rows[live], OFF["hand_size"] + self.sizes[np.minimum(rnd, R - 1)][live] - 1] = 1.0
        hand = self.hands[idx, observer]
        trick = np.zeros((m, NUM_CARDS), bool)
        tc = self.trick_card[idx]
        has = tc >= 0
        trick[np.nonzero(has)[0], tc[has]] = True
        played = self.played[idx]
        for name, cards in (("hand", hand), ("played", played), ("trick", trick), ("seen_game", self.seen_game[idx]),
                            ("discarded", self.discarded[idx, observer])):
            obs[:, OBS_SLICES[name]] = cards
        obs[rows, OFF["led"] + self.led[idx] + 1] = 1.0
        visible = hand | played | trick
        obs[rows, OFF["jokers_seen"] + visible[:, list(JOKERS)].sum(1)] = 1.0
        scores = self.scores[idx]
        best = scores.max(1)
        bids, tricks = self.bids[idx], self.tricks[idx]
        for pos in range(n):
            s = (observer + pos) % n
            obs[:, OFF["took_back"] + pos * NUM_CARDS: OFF["took_back"] + (pos + 1) * NUM_CARDS] = self.took_back[idx, s]
            sc = scores[rows, s]
            obs[:, OFF["score"] + pos] = np.clip(sc / SCORE_SCALE, OBS_LOW, OBS_HIGH)
            obs[:, OFF["score_gap"] + pos] = np.maximum((sc - best) / GAP_SCALE, OBS_LOW)
            bid = bids[rows, s]
            obs[rows, OFF["bid"] + pos * (MAX_BID + 2) + bid + 1] = 1.0
            t = tricks[rows, s]
            obs[rows, OFF["tricks"] + pos * (MAX_HAND + 1) + t] = 1.0
            obs[:, OFF["need"] + pos] = np.where(bid >= 0, (bid - t) / MAX_HAND, 0.0)
            obs[:, OFF["trick_played"] + pos] = has[rows, s]
            obs[:, OFF["voids"] + pos * NUM_COLOURS: OFF["voids"] + (pos + 1) * NUM_COLOURS] = self.voids[idx, s]
        leader = np.where(phase == PLAY, self.leader[idx], -1)
        for name, seat in (("dealer", self.dealer[idx]), ("acting", np.where(live, self.to_act[idx], -1)),
                           ("leader", leader), ("trick_winning", self._trick_winner(idx))):
            ok = seat >= 0
            obs[rows[ok], OFF[name] + (seat[ok] - observer[ok]) % n] = 1.0
        return obs

    # ================================================================== loaded states
    def load_games(self, games: Sequence[G.Game], indices=None, stop_at_round_end: bool = False):
        """Set games ``indices`` (default 0..len-1) from reference games in any phase; returns
        ``(obs, mask, seat)`` for the whole batch. Deals after the loaded ones come from
        this engine's generator (or the games' own ``deck_queue``, if any)."""
        idx = np.arange(len(games)) if indices is None else np.asarray(indices, dtype=np.int64)
        if len(idx) != len(games):
            raise ValueError(f"{len(games)} games for {len(idx)} indices")
        grow = max(len(g.deck_queue) for g in games) - self.decks.shape[1]
        if grow > 0:  # room at the front: every game's unused decks stay at the end of its row
            pad = np.tile(np.arange(NUM_CARDS), (self.num_envs, grow, 1))
            self.decks = np.concatenate([pad, self.decks], axis=1)
            self.deck_next += grow
        for b, g in zip(idx, games):
            if g.num_players != self.num_players or g.rules != self.rules:
                raise ValueError("a loaded game must have this engine's rules and player count")
            self._load(int(b), g)
            self.stop_at_round_end[b] = stop_at_round_end
        return self._observe()

    #: the game state a search may set with :meth:`load_arrays`
    STATE_ARRAYS = ("hands", "phase", "round", "first_dealer", "dealer", "to_act", "leader", "scores", "bids",
                    "tricks", "trick_card", "trick_len", "led", "played", "played_by", "voids", "game_cards",
                    "seen_game", "took_back", "discarded", "discards_left")

    def load_arrays(self, state: dict, stop_at_round_end: bool = False):
        """Set every game from arrays (names in ``STATE_ARRAYS``, each with the batch axis
        first; missing ones are cleared), e.g. worlds a search bot sampled; returns ``(obs,
        mask, seat)``. Deals after these come from the generator. The caller keeps the
        state consistent (``load_games`` checks nothing either)."""
        unknown = set(state) - set(self.STATE_ARRAYS)
        if unknown:
            raise ValueError(f"unknown state arrays {sorted(unknown)}; allowed: {', '.join(self.STATE_ARRAYS)}")
        for name in self.STATE_ARRAYS:
            arr = getattr(self, name)
            if name in state:
                arr[...] = state[name]
            else:
                arr[...] = -1 if name in ("leader", "led") or (name in ("bids", "trick_card")) else 0
        self.winners[:] = False
        self.halt[:] = self.phase == OVER
        self.stop_at_round_end[:] = stop_at_round_end
        self.decks = np.zeros((self.num_envs, 0, NUM_CARDS), np.int64)
        self.deck_next[:] = 0
        return self._observe()

    def _load(self, b: int, g: G.Game) -> None:
        n = self.num_players
        self.phase[b] = PHASE_NAMES.index(g.phase)
        self.round[b], self.first_dealer[b], self.dealer[b] = g.round, g.first_dealer, g.dealer
        self.to_act[b], self.leader[b] = g.to_act, g.leader
        self.scores[b] = g.scores
        self.bids[b] = [-1 if x is None else x for x in g.bids]
        self.tricks[b] = g.tricks
        self.trick_card[b] = -1
        for s, c in g.trick:
            self.trick_card[b, s] = c
        self.trick_len[b] = len(g.trick)
        self.led[b] = g.led_colour
        self.discards_left[b] = (len(g.queue) + 1) if g.phase == "discard" else 0
        self.winners[b] = [s in g.winners for s in range(n)]
        self.halt[b] = g.game_over
        for arr, sets in ((self.hands[b], g.hands), (self.played_by[b], g.played_by), (self.took_back[b], g.took_back),
                          (self.discarded[b], g.discarded)):
            arr[:] = False
            for s in range(n):
                arr[s, list(sets[s])] = True
        for arr, cards in ((self.played[b], g.played), (self.game_cards[b], g.game_cards), (self.seen_game[b], g.seen_game)):
            arr[:] = False
            arr[list(cards)] = True
        self.voids[b] = g.voids
        self.deck_next[b] = self.decks.shape[1] - len(g.deck_queue)
        if g.deck_queue:
            self.decks[b, self.deck_next[b]:] = g.deck_queue

    def export_game(self, b: int, rng: np.random.Generator | None = None) -> G.Game:
        """Game ``b`` as a reference ``Game`` (its later deals drawn from ``rng``)."""
        n = self.num_players
        g = G.Game(self.rules, n, rng if rng is not None else np.random.default_rng(), [int(x) for x in self.scores[b]],
                   int(self.first_dealer[b]))
        g.deck_queue = [list(map(int, d)) for d in self.decks[b, self.deck_next[b]:]]
        g.round, g.dealer, g.phase = int(self.round[b]), int(self.dealer[b]), PHASE_NAMES[self.phase[b]]
        g.to_act, g.leader = int(self.to_act[b]), int(self.leader[b])
        g.hands = [set(map(int, np.flatnonzero(self.hands[b, s]))) for s in range(n)]
        g.game_cards = set(map(int, np.flatnonzero(self.game_cards[b])))
        g.bids = [None if x < 0 else int(x) for x in self.bids[b]]
        g.tricks = [int(x) for x in self.tricks[b]]
        order = [(self.leader[b] + k) % n for k in range(int(self.trick_len[b]))]
        g.trick = [(int(s), int(self.trick_card[b, s])) for s in order]
        g.played = set(map(int, np.flatnonzero(self.played[b])))
        g.played_by = [set(map(int, np.flatnonzero(self.played_by[b, s]))) for s in range(n)]
        g.voids = [[bool(v) for v in self.voids[b, s]] for s in range(n)]
        g.seen_game = set(map(int, np.flatnonzero(self.seen_game[b])))
        g.took_back = [set(map(int, np.flatnonzero(self.took_back[b, s]))) for s in range(n)]
        g.discarded = [set(map(int, np.flatnonzero(self.discarded[b, s]))) for s in range(n)]
        if g.phase == "discard":
            g.queue = [(g.to_act + k) % n for k in range(1, int(self.discards_left[b]))]
        g.winners = [int(s) for s in np.flatnonzero(self.winners[b])]
        return g


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` [B, 50]."""
    keys = rng.random(mask.shape)
    return np.where(mask > 0, keys, -1.0).argmax(1)
