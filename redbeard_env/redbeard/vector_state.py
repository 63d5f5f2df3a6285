"""The batch engine's state and numbers: codes, the rules and the observation layout as
tuples of ints, the game record, and the compiled helpers every phase uses (bits,
randomness, seats).

The phases live in their own modules (:mod:`~.vector_deal`, :mod:`~.vector_auction`,
:mod:`~.vector_play`, :mod:`~.vector_scoring`, :mod:`~.vector_observe`), the drivers in
:mod:`~.vector_kernels`. Codes shared with the rest of the package (phases, join states,
rows of the per-seat array, action ids, the game's sizes) are literals here, checked
against their sources at import: the compiled code reads them as constants, and the
kernel modules' caches are stamped with this file (:func:`redbeard_env.jit_cache.cache_with`),
not with those sources. Of other files' compiled code this module calls only the card-set
bits every engine shares (:mod:`redbeard_env.vector_base`), and its cache is stamped with
that file too.

Randomness: the engine's ``np.random.Generator`` is passed in; a deal draws two
permutations (the deck, and the order in which thrown-in cards are reshuffled) by
Fisher-Yates with exact bounded integers from ``Generator.random()`` (53 random bits, Lemire's
rejection), and a new game its first dealer. Games draw in index order, so a seed fixes
the whole run.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import vector_base as _base
from ..jit_cache import cache_with
from ..vector_base import bit, has, low_card  # noqa: F401  (the phases import them from here)
from . import cards as _cards
from . import game as _game
from . import observation as _obs
from . import rules as _rules
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
assert (_cards.KEEP, _cards.REDEAL, _cards.LOOK, _cards.NO_LOOK, _cards.NUM_ACTIONS) == (
    KEEP, REDEAL, LOOK, NO_LOOK, NUM_ACTIONS)
assert _cards.REDBEARD_LEVEL == REDBEARD_LEVEL

# ---------------------------------------------------------------- sizes of the game (literals, checked)
NUM_CARDS, NUM_SUITS, NUM_RANKS = 52, 4, 13
assert (_cards.NUM_CARDS, _cards.NUM_SUITS, _cards.NUM_RANKS) == (NUM_CARDS, NUM_SUITS, NUM_RANKS)
HAND, TRICKS_PER_ROUND, PENALTY, MAX_TIED_DUELS, MAX_PLAYERS = 6, 6, 5, 10, 7
assert (_rules.HAND_SIZE, _rules.TRICKS_PER_ROUND, _rules.PENALTY, _rules.MAX_TIED_DUELS, _rules.MAX_PLAYERS) == (
    HAND, TRICKS_PER_ROUND, PENALTY, MAX_TIED_DUELS, MAX_PLAYERS)
FACE_RANK_MIN = 9  # J Q K A
FACE_BITS = np.uint64(sum(1 << c for c in range(NUM_CARDS) if c % NUM_RANKS >= FACE_RANK_MIN))
assert all((int(FACE_BITS) >> c & 1) == _cards.is_face(c) for c in range(NUM_CARDS))
SUIT_MASK = np.uint64((1 << NUM_RANKS) - 1)  # the cards of suit s: SUIT_MASK << NUM_RANKS * s
THROWS_CAP = np.iinfo(np.int8).max  # hands thrown in by one seat in one deal, as the int8 row holds them

# rows of the per-seat array (int8 [B, SEAT_COLS, SEAT_PAD]): five flags, then values
C_ACTIVE, C_IN_ROUND, C_TRICK_PLAYED, C_JOINER, C_BOUNCED, C_TRICKS, C_THROWS, C_CALL, C_TRICK_CARD = range(9)
SEAT_COLS, SEAT_PAD = 9, 8
assert SEAT_PAD >= MAX_PLAYERS
assert NUM_SUITS * MAX_PLAYERS <= 32  # the shown voids: one bit per seat and suit in a uint32
# columns of the current trick (int8 [B, TRICK_COLS])
T_LEN, T_LED, T_BEST, T_WIN, T_FIRST = range(5)
TRICK_COLS = 5

# ---------------------------------------------------------------- the rules as numbers
P_N, P_REDEAL, P_MIN_BID, P_MAX_BID, P_SINGLE, P_DEALER_MUST, P_BOS, P_LEADER_TW, P_EXACT = range(9)
P_JOIN_AT, P_TRICKLESS, P_ONE_POINT, P_JTV, P_JFP, P_ZTP, P_ASK_OPT, P_FORGET, P_RB_WIN = range(9, 18)
P_RB_ELIM, P_ZERO, P_HAS_ELIM, P_ELIM_AT, P_MAX_ROUNDS, P_START, P_AUTO_RESET = range(18, 25)
NUM_PARAMS = 25
REDEAL_OFF, REDEAL_NO_FACE, REDEAL_ANY, REDEAL_CHALLENGE = range(4)
BOS_ALLOW, BOS_PENALTY, BOS_FORBID = range(3)
ZERO_EXACT_END, ZERO_IMMEDIATE, ZERO_BOUNCE = range(3)
assert _rules.CHOICES["redeal"] == ("off", "no_face_card", "any", "challenge")
assert _rules.CHOICES["bid_over_score"] == ("allow", "penalty", "forbid")
assert _rules.CHOICES["zero_rule"] == ("exact_end", "immediate", "bounce")


def rule_params(rules: Rules, num_players: int, auto_reset: bool) -> tuple:
    """The ``Rules`` (and player count, auto-reset) as the tuple of ints the kernels read."""
    r = rules
    choices = _rules.CHOICES
    p = np.zeros(NUM_PARAMS, np.int64)
    p[P_N] = num_players
    p[P_REDEAL] = choices["redeal"].index(r.redeal)
    p[P_MIN_BID], p[P_MAX_BID] = r.min_bid, r.max_bid
    p[P_SINGLE] = r.auction == "single"
    p[P_DEALER_MUST] = r.all_pass == "dealer_must_bid"
    p[P_BOS] = choices["bid_over_score"].index(r.bid_over_score)
    p[P_LEADER_TW] = r.leader == "trick_winner"
    p[P_EXACT] = r.contract == "exact"
    p[P_JOIN_AT] = r.join_at
    p[P_TRICKLESS] = r.may_fold == "trickless"
    p[P_ONE_POINT] = r.one_point_must_join
    p[P_JTV], p[P_JFP], p[P_ZTP] = r.joiner_trick_value, r.joiner_fail_penalty, r.zero_trick_penalty
    p[P_ASK_OPT], p[P_FORGET] = r.ask_optional, r.forget_penalty
    p[P_RB_WIN] = r.redbeard_success == "win"
    p[P_RB_ELIM] = r.redbeard_fail == "eliminate"
    p[P_ZERO] = choices["zero_rule"].index(r.zero_rule)
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
# the observation's scales and widths (observation.encode uses the same numbers)
SCORE_SCALE, OBS_LOW, OBS_HIGH = 12.0, -10.0, 10.0
TRICKS_SCALE, TIED_DUELS_SCALE, THROWS_SCALE = 6.0, 10.0, 3.0  # tricks / 6, tied duels / 10, throws / 3
SCORE_BIN_TOP = 7  # score bins: clip(score, -1, SCORE_BIN_TOP) + 1
CALL_WIDTH = REDBEARD_LEVEL - NO_CALL + 1  # a position's call block: not called, pass, bid 0..6, Rödskägg
assert (_obs.SCORE_SCALE, _obs.OBS_LOW, _obs.OBS_HIGH) == (SCORE_SCALE, OBS_LOW, OBS_HIGH)
assert (TRICKS_SCALE, TIED_DUELS_SCALE) == (TRICKS_PER_ROUND, MAX_TIED_DUELS)
assert _obs.SCORE_BINS == SCORE_BIN_TOP + 2 and _obs.POSITIONS == MAX_PLAYERS
assert (_obs.OBS_BLOCKS["call"], _obs.OBS_BLOCKS["voids"]) == (MAX_PLAYERS * CALL_WIDTH, MAX_PLAYERS * NUM_SUITS)
assert (_obs.OBS_BLOCKS["tricks_done"], _obs.OBS_BLOCKS["high_bid"]) == (TRICKS_PER_ROUND + 1, REDBEARD_LEVEL + 2)


def obs_layout() -> tuple:
    """Block offsets of :mod:`redbeard_env.redbeard.observation` as the tuple of ints the encoder reads."""
    return tuple(int(_obs.OFF[k]) for k in _LAYOUT_BLOCKS) + (int(_obs.SCORE_BINS),)


# ---------------------------------------------------------------- the state
# One record per game (the kernels take a game's record ``g``; VectorEnv's attributes are
# views of its fields). Per-seat fields are padded to SEAT_PAD seats.
GAME = np.dtype([
    # read or written at every step (the first cache lines)
    ("phase", "i1"), ("to_act", "i1"), ("dealer", "i1"), ("declarer", "i1"), ("leader", "i1"),
    ("high_level", "i1"), ("thrower", "i1"), ("tricks_done", "i1"), ("join_state", "i1"),
    ("redeals_open", "?"), ("reshuffled", "?"), ("in_duel", "?"), ("winner", "i1"), ("terminated", "?"),
    ("truncated", "?"), ("stop_round", "?"), ("stock_pos", "i1"), ("stock_len", "i1"), ("trick", "i1", (TRICK_COLS,)),
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
    ("deck", "i1", (NUM_CARDS,)), ("rank", "i1", (NUM_CARDS,)),
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
rule = njit(cache=cache_with(__file__, _base), no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- bits and randomness
@rule
def popcount(h):
    """Set bits of a uint64 (the SWAR sum; LLVM emits one popcnt for it)."""
    h = h - ((h >> np.uint64(1)) & np.uint64(0x5555555555555555))
    h = (h & np.uint64(0x3333333333333333)) + ((h >> np.uint64(2)) & np.uint64(0x3333333333333333))
    h = (h + (h >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((h * np.uint64(0x0101010101010101)) >> np.uint64(56))


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
def shuffle_cards(rng, out):
    """A uniformly random permutation of the card ids into ``out`` (Fisher-Yates)."""
    for i in range(NUM_CARDS):
        out[i] = i
    for i in range(NUM_CARDS - 1, 0, -1):
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


# ---------------------------------------------------------------- the current trick
@rule
def clear_trick(g):
    g.trick_cards = 0
    g.trick[T_LEN] = 0
    for k in range(T_LED, TRICK_COLS):
        g.trick[k] = -1
    for s in range(SEAT_PAD):
        g.per_seat[C_TRICK_PLAYED, s] = 0
        g.per_seat[C_TRICK_CARD, s] = -1
