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
=============  ====  =================================================================

Then the family's per-position blocks (:func:`~redbeard_env.family.layout.seat_blocks`, whose
module says what each holds) for 6 positions: ``score`` 6 (/ 50), ``score_gap`` 6 (/ 20),
``bid`` 54 (no bid, 0..7), ``tricks`` 48 (0..7), ``need`` 6 (/ 7), ``dealer``, ``acting``,
``leader``, ``trick_played``, ``trick_winning`` 6 each, ``voids`` 24 (colours R G B Y).

Per-position blocks are laid out position-major (``block[pos * k + j]``). The encoder is the
family's (:class:`redbeard_env.family.layout.Layout`, shared with Oh Hell); this module is Sortskæg's layout.
"""

from __future__ import annotations

import numpy as np

from ..family.layout import Layout, seat_blocks, table_blocks
from .cards import JOKERS, MAX_BID, NUM_CARDS, NUM_COLOURS
from .rules import MAX_HAND, MAX_PLAYERS, MIN_PLAYERS, Rules

POSITIONS = MAX_PLAYERS  # relative positions in the per-position blocks (padded to 6)
ROUND_SCALE = 13.0
SCORE_SCALE = 50.0
GAP_SCALE = 20.0
RULE_SCALE = 10.0
OBS_LOW, OBS_HIGH = -10.0, 10.0

OBS_BLOCKS: dict[str, int] = {
    **table_blocks(8, (MIN_PLAYERS, MAX_PLAYERS), MAX_HAND, NUM_CARDS, NUM_COLOURS),
    "jokers_seen": len(JOKERS) + 1,
    "seen_game": NUM_CARDS,
    "discarded": NUM_CARDS,
    "took_back": POSITIONS * NUM_CARDS,
    **seat_blocks(POSITIONS, MAX_BID, MAX_HAND, NUM_COLOURS),
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

static_prefix, encode = LAYOUT.static_prefix, LAYOUT.encode  # the encoder is the family's
