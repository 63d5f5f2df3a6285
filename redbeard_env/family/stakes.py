"""What the questions of a family game cost or gain, and why a move is not allowed, in words:
the parts every game of the family shares (each game's ``stakes.py`` writes its own texts
around them). Only what the seat may know goes in.
"""

from __future__ import annotations

from .game import legal_bids


def why_not_bid(g, k: int) -> str:
    """Why bidding ``k`` is not allowed now ("" if it is), for any game of the family."""
    if g.phase != "bid":
        return f"this is not the time to bid (now: {g.phase})"
    if k > g.hand_size:
        return f"you can bid 0..{g.hand_size} with {g.hand_size} cards"
    if k not in legal_bids(g):
        return f"as the dealer you may not bid {k}: the bids would add up to {g.hand_size}, the number of tricks"
    return ""
