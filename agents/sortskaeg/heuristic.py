"""``sortskaeg_heuristic``: bids from hand strength, then plays to hit the bid exactly.

Card strength. Each card in hand gets a chance to take a trick, from the cards still
unseen (under ``deal = carry`` after the first round only the game's own cards, which
everyone has seen played): ``q`` = the share of unseen cards that sit in opponents'
hands, and a colour card survives each unseen higher card of its colour with ``1 - q``.
Yellow cards (trumps) need nothing else; another colour's card is also scaled by
``lead_factor`` (it must be led, by us or someone) and by ``trump_factor`` per opponent
(a void opponent may trump it). A joker is worth ``joker_value`` (it wins whenever we get
to lead it: we lead the first trick, or win any trick).

* **Bid**: the expected tricks ``E`` = the sum of the hand's chances, times
  ``bid_scale``; each legal bid ``k`` is worth ``-|k - E|`` (the dealer hook's forbidden
  bid is masked by the engine, so the nearest legal bid is chosen).
* **Play**, by ``need`` = bid - tricks taken so far:

  - need > 0, leading: a joker (a sure trick, and the lead again), else the card most
    likely to win as a lead;
  - need > 0, following: the card that beats the trick so far with the best chance to
    hold against the players still to play (the cheapest among equals); if none can,
    the weakest card (jokers are kept for leading);
  - need <= 0, leading: the card least likely to win (never a joker while another card
    is left: a led joker wins);
  - need <= 0, following: the most dangerous card that does not beat the trick (jokers
    are safe losers and kept for later); if every card beats it, the highest when no
    one plays after us (the trick is ours anyway), else the lowest.
* **Discard** (``carry``): the card whose chance is closest to 1/2 -- sure winners and
  sure losers make the next bid easy.

:meth:`SortskaegHeuristic.action_values` gives these preferences for every legal action
(illegal: ``-inf``); ``act_batch`` plays their argmax. Every parameter is a keyword
(``sortskaeg_heuristic:bid_scale=0.9``). The defaults were chosen by duplicate
tournaments of one variant against three copies of the current default (4 players,
4,000 games each): ``trump_factor`` 0.92 -> 0.6 (off-trump cards win much less often than
their colour alone suggests; 0.363 -> 0.450 win rate over the steps), then ``bid_scale``
1.0 -> 1.3 (0.285); ``joker_value`` and ``lead_factor`` changes stayed within the noise.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.sortskaeg.cards import BID0, CARD_COLOUR, MAX_BID, NUM_ACTIONS, NUM_CARDS, YELLOW

from ..base import Agent, check_finite, check_masks, count_marked, finite_number
from .decode import PHASE, SObs, decode_batch

IS_JOKER = CARD_COLOUR < 0
IS_YELLOW = CARD_COLOUR == YELLOW
_IDS = np.arange(NUM_CARDS)
# SAME_HIGHER[c, d]: d is a higher card of c's colour (jokers have none)
SAME_HIGHER = (CARD_COLOUR[:, None] == CARD_COLOUR[None, :]) & (_IDS[None, :] > _IDS[:, None]) & ~IS_JOKER[:, None]
HIGHER_T = SAME_HIGHER.T.astype(np.float32)  # count_marked(cards, HIGHER_T)[:, c]: the cards above c in c's suit


def card_chances(v: SObs, joker_value: float, lead_factor: float, trump_factor: float) -> np.ndarray:
    """float [B, 42]: each card's chance to take a trick (see the module docstring)."""
    n = v.num_players
    # a discard looks ahead to the next round: the last round's cards are back in the hands
    discard = v.phase == PHASE["discard"]
    known = np.where(discard[:, None], v.hand, v.hand | v.played | v.trick)
    universe = np.where(v.carry[:, None] & v.seen_game.any(1)[:, None], v.seen_game, True)
    unseen = universe & ~known
    left = np.where(discard, v.hand_size, np.maximum(v.hand_size - v.tricks_done, 0))  # cards each holds
    others = np.arange(v.bid.shape[1])[None, :] < n[:, None]
    others[:, 0] = False
    opp_cards = np.where(others, left[:, None] - v.trick_played * ~discard[:, None], 0).clip(0).sum(1)
    q = np.clip(opp_cards / np.maximum(unseen.sum(1), 1), 0.0, 1.0)
    higher = count_marked(unseen, HIGHER_T)  # [B, 42]
    survive = (1.0 - q)[:, None] ** higher
    off_trump = lead_factor * trump_factor ** (n - 1)[:, None].astype(float)
    chance = np.where(IS_YELLOW[None, :], survive, survive * off_trump)
    return np.where(IS_JOKER[None, :], joker_value, chance)


class SortskaegHeuristic(Agent):
    """See the module docstring."""

    game = "sortskaeg"

    def __init__(self, bid_scale: float = 1.3, joker_value: float = 0.8, lead_factor: float = 0.85,
                 trump_factor: float = 0.6, seed: int | None = None):
        self.bid_scale, self.joker_value = finite_number("bid_scale", bid_scale), finite_number("joker_value", joker_value)
        self.lead_factor = finite_number("lead_factor", lead_factor)
        self.trump_factor = finite_number("trump_factor", trump_factor)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.action_values(obs, mask).argmax(1)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, 50]: the bot's preference for every action (-inf where illegal)."""
        legal = check_masks(mask, NUM_ACTIONS)
        v = decode_batch(check_finite(np.asarray(obs, dtype=np.float32)))
        B = len(legal)
        chance = card_chances(v, self.joker_value, self.lead_factor, self.trump_factor)
        values = np.zeros((B, NUM_ACTIONS))
        bid = v.phase == PHASE["bid"]
        if bid.any():
            expected = (chance * v.hand).sum(1) * self.bid_scale
            k = np.arange(MAX_BID + 1)[None, :]
            values[bid, BID0:] = -np.abs(k - expected[bid, None])
        play = v.phase == PHASE["play"]
        if play.any():
            values[play, :NUM_CARDS] = self._play_values(v, chance, play)
        discard = v.phase == PHASE["discard"]
        if discard.any():
            values[discard, :NUM_CARDS] = 0.5 - np.abs(chance[discard] - 0.5)
        return np.where(legal, values, -np.inf)

    def _play_values(self, v: SObs, chance: np.ndarray, rows: np.ndarray) -> np.ndarray:
        n = v.num_players[rows]
        trick = v.trick[rows]
        leading = ~trick.any(1)
        need = v.bid[rows, 0] - v.tricks[rows, 0]
        led = v.led[rows]
        joker_led = ~leading & (led < 0)
        yellow_in = trick & IS_YELLOW[None, :]
        top_yellow = np.where(yellow_in, _IDS, -1).max(1)
        top_led = np.where(trick & (CARD_COLOUR[None, :] == led[:, None]), _IDS, -1).max(1)
        beats = np.where(
            IS_YELLOW[None, :],
            _IDS[None, :] > top_yellow[:, None],
            (CARD_COLOUR[None, :] == led[:, None]) & (top_yellow[:, None] < 0) & (_IDS[None, :] > top_led[:, None]),
        )
        beats &= ~IS_JOKER[None, :] & ~joker_led[:, None] & ~leading[:, None]
        # chance a card that beats the trick now holds against the players still to play
        to_play = n - 1 - v.trick_played[rows].sum(1)
        share = np.clip(to_play / np.maximum(n - 1, 1), 0.0, 1.0)
        unseen_higher_same = count_marked(~(v.hand | v.played | v.trick)[rows], HIGHER_T)
        base = np.clip(chance[rows], 1e-6, 1.0)
        hold = np.where(to_play[:, None] == 0, 1.0, base ** share[:, None])
        hold = np.where(unseen_higher_same == 0, np.where(IS_YELLOW[None, :], 1.0, hold), hold)
        strength = chance[rows] + _IDS[None, :] * 1e-4  # ties: the higher id is the stronger card
        want = need > 0
        values = np.zeros((len(rows), NUM_CARDS))
        # need > 0, leading: jokers first, then the most likely winner
        lead_win = np.where(IS_JOKER[None, :], 2.0, strength)
        # need > 0, following: the beating card most likely to hold, the cheapest among equals
        follow_win = np.where(beats, 1.0 + hold - strength * 0.01, -strength - IS_JOKER[None, :] * 1.0)
        # need <= 0, leading: the least likely winner, never a joker while other cards remain
        lead_lose = np.where(IS_JOKER[None, :], -5.0, -strength)
        # need <= 0, following: the most dangerous card that loses; if all beat: highest when last
        last = to_play == 0
        all_beat_pick = np.where(last[:, None], strength, -strength)
        follow_lose = np.where(beats, -3.0 + 0.1 * all_beat_pick, np.where(IS_JOKER[None, :], 0.0, 1.0 + strength))
        values = np.where(leading[:, None], np.where(want[:, None], lead_win, lead_lose),
                          np.where(want[:, None], follow_win, follow_lose))
        return values


