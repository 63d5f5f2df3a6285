"""The ``heuristic`` bot's action values, compiled with numba: one observation row at a time.

This is the implementation behind :meth:`agents.redbeard.heuristic.HeuristicAgent.action_values`
(see that module for what the values mean). Each row is decoded straight from the float
observation (blocks of :mod:`redbeard_env.redbeard.observation`); a card model infers what the
observer can about the hidden cards and one function a phase values the actions, with the
arithmetic of the former vectorised numpy code kept in the same order (card model,
Poisson-binomial trick counts, outcome tables, the bid Monte Carlo over fixed uniforms),
so the values are those of the recorded golden positions (``tests/golden/heuristic_values.npz``)
up to the last bit of ``exp``/``log1p`` (numpy's vectorised ones and libm's differ there).

A round's end is scored by the batch engine's own arithmetic
(:mod:`redbeard_env.redbeard.vector_scoring`); the utility of a score is the bot's. The codes
and sizes are the engine's (:mod:`redbeard_env.redbeard.vector_state`); the observation
layout, the rules and the bot's parameters come in as tuples of numbers at run time. The
on-disk cache is stamped with the engine files called (:func:`redbeard_env.jit_cache.cache_with`).
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np
from numba import njit

from redbeard_env.jit_cache import cache_with
from redbeard_env.redbeard import observation as _obs
from redbeard_env.redbeard import rules as _rules
from redbeard_env.redbeard import vector_scoring as _scoring
from redbeard_env.redbeard import vector_state as _state
from redbeard_env.redbeard.rules import Rules
from redbeard_env.redbeard.vector_scoring import contract_made, contract_penalty, score_after_tricks, trickless_penalty
from redbeard_env.redbeard.vector_state import (  # the engine's codes and sizes, checked there against their sources
    ASK, BID0, FOLD, JOIN, KEEP, LOOK, NO_LOOK, NUM_ACTIONS, PASS, REDBEARD, REDEAL, SKIP,  # action ids
    ASK_PH, BID_PH, DONE_PH, DUEL_PH, JOIN_PH, LOOK_PH, PLAY_PH, REDEAL_PH,  # phases
    CALL_WIDTH, FACE_BITS, HAND, NO_CALL, NUM_CARDS, NUM_RANKS, NUM_SUITS, PENALTY, REDBEARD_LEVEL, SCORE_SCALE,
    SUIT_MASK, has, popcount,
)
from redbeard_env.redbeard.vector_state import MAX_PLAYERS as POSITIONS  # relative positions in the observation
from redbeard_env.redbeard.vector_state import TRICKS_PER_ROUND as TRICKS

NUM_PHASES = DONE_PH + 1  # the observation's phase block: redeal .. done
ALL_CARDS = np.uint64((1 << NUM_CARDS) - 1)
COUNTS = TRICKS + 1  # bins of a trick-count distribution: 0..6
K = TRICKS + 2  # trick counts 0..7 in outcome tables (7 only as padding)
LEVELS = REDBEARD_LEVEL + 1  # bid levels 0..6 and Rödskägg
HIGH_BID_SIZE = LEVELS + 1  # the observation's high bid: none, 0..6, Rödskägg
assert (_obs.OBS_BLOCKS["phase"], _obs.OBS_BLOCKS["tricks_done"], _obs.OBS_BLOCKS["high_bid"]) == (
    NUM_PHASES, COUNTS, HIGH_BID_SIZE)

# ---------------------------------------------------------------- numbers in, as tuples
A_WIN, A_NEG, A_ELIM, A_CONTROL, A_MARGIN, A_BLOCK, A_QSCALE, A_FOLLOW, A_DEFEND, A_REDEAL, A_THREAT = range(11)
R_JTV, R_JFP, R_ZTP, R_FORGET, R_JOIN_AT, R_ZERO, R_EXACT, R_RB_ELIM, R_HAS_ELIM, R_ELIM_AT = range(10)
R_LEADER_DECL, R_PENALTY_BOS, R_CHALLENGE = range(10, 13)
_BLOCKS = ("phase", "num_players", "hand", "played", "trick", "seen_thrown", "tricks_done", "high_bid",
           "deal_flags", "score", "active", "in_round", "declarer", "leader", "trick_played", "trick_winning",
           "thrower", "tricks", "joiner", "bounced", "voids", "call")
(O_PHASE, O_NUM_PLAYERS, O_HAND, O_PLAYED, O_TRICK, O_SEEN, O_TRICKS_DONE, O_HIGH_BID, O_DEAL_FLAGS, O_SCORE,
 O_ACTIVE, O_IN_ROUND, O_DECLARER, O_LEADER, O_TRICK_PLAYED, O_TRICK_WINNING, O_THROWER, O_TRICKS, O_JOINER,
 O_BOUNCED, O_VOIDS, O_CALL) = range(len(_BLOCKS))


_OFFSETS = tuple(int(_obs.OFF[b]) for b in _BLOCKS)


def obs_offsets() -> tuple:
    return _OFFSETS


@functools.lru_cache(maxsize=128)  # Rules are frozen; a search or a one-game env calls per decision
def rule_numbers(rules: Rules) -> tuple:
    r = rules
    return (
        int(r.joiner_trick_value), int(r.joiner_fail_penalty), int(r.zero_trick_penalty), int(r.forget_penalty),
        int(r.join_at), _rules.CHOICES["zero_rule"].index(r.zero_rule), int(r.contract == "exact"),
        int(r.redbeard_fail == "eliminate"), int(r.eliminate_at is not None), int(r.eliminate_at or 0),
        int(r.leader == "declarer"), int(r.bid_over_score == "penalty"), int(r.redeal == "challenge"),
    )


# this module's compiled code calls the engine's scoring: its cache is stamped with those files
_CACHED = cache_with(__file__, _state, _scoring)
rule = njit(cache=_CACHED, no_cpython_wrapper=True, no_cfunc_wrapper=True)
# small helpers, inlined into their callers: a call that passes arrays costs reference counting
inline = njit(cache=_CACHED, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
# the phases' values: compiled on their own, without reference counting (they borrow their
# caller's arrays); inlined as well, they doubled the compile time and ran no faster
borrowing = njit(cache=_CACHED, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False)


# ---------------------------------------------------------------- utilities of round endings
@rule
def value_of_score(f, R, A):
    """Utility of ending a round on score ``f`` (no win): minus the distance to 0."""
    f = np.float64(f)
    u = -f if f > 0 else (A[A_WIN] if f == 0 else f - A[A_NEG])
    if R[R_HAS_ELIM] and f >= R[R_ELIM_AT]:
        u = -A[A_ELIM]
    return u


@rule
def outcome(R, A, score, tricks, joiner, bounced, level, zero_trick, k):
    """Utility of taking ``k`` more tricks this round from running ``score`` with
    ``tricks`` taken (``level``: own bid level as declarer, else -1; ``zero_trick``: whether
    zero_trick_penalty counts), scored as the engine scores the round."""
    v = np.int64(R[R_JTV]) if joiner else np.int64(1)
    final, _, won_now = score_after_tricks(np.int64(score), v, bounced, R[R_ZERO], k)
    total = tricks + k
    if level >= 0:
        final += contract_penalty(level, total, R[R_EXACT], R[R_RB_ELIM])
    if total == 0:
        final += trickless_penalty(joiner, R[R_JFP], R[R_ZTP] if zero_trick else 0)
    rb_made = level == REDBEARD_LEVEL and contract_made(level, total, R[R_EXACT])
    u = value_of_score(final, R, A)
    if won_now or rb_made:
        u = A[A_WIN]
    if R[R_RB_ELIM] and level == REDBEARD_LEVEL and not rb_made:
        u = -A[A_ELIM]
    return u


@njit(cache=_CACHED, nogil=True)
def outcome_tables(R, A, score, tricks, joiner, bounced, level, zero_trick, out):
    """Outcome tables for many inputs (flat int arrays of one length): out [m, K]."""
    for i in range(len(score)):
        for k in range(K):
            out[i, k] = outcome(R, A, score[i], tricks[i], joiner[i], bounced[i], level[i], zero_trick, k)


@njit(cache=_CACHED, nogil=True)
def values_of_scores(R, A, f, out):
    for i in range(len(f)):
        out[i] = value_of_score(f[i], R, A)


@inline
def my_table(R, A, score0, tricks0, joiner0, bounced0, level, offset, zero_trick, table):
    for x in range(K):
        table[x] = outcome(R, A, score0 + offset, tricks0, joiner0, bounced0, level, zero_trick, x)


# ---------------------------------------------------------------- trick-count distributions
@inline
def poisson(p, m, skip, dist):
    """Distribution of successes of ``p[:m]`` (event ``skip`` left out) into dist[COUNTS]
    (mass above TRICKS folded into the last bin), in the numpy code's order of operations."""
    for x in range(COUNTS):
        dist[x] = 0.0
    dist[0] = 1.0
    for j in range(m):
        pj = 0.0 if j == skip else min(max(p[j], 0.0), 1.0)
        top = dist[TRICKS] * pj
        for x in range(TRICKS, 0, -1):
            moved_below = dist[x - 1] * pj
            dist[x] = (dist[x] - dist[x] * pj) + moved_below
        dist[0] = dist[0] - dist[0] * pj
        dist[TRICKS] = dist[TRICKS] + top


@inline
def suit_total(q, live, s):
    """The live players' summed q[p, s] (player p's share of the unseen cards of suit s)."""
    Q = 0.0
    for p in range(POSITIONS):
        Q += q[p, s] * live[p]
    return Q


@inline
def miss_logs(q, live, Qs, logmiss):
    """Qs[s]: the live players' summed q in suit s, kept below 1; logmiss[s] = log(1 - Qs[s])."""
    for s in range(NUM_SUITS):
        Qs[s] = min(max(suit_total(q, live, s), 0.0), 1.0 - 1e-12)
        logmiss[s] = np.log1p(-Qs[s])


@inline
def later_chances(R, n, sc, unseen_count, declarer, duel, scale):
    """sc.p6[j]: chance the hand's j-th card wins a later trick (times ``scale``; 0 for
    padding). Under leader = declarer a follower's card also needs the declarer to lead its suit."""
    q, unseen_suit, higher, slots, logmiss, factor = sc.q, sc.unseen_suit, sc.higher, sc.slots, sc.logmiss, sc.factor
    miss_logs(q, sc.live, sc.Qs, logmiss)
    for s in range(NUM_SUITS):
        factor[s] = 1.0
    use_factor = R[R_LEADER_DECL] and not duel
    if use_factor:
        if declarer < 0:  # before the auction is over: the declarer is unknown
            q_one = HAND / max(unseen_count, 1)
            for s in range(NUM_SUITS):
                factor[s] = 1.0 - (1.0 - q_one) ** np.float64(unseen_suit[s])
        elif declarer > 0:
            for s in range(NUM_SUITS):
                factor[s] = 1.0 - (1.0 - q[declarer, s]) ** np.float64(unseen_suit[s])
    for j in range(HAND):
        c = slots[j]
        base = np.exp(higher[c] * logmiss[c // NUM_RANKS])
        v = base * factor[c // NUM_RANKS] if use_factor else base * 0.75
        sc.p6[j] = v * scale if sc.valid[j] else 0.0


# ---------------------------------------------------------------- one row: reading it
@inline
def decode_cards(obs, b, at):
    h = np.uint64(0)
    for c in range(NUM_CARDS):
        h |= np.uint64(obs[b, at + c] > 0.5) << np.uint64(c)
    return h


@inline
def one_hot(obs, b, at, size, none):
    best = 0
    for i in range(1, size):
        if obs[b, at + i] > obs[b, at + best]:
            best = i
    return best if obs[b, at + best] > 0.5 else none


@inline
def clear_absent(n, sc):
    """Positions the table does not have (their blocks are all 0), once per call."""
    for p in range(n, POSITIONS):
        sc.score[p] = 0
        sc.tricks[p] = 0
        sc.active[p] = False
        sc.in_round[p] = False
        sc.trick_played[p] = False
        sc.joiner[p] = False
        sc.bounced[p] = False
        for s in range(NUM_SUITS):
            sc.voids[p, s] = False
        sc.call[p] = NO_CALL


@inline
def read_positions(obs, b, n, O, sc):
    """Row b's per-position blocks into the scratch arrays (positions 0..n-1)."""
    for p in range(n):
        sc.score[p] = np.int64(np.rint(obs[b, O[O_SCORE] + p] * np.float32(SCORE_SCALE)))
        sc.tricks[p] = np.int64(np.rint(obs[b, O[O_TRICKS] + p] * np.float32(TRICKS)))
        sc.active[p] = obs[b, O[O_ACTIVE] + p] > 0.5
        sc.in_round[p] = obs[b, O[O_IN_ROUND] + p] > 0.5
        sc.trick_played[p] = obs[b, O[O_TRICK_PLAYED] + p] > 0.5
        sc.joiner[p] = obs[b, O[O_JOINER] + p] > 0.5
        sc.bounced[p] = obs[b, O[O_BOUNCED] + p] > 0.5
        for s in range(NUM_SUITS):
            sc.voids[p, s] = obs[b, O[O_VOIDS] + NUM_SUITS * p + s] > 0.5
        sc.call[p] = one_hot(obs, b, O[O_CALL] + CALL_WIDTH * p, CALL_WIDTH, 0) + NO_CALL


# ---------------------------------------------------------------- one row: the card model
@inline
def card_model(R, n, phase, hand, played, trick, seen, reshuffled, tricks_done, thrower, sc):
    """What the observer can infer about the hidden cards, approximate on purpose (card
    locations independent, opponents take a trick when they can): unseen cards,
    sc.holding[p] cards each position still holds, sc.q[p, s] = chance one unseen card of
    suit s is in p's hand, sc.live, sc.higher[c] = unseen cards of c's suit that beat c,
    and the hand in sc.slots. Returns (unseen cards, their count, the hand's count)."""
    unseen_suit, holding, q, live, higher, voids = sc.unseen_suit, sc.holding, sc.q, sc.live, sc.higher, sc.voids
    active, in_round, trick_played = sc.active, sc.in_round, sc.trick_played
    in_play = phase == ASK_PH or phase == JOIN_PH or phase == PLAY_PH or phase == DUEL_PH
    trick_live = phase == PLAY_PH or phase == DUEL_PH
    seen_eff = np.uint64(0) if reshuffled else seen
    unseen = ~(hand | played | trick | seen_eff) & ALL_CARDS
    unseen_count = popcount(unseen)
    for s in range(NUM_SUITS):
        unseen_suit[s] = popcount((unseen >> np.uint64(NUM_RANKS * s)) & SUIT_MASK)
    left = TRICKS - tricks_done
    duel = phase == DUEL_PH
    for p in range(POSITIONS):
        tp = trick_played[p] and trick_live
        if in_play:
            if active[p] and not in_round[p] and not duel:  # folded
                hp = min(left, max(R[R_JOIN_AT], 0))
            else:
                hp = left - tp if in_round[p] else 0
        else:
            hp = HAND if active[p] else 0
            if p == thrower:
                hp = 0
        holding[p] = max(hp, 0) if p < n else 0
    holding[0] = 0
    for s in range(NUM_SUITS):
        blocked = 0
        for p in range(POSITIONS):
            blocked += holding[p] * voids[p, s]
        room = max(unseen_count - blocked, 1)
        total = 0.0
        for p in range(POSITIONS):
            qq = holding[p] * (not voids[p, s]) / room
            q[p, s] = qq if unseen_suit[s] > 0 else 0.0
            total += q[p, s]
        for p in range(POSITIONS):
            q[p, s] = q[p, s] / max(total, 1.0)
    for p in range(POSITIONS):
        live[p] = (in_round[p] if in_play else active[p]) and p < n
    live[0] = False
    for s in range(NUM_SUITS):
        above = 0
        for r in range(NUM_RANKS - 1, -1, -1):
            c = NUM_RANKS * s + r
            higher[c] = above
            above += has(unseen, c)
    return unseen, unseen_count, hand_slots(hand, sc.slots, sc.valid)


@inline
def hand_slots(hand, slots, valid):
    """slots: the hand's cards ascending (valid), then padding -- the lowest cards not in
    the hand (not valid), as numpy's stable argsort of ~hand gave them. Returns the hand's
    count."""
    hand_count = 0
    for c in range(NUM_CARDS):
        if has(hand, c) and hand_count < HAND:
            slots[hand_count] = c
            valid[hand_count] = True
            hand_count += 1
    k = hand_count
    c = 0
    while k < HAND:
        if not has(hand, c):
            slots[k] = c
            valid[k] = False
            k += 1
        c += 1
    return hand_count


# ---------------------------------------------------------------- the row loop
# the per-row arrays, reused row after row: the row's per-position blocks; the card model;
# trick chances and distributions, outcome tables; the bid Monte Carlo and the led suit
Scratch = namedtuple("Scratch", [
    "score", "tricks", "active", "in_round", "trick_played", "joiner", "bounced", "voids", "call",
    "holding", "live", "q", "higher", "unseen_suit", "slots", "valid",
    "p6", "w6", "rest", "dist", "table", "table2", "Qs", "logmiss", "factor",
    "aim", "counts", "free_above", "total_beaten", "per_trick", "per_hand", "allowed",
])


@njit(cache=_CACHED, nogil=True)
def new_scratch(bid_samples):
    """The per-row arrays of :func:`value_rows` (``bid_samples``: the bid Monte Carlo's
    sample count)."""
    z, P, S, i64, b1 = np.zeros, POSITIONS, NUM_SUITS, np.int64, np.bool_
    return Scratch(
        score=z(P, i64), tricks=z(P, i64), active=z(P, b1), in_round=z(P, b1), trick_played=z(P, b1),
        joiner=z(P, b1), bounced=z(P, b1), voids=z((P, S), b1), call=z(P, i64),
        holding=z(P, i64), live=z(P, b1), q=z((P, S)), higher=z(NUM_CARDS, i64), unseen_suit=z(S, i64),
        slots=z(HAND, i64), valid=z(HAND, b1), p6=z(HAND), w6=z(HAND), rest=z((HAND, COUNTS)), dist=z(COUNTS),
        table=z(K), table2=z(K), Qs=z(S), logmiss=z(S), factor=np.ones(S), aim=z((LEVELS, COUNTS)), counts=z(COUNTS),
        free_above=z(bid_samples, np.int32),  # per bid sample: higher unseen cards not yet matched
        total_beaten=z(bid_samples, np.int32), per_trick=z(S, i64), per_hand=z(S, i64), allowed=z(S, i64),
    )


@njit(cache=_CACHED, nogil=True)
def action_values(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice):
    """out [k, 69]: the heuristic's values of every action (-inf where illegal, mask > 0
    legal) for the k rows ``rows`` of ``obs`` (one rules group with ``n`` players);
    choice [k] their argmax (the first of equal maxima). Without ``all_values`` only ``choice`` is wanted: a row with a
    single legal action gets it without being valued, and every row's values go to
    ``out[0]`` in turn (``out`` [1, 69] is enough; what it holds afterwards means nothing).
    Returns the index in ``rows`` of the first row without a legal action, or -1."""
    sc = new_scratch(uniforms.shape[1])
    return value_rows(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice, sc)


# No reference counting in the row loop (nor in the phases' functions it calls): its arrays
# are all owned by the caller above, and numba's increments and decrements of them (atomic,
# around every inlined helper that takes an array) were a tenth of the time.
@njit(cache=_CACHED, nogil=True, _nrt=False)
def value_rows(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice, sc):
    """The row loop of :func:`action_values` (``sc``: its per-row arrays, :func:`new_scratch`):
    each row decoded, its cards modelled, its actions valued by the function of its phase."""
    clear_absent(n, sc)
    for i in range(len(rows)):
        b = rows[i]
        legal_count = 0
        for a in range(NUM_ACTIONS):
            legal_count += mask[b, a] > 0
        if legal_count == 0:
            return i
        if legal_count == 1 and not all_values:
            for a in range(NUM_ACTIONS):
                if mask[b, a] > 0:
                    choice[i] = a
                    break
            continue
        ob = i if all_values else 0  # the row of ``out`` this row's values go to
        for a in range(NUM_ACTIONS):
            out[ob, a] = -np.inf
        phase = one_hot(obs, b, O[O_PHASE], NUM_PHASES, -1)
        if phase < 0 or phase > DUEL_PH:  # a phase without a rule: every legal action is worth 0
            choice[i] = legal_argmax(mask, b, out, ob)
            continue
        hand = decode_cards(obs, b, O[O_HAND])
        trick = decode_cards(obs, b, O[O_TRICK])
        played = decode_cards(obs, b, O[O_PLAYED])
        seen = decode_cards(obs, b, O[O_SEEN])
        reshuffled = obs[b, O[O_DEAL_FLAGS] + 1] > 0.5
        tricks_done = one_hot(obs, b, O[O_TRICKS_DONE], COUNTS, -1)
        high_bid = one_hot(obs, b, O[O_HIGH_BID], HIGH_BID_SIZE, -1) - 1
        declarer = one_hot(obs, b, O[O_DECLARER], POSITIONS, -1)
        thrower = one_hot(obs, b, O[O_THROWER], POSITIONS, -1)
        read_positions(obs, b, n, O, sc)
        unseen, unseen_count, hand_count = card_model(R, n, phase, hand, played, trick, seen, reshuffled, tricks_done,
                                                      thrower, sc)
        if phase == PLAY_PH or phase == DUEL_PH:
            leader = one_hot(obs, b, O[O_LEADER], POSITIONS, -1)
            winning = one_hot(obs, b, O[O_TRICK_WINNING], POSITIONS, -1)
            top = play_values(R, A, n, b, ob, mask, out, sc, phase, hand, trick, declarer, leader, winning, high_bid,
                              tricks_done, unseen_count, legal_count)
            if top >= 0:  # every legal action a card of the hand: the best of them
                choice[i] = top
                continue
        elif phase == BID_PH:
            bid_values(R, A, n, b, ob, mask, out, sc, unseen, unseen_count, hand, hand_count, declarer, high_bid,
                       uniforms)
        elif phase == REDEAL_PH:
            redeal_values(R, A, ob, out, sc, hand)
        elif phase == LOOK_PH:
            look_values(R, A, ob, out, sc)
        elif phase == JOIN_PH:
            join_values(R, A, n, ob, out, sc, unseen_count, declarer, high_bid)
        else:
            ask_values(R, A, n, ob, out, sc, unseen_count, declarer, high_bid, tricks_done)
        choice[i] = legal_argmax(mask, b, out, ob)
    return -1


@inline
def legal_argmax(mask, b, out, ob):
    """Only legal actions keep a value (when none has one, every legal action is worth 0);
    returns the first of the highest."""
    top = -1
    for a in range(NUM_ACTIONS):
        if mask[b, a] <= 0:
            out[ob, a] = -np.inf
        elif top < 0 or out[ob, a] > out[ob, top]:
            top = a
    if out[ob, top] == -np.inf:
        for a in range(NUM_ACTIONS):
            if mask[b, a] > 0:
                out[ob, a] = 0.0
        top = 0
        while mask[b, top] <= 0:
            top += 1
    return top


@inline
def binary(out, b, base, other, gain):
    """A two-way choice: ``base`` is worth 0, ``other`` its ``gain`` (a tie keeps ``base``)."""
    out[b, base] = 0.0
    out[b, other] = gain if gain > 0 else gain - 1e-9


# ---------------------------------------------------------------- phase by phase
@borrowing
def redeal_values(R, A, ob, out, sc, hand):
    """Redeal: throw in a weak hand (expected tricks as declarer below ``redeal_below``);
    under ``challenge`` only one without a face card (throwing one risks +5 if someone looks)."""
    slots, higher, logmiss = sc.slots, sc.higher, sc.logmiss
    miss_logs(sc.q, sc.live, sc.Qs, logmiss)
    strength = 0.0
    for j in range(HAND):
        if sc.valid[j]:
            strength += np.exp(higher[slots[j]] * logmiss[slots[j] // NUM_RANKS])
    weak = strength < A[A_REDEAL]
    if R[R_CHALLENGE] and (hand & FACE_BITS) != 0:
        weak = False
    binary(out, ob, KEEP, REDEAL, 1.0 if weak else -1.0)


@borrowing
def look_values(R, A, ob, out, sc):
    """Look: worth what +5 on one's own score changes its utility (the looker takes the +5
    when the thrown hand has no face card)."""
    gain = value_of_score(sc.score[0] + PENALTY, R, A) - value_of_score(sc.score[0], R, A)
    binary(out, ob, NO_LOOK, LOOK, gain)


@borrowing
def join_values(R, A, n, ob, out, sc, unseen_count, declarer, high_bid):
    """Join: the expected utility of the later tricks as a joiner against folding (a tie joins)."""
    dist, table, tricks = sc.dist, sc.table, sc.tricks
    later_chances(R, n, sc, unseen_count, declarer, False, A[A_FOLLOW])
    poisson(sc.p6, HAND, -1, dist)
    level = high_bid if declarer == 0 else -1
    trickless = tricks[0] == 0
    my_table(R, A, sc.score[0], tricks[0], trickless, sc.bounced[0], level, 0, True, table)
    u_join = 0.0
    for x in range(COUNTS):
        u_join += dist[x] * table[x]
    u_fold = value_of_score(sc.score[0], R, A)
    binary(out, ob, FOLD, JOIN, u_join - u_fold + 1e-9)  # a tie joins


@borrowing
def ask_values(R, A, n, ob, out, sc, unseen_count, declarer, high_bid, tricks_done):
    """Ask / skip: skip when the forget penalty costs less than the win chances asking would
    hand to trickless opponents who could join onto exactly 0 (a tie asks)."""
    dist, table, table2, score, tricks = sc.dist, sc.table, sc.table2, sc.score, sc.tricks
    later_chances(R, n, sc, unseen_count, declarer, False, 1.0)
    poisson(sc.p6, HAND, -1, dist)
    level = high_bid if declarer == 0 else -1
    my_table(R, A, score[0], tricks[0], sc.joiner[0], sc.bounced[0], level, 0, True, table)
    my_table(R, A, score[0], tricks[0], sc.joiner[0], sc.bounced[0], level, R[R_FORGET], True, table2)
    u_ask = u_skip = 0.0
    for x in range(COUNTS):
        u_ask += dist[x] * table[x]
        u_skip += dist[x] * table2[x]
    left_now = TRICKS - tricks_done
    jv = R[R_JTV]
    n_ask = n_skip = 0
    for p in range(1, POSITIONS):
        if sc.in_round[p] and tricks[p] == 0:
            s = score[p]
            n_ask += s > 0 and s % jv == 0 and s // jv <= left_now
            n_skip += s > 0 and s <= left_now
    u_ask -= A[A_THREAT] * A[A_WIN] * n_ask
    u_skip -= A[A_THREAT] * A[A_WIN] * n_skip
    binary(out, ob, ASK, SKIP, u_skip - u_ask)  # a tie asks


@borrowing
def play_values(R, A, n, b, ob, mask, out, sc, phase, hand, trick, declarer, leader, trick_winning, high_bid,
                tricks_done, unseen_count, legal_count):
    """Cards (play and duel): each legal card's chance to win this trick (live players
    still to play beat it when they can) and the distribution of the later tricks, valued
    through the outcome table (a duel's: the tricks themselves). Returns the best card when
    every legal action is a card of the hand, else -1 (the caller takes the argmax)."""
    q, live, trick_played, Qs, logmiss = sc.q, sc.live, sc.trick_played, sc.Qs, sc.logmiss
    slots, valid, higher, w6, rest, dist, table = sc.slots, sc.valid, sc.higher, sc.w6, sc.rest, sc.dist, sc.table
    duel = phase == DUEL_PH
    led = led_suit(mask, b, hand, trick, leader, sc)
    # chance each hand card wins now (live players still to play beat it when they can)
    for s in range(NUM_SUITS):
        Q = 0.0
        for p in range(POSITIONS):
            Q += q[p, s] * (live[p] and not trick_played[p])
        Qs[s] = min(max(Q, 0.0), 1.0 - 1e-12)
        logmiss[s] = np.log1p(-Qs[s])
    best = -1  # the highest rank of the led suit in the trick
    if led >= 0:
        led_cards = (trick >> np.uint64(NUM_RANKS * led)) & SUIT_MASK
        for r in range(NUM_RANKS - 1, -1, -1):
            if has(led_cards, r):
                best = r
                break
    empty = trick == 0
    for j in range(HAND):
        c = slots[j]
        safe = np.exp(higher[c] * logmiss[c // NUM_RANKS])
        beats = empty or (c // NUM_RANKS == led and c % NUM_RANKS > best)
        w6[j] = safe if (mask[b, c] > 0 and beats) else 0.0
    later_chances(R, n, sc, unseen_count, declarer, duel, 1.0)
    for j in range(HAND):
        poisson(sc.p6, HAND, j, dist)
        for x in range(COUNTS):
            rest[j, x] = dist[x]
    my_table(R, A, sc.score[0], sc.tricks[0], sc.joiner[0], sc.bounced[0], high_bid if declarer == 0 else -1, 0,
             True, table)
    if duel:
        for x in range(K):
            table[x] = x
    wants = 0.0
    for j in range(HAND):
        # einsum's order: even terms, odd terms, then their sum
        ew = ow = el = ol = 0.0
        for x in range(0, COUNTS, 2):
            ew += rest[j, x] * table[x + 1]
            el += rest[j, x] * table[x]
        for x in range(1, COUNTS, 2):
            ow += rest[j, x] * table[x + 1]
            ol += rest[j, x] * table[x]
        if_win = ew + ow
        if_lose = el + ol
        wj = w6[j]
        value = wj * if_win + (1 - wj) * if_lose
        value += defence(R, A, phase, declarer, trick_winning, trick, high_bid, sc.tricks, tricks_done, sc.score, wj)
        rest[j, 0] = value  # reuse: the value before the tie-break
        wants += if_win - if_lose
    wants = wants / HAND
    top = -1
    valued = 0
    for j in range(HAND):  # the hand's cards in action-id order
        c = slots[j]
        if valid[j] and mask[b, c] > 0:
            rank = c % NUM_RANKS
            out[ob, c] = rest[j, 0] + 1e-6 * (-rank if wants > 0 else rank)
            valued += 1
            if top < 0 or out[ob, c] > out[ob, top]:
                top = c
    return top if valued == legal_count else -1  # every legal action a card of the hand: top is the argmax


@inline
def defence(R, A, phase, declarer, trick_winning, trick, high_bid, tricks, tricks_done, score, w):
    """Value of making a rival declarer fail (``defend`` > 0 only)."""
    if A[A_DEFEND] <= 0:
        return 0.0
    d = declarer
    if not (d > 0 and phase == PLAY_PH and trick_winning == d and trick != 0):
        return 0.0
    level = high_bid
    need = min(level, TRICKS) - tricks[d]
    left = TRICKS - tricks_done
    d_score = score[d]
    if R[R_EXACT]:
        threat = d_score - need == 0 or level == REDBEARD_LEVEL
    else:
        threat = (d_score >= need and d_score - need <= left - 1) or level == REDBEARD_LEVEL
    stake = A[A_WIN] if threat else PENALTY * A[A_DEFEND]
    f_win = fail_chance(R, need - 1, left - 1)
    f_lose = fail_chance(R, need, left - 1)
    p_decl = 1.0 - w
    return stake * (p_decl * f_win + (1 - p_decl) * f_lose)


@rule
def fail_chance(R, m, r):
    if R[R_EXACT]:
        impossible = m < 0 or m > r
        edge = m == 0 or m == r
    else:
        impossible = m > r
        edge = m == r
    return 1.0 if impossible else (0.4 if edge else 0.2)


@inline
def led_suit(mask, b, hand, trick, leader, sc):
    """The suit led to the current trick (see agents.redbeard.decode.led_suit), -1 if none."""
    per_trick, per_hand, allowed, trick_played, voids = sc.per_trick, sc.per_hand, sc.allowed, sc.trick_played, sc.voids
    for s in range(NUM_SUITS):
        per_trick[s] = popcount((trick >> np.uint64(NUM_RANKS * s)) & SUIT_MASK)
        per_hand[s] = popcount((hand >> np.uint64(NUM_RANKS * s)) & SUIT_MASK)
        k = 0
        for r in range(NUM_RANKS):
            k += mask[b, NUM_RANKS * s + r] > 0
        allowed[s] = k
    total_trick = per_trick[0] + per_trick[1] + per_trick[2] + per_trick[3]
    if total_trick == 0:
        return -1
    n_suits = a_sum = s_max = 0
    for s in range(NUM_SUITS):
        n_suits += allowed[s] > 0
        a_sum += allowed[s]
        if allowed[s] > allowed[s_max]:
            s_max = s
    hand_count = per_hand[0] + per_hand[1] + per_hand[2] + per_hand[3]
    if n_suits == 1:
        if a_sum < hand_count:
            return s_max
        if per_trick[s_max] > 0:
            return s_max
    best = 0
    best_score = -1.0
    for s in range(NUM_SUITS):
        void_count = 0
        for p in range(POSITIONS):
            if trick_played[p] and p != leader:
                void_count += voids[p, s]
        possible = per_trick[s] > 0 and void_count >= total_trick - per_trick[s] and per_hand[s] == 0
        rating = per_trick[s] + 0.5 if possible else (0.25 if per_trick[s] > 0 else 0.0)
        if rating > best_score:
            best_score = rating
            best = s
    return best


# ---------------------------------------------------------------- bids
@borrowing
def bid_values(R, A, n, b, ob, mask, out, sc, unseen, unseen_count, hand, hand_count, declarer, high_bid, uniforms):
    """Bids: each legal bid's expected utility against passing (see agents.redbeard.heuristic)."""
    # declarer chances of the hand's cards (leading against all live players)
    miss_logs(sc.q, sc.live, sc.Qs, sc.logmiss)
    for j in range(HAND):
        c = sc.slots[j]
        sc.w6[j] = np.exp(sc.higher[c] * sc.logmiss[c // NUM_RANKS]) if sc.valid[j] else 0.0
    u_pass = pass_value(R, A, n, sc, unseen_count, declarer, high_bid)
    declarer_trick_counts(A, sc, unseen, hand, hand_count, uniforms)
    aim_at_bids(A, sc)
    score0 = sc.score[0]
    out[ob, PASS] = u_pass + A[A_MARGIN]
    over = PENALTY if R[R_PENALTY_BOS] else 0
    for lv in range(LEVELS):
        off = over if min(lv, TRICKS) > score0 else 0
        u = 0.0
        for x in range(COUNTS):
            u += sc.aim[lv, x] * outcome(R, A, score0 + off, 0, False, sc.bounced[0], lv, True, x)
        u = u - 1e-6 * lv
        out[ob, REDBEARD if lv == REDBEARD_LEVEL else BID0 + lv] = u


@borrowing
def pass_value(R, A, n, sc, unseen_count, declarer, high_bid):
    """Passing: the hand's chances as a follower, less ``block`` times a win when the high
    bidder would win by making its bid."""
    later_chances(R, n, sc, unseen_count, declarer, False, A[A_FOLLOW])
    score, call, dist = sc.score, sc.call, sc.dist
    poisson(sc.p6, HAND, -1, dist)
    u_pass = 0.0
    for x in range(COUNTS):
        u_pass += dist[x] * outcome(R, A, score[0], 0, False, sc.bounced[0], -1, False, x)
    hb = high_bid
    holder = 0
    for p in range(POSITIONS):
        if call[p] == hb:
            holder = p
            break
    hb_score = score[holder]
    hb_need = min(hb, TRICKS)
    if R[R_EXACT]:
        threat = hb >= 0 and hb_score == hb_need
    else:
        threat = hb >= 0 and hb_score >= hb_need and hb_score <= TRICKS
    threat = threat or hb == REDBEARD_LEVEL
    return u_pass - A[A_BLOCK] * A[A_WIN] * threat


@borrowing
def declarer_trick_counts(A, sc, unseen, hand, hand_count, uniforms):
    """sc.dist: the hand's trick distribution leading every trick, by Monte Carlo over fixed
    uniforms (``uniforms`` [card, sample]: the inner loops run over samples, which vectorises)."""
    Qs, counts, dist, free_above, total_beaten = sc.Qs, sc.counts, sc.dist, sc.free_above, sc.total_beaten
    samples = uniforms.shape[1]
    for s in range(NUM_SUITS):
        Qs[s] = min(max(suit_total(sc.q, sc.live, s) * A[A_QSCALE], 0.0), 1.0)
    for x in range(COUNTS):
        counts[x] = 0.0
    # Per suit from the ace down, a card of the hand is beaten when a higher unseen card that
    # the sample gives the opponents is still free (greedy maximum matching). Only the suits
    # of the hand matter, down to its lowest card there: those cards in order, once.
    for smp in range(samples):
        total_beaten[smp] = 0
    for s in range(NUM_SUITS):
        lowest = -1
        for r in range(NUM_RANKS):
            if has(hand, NUM_RANKS * s + r):
                lowest = r
                break
        if lowest < 0:
            continue
        for smp in range(samples):
            free_above[smp] = 0
        for r in range(NUM_RANKS - 1, lowest - 1, -1):
            c = NUM_RANKS * s + r
            if has(hand, c):
                for smp in range(samples):
                    take = free_above[smp] > 0
                    total_beaten[smp] += take
                    free_above[smp] -= take
            elif has(unseen, c):
                qv = Qs[s]
                for smp in range(samples):
                    free_above[smp] += uniforms[c, smp] < qv
    for smp in range(samples):
        t = min(max(hand_count - total_beaten[smp], 0), TRICKS)
        counts[t] += 1.0
    for x in range(COUNTS):
        dist[x] = counts[x] / samples


@borrowing
def aim_at_bids(A, sc):
    """sc.aim[level]: the trick distribution a declarer of ``level`` gets: timing moves a
    share ``control`` of the outcomes one trick off the bid onto it; Rödskägg needs every
    card to be a sure winner."""
    aim, dist, w6 = sc.aim, sc.dist, sc.w6
    c_ = A[A_CONTROL]
    for lv in range(TRICKS):
        for x in range(COUNTS):
            aim[lv, x] = dist[x]
    for k in range(TRICKS):
        lo = aim[k, k - 1] * c_ if k > 0 else 0.0
        hi = aim[k, k + 1] * c_
        aim[k, k] += lo + hi
        if k > 0:
            aim[k, k - 1] -= lo
        aim[k, k + 1] -= hi
    for x in range(COUNTS):
        aim[TRICKS, x] = dist[x]
    all_win = 1.0
    for j in range(HAND):
        all_win *= w6[j] if sc.valid[j] else 1.0
    all_win = min(all_win, dist[TRICKS])
    for x in range(COUNTS):
        aim[REDBEARD_LEVEL, x] = dist[x] * (1 - all_win) / max(1 - dist[TRICKS], 1e-9)
    aim[REDBEARD_LEVEL, TRICKS] = all_win
