"""What a player can infer about hidden cards, vectorised over a batch of decoded observations.

Everything here works from an :class:`~agents.decode.ObsBatch` (one rules group) and is
approximate on purpose: card locations are treated as independent, and opponents are
assumed to take a trick when they can. The quantities:

* ``unseen``       bool [B, 52] cards the observer has not seen (others' hands, stock, folded hands)
* ``holding``      int  [B, 7]  cards each position still holds (0 for the observer's own slot)
* ``q``            float [B, 7, 4] chance that one given unseen card of suit s is in position p's hand
* ``higher``       int  [B, 52] unseen cards of the same suit that beat a card
* ``p_win_now``    float [B, 52] chance a card wins the current trick if played now
* ``p_win_later``  float [B, 52] chance a card of the hand wins one of the later tricks
* :func:`poisson_binomial` distributions of trick counts from per-card chances.
"""

from __future__ import annotations

import numpy as np

from redbeard_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from redbeard_env.rules import HAND_SIZE, Rules

from .decode import PHASE, ObsBatch, suit_counts

P = 7
SUIT_OF = np.arange(NUM_CARDS) // NUM_RANKS
RANK_OF = np.arange(NUM_CARDS) % NUM_RANKS
PLAY_PHASES = (PHASE["ask"], PHASE["join"], PHASE["play"], PHASE["duel"])
# phase index -> flag tables (one extra False entry for a missing phase, index -1)
_IN_PLAY = np.isin(np.arange(len(PHASE) + 1), PLAY_PHASES)
_TRICK_LIVE = np.isin(np.arange(len(PHASE) + 1), (PHASE["play"], PHASE["duel"]))


_SUIT_TOP = SUIT_OF * NUM_RANKS + NUM_RANKS - 1  # the highest card of each card's suit


def higher_unseen(unseen: np.ndarray) -> np.ndarray:
    """int [B, 52]: unseen cards of the same suit ranked above each card."""
    upto = np.cumsum(unseen, 1, dtype=np.int16)  # unseen cards with an id up to each card
    return upto[:, _SUIT_TOP] - upto


def sum_positions(x: np.ndarray) -> np.ndarray:
    """``x.sum(1)`` of an array [B, positions, ...], adding the positions in the same order
    (the same result to the bit) without numpy's slow reduction over a short axis."""
    out = x[:, 0].copy()
    for p in range(1, x.shape[1]):
        out += x[:, p]
    return out


def hand_slots(hand: np.ndarray, size: int = HAND_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """The cards of each hand as ids ``[B, size]`` (ascending, padded) and a validity mask."""
    order = np.argsort(~hand, axis=1, kind="stable")[:, :size]
    valid = np.take_along_axis(hand, order, 1)
    return order, valid


def poisson_binomial(p: np.ndarray, max_count: int = 6) -> np.ndarray:
    """Distribution of the number of successes of independent events: ``p [..., k]`` ->
    ``[..., max_count + 1]`` (mass above ``max_count`` is folded into the last bin)."""
    p = np.clip(p, 0.0, 1.0)
    # the count axis first: every update below runs over contiguous memory
    dist = np.zeros((max_count + 1,) + p.shape[:-1])
    dist[0] = 1.0
    moved = np.empty_like(dist)
    for j in range(p.shape[-1]):
        np.multiply(dist, p[..., j], out=moved)
        dist -= moved
        dist[1:] += moved[:-1]
        dist[-1] += moved[-1]
    return np.ascontiguousarray(np.moveaxis(dist, 0, -1))


def poisson_binomial_leave_one_out(p: np.ndarray, max_count: int = 6) -> np.ndarray:
    """``p [B, k]`` -> ``[B, k, max_count + 1]``: the distribution without event i, for each i."""
    k = p.shape[-1]
    eye = np.eye(k, dtype=bool)
    pp = np.where(eye[None], 0.0, p[:, None, :])
    return poisson_binomial(pp, max_count)


class CardModel:
    """Inferences for one rules group of decoded observations (see the module docstring)."""

    def __init__(self, view: ObsBatch, rules: Rules, num_players: int):
        self.view, self.rules, self.n = view, rules, num_players
        B = len(view)
        self.B = B
        v = view
        pos = np.arange(P)
        self.real = pos[None, :] < num_players
        in_play = _IN_PLAY[v.phase]
        self.in_play = in_play
        # cards the observer has seen are not hidden anywhere (thrown-in cards come back
        # into play only when the stock was reshuffled)
        seen_thrown = v.seen_thrown & ~v.reshuffled[:, None]
        self.unseen = ~(v.hand | v.played | v.trick | seen_thrown)
        counts = suit_counts(self.unseen)
        self.unseen_count = counts[:, 4]
        self.unseen_suit = counts[:, :4]
        # cards in each position's hand
        left = (HAND_SIZE - v.tricks_done)[:, None]
        duel = (v.phase == PHASE["duel"])[:, None]
        # in the ask/join phases the trick block still shows the last finished trick
        self.trick_played = v.trick_played & _TRICK_LIVE[v.phase][:, None]
        playing = np.where(v.in_round, left - self.trick_played, 0)
        folded = v.active & ~v.in_round & ~duel
        holding_play = np.where(folded, np.minimum(left, max(rules.join_at, 0)), playing)
        holding_deal = np.where(v.active, HAND_SIZE, 0)
        thrower = v.thrower
        has_thrower = thrower >= 0
        holding_deal[np.arange(B)[has_thrower], thrower[has_thrower]] = 0
        holding = np.where(in_play[:, None], holding_play, holding_deal)
        holding = np.where(self.real, np.maximum(holding, 0), 0)
        holding[:, 0] = 0  # the observer's own cards are known
        self.holding = holding
        # q[b, p, s]: chance that a given unseen card of suit s sits in p's hand
        voids = v.voids
        blocked = sum_positions(holding[:, :, None] * voids)  # [B, 4] slots that cannot hold suit s
        room = np.maximum(self.unseen_count[:, None] - blocked, 1)
        q = holding[:, :, None] * ~voids / room[:, None, :]
        q = np.where(self.unseen_suit[:, None, :] > 0, q, 0.0)
        total = sum_positions(q)[:, None, :]
        self.q = q / np.maximum(total, 1.0)
        # who still plays to this deal: in play phases the in-round players, before play everyone active
        self.live = np.where(in_play[:, None], v.in_round, v.active) & self.real
        self.live[:, 0] = False
        self.higher = higher_unseen(self.unseen)

    # -------------------------------------------------------------- chances
    def beat_chance(self, who: np.ndarray, cards: np.ndarray | None = None) -> np.ndarray:
        """float [B, 52]: chance that none of the positions ``who`` (bool [B, 7]) holds an
        unseen card of the same suit above each card (only ``cards``, int [B, k], if given:
        float [B, k]; the same for the methods below)."""
        Q = np.clip(sum_positions(self.q * who[:, :, None]), 0.0, 1.0 - 1e-12)  # [B, 4]
        log_miss = np.log1p(-Q)
        if cards is None:
            return np.exp(self.higher * log_miss[:, SUIT_OF])
        return np.exp(np.take_along_axis(self.higher, cards, 1) * np.take_along_axis(log_miss, SUIT_OF[cards], 1))

    def p_win_now(self, legal_cards: np.ndarray, led: np.ndarray, cards: np.ndarray | None = None) -> np.ndarray:
        """float [B, 52]: chance each legal card wins the current trick, assuming everyone
        still to play beats it when they can."""
        v = self.view
        later = self.live & ~self.trick_played
        safe = self.beat_chance(later, cards)
        trick = v.trick
        led_cards = trick & (SUIT_OF[None, :] == led[:, None])
        top = NUM_CARDS - 1 - led_cards[:, ::-1].argmax(1)  # the highest card of the led suit
        best = np.where(led_cards[np.arange(self.B), top], RANK_OF[top], -1)  # rank of the winning card
        empty = ~trick.any(1)
        if cards is None:
            suit, rank = SUIT_OF[None, :], RANK_OF[None, :]
        else:
            suit, rank, legal_cards = SUIT_OF[cards], RANK_OF[cards], np.take_along_axis(legal_cards, cards, 1)
        beats = empty[:, None] | ((suit == led[:, None]) & (rank > best[:, None]))
        return np.where(legal_cards & beats, safe, 0.0)

    def p_win_later(self, leader_rule: str, cards: np.ndarray | None = None) -> np.ndarray:
        """float [B, 52]: chance each card of the hand wins a later trick. Under
        ``leader = declarer`` the declarer leads every trick: its cards win when nobody
        holds a higher one; a follower's card also needs the declarer to lead its suit."""
        v = self.view
        base = self.beat_chance(self.live, cards)
        suit = SUIT_OF if cards is None else SUIT_OF[cards]
        decl = v.declarer
        follower = (decl > 0)
        if leader_rule == "declarer":
            d = np.where(decl >= 0, decl, 0)
            qd = self.q[np.arange(self.B), d]  # [B, 4]
            decl_has = 1.0 - (1.0 - qd) ** self.unseen_suit
            factor = np.where(follower[:, None], decl_has, 1.0)
            no_decl = decl < 0  # before the auction is over: the declarer is unknown
            if no_decl.any():
                q_one = HAND_SIZE / np.maximum(self.unseen_count, 1)
                anyone = 1.0 - (1.0 - q_one[:, None]) ** self.unseen_suit
                factor = np.where(no_decl[:, None], anyone, factor)
            out = base * (factor[:, suit] if cards is None else np.take_along_axis(factor, suit, 1))
        else:
            out = base * 0.75
        duel = v.phase == PHASE["duel"]
        out[duel] = base[duel] * 0.75
        return np.where(v.hand if cards is None else np.take_along_axis(v.hand, cards, 1), out, 0.0)

    def declarer_chances(self, cards: np.ndarray | None = None) -> np.ndarray:
        """float [B, 52]: before play, the chance each card of the hand wins when led, as
        if the observer were declarer leading every trick against all active players."""
        hand = self.view.hand if cards is None else np.take_along_axis(self.view.hand, cards, 1)
        return np.where(hand, self.beat_chance(self.live, cards), 0.0)

    def declarer_trick_distribution(self, uniforms: np.ndarray, q_scale: float = 1.0) -> np.ndarray:
        """float [B, 7]: distribution of the tricks the observer's hand takes leading every
        trick, by Monte Carlo over where the unseen cards are. Within a suit, every
        opponent card above one of the observer's cards can beat one of them (opponents
        take what they can), so the suit yields ``my cards - max matching`` tricks,
        whatever the order of leads; suits are then added up per sample. This keeps the
        correlations the independent per-card chances miss (K and Q under an unseen A
        give one or two tricks, never none). ``uniforms`` [samples, 4, 13] in [0, 1) are
        the random numbers (fixed ones make the estimate deterministic). ``q_scale``
        scales the chance that an unseen card is with an opponent still playing (below 1:
        opponents do not always beat a card they can beat, and some fold before the end)."""
        samples = len(uniforms)
        B = self.B
        Q = np.clip((self.q * self.live[:, :, None]).sum(1) * q_scale, 0.0, 1.0)  # [B, 4]
        unseen = self.unseen.reshape(B, NUM_SUITS, NUM_RANKS)
        mine = self.view.hand.reshape(B, NUM_SUITS, NUM_RANKS)
        held = uniforms[None] < Q[:, None, :, None]
        held &= unseen[:, None]
        free = np.zeros((B, samples, NUM_SUITS), dtype=np.int16)  # opponent cards not yet matched
        beaten = np.zeros((B, samples, NUM_SUITS), dtype=np.int16)
        for r in range(NUM_RANKS - 1, -1, -1):  # from the ace down: greedy maximum matching
            m = mine[:, None, :, r]
            use = m & (free > 0)
            beaten += use
            free -= use
            free += held[:, :, :, r]
        tricks = self.view.hand.sum(1)[:, None] - beaten.sum(2)  # [B, samples]
        cell = np.arange(B)[:, None] * 7 + np.clip(tricks, 0, 6)
        return np.bincount(cell.ravel(), minlength=B * 7).reshape(B, 7) / samples
