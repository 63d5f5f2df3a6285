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
  one of ours: ``bid_values`` in :mod:`agents.redbeard.heuristic_kernels`; ``q_scale`` < 1 because
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
They are computed one observation row at a time by compiled code
(:mod:`agents.redbeard.heuristic_kernels`, numba); ``tests/test_heuristic_golden.py`` checks them
against values recorded from the earlier vectorised numpy implementation.

Every parameter is a keyword of :class:`HeuristicAgent`, so ``heuristic:win_value=6``
is a valid spec. The defaults were chosen by duplicate tournaments of variants against
the current default (``evaluate.py``, 800 games each): fewer, better-founded bids
(``bid_margin``, low ``control``) and no extra blocking or defending were the gains.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.redbeard.cards import NUM_ACTIONS
from redbeard_env.redbeard.observation import OBS_SIZE, OBS_SLICES
from redbeard_env.redbeard.rules import MIN_PLAYERS, Rules, make_rules

from . import heuristic_kernels as HK
from ..base import Agent, check_batch, finite_number
from ..params import SEED, Float, Int, RulesParam, set_numbers
from .decode import decode_batch, rules_from_obs, rules_groups

K = HK.K  # trick counts 0..7 in utility tables (7 only as padding)
# the observation entries that tell the player count and the rules (adjacent blocks)
GROUP_KEY = slice(OBS_SLICES["num_players"].start, OBS_SLICES["rules"].stop)
assert OBS_SLICES["num_players"].stop == OBS_SLICES["rules"].start

WIN_VALUE, NEG_EXTRA, ELIM_VALUE = 10.0, 2.0, 30.0  # default utilities of a round's end


def score_utility(final: np.ndarray, rules: Rules, win_value: float = WIN_VALUE, neg_extra: float = NEG_EXTRA,
                  elim_value: float = ELIM_VALUE) -> np.ndarray:
    """Utility of ending a round on score ``final`` (no win during the round): ``win_value``
    for exactly 0, ``-final`` above 0, ``final - neg_extra`` below 0 (only penalties lead
    back), ``-elim_value`` at or beyond ``rules.eliminate_at`` (the kernels' rule; pimc
    values its playouts with it)."""
    f = np.asarray(final, dtype=np.float64)
    out = np.empty(f.size)
    # the kernel reads only the three values of the bot's parameter tuple used here
    numbers = (finite_number("win_value", win_value), finite_number("neg_extra", neg_extra),
               finite_number("elim_value", elim_value)) + (0.0,) * (HK.A_THREAT + 1 - 3)
    HK.values_of_scores(HK.rule_numbers(rules), numbers, np.ascontiguousarray(f.reshape(-1)), out)
    return out.reshape(f.shape)


class HeuristicAgent(Agent):
    """Rule-based bot (compiled, one observation row at a time); see the module docstring.
    Deterministic."""

    game = "redbeard"
    value_units = "points"  # action_values: expected utilities of the round's end, in points
    #: the spec's parameters (agents.params): utilities in points, shares, scales
    PARAMS = {
        "rules": RulesParam(),
        "seed": SEED,
        "win_value": Float(0, 100, help="utility of ending a round on exactly 0"),
        "neg_extra": Float(0, 100, help="extra cost of ending a round below 0"),
        "elim_value": Float(0, 100, help="cost of an elimination"),
        "control": Float(0, 1, help="share of outcomes one trick off the bid that timing moves onto it"),
        "bid_margin": Float(-50, 50, help="what a bid must beat passing by"),
        "block": Float(0, 10, help="extra cost of passing when the high bidder would win"),
        "bid_samples": Int(1, 4096, per=1024, help="deals of the bid Monte Carlo (beyond 1024 a decision costs more)"),
        "q_scale": Float(0, 2, help="scales the chance an opponent overtakes a card"),
        "follow_scale": Float(0, 2, help="scales a follower's trick chances"),
        "defend": Float(0, 10, help="weight of making a rival declarer fail"),
        "redeal_below": Float(0, 7, help="redeal a hand expected to take fewer tricks"),
        "threat": Float(0, 1, help="weight of the join chances asking hands to trickless opponents"),
    }
    COST = 0.2  # cost units (agents.params): a decision among many in a batch

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
        self.rules = rules if rules is None else make_rules(rules)  # ValueError for bad rules
        set_numbers(self, win_value=win_value, neg_extra=neg_extra, elim_value=elim_value, control=control,
                    bid_samples=bid_samples, q_scale=q_scale, follow_scale=follow_scale, bid_margin=bid_margin,
                    block=block, defend=defend, redeal_below=redeal_below, threat=threat)
        # fixed random numbers for the bid Monte Carlo: the bot stays deterministic
        uniforms = np.random.default_rng(12345).random((self.bid_samples, 4, 13))
        self.uniforms = np.ascontiguousarray(uniforms.reshape(self.bid_samples, 52).T)  # [card, sample]

    # ------------------------------------------------------------------ entry
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._evaluate(obs, mask, all_values=False)[1]

    def act_rows(self, obs: np.ndarray, mask: np.ndarray, rows) -> np.ndarray:
        """``act_batch(obs[rows], mask[rows])`` without gathering those rows: a search asks
        for a few rows of a large batch at every step (``rows``: int indices into the batch)."""
        return self._evaluate(obs, mask, all_values=False, rows=rows)[1]

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, 69]: the bot's utility of each legal action (``-inf`` for illegal
        ones); :meth:`act_batch` plays the argmax. Cards and bids carry expected round
        utilities, binary choices the utilities (or margins) they are decided on."""
        return self._evaluate(obs, mask)[0]

    def _evaluate(self, obs, mask, all_values: bool = True, rows=None) -> tuple[np.ndarray, np.ndarray]:
        """Action values [k, 69] and their argmax [k] of the k rows ``rows`` (default: all).
        Without ``all_values`` only the argmax is wanted: rows with a single legal action are
        not valued, and the values returned are None."""
        mask = np.asarray(mask)
        if mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS:
            raise ValueError(f"action masks must have shape [B, {NUM_ACTIONS}], got {mask.shape}")
        obs = np.asarray(obs["observation"] if isinstance(obs, dict) else obs, dtype=np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or len(obs) != len(mask):
            raise ValueError(f"observations must have shape [{len(mask)}, {OBS_SIZE}] (one per mask), got {list(obs.shape)}")
        if rows is None:
            check_batch(obs, mask, self.game)  # 0/1 masks, finite observations within bounds
        if mask.dtype not in (np.int8, np.bool_, np.uint8):
            mask = mask > 0
        mask = np.ascontiguousarray(mask).view(np.int8)
        if rows is not None:  # a search's own rows (act_rows): its engine wrote them
            rows = np.asarray(rows)
            if rows.ndim != 1 or not (np.issubdtype(rows.dtype, np.integer) or len(rows) == 0):
                raise ValueError(f"rows must be a 1-d array of row indices, got {rows.dtype} {rows.shape}")
            rows = rows.astype(np.int64, copy=False)
            if len(rows) and (rows.min() < 0 or rows.max() >= len(obs)):
                raise ValueError(f"rows must be indices in 0..{len(obs) - 1}, got {rows.min()}..{rows.max()}")
        if (len(obs) if rows is None else len(rows)) == 0:
            return (np.empty((0, NUM_ACTIONS)) if all_values else None), np.empty(0, np.int64)
        # rows grouped by (player count, rules block): usually one group
        key = obs[:, GROUP_KEY] if rows is None else obs[rows, GROUP_KEY]
        if (key == key[0]).all():
            first = obs[:1] if rows is None else obs[rows[:1]]
            return self._kernel(obs, mask, self._rules_of(first), self._players_of(first), all_values, rows)
        if rows is not None:  # several rules groups among the rows: gather them
            return self._evaluate(obs[rows], mask[rows], all_values)
        values = np.empty(mask.shape) if all_values else None
        best = np.empty(len(mask), np.int64)
        for group in rules_groups(decode_batch(obs)):
            group_values, best[group] = self._kernel(obs[group], mask[group], self._rules_of(obs[group[:1]]),
                                                     self._players_of(obs[group[:1]]), all_values)
            if all_values:
                values[group] = group_values
        return values, best

    def _rules_of(self, obs: np.ndarray) -> Rules:
        return self.rules if self.rules is not None else rules_from_obs(obs)

    @staticmethod
    def _players_of(obs: np.ndarray) -> int:
        return MIN_PLAYERS + int(obs[0, OBS_SLICES["num_players"]].argmax()) if len(obs) else MIN_PLAYERS

    def _kernel(self, obs: np.ndarray, mask: np.ndarray, rules: Rules, n: int, all_values: bool = True,
                rows: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray]:
        rows = np.arange(len(obs)) if rows is None else rows
        # only the argmax wanted: one row of scratch values, rewritten row by row (no page
        # faults of a fresh [B, 69] array each call)
        out = np.empty((len(rows) if all_values else 1, NUM_ACTIONS))
        best = np.empty(len(rows), np.int64)
        bad = HK.action_values(np.ascontiguousarray(obs, dtype=np.float32), mask, rows, n, HK.rule_numbers(rules),
                               self._numbers(), HK.obs_offsets(), self.uniforms, all_values, out, best)
        if bad >= 0:
            raise ValueError(f"row {rows[bad]} of the action mask has no legal action (game over or not this "
                             "seat's turn)")
        return (out if all_values else None), best

    def kernel_numbers(self, rules: Rules) -> tuple:
        """``(rules numbers, parameters, observation offsets, bid uniforms)``: this bot as
        :func:`agents.redbeard.heuristic_kernels.value_rows` takes it, for ``rules`` (or the bot's
        own rules when it was given some) -- for compiled loops that play it (pimc's
        playouts)."""
        rules = self.rules if self.rules is not None else rules
        return HK.rule_numbers(rules), self._numbers(), HK.obs_offsets(), self.uniforms

    def _numbers(self) -> tuple:
        """The bot's parameters as the kernels read them (order: heuristic_kernels.A_*)."""
        return (self.win_value, self.neg_extra, self.elim_value, self.control, self.bid_margin, self.block,
                self.q_scale, self.follow_scale, self.defend, self.redeal_below, self.threat)

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
        arrays = np.broadcast_arrays(
            np.asarray(score, dtype=np.int64), np.asarray(tricks, dtype=np.int64),
            np.asarray(joiner, dtype=bool), np.asarray(bounced, dtype=bool), np.asarray(declarer_level, dtype=np.int64),
        )
        shape = arrays[0].shape
        flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
        out = np.empty((flat[0].size, K))
        HK.outcome_tables(HK.rule_numbers(rules), self._numbers(), *flat, bool(zero_trick), out)
        return out.reshape(shape + (K,))


