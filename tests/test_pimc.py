"""The search bot ``pimc`` on the batch engine:

* sampled deals respect what the searching player has seen (hand sizes, voids, cards
  played and held), and a sampled world loaded into ``VectorEnv`` shows that player
  exactly its real observation and legal actions;
* the playouts (candidate action first, then the rollout bot in every seat, several
  candidates per world, on one engine or on copies of it) stop at the round's end with
  the scores, winner and eliminations game.py reaches from the same world;
* the worth of a playout's outcome, worked out by hand;
* the same seed gives the same actions.

States come from random games of every preset at 3, 4, 5 and 7 players.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.redbeard.decode import decode_batch, rules_from_obs
from agents.redbeard import pimc as pimc_module
from agents.redbeard.heuristic import HeuristicAgent
from agents.redbeard.pimc import PimcAgent, hand_sizes, sample_owners, sampled_worlds, world_templates
from redbeard_env.redbeard import game as G
from redbeard_env.redbeard.observation import encode
from redbeard_env.redbeard.rules import PRESETS, make_rules
from redbeard_env.redbeard.vector import VectorEnv

SEARCHED = ("bid", "ask", "join", "play")
PLAYERS = (3, 4, 5, 7)


def _mask(g: G.Game) -> np.ndarray:
    m = np.zeros(69, np.int8)
    m[G.legal_actions(g)] = 1
    return m


def _searched_states(preset: str, n: int, count: int, seed: int):
    """Reference games stopped at random searched decisions (more than one legal action),
    with low start scores so that games end, players are eliminated and rounds are won."""
    rng = np.random.default_rng(seed)
    rules = make_rules(preset, start_score=4)
    out = []
    while len(out) < count:
        g = G.new_game(rules, n, np.random.default_rng(int(rng.integers(1 << 30))))
        for _ in range(int(rng.integers(0, 60))):
            if g.game_over:
                break
            legal = G.legal_actions(g)
            G.apply_action(g, int(legal[rng.integers(len(legal))]))
        if not g.game_over and g.phase in SEARCHED and len(G.legal_actions(g)) > 1:
            out.append(g)
    return out


def _worlds(g: G.Game, samples: int, rng: np.random.Generator):
    """pimc's sampled worlds for the acting seat of ``g`` (and the pieces they come from)."""
    obs = encode(g, g.to_act)[None]
    mask = _mask(g)[None]
    view = decode_batch(obs)
    rules = rules_from_obs(view)
    unseen = ~(view.hand | view.played | view.trick | (view.seen_thrown & ~view.reshuffled[:, None]))
    sizes = hand_sizes(view, rules)
    owners = sample_owners(np.repeat(unseen, samples, 0), np.repeat(sizes, samples, 0),
                           np.repeat(view.voids, samples, 0), rng)
    worlds = sampled_worlds(view, mask > 0, owners, samples, rules)
    return obs, mask, view, rules, sizes, owners, worlds


def _deals(view, mask, owners, samples, rules):
    """The same worlds as the search loads them (``VectorEnv.load_deals``)."""
    return (world_templates(view, mask > 0, rules), np.repeat(np.arange(len(view)), samples), owners,
            view.stock_size.astype(np.int64))


# ---------------------------------------------------------------- sampling
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_sampled_worlds_hold_what_the_player_knows(preset, n):
    rng = np.random.default_rng(n)
    S = 6
    for g in _searched_states(preset, n, 6, seed=100 * n + len(preset)):
        me = g.to_act
        obs, mask, view, rules, sizes, owners, worlds = _worlds(g, S, rng)
        for p in range(1, n):
            seat = (me + p) % n
            counts = (owners == p).sum(1)
            assert (counts == sizes[0, p]).all()
            if g.in_round[seat] or g.phase == "bid":
                assert sizes[0, p] == len(g.hands[seat])  # as many cards as they really hold
            elif g.active[seat]:
                # folded: the hand never plays again; counted as the cards players still in hold
                assert sizes[0, p] == 6 - g.tricks_done <= len(g.hands[seat])
            else:
                assert sizes[0, p] == 0 == len(g.hands[seat])  # eliminated: no cards
            for suit in range(4):
                if g.voids[seat][suit]:
                    assert not (owners == p)[:, suit * 13 : (suit + 1) * 13].any()  # voids respected
        assert not (owners[:, sorted(g.hands[me])] >= 0).any()  # my cards are mine
        assert not (owners[:, sorted(g.played)] >= 0).any()  # played cards are gone
        # every sampled world shows me exactly my real observation and legal actions
        venv = VectorEnv(S, n, rules, seed=0, auto_reset=False)
        w_obs, w_mask, w_seat = venv.load_games(worlds, stop_at_round_end=True)
        assert (w_seat == 0).all()
        assert np.array_equal(w_obs, np.repeat(obs, S, 0)), g.phase
        assert np.array_equal(w_mask, np.repeat(mask, S, 0))
        for w in worlds:  # every card is somewhere, once (a finished trick is also in played)
            places = [*w.hands, w.played | {c for _, c in w.trick}, w.stock, w.thrown]
            assert sorted(c for cards in places for c in cards) == list(range(52))
        # the search's loader (templates + dealt cards) writes exactly the same states
        fast = VectorEnv(S, n, rules, seed=0, auto_reset=False)
        f_obs, f_mask, f_seat = fast.load_deals(*_deals(view, mask, owners, S, rules), stop_at_round_end=True)
        assert np.array_equal(fast._raw, venv._raw) and np.array_equal(fast.dq, venv.dq)
        assert np.array_equal(f_obs, w_obs) and np.array_equal(f_mask, w_mask) and np.array_equal(f_seat, w_seat)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,n", [("classic", 4), ("fem_opp", 3), ("raudskjegg", 5), ("wikipedia", 7)])
def test_load_deals_of_several_games_in_any_slot_order(preset, n):
    """Several searched rows at once, their samples spread over the slots in a random order:
    every slot holds exactly the state load_games writes for its completed world."""
    rng = np.random.default_rng(len(preset) + n)
    states = _searched_states(preset, n, 4, seed=7 * n + len(preset))
    obs = np.concatenate([encode(g, g.to_act)[None] for g in states])
    mask = np.stack([_mask(g) for g in states])
    view = decode_batch(obs)
    rules = rules_from_obs(view)
    S = 3
    unseen = ~(view.hand | view.played | view.trick | (view.seen_thrown & ~view.reshuffled[:, None]))
    owners = sample_owners(np.repeat(unseen, S, 0), np.repeat(hand_sizes(view, rules), S, 0),
                           np.repeat(view.voids, S, 0), rng)
    worlds = sampled_worlds(view, mask > 0, owners, S, rules)
    order = rng.permutation(len(worlds))
    ref = VectorEnv(len(worlds), n, rules, seed=0, auto_reset=False)
    r_obs, r_mask, _ = ref.load_games([worlds[i] for i in order], stop_at_round_end=True)
    templates, rows, _, stock = _deals(view, mask, owners, S, rules)
    fast = VectorEnv(len(worlds), n, rules, seed=0, auto_reset=False)
    f_obs, f_mask, _ = fast.load_deals(templates, rows[order], owners[order], stock, stop_at_round_end=True)
    assert len(set(rows.tolist())) == len(states) > 1
    assert np.array_equal(fast._raw, ref._raw) and np.array_equal(fast.dq, ref.dq)
    assert np.array_equal(f_obs, r_obs) and np.array_equal(f_mask, r_mask)


def test_load_deals_refuses_bad_input_before_changing_anything():
    g = _searched_states("classic", 4, 1, seed=3)[0]
    obs, mask, view, rules, sizes, owners, worlds = _worlds(g, 2, np.random.default_rng(0))
    templates, rows, owners, stock = _deals(view, mask, owners, 2, rules)
    env = VectorEnv(2, 4, rules, seed=0, auto_reset=False)
    env.reset()
    before = env._raw.copy()
    bad = owners.copy()
    bad[0, np.flatnonzero(view.hand[0])[0]] = 1  # one of my own cards dealt to the next player
    over = templates[0].__class__(**{**templates[0].__dict__, "phase": "done"})  # a finished game
    cases = [
        (([], rows, owners, stock), "between 1 and 2 games"),
        ((templates, rows[:1], owners, stock), "game_of_slot must be"),
        ((templates, rows + 1, owners, stock), "game indices"),
        ((templates, rows, owners[:, :50], stock), "owners must be"),
        ((templates, rows, np.where(owners == 1, 4, owners), stock), "owners values"),
        ((templates, rows, owners, stock[:0]), "stock_sizes must be"),
        (([over], rows, owners, stock), "load_deals: game 0 is over"),
        ((templates, rows, owners, stock + 60), "slot 0 has .* cards in no hand"),
        ((templates, rows, bad, stock), "slot 0 deals card .* already places"),
    ]
    for args, message in cases:
        with pytest.raises(ValueError, match=message):
            env.load_deals(*args)
        assert np.array_equal(env._raw, before)  # nothing changed


# ---------------------------------------------------------------- playouts
class BatchedHeuristic(HeuristicAgent):
    """The heuristic as any rollout bot is played: pimc's batched playouts (a ``VectorEnv``
    step for all of them, ``act_batch`` on the rows with a choice), not the compiled loop
    that plays the heuristic itself."""


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("path", ["compiled", "engine_copies", "one_engine"])
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_playouts_end_like_the_reference_engine(preset, n, path, monkeypatch):
    """Every (world, candidate) playout ends on the scores, winner and eliminations game.py
    reaches from the same world with the same first action and the same rollout bot -- in
    the compiled playouts of the heuristic and in the batched ones of any rollout bot (on
    one engine, or on copies of it per candidate)."""
    monkeypatch.setattr(pimc_module, "COPY_FROM", 1 if path == "engine_copies" else 10**9)
    bot = PimcAgent(samples=3, max_actions=3, seed=0)
    if path != "compiled":
        bot.policy = BatchedHeuristic()
    rng = np.random.default_rng(7 * n)
    checked = 0
    for g in _searched_states(preset, n, 3, seed=n + 11 * len(preset)):
        obs, mask, view, rules, sizes, owners, worlds = _worlds(g, 3, rng)
        cands = bot._candidates(0, mask[0] > 0, int(np.flatnonzero(mask[0])[0]))
        first = np.full((3, 3), -1)
        for c, a in enumerate(cands):
            first[c] = a
        first[len(cands) - 1, 0] = -1  # one (world, candidate) pair not needed
        res = bot._play_out(_deals(view, mask, owners, 3, rules), first, rules, n)
        loader = VectorEnv(3, n, rules, seed=0, auto_reset=False)
        loader.load_games(worlds)
        for c in range(3):
            for w in range(3):
                if first[c, w] < 0:
                    continue
                ref = loader.export_game(w)  # the same world as a reference game
                action, events = int(first[c, w]), []
                while True:
                    ref.events = []
                    G.apply_action(ref, action)
                    events += ref.events
                    if ref.game_over or any(e[0] == "round_end" for e in ref.events):
                        break
                    o, m = encode(ref, ref.to_act), _mask(ref)
                    action = int(np.flatnonzero(m)[0]) if m.sum() == 1 else bot.policy.act(o, m)
                assert res["scores"][c, w].tolist() == ref.scores, (c, w, ref.phase)
                assert res["winner"][c, w] == (ref.winner if ref.terminated else -1)
                gone = {e[1] for e in events if e[0] == "eliminated"}
                assert set(np.flatnonzero(res["eliminated"][c, w]).tolist()) == gone
                checked += 1
    assert checked >= 12


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,n", [("classic", 4), ("fem_opp", 3), ("raudskjegg", 5), ("wikipedia", 7)])
def test_compiled_and_batched_playouts_search_alike(preset, n):
    """The heuristic's compiled playouts and the batched ones of any rollout bot give pimc the
    same decisions (and the same per-playout results: above); an illegal first action is a
    ValueError in both."""
    games = _searched_states(preset, n, 6, seed=5 * n)
    obs = np.stack([encode(g, g.to_act) for g in games])
    mask = np.stack([_mask(g) for g in games])
    compiled = PimcAgent(samples=6, seed=1)
    batched = PimcAgent(samples=6, seed=1)
    batched.policy = BatchedHeuristic()
    assert np.array_equal(compiled.act_batch(obs, mask), batched.act_batch(obs, mask))
    g = games[0]
    obs1, mask1, view, rules, sizes, owners, worlds = _worlds(g, 2, np.random.default_rng(0))
    illegal = int(np.flatnonzero(mask1[0] == 0)[0])
    for bot in (compiled, batched):
        with pytest.raises(ValueError, match="illegal"):
            bot._play_out(_deals(view, mask1, owners, 2, rules), np.full((1, 2), illegal), rules, n)


def test_playout_values_worked_out():
    """The worth of a round's end for the searching player (seat 0), 3 players, scores 8 6 9
    at the decision (an active score <= close_at=6: horizon ``auto`` plays for the game)."""
    g = G.new_game(make_rules("classic", redeal="off"), 3, np.random.default_rng(0), scores=[8, 6, 9], dealer=2)
    view = decode_batch(encode(g, g.to_act))
    rules = g.rules
    assert g.to_act == 0 and list(view.score[0, :3]) == [8, 6, 9]
    scores = np.array([[[3, 6, 9], [0, 6, 9], [-2, 6, 9], [3, 0, 9], [0, 0, 9], [3, 6, 9]]])
    winner = np.array([[-1, 0, -1, 1, -1, 2]])
    eliminated = np.zeros((1, 6, 3), bool)
    res = {"scores": scores, "winner": winner, "eliminated": eliminated}
    rep = np.zeros(6, int)
    by_round = PimcAgent(horizon="round")._values(res, view, rep, rules)
    # round: -3 (distance 3); 0 is a win: +10; -2 below zero: -2 - neg_extra 2 = -4;
    # another on 0 is not my business: -3; a shared 0 is still my 0: +10; a win during the
    # round by another (immediate) counts my score: -3
    assert by_round.tolist() == [[-3, 10, -4, -3, 10, -3]]
    by_game = PimcAgent(horizon="auto")._values(res, view, rep, rules)
    # game: the same, but another finishing is a loss (-10) and two on 0 share the win (+5)
    assert by_game.tolist() == [[-3, 10, -4, -10, 5, -10]]
    res["eliminated"][0, 0, 0] = True  # eliminated: -elim_value whatever the score
    assert PimcAgent(horizon="round")._values(res, view, rep, rules)[0, 0] == -30


# ---------------------------------------------------------------- determinism
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_same_seed_same_actions():
    states = [g for n in (3, 7) for g in _searched_states("fem_opp", n, 4, seed=n)]
    by_n = {}
    for g in states:
        by_n.setdefault(g.num_players, []).append(g)
    for games in by_n.values():
        obs = np.stack([encode(g, g.to_act) for g in games])
        mask = np.stack([_mask(g) for g in games])
        a = make_agent("pimc:samples=4", seed=3)
        b = make_agent("pimc:samples=4", seed=3)
        first = a.act_batch(obs, mask)
        assert a.decisions == int(a.searches(obs, mask).sum()) == len(games)  # states with a searched choice
        assert np.array_equal(first, b.act_batch(obs, mask))
        second = a.act_batch(obs, mask)
        a.reset(3)
        assert np.array_equal(first, a.act_batch(obs, mask))
        assert np.array_equal(second, b.act_batch(obs, mask))
        assert (mask[np.arange(len(games)), first] == 1).all()


def test_pimc_spec_errors():
    with pytest.raises(ValueError, match="samples"):
        make_agent("pimc:samples=0")
    with pytest.raises(ValueError, match="max_actions"):
        make_agent("pimc:max_actions=1")
    with pytest.raises(ValueError, match="horizon"):
        make_agent("pimc:horizon=forever")
    with pytest.raises(ValueError, match="unknown agent 'nobot'"):
        make_agent("pimc:rollout=nobot")
