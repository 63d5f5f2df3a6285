"""The family's ``heuristic``: bids from hand strength, then plays to hit the bid exactly.

Card strength. Each card in hand gets a chance to take a trick, from the cards still unseen
(what a player may count as unseen is the game's to say): ``q`` = the share of unseen cards
that sit in opponents' hands, and a colour card survives each unseen higher card of its
colour with ``1 - q``. A trump needs nothing else; another colour's card is also scaled by
``lead_factor`` (it must be led, by us or someone) and by ``trump_factor`` per opponent (a
void opponent may trump it). A joker (where the game has them) is worth ``joker_value``.

* **Bid**: the expected tricks ``E`` = the sum of the hand's chances, times ``bid_scale``;
  each legal bid ``k`` is worth ``-|k - E|`` (the dealer hook's forbidden bid is masked by
  the engine, so the nearest legal bid is chosen).
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
* **Discard** (``deal = carry``): the card whose chance is closest to 1/2 -- sure winners
  and sure losers make the next bid easy.

:meth:`FamilyHeuristic.action_values` gives these preferences for every legal action
(illegal: ``-inf``), computed in the compiled kernel :mod:`~.heuristic_kernels`;
``act_batch`` plays their argmax. A game's heuristic subclasses :class:`FamilyHeuristic`,
naming its decoder and cards, its parameters' defaults and what its player counts.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..base import Agent, check_batch
from ..params import SEED, Float
from .decode import PHASE
from .heuristic_kernels import family_values, others_hold


class FamilyHeuristic(Agent):
    """See the module docstring. A game's subclass sets ``game``, ``decode`` (its observation
    decoder, a static method), ``suit`` (per card id its colour, -1 for a joker) and
    :meth:`counted`, and its ``__init__`` the parameters' defaults (``set_numbers``)."""

    #: the spec's parameters (agents.params): a scale of the expected tricks, and chances
    PARAMS = {
        "bid_scale": Float(0, 4, help="scales the hand's expected tricks into a bid"),
        "lead_factor": Float(0, 1, help="an off-trump card's chance to be led"),
        "trump_factor": Float(0, 1, help="an off-trump card's chance each opponent does not trump it"),
        "seed": SEED,
    }
    PHASES = (PHASE["bid"], PHASE["play"], PHASE["discard"])
    decode: Callable
    suit: np.ndarray
    joker_value = 0.0

    def counted(self, v) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the player counts in each row of the decoded observations ``v``: the cards
        the others hold (int [B]), the trump colour (int [B], -1 none), the unseen cards the
        chances count and the unseen cards that may still come in card play (bool [B, C])."""
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.action_values(obs, mask).argmax(1)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, A]: the bot's preference for every action (-inf where illegal); what a
        player may count is the game's (:meth:`counted`), the values the family's compiled
        kernel (:mod:`~.heuristic_kernels`)."""
        obs, legal = check_batch(obs, mask, self.game)
        v = self.decode(obs)
        opp_cards, trump, unseen, unseen_play = self.counted(v)
        return family_values(
            v.phase, v.num_players, opp_cards, v.bid[:, 0] - v.tricks[:, 0], v.num_players - 1 - v.trick_played.sum(1),
            v.led, trump, v.hand, v.trick, unseen, unseen_play, self.suit, self.suit < 0, legal, self.bid_scale,
            self.joker_value, self.lead_factor, self.trump_factor, self.PHASES)


__all__ = ["FamilyHeuristic", "others_hold"]
