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

from redbeard_env.sortskaeg.cards import CARD_COLOUR, YELLOW

from ..base import Agent, check_batch
from ..params import SEED, Float, set_numbers
from .decode import PHASE, decode_batch
from ..family.heuristic_kernels import family_values, others_hold

FAMILY_PHASES = (PHASE["bid"], PHASE["play"], PHASE["discard"])


class SortskaegHeuristic(Agent):
    """See the module docstring."""

    game = "sortskaeg"
    #: the spec's parameters (agents.params): a scale of the expected tricks, and chances
    PARAMS = {
        "bid_scale": Float(0, 4, help="scales the hand's expected tricks into a bid"),
        "joker_value": Float(0, 1, help="a joker's chance to take a trick"),
        "lead_factor": Float(0, 1, help="an off-trump card's chance to be led"),
        "trump_factor": Float(0, 1, help="an off-trump card's chance each opponent does not trump it"),
        "seed": SEED,
    }
    COST = 0.8  # cost units (agents.params): a decision among many in a batch

    def __init__(self, bid_scale: float = 1.3, joker_value: float = 0.8, lead_factor: float = 0.85,
                 trump_factor: float = 0.6, seed: int | None = None):
        set_numbers(self, bid_scale=bid_scale, joker_value=joker_value, lead_factor=lead_factor,
                    trump_factor=trump_factor)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.action_values(obs, mask).argmax(1)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, 50]: the bot's preference for every action (-inf where illegal); what a
        player may count is worked out here, the values in the family's compiled kernel
        (:mod:`agents.family.heuristic_kernels`)."""
        obs, legal = check_batch(obs, mask, self.game)
        v = decode_batch(obs)
        # a discard looks ahead to the next round: the last round's cards are back in the hands
        discard = v.phase == PHASE["discard"]
        known = np.where(discard[:, None], v.hand, v.hand | v.played | v.trick)
        universe = np.where(v.carry[:, None] & v.seen_game.any(1)[:, None], v.seen_game, True)
        left = np.where(discard, v.hand_size, np.maximum(v.hand_size - v.tricks_done, 0))  # cards each holds
        opp_cards = others_hold(left, v.trick_played & ~discard[:, None], v.num_players)
        return family_values(
            v.phase, v.num_players, opp_cards, v.bid[:, 0] - v.tricks[:, 0], v.num_players - 1 - v.trick_played.sum(1),
            v.led, np.full(len(legal), YELLOW), v.hand, v.trick, universe & ~known, ~(v.hand | v.played | v.trick),
            CARD_COLOUR, CARD_COLOUR < 0, legal, self.bid_scale, self.joker_value, self.lead_factor,
            self.trump_factor, FAMILY_PHASES)
