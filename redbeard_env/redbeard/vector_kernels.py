"""The batch engine's rules, observation encoder and legal-action mask, compiled with numba.

:class:`redbeard_env.redbeard.vector.VectorEnv` keeps the state of B games in arrays (one
:class:`State` tuple of them) and calls the drivers at the bottom of this module, which
loop over the games: :func:`step_games` applies one action per game, resolves everything
automatic that follows (trick ends, the join question's automatic answers, round scoring,
the next deal, duels, eliminations, the game's end and, with auto-reset, a new game), and
writes that game's next observation and mask while its state is still in cache. Each phase
has one function, written for one game like the reference engine (:mod:`redbeard_env.redbeard.game`)
and agreeing with it step for step (``tests/test_vector_parity.py``). This is the only
implementation of the rules in the batch path.

Why one file: numba's on-disk cache (``cache=True``) notices a change only in the file of
the function it compiled, so every compiled function and every constant they read lives
here. Codes shared with the rest of the package (phases, join states, rows of the per-seat
array, action ids) are literals here, checked against their sources at import; the
observation layout and the rules come in as arrays (``layout``, ``params``) at run time.

Randomness: the engine's ``np.random.Generator`` is passed in; a deal draws two
permutations (the deck, and the order in which thrown-in cards are reshuffled) by
Fisher-Yates with exact bounded integers from ``Generator.random()`` (53 random bits, Lemire's
rejection), and a new game its first dealer. Games draw in index order, so a seed fixes
the whole run.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from . import cards as _cards
from . import game as _game
from .observation import OFF as _OFF
from .observation import SCORE_BINS as _SCORE_BINS
from .rules import HAND_SIZE as _HAND_SIZE
from .rules import MAX_TIED_DUELS as _MAX_TIED_DUELS
from .rules import PENALTY as _PENALTY
from .rules import TRICKS_PER_ROUND as _TRICKS_PER_ROUND
from .rules import Rules

# ---------------------------------------------------------------- codes (literals, checked)
REDEAL_PH, LOOK_PH, BID_PH, ASK_PH, JOIN_PH, PLAY_PH, DUEL_PH, DONE_PH = range(8)
# games waiting, within a step, for a deal (the drivers deal: only they hold the generator)
START_ROUND, START_DUEL = 8, 9
JOIN_PENDING, JOIN_ASKED, JOIN_SKIPPED = range(3)
NO_CALL, PASSED = -2, -1
assert _game.PHASE_NAMES == ("redeal", "look", "bid", "ask", "join", "play", "duel", "done")
assert _game.JOIN_STATES == ("pending", "asked", "skipped")
assert (_game.NO_CALL, _game.PASSED) == (NO_CALL, PASSED)
PASS, BID0, REDBEARD, JOIN, FOLD, ASK, SKIP, KEEP, REDEAL, LOOK, NO_LOOK = 52, 53, 60, 61, 62, 63, 64, 65, 66, 67, 68
NUM_ACTIONS, REDBEARD_LEVEL = 69, 7
assert (_cards.PASS, _cards.BID0, _cards.REDBEARD, _cards.JOIN, _cards.FOLD, _cards.ASK, _cards.SKIP) == (
    PASS, BID0, REDBEARD, JOIN, FOLD, ASK, SKIP)
assert (_cards.KEEP, _cards.REDEAL, _cards.LOOK, _cards.NO_LOOK, _cards.NUM_ACTIONS) == (KEEP, REDEAL, LOOK, NO_LOOK, NUM_ACTIONS)
assert _cards.REDBEARD_LEVEL == REDBEARD_LEVEL and _cards.NUM_CARDS == 52 and _cards.NUM_RANKS == 13
HAND, TRICKS_PER_ROUND, PENALTY, MAX_TIED_DUELS = 6, 6, 5, 10
assert (_HAND_SIZE, _TRICKS_PER_ROUND, _PENALTY, _MAX_TIED_DUELS) == (HAND, TRICKS_PER_ROUND, PENALTY, MAX_TIED_DUELS)
FACE_BITS = np.uint64(sum(1 << c for c in range(52) if c % 13 >= 9))  # J Q K A
assert all((int(FACE_BITS) >> c & 1) == _cards.is_face(c) for c in range(52))
SUIT_MASK = np.uint64((1 << 13) - 1)  # the cards of suit s: SUIT_MASK << 13 * s

# rows of the per-seat array (int8 [B, SEAT_COLS, SEAT_PAD]): five flags, then values
C_ACTIVE, C_IN_ROUND, C_TRICK_PLAYED, C_JOINER, C_BOUNCED, C_TRICKS, C_THROWS, C_CALL, C_TRICK_CARD = range(9)
SEAT_COLS, SEAT_PAD = 9, 8
# columns of the current trick (int8 [B, 5])
T_LEN, T_LED, T_BEST, T_WIN, T_FIRST = range(5)

# ---------------------------------------------------------------- the rules as numbers
P_N, P_REDEAL, P_MIN_BID, P_MAX_BID, P_SINGLE, P_DEALER_MUST, P_BOS, P_LEADER_TW, P_EXACT = range(9)
P_JOIN_AT, P_TRICKLESS, P_ONE_POINT, P_JTV, P_JFP, P_ZTP, P_ASK_OPT, P_FORGET, P_RB_WIN = range(9, 18)
P_RB_ELIM, P_ZERO, P_HAS_ELIM, P_ELIM_AT, P_MAX_ROUNDS, P_START, P_AUTO_RESET = range(18, 25)
NUM_PARAMS = 25
REDEAL_OFF, REDEAL_NO_FACE, REDEAL_ANY, REDEAL_CHALLENGE = range(4)
BOS_ALLOW, BOS_PENALTY, BOS_FORBID = range(3)
ZERO_EXACT_END, ZERO_IMMEDIATE, ZERO_BOUNCE = range(3)


def rule_params(rules: Rules, num_players: int, auto_reset: bool) -> tuple:
    """The ``Rules`` (and player count, auto-reset) as the tuple of ints the kernels read."""
    r = rules
    p = np.zeros(NUM_PARAMS, np.int64)
    p[P_N] = num_players
    p[P_REDEAL] = ("off", "no_face_card", "any", "challenge").index(r.redeal)
    p[P_MIN_BID], p[P_MAX_BID] = r.min_bid, r.max_bid
    p[P_SINGLE] = r.auction == "single"
    p[P_DEALER_MUST] = r.all_pass == "dealer_must_bid"
    p[P_BOS] = ("allow", "penalty", "forbid").index(r.bid_over_score)
    p[P_LEADER_TW] = r.leader == "trick_winner"
    p[P_EXACT] = r.contract == "exact"
    p[P_JOIN_AT] = r.join_at
    p[P_TRICKLESS] = r.may_fold == "trickless"
    p[P_ONE_POINT] = r.one_point_must_join
    p[P_JTV], p[P_JFP], p[P_ZTP] = r.joiner_trick_value, r.joiner_fail_penalty, r.zero_trick_penalty
    p[P_ASK_OPT], p[P_FORGET] = r.ask_optional, r.forget_penalty
    p[P_RB_WIN] = r.redbeard_success == "win"
    p[P_RB_ELIM] = r.redbeard_fail == "eliminate"
    p[P_ZERO] = ("exact_end", "immediate", "bounce").index(r.zero_rule)
    p[P_HAS_ELIM] = r.eliminate_at is not None
    p[P_ELIM_AT] = r.eliminate_at if r.eliminate_at is not None else 0
    p[P_MAX_ROUNDS], p[P_START] = r.max_rounds, r.start_score
    p[P_AUTO_RESET] = auto_reset
    return tuple(int(x) for x in p)  # a tuple: passed by value, no reference counting per call


# ---------------------------------------------------------------- the observation layout
L_PHASE, L_NUM_PLAYERS, L_PROGRESS, L_HAND, L_PLAYED, L_TRICK, L_SEEN, L_TRICKS_DONE, L_HIGH_BID = range(9)
L_JOIN_STATE, L_DEAL_FLAGS, L_ME_FORCED, L_SCORE, L_SCORE_BIN, L_ACTIVE, L_IN_ROUND, L_DEALER = range(9, 17)
L_DECLARER, L_ACTING, L_LEADER, L_TRICK_PLAYED, L_TRICK_WINNING, L_THROWER, L_TRICKS, L_JOINER = range(17, 25)
L_BOUNCED, L_THROWS, L_VOIDS, L_CALL, L_SCORE_BINS = range(25, 30)
_LAYOUT_BLOCKS = ("phase", "num_players", "progress", "hand", "played", "trick", "seen_thrown", "tricks_done",
                  "high_bid", "join_state", "deal_flags", "me_forced", "score", "score_bin", "active", "in_round",
                  "dealer", "declarer", "acting", "leader", "trick_played", "trick_winning", "thrower", "tricks",
                  "joiner", "bounced", "throws", "voids", "call")


def obs_layout() -> tuple:
    """Block offsets of :mod:`redbeard_env.redbeard.observation` as the tuple of ints the encoder reads."""
    return tuple(int(_OFF[k]) for k in _LAYOUT_BLOCKS) + (int(_SCORE_BINS),)


# ---------------------------------------------------------------- the state
# One record per game (the kernels take a game's record ``g``; VectorEnv's attributes are
# views of its fields). Per-seat fields are padded to SEAT_PAD seats.
GAME = np.dtype([
    # read or written at every step (the first cache lines)
    ("phase", "i1"), ("to_act", "i1"), ("dealer", "i1"), ("declarer", "i1"), ("leader", "i1"),
    ("high_level", "i1"), ("thrower", "i1"), ("tricks_done", "i1"), ("join_state", "i1"),
    ("redeals_open", "?"), ("reshuffled", "?"), ("in_duel", "?"), ("winner", "i1"), ("terminated", "?"),
    ("truncated", "?"), ("stop_round", "?"), ("stock_pos", "i1"), ("stock_len", "i1"), ("trick", "i1", (5,)),
    ("r_over", "?"), ("r_declarer", "i1"), ("r_bid", "i1"), ("r_made", "?"),
    ("tied_duels", "i2"), ("rounds_played", "i4"), ("void_bits", "u4"),
    ("played", "u8"), ("trick_cards", "u8"), ("hands", "u8", (SEAT_PAD,)), ("scores", "i4", (SEAT_PAD,)),
    ("per_seat", "i1", (SEAT_COLS, SEAT_PAD)),
    # per-step outputs: rewards, eliminations (the round's record: r_* above and below)
    ("rewards", "f4", (SEAT_PAD,)), ("eliminated", "u1", (SEAT_PAD,)), ("seen", "u8", (SEAT_PAD,)),
    # read when dealing, redealing or scoring a round
    ("thrown", "u8"), ("thrown_hand", "u8"), ("dq_pos", "i4"), ("dq_len", "i4"),
    ("r_tricks", "i1", (SEAT_PAD,)), ("r_joiner", "u1", (SEAT_PAD,)),
    ("r_folded", "u1", (SEAT_PAD,)),  # (numba's records have no nested bool arrays)
    ("deck", "i1", (52,)), ("rank", "i1", (52,)),
], align=True)
# what step_games reports per game besides the state (as of the step's end, before a reset)
# (contiguous arrays the caller keeps; shapes and dtypes in new_report)
Report = namedtuple("Report", [
    "score", "winner", "terminated", "truncated", "rounds", "phase", "seat", "rewards", "eliminated",
    "round_over", "round_declarer", "round_bid", "round_made", "round_tricks", "round_joiner", "round_folded",
])


def new_report(B: int, n: int) -> Report:
    e = np.empty
    return Report(e((B, n), np.int32), e(B, np.int8), e(B, np.bool_), e(B, np.bool_), e(B, np.int32), e(B, np.int8),
                  e(B, np.int64), e((B, n), np.float32), e((B, n), np.bool_), e(B, np.bool_), e(B, np.int8),
                  e(B, np.int8), e(B, np.bool_), e((B, n), np.int8), e((B, n), np.bool_), e((B, n), np.bool_))


# internal functions: compiled once into the drivers' code, never called from Python
rule = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- bits and randomness
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
def randbelow(rng, s):
    """An exactly uniform int in 0..s-1 from 53-bit uniforms (Lemire's method)."""
    two53 = np.int64(1) << 53
    threshold = (two53 - s) % s
    while True:
        m = np.int64(rng.random() * 9007199254740992.0) * s
        if (m & (two53 - 1)) >= threshold:
            return m >> 53


@rule
def shuffle52(rng, out):
    for i in range(52):
        out[i] = i
    for i in range(51, 0, -1):
        j = randbelow(rng, i + 1)
        t = out[i]
        out[i] = out[j]
        out[j] = t


# ---------------------------------------------------------------- seats
@rule
def flag(g, row, s):
    return g.per_seat[row, s] != 0


@rule
def flag_bits(g, row, n):
    f = 0
    for s in range(n):
        if g.per_seat[row, s] != 0:
            f |= 1 << s
    return f


@rule
def offset(base, seat, n):
    """Offset of ``seat`` clockwise from ``base`` in 1..n (``base`` itself is n)."""
    d = (seat - base) % n
    return n if d == 0 else d


@rule
def next_seat(flags, base, start, n):
    """First seat clockwise from ``base``'s left (``base`` itself last) with its bit set in
    ``flags``, searching offsets start..n; -1 if none."""
    for d in range(start, n + 1):
        s = (base + d) % n
        if (flags >> s) & 1:
            return s
    return -1


# ---------------------------------------------------------------- dealing
@rule
def clear_trick(g):
    g.trick_cards = 0
    g.trick[T_LEN] = 0
    for k in range(1, 5):
        g.trick[k] = -1
    for s in range(SEAT_PAD):
        g.per_seat[C_TRICK_PLAYED, s] = 0
        g.per_seat[C_TRICK_CARD, s] = -1


@rule
def deal(g, P, dq, rng, flags):
    """A fresh deck (the next queued one, else drawn): 6 cards to each flagged seat from
    the dealer's left; the rest is the stock."""
    n = P[P_N]
    q = g.dq_pos
    if q < g.dq_len:
        g.deck[:] = dq[q, 0]
        g.rank[:] = dq[q, 1]
        g.dq_pos = q + 1
    else:
        shuffle52(rng, g.deck)
        shuffle52(rng, g.rank)
    k = 0
    dealer = g.dealer
    for s in range(n):
        g.hands[s] = 0
    for d in range(1, n + 1):
        s = (dealer + d) % n
        if (flags >> s) & 1:
            h = np.uint64(0)
            for i in range(HAND):
                h |= bit(g.deck[HAND * k + i])
            g.hands[s] = h
            k += 1
    g.stock_pos = HAND * k
    g.stock_len = 52 - HAND * k
    g.thrown = 0
    clear_trick(g)
    g.played = 0
    for s in range(SEAT_PAD):
        g.per_seat[C_TRICKS, s] = 0
    g.tricks_done = 0
    g.void_bits = 0


@rule
def reshuffle(g):
    """The thrown-in hands, ordered by the deal's reshuffle rank, go under the stock."""
    pos, ln = g.stock_pos, g.stock_len
    fresh = np.empty(52, np.int8)
    for i in range(ln):
        fresh[i] = g.deck[pos + i]
    by_rank = np.full(52, -1, np.int8)
    th = g.thrown
    for c in range(52):
        if (th >> np.uint64(c)) & np.uint64(1):
            by_rank[g.rank[c]] = c
    k = ln
    for r in range(52):
        if by_rank[r] >= 0:
            fresh[k] = by_rank[r]
            k += 1
    for i in range(k):
        g.deck[i] = fresh[i]
    g.stock_pos = 0
    g.stock_len = k
    g.thrown = 0
    g.redeals_open = False
    g.reshuffled = True


@rule
def draw_hand(g, seat):
    if g.stock_len < HAND:
        reshuffle(g)
    pos = g.stock_pos
    h = np.uint64(0)
    for i in range(HAND):
        h |= bit(g.deck[pos + i])
    g.hands[seat] = h
    g.stock_pos = pos + HAND
    g.stock_len -= HAND


# ---------------------------------------------------------------- game and round start
@rule
def new_game(g, P, dealer, scores, use_scores):
    """A new game in this slot, dealt by the driver: first dealer ``dealer``; ``scores``
    (a row) when ``use_scores``, else everyone on start_score."""
    n = P[P_N]
    g.dealer = dealer
    for s in range(n):
        g.scores[s] = scores[s] if use_scores else P[P_START]
        g.per_seat[C_ACTIVE, s] = 1
    g.rounds_played = 0
    g.tied_duels = 0
    g.winner = -1
    g.terminated = False
    g.truncated = False
    g.leader = -1
    g.phase = START_ROUND
    g.to_act = -1


@rule
def start_round(g, P):
    """The round after its deal (to the active seats)."""
    for s in range(SEAT_PAD):
        g.per_seat[C_IN_ROUND, s] = g.per_seat[C_ACTIVE, s]
        g.per_seat[C_THROWS, s] = 0
        g.per_seat[C_CALL, s] = NO_CALL
        g.per_seat[C_JOINER, s] = 0
        g.per_seat[C_BOUNCED, s] = 0
        g.seen[s] = 0
    g.redeals_open = P[P_REDEAL] != REDEAL_OFF
    g.reshuffled = False
    g.high_level = -1
    g.declarer = -1
    g.join_state = JOIN_PENDING
    g.in_duel = False
    g.thrower = -1
    g.thrown_hand = 0
    next_redeal(g, P, 1)


# ---------------------------------------------------------------- redeal and look
@rule
def next_redeal(g, P, start):
    """The next seat (offset >= start from the dealer) that may throw in, or the auction."""
    n = P[P_N]
    cand = 0
    if P[P_REDEAL] != REDEAL_OFF and g.redeals_open:
        for s in range(n):
            if flag(g, C_ACTIVE, s) and (P[P_REDEAL] != REDEAL_NO_FACE or (g.hands[s] & FACE_BITS) == 0):
                cand |= 1 << s
    nxt = next_seat(cand, g.dealer, start, n)
    if nxt >= 0:
        g.phase = REDEAL_PH
        g.to_act = nxt
    else:
        start_auction(g, P)


@rule
def apply_redeal(g, P, seat, a):
    n = P[P_N]
    if a == KEEP:
        next_redeal(g, P, offset(g.dealer, seat, n) + 1)
        return
    h = g.hands[seat]
    g.thrown_hand = h
    g.thrown |= h
    g.seen[seat] |= h
    g.hands[seat] = 0
    g.per_seat[C_THROWS, seat] = min(g.per_seat[C_THROWS, seat] + 1, 127)
    if P[P_REDEAL] == REDEAL_CHALLENGE:
        g.thrower = seat
        others = flag_bits(g, C_ACTIVE, n) & ~(1 << seat)
        g.to_act = next_seat(others, seat, 1, n)
        g.phase = LOOK_PH
    else:
        draw_hand(g, seat)
        next_redeal(g, P, offset(g.dealer, seat, n))  # it decides again


@rule
def apply_look(g, P, seat, a):
    n = P[P_N]
    th = g.thrower
    if a == LOOK:
        g.seen[seat] |= g.thrown_hand
        loser = th if (g.thrown_hand & FACE_BITS) != 0 else seat
        if add_score(g, P, loser, PENALTY):
            return
        finish_look(g, P)
        return
    others = flag_bits(g, C_ACTIVE, n) & ~(1 << th)
    nxt = next_seat(others, th, offset(th, seat, n) + 1, n)
    if nxt >= 0:
        g.to_act = nxt
    else:
        finish_look(g, P)


@rule
def finish_look(g, P):
    th = g.thrower
    g.thrower = -1
    g.thrown_hand = 0
    draw_hand(g, th)
    next_redeal(g, P, offset(g.dealer, th, P[P_N]))


# ---------------------------------------------------------------- auction
@rule
def start_auction(g, P):
    g.phase = BID_PH
    g.to_act = next_seat(flag_bits(g, C_ACTIVE, P[P_N]), g.dealer, 1, P[P_N])


@rule
def apply_bid(g, P, seat, a):
    n = P[P_N]
    if a == PASS:
        g.per_seat[C_CALL, seat] = PASSED
    else:
        level = REDBEARD_LEVEL if a == REDBEARD else a - BID0
        g.per_seat[C_CALL, seat] = level
        g.high_level = level
        g.declarer = seat
        if P[P_BOS] == BOS_PENALTY and min(level, 6) > g.scores[seat]:
            if add_score(g, P, seat, PENALTY):
                return
    if P[P_SINGLE]:
        if seat == g.dealer:
            end_auction(g, P)
        else:
            g.to_act = next_seat(flag_bits(g, C_ACTIVE, n), seat, 1, n)
        return
    # open auction: passes are final; round until all but the highest bidder passed
    waiting = 0
    for s in range(n):
        if flag(g, C_ACTIVE, s) and g.per_seat[C_CALL, s] != PASSED and s != g.declarer:
            waiting |= 1 << s
    nxt = next_seat(waiting, seat, 1, n)
    if nxt >= 0:
        g.to_act = nxt
    else:
        end_auction(g, P)


@rule
def end_auction(g, P):
    if g.declarer < 0:  # all passed under all_pass = redeal: a round without tricks
        score_round(g, P)
        return
    g.leader = g.declarer
    start_trick(g, P)


# ---------------------------------------------------------------- play, ask, join
@rule
def start_trick(g, P):
    """The next trick, or first the join question when join_at tricks remain."""
    ja = P[P_JOIN_AT]
    if ja > 0 and not g.in_duel and g.join_state == JOIN_PENDING and g.tricks_done == TRICKS_PER_ROUND - ja:
        if P[P_ASK_OPT]:
            g.phase = ASK_PH
            g.to_act = g.declarer
        else:
            ask_join(g, P)
        return
    lead_trick(g, P)


@rule
def lead_trick(g, P):
    n = P[P_N]
    lead = g.leader
    if not flag(g, C_IN_ROUND, lead):  # the last trick's winner folded: the next one still in
        g.leader = next_seat(flag_bits(g, C_IN_ROUND, n), lead, 1, n)
    clear_trick(g)
    g.phase = DUEL_PH if g.in_duel else PLAY_PH
    g.to_act = g.leader


@rule
def apply_ask(g, P, seat, a):
    if a == ASK:
        ask_join(g, P)
        return
    g.join_state = JOIN_SKIPPED  # everyone counts as having a trick: no folds, no joiners
    if add_score(g, P, seat, P[P_FORGET]):
        return
    lead_trick(g, P)


@rule
def ask_join(g, P):
    g.join_state = JOIN_ASKED
    next_join(g, P, 1)


@rule
def may_fold(g, P, s):
    if P[P_ONE_POINT] and g.scores[s] == 1:
        return False
    return (not P[P_TRICKLESS]) or g.per_seat[C_TRICKS, s] == 0


@rule
def next_join(g, P, start):
    """The join question from offset ``start`` (from the declarer): players who may not
    fold are in automatically; stop at the first with a real choice."""
    n = P[P_N]
    d = g.declarer
    for off in range(start, n):
        s = (d + off) % n
        if not flag(g, C_IN_ROUND, s):
            continue
        if may_fold(g, P, s):
            g.phase = JOIN_PH
            g.to_act = s
            return
        g.per_seat[C_JOINER, s] = g.per_seat[C_TRICKS, s] == 0  # a trickless one is a joiner
    lead_trick(g, P)


@rule
def apply_join(g, P, seat, a):
    if a == JOIN:
        g.per_seat[C_JOINER, seat] = g.per_seat[C_TRICKS, seat] == 0
    else:
        g.per_seat[C_IN_ROUND, seat] = 0
    next_join(g, P, offset(g.declarer, seat, P[P_N]) + 1)


@rule
def apply_play(g, P, seat, card):
    n = P[P_N]
    suit = card // 13
    if g.trick[T_LEN] == 0:
        g.trick[T_LED] = suit
        g.trick[T_BEST] = card
        g.trick[T_WIN] = seat
        g.trick[T_FIRST] = seat
    else:
        led = g.trick[T_LED]
        if suit != led:  # not following: a void shown
            g.void_bits |= np.uint32(1) << np.uint32(4 * seat + led)
        elif card > g.trick[T_BEST]:
            g.trick[T_BEST] = card
            g.trick[T_WIN] = seat
    g.trick[T_LEN] += 1
    g.hands[seat] &= ~bit(card)
    g.trick_cards |= bit(card)
    g.per_seat[C_TRICK_PLAYED, seat] = 1
    g.per_seat[C_TRICK_CARD, seat] = card
    in_round = flag_bits(g, C_IN_ROUND, n)
    count = 0
    for s in range(n):
        count += (in_round >> s) & 1
    if g.trick[T_LEN] < count:
        g.to_act = next_seat(in_round, seat, 1, n)
        return
    complete_trick(g, P)


@rule
def complete_trick(g, P):
    w = g.trick[T_WIN]
    g.played |= g.trick_cards
    g.per_seat[C_TRICKS, w] += 1
    g.tricks_done += 1
    duel = g.in_duel
    if not duel:
        value = P[P_JTV] if flag(g, C_JOINER, w) else 1
        if take_trick_points(g, P, w, value):
            return
    if P[P_LEADER_TW] or duel:
        g.leader = w
    if g.tricks_done < TRICKS_PER_ROUND:
        start_trick(g, P)
    elif duel:
        end_duel(g, P)
    else:
        score_round(g, P)


# ---------------------------------------------------------------- scores
@rule
def add_score(g, P, seat, delta):
    """Change a running score during play; under ``immediate`` a score that becomes 0
    wins at once. True if that ended the game."""
    if delta == 0:
        return False
    g.scores[seat] += delta
    if P[P_ZERO] == ZERO_IMMEDIATE and g.scores[seat] == 0:
        end_game(g, P, seat)
        return True
    return False


@rule
def take_trick_points(g, P, seat, value):
    """A trick lowers the score by its value; under ``bounce`` it rises again once the
    score has reached 0 from above this round (score 1, a trick worth 2 -> 1)."""
    if P[P_ZERO] == ZERO_BOUNCE:
        if flag(g, C_BOUNCED, seat):
            return add_score(g, P, seat, value)
        score = g.scores[seat]
        if score > 0 and score - value <= 0:
            g.per_seat[C_BOUNCED, seat] = 1
            return add_score(g, P, seat, value - 2 * score)
    return add_score(g, P, seat, -value)


@rule
def score_round(g, P):
    n = P[P_N]
    d = g.declarer
    g.rounds_played += 1
    # the round's record (info), as of the scoring
    g.r_over = True
    g.r_declarer = d
    g.r_bid = g.per_seat[C_CALL, d] if d >= 0 else -1
    g.r_made = False
    for s in range(n):
        g.r_tricks[s] = g.per_seat[C_TRICKS, s]
        g.r_joiner[s] = flag(g, C_JOINER, s)
        g.r_folded[s] = flag(g, C_ACTIVE, s) and not flag(g, C_IN_ROUND, s)
    redbeard_failed = False
    if d >= 0:
        level = g.per_seat[C_CALL, d]
        td = g.per_seat[C_TRICKS, d]
        need = min(level, 6)
        made = td == need if P[P_EXACT] else td >= need
        g.r_made = made
        if level == REDBEARD_LEVEL and td == TRICKS_PER_ROUND:
            if P[P_RB_WIN]:
                end_game(g, P, d)
                return
            g.scores[d] = 0
        elif level == REDBEARD_LEVEL and P[P_RB_ELIM]:
            redbeard_failed = True
        elif not made:
            g.scores[d] += PENALTY
        for s in range(n):
            if flag(g, C_IN_ROUND, s) and g.per_seat[C_TRICKS, s] == 0:
                if flag(g, C_JOINER, s):
                    g.scores[s] += P[P_JFP]
                g.scores[s] += P[P_ZTP]
    # SPEC §1.8: the round's penalties, then every elimination, then the zero check
    if redbeard_failed:
        eliminate(g, P, d)
    if P[P_HAS_ELIM]:
        over = 0
        n_over = 0
        n_act = 0
        low = np.int64(1) << 62
        for s in range(n):
            if flag(g, C_ACTIVE, s):
                n_act += 1
                if g.scores[s] >= P[P_ELIM_AT]:
                    over |= 1 << s
                    n_over += 1
                    low = min(low, np.int64(g.scores[s]))
        for s in range(n):
            if (over >> s) & 1 and not (n_over == n_act and g.scores[s] == low):  # the lowest stay if all are over
                eliminate(g, P, s)
    on0 = 0
    c0 = 0
    n_act = 0
    last = -1
    for s in range(n):
        if flag(g, C_ACTIVE, s):
            n_act += 1
            last = s
            if g.scores[s] == 0:
                on0 |= 1 << s
                c0 += 1
    if c0 == 1:
        end_game(g, P, next_seat(on0, n - 1, 1, n))
        return
    if c0 > 1:
        g.tied_duels = 0
        for s in range(n):
            g.per_seat[C_IN_ROUND, s] = (on0 >> s) & 1
        g.phase = START_DUEL
        g.to_act = -1
        return
    if n_act == 1:
        end_game(g, P, last)
        return
    if g.rounds_played >= P[P_MAX_ROUNDS]:
        g.truncated = True
        g.phase = DONE_PH
        g.to_act = -1
        return
    g.dealer = next_seat(flag_bits(g, C_ACTIVE, n), g.dealer, 1, n)
    g.phase = START_ROUND
    g.to_act = -1


@rule
def eliminate(g, P, s):
    g.per_seat[C_ACTIVE, s] = 0
    g.per_seat[C_IN_ROUND, s] = 0
    g.eliminated[s] = True
    g.rewards[s] = np.float32(-1.0 / (P[P_N] - 1))


@rule
def end_game(g, P, w):
    g.winner = w
    g.terminated = True
    g.phase = DONE_PH
    g.to_act = -1
    loss = np.float32(-1.0 / (P[P_N] - 1))
    for s in range(P[P_N]):
        if flag(g, C_ACTIVE, s):
            g.rewards[s] = loss
    g.rewards[w] = 1.0


# ---------------------------------------------------------------- duel
@rule
def start_duel(g, P):
    """A duel among the seats flagged in_round, after its deal."""
    n = P[P_N]
    for s in range(SEAT_PAD):
        g.per_seat[C_JOINER, s] = 0
        g.per_seat[C_BOUNCED, s] = 0
        g.per_seat[C_CALL, s] = NO_CALL
    g.high_level = -1
    g.declarer = -1
    g.join_state = JOIN_PENDING
    g.leader = next_seat(flag_bits(g, C_IN_ROUND, n), g.dealer, 1, n)
    g.in_duel = True
    start_trick(g, P)


@rule
def end_duel(g, P):
    n = P[P_N]
    most = -1
    for s in range(n):
        if flag(g, C_IN_ROUND, s):
            most = max(most, np.int64(g.per_seat[C_TRICKS, s]))
    best = 0
    count = 0
    for s in range(n):
        if flag(g, C_IN_ROUND, s) and g.per_seat[C_TRICKS, s] == most:
            best |= 1 << s
            count += 1
    lowest = next_seat(best, n - 1, 1, n)
    if count == 1:
        end_game(g, P, lowest)
        return
    g.tied_duels += 1
    if g.tied_duels >= MAX_TIED_DUELS:
        end_game(g, P, lowest)
        return
    for s in range(n):
        g.per_seat[C_IN_ROUND, s] = (best >> s) & 1
    g.phase = START_DUEL
    g.to_act = -1


# ---------------------------------------------------------------- one decision
@rule
def apply_action(g, P, a):
    seat = np.int64(g.to_act)
    ph = g.phase
    if ph == PLAY_PH or ph == DUEL_PH:
        apply_play(g, P, seat, a)
    elif ph == BID_PH:
        apply_bid(g, P, seat, a)
    elif ph == JOIN_PH:
        apply_join(g, P, seat, a)
    elif ph == ASK_PH:
        apply_ask(g, P, seat, a)
    elif ph == REDEAL_PH:
        apply_redeal(g, P, seat, a)
    elif ph == LOOK_PH:
        apply_look(g, P, seat, a)


# ---------------------------------------------------------------- observation and mask
@rule
def encode(g, P, L, prefix, observer, row):
    """The observation of seat ``observer`` in game b, as observation.encode gives it
    (floats computed in float64 and rounded once, as there)."""
    n = P[P_N]
    for i in range(len(row)):  # zeros, with the num_players and rules blocks (a loop: a[:] = b is slower)
        row[i] = prefix[i]
    ph = g.phase
    row[L[L_PHASE] + ph] = 1.0
    row[L[L_PROGRESS]] = g.rounds_played / P[P_MAX_ROUNDS]
    for block, h in ((L[L_HAND], g.hands[observer]), (L[L_PLAYED], g.played), (L[L_TRICK], g.trick_cards),
                     (L[L_SEEN], g.seen[observer])):
        while h:
            row[block + low_card(h)] = 1.0
            h &= h - np.uint64(1)
    row[L[L_TRICKS_DONE] + g.tricks_done] = 1.0
    row[L[L_HIGH_BID] + g.high_level + 1] = 1.0
    row[L[L_JOIN_STATE] + g.join_state] = 1.0
    o = L[L_DEAL_FLAGS]
    row[o] = g.redeals_open
    row[o + 1] = g.reshuffled
    row[o + 2] = g.stock_len / 52
    row[o + 3] = g.tied_duels / 10.0
    if P[P_DEALER_MUST] != 0 and ph == BID_PH and g.to_act == observer and observer == g.dealer and g.high_level < 0:
        row[L[L_ME_FORCED]] = 1.0
    nb = L[L_SCORE_BINS]
    voids = np.int64(g.void_bits)
    for seat in range(n):
        pos = (seat - observer) % n
        score = g.scores[seat]
        row[L[L_SCORE] + pos] = min(max(score / 12.0, -10.0), 10.0)
        row[L[L_SCORE_BIN] + pos * nb + min(max(score, -1), 7) + 1] = 1.0
        row[L[L_ACTIVE] + pos] = g.per_seat[C_ACTIVE, seat]
        row[L[L_IN_ROUND] + pos] = g.per_seat[C_IN_ROUND, seat]
        row[L[L_TRICK_PLAYED] + pos] = g.per_seat[C_TRICK_PLAYED, seat]
        row[L[L_JOINER] + pos] = g.per_seat[C_JOINER, seat]
        row[L[L_BOUNCED] + pos] = g.per_seat[C_BOUNCED, seat]
        row[L[L_TRICKS] + pos] = g.per_seat[C_TRICKS, seat] / 6.0
        row[L[L_THROWS] + pos] = min(np.uint8(g.per_seat[C_THROWS, seat]) / 3.0, 1.0)
        for suit in range(4):
            if (voids >> (4 * seat + suit)) & 1:
                row[L[L_VOIDS] + 4 * pos + suit] = 1.0
        row[L[L_CALL] + 10 * pos + g.per_seat[C_CALL, seat] - NO_CALL] = 1.0
    i64 = np.int64
    leader = i64(g.leader) if ph == PLAY_PH or ph == DUEL_PH or ph == ASK_PH or ph == JOIN_PH else i64(-1)
    winning = i64(g.trick[T_WIN]) if g.trick[T_LEN] > 0 else i64(-1)
    for block, seat in ((L[L_DEALER], i64(g.dealer)), (L[L_DECLARER], i64(g.declarer)), (L[L_ACTING], i64(g.to_act)),
                        (L[L_LEADER], leader), (L[L_TRICK_WINNING], winning), (L[L_THROWER], i64(g.thrower))):
        if seat >= 0:
            row[block + (seat - observer) % n] = 1.0


@rule
def legal_mask(g, P, row):
    """The acting seat's legal actions in game b (all 0 for a halted game)."""
    for i in range(NUM_ACTIONS):
        row[i] = 0
    ph = g.phase
    seat = g.to_act
    if ph == PLAY_PH or ph == DUEL_PH:
        h = g.hands[seat]
        if g.trick[T_LEN] > 0:
            follow = h & (SUIT_MASK << np.uint64(13 * g.trick[T_LED]))
            if follow:
                h = follow
        while h:
            row[low_card(h)] = 1
            h &= h - np.uint64(1)
    elif ph == BID_PH:
        high = g.high_level
        forced = P[P_DEALER_MUST] != 0 and seat == g.dealer and high < 0
        if not forced:
            row[PASS] = 1
        lo = max(P[P_MIN_BID], 1) if forced else P[P_MIN_BID]
        cap = np.int64(g.scores[seat])
        if forced:
            cap = max(cap, 1)
        for lv in range(lo, REDBEARD_LEVEL + 1):
            if (lv <= P[P_MAX_BID] or lv == REDBEARD_LEVEL) and lv > high:
                if P[P_BOS] == BOS_FORBID and min(lv, 6) > cap:
                    continue
                row[REDBEARD if lv == REDBEARD_LEVEL else BID0 + lv] = 1
    elif ph == REDEAL_PH:
        row[KEEP] = 1
        row[REDEAL] = 1
    elif ph == LOOK_PH:
        row[LOOK] = 1
        row[NO_LOOK] = 1
    elif ph == ASK_PH:
        row[ASK] = 1
        row[SKIP] = 1
    elif ph == JOIN_PH:
        row[JOIN] = 1
        row[FOLD] = 1


# ---------------------------------------------------------------- drivers (loops over games)
@njit(cache=True, nogil=True)
def first_illegal(G, actions, mask):
    """Index of the first game whose action is illegal (halted games ignore theirs), or -1."""
    for b in range(len(actions)):
        if G[b].phase == DONE_PH:
            continue
        a = actions[b]
        if a < 0 or a >= NUM_ACTIONS or mask[b, a] == 0:
            return b
    return -1


@rule
def clear_outputs(g):
    for s in range(SEAT_PAD):
        g.rewards[s] = 0.0
        g.eliminated[s] = False
    g.r_over = False
    g.r_declarer = -1
    g.r_bid = -1
    g.r_made = False


@rule
def deal_pending(g, P, dq, rng):
    """The deal a game waits for: a duel's (to the duellists) or a round's (to the active
    seats; not for a slot that stops at its round's end)."""
    n = P[P_N]
    if g.phase == START_DUEL:
        deal(g, P, dq, rng, flag_bits(g, C_IN_ROUND, n))
        start_duel(g, P)
    elif g.phase == START_ROUND and not g.stop_round:
        deal(g, P, dq, rng, flag_bits(g, C_ACTIVE, n))
        start_round(g, P)


@rule
def advance_game(g, P, dq, rng, action):
    """One decision in game ``g`` (the action already checked) and everything automatic
    after it up to the round's scoring or the game's end; returns whether the game ended
    in this step (reported once). A slot loaded with ``stop_at_round_end`` halts (phase
    done) after its round's scoring or the game's end. The one step of the batch path:
    :func:`step_games` and compiled loops outside this module (a search's playouts) run
    games through it."""
    clear_outputs(g)
    was_halted = g.phase == DONE_PH
    if not was_halted:
        apply_action(g, P, action)
    fin = (g.terminated or g.truncated) and not was_halted
    if g.phase == START_DUEL:
        deal_pending(g, P, dq, rng)
    if g.stop_round and (g.r_over or fin or g.phase == START_ROUND):
        g.phase = DONE_PH
        g.to_act = -1
    return fin


@njit(cache=True, nogil=True)
def step_games(G, DQ, P, L, prefix, rng, actions, R, obs, mask):
    """One decision in every game (actions already checked by :func:`first_illegal`),
    then each game's report, auto-reset, next observation and mask."""
    for b in range(len(actions)):
        g = G[b]
        fin = advance_game(g, P, DQ[b], rng, actions[b])
        R.terminated[b] = g.terminated and fin
        R.truncated[b] = g.truncated and fin
        R.winner[b] = g.winner if R.terminated[b] else -1
        for s in range(P[P_N]):
            R.score[b, s] = g.scores[s]
        R.rounds[b] = g.rounds_played
        if fin and P[P_AUTO_RESET] and not g.stop_round:
            g.dq_len = 0
            new_game(g, P, randbelow(rng, P[P_N]), R.score[b], False)
        deal_pending(g, P, DQ[b], rng)
        R.phase[b] = g.phase
        seat = g.to_act
        R.seat[b] = seat
        R.round_over[b] = g.r_over
        R.round_declarer[b] = g.r_declarer
        R.round_bid[b] = g.r_bid
        R.round_made[b] = g.r_made
        for s in range(P[P_N]):
            R.rewards[b, s] = g.rewards[s]
            R.eliminated[b, s] = g.eliminated[s]
            R.round_tricks[b, s] = g.r_tricks[s]
            R.round_joiner[b, s] = g.r_joiner[s]
            R.round_folded[b, s] = g.r_folded[s]
        encode(g, P, L, prefix, seat if seat >= 0 else 0, obs[b])
        legal_mask(g, P, mask[b])


@njit(cache=True, nogil=True)
def reset_games(G, DQ, P, L, prefix, rng, dealer, scores, use_scores, obs, mask):
    """A new game in every slot (``dealer[b]`` -1: drawn), then every observation and mask."""
    for b in range(G.shape[0]):
        g = G[b]
        clear_outputs(g)
        new_game(g, P, randbelow(rng, P[P_N]) if dealer[b] < 0 else dealer[b], scores[b], use_scores)
        deal_pending(g, P, DQ[b], rng)
        seat = g.to_act
        encode(g, P, L, prefix, seat if seat >= 0 else 0, obs[b])
        legal_mask(g, P, mask[b])


@njit(cache=True, nogil=True)
def observe_games(G, P, L, prefix, observer, obs, mask, with_mask):
    """Observations of seat ``observer[b]`` in every game (and the acting seats' masks)."""
    for b in range(G.shape[0]):
        encode(G[b], P, L, prefix, observer[b], obs[b])
        if with_mask:
            legal_mask(G[b], P, mask[b])


@njit(cache=True, nogil=True)
def random_legal(mask, rng, out):
    """One uniformly random legal action per row of ``mask`` (int8 [B, A]); returns the
    first row without one, or -1."""
    A = mask.shape[1]
    for b in range(mask.shape[0]):
        count = 0
        for a in range(A):
            count += mask[b, a] != 0
        if count == 0:
            return b
        k = randbelow(rng, count)
        for a in range(A):
            if mask[b, a] != 0:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return -1
