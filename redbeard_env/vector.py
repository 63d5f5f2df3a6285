"""The batched numpy engine (hot path): B games of Rödskägg in lock-step.

```python
from redbeard_env.vector import VectorEnv
venv = VectorEnv(num_envs=4096, num_players=4, rules="classic", seed=0, **overrides)
obs, mask, seat = venv.reset()        # float32 [B, 542], int8 [B, 69], int64 [B]
obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]
```

It implements SPEC §3b: every ``Rules`` field and every phase -- redeal and look, single
and open auctions, both leaders, the ask/skip and join/fold questions, all three zero
rules, duels, eliminations, ``max_rounds`` truncation, all-pass redeals -- and agrees with
the reference engine (:mod:`redbeard_env.game`, wrapped by the AEC env) step for step on
the same deals and actions (``tests/test_vector_parity.py``). One ``Rules`` and one player
count for the whole batch; the B games may be in different phases at once.

Spaces
    ``obs`` float32 [B, 542]: the acting seat's observation, bit for bit what the AEC env
    gives (``redbeard_env.observation.encode``; blocks in :mod:`redbeard_env.observation`).
    ``mask`` int8 [B, 69]: its legal actions (action ids in :mod:`redbeard_env.cards`).
    ``seat`` int64 [B]: the acting seat (absolute), -1 for a halted game (below).
    ``actions`` int [B]: one legal action id per game. An illegal one (mask 0) for any game
    raises ``ValueError`` naming the game index, the action and the phase; nothing changes.
    Every step returns arrays the caller owns: ``obs`` is never one the caller still holds
    (an observation buffer is reused only once nothing else references it), ``mask`` is a
    copy.

Who is asked
    As in the AEC env: every call and card play is asked, even with one legal option; the
    redeal, look and join questions only of players with a real choice, ask/skip only when
    ``ask_optional``. Decisions without a real choice are resolved inside ``step``, as
    game.py does, so every returned game waits for a real decision.

Rewards
    float32 [B, num_players], per seat, for this step (SPEC §3, ``reward="win"``): when a game
    is won, the winner +1 and every seat still in the game -1/(n-1); a seat eliminated in
    this step gets its -1/(n-1) now (and nothing later); truncation gives 0. Over a game the
    seats' rewards sum to the AEC env's.

Auto-reset
    A game that ends (``terminated``: won; ``truncated``: ``max_rounds``) is replaced at once
    by a new one (random first dealer, ``start_score`` for all): the returned obs/mask/seat
    are the new game's first decision, while ``rewards``, ``terminated``/``truncated`` and
    ``info`` describe the finished game. With ``VectorEnv(..., auto_reset=False)`` a finished
    game halts instead (phase 7 ``done``, mask all 0, seat -1, actions ignored) until the
    next ``reset``.

Info (numpy arrays, one entry per game)
    ``score`` int32 [B, n]   running scores after this step; for a game that ended in this
                             step its final scores (the new game's are ``start_score``)
    ``final_score``          the same array (name used by tournaments)
    ``phase`` int8 [B]       phase code of the returned decision (new game's if reset):
                             0 redeal, 1 look, 2 bid, 3 ask, 4 join, 5 play, 6 duel, 7 done
                             (``PHASE_NAMES[code]``; 7 only for halted games)
    ``winner`` int8 [B]      the winner's seat for games won in this step, else -1
                             (also -1 for truncated games)
    ``rounds`` int32 [B]     rounds scored so far in the game (before any reset)
    ``eliminated`` bool [B, n]  seats eliminated in this step
    Per-round records, for research metrics; valid where ``round_over``:
    ``round_over`` bool [B]  a round was scored in this step (including an all-passed
                             deal under ``all_pass="redeal"`` and a Rödskägg that won the
                             game; not a duel, not a round cut short by ``immediate``)
    ``round_declarer`` int8 [B]  the declarer, -1 if all passed
    ``round_bid`` int8 [B]   the declarer's bid level 0..6, 7 = Rödskägg (-1 all passed)
    ``round_made`` bool [B]  the declarer made the contract (Rödskägg: all six tricks)
    ``round_tricks`` int8 [B, n]  tricks taken in the round
    ``round_joiner`` bool [B, n]  joined without a trick (the joiner bonus/risk)
    ``round_folded`` bool [B, n]  folded at the join question
    ``round_score`` int32 [B, n]  scores after that scoring (= ``score``)

Shared deals and loaded states
    ``reset(seed=None, dealer=None, scores=None, decks=None)``: ``decks`` int [B, K, 52] or
    [B, K, 104] (deck top first, optionally followed by the reshuffle order of thrown-in
    cards) gives each game its next K deals -- the same format as the AEC env's ``decks``
    option, so both engines can play identical deals. ``load_games(games, indices=None,
    stop_at_round_end=False)`` sets games from reference :class:`~redbeard_env.game.Game`
    objects in any phase (e.g. sampled deals for a search bot); with ``stop_at_round_end``
    they halt (phase 7, mask all 0, seat -1, actions ignored, no reset) once their round is
    scored or the game ends -- ``halted`` tells which. ``export_game(b)`` returns game b as a
    reference ``Game``. ``observe(observer)`` encodes any seat's view of every game.

Training loop (one policy for all seats; the observation is relative to the acting seat)::

    venv = VectorEnv(num_envs=4096, num_players=4, rules="classic", seed=0)
    obs, mask, seat = venv.reset()
    for t in range(T):
        actions = policy(obs, mask)                  # sample where mask == 1
        nobs, nmask, nseat, rewards, term, trunc, info = venv.step(actions)
        # the decision (obs, actions) belongs to seat[b]; rewards[b, s] may go to any seat
        # of game b (a win pays every seat at once, the loser did not act this step), so
        # credit each seat's reward to that seat's latest decision in game b, and end all
        # of game b's open trajectories where term | trunc
        buffer.add(obs, mask, actions, seat, rewards, term | trunc)
        obs, mask, seat = nobs, nmask, nseat

``random_legal_actions(mask, rng)`` is a vectorised uniform random policy.

Implementation notes
    This module holds the state, the transitions (one method per phase) and the public
    API; :mod:`~redbeard_env.vector_encode` encodes observations,
    :mod:`~redbeard_env.vector_bridge` converts to and from ``game.Game``, and
    :mod:`~redbeard_env.vector_tables` holds the codes and the seat and mask tables.
    State lives in compact arrays: int8 codes, bool flags, int32 scores, uint64 bitmasks for
    the card sets (hands, seen, played, trick, thrown), one int8 [B, 9, 8] array for the
    per-seat values (feature-major, seats padded to 8, so a flag row is one uint64 per
    game), packed voids. Seat searches (next to act, next dealer, who deals where, join
    order) are lookups in small tables indexed by a seat set packed into a byte. A step
    applies the B actions grouped by kind, then resolves automatic points (trick ends, the
    join question's automatic answers, round scoring, next deal, duels, game ends) on the
    subsets of games that reach them, vectorised over each subset; transitions reached by
    several paths (round scoring, a new deal, the next trick) are deferred with internal
    phase codes and run once per step for all games waiting for them (``_resolve``, a loop
    until every game waits for a decision). No Python loop runs over games (only over the
    <= 7 seats, the kinds of action, or row chunks of the output). An observation's 0/1
    entries are one 542-bit stream per game composed with shifts and ORs on [B] words,
    unpacked and converted to float32 in one pass; the few real-valued entries are written
    after.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import game as G
from . import vector_bridge
from .cards import ASK, BID0, JOIN, KEEP, LOOK, NUM_ACTIONS, NUM_CARDS, PASS, REDBEARD, REDBEARD_LEVEL, action_name
from .game import NO_CALL, PASSED, PHASE_NAMES
from .rules import HAND_SIZE, MAX_TIED_DUELS, PENALTY, SCORE_LIMIT, TRICKS_PER_ROUND, Rules, check_num_players, make_rules
from .vector_encode import ObsEncoder
from .vector_tables import (
    AR6,
    AR52,
    ASK_PH,
    BID_PH,
    BIT,
    C_ACTIVE,
    C_BOUNCED,
    C_CALL,
    C_IN_ROUND,
    C_JOINER,
    C_THROWS,
    C_TRICK_CARD,
    C_TRICK_PLAYED,
    C_TRICKS,
    DONE_PH,
    DUEL_PH,
    FACE_BITS,
    JOIN_ASKED,
    JOIN_PENDING,
    JOIN_PH,
    JOIN_SKIPPED,
    KIND,
    LEVEL_TRICKS,
    LOOK_PH,
    PLAY_PH,
    REDEAL_PH,
    SCORE_ROUND,
    SEAT_COLS,
    SEAT_PAD,
    START_ROUND,
    START_TRICK,
    SUIT_OF_CARD,
    TRICK_EMPTY,
    MaskTables,
    SeatTables,
    bits_to_bool,
    pack,
)


class VectorEnv:
    """B games in lock-step; see the module documentation."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        rules: "str | Rules" = "classic",
        seed: int | None = None,
        auto_reset: bool = True,
        **overrides: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        self.rules = make_rules(rules, **overrides)
        self.num_players = n = check_num_players(num_players, self.rules)
        self.num_envs = B = int(num_envs)
        self.rng = np.random.default_rng(seed)
        r = self.rules
        # rule switches (one Rules for the whole batch)
        self._redeal_on = r.redeal != "off"
        self._no_face = r.redeal == "no_face_card"
        self._challenge = r.redeal == "challenge"
        self._single = r.auction == "single"
        self._bos = r.bid_over_score
        self._leader_tw = r.leader == "trick_winner"
        self._exact = r.contract == "exact"
        self._trickless = r.may_fold == "trickless"
        self._immediate = r.zero_rule == "immediate"
        self._bounce = r.zero_rule == "bounce"
        self._loss = np.float32(-1.0 / (n - 1))
        self._seats = SeatTables(n)
        self._masks = MaskTables(r, B)
        self._encoder = ObsEncoder(r, n, B)
        self._arB = np.arange(B)
        self._mask_rows = self._arB * NUM_ACTIONS
        self.auto_reset = bool(auto_reset)
        self._started = False  # set by reset() and load_games(); step() needs it
        self._alloc()
        self._apply_fns = (
            self._apply_play,
            self._apply_bid,
            self._apply_join,
            self._apply_ask,
            self._apply_redeal,
            self._apply_look,
        )

    # ------------------------------------------------------------------ state
    def _alloc(self) -> None:
        B, n = self.num_envs, self.num_players
        i8, b_ = np.int8, np.bool_
        self.phase = np.full(B, DONE_PH, i8)
        self.to_act = np.full(B, -1, i8)
        self.dealer = np.zeros(B, i8)
        self.declarer = np.full(B, -1, i8)
        self.leader = np.full(B, -1, i8)
        self.high_level = np.full(B, -1, i8)
        self.thrower = np.full(B, -1, i8)
        self.tricks_done = np.zeros(B, i8)
        self.join_state = np.zeros(B, i8)
        self.redeals_open = np.zeros(B, b_)
        self.reshuffled = np.zeros(B, b_)
        self.in_duel = np.zeros(B, b_)
        self.tied_duels = np.zeros(B, np.int16)
        self.rounds_played = np.zeros(B, np.int32)
        self.stock_pos = np.zeros(B, i8)
        self.stock_len = np.zeros(B, i8)
        # the current trick: cards played, led suit, best card, its seat, who led (views)
        self._trick = np.tile(TRICK_EMPTY, (B, 1))
        self.trick_len = self._trick[:, 0]
        self.trick_led = self._trick[:, 1]
        self.trick_best = self._trick[:, 2]
        self.trick_win = self._trick[:, 3]
        self.trick_first = self._trick[:, 4]
        self.winner = np.full(B, -1, i8)
        self.terminated = np.zeros(B, b_)
        self.truncated = np.zeros(B, b_)
        # per seat: scores, and one packed int8 array of the other per-seat values (rows
        # C_* of vector_tables; seats padded to 8, so a flag row is one uint64 per game, and
        # the encoder reads every row with one gather); named views below
        self.scores = np.zeros((B, n), np.int32)
        self._per_seat = np.zeros((B, SEAT_COLS, SEAT_PAD), i8)
        sb = self._per_seat.view(b_)
        self.active = sb[:, C_ACTIVE, :n]
        self.in_round = sb[:, C_IN_ROUND, :n]
        self.trick_played = sb[:, C_TRICK_PLAYED, :n]
        self.tricks = self._per_seat[:, C_TRICKS, :n]
        self.joiner = sb[:, C_JOINER, :n]
        self.bounced = sb[:, C_BOUNCED, :n]
        self.throws = self._per_seat[:, C_THROWS, :n]
        # voids (seat x suit shown void) packed per game: bit 4 * seat + suit
        self.void_bits = np.zeros(B, np.uint32)
        self.calls = self._per_seat[:, C_CALL, :n]
        self.calls[:] = NO_CALL
        self.trick_card = self._per_seat[:, C_TRICK_CARD, :n]  # card played to the current trick
        self.trick_card[:] = -1
        # card sets as uint64 bitmasks (bit c = card c)
        u8 = np.uint64
        self.hands = np.zeros((B, n), u8)
        self.seen = np.zeros((B, n), u8)  # thrown-in cards each seat has seen this deal
        self.played = np.zeros(B, u8)  # cards of the finished tricks of this deal
        self.trick_cards = np.zeros(B, u8)  # cards of the current (or just finished) trick
        self.thrown = np.zeros(B, u8)  # thrown-in cards not yet reshuffled into the stock
        self.thrown_hand = np.zeros(B, u8)  # the hand up for a look
        self.deck = np.zeros((B, NUM_CARDS), i8)  # stock = deck[stock_pos : stock_pos + stock_len]
        self.rank = np.zeros((B, NUM_CARDS), i8)  # reshuffle key of each card
        # a deal drawn from the generator gets its reshuffle order only when it is needed
        self._rank_lazy = np.zeros(B, b_)
        # queued decks (reset(decks=...) / load_games): dq_deck[b, q] for q < dq_len[b]
        self.dq_deck = np.zeros((B, 0, NUM_CARDS), i8)
        self.dq_rank = np.zeros((B, 0, NUM_CARDS), i8)
        self.dq_pos = np.zeros(B, np.int32)
        self.dq_len = np.zeros(B, np.int32)
        # per-step outputs
        self.rewards = np.zeros((B, n), np.float32)
        self.eliminated = np.zeros((B, n), b_)
        self.r_over = np.zeros(B, b_)
        self.r_declarer = np.full(B, -1, i8)
        self.r_bid = np.full(B, -1, i8)
        self.r_made = np.zeros(B, b_)
        self.r_tricks = np.zeros((B, n), i8)
        self.r_joiner = np.zeros((B, n), b_)
        self.r_folded = np.zeros((B, n), b_)
        self._n_in = np.zeros(B, i8)
        self._stop_round = np.zeros(B, b_)
        self._next_in = np.zeros((B, n), i8)
        self._mask = np.zeros((B, NUM_ACTIONS), np.int8)

    # ------------------------------------------------------------------ dealing
    def _draw_decks(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Decks and reshuffle ranks for new deals: queued ones first, else drawn (their
        rank is left for later: the third result flags them)."""
        k = len(idx)
        deck = np.empty((k, NUM_CARDS), np.int8)
        rank = np.zeros((k, NUM_CARDS), np.int8)
        qp = self.dq_pos[idx]
        useq = qp < self.dq_len[idx]
        if useq.any():
            qi = idx[useq]
            deck[useq] = self.dq_deck[qi, qp[useq]]
            rank[useq] = self.dq_rank[qi, qp[useq]]
            self.dq_pos[qi] += 1
        m = int(k - useq.sum())
        if m:
            deck[~useq] = self.rng.permuted(np.tile(AR52, (m, 1)), axis=1)
        return deck, rank, ~useq

    def _deal(self, idx: np.ndarray, flags: np.ndarray) -> None:
        """A fresh deck: 6 cards to each flagged seat from the dealer's left."""
        deck, rank, lazy = self._draw_decks(idx)
        f = pack(flags)
        pos = self._seats.dealpos[self.dealer[idx], f]  # [k, n]: deal index of each seat, -1 none
        cards = deck[np.arange(len(idx))[:, None, None], np.maximum(pos, 0)[:, :, None] * HAND_SIZE + AR6]
        self.hands[idx] = np.where(pos >= 0, BIT[cards].sum(2, dtype=np.uint64), np.uint64(0))
        nd = self._seats.popcount[f] * HAND_SIZE
        self.deck[idx] = deck
        self.rank[idx] = rank
        self._rank_lazy[idx] = lazy
        self.stock_pos[idx] = nd
        self.stock_len[idx] = NUM_CARDS - nd
        self.thrown[idx] = 0
        self._clear_trick(idx)
        self.played[idx] = 0
        self.tricks[idx] = 0
        self.tricks_done[idx] = 0
        self.void_bits[idx] = 0

    def _clear_trick(self, idx: np.ndarray) -> None:
        self.trick_cards[idx] = 0
        self._trick[idx] = TRICK_EMPTY
        self._per_seat[idx, C_TRICK_PLAYED] = 0
        self._per_seat[idx, C_TRICK_CARD] = -1

    def _draw_hand(self, idx: np.ndarray, seat: np.ndarray) -> None:
        if not len(idx):
            return
        short = self.stock_len[idx] < HAND_SIZE
        if short.any():
            self._reshuffle(idx[short])
        pos = self.stock_pos[idx].astype(np.intp)
        cards = self.deck[idx[:, None], pos[:, None] + AR6]
        self.hands[idx, seat] = BIT[cards].sum(1, dtype=np.uint64)
        self.stock_pos[idx] += HAND_SIZE
        self.stock_len[idx] -= HAND_SIZE

    def _settle_rank(self, idx: np.ndarray) -> None:
        """Draw the reshuffle order of deals that have none yet."""
        lz = idx[self._rank_lazy[idx]]
        if len(lz):
            self.rank[lz] = self.rng.permuted(np.tile(AR52, (len(lz), 1)), axis=1)
            self._rank_lazy[lz] = False

    def _reshuffle(self, idx: np.ndarray) -> None:
        """Thrown-in hands, ordered by the deal's reshuffle rank, go under the stock."""
        k = len(idx)
        pos = self.stock_pos[idx].astype(np.intp)
        ln = self.stock_len[idx].astype(np.intp)
        key = np.full((k, NUM_CARDS), 10_000, np.int32)
        inst = (AR52 >= pos[:, None]) & (AR52 < (pos + ln)[:, None])
        r, c = np.nonzero(inst)
        key[r, self.deck[idx[r], c]] = c - pos[r]
        self._settle_rank(idx)
        th = bits_to_bool(self.thrown[idx])
        key = np.where(th, 100 + self.rank[idx].astype(np.int32), key)
        self.deck[idx] = np.argsort(key, 1, kind="stable").astype(np.int8)
        self.stock_pos[idx] = 0
        self.stock_len[idx] = ln + th.sum(1)
        self.thrown[idx] = 0
        self.redeals_open[idx] = False
        self.reshuffled[idx] = True

    # ------------------------------------------------------------------ game / round start
    def _new_game(self, idx: np.ndarray, dealer=None, scores=None) -> None:
        k = len(idx)
        n = self.num_players
        self.dealer[idx] = self.rng.integers(n, size=k) if dealer is None else dealer
        self.scores[idx] = self.rules.start_score if scores is None else scores
        self.active[idx] = True
        self.rounds_played[idx] = 0
        self.tied_duels[idx] = 0
        self.winner[idx] = -1
        self.terminated[idx] = False
        self.truncated[idx] = False
        self.leader[idx] = -1
        self._defer(idx, START_ROUND)

    def _defer(self, idx: np.ndarray, code: int) -> None:
        """Leave a transition that many games reach by different paths in a step (a new
        deal, the next trick) for one batched call at the end of the step (``_resolve``)."""
        self.phase[idx] = code
        self.to_act[idx] = -1

    def _resolve(self, deal: bool = True) -> None:
        """Run the deferred transitions until every game waits for a decision (with
        ``deal=False``: all but new deals)."""
        while True:
            ph = self.phase
            waiting = np.flatnonzero(ph >= (START_ROUND if deal else START_TRICK))
            if not len(waiting):
                return
            code = ph[waiting]
            self._score_round(waiting[code == SCORE_ROUND])
            self._start_trick(waiting[code == START_TRICK])
            if deal:
                self._start_round(waiting[code == START_ROUND])

    def _start_round(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        act = self.active[idx]
        self._deal(idx, act)
        self.in_round[idx] = act
        self.redeals_open[idx] = self._redeal_on
        self.reshuffled[idx] = False
        self.throws[idx] = 0
        self.seen[idx] = 0
        self.calls[idx] = NO_CALL
        self.high_level[idx] = -1
        self.declarer[idx] = -1
        self.join_state[idx] = JOIN_PENDING
        self.joiner[idx] = False
        self.bounced[idx] = False
        self.in_duel[idx] = False
        self.thrower[idx] = -1
        self.thrown_hand[idx] = 0
        self._next_redeal(idx, np.ones(len(idx), np.intp))

    # ------------------------------------------------------------------ redeal and look
    def _next_redeal(self, idx: np.ndarray, start: np.ndarray) -> None:
        """The next seat (offset >= start from the dealer) that may throw in, or the auction."""
        if not len(idx):
            return
        if not self._redeal_on:
            self._start_auction(idx)
            return
        cand = self.active[idx] & self.redeals_open[idx][:, None]
        if self._no_face:
            cand &= (self.hands[idx] & FACE_BITS) == 0
        nxt = self._seats.next_seat(self.dealer[idx], cand, start)
        found = nxt >= 0
        fi = idx[found]
        self.phase[fi] = REDEAL_PH
        self.to_act[fi] = nxt[found]
        self._start_auction(idx[~found])

    def _apply_redeal(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        keep = a == KEEP
        ki = idx[keep]
        self._next_redeal(ki, self._seats.offs[self.dealer[ki], seat[keep]] + 1)
        ri, rs = idx[~keep], seat[~keep]
        if not len(ri):
            return
        h = self.hands[ri, rs]
        self.thrown_hand[ri] = h
        self.thrown[ri] |= h
        self.seen[ri, rs] |= h
        self.hands[ri, rs] = 0
        self.throws[ri, rs] += 1
        if self._challenge:
            self.thrower[ri] = rs
            flags = self.active[ri]
            flags[np.arange(len(ri)), rs] = False
            self.to_act[ri] = self._seats.next_seat(rs, flags)
            self.phase[ri] = LOOK_PH
        else:
            self._draw_hand(ri, rs)
            self._next_redeal(ri, self._seats.offs[self.dealer[ri], rs])

    def _apply_look(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        look = a == LOOK
        li, ls = idx[look], seat[look]
        if len(li):
            th = self.thrown_hand[li]
            self.seen[li, ls] |= th
            face = (th & FACE_BITS) != 0
            loser = np.where(face, self.thrower[li], ls)
            ended = self._add_score(li, loser, PENALTY)
            self._finish_look(li[~ended])
        ni, ns = idx[~look], seat[~look]
        if len(ni):
            th = self.thrower[ni]
            flags = self.active[ni]
            flags[np.arange(len(ni)), th] = False
            nxt = self._seats.next_seat(th, flags, self._seats.offs[th, ns] + 1)
            has = nxt >= 0
            self.to_act[ni[has]] = nxt[has]
            self._finish_look(ni[~has])

    def _finish_look(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        th = self.thrower[idx].copy()
        self.thrower[idx] = -1
        self.thrown_hand[idx] = 0
        self._draw_hand(idx, th)
        self._next_redeal(idx, self._seats.offs[self.dealer[idx], th])

    # ------------------------------------------------------------------ auction
    def _start_auction(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        self.phase[idx] = BID_PH
        self.to_act[idx] = self._seats.next_seat(self.dealer[idx], self.active[idx])

    def _apply_bid(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        passed = a == PASS
        level = np.where(a == REDBEARD, REDBEARD_LEVEL, a - BID0).astype(np.int8)
        self.calls[idx, seat] = np.where(passed, PASSED, level)
        bid = ~passed
        bi = idx[bid]
        self.high_level[bi] = level[bid]
        self.declarer[bi] = seat[bid]
        if self._bos == "penalty":
            over = bid & (LEVEL_TRICKS[level] > self.scores[idx, seat])
            if over.any():
                alive = np.ones(len(idx), bool)
                alive[over] = ~self._add_score(idx[over], seat[over], PENALTY)
                idx, seat = idx[alive], seat[alive]
        if self._single:
            last = seat == self.dealer[idx]
            self._end_auction(idx[last])
            ni = idx[~last]
            self.to_act[ni] = self._seats.next_seat(seat[~last], self.active[ni])
        else:
            waiting = self.active[idx] & (self.calls[idx] != PASSED)
            waiting &= self._seats.ids != self.declarer[idx][:, None]
            nxt = self._seats.next_seat(seat, waiting)
            has = nxt >= 0
            self.to_act[idx[has]] = nxt[has]
            self._end_auction(idx[~has])

    def _end_auction(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        d = self.declarer[idx]
        none = d < 0
        self._defer(idx[none], SCORE_ROUND)
        di = idx[~none]
        self.leader[di] = d[~none]
        self._defer(di, START_TRICK)

    # ------------------------------------------------------------------ play, ask, join
    def _start_trick(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        ja = self.rules.join_at
        if ja > 0:
            j = (~self.in_duel[idx]) & (self.join_state[idx] == JOIN_PENDING)
            j &= self.tricks_done[idx] == TRICKS_PER_ROUND - ja
            if j.any():
                ji = idx[j]
                idx = idx[~j]
                if self.rules.ask_optional:
                    self.phase[ji] = ASK_PH
                    self.to_act[ji] = self.declarer[ji]
                else:
                    self._ask_join(ji)
                if not len(idx):
                    return
        lead = self.leader[idx]
        out = ~self.in_round[idx, lead]
        if out.any():
            oi = idx[out]
            self.leader[oi] = self._seats.next_seat(lead[out], self.in_round[oi])
        self._clear_trick(idx)
        self.phase[idx] = np.where(self.in_duel[idx], DUEL_PH, PLAY_PH)
        self.to_act[idx] = self.leader[idx]
        # who plays after whom in this trick (in_round cannot change during a trick)
        f = pack(self.in_round[idx])
        self._n_in[idx] = self._seats.popcount[f]
        self._next_in[idx] = self._seats.next_all[f]

    def _apply_ask(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        ask = a == ASK
        self._ask_join(idx[ask])
        si, ss = idx[~ask], seat[~ask]
        if len(si):
            self.join_state[si] = JOIN_SKIPPED
            ended = self._add_score(si, ss, self.rules.forget_penalty)
            self._defer(si[~ended], START_TRICK)

    def _ask_join(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        self.join_state[idx] = JOIN_ASKED
        self._next_join(idx, np.ones(len(idx), np.intp))

    def _may_fold(self, idx: np.ndarray) -> np.ndarray:
        if self._trickless:
            mf = self.tricks[idx] == 0
        else:
            mf = np.ones((len(idx), self.num_players), bool)
        if self.rules.one_point_must_join:
            mf &= self.scores[idx] != 1
        return mf

    def _next_join(self, idx: np.ndarray, start: np.ndarray) -> None:
        """Resolve the join queue from offset ``start`` (from the declarer): players who
        may not fold are in automatically; stop at the first one with a real choice."""
        if not len(idx):
            return
        d = self.declarer[idx]
        off = self._seats.offs[d]  # [k, n]: offset of each seat from the declarer (itself n)
        elig = self.in_round[idx] & (off >= start[:, None]) & (off < self.num_players)
        mf = self._may_fold(idx)
        nxt = self._seats.next_seat(d, elig & mf, start)  # the first with a real choice
        found = nxt >= 0
        limit = np.where(found, self._seats.offs[d, np.maximum(nxt, 0)], self.num_players + 1)
        auto = elig & ~mf & (off < limit[:, None])  # in automatically before it
        if auto.any():
            self.joiner[idx] |= auto & (self.tricks[idx] == 0)
        fi = idx[found]
        self.phase[fi] = JOIN_PH
        self.to_act[fi] = nxt[found]
        self._defer(idx[~found], START_TRICK)

    def _apply_join(self, idx: np.ndarray, seat: np.ndarray, a: np.ndarray) -> None:
        join = a == JOIN
        ji, js = idx[join], seat[join]
        self.joiner[ji, js] = self.tricks[ji, js] == 0
        fo = ~join
        self.in_round[idx[fo], seat[fo]] = False
        self._next_join(idx, self._seats.offs[self.declarer[idx], seat] + 1)

    def _apply_play(self, idx: np.ndarray, seat: np.ndarray, card: np.ndarray) -> None:
        n = self.num_players
        suit = SUIT_OF_CARD[card]
        T = self._trick[idx]  # [k, 5]: length, led suit, best card, its seat, leader
        first = T[:, 0] == 0
        led = np.where(first, suit, T[:, 1])
        off = suit != led  # not following: a void shown
        if off.any():
            oi = idx[off]
            self.void_bits[oi] |= np.left_shift(np.uint32(1), (4 * seat[off] + led[off]).astype(np.uint32))
        bit = BIT[card]
        srow = idx * n + seat
        hflat = self.hands.reshape(-1)
        hflat[srow] &= ~bit
        self.trick_cards[idx] |= bit
        pflat = self._per_seat.reshape(-1)
        prow = idx * (SEAT_PAD * SEAT_COLS) + seat
        pflat[prow + SEAT_PAD * C_TRICK_PLAYED] = 1
        pflat[prow + SEAT_PAD * C_TRICK_CARD] = card
        better = first | ((suit == led) & (card > T[:, 2]))
        T[:, 1] = led
        T[:, 2] = np.where(better, card, T[:, 2])
        T[:, 3] = np.where(better, seat, T[:, 3])
        T[:, 4] = np.where(first, seat, T[:, 4])
        T[:, 0] += 1
        self._trick[idx] = T
        self.to_act[idx] = self._next_in.reshape(-1)[srow]
        done = T[:, 0] >= self._n_in[idx]
        if done.any():
            self._complete_trick(idx[done])

    def _complete_trick(self, idx: np.ndarray) -> None:
        w = self.trick_win[idx]
        self.played[idx] |= self.trick_cards[idx]
        self.tricks[idx, w] += 1
        self.tricks_done[idx] += 1
        duel = self.in_duel[idx]
        if not duel.all():
            p = ~duel
            pi, pw = idx[p], w[p]
            value = np.where(self.joiner[pi, pw], self.rules.joiner_trick_value, 1)
            ended = self._take_trick_points(pi, pw, value)
            if ended.any():
                alive = np.ones(len(idx), bool)
                alive[np.flatnonzero(p)[ended]] = False
                idx, w, duel = idx[alive], w[alive], duel[alive]
        if self._leader_tw:
            self.leader[idx] = w
        else:
            self.leader[idx[duel]] = w[duel]
        more = self.tricks_done[idx] < TRICKS_PER_ROUND
        self._defer(idx[more], START_TRICK)
        self._end_duel(idx[~more & duel])
        self._defer(idx[~more & ~duel], SCORE_ROUND)

    # ------------------------------------------------------------------ scores
    def _add_score(self, idx: np.ndarray, seat: np.ndarray, delta) -> np.ndarray:
        """Add to running scores; under ``immediate`` a score that becomes 0 ends the game.
        Returns bool [k]: that game ended."""
        self.scores[idx, seat] += delta
        if self._immediate:
            hit = (self.scores[idx, seat] == 0) & (np.asarray(delta) != 0)
            if hit.any():
                self._end_game(idx[hit], seat[hit])
            return hit
        return np.zeros(len(idx), bool)

    def _take_trick_points(self, idx: np.ndarray, seat: np.ndarray, value: np.ndarray) -> np.ndarray:
        if self._bounce:
            score = self.scores[idx, seat]
            b = self.bounced[idx, seat]
            cross = ~b & (score > 0) & (score - value <= 0)
            delta = np.where(b, value, np.where(cross, value - 2 * score, -value))
            self.bounced[idx[cross], seat[cross]] = True
            return self._add_score(idx, seat, delta)
        return self._add_score(idx, seat, -value)

    def _score_round(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        r = self.rules
        k = len(idx)
        ar = np.arange(k)
        d = self.declarer[idx]
        hd = d >= 0
        dd = np.where(hd, d, 0)
        level = np.where(hd, self.calls[idx, dd], -1)
        td = self.tricks[idx, dd]
        # round records (info)
        self.r_over[idx] = True
        self.r_declarer[idx] = d
        self.r_bid[idx] = level
        self.r_tricks[idx] = self.tricks[idx]
        self.r_joiner[idx] = self.joiner[idx]
        self.r_folded[idx] = self.active[idx] & ~self.in_round[idx]
        self.rounds_played[idx] += 1
        rb = hd & (level == REDBEARD_LEVEL)
        succ = rb & (td == TRICKS_PER_ROUND)
        need = LEVEL_TRICKS[np.maximum(level, 0)]
        made = (td == need) if self._exact else (td >= need)
        self.r_made[idx] = hd & made
        if succ.any():
            if r.redbeard_success == "win":
                self._end_game(idx[succ], d[succ])
                keep = ~succ
                idx, d, hd, dd, level, td, rb, succ, made = (
                    x[keep] for x in (idx, d, hd, dd, level, td, rb, succ, made)
                )
                k = len(idx)
                ar = np.arange(k)
                if not k:
                    return
            else:
                self.scores[idx[succ], d[succ]] = 0
        failed_elim = rb & ~succ if r.redbeard_fail == "eliminate" else np.zeros(k, bool)
        pen = hd & ~succ & ~failed_elim & ~made
        self.scores[idx[pen], d[pen]] += PENALTY
        if r.joiner_fail_penalty or r.zero_trick_penalty:
            zt = self.in_round[idx] & (self.tricks[idx] == 0) & hd[:, None]
            add = zt * r.zero_trick_penalty + (zt & self.joiner[idx]) * r.joiner_fail_penalty
            self.scores[idx] += add.astype(np.int32)
        # SPEC §1.8: the round's penalties, then every elimination, then the zero check
        if failed_elim.any():
            self._eliminate(idx[failed_elim], d[failed_elim])
        if r.eliminate_at is not None:
            act = self.active[idx]
            sc = self.scores[idx]
            over = act & (sc >= r.eliminate_at)
            allover = over.any(1) & (over.sum(1) == act.sum(1))
            if allover.any():
                low = np.where(over, sc, np.iinfo(np.int32).max).min(1)
                over[allover] &= sc[allover] != low[allover][:, None]
            if over.any():
                rr, cc = np.nonzero(over)
                self._eliminate(idx[rr], cc)
        act = self.active[idx]
        on0 = act & (self.scores[idx] == 0)
        c0 = on0.sum(1)
        one = c0 == 1
        if one.any():
            self._end_game(idx[one], on0[one].argmax(1))
        many = c0 > 1
        if many.any():
            mi = idx[many]
            self.tied_duels[mi] = 0
            self.in_round[mi] = on0[many]
            self._start_duel(mi)
        rest = c0 == 0
        idx, act = idx[rest], act[rest]
        if not len(idx):
            return
        last = act.sum(1) == 1
        if last.any():
            self._end_game(idx[last], act[last].argmax(1))
        idx = idx[~last]
        trunc = self.rounds_played[idx] >= r.max_rounds
        ti = idx[trunc]
        self.truncated[ti] = True
        self.phase[ti] = DONE_PH
        self.to_act[ti] = -1
        idx = idx[~trunc]
        if len(idx):
            self.dealer[idx] = self._seats.next_seat(self.dealer[idx], self.active[idx])
            self._defer(idx, START_ROUND)

    def _eliminate(self, idx: np.ndarray, seat: np.ndarray) -> None:
        self.active[idx, seat] = False
        self.in_round[idx, seat] = False
        self.eliminated[idx, seat] = True
        self.rewards[idx, seat] = self._loss

    def _end_game(self, idx: np.ndarray, winner: np.ndarray) -> None:
        if not len(idx):
            return
        self.winner[idx] = winner
        self.terminated[idx] = True
        self.phase[idx] = DONE_PH
        self.to_act[idx] = -1
        rw = self.rewards[idx]
        rw[self.active[idx]] = self._loss
        rw[np.arange(len(idx)), winner] = 1.0
        self.rewards[idx] = rw

    # ------------------------------------------------------------------ duel
    def _start_duel(self, idx: np.ndarray) -> None:
        """A duel among the seats flagged in ``in_round``."""
        if not len(idx):
            return
        flags = self.in_round[idx]
        self._deal(idx, flags)
        self.joiner[idx] = False
        self.bounced[idx] = False
        self.calls[idx] = NO_CALL
        self.high_level[idx] = -1
        self.declarer[idx] = -1
        self.join_state[idx] = JOIN_PENDING
        self.leader[idx] = self._seats.next_seat(self.dealer[idx], flags)
        self.in_duel[idx] = True
        self._start_trick(idx)

    def _end_duel(self, idx: np.ndarray) -> None:
        if not len(idx):
            return
        t = np.where(self.in_round[idx], self.tricks[idx], -1)
        best = t == t.max(1)[:, None]
        one = best.sum(1) == 1
        self._end_game(idx[one], best[one].argmax(1))
        idx, best = idx[~one], best[~one]
        if not len(idx):
            return
        self.tied_duels[idx] += 1
        cap = self.tied_duels[idx] >= MAX_TIED_DUELS
        self._end_game(idx[cap], best[cap].argmax(1))
        idx, best = idx[~cap], best[~cap]
        self.in_round[idx] = best
        self._start_duel(idx)

    # ------------------------------------------------------------------ observations
    def observe(self, observer=None) -> np.ndarray:
        """Observations float32 [B, D] of seat ``observer`` (int or int [B]; default: the
        acting seat) in every game, as the AEC env would encode them."""
        if observer is None:
            obsr = self.to_act.astype(np.intp)
        else:
            obsr = np.broadcast_to(np.asarray(observer, dtype=np.intp), (self.num_envs,))
        obsr = np.where(obsr < 0, 0, obsr)
        return self._encoder.encode(self, obsr)[0]

    # ------------------------------------------------------------------ public API
    def reset(
        self,
        seed: int | None = None,
        *,
        dealer=None,
        scores=None,
        decks=None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game in every slot; returns ``(obs, mask, seat)``.

        ``seed`` reseeds the batch generator. ``dealer`` (int or int [B]) and ``scores``
        (int [n] or [B, n], each within ±``rules.SCORE_LIMIT``) fix the first dealer and the
        starting scores. ``decks`` fixes the deals of these games (rounds and duels, in
        order): an int array [B, K, 52] (each row a deck, top card first) or [B, K, 104]
        (the deck followed by the order in which thrown-in cards are reshuffled, as the AEC
        env's ``decks`` option); a row starting with -1 ends that game's list. Deals beyond
        the list are drawn from the generator; the list is dropped when the game ends.
        A bad argument raises ``ValueError`` before anything changes (no reseed either).
        """
        B, n = self.num_envs, self.num_players
        idx = self._arB
        if dealer is not None:
            dealer = np.broadcast_to(np.asarray(dealer), (B,))
            if not np.issubdtype(dealer.dtype, np.integer) or ((dealer < 0) | (dealer >= n)).any():
                raise ValueError(f"reset: dealer must be seats 0..{n - 1}, got {dealer!r:.80}")
        if scores is not None:
            scores = np.asarray(scores)
            if (
                not np.issubdtype(scores.dtype, np.integer)
                or scores.shape not in ((n,), (B, n))
                or ((scores < -SCORE_LIMIT) | (scores > SCORE_LIMIT)).any()
            ):
                raise ValueError(
                    f"reset: scores must be ints in -{SCORE_LIMIT}..{SCORE_LIMIT} of shape ({n},) or ({B}, {n}), "
                    f"got {scores!r:.80}"
                )
        queue = self._parse_decks(decks)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.dq_deck, self.dq_rank, self.dq_len[:] = queue
        self.dq_pos[:] = 0
        self._started = True
        self._clear_step_outputs()
        self._new_game(idx, dealer=dealer, scores=scores)
        self._resolve()
        return self._observe()

    def _parse_decks(self, decks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``decks`` argument of ``reset``, checked, as the deck queue: decks int8
        [B, K, 52], their reshuffle ranks int8 [B, K, 52] and each game's list length."""
        B = self.num_envs
        if decks is None:
            empty = np.zeros((B, 0, NUM_CARDS), np.int8)
            return empty, empty.copy(), np.zeros(B, np.int32)
        d = np.asarray(decks)
        if d.ndim != 3 or d.shape[0] != B or d.shape[2] not in (NUM_CARDS, 2 * NUM_CARDS) or not np.issubdtype(
            d.dtype, np.integer
        ):
            raise ValueError(
                f"reset: decks must be an int array [{B}, K, 52] or [{B}, K, 104], got shape {d.shape}"
            )
        present = d[:, :, 0] >= 0
        # the list of each game ends at its first row starting with -1
        length = np.where(present.all(1), d.shape[1], (~present).argmax(1))
        used = np.arange(d.shape[1])[None, :] < length[:, None]
        rows = d[used]
        ok = (np.sort(rows[:, :NUM_CARDS], 1) == AR52).all(1)
        if d.shape[2] == 2 * NUM_CARDS:
            ok &= (np.sort(rows[:, NUM_CARDS:], 1) == AR52).all(1)
        if not ok.all():
            b, q = np.argwhere(used)[np.flatnonzero(~ok)[0]]
            raise ValueError(f"reset: decks[{b}, {q}] is not a permutation of the 52 card ids (twice for 104)")
        deck = np.where(used[:, :, None], d[:, :, :NUM_CARDS], 0).astype(np.int8)
        if d.shape[2] == 2 * NUM_CARDS:
            order = np.where(used[:, :, None], d[:, :, NUM_CARDS:], AR52).astype(np.intp)
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.broadcast_to(AR52, order.shape), 2)
        else:  # like a scripted deck in game.py: thrown-in cards come back in card-id order
            rank = np.broadcast_to(AR52, deck.shape)
        return deck, np.ascontiguousarray(rank, dtype=np.int8), length

    def _clear_step_outputs(self) -> None:
        self.rewards[:] = 0
        self.eliminated[:] = False
        self.r_over[:] = False
        self.r_declarer[:] = -1
        self.r_bid[:] = -1
        self.r_made[:] = False

    def _observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seat = self.to_act.astype(np.int64)
        obsr = np.where(seat < 0, 0, seat)
        obs, hand = self._encoder.encode(self, obsr)
        self._mask = self._masks.mask(self, hand)
        return obs, self._mask.copy(), seat

    def _check_actions(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Validated actions (intp [B]) and their kind (0..5; 6 = a halted game, ignored)."""
        B = self.num_envs
        a = np.asarray(actions)
        if a.shape != (B,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({B},), got {a.dtype} {a.shape}")
        a = a.astype(np.intp, copy=False)
        inrange = (a >= 0) & (a < NUM_ACTIONS)
        ac = np.where(inrange, a, 0)
        legal = inrange & (np.take(self._mask, self._mask_rows + ac) == 1)
        kind = KIND[ac]
        if not legal.all():
            halted = self.phase == DONE_PH  # a game halted at its round's end: action ignored
            legal |= halted
            if not legal.all():
                b = int(np.flatnonzero(~legal)[0])
                ph = PHASE_NAMES[self.phase[b]]
                name = action_name(int(a[b])) if inrange[b] else repr(int(a[b]))
                allowed = ", ".join(action_name(int(x)) for x in np.flatnonzero(self._mask[b]))
                raise ValueError(
                    f"game {b}: illegal action {name} (id {int(a[b])}) in phase {ph!r} for seat "
                    f"{int(self.to_act[b])}; legal: {allowed}"
                )
            kind[halted] = 6
        return a, kind

    def step(self, actions):
        """Advance every game by one decision of its acting seat. Returns
        ``obs, mask, seat, rewards, terminated, truncated, info`` (see the module doc).
        An illegal action raises ``ValueError`` (naming the game, action and phase) before
        anything changes."""
        if not self._started:
            raise ValueError("step() before reset(): call reset() (or load_games()) first")
        a, kind = self._check_actions(actions)
        self._clear_step_outputs()
        seat = self.to_act.astype(np.intp)
        counts = np.bincount(kind, minlength=7)
        if counts[0] == self.num_envs:
            self._apply_play(self._arB, seat, a)
        else:
            order = np.argsort(kind, kind="stable")
            ends = np.cumsum(counts)
            for kd, apply in enumerate(self._apply_fns):
                if counts[kd]:
                    ix = order[ends[kd] - counts[kd] : ends[kd]]
                    apply(ix, seat[ix], a[ix])
        return self._finish_step(kind == 6)

    def _finish_step(self, was_halted: np.ndarray | None = None):
        self._resolve(deal=False)  # rounds are scored here; new deals after the records
        fin = self.terminated | self.truncated
        if was_halted is not None and was_halted.any():
            fin &= ~was_halted  # report an ending once
        terminated = self.terminated & fin
        truncated = self.truncated & fin
        info = {
            "score": self.scores.copy(),
            "winner": np.where(terminated, self.winner, -1).astype(np.int8),
            "rounds": self.rounds_played.copy(),
            "round_over": self.r_over.copy(),
            "round_declarer": self.r_declarer.copy(),
            "round_bid": self.r_bid.copy(),
            "round_made": self.r_made.copy(),
            "round_tricks": self.r_tricks.copy(),
            "round_joiner": self.r_joiner.copy(),
            "round_folded": self.r_folded.copy(),
            "eliminated": self.eliminated.copy(),
        }
        info["final_score"] = info["score"]
        info["round_score"] = info["score"]
        rewards = self.rewards.copy()
        if self._stop_round.any():
            # slots loaded with stop_at_round_end: halt after the round's scoring (the next
            # deal may have been made; scores are those of the scoring) or the game's end
            hold = self._stop_round & (self.r_over | fin)
            self.phase[hold] = DONE_PH
            self.to_act[hold] = -1
            fin &= ~self._stop_round
        if self.auto_reset:
            done = np.flatnonzero(fin)
            if len(done):
                self.dq_len[done] = 0
                self._new_game(done)
        self._resolve()
        info["phase"] = self.phase.copy()
        obs, mask, seat = self._observe()
        return obs, mask, seat, rewards, terminated, truncated, info

    @property
    def halted(self) -> np.ndarray:
        """bool [B]: games that stopped (a round's end under ``stop_at_round_end``, or a
        finished game without auto-reset); their actions are ignored."""
        return self.phase == DONE_PH

    # ------------------------------------------------------------------ reference games in and out
    def load_games(self, games: Sequence[G.Game], indices=None, stop_at_round_end: bool = False):
        """Set the state of games ``indices`` (default: all B, in order) from reference
        :class:`redbeard_env.game.Game` objects (mid-round states included: any phase but
        ``done``). Their queued decks (``Game.deck_queue``) are used for their next deals;
        later deals come from this env's generator. With ``stop_at_round_end`` those games
        halt after their current round is scored (or the game ends): phase ``done``, mask
        all 0, actions ignored, no auto-reset -- for playing sampled deals to the end of a
        round. Returns ``(obs, mask, seat)`` of the whole batch."""
        idx = self._arB if indices is None else np.asarray(indices, dtype=np.intp).reshape(-1)
        vector_bridge.load_games(self, list(games), idx)
        self._started = True
        self._stop_round[idx] = bool(stop_at_round_end)
        f = pack(self.in_round[idx])
        self._n_in[idx] = self._seats.popcount[f]
        self._next_in[idx] = self._seats.next_all[f]
        self._clear_step_outputs()
        return self._observe()

    def export_game(self, b: int, rng: np.random.Generator | None = None) -> G.Game:
        """Game ``b`` as a reference :class:`redbeard_env.game.Game` (which then plays on
        exactly as this engine would with the same actions and deals; its remaining queued
        decks go to ``deck_queue``, later deals draw from ``rng``, default a fresh
        generator). Nothing is drawn from this engine's generator: a reshuffle order it
        has not drawn yet (a deal from its generator, stock not yet run short) is drawn
        from ``rng`` too."""
        return vector_bridge.export_game(self, b, rng)

    # ------------------------------------------------------------ pickling
    def __setstate__(self, state: dict) -> None:
        """Many arrays are views into shared buffers (see ``_alloc``); pickling turns them
        into independent copies. Rebuild the buffers and views, then copy the values in,
        so an unpickled engine (e.g. from a training checkpoint) continues exactly."""
        self.__dict__.update(state)
        self._alloc()
        for key, value in state.items():
            current = self.__dict__.get(key)
            if isinstance(value, np.ndarray) and isinstance(current, np.ndarray) and current is not value:
                if current.shape == value.shape and current.flags.writeable:
                    current[...] = value
                    continue
            self.__dict__[key] = value


# ---------------------------------------------------------------- helpers
def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (int8/bool [B, A]); every row
    must have a legal action."""
    B, A = mask.shape
    m = np.asarray(mask)
    m = m.view(np.bool_) if m.dtype in (np.int8, np.uint8) else m != 0  # bool scans are faster
    flat = np.flatnonzero(m)
    row = flat // A
    count = np.bincount(row, minlength=B)
    start = np.cumsum(count) - count
    pick = start + (rng.random(B) * count).astype(np.int64)
    return flat[pick] - np.arange(B) * A

