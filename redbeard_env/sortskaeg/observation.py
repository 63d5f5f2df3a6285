"""Sortskæg's observation vector: named blocks, one layout for the AEC env and the batch engine.

Everything is from the observer's point of view. Seats are *relative*: position 0 is the
observer, 1 the player on their left, and so on, padded to 6 positions (positions at or
beyond the player count stay 0). The vector holds only what the observer may know: its
own hand, the cards played face up, the bids, tricks and scores, the voids shown by not
following, and under ``deal = carry`` its own discards, the cards each player took back
after the last round and the cards played in earlier rounds of the game.

Blocks in order (``OBS_BLOCKS`` gives name -> size, ``OBS_SLICES`` name -> slice):

=============  ====  =================================================================
block          size  content
=============  ====  =================================================================
phase          4     one-hot: bid, play, discard, over
num_players    5     one-hot 2..6
rules          8     deal fresh/carry, dealer_hook, exact_first, exact_each, zero_bid,
                     miss_each (each / 10), number of rounds / 13
progress       3     round index / 13, rounds left after this one / 13, tricks done / 7
hand_size      7     one-hot 1..7: this round's (during a discard: the next round's)
hand           42    the observer's cards
played         42    cards of the finished tricks of this round
trick          42    cards of the current trick
led            5     one-hot: no led colour (no card yet, or a joker led), R, G, B, Y
jokers_seen    3     one-hot 0..2: jokers in the observer's hand, played or in the trick
seen_game      42    carry: cards played in earlier rounds of the game
discarded      42    carry: the observer's own discards
took_back      252   carry, per position: the cards it took back after the last round
score          6     per position: score / 50, clipped to [-10, 10]
score_gap      6     per position: (score - the best score) / 20, clipped to [-10, 0]
bid            54    per position one-hot: no bid yet, 0..7
tricks         48    per position one-hot 0..7: tricks this round
need           6     per position: (bid - tricks) / 7 once bid, else 0
dealer         6     per position
acting         6     per position: whose decision it is
leader         6     per position: who leads / led the current trick
trick_played   6     per position: has played to the current trick
trick_winning  6     per position: holds the winning card of the current trick
voids          24    per position x colour (R G B Y): shown void by not following
=============  ====  =================================================================

Per-position blocks are laid out position-major (``block[pos * k + j]``). The encoder is the
family's (:class:`redbeard_env.family.layout.Layout`, shared with Oh Hell); this module is Sortskæg's layout.
"""

from __future__ import annotations

import numpy as np

from ..family.game import PHASE_NAMES
from ..family.layout import Layout
from .cards import JOKERS, MAX_BID, NUM_CARDS, NUM_COLOURS
from .rules import MAX_HAND, MAX_PLAYERS, MIN_PLAYERS, Rules

POSITIONS = MAX_PLAYERS  # relative positions in the per-position blocks (padded to 6)
ROUND_SCALE = 13.0
SCORE_SCALE = 50.0
GAP_SCALE = 20.0
RULE_SCALE = 10.0
OBS_LOW, OBS_HIGH = -10.0, 10.0

OBS_BLOCKS: dict[str, int] = {
    "phase": len(PHASE_NAMES),
    "num_players": MAX_PLAYERS - MIN_PLAYERS + 1,
    "rules": 8,
    "progress": 3,
    "hand_size": MAX_HAND,
    "hand": NUM_CARDS,
    "played": NUM_CARDS,
    "trick": NUM_CARDS,
    "led": NUM_COLOURS + 1,
    "jokers_seen": len(JOKERS) + 1,
    "seen_game": NUM_CARDS,
    "discarded": NUM_CARDS,
    "took_back": POSITIONS * NUM_CARDS,
    "score": POSITIONS,
    "score_gap": POSITIONS,
    "bid": POSITIONS * (MAX_BID + 2),
    "tricks": POSITIONS * (MAX_HAND + 1),
    "need": POSITIONS,
    "dealer": POSITIONS,
    "acting": POSITIONS,
    "leader": POSITIONS,
    "trick_played": POSITIONS,
    "trick_winning": POSITIONS,
    "voids": POSITIONS * NUM_COLOURS,
}


def rules_vector(rules: Rules) -> np.ndarray:
    """The ``rules`` block."""
    vec = np.array(
        [rules.deal == "fresh", rules.deal == "carry", rules.dealer_hook,
         rules.exact_first / RULE_SCALE, rules.exact_each / RULE_SCALE, rules.zero_bid / RULE_SCALE,
         rules.miss_each / RULE_SCALE, rules.num_rounds / ROUND_SCALE],
        dtype=np.float32,
    )
    return np.clip(vec, OBS_LOW, OBS_HIGH)


LAYOUT = Layout(tuple(OBS_BLOCKS.items()), cards=NUM_CARDS, colours=NUM_COLOURS, jokers=JOKERS, positions=POSITIONS,
                min_players=MIN_PLAYERS, max_bid=MAX_BID, max_hand=MAX_HAND, rules_vector=rules_vector,
                round_scale=ROUND_SCALE, score_scale=SCORE_SCALE, gap_scale=GAP_SCALE, low=OBS_LOW, high=OBS_HIGH)
OBS_SLICES, OFF, OBS_SIZE = LAYOUT.slices, LAYOUT.off, LAYOUT.size
assert OBS_SIZE == 671, OBS_SIZE  # the documented layout; change both together


def static_prefix(rules: Rules, num_players: int) -> np.ndarray:
    """The part of the vector that never changes in a game (num_players and rules)."""
    return LAYOUT.static_prefix(rules, num_players)


def encode(game, observer: int, prefix: np.ndarray | None = None) -> np.ndarray:
    """The observation of seat ``observer`` in a reference-engine game."""
    return LAYOUT.encode(game, observer, prefix)
