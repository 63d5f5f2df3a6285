"""What the questions of a family game cost or gain, and why a move is not allowed, in words
(for the web table's stakes box and the terminal): the texts every game of the family shares,
from the game's :class:`~.family.Family` (its scoring) and the seat's own position. Each
game's ``stakes.py`` names its own words (how it scores, what a missed bid costs, its trumps)
and writes its rules page. Only what the seat may know goes in.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .family import NO_COLOUR
from .game import legal_bids


def signed(points: int) -> str:
    """Points with their sign: ``+12``, ``−2`` (a minus sign, as the texts write it)."""
    return f"−{-points}" if points < 0 else f"+{points}"


def stakes(g, seat: int, scoring: str, missed: str, note: str) -> list[dict]:
    """What each answer of ``seat``'s question costs or gains: ``[{"action": name or None,
    "text": ...}]`` (``None``: a note on the whole question). ``scoring`` (how a bid scores)
    heads the bids; ``missed`` (what a missed bid costs) and ``note`` (trumps, what to
    follow) go with a card to play."""
    if g.game_over or g.to_act != seat:
        return []
    points, score, size = g.fam.round_score, g.scores[seat], g.hand_size
    if g.phase == "bid":
        out = [{"action": None, "text": scoring}]
        legal = legal_bids(g)
        for k in legal:
            win, off = points(k, k), points(k, k + 1 if k < size else k - 1)
            out.append({"action": f"bid:{k}", "text": f"Bid {k}: exactly {k} → +{win} ({score} → {score + win}); "
                                                      f"one trick off → {signed(off)}."})
        banned = [k for k in range(size + 1) if k not in legal]
        if banned:
            out.append({"action": None, "text": f"As the dealer you may not bid {banned[0]}: the bids would add up "
                                                f"to {size}, the number of tricks."})
        return out
    if g.phase == "play":
        bid, took = g.bids[seat], g.tricks[seat]
        left = size - g.tricks_done
        need = bid - took
        win = points(bid, bid)
        if need > left:
            text = (f"You bid {bid} and have {took}: even every trick left ends {need - left} short "
                    f"({signed(points(bid, took + left))} at best).")
        elif need > 0:
            text = f"You bid {bid} and have {took}: {need} more for +{win}; {missed}."
        elif need == 0:
            text = f"You bid {bid} and have it: no more tricks for +{win}; one more → {signed(points(bid, bid + 1))}."
        else:
            text = f"You bid {bid} and have {took}: {-need} over, the bid is missed ({signed(points(bid, took))} now)."
        return [{"action": None, "text": text}, {"action": None, "text": note}]
    if g.phase == "discard":
        return [{"action": None, "text": "The card you discard leaves the game face down; you keep the rest for the "
                                         "next, smaller round."}]
    return []


def rules_page(sections: dict[str, str]) -> list[dict]:
    """A short rules page as the page draws it, ``[{"title", "text"}]``: a game's sections
    (title -> text) in order."""
    return [{"title": title, "text": text} for title, text in sections.items()]


def why_not_bid(g, k: int) -> str:
    """Why bidding ``k`` is not allowed now ("" if it is)."""
    if g.phase != "bid":
        return f"this is not the time to bid (now: {g.phase})"
    if k > g.hand_size:
        return f"you can bid 0..{g.hand_size} with {g.hand_size} cards"
    if k not in legal_bids(g):
        return f"as the dealer you may not bid {k}: the bids would add up to {g.hand_size}, the number of tricks"
    return ""


def why_illegal(g, seat: int, name: str, card_text: Callable[[str], str], colour_names: Sequence[str]) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following the led colour (``colour_names[colour]``), a
    bid out of range or the dealer's forbidden bid, a card in the bidding, a play in a
    discard. Cards as ``card_text`` writes them."""
    fam, cards = g.fam, g.fam.cards
    try:
        action = cards.action_id(name)
    except ValueError:
        return ""
    if action >= fam.num_ids:
        return why_not_bid(g, action - fam.num_ids)
    if g.phase == "bid":
        return "this is not the time to play a card: bid first"
    if action not in g.hands[seat]:
        return f"you do not hold {card_text(cards.card_name(action))}"
    if g.phase == "discard" and name.startswith("play:"):
        return "now you discard a card (discard:<card>, or type the card)"
    led = g.led_colour
    if g.phase == "play" and g.trick and led != NO_COLOUR and fam.colour_of(action) not in (led, NO_COLOUR):
        follow = sorted(c for c in g.hands[seat] if fam.colour_of(c) == led)
        if follow:
            return (f"you must follow {colour_names[led]}: " + ", ".join(card_text(cards.card_name(c)) for c in follow)
                    + (" (or a joker)" if fam.jokers else ""))
    return ""
