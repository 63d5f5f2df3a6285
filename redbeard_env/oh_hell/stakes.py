"""What Oh Hell's questions cost or gain, in words, from the game's ``Rules`` and the seat's
own position (for the web table's stakes box and the terminal), a short rules page, and
why a move is not allowed: the family's texts (:mod:`redbeard_env.family.stakes`) in Oh
Hell's words. Part of :mod:`redbeard_env.oh_hell.views`.
"""

from __future__ import annotations

from ..family import stakes as family
from .cards import RANKS, SUIT_NAMES, SUITS
from .rules import MADE_BID_BONUS, RANDOM_TRICKS, Rules

SUIT_SYMBOL = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}


def card_text(name: str) -> str:
    """A card as people write it: ``AS`` -> ``A♠``, ``TD`` -> ``10♦``."""
    return ("10" if name[0] == "T" else name[0]) + SUIT_SYMBOL[name[1]]


def _missed(r: Rules) -> str:
    if r.off_bid_penalty:
        return f"a missed bid scores −{r.points_per_trick} per trick off (no trick points)"
    return f"a missed bid scores only its tricks ({r.points_per_trick} each)"


def stakes(g, seat: int) -> list[dict]:
    """What each answer of ``seat``'s question costs or gains: ``[{"action": name or None,
    "text": ...}]`` (``None``: a note on the whole question)."""
    r = g.rules
    scoring = f"Each trick you take scores {r.points_per_trick}; an exact bid {MADE_BID_BONUS} more; {_missed(r)}."
    trumps = f"{SUIT_NAMES[g.trumps]} are trumps" if g.trumps >= 0 else "no trumps"
    return family.stakes(g, seat, scoring, _missed(r), f"{trumps.capitalize()}; follow the led suit if you can.")


def rules_page(r: Rules) -> list[dict]:
    """A short rules page: ``[{"title", "text"}]`` from the ``Rules``."""
    tricks = ("a number of cards drawn at random for the deal (as many as the deck allows)"
              if r.num_tricks == RANDOM_TRICKS else f"{r.num_tricks} card{'s' if r.num_tricks != 1 else ''}")
    return family.rules_page({
        "Goal": "Bid exactly the number of tricks you will take. One deal; the most points win.",
        "Cards": f"{r.deck_size} cards: {r.num_suits} suit{'s' if r.num_suits != 1 else ''} "
                 f"({', '.join(SUIT_NAMES[:r.num_suits])}) of ranks 2 (low) up to "
                 f"{RANKS[r.num_cards_per_suit - 1]}. Everyone gets {tricks}, dealt one at a "
                 f"time; the next card is turned face up and its suit is trumps.",
        "Bidding": "Everyone bids once, left of the dealer first; the dealer bids last and may not "
                   "make the bids add up to the number of tricks.",
        "Play": "Left of the dealer leads. Follow the led suit if you can, else play any card. The "
                "highest trump wins the trick, else the highest card of the led suit; the winner "
                "leads next.",
        "Scoring": f"{r.points_per_trick} per trick taken and {MADE_BID_BONUS} more for an exact bid; "
                   f"{_missed(r)}. (OpenSpiel's oh_hell.)",
    })


def why_illegal(g, seat: int, name: str) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following suit, a bid out of range or the dealer's
    forbidden bid, a card in the bidding or a bid in the play."""
    return family.why_illegal(g, seat, name, card_text, [SUIT_SYMBOL[s] for s in SUITS])
