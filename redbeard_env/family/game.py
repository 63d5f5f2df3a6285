"""The reference rules engine of the family (Sortskæg, Oh Hell): one game in plain Python.

A :class:`Game` is a small mutable state; :func:`new_game` creates one,
:func:`legal_actions` lists what the acting seat may do and :func:`apply_action` applies
one action (after checking it is legal, so an illegal action leaves the state
untouched). Every rule that varies is read from the game's family
(:class:`~.family.Family`, ``rules.family``): the same code plays
Sortskæg and Oh Hell.

Flow (one function per phase)::

    _start_round ─ deal (or keep the discards' leftovers) ─> bid (each once, from the
    dealer's left) ─> play (hand size tricks; the winner leads) ─> _score_round
      ─> discard (carry, next round one smaller: take back the round's cards, drop one)
      ─> _start_round of the next round ... ─> _end_game (highest total wins; ties share)

Every bid, play and discard is asked, even with a single legal option.

Randomness: each deal takes the next entry of ``deck_queue`` if the caller supplied
decks, otherwise draws ``deck_parts`` permutations of the card ids (``rng.permutation``;
the deck, top first, then for a drawn hand size the permutation that draws it). A deal
gives ``h`` cards to each player in the family's ``deal_order`` from the deck's cards in
play (under ``carry`` later deals from the game's cards in the order the deck lists them)
and, with turned trumps, turns the next card face up (``trump_card``, out of play). Under
``carry`` only deals draw decks, so a game uses fewer decks than it has rounds.

``Game.events`` lists what the last action caused: ``("trick", winner, cards)``,
``("round_end", round_index, hand_size, bids, tricks, deltas)`` (per-seat tuples),
``("discard", seat)``, ``("game_end", winners)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .family import NO_COLOUR, Family, deal_cards, drawn_size

PHASE_NAMES = ("bid", "play", "discard", "over")


@dataclass(eq=False)
class Game:
    rules: Any  # the game's Rules (Sortskæg's, Oh Hell's); the engine reads ``rules.family``
    num_players: int
    rng: np.random.Generator
    scores: list[int]
    first_dealer: int
    deck_queue: list[list[int]] = field(default_factory=list)
    round: int = 0  # index of the current round = rounds scored so far
    dealer: int = -1  # of the current round (during a discard: of the round just played)
    phase: str = "bid"
    to_act: int = -1  # acting seat, -1 when the game is over
    hands: list[set[int]] = field(default_factory=list)
    game_cards: set[int] = field(default_factory=set)  # carry: the cards of the whole game
    # --- the current round
    drawn_size: int = 0  # the round's hand size where the family draws it at the deal
    trump_card: int = -1  # the turned card (trumps = turned): face up, out of play
    trumps: int = NO_COLOUR  # the trump colour of the round, -1 none
    bids: list[int | None] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    leader: int = -1  # who leads (led) the current trick
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) in play order
    played: set[int] = field(default_factory=set)  # cards of finished tricks this round
    played_by: list[set[int]] = field(default_factory=list)  # cards each seat played this round
    trick_no: dict[int, int] = field(default_factory=dict)  # card -> the trick of this round it was played to
    voids: list[list[bool]] = field(default_factory=list)  # seat x colour, shown by not following
    # --- carry
    seen_game: set[int] = field(default_factory=set)  # cards played in earlier rounds of the game
    took_back: list[set[int]] = field(default_factory=list)  # cards each seat took back after the last round
    discarded: list[set[int]] = field(default_factory=list)  # each seat's own discards
    queue: list[int] = field(default_factory=list)  # seats still to discard
    # --- end
    winners: list[int] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)

    @property
    def fam(self) -> Family:
        return self.rules.family

    @property
    def game_over(self) -> bool:
        return self.phase == "over"

    @property
    def hand_size(self) -> int:
        """Cards per player in the current round (during a discard: in the next round)."""
        sizes = self.fam.hand_sizes
        return sizes[min(self.round, len(sizes) - 1)] or self.drawn_size

    @property
    def tricks_done(self) -> int:
        return sum(self.tricks)

    @property
    def led_colour(self) -> int:
        """The colour to follow in the current trick; -1 with no card yet or a joker led."""
        return self.fam.colour_of(self.trick[0][1]) if self.trick else NO_COLOUR

    @property
    def face_up(self) -> set[int]:
        """Cards face up for everyone outside the tricks: the turned trump card."""
        return {self.trump_card} if self.trump_card >= 0 else set()


def new_game(
    rules: Any,
    num_players: int,
    rng: np.random.Generator,
    dealer: int,
    scores: Sequence[int] | None = None,
    decks: Sequence[Sequence[int]] = (),
) -> Game:
    """A game at its first decision: first dealer ``dealer``, starting ``scores`` (default 0),
    the first deals from ``decks`` (each a deck row: ``deck_parts`` permutations of the card
    ids, top first)."""
    n = num_players
    g = Game(rules, n, rng, list(scores) if scores is not None else [0] * n, dealer,
             deck_queue=[list(map(int, d)) for d in decks])
    g.hands = [set() for _ in range(n)]
    g.took_back = [set() for _ in range(n)]
    g.discarded = [set() for _ in range(n)]
    g.trumps = g.fam.trump_colour if g.fam.trumps == "fixed" else NO_COLOUR
    _start_round(g)
    return g


def _next_deck(g: Game) -> list[int]:
    if g.deck_queue:
        return g.deck_queue.pop(0)
    ids = g.fam.num_ids
    return [int(c) for _ in range(g.fam.deck_parts) for c in g.rng.permutation(ids)]


def _deal(g: Game) -> None:
    """The round's hands (and turned card) from the next deck."""
    fam, n = g.fam, g.num_players
    deck = _next_deck(g)
    if fam.hand_sizes[g.round] == 0:
        g.drawn_size = drawn_size(deck[fam.num_ids:], fam.max_drawn(n))
    h = g.hand_size
    if fam.deal == "carry" and g.round == 0:
        g.game_cards = set(c for hand in deal_cards(fam, deck, n, g.dealer, h)[0] for c in hand)
    hands, g.trump_card = deal_cards(fam, deck, n, g.dealer, h, g.game_cards if fam.deal == "carry" else None)
    g.hands = [set(hand) for hand in hands]
    if g.trump_card >= 0:
        g.trumps = fam.colour_of(g.trump_card)
    g.took_back = [set() for _ in range(n)]  # nothing taken back: a new deal


def _start_round(g: Game) -> None:
    """Deal (unless the discards left the hands), clear the round, the dealer's left bids."""
    n = g.num_players
    g.dealer = (g.first_dealer + g.round) % n
    if g.fam.deals_fresh(g.round):
        _deal(g)
    g.bids = [None] * n
    g.tricks = [0] * n
    g.trick = []
    g.played = set()
    g.played_by = [set() for _ in range(n)]
    g.trick_no = {}
    g.voids = [[False] * len(g.fam.colours) for _ in range(n)]
    g.phase = "bid"
    g.leader = -1
    g.to_act = (g.dealer + 1) % n


# ------------------------------------------------------------------ legal actions
def legal_bids(g: Game) -> list[int]:
    """Bids 0..hand size; with ``dealer_hook`` the dealer may not make them add up."""
    h = g.hand_size
    bids = list(range(h + 1))
    if g.fam.dealer_hook and g.to_act == g.dealer:
        others = sum(b for b in g.bids if b is not None)
        bids = [k for k in bids if others + k != h]
    return bids


def legal_cards(g: Game) -> list[int]:
    """Follow the led colour if you can (a joker may always be played); after a led joker,
    or when leading, or when void, any card."""
    hand = g.hands[g.to_act]
    led = g.led_colour
    colour_of = g.fam.colour_of
    if led != NO_COLOUR and any(colour_of(c) == led for c in hand):
        return sorted(c for c in hand if colour_of(c) in (led, NO_COLOUR))
    return sorted(hand)


def legal_actions(g: Game) -> list[int]:
    if g.phase == "bid":
        return [g.fam.num_ids + k for k in legal_bids(g)]
    if g.phase in ("play", "discard"):
        return legal_cards(g) if g.phase == "play" else sorted(g.hands[g.to_act])
    return []


# ------------------------------------------------------------------ transitions
def apply_action(g: Game, action: int) -> None:
    """Apply the acting seat's action; ``ValueError`` (state unchanged) if it is not legal."""
    if g.game_over:
        raise ValueError(f"illegal action {action!r}: the game is over (phase 'over')")
    legal = legal_actions(g)
    action_name = g.fam.cards.action_name
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
        try:
            what = f"{action_name(action, g.phase)} (id {int(action)})"
        except ValueError:
            what = repr(action)
        allowed = ", ".join(action_name(a, g.phase) for a in legal)
        raise ValueError(f"illegal action {what} for player_{g.to_act} in phase {g.phase!r}; legal: {allowed}")
    g.events = []
    action = int(action)
    if g.phase == "bid":
        _apply_bid(g, action - g.fam.num_ids)
    elif g.phase == "play":
        _apply_play(g, action)
    else:
        _apply_discard(g, action)


def _apply_bid(g: Game, bid: int) -> None:
    seat = g.to_act
    g.bids[seat] = bid
    if seat == g.dealer:  # the dealer bids last; the dealer's left leads the first trick
        g.phase = "play"
        g.leader = g.to_act = (g.dealer + 1) % g.num_players
    else:
        g.to_act = (seat + 1) % g.num_players


def _apply_play(g: Game, card: int) -> None:
    seat = g.to_act
    led = g.led_colour
    if led != NO_COLOUR and g.fam.colour_of(card) not in (led, NO_COLOUR):
        g.voids[seat][led] = True  # a colour card off the led colour shows a void
    g.hands[seat].remove(card)
    g.played_by[seat].add(card)
    g.trick_no[card] = g.tricks_done
    g.trick.append((seat, card))
    if len(g.trick) < g.num_players:
        g.to_act = (seat + 1) % g.num_players
    else:
        _complete_trick(g)


def _complete_trick(g: Game) -> None:
    cards = [c for _, c in g.trick]
    winner = g.trick[g.fam.trick_winner(cards, g.trumps)][0]
    g.tricks[winner] += 1
    g.played.update(cards)
    g.events.append(("trick", winner, tuple(cards)))
    g.trick = []
    g.leader = g.to_act = winner
    if g.tricks_done == g.hand_size:
        _score_round(g)


def _score_round(g: Game) -> None:
    """Score every player's bid, then: the game's end, a discard, or the next round."""
    fam = g.fam
    deltas = [fam.round_score(b, t) for b, t in zip(g.bids, g.tricks)]
    for seat, d in enumerate(deltas):
        g.scores[seat] += d
    g.events.append(("round_end", g.round, g.hand_size, tuple(g.bids), tuple(g.tricks), tuple(deltas)))
    if fam.deal == "carry":
        g.seen_game |= g.played
    finished = g.round
    g.round += 1
    if g.round == fam.num_rounds:
        _end_game(g)
    elif fam.discard_follows(finished):
        _start_discard(g)
    else:
        _start_round(g)


def _start_discard(g: Game) -> None:
    """Everyone takes back the cards they played; from the dealer's left each discards one."""
    n = g.num_players
    for seat in range(n):
        g.hands[seat] = set(g.played_by[seat])
        g.took_back[seat] = set(g.played_by[seat])
    g.trick = []
    g.phase = "discard"
    g.queue = [(g.dealer + 1 + k) % n for k in range(n)]
    g.to_act = g.queue.pop(0)


def _apply_discard(g: Game, card: int) -> None:
    seat = g.to_act
    g.hands[seat].remove(card)
    g.discarded[seat].add(card)
    g.events.append(("discard", seat))
    if g.queue:
        g.to_act = g.queue.pop(0)
    else:
        _start_round(g)


def _end_game(g: Game) -> None:
    best = max(g.scores)
    g.winners = [s for s, x in enumerate(g.scores) if x == best]
    g.phase = "over"
    g.to_act = -1
    g.events.append(("game_end", tuple(g.winners)))
