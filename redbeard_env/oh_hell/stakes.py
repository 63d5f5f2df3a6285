"""What Oh Hell's questions cost or gain, in words, from the game's ``Rules`` and the seat's
own position (for the web table's stakes box and the terminal), a short rules page, and
why a move is not allowed. Only what the seat may know goes in. Part of
:mod:`redbeard_env.oh_hell.views`.
"""

from __future__ import annotations

from ..family.game import legal_bids
from ..family.stakes import why_not_bid
from .cards import BID0, RANKS, SUIT_NAMES, SUITS, action_id, card_name, suit_of
from .rules import RANDOM_TRICKS, Rules, points

SUIT_SYMBOL = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}
EXACT_BONUS = 10  # OpenSpiel's bonus for an exact bid (points() adds it; the text names it)


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
    if g.game_over or g.to_act != seat:
        return []
    r, score, size = g.rules, g.scores[seat], g.hand_size
    if g.phase == "bid":
        out = [{"action": None, "text": f"Each trick you take scores {r.points_per_trick}; an exact bid {EXACT_BONUS} "
                                        f"more; {_missed(r)}."}]
        legal = legal_bids(g)
        for k in legal:
            win = points(r, k, k)
            off = points(r, k, k + 1 if k < size else k - 1)
            out.append({"action": f"bid:{k}", "text": f"Bid {k}: exactly {k} → +{win} ({score} → {score + win}); "
                                                      f"one trick off → {off:+d}."})
        banned = [k for k in range(size + 1) if k not in legal]
        if banned:
            out.append({"action": None, "text": f"As the dealer you may not bid {banned[0]}: the bids would add up "
                                                f"to {size}, the number of tricks."})
        return out
    if g.phase == "play":
        bid, took = g.bids[seat], g.tricks[seat]
        left = size - g.tricks_done
        need = bid - took
        win = points(r, bid, bid)
        if need > left:
            text = f"You bid {bid} and have {took}: even every trick left ends {need - left} short " \
                   f"({points(r, bid, took + left):+d} at best)."
        elif need > 0:
            text = f"You bid {bid} and have {took}: {need} more for +{win}; {_missed(r)}."
        elif need == 0:
            text = f"You bid {bid} and have it: no more tricks for +{win}; one more → {points(r, bid, bid + 1):+d}."
        else:
            text = f"You bid {bid} and have {took}: {-need} over, the bid is missed ({points(r, bid, took):+d} now)."
        trumps = f"{SUIT_NAMES[g.trumps]} are trumps" if g.trumps >= 0 else "no trumps"
        return [{"action": None, "text": text},
                {"action": None, "text": f"{trumps.capitalize()}; follow the led suit if you can."}]
    return []


def rules_page(r: Rules) -> list[dict]:
    """A short rules page: ``[{"title", "text"}]`` from the ``Rules``."""
    tricks = ("a number of cards drawn at random for the deal (as many as the deck allows)"
              if r.num_tricks == RANDOM_TRICKS else f"{r.num_tricks} card{'s' if r.num_tricks != 1 else ''}")
    return [
        {"title": "Goal", "text": "Bid exactly the number of tricks you will take. One deal; the most points win."},
        {"title": "Cards", "text": f"{r.deck_size} cards: {r.num_suits} suit{'s' if r.num_suits != 1 else ''} "
                                   f"({', '.join(SUIT_NAMES[:r.num_suits])}) of ranks 2 (low) up to "
                                   f"{RANKS[r.num_cards_per_suit - 1]}. Everyone gets {tricks}, dealt one at a "
                                   f"time; the next card is turned face up and its suit is trumps."},
        {"title": "Bidding", "text": "Everyone bids once, left of the dealer first; the dealer bids last and may not "
                                     "make the bids add up to the number of tricks."},
        {"title": "Play", "text": "Left of the dealer leads. Follow the led suit if you can, else play any card. The "
                                  "highest trump wins the trick, else the highest card of the led suit; the winner "
                                  "leads next."},
        {"title": "Scoring", "text": f"{r.points_per_trick} per trick taken and {EXACT_BONUS} more for an exact bid; "
                                     f"{_missed(r)}. (OpenSpiel's oh_hell.)"},
    ]


def why_illegal(g, seat: int, name: str) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following suit, a bid out of range or the dealer's
    forbidden bid, a card in the bidding or a bid in the play."""
    try:
        action = action_id(name)
    except ValueError:
        return ""
    if action >= BID0:
        return why_not_bid(g, action - BID0)
    if g.phase == "bid":
        return "this is not the time to play a card: bid first"
    if action not in g.hands[seat]:
        return f"you do not hold {card_text(card_name(action))}"
    led = g.led_colour
    if g.trick and suit_of(action) != led:
        follow = sorted(c for c in g.hands[seat] if suit_of(c) == led)
        if follow:
            return f"you must follow {SUIT_SYMBOL[SUITS[led]]}: " + ", ".join(card_text(card_name(c)) for c in follow)
    return ""
