"""The ``heuristic`` bot's action values, compiled with numba: one observation row at a time.

This is the implementation behind :meth:`agents.redbeard.heuristic.HeuristicAgent.action_values`
(see that module for what the values mean). Each row is decoded straight from the float
observation (blocks of :mod:`redbeard_env.redbeard.observation`) and valued by its phase, with the
arithmetic of the former vectorised numpy code kept in the same order (card model,
Poisson-binomial trick counts, outcome tables, the bid Monte Carlo over fixed uniforms),
so the values are those of the recorded golden positions (``tests/golden/heuristic_values.npz``)
up to the last bit of ``exp``/``log1p`` (numpy's vectorised ones and libm's differ there).

Why one file: numba's cache (``cache=True``) notices changes only in the compiled
function's own file, so the constants the kernels read are literals here (checked against
their sources at import) and the observation layout, the rules and the bot's parameters
come in as tuples of numbers at run time.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from redbeard_env.redbeard import cards as _cards
from redbeard_env.redbeard.observation import OFF as _OFF
from redbeard_env.redbeard.rules import Rules

PASS, BID0, REDBEARD, JOIN, FOLD, ASK, SKIP, KEEP, REDEAL, LOOK, NO_LOOK, NUM_ACTIONS = (
    52, 53, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69)
assert (_cards.PASS, _cards.BID0, _cards.REDBEARD, _cards.JOIN, _cards.FOLD, _cards.ASK, _cards.SKIP, _cards.KEEP,
        _cards.REDEAL, _cards.LOOK, _cards.NO_LOOK, _cards.NUM_ACTIONS) == (
    PASS, BID0, REDBEARD, JOIN, FOLD, ASK, SKIP, KEEP, REDEAL, LOOK, NO_LOOK, NUM_ACTIONS)
PH_REDEAL, PH_LOOK, PH_BID, PH_ASK, PH_JOIN, PH_PLAY, PH_DUEL, PH_DONE = range(8)
PENALTY, K = 5, 8  # the +5 penalty; trick counts 0..7 in outcome tables
NUM_CARDS = 52
assert _cards.NUM_CARDS == NUM_CARDS

# ---------------------------------------------------------------- numbers in, as tuples
A_WIN, A_NEG, A_ELIM, A_CONTROL, A_MARGIN, A_BLOCK, A_QSCALE, A_FOLLOW, A_DEFEND, A_REDEAL, A_THREAT = range(11)
R_JTV, R_JFP, R_ZTP, R_FORGET, R_JOIN_AT, R_ZERO, R_EXACT, R_RB_CONTRACT, R_RB_ELIM, R_HAS_ELIM, R_ELIM_AT = range(11)
R_LEADER_DECL, R_PENALTY_BOS, R_CHALLENGE = range(11, 14)
ZERO_EXACT_END, ZERO_IMMEDIATE, ZERO_BOUNCE = range(3)
_BLOCKS = ("phase", "num_players", "hand", "played", "trick", "seen_thrown", "tricks_done", "high_bid",
           "deal_flags", "score", "active", "in_round", "declarer", "leader", "trick_played", "trick_winning",
           "thrower", "tricks", "joiner", "bounced", "voids", "call")
(O_PHASE, O_NUM_PLAYERS, O_HAND, O_PLAYED, O_TRICK, O_SEEN, O_TRICKS_DONE, O_HIGH_BID, O_DEAL_FLAGS, O_SCORE,
 O_ACTIVE, O_IN_ROUND, O_DECLARER, O_LEADER, O_TRICK_PLAYED, O_TRICK_WINNING, O_THROWER, O_TRICKS, O_JOINER,
 O_BOUNCED, O_VOIDS, O_CALL) = range(len(_BLOCKS))


_OFFSETS = tuple(int(_OFF[b]) for b in _BLOCKS)


def obs_offsets() -> tuple:
    return _OFFSETS


@functools.lru_cache(maxsize=128)  # Rules are frozen; a search or a one-game env calls per decision
def rule_numbers(rules: Rules) -> tuple:
    r = rules
    return (
        int(r.joiner_trick_value), int(r.joiner_fail_penalty), int(r.zero_trick_penalty), int(r.forget_penalty),
        int(r.join_at), ("exact_end", "immediate", "bounce").index(r.zero_rule), int(r.contract == "exact"),
        int(r.redbeard_fail == "contract"), int(r.redbeard_fail == "eliminate"), int(r.eliminate_at is not None),
        int(r.eliminate_at or 0), int(r.leader == "declarer"), int(r.bid_over_score == "penalty"),
        int(r.redeal == "challenge"),
    )


rule = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
# small helpers inlined into their callers: a call that passes arrays costs reference counting
inline = njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)


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
    ``tricks`` taken (``level``: own bid level as declarer, else -1)."""
    s0 = np.int64(score)
    v = np.int64(R[R_JTV]) if joiner else np.int64(1)
    won_now = False
    falling = s0 - v * k
    if R[R_ZERO] == ZERO_BOUNCE:
        cross = -((-s0) // v)  # the trick that reaches or passes 0 (s0 > 0)
        before = s0 - v * (cross - 1)
        after = (v - before) + v * (k - cross)
        if bounced:
            s = s0 + v * k
        elif s0 > 0 and k >= cross:
            s = after
        else:
            s = falling
    else:
        s = falling
        if R[R_ZERO] == ZERO_IMMEDIATE:
            won_now = s0 > 0 and s0 % v == 0 and s0 // v <= k
    total = tricks + k
    is_decl = level >= 0
    is_rb = level == 7
    need = min(level, 6)
    made = total == need if R[R_EXACT] else total >= need
    final = s + (PENALTY if (is_decl and not is_rb and not made) else 0)
    rb_made = is_rb and total == 6
    rb_fail = is_rb and not rb_made
    if R[R_RB_CONTRACT] and rb_fail:
        final += PENALTY
    if joiner and total == 0:
        final += R[R_JFP]
    if zero_trick and R[R_ZTP] and total == 0:
        final += R[R_ZTP]
    u = value_of_score(final, R, A)
    if won_now or rb_made:
        u = A[A_WIN]
    if R[R_RB_ELIM] and rb_fail:
        u = -A[A_ELIM]
    return u


@njit(cache=True, nogil=True)
def outcome_tables(R, A, score, tricks, joiner, bounced, level, zero_trick, out):
    """Outcome tables for many inputs (flat int arrays of one length): out [m, K]."""
    for i in range(len(score)):
        for k in range(K):
            out[i, k] = outcome(R, A, score[i], tricks[i], joiner[i], bounced[i], level[i], zero_trick, k)


@njit(cache=True, nogil=True)
def values_of_scores(R, A, f, out):
    for i in range(len(f)):
        out[i] = value_of_score(f[i], R, A)


# ---------------------------------------------------------------- trick-count distributions
@inline
def poisson(p, m, skip, dist):
    """Distribution of successes of ``p[:m]`` (event ``skip`` left out) into dist[7]
    (mass above 6 folded into the last bin), in the numpy code's order of operations."""
    for x in range(7):
        dist[x] = 0.0
    dist[0] = 1.0
    for j in range(m):
        pj = 0.0 if j == skip else min(max(p[j], 0.0), 1.0)
        top = dist[6] * pj
        for x in range(6, 0, -1):
            moved_below = dist[x - 1] * pj
            dist[x] = (dist[x] - dist[x] * pj) + moved_below
        dist[0] = dist[0] - dist[0] * pj
        dist[6] = dist[6] + top


@inline
def suit_total(q, live, s):
    """The live players' summed q[p, s] (player p's share of the unseen cards of suit s)."""
    Q = 0.0
    for p in range(7):
        Q += q[p, s] * live[p]
    return Q


@inline
def miss_logs(q, live, Qs, logmiss):
    """Qs[s]: the live players' summed q in suit s, kept below 1; logmiss[s] = log(1 - Qs[s])."""
    for s in range(4):
        Qs[s] = min(max(suit_total(q, live, s), 0.0), 1.0 - 1e-12)
        logmiss[s] = np.log1p(-Qs[s])


# ---------------------------------------------------------------- one row
@inline
def decode_cards(obs, b, at):
    h = np.uint64(0)
    for c in range(52):
        h |= np.uint64(obs[b, at + c] > 0.5) << np.uint64(c)
    return h


@inline
def one_hot(obs, b, at, size, none):
    best = 0
    for i in range(1, size):
        if obs[b, at + i] > obs[b, at + best]:
            best = i
    return best if obs[b, at + best] > 0.5 else none


@rule
def popcount(h):
    """Set bits of a uint64 (the SWAR sum; LLVM emits one popcnt for it)."""
    h = h - ((h >> np.uint64(1)) & np.uint64(0x5555555555555555))
    h = (h & np.uint64(0x3333333333333333)) + ((h >> np.uint64(2)) & np.uint64(0x3333333333333333))
    h = (h + (h >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((h * np.uint64(0x0101010101010101)) >> np.uint64(56))


@rule
def has(h, c):
    return (h >> np.uint64(c)) & np.uint64(1) != 0


@njit(cache=True, nogil=True)
def new_scratch(bid_samples):
    """The per-row arrays of :func:`value_rows` (reused row after row; ``bid_samples``: the
    bid Monte Carlo's sample count)."""
    score = np.zeros(7, np.int64)
    tricks = np.zeros(7, np.int64)
    active = np.zeros(7, np.bool_)
    in_round = np.zeros(7, np.bool_)
    trick_played = np.zeros(7, np.bool_)
    joiner = np.zeros(7, np.bool_)
    bounced = np.zeros(7, np.bool_)
    voids = np.zeros((7, 4), np.bool_)
    call = np.zeros(7, np.int64)
    holding = np.zeros(7, np.int64)
    live = np.zeros(7, np.bool_)
    q = np.zeros((7, 4))
    higher = np.zeros(52, np.int64)
    unseen_suit = np.zeros(4, np.int64)
    slots = np.zeros(6, np.int64)
    valid = np.zeros(6, np.bool_)
    p6 = np.zeros(6)
    w6 = np.zeros(6)
    rest = np.zeros((6, 7))
    dist = np.zeros(7)
    table = np.zeros(K)
    table2 = np.zeros(K)
    Qs = np.zeros(4)
    logmiss = np.zeros(4)
    factor = np.ones(4)
    aim = np.zeros((8, 7))
    counts = np.zeros(7)
    free_above = np.zeros(bid_samples, np.int32)  # per bid sample: higher unseen cards not yet matched
    total_beaten = np.zeros(bid_samples, np.int32)
    per_trick = np.zeros(4, np.int64)
    per_hand = np.zeros(4, np.int64)
    allowed = np.zeros(4, np.int64)
    return (score, tricks, active, in_round, trick_played, joiner, bounced, voids, call, holding, live,
            q, higher, unseen_suit, slots, valid, p6, w6, rest, dist, table, table2, Qs, logmiss, factor,
            aim, counts, free_above, total_beaten, per_trick, per_hand, allowed)


@njit(cache=True, nogil=True)
def action_values(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice):
    """out [k, 69]: the heuristic's values of every action (-inf where illegal, mask > 0
    legal) for the k rows ``rows`` of ``obs`` (one rules group with ``n`` players);
    choice [k] their argmax (the first of equal maxima). Without ``all_values`` only ``choice`` is wanted: a row with a
    single legal action gets it without being valued, and every row's values go to
    ``out[0]`` in turn (``out`` [1, 69] is enough; what it holds afterwards means nothing).
    Returns the index in ``rows`` of the first row without a legal action, or -1."""
    scratch = new_scratch(uniforms.shape[1])
    return value_rows(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice, scratch)


# No reference counting in the row loop (nor in bid_values, which it calls): its arrays are
# all owned by the caller above, and numba's increments and decrements of them (atomic,
# around every inlined helper that takes an array) were a tenth of the time.
@njit(cache=True, nogil=True, _nrt=False)
def value_rows(obs, mask, rows, n, R, A, O, uniforms, all_values, out, choice, scratch):
    """The row loop of :func:`action_values` (``scratch``: its per-row arrays)."""
    (score, tricks, active, in_round, trick_played, joiner, bounced, voids, call, holding, live, q, higher,
     unseen_suit, slots, valid, p6, w6, rest, dist, table, table2, Qs, logmiss, factor, aim, counts,
     free_above, total_beaten, per_trick, per_hand, allowed) = scratch
    for p in range(n, 7):  # seats the table does not have (their blocks are all 0), once
        score[p] = 0
        tricks[p] = 0
        active[p] = False
        in_round[p] = False
        trick_played[p] = False
        joiner[p] = False
        bounced[p] = False
        for s in range(4):
            voids[p, s] = False
        call[p] = -2
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
        phase = one_hot(obs, b, O[O_PHASE], 8, -1)
        hand = decode_cards(obs, b, O[O_HAND])
        played = decode_cards(obs, b, O[O_PLAYED])
        trick = decode_cards(obs, b, O[O_TRICK])
        seen = decode_cards(obs, b, O[O_SEEN])
        tricks_done = one_hot(obs, b, O[O_TRICKS_DONE], 7, -1)
        high_bid = one_hot(obs, b, O[O_HIGH_BID], 9, -1) - 1
        reshuffled = obs[b, O[O_DEAL_FLAGS] + 1] > 0.5
        declarer = one_hot(obs, b, O[O_DECLARER], 7, -1)
        leader = one_hot(obs, b, O[O_LEADER], 7, -1)
        trick_winning = one_hot(obs, b, O[O_TRICK_WINNING], 7, -1)
        thrower = one_hot(obs, b, O[O_THROWER], 7, -1)
        for p in range(n):
            score[p] = np.int64(np.rint(obs[b, O[O_SCORE] + p] * np.float32(12.0)))
            tricks[p] = np.int64(np.rint(obs[b, O[O_TRICKS] + p] * np.float32(6)))
            active[p] = obs[b, O[O_ACTIVE] + p] > 0.5
            in_round[p] = obs[b, O[O_IN_ROUND] + p] > 0.5
            trick_played[p] = obs[b, O[O_TRICK_PLAYED] + p] > 0.5
            joiner[p] = obs[b, O[O_JOINER] + p] > 0.5
            bounced[p] = obs[b, O[O_BOUNCED] + p] > 0.5
            for s in range(4):
                voids[p, s] = obs[b, O[O_VOIDS] + 4 * p + s] > 0.5
            call[p] = one_hot(obs, b, O[O_CALL] + 10 * p, 10, 0) - 2
        if phase < 0 or phase > PH_DUEL:  # a phase without a rule: every legal action is worth 0
            choice[i] = -1
            for a in range(NUM_ACTIONS):
                if mask[b, a] > 0:
                    out[ob, a] = 0.0
                    if choice[i] < 0:
                        choice[i] = a
            continue
        # ------------------------------------------------ the card model: what the observer can
        # infer about hidden cards, approximate on purpose (card locations independent,
        # opponents take a trick when they can): unseen cards, cards each position still
        # holds, q[p, s] = chance one unseen card of suit s is in p's hand, higher[c] =
        # unseen cards of c's suit that beat c
        in_play = phase == PH_ASK or phase == PH_JOIN or phase == PH_PLAY or phase == PH_DUEL
        trick_live = phase == PH_PLAY or phase == PH_DUEL
        seen_eff = np.uint64(0) if reshuffled else seen
        unseen = ~(hand | played | trick | seen_eff) & np.uint64((1 << 52) - 1)
        unseen_count = popcount(unseen)
        for s in range(4):
            unseen_suit[s] = popcount((unseen >> np.uint64(13 * s)) & np.uint64(0x1FFF))
        left = 6 - tricks_done
        duel = phase == PH_DUEL
        for p in range(7):
            tp = trick_played[p] and trick_live
            if in_play:
                if active[p] and not in_round[p] and not duel:  # folded
                    hp = min(left, max(R[R_JOIN_AT], 0))
                else:
                    hp = left - tp if in_round[p] else 0
            else:
                hp = 6 if active[p] else 0
                if p == thrower:
                    hp = 0
            holding[p] = max(hp, 0) if p < n else 0
        holding[0] = 0
        for s in range(4):
            blocked = 0
            for p in range(7):
                blocked += holding[p] * voids[p, s]
            room = max(unseen_count - blocked, 1)
            total = 0.0
            for p in range(7):
                qq = holding[p] * (not voids[p, s]) / room
                q[p, s] = qq if unseen_suit[s] > 0 else 0.0
                total += q[p, s]
            for p in range(7):
                q[p, s] = q[p, s] / max(total, 1.0)
        for p in range(7):
            live[p] = (in_round[p] if in_play else active[p]) and p < n
        live[0] = False
        for s in range(4):
            above = 0
            for r in range(12, -1, -1):
                c = 13 * s + r
                higher[c] = above
                above += has(unseen, c)
        hand_count = 0
        c = 0
        for c in range(52):  # the hand's cards ascending, then padding (numpy's stable argsort of ~hand)
            if has(hand, c) and hand_count < 6:
                slots[hand_count] = c
                valid[hand_count] = True
                hand_count += 1
        k = hand_count
        c = 0
        while k < 6:
            if not has(hand, c):
                slots[k] = c
                valid[k] = False
                k += 1
            c += 1
        # ------------------------------------------------ phase by phase
        if phase == PH_PLAY or phase == PH_DUEL:
            led = led_suit(mask, b, hand, trick, trick_played, leader, voids, per_trick, per_hand, allowed)
            # chance each hand card wins now (live players still to play beat it when they can)
            for s in range(4):
                Q = 0.0
                for p in range(7):
                    Q += q[p, s] * (live[p] and not (trick_played[p] and trick_live))
                Qs[s] = min(max(Q, 0.0), 1.0 - 1e-12)
                logmiss[s] = np.log1p(-Qs[s])
            best = -1  # the highest rank of the led suit in the trick
            if led >= 0:
                led_cards = (trick >> np.uint64(13 * led)) & np.uint64(0x1FFF)
                for r in range(12, -1, -1):
                    if has(led_cards, r):
                        best = r
                        break
            empty = trick == 0
            for j in range(6):
                c = slots[j]
                safe = np.exp(higher[c] * logmiss[c // 13])
                beats = empty or (c // 13 == led and c % 13 > best)
                w6[j] = safe if (mask[b, c] > 0 and beats) else 0.0
            later_chances(R, n, q, live, unseen_suit, unseen_count, declarer, duel, higher, slots, valid, Qs,
                          logmiss, factor, p6, 1.0)
            for j in range(6):
                poisson(p6, 6, j, dist)
                for x in range(7):
                    rest[j, x] = dist[x]
            my_table(R, A, score[0], tricks[0], joiner[0], bounced[0], high_bid if declarer == 0 else -1, 0,
                     True, table)
            if duel:
                for x in range(K):
                    table[x] = x
            wants = 0.0
            for j in range(6):
                # einsum's order: even terms, odd terms, then their sum
                ew = 0.0
                ow = 0.0
                el = 0.0
                ol = 0.0
                for x in range(0, 7, 2):
                    ew += rest[j, x] * table[x + 1]
                    el += rest[j, x] * table[x]
                for x in range(1, 7, 2):
                    ow += rest[j, x] * table[x + 1]
                    ol += rest[j, x] * table[x]
                if_win = ew + ow
                if_lose = el + ol
                wj = w6[j]
                value = wj * if_win + (1 - wj) * if_lose
                value += defence(R, A, phase, declarer, trick_winning, trick, high_bid, tricks, tricks_done,
                                 score, wj)
                rest[j, 0] = value  # reuse: the value before the tie-break
                wants += if_win - if_lose
            wants = wants / 6
            top = -1
            valued = 0
            for j in range(6):  # the hand's cards in action-id order
                c = slots[j]
                if valid[j] and mask[b, c] > 0:
                    rank = c % 13
                    out[ob, c] = rest[j, 0] + 1e-6 * (-rank if wants > 0 else rank)
                    valued += 1
                    if top < 0 or out[ob, c] > out[ob, top]:
                        top = c
            if valued == legal_count:  # every legal action is a card of the hand: top is the argmax
                choice[i] = top
                continue
        elif phase == PH_BID:
            bid_values(R, A, n, b, ob, mask, out, q, live, unseen, unseen_suit, unseen_count, hand, hand_count,
                       higher, slots, valid, declarer, duel, score, bounced, call, high_bid, uniforms, Qs, logmiss,
                       factor, p6, w6, dist, table, aim, counts, free_above, total_beaten)
        elif phase == PH_REDEAL:
            miss_logs(q, live, Qs, logmiss)
            strength = 0.0
            for j in range(6):
                if valid[j]:
                    strength += np.exp(higher[slots[j]] * logmiss[slots[j] // 13])
            weak = strength < A[A_REDEAL]
            if R[R_CHALLENGE]:  # throwing a face card risks +5 if someone looks
                for c in range(52):
                    if has(hand, c) and c % 13 >= 9:
                        weak = False
            binary(out, ob, KEEP, REDEAL, 1.0 if weak else -1.0)
        elif phase == PH_LOOK:
            gain = value_of_score(score[0] + PENALTY, R, A) - value_of_score(score[0], R, A)
            binary(out, ob, NO_LOOK, LOOK, gain)
        elif phase == PH_JOIN or phase == PH_ASK:
            later_chances(R, n, q, live, unseen_suit, unseen_count, declarer, duel, higher, slots, valid, Qs,
                          logmiss, factor, p6, A[A_FOLLOW] if phase == PH_JOIN else 1.0)
            poisson(p6, 6, -1, dist)
            level = high_bid if declarer == 0 else -1
            if phase == PH_JOIN:
                trickless = tricks[0] == 0
                my_table(R, A, score[0], tricks[0], trickless, bounced[0], level, 0, True, table)
                u_join = 0.0
                for x in range(7):
                    u_join += dist[x] * table[x]
                u_fold = value_of_score(score[0], R, A)
                binary(out, ob, FOLD, JOIN, u_join - u_fold + 1e-9)  # a tie joins
            else:
                my_table(R, A, score[0], tricks[0], joiner[0], bounced[0], level, 0, True, table)
                my_table(R, A, score[0], tricks[0], joiner[0], bounced[0], level, R[R_FORGET], True, table2)
                u_ask = 0.0
                u_skip = 0.0
                for x in range(7):
                    u_ask += dist[x] * table[x]
                    u_skip += dist[x] * table2[x]
                left_now = 6 - tricks_done
                jv = R[R_JTV]
                n_ask = 0
                n_skip = 0
                for p in range(1, 7):
                    if in_round[p] and tricks[p] == 0:
                        s = score[p]
                        n_ask += s > 0 and s % jv == 0 and s // jv <= left_now
                        n_skip += s > 0 and s <= left_now
                u_ask -= A[A_THREAT] * A[A_WIN] * n_ask
                u_skip -= A[A_THREAT] * A[A_WIN] * n_skip
                binary(out, ob, ASK, SKIP, u_skip - u_ask)  # a tie asks
        # only legal actions keep a value; a phase without a rule: every legal action 0
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
        choice[i] = top
    return -1


@inline
def binary(out, b, base, other, gain):
    """A two-way choice: ``base`` is worth 0, ``other`` its ``gain`` (a tie keeps ``base``)."""
    out[b, base] = 0.0
    out[b, other] = gain if gain > 0 else gain - 1e-9


@inline
def my_table(R, A, score0, tricks0, joiner0, bounced0, level, offset, zero_trick, table):
    for x in range(K):
        table[x] = outcome(R, A, score0 + offset, tricks0, joiner0, bounced0, level, zero_trick, x)


@inline
def later_chances(R, n, q, live, unseen_suit, unseen_count, declarer, duel, higher, slots, valid, Qs, logmiss,
                  factor, p6, scale):
    """p6[j]: chance the hand's j-th card wins a later trick (times ``scale``; 0 for padding).
    Under leader = declarer a follower's card also needs the declarer to lead its suit."""
    miss_logs(q, live, Qs, logmiss)
    for s in range(4):
        factor[s] = 1.0
    use_factor = R[R_LEADER_DECL] and not duel
    if use_factor:
        if declarer < 0:  # before the auction is over: the declarer is unknown
            q_one = 6 / max(unseen_count, 1)
            for s in range(4):
                factor[s] = 1.0 - (1.0 - q_one) ** np.float64(unseen_suit[s])
        elif declarer > 0:
            for s in range(4):
                factor[s] = 1.0 - (1.0 - q[declarer, s]) ** np.float64(unseen_suit[s])
    for j in range(6):
        c = slots[j]
        base = np.exp(higher[c] * logmiss[c // 13])
        v = base * factor[c // 13] if use_factor else base * 0.75
        p6[j] = v * scale if valid[j] else 0.0


@inline
def defence(R, A, phase, declarer, trick_winning, trick, high_bid, tricks, tricks_done, score, w):
    """Value of making a rival declarer fail (``defend`` > 0 only)."""
    if A[A_DEFEND] <= 0:
        return 0.0
    d = declarer
    if not (d > 0 and phase == PH_PLAY and trick_winning == d and trick != 0):
        return 0.0
    level = high_bid
    need = min(level, 6) - tricks[d]
    left = 6 - tricks_done
    d_score = score[d]
    if R[R_EXACT]:
        threat = d_score - need == 0 or level == 7
    else:
        threat = (d_score >= need and d_score - need <= left - 1) or level == 7
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
def led_suit(mask, b, hand, trick, trick_played, leader, voids, per_trick, per_hand, allowed):
    """The suit led to the current trick (see agents.redbeard.decode.led_suit), -1 if none."""
    for s in range(4):
        per_trick[s] = popcount((trick >> np.uint64(13 * s)) & np.uint64(0x1FFF))
        per_hand[s] = popcount((hand >> np.uint64(13 * s)) & np.uint64(0x1FFF))
        k = 0
        for r in range(13):
            k += mask[b, 13 * s + r] > 0
        allowed[s] = k
    total_trick = per_trick[0] + per_trick[1] + per_trick[2] + per_trick[3]
    if total_trick == 0:
        return -1
    n_suits = 0
    a_sum = 0
    s_max = 0
    for s in range(4):
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
    for s in range(4):
        void_count = 0
        for p in range(7):
            if trick_played[p] and p != leader:
                void_count += voids[p, s]
        possible = per_trick[s] > 0 and void_count >= total_trick - per_trick[s] and per_hand[s] == 0
        sc = per_trick[s] + 0.5 if possible else (0.25 if per_trick[s] > 0 else 0.0)
        if sc > best_score:
            best_score = sc
            best = s
    return best


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False)  # borrows its arrays, as value_rows
def bid_values(R, A, n, b, ob, mask, out, q, live, unseen, unseen_suit, unseen_count, hand, hand_count, higher, slots,
               valid, declarer, duel, score, bounced, call, high_bid, uniforms, Qs, logmiss, factor, p6, w6, dist,
               table, aim, counts, free_above, total_beaten):
    """Bids: each legal bid's expected utility against passing (see agents.redbeard.heuristic)."""
    # declarer chances of the hand's cards (leading against all live players)
    miss_logs(q, live, Qs, logmiss)
    for j in range(6):
        c = slots[j]
        w6[j] = np.exp(higher[c] * logmiss[c // 13]) if valid[j] else 0.0
    later_chances(R, n, q, live, unseen_suit, unseen_count, declarer, duel, higher, slots, valid, Qs, logmiss,
                  factor, p6, A[A_FOLLOW])
    score0 = score[0]
    poisson(p6, 6, -1, dist)
    u_pass = 0.0
    for x in range(7):
        u_pass += dist[x] * outcome(R, A, score0, 0, False, bounced[0], -1, False, x)
    hb = high_bid
    holder = 0
    for p in range(7):
        if call[p] == hb:
            holder = p
            break
    hb_score = score[holder]
    hb_need = min(hb, 6)
    if R[R_EXACT]:
        threat = hb >= 0 and hb_score == hb_need
    else:
        threat = hb >= 0 and hb_score >= hb_need and hb_score <= 6
    threat = threat or hb == 7
    u_pass = u_pass - A[A_BLOCK] * A[A_WIN] * threat
    # the hand's trick distribution leading every trick, by Monte Carlo over fixed uniforms
    # (``uniforms`` [card, sample]: the inner loops run over samples, which vectorises)
    samples = uniforms.shape[1]
    for s in range(4):
        Qs[s] = min(max(suit_total(q, live, s) * A[A_QSCALE], 0.0), 1.0)
    for x in range(7):
        counts[x] = 0.0
    # Per suit from the ace down, a card of the hand is beaten when a higher unseen card that
    # the sample gives the opponents is still free (greedy maximum matching). Only the suits
    # of the hand matter, down to its lowest card there: those cards in order, once.
    for smp in range(samples):
        total_beaten[smp] = 0
    for s in range(4):
        lowest = -1
        for r in range(13):
            if has(hand, 13 * s + r):
                lowest = r
                break
        if lowest < 0:
            continue
        for smp in range(samples):
            free_above[smp] = 0
        for r in range(12, lowest - 1, -1):
            c = 13 * s + r
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
        t = min(max(hand_count - total_beaten[smp], 0), 6)
        counts[t] += 1.0
    for x in range(7):
        dist[x] = counts[x] / samples
    c_ = A[A_CONTROL]
    for lv in range(6):
        for x in range(7):
            aim[lv, x] = dist[x]
    for k in range(6):
        lo = aim[k, k - 1] * c_ if k > 0 else 0.0
        hi = aim[k, k + 1] * c_
        aim[k, k] += lo + hi
        if k > 0:
            aim[k, k - 1] -= lo
        aim[k, k + 1] -= hi
    for x in range(7):
        aim[6, x] = dist[x]
    all_win = 1.0
    for j in range(6):
        all_win *= w6[j] if valid[j] else 1.0
    all_win = min(all_win, dist[6])
    for x in range(7):
        aim[7, x] = dist[x] * (1 - all_win) / max(1 - dist[6], 1e-9)
    aim[7, 6] = all_win
    out[ob, PASS] = u_pass + A[A_MARGIN]
    over = PENALTY if R[R_PENALTY_BOS] else 0
    for lv in range(8):
        off = over if min(lv, 6) > score0 else 0
        u = 0.0
        for x in range(7):
            u += aim[lv, x] * outcome(R, A, score0 + off, 0, False, bounced[0], lv, True, x)
        u = u - 1e-6 * lv
        out[ob, REDBEARD if lv == 7 else BID0 + lv] = u
