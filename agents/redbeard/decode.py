"""Read an observation vector back into named fields, so bots read like the rules.

The layout is :mod:`redbeard_env.redbeard.observation` (named blocks ``OBS_SLICES``); this module
is its inverse. Two views:

* :func:`decode_batch` — arrays with a leading batch axis (what the vectorised bots use):
  ``view.hand`` bool ``[B, 52]``, ``view.score`` int ``[B, 7]`` (relative positions, 0 = the
  observer), ``view.declarer`` int ``[B]`` (a relative position, -1 = none), ...
* :func:`decode` — one observation as plain Python values (lists of card ids, ints,
  ``None``), convenient in tests, notebooks and scripted bots.

:func:`rules_from_obs` recovers the :class:`~redbeard_env.redbeard.rules.Rules` from the ``rules``
block. Two fields are not in the block: ``max_rounds`` and the sheet's ``players`` range;
they are taken from the ``base`` rules (default ``classic``), so ``rounds_played`` is
recovered exactly only when ``max_rounds`` is the preset's.

:func:`encode_batch` turns a decoded view back into the exact vector (the round trip is
tested), which also documents how every field is stored.

Positions are relative: position ``p`` is the player ``p`` seats to the observer's left;
positions at or beyond ``num_players`` are padding. Calls use the engine's convention:
``NO_CALL`` (-2), ``PASSED`` (-1), a bid level 0..6, or 7 for Rödskägg.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from redbeard_env.redbeard.cards import NUM_CARDS
from redbeard_env.redbeard.game import JOIN_STATES, NO_CALL, PHASE_NAMES
from redbeard_env.redbeard.observation import OBS_HIGH, OBS_LOW, OBS_SIZE, OBS_SLICES, POSITIONS, RULE_NUMBERS, SCORE_BINS, SCORE_SCALE
from redbeard_env.redbeard.rules import BOOL_FIELDS, CHOICES, MIN_PLAYERS, PRESETS, Rules, make_rules

P = POSITIONS
PHASE = {name: i for i, name in enumerate(PHASE_NAMES)}  # phase name -> index

# Fields of ObsBatch that hold one relative position per row (-1 = nobody).
POSITION_FIELDS = ("dealer", "declarer", "acting", "leader", "trick_winning", "thrower")
# Boolean per-position blocks.
FLAG_FIELDS = ("active", "in_round", "trick_played", "joiner", "bounced")


@dataclass
class ObsBatch:
    """Decoded observations, one row per observation (relative positions, padded to 7)."""

    phase: np.ndarray  # int [B], index into PHASE_NAMES (redeal look bid ask join play duel done)
    num_players: np.ndarray  # int [B]
    rules_block: np.ndarray  # float32 [B, 37], the raw rules block (see rules_from_obs)
    progress: np.ndarray  # float32 [B], rounds_played / max_rounds
    hand: np.ndarray  # bool [B, 52], the observer's cards
    played: np.ndarray  # bool [B, 52], cards of the finished tricks of this deal
    trick: np.ndarray  # bool [B, 52], cards of the current trick
    seen_thrown: np.ndarray  # bool [B, 52], thrown-in cards the observer has seen
    tricks_done: np.ndarray  # int [B], finished tricks this deal
    high_bid: np.ndarray  # int [B], -1 none, 0..6, 7 = Rödskägg
    join_state: np.ndarray  # int [B], index into JOIN_STATES (pending asked skipped)
    redeals_open: np.ndarray  # bool [B]
    reshuffled: np.ndarray  # bool [B], thrown-in hands went back into the stock
    stock_size: np.ndarray  # int [B]
    tied_duels: np.ndarray  # int [B]
    me_forced: np.ndarray  # bool [B], the observer is the dealer who may not pass
    score: np.ndarray  # int [B, 7], running scores (from the `score` block; exact to ±120)
    active: np.ndarray  # bool [B, 7], not eliminated
    in_round: np.ndarray  # bool [B, 7], dealt in and not folded (duel: a duellist)
    dealer: np.ndarray  # int [B], position or -1
    declarer: np.ndarray  # int [B], position or -1
    acting: np.ndarray  # int [B], position or -1
    leader: np.ndarray  # int [B], position or -1
    trick_played: np.ndarray  # bool [B, 7], has played to the current trick
    trick_winning: np.ndarray  # int [B], position holding the winning card, or -1
    thrower: np.ndarray  # int [B], position whose thrown-in hand is up for a look, or -1
    tricks: np.ndarray  # int [B, 7], tricks this deal
    joiner: np.ndarray  # bool [B, 7], joined without a trick
    bounced: np.ndarray  # bool [B, 7], reached 0 this round (zero_rule = bounce)
    throws: np.ndarray  # int [B, 7], hands thrown in this deal (3 means 3 or more)
    voids: np.ndarray  # bool [B, 7, 4], shown void in suit C D H S
    call: np.ndarray  # int [B, 7], NO_CALL, PASSED, 0..6 or 7 (Rödskägg)

    def __len__(self) -> int:
        return len(self.phase)

    def rows(self, index) -> "ObsBatch":
        """The sub-batch of the given rows (bool mask, indices, or a slice: then views)."""
        if isinstance(index, slice):
            return ObsBatch(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})
        index = np.flatnonzero(index) if np.asarray(index).dtype == bool else index
        return ObsBatch(**{f.name: np.take(getattr(self, f.name), index, 0) for f in dataclasses.fields(self)})

    def seat_mask(self) -> np.ndarray:
        """bool [B, 7]: positions that are real players (below num_players)."""
        return np.arange(P)[None, :] < self.num_players[:, None]


def _as_batch(obs: Any) -> np.ndarray:
    if isinstance(obs, dict):
        obs = obs["observation"]
    arr = np.asarray(obs, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != OBS_SIZE:
        raise ValueError(f"an observation vector has {OBS_SIZE} entries; got an array of shape {arr.shape}")
    return arr


def _one_hot_index(block: np.ndarray, none: int = -1) -> np.ndarray:
    """Index of the set entry in each row of a bool block; ``none`` where the row has none
    (the entry at the argmax tells: faster than ``any`` over short axes)."""
    flat = block.reshape(-1, block.shape[-1])
    index = flat.argmax(1)
    return np.where(flat[np.arange(len(flat)), index], index, none).reshape(block.shape[:-1])


def decode_batch(obs: Any) -> ObsBatch:
    """Decode observations ``float32 [B, 542]`` (or one vector, or an env observation dict).
    The bool fields are read-only views into one bool copy of the 0/1 entries."""
    o = _as_batch(obs)
    B = len(o)
    on = o > 0.5  # every 0/1 entry, in one pass
    on.flags.writeable = False  # shared by the flag fields below
    S = OBS_SLICES
    flag = lambda name: on[:, S[name]]  # noqa: E731
    index = lambda name: _one_hot_index(flag(name))  # noqa: E731
    # adjacent blocks of one position mark each: dealer declarer acting leader; trick_winning thrower
    marks = _one_hot_index(on[:, S["dealer"].start : S["leader"].stop].reshape(B, 4, P))
    marks2 = _one_hot_index(on[:, S["trick_winning"].start : S["thrower"].stop].reshape(B, 2, P))
    deal_flags = S["deal_flags"].start
    return ObsBatch(
        phase=index("phase"),
        num_players=index("num_players") + MIN_PLAYERS,
        rules_block=o[:, S["rules"]].copy(),
        progress=o[:, S["progress"].start].copy(),
        hand=flag("hand"),
        played=flag("played"),
        trick=flag("trick"),
        seen_thrown=flag("seen_thrown"),
        tricks_done=index("tricks_done"),
        high_bid=index("high_bid") - 1,
        join_state=index("join_state"),
        redeals_open=on[:, deal_flags],
        reshuffled=on[:, deal_flags + 1],
        stock_size=np.rint(o[:, deal_flags + 2] * NUM_CARDS).astype(np.int64),
        tied_duels=np.rint(o[:, deal_flags + 3] * 10).astype(np.int64),
        me_forced=on[:, S["me_forced"].start],
        score=np.rint(o[:, S["score"]] * SCORE_SCALE).astype(np.int64),
        active=flag("active"),
        in_round=flag("in_round"),
        dealer=marks[:, 0],
        declarer=marks[:, 1],
        acting=marks[:, 2],
        leader=marks[:, 3],
        trick_played=flag("trick_played"),
        trick_winning=marks2[:, 0],
        thrower=marks2[:, 1],
        tricks=np.rint(o[:, S["tricks"]] * 6).astype(np.int64),
        joiner=flag("joiner"),
        bounced=flag("bounced"),
        throws=np.rint(o[:, S["throws"]] * 3).astype(np.int64),
        voids=flag("voids").reshape(B, P, 4),
        call=_one_hot_index(flag("call").reshape(B, P, 10), none=0) - 2,  # padding: NO_CALL
    )


def encode_batch(view: ObsBatch) -> np.ndarray:
    """The inverse of :func:`decode_batch`: the exact observation vectors."""
    B = len(view)
    o = np.zeros((B, OBS_SIZE), dtype=np.float32)
    rows = np.arange(B)

    def put_index(name: str, index: np.ndarray, offset: int = 0) -> None:
        ok = index >= 0
        o[rows[ok], OBS_SLICES[name].start + index[ok] + offset] = 1.0

    def put(name: str, values: np.ndarray) -> None:
        o[:, OBS_SLICES[name]] = values.reshape(B, -1)

    put_index("phase", view.phase)
    put_index("num_players", view.num_players - MIN_PLAYERS)
    put("rules", view.rules_block)
    put("progress", view.progress)
    for name in ("hand", "played", "trick", "seen_thrown"):
        put(name, getattr(view, name))
    put_index("tricks_done", view.tricks_done)
    put_index("high_bid", view.high_bid + 1)
    put_index("join_state", view.join_state)
    put(
        "deal_flags",
        np.stack(
            [view.redeals_open, view.reshuffled, view.stock_size / NUM_CARDS, view.tied_duels / 10.0], axis=1
        ),
    )
    put("me_forced", view.me_forced)
    real = view.seat_mask()
    put("score", np.where(real, np.clip(view.score / SCORE_SCALE, OBS_LOW, OBS_HIGH), 0))
    bins = np.zeros((B, P, SCORE_BINS), dtype=np.float32)
    r, p = np.nonzero(real)
    bins[r, p, np.clip(view.score[r, p], -1, 7) + 1] = 1.0
    put("score_bin", bins)
    for name in FLAG_FIELDS:
        put(name, getattr(view, name))
    for name in POSITION_FIELDS:
        put_index(name, getattr(view, name))
    put("tricks", view.tricks / 6.0)
    put("throws", np.minimum(view.throws / 3.0, 1.0))
    put("voids", view.voids)
    calls = np.zeros((B, P, 10), dtype=np.float32)
    r, p = np.nonzero(real)
    calls[r, p, view.call[r, p] + 2] = 1.0
    put("call", calls)
    return o


# ------------------------------------------------------------------ rules
def rules_from_block(block: np.ndarray, base: "str | Rules" = "classic") -> Rules:
    """The Rules encoded in one ``rules`` block (``max_rounds`` and ``players`` from ``base``)."""
    block = np.asarray(block, dtype=np.float64).ravel()
    fields: dict[str, Any] = {}
    i = 0
    for name, values in CHOICES.items():
        fields[name] = values[int(np.argmax(block[i : i + len(values)]))]
        i += len(values)
    for name in BOOL_FIELDS:
        fields[name] = bool(block[i] > 0.5)
        i += 1
    for name, scale in RULE_NUMBERS:
        fields[name] = int(round(block[i] * scale))
        i += 1
    fields["eliminate_at"] = int(round(block[i] * 32.0)) if block[i + 1] > 0.5 else None
    base_rules = PRESETS[base] if isinstance(base, str) else base
    return make_rules(base_rules, **fields)


_RULES_CACHE: dict[bytes, Rules] = {}


def rules_from_obs(obs: Any, base: "str | Rules" = "classic") -> Rules:
    """The Rules of an observation (or of the first row of a batch / an ObsBatch)."""
    block = obs.rules_block[0] if isinstance(obs, ObsBatch) else _as_batch(obs)[0, OBS_SLICES["rules"]]
    key = np.asarray(block, dtype=np.float32).tobytes() + repr(base).encode()
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE[key] = rules_from_block(block, base)
    return rules


def rules_groups(view: ObsBatch) -> list[np.ndarray]:
    """Row indices grouped by identical (rules block, player count); usually one group."""
    key = np.concatenate([view.rules_block, view.num_players[:, None].astype(np.float32)], axis=1)
    if len(key) == 0 or (key == key[0]).all():
        return [np.arange(len(key))]
    _, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return [np.flatnonzero(inverse == k) for k in range(inverse.max() + 1)]


# ------------------------------------------------------------------ one observation, plain values
@dataclass
class Observation:
    """One observation as plain Python values; positions are relative (0 = me)."""

    phase: str
    num_players: int
    rules: Rules
    rounds_played: int
    hand: list[int]  # card ids, ascending
    played: list[int]
    trick: list[int]  # cards of the current trick (in card order; play order is not encoded)
    seen_thrown: list[int]
    tricks_done: int
    high_bid: int | None  # None, 0..6, 7 = Rödskägg
    join_state: str
    redeals_open: bool
    reshuffled: bool
    stock_size: int
    tied_duels: int
    me_forced: bool
    scores: list[int]  # one per position 0..n-1
    active: list[bool]
    in_round: list[bool]
    dealer: int | None
    declarer: int | None
    acting: int | None
    leader: int | None
    trick_played: list[bool]
    trick_winning: int | None
    thrower: int | None
    tricks: list[int]
    joiner: list[bool]
    bounced: list[bool]
    throws: list[int]
    voids: list[list[bool]]  # position x suit (C D H S)
    calls: list[int | None]  # None (not called), PASSED (-1), 0..6, 7 = Rödskägg


def decode(obs: Any, base: "str | Rules" = "classic") -> Observation:
    """Decode one observation vector (or env observation dict) into plain named fields."""
    v = decode_batch(obs)
    if len(v) != 1:
        raise ValueError(f"decode() takes one observation; use decode_batch for {len(v)}")
    n = int(v.num_players[0])
    rules = rules_from_obs(v, base)
    pos = lambda a: None if a[0] < 0 else int(a[0])  # noqa: E731
    cards = lambda a: [int(c) for c in np.flatnonzero(a[0])]  # noqa: E731
    return Observation(
        phase=PHASE_NAMES[int(v.phase[0])],
        num_players=n,
        rules=rules,
        rounds_played=int(round(float(v.progress[0]) * rules.max_rounds)),
        hand=cards(v.hand),
        played=cards(v.played),
        trick=cards(v.trick),
        seen_thrown=cards(v.seen_thrown),
        tricks_done=int(v.tricks_done[0]),
        high_bid=None if v.high_bid[0] < 0 else int(v.high_bid[0]),
        join_state=JOIN_STATES[int(v.join_state[0])],
        redeals_open=bool(v.redeals_open[0]),
        reshuffled=bool(v.reshuffled[0]),
        stock_size=int(v.stock_size[0]),
        tied_duels=int(v.tied_duels[0]),
        me_forced=bool(v.me_forced[0]),
        scores=[int(x) for x in v.score[0, :n]],
        active=[bool(x) for x in v.active[0, :n]],
        in_round=[bool(x) for x in v.in_round[0, :n]],
        dealer=pos(v.dealer),
        declarer=pos(v.declarer),
        acting=pos(v.acting),
        leader=pos(v.leader),
        trick_played=[bool(x) for x in v.trick_played[0, :n]],
        trick_winning=pos(v.trick_winning),
        thrower=pos(v.thrower),
        tricks=[int(x) for x in v.tricks[0, :n]],
        joiner=[bool(x) for x in v.joiner[0, :n]],
        bounced=[bool(x) for x in v.bounced[0, :n]],
        throws=[int(x) for x in v.throws[0, :n]],
        voids=[[bool(x) for x in row] for row in v.voids[0, :n]],
        calls=[None if c == NO_CALL else int(c) for c in v.call[0, :n]],
    )


_SUIT_SHIFTS = np.arange(0, NUM_CARDS, 13, dtype=np.uint64)  # where each suit's 13 bits start
_POPCOUNT13 = np.array([bin(i).count("1") for i in range(1 << 13)], np.int64)


def suit_counts(cards: np.ndarray) -> np.ndarray:
    """int [B, 5]: the cards of each suit (C D H S) and in all in card sets bool [B, 52]
    (the sets packed into bits, counted by table: much faster than numpy's sums over
    short axes)."""
    packed = np.zeros((len(cards), 8), np.uint8)
    packed[:, :7] = np.packbits(cards, axis=1, bitorder="little")
    bits = packed.view("<u8")  # [B, 1], bit = card id
    out = np.empty((len(cards), 5), np.int64)
    out[:, :4] = _POPCOUNT13[(bits >> _SUIT_SHIFTS) & np.uint64(0x1FFF)]
    out[:, 4] = out[:, 0] + out[:, 1] + out[:, 2] + out[:, 3]
    return out


def led_suit(view: ObsBatch, mask: np.ndarray | None = None) -> np.ndarray:
    """int [B]: the suit led to the current trick, -1 when no card is on the table.

    The observation holds the trick's cards as a set, not in play order. The led suit is
    read from the action mask when the observer can follow (the mask is then exactly the
    observer's cards of that suit); otherwise it is a suit on the table the observer does
    not hold and for which everyone else who played is shown void, preferring the one
    with most cards there; ``-1`` never comes back while a card is on the table."""
    B = len(view)
    trick_counts, hand_counts = suit_counts(view.trick), suit_counts(view.hand)
    per_suit_trick, per_suit_hand = trick_counts[:, :4], hand_counts[:, :4]
    out = np.full(B, -1, dtype=np.int64)
    on_table = trick_counts[:, 4] > 0
    if mask is not None:
        allowed_counts = suit_counts(np.asarray(mask)[:, :NUM_CARDS] > 0)
        allowed = allowed_counts[:, :4]
        n_suits = np.count_nonzero(allowed, -1)
        restricted = on_table & (n_suits == 1) & (allowed_counts[:, 4] < hand_counts[:, 4])
        out[restricted] = allowed[restricted].argmax(-1)
        # a single-suit hand: it follows if that suit is on the table
        single = on_table & (n_suits == 1) & ~restricted
        s = allowed.argmax(-1)
        follows = per_suit_trick[np.arange(B), s] > 0
        out[single & follows] = s[single & follows]
    todo = on_table & (out < 0)
    if todo.any():
        # If suit s was led, every other player who has played to this trick without
        # playing s is now shown void in s: enough void flags are needed for s.
        others = view.trick_played.copy()
        lead = view.leader
        has_leader = lead >= 0
        others[np.arange(B)[has_leader], lead[has_leader]] = False
        void_count = np.zeros((B, 4), np.int64)  # [B, 4] (a loop over positions: faster than sum(1))
        for p in range(P):
            void_count += others[:, p, None] & view.voids[:, p]
        not_of_suit = trick_counts[:, 4:] - per_suit_trick
        possible = (per_suit_trick > 0) & (void_count >= not_of_suit) & (per_suit_hand == 0)
        score = np.where(possible, per_suit_trick + 0.5, np.where(per_suit_trick > 0, 0.25, 0.0))
        out[todo] = score[todo].argmax(-1)
    return out


def legal_actions(mask: Any) -> list[int]:
    """Action ids allowed by an action mask (or an env observation dict)."""
    if isinstance(mask, dict):
        mask = mask["action_mask"]
    return [int(a) for a in np.flatnonzero(np.asarray(mask))]
