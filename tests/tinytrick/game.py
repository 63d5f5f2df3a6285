"""Tiny Trick's reference engine: one function a phase (deal, bid, play, score, end)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import cards as C

PHASE_NAMES = ("bid", "play", "over")


@dataclass
class Game:
    rules: Any
    num_players: int
    rng: Any
    dealer: int
    decks: list  # deck rows (12 card ids, top first) of the next deals
    scores: list
    phase: str = "bid"
    to_act: int = -1
    game_over: bool = False
    round: int = 0  # rounds scored so far
    hands: list = field(default_factory=list)
    bids: list = field(default_factory=list)
    tricks: list = field(default_factory=list)
    trick: list = field(default_factory=list)  # (seat, card) of the running trick
    played: list = field(default_factory=list)  # cards of the finished tricks of the deal
    winners: list = field(default_factory=list)
    events: list = field(default_factory=list)


def new_game(rules, num_players: int, rng, *, dealer: int, scores=None, decks=None) -> Game:
    g = Game(rules, num_players, rng, dealer, [list(d) for d in decks or []],
             list(scores) if scores is not None else [0] * num_players)
    _deal(g)
    return g


def _deal(g: Game) -> None:
    deck = g.decks.pop(0) if g.decks else [int(c) for c in g.rng.permutation(C.NUM_CARDS)]
    n, h = g.num_players, g.rules.hand_size
    g.hands = [[] for _ in range(n)]
    for i in range(n):  # blocks of hand_size cards from the dealer's left
        g.hands[(g.dealer + 1 + i) % n] = sorted(deck[i * h:(i + 1) * h])
    g.bids, g.tricks, g.trick, g.played = [None] * n, [0] * n, [], []
    g.phase, g.to_act = "bid", (g.dealer + 1) % n


def legal_actions(g: Game) -> list[int]:
    if g.game_over:
        return []
    if g.phase == "bid":
        return [C.BID0 + k for k in range(g.rules.hand_size + 1)]
    hand = g.hands[g.to_act]
    follow = [c for c in hand if g.trick and C.suit_of(c) == C.suit_of(g.trick[0][1])]
    return sorted(follow or hand)


def apply_action(g: Game, action) -> None:
    if g.game_over or action not in legal_actions(g):
        raise ValueError(f"illegal action {action!r} in phase {g.phase!r}")
    g.events = []
    (_apply_bid if g.phase == "bid" else _apply_play)(g, int(action))


def _apply_bid(g: Game, action: int) -> None:
    g.bids[g.to_act] = action - C.BID0
    g.to_act = (g.to_act + 1) % g.num_players
    if all(b is not None for b in g.bids):
        g.phase = "play"  # the dealer's left leads


def _apply_play(g: Game, card: int) -> None:
    g.hands[g.to_act].remove(card)
    g.trick.append((g.to_act, card))
    g.to_act = (g.to_act + 1) % g.num_players
    if len(g.trick) < g.num_players:
        return
    led = C.suit_of(g.trick[0][1])
    winner = max((c, s) for s, c in g.trick if C.suit_of(c) == led)[1]
    g.events.append(("trick", winner, [c for _, c in g.trick]))
    g.tricks[winner] += 1
    g.played += [c for _, c in g.trick]
    g.trick, g.to_act = [], winner
    if not any(g.hands):
        _score_round(g)


def _score_round(g: Game) -> None:
    points = [10 + b if b == t else -abs(t - b) for b, t in zip(g.bids, g.tricks)]
    g.scores = [s + p for s, p in zip(g.scores, points)]
    g.events.append(("round_end", g.round, list(g.bids), list(g.tricks), points))
    g.round += 1
    if g.round < g.rules.num_rounds:
        g.dealer = (g.dealer + 1) % g.num_players
        _deal(g)
    else:
        _end_game(g)


def _end_game(g: Game) -> None:
    top = max(g.scores)
    g.winners = [s for s in range(g.num_players) if g.scores[s] == top]
    g.phase, g.to_act, g.game_over = "over", -1, True
    g.events.append(("game_end", list(g.winners)))


def render_text(g: Game, observer: int | None = None) -> str:
    lines = [f"round {min(g.round + 1, g.rules.num_rounds)}/{g.rules.num_rounds}  phase: {g.phase}"]
    lines += [f"player_{s}{'*' if s == observer else ''}  score {g.scores[s]}  bid {g.bids[s]}  tricks {g.tricks[s]}"
              for s in range(g.num_players)]
    if g.trick:
        lines.append("trick: " + " ".join(C.card_name(c) for _, c in g.trick))
    if observer is not None:
        lines.append("hand: " + " ".join(C.card_name(c) for c in g.hands[observer]))
    return "\n".join(lines)
