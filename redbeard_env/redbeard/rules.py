"""The rule variants of Rödskägg as one frozen value.

Every rule that differs between the rule sheets is a field of :class:`Rules`; the
engines read these fields and never a preset's name. The four presets reproduce the
sheets of ``../shared/seeds`` (see SPEC §2):

============================  ===========  ===========  ================  ===========
field                         classic      fem_opp      raudskjegg        wikipedia
============================  ===========  ===========  ================  ===========
start_score                   12           12           10                12
players (sheet's range)       3–7          3–7          4–6               3–7
redeal                        no_face_card challenge    off               no_face_card
min_bid / max_bid             1 / 6        1 / 6        1 / 6             0 / 5
auction                       single       single       open              single
all_pass                      dealer_must  dealer_must  redeal            dealer_must
bid_over_score                allow        penalty      forbid            allow
leader                        declarer     declarer     declarer          trick_winner
contract                      exact        at_least     at_least          exact
join_at                       2            2            3                 2
may_fold                      trickless    trickless    all_but_declarer  trickless
one_point_must_join           no           yes          yes               no
joiner_trick_value            2            1            1                 2
joiner_fail_penalty           6            5            0                 6
zero_trick_penalty            0            0            5                 0
ask_optional / forget_penalty yes / 6      yes / 5      yes / 5           yes / 5
redbeard_success / _fail      win / elim.  win / elim.  zero / contract   win / elim.
zero_rule                     exact_end    bounce       exact_end         exact_end
tie_at_zero                   duel         duel         duel              duel
eliminate_at                  None         32           None              None
max_rounds                    200          200          200               200
============================  ===========  ===========  ================  ===========

Penalties that all sheets agree on are constants here, not fields: a failed contract,
a bid over one's score (under ``bid_over_score="penalty"``) and a lost look each cost
+5 (``PENALTY``).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

from ..common import parse_literal, parse_overrides, replace_fields  # noqa: F401 (re-exported)
from ..common import check_int
from ..common import shown as _shown

MIN_PLAYERS, MAX_PLAYERS = 3, 7
HAND_SIZE = 6
TRICKS_PER_ROUND = 6
PENALTY = 5  # contract failure, bid over score (penalty mode), the look rule
MAX_TIED_DUELS = 10  # after this many tied duels the lowest seat among them wins
# Starting scores (reset options, loaded games) lie in -SCORE_LIMIT..SCORE_LIMIT. The batch
# engine keeps scores in int32 (about +-2.1e9); within one game a score moves by less than
# 500 a round for at most max_rounds (1e6) rounds, so no score can wrap.
SCORE_LIMIT = 10**9

# Allowed values of every categorical field, in the order used by observations.
CHOICES: dict[str, tuple[str, ...]] = {
    "redeal": ("off", "no_face_card", "any", "challenge"),
    "auction": ("single", "open"),
    "all_pass": ("dealer_must_bid", "redeal"),
    "bid_over_score": ("allow", "penalty", "forbid"),
    "leader": ("declarer", "trick_winner"),
    "contract": ("exact", "at_least"),
    "may_fold": ("trickless", "all_but_declarer"),
    "redbeard_success": ("win", "zero"),
    "redbeard_fail": ("eliminate", "contract"),
    "zero_rule": ("exact_end", "immediate", "bounce"),
    "tie_at_zero": ("duel",),
}

# Integer fields: (lowest, highest) allowed; None = unbounded above.
INT_RANGES: dict[str, tuple[int, int | None]] = {
    "start_score": (1, 1000),
    "min_bid": (0, 1),
    "max_bid": (1, 6),
    "join_at": (0, TRICKS_PER_ROUND - 1),
    "joiner_trick_value": (1, 6),
    "joiner_fail_penalty": (0, 100),
    "zero_trick_penalty": (0, 100),
    "forget_penalty": (0, 100),
    "max_rounds": (1, 1_000_000),
}

BOOL_FIELDS = ("one_point_must_join", "ask_optional")


@dataclass(frozen=True)
class Rules:
    """One complete rule set. Build it with :func:`make_rules`, which validates it."""

    start_score: int = 12
    #: the sheet's own player range; outside it is allowed but warned about
    players: tuple[int, int] = (3, 7)
    #: who may throw in a hand: off | no_face_card | any | challenge (any + look rule)
    redeal: str = "no_face_card"
    min_bid: int = 1
    max_bid: int = 6
    #: single: everyone calls once, dealer last; open: calling goes round, passes final
    auction: str = "single"
    #: all pass: dealer_must_bid | redeal (new deal by the next dealer)
    all_pass: str = "dealer_must_bid"
    #: bidding above one's running score: allow | penalty (+5 at once) | forbid (masked)
    bid_over_score: str = "allow"
    #: who leads tricks after the first: declarer (every trick) | trick_winner
    leader: str = "declarer"
    #: declarer's contract: exact (exactly the bid) | at_least
    contract: str = "exact"
    #: tricks remaining when the join question comes (0 = never)
    join_at: int = 2
    #: who may fold when asked: trickless | all_but_declarer
    may_fold: str = "trickless"
    #: a player on exactly 1 point may not fold
    one_point_must_join: bool = False
    #: score value of each trick taken by a joiner (a trickless player who joined)
    joiner_trick_value: int = 2
    #: penalty for a joiner who ends the round without a trick
    joiner_fail_penalty: int = 6
    #: penalty for any player who did not fold and took no trick
    zero_trick_penalty: int = 0
    #: the declarer may skip ("forget") the join question
    ask_optional: bool = True
    #: penalty for the declarer who skips the join question
    forget_penalty: int = 6
    #: Rödskägg made: win (the game at once) | zero (score set to 0)
    redbeard_success: str = "win"
    #: Rödskägg failed: eliminate | contract (the normal contract penalty)
    redbeard_fail: str = "eliminate"
    #: exact_end | immediate (0 at any moment wins) | bounce (tricks after 0 add)
    zero_rule: str = "exact_end"
    #: several players on 0 after scoring: duel
    tie_at_zero: str = "duel"
    #: a player at or above this score is eliminated; None = never
    eliminate_at: int | None = None
    #: rounds after which a game without a winner is truncated
    max_rounds: int = 200

    def replace(self, **overrides: Any) -> "Rules":
        """A validated copy with some fields changed."""
        return make_rules(self, **overrides)


PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "fem_opp": Rules(
        redeal="challenge",
        bid_over_score="penalty",
        contract="at_least",
        one_point_must_join=True,
        joiner_trick_value=1,
        joiner_fail_penalty=5,
        forget_penalty=5,
        zero_rule="bounce",
        eliminate_at=32,
    ),
    "raudskjegg": Rules(
        start_score=10,
        players=(4, 6),
        redeal="off",
        auction="open",
        all_pass="redeal",
        bid_over_score="forbid",
        contract="at_least",
        join_at=3,
        may_fold="all_but_declarer",
        one_point_must_join=True,
        joiner_trick_value=1,
        joiner_fail_penalty=0,
        zero_trick_penalty=5,
        forget_penalty=5,
        redbeard_success="zero",
        redbeard_fail="contract",
    ),
    "wikipedia": Rules(
        min_bid=0,
        max_bid=5,
        leader="trick_winner",
        forget_penalty=5,
    ),
}

FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


def _allowed_text(name: str) -> str:
    if name in CHOICES:
        return " | ".join(repr(c) for c in CHOICES[name])
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        return f"an int in {lo}..{hi}"
    if name in BOOL_FIELDS:
        return "True or False"
    if name == "eliminate_at":
        return f"None or an int in 1..{SCORE_LIMIT}"
    if name == "players":
        return f"a pair (lowest, highest) within {MIN_PLAYERS}..{MAX_PLAYERS}"
    raise KeyError(name)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate(rules: Rules) -> Rules:
    """Check every field; raise ``ValueError`` naming the field and the allowed values."""
    for name in FIELD_NAMES:
        value = getattr(rules, name)
        ok: bool
        if name in CHOICES:
            ok = isinstance(value, str) and value in CHOICES[name]
        elif name in INT_RANGES:
            lo, hi = INT_RANGES[name]
            ok = _is_int(value) and lo <= value and (hi is None or value <= hi)
        elif name in BOOL_FIELDS:
            ok = isinstance(value, bool)
        elif name == "eliminate_at":  # within the batch engine's int32 scores, like start scores
            ok = value is None or (_is_int(value) and 1 <= value <= SCORE_LIMIT)
        elif name == "players":
            ok = (
                isinstance(value, tuple)
                and len(value) == 2
                and all(_is_int(v) for v in value)
                and MIN_PLAYERS <= value[0] <= value[1] <= MAX_PLAYERS
            )
        else:  # pragma: no cover - a new field without validation
            raise AssertionError(f"field {name} has no validation")
        if not ok:
            raise ValueError(
                f"Rules field {name!r} got {_shown(value)}; allowed: {_allowed_text(name)}"
            )
    if rules.max_bid < rules.min_bid:
        raise ValueError(
            f"Rules field 'max_bid' ({rules.max_bid}) must be >= 'min_bid' ({rules.min_bid})"
        )
    if rules.eliminate_at is not None and rules.eliminate_at <= rules.start_score:
        raise ValueError(
            f"Rules field 'eliminate_at' ({rules.eliminate_at}) must be above "
            f"'start_score' ({rules.start_score}) or None"
        )
    return rules


def make_rules(rules: "str | Rules | Mapping[str, Any] | None" = "classic", **overrides: Any) -> Rules:
    """Build validated rules from a preset name (or a ``Rules``, or a dict of fields)
    plus field overrides, e.g. ``make_rules("classic", leader="trick_winner")``."""
    return validate(replace_fields(rules, overrides, PRESETS, "classic", Rules, tuple_field="players"))


def check_num_players(num_players: Any, rules: Rules) -> int:
    """Validate a player count: 3..7 or ``ValueError``; outside the sheet's range warns."""
    num_players = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    lo, hi = rules.players
    if not lo <= num_players <= hi:
        warnings.warn(
            f"{num_players} players is outside this rule sheet's range {lo}..{hi}; playing anyway",
            UserWarning,
            stacklevel=3,
        )
    return int(num_players)
