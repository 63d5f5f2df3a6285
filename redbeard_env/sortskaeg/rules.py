"""Sortskæg's rules as one frozen value (SPEC §6).

The sheet (seed 003) gives one game; where it is ambiguous SPEC names a field. The
engines read these fields, never the preset's name.

==============  ==========================================  ==========================
field           meaning                                     ``sortskaeg`` preset
==============  ==========================================  ==========================
hand_sizes      cards per player in each round, in order    (7, 6, 5, 4, 3, 2, 1, 2, 3,
                (the game has one round per entry)          4, 5, 6, 7)
deal            fresh: every round from all 42 cards;       fresh
                carry: the first deal's cards are the
                game's, the descending half takes back the
                round's cards and discards one
dealer_hook     the dealer may not make the bids add up     False
                to the hand size
exact_first     points for the first trick of an exact bid  5
exact_each      points for each further trick of it         2
zero_bid        points for bid 0 and no trick               5
miss_each       minus points per trick off the bid          2
==============  ==========================================  ==========================

Players: 2..6 (``check_num_players``). ``hand_sizes``: entries 1..7, with ``max * n <=
42``; under ``carry`` the first entry is the largest and a round may be at most one
card smaller than the one before (exactly one smaller: a discard; anything else: a new
deal from the game's cards).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Mapping

from ..common import check_int, is_int, replace_fields, shown
from ..family.family import Family
from ..family.rules import FamilyRules, check_fields
from . import cards as _cards
from .cards import COLOURS, MAX_BID, NUM_CARDS, NUM_JOKERS, NUM_VALUES, YELLOW

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_HAND = MAX_BID  # 7
SCORE_LIMIT = 10**6  # starting scores (reset options) lie in -SCORE_LIMIT..SCORE_LIMIT

CHOICES: dict[str, tuple[str, ...]] = {"deal": ("fresh", "carry")}
BOOL_FIELDS = ("dealer_hook",)
INT_RANGES: dict[str, tuple[int, int]] = {
    "exact_first": (0, 100),
    "exact_each": (0, 100),
    "zero_bid": (0, 100),
    "miss_each": (0, 100),
}
MAX_ROUNDS = 100  # longest hand_sizes tuple


@dataclass(frozen=True)
class Rules(FamilyRules):
    """One complete rule set of Sortskæg. Build it with :func:`make_rules`, which validates it;
    ``rules.family`` is what the family's engines read (:func:`family_of`)."""

    #: cards per player in each round; one round per entry
    hand_sizes: tuple[int, ...] = (7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7)
    #: fresh (every round from all 42 cards) | carry (the first deal's cards for the whole game)
    deal: str = "fresh"
    #: the dealer, bidding last, may not make the bids add up to the hand size
    dealer_hook: bool = False
    #: an exact bid k >= 1 scores exact_first + exact_each * (k - 1)
    exact_first: int = 5
    exact_each: int = 2
    #: bid 0 and no trick
    zero_bid: int = 5
    #: otherwise: -miss_each per trick of difference
    miss_each: int = 2

    @property
    def num_rounds(self) -> int:
        return len(self.hand_sizes)


PRESETS: dict[str, Rules] = {"sortskaeg": Rules()}


def validate(rules: Rules) -> Rules:
    """Check every field; raise ``ValueError`` naming the field and the allowed values."""
    check_fields(rules, CHOICES, BOOL_FIELDS, INT_RANGES)
    sizes = rules.hand_sizes
    if (not isinstance(sizes, tuple) or not 1 <= len(sizes) <= MAX_ROUNDS
            or not all(is_int(h) and 1 <= h <= MAX_HAND for h in sizes)):
        raise ValueError(f"Rules field 'hand_sizes' got {shown(sizes)}; allowed: a tuple of 1..{MAX_ROUNDS} "
                         f"hand sizes, each an int in 1..{MAX_HAND}")
    if rules.deal == "carry":
        if sizes[0] != max(sizes):
            raise ValueError(f"Rules field 'hand_sizes' got {shown(sizes)}: under deal='carry' the first round "
                             f"must be the largest (its cards are all the game's cards)")
        for r in range(1, len(sizes)):
            if sizes[r] < sizes[r - 1] - 1:
                raise ValueError(f"Rules field 'hand_sizes' got {shown(sizes)}: under deal='carry' a round may be at "
                                 f"most one card smaller than the one before (round {r}: {sizes[r - 1]} -> {sizes[r]})")
    ints = {name: int(getattr(rules, name)) for name in INT_RANGES}  # numpy ints as Python ints
    return dataclasses.replace(rules, hand_sizes=tuple(map(int, sizes)), **ints)


def make_rules(rules: "str | Rules | Mapping[str, Any] | None" = "sortskaeg", **overrides: Any) -> Rules:
    """Validated rules from a preset name (or a ``Rules``, or a dict of fields) plus field
    overrides, e.g. ``make_rules("sortskaeg", deal="carry")``."""
    return validate(replace_fields(rules, overrides, PRESETS, "sortskaeg", Rules, tuple_field="hand_sizes", game="Sortskæg "))


def check_num_players(num_players: Any, rules: Rules) -> int:
    """A player count 2..6 whose largest hand fits the deck, or ``ValueError``."""
    num_players = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    if max(rules.hand_sizes) * num_players > NUM_CARDS:
        raise ValueError(f"{num_players} players with hands of {max(rules.hand_sizes)} need more than the "
                         f"{NUM_CARDS} cards (max(hand_sizes) * num_players must be <= {NUM_CARDS})")
    return int(num_players)


@functools.lru_cache(maxsize=256)
def family_of(rules: Rules) -> Family:
    """Sortskæg in the family (:class:`~redbeard_env.family.family.Family`): 42 cards (four colours of values
    1..10 and two jokers), yellow trumps, hands dealt in blocks from the dealer's left."""
    return Family(colours=COLOURS, colour_size=NUM_VALUES, jokers=NUM_JOKERS, hand_sizes=rules.hand_sizes,
                  colours_in_play=len(COLOURS), values_in_play=NUM_VALUES, deal=rules.deal, deal_order="blocks",
                  trumps="fixed", trump_colour=YELLOW, dealer_hook=rules.dealer_hook, exact_first=rules.exact_first,
                  exact_each=rules.exact_each, zero_bid=rules.zero_bid, miss_each=rules.miss_each, miss_trick=0,
                  deck_parts=1, cards=_cards)


def round_score(bid: int, tricks: int, rules: Rules) -> int:
    """Points of one player for one round: exact bid k >= 1 -> exact_first + exact_each *
    (k - 1); bid 0 and no trick -> zero_bid; otherwise -miss_each per trick off
    (:meth:`Family.round_score <redbeard_env.family.family.Family.round_score>`)."""
    return rules.family.round_score(bid, tricks)
