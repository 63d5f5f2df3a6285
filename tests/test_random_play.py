"""Random legal play in bulk, with the game's invariants checked after every step.

The checker is reusable: ``play_random_game(env, seed, ...)`` plays one full game through
the AEC API and checks it; ``StepChecker`` checks single transitions of a
:class:`redbeard_env.redbeard.game.Game` (``snapshot`` before, ``check_step`` after);
``check_cards_conserved``, ``check_hidden_invariance`` and ``expected_legal`` work on any
game state. Import them with ``from test_random_play import ...`` (pytest puts ``tests/``
on ``sys.path``).

Checked after EVERY step (cheap):
  * the 52 cards are conserved: hands + stock + thrown-in + finished tricks + current trick;
  * the legal actions equal an independent computation from the rules (follow suit, bid
    levels, forced dealer, bid cap under ``forbid``), and a question that is asked is a
    real choice (redeal only with an eligible hand, join only for a player allowed to fold,
    ask/skip only when ``ask_optional``, look only under ``challenge``);
  * each trick holds one card per player in the round and is won by the highest card of
    the led suit;
  * every change of a running score is a ``("score", seat, delta, reason)`` event and each
    delta is the one the rules give for its reason (trick −1 / −joiner_trick_value /
    bounce amounts, +5 look / bid_over_score / contract, +forget_penalty,
    +joiner_fail_penalty, +zero_trick_penalty, redbeard_zero); round scoring produces
    exactly the expected penalties; eliminations, duels and winners are justified;
  * env bookkeeping: the selected agent is the acting seat, ``info`` phase/score/tricks,
    rewards only at elimination / game end.
Checked on a sample of steps (expensive):
  * observations: dtype/shape/bounds, the mask is the legal set for the acting agent and
    all zeros for everyone else;
  * no observation (and no legal set) changes when the cards hidden from its owner are
    reshuffled among the other hands, the stock and the thrown-in pile.
At the end: the game ended by termination or truncation, every agent was told, the
rewards match SPEC §3 (winner +1, others −1/(n−1), eliminated players at elimination,
truncation 0) and sum to 0 for a terminated game, and every final mask is all zeros.

The default run plays 1,000 games per preset (200 for each of 3..7 players). Under
uniformly random play a ``raudskjegg`` game from the sheet's 10 points takes ~85 rounds on
average (median ~46; penalties pile up faster than tricks remove points), so the default
run caps its ``max_rounds`` at 8 and starts half of its games from random lower
scores; the ``slow`` tests play the presets unmodified.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import redbeard_env
from redbeard_env.redbeard import game as G
from redbeard_env.redbeard.cards import (
    ASK,
    BID0,
    FOLD,
    JOIN,
    KEEP,
    LOOK,
    NO_LOOK,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    REDBEARD,
    REDEAL,
    SKIP,
    is_face,
)
from redbeard_env.redbeard.observation import OBS_HIGH, OBS_LOW, OBS_SIZE, encode
from redbeard_env.redbeard.rules import PENALTY, PRESETS, TRICKS_PER_ROUND

PRESET_NAMES = ("classic", "fem_opp", "raudskjegg", "wikipedia")
PLAYER_COUNTS = (3, 4, 5, 6, 7)
REDBEARD_LEVEL = 7
ROUND_REASONS = ("contract", "joiner_fail", "zero_trick", "redbeard_zero")


def make_env(num_players: int, rules="classic", **overrides):
    """An env without the UserWarning for counts outside the sheet's range."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return redbeard_env.env(num_players=num_players, rules=rules, **overrides)


# ---------------------------------------------------------------- state-level checks
def check_cards_conserved(g: G.Game) -> None:
    """Hands + stock + thrown-in + finished tricks + current trick = the 52 cards, once each.

    (A finished trick stays in ``g.trick`` during the ask/join questions and at the game's
    end; its cards are then already in ``g.played`` and count once.)"""
    cards = [c for h in g.hands for c in h]
    cards += g.stock
    cards += g.thrown
    cards += g.played
    on_table = [c for _, c in g.trick]
    finished = [c in g.played for c in on_table]
    assert all(finished) or not any(finished), "a trick partly among the finished tricks"
    if not any(finished):
        cards += on_table
    if len(cards) != NUM_CARDS or len(set(cards)) != NUM_CARDS:
        raise AssertionError(
            f"cards not conserved in phase {g.phase}: {len(cards)} cards, {len(set(cards))} distinct "
            f"(hands {[len(h) for h in g.hands]}, stock {len(g.stock)}, thrown {len(g.thrown)}, "
            f"played {len(g.played)}, trick {len(g.trick)})"
        )


def bid_tricks(level: int) -> int:
    return min(level, 6)


def may_fold(g: G.Game, seat: int) -> bool:
    r = g.rules
    if r.one_point_must_join and g.scores[seat] == 1:
        return False
    return r.may_fold == "all_but_declarer" or g.tricks[seat] == 0


def expected_legal(g: G.Game) -> list[int]:
    """The acting seat's legal actions computed from the rules (independently of the
    engine's own ``legal_actions``); also asserts that a question asked is a real choice."""
    r = g.rules
    seat = g.to_act
    phase = g.phase
    if g.game_over:
        assert seat == -1 and phase == "done"
        return []
    assert 0 <= seat < g.num_players and g.active[seat], (phase, seat)
    if phase in ("play", "duel"):
        assert g.in_round[seat], "a player out of the round is asked to play"
        assert seat not in {s for s, _ in g.trick}, "a player plays twice to one trick"
        hand = sorted(g.hands[seat])
        assert hand, "a player without cards is asked to play"
        if g.trick:
            led = g.trick[0][1] // 13
            follow = [c for c in hand if c // 13 == led]
            if follow:
                return follow
        return hand
    if phase == "bid":
        forced = r.all_pass == "dealer_must_bid" and seat == g.dealer and g.high_level < 0
        if forced:  # the dealer is asked only after everyone else passed
            assert all(g.calls[s] == G.PASSED for s in range(g.num_players) if g.active[s] and s != seat)
        lo = max(r.min_bid, 1) if forced else r.min_bid
        levels = [lv for lv in list(range(lo, r.max_bid + 1)) + [REDBEARD_LEVEL] if lv > g.high_level]
        if r.bid_over_score == "forbid":
            cap = max(g.scores[seat], 1) if forced else g.scores[seat]
            levels = [lv for lv in levels if bid_tricks(lv) <= cap]
        acts = [] if forced else [PASS]
        acts += [REDBEARD if lv == REDBEARD_LEVEL else BID0 + lv for lv in levels]
        assert acts, "no legal call in the auction"
        return acts
    if phase == "redeal":
        assert r.redeal != "off" and g.redeals_open, "redeal asked while redeals are closed"
        if r.redeal == "no_face_card":
            assert not any(is_face(c) for c in g.hands[seat]), "a hand with a face card is asked to redeal"
        return [KEEP, REDEAL]
    if phase == "look":
        assert r.redeal == "challenge" and g.thrower >= 0 and seat != g.thrower
        return [LOOK, NO_LOOK]
    if phase == "ask":
        assert r.ask_optional and seat == g.declarer
        assert TRICKS_PER_ROUND - g.tricks_done == r.join_at
        return [ASK, SKIP]
    if phase == "join":
        assert seat != g.declarer and g.in_round[seat] and g.join_state == "asked"
        assert may_fold(g, seat), "the join question is asked of a player who may not fold"
        return [JOIN, FOLD]
    raise AssertionError(f"unknown phase {phase!r}")


def check_hidden_invariance(g: G.Game, observer: int, rng: random.Random, prefix=None) -> None:
    """Reshuffle every card hidden from ``observer`` (other hands, the stock, the thrown-in
    pile) keeping each place's size, and the hidden reshuffle order; the observer's
    observation and (if acting) legal actions must not change. The state is restored."""
    n = g.num_players
    before = encode(g, observer, prefix)
    legal_before = G.legal_actions(g) if g.to_act == observer else None
    saved = ([set(h) for h in g.hands], list(g.stock), list(g.thrown), g.reshuffle_rank)
    try:
        places = [len(g.hands[s]) if s != observer else 0 for s in range(n)]
        pool = [c for s in range(n) if s != observer for c in g.hands[s]] + g.stock + g.thrown
        rng.shuffle(pool)
        i = 0
        for s in range(n):
            if s != observer:
                g.hands[s] = set(pool[i : i + places[s]])
                i += places[s]
        g.stock = pool[i : i + len(saved[1])]
        i += len(saved[1])
        g.thrown = pool[i:]
        if g.reshuffle_rank is not None:
            g.reshuffle_rank = g.reshuffle_rank[::-1].copy()
        check_cards_conserved(g)
        after = encode(g, observer, prefix)
        if not np.array_equal(before, after):
            diff = np.flatnonzero(before != after)
            raise AssertionError(
                f"observation of seat {observer} changed at indices {diff.tolist()} when only hidden cards moved"
            )
        if legal_before is not None:
            assert G.legal_actions(g) == legal_before, "legal actions depend on hidden cards"
    finally:
        g.hands, g.stock, g.thrown, g.reshuffle_rank = saved


def check_observation(obs: dict, legal: list[int] | None) -> None:
    """Space membership; the mask is exactly ``legal`` (None/[] = all zeros)."""
    vec, mask = obs["observation"], obs["action_mask"]
    assert vec.dtype == np.float32 and vec.shape == (OBS_SIZE,)
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    assert OBS_LOW <= vec.min() and vec.max() <= OBS_HIGH  # (False for NaN)
    expected = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if legal:
        expected[legal] = 1
    assert np.array_equal(mask, expected), (np.flatnonzero(mask).tolist(), legal)


# ---------------------------------------------------------------- transition checks
@dataclass
class Snapshot:
    """What ``check_step`` needs of the state before an action."""

    phase: str
    seat: int
    scores: list
    tricks: list
    joiner: list
    bounced: list
    in_round: list
    active: list
    calls: list
    declarer: int
    trick: list
    thrown_hand: list
    thrower: int
    hand: set
    dealer: int
    rounds_played: int
    tricks_done: int
    duellists: list
    tied_duels: int


def snapshot(g: G.Game) -> Snapshot:
    return Snapshot(
        g.phase,
        g.to_act,
        list(g.scores),
        list(g.tricks),
        list(g.joiner),
        list(g.bounced),
        list(g.in_round),
        list(g.active),
        list(g.calls),
        g.declarer,
        list(g.trick),
        list(g.thrown_hand),
        g.thrower,
        set(g.hands[g.to_act]) if g.to_act >= 0 else set(),
        g.dealer,
        g.rounds_played,
        g.tricks_done,
        list(g.duellists),
        g.tied_duels,
    )


def trick_score_delta(rules, score: int, value: int, bounced: bool) -> int:
    """The documented change of a running score for a trick worth ``value``."""
    if rules.zero_rule == "bounce":
        if bounced:
            return value
        if score > 0 and score - value <= 0:
            return (value - score) - score  # reach 0, then add the rest
    return -value


def check_step(pre: Snapshot, g: G.Game, action: int) -> None:
    """Check one transition ``pre`` --action--> ``g`` against the rules."""
    r = g.rules
    n = g.num_players
    seat = pre.seat
    events = g.events
    kinds = [e[0] for e in events]
    running = list(pre.scores)
    tricks = list(pre.tricks)
    round_end = "round_end" in kinds
    round_seen: list[tuple[int, int, str]] = []
    trick_winner = None
    trick_scored = False

    # --- the card played: followed suit (legality is checked before the step too)
    if pre.phase in ("play", "duel"):
        assert action in pre.hand
        if pre.trick:
            led = pre.trick[0][1] // 13
            if any(c // 13 == led for c in pre.hand):
                assert action // 13 == led, "did not follow suit"

    for ev in events:
        kind = ev[0]
        if kind == "trick":
            _, winner, cards = ev
            assert pre.phase in ("play", "duel") and trick_winner is None
            full = pre.trick + [(seat, action)]
            assert tuple(c for _, c in full) == tuple(cards)
            assert len(full) == sum(pre.in_round), "a trick needs one card from each player in the round"
            assert len({s for s, _ in full}) == len(full)
            led = full[0][1] // 13
            best = max((c, s) for s, c in full if c // 13 == led)
            assert winner == best[1], f"trick {cards} won by seat {winner}, not by the highest {led=} card"
            trick_winner = winner
            tricks[winner] += 1
        elif kind == "score":
            _, s, delta, reason = ev
            assert delta != 0
            if reason == "trick":
                assert pre.phase == "play" and s == trick_winner and not trick_scored
                value = r.joiner_trick_value if pre.joiner[s] else 1
                expect = trick_score_delta(r, running[s], value, pre.bounced[s])
                assert delta == expect, f"trick worth {value} changed score {running[s]} by {delta}, expected {expect}"
                trick_scored = True
            elif reason == "look":
                assert pre.phase == "look" and action == LOOK and delta == PENALTY
                loser = pre.thrower if any(is_face(c) for c in pre.thrown_hand) else seat
                assert s == loser, f"look penalty to seat {s}, expected {loser}"
            elif reason == "bid_over_score":
                assert pre.phase == "bid" and s == seat and action != PASS and delta == PENALTY
                assert r.bid_over_score == "penalty"
                level = REDBEARD_LEVEL if action == REDBEARD else action - BID0
                assert bid_tricks(level) > running[s]
            elif reason == "forget":
                assert pre.phase == "ask" and action == SKIP and s == seat and delta == r.forget_penalty
            elif reason in ROUND_REASONS:
                assert round_end, f"{reason} outside the round's scoring"
                if reason == "contract":
                    assert delta == PENALTY
                elif reason == "joiner_fail":
                    assert delta == r.joiner_fail_penalty
                elif reason == "zero_trick":
                    assert delta == r.zero_trick_penalty
                else:  # redbeard_zero
                    assert r.redbeard_success == "zero" and delta == -running[s]
                round_seen.append((s, delta, reason))
            else:
                raise AssertionError(f"unknown score reason {reason!r}")
            running[s] += delta
        elif kind == "round_end":  # the round's record, as of the scoring
            assert ev[1] == pre.rounds_played + 1 and ev[2] == pre.declarer
            assert ev[3] == (pre.calls[pre.declarer] if pre.declarer >= 0 else -1)
            assert tuple(ev[4]) == tuple(tricks) and tuple(ev[5]) == tuple(pre.joiner)
            assert tuple(ev[6]) == tuple(pre.in_round)
        elif kind in ("eliminated", "winner", "duel", "truncated"):
            pass  # checked below
        else:
            raise AssertionError(f"unknown event {ev!r}")

    # a trick in normal play always moves the winner's score unless the bounce nets 0
    if trick_winner is not None and pre.phase == "play" and not trick_scored:
        value = r.joiner_trick_value if pre.joiner[trick_winner] else 1
        assert trick_score_delta(r, pre.scores[trick_winner], value, pre.bounced[trick_winner]) == 0
    # the penalties that come at once must have come
    if pre.phase == "ask" and action == SKIP and r.forget_penalty:
        assert ("score", seat, r.forget_penalty, "forget") in events
    if pre.phase == "bid" and action != PASS and r.bid_over_score == "penalty":
        level = REDBEARD_LEVEL if action == REDBEARD else action - BID0
        if bid_tricks(level) > pre.scores[seat]:
            assert ("score", seat, PENALTY, "bid_over_score") in events
    if pre.phase == "look" and action == LOOK:
        assert any(e[0] == "score" and e[3] == "look" for e in events)
    assert running == g.scores, f"scores {g.scores} differ from the events' sum {running}"
    if round_end:
        trick_delta = sum(e[2] for e in events if e[0] == "score" and e[3] == "trick" and e[1] == pre.declarer)
        score_at_scoring = pre.scores[pre.declarer] + trick_delta if pre.declarer >= 0 else None
        _check_round_scoring(pre, g, trick_winner, tricks, score_at_scoring, round_seen)
        assert g.rounds_played == pre.rounds_played + 1
    else:
        assert g.rounds_played == pre.rounds_played

    # --- the bounce flag (zero_rule = bounce): set by a trick that reaches 0 from above,
    # kept for the rest of the round, never set otherwise
    if not round_end and "duel" not in kinds:
        expect_bounced = list(pre.bounced)
        if r.zero_rule == "bounce" and trick_winner is not None and pre.phase == "play":
            w = trick_winner
            value = r.joiner_trick_value if pre.joiner[w] else 1
            if pre.scores[w] > 0 and pre.scores[w] - value <= 0:
                expect_bounced[w] = True
        assert g.bounced == expect_bounced, f"bounced {g.bounced}, expected {expect_bounced}"
    elif not g.game_over:
        assert not any(g.bounced), "a new deal starts without bounced players"

    # --- eliminations
    for ev in events:
        if ev[0] == "eliminated":
            s = ev[1]
            assert round_end and pre.active[s] and not g.active[s]
            redbeard_fail = (
                s == pre.declarer
                and pre.calls[s] == REDBEARD_LEVEL
                and tricks[s] < TRICKS_PER_ROUND
                and r.redbeard_fail == "eliminate"
            )
            over = r.eliminate_at is not None and g.scores[s] >= r.eliminate_at
            assert redbeard_fail or over, f"seat {s} eliminated without reason"
    assert [s for s in range(n) if pre.active[s] and not g.active[s]] == sorted(
        e[1] for e in events if e[0] == "eliminated"
    )

    # --- end of the game
    if "winner" in kinds:
        w = events[kinds.index("winner")][1]
        assert g.terminated and not g.truncated and g.winner == w and g.active[w]
        assert g.phase == "done" and g.to_act == -1
        redbeard_win = (
            round_end
            and pre.phase == "play"
            and trick_winner == w == pre.declarer
            and pre.calls[w] == REDBEARD_LEVEL
            and tricks[w] == TRICKS_PER_ROUND
            and r.redbeard_success == "win"
        )
        last_one = sum(g.active) == 1
        duel_end = pre.phase == "duel" and pre.tricks_done + 1 == TRICKS_PER_ROUND
        if duel_end:
            most = max(tricks[s] for s in pre.duellists)
            best = [s for s in pre.duellists if tricks[s] == most]
            assert w in best and (len(best) == 1 or (pre.tied_duels + 1 >= 10 and w == min(best)))
        else:
            on_zero = g.scores[w] == 0
            assert redbeard_win or last_one or on_zero, f"seat {w} won without reason"
            if on_zero and round_end and not last_one:
                assert [s for s in range(n) if g.active[s] and g.scores[s] == 0] == [w]
            if not round_end and not last_one:  # a win in mid-round: zero_rule immediate
                assert r.zero_rule == "immediate" and g.scores[w] == 0
    else:
        assert not g.terminated
    if "truncated" in kinds:
        assert g.truncated and g.rounds_played >= r.max_rounds and g.winner is None
    else:
        assert not g.truncated
    if "duel" in kinds:
        ev = events[kinds.index("duel")]
        assert g.phase == "duel" and list(ev[1]) == g.duellists and len(g.duellists) >= 2
        if pre.phase != "duel":  # a new tie at zero
            assert g.duellists == [s for s in range(n) if g.active[s] and g.scores[s] == 0]
    if not g.game_over:
        assert g.active[g.to_act]
        if "round_end" in kinds or "duel" in kinds:  # a new deal: 6 cards to each player in it
            assert all(len(g.hands[s]) == (6 if g.in_round[s] else 0) for s in range(n))


def _check_round_scoring(pre, g, trick_winner, tricks, score_at_scoring, round_seen) -> None:
    """The round's scoring penalties ``round_seen`` are exactly the expected ones."""
    r = g.rules
    d = pre.declarer
    expect: list[tuple[int, int, str]] = []
    if d >= 0:
        assert trick_winner is not None and pre.tricks_done + 1 == TRICKS_PER_ROUND
        level = pre.calls[d]
        if level == REDBEARD_LEVEL and tricks[d] == TRICKS_PER_ROUND:
            if r.redbeard_success == "win":  # the game ends at once, nothing more is scored
                assert g.terminated and g.winner == d
                assert round_seen == [], "a Rödskägg win is not scored"
                return
            if score_at_scoring != 0:
                expect.append((d, -score_at_scoring, "redbeard_zero"))
        elif level == REDBEARD_LEVEL and r.redbeard_fail == "eliminate":
            pass
        else:
            need = bid_tricks(level)
            made = tricks[d] == need if r.contract == "exact" else tricks[d] >= need
            if not made:
                expect.append((d, PENALTY, "contract"))
        for s in range(g.num_players):
            if pre.in_round[s] and tricks[s] == 0:
                if pre.joiner[s] and r.joiner_fail_penalty:
                    expect.append((s, r.joiner_fail_penalty, "joiner_fail"))
                if r.zero_trick_penalty:
                    expect.append((s, r.zero_trick_penalty, "zero_trick"))
    else:  # everyone passed under all_pass = redeal: a round without tricks
        assert r.all_pass == "redeal" and pre.phase == "bid" and trick_winner is None
    assert sorted(round_seen) == sorted(expect), f"round scoring {round_seen}, expected {expect}"


def check_join_flags(g: G.Game) -> None:
    """Right after the join question: the players still in (other than the declarer) who
    had no trick are joiners; no one else is; folds were allowed."""
    for s in range(g.num_players):
        if s == g.declarer or not g.in_round[s]:
            assert not g.joiner[s] or g.in_round[s]
            continue
        assert g.joiner[s] == (g.tricks[s] == 0), f"seat {s} joiner flag wrong"


# ---------------------------------------------------------------- one game through the env
@dataclass
class GameStats:
    steps: int = 0
    rounds: int = 0
    terminated: bool = False
    truncated: bool = False
    winner: str | None = None
    eliminations: int = 0
    duels: int = 0
    reasons: dict | None = None


def play_random_game(
    env,
    seed: int,
    options: dict | None = None,
    sample_every: int = 24,
    rng: random.Random | None = None,
) -> GameStats:
    """Play one game with uniformly random legal actions through the AEC API, checking
    the invariants after every step (the expensive ones every ``sample_every`` steps)."""
    rng = rng or random.Random(seed)
    raw = env.unwrapped
    env.reset(seed=seed, options=options)
    g = raw.game
    n = raw.num_players
    agents = list(raw.possible_agents)
    loss = -1.0 / (n - 1)
    returns_last = dict.fromkeys(agents, 0.0)  # what last() reported
    returns_step = dict.fromkeys(agents, 0.0)  # the per-step reward dicts summed
    eliminated_at: dict[str, int] = {}
    stats = GameStats(reasons={})
    max_steps = 2000 * g.rules.max_rounds + 10_000
    check_cards_conserved(g)
    check_hidden_invariance(g, g.to_act, rng, raw._prefix)
    steps = 0
    for agent in env.agent_iter(max_steps):
        sample = steps % sample_every == 0
        _, reward, term, trunc, info = env.last(observe=False)
        obs = raw.observe(agent) if (sample or term or trunc) else None
        returns_last[agent] += reward
        if term or trunc:
            if not g.game_over:  # eliminated mid-game
                assert not g.active[raw.agent_name_mapping[agent]]
            check_observation(obs, None)
            env.step(None)
            continue
        seat = raw.agent_name_mapping[agent]
        assert seat == g.to_act and g.active[seat] and not g.game_over
        legal = G.legal_actions(g)
        assert legal == expected_legal(g), (g.phase, legal)
        if sample:
            check_observation(obs, legal)
            other = (seat + 1 + int(rng.random() * (n - 1))) % n  # someone not acting
            check_observation(raw.observe(agents[other]), None)
            check_hidden_invariance(g, other if rng.random() < 0.5 else seat, rng, raw._prefix)
            choices = np.flatnonzero(obs["action_mask"])
            action = int(choices[int(rng.random() * len(choices))])
        else:
            action = legal[int(rng.random() * len(legal))]
        pre = snapshot(g)
        env.step(action)
        steps += 1
        check_step(pre, g, action)
        check_cards_conserved(g)
        kinds = set()
        for ev in g.events:
            kinds.add(ev[0])
            if ev[0] == "score":
                stats.reasons[ev[3]] = stats.reasons.get(ev[3], 0) + 1
            elif ev[0] == "eliminated":
                eliminated_at[agents[ev[1]]] = steps
                stats.eliminations += 1
            elif ev[0] == "duel":
                stats.duels += 1
        if (
            g.phase == "play"
            and g.join_state == "asked"
            and not g.trick
            and g.tricks_done == TRICKS_PER_ROUND - g.rules.join_at
        ):
            check_join_flags(g)
        # env bookkeeping: rewards only at an elimination or the end
        if "eliminated" in kinds or g.game_over:
            for a in agents:
                returns_step[a] += raw.rewards.get(a, 0.0)
        else:
            assert not any(raw.rewards.values()), "reward before the end"
        big = sample or g.game_over or "round_end" in kinds or "duel" in kinds
        for a in raw.agents if big else (agent,):
            s = raw.agent_name_mapping[a]
            inf = raw.infos[a]
            assert inf["phase"] == g.phase and inf["score"] == g.scores[s] and inf["tricks"] == g.tricks[s]
            assert raw.terminations[a] == (g.terminated or not g.active[s])
            if g.active[s]:  # (an agent eliminated in the truncating round may carry both flags)
                assert raw.truncations[a] == g.truncated
            if g.game_over:
                assert inf["winner"] == (None if g.winner is None else agents[g.winner])
        if not g.game_over:
            sel = raw.agent_selection
            if not (raw.terminations[sel] or raw.truncations[sel]):
                assert sel == agents[g.to_act]
    if raw.agents:
        raise AssertionError(f"game did not end within {max_steps} agent steps")
    assert g.game_over and g.terminated != g.truncated, "every game ends by termination xor truncation"
    assert raw.agents == [], "every agent must be told the game is over"
    for s in range(n):
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        assert np.array_equal(raw.observe(agents[s])["action_mask"], mask)
    # rewards (SPEC §3)
    for a in agents:
        assert returns_last[a] == pytest.approx(returns_step[a]), (a, returns_last, returns_step)
    expected = {}
    for s, a in enumerate(agents):
        if a in eliminated_at:
            expected[a] = loss
        elif g.terminated:
            expected[a] = 1.0 if s == g.winner else loss
        else:
            expected[a] = 0.0
    for a in agents:
        assert returns_last[a] == pytest.approx(expected[a]), (a, returns_last, expected)
    if g.terminated:
        assert sum(returns_last.values()) == pytest.approx(0.0, abs=1e-9)
        assert g.winner is not None and g.active[g.winner]
    stats.steps = steps
    stats.rounds = g.rounds_played
    stats.terminated, stats.truncated = g.terminated, g.truncated
    stats.winner = None if g.winner is None else agents[g.winner]
    return stats


def random_options(rng: random.Random, n: int, start: int, lo: int = -2) -> dict:
    """Reset options with a random dealer and random running scores in lo..start."""
    return {"dealer": rng.randrange(n), "scores": [rng.randint(lo, start) for _ in range(n)]}


def run_games(preset, n, games, seed0, overrides=None, scores_every=4, sample_every=24):
    """Play ``games`` random games; every ``scores_every``-th starts from random scores."""
    env = make_env(n, preset, **(overrides or {}))
    start = env.unwrapped.rules.start_score
    totals = GameStats(reasons={})
    for i in range(games):
        seed = seed0 + i
        rng = random.Random(seed * 7919 + n)
        options = random_options(rng, n, start) if scores_every and i % scores_every == scores_every - 1 else None
        st = play_random_game(env, seed, options, sample_every=sample_every, rng=rng)
        totals.steps += st.steps
        totals.rounds += st.rounds
        totals.terminated += st.terminated
        totals.truncated += st.truncated
        totals.eliminations += st.eliminations
        totals.duels += st.duels
        for k, v in st.reasons.items():
            totals.reasons[k] = totals.reasons.get(k, 0) + v
    return totals


# ---------------------------------------------------------------- the tests
GAMES_PER_COUNT = 200  # x 5 player counts = 1,000 games per preset
DEFAULT_OVERRIDES = {"raudskjegg": {"max_rounds": 8}}
DEFAULT_SCORES_EVERY = {"raudskjegg": 2}


@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games(preset, n):
    t = run_games(
        preset,
        n,
        GAMES_PER_COUNT,
        seed0=100_000 * n,
        overrides=DEFAULT_OVERRIDES.get(preset),
        scores_every=DEFAULT_SCORES_EVERY.get(preset, 4),
    )
    # (play_random_game checks that each game ends, by termination xor truncation)
    assert t.rounds >= GAMES_PER_COUNT and t.terminated > 0
    # the run reached the rules it is meant to exercise
    assert t.reasons.get("trick", 0) > 0 and t.reasons.get("contract", 0) > 0
    r = PRESETS[preset]
    if r.forget_penalty:
        assert t.reasons.get("forget", 0) > 0
    if r.bid_over_score == "penalty":
        assert t.reasons.get("bid_over_score", 0) > 0
    if r.redeal == "challenge":
        assert t.reasons.get("look", 0) > 0
    if r.zero_trick_penalty:
        assert t.reasons.get("zero_trick", 0) > 0
    if r.joiner_fail_penalty:
        assert t.reasons.get("joiner_fail", 0) > 0


# Rule combinations beyond the presets: every field value is played somewhere.
OVERRIDE_CASES = {
    "immediate_any_redeal": ("classic", {"zero_rule": "immediate", "redeal": "any", "leader": "trick_winner"}),
    "must_ask_join5": ("classic", {"ask_optional": False, "join_at": 5, "may_fold": "all_but_declarer"}),
    "open_auction_bounce": (
        "fem_opp",
        {"auction": "open", "all_pass": "redeal", "contract": "exact", "join_at": 3, "joiner_trick_value": 2},
    ),
    "forbid_min0_eliminate": (
        "wikipedia",
        {"bid_over_score": "forbid", "zero_trick_penalty": 3, "joiner_trick_value": 3, "eliminate_at": 20},
    ),
    "no_join_question": ("raudskjegg", {"join_at": 0, "redbeard_fail": "eliminate", "max_rounds": 15}),
    "challenge_redbeard_zero": (
        "classic",
        {"redeal": "challenge", "redbeard_success": "zero", "redbeard_fail": "contract", "max_rounds": 12},
    ),
}


@pytest.mark.parametrize("case", sorted(OVERRIDE_CASES))
def test_random_games_overrides(case):
    preset, overrides = OVERRIDE_CASES[case]
    for n in PLAYER_COUNTS:
        t = run_games(preset, n, 12, seed0=7_000 + 100 * n, overrides=overrides, scores_every=3)
        assert t.terminated + t.truncated == 12


def test_redbeard_and_duels_happen():
    """Rare paths are reached by random play across the presets: a Rödskägg call that
    succeeds (win or zero) or fails, a duel, an elimination, a truncation."""
    seen = {"duel": 0, "elim": 0, "trunc": 0}
    for preset, n, overrides in (
        ("fem_opp", 7, None),
        ("classic", 3, {"max_rounds": 3}),
        ("raudskjegg", 4, {"max_rounds": 10}),
    ):
        t = run_games(preset, n, 60, seed0=55_000, overrides=overrides, scores_every=2, sample_every=32)
        seen["duel"] += t.duels
        seen["elim"] += t.eliminations
        seen["trunc"] += t.truncated
    assert all(seen.values()), seen


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_slow(preset, n):
    """Unmodified presets from their start scores, many more games."""
    games = 200 if preset == "raudskjegg" else 2_000
    t = run_games(preset, n, games, seed0=9_000_000 + 100_000 * n, scores_every=0, sample_every=16)
    assert t.terminated + t.truncated == games


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(OVERRIDE_CASES))
def test_random_games_overrides_slow(case):
    preset, overrides = OVERRIDE_CASES[case]
    for n in PLAYER_COUNTS:
        run_games(preset, n, 300, seed0=8_000_000 + 10_000 * n, overrides=overrides, scores_every=3)
