"""A compact batched playout of the rest of a round, for search bots (``pimc``).

Search needs to play thousands of sampled deals from a mid-round state to the round's
end. This module does that in numpy over a batch of states rebuilt from one player's
observation (that player is seat 0; the other seats are the relative positions), for
the phases a search starts from — auction, ask, join, card play — and the scoring at the
round's end. It reads every rule from :class:`~redbeard_env.rules.Rules` like the
engines do, and its policies see :class:`~agents.decode.ObsBatch` views built directly
from the state (no vector encoding). Its agreement with the reference engine
(``game.py``) is tested: the same states and actions give the same scores and tricks.

Out of scope (a search falls back to its rollout policy there): the redeal and look
questions, duels, and what happens after the round (next deals). A round that leaves
several players on 0 is scored as a shared win.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.cards import ASK, BID0, FOLD, JOIN, NUM_CARDS, PASS, REDBEARD, REDBEARD_LEVEL
from redbeard_env.rules import PENALTY, TRICKS_PER_ROUND, Rules

from .cardmodel import SUIT_OF
from .decode import PHASE, ObsBatch

BID, ASK_PH, JOIN_PH, PLAY, DONE = PHASE["bid"], PHASE["ask"], PHASE["join"], PHASE["play"], PHASE["done"]
NO_CALL, PASSED = -2, -1
PENDING, ASKED, SKIPPED = 0, 1, 2
P = 7


class Playout:
    """State of N rounds (seat 0 = the searching player), advanced with :meth:`step`."""

    def __init__(self, rules: Rules, num_players: int, view: ObsBatch, rows: np.ndarray, hands: np.ndarray,
                 led: np.ndarray | None = None):
        """Rebuild round states: ``view`` rows ``rows`` [N] (decoded observations of the
        searching player) with every hand given by ``hands`` bool [N, n, 52]; ``led`` [N]
        is the suit led to the current trick (inferred from the view when not given)."""
        r = rules
        n = num_players
        self.rules, self.n = r, n
        N = len(rows)
        self.N = N
        v = view
        self.src = rows
        seat = np.arange(n)
        self.seat = seat
        self.phase = v.phase[rows].astype(np.int64).copy()
        self.to_act = np.zeros(N, np.int64)
        self.dealer = v.dealer[rows].astype(np.int64).copy()
        self.declarer = v.declarer[rows].astype(np.int64).copy()
        self.leader = v.leader[rows].astype(np.int64).copy()
        self.high = v.high_bid[rows].astype(np.int64).copy()
        self.scores = v.score[rows, :n].astype(np.int64).copy()
        self.active = v.active[rows, :n].copy()
        self.in_round = v.in_round[rows, :n].copy()
        self.tricks = v.tricks[rows, :n].astype(np.int64).copy()
        self.calls = v.call[rows, :n].astype(np.int64).copy()
        self.joiner = v.joiner[rows, :n].copy()
        self.bounced = v.bounced[rows, :n].copy()
        self.voids = v.voids[rows, :n].copy()
        self.hands = hands.copy()
        self.played = v.played[rows].copy()
        self.tricks_done = v.tricks_done[rows].astype(np.int64).copy()
        self.join_state = v.join_state[rows].astype(np.int64).copy()
        in_trick = self.phase == PLAY
        # (in the ask and join phases these still show the last finished trick, as the engines do)
        self.trick = v.trick[rows].copy()
        self.trick_played = v.trick_played[rows, :n].copy()
        self.trick_len = self.trick.sum(1)
        self.led = np.full(N, -1, np.int64)
        self.best = np.full(N, -1, np.int64)
        self.win = np.full(N, -1, np.int64)
        if in_trick.any():
            if led is None:
                from .decode import led_suit

                led = led_suit(v.rows(rows))
            self.led = np.where(self.trick_len > 0, led, -1)
            led_cards = self.trick & (SUIT_OF[None, :] == self.led[:, None])
            self.best = np.where(led_cards.any(1), np.where(led_cards, np.arange(NUM_CARDS), -1).max(1), -1)
        self.win = np.where(self.trick_len > 0, v.trick_winning[rows], -1)
        # constant context the policy sees
        self.ctx = {
            "num_players": v.num_players[rows],
            "rules_block": v.rules_block[rows],
            "progress": v.progress[rows],
            "seen_thrown": v.seen_thrown[rows],
            "redeals_open": np.zeros(N, bool),
            "reshuffled": v.reshuffled[rows],
            "stock_size": v.stock_size[rows],
            "tied_duels": v.tied_duels[rows],
            "throws": v.throws[rows],
        }
        self.done = np.zeros(N, bool)
        self.winner = np.full(N, -1, np.int64)  # a game won during the round (immediate, Rödskägg)
        self.eliminated = np.zeros((N, n), bool)

    # ------------------------------------------------------------------ helpers
    def _next_seat(self, base: np.ndarray, flags: np.ndarray) -> np.ndarray:
        """First seat clockwise after ``base`` (``base`` itself last) with its flag; -1 if none."""
        n = self.n
        k = len(base)
        offs = np.arange(1, n + 1)
        cand = (base[:, None] + offs[None, :]) % n
        f = flags[np.arange(k)[:, None], cand]
        j = f.argmax(1)
        return np.where(f[np.arange(k), j], cand[np.arange(k), j], -1)

    def _add(self, idx, seat, delta, during_play=True):
        self.scores[idx, seat] += delta
        if during_play and self.rules.zero_rule == "immediate":
            hit = (self.scores[idx, seat] == 0) & (np.asarray(delta) != 0)
            if hit.any():
                self._end(idx[hit], seat[hit])
            return hit
        return np.zeros(len(idx), bool)

    def _end(self, idx, winner):
        self.winner[idx] = winner
        self.done[idx] = True
        self.phase[idx] = DONE

    # ------------------------------------------------------------------ masks and views
    def legal(self, idx: np.ndarray) -> np.ndarray:
        """bool [k, 69]: the acting seats' legal actions in rounds ``idx``."""
        r = self.rules
        k = len(idx)
        m = np.zeros((k, 69), bool)
        ph = self.phase[idx]
        seat = self.to_act[idx]
        ar = np.arange(k)
        play = ph == PLAY
        if play.any():
            pi = ar[play]
            hand = self.hands[idx[pi], seat[pi]]
            led = self.led[idx[pi]]
            follow = hand & (SUIT_OF[None, :] == led[:, None])
            m[pi, :NUM_CARDS] = np.where(follow.any(1, keepdims=True), follow, hand)
        bid = ph == BID
        if bid.any():
            bi = ar[bid]
            g = idx[bi]
            s = seat[bi]
            forced = (r.all_pass == "dealer_must_bid") & (s == self.dealer[g]) & (self.high[g] < 0)
            lo = np.where(forced, max(r.min_bid, 1), r.min_bid)
            levels = np.arange(8)
            ok = ((levels[None, :] >= lo[:, None]) & (levels[None, :] <= r.max_bid)) | (levels[None, :] == 7)
            ok &= levels[None, :] > self.high[g][:, None]
            if r.bid_over_score == "forbid":
                sc = self.scores[g, s]
                cap = np.where(forced, np.maximum(sc, 1), sc)
                ok &= np.minimum(levels, 6)[None, :] <= cap[:, None]
            m[bi, BID0:BID0 + 7] = ok[:, :7]
            m[bi, REDBEARD] = ok[:, 7]
            m[bi, PASS] = ~forced
        for phase, a, b in ((ASK_PH, ASK, ASK + 1), (JOIN_PH, JOIN, FOLD)):
            sel = ph == phase
            m[ar[sel], a] = True
            m[ar[sel], b] = True
        return m

    def view(self, idx: np.ndarray) -> ObsBatch:
        """The acting seats' observations of rounds ``idx``, decoded (relative positions)."""
        n = self.n
        k = len(idx)
        obs_seat = self.to_act[idx]
        rel = (obs_seat[:, None] + np.arange(n)[None, :]) % n  # relative position -> seat
        rows = np.arange(k)[:, None]

        def per(a, fill=0):
            out = np.full((k, P) + a.shape[2:], fill, dtype=a.dtype)
            out[:, :n] = a[idx][rows, rel]
            return out

        def pos(seat):
            return np.where(seat >= 0, (seat - obs_seat) % n, -1)

        c = {key: val[idx] for key, val in self.ctx.items()}
        me = obs_seat == 0
        seen = np.where(me[:, None], c["seen_thrown"], False)
        forced = (self.phase[idx] == BID) & (self.rules.all_pass == "dealer_must_bid") & (
            obs_seat == self.dealer[idx]) & (self.high[idx] < 0)
        throws = np.zeros((k, P), np.int64)
        throws[:, :n] = c["throws"][:, :n][rows, (np.arange(n)[None, :] + obs_seat[:, None]) % n]
        return ObsBatch(
            phase=self.phase[idx],
            num_players=c["num_players"],
            rules_block=c["rules_block"],
            progress=c["progress"],
            hand=self.hands[idx, obs_seat],
            played=self.played[idx],
            trick=self.trick[idx],
            seen_thrown=seen,
            tricks_done=self.tricks_done[idx],
            high_bid=self.high[idx],
            join_state=self.join_state[idx],
            redeals_open=c["redeals_open"],
            reshuffled=c["reshuffled"],
            stock_size=c["stock_size"],
            tied_duels=c["tied_duels"],
            me_forced=forced,
            score=per(self.scores),
            active=per(self.active, False),
            in_round=per(self.in_round, False),
            dealer=pos(self.dealer[idx]),
            declarer=pos(self.declarer[idx]),
            acting=np.zeros(k, np.int64),
            leader=pos(np.where(np.isin(self.phase[idx], (ASK_PH, JOIN_PH, PLAY)), self.leader[idx], -1)),
            trick_played=per(self.trick_played, False),
            trick_winning=pos(np.where(self.trick_len[idx] > 0, self.win[idx], -1)),
            thrower=np.full(k, -1),
            tricks=per(self.tricks),
            joiner=per(self.joiner, False),
            bounced=per(self.bounced, False),
            throws=throws,
            voids=per(self.voids, False),
            call=per(self.calls, -2),
        )

    # ------------------------------------------------------------------ transitions
    def step(self, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply the acting seats' actions in rounds ``idx``."""
        ph = self.phase[idx]
        seat = self.to_act[idx]
        for phase, fn in ((PLAY, self._play), (BID, self._bid), (ASK_PH, self._ask), (JOIN_PH, self._join)):
            sel = ph == phase
            if sel.any():
                fn(idx[sel], seat[sel], actions[sel])

    def _bid(self, idx, seat, a):
        r = self.rules
        passed = a == PASS
        level = np.where(a == REDBEARD, REDBEARD_LEVEL, a - BID0)
        self.calls[idx, seat] = np.where(passed, PASSED, level)
        b = ~passed
        self.high[idx[b]] = level[b]
        self.declarer[idx[b]] = seat[b]
        alive = np.ones(len(idx), bool)
        if r.bid_over_score == "penalty":
            over = b & (np.minimum(level, 6) > self.scores[idx, seat])
            if over.any():
                alive[over] = ~self._add(idx[over], seat[over], PENALTY)
        idx, seat = idx[alive], seat[alive]
        if r.auction == "single":
            last = seat == self.dealer[idx]
            self._end_auction(idx[last])
            rest = ~last
            self.to_act[idx[rest]] = self._next_seat(seat[rest], self.active[idx[rest]])
        else:
            waiting = self.active[idx] & (self.calls[idx] != PASSED)
            waiting &= self.seat[None, :] != self.declarer[idx][:, None]
            nxt = self._next_seat(seat, waiting)
            has = nxt >= 0
            self.to_act[idx[has]] = nxt[has]
            self._end_auction(idx[~has])

    def _end_auction(self, idx):
        if not len(idx):
            return
        none = self.declarer[idx] < 0
        self._score_round(idx[none])
        di = idx[~none]
        self.leader[di] = self.declarer[di]
        self._start_trick(di)

    def _start_trick(self, idx):
        if not len(idx):
            return
        r = self.rules
        if r.join_at > 0:
            j = (self.join_state[idx] == PENDING) & (TRICKS_PER_ROUND - self.tricks_done[idx] == r.join_at)
            if j.any():
                ji = idx[j]
                idx = idx[~j]
                if r.ask_optional:
                    self.phase[ji] = ASK_PH
                    self.to_act[ji] = self.declarer[ji]
                else:
                    self._ask_join(ji)
        if not len(idx):
            return
        lead = self.leader[idx]
        out = ~self.in_round[idx, lead]
        if out.any():
            self.leader[idx[out]] = self._next_seat(lead[out], self.in_round[idx[out]])
        self.trick[idx] = False
        self.trick_played[idx] = False
        self.trick_len[idx] = 0
        self.led[idx] = -1
        self.best[idx] = -1
        self.win[idx] = -1
        self.phase[idx] = PLAY
        self.to_act[idx] = self.leader[idx]

    def _ask(self, idx, seat, a):
        ask = a == ASK
        self._ask_join(idx[ask])
        si, ss = idx[~ask], seat[~ask]
        if len(si):
            self.join_state[si] = SKIPPED
            ended = self._add(si, ss, self.rules.forget_penalty)
            self._start_trick(si[~ended])

    def _ask_join(self, idx):
        if not len(idx):
            return
        self.join_state[idx] = ASKED
        self._next_join(idx, np.ones(len(idx), np.int64))

    def _next_join(self, idx, start):
        r, n = self.rules, self.n
        k = len(idx)
        d = self.declarer[idx]
        todo = np.ones(k, bool)
        for off in range(1, n):
            s = (d + off) % n
            ar = np.arange(k)
            cand = todo & (off >= start) & self.in_round[idx, s]
            if not cand.any():
                continue
            may = (self.tricks[idx, s] == 0) if r.may_fold == "trickless" else np.ones(k, bool)
            if r.one_point_must_join:
                may &= self.scores[idx, s] != 1
            auto = cand & ~may
            self.joiner[idx[auto], s[auto]] = self.tricks[idx[auto], s[auto]] == 0
            stop = cand & may
            self.phase[idx[stop]] = JOIN_PH
            self.to_act[idx[stop]] = s[stop]
            todo &= ~stop
            del ar
        self._start_trick(idx[todo])

    def _join(self, idx, seat, a):
        j = a == JOIN
        self.joiner[idx[j], seat[j]] = self.tricks[idx[j], seat[j]] == 0
        self.in_round[idx[~j], seat[~j]] = False
        self._next_join(idx, (seat - self.declarer[idx]) % self.n + 1)

    def _play(self, idx, seat, card):
        suit = SUIT_OF[card]
        first = self.trick_len[idx] == 0
        led = np.where(first, suit, self.led[idx])
        off = suit != led
        self.voids[idx[off], seat[off], led[off]] = True
        self.hands[idx, seat, card] = False
        self.trick[idx, card] = True
        self.trick_played[idx, seat] = True
        better = first | ((suit == led) & (card > self.best[idx]))
        self.led[idx] = led
        self.best[idx] = np.where(better, card, self.best[idx])
        self.win[idx] = np.where(better, seat, self.win[idx])
        self.trick_len[idx] += 1
        done = self.trick_len[idx] >= self.in_round[idx].sum(1)
        nd = ~done
        self.to_act[idx[nd]] = self._next_seat(seat[nd], self.in_round[idx[nd]])
        self._complete(idx[done])

    def _complete(self, idx):
        if not len(idx):
            return
        r = self.rules
        w = self.win[idx]
        self.played[idx] |= self.trick[idx]
        self.tricks[idx, w] += 1
        self.tricks_done[idx] += 1
        value = np.where(self.joiner[idx, w], r.joiner_trick_value, 1)
        if r.zero_rule == "bounce":
            score = self.scores[idx, w]
            b = self.bounced[idx, w]
            cross = ~b & (score > 0) & (score - value <= 0)
            delta = np.where(b, value, np.where(cross, value - 2 * score, -value))
            self.bounced[idx[cross], w[cross]] = True
        else:
            delta = -value
        ended = self._add(idx, w, delta)
        idx, w = idx[~ended], w[~ended]
        if r.leader == "trick_winner":
            self.leader[idx] = w
        more = self.tricks_done[idx] < TRICKS_PER_ROUND
        self._start_trick(idx[more])
        self._score_round(idx[~more])

    def _score_round(self, idx):
        if not len(idx):
            return
        r, n = self.rules, self.n
        k = len(idx)
        ar = np.arange(k)
        d = self.declarer[idx]
        has = d >= 0
        dd = np.where(has, d, 0)
        level = self.calls[idx, dd]
        dt = self.tricks[idx, dd]
        rb = has & (level == REDBEARD_LEVEL)
        rb_made = rb & (dt == TRICKS_PER_ROUND)
        rb_fail = rb & ~rb_made
        if r.redbeard_success == "win" and rb_made.any():
            self._end(idx[rb_made], d[rb_made])
        elif rb_made.any():
            self.scores[idx[rb_made], d[rb_made]] = 0
        keep = ~(rb_made & (r.redbeard_success == "win"))
        need = np.minimum(level, 6)
        made = (dt == need) if r.contract == "exact" else (dt >= need)
        fail = has & ~rb & ~made
        if r.redbeard_fail == "contract":
            fail |= rb_fail
        pen = np.zeros((k, n), np.int64)
        pen[ar[fail & keep], dd[fail & keep]] += PENALTY
        zero = self.in_round[idx] & (self.tricks[idx] == 0) & has[:, None] & keep[:, None]
        pen += np.where(zero & self.joiner[idx], r.joiner_fail_penalty, 0)
        pen += np.where(zero, r.zero_trick_penalty, 0)
        self.scores[idx] += pen
        if r.redbeard_fail == "eliminate" and (rb_fail & keep).any():
            e = rb_fail & keep
            self.eliminated[idx[e], d[e]] = True
            self.active[idx[e], d[e]] = False
        if r.eliminate_at is not None:
            over = self.active[idx] & (self.scores[idx] >= r.eliminate_at) & (self.scores[idx] != 0)
            self.eliminated[idx] |= over  # (the all-eliminated corner case is not modelled)
        self.done[idx] = True
        self.phase[idx] = DONE

    # ------------------------------------------------------------------ outcome
    def outcome(self) -> dict:
        """Per round: the winner during play (-1), final scores, who is on 0, eliminations."""
        on_zero = (self.scores == 0) & self.active & ~self.eliminated
        return {"winner": self.winner, "scores": self.scores, "on_zero": on_zero, "eliminated": self.eliminated}


def run(playout: Playout, policy, rules: Rules, max_steps: int = 200) -> None:
    """Play every round to its end with ``policy.decide(view, legal, rules)`` for every seat."""
    for _ in range(max_steps):
        live = np.flatnonzero(~playout.done)
        if not len(live):
            return
        legal = playout.legal(live)
        view = playout.view(live)
        acts = policy.decide(view, legal, rules)
        playout.step(live, acts)
    raise RuntimeError("playout did not finish")
