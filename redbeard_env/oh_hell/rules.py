"""Oh Hell's rules as one frozen value: OpenSpiel's game ``oh_hell``, parameter for parameter
(SPEC §7). The field names are OpenSpiel's parameter names (``num_tricks`` is its
``num_tricks_fixed``; the player count is the env's ``num_players``, OpenSpiel's ``players``).

===================  =====================================================  ==========
field                meaning                                                ``oh_hell``
===================  =====================================================  ==========
num_tricks           cards dealt to each player = tricks played; -1: drawn  -1
                     uniformly at each deal in 1..(deck - 1) // players
num_suits            suits in the deck, the first of C D S H (1..4)         4
num_cards_per_suit   ranks per suit, the lowest of 2..A (2..13)             13
points_per_trick     points for each trick taken                            1
off_bid_penalty      a missed bid scores -points_per_trick per trick off    False
                     (else: points_per_trick per trick taken); an exact bid
                     scores points_per_trick per trick + 10 either way
===================  =====================================================  ==========

The game is one deal: a card is turned up after the hands (its suit is trumps; the card is
out of play), everyone bids once from the dealer's left, the dealer last and not so that the
bids add up to ``num_tricks``, the dealer's left leads, follow suit if you can, the highest
trump wins, else the highest card of the led suit, the winner leads. The engines are the
family's (:mod:`redbeard_env.family.family`): :func:`family_of` says how.

Players: 3..7, and the deck must deal every hand plus the turned card
(``check_num_players``, a ``ValueError`` naming the fields otherwise).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Mapping

from ..common import check_int, is_int, replace_fields
from ..family.family import Family
from ..family.rules import FamilyRules, check_fields
from . import cards as _cards
from .cards import MAX_BID, NUM_RANKS, NUM_SUITS, SUITS

MIN_PLAYERS, MAX_PLAYERS = 3, 7
MAX_HAND = MAX_BID  # 17 = (52 - 1) // 3
MAX_ROUNDS = 1  # one deal
SCORE_LIMIT = 10**6  # starting scores (reset options) lie in -SCORE_LIMIT..SCORE_LIMIT
MADE_BID_BONUS = 10  # OpenSpiel's kMadeBidBonus
RANDOM_TRICKS = -1

CHOICES: dict[str, tuple[str, ...]] = {}
BOOL_FIELDS = ("off_bid_penalty",)
INT_RANGES: dict[str, tuple[int, int]] = {
    "num_suits": (1, NUM_SUITS),
    "num_cards_per_suit": (2, NUM_RANKS),
    "points_per_trick": (0, 100),
}


@dataclass(frozen=True)
class Rules(FamilyRules):
    """OpenSpiel's ``oh_hell`` parameters (see the module docstring). Build it with
    :func:`make_rules`, which validates it; ``rules.family`` is what the family's engines read
    (:func:`family_of`)."""

    #: tricks (cards per player); -1: drawn uniformly at each deal (OpenSpiel's num_tricks_fixed)
    num_tricks: int = RANDOM_TRICKS
    num_suits: int = NUM_SUITS
    num_cards_per_suit: int = NUM_RANKS
    points_per_trick: int = 1
    off_bid_penalty: bool = False

    @property
    def num_rounds(self) -> int:
        return 1

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_cards_per_suit


PRESETS: dict[str, Rules] = {"oh_hell": Rules()}


def validate(rules: Rules) -> Rules:
    """Check every field; raise ``ValueError`` naming the field and the allowed values."""
    check_fields(rules, CHOICES, BOOL_FIELDS, INT_RANGES)
    k = rules.num_tricks
    if not is_int(k) or not (k == RANDOM_TRICKS or 1 <= k <= MAX_HAND):
        raise ValueError(f"Rules field 'num_tricks' got {k!r}; allowed: -1 (drawn at each deal) or an int in "
                         f"1..{MAX_HAND} that the deck deals (num_tricks * players + 1 <= num_suits * "
                         f"num_cards_per_suit)")
    return dataclasses.replace(rules, num_tricks=int(k), num_suits=int(rules.num_suits),
                               num_cards_per_suit=int(rules.num_cards_per_suit),
                               points_per_trick=int(rules.points_per_trick))


def make_rules(rules: "str | Rules | Mapping[str, Any] | None" = "oh_hell", **overrides: Any) -> Rules:
    """Validated rules from a preset name (or a ``Rules``, or a dict of fields) plus field
    overrides, e.g. ``make_rules("oh_hell", num_tricks=5, off_bid_penalty=True)``."""
    return validate(replace_fields(rules, overrides, PRESETS, "oh_hell", Rules, tuple_field="", game="Oh Hell "))


def check_num_players(num_players: Any, rules: Rules) -> int:
    """A player count 3..7 that the deck deals (every hand plus the turned card), or
    ``ValueError`` naming the fields."""
    num_players = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    n, deck = int(num_players), rules.deck_size
    tricks = max(rules.num_tricks, 1)
    if n * tricks + 1 > deck:
        what = f"num_tricks={rules.num_tricks}" if rules.num_tricks > 0 else "one card each"
        raise ValueError(f"a deck of num_suits={rules.num_suits} x num_cards_per_suit={rules.num_cards_per_suit} = "
                         f"{deck} cards cannot deal {what} to num_players={n} plus the turned card "
                         f"(num_tricks * num_players + 1 = {n * tricks + 1} cards)")
    return n


@functools.lru_cache(maxsize=256)
def family_of(rules: Rules) -> Family:
    """Oh Hell in the family: 52 card ids (the deck's suits and ranks in play), one deal of
    ``num_tricks`` cards (0: drawn), dealt one card at a time from seat 0 as OpenSpiel
    deals, the next card turned for trumps, the dealer's hook, and the scoring as the
    family's fields: exact k -> P*k + 10 (exact_first = P + 10, exact_each = P, zero_bid =
    10), missed -> -P * |off| with the penalty (miss_each = P) or P * tricks without
    (miss_trick = P)."""
    p = rules.points_per_trick
    return Family(colours=SUITS, colour_size=NUM_RANKS, jokers=0, hand_sizes=(max(rules.num_tricks, 0),),
                  colours_in_play=rules.num_suits, values_in_play=rules.num_cards_per_suit, deal="fresh",
                  deal_order="one_by_one", trumps="turned", trump_colour=-1, dealer_hook=True,
                  exact_first=p + MADE_BID_BONUS, exact_each=p, zero_bid=MADE_BID_BONUS,
                  miss_each=p if rules.off_bid_penalty else 0, miss_trick=0 if rules.off_bid_penalty else p,
                  deck_parts=2, cards=_cards)
