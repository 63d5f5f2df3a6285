"""The batch engine's state transfer and side features, checked against game.py:

* ``load_games``: reference games stopped at random points (every phase) are loaded; every
  seat's observation (``observe(seat)``) and the mask must match the reference encoder, and
  both engines must then play on identically (same actions, same queued deals).
* ``export_game``: the batch state turned back into reference games plays on identically,
  and exporting draws nothing from the engine's generator.
* ``stop_at_round_end``: loaded games halt after their round is scored with the scores the
  reference reaches.
* illegal actions raise ``ValueError`` naming the game, the action and the phase, and
  change nothing.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from redbeard_env.redbeard import game as G
from redbeard_env.redbeard.observation import OBS_SLICES, encode, static_prefix
from redbeard_env.redbeard.rules import make_rules
from redbeard_env.redbeard.vector import PHASE_NAMES, VectorEnv, random_legal_actions

CONFIGS = [
    ("classic", 4, dict(start_score=4, redeal="any", max_rounds=4)),
    ("fem_opp", 6, dict(start_score=3, eliminate_at=7)),
    ("raudskjegg", 5, dict(start_score=3, redeal="challenge", join_at=4)),
    ("wikipedia", 7, dict(start_score=3, zero_rule="immediate", auction="open", all_pass="redeal")),
    ("classic", 3, dict(start_score=2, zero_rule="bounce", ask_optional=False, may_fold="all_but_declarer")),
]


def _decks(rng, k):
    return [(rng.permutation(52).tolist(), rng.permutation(52)) for _ in range(k)]


def _random_games(rules, n, count, rng, max_steps=120):
    """Reference games stopped after a random number of random legal actions; each keeps
    a queue of decks for its future deals."""
    games = []
    while len(games) < count:
        g = G.new_game(rules, n, np.random.default_rng(int(rng.integers(1 << 30))), decks=_decks(rng, 30),
                       scores=rng.integers(0, rules.start_score + 2, size=n).tolist())
        for _ in range(int(rng.integers(0, max_steps))):
            if g.game_over:
                break
            legal = G.legal_actions(g)
            G.apply_action(g, int(legal[rng.integers(len(legal))]))
        if not g.game_over:
            games.append(g)
    return games


def _check_views(venv, games, prefix):
    n = venv.num_players
    for seat in range(n):
        obs = venv.observe(seat)
        for b, g in enumerate(games):
            if g.game_over:
                continue
            ref = encode(g, seat, prefix)
            if not np.array_equal(ref, obs[b]):
                bad = [k for k, sl in OBS_SLICES.items() if not np.array_equal(ref[sl], obs[b][sl])]
                raise AssertionError(f"game {b} seat {seat} phase {g.phase}: blocks {bad} differ")


def _lockstep(venv, games, obs, mask, seat, rng, steps):
    """Play the reference games and the batch on with the same random actions."""
    live = np.array([not g.game_over for g in games])
    prefix = static_prefix(venv.rules, venv.num_players)
    for _ in range(steps):
        if not live.any():
            break
        actions = random_legal_actions(mask, rng)
        obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
        for b in np.flatnonzero(live):
            g = games[b]
            G.apply_action(g, int(actions[b]))
            assert g.scores == info["score"][b].tolist(), (b, g.scores, info["score"][b])
            assert (g.terminated, g.truncated) == (term[b], trunc[b])
            if g.game_over:
                live[b] = False
                assert (-1 if g.winner is None else g.winner) == info["winner"][b]
                continue
            assert g.to_act == seat[b] and g.phase == PHASE_NAMES[info["phase"][b]]
            ref_mask = np.zeros(69, np.int8)
            ref_mask[G.legal_actions(g)] = 1
            assert np.array_equal(ref_mask, mask[b]), (b, g.phase)
            ref = encode(g, g.to_act, prefix)
            if not np.array_equal(ref, obs[b]):
                bad = {k: (ref[sl], obs[b][sl]) for k, sl in OBS_SLICES.items() if not np.array_equal(ref[sl], obs[b][sl])}
                raise AssertionError(f"game {b} phase {g.phase}: {bad}")
    return live


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,n,overrides", CONFIGS)
def test_load_games_then_play_on(preset, n, overrides):
    rules = make_rules(preset, **overrides)
    rng = np.random.default_rng(n)
    games = _random_games(rules, n, 96, rng)
    assert len({g.phase for g in games}) >= 3
    venv = VectorEnv(len(games), n, rules, seed=1)
    obs, mask, seat = venv.load_games(copy.deepcopy(games))
    _check_views(venv, games, static_prefix(rules, n))
    assert np.array_equal(seat, [g.to_act for g in games])
    _lockstep(venv, games, obs, mask, seat, rng, steps=400)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,n,overrides", CONFIGS)
def test_export_then_play_on(preset, n, overrides):
    rules = make_rules(preset, **overrides)
    rng = np.random.default_rng(100 + n)
    B = 64
    venv = VectorEnv(B, n, rules, seed=2)
    decks = np.argsort(rng.random((B, 40, 2, 52)), -1).reshape(B, 40, 104)
    obs, mask, seat = venv.reset(decks=decks)
    for _ in range(int(rng.integers(20, 60))):
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
    games = [venv.export_game(b) for b in range(B)]
    _check_views(venv, games, static_prefix(rules, n))
    # the export loads back to the same state
    again = VectorEnv(B, n, rules, seed=3)
    obs2, mask2, seat2 = again.load_games(copy.deepcopy(games))
    assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2) and np.array_equal(seat, seat2)
    # both engines play on alike until someone needs a deal (games reset by the batch
    # engine drew theirs from its generator, so the exports hold no queued decks for them)
    state = rng.bit_generator.state
    same = np.ones(B, bool)
    for _ in range(10):
        actions = random_legal_actions(mask, rng)
        same &= ~venv.in_duel  # a tied duel deals again without a round's end
        a = venv.step(actions)
        b = again.step(np.where(same, actions, random_legal_actions(mask2, rng)))
        mask2 = b[1]
        same &= ~(a[4] | a[5] | a[6]["round_over"])
        assert np.array_equal(a[0][same], b[0][same]) and np.array_equal(a[1][same], b[1][same])
        assert np.array_equal(a[3][same], b[3][same])
        mask = a[1]
    assert same.sum() >= B // 8
    # with fresh queued decks, the exported reference games and their reload play on alike
    rng.bit_generator.state = state
    for g in games:
        g.deck_queue = _decks(rng, 30)
    obs, mask, seat = again.load_games(copy.deepcopy(games))
    _lockstep(again, games, obs, mask, seat, rng, steps=300)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_stop_at_round_end():
    rules = make_rules("classic", start_score=5)
    rng = np.random.default_rng(5)
    games = _random_games(rules, 4, 128, rng, max_steps=40)
    ref = copy.deepcopy(games)
    venv = VectorEnv(len(games), 4, rules, seed=4)
    obs, mask, seat = venv.load_games(games, stop_at_round_end=True)
    start_rounds = [g.rounds_played for g in ref]
    done = np.zeros(len(games), bool)
    for _ in range(200):
        if venv.halted.all():
            break
        actions = random_legal_actions(np.where(venv.halted[:, None], 1, mask), rng)
        obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
        assert not mask[venv.halted].any() and (seat[venv.halted] == -1).all()
        for b, g in enumerate(ref):
            if done[b]:
                continue
            G.apply_action(g, int(actions[b]))
            if g.game_over or g.rounds_played > start_rounds[b]:
                done[b] = True
                assert venv.halted[b] and g.scores == info["score"][b].tolist()
                assert info["round_over"][b] or term[b] or trunc[b]
    assert venv.halted.all() and done.all()


def test_illegal_action_raises_without_change():
    venv = VectorEnv(8, 4, "classic", seed=0)
    obs, mask, seat = venv.reset()
    actions = random_legal_actions(mask, np.random.default_rng(0))
    bad = actions.copy()
    bad[5] = int(np.flatnonzero(mask[5] == 0)[0])
    state = {k: v.copy() for k, v in vars(venv).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match=r"game 5: illegal action .* in phase"):
        venv.step(bad)
    with pytest.raises(ValueError):
        venv.step(actions[:3])
    for k, v in vars(venv).items():
        if isinstance(v, np.ndarray) and k in state:
            assert np.array_equal(v, state[k]), k
    venv.step(actions)


def test_info_and_shapes():
    venv = VectorEnv(32, 5, "fem_opp", seed=0, start_score=3, eliminate_at=6)
    obs, mask, seat = venv.reset()
    assert obs.dtype == np.float32 and obs.shape == (32, 542)
    assert mask.dtype == np.int8 and mask.shape == (32, 69) and seat.dtype == np.int64
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        obs, mask, seat, rewards, term, trunc, info = venv.step(random_legal_actions(mask, rng))
        assert rewards.dtype == np.float32 and rewards.shape == (32, 5)
        for key, shape in (("score", (32, 5)), ("phase", (32,)), ("winner", (32,)), ("final_score", (32, 5)),
                           ("round_over", (32,)), ("round_declarer", (32,)), ("round_bid", (32,)),
                           ("round_tricks", (32, 5)), ("round_joiner", (32, 5)), ("round_folded", (32, 5)),
                           ("rounds", (32,))):
            assert np.shape(info[key]) == shape, key
        assert (info["winner"][~term] == -1).all()
        # a finished game's total reward: winner +1, the rest -1/(n-1) (eliminations included)
        finished += int((term | trunc).sum())
        assert mask.any(1).all() and (mask[np.arange(32), 0:69].sum(1) > 0).all()
    assert finished > 0


def test_no_auto_reset_and_pickle():
    import pickle

    venv = VectorEnv(64, 4, "classic", seed=3, auto_reset=False, start_score=3)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(1)
    ended = np.zeros(64, bool)
    for _ in range(300):
        actions = np.where(venv.halted, 0, random_legal_actions(np.where(venv.halted[:, None], 1, mask), rng))
        obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
        assert not (ended & (term | trunc)).any()  # an ending is reported once
        ended |= term | trunc
        assert (venv.halted == ended).all() and not mask[ended].any() and (seat[ended] == -1).all()
    assert ended.any()
    # a pickled engine (e.g. in a training checkpoint) continues exactly
    venv = VectorEnv(32, 5, "fem_opp", seed=4)
    obs, mask, seat = venv.reset()
    for _ in range(50):
        obs, mask, seat, *_ = venv.step(random_legal_actions(mask, rng))
    twin = pickle.loads(pickle.dumps(venv))
    for _ in range(100):
        actions = random_legal_actions(mask, rng)
        a = venv.step(actions)
        b = twin.step(actions)
        for x, y in zip(a[:6], b[:6]):
            assert np.array_equal(x, y)
        mask = a[1]


def test_export_game_leaves_the_generator_untouched():
    """Exporting games (e.g. to search from them) does not draw from the engine's
    generator: the batch plays on exactly as a twin that exported nothing, including the
    deals of later rounds and games."""
    a = VectorEnv(16, 4, "fem_opp", seed=7, start_score=4)
    b = VectorEnv(16, 4, "fem_opp", seed=7, start_score=4)
    obs, mask, seat = a.reset()
    b.reset()
    rng = np.random.default_rng(0)
    for t in range(300):
        if t % 7 == 0:
            for g in range(16):
                a.export_game(g)
        actions = random_legal_actions(mask, rng)
        ra, rb = a.step(actions), b.step(actions)
        for x, y in zip(ra[:6], rb[:6]):
            assert np.array_equal(x, y), t
        mask = ra[1]
    assert a.rounds_played.sum() > 16
