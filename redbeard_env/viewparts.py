"""What every game's table views (``redbeard_env/<game>/views.py``) share: how a seat is
named for a viewer and the common part of a replay frame."""

from __future__ import annotations

import textwrap
from typing import Callable, Sequence


def seat_label(seat: int, you: int | None) -> str:
    """``You`` for the viewer's own seat, ``player_<seat>`` for the others."""
    return "You" if seat == you else f"player_{seat}"


def frame_base(g, agents: Sequence[str], table: Callable, sorted_hand: Callable, card_name: Callable) -> dict:
    """The part of a replay frame (the whole game with every hand face up) every game has:
    the seats of the public table with their hands, the hands, the trick, scores, tricks,
    the dealer and whether the game is over; a game's ``frame`` adds its own fields."""
    seats = table(g, None, agents)["players"]
    for p in seats:
        p["hand"] = sorted_hand(g.hands[p["seat"]])
    return {"seats": seats, "hands": [sorted_hand(h) for h in g.hands],
            "trick": [{"seat": s, "card": card_name(c)} for s, c in g.trick],
            "scores": list(g.scores), "tricks": list(g.tricks), "dealer": g.dealer, "finished": g.game_over}


def score_series(rows: Sequence[dict], num_players: int, you: int | None, start: Sequence[int] | None = None) -> list[dict]:
    """Each seat's score after every scored round (the sheet's rows), from its start score
    when ``start`` is given: what a score chart draws."""
    return [{"seat": s, "name": seat_label(s, you),
             "points": ([int(start[s])] if start is not None else []) + [int(r["scores"][s]) for r in rows]}
            for s in range(num_players)]


#: the symbols the views write, as plain ASCII (a terminal that shows no suit symbols);
#: tests/test_terminal_ascii.py checks that every symbol in a view's texts is here
ASCII = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C", "★": "*", "→": "->", "←": "<-", "−": "-",
                       "–": "-", "—": "-", "±": "+-", "×": "x", "≥": ">=", "≤": "<=", "≠": "!=", "·": "-",
                       "…": "...", "æ": "ae", "Æ": "AE", "ö": "o", "ä": "a", "Ö": "O", "Ä": "A", "å": "a",
                       "Å": "A", "ø": "o", "Ø": "O", "─": "-", "│": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+",
                       "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+"})

#: the widest the name column of a terminal table grows; longer names wrap under it
NAME_COLUMN_MAX = 40


def name_column(players: Sequence[dict], agents: Sequence[str]) -> tuple[int, list[list[str]]]:
    """The name column of a terminal table: its width and each seat's name in full, as
    lines (``player_2 (ppo:fem_opp_4p)``; a bot's spec follows the seat). The column is
    as wide as the longest name up to :data:`NAME_COLUMN_MAX`; a longer name wraps, its
    first line on the seat's row and the rest on lines of its own below it."""
    names = [p["name"] + ("" if agents[p["seat"]] == "human" else f" ({agents[p['seat']]})") for p in players]
    width = min(max([22] + [len(n) + 2 for n in names]), NAME_COLUMN_MAX)
    return width, [textwrap.wrap(n, width - 2, subsequent_indent="  ", break_on_hyphens=False) or [""]
                   for n in names]
