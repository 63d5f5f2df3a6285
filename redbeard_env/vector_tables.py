"""Codes and lookup tables of the batch engine (:mod:`redbeard_env.vector`).

* Phase codes: ``info["phase"]`` is an index into ``game.PHASE_NAMES``; codes 8..10 are
  internal (games waiting, within a step, for a batched automatic transition).
* Card sets are uint64 bitmasks, bit c = card id c (``BIT``, ``bits_to_bool``, ...).
* The packed per-seat array: int8 [B, SEAT_COLS, SEAT_PAD], one row per per-seat value,
  seats padded to 8 so that a flag row is one uint64 per game (``C_*`` name the rows).
* :class:`SeatTables`: seat searches (next seat to act, deal order) as lookups in small
  tables indexed by a seat set packed into a byte (bit s = seat s; n <= 7).
* :class:`MaskTables`: the legal-action mask as a 69-bit stream built from tables by phase
  and, for calls, by (forced dealer, highest bid, score cap).
"""

from __future__ import annotations

import numpy as np

from .cards import (
    ASK,
    BID0,
    FACE_RANK_MIN,
    FOLD,
    JOIN,
    KEEP,
    LOOK,
    NO_LOOK,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    PASS,
    REDBEARD,
    REDBEARD_LEVEL,
    REDEAL,
    SKIP,
    bid_tricks,
)
from .game import JOIN_STATES, PHASE_NAMES
from .rules import HAND_SIZE, Rules

# ---------------------------------------------------------------- phase and join codes
REDEAL_PH, LOOK_PH, BID_PH, ASK_PH, JOIN_PH, PLAY_PH, DUEL_PH, DONE_PH = (
    PHASE_NAMES.index(p) for p in ("redeal", "look", "bid", "ask", "join", "play", "duel", "done")
)
NUM_PHASES = len(PHASE_NAMES)
# internal codes of games waiting, within a step, for a batched automatic transition
START_ROUND, START_TRICK, SCORE_ROUND = NUM_PHASES, NUM_PHASES + 1, NUM_PHASES + 2
JOIN_PENDING, JOIN_ASKED, JOIN_SKIPPED = (JOIN_STATES.index(j) for j in ("pending", "asked", "skipped"))

# ---------------------------------------------------------------- cards as bitmasks
SUIT_OF_CARD = (np.arange(NUM_CARDS) // NUM_RANKS).astype(np.int8)
BIT = (np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)).astype(np.uint64)
FACE_BITS = np.bitwise_or.reduce(BIT[(np.arange(NUM_CARDS) % NUM_RANKS) >= FACE_RANK_MIN])  # J Q K A
# SUIT_BITS[s] = the cards of suit s; SUIT_BITS[-1] (no led suit) = none
SUIT_BITS = np.array(
    [np.bitwise_or.reduce(BIT[s * NUM_RANKS : (s + 1) * NUM_RANKS]) for s in range(NUM_SUITS)] + [0], np.uint64
)


def bits_to_bool(x: np.ndarray) -> np.ndarray:
    """Card bitmasks uint64 [...] -> bool [..., 52]."""
    x = np.ascontiguousarray(x, dtype="<u8")
    u = np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1, bitorder="little")
    return u[..., :NUM_CARDS].view(np.bool_)


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """Card ids int [..., k] (-1 = none) -> bitmasks uint64 [...]."""
    cards = np.asarray(cards)
    return np.where(cards >= 0, BIT[np.maximum(cards, 0)], np.uint64(0)).sum(-1, dtype=np.uint64)


AR6 = np.arange(HAND_SIZE)
AR52 = np.arange(NUM_CARDS)
LEVEL_TRICKS = np.array([bid_tricks(lv) for lv in range(REDBEARD_LEVEL + 1)])  # bid level -> tricks

# action id -> kind: 0 play, 1 bid/pass, 2 join/fold, 3 ask/skip, 4 keep/redeal, 5 look/no_look
# (6: a halted game's ignored action)
KIND = np.zeros(NUM_ACTIONS, np.int8)
KIND[PASS : REDBEARD + 1] = 1
KIND[[JOIN, FOLD]] = 2
KIND[[ASK, SKIP]] = 3
KIND[[KEEP, REDEAL]] = 4
KIND[[LOOK, NO_LOOK]] = 5

TRICK_EMPTY = np.array([0, -1, -1, -1, -1], np.int8)  # trick length, led suit, best card, its seat, leader

# ---------------------------------------------------------------- the packed per-seat array
# Rows: the five flags first (the observation packs them into one byte each), then tricks,
# throws and the call (read per relative position), then the card played to the trick.
C_ACTIVE, C_IN_ROUND, C_TRICK_PLAYED, C_JOINER, C_BOUNCED = range(5)
C_TRICKS, C_THROWS, C_CALL = 5, 6, 7
C_TRICK_CARD = 8  # the card played to the current trick (-1: none)
SEAT_COLS = 9
SEAT_PAD = 8  # seats padded to 8: a flag row of a game is one uint64
NUM_FLAG_ROWS = 5  # the encoder reads rows 0..4 as the flags active .. bounced, in this order
assert (C_ACTIVE, C_IN_ROUND, C_TRICK_PLAYED, C_JOINER, C_BOUNCED) == tuple(range(NUM_FLAG_ROWS))


def pack(flags: np.ndarray) -> np.ndarray:
    """bool [k, n] -> uint8 [k], bit s = flags[:, s]."""
    return np.packbits(flags, axis=1, bitorder="little")[:, 0]


class SeatTables:
    """Seat searches for ``n`` players as table lookups indexed by a packed seat set."""

    def __init__(self, n: int):
        self.ids = np.arange(n)
        offsets = np.arange(1, n + 1)  # 1..n (n = the base seat itself)
        self.rot = (np.arange(n)[:, None] + offsets[None, :]) % n  # rot[base] = seats from base's left
        off = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
        self.offs = np.where(off == 0, n, off)  # offs[base, seat] in 1..n
        F = 1 << n
        nxt = np.full((n, n + 2, F), -1, np.int8)  # [base, start offset, flags]
        dealpos = np.full((n, F, n), -1, np.int8)  # [dealer, flags, seat] -> deal index
        for f in range(F):
            for base in range(n):
                k = 0
                for d in range(1, n + 1):
                    s = (base + d) % n
                    if f >> s & 1:
                        dealpos[base, f, s] = k
                        k += 1
                for start in range(1, n + 1):
                    for d in range(start, n + 1):
                        s = (base + d) % n
                        if f >> s & 1:
                            nxt[base, start, f] = s
                            break
        self.next = nxt
        self.next_all = np.ascontiguousarray(nxt[:, 1, :].T)  # [flags, seat] -> next flagged seat
        self.dealpos = dealpos
        self.popcount = np.array([bin(f).count("1") for f in range(F)], np.intp)

    def next_seat(self, base: np.ndarray, flags: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """First seat clockwise from ``base``'s left (``base`` itself last) whose flag is
        set, searching offsets ``>= start`` (1..n); -1 if none. base [k], flags [k, n]."""
        return self.next[base, 1 if start is None else start, pack(flags)]


class MaskTables:
    """The acting seats' legal actions for one ``Rules``: bits of the action mask (bit =
    action id, two uint64 words) by phase, and the legal calls by (forced dealer, highest
    bid + 1, score cap + 1) as in ``game.legal_bid_levels``."""

    def __init__(self, rules: Rules, num_envs: int):
        r = rules
        self.dealer_must = r.all_pass == "dealer_must_bid"
        self.forbid = r.bid_over_score == "forbid"
        lo_w = np.zeros(NUM_PHASES, np.uint64)
        hi_w = np.zeros(NUM_PHASES, np.uint64)
        for code, first in ((REDEAL_PH, KEEP), (LOOK_PH, LOOK), (ASK_PH, ASK), (JOIN_PH, JOIN)):
            for a in (first, first + 1):
                if a < 64:
                    lo_w[code] |= np.uint64(1 << a)
                else:
                    hi_w[code] |= np.uint64(1 << (a - 64))
        self.pair_lo, self.pair_hi = lo_w, hi_w
        play = np.zeros(NUM_PHASES, np.uint64)
        play[[PLAY_PH, DUEL_PH]] = np.uint64((1 << NUM_CARDS) - 1)
        self.play_bits = play
        bid = np.zeros((2, 9, 8), np.uint64)
        for forced in (0, 1):
            for high in range(-1, 8):
                for cap in range(-1, 7):  # score cap under "forbid", clipped to -1..6
                    lo = max(r.min_bid, 1) if forced else r.min_bid
                    levels = [lv for lv in list(range(lo, r.max_bid + 1)) + [REDBEARD_LEVEL] if lv > high]
                    if self.forbid:
                        levels = [lv for lv in levels if bid_tricks(lv) <= cap]
                    bits = 0 if forced else 1 << PASS
                    for lv in levels:
                        bits |= 1 << (BID0 + lv)
                    bid[forced, high + 1, cap + 1] = bits
        self.bid_bits = bid
        self.words = np.zeros((num_envs, 2), "<u8")

    def mask(self, env, hand: np.ndarray) -> np.ndarray:
        """The acting seat's legal actions in every game of ``env`` (a VectorEnv), int8
        [B, 69]; ``hand`` is its hand (bitmask [B]). Built as a 69-bit stream (bit = action
        id): the legal cards, the bid levels by table, the two answers of a yes/no
        question by phase."""
        ph = env.phase
        w = self.words
        follow = hand & SUIT_BITS[env.trick_led]  # cards of the led suit (none when leading)
        w[:, 0] = (np.where(follow != 0, follow, hand) & self.play_bits[ph]) | self.pair_lo[ph]
        w[:, 1] = self.pair_hi[ph]
        bi = np.flatnonzero(ph == BID_PH)
        if len(bi):
            ta = env.to_act[bi]
            high = env.high_level[bi]
            forced = (ta == env.dealer[bi]) & (high < 0) if self.dealer_must else np.zeros(len(bi), bool)
            if self.forbid:
                sc = env.scores[bi, ta]
                cap = np.clip(np.where(forced, np.maximum(sc, 1), sc), -1, 6) + 1
            else:
                cap = 7
            w[bi, 0] |= self.bid_bits[forced.astype(np.intp), high + 1, cap]
        return np.unpackbits(w.view(np.uint8), axis=1, count=NUM_ACTIONS, bitorder="little").view(np.int8)
