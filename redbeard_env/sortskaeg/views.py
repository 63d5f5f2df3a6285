"""Sortskæg's table views: what the web table and the terminal game (:mod:`redbeard_web`)
show of a reference-engine game (:mod:`redbeard_env.family.game`), for one seat. The
functions have the signatures of every game's views module (Rödskägg's:
:mod:`redbeard_env.redbeard.views`); the apps find this module through the registry. What
every game of the family shows alike is :mod:`redbeard_env.family.views`; this module adds
Sortskæg's cards, words and fields.

**Only what the seat may know**: its own hand, the cards on the table and the cards played
(this round and, as their public record, earlier ones), every bid, trick count and score,
how many cards each player holds; under ``deal = carry`` its own taken-back cards and its
own discards. Never another hand, another player's discard (a discard by someone else is
shown as ``discard``, without the card), the cards that were not dealt, or the seed.
:func:`frame` (a finished game's replay) is the exception: every hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
"""

from __future__ import annotations

from typing import Sequence

from ..family import views as family
from ..family.views import (action_name, describe, effects, sheet, sheet_view,  # noqa: F401 (the views' API)
                            shown_action, truncated, winner, winners)
from ..viewparts import seat_label
from .cards import COLOUR_NAMES, COLOURS, NO_COLOUR, card_name, colour_of
from .rules import PRESETS
from .stakes import card_text, rules_page, stakes, why_illegal  # noqa: F401 (the views' API)

#: colours in hand order: trumps (yellow) first, then red, green, blue; jokers before them all
HAND_COLOURS = "YRGB"
INTRO = ("Bid how many tricks you will take — exactly. Yellow is trumps, a led joker wins the trick, and "
         "the hand size goes 7, 6 … 1 … 6, 7 over 13 rounds. An exact bid k scores 2k + 3 (bid 0, no trick: 5); "
         "every trick off costs 2. The highest total wins.")
#: the bot the review of your play asks by default (pimc values moves in expected points; the
#: heuristic's values are preferences, not points)
REVIEW_BOT = "pimc"
SHORT: dict[str, str] = {}  # cards (Y10, j1) and bid numbers are short enough
HELP = """Type an action at the prompt:
  a card:  Y10  r7  j1  play:B3  (in a discard: the card to discard, or discard:B3)
  a bid:   3  bid:3
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


# ---------------------------------------------------------------- cards
def _hand_key(c: int) -> tuple[int, int]:
    return (-1, c) if colour_of(c) == NO_COLOUR else (HAND_COLOURS.index(COLOURS[colour_of(c)]), -c)


def sorted_hand(cards) -> list[str]:
    """Card names: jokers, then yellow (trumps), red, green, blue, high values first."""
    return [card_name(c) for c in sorted(cards, key=_hand_key)]


def hand(g, seat: int) -> list[str]:
    return sorted_hand(g.hands[seat])


def card_faces() -> dict[str, list[str]]:
    """How the page draws each card: name -> [label, mark, css class]."""
    faces = {}
    for c in range(42):
        name = card_name(c)
        if colour_of(c) == NO_COLOUR:
            faces[name] = ["★", name, "joker"]
        else:
            faces[name] = [name[1:], COLOUR_NAMES[colour_of(c)], "colour-" + COLOUR_NAMES[colour_of(c)]]
    return faces


def page_info() -> dict:
    """What the page needs to draw this game: card faces, move labels, an introduction."""
    return {"cards": card_faces(), "labels": {}, "prefixes": {"play:": "Play ", "discard:": "Discard ", "bid:": "Bid "},
            "intro": INTRO, "keys": {}, "rules_pages": {preset: rules_page(r) for preset, r in PRESETS.items()},
            "flag_help": {"D": "dealer: deals this round and bids last", "on target": "has taken exactly the tricks bid",
                          "winner": "won the game (or shares the win)"}}


def extras(g, seat: int) -> dict:
    """Sortskæg's own view fields (``card_notes``: labelled cards the page shows beside the
    hand; under ``deal = carry`` this seat's own discards)."""
    discarded = sorted_hand(g.discarded[seat])
    return {"round": min(g.round + 1, g.rules.num_rounds), "rounds": g.rules.num_rounds, "hand_size": g.hand_size,
            "discarded": discarded, "took_back": sorted_hand(g.took_back[seat]),
            "card_notes": [{"label": "Cards you discarded", "cards": discarded}] if discarded else []}


# ---------------------------------------------------------------- the public table
def _status(g, you: int | None) -> list[str]:
    parts = [f"Round {min(g.round + 1, g.rules.num_rounds)} of {g.rules.num_rounds}"]
    if not g.game_over:
        parts.append(f"{g.hand_size} card{'s' if g.hand_size != 1 else ''} each")
    parts.append(f"dealer {seat_label(g.dealer, you)}")
    return parts + family.bids_and_turn(g, you) + ["yellow is trumps"]


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict:
    """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``),
    taken-back cards and discards (``deal = carry``). ``last_trick`` (kept by the caller) is
    the trick just finished, shown until the next round's first move."""
    mine = seat is not None
    return {**family.table(g, seat, agents, last_trick, hand=hand, colour_names=COLOUR_NAMES, status=_status(g, seat)),
            "your_discards": sorted_hand(g.discarded[seat]) if mine else [],
            "your_took_back": sorted_hand(g.took_back[seat]) if mine else []}


def question(g, seat: int, keys: bool = False) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's way to answer)."""
    return family.question(g, seat, keys, COLOUR_NAMES, hand)


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str]) -> dict:
    """A replay frame: the whole game state with every hand (and every discard) face up."""
    return {**family.frame(g, agents, table, sorted_hand, _status(g, None)),
            "discarded": [sorted_hand(d) for d in g.discarded]}


# ---------------------------------------------------------------- the terminal
def _cards_by_colour(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        key = "jokers" if c[0] == "J" else c[0]
        groups.setdefault(key, []).append(c if key == "jokers" else c[1:])
    return "   ".join(f"{key}: {' '.join(vals)}" for key, vals in groups.items()) or "(none)"


def render_table(t: dict, you: int, agents: Sequence[str]) -> str:
    """A table (from :func:`table`) and the viewer's hand as text."""
    head = [f"Round {t['round']} of {t['rounds']}", f"{t['hand_size']} cards each",
            f"dealer {seat_label(t['dealer'], you)}", f"bids {t['bids_total']}", "yellow is trumps"]
    notes = [f"your discards: {' '.join(t['your_discards'])}"] if t["your_discards"] else []
    return family.render_table(t, you, agents, head, hand_text=_cards_by_colour, notes=notes)


__all__ = ["action_name", "sorted_hand", "hand", "page_info", "shown_action", "describe", "winner", "winners",
           "truncated", "extras", "table", "question", "stakes", "effects", "sheet", "sheet_view", "frame",
           "render_table", "rules_page", "card_text", "why_illegal", "SHORT", "HELP", "seat_label"]
