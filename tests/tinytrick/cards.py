"""Tiny Trick's cards and actions: card ``suit * 6 + rank - 1`` (suits R, B; ranks 1..6),
named ``R1`` .. ``B6``; actions 0..11 play a card (``play:R4``), 12..15 bid 0..3 (``bid:2``)."""

from __future__ import annotations

from redbeard_env.common import parse_card_list

SUITS = "RB"
NUM_CARDS = 12
BID0 = NUM_CARDS
NUM_ACTIONS = BID0 + 4


def suit_of(card: int) -> int:
    return card // 6


def rank_of(card: int) -> int:
    return card % 6 + 1


def card_name(card: int) -> str:
    return f"{SUITS[suit_of(card)]}{rank_of(card)}"


def parse_card(text) -> int:
    t = str(text).strip().upper()
    if len(t) != 2 or t[0] not in SUITS or t[1] not in "123456":
        raise ValueError(f"a card is a suit R or B and a rank 1..6, e.g. R4; got {str(text)[:20]!r}")
    return SUITS.index(t[0]) * 6 + int(t[1]) - 1


def parse_cards(cards, what: str = "cards") -> list[int]:
    return parse_card_list(cards, what, parse_card, card_name)


def action_name(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"an action id is 0..{NUM_ACTIONS - 1}, got {action!r}")
    return f"play:{card_name(action)}" if action < BID0 else f"bid:{action - BID0}"


def action_id(name: str) -> int:
    kind, _, what = str(name).strip().partition(":")
    if kind == "bid" and what in ("0", "1", "2", "3"):
        return BID0 + int(what)
    if kind == "play":
        return parse_card(what)
    raise ValueError(f"an action is play:<card> or bid:<0..3>, got {str(name)[:40]!r}")
