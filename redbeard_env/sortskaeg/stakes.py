"""What Sortskæg's questions cost or gain, in words, from the game's ``Rules`` and the
seat's own position (for the web table's stakes box and the terminal), a short rules page of
the game, and why a move is not allowed: the family's texts (:mod:`redbeard_env.family.stakes`)
in Sortskæg's words. Part of :mod:`redbeard_env.sortskaeg.views`.
"""

from __future__ import annotations

from ..family import stakes as family
from .cards import COLOUR_NAMES, NO_COLOUR
from .rules import Rules


def card_text(name: str) -> str:
    """A card as the page and the terminal write it (its name: ``Y10``, ``R7``, ``J1``)."""
    return name


def stakes(g, seat: int) -> list[dict]:
    """What each answer of ``seat``'s question costs or gains: ``[{"action": name or None,
    "text": ...}]`` (``None``: a note on the whole question)."""
    r = g.rules
    scoring = (f"An exact bid of k ≥ 1 scores {r.exact_first} + {r.exact_each} × (k − 1); bid 0 and no trick "
               f"scores {r.zero_bid}; every trick off costs {r.miss_each}.")
    note = ("A joker was led: it wins this trick whatever you play." if g.trick and g.led_colour == NO_COLOUR
            else "Yellow is trumps; a joker can be played any time but only wins when it is led.")
    return family.stakes(g, seat, scoring, f"each trick off costs {r.miss_each}", note)


def rules_page(r: Rules) -> list[dict]:
    """A short rules page: ``[{"title", "text"}]`` from the ``Rules``."""
    sizes = ", ".join(map(str, r.hand_sizes))
    deal = ("Each round is dealt afresh from all 42 cards." if r.deal == "fresh" else
            "The first deal's cards are the game's only cards: in the shrinking rounds you take back the cards you "
            "played and discard one face down; the growing rounds are dealt from the game's cards.")
    return family.rules_page({
        "Goal": "Bid exactly the number of tricks you will take. The highest total after the last round wins.",
        "Cards": "42 cards: red, green, blue and yellow 1–10 and two jokers. Yellow is trumps.",
        "Rounds": f"{len(r.hand_sizes)} rounds with {sizes} cards each. {deal}",
        "Bidding": "Everyone bids once, left of the dealer first."
                   + (" The dealer may not make the bids add up to the hand size." if r.dealer_hook else ""),
        "Play": "Follow the led colour if you can; a joker may be played any time. A led joker wins "
                "the trick; otherwise the highest yellow wins, else the highest card of the led "
                "colour. The winner leads next.",
        "Scoring": f"Exact bid k ≥ 1: {r.exact_first} + {r.exact_each} × (k − 1) points; bid 0 and "
                   f"no trick: {r.zero_bid}; otherwise −{r.miss_each} per trick off.",
    })


def why_illegal(g, seat: int, name: str) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following the led colour, a bid out of range or the
    dealer's forbidden bid, a play in a discard or the other way round."""
    return family.why_illegal(g, seat, name, card_text, COLOUR_NAMES)
