"""The card and action encoding every game of the family shares: card ids 0..C-1 (within a
colour a higher id is a higher card), then the bids (bid k is action C + k); actions named
``play:<card>`` (``discard:<card>`` in a discard phase) and ``bid:<k>``. Each game's
``cards.py`` names its cards and gives these its numbers.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


def card_id(card: Any, num_cards: int, names: str = "") -> int:
    """``card`` as a card id 0..num_cards-1 (an int of any kind, not a bool), or ``ValueError``:
    out of range, or not an id (``names``: examples of the game's card names, for the
    message of a value that is neither)."""
    is_id = isinstance(card, (int, np.integer)) and not isinstance(card, bool)
    if is_id and 0 <= card < num_cards:
        return int(card)
    if is_id or not names:
        raise ValueError(f"card id must be in 0..{num_cards - 1}, got {card!r}")
    raise ValueError(f"a card is a string like {names} or an id 0..{num_cards - 1}, got {card!r}")


class Actions:
    """A game's action ids and names: the ``num_cards`` card ids, then bids 0..``max_bid``.
    ``card_name`` / ``parse_card`` are the game's; ``verbs`` the names a card action takes
    (``play``, and ``discard`` in a game that discards); ``example`` shows them in errors."""

    def __init__(self, num_cards: int, max_bid: int, card_name: Callable[[int], str],
                 parse_card: Callable[[Any], int], verbs: tuple[str, ...], example: str):
        self.num_cards, self.num_actions = num_cards, num_cards + max_bid + 1
        self.card_name, self.parse_card, self.verbs = card_name, parse_card, verbs
        self.bids = {f"bid:{k}": num_cards + k for k in range(max_bid + 1)}
        self.allowed = f"{example}, bid:0..bid:{max_bid}"

    def name(self, action: Any, phase: str = "play") -> str:
        """The name of an action id; in the ``discard`` phase a card id is ``discard:<card>``."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_actions:
            raise ValueError(f"action id must be an int in 0..{self.num_actions - 1}, got {action!r}")
        if action >= self.num_cards:
            return f"bid:{action - self.num_cards}"
        return f"{'discard' if phase == 'discard' else 'play'}:{self.card_name(int(action))}"

    def id(self, name: Any) -> int:
        """The id of an action name (a card's id whichever verb names it)."""
        if not isinstance(name, str):
            raise ValueError(f"action name must be a string, got {name!r}")
        key = name.strip().lower()
        for verb in self.verbs:
            if key.startswith(verb + ":"):
                return self.parse_card(key[len(verb) + 1:])
        if key in self.bids:
            return self.bids[key]
        raise ValueError(f"unknown action name {name!r}; allowed: {self.allowed}")
