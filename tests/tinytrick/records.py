"""Tiny Trick's game records: the shared fields (:mod:`redbeard_env.records`), each deal's
hands, each round's bids, tricks, points and totals, and the winners."""

from __future__ import annotations

from redbeard_env.common import is_int
from redbeard_env.records import GameRecords, RecorderBase, check_cards, fail

from . import cards as C
from .game import apply_action, new_game


class Recorder(RecorderBase):
    game_name = "tinytrick"

    def __init__(self, game, agents=None, seed=None, meta=None):
        super().__init__(game, agents, seed, meta)
        self._note_deal()

    def _note_deal(self) -> None:
        g = self.game
        self.deals.append({"round": g.round, "dealer": g.dealer,
                           "hands": [[C.card_name(c) for c in sorted(h)] for h in g.hands]})

    def apply(self, action: int) -> list:
        g = self.game
        seat, dealer = g.to_act, g.dealer
        apply_action(g, action)
        self.actions.append([int(seat), C.action_name(int(action))])
        for e in g.events:
            if e[0] == "round_end":
                self.rounds.append({"round": e[1], "dealer": dealer, "bids": e[2], "tricks": e[3], "points": e[4],
                                    "scores": list(g.scores)})
                if not g.game_over:
                    self._note_deal()
        return list(g.events)

    def outcome(self) -> dict:
        return {"winners": list(self.game.winners)}


class Records(GameRecords):
    KEYS = ("winners",)

    def check_fields(self, record: dict, rules) -> None:
        n, h = record["players"], rules.hand_size
        for i, deal in enumerate(record["deals"]):
            if not isinstance(deal, dict) or sorted(deal) != ["dealer", "hands", "round"]:
                fail(f"deals[{i}]", "must be an object with dealer, hands, round")
            if not (is_int(deal["dealer"]) and 0 <= deal["dealer"] < n):
                fail(f"deals[{i}].dealer", f"must be a seat 0..{n - 1}")
            if not isinstance(deal["hands"], list) or len(deal["hands"]) != n:
                fail(f"deals[{i}].hands", f"must hold one hand per seat ({n})")
            dealt = [c for s, hand in enumerate(deal["hands"]) for c in check_cards(hand, f"deals[{i}].hands[{s}]",
                                                                                      C.parse_card)]
            if len(dealt) != n * h or len(set(dealt)) != len(dealt):
                fail(f"deals[{i}].hands", f"must deal {h} different cards to each seat")
        if not isinstance(record["winners"], list) or not all(is_int(w) and 0 <= w < n for w in record["winners"]):
            fail("winners", f"must be a list of seats 0..{n - 1}")

    def deck_of(self, deal: dict, num_players: int, rules) -> list[int]:
        """The hands in dealing order (from the dealer's left), then the cards nobody got."""
        order = [(deal["dealer"] + 1 + i) % num_players for i in range(num_players)]
        top = [C.parse_card(c) for s in order for c in deal["hands"][s]]
        return top + [c for c in range(C.NUM_CARDS) if c not in top]


check_structure, start_replay, apply_recorded, replay, validate = Records(Recorder, new_game).functions()
