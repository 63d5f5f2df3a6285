"""Game records of the family: the fields of a record (the shared ones are in
:mod:`redbeard_env.records`) and its exact replay on the reference engine::

    {"format": "redbeard-record", "version": 1, "game": "<the game's name>",
     "rules": {...every Rules field...}, "players": 4, "agents": [...], "seed": 7,
     "start_scores": [0, 0, 0, 0],
     "deals": [{"round": 0, "dealer": 2, "hands": [["R7", "Y10", ...], ...]}, ...],
                                    # per seat as dealt; a deal starts every round but those a
                                    # discard leads into (deal = carry)
     "actions": [[3, "bid:2"], [0, "play:Y10"], [1, "discard:R2"], ...],   # seat, action name
     "rounds": [{"round": 0, "dealer": 2, "hand_size": 7, "bids": [...], "tricks": [...],
                 "points": [...], "scores": [...]}, ...],      # scores: totals after the round
     "scores": [...final...], "winners": [1], "rounds_played": 13, "meta": {...free...}}

A deal's hands are all the game needs of it: the cards not dealt lie aside unseen, and under
``carry`` a later deal comes from the game's own cards, which the hands name. A game of the
family that turns a trump card (Oh Hell) records it with the deal (``"trump_card": "QH"``).
:class:`Recorder` follows a live reference-engine game (:mod:`~.game`) and builds its record;
:class:`FamilyRecords` checks a record's structure and replays it, checking that it gives the
identical game (same deals, rounds, scores and winners). A game's records module subclasses
``Recorder`` with its name and takes its functions from ``FamilyRecords(Recorder)``.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..common import is_int
from ..records import RecorderBase, apply_action, check_cards, check_common, fail, finish_replay, start_game
from . import game as G
from .family import deck_for

KEYS = ("winners", "rounds_played")  # besides the shared ones

__all__ = ["Recorder", "FamilyRecords", "deck_of"]


class Recorder(RecorderBase):
    """Records a reference-engine game as it is played. Create it right after
    :func:`~.game.new_game` (before any action) and apply every action through
    :meth:`apply`; :meth:`record` gives the record once the game is over. A game's subclass
    sets ``game_name``."""

    def __init__(self, game: G.Game, agents: Sequence[str] | None = None, seed: int | None = None,
                 meta: dict | None = None):
        if game.round or game.game_over or any(b is not None for b in game.bids):
            raise ValueError("a Recorder must be created right after new_game, before any action")
        super().__init__(game, agents, seed, meta)
        self._note_deal()

    def _note_deal(self) -> None:
        g = self.game
        name = g.fam.cards.card_name
        deal = {"round": int(g.round), "dealer": int(g.dealer), "hands": [[name(c) for c in sorted(h)] for h in g.hands]}
        if g.fam.turned:
            deal["trump_card"] = name(g.trump_card)
        self.deals.append(deal)

    def apply(self, action: int) -> list[tuple]:
        """Apply the acting seat's action (``ValueError`` and nothing recorded if it is
        illegal) and return the game's events for it."""
        g = self.game
        seat, phase, round_before, dealer = g.to_act, g.phase, g.round, g.dealer
        G.apply_action(g, action)
        self.actions.append([int(seat), g.fam.cards.action_name(int(action), phase)])
        for event in g.events:
            if event[0] == "round_end":
                _, number, size, bids, tricks, deltas = event
                self.rounds.append({"round": int(number), "dealer": int(dealer), "hand_size": int(size),
                                    "bids": [int(b) for b in bids], "tricks": [int(t) for t in tricks],
                                    "points": [int(d) for d in deltas], "scores": [int(x) for x in g.scores]})
        if g.round != round_before and not g.game_over and g.phase == "bid" and g.fam.deals_fresh(g.round):
            self._note_deal()
        return list(g.events)

    def outcome(self) -> dict:
        return {"winners": [int(w) for w in self.game.winners], "rounds_played": int(self.game.round)}


def deck_of(deal: dict, num_players: int, rules: Any) -> list[int]:
    """A deck row (top first) that deals a recorded deal's hands under ``rules``: the hands
    in dealing order, the turned card, then the cards nobody got."""
    fam = rules.family
    parse = fam.cards.parse_card
    hands = [sorted(parse(c) for c in hand) for hand in deal["hands"]]
    turned = parse(deal["trump_card"]) if "trump_card" in deal else -1
    return deck_for(fam, hands, deal["dealer"], turned)


class FamilyRecords:
    """The records functions of a game of the family, from its ``Recorder`` (a subclass of
    :class:`Recorder` naming the game): ``check_structure``, ``start_replay``,
    ``apply_recorded``, ``replay`` and ``validate``."""

    def __init__(self, recorder: type):
        self.game_name, self.recorder = recorder.game_name, recorder

    def functions(self) -> tuple:
        """``(check_structure, start_replay, apply_recorded, replay, validate)``: what a game's
        records module gives."""
        return self.check_structure, self.start_replay, self.apply_recorded, self.replay, self.validate

    def check_structure(self, record: Any):
        """Check a record's fields and types (not yet the game itself); return its Rules."""
        from ..registry import game_named

        rules = check_common(record, game_named(self.game_name), KEYS)
        fam = rules.family
        n = record["players"]
        winners = record["winners"]
        if not isinstance(winners, list) or not winners or not all(is_int(w) and 0 <= w < n for w in winners):
            fail("winners", f"must be a non-empty list of seats 0..{n - 1}, got {winners!r:.60}")
        if not is_int(record["rounds_played"]) or record["rounds_played"] < 0:
            fail("rounds_played", f"must be an int >= 0, got {record['rounds_played']!r:.40}")
        keys = sorted(["dealer", "hands", "round"] + (["trump_card"] if fam.turned else []))
        for i, deal in enumerate(record["deals"]):
            where = f"deals[{i}]"
            if not isinstance(deal, dict) or sorted(deal) != keys:
                fail(where, f"must be an object with {', '.join(keys)}")
            if not is_int(deal["dealer"]) or not 0 <= deal["dealer"] < n:
                fail(f"{where}.dealer", f"must be a seat 0..{n - 1}, got {deal['dealer']!r:.40}")
            if not is_int(deal["round"]) or not 0 <= deal["round"] < fam.num_rounds:
                fail(f"{where}.round", f"must be a round 0..{fam.num_rounds - 1}, got {deal['round']!r:.40}")
            self._check_hands(deal, where, n, fam)
        return rules

    @staticmethod
    def _check_hands(deal: dict, where: str, n: int, fam) -> None:
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != n:
            fail(f"{where}.hands", f"must hold one list per seat ({n})")
        size = fam.hand_sizes[deal["round"]]
        if size == 0:  # drawn at the deal: the hands say which
            size = len(hands[0]) if isinstance(hands[0], list) else 0
            if not 1 <= size <= fam.max_drawn(n):
                fail(f"{where}.hands", f"a drawn hand size is 1..{fam.max_drawn(n)}, got {size}")
        cards: list[int] = []
        for s, hand in enumerate(hands):
            ids = check_cards(hand, f"{where}.hands[{s}]", fam.cards.parse_card)
            if len(ids) != size:
                fail(f"{where}.hands[{s}]", f"round {deal['round']} deals {size} cards, got {len(ids)}")
            cards += ids
        if fam.turned:
            cards += check_cards([deal["trump_card"]], f"{where}.trump_card", fam.cards.parse_card)
        if len(set(cards)) != len(cards):
            fail(where, "a card is dealt twice")
        if not set(cards) <= fam.in_play:
            fail(where, "a card is not in the deck of these rules")

    def start_replay(self, record: dict) -> tuple[G.Game, Recorder]:
        """A fresh reference game set up from a structurally checked record (no action yet),
        with a Recorder following it. Deals come only from the record."""
        rules = self.check_structure(record)
        return start_game(record, self.check_structure, lambda deal, n: deck_of(deal, n, rules), G.new_game,
                          self.recorder)

    @staticmethod
    def apply_recorded(recorder: Recorder, record: dict, index: int) -> None:
        """Apply ``record["actions"][index]``, checking it is the acting seat's, legal, and a
        discard exactly in the discard phase (card ids play or discard by phase)."""
        name = record["actions"][index][1]
        action = recorder.game.fam.cards.action_id(name)
        if (recorder.game.phase == "discard") != name.startswith("discard:") and not recorder.game.game_over:
            fail(f"actions[{index}]", f"{name!r} is not a {recorder.game.phase} action")
        apply_action(recorder, record, index, action)

    def replay(self, record: dict) -> G.Game:
        """Play a record on the reference engine and check it is the identical game; return
        the finished game. ``ValueError`` names the first field or action that disagrees."""
        game, recorder = self.start_replay(record)
        for i in range(len(record["actions"])):
            self.apply_recorded(recorder, record, i)
        cards = game.fam.cards
        deals = [dict(d, hands=[[cards.card_name(c) for c in sorted(map(cards.parse_card, h))] for h in d["hands"]],
                      **({"trump_card": cards.card_name(cards.parse_card(d["trump_card"]))} if "trump_card" in d else {}))
                 for d in record["deals"]]
        return finish_replay(game, recorder, record, deals, ("deals", "rounds", "scores", "winners", "rounds_played"))

    def validate(self, record: Any) -> dict:
        """Check a record completely (fields, then an exact replay); return it."""
        self.replay(record)
        return record
