"""The family of exact-bid trick games Sortskæg (SPEC §6) and Oh Hell (SPEC §7) belong to, as
one value the engines read: :class:`Family`.

Both games are the same engine: deal hands of a round's size, everyone bids once from the
dealer's left (the dealer last), tricks are played (follow the led colour if you can; trumps
beat the led colour; the winner leads), every bid is scored, and after the last round the
highest total wins. What differs is a :class:`Family` value, made from each game's own
``Rules`` (``Rules.family``): the game's ``Rules`` keep their own public fields (Sortskæg's
``hand_sizes``, ``exact_first`` ...; Oh Hell's OpenSpiel names ``num_tricks``, ``num_suits``
...), and the reference engine (:mod:`~.game`) and the compiled batch engine
(:mod:`~.vector_rules`) read only the family's fields -- one implementation of each rule in
each engine.

==================  ===================================================  ================  ================
field               meaning                                              Sortskæg          Oh Hell
==================  ===================================================  ================  ================
colours             colour letters in card-id order                      ``RGBY``          ``CDSH``
colour_size         card ids per colour (a higher id is a higher card)   10 (values 1-10)  13 (ranks 2-A)
jokers              joker ids after the colours' ids                     2                 0
colours_in_play     the first colours are in the deck                    4                 ``num_suits``
values_in_play      the lowest values of each colour are in the deck     10                ``num_cards_per_suit``
hand_sizes          cards per player in each round (one round each); 0:  (7, 6, … 1 … 7)   (``num_tricks``,)
                    drawn at the deal, uniformly in 1..the most the                        0 for -1
                    deck allows ((deck - turned card) // players)
deal                fresh: every round from the whole deck; carry: the   ``deal``          fresh
                    first deal's cards are the game's (Sortskæg)
deal_order          blocks: each its whole hand in turn from the         blocks            one_by_one
                    dealer's left; one_by_one: a card at a time from
                    seat 0 (OpenSpiel's order)
trumps              fixed: ``trump_colour``; turned: the colour of the   fixed (yellow)    turned
                    card dealt after the hands, turned face up and out
                    of play; none
dealer_hook         the dealer (bidding last) may not make the bids add  ``dealer_hook``   True
                    up to the hand size
exact_first         points for an exact bid k >= 1: exact_first +        5, 2              10 + P, P
exact_each          exact_each * (k - 1)
zero_bid            points for bid 0 and no trick                        5                 10
miss_each           a missed bid: miss_trick * tricks - miss_each *      2, 0              P, 0 (penalty)
miss_trick          |tricks - bid|                                                         0, P (no penalty)
deck_parts          permutations of the card ids in one deal's deck      1                 2
                    row: the deck (top first); a second one draws a
                    drawn hand size (:func:`drawn_size`)
==================  ===================================================  ================  ================

(P = ``points_per_trick``.) A led joker wins its trick and leaves no colour to follow
(Sortskæg's sheet; a deck without jokers never meets the rule). The winner of a trick leads
the next; the dealer's left leads the first.

A deal's deck lists every card id (the cards not in the deck too, so every game's decks have
one format): the deal takes the deck's cards in order, skipping ids not in play (and under
``carry`` the cards outside the game's), gives each player the round's hand size in
``deal_order`` and, with ``trumps = turned``, turns the next card.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

NO_COLOUR = -1  # a joker's colour; also "no led colour" and "no trumps"
TRUMP_MODES = ("fixed", "turned", "none")
DEAL_MODES = ("fresh", "carry")
DEAL_ORDERS = ("blocks", "one_by_one")
DRAWN = 0  # a hand_sizes entry drawn at the deal


@dataclass(frozen=True)
class Family:
    """One game of the family as the engines read it (see the module docstring)."""

    colours: str
    colour_size: int
    jokers: int
    hand_sizes: tuple[int, ...]
    colours_in_play: int
    values_in_play: int
    deal: str = "fresh"
    deal_order: str = "blocks"
    trumps: str = "fixed"
    trump_colour: int = NO_COLOUR
    dealer_hook: bool = False
    exact_first: int = 5
    exact_each: int = 2
    zero_bid: int = 5
    miss_each: int = 2
    miss_trick: int = 0
    deck_parts: int = 1
    #: the game's cards module (names in error messages); not part of the rules
    cards: Any = field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------ the deck
    @property
    def num_ids(self) -> int:
        """Card ids 0..num_ids-1: the colours' ids, then the jokers."""
        return len(self.colours) * self.colour_size + self.jokers

    @property
    def first_joker(self) -> int:
        return len(self.colours) * self.colour_size

    @functools.cached_property
    def in_play(self) -> frozenset[int]:
        """The cards of the deck."""
        cards = {c * self.colour_size + v for c in range(self.colours_in_play) for v in range(self.values_in_play)}
        return frozenset(cards | set(range(self.first_joker, self.num_ids)))

    @property
    def deck_size(self) -> int:
        return len(self.in_play)

    @property
    def turned(self) -> int:
        """Cards turned face up at a deal (1 with ``trumps = turned``)."""
        return int(self.trumps == "turned")

    def colour_of(self, card: int) -> int:
        """The card's colour, or -1 for a joker."""
        return NO_COLOUR if card >= self.first_joker else card // self.colour_size

    # ------------------------------------------------------------ the schedule
    @property
    def num_rounds(self) -> int:
        return len(self.hand_sizes)

    def max_drawn(self, num_players: int) -> int:
        """The largest hand the deck deals to ``num_players`` (besides the turned card)."""
        return (self.deck_size - self.turned) // num_players

    def discard_follows(self, round_index: int) -> bool:
        """Whether a discard phase follows round ``round_index`` (under ``carry``, when the
        next round is exactly one card smaller)."""
        sizes = self.hand_sizes
        return (self.deal == "carry" and round_index + 1 < len(sizes)
                and sizes[round_index + 1] == sizes[round_index] - 1)

    def deals_fresh(self, round_index: int) -> bool:
        """Whether round ``round_index`` starts with a deal; otherwise the hands are what the
        discards left."""
        return round_index == 0 or not self.discard_follows(round_index - 1)

    # ------------------------------------------------------------ scoring
    def round_score(self, bid: int, tricks: int) -> int:
        """Points of one player for one round: an exact bid k >= 1 scores exact_first +
        exact_each * (k - 1), bid 0 and no trick zero_bid; a missed bid miss_trick * tricks
        - miss_each * |tricks - bid|."""
        if tricks == bid:
            return self.zero_bid if bid == 0 else self.exact_first + self.exact_each * (bid - 1)
        return self.miss_trick * tricks - self.miss_each * abs(tricks - bid)

    # ------------------------------------------------------------ the trick
    def trick_winner(self, cards: Sequence[int], trumps: int) -> int:
        """Index (in play order) of the card that wins a trick (:func:`trick_winner`)."""
        return trick_winner(cards, trumps, self.colour_size, self.first_joker)


def trick_winner(cards: Sequence[int], trumps: int, colour_size: int, first_joker: int) -> int:
    """Index (in play order) of the card that wins a trick (complete or not) of a deck with
    ``colour_size`` ids per colour and the jokers from ``first_joker``: a led joker; else the
    highest trump (colour ``trumps``, -1: none) if any was played; else the highest card of
    the led colour. A joker not led never wins."""
    def colour_of(card: int) -> int:
        return NO_COLOUR if card >= first_joker else card // colour_size

    if cards[0] >= first_joker:
        return 0
    if trumps != NO_COLOUR:
        trump = [i for i, c in enumerate(cards) if colour_of(c) == trumps]
        if trump:
            return max(trump, key=lambda i: cards[i])
    led = colour_of(cards[0])
    return max((i for i, c in enumerate(cards) if colour_of(c) == led), key=lambda i: cards[i])


# ---------------------------------------------------------------- deals
def drawn_size(part: Sequence[int], largest: int) -> int:
    """A drawn hand size, uniform in 1..largest, from a deck row's second part (a permutation
    of the card ids): the first entry x below ``largest * (len(part) // largest)`` gives
    ``1 + x % largest`` (the first such entry of a uniform permutation is uniform on them)."""
    bound = largest * (len(part) // largest)
    return 1 + next(int(x) for x in part if x < bound) % largest


def size_part(size: int, num_ids: int) -> list[int]:
    """A second deck part that draws ``size`` (:func:`drawn_size`): ``size - 1`` first."""
    return [size - 1] + [c for c in range(num_ids) if c != size - 1]


def deal_cards(fam: Family, deck: Sequence[int], num_players: int, dealer: int, size: int,
               game_cards: "set[int] | None" = None) -> tuple[list[list[int]], int]:
    """The hands a deck deals (per seat, in the order dealt) and the turned card (-1: none):
    the deck's cards in order, skipping ids not in play (and, given ``game_cards``, the
    cards not among them), ``size`` to each player in ``deal_order``, then the turned card."""
    n = num_players
    cards = [c for c in deck[: fam.num_ids] if c in fam.in_play and (game_cards is None or c in game_cards)]
    hands: list[list[int]] = [[] for _ in range(n)]
    for k in range(n * size):
        seat = (dealer + 1 + k // size) % n if fam.deal_order == "blocks" else k % n
        hands[seat].append(int(cards[k]))
    return hands, (int(cards[n * size]) if fam.turned else -1)


def deck_for(fam: Family, hands: Sequence[Sequence[int]], dealer: int, turned: int = -1,
             rest: Sequence[int] | None = None) -> list[int]:
    """A deck row (``deck_parts`` permutations of the ids) that deals these hands (and turns
    ``turned``): the hands in dealing order, the turned card, then ``rest`` (default: the
    other ids in order); a drawn size's part follows where the rows have two parts."""
    n, size = len(hands), len(hands[0])
    order = ([(dealer + 1 + k // size) % n for k in range(n * size)] if fam.deal_order == "blocks"
             else [k % n for k in range(n * size)])
    taken = [0] * n
    top = []
    for seat in order:
        top.append(int(hands[seat][taken[seat]]))
        taken[seat] += 1
    if turned >= 0:
        top.append(int(turned))
    fixed = set(top)
    rest = [c for c in (range(fam.num_ids) if rest is None else rest) if c not in fixed]
    deck = top + [int(c) for c in rest]
    if fam.deck_parts == 2:
        deck += size_part(size, fam.num_ids)
    return deck
