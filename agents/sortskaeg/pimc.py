"""Sortskæg's ``pimc``: the family's determinised search (:class:`agents.family.pimc.FamilyPIMC`)
over the heuristic, with Sortskæg's worlds.

At each bid and card play with more than one legal action (discards are left to the rollout
bot) it samples ``samples`` deals of the hidden cards consistent with everything the player
has seen: its hand, the cards played (finished tricks and the current one), each player's
hand size, the voids shown by not following, and under ``deal = carry`` the cards each
player took back after the last round (a player's hand is among them) or the game's cards
(the ascending rounds are dealt from them). It plays every (sample, candidate action) out to
the end of the round on Sortskæg's batch engine (:class:`redbeard_env.sortskaeg.VectorEnv`)
with the rollout bot (``heuristic``) in every seat, and chooses the action with the best mean
of its points minus ``spite`` times the others' mean.
"""

from __future__ import annotations

import sys

import numpy as np

from redbeard_env.sortskaeg.cards import CARD_COLOUR, MAX_BID, NO_COLOUR, YELLOW
from redbeard_env.sortskaeg.observation import RULE_SCALE, ROUND_SCALE
from redbeard_env.sortskaeg.rules import Rules, make_rules
from redbeard_env.sortskaeg.vector import VectorEnv  # noqa: F401 (the worlds' engine: FamilyPIMC.world_parts)

from ..family.pimc import FamilyPIMC, deal_constrained, hold_counts
from ..family.search import FamilySearch
from .decode import PHASE, SObs, decode_batch  # noqa: F401 (decode_batch: FamilyPIMC.world_parts)


def rules_from_obs(v: SObs, row: int) -> Rules:
    """The rules a row's observation shows. The observation does not list ``hand_sizes``;
    a playout ends with the round, so every round gets the current round's size."""
    f = v.rules_fields[row]
    rounds = max(int(np.rint(f[7] * ROUND_SCALE)), int(v.round[row]) + 1)
    size = max(int(v.hand_size[row]), 1)
    return make_rules("sortskaeg", hand_sizes=(size,) * rounds, deal="carry" if f[1] > 0.5 else "fresh",
                      dealer_hook=bool(f[2] > 0.5), exact_first=int(np.rint(f[3] * RULE_SCALE)),
                      exact_each=int(np.rint(f[4] * RULE_SCALE)), zero_bid=int(np.rint(f[5] * RULE_SCALE)),
                      miss_each=int(np.rint(f[6] * RULE_SCALE)))


def hidden_hands(v: SObs, rows: np.ndarray, samples: int, rng: np.random.Generator,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """bool [len(rows), samples, P, 42]: sampled hands of the other positions (position 0,
    the observer, holds its own hand), consistent with the observation; ``weights`` [m, P, 42]:
    how likely each position holds each card (None: uniformly)."""
    known = v.hand[rows] | v.played[rows] | v.trick[rows]
    game_set = v.carry[rows, None] & v.seen_game[rows].any(1)[:, None]
    universe = np.where(game_set, v.seen_game[rows], True) & ~known
    took = v.took_back[rows]
    # per position: where its cards may be (its took-back cards under carry, minus its voids)
    allowed = np.where(took.any(2)[:, :, None], took, universe[:, None, :]) & ~known[:, None, :]
    void_cards = v.voids[rows][:, :, np.maximum(CARD_COLOUR, 0)] & (CARD_COLOUR >= 0)[None, None, :]
    allowed &= ~void_cards
    return deal_constrained(hold_counts(v, rows, PHASE["play"]), allowed, universe | (took.any(1) & ~known),
                            samples, rng, weights)


def trick_seats(v: SObs, row: int) -> dict[int, int]:
    """Position -> card of the current trick (the observation shows the cards and who
    played; the leader gets a card of the led colour or the led joker, the winning
    position the winning card, the others the rest: what decides the trick is kept)."""
    cards = [int(c) for c in np.flatnonzero(v.trick[row])]
    if not cards:
        return {}
    n = int(v.num_players[row])
    lead, win = int(v.leader[row]), int(v.winning[row])
    played = [(lead + k) % n for k in range(len(cards))]
    led = int(v.led[row])
    if led == NO_COLOUR:  # a joker was led: the leader holds it and wins
        lead_card = next(c for c in cards if CARD_COLOUR[c] == NO_COLOUR)
        win_card = lead_card
    else:
        yellow = [c for c in cards if CARD_COLOUR[c] == YELLOW]
        win_card = max(yellow) if yellow else max(c for c in cards if CARD_COLOUR[c] == led)
        lead_card = win_card if win == lead else min(c for c in cards if CARD_COLOUR[c] == led and c != win_card)
    out = {lead: lead_card, win: win_card}
    rest = [c for c in cards if c not in out.values()]
    for pos in played:
        if pos not in out:
            out[pos] = rest.pop()
    return out


def world_state(v: SObs, src: np.ndarray, n: int) -> dict:
    """The worlds' round (the observer's), first dealer and the cards of ``deal = carry``."""
    rnd = v.round[src]
    return dict(round=rnd, first_dealer=(v.dealer[src] - rnd) % n, game_cards=v.seen_game[src],
                seen_game=v.seen_game[src], took_back=v.took_back[src, :n])


class SortskaegPIMC(FamilyPIMC):
    """See the module docstring."""

    game = "sortskaeg"
    COST = MAX_BID + 1.0  # cost units (agents.params) per sample and rollout decision (up to MAX_BID + 1 candidates)
    world_parts = sys.modules[__name__]  # this module: how a world is read and loaded


class SortskaegSearch(FamilySearch):
    """``search``: this pimc guided and played out by a trained network (:mod:`agents.family.search`)."""

    game = 'sortskaeg'
    world_parts = sys.modules[__name__]
    DEFAULT_POLICY = 'ppo:sortskaeg_4p'
    DEFAULT_DEPTH = 8  # the critic after two tricks beat full playouts on two seeds (docs/results.md)
