"""Oh Hell's ``pimc``: determinised search (perfect-information Monte Carlo) over the heuristic.

At each bid and card play with more than one legal action:

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player has
   seen: its hand, the turned card, the cards played (finished tricks and the current one),
   each player's hand size and the voids shown by not following. Cards are dealt uniformly
   subject to those constraints, the most constrained players first.
2. **Play out** every (sample, candidate action) pair to the end of the deal on the batch
   engine (:class:`redbeard_env.oh_hell.VectorEnv`, worlds loaded as arrays with
   ``stop_at_round_end``): the candidate first, then the rollout bot (``heuristic``) in every
   seat. Seats are the searching player's relative positions (it is seat 0).
3. **Choose** the action with the best mean value over the samples (common random numbers:
   every candidate sees the same samples). A playout is worth the player's points minus
   ``spite`` times the mean of the others' points (the deal is won on the most points).

Cost per decision: about ``samples x legal actions x`` (remaining decisions of the deal)
rollout decisions, played in chunks of at most ``max_worlds`` worlds. The search itself is the
family's (:class:`agents.family.pimc.FamilyPIMC`); this module says how an Oh Hell world
is rebuilt from an observation.
"""

from __future__ import annotations

import sys

import numpy as np

from redbeard_env.oh_hell.cards import MAX_BID, NUM_CARDS
from redbeard_env.oh_hell.rules import Rules, make_rules
from redbeard_env.oh_hell.vector import VectorEnv  # noqa: F401 (the worlds' engine: FamilyPIMC.world_parts)

from ..family.pimc import FamilyPIMC, deal_constrained, hold_counts
from ..family.search import FamilySearch
from .decode import CARD_SUIT, PHASE, OObs, decode_batch  # noqa: F401 (decode_batch: FamilyPIMC.world_parts)


def rules_from_obs(v: OObs, row: int) -> Rules:
    """The rules a row's observation shows, with this deal's hand size fixed."""
    return make_rules("oh_hell", num_tricks=max(int(v.hand_size[row]), 1), num_suits=int(v.num_suits[row]),
                      num_cards_per_suit=int(v.num_cards_per_suit[row]), points_per_trick=int(v.points_per_trick[row]),
                      off_bid_penalty=bool(v.off_bid_penalty[row]))


def hidden_hands(v: OObs, rows: np.ndarray, samples: int, rng: np.random.Generator,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """bool [len(rows), samples, P, 52]: sampled hands of the other positions (position 0, the
    observer, holds nothing here), consistent with the observation; ``weights`` [m, P, 52]:
    how likely each position holds each card (None: uniformly)."""
    P = v.bid.shape[1]
    known = v.hand[rows] | v.played[rows] | v.trick[rows] | v.trump_card[rows]
    universe = v.in_play[rows] & ~known
    allowed = np.broadcast_to(universe[:, None, :], (len(rows), P, NUM_CARDS)) & ~v.voids[rows][:, :, CARD_SUIT]
    return deal_constrained(hold_counts(v, rows, PHASE["play"]), allowed, universe, samples, rng, weights)


def trick_seats(v: OObs, row: int) -> dict[int, int]:
    """Position -> its card in the current trick (the observation's ``played_by``)."""
    cards = np.flatnonzero(v.trick[row])
    return {int(np.flatnonzero(v.played_by[row, :, c])[0]): int(c) for c in cards}


def world_state(v: OObs, src: np.ndarray, n: int) -> dict:
    """The worlds' one deal, its turned card and trumps, and the deal's history (who played
    which card to which trick), which a rollout bot may read as the observer did: a search
    playing out the worlds reads the trick's owners from it."""
    turned = np.where(v.trump_card[src].any(1), v.trump_card[src].argmax(1), -1)
    return dict(round=np.zeros(len(src), np.int64), first_dealer=v.dealer[src], trumps=v.trumps[src],
                trump_card=turned, played_by=v.played_by[src, :n], trick_no=np.maximum(v.trick_of[src], 0))


class OhHellPIMC(FamilyPIMC):
    """See the module docstring."""

    game = "oh_hell"
    COST = MAX_BID + 1.0  # cost units (agents.params) per sample and rollout decision (up to MAX_BID + 1 candidates)
    world_parts = sys.modules[__name__]  # this module: how a world is read and loaded


class OhHellSearch(FamilySearch):
    """``search``: this pimc guided and played out by a trained network (:mod:`agents.family.search`)."""

    game = 'oh_hell'
    world_parts = sys.modules[__name__]
    DEFAULT_POLICY = 'ppo:oh_hell_4p'
