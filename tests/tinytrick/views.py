"""Tiny Trick's table views: the shared defaults (:class:`redbeard_env.viewparts.TableViews`)
with its introduction, its rules page, what a bid would score and what a card must do, and
why a card that does not follow suit is not allowed."""

from __future__ import annotations

from redbeard_env.viewparts import TableViews

from . import cards
from .rules import PRESETS

MISSED = "a miss loses a point per trick off"


class TinyViews(TableViews):
    INTRO = ("Bid how many tricks you will take, then take exactly that many: follow the led suit if you can, "
             f"the highest card of the led suit wins. An exact bid k scores 10 + k; {MISSED}.")

    def rules_page(self, rules) -> list[dict]:
        hand = f"{rules.hand_size} card{'s' if rules.hand_size != 1 else ''}"
        return [
            {"title": "Goal", "text": "Bid exactly the number of tricks you will take. After the last round the "
                                      "highest total wins; a tie shares the win."},
            {"title": "Cards", "text": f"12 cards: two suits, {cards.SUITS[0]} and {cards.SUITS[1]}, of ranks 1 (low) "
                                       f"to 6. {rules.num_rounds} round{'s' if rules.num_rounds != 1 else ''} of "
                                       f"{hand} each; the deal passes to the left."},
            {"title": "Bidding", "text": f"Everyone bids 0 to {rules.hand_size} once, left of the dealer first."},
            {"title": "Play", "text": "Left of the dealer leads. Follow the led suit if you can, else play any card; "
                                      "the highest card of the led suit wins the trick and its winner leads next."},
            {"title": "Scoring", "text": f"An exact bid k scores 10 + k; {MISSED}."},
        ]

    def stakes(self, g, seat: int) -> list[dict]:
        if g.game_over or g.to_act != seat:
            return []
        if g.phase == "bid":
            return [{"action": f"bid:{k}", "text": f"Bid {k}: exactly {k} tricks scores {10 + k}; {MISSED}."}
                    for k in range(g.rules.hand_size + 1)]
        bid, took, left = g.bids[seat], g.tricks[seat], len(g.hands[seat])
        need = bid - took
        if need > left:
            text = f"You bid {bid} and have {took}: even every trick left ends {need - left} short."
        elif need > 0:
            text = f"You bid {bid} and have {took}: {need} more scores {10 + bid}; {MISSED}."
        elif need == 0:
            text = f"You bid {bid} and have it: no more tricks scores {10 + bid}."
        else:
            text = f"You bid {bid} and have {took}: {-need} over, each trick more costs a point."
        return [{"action": None, "text": text + " Follow the led suit if you can."}]

    def why_illegal(self, g, seat: int, name: str) -> str:
        reason = super().why_illegal(g, seat, name)  # a card not held
        kind, _, what = name.partition(":")
        if reason or kind != "play":
            return reason
        if g.phase != "play":
            return "this is not the time to play a card: bid first"
        try:
            card = cards.parse_card(what)
        except ValueError:
            return ""
        led = cards.suit_of(g.trick[0][1]) if g.trick else None
        follow = sorted(c for c in g.hands[seat] if cards.suit_of(c) == led)
        if follow and cards.suit_of(card) != led:
            return f"you must follow {cards.SUITS[led]}: " + ", ".join(cards.card_name(c) for c in follow)
        return ""


VIEWS = TinyViews(cards, PRESETS)
