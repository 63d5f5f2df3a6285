"""The rules of the family (Sortskæg, Oh Hell) for the batch engine, compiled with
numba: one function per phase.

These are the transitions of :mod:`~.game` (the reference engine)
written for one game of a batch held in integer arrays -- the only implementation of the
rules in the batch path. :mod:`~.vector_kernels` runs them over the games (its drivers
loop over the games) and :mod:`~.vector_observe` encodes what they leave. Like the
reference engine they read the game's :class:`~.family.Family`, here as numbers: the sizes
of the deck, the bids and the observation are run-time values (``P`` and ``r``, below), so
the same compiled code plays every game of the family (numba compiles it once per game's
record types).

State: one record per game (:func:`game_dtype`; the functions take a game's record ``g``),
per-seat fields padded to the game's most players:

==================  ===============================================================
field               content
==================  ===============================================================
phase               0 bid, 1 play, 2 discard, 3 over
round               index of the current round = rounds scored so far
first_dealer        the game's first dealer; the round's dealer is
dealer              ``(first_dealer + round) % n``
to_act, leader      acting seat (-1 when over), who leads the current trick
scores              running totals
bids, tricks        this round (bid -1: not yet)
trick_card          each seat's card in the current trick, -1 none
trick_len, led      cards in the trick, led colour (-1: none / a joker led)
trumps, trump_card  the round's trump colour (-1 none), the turned card (-1 none)
drawn               the round's hand size where the family draws it at the deal
voids               seat x colour shown void by not following
discards_left       discards still to come in a ``discard`` phase
winners             the seats tied on top once the game is over
halt, stop_round    halted (waits for a reset, actions ignored); halt once the round
                    is scored (a search's worlds)
deal_pending        the round waits for its deal (the drivers deal: :func:`deal_pending`)
deck_next, deck     next of the game's given decks; the last deal's deck row
rng                 the state of the game's generator
hands, played_by,   card sets as bit masks (bit = card id, at most 64 ids): each seat's
took_back,          hand, its plays this round, what it took back after the last round
discarded           (carry), its own discards
trick_no            per card played this round: the index of its trick
played, game_cards, the finished tricks' cards this round, the game's cards (carry),
seen_game           the cards played in earlier rounds (carry)
rewards, terminated this step's outputs: rewards, the game ended, its single winner,
winner, r_*         the record of a round scored in the step
==================  ===============================================================

The rules come in as ``P`` (a tuple of ints, ``P_*``: the player count and the family's
numbers) and ``r``, a record of :func:`rules_dtype`: the hand size of each round (0: drawn),
whether it starts with a deal, whether a discard follows it, the round points by bid and
tricks (from :meth:`~.family.Family.round_score`, the one implementation of the scoring),
the cards in play, the joker ids, and the observation's constant part, block offsets
(:data:`~.layout.BLOCK_KEYS`) and scales. Records, not arrays, go down the call chains:
numba counts references to arrays at every call (atomic operations), not to records.

Randomness: every game has its own generator (splitmix64, its 64-bit state in ``g.rng``,
seeded by the engine's ``np.random.Generator``): a deal takes the game's next given deck
row, else draws one: ``deck_parts`` Fisher-Yates permutations of the card ids (exact
bounded integers from 53 random bits, Lemire's rejection); a new game draws its first
dealer the same way. No Python object enters the compiled code.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import vector_base as _base
from ..jit_cache import cache_with
from ..vector_base import bit, has, low_card  # noqa: F401  (the phases import them from here)
from . import game as _game
from .family import NO_COLOUR
from .layout import BLOCK_KEYS, Layout

# ---------------------------------------------------------------- codes (literals, checked)
BID, PLAY, DISCARD, OVER = range(4)
assert _game.PHASE_NAMES == ("bid", "play", "discard", "over")
TRUMP_FIXED, TRUMP_TURNED, TRUMP_NONE = range(3)
# the observation blocks, as indices into r.off (-1: the game's layout has no such block)
(K_PHASE, K_NUM_PLAYERS, K_RULES, K_PROGRESS, K_HAND_SIZE, K_HAND, K_PLAYED, K_TRICK, K_LED, K_JOKERS_SEEN,
 K_TRUMP_CARD, K_TRUMPS, K_SEEN_GAME, K_DISCARDED, K_TOOK_BACK, K_SCORE, K_GAP, K_BID, K_TRICKS, K_NEED, K_DEALER,
 K_ACTING, K_LEADER, K_TRICK_PLAYED, K_TRICK_WINNING, K_VOIDS, K_PLAYED_BY, K_TRICK_OF) = range(len(BLOCK_KEYS))
assert BLOCK_KEYS[K_VOIDS] == "voids" and BLOCK_KEYS[K_GAP] == "score_gap" and BLOCK_KEYS[K_TRICK_OF] == "trick_of"
MAX_IDS = 64  # card sets are 64-bit masks


def game_dtype(seats: int, colours: int, deck_len: int, cards: int) -> np.dtype:
    """One game's record: ``seats`` per-seat entries, ``colours`` voids per seat, a deck row of
    ``deck_len`` ids, ``cards`` card ids. (VectorEnv's attributes are views of its fields, seats
    cut to n; numba's records have no nested bool arrays: u1.)"""
    return np.dtype([
        ("phase", "i1"), ("first_dealer", "i1"), ("dealer", "i1"), ("to_act", "i1"), ("leader", "i1"),
        ("trick_len", "i1"), ("led", "i1"), ("discards_left", "i1"), ("trumps", "i1"), ("trump_card", "i1"),
        ("drawn", "i1"), ("halt", "?"), ("stop_round", "?"), ("deal_pending", "?"), ("round", "i2"),
        ("deck_next", "i4"), ("rng", "u8"),
        ("hands", "u8", (seats,)), ("played", "u8"), ("trick_card", "i1", (seats,)), ("bids", "i1", (seats,)),
        ("tricks", "i1", (seats,)), ("voids", "u1", (seats, colours)), ("scores", "i8", (seats,)),
        ("played_by", "u8", (seats,)), ("took_back", "u8", (seats,)), ("discarded", "u8", (seats,)),
        ("game_cards", "u8"), ("seen_game", "u8"), ("winners", "u1", (seats,)),
        # per-step outputs: rewards and the records of a round scored and a game ended in the step
        ("rewards", "f4", (seats,)), ("terminated", "?"), ("r_over", "?"), ("r_size", "i1"), ("winner", "i1"),
        ("r_index", "i2"), ("r_bids", "i1", (seats,)), ("r_tricks", "i1", (seats,)), ("r_delta", "i8", (seats,)),
        ("deck", "i1", (deck_len,)),  # the deck row of the last deal
        ("trick_no", "i1", (cards,)),  # per card played this round: the trick it was played to
    ], align=True)


def rules_dtype(max_rounds: int, max_bid: int, max_hand: int, obs_size: int) -> np.dtype:
    """The rules' tables and the observation's constant part, one record (``r``): the hand
    size of each round (0: drawn), whether it starts with a deal, whether a discard follows
    it, the round points by bid and tricks, the cards in play and the jokers (bit masks),
    the num_players and rules blocks, the blocks' offsets and the scales (round, score, gap,
    low, high)."""
    return np.dtype([
        ("sizes", "i8", (max_rounds + 1,)), ("fresh", "u1", (max_rounds + 1,)),
        ("discard_after", "u1", (max_rounds + 1,)), ("points", "i8", (max_bid + 1, max_hand + 1)),
        ("in_play", "u8"), ("jokers", "u8"), ("prefix", "f4", (obs_size,)), ("off", "i8", (len(BLOCK_KEYS),)),
        ("scale", "f8", (5,)),
    ], align=True)


# what a step reports per game (filled by the drivers; shapes and dtypes in new_report). The
# drivers take it as a plain tuple, indexed by R_*: numba's cache then names no class of ours
# (an index that names a class which later goes away fails to load).
Report = namedtuple("Report", [
    "rewards", "terminated", "score", "winners", "winner", "rounds", "round_over", "round_index",
    "round_hand_size", "round_bids", "round_tricks", "round_delta", "round_score", "phase", "seat",
])
(R_REWARDS, R_TERMINATED, R_SCORE, R_WINNERS, R_WINNER, R_ROUNDS, R_ROUND_OVER, R_ROUND_INDEX, R_ROUND_HAND_SIZE,
 R_ROUND_BIDS, R_ROUND_TRICKS, R_ROUND_DELTA, R_ROUND_SCORE, R_PHASE, R_SEAT) = range(15)
assert Report._fields.index("round_score") == R_ROUND_SCORE and Report._fields.index("seat") == R_SEAT

# ---------------------------------------------------------------- the rules as numbers
(P_N, P_ROUNDS, P_CARRY, P_HOOK, P_SCORE_REWARD, P_AUTO_RESET, P_COLOUR_SIZE, P_FIRST_JOKER, P_IDS, P_TRUMP_MODE,
 P_TRUMP_COLOUR, P_ONE_BY_ONE, P_DECK_PARTS, P_MAX_DRAWN, P_MAX_BID, P_MAX_HAND, P_COLOURS) = range(17)


def rule_params(rules, layout: Layout, num_players: int, reward: str, auto_reset: bool) -> tuple:
    """The rules' family (and the player count, reward mode, auto-reset, the layout's
    sizes) as the ints the kernels read."""
    fam = rules.family
    assert fam.num_ids <= MAX_IDS and fam.num_ids == layout.cards and len(fam.colours) == layout.colours
    return (int(num_players), fam.num_rounds, int(fam.deal == "carry"), int(fam.dealer_hook),
            int(reward == "score"), int(auto_reset), fam.colour_size, fam.first_joker, fam.num_ids,
            ("fixed", "turned", "none").index(fam.trumps), fam.trump_colour, int(fam.deal_order == "one_by_one"),
            fam.deck_parts, fam.max_drawn(num_players), layout.max_bid, layout.max_hand, len(fam.colours))


def rule_tables(rules, layout: Layout, num_players: int, dtype: np.dtype) -> np.ndarray:
    """The rules record (:func:`rules_dtype` ``dtype``) of these rules (an array of one)."""
    fam = rules.family
    R = fam.num_rounds
    t = np.zeros(1, dtype)
    t["sizes"][0, :R] = fam.hand_sizes
    t["fresh"][0, :R] = [fam.deals_fresh(k) for k in range(R)]
    t["discard_after"][0, :R] = [fam.discard_follows(k) for k in range(R)]
    t["points"][0] = [[fam.round_score(b, k) for k in range(layout.max_hand + 1)] for b in range(layout.max_bid + 1)]
    t["in_play"][0] = sum(1 << c for c in fam.in_play)
    t["jokers"][0] = sum(1 << c for c in range(fam.first_joker, fam.num_ids))
    t["prefix"][0] = layout.static_prefix(rules, num_players)
    t["off"][0] = layout.offsets
    t["scale"][0] = (layout.round_scale, layout.score_scale, layout.gap_scale, layout.low, layout.high)
    return t


def new_report(B: int, n: int) -> Report:
    e = np.empty
    return Report(e((B, n), np.float32), e(B, np.bool_), e((B, n), np.int64), e((B, n), np.bool_), e(B, np.int64),
                  e(B, np.int64), e(B, np.bool_), e(B, np.int64), e(B, np.int64), e((B, n), np.int64),
                  e((B, n), np.int64), e((B, n), np.int64), e((B, n), np.int64), e(B, np.int8), e(B, np.int64))


# internal functions: compiled into the drivers' code, never called from Python
rule = njit(cache=cache_with(__file__, _base), nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- bits, colours, randomness
@rule
def colour_of(card, P):
    return NO_COLOUR if card >= P[P_FIRST_JOKER] else card // P[P_COLOUR_SIZE]


@rule
def colour_bits(colour, P):
    """The cards of colour ``colour``."""
    size = np.uint64(P[P_COLOUR_SIZE])
    return ((np.uint64(1) << size) - np.uint64(1)) << (size * np.uint64(colour))


@rule
def count_bits(h):
    k = 0
    while h:
        h &= h - np.uint64(1)
        k += 1
    return k


@rule
def next_random(g):
    """The next 64 random bits of the game's own generator (splitmix64 over ``g.rng``)."""
    x = g.rng + np.uint64(0x9E3779B97F4A7C15)
    g.rng = x
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@rule
def randbelow(g, s):
    """An exactly uniform int in 0..s-1 (s <= 2**10) from 53 random bits (Lemire's method)."""
    two53 = np.int64(1) << 53
    threshold = (two53 - s) % s
    while True:
        m = np.int64(next_random(g) >> np.uint64(11)) * s
        if (m & (two53 - 1)) >= threshold:
            return m >> 53


@rule
def shuffle(g, out, start, count):
    """A uniformly random order of the ids 0..count-1 into ``out[start:start + count]``
    (Fisher-Yates)."""
    for i in range(count):
        out[start + i] = i
    for i in range(count - 1, 0, -1):
        j = randbelow(g, i + 1)
        t = out[start + i]
        out[start + i] = out[start + j]
        out[start + j] = t


# ---------------------------------------------------------------- the trick
@rule
def trick_winner(g, P):
    """Seat holding the winning card of the (possibly unfinished) trick, -1 if empty: a led
    joker; else the highest trump; else the highest card of the led colour."""
    if g.trick_len == 0:
        return -1
    n = P[P_N]
    leader = np.int64(g.leader)
    if g.trick_card[max(leader, 0)] >= P[P_FIRST_JOKER]:
        return leader
    best_t, win_t, best_l, win_l = -1, 0, -1, 0
    led, trumps = g.led, g.trumps
    for s in range(n):
        c = np.int64(g.trick_card[s])
        if c < 0:
            continue
        col = colour_of(c, P)
        if trumps != NO_COLOUR and col == trumps and c > best_t:
            best_t, win_t = c, s
        if col == led and c > best_l:
            best_l, win_l = c, s
    return win_t if best_t >= 0 else win_l


@rule
def trick_bits(g, n):
    h = np.uint64(0)
    for s in range(n):
        c = g.trick_card[s]
        if c >= 0:
            h |= bit(c)
    return h


@rule
def hand_size(g, r, P):
    """Cards per player in the current round (during a discard: the next round's)."""
    h = r.sizes[min(np.int64(g.round), P[P_ROUNDS] - 1)]
    return h if h > 0 else np.int64(g.drawn)


# ---------------------------------------------------------------- deals and rounds
@rule
def next_deck(g, P, dq):
    """The game's next deck row into ``g.deck``: its next given one (``dq``: the game's row
    of given decks), else a random one (``deck_parts`` permutations of the ids)."""
    q = g.deck_next
    if q < dq.shape[0]:
        for i in range(dq.shape[1]):
            g.deck[i] = dq[q, i]
    else:
        ids = P[P_IDS]
        for part in range(P[P_DECK_PARTS]):
            shuffle(g, g.deck, part * ids, ids)
    g.deck_next = q + 1


@rule
def draw_size(g, P):
    """A drawn hand size from the deck row's second part (family.drawn_size)."""
    ids, largest = P[P_IDS], P[P_MAX_DRAWN]
    bound = largest * (ids // largest)
    for i in range(ids):
        x = np.int64(g.deck[ids + i])
        if x < bound:
            return 1 + x % largest
    return 1


@rule
def deal(g, r, P, dq):
    """The round's hands from the deck's cards in play (under ``carry`` after the first deal
    only the game's cards), in the family's order -- in blocks from the dealer's left or one
    card at a time from seat 0 --, then the turned card where trumps are turned."""
    n = P[P_N]
    next_deck(g, P, dq)
    if r.sizes[g.round] == 0:
        g.drawn = draw_size(g, P)
    h = hand_size(g, r, P)
    carry = P[P_CARRY] != 0
    if carry and g.round == 0:
        cards = np.uint64(0)
        k = 0
        for i in range(P[P_IDS]):
            if k == h * n:
                break
            if has(r.in_play, g.deck[i]):
                cards |= bit(g.deck[i])
                k += 1
        g.game_cards = cards
    for s in range(n):
        g.hands[s] = 0
        g.took_back[s] = 0  # nothing taken back: a new deal
    k = 0
    for i in range(P[P_IDS]):
        c = g.deck[i]
        if not has(r.in_play, c) or (carry and not has(g.game_cards, c)):
            continue
        if k == n * h:
            if P[P_TRUMP_MODE] == TRUMP_TURNED:  # the next card is turned: trumps
                g.trump_card = c
                g.trumps = colour_of(c, P)
            break
        s = k % n if P[P_ONE_BY_ONE] else (g.dealer + 1 + k // h) % n
        g.hands[s] |= bit(c)
        k += 1


@rule
def start_round(g, r, P):
    """Clear the round, the dealer's left bids; where the round starts with a deal, the
    driver deals (:func:`deal_pending`: only the drivers hold the decks and the generator)."""
    n = P[P_N]
    g.dealer = (g.first_dealer + g.round) % n
    g.deal_pending = r.fresh[g.round] != 0
    for s in range(n):
        g.bids[s] = -1
        g.tricks[s] = 0
        g.trick_card[s] = -1
        g.played_by[s] = 0
        for c in range(P[P_COLOURS]):
            g.voids[s, c] = 0
    g.trick_len = 0
    g.led = NO_COLOUR
    g.played = 0
    g.phase = BID
    g.leader = -1
    g.to_act = (g.dealer + 1) % n


@rule
def deal_pending(g, r, P, dq):
    """The deal a round waits for (``dq``: the game's row of given decks)."""
    if g.deal_pending:
        deal(g, r, P, dq)
        g.deal_pending = False


@rule
def new_game(g, r, P, dealer, scores, use_scores):
    """A new game in this slot: first dealer ``dealer``, ``scores`` (a row) when
    ``use_scores`` else 0, then its first round (waiting for its deal)."""
    n = P[P_N]
    g.first_dealer = dealer
    for s in range(n):
        g.scores[s] = scores[s] if use_scores else 0
        g.winners[s] = 0
        g.took_back[s] = 0
        g.discarded[s] = 0
        g.hands[s] = 0
    g.game_cards = 0
    g.seen_game = 0
    g.round = 0
    g.drawn = 0
    g.trump_card = -1
    g.trumps = P[P_TRUMP_COLOUR] if P[P_TRUMP_MODE] == TRUMP_FIXED else NO_COLOUR
    g.halt = False
    start_round(g, r, P)


# ---------------------------------------------------------------- phases
@rule
def apply_bid(g, P, seat, bid):
    g.bids[seat] = bid
    g.to_act = (seat + 1) % P[P_N]
    if seat == g.dealer:  # the dealer bids last; the dealer's left leads the first trick
        g.phase = PLAY
        g.leader = g.to_act


@rule
def apply_play(g, r, P, seat, card):
    n = P[P_N]
    colour = colour_of(card, P)
    led = g.led
    if led != NO_COLOUR and colour != NO_COLOUR and colour != led:
        g.voids[seat, led] = 1  # a colour card off the led colour shows a void
    g.hands[seat] &= ~bit(card)
    g.played_by[seat] |= bit(card)
    done = 0
    for s in range(n):
        done += g.tricks[s]
    g.trick_no[card] = done
    g.trick_card[seat] = card
    if g.trick_len == 0:
        g.led = colour  # -1 after a led joker: no led colour
    g.trick_len += 1
    g.to_act = (seat + 1) % n
    if g.trick_len == n:
        complete_trick(g, r, P)


@rule
def complete_trick(g, r, P):
    n = P[P_N]
    winner = trick_winner(g, P)
    g.tricks[winner] += 1
    g.played |= trick_bits(g, n)
    done = 0
    for s in range(n):
        g.trick_card[s] = -1
        done += g.tricks[s]
    g.trick_len = 0
    g.led = NO_COLOUR
    g.leader = winner
    g.to_act = winner
    if done == hand_size(g, r, P):
        score_round(g, r, P)


@rule
def score_round(g, r, P):
    """Score every bid (and record the round), then: the game's end, a discard, or the
    next round."""
    n = P[P_N]
    rnd = np.int64(g.round)
    g.r_over = True
    g.r_index = rnd
    g.r_size = hand_size(g, r, P)
    for s in range(n):
        delta = r.points[g.bids[s], g.tricks[s]]
        g.scores[s] += delta
        if P[P_SCORE_REWARD]:
            g.rewards[s] += delta
        g.r_bids[s] = g.bids[s]
        g.r_tricks[s] = g.tricks[s]
        g.r_delta[s] = delta
    if P[P_CARRY]:
        g.seen_game |= g.played
    g.round = rnd + 1
    if rnd + 1 == P[P_ROUNDS]:
        end_game(g, P)
    elif r.discard_after[rnd]:
        start_discard(g, P)
    else:
        start_round(g, r, P)


@rule
def start_discard(g, P):
    """Everyone takes back the cards they played; from the dealer's left each discards one."""
    n = P[P_N]
    for s in range(n):
        g.hands[s] = g.played_by[s]
        g.took_back[s] = g.played_by[s]
    g.phase = DISCARD
    g.discards_left = n
    g.to_act = (g.dealer + 1) % n


@rule
def apply_discard(g, r, P, seat, card):
    g.hands[seat] &= ~bit(card)
    g.discarded[seat] |= bit(card)
    g.discards_left -= 1
    g.to_act = (seat + 1) % P[P_N]
    if g.discards_left == 0:
        start_round(g, r, P)


@rule
def end_game(g, P):
    """The highest total wins, ties share: +1/k to each of k winners, -1/(n-k) to the
    others (all 0 if everyone ties) under ``reward="win"``."""
    n = P[P_N]
    best = g.scores[0]
    for s in range(1, n):
        best = max(best, g.scores[s])
    k = 0
    single = -1
    for s in range(n):
        win = g.scores[s] == best
        g.winners[s] = win
        k += win
        if win:
            single = s
    if not P[P_SCORE_REWARD] and k < n:
        for s in range(n):
            g.rewards[s] += np.float32(1.0 / k if g.winners[s] else -1.0 / (n - k))
    g.winner = single if k == 1 else -1
    g.terminated = True
    g.phase = OVER
    g.to_act = -1


@rule
def clear_outputs(g):
    for s in range(g.rewards.shape[0]):
        g.rewards[s] = 0.0
    g.terminated = False
    g.r_over = False
    g.winner = -1


@rule
def apply_action(g, r, P, action):
    """The acting seat's (checked) action, and everything automatic after it."""
    seat = np.int64(g.to_act)
    ph = g.phase
    if ph == BID:
        apply_bid(g, P, seat, action - P[P_IDS])
    elif ph == PLAY:
        apply_play(g, r, P, seat, action)
    elif ph == DISCARD:
        apply_discard(g, r, P, seat, action)
