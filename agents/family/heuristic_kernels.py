"""The family heuristic's action values (Sortskæg's and Oh Hell's), compiled with numba.

This is the implementation behind :meth:`agents.family.heuristic.FamilyHeuristic.action_values`
(that module says what the values mean). The games differ in what a player may count as
unseen, how many cards the others hold, the trump suit and the jokers; each game's heuristic
works those out from its decoded observation (numpy, whole batches) and this kernel does the
rest one row at a time: each card's chance to take a trick, then one valuation a phase. It keeps the
arithmetic of the former vectorised numpy code in the same order (a hand's expected tricks
summed as numpy sums a row), so the values are those of the recorded golden positions
(``tests/golden/sortskaeg_heuristic_values.npz``, ``oh_hell_heuristic_values.npz``) up to
the last bit of ``power``, where numpy's vectorised one and libm's may differ. The family
search calls the heuristic at every step of its playouts; compiled and without the GIL it
costs a fraction of the numpy version.

Arguments, B rows, C cards, A actions (bids are the actions C..A-1, bid k = C + k):

* per row: ``phase`` (the observation's code), ``n`` players, ``opp_cards`` (cards the others
  hold, as the chances count them), ``need`` (bid - tricks taken; play only), ``to_play``
  (players after the observer in this trick), ``led`` suit (-1 none), ``trump`` suit (-1 none);
* per row and card (bool): ``hand``, ``trick`` (on the table), ``unseen`` (what the chances
  count), ``unseen_play`` (what counts as a higher card that may still come in card play);
* per card: ``suit`` (-1 a joker), ``joker`` (bool: wins only when led);
* ``legal`` bool [B, A]; the parameters; ``phases`` = the codes of (bid, play, discard).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def others_hold(left: np.ndarray, trick_played: np.ndarray, num_players: np.ndarray) -> np.ndarray:
    """int [B]: the cards the other players hold, from ``left`` [B] (what each held at the
    trick's start) less the cards of the trick they played (``trick_played`` bool [B, P] by
    relative position; position 0, the observer, and the seats beyond the table count 0)."""
    pos = np.arange(trick_played.shape[1])
    others = (pos[None, :] < num_players[:, None]) & (pos > 0)
    return np.where(others, left[:, None] - trick_played, 0).clip(0).sum(1)


@njit(cache=True, nogil=True)
def _pairwise_sum(a):
    """The sum of a short row in numpy's order (``np.add.reduce`` over a contiguous axis:
    eight running sums, combined in pairs, then the remainder one by one)."""
    n = len(a)
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return s
    r = a[:8].copy()
    full = n - n % 8
    for i in range(8, full, 8):
        for j in range(8):
            r[j] += a[i + j]
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(full, n):
        s += a[i]
    return s


@njit(cache=True, nogil=True)
def _count_higher(b, cards, suit, above, out):
    """``out`` [C]: how many of row ``b``'s ``cards`` are higher cards of each card's suit (a
    higher card = a larger id of the same suit; none for a joker): one pass from the top
    (``above``: scratch, one count a suit)."""
    above[:] = 0
    for c in range(len(suit) - 1, -1, -1):
        if suit[c] < 0:
            out[c] = 0
            continue
        out[c] = above[suit[c]]
        above[suit[c]] += cards[b, c]


@njit(cache=True, nogil=True)
def _chances(b, n, opp_cards, trump, unseen, suit, joker, joker_value, lead_factor, trump_factor, higher, above,
             survive_k, chance):
    """Row ``b``: each card's chance to take a trick, into ``chance`` [C]. ``q`` = the share of
    the unseen cards the others hold; a card survives each unseen higher card of its suit
    with 1 - q, a card off trumps is scaled by ``lead_factor`` and ``trump_factor`` per other
    player; a joker is worth ``joker_value``."""
    count = 0
    for c in range(len(suit)):
        count += unseen[b, c]
    q = min(max(opp_cards[b] / max(count, 1), 0.0), 1.0)
    _count_higher(b, unseen, suit, above, higher)
    off_trump = lead_factor * trump_factor ** float(n[b] - 1)
    for k in range(higher.max() + 1):  # (1 - q) ** k, each power once (pow is the dear part)
        survive_k[k] = (1.0 - q) ** float(k)
    for c in range(len(suit)):
        if joker[c]:
            chance[c] = joker_value
            continue
        survive = survive_k[higher[c]]
        chance[c] = survive if suit[c] == trump[b] else survive * off_trump


@njit(cache=True, nogil=True)
def _play_row(b, need, to_play, n, led, trump, trick, unseen_play, suit, joker, chance, higher, above, out):
    """Row ``b`` in card play: the values of the C cards into ``out`` [C]."""
    leading = True
    top_trump, top_led = -1, -1
    for c in range(len(suit)):
        if trick[b, c]:
            leading = False
            if suit[c] == trump[b] and suit[c] >= 0:
                top_trump = c
            if suit[c] == led[b]:
                top_led = c
    want = need[b] > 0
    joker_led = not leading and led[b] < 0
    after = to_play[b]
    share = min(max(after / max(n[b] - 1, 1), 0.0), 1.0)
    _count_higher(b, unseen_play, suit, above, higher)
    for c in range(len(suit)):
        is_trump = suit[c] == trump[b] and suit[c] >= 0
        if is_trump:
            beats = c > top_trump
        else:
            beats = suit[c] == led[b] and top_trump < 0 and c > top_led
        beats = beats and not joker[c] and not joker_led and not leading
        strength = chance[c] + c * 1e-4  # ties: the higher id is the stronger card
        if leading:
            if want:  # jokers first (a sure trick and the lead again), then the most likely winner
                out[c] = 2.0 if joker[c] else strength
            else:  # the least likely winner, never a joker while other cards remain
                out[c] = -5.0 if joker[c] else -strength
        elif want and beats:  # the beating card most likely to hold, the cheapest among equals
            # the chance it holds against the players still to play
            hold = 1.0 if after == 0 or (is_trump and higher[c] == 0) else min(max(chance[c], 1e-6), 1.0) ** share
            out[c] = 1.0 + hold - strength * 0.01
        elif want:
            out[c] = -strength - (1.0 if joker[c] else 0.0)
        elif beats:  # every card beats it: the highest when last, else the lowest
            out[c] = -3.0 + 0.1 * (strength if after == 0 else -strength)
        else:  # the most dangerous card that loses; jokers are safe losers, kept
            out[c] = 0.0 if joker[c] else 1.0 + strength


@njit(cache=True, nogil=True)
def family_values(phase, n, opp_cards, need, to_play, led, trump, hand, trick, unseen, unseen_play, suit, joker,
                  legal, bid_scale, joker_value, lead_factor, trump_factor, phases):
    """float [B, A]: the heuristic's values of every action, ``-inf`` where illegal (the
    arguments: the module docstring)."""
    B, A = legal.shape
    C = len(suit)
    bid_phase, play_phase, discard_phase = phases
    out = np.zeros((B, A))
    chance = np.empty(C)
    held = np.empty(C)
    higher = np.empty(C, np.int64)
    above = np.empty(suit.max() + 1, np.int64)  # scratch of _count_higher
    survive_k = np.empty(C + 1)  # scratch of _chances
    for b in range(B):
        _chances(b, n, opp_cards, trump, unseen, suit, joker, joker_value, lead_factor, trump_factor, higher, above,
                 survive_k, chance)
        if phase[b] == bid_phase:  # the bid nearest the hand's expected tricks
            for c in range(C):
                held[c] = chance[c] * hand[b, c]
            expected = _pairwise_sum(held) * bid_scale
            for k in range(A - C):
                out[b, C + k] = -abs(k - expected)
        elif phase[b] == play_phase:
            _play_row(b, need, to_play, n, led, trump, trick, unseen_play, suit, joker, chance, higher, above, out[b])
        elif phase[b] == discard_phase:  # sure winners and sure losers make the next bid easy
            for c in range(C):
                out[b, c] = 0.5 - abs(chance[c] - 0.5)
        for a in range(A):
            if not legal[b, a]:
                out[b, a] = -np.inf
    return out
