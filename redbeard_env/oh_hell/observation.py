"""Oh Hell's observation vector: the family's encoder (:mod:`redbeard_env.family.layout`,
shared by the AEC env and the batch engine) over Oh Hell's blocks.

Everything is from the observer's point of view: position 0 is the observer, 1 the player on
their left, and so on, padded to 7 positions. The vector holds only what the observer may
know: its own hand, the turned trump card, the cards played face up, the bids, tricks and
scores, and the voids shown by not following. One layout for every deck and player count
(52 card ids, bids and hands up to 17).

=============  ====  =================================================================
block          size  content
=============  ====  =================================================================
phase          4     one-hot: bid, play, discard (unused), over
num_players    5     one-hot 3..7
rules          6     num_suits / 4, num_cards_per_suit / 13, num_tricks drawn (-1),
                     num_tricks / 17 (0 when drawn), points_per_trick / 10,
                     off_bid_penalty
progress       3     deals played (1 once over), deals left after this one (0),
                     tricks done / 17
hand_size      17    one-hot 1..17: this deal's (none once over)
hand           52    the observer's cards
played         52    cards of the finished tricks
trick          52    cards of the current trick
led            5     one-hot: no led suit (no card yet), C, D, S, H
trump_card     52    the turned card
trumps         5     one-hot: no trumps, C, D, S, H
=============  ====  =================================================================

Then the family's per-position blocks (:func:`~redbeard_env.family.layout.seat_blocks`, whose
module says what each holds) for 7 positions: ``score`` 7 (/ 50), ``score_gap`` 7 (/ 20),
``bid`` 133 (no bid, 0..17), ``tricks`` 126 (0..17), ``need`` 7 (/ 17), ``dealer``,
``acting``, ``leader``, ``trick_played``, ``trick_winning`` 7 each, ``voids`` 28 (suits C D S
H); and last ``played_by`` 364 (per position: the cards it played, finished tricks and the
current one) and ``trick_of`` 52 (per card played: (its trick's index + 1) / 17, else 0).

With ``played_by`` and ``trick_of`` the observation holds the whole play of the deal in order
(the first trick is led from the dealer's left, each next one by the last one's winner), as
OpenSpiel's information state does: a bot can rebuild the deal's history from it
(``agents.oh_hell.openspiel_bots``).

Per-position blocks are laid out position-major (``block[pos * k + j]``).
"""

from __future__ import annotations

import numpy as np

from ..family.layout import Layout, seat_blocks, table_blocks
from .cards import MAX_BID, NUM_CARDS, NUM_RANKS, NUM_SUITS
from .rules import MAX_HAND, MAX_PLAYERS, MIN_PLAYERS, Rules

POSITIONS = MAX_PLAYERS
SCORE_SCALE = 50.0
GAP_SCALE = 20.0
RULE_SCALE = 10.0
OBS_LOW, OBS_HIGH = -10.0, 10.0

OBS_BLOCKS: dict[str, int] = {
    **table_blocks(6, (MIN_PLAYERS, MAX_PLAYERS), MAX_HAND, NUM_CARDS, NUM_SUITS),
    "trump_card": NUM_CARDS,
    "trumps": NUM_SUITS + 1,
    **seat_blocks(POSITIONS, MAX_BID, MAX_HAND, NUM_SUITS),
    "played_by": POSITIONS * NUM_CARDS,
    "trick_of": NUM_CARDS,
}


def rules_vector(rules: Rules) -> np.ndarray:
    """The ``rules`` block."""
    drawn = rules.num_tricks < 0
    vec = np.array([rules.num_suits / NUM_SUITS, rules.num_cards_per_suit / NUM_RANKS, drawn,
                    0.0 if drawn else rules.num_tricks / MAX_HAND, rules.points_per_trick / RULE_SCALE,
                    rules.off_bid_penalty], dtype=np.float32)
    return np.clip(vec, OBS_LOW, OBS_HIGH)


LAYOUT = Layout(tuple(OBS_BLOCKS.items()), cards=NUM_CARDS, colours=NUM_SUITS, jokers=(), positions=POSITIONS,
                min_players=MIN_PLAYERS, max_bid=MAX_BID, max_hand=MAX_HAND, rules_vector=rules_vector,
                round_scale=1.0, score_scale=SCORE_SCALE, gap_scale=GAP_SCALE, low=OBS_LOW, high=OBS_HIGH)
OBS_SLICES, OFF, OBS_SIZE = LAYOUT.slices, LAYOUT.off, LAYOUT.size
assert OBS_SIZE == 1012, OBS_SIZE  # the documented layout; change both together

static_prefix, encode = LAYOUT.static_prefix, LAYOUT.encode  # the encoder is the family's
