"""The reference rules engine: one game of Rödskägg in plain Python.

A :class:`Game` is a small mutable state; :func:`new_game` creates one, :func:`legal_actions`
lists what the acting seat may do and :func:`apply_action` applies one action (after
checking it is legal, so an illegal action leaves the state untouched). Every rule that
varies is read from the game's :class:`~redbeard_env.redbeard.rules.Rules`.

Flow of a round (one function per phase)::

    _start_round ─ deal ─> redeal (keep/redeal) ─┬─> look (look/no_look, challenge only) ─┐
                                                 └──────────── new hand <─────────────────┘
      ─> bid (pass / bid / redbeard) ─> play tricks ─> [join_at tricks left] ask (ask/skip)
      ─> join (join/fold) ─> play the rest ─> _score_round ─> winner | duel | next round

Decisions without a real choice are resolved without asking (SPEC §3): a hand that may
not be thrown in, a player who may not fold, the ask question when it is not optional.
Bids and card plays are always asked, even with a single legal option.

Randomness: each deal (round or duel) takes one entry of ``deck_queue`` if the caller
supplied decks, otherwise draws ``rng.permutation(52)`` (the deck, top card first) and
``rng.permutation(52)`` (the order in which thrown-in cards are reshuffled if the stock
runs short). A deal gives 6 cards to each player in seat order starting left of the
dealer, taken from the top of the deck; the rest is the stock.

``Game.events`` lists what the last action caused: ``("score", seat, delta, reason)``,
``("trick", winner, cards)``, ``("round_end", rounds_played, declarer, bid_level, tricks,
joiner, in_round)`` (declarer -1 when all passed; per-seat tuples as of the scoring),
``("eliminated", seat)``, ``("duel", seats)``, ``("winner", seat)``, ``("truncated",)``.
Score reasons are ``trick``, ``look``, ``bid_over_score``, ``forget``, ``contract``,
``joiner_fail``, ``zero_trick`` and ``redbeard_zero``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .cards import (
    ASK,
    FOLD,
    JOIN,
    KEEP,
    LOOK,
    NO_LOOK,
    NUM_CARDS,
    NUM_RANKS,
    PASS,
    REDBEARD_LEVEL,
    REDEAL,
    SKIP,
    action_name,
    action_of_bid_level,
    bid_level_of_action,
    bid_tricks,
    is_face,
)
from .rules import HAND_SIZE, MAX_TIED_DUELS, PENALTY, TRICKS_PER_ROUND, Rules

# The vocabulary of a game's state, used by every engine and the observation:
PHASE_NAMES = ("redeal", "look", "bid", "ask", "join", "play", "duel", "done")  # Game.phase
JOIN_STATES = ("pending", "asked", "skipped")  # Game.join_state
PASSED = -1  # value of ``calls[seat]`` for a pass; None = not called yet
NO_CALL = -2  # "not called yet" where calls are ints (batch engine, observation's call block)


@dataclass(eq=False)
class Game:
    rules: Rules
    num_players: int
    rng: np.random.Generator
    scores: list[int]
    dealer: int
    deck_queue: list[tuple[list[int], np.ndarray | None]] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)  # not eliminated
    rounds_played: int = 0  # scored rounds (all-pass redeals included, duels not)
    phase: str = "redeal"
    to_act: int = -1  # acting seat, -1 when the game is over
    # --- the current deal
    hands: list[set[int]] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)  # top first
    thrown: list[int] = field(default_factory=list)  # thrown-in cards not yet reshuffled
    reshuffle_rank: np.ndarray | None = None  # order of thrown-in cards when reshuffled
    redeals_open: bool = False
    reshuffled: bool = False
    throws: list[int] = field(default_factory=list)  # hands thrown in this round, per seat
    seen_thrown: list[set[int]] = field(default_factory=list)  # thrown cards each seat has seen
    queue: list[int] = field(default_factory=list)  # seats still to decide in this phase
    thrower: int = -1  # whose thrown-in hand is up for a look
    thrown_hand: list[int] = field(default_factory=list)
    resume_queue: list[int] = field(default_factory=list)  # redeal queue during a look
    # --- auction
    calls: list[int | None] = field(default_factory=list)  # None, PASSED or a bid level
    high_level: int = -1
    declarer: int = -1
    # --- play
    in_round: list[bool] = field(default_factory=list)  # dealt in and not folded
    tricks: list[int] = field(default_factory=list)  # tricks taken this round
    tricks_done: int = 0
    leader: int = -1
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) in play order
    played: set[int] = field(default_factory=set)  # cards of finished tricks this round
    voids: list[list[bool]] = field(default_factory=list)  # seat x suit, shown by not following
    join_state: str = "pending"  # pending | asked | skipped
    joiner: list[bool] = field(default_factory=list)
    bounced: list[bool] = field(default_factory=list)  # reached 0 this round (zero_rule=bounce)
    # --- duel
    duellists: list[int] = field(default_factory=list)
    tied_duels: int = 0
    # --- end
    winner: int | None = None
    terminated: bool = False
    truncated: bool = False
    events: list[tuple] = field(default_factory=list)

    @property
    def game_over(self) -> bool:
        return self.terminated or self.truncated

    def seats_from(self, seat: int, include=None) -> list[int]:
        """Seats clockwise starting left of ``seat`` (``seat`` itself last) that satisfy
        ``include`` (default: active)."""
        n = self.num_players
        flags = self.active if include is None else include
        return [s for s in ((seat + k) % n for k in range(1, n + 1)) if flags[s]]


# ------------------------------------------------------------------ construction
def new_game(
    rules: Rules,
    num_players: int,
    rng: np.random.Generator,
    *,
    dealer: int | None = None,
    scores: Sequence[int] | None = None,
    decks: Sequence[tuple[list[int], np.ndarray | None]] = (),
) -> Game:
    """A game at its first decision. ``decks`` are used for the first deals, in order."""
    if dealer is None:
        dealer = int(rng.integers(num_players))
    g = Game(
        rules=rules,
        num_players=num_players,
        rng=rng,
        scores=list(scores) if scores is not None else [rules.start_score] * num_players,
        dealer=dealer,
        deck_queue=list(decks),
        active=[True] * num_players,
    )
    _start_round(g)
    return g


def _next_deck(g: Game) -> tuple[list[int], np.ndarray]:
    if g.deck_queue:
        deck, rank = g.deck_queue.pop(0)
    else:
        deck = [int(c) for c in g.rng.permutation(NUM_CARDS)]
        rank = g.rng.permutation(NUM_CARDS)
    if rank is None:  # a scripted deck: thrown-in cards come back in card-id order
        rank = np.arange(NUM_CARDS)
    return list(deck), np.asarray(rank)


def _deal(g: Game, seats: list[int]) -> None:
    deck, g.reshuffle_rank = _next_deck(g)
    g.hands = [set() for _ in range(g.num_players)]
    for i, s in enumerate(seats):
        g.hands[s] = set(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE])
    g.stock = deck[len(seats) * HAND_SIZE :]
    g.thrown = []
    g.trick = []
    g.played = set()
    g.tricks = [0] * g.num_players
    g.tricks_done = 0
    g.voids = [[False] * 4 for _ in range(g.num_players)]


# ------------------------------------------------------------------ round start, redeal, look
def _start_round(g: Game) -> None:
    n = g.num_players
    order = g.seats_from(g.dealer)
    _deal(g, order)
    g.in_round = list(g.active)
    g.redeals_open = g.rules.redeal != "off"
    g.reshuffled = False
    g.throws = [0] * n
    g.seen_thrown = [set() for _ in range(n)]
    g.calls = [None] * n
    g.high_level = -1
    g.declarer = -1
    g.join_state = "pending"
    g.joiner = [False] * n
    g.bounced = [False] * n
    g.duellists = []
    g.thrower = -1
    g.thrown_hand = []
    g.queue = order
    _next_redeal(g)


def may_throw_in(g: Game, seat: int) -> bool:
    if not g.redeals_open:
        return False
    if g.rules.redeal == "no_face_card":
        return not any(is_face(c) for c in g.hands[seat])
    return True  # any, challenge


def _next_redeal(g: Game) -> None:
    while g.queue:
        if may_throw_in(g, g.queue[0]):
            g.phase, g.to_act = "redeal", g.queue[0]
            return
        g.queue.pop(0)
    _start_auction(g)


def _apply_redeal(g: Game, seat: int, action: int) -> None:
    if action == KEEP:
        g.queue.pop(0)
        _next_redeal(g)
        return
    g.thrown_hand = sorted(g.hands[seat])
    g.thrown.extend(g.thrown_hand)
    g.seen_thrown[seat].update(g.thrown_hand)
    g.hands[seat] = set()
    g.throws[seat] += 1
    if g.rules.redeal == "challenge":
        g.thrower = seat
        g.resume_queue = list(g.queue)
        g.queue = g.seats_from(seat, [a and s != seat for s, a in enumerate(g.active)])
        g.phase, g.to_act = "look", g.queue[0]
        return
    _draw_new_hand(g, seat)
    _next_redeal(g)


def _apply_look(g: Game, seat: int, action: int) -> None:
    if action == LOOK:
        g.seen_thrown[seat].update(g.thrown_hand)
        held_face = any(is_face(c) for c in g.thrown_hand)
        loser = g.thrower if held_face else seat
        if _add_score(g, loser, PENALTY, "look"):
            return
        g.queue = []
    else:
        g.queue.pop(0)
    if g.queue:
        g.to_act = g.queue[0]
        return
    thrower = g.thrower
    g.thrower, g.thrown_hand = -1, []
    g.queue = g.resume_queue
    _draw_new_hand(g, thrower)
    _next_redeal(g)


def _draw_new_hand(g: Game, seat: int) -> None:
    if len(g.stock) < HAND_SIZE:
        # Shuffle the thrown-in hands under what is left of the stock; no more redeals.
        g.stock = g.stock + sorted(g.thrown, key=lambda c: g.reshuffle_rank[c])
        g.thrown = []
        g.redeals_open = False
        g.reshuffled = True
    g.hands[seat] = set(g.stock[:HAND_SIZE])
    g.stock = g.stock[HAND_SIZE:]


# ------------------------------------------------------------------ auction
def _start_auction(g: Game) -> None:
    g.phase = "bid"
    g.queue = g.seats_from(g.dealer)  # single: each calls once, dealer last
    g.to_act = g.queue[0]


def is_forced_dealer(g: Game, seat: int) -> bool:
    """The dealer may not pass when everyone else passed (all_pass = dealer_must_bid)."""
    return g.rules.all_pass == "dealer_must_bid" and seat == g.dealer and g.high_level < 0


def legal_bid_levels(g: Game, seat: int) -> list[int]:
    r = g.rules
    forced = is_forced_dealer(g, seat)
    lo = max(r.min_bid, 1) if forced else r.min_bid
    levels = [lv for lv in range(lo, r.max_bid + 1)] + [REDBEARD_LEVEL]
    levels = [lv for lv in levels if lv > g.high_level]
    if r.bid_over_score == "forbid":
        cap = max(g.scores[seat], 1) if forced else g.scores[seat]
        levels = [lv for lv in levels if bid_tricks(lv) <= cap]
    return levels


def _apply_bid(g: Game, seat: int, action: int) -> None:
    if action == PASS:
        g.calls[seat] = PASSED
    else:
        level = bid_level_of_action(action)
        g.calls[seat] = level
        g.high_level, g.declarer = level, seat
        if g.rules.bid_over_score == "penalty" and bid_tricks(level) > g.scores[seat]:
            if _add_score(g, seat, PENALTY, "bid_over_score"):
                return
    if g.rules.auction == "single":
        g.queue.pop(0)
        if g.queue:
            g.to_act = g.queue[0]
            return
    else:
        # Open auction: passes are final; go round until all but the highest bidder passed.
        waiting = [s for s in g.seats_from(seat) if g.calls[s] != PASSED and s != g.declarer]
        if waiting:
            g.to_act = waiting[0]
            return
    _end_auction(g)


def _end_auction(g: Game) -> None:
    if g.declarer < 0:  # all passed under all_pass = redeal: a round without tricks
        _score_round(g)
        return
    g.leader = g.declarer
    _start_trick(g)


# ------------------------------------------------------------------ play, ask, join
def _start_trick(g: Game) -> None:
    r = g.rules
    if (
        g.phase != "duel"
        and r.join_at > 0
        and g.join_state == "pending"
        and TRICKS_PER_ROUND - g.tricks_done == r.join_at
    ):
        if r.ask_optional:
            g.phase, g.to_act = "ask", g.declarer
        else:
            _ask_join(g)
        return
    if not g.in_round[g.leader]:  # the last trick's winner folded: next one still in leads
        g.leader = g.seats_from(g.leader, g.in_round)[0]
    g.trick = []
    g.phase = "duel" if g.duellists else "play"
    g.to_act = g.leader


def _apply_ask(g: Game, seat: int, action: int) -> None:
    if action == ASK:
        _ask_join(g)
        return
    g.join_state = "skipped"  # everyone counts as having a trick: no folds, no joiners
    if _add_score(g, seat, g.rules.forget_penalty, "forget"):
        return
    _start_trick(g)


def may_fold(g: Game, seat: int) -> bool:
    r = g.rules
    if r.one_point_must_join and g.scores[seat] == 1:
        return False
    return r.may_fold == "all_but_declarer" or g.tricks[seat] == 0


def _ask_join(g: Game) -> None:
    g.join_state = "asked"
    g.queue = g.seats_from(g.declarer, [a and s != g.declarer for s, a in enumerate(g.in_round)])
    _next_join(g)


def _next_join(g: Game) -> None:
    while g.queue:
        seat = g.queue[0]
        if may_fold(g, seat):
            g.phase, g.to_act = "join", seat
            return
        g.joiner[seat] = g.tricks[seat] == 0  # in automatically; a trickless one is a joiner
        g.queue.pop(0)
    _start_trick(g)


def _apply_join(g: Game, seat: int, action: int) -> None:
    if action == JOIN:
        g.joiner[seat] = g.tricks[seat] == 0
    else:
        g.in_round[seat] = False
    g.queue.pop(0)
    _next_join(g)


def trick_seats(g: Game) -> list[int]:
    """Seats that play to the current trick, the leader first."""
    return [g.leader] + g.seats_from(g.leader, g.in_round)[:-1]


def legal_cards(g: Game, seat: int) -> list[int]:
    hand = g.hands[seat]
    if g.trick:
        led = g.trick[0][1] // NUM_RANKS
        follow = [c for c in hand if c // NUM_RANKS == led]
        if follow:
            return sorted(follow)
    return sorted(hand)


def _apply_play(g: Game, seat: int, card: int) -> None:
    if g.trick:
        led = g.trick[0][1] // NUM_RANKS
        if card // NUM_RANKS != led:
            g.voids[seat][led] = True
    g.hands[seat].discard(card)
    g.trick.append((seat, card))
    order = trick_seats(g)
    if len(g.trick) < len(order):
        g.to_act = order[len(g.trick)]
        return
    led = g.trick[0][1] // NUM_RANKS
    winner, best = max(
        ((s, c) for s, c in g.trick if c // NUM_RANKS == led), key=lambda sc: sc[1]
    )
    g.played.update(c for _, c in g.trick)
    g.tricks[winner] += 1
    g.tricks_done += 1
    g.events.append(("trick", winner, tuple(c for _, c in g.trick)))
    if g.phase == "play":
        value = g.rules.joiner_trick_value if g.joiner[winner] else 1
        if _take_trick_points(g, winner, value):
            return
    if g.rules.leader == "trick_winner" or g.phase == "duel":
        g.leader = winner
    if g.tricks_done < TRICKS_PER_ROUND:
        _start_trick(g)
    elif g.phase == "duel":
        _end_duel(g)
    else:
        _score_round(g)


# ------------------------------------------------------------------ scores
def _add_score(g: Game, seat: int, delta: int, reason: str, during_play: bool = True) -> bool:
    """Change a running score; True if that ended the game (zero_rule = immediate: 0 at
    any moment of play wins; at the round's scoring the common zero check decides)."""
    if delta == 0:
        return False
    g.scores[seat] += delta
    g.events.append(("score", seat, delta, reason))
    if during_play and g.rules.zero_rule == "immediate" and g.scores[seat] == 0:
        _end_game(g, seat)
        return True
    return False


def _take_trick_points(g: Game, seat: int, value: int) -> bool:
    """A trick worth ``value`` lowers the score; under ``bounce`` it rises again once the
    score has reached 0 from above this round (score 1, a trick worth 2 -> 1)."""
    score = g.scores[seat]
    if g.rules.zero_rule == "bounce":
        if g.bounced[seat]:
            return _add_score(g, seat, value, "trick")
        if score > 0 and score - value <= 0:
            g.bounced[seat] = True
            return _add_score(g, seat, (value - score) - score, "trick")
    return _add_score(g, seat, -value, "trick")


def _score_round(g: Game) -> None:
    r = g.rules
    d = g.declarer
    redbeard_failed = False
    g.rounds_played += 1
    # The round's record, for tournaments and research metrics (the next deal resets it).
    g.events.append(
        ("round_end", g.rounds_played, d, g.calls[d] if d >= 0 else -1,
         tuple(g.tricks), tuple(g.joiner), tuple(g.in_round))
    )
    if d >= 0:
        level = g.calls[d]
        if level == REDBEARD_LEVEL and g.tricks[d] == TRICKS_PER_ROUND:
            if r.redbeard_success == "win":
                _end_game(g, d)
                return
            _add_score(g, d, -g.scores[d], "redbeard_zero", during_play=False)
        elif level == REDBEARD_LEVEL and r.redbeard_fail == "eliminate":
            redbeard_failed = True
        else:
            need = bid_tricks(level)
            made = g.tricks[d] == need if r.contract == "exact" else g.tricks[d] >= need
            if not made:
                _add_score(g, d, PENALTY, "contract", during_play=False)
        for s in range(g.num_players):
            if g.in_round[s] and g.tricks[s] == 0:
                if g.joiner[s]:
                    _add_score(g, s, r.joiner_fail_penalty, "joiner_fail", during_play=False)
                _add_score(g, s, r.zero_trick_penalty, "zero_trick", during_play=False)
    # SPEC §1.8: the round's penalties, then every elimination, then the zero check (so a
    # player eliminated in a round that ends in a duel is out before the duel is dealt)
    if redbeard_failed:
        _eliminate(g, d)
    if r.eliminate_at is not None:
        over = [s for s in range(g.num_players) if g.active[s] and g.scores[s] >= r.eliminate_at]
        remaining = [s for s in range(g.num_players) if g.active[s]]
        if over and len(over) == len(remaining):  # keep the lowest among them
            low = min(g.scores[s] for s in over)
            over = [s for s in over if g.scores[s] != low]
        for s in over:
            _eliminate(g, s)
    on_zero = [s for s in range(g.num_players) if g.active[s] and g.scores[s] == 0]
    if len(on_zero) == 1:
        _end_game(g, on_zero[0])
        return
    if len(on_zero) > 1:
        g.duellists = on_zero
        g.tied_duels = 0
        _start_duel(g)
        return
    remaining = [s for s in range(g.num_players) if g.active[s]]
    if len(remaining) == 1:
        _end_game(g, remaining[0])
        return
    if g.rounds_played >= r.max_rounds:
        g.truncated = True
        g.phase, g.to_act = "done", -1
        g.events.append(("truncated",))
        return
    g.dealer = g.seats_from(g.dealer)[0]
    _start_round(g)


def _eliminate(g: Game, seat: int) -> None:
    g.active[seat] = False
    g.in_round[seat] = False
    g.events.append(("eliminated", seat))


def _end_game(g: Game, winner: int) -> None:
    g.winner = winner
    g.terminated = True
    g.phase, g.to_act = "done", -1
    g.events.append(("winner", winner))


# ------------------------------------------------------------------ duel
def _start_duel(g: Game) -> None:
    flags = [s in g.duellists for s in range(g.num_players)]
    order = g.seats_from(g.dealer, flags)
    _deal(g, order)
    g.in_round = flags
    g.joiner = [False] * g.num_players
    g.bounced = [False] * g.num_players
    g.calls = [None] * g.num_players
    g.high_level, g.declarer = -1, -1
    g.join_state = "pending"
    g.leader = order[0]
    g.phase = "duel"
    g.events.append(("duel", tuple(g.duellists)))
    _start_trick(g)


def _end_duel(g: Game) -> None:
    most = max(g.tricks[s] for s in g.duellists)
    best = [s for s in g.duellists if g.tricks[s] == most]
    if len(best) == 1:
        _end_game(g, best[0])
        return
    g.tied_duels += 1
    if g.tied_duels >= MAX_TIED_DUELS:
        _end_game(g, min(best))
        return
    g.duellists = best
    _start_duel(g)


# ------------------------------------------------------------------ public step API
def legal_actions(g: Game) -> list[int]:
    """The legal action ids of the acting seat (empty when the game is over)."""
    seat = g.to_act
    phase = g.phase
    if phase in ("play", "duel"):
        return legal_cards(g, seat)
    if phase == "bid":
        levels = legal_bid_levels(g, seat)
        calls = [] if is_forced_dealer(g, seat) else [PASS]
        return calls + [action_of_bid_level(lv) for lv in levels]
    if phase == "redeal":
        return [KEEP, REDEAL]
    if phase == "look":
        return [LOOK, NO_LOOK]
    if phase == "ask":
        return [ASK, SKIP]
    if phase == "join":
        return [JOIN, FOLD]
    return []


_APPLY = {
    "redeal": _apply_redeal,
    "look": _apply_look,
    "bid": _apply_bid,
    "ask": _apply_ask,
    "join": _apply_join,
    "play": _apply_play,
    "duel": _apply_play,
}


def apply_action(g: Game, action: int) -> None:
    """Apply the acting seat's action; ``ValueError`` (state unchanged) if it is illegal."""
    if g.game_over:
        raise ValueError(f"the game is over (phase 'done'); no action is allowed (got {action!r})")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an int id 0..68, got {action!r} (phase {g.phase!r})")
    action = int(action)
    legal = legal_actions(g)
    if action not in legal:
        name = action_name(action) if 0 <= action < 69 else repr(action)
        allowed = ", ".join(action_name(a) for a in legal)
        raise ValueError(
            f"illegal action {name} (id {action}) in phase {g.phase!r} for seat {g.to_act}; "
            f"legal: {allowed}"
        )
    g.events = []
    _APPLY[g.phase](g, g.to_act, action)
