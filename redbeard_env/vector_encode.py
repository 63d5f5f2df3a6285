"""The batch engine's observation encoder: every game's observation of one seat each,
bit for bit what :func:`redbeard_env.observation.encode` gives for a reference game.

An observation's 0/1 entries are one 542-bit stream per game (9 uint64 words, bit i =
entry i), composed with shifts and ORs on [B] words, unpacked in one call and converted
to float32 in one pass; the few real-valued entries (scores, tricks, throws, stock,
progress, tied duels, scaled rule numbers) are written after, from float32 tables that
reproduce the reference encoder's float64 arithmetic exactly. The blocks are those of
:mod:`redbeard_env.observation`; the asserts below pin the adjacencies the encoder relies on.
"""

from __future__ import annotations

import sys

import numpy as np

from .cards import NUM_CARDS
from .game import NO_CALL
from .observation import (
    OBS_BLOCKS,
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    OBS_SLICES,
    OFF,
    POSITIONS,
    SCORE_BINS,
    SCORE_SCALE,
    static_prefix,
)
from .rules import MAX_TIED_DUELS, Rules
from .vector_tables import (
    ASK_PH,
    BID_PH,
    C_CALL,
    C_THROWS,
    C_TRICKS,
    DUEL_PH,
    NUM_FLAG_ROWS,
    NUM_PHASES,
    SEAT_COLS,
    SEAT_PAD,
)

# the observation's 13 adjacent blocks of one value per position, from "active" to
# "throws"; per block the source: a packed per-seat flag (the first NUM_FLAG_ROWS rows of
# the per-seat array, in this order), a seat mark, or a float (0 in the bit stream)
K1_BLOCKS = ("active", "in_round", "dealer", "declarer", "acting", "leader", "trick_played",
             "trick_winning", "thrower", "tricks", "joiner", "bounced", "throws")
assert all(OFF[b] == OFF["active"] + POSITIONS * i for i, b in enumerate(K1_BLOCKS))
# bit offset of each of them from OFF["active"] (the first nine fit in one word), and of
# the later ones from OFF["active"] + 64
K1_BIT = {b: np.uint64(POSITIONS * i) for i, b in enumerate(K1_BLOCKS) if POSITIONS * i < 64}
K1_BIT_HI = {b: np.uint64(POSITIONS * i - 64) for i, b in enumerate(K1_BLOCKS) if POSITIONS * i >= 64}
assert POSITIONS * K1_BLOCKS.index("thrower") + POSITIONS <= 64
assert OFF["voids"] == OFF["throws"] + POSITIONS and OFF["call"] == OFF["voids"] + 4 * POSITIONS
assert [OFF[b] for b in ("hand", "played", "trick", "seen_thrown")] == [OFF["hand"] + NUM_CARDS * i for i in range(4)]

# The adjacent observation blocks tricks_done, high_bid, join_state, deal_flags[0:2]
# (redeals open, reshuffled) and me_forced as one uint8 table row per combination, indexed
# by (((tricks_done * N_HIGH + high_bid) * N_JOIN + join_state) * 2 + redeals_open) * 4
# + reshuffled * 2 + me_forced
GAME_BLOCKS = slice(OFF["tricks_done"], OFF["me_forced"] + 1)
N_TRICKS, N_HIGH, N_JOIN = OBS_BLOCKS["tricks_done"], OBS_BLOCKS["high_bid"], OBS_BLOCKS["join_state"]
assert OFF["deal_flags"] == OFF["join_state"] + N_JOIN and OFF["me_forced"] == OFF["deal_flags"] + 4


def _game_table() -> np.ndarray:
    at = {k: OFF[k] - GAME_BLOCKS.start for k in ("tricks_done", "high_bid", "join_state", "deal_flags", "me_forced")}
    rows = []
    for td in range(N_TRICKS):
        for hb in range(N_HIGH):
            for js in range(N_JOIN):
                for ro in range(2):
                    for rs in range(2):
                        for mf in range(2):
                            row = np.zeros(GAME_BLOCKS.stop - GAME_BLOCKS.start, np.uint8)
                            row[at["tricks_done"] + td] = 1
                            row[at["high_bid"] + hb] = 1
                            row[at["join_state"] + js] = 1
                            row[at["deal_flags"]], row[at["deal_flags"] + 1], row[at["me_forced"]] = ro, rs, mf
                            rows.append(row)
    return np.stack(rows)


_GAME_TABLE = _game_table()
GAME_BITS = (_GAME_TABLE.astype(np.uint64) << np.arange(_GAME_TABLE.shape[1], dtype=np.uint64)).sum(1, dtype=np.uint64)
ONE = np.uint64(1)
U64 = np.arange(64, dtype=np.uint64)  # uint64 shift amounts
PACK8 = np.uint64(0x0102040810204080)  # (8 bytes of 0/1) * PACK8 >> 56 = the 8 bits
CHUNK = 2048  # rows per unpack-and-convert pass (the uint8 temporary stays in cache)
_probe = [np.empty(1)]
FREE_REFS = sys.getrefcount(_probe[0])  # the count of an array held only by a list
del _probe
PHASE_BIT = np.uint64(1) << np.arange(NUM_PHASES, dtype=np.uint64)
OBS_WORDS = (OBS_SIZE + 63) // 64


def put_bits(W: np.ndarray, value: np.ndarray, offset: int) -> None:
    """OR ``value`` (uint64 [B]) into the bit stream ``W`` ([B, words]) at bit ``offset``."""
    k, sh = divmod(offset, 64)
    if sh == 0:
        W[:, k] |= value
    else:
        W[:, k] |= value << np.uint64(sh)
        if k + 1 < W.shape[1]:
            W[:, k + 1] |= value >> np.uint64(64 - sh)


# float32 tables that reproduce the reference encoder's float64 arithmetic exactly
SCORE_T_MAX = int(OBS_HIGH * SCORE_SCALE) + 1  # beyond +-this, score / 12 is clipped anyway
SCORE_T = np.clip(np.arange(-SCORE_T_MAX, SCORE_T_MAX + 1) / SCORE_SCALE, OBS_LOW, OBS_HIGH).astype(np.float32)
SCORE_BIN_T = (np.clip(np.arange(-SCORE_T_MAX, SCORE_T_MAX + 1), -1, 7) + 1).astype(np.uint64)
TRICKS_T = (np.arange(8) / 6.0).astype(np.float32)  # indexed by int8 tricks
THROWS_T = np.minimum(np.arange(256) / 3.0, 1.0).astype(np.float32)
STOCK_T = (np.arange(NUM_CARDS + 1) / NUM_CARDS).astype(np.float32)
TIED_T = (np.arange(MAX_TIED_DUELS + 2) / 10.0).astype(np.float32)


class ObsEncoder:
    """Encodes the observations of a VectorEnv's games (one ``Rules``, ``n`` players,
    ``num_envs`` games); holds the per-(rules, n) tables and the output buffers."""

    def __init__(self, rules: Rules, n: int, num_envs: int):
        B = num_envs
        self.n = n
        self.dealer_must = rules.all_pass == "dealer_must_bid"
        self.progress_scale = rules.max_rounds
        ar = np.arange(B)
        self.seat_rows = ar * n
        self.seat_base = ar * (SEAT_PAD * SEAT_COLS)
        self.rel = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # rel[observer, pos] = seat
        # rotb[observer, byte]: a packed per-seat byte (bit s = seat s) re-indexed by the
        # observer's relative positions (bit p = seat observer + p)
        fb = np.arange(1 << n)
        rotb = np.stack([sum(((fb >> ((r + p) % n)) & 1) << p for p in range(n)) for r in range(n)]).astype(np.uint8)
        self.rotb_width = rotb.shape[1]
        self.rotb_flat = rotb.astype(np.uint64).reshape(-1)
        # markb[observer, seat + 1]: the byte marking that seat's relative position (0: none)
        markb = np.zeros((n, n + 1), np.uint8)
        markb[:, 1:] = 1 << ((np.arange(n)[None, :] - np.arange(n)[:, None]) % n)
        self.markb_flat = markb.astype(np.uint64).reshape(-1)
        # the static prefix: its entries equal to 1 are constant bits of every stream, the
        # values other than 0 and 1 are written after the conversion
        prefix = static_prefix(rules, n)
        static = slice(OFF["num_players"], OBS_SLICES["rules"].stop)
        pre = prefix[static]
        cols = np.arange(static.start, static.stop)
        bits = np.zeros(OBS_WORDS * 64, np.uint8)
        bits[cols[pre == 1]] = 1
        self.static_words = np.packbits(bits, bitorder="little").view("<u8").copy()
        static_cols = cols[(pre != 0) & (pre != 1)]
        self.words = np.zeros((B, OBS_WORDS), "<u8")  # the observation's 0/1 entries as bits
        self.marks = np.zeros((B, 6), np.int8)
        # the real-valued entries: scores, tricks, throws per position, progress, stock
        # size, tied duels, then the static ones (written once here)
        self.float_cols = np.concatenate(
            [OFF[k] + np.arange(n) for k in ("score", "tricks", "throws")]
            + [[OFF["progress"], OFF["deal_flags"] + 2, OFF["deal_flags"] + 3], static_cols]
        )
        self.floats = np.zeros((B, len(self.float_cols)), np.float32)
        self.floats[:, 3 * n + 3 :] = prefix[static_cols]
        self.pool: list[np.ndarray] = []

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["pool"] = []  # spare output buffers are not state
        return state

    def encode(self, env, obsr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observations of seat ``obsr[b]`` (intp [B], >= 0) in every game b of ``env``
        (a VectorEnv), float32 [B, D] (an array nobody else holds), and that seat's hand
        (uint64 [B], for the mask)."""
        n = self.n
        ph = env.phase
        W = self.words
        W[:] = self.static_words  # the rules/num_players entries that are 1
        put = put_bits
        put(W, PHASE_BIT[ph], OFF["phase"])
        # cards: hand[obsr], played, current trick, seen[obsr]
        srow = self.seat_rows + obsr
        hand = env.hands.reshape(-1)[srow]
        put(W, hand, OFF["hand"])
        put(W, env.played, OFF["played"])
        put(W, env.trick_cards, OFF["trick"])
        put(W, env.seen.reshape(-1)[srow], OFF["seen_thrown"])
        # tricks_done, high_bid, join_state, redeals_open, reshuffled, me_forced: adjacent
        # blocks, one table entry per combination
        code = env.tricks_done.astype(np.intp) * N_HIGH + (env.high_level + 1)
        code = (code * N_JOIN + env.join_state) * 2 + env.redeals_open
        code = code * 2 + env.reshuffled
        if self.dealer_must:
            forced = (ph == BID_PH) & (env.to_act == obsr) & (obsr == env.dealer) & (env.high_level < 0)
            code = code * 2 + forced
        else:
            code = code * 2
        put(W, GAME_BITS[code], GAME_BLOCKS.start)
        # per-seat blocks, rotated to the observer's point of view
        rel = self.rel[obsr]  # [B, n]: the seat at each relative position
        pf = env._per_seat.reshape(-1)
        prow = self.seat_base[:, None] + rel
        tricks_rel = pf[prow + SEAT_PAD * C_TRICKS]
        throws_rel = pf[prow + SEAT_PAD * C_THROWS]
        call_rel = (pf[prow + SEAT_PAD * C_CALL] - NO_CALL).astype(np.uint64)  # 0 = no call
        sc = env.scores.reshape(-1)[self.seat_rows[:, None] + rel]
        sci = np.minimum(np.maximum(sc, -SCORE_T_MAX), SCORE_T_MAX) + SCORE_T_MAX  # table index
        bins = np.take(SCORE_BIN_T, sci)  # clip(score, -1, 7) + 1
        score_bin = ONE << bins[:, 0]
        calls = ONE << call_rel[:, 0]
        for p in range(1, n):
            score_bin |= ONE << (bins[:, p] + U64[SCORE_BINS * p])
            if p < 6:
                calls |= ONE << (call_rel[:, p] + U64[10 * p])
        put(W, score_bin, OFF["score_bin"])
        put(W, calls, OFF["call"])
        if n == 7:  # the 7th call block would pass bit 63
            put(W, ONE << call_rel[:, 6], OFF["call"] + 60)
        # the 13 one-value-per-position blocks "active" .. "throws" (bit K1_BIT[block] +
        # position): the flag rows packed into a byte per game (8 byte-flags * magic
        # >> 56) and rotated by table, the seat marks by table, the float blocks 0 here
        fl8 = (env._per_seat.view(np.uint64)[:, :NUM_FLAG_ROWS, 0] * PACK8) >> U64[56]
        f = np.take(self.rotb_flat, obsr[:, None] * self.rotb_width + fl8.astype(np.intp))  # [B, 5]
        marks = self.marks
        marks[:, 0] = env.dealer
        marks[:, 1] = env.declarer
        marks[:, 2] = env.to_act
        marks[:, 3] = np.where((ph >= ASK_PH) & (ph <= DUEL_PH), env.leader, -1)
        marks[:, 4] = np.where(env.trick_len > 0, env.trick_win, -1)
        marks[:, 5] = env.thrower
        m = np.take(self.markb_flat, (obsr * (n + 1) + 1)[:, None] + marks)  # [B, 6]
        at = K1_BIT
        lo = (
            f[:, 0] | (f[:, 1] << at["in_round"]) | (m[:, 0] << at["dealer"]) | (m[:, 1] << at["declarer"])
            | (m[:, 2] << at["acting"]) | (m[:, 3] << at["leader"]) | (f[:, 2] << at["trick_played"])
            | (m[:, 4] << at["trick_winning"]) | (m[:, 5] << at["thrower"])
        )
        put(W, lo, OFF["active"])
        put(W, (f[:, 3] << K1_BIT_HI["joiner"]) | (f[:, 4] << K1_BIT_HI["bounced"]), OFF["active"] + 64)
        # voids: rotate the packed 4n bits so that the observer's nibble comes first
        v = env.void_bits.astype(np.uint64)
        sh = (4 * obsr).astype(np.uint64)
        v = ((v >> sh) | (v << (np.uint64(4 * n) - sh))) & np.uint64((1 << (4 * n)) - 1)
        put(W, v, OFF["voids"])
        # the real-valued entries
        fl = self.floats  # its last columns hold the static non-0/1 values for good
        fl[:, :n] = np.take(SCORE_T, sci)
        fl[:, n : 2 * n] = TRICKS_T[tricks_rel]
        fl[:, 2 * n : 3 * n] = THROWS_T[throws_rel.view(np.uint8)]
        fl[:, 3 * n] = env.rounds_played / self.progress_scale
        fl[:, 3 * n + 1] = STOCK_T[env.stock_len]
        fl[:, 3 * n + 2] = TIED_T[np.minimum(env.tied_duels, MAX_TIED_DUELS + 1)]
        # unpack, convert and patch in cache-sized row chunks
        out = self._buffer(len(obsr))
        Wb = W.view(np.uint8)
        cols = self.float_cols
        for i in range(0, len(obsr), CHUNK):
            o = out[i : i + CHUNK]
            o[...] = np.unpackbits(Wb[i : i + CHUNK], axis=1, count=OBS_SIZE, bitorder="little")
            o[:, cols] = fl[i : i + CHUNK]
        return out, hand

    def _buffer(self, B: int) -> np.ndarray:
        """A float32 [B, D] array for new observations: one of ours that nobody else holds
        any more (checked by reference count), else a new one. Returning a fresh array each
        step is the contract; reusing a released one saves the page faults of fresh memory
        (large arrays are mmapped anew by malloc)."""
        pool = self.pool
        for k in range(len(pool)):
            if sys.getrefcount(pool[k]) <= FREE_REFS:  # only the pool holds it
                return pool[k]
        buf = np.empty((B, OBS_SIZE), np.float32)
        pool.append(buf)
        if len(pool) > 3:
            pool.pop(0)
        return buf
