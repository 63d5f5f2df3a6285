"""The ``search`` bot (agents/search.py and each game's search): worlds dealt by the
network's belief within the known constraints, candidates from the policy, the policy's
choice kept unless another beats it by the margin, legal and reproducible play."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("torch")

import redbeard_env  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.family.pimc import deal_constrained  # noqa: E402
from agents.registry import available_agents  # noqa: E402
from agents.redbeard.pimc import CARD_SUITS, sample_owners  # noqa: E402
from agents.search import PolicyGuide, choose, worlds_for  # noqa: E402


def test_choose_keeps_the_policy_unless_another_beats_it_by_the_margin():
    table = np.array([[3, 7, -1], [3, 7, 9], [5, 6, -1]])
    mean = np.array([[1.0, 1.4, 0.0], [1.0, 1.4, 2.0], [0.2, 0.1, 0.0]])
    policy = np.array([3, 3, 8])  # row 3: the policy's choice is not a candidate
    assert choose(table, mean, policy, margin=0.5).tolist() == [3, 9, 5]  # 1.4 - 1.0 <= 0.5; 2.0 - 1.0 > 0.5
    assert choose(table, mean, policy, margin=0.0).tolist() == [7, 9, 5]
    assert choose(table, mean, policy, margin=2.0).tolist() == [3, 3, 5]


def test_worlds_for_spends_the_budget_within_bounds():
    assert worlds_for(50, candidates=2, steps_left=25, ms_per_playout_step=0.02) == 50  # 50 / (2 x 25 x 0.02)
    assert worlds_for(1, candidates=4, steps_left=30, ms_per_playout_step=0.02) == 4  # at least 4
    assert worlds_for(10_000, candidates=1, steps_left=1, ms_per_playout_step=0.02) == 256  # at most 256


class FakeGuide(PolicyGuide):
    def __init__(self, probs, belief=None):  # no network: the numbers a network would give
        self.probs, self.belief = np.asarray(probs, float), belief
        self.choice = self.probs.argmax(1)


def test_candidates_are_the_policys_most_likely_until_mass_or_top_k():
    g = FakeGuide([[0.05, 0.6, 0.3, 0.05, 0.0]])
    assert g.candidates(0, top_k=4, mass=0.5) == [1]
    assert g.candidates(0, top_k=4, mass=0.9) == [1, 2]
    assert g.candidates(0, top_k=4, mass=1.0) == [1, 2, 0, 3]  # never an action of probability 0
    assert g.candidates(0, top_k=2, mass=1.0) == [1, 2]


def test_a_weighted_deal_follows_the_weights_within_the_constraints():
    rng = np.random.default_rng(0)
    N = 4000
    unseen = np.zeros((N, 52), bool)
    unseen[:, :12] = True  # twelve hidden cards: 0..11 (clubs 2..K)
    sizes = np.zeros((N, 7), int)
    sizes[:, 1] = sizes[:, 2] = 4  # two positions hold 4 each, the rest are in no hand
    voids = np.zeros((N, 7, 4), bool)
    uniform = sample_owners(unseen, sizes, voids, rng)
    weights = np.ones((N, 7, 52))
    weights[:, 1, 5] = 50.0  # position 1 almost surely holds card 5
    weights[:, 2, 6] = 1e-3  # position 2 almost never holds card 6
    dealt = sample_owners(unseen, sizes, voids, rng, weights)
    for owners in (uniform, dealt):
        assert ((owners == 1).sum(1) == 4).all() and ((owners == 2).sum(1) == 4).all()
        assert (owners[:, 12:] == -2).all()  # cards that are not hidden stay out
    assert abs((uniform[:, 5] == 1).mean() - 4 / 12) < 0.03
    assert (dealt[:, 5] == 1).mean() > 0.9
    assert (dealt[:, 6] == 2).mean() < 0.05 < (uniform[:, 6] == 2).mean()
    # a void beats the weights: position 1 shown void in clubs gets no club, whatever it weighs
    voids[:, 1, CARD_SUITS[5]] = True
    unseen[:, 13:20] = True  # diamonds for it
    dealt = sample_owners(unseen, sizes, voids, rng, weights)
    assert not (dealt[:, :13] == 1).any()


def test_the_familys_weighted_deal_follows_the_weights_within_the_constraints():
    rng = np.random.default_rng(1)
    m, S, P, C = 1, 3000, 3, 10
    hold = np.array([[0, 3, 3]])
    allowed = np.ones((m, P, C), bool)
    available = np.zeros((m, C), bool)
    available[0, :8] = True  # eight unseen cards for six places
    uniform = deal_constrained(hold, allowed, available, S, rng)
    weights = np.ones((m, P, C))
    weights[0, 1, 7] = 100.0  # position 1 almost surely holds card 7
    weights[0, 2, 3] = 1e-3  # position 2 almost never holds card 3
    dealt = deal_constrained(hold, allowed, available, S, rng, weights)
    for hands in (uniform, dealt):
        assert (hands[0, :, 1].sum(1) == 3).all() and (hands[0, :, 2].sum(1) == 3).all()
        assert not (hands[0, :, 1] & hands[0, :, 2]).any() and not hands[0, :, :, 8:].any()
    assert dealt[0, :, 1, 7].mean() > 0.9 > 0.5 > uniform[0, :, 1, 7].mean()
    assert dealt[0, :, 2, 3].mean() < 0.05 < uniform[0, :, 2, 3].mean()
    # a void beats the weights: position 1 may not hold card 7, whatever it weighs
    allowed[0, 1, 7] = False
    dealt = deal_constrained(hold, allowed, available, S, rng, weights)
    assert not dealt[0, :, 1, 7].any() and (dealt[0, :, 1].sum(1) == 3).all()


SEARCHED = [g for g in redbeard_env.registered_games() if "search" in available_agents(g)]


def play(bot, seed: int, decisions: int, game: str = "redbeard") -> list[int]:
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=seed)
    actions = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = bot.act(obs)
        assert obs["action_mask"][a] == 1
        actions.append(a)
        env.step(a)
        if len(actions) >= decisions:
            break
    return actions


@pytest.mark.parametrize("game", SEARCHED)
def test_search_plays_legal_moves_and_the_same_game_for_the_same_seed(game):
    one = play(make_agent("search:worlds=6,seed=3", game=game), seed=5, decisions=30, game=game)
    two = play(make_agent("search:worlds=6,seed=3", game=game), seed=5, decisions=30, game=game)
    assert one == two


@pytest.mark.parametrize("game", SEARCHED)
def test_search_refuses_a_policy_that_is_no_network(game):
    with pytest.raises(ValueError, match="policy must be a trained network"):
        make_agent("search:policy=heuristic", game=game)


@pytest.mark.parametrize("game", SEARCHED)
def test_search_values_every_legal_action_and_plays_a_candidate(game):
    """action_values (hints, reviews): a value for every legal action of a searched
    decision, -inf for illegal ones; the move played is one of the policy's candidates."""
    bot = make_agent("search:worlds=4,top_k=2,mass=1.0,seed=1", game=game)
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=2)
    for _ in range(60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        o, mask = obs["observation"][None], obs["action_mask"][None].astype(np.int8)
        if bot.searches(o, mask)[0] and mask.sum() > 2:
            values = bot.action_values(o, mask)[0]
            legal = mask[0] == 1
            assert np.isneginf(values[~legal]).all() and np.isfinite(values[legal]).all()
            guide = PolicyGuide(bot.network, o, mask.astype(bool))
            assert int(bot.act_batch(o, mask)[0]) in guide.candidates(0, 2, 1.0)
            return
        env.step(bot.act(obs))
    pytest.fail("no searched decision with more than two legal actions in 60 moves")


@pytest.mark.parametrize("game", SEARCHED)
def test_heuristic_playouts_keep_the_network_as_guide_and_change_the_values(game):
    """playout=heuristic (the ablation of the policy's playouts): the network still picks
    the candidates, the game's heuristic plays the worlds out, so the same worlds are worth
    something else; play stays legal. playout=random is refused in one line."""
    with pytest.raises(ValueError, match="playout must be one of policy, heuristic"):
        make_agent("search:playout=random", game=game)
    own = make_agent("search:worlds=4,top_k=3,mass=1.0,seed=1", game=game)
    heur = make_agent("search:worlds=4,top_k=3,mass=1.0,seed=1,playout=heuristic", game=game)
    assert type(heur.network) is type(own.network) and heur.network.net is not None
    playing = [b.policy if hasattr(b, "max_actions") else b.rollout for b in (own, heur)]
    assert playing[0] is own.network and type(playing[1]) is type(make_agent("heuristic", game=game))
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=4)
    differ = searched = 0
    for _ in range(80):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        o, mask = obs["observation"][None], obs["action_mask"][None].astype(np.int8)
        if own.searches(o, mask)[0] and mask.sum() > 1:
            own.reset(9)
            heur.reset(9)
            a, b = own.action_values(o, mask)[0], heur.action_values(o, mask)[0]
            searched += 1
            differ += int(not np.allclose(a, b))
            assert mask[0, int(heur.act_batch(o, mask)[0])] == 1
        env.step(own.act(obs))
    assert searched >= 3 and differ >= 1


@pytest.mark.parametrize("game", SEARCHED)
def test_heuristic_playouts_are_priced_as_they_cost(game):
    """The cost model prices a playout step by who plays it: at the same ms the heuristic's
    playouts (no network in them) buy more worlds than the policy's, in the ratio of the
    game's two measured constants (benchmarks/search_speed.py), until the bounds clip."""
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=4)
    own, heur = (make_agent(f"search:ms=20,top_k=3,seed=1{p}", game=game) for p in ("", ",playout=heuristic"))
    module = next(m for m in (sys.modules[c.__module__] for c in type(own).__mro__) if hasattr(m, "MS_PER_PLAYOUT_STEP"))
    assert module.MS_PER_HEURISTIC_STEP < module.MS_PER_PLAYOUT_STEP
    for _ in range(80):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        o, mask = obs["observation"][None], obs["action_mask"][None].astype(np.int8)
        if own.searches(o, mask)[0]:
            own.act_batch(o, mask)
            heur.act_batch(o, mask)
        if hasattr(own, "last_work"):  # a decision searched (not one the policy is sure of)
            assert own.last_work == heur.last_work  # the same candidates and steps, priced otherwise
            # worlds_for prices candidates x steps: last_work is that product
            assert own.samples == worlds_for(20, own.last_work, 1, module.MS_PER_PLAYOUT_STEP)
            assert heur.samples == worlds_for(20, own.last_work, 1, module.MS_PER_HEURISTIC_STEP)
            assert heur.samples > own.samples
            return
        env.step(own.act(obs))
    pytest.fail("no searched decision in 80 moves")


def first_searched(game: str, bot, seed: int = 4, moves: int = 80):
    """(obs [1, D], mask [1, A]) of the first decision ``bot`` searches in a game of heuristics."""
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=seed)
    heuristic = make_agent("heuristic", game=game, seed=0)
    for _ in range(moves):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        o, mask = obs["observation"][None], obs["action_mask"][None].astype(np.int8)
        if bot.searches(o, mask)[0] and mask.sum() > 2:
            return o, mask
        env.step(heuristic.act(obs))
    pytest.fail(f"no searched decision in {moves} moves")


WIN_UTILITY = [g for g in SEARCHED if "utility" in type(make_agent("search:worlds=1", game=g)).PARAMS]


@pytest.mark.parametrize("game", WIN_UTILITY)
def test_a_world_that_ends_the_game_is_worth_the_searchers_share_of_the_win(game):
    """_round_worth under utility=win, on worlds whose round just ended: the searcher (seat 0)
    alone on top 1, tied with one other 1/2, beaten 0; a world whose game goes on keeps pimc's
    points (own points minus spite x the others' mean); action_values keep points throughout."""
    win = make_agent("search:worlds=1,utility=win,spite=0.5", game=game)
    delta = np.array([[10, 2, 3, 1], [7, 7, 0, 2], [1, 9, 0, 0], [4, 0, 2, 0]])
    winners = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]], bool)  # row 4: the game goes on
    info = {"round_delta": delta, "winners": winners}
    over = np.ones(4, bool)
    points = delta[:, 0] - 0.5 * delta[:, 1:].mean(1)
    assert np.allclose(win._round_worth(info, over), [1.0, 0.5, 0.0, points[3]])
    win._every_action = True  # a hint or a review: points, always
    assert np.allclose(win._round_worth(info, over), points)
    win._every_action = False
    assert np.allclose(make_agent("search:worlds=1", game=game)._round_worth(info, over), points)


@pytest.mark.parametrize("game", WIN_UTILITY)
def test_the_win_utility_values_worlds_whose_game_ends_by_the_win_and_others_by_points(game):
    """utility=win: where a world's game ends with its round (an Oh Hell deal), a world is worth
    the searcher's share of the win, so every mean lies in [0, 1]; where the game goes on (a
    Sortskæg game's first round) the worlds keep their points; hints stay in points."""
    with pytest.raises(ValueError, match="utility must be one of points, win"):
        make_agent("search:utility=score", game=game)
    # depth=0: every world played to its round's end (a game's default cut-off would value them by the critic)
    points, win = (make_agent(f"search:worlds=6,top_k=3,mass=1.0,depth=0,seed=2{u}", game=game)
                   for u in ("", ",utility=win"))
    o, mask = first_searched(game, points)
    for bot in (points, win):
        bot.reset(5)
        bot.act_batch(o, mask)
    (cands, means_points), (cands_win, means_win) = points.last_means[0], win.last_means[0]
    assert list(cands) == list(cands_win)
    from redbeard_env.registry import game_named

    if game_named(game).make_rules().num_rounds == 1:  # the first round ends the game
        assert np.all((means_win >= 0) & (means_win <= 1)) and not np.allclose(means_win, means_points)
    else:
        assert np.allclose(means_win, means_points)
    points.reset(5)
    win.reset(5)
    assert np.allclose(points.action_values(o, mask), win.action_values(o, mask), equal_nan=True)


CUT = [g for g in SEARCHED if "depth" in type(make_agent("search:worlds=1", game=g)).PARAMS]


@pytest.mark.parametrize("game", CUT)
def test_a_cut_off_search_asks_the_critic_at_the_searchers_decision_and_keeps_hints_in_points(game, monkeypatch):
    """depth=4: every world of a decision with enough of the round left stops at the
    searcher's first decision after 4 steps and is worth the critic's value there (asked
    with seat 0 to act, every hand of the world); hints and reviews still play out."""
    import agents.family.search as family_search
    from agents.search import critic_values

    asked = []

    def spy(agent, obs, legal, held):
        asked.append((obs, legal, held))
        return critic_values(agent, obs, legal, held)

    monkeypatch.setattr(family_search, "critic_values", spy)
    cut = make_agent("search:worlds=4,top_k=3,mass=1.0,seed=1,depth=4", game=game)
    full = make_agent("search:worlds=4,top_k=3,mass=1.0,seed=1", game=game)
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=6)
    cut_decisions = 0
    for _ in range(60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        o, mask = obs["observation"][None], obs["action_mask"][None].astype(np.int8)
        before = len(asked)
        a = int(cut.act_batch(o, mask)[0])
        assert mask[0, a] == 1
        if len(cut._cut) and cut._cut.any():
            cut_decisions += 1
            assert len(asked) > before  # valued by the critic ...
            for seen_obs, seen_legal, held in asked[before:]:
                assert held.shape[0] == len(seen_obs) and held.any(2).all()  # every seat holds cards at a cut
                assert seen_legal.any(1).all()  # ... at a decision of the searcher's
        elif cut.searches(o, mask)[0]:
            assert len(asked) == before  # too near the round's end: played out
        if cut.searches(o, mask)[0] and mask.sum() > 1 and cut_decisions % 5 == 1:
            cut.reset(3)
            full.reset(3)
            before = len(asked)
            np.testing.assert_allclose(cut.action_values(o, mask), full.action_values(o, mask))
            assert len(asked) == before  # hints never cut
        env.step(a)
    assert cut_decisions >= 3
