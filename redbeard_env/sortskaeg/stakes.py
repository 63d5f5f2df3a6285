"""What Sortskæg's questions cost or gain, in words, from the game's ``Rules`` and the
seat's own position (for the web table's stakes box and the terminal), and a short rules
page of the game. Only what the seat may know goes in. Part of
:mod:`redbeard_env.sortskaeg.views`.
"""

from __future__ import annotations

from .cards import NO_COLOUR
from ..family.game import legal_bids
from ..family.stakes import why_not_bid
from .rules import Rules, round_score


def card_text(name: str) -> str:
    """A card as the page and the terminal write it (its name: ``Y10``, ``R7``, ``J1``)."""
    return name


def _points(rules: Rules, bid: int) -> int:
    return round_score(bid, bid, rules)


def stakes(g, seat: int) -> list[dict]:
    """What each answer of ``seat``'s question costs or gains: ``[{"action": name or None,
    "text": ...}]`` (``None``: a note on the whole question)."""
    if g.game_over or g.to_act != seat:
        return []
    r, score = g.rules, g.scores[seat]
    if g.phase == "bid":
        out = [{"action": None, "text": f"An exact bid of k ≥ 1 scores {r.exact_first} + {r.exact_each} × (k − 1); "
                                        f"bid 0 and no trick scores {r.zero_bid}; every trick off costs "
                                        f"{r.miss_each}."}]
        legal = legal_bids(g)
        for k in legal:
            win = _points(r, k)
            out.append({"action": f"bid:{k}", "text": f"Bid {k}: exactly {k} → +{win} ({score} → {score + win}); "
                                                      f"one trick off → −{r.miss_each}."})
        if r.dealer_hook and seat == g.dealer:
            banned = [k for k in range(g.hand_size + 1) if k not in legal]
            if banned:
                out.append({"action": None, "text": f"As the dealer you may not bid {banned[0]}: the bids would add "
                                                    f"up to {g.hand_size}, the number of tricks."})
        return out
    if g.phase == "play":
        bid, took = g.bids[seat], g.tricks[seat]
        left = g.hand_size - g.tricks_done
        need = bid - took
        win = _points(r, bid)
        if need > left:
            text = f"You bid {bid} and have {took}: even every trick left ends {need - left} short " \
                   f"(−{r.miss_each * (need - left)} at best)."
        elif need > 0:
            text = f"You bid {bid} and have {took}: {need} more for +{win}; each trick off costs {r.miss_each}."
        elif need == 0:
            text = f"You bid {bid} and have it: no more tricks for +{win}; each extra trick costs {r.miss_each}."
        else:
            text = f"You bid {bid} and have {took}: {-need} over (−{r.miss_each * -need} so far); each more costs " \
                   f"{r.miss_each}."
        out = [{"action": None, "text": text}]
        if g.trick and g.led_colour == NO_COLOUR:
            out.append({"action": None, "text": "A joker was led: it wins this trick whatever you play."})
        else:
            out.append({"action": None, "text": "Yellow is trumps; a joker can be played any time but only wins "
                                                "when it is led."})
        return out
    if g.phase == "discard":
        return [{"action": None, "text": "The card you discard leaves the game face down; you keep the rest for the "
                                         "next, smaller round."}]
    return []


def rules_page(r: Rules) -> list[dict]:
    """A short rules page: ``[{"title", "text"}]`` from the ``Rules``."""
    sizes = ", ".join(map(str, r.hand_sizes))
    deal = ("Each round is dealt afresh from all 42 cards." if r.deal == "fresh" else
            "The first deal's cards are the game's only cards: in the shrinking rounds you take back the cards you "
            "played and discard one face down; the growing rounds are dealt from the game's cards.")
    return [
        {"title": "Goal", "text": "Bid exactly the number of tricks you will take. The highest total after the last "
                                  "round wins."},
        {"title": "Cards", "text": "42 cards: red, green, blue and yellow 1–10 and two jokers. Yellow is trumps."},
        {"title": "Rounds", "text": f"{len(r.hand_sizes)} rounds with {sizes} cards each. {deal}"},
        {"title": "Bidding", "text": "Everyone bids once, left of the dealer first."
                                     + (" The dealer may not make the bids add up to the hand size."
                                        if r.dealer_hook else "")},
        {"title": "Play", "text": "Follow the led colour if you can; a joker may be played any time. A led joker wins "
                                  "the trick; otherwise the highest yellow wins, else the highest card of the led "
                                  "colour. The winner leads next."},
        {"title": "Scoring", "text": f"Exact bid k ≥ 1: {r.exact_first} + {r.exact_each} × (k − 1) points; bid 0 and "
                                     f"no trick: {r.zero_bid}; otherwise −{r.miss_each} per trick off."},
    ]


def why_illegal(g, seat: int, name: str) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following the led colour, a bid out of range or the
    dealer's forbidden bid, a play in a discard or the other way round."""
    from .cards import BID0, COLOUR_NAMES, action_id, card_name, colour_of

    try:
        action = action_id(name)
    except ValueError:
        return ""
    if action >= BID0:
        return why_not_bid(g, action - BID0)
    if g.phase == "bid":
        return "this is not the time to play a card: bid first"
    if action not in g.hands[seat]:
        return f"you do not hold {card_name(action)}"
    if g.phase == "discard" and name.startswith("play:"):
        return "now you discard a card (discard:<card>, or type the card)"
    led = g.led_colour
    if g.phase == "play" and g.trick and led != NO_COLOUR and colour_of(action) not in (led, NO_COLOUR):
        follow = sorted(c for c in g.hands[seat] if colour_of(c) == led)
        if follow:
            return f"you must follow {COLOUR_NAMES[led]}: " + ", ".join(card_name(c) for c in follow) + " (or a joker)"
    return ""
