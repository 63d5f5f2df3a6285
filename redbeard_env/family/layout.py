"""The observation of a game of the family: one encoder for every game of it, over a
:class:`Layout` (each game's ``observation`` module has one: its blocks and sizes).

Everything is from the observer's point of view. Seats are *relative*: position 0 is the
observer, 1 the player on their left, and so on, padded to ``positions`` (positions at or
beyond the player count stay 0). The vector holds only what the observer may know.

The blocks a layout may have (a game's layout lists the ones it uses, in its order):

=============  ====================  ==========================================================
block          size                  content
=============  ====================  ==========================================================
phase          4                     one-hot: bid, play, discard, over
num_players    players' range        one-hot from the fewest players
rules          the game's            the game's ``rules_vector``
progress       3                     round index / round_scale, rounds left after this one /
                                     round_scale, tricks done / max_hand
hand_size      max_hand              one-hot 1..max_hand: this round's (during a discard: the
                                     next round's; none once over)
hand           cards                 the observer's cards
played         cards                 cards of the finished tricks of this round
trick          cards                 cards of the current trick
led            colours + 1           one-hot: no led colour (no card yet, or a joker led), then
                                     each colour
jokers_seen    jokers + 1            one-hot: jokers in the observer's hand, played or in the trick
trump_card     cards                 the turned card (face up, out of play)
trumps         colours + 1           one-hot: no trumps, then each colour
seen_game      cards                 carry: cards played in earlier rounds of the game
discarded      cards                 carry: the observer's own discards
took_back      positions x cards     carry, per position: the cards it took back after the last round
score          positions             per position: score / score_scale, clipped to [low, high]
score_gap      positions             per position: (score - the best score) / gap_scale, clipped
                                     to [low, 0]
bid            positions x (b + 2)   per position one-hot: no bid yet, 0..max_bid (b)
tricks         positions x (h + 1)   per position one-hot 0..max_hand (h): tricks this round
need           positions             per position: (bid - tricks) / max_hand once bid, else 0
dealer         positions             per position
acting         positions             per position: whose decision it is
leader         positions             per position: who leads / led the current trick
trick_played   positions             per position: has played to the current trick
trick_winning  positions             per position: holds the winning card of the current trick
voids          positions x colours   per position x colour: shown void by not following
played_by      positions x cards     per position: the cards it played this round (finished
                                     tricks and the current one)
trick_of       cards                 per card played this round: (the index of its trick + 1)
                                     / max_hand, 0 for a card not played: with ``played_by``
                                     the whole play of the round, in order
=============  ====================  ==========================================================

Per-position blocks are laid out position-major (``block[pos * k + j]``). The batch engine's
encoder (:mod:`~.vector_observe`) writes the same blocks bit for bit from the offsets of
:attr:`Layout.offsets` (:data:`BLOCK_KEYS`; -1 for a block the layout lacks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..common import block_layout, constant_blocks
from .game import PHASE_NAMES

#: every block a layout may have, in the order of the batch engine's offsets table
BLOCK_KEYS = ("phase", "num_players", "rules", "progress", "hand_size", "hand", "played", "trick", "led",
              "jokers_seen", "trump_card", "trumps", "seen_game", "discarded", "took_back", "score", "score_gap",
              "bid", "tricks", "need", "dealer", "acting", "leader", "trick_played", "trick_winning", "voids",
              "played_by", "trick_of")



def table_blocks(rules: int, players: tuple[int, int], max_hand: int, cards: int, colours: int) -> dict[str, int]:
    """The blocks every layout of the family opens with, ``phase`` .. ``led`` (name -> size):
    ``rules`` the game's rules block's size, ``players`` the fewest and most players."""
    return {"phase": len(PHASE_NAMES), "num_players": players[1] - players[0] + 1, "rules": rules, "progress": 3,
            "hand_size": max_hand, "hand": cards, "played": cards, "trick": cards, "led": colours + 1}


def seat_blocks(positions: int, max_bid: int, max_hand: int, colours: int) -> dict[str, int]:
    """The per-position blocks every layout of the family has, ``score`` .. ``voids``."""
    return {"score": positions, "score_gap": positions, "bid": positions * (max_bid + 2),
            "tricks": positions * (max_hand + 1), "need": positions, "dealer": positions, "acting": positions,
            "leader": positions, "trick_played": positions, "trick_winning": positions, "voids": positions * colours}


@dataclass(frozen=True, eq=False)
class Layout:
    """A game's observation: its blocks (name -> size, in order; names from
    :data:`BLOCK_KEYS`), its dimensions and scales, and its ``rules_vector(rules)``."""

    blocks: tuple[tuple[str, int], ...]
    cards: int  # card ids
    colours: int
    jokers: tuple[int, ...]  # the joker ids
    positions: int  # relative positions (the most players)
    min_players: int
    max_bid: int
    max_hand: int
    rules_vector: Callable[[Any], np.ndarray]
    round_scale: float
    score_scale: float
    gap_scale: float
    low: float = -10.0
    high: float = 10.0

    def __post_init__(self):
        assert all(name in BLOCK_KEYS for name, _ in self.blocks), self.blocks
        slices, off, size = block_layout(dict(self.blocks))
        object.__setattr__(self, "slices", slices)
        object.__setattr__(self, "off", off)
        object.__setattr__(self, "size", size)

    @property
    def offsets(self) -> np.ndarray:
        """int64 [len(BLOCK_KEYS)]: each block's offset, -1 where the layout has none."""
        return np.array([self.off.get(name, -1) for name in BLOCK_KEYS], np.int64)

    def static_prefix(self, rules: Any, num_players: int) -> np.ndarray:
        """The part of the vector that never changes in a game (num_players and rules)."""
        vec = np.clip(np.asarray(self.rules_vector(rules), np.float32), self.low, self.high)
        return constant_blocks(self.size, self.slices, num_players - self.min_players, vec)

    def encode(self, game, observer: int, prefix: np.ndarray | None = None) -> np.ndarray:
        """The observation of seat ``observer`` in a reference-engine game."""
        g, OFF, fam = game, self.off, game.fam
        n, R = g.num_players, fam.num_rounds
        obs = self.static_prefix(g.rules, n) if prefix is None else prefix.copy()
        obs[OFF["phase"] + PHASE_NAMES.index(g.phase)] = 1.0
        obs[OFF["progress"]] = g.round / self.round_scale
        obs[OFF["progress"] + 1] = max(R - g.round - 1, 0) / self.round_scale
        obs[OFF["progress"] + 2] = g.tricks_done / self.max_hand
        if not g.game_over:
            obs[OFF["hand_size"] + g.hand_size - 1] = 1.0
        if "trick_of" in OFF:
            for card, t in g.trick_no.items():
                obs[OFF["trick_of"] + card] = (t + 1) / self.max_hand
        for name, cards in (("hand", g.hands[observer]), ("played", g.played), ("trick", [c for _, c in g.trick]),
                            ("seen_game", g.seen_game), ("discarded", g.discarded[observer]),
                            ("trump_card", g.face_up)):
            if cards and name in OFF:
                obs[[OFF[name] + c for c in cards]] = 1.0
        obs[OFF["led"] + g.led_colour + 1] = 1.0
        if "trumps" in OFF:
            obs[OFF["trumps"] + g.trumps + 1] = 1.0
        if "jokers_seen" in OFF:
            visible = g.hands[observer] | g.played | {c for _, c in g.trick}
            obs[OFF["jokers_seen"] + sum(j in visible for j in self.jokers)] = 1.0
        self._encode_seats(g, observer, obs)
        winning = g.trick[fam.trick_winner([c for _, c in g.trick], g.trumps)][0] if g.trick else -1
        for name, seat in (("dealer", g.dealer), ("acting", g.to_act),
                           ("leader", g.leader if g.phase == "play" else -1), ("trick_winning", winning)):
            if seat >= 0:
                obs[OFF[name] + (seat - observer) % n] = 1.0
        return obs

    def _encode_seats(self, g, observer: int, obs: np.ndarray) -> None:
        """The per-position blocks."""
        OFF, n, C = self.off, g.num_players, self.colours
        best = max(g.scores)
        trick_seats = {s for s, _ in g.trick}
        for seat in range(n):
            pos = (seat - observer) % n
            if g.took_back[seat] and "took_back" in OFF:
                obs[[OFF["took_back"] + pos * self.cards + c for c in g.took_back[seat]]] = 1.0
            if g.played_by and g.played_by[seat] and "played_by" in OFF:
                obs[[OFF["played_by"] + pos * self.cards + c for c in g.played_by[seat]]] = 1.0
            obs[OFF["score"] + pos] = min(max(g.scores[seat] / self.score_scale, self.low), self.high)
            obs[OFF["score_gap"] + pos] = max((g.scores[seat] - best) / self.gap_scale, self.low)
            bid = g.bids[seat] if g.bids else None
            obs[OFF["bid"] + pos * (self.max_bid + 2) + (0 if bid is None else bid + 1)] = 1.0
            tricks = g.tricks[seat] if g.tricks else 0
            obs[OFF["tricks"] + pos * (self.max_hand + 1) + tricks] = 1.0
            if bid is not None:
                obs[OFF["need"] + pos] = (bid - tricks) / self.max_hand
            if seat in trick_seats:
                obs[OFF["trick_played"] + pos] = 1.0
            for colour in range(C):
                if g.voids and g.voids[seat][colour]:
                    obs[OFF["voids"] + pos * C + colour] = 1.0
