"""Tiny Trick's rules: a few rounds of a few cards from a deck of twelve (two suits, ranks
1..6); every seat bids its tricks once, from the dealer's left, then plays them (follow the
led suit if you can, the highest card of the led suit wins, the winner leads). An exact bid
k scores 10 + k, a miss loses a point per trick off; the highest total wins (ties share)."""

from __future__ import annotations

from dataclasses import dataclass

from redbeard_env.common import check_int, replace_fields

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_HAND = 3  # 4 players x 3 cards = the whole deck
MAX_ROUNDS = 3
SCORE_LIMIT = 1000


@dataclass(frozen=True)
class Rules:
    hand_size: int = 2  # cards per hand, every round
    num_rounds: int = 2  # deals in a game


PRESETS = {"tinytrick": Rules(), "tinytrick_long": Rules(hand_size=3, num_rounds=3)}


def make_rules(rules=None, **overrides) -> Rules:
    out = replace_fields(rules, overrides, PRESETS, "tinytrick", Rules, "", "Tiny Trick ")
    check_int(out.hand_size, "hand_size", 1, MAX_HAND)
    check_int(out.num_rounds, "num_rounds", 1, MAX_ROUNDS)
    return out


def check_num_players(num_players, rules: Rules) -> int:
    n = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    if n * rules.hand_size > 12:
        raise ValueError(f"num_players {n} x hand_size {rules.hand_size} is more than the 12 cards")
    return n
