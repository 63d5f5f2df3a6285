"""Rödskägg's game records: the fields of a record (the shared ones are in
:mod:`redbeard_env.records`) and its exact replay on the reference engine::

    {"format": "redbeard-record", "version": 1, "game": "redbeard",
     "rules": {...every Rules field...}, "players": 4, "agents": [...], "seed": 7,
     "start_scores": [12, 12, 12, 12],
     "deals": [{"dealer": 2, "kind": "round",         # or "duel"
                "hands": [["AS", "KS", ...], [...], [], ...],   # per seat as dealt; [] = not dealt in
                "stock": ["7H", ...],                  # the rest of the deck, top first
                "reshuffle": ["2C", ...]}, ...],       # all 52 cards: the order in which
                                                       # thrown-in hands return if the stock runs short
     "actions": [[3, "bid:2"], [0, "pass"], [1, "play:AS"], ...],   # seat, SPEC action name
     "rounds": [{"round": 1, "dealer": 2, "declarer": 3, "bid": "bid:2",   # declarer/bid null: all passed
                 "tricks": [...], "joiners": [...], "in_round": [...], "scores": [...]}, ...],
     "scores": [...final...], "winner": 1, "truncated": false, "rounds_played": 9,
     "meta": {...free, e.g. the app that wrote it...}}

``rounds[i].scores`` are the running scores after that round's scoring.

:class:`Recorder` follows a live reference-engine game (:mod:`redbeard_env.redbeard.game`)
and builds its record; :func:`record_from_actions` builds one from a deal list and the
actions; :func:`replay` plays a record and checks that it gives the identical game (same
deals, rounds, scores and winner).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ..common import is_int
from ..records import RecordedDealsOnly, RecorderBase, apply_action, check_cards, check_common, fail, finish_replay, start_game
from ..records import append_records, iter_records, load_records, parse_record_line  # noqa: F401 (every game's files)
from . import game as G
from .cards import NUM_CARDS, REDBEARD_LEVEL, action_id, action_name, card_name, parse_card
from .rules import HAND_SIZE, Rules, make_rules

KEYS = ("winner", "truncated", "rounds_played")  # besides the shared ones
DEAL_KINDS = ("round", "duel")


def _bid_name(level: int) -> str | None:
    if level < 0:
        return None
    return "redbeard" if level == REDBEARD_LEVEL else f"bid:{level}"


class Recorder(RecorderBase):
    """Records a reference-engine game as it is played. Create it right after
    :func:`~redbeard_env.redbeard.game.new_game` (before any action) and apply every action
    through :meth:`apply`; :meth:`record` gives the record once the game is over.

    A deal is noticed by ``game.hands`` being a new list (:func:`game._deal` builds one
    per deal). Every deal is followed by at least one asked decision (a bid or card play
    is always asked), so one action causes at most one deal and the state right after the
    action still holds the deal untouched.
    """

    game_name = "redbeard"

    def __init__(self, game: G.Game, agents: Sequence[str] | None = None, seed: int | None = None,
                 meta: dict | None = None):
        # what can be seen of earlier actions (a kept hand leaves no trace; callers must
        # create the Recorder before the first action)
        if game.rounds_played or game.game_over or any(game.throws) or game.tricks_done or any(
                c is not None for c in game.calls):
            raise ValueError("a Recorder must be created right after new_game, before any action")
        super().__init__(game, agents, seed, meta)
        self._hands_list = None
        self._note_deal()

    def _note_deal(self) -> bool:
        """Append the current deal if the game dealt since the last look; True if it did."""
        g = self.game
        if g.hands is self._hands_list:
            return False
        self._hands_list = g.hands
        order = np.argsort(g.reshuffle_rank)  # cards by reshuffle rank = the order they return
        self.deals.append({
            "dealer": int(g.dealer),
            "kind": "duel" if g.phase == "duel" else "round",
            "hands": [[card_name(c) for c in sorted(h)] for h in g.hands],
            "stock": [card_name(c) for c in g.stock],
            "reshuffle": [card_name(int(c)) for c in order],
        })
        return True

    def apply(self, action: int) -> list[tuple]:
        """Apply the acting seat's action (``ValueError`` and nothing recorded if it is
        illegal) and return the game's events for it."""
        g = self.game
        seat = g.to_act
        dealer = int(g.dealer)
        G.apply_action(g, action)
        self.actions.append([int(seat), action_name(int(action))])
        for event in g.events:
            if event[0] == "round_end":
                _, number, declarer, level, tricks, joiners, in_round = event
                self.rounds.append({
                    "round": number,
                    "dealer": dealer,
                    "declarer": int(declarer) if declarer >= 0 else None,
                    "bid": _bid_name(level),
                    "tricks": [int(t) for t in tricks],
                    "joiners": [bool(j) for j in joiners],
                    "in_round": [bool(i) for i in in_round],
                    "scores": None,  # filled below: penalties of the scoring come after the event
                })
        if self.rounds and self.rounds[-1]["scores"] is None:
            self.rounds[-1]["scores"] = [int(s) for s in g.scores]
        self._note_deal()
        return list(g.events)

    def outcome(self) -> dict:
        g = self.game
        return {"winner": None if g.winner is None else int(g.winner), "truncated": bool(g.truncated),
                "rounds_played": int(g.rounds_played)}


def deck_of(deal: dict, num_players: int) -> tuple[list[int], np.ndarray]:
    """The engine's (deck top first, reshuffle rank) for a recorded deal: the dealt hands
    in dealing order (clockwise from the dealer's left) followed by the stock."""
    dealer = deal["dealer"]
    hands = deal["hands"]
    deck: list[int] = []
    for k in range(1, num_players + 1):
        deck += [parse_card(c) for c in hands[(dealer + k) % num_players]]
    deck += [parse_card(c) for c in deal["stock"]]
    rank = np.empty(NUM_CARDS, dtype=np.int64)
    rank[[parse_card(c) for c in deal["reshuffle"]]] = np.arange(NUM_CARDS)
    return deck, rank


# ---------------------------------------------------------------- structure checks
def check_structure(record: Any) -> Rules:
    """Check a record's fields and types (not yet the game itself); return its Rules."""
    from . import GAME

    rules = check_common(record, GAME, KEYS)
    n = record["players"]
    winner = record["winner"]
    if winner is not None and not (is_int(winner) and 0 <= winner < n):
        fail("winner", f"must be a seat 0..{n - 1} or null, got {winner!r:.40}")
    if not isinstance(record["truncated"], bool):
        fail("truncated", f"must be true or false, got {record['truncated']!r:.40}")
    if not is_int(record["rounds_played"]) or record["rounds_played"] < 0:
        fail("rounds_played", f"must be an int >= 0, got {record['rounds_played']!r:.40}")
    for i, deal in enumerate(record["deals"]):
        _check_deal(deal, f"deals[{i}]", n)
    return rules


def _check_deal(deal: Any, where: str, n: int) -> None:
    if not isinstance(deal, dict) or sorted(deal) != sorted(("dealer", "kind", "hands", "stock", "reshuffle")):
        fail(where, "must be an object with dealer, kind, hands, stock, reshuffle")
    if not is_int(deal["dealer"]) or not 0 <= deal["dealer"] < n:
        fail(f"{where}.dealer", f"must be a seat 0..{n - 1}, got {deal['dealer']!r:.40}")
    if deal["kind"] not in DEAL_KINDS:
        fail(f"{where}.kind", f"must be one of {DEAL_KINDS}, got {deal['kind']!r:.40}")
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != n:
        fail(f"{where}.hands", f"must hold one list per seat ({n})")
    cards: list[int] = []
    for s, hand in enumerate(hands):
        ids = check_cards(hand, f"{where}.hands[{s}]", parse_card)
        if len(ids) not in (0, HAND_SIZE):
            fail(f"{where}.hands[{s}]", f"a dealt hand has {HAND_SIZE} cards ([] = not dealt in), got {len(ids)}")
        cards += ids
    cards += check_cards(deal["stock"], f"{where}.stock", parse_card)
    if sorted(cards) != list(range(NUM_CARDS)):
        fail(where, "hands and stock together must hold each of the 52 cards exactly once")
    if sorted(check_cards(deal["reshuffle"], f"{where}.reshuffle", parse_card)) != list(range(NUM_CARDS)):
        fail(f"{where}.reshuffle", "must list each of the 52 cards exactly once")


# ---------------------------------------------------------------- replay
def start_replay(record: dict) -> tuple[G.Game, Recorder]:
    """A fresh reference game set up from a structurally checked record (no action yet),
    with a Recorder following it. Deals come only from the record."""
    return start_game(record, check_structure, deck_of, G.new_game, Recorder)


def apply_recorded(recorder: Recorder, record: dict, index: int) -> None:
    """Apply ``record["actions"][index]``, checking it is the acting seat's and legal, and
    that a deal it leads to is the recorded one."""
    deals = len(recorder.deals)
    apply_action(recorder, record, index, action_id(record["actions"][index][1]))
    if len(recorder.deals) > deals and deals < len(record["deals"]):
        # a new deal: it must be the recorded one as the game dealt it (dealer, seats dealt in)
        mine, theirs = recorder.deals[-1], _normalised_deal(record["deals"][deals])
        for key in ("dealer", "kind", "hands"):
            if mine[key] != theirs[key]:
                fail(f"deals[{deals}].{key}", f"after actions[{index}] the game deals with {key} "
                                              f"{mine[key]!r:.200}, the record says {theirs[key]!r:.200}")


def replay(record: dict) -> G.Game:
    """Play a record on the reference engine and check it is the identical game; return
    the finished game. ``ValueError`` names the first field or action that disagrees."""
    game, recorder = start_replay(record)
    for i in range(len(record["actions"])):
        apply_recorded(recorder, record, i)
    return finish_replay(game, recorder, record, [_normalised_deal(d) for d in record["deals"]],
                         ("deals", "rounds", "scores", "winner", "truncated", "rounds_played"))


def _normalised_deal(deal: dict) -> dict:
    """A deal with each hand in card-id order, as :class:`Recorder` writes it (the order of
    cards within a hand does not matter to the game)."""
    hands = [[card_name(c) for c in sorted(parse_card(x) for x in h)] for h in deal["hands"]]
    return dict(deal, hands=hands, stock=[card_name(parse_card(c)) for c in deal["stock"]],
                reshuffle=[card_name(parse_card(c)) for c in deal["reshuffle"]])


def validate(record: Any) -> dict:
    """Check a record completely (fields, then an exact replay); return it."""
    replay(record)
    return record


def record_from_actions(rules: "str | Rules", num_players: int, *, dealer: int,
                        decks: Sequence[tuple[Sequence[int], Any]], actions: Iterable[tuple[int, int]],
                        scores: Sequence[int] | None = None, agents: Sequence[str] | None = None,
                        seed: int | None = None, meta: dict | None = None) -> dict:
    """The record of a game given its first dealer, the decks of its deals (as for
    :func:`~redbeard_env.redbeard.game.new_game`: deck top first and the reshuffle rank, or None)
    and its actions as ``(seat, action id)``. It is rebuilt on the reference engine;
    ``ValueError`` if an action is not the acting seat's or illegal, if the game needs more
    decks than given, or if it is not over after the actions."""
    rules = make_rules(rules)
    decks = list(decks)
    game = G.new_game(rules, num_players, RecordedDealsOnly(len(decks)), dealer=int(dealer),
                      scores=None if scores is None else [int(s) for s in scores], decks=decks)
    recorder = Recorder(game, agents=agents, seed=seed, meta=meta)
    for i, (seat, action) in enumerate(actions):
        if game.game_over:
            raise ValueError(f"action {i} ({action_name(int(action))}) comes after the game ended")
        if seat != game.to_act:
            raise ValueError(f"action {i}: seat {seat} acts but seat {game.to_act} is to act (phase {game.phase!r})")
        recorder.apply(int(action))
    return recorder.record()


__all__ = ["Recorder", "check_structure", "deck_of", "record_from_actions", "replay", "start_replay",
           "apply_recorded", "validate"]
