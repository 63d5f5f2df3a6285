"""The observation vector: named blocks, one layout for the AEC env and the batch engine.

Everything is from the observer's point of view. Seats are *relative*: position 0 is the
observer, 1 the player on their left, and so on, padded to 7 positions (positions at or
beyond the player count stay 0). The vector holds only what the observer may know: its
own hand, the cards played face up, the public calls and scores, the thrown-in cards it
has seen (its own, and a hand it looked at), voids revealed by not following suit.

Blocks in order (``OBS_BLOCKS`` gives name -> size, ``OBS_SLICES`` name -> slice):

=================  ====  ===========================================================
block              size  content
=================  ====  ===========================================================
phase              8     one-hot: redeal, look, bid, ask, join, play, duel, done
num_players        5     one-hot 3..7
rules              37    the Rules fields (categoricals one-hot, numbers scaled)
progress           1     rounds_played / max_rounds
hand               52    the observer's cards
played             52    cards of the finished tricks of this deal
trick              52    cards of the current trick
seen_thrown        52    thrown-in cards the observer has seen this deal
tricks_done        7     one-hot 0..6 finished tricks this deal
high_bid           9     one-hot: none, 0..6, Rödskägg
join_state         3     one-hot: pending, asked, skipped
deal_flags         4     redeals open, stock reshuffled, stock size / 52, tied duels / 10
me_forced          1     the observer must bid (dealer after all passed)
score              7     per position: running score / 12, clipped to [-10, 10]
score_bin          63    per position one-hot of clip(score, -1, 7): "<0", 0, 1, ..., 7+
active             7     per position: not eliminated
in_round           7     per position: dealt in and not folded (duel: duellist)
dealer             7     per position
declarer           7     per position
acting             7     per position: whose decision it is
leader             7     per position: who leads / led the current trick
trick_played       7     per position: has played to the current trick
trick_winning      7     per position: holds the winning card of the current trick
thrower            7     per position: whose thrown-in hand is up for a look
tricks             7     per position: tricks this deal / 6
joiner             7     per position: joined without a trick (bonus and risk)
bounced            7     per position: reached 0 this round (zero_rule = bounce)
throws             7     per position: hands thrown in this deal / 3, clipped to 1
voids              28    per position x suit (C D H S): shown void by not following
call               70    per position one-hot: not called, pass, bid 0..6, Rödskägg
=================  ====  ===========================================================

Per-position blocks are laid out position-major (``block[pos * k + j]``).
"""

from __future__ import annotations

import numpy as np

from ..common import block_layout, constant_blocks
from .cards import NUM_CARDS, NUM_RANKS
from .game import JOIN_STATES, NO_CALL, PHASE_NAMES
from .rules import BOOL_FIELDS, CHOICES, MAX_PLAYERS, MIN_PLAYERS, Rules

POSITIONS = MAX_PLAYERS  # relative positions in the per-position blocks (padded to 7)
SCORE_SCALE = 12.0
SCORE_BINS = 9  # clip(score, -1, 7) + 1

# Numeric rule fields and their scale in the rules block.
RULE_NUMBERS = (
    ("start_score", 12.0),
    ("min_bid", 1.0),
    ("max_bid", 6.0),
    ("join_at", 6.0),
    ("joiner_trick_value", 2.0),
    ("joiner_fail_penalty", 6.0),
    ("zero_trick_penalty", 6.0),
    ("forget_penalty", 6.0),
)
RULES_SIZE = sum(len(v) for v in CHOICES.values()) + len(BOOL_FIELDS) + len(RULE_NUMBERS) + 2

OBS_BLOCKS: dict[str, int] = {
    "phase": len(PHASE_NAMES),
    "num_players": MAX_PLAYERS - MIN_PLAYERS + 1,
    "rules": RULES_SIZE,
    "progress": 1,
    "hand": NUM_CARDS,
    "played": NUM_CARDS,
    "trick": NUM_CARDS,
    "seen_thrown": NUM_CARDS,
    "tricks_done": 7,
    "high_bid": 9,
    "join_state": len(JOIN_STATES),
    "deal_flags": 4,
    "me_forced": 1,
    "score": POSITIONS,
    "score_bin": POSITIONS * SCORE_BINS,
    "active": POSITIONS,
    "in_round": POSITIONS,
    "dealer": POSITIONS,
    "declarer": POSITIONS,
    "acting": POSITIONS,
    "leader": POSITIONS,
    "trick_played": POSITIONS,
    "trick_winning": POSITIONS,
    "thrower": POSITIONS,
    "tricks": POSITIONS,
    "joiner": POSITIONS,
    "bounced": POSITIONS,
    "throws": POSITIONS,
    "voids": POSITIONS * 4,
    "call": POSITIONS * 10,
}


OBS_SLICES, OFF, OBS_SIZE = block_layout(OBS_BLOCKS)
assert OBS_SIZE == 542, OBS_SIZE  # the documented layout; change both together
OBS_LOW, OBS_HIGH = -10.0, 10.0


def rules_vector(rules: Rules) -> np.ndarray:
    """The ``rules`` block: categoricals one-hot (CHOICES order), booleans, scaled numbers,
    then eliminate_at / 32 and whether elimination is on."""
    parts: list[float] = []
    for name, values in CHOICES.items():
        parts += [1.0 if getattr(rules, name) == v else 0.0 for v in values]
    parts += [float(getattr(rules, name)) for name in BOOL_FIELDS]
    parts += [getattr(rules, name) / scale for name, scale in RULE_NUMBERS]
    elim = rules.eliminate_at
    parts += [0.0 if elim is None else elim / 32.0, 0.0 if elim is None else 1.0]
    vec = np.clip(np.asarray(parts, dtype=np.float32), OBS_LOW, OBS_HIGH)
    assert vec.shape == (RULES_SIZE,)
    return vec


def static_prefix(rules: Rules, num_players: int) -> np.ndarray:
    """The part of the vector that never changes in a game (num_players and rules)."""
    return constant_blocks(OBS_SIZE, OBS_SLICES, num_players - MIN_PLAYERS, rules_vector(rules))


def encode(game, observer: int, prefix: np.ndarray | None = None) -> np.ndarray:
    """The observation of seat ``observer`` in a reference-engine game."""
    g = game
    n = g.num_players
    obs = static_prefix(g.rules, n) if prefix is None else prefix.copy()
    obs[OFF["phase"] + PHASE_NAMES.index(g.phase)] = 1.0
    obs[OFF["progress"]] = g.rounds_played / g.rules.max_rounds
    if g.hands[observer]:
        obs[[OFF["hand"] + c for c in g.hands[observer]]] = 1.0
    if g.played:
        obs[[OFF["played"] + c for c in g.played]] = 1.0
    if g.trick:
        obs[[OFF["trick"] + c for _, c in g.trick]] = 1.0
    if g.seen_thrown[observer]:
        obs[[OFF["seen_thrown"] + c for c in g.seen_thrown[observer]]] = 1.0
    obs[OFF["tricks_done"] + g.tricks_done] = 1.0
    obs[OFF["high_bid"] + g.high_level + 1] = 1.0
    obs[OFF["join_state"] + JOIN_STATES.index(g.join_state)] = 1.0
    o = OFF["deal_flags"]
    obs[o] = g.redeals_open
    obs[o + 1] = g.reshuffled
    obs[o + 2] = len(g.stock) / NUM_CARDS
    obs[o + 3] = g.tied_duels / 10.0
    if g.to_act == observer and g.phase == "bid" and g.rules.all_pass == "dealer_must_bid":
        obs[OFF["me_forced"]] = observer == g.dealer and g.high_level < 0
    # who won / is winning the current trick
    winning = -1
    if g.trick:
        led = g.trick[0][1] // NUM_RANKS
        winning = max((c, s) for s, c in g.trick if c // NUM_RANKS == led)[1]
    trick_seats = {s for s, _ in g.trick}
    for seat in range(n):
        pos = (seat - observer) % n
        score = g.scores[seat]
        obs[OFF["score"] + pos] = min(max(score / SCORE_SCALE, OBS_LOW), OBS_HIGH)
        obs[OFF["score_bin"] + pos * SCORE_BINS + min(max(score, -1), 7) + 1] = 1.0
        obs[OFF["active"] + pos] = g.active[seat]
        obs[OFF["in_round"] + pos] = g.in_round[seat]
        obs[OFF["tricks"] + pos] = g.tricks[seat] / 6.0
        obs[OFF["joiner"] + pos] = g.joiner[seat]
        obs[OFF["bounced"] + pos] = g.bounced[seat]
        obs[OFF["throws"] + pos] = min(g.throws[seat] / 3.0, 1.0)
        if seat in trick_seats:
            obs[OFF["trick_played"] + pos] = 1.0
        for suit in range(4):
            if g.voids[seat][suit]:
                obs[OFF["voids"] + pos * 4 + suit] = 1.0
        call = g.calls[seat]
        obs[OFF["call"] + pos * 10 + (NO_CALL if call is None else call) - NO_CALL] = 1.0
    for name, seat in (
        ("dealer", g.dealer),
        ("declarer", g.declarer),
        ("acting", g.to_act),
        ("leader", g.leader if g.phase in ("play", "duel", "ask", "join") else -1),
        ("trick_winning", winning),
        ("thrower", g.thrower),
    ):
        if seat >= 0:
            obs[OFF[name] + (seat - observer) % n] = 1.0
    return obs
