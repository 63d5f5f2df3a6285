"""The reference rules engine of Sortskæg: one game in plain Python.

A :class:`Game` is a small mutable state; :func:`new_game` creates one,
:func:`legal_actions` lists what the acting seat may do and :func:`apply_action` applies
one action (after checking it is legal, so an illegal action leaves the state
untouched). Every rule that varies is read from the game's
:class:`~redbeard_env.sortskaeg.rules.Rules`.

Flow (one function per phase)::

    _start_round ─ deal (or keep the discards' leftovers) ─> bid (each once, from the
    dealer's left) ─> play (hand size tricks; the winner leads) ─> _score_round
      ─> discard (carry, next round one smaller: take back the round's cards, drop one)
      ─> _start_round of the next round ... ─> _end_game (highest total wins; ties share)

Every bid, play and discard is asked, even with a single legal option.

Randomness: each deal takes the next entry of ``deck_queue`` if the caller supplied
decks, otherwise draws ``rng.permutation(42)`` (the deck, top card first). A deal gives
``h`` cards to each player in seat order starting left of the dealer, in blocks from the
top: under ``fresh`` (and the first deal under ``carry``) from the deck, under ``carry``
later deals from the game's cards in the order the deck lists them. Under ``carry`` only
deals draw decks, so a game uses fewer decks than it has rounds.

``Game.events`` lists what the last action caused: ``("trick", winner, cards)``,
``("round_end", round_index, hand_size, bids, tricks, deltas)`` (per-seat tuples),
``("discard", seat)``, ``("game_end", winners)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .cards import BID0, NUM_CARDS, NUM_COLOURS, NO_COLOUR, action_name, colour_of, trick_winner
from .rules import Rules, deals_fresh, discard_follows, round_score

PHASE_NAMES = ("bid", "play", "discard", "over")


@dataclass(eq=False)
class Game:
    rules: Rules
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
    bids: list[int | None] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    leader: int = -1  # who leads (led) the current trick
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) in play order
    played: set[int] = field(default_factory=set)  # cards of finished tricks this round
    played_by: list[set[int]] = field(default_factory=list)  # cards each seat played this round
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
    def game_over(self) -> bool:
        return self.phase == "over"

    @property
    def hand_size(self) -> int:
        """Cards per player in the current round (during a discard: in the next round)."""
        sizes = self.rules.hand_sizes
        return sizes[min(self.round, len(sizes) - 1)]

    @property
    def tricks_done(self) -> int:
        return sum(self.tricks)

    @property
    def led_colour(self) -> int:
        """The colour to follow in the current trick; -1 with no card yet or a joker led."""
        return colour_of(self.trick[0][1]) if self.trick else NO_COLOUR


def new_game(
    rules: Rules,
    num_players: int,
    rng: np.random.Generator,
    dealer: int,
    scores: Sequence[int] | None = None,
    decks: Sequence[Sequence[int]] = (),
) -> Game:
    """A game at its first decision: first dealer ``dealer``, starting ``scores`` (default 0),
    the first deals from ``decks`` (each a permutation of the 42 cards, top first)."""
    n = num_players
    g = Game(rules, n, rng, list(scores) if scores is not None else [0] * n, dealer,
             deck_queue=[list(map(int, d)) for d in decks])
    g.hands = [set() for _ in range(n)]
    g.took_back = [set() for _ in range(n)]
    g.discarded = [set() for _ in range(n)]
    _start_round(g)
    return g


def _next_deck(g: Game) -> list[int]:
    return g.deck_queue.pop(0) if g.deck_queue else [int(c) for c in g.rng.permutation(NUM_CARDS)]


def _start_round(g: Game) -> None:
    """Deal (unless the discards left the hands), clear the round, the dealer's left bids."""
    n, h = g.num_players, g.hand_size
    g.dealer = (g.first_dealer + g.round) % n
    if deals_fresh(g.rules, g.round):
        deck = _next_deck(g)
        if g.rules.deal == "carry":
            if g.round == 0:
                g.game_cards = set(deck[: h * n])
            deck = [c for c in deck if c in g.game_cards]
        for k in range(n):
            seat = (g.dealer + 1 + k) % n
            g.hands[seat] = set(deck[k * h : (k + 1) * h])
        g.took_back = [set() for _ in range(n)]  # nothing taken back: a new deal
    g.bids = [None] * n
    g.tricks = [0] * n
    g.trick = []
    g.played = set()
    g.played_by = [set() for _ in range(n)]
    g.voids = [[False] * NUM_COLOURS for _ in range(n)]
    g.phase = "bid"
    g.leader = -1
    g.to_act = (g.dealer + 1) % n


# ------------------------------------------------------------------ legal actions
def legal_bids(g: Game) -> list[int]:
    """Bids 0..hand size; with ``dealer_hook`` the dealer may not make them add up."""
    h = g.hand_size
    bids = list(range(h + 1))
    if g.rules.dealer_hook and g.to_act == g.dealer:
        others = sum(b for b in g.bids if b is not None)
        bids = [k for k in bids if others + k != h]
    return bids


def legal_cards(g: Game) -> list[int]:
    """Follow the led colour if you can (a joker may always be played); after a led joker,
    or when leading, or when void, any card."""
    hand = g.hands[g.to_act]
    led = g.led_colour
    if led != NO_COLOUR and any(colour_of(c) == led for c in hand):
        return sorted(c for c in hand if colour_of(c) in (led, NO_COLOUR))
    return sorted(hand)


def legal_actions(g: Game) -> list[int]:
    if g.phase == "bid":
        return [BID0 + k for k in legal_bids(g)]
    if g.phase in ("play", "discard"):
        return legal_cards(g) if g.phase == "play" else sorted(g.hands[g.to_act])
    return []


# ------------------------------------------------------------------ transitions
def apply_action(g: Game, action: int) -> None:
    """Apply the acting seat's action; ``ValueError`` (state unchanged) if it is not legal."""
    if g.game_over:
        raise ValueError(f"illegal action {action!r}: the game is over (phase 'over')")
    legal = legal_actions(g)
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
        _apply_bid(g, action - BID0)
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
    if led != NO_COLOUR and colour_of(card) not in (led, NO_COLOUR):
        g.voids[seat][led] = True  # a colour card off the led colour shows a void
    g.hands[seat].remove(card)
    g.played_by[seat].add(card)
    g.trick.append((seat, card))
    if len(g.trick) < g.num_players:
        g.to_act = (seat + 1) % g.num_players
    else:
        _complete_trick(g)


def _complete_trick(g: Game) -> None:
    cards = [c for _, c in g.trick]
    winner = g.trick[trick_winner(cards)][0]
    g.tricks[winner] += 1
    g.played.update(cards)
    g.events.append(("trick", winner, tuple(cards)))
    g.trick = []
    g.leader = g.to_act = winner
    if g.tricks_done == g.hand_size:
        _score_round(g)


def _score_round(g: Game) -> None:
    """Score every player's bid, then: the game's end, a discard, or the next round."""
    deltas = [round_score(b, t, g.rules) for b, t in zip(g.bids, g.tricks)]
    for seat, d in enumerate(deltas):
        g.scores[seat] += d
    g.events.append(("round_end", g.round, g.hand_size, tuple(g.bids), tuple(g.tricks), tuple(deltas)))
    if g.rules.deal == "carry":
        g.seen_game |= g.played
    finished = g.round
    g.round += 1
    if g.round == g.rules.num_rounds:
        _end_game(g)
    elif discard_follows(g.rules, finished):
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
