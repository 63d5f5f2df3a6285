"""Sortskæg's rules for the batch engine, compiled with numba: one function per phase.

These are the transitions of :mod:`redbeard_env.sortskaeg.game` (the reference engine)
written for one game ``b`` of a batch held in integer arrays -- the only implementation of
the rules in the batch path. :mod:`~.vector_kernels` runs them over the games (its
drivers loop over ``b``) and :mod:`~.vector_observe` encodes what they leave.

State: one record per game (:data:`GAME`; the functions take a game's record ``g``),
per-seat fields padded to 6 seats:

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
voids               seat x colour shown void by not following
discards_left       discards still to come in a ``discard`` phase
winners             the seats tied on top once the game is over
halt, stop_round    halted (waits for a reset, actions ignored); halt once the round
                    is scored (a search's worlds)
deal_pending        the round waits for its deal (the drivers deal: :func:`deal_pending`)
deck_next, deck     next of the game's given decks; the last deal's deck
rng                 the state of the game's generator
hands, played_by,   card sets as 42-bit masks (bit = card id): each seat's hand, its
took_back,          plays this round, what it took back after the last round (carry),
discarded           its own discards
played, game_cards, the finished tricks' cards this round, the game's cards (carry),
seen_game           the cards played in earlier rounds (carry)
rewards, terminated this step's outputs: rewards, the game ended, its single winner,
winner, r_*         the record of a round scored in the step
==================  ===============================================================

The rules come in as ``P`` (a tuple of ints, ``P_*``) and ``r``, a :data:`RULES` record:
the hand size of each round, whether it starts with a deal, whether a discard follows it,
the round points by bid and tricks (from :func:`~.rules.round_score`, the one
implementation of the scoring) and the observation's constant part. Records, not arrays,
go down the call chains: numba counts references to arrays at every call (atomic
operations), not to records.

Randomness: every game has its own generator (splitmix64, its 64-bit state in ``g.rng``,
seeded by the engine's ``np.random.Generator``): a deal takes the game's next given deck,
else a Fisher-Yates permutation of the 42 cards (exact bounded integers from 53 random
bits, Lemire's rejection); a new game draws its first dealer the same way. No Python
object enters the compiled code.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from . import cards as _cards
from . import game as _game
from .observation import OBS_SIZE as _OBS_SIZE
from .observation import static_prefix
from .rules import MAX_HAND as _MAX_HAND
from .rules import MAX_PLAYERS as _MAX_PLAYERS
from .rules import MAX_ROUNDS as _MAX_ROUNDS
from .rules import Rules, deals_fresh, discard_follows, round_score

# ---------------------------------------------------------------- codes (literals, checked)
BID, PLAY, DISCARD, OVER = range(4)
NUM_CARDS, NUM_COLOURS, COLOUR_SIZE, YELLOW, NO_COLOUR, FIRST_JOKER = 42, 4, 10, 3, -1, 40
BID0, MAX_BID, MAX_HAND, NUM_ACTIONS = 42, 7, 7, 50
assert _game.PHASE_NAMES == ("bid", "play", "discard", "over")
assert (_cards.NUM_CARDS, _cards.NUM_COLOURS, _cards.NUM_VALUES, _cards.YELLOW, _cards.NO_COLOUR) == (
    NUM_CARDS, NUM_COLOURS, COLOUR_SIZE, YELLOW, NO_COLOUR)
assert _cards.JOKERS == (FIRST_JOKER, FIRST_JOKER + 1)
assert (_cards.BID0, _cards.MAX_BID, _MAX_HAND, _cards.NUM_ACTIONS) == (BID0, MAX_BID, MAX_HAND, NUM_ACTIONS)
JOKER_BITS = np.uint64(3 << FIRST_JOKER)
COLOUR_BITS = np.uint64((1 << COLOUR_SIZE) - 1)  # the cards of colour c: COLOUR_BITS << 10 * c

SEAT_PAD = _MAX_PLAYERS  # per-seat fields hold 6 seats; seats >= n stay unused
MAX_ROUNDS = _MAX_ROUNDS
# One record per game (the kernels take a game's record ``g``; VectorEnv's attributes are
# views of its fields, seats cut to n). numba's records have no nested bool arrays: u1.
GAME = np.dtype([
    ("phase", "i1"), ("first_dealer", "i1"), ("dealer", "i1"), ("to_act", "i1"), ("leader", "i1"),
    ("trick_len", "i1"), ("led", "i1"), ("discards_left", "i1"), ("halt", "?"), ("stop_round", "?"),
    ("deal_pending", "?"), ("round", "i2"), ("deck_next", "i4"), ("rng", "u8"),
    ("hands", "u8", (SEAT_PAD,)), ("played", "u8"), ("trick_card", "i1", (SEAT_PAD,)), ("bids", "i1", (SEAT_PAD,)),
    ("tricks", "i1", (SEAT_PAD,)), ("voids", "u1", (SEAT_PAD, NUM_COLOURS)), ("scores", "i8", (SEAT_PAD,)),
    ("played_by", "u8", (SEAT_PAD,)), ("took_back", "u8", (SEAT_PAD,)), ("discarded", "u8", (SEAT_PAD,)),
    ("game_cards", "u8"), ("seen_game", "u8"), ("winners", "u1", (SEAT_PAD,)),
    # per-step outputs: rewards and the records of a round scored and a game ended in the step
    ("rewards", "f4", (SEAT_PAD,)), ("terminated", "?"), ("r_over", "?"), ("r_size", "i1"), ("winner", "i1"),
    ("r_index", "i2"), ("r_bids", "i1", (SEAT_PAD,)), ("r_tricks", "i1", (SEAT_PAD,)), ("r_delta", "i8", (SEAT_PAD,)),
    ("deck", "i1", (NUM_CARDS,)),  # the deck of the last deal
], align=True)
# The rules' tables and the observation's constant part, one record (``r``): the hand size
# of each round, whether it starts with a deal, whether a discard follows it, the round
# points by bid and tricks (from rules.round_score), the num_players and rules blocks.
RULES = np.dtype([
    ("sizes", "i8", (MAX_ROUNDS + 1,)), ("fresh", "u1", (MAX_ROUNDS + 1,)), ("discard_after", "u1", (MAX_ROUNDS + 1,)),
    ("points", "i8", (MAX_BID + 1, MAX_HAND + 1)), ("prefix", "f4", (_OBS_SIZE,)),
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
P_N, P_ROUNDS, P_CARRY, P_HOOK, P_SCORE_REWARD, P_AUTO_RESET = range(6)


def rule_params(rules: Rules, num_players: int, reward: str, auto_reset: bool) -> tuple:
    """The ``Rules`` (and player count, reward mode, auto-reset) as the ints the kernels read."""
    return (int(num_players), rules.num_rounds, int(rules.deal == "carry"), int(rules.dealer_hook),
            int(reward == "score"), int(auto_reset))


def rule_tables(rules: Rules, num_players: int) -> np.ndarray:
    """The :data:`RULES` record of these rules (an array of one)."""
    R = rules.num_rounds
    t = np.zeros(1, RULES)
    t["sizes"][0, :R] = rules.hand_sizes
    t["fresh"][0, :R] = [deals_fresh(rules, k) for k in range(R)]
    t["discard_after"][0, :R] = [discard_follows(rules, k) for k in range(R)]
    t["points"][0] = [[round_score(b, k, rules) for k in range(MAX_HAND + 1)] for b in range(MAX_BID + 1)]
    t["prefix"][0] = static_prefix(rules, num_players)
    return t


def new_report(B: int, n: int) -> Report:
    e = np.empty
    return Report(e((B, n), np.float32), e(B, np.bool_), e((B, n), np.int64), e((B, n), np.bool_), e(B, np.int64),
                  e(B, np.int64), e(B, np.bool_), e(B, np.int64), e(B, np.int64), e((B, n), np.int64),
                  e((B, n), np.int64), e((B, n), np.int64), e((B, n), np.int64), e(B, np.int8), e(B, np.int64))


# internal functions: compiled into the drivers' code, never called from Python
rule = njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- bits, colours, randomness
@intrinsic
def _cttz(typingctx, x):
    """Index of the lowest set bit of a uint64 (x != 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir

        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@rule
def low_card(h):
    return np.int64(_cttz(np.uint64(h)))


@rule
def bit(c):
    return np.uint64(1) << np.uint64(c)


@rule
def colour_of(card):
    return NO_COLOUR if card >= FIRST_JOKER else card // COLOUR_SIZE


@rule
def colour_bits(colour):
    return COLOUR_BITS << np.uint64(COLOUR_SIZE * colour)


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
def shuffle(g, out):
    """A uniformly random order of the 42 cards into ``out`` (Fisher-Yates)."""
    for i in range(NUM_CARDS):
        out[i] = i
    for i in range(NUM_CARDS - 1, 0, -1):
        j = randbelow(g, i + 1)
        t = out[i]
        out[i] = out[j]
        out[j] = t


# ---------------------------------------------------------------- the trick
@rule
def trick_winner(g, n):
    """Seat holding the winning card of the (possibly unfinished) trick, -1 if empty: a led
    joker; else the highest yellow; else the highest card of the led colour."""
    if g.trick_len == 0:
        return -1
    leader = np.int64(g.leader)
    if g.trick_card[max(leader, 0)] >= FIRST_JOKER:
        return leader
    best_y, win_y, best_l, win_l = -1, 0, -1, 0
    led = g.led
    for s in range(n):
        c = np.int64(g.trick_card[s])
        if c < 0:
            continue
        col = colour_of(c)
        if col == YELLOW and c > best_y:
            best_y, win_y = c, s
        if col == led and c > best_l:
            best_l, win_l = c, s
    return win_y if best_y >= 0 else win_l


@rule
def trick_bits(g, n):
    h = np.uint64(0)
    for s in range(n):
        c = g.trick_card[s]
        if c >= 0:
            h |= bit(c)
    return h


# ---------------------------------------------------------------- deals and rounds
@rule
def next_deck(g, dq):
    """The game's next deck into ``g.deck``: its next given one (``dq``: the game's row of
    given decks), else a random one."""
    q = g.deck_next
    if q < dq.shape[0]:
        for i in range(NUM_CARDS):
            g.deck[i] = dq[q, i]
    else:
        shuffle(g, g.deck)
    g.deck_next = q + 1


@rule
def deal(g, r, P, dq):
    """The round's hands in blocks from the dealer's left: from the deck, or under ``carry``
    from the game's cards in the order the deck lists them (the first deal's top
    ``hand_sizes[0] * n`` cards are the game's cards)."""
    n = P[P_N]
    next_deck(g, dq)
    h = r.sizes[g.round]
    carry = P[P_CARRY] != 0
    if carry and g.round == 0:
        cards = np.uint64(0)
        for i in range(r.sizes[0] * n):
            cards |= bit(g.deck[i])
        g.game_cards = cards
    for s in range(n):
        g.hands[s] = 0
        g.took_back[s] = 0  # nothing taken back: a new deal
    k = 0
    for i in range(NUM_CARDS):
        if k == n * h:
            break
        c = g.deck[i]
        if carry and not (g.game_cards >> np.uint64(c)) & np.uint64(1):
            continue
        s = (g.dealer + 1 + k // h) % n
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
        for c in range(NUM_COLOURS):
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
    colour = colour_of(card)
    led = g.led
    if led != NO_COLOUR and colour != NO_COLOUR and colour != led:
        g.voids[seat, led] = 1  # a colour card off the led colour shows a void
    g.hands[seat] &= ~bit(card)
    g.played_by[seat] |= bit(card)
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
    winner = trick_winner(g, n)
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
    if done == r.sizes[g.round]:
        score_round(g, r, P)


@rule
def score_round(g, r, P):
    """Score every bid (and record the round), then: the game's end, a discard, or the
    next round."""
    n = P[P_N]
    rnd = np.int64(g.round)
    g.r_over = True
    g.r_index = rnd
    g.r_size = r.sizes[rnd]
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
    for s in range(SEAT_PAD):
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
        apply_bid(g, P, seat, action - BID0)
    elif ph == PLAY:
        apply_play(g, r, P, seat, action)
    elif ph == DISCARD:
        apply_discard(g, r, P, seat, action)
