"""``heuristic``: a rule-reading baseline that plays every phase of every preset.

Every decision compares the *utility of how the round may end* for each legal action.
The utility of ending a round on score ``f`` is ``win_value`` for exactly 0 (a win) and
``-|f|`` otherwise (``-|f| - neg_extra`` below 0, where only penalties lead back;
``-elim_value`` for elimination). Round endings are computed from the ``Rules`` read from
the observation: trick values (joiners count ``joiner_trick_value``), ``bounce`` and
``immediate`` zero rules, the contract (``exact`` / ``at_least``), Rödskägg success /
failure, joiner-fail, zero-trick, forget and bid-over-score penalties.

* **Cards.** Each legal card gets the chance it wins this trick (everyone still to play
  beats it when they can) and, for the cards kept, the chances they win later tricks (a
  follower's card also needs the declarer to lead its suit). The trick counts are
  Poisson-binomial, so each card is valued as
  ``P(win now) * E[U(1 + later)] + P(lose now) * E[U(later)]``. This makes a declarer
  aim at exactly its bid under ``exact`` (and at least under ``at_least``), makes players
  win cheaply when they want tricks, duck (throwing their most dangerous card) when they
  do not, and stop at 0. A follower also weighs making the declarer fail (more when the
  declarer would win by making its bid; ``defend`` scales the smaller stake of a
  plain +5 for a rival).
* **Bids.** The hand's trick distribution as declarer comes from a Monte Carlo over
  where the unseen cards are (per suit, every opponent card above one of ours can take
  one of ours, :meth:`CardModel.declarer_trick_distribution`; ``q_scale`` < 1 because
  opponents fold or do not always overtake -- fitted on self-play); timing moves a share
  ``control`` of the outcomes one trick off the bid onto it. Each legal bid's expected
  utility is compared with passing (the hand's chances as a follower) plus
  ``bid_margin``; ``block`` > 0 makes passing cost more when the high bidder would win
  by making its bid. ``bid_over_score`` penalties are in the utility; forbidden bids are
  masked by the engine. Rödskägg needs every card to be a sure winner.
* **Redeal** when the rule allows and the hand is weak (expected tricks as declarer
  below ``redeal_below``); under the ``challenge`` rule only hands without a face card.
* **Look** only when the +5 is likely to help the looker (it stands below 0).
* **Join** when the expected utility of joining (joiner trick value, fail penalty) beats
  folding. **Ask / skip**: skip when the forget penalty costs less than the win chances
  asking would hand to trickless opponents who could join onto exactly 0.

:meth:`HeuristicAgent.action_values` returns these utilities for every legal action
(``act_batch`` plays their argmax); the PPO policy's ``heuristic`` prior is built on them.

Every parameter is a keyword of :class:`HeuristicAgent`, so ``heuristic:win_value=6``
is a valid spec. The defaults were chosen by duplicate tournaments of variants against
the current default (``evaluate.py``, 800 games each): fewer, better-founded bids
(``bid_margin``, low ``control``) and no extra blocking or defending were the gains.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.cards import (
    ASK,
    BID0,
    FOLD,
    JOIN,
    KEEP,
    LOOK,
    NO_LOOK,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    REDBEARD,
    REDEAL,
    SKIP,
)
from redbeard_env.rules import PENALTY, TRICKS_PER_ROUND, Rules

from .base import Agent, check_masks
from .cardmodel import RANK_OF, CardModel, hand_slots, poisson_binomial, poisson_binomial_leave_one_out
from .decode import PHASE, PHASE_NAMES, ObsBatch, decode_batch, led_suit, rules_from_obs, rules_groups
from .registry import register

K = 8  # trick counts 0..7 in utility tables (7 only as padding)
WIN_VALUE, NEG_EXTRA, ELIM_VALUE = 10.0, 2.0, 30.0  # default utilities of a round's end


def score_utility(final: np.ndarray, rules: Rules, win_value: float = WIN_VALUE, neg_extra: float = NEG_EXTRA,
                  elim_value: float = ELIM_VALUE) -> np.ndarray:
    """Utility of ending a round on score ``final`` (no win during the round): ``win_value``
    for exactly 0, ``-final`` above 0, ``final - neg_extra`` below 0 (only penalties lead
    back), ``-elim_value`` at or beyond ``rules.eliminate_at``."""
    f = np.asarray(final, dtype=np.float64)
    u = np.where(f > 0, -f, np.where(f == 0, win_value, f - neg_extra))
    if rules.eliminate_at is not None:
        u = np.where(f >= rules.eliminate_at, -elim_value, u)
    return u


class HeuristicAgent(Agent):
    """Vectorised rule-based bot; see the module docstring. Deterministic."""

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | None = None,
        win_value: float = WIN_VALUE,
        neg_extra: float = NEG_EXTRA,
        elim_value: float = ELIM_VALUE,
        control: float = 0.1,
        bid_margin: float = 1.5,
        block: float = 0.0,
        bid_samples: int = 64,
        q_scale: float = 0.7,
        follow_scale: float = 1.0,
        defend: float = 0.0,
        redeal_below: float = 1.2,
        threat: float = 0.35,
    ):
        self.rules = rules
        self.win_value = float(win_value)
        self.neg_extra = float(neg_extra)
        self.elim_value = float(elim_value)
        self.control = float(control)
        self.bid_samples = int(bid_samples)
        self.q_scale = float(q_scale)
        self.follow_scale = float(follow_scale)
        # fixed random numbers for the bid Monte Carlo: the bot stays deterministic
        self.uniforms = np.random.default_rng(12345).random((self.bid_samples, 4, 13))
        self.bid_margin = float(bid_margin)
        self.block = float(block)
        self.defend = float(defend)
        self.redeal_below = float(redeal_below)
        self.threat = float(threat)
        self._phase_values = {"redeal": self._redeal, "look": self._look, "bid": self._bid, "ask": self._ask,
                              "join": self._join, "play": self._play, "duel": self._play}

    # ------------------------------------------------------------------ entry
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.action_values(obs, mask).argmax(1)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, 69]: the bot's utility of each legal action (``-inf`` for illegal
        ones); :meth:`act_batch` plays the argmax. Cards and bids carry expected round
        utilities, binary choices the utilities (or margins) they are decided on."""
        legal = check_masks(mask)
        view = decode_batch(obs)
        values = np.full(legal.shape, -np.inf)
        for rows in rules_groups(view):
            sub = view.rows(rows)
            rules = self.rules if self.rules is not None else rules_from_obs(sub)
            values[rows] = self.values(sub, legal[rows], rules)
        return values

    def values(self, view: ObsBatch, legal: np.ndarray, rules: Rules) -> np.ndarray:
        """Action values [B, 69] for one rules group (``-inf`` for illegal actions)."""
        n = int(view.num_players[0])
        # rows sorted by phase (one copy of the view): each phase is a slice, not a copy
        order = np.argsort(view.phase, kind="stable")
        phases = view.phase[order]
        mixed = len(phases) > 0 and phases[0] != phases[-1]
        if mixed:
            view, legal = view.rows(order), legal[order]
        values = np.full(legal.shape, -np.inf)
        for code in np.unique(phases):
            fn = self._phase_values.get(PHASE_NAMES[code])
            if fn is None:
                continue
            lo, hi = np.searchsorted(phases, [code, code + 1])
            model = CardModel(view if hi - lo == len(view) else view.rows(slice(lo, hi)), rules, n)
            values[lo:hi] = fn(model, legal[lo:hi], rules)
        values = np.where(legal, values, -np.inf)
        # a phase without a rule: every legal action is worth the same (argmax = first)
        unvalued = ~np.isfinite(values).any(1)
        values[unvalued] = np.where(legal[unvalued], 0.0, -np.inf)
        if mixed:
            unsorted = np.empty_like(values)
            unsorted[order] = values
            values = unsorted
        return values

    # ------------------------------------------------------------------ utilities
    def value_of_score(self, final: np.ndarray, rules: Rules) -> np.ndarray:
        """Utility of ending a round on ``final`` (no win): :func:`score_utility` with this
        bot's values."""
        return score_utility(final, rules, self.win_value, self.neg_extra, self.elim_value)

    def outcome_table(
        self,
        rules: Rules,
        score: np.ndarray,
        tricks: np.ndarray,
        *,
        joiner: np.ndarray,
        bounced: np.ndarray,
        declarer_level: np.ndarray,
        zero_trick: bool = True,
    ) -> np.ndarray:
        """float [..., K]: utility of taking k = 0..7 more tricks this round, from running
        ``score`` with ``tricks`` taken. ``declarer_level`` is the player's own bid level
        when it is the declarer, else -1. Inputs broadcast against each other."""
        score, tricks, joiner, bounced, level = np.broadcast_arrays(
            np.asarray(score, dtype=np.int64), np.asarray(tricks, dtype=np.int64),
            np.asarray(joiner, dtype=bool), np.asarray(bounced, dtype=bool), np.asarray(declarer_level),
        )
        k = np.arange(K)
        s0 = score[..., None]
        v = np.where(joiner, rules.joiner_trick_value, 1)[..., None]
        won_now = np.zeros(s0.shape[:-1] + (K,), dtype=bool)
        falling = s0 - v * k
        if rules.zero_rule == "bounce":
            # a score that reaches 0 from above turns round: tricks after that add
            bnc = bounced[..., None]
            cross = -(-s0 // v)  # the trick that reaches or passes 0 (s0 > 0)
            before = s0 - v * (cross - 1)  # score just before it
            after = (v - before) + v * (k - cross)
            s = np.where(bnc, s0 + v * k, np.where((s0 > 0) & (k >= cross), after, falling))
        else:
            s = falling
            if rules.zero_rule == "immediate":
                won_now = (s0 > 0) & (s0 % v == 0) & (s0 // v <= k)
        total = tricks[..., None] + k
        lv = level[..., None]
        is_decl = lv >= 0
        is_rb = lv == 7
        need = np.minimum(lv, TRICKS_PER_ROUND)
        made = (total == need) if rules.contract == "exact" else (total >= need)
        final = s + np.where(is_decl & ~is_rb & ~made, PENALTY, 0)
        rb_made = is_rb & (total == TRICKS_PER_ROUND)
        rb_fail = is_rb & ~rb_made
        if rules.redbeard_fail == "contract":
            final = final + np.where(rb_fail, PENALTY, 0)
        final = final + np.where(joiner[..., None] & (total == 0), rules.joiner_fail_penalty, 0)
        if zero_trick and rules.zero_trick_penalty:
            final = final + np.where(total == 0, rules.zero_trick_penalty, 0)
        table = self.value_of_score(final, rules)
        table = np.where(won_now | rb_made, self.win_value, table)
        if rules.redbeard_fail == "eliminate":
            table = np.where(rb_fail, -self.elim_value, table)
        return table

    def my_table(self, model: CardModel, rules: Rules, *, joiner=None, offset=0, zero_trick=True) -> np.ndarray:
        v = model.view
        me_decl = v.declarer == 0
        level = np.where(me_decl, v.high_bid, -1)
        return self.outcome_table(
            rules,
            v.score[:, 0] + offset,
            v.tricks[:, 0],
            joiner=v.joiner[:, 0] if joiner is None else joiner,
            bounced=v.bounced[:, 0],
            declarer_level=level,
            zero_trick=zero_trick,
        )

    # ------------------------------------------------------------------ play
    def _play(self, model: CardModel, legal: np.ndarray, rules: Rules) -> np.ndarray:
        sub = model.view
        B = len(sub)
        cards = legal[:, :NUM_CARDS]
        led = led_suit(sub, legal)
        slots, valid = hand_slots(sub.hand)
        p_later = model.p_win_later(rules.leader, slots) * valid
        rest = poisson_binomial_leave_one_out(p_later, 6)  # [B, 6, 7]
        duel = sub.phase == PHASE["duel"]
        table = self.my_table(model, rules)
        table[duel] = np.arange(K, dtype=np.float64)[None, :]  # a duel: most tricks wins
        if_win = np.einsum("bsx,bx->bs", rest, table[:, 1:])
        if_lose = np.einsum("bsx,bx->bs", rest, table[:, :7])
        w = model.p_win_now(cards, led, slots)
        value = w * if_win + (1 - w) * if_lose
        value += self._defence(sub, slots, w, rules)
        # ties: keep low cards when tricks are wanted, shed high ones when they are not
        wants = (if_win - if_lose).mean(1, keepdims=True)
        rank = RANK_OF[slots]
        value += 1e-6 * np.where(wants > 0, -rank, rank)
        ok = valid & np.take_along_axis(cards, slots, 1)
        out = np.full((B, NUM_ACTIONS), -np.inf)
        r, c = np.nonzero(ok)
        out[r, slots[r, c]] = value[r, c]
        return out

    def _defence(self, sub: ObsBatch, slots, w, rules: Rules) -> np.ndarray:
        """Value of making a rival declarer fail, for each candidate slot."""
        out = np.zeros(slots.shape)
        if self.defend <= 0:
            return out
        d = sub.declarer
        active = (d > 0) & (sub.phase == PHASE["play"]) & (sub.trick_winning == d) & sub.trick.any(1)
        if not active.any():
            return out
        i = np.flatnonzero(active)
        dd = d[i]
        level = sub.high_bid[i]
        need = np.minimum(level, 6) - sub.tricks[i, dd]
        left = TRICKS_PER_ROUND - sub.tricks_done[i]  # including this trick
        d_score = sub.score[i, dd]
        if rules.contract == "exact":
            threat = (d_score - need == 0) | (level == 7)
        else:
            threat = ((d_score >= need) & (d_score - need <= left - 1)) | (level == 7)
        stake = np.where(threat, self.win_value, PENALTY * self.defend)

        def fail(m, r):
            if rules.contract == "exact":
                impossible = (m < 0) | (m > r)
                edge = (m == 0) | (m == r)
            else:
                impossible = m > r
                edge = m == r
            return np.where(impossible, 1.0, np.where(edge, 0.4, 0.2))

        f_win = fail(need - 1, left - 1)  # the declarer takes this trick
        f_lose = fail(need, left - 1)
        p_decl = 1.0 - w[i]  # it keeps the trick unless we beat it (later players ignored)
        out[i] = stake[:, None] * (p_decl * f_win[:, None] + (1 - p_decl) * f_lose[:, None])
        return out

    # ------------------------------------------------------------------ bidding
    def _bid(self, model: CardModel, legal: np.ndarray, rules: Rules) -> np.ndarray:
        sub = model.view
        B = len(sub)
        slots, valid = hand_slots(sub.hand)
        p_decl = model.declarer_chances(slots) * valid
        p_follow = model.p_win_later(rules.leader, slots) * valid * self.follow_scale
        score = sub.score[:, 0]
        zeros = np.zeros(B, dtype=bool)
        # passing: a follower's tricks (a trickless follower can fold before penalties bite)
        follow_dist = poisson_binomial(p_follow, 6)
        follow_table = self.outcome_table(rules, score, np.zeros(B, int), joiner=zeros, bounced=sub.bounced[:, 0],
                                          declarer_level=np.full(B, -1), zero_trick=False)
        u_pass = (follow_dist * follow_table[:, :7]).sum(1)
        hb = sub.high_bid
        holder = np.argmax(sub.call == hb[:, None], axis=1)  # the high bidder's position
        hb_score = sub.score[np.arange(B), holder]
        hb_need = np.minimum(hb, 6)
        if rules.contract == "exact":
            threat = (hb >= 0) & (hb_score == hb_need)
        else:
            threat = (hb >= 0) & (hb_score >= hb_need) & (hb_score <= 6)
        threat |= hb == 7
        u_pass = u_pass - self.block * self.win_value * threat
        # declaring: the hand's trick distribution leading every trick; the declarer's timing
        # moves a share ``control`` of the outcomes one trick off the bid onto it
        dist_t = model.declarer_trick_distribution(self.uniforms, self.q_scale)  # [B, 7]
        c = self.control
        aim = np.repeat(dist_t[:, None, :], 6, axis=1)  # [B, level 0..5, 7]
        for k in range(6):
            lo = aim[:, k, k - 1] * c if k > 0 else 0.0
            hi = aim[:, k, k + 1] * c
            aim[:, k, k] += lo + hi
            if k > 0:
                aim[:, k, k - 1] -= lo
            aim[:, k, k + 1] -= hi
        values = np.full((B, NUM_ACTIONS), -np.inf)
        values[:, PASS] = u_pass + self.bid_margin
        levels = np.arange(8)
        over = PENALTY if rules.bid_over_score == "penalty" else 0
        offset = np.where(np.minimum(levels, 6)[None, :] > score[:, None], over, 0)  # [B, 8]
        tables = self.outcome_table(rules, score[:, None] + offset, 0, joiner=False,
                                    bounced=sub.bounced[:, :1], declarer_level=levels[None, :])  # [B, 8, K]
        dist = np.zeros((B, 8, 7))
        dist[:, :6] = aim
        dist[:, 6] = dist_t  # six tricks: no timing helps
        all_win = np.minimum(np.prod(np.where(valid, p_decl, 1.0), axis=1), dist_t[:, 6])
        dist[:, 7] = dist_t * (1 - all_win[:, None]) / np.maximum(1 - dist_t[:, 6:7], 1e-9)
        dist[:, 7, 6] = all_win
        u = (dist * tables[:, :, :7]).sum(2) - 1e-6 * levels[None, :]
        values[:, BID0:BID0 + 7] = u[:, :7]
        values[:, REDBEARD] = u[:, 7]
        return np.where(legal, values, -np.inf)

    # ------------------------------------------------------------------ redeal / look
    def _redeal(self, model, legal, rules: Rules) -> np.ndarray:
        sub = model.view
        strength = model.declarer_chances().sum(1)
        weak = strength < self.redeal_below
        if rules.redeal == "challenge":  # throwing a face card risks +5 if someone looks
            weak &= ~(sub.hand.reshape(len(sub), 4, 13)[:, :, 9:].any((1, 2)))
        return _binary(len(sub), KEEP, REDEAL, np.where(weak, 1.0, -1.0))

    def _look(self, model, legal, rules: Rules) -> np.ndarray:
        sub = model.view
        s = sub.score[:, 0]
        gain = self.value_of_score(s + PENALTY, rules) - self.value_of_score(s, rules)
        return _binary(len(sub), NO_LOOK, LOOK, gain)

    # ------------------------------------------------------------------ join / ask
    def _join(self, model, legal, rules: Rules) -> np.ndarray:
        sub = model.view
        slots, valid = hand_slots(sub.hand)
        p = model.p_win_later(rules.leader, slots) * valid * self.follow_scale
        dist = poisson_binomial(p, 6)
        trickless = sub.tricks[:, 0] == 0
        table = self.my_table(model, rules, joiner=trickless)
        u_join = (dist * table[:, :7]).sum(1)
        u_fold = self.value_of_score(sub.score[:, 0], rules)
        return _binary(len(sub), FOLD, JOIN, u_join - u_fold + 1e-9)  # a tie joins

    def _ask(self, model, legal, rules: Rules) -> np.ndarray:
        sub = model.view
        slots, valid = hand_slots(sub.hand)
        p = model.p_win_later(rules.leader, slots) * valid
        dist = poisson_binomial(p, 6)
        u_ask = (dist * self.my_table(model, rules)[:, :7]).sum(1)
        u_skip = (dist * self.my_table(model, rules, offset=rules.forget_penalty)[:, :7]).sum(1)
        left = TRICKS_PER_ROUND - sub.tricks_done
        others = sub.in_round & (np.arange(7)[None, :] > 0) & (sub.tricks == 0)
        s = sub.score
        jv = rules.joiner_trick_value
        can_ask = others & (s > 0) & (s % jv == 0) & (s // jv <= left[:, None])
        can_skip = others & (s > 0) & (s <= left[:, None])
        u_ask -= self.threat * self.win_value * can_ask.sum(1)
        u_skip -= self.threat * self.win_value * can_skip.sum(1)
        return _binary(len(sub), ASK, SKIP, u_skip - u_ask)  # a tie asks


def _binary(B: int, base: int, other: int, gain: np.ndarray) -> np.ndarray:
    """Values [B, 69] of a two-way choice: ``base`` is worth 0, ``other`` its ``gain``
    (> 0 picks ``other``; a tie keeps ``base``)."""
    out = np.full((B, NUM_ACTIONS), -np.inf)
    out[:, base] = 0.0
    out[:, other] = np.where(gain > 0, gain, gain - 1e-9)
    return out


register("heuristic", HeuristicAgent)
