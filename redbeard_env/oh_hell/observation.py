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
score          7     per position: score / 50, clipped to [-10, 10]
score_gap      7     per position: (score - the best score) / 20, clipped to [-10, 0]
bid            133   per position one-hot: no bid yet, 0..17
tricks         126   per position one-hot 0..17: tricks taken
need           7     per position: (bid - tricks) / 17 once bid, else 0
dealer         7     per position
acting         7     per position: whose decision it is
leader         7     per position: who leads / led the current trick
trick_played   7     per position: has played to the current trick
trick_winning  7     per position: holds the winning card of the current trick
voids          28    per position x suit (C D S H): shown void by not following
played_by      364   per position: the cards it played (finished tricks and the current one)
trick_of       52    per card played: (its trick's index + 1) / 17, else 0
=============  ====  =================================================================

With ``played_by`` and ``trick_of`` the observation holds the whole play of the deal in order
(the first trick is led from the dealer's left, each next one by the last one's winner), as
OpenSpiel's information state does: a bot can rebuild the deal's history from it
(``agents.oh_hell.openspiel_bots``).

Per-position blocks are laid out position-major (``block[pos * k + j]``).
"""

from __future__ import annotations

import numpy as np

from ..family.game import PHASE_NAMES
from ..family.layout import Layout
from .cards import MAX_BID, NUM_CARDS, NUM_RANKS, NUM_SUITS
from .rules import MAX_HAND, MAX_PLAYERS, MIN_PLAYERS, Rules

POSITIONS = MAX_PLAYERS
SCORE_SCALE = 50.0
GAP_SCALE = 20.0
RULE_SCALE = 10.0
OBS_LOW, OBS_HIGH = -10.0, 10.0

OBS_BLOCKS: dict[str, int] = {
    "phase": len(PHASE_NAMES),
    "num_players": MAX_PLAYERS - MIN_PLAYERS + 1,
    "rules": 6,
    "progress": 3,
    "hand_size": MAX_HAND,
    "hand": NUM_CARDS,
    "played": NUM_CARDS,
    "trick": NUM_CARDS,
    "led": NUM_SUITS + 1,
    "trump_card": NUM_CARDS,
    "trumps": NUM_SUITS + 1,
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
    "voids": POSITIONS * NUM_SUITS,
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


def static_prefix(rules: Rules, num_players: int) -> np.ndarray:
    """The part of the vector that never changes in a game (num_players and rules)."""
    return LAYOUT.static_prefix(rules, num_players)


def encode(game, observer: int, prefix: np.ndarray | None = None) -> np.ndarray:
    """The observation of seat ``observer`` in a reference-engine game."""
    return LAYOUT.encode(game, observer, prefix)
