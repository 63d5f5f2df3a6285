"""Oh Hell's table views: what the web table and the terminal game (:mod:`redbeard_web`) show of
a reference-engine game (:mod:`redbeard_env.family.game` with Oh Hell's rules), for one seat.
The functions have the signatures of every game's views module (Rödskägg's:
:mod:`redbeard_env.redbeard.views`); the apps find this module through the registry. What every
game of the family shows alike is :mod:`redbeard_env.family.views`; this module adds Oh Hell's
cards, words and fields (the turned card, the trump suit).

**Only what the seat may know**: its own hand, the turned trump card (face up for everyone), the
cards on the table and the cards played, every bid, trick count and score, how many cards each
player holds. Never another hand, the cards not dealt, or the seed. :func:`frame` (a finished
game's replay) is the exception: every hand face up.

Seats are absolute; ``you`` (the viewer, or None) is named "You", the others ``player_<seat>``.
"""

from __future__ import annotations

from typing import Sequence

from ..family import views as family
from ..family.views import action_name, sheet, shown_action, truncated, winner, winners  # noqa: F401 (the views' API)
from ..viewparts import seat_label
from .cards import RANKS, SUIT_NAMES, SUITS, card_name, rank_of, suit_of
from .rules import PRESETS
from .stakes import SUIT_SYMBOL, card_text, rules_page, stakes, why_illegal  # noqa: F401 (the views' API)

#: suits in hand order: trumps first, then the others in the order H S D C
HAND_SUITS = "HSDC"
INTRO = ("Bid how many tricks you will take, then take exactly that many. A card turned up after the deal "
         "sets trumps; follow suit if you can. Each trick scores a point and an exact bid 10 more; the dealer "
         "bids last and may not make the bids add up to the tricks. The most points win (OpenSpiel's oh_hell).")
#: the bot the review of your play asks by default (pimc values moves in expected points)
REVIEW_BOT = "pimc"
FLAG_HELP = {"D": "dealer: bids last and may not make the bids add up to the tricks",
             "on target": "has taken exactly the tricks bid", "winner": "won the deal (or shares the win)"}
SHORT: dict[str, str] = {}  # cards (AS, 10d) and bid numbers are short enough
HELP = """Type an action at the prompt:
  a card:  AS  10d  td  play:QH
  a bid:   3  bid:3
  or any unambiguous start of a legal action name.
Commands: help, hint [bot spec] (what a bot would do, default heuristic), table, quit."""


# ---------------------------------------------------------------- cards
def sorted_hand(cards, trumps: int = -1) -> list[str]:
    """Card names: trumps first, then hearts, spades, diamonds, clubs, high ranks first."""
    def key(c: int) -> tuple[int, int, int]:
        return (suit_of(c) != trumps, HAND_SUITS.index(SUITS[suit_of(c)]), -rank_of(c))

    return [card_name(c) for c in sorted(cards, key=key)]


def hand(g, seat: int) -> list[str]:
    return sorted_hand(g.hands[seat], g.trumps)


def card_faces() -> dict[str, list[str]]:
    """How the page draws each card: name -> [label, mark, css class]."""
    faces = {}
    for c in range(52):
        suit = SUITS[suit_of(c)]
        faces[card_name(c)] = [("10" if RANKS[rank_of(c)] == "T" else RANKS[rank_of(c)]), SUIT_SYMBOL[suit],
                               "red" if suit in "DH" else "black"]
    return faces


def page_info() -> dict:
    """What the page needs to draw this game: card faces, move labels, an introduction."""
    return {"cards": card_faces(), "labels": {}, "prefixes": {"play:": "Play ", "bid:": "Bid "}, "intro": INTRO,
            "keys": {}, "flag_help": dict(FLAG_HELP),
            "rules_pages": {preset: rules_page(r) for preset, r in PRESETS.items()}}


def describe(seat: int, name: str, you: int | None = None) -> str:
    """A move as a sentence: ``player_2 bids 3``, ``You play Q♥``."""
    return family.describe(seat, name, you, card_text)


def _trump_text(g) -> str:
    if g.trump_card < 0:
        return "no trumps"
    return f"{SUIT_NAMES[g.trumps]} are trumps ({card_name(g.trump_card)} turned)"


def _turned(g) -> dict:
    """The turned card and the trump suit (face up for everyone)."""
    return {"trump_card": card_name(g.trump_card) if g.trump_card >= 0 else None,
            "trumps": SUIT_NAMES[g.trumps] if g.trumps >= 0 else None}


def extras(g, seat: int) -> dict:
    """Oh Hell's own view fields: the turned card and the trump suit (``card_notes``: the page
    shows the turned card beside the hand)."""
    turned = [card_name(g.trump_card)] if g.trump_card >= 0 else []
    return {"hand_size": g.hand_size, **_turned(g),
            "card_notes": [{"label": "Turned card (trumps)", "cards": turned}] if turned else []}


# ---------------------------------------------------------------- the public table
def _status(g, you: int | None) -> list[str]:
    parts = [f"{g.hand_size} trick{'s' if g.hand_size != 1 else ''}", f"dealer {seat_label(g.dealer, you)}",
             _trump_text(g)]
    return parts + family.bids_and_turn(g, you)


def table(g, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict:
    """The public table as ``seat`` sees it, plus that seat's own hand (``your_hand``) and the
    turned card. ``last_trick`` (kept by the caller) is the trick just finished."""
    return {**family.table(g, seat, agents, last_trick, hand=hand, colour_names=SUIT_NAMES, status=_status(g, seat),
                           whole="deal"), **_turned(g)}


def question(g, seat: int, keys: bool = False) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's way to answer)."""
    return family.question(g, seat, keys, SUIT_NAMES, hand)


# ---------------------------------------------------------------- effects of a move, the score sheet
def _deal_texts(e: tuple) -> tuple[str, str]:
    size = e[2]
    return f"The deal ({size} trick{'s' if size != 1 else ''}):", "the deal is scored"


def effects(g, seat: int, action: int, events: Sequence[tuple], trick_before: Sequence[tuple[int, int]],
            deal: dict | None, you: int | None, earlier: Sequence[dict] = ()) -> list[dict]:
    """The public consequences of ``seat``'s ``action`` from the game's ``events`` (a trick
    won, the points, the winners), each with a ``text`` as ``you`` read it. ``earlier`` (the
    round's score changes before the move) is empty in Oh Hell: the deal scores at its end."""
    return family.effects(g, seat, action, events, trick_before, deal, you, earlier, whole="deal",
                          round_texts=_deal_texts)


def sheet_view(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> dict:
    """The score sheet: the deal's tricks, then each player's points (``sub``: bid/tricks;
    class ``zero``: an exact bid), plus the totals as ``series`` per seat for a chart."""
    return family.sheet_view(rows, num_players, you, start, numbered=False, size_text="tricks",
                             legend="Points after the deal; small numbers: bid/tricks taken; green: exact bid.")


# ---------------------------------------------------------------- a finished game, every hand face up
def frame(g, agents: Sequence[str]) -> dict:
    """A replay frame: the whole game state with every hand face up."""
    return {**family.frame(g, agents, table, lambda cards: sorted_hand(cards, g.trumps), _status(g, None)),
            "trump_card": _turned(g)["trump_card"]}


# ---------------------------------------------------------------- the terminal
def _cards_by_suit(cards: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for c in cards:
        groups.setdefault(c[1], []).append(card_text(c)[:-1])
    return "   ".join(f"{SUIT_SYMBOL[suit]}: {' '.join(ranks)}" for suit, ranks in groups.items()) or "(none)"


def render_table(t: dict, you: int, agents: Sequence[str]) -> str:
    """A table (from :func:`table`) and the viewer's hand as text."""
    trumps = f"{t['trumps']} are trumps ({card_text(t['trump_card'])} turned)" if t["trump_card"] else "no trumps"
    head = [f"{t['hand_size']} tricks", f"dealer {seat_label(t['dealer'], you)}", f"bids {t['bids_total']}", trumps]
    return family.render_table(t, you, agents, head, score="points", card_text=card_text, hand_text=_cards_by_suit)


__all__ = ["action_name", "sorted_hand", "hand", "page_info", "shown_action", "describe", "winner", "winners",
           "truncated", "extras", "table", "question", "stakes", "effects", "sheet", "sheet_view", "frame",
           "render_table", "rules_page", "card_text", "why_illegal", "SHORT", "HELP", "seat_label"]
