"""Bots: the spec registry, the observation decoder, legality over many states, the
heuristic's round-outcome arithmetic."""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pytest

import redbeard_env
from agents import Agent, make_agent, parse_spec, register
from agents.redbeard.decode import decode, decode_batch, rules_from_obs
from agents.redbeard.decode import encode_batch, led_suit
from agents.redbeard.heuristic import K, HeuristicAgent
from agents.registry import SHARED_BOTS, game_bots
from redbeard_env.redbeard.rules import PENALTY, PRESETS, make_rules
from redbeard_env.redbeard.vector import VectorEnv

PRESET_NAMES = list(PRESETS)


# ---------------------------------------------------------------- registry
def test_parse_spec_forms():
    assert parse_spec("heuristic").name == "heuristic"
    s = parse_spec("pimc:samples=128,horizon=round")
    assert (s.name, s.args, s.kwargs) == ("pimc", (), {"samples": 128, "horizon": "round"})
    s = parse_spec("ppo:runs/x/policy.pt,greedy=False")
    assert s.args == ("runs/x/policy.pt",) and s.kwargs == {"greedy": False}
    assert parse_spec("  Random ").name == "random"


@pytest.mark.parametrize(
    "spec, words",
    [
        ("", "non-empty"),
        ("heuristic:", "nothing after"),
        ("pimc:samples=1,,x=2", "empty item"),
        ("pimc:samples=1,samples=2", "given twice"),
        ("pimc:samples=1,foo", "bare argument"),
        ("bad name!", "alphanumeric"),
        ("pimc:1x=3", "not a parameter name"),
    ],
)
def test_bad_spec_strings(spec, words):
    with pytest.raises(ValueError, match=words):
        parse_spec(spec)


def test_make_agent_errors_are_clear():
    with pytest.raises(ValueError, match="unknown agent 'nosuchbot'; known agents: ") as err:
        make_agent("nosuchbot")
    # every agent the message offers can be built (ppo and sb3 need a file, joins a mode, and say so)
    offered = str(err.value).split("known agents: ")[1].split(", ")
    assert set(SHARED_BOTS) | set(game_bots("redbeard")) <= set(offered)
    for name in offered:
        if name in ("ppo", "sb3", "joins"):
            with pytest.raises(ValueError, match=f"{name} needs a value for .*'{name}:<"):
                make_agent(name)
            continue
        assert make_agent(name).spec == name
    with pytest.raises(ValueError, match="no parameter 'sampels'.*allowed:.*samples"):
        make_agent("pimc:sampels=3")
    with pytest.raises(ValueError, match="heuristic has no parameter 'foo'"):
        make_agent("heuristic:foo=1")


def test_make_agent_builds_and_records_spec():
    bot = make_agent("heuristic:win_value=6", seed=3)
    assert isinstance(bot, HeuristicAgent) and bot.win_value == 6.0 and bot.spec == "heuristic:win_value=6"
    rnd = make_agent("random", seed=5)
    assert rnd.spec == "random" and rnd.seed == 5
    assert make_agent("random:seed=9", seed=5).seed == 9  # the spec wins over defaults


def test_register_hook_and_duplicates():
    class Fixed(Agent):
        def act(self, observation, action_mask=None):
            return int(np.flatnonzero(action_mask)[0])

    register("fixed_test_bot", Fixed, overwrite=True)
    bot = make_agent("fixed_test_bot")
    assert bot.act(np.zeros(542, np.float32), np.eye(69, dtype=np.int8)[5]) == 5
    out = bot.act_batch(np.zeros((2, 542), np.float32), np.eye(69, dtype=np.int8)[[3, 7]])
    assert list(out) == [3, 7]
    with pytest.raises(ValueError, match="already registered"):
        register("fixed_test_bot", lambda: Fixed())


def test_ppo_hook_is_lazy_and_reports_missing_checkpoint():
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match="checkpoint"):
        make_agent("ppo:/nonexistent/policy.pt")


# ---------------------------------------------------------------- decoder
def _random_states(preset: str, n: int, games: int, seed: int, limit: int = 400):
    """(observation dict, game) pairs along random games of the AEC env (at most
    ``limit`` decisions per game)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        env = redbeard_env.env(n, preset)
    rng = np.random.default_rng(seed)
    for gi in range(games):
        env.reset(seed=seed * 100 + gi)
        for step, agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc or step >= limit:
                break
            yield obs, env.unwrapped.game
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decoder_round_trip_and_fields(preset):
    checked = 0
    for n in (3, 5, 7):
        for obs, g in _random_states(preset, n, 2, seed=n):
            vec = obs["observation"]
            view = decode_batch(vec)
            assert np.array_equal(encode_batch(view)[0], vec)  # exact round trip
            d = decode(obs)
            me = g.to_act
            seat = lambda pos: (me + pos) % n  # noqa: E731
            assert d.phase == g.phase and d.num_players == n
            assert d.hand == sorted(g.hands[me])
            assert d.played == sorted(g.played)
            # the score block is scaled by 1/12 and clipped to +-10, so exact within +-120
            assert d.scores == [min(max(g.scores[seat(p)], -120), 120) for p in range(n)]
            assert d.tricks == [g.tricks[seat(p)] for p in range(n)]
            assert d.calls == [g.calls[seat(p)] for p in range(n)]  # None: not called yet
            assert d.active == [g.active[seat(p)] for p in range(n)]
            assert d.in_round == [g.in_round[seat(p)] for p in range(n)]
            assert d.dealer == (g.dealer - me) % n
            assert d.declarer == (None if g.declarer < 0 else (g.declarer - me) % n)
            assert d.acting == 0
            assert d.high_bid == (None if g.high_level < 0 else g.high_level)
            assert d.voids == [g.voids[seat(p)] for p in range(n)]
            # the rules block gives the Rules back (all but the sheet's player range)
            assert d.rules == dataclasses.replace(g.rules, players=d.rules.players)
            assert d.rounds_played == g.rounds_played
            if g.phase in ("play", "duel") and g.trick and (g.trick[0][1] // 13) in {c // 13 for c in g.hands[me]}:
                # when the observer can follow, the led suit is certain
                assert led_suit(view, obs["action_mask"][None])[0] == g.trick[0][1] // 13
            checked += 1
    assert checked > 100


def test_rules_recovered_for_overrides():
    rules = make_rules("fem_opp", leader="trick_winner", join_at=3, forget_penalty=0, eliminate_at=40)
    env = redbeard_env.env(4, rules)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert rules_from_obs(obs["observation"]) == rules


# ---------------------------------------------------------------- legality
def _drive(preset: str, n: int, steps: int, B: int, seed: int, bots, check_every: int = 1):
    """Play B games on the batch engine for ``steps`` decisions, mixing random and heuristic
    moves, and ask every bot in ``bots`` for the action of every state; each answer must be
    legal. Returns the number of states checked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # player counts outside a sheet's range
        venv = VectorEnv(B, n, preset, seed=seed)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(seed)
    driver = HeuristicAgent()
    states = 0
    for step in range(steps):
        if step % check_every == 0:
            for bot in bots:
                acts = np.asarray(bot.act_batch(obs, mask))
                assert acts.shape == (B,)
                ok = mask[np.arange(B), acts] == 1
                assert ok.all(), f"{bot.spec or bot}: illegal action {acts[~ok][0]} in {preset} {n}p"
            states += B
        rand = np.where(mask > 0, rng.random(mask.shape), -1).argmax(1)
        actions = np.where(rng.random(B) < 0.5, rand, driver.act_batch(obs, mask))
        obs, mask, seat, *_ = venv.step(actions)
    return states


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_heuristic_and_random_always_legal(preset):
    bots = [make_agent("heuristic"), make_agent("random", seed=1)]
    states = sum(_drive(preset, n, 100, 16, seed=n, bots=bots) for n in (3, 7))
    assert states == 2 * 100 * 16


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_bots_always_legal_many_states(preset):
    bots = [make_agent("heuristic"), make_agent("random", seed=1), make_agent("pimc:samples=4")]
    states = sum(_drive(preset, n, 300, 32, seed=10 + n, bots=bots, check_every=2) for n in range(3, 8))
    assert states == 5 * 150 * 32


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_pimc_always_legal(preset):
    bots = [make_agent("pimc:samples=3,max_actions=3")]
    states = sum(_drive(preset, n, 40, 6, seed=n, bots=bots, check_every=4) for n in (3, 5, 7))
    assert states == 3 * 10 * 6


def test_heuristic_single_act_matches_batch():
    bot = make_agent("heuristic")
    pairs = list(itertools.islice(_random_states("classic", 4, 3, seed=9), 300))
    obs = np.stack([o["observation"] for o, _ in pairs])
    mask = np.stack([o["action_mask"] for o, _ in pairs])
    batch = bot.act_batch(obs, mask)
    single = [bot.act(o) for o, _ in pairs]
    assert list(batch) == single


# ---------------------------------------------------------------- round outcomes
def _slow_outcome(h, rules, s, t, joiner, bnc, level):
    """Step-by-step scoring of k more tricks (the rules of game.py, written out)."""
    out = []
    v = rules.joiner_trick_value if joiner else 1
    score, bounced, won = s, bnc, False
    for k in range(K):
        if k:
            if rules.zero_rule == "bounce":
                if bounced:
                    score += v
                elif score > 0 and score - v <= 0:
                    bounced, score = True, v - score
                else:
                    score -= v
            else:
                score -= v
                won |= rules.zero_rule == "immediate" and score == 0
        total, final = t + k, score
        rb_made = rb_fail = False
        if level == 7:
            rb_made = total == 6
            rb_fail = not rb_made
            if rb_fail and rules.redbeard_fail == "contract":
                final += PENALTY
        elif level >= 0:
            made = total == level if rules.contract == "exact" else total >= level
            final += 0 if made else PENALTY
        if joiner and total == 0:
            final += rules.joiner_fail_penalty
        if total == 0:
            final += rules.zero_trick_penalty
        u = h.value_of_score(np.array([final]), rules)[0]
        if won or rb_made:
            u = h.win_value
        if rb_fail and rules.redbeard_fail == "eliminate":
            u = -h.elim_value
        out.append(u)
    return np.array(out)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_outcome_table_matches_step_by_step_scoring(preset):
    h = HeuristicAgent()
    for zero_rule in ("exact_end", "immediate", "bounce"):
        rules = make_rules(preset, zero_rule=zero_rule)
        cases = list(itertools.product(range(-3, 14), range(3), (False, True), (False, True), (-1, 0, 1, 3, 6, 7)))
        s, t, j, b, lv = (np.array(x) for x in zip(*cases))
        fast = h.outcome_table(rules, s, t, joiner=j, bounced=b, declarer_level=lv)
        for i, case in enumerate(cases):
            np.testing.assert_allclose(fast[i], _slow_outcome(h, rules, *case), err_msg=str((preset, zero_rule, case)))


def test_heuristic_calls_redbeard_with_six_sure_tricks_and_not_otherwise():
    hands = [["AS", "KS", "QS", "JS", "TS", "9S"], ["2C", "3C", "4C", "5C", "6C", "7C"],
             ["2D", "3D", "4D", "5D", "6D", "7D"], ["2H", "3H", "4H", "5H", "6H", "7H"]]
    bot = make_agent("heuristic")
    env = redbeard_env.env(4, "classic", redeal="off")
    env.reset(seed=0, options={"dealer": 3, "hands": hands})
    assert env.agent_selection == "player_0"
    assert bot.act(env.observe("player_0")) == redbeard_env.action_id("redbeard")
    # one card short of a sure sweep: elimination risk, no Rödskägg
    hands[0][-1] = "8C"
    hands[1][-1] = "9S"
    env.reset(seed=0, options={"dealer": 3, "hands": hands})
    assert bot.act(env.observe("player_0")) != redbeard_env.action_id("redbeard")


def test_a_bot_with_fixed_join_decisions_changes_only_those():
    from redbeard_eval import run_tournament

    kw = dict(rules="classic", players=4, games=300, seed=4, mode="round", scores=[2, 2, 2, 2], plots=False, progress=False)
    rate = {}
    for spec in ("heuristic", "joins:free,base=heuristic", "joins:always,base=heuristic", "joins:never,base=heuristic"):
        a = run_tournament([spec, "random", "random", "random"], **kw)["agents"][spec]
        rate[spec] = (a["join_rate"], a["join_decisions"], a["contracts_by_bid"])
    assert rate["joins:free,base=heuristic"] == rate["heuristic"]
    assert rate["joins:always,base=heuristic"][0] == 1.0 and rate["joins:never,base=heuristic"][0] == 0.0
    assert 0 < rate["heuristic"][0] < 1  # the base bot itself chooses: a forced policy differs from it
    # the same deals and the same bids: only the join answers differ (the join question comes after the auction)
    assert rate["heuristic"][2] == rate["joins:always,base=heuristic"][2] == rate["joins:never,base=heuristic"][2]
    with pytest.raises(ValueError, match="'always', 'never' or 'free'"):
        make_agent("joins:sometimes")
    with pytest.raises(ValueError, match="no parameter 'bsae'"):  # a misspelt key is not dropped
        make_agent("joins:always,bsae=random")
    with pytest.raises(ValueError, match="plays sortskaeg, this table plays redbeard"):
        make_agent("joins:always,base=sortskaeg_heuristic")
