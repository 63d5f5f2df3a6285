"""Bad input is refused loudly (SPEC §2, §3): unknown presets and fields, out-of-range
values, bad player counts, bad reset options, illegal actions (state unchanged), stepping
a finished game, unknown action names."""

from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest

import redbeard_env
from redbeard_env import action_id, action_name, make_rules
from redbeard_env.redbeard.cards import card_name
from redbeard_env.redbeard.observation import encode
from redbeard_env.redbeard.rules import BOOL_FIELDS, CHOICES, FIELD_NAMES, INT_RANGES, PRESETS

from game_parts import games_with, has_batch_engine

PRESET_NAMES = ("classic", "fem_opp", "raudskjegg", "wikipedia")


def make_env(n=4, preset="classic", **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*outside this rule sheet's range", category=UserWarning)
        return redbeard_env.env(num_players=n, rules=preset, **kwargs)


# ---------------------------------------------------------------- rules
def test_unknown_preset():
    with pytest.raises(ValueError, match=r"(?s)unknown rules preset 'bogus'.*'classic'.*'fem_opp'.*'raudskjegg'.*'wikipedia'"):
        redbeard_env.env(rules="bogus")
    with pytest.raises(ValueError, match="bogus"):
        make_rules("bogus")


def test_rules_of_wrong_type():
    with pytest.raises(ValueError, match="preset name"):
        redbeard_env.env(rules=42)


def test_unknown_rules_field():
    with pytest.raises(ValueError, match=r"unknown Rules field\(s\) 'leeder'.*allowed:.*leader"):
        redbeard_env.env(rules="classic", leeder="declarer")
    with pytest.raises(ValueError, match="'colour'"):
        make_rules({"colour": "red"})


def bad_values(name):
    """Values outside the allowed range of field ``name``."""
    if name in CHOICES:
        return ["nope", 1, None, CHOICES[name][0].upper()]
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        vals = [lo - 1, str(lo), float(lo), True, None]
        if hi is not None:
            vals.append(hi + 1)
        return vals
    if name in BOOL_FIELDS:
        return [1, 0, "yes", None]
    if name == "eliminate_at":
        return [0, -5, "32", 32.0, True, 2**63, 10**400]
    if name == "players":
        return [(2, 7), (3, 8), (5, 4), (3,), "3-7", (3.0, 7)]
    raise AssertionError(f"no bad values for new field {name!r}; add them here")


def allowed_pattern(name):
    if name in CHOICES:
        return r".*".join(re.escape(repr(c)) for c in CHOICES[name])
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        return re.escape(f"{lo}..{hi}")
    if name in BOOL_FIELDS:
        return "True or False"
    if name == "eliminate_at":
        return "None or an int"
    return r"3\.\.7"


@pytest.mark.parametrize("name", FIELD_NAMES)
def test_out_of_range_value_names_field_and_allowed(name):
    for value in bad_values(name):
        with pytest.raises(ValueError, match=rf"(?s)'{name}'.*{allowed_pattern(name)}"):
            redbeard_env.env(rules="classic", **{name: value})
        with pytest.raises(ValueError, match=rf"'{name}'"):
            make_rules("fem_opp", **{name: value})


def test_every_field_has_validation_cases():
    covered = set(CHOICES) | set(INT_RANGES) | set(BOOL_FIELDS) | {"eliminate_at", "players"}
    assert set(FIELD_NAMES) == covered


def test_inconsistent_fields():
    with pytest.raises(ValueError, match="'max_bid'"):
        make_rules("classic", min_bid=1, max_bid=0)  # (max_bid's own range already ensures >= min_bid)
    with pytest.raises(ValueError, match="'eliminate_at'.*'start_score'"):
        make_rules("fem_opp", start_score=40)  # eliminate_at 32 <= start_score
    with pytest.raises(ValueError, match="'eliminate_at'.*'start_score'"):
        redbeard_env.env(rules="classic", eliminate_at=12)


def test_valid_overrides_still_work():
    for preset in PRESET_NAMES:
        r = make_rules(preset, leader="trick_winner", max_rounds=5)
        assert r.leader == "trick_winner" and r.max_rounds == 5
        assert r.start_score == PRESETS[preset].start_score


@pytest.mark.parametrize("n", [2, 8, 0, -1, 100, "4", 4.0, True, None])
def test_bad_player_count(n):
    with pytest.raises(ValueError, match=r"num_players.*3\.\.7"):
        redbeard_env.env(num_players=n)


def test_bad_render_and_reward_mode():
    with pytest.raises(ValueError, match="render_mode"):
        redbeard_env.env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="reward"):
        redbeard_env.env(reward="points")


# ---------------------------------------------------------------- reset options
HANDS4 = [
    ["2C", "3C", "4C", "5C", "6C", "7C"],
    ["2D", "3D", "4D", "5D", "6D", "7D"],
    ["2H", "3H", "4H", "5H", "6H", "7H"],
    ["2S", "3S", "4S", "5S", "6S", "7S"],
]


def test_good_options_accepted():
    env = make_env(4)
    env.reset(seed=0, options={"dealer": 1, "scores": [3, -2, 12, 0], "hands": HANDS4, "stock": ["AS", "10D"]})
    g = env.unwrapped.game
    assert g.dealer == 1 and g.scores == [3, -2, 12, 0]
    assert [sorted(card_name(c) for c in h) for h in g.hands] == [sorted(h) for h in HANDS4]
    assert g.stock[:2] == [redbeard_env.parse_card("AS"), redbeard_env.parse_card("TD")]
    rest = [card_name(c) for c in range(52) if c % 13 >= 6]  # all 28 cards left after the deal
    env.reset(seed=0, options={"hands": HANDS4, "stock": rest, "scores": np.array([1, 2, 3, 4])})
    assert [card_name(c) for c in env.unwrapped.game.stock] == rest


@pytest.mark.parametrize(
    "options, pattern",
    [
        ({"hands": [HANDS4[0], HANDS4[1], HANDS4[2], ["2S", "3S", "4S", "5S", "6S", "2C"]]}, r"2C.*twice"),
        ({"hands": [["2C", "2C", "4C", "5C", "6C", "7C"]] + HANDS4[1:]}, r"duplicate card 2C"),
        ({"hands": HANDS4, "stock": ["2C"]}, r"2C.*twice"),
        ({"stock": ["AS", "AS"]}, r"duplicate card AS"),
        ({"hands": [["2C", "3C", "4C", "5C", "6C", "1X"]] + HANDS4[1:]}, r"unknown card '1X'"),
        ({"hands": [["2C", "3C", "4C", "5C", "6C", "ZZ"]] + HANDS4[1:]}, r"unknown card 'ZZ'"),
        ({"hands": [["2C", "3C", "4C", "5C", "6C", 52]] + HANDS4[1:]}, r"card id.*0\.\.51"),
        ({"stock": ["AS", "11S"]}, r"unknown card '11S'"),
        ({"hands": [HANDS4[0][:5]] + HANDS4[1:]}, r"'hands'\[0\] must have 6 cards, got 5"),
        ({"hands": HANDS4[:3] + [HANDS4[3] + ["AS"]]}, r"'hands'\[3\] must have 6 cards, got 7"),
        ({"hands": HANDS4[:3]}, r"one hand per seat \(4\)"),
        ({"hands": HANDS4 + [["AS", "KS", "QS", "JS", "TS", "9S"]]}, r"one hand per seat \(4\)"),
        ({"hands": "2C 3C"}, r"'hands'"),
        ({"hands": [HANDS4[0], HANDS4[1], HANDS4[2], "2S3S4S"]}, r"list of cards"),
        ({"dealer": -1}, r"'dealer' must be a seat 0\.\.3"),
        ({"dealer": 4}, r"'dealer' must be a seat 0\.\.3"),
        ({"dealer": "0"}, r"'dealer'"),
        ({"dealer": True}, r"'dealer'"),
        ({"dealer": 1.0}, r"'dealer'"),
        ({"scores": [12, 12, 12]}, r"'scores' must be a list of 4 ints"),
        ({"scores": [12, 12, 12, 12, 12]}, r"'scores' must be a list of 4 ints"),
        ({"scores": [12, 12, 12, 1.5]}, r"'scores'"),
        ({"scores": [12, 12, 12, "12"]}, r"'scores'"),
        ({"scores": [12, 12, 12, True]}, r"'scores'"),
        ({"scores": "12"}, r"'scores'"),
        ({"scores": 12}, r"'scores'"),
        ({"stock": [card_name(c) for c in range(29)]}, r"'stock' has 29 cards; with 4 players at most 28"),
        ({"hands": 4}, r"'hands'"),
        ({"hands": HANDS4[:3] + [None]}, r"'hands'\[3\]"),
        ({"stock": 7}, r"'stock'"),
        ({"stock": "AS KS"}, r"'stock'"),
        ({"decks": 3}, r"'decks'"),
        ({"decks": [3]}, r"decks\[0\]"),
    ],
)
def test_bad_reset_options(options, pattern):
    env = make_env(4)
    with pytest.raises(ValueError, match=pattern):
        env.reset(seed=0, options=options)


def test_stock_limit_depends_on_player_count():
    env = make_env(7)
    env.reset(seed=0, options={"stock": [card_name(c) for c in range(10)]})  # 52 - 42 = 10: fine
    with pytest.raises(ValueError, match="at most 10"):
        env.reset(seed=0, options={"stock": [card_name(c) for c in range(11)]})


FULL_DECK = [card_name(c) for c in range(52)]


@pytest.mark.parametrize(
    "decks, pattern",
    [
        ([FULL_DECK[:51]], r"decks\[0\] must list the 52 cards"),
        ([FULL_DECK + ["AS"]], r"decks\[0\] must list the 52 cards"),
        ([FULL_DECK[:51] + ["2C"]], r"duplicate card 2C in decks\[0\]"),
        ([FULL_DECK[:51] + ["XX"]], r"unknown card 'XX'"),
        ([FULL_DECK, FULL_DECK[:-1]], r"decks\[1\]"),
        ([FULL_DECK + FULL_DECK[:51] + ["2C"]], r"duplicate card 2C in decks\[0\] reshuffle order"),
        (["2C 3C"], r"decks\[0\]"),
        ([FULL_DECK[:26] + [None] + FULL_DECK[27:]], r"card"),
    ],
)
def test_bad_decks(decks, pattern):
    env = make_env(4)
    with pytest.raises(ValueError, match=pattern):
        env.reset(seed=0, options={"decks": decks})


def test_decks_not_with_hands():
    env = make_env(4)
    with pytest.raises(ValueError, match="'decks' cannot be combined"):
        env.reset(seed=0, options={"decks": [FULL_DECK], "hands": HANDS4})
    env.reset(seed=0, options={"decks": [FULL_DECK, FULL_DECK + FULL_DECK[::-1]]})  # good ones pass


def test_unknown_option_key_warns_not_raises():
    env = make_env(4)
    with pytest.warns(UserWarning, match="unknown reset option 'dealr'"):
        env.reset(seed=0, options={"dealr": 2})
    assert env.agents  # the reset happened


def test_options_not_a_dict():
    env = make_env(4)
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(seed=0, options=[("dealer", 1)])


# ---------------------------------------------------------------- illegal actions
def state_fingerprint(env):
    """Everything an action could change: every seat's observation and mask, the env's
    bookkeeping and the hidden game state."""
    raw = env.unwrapped
    g = raw.game
    obs = [raw.observe(a) for a in raw.possible_agents]
    return (
        [o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs],
        [encode(g, s).tobytes() for s in range(raw.num_players)],
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        {a: dict(i) for a, i in raw.infos.items()},
        [sorted(h) for h in g.hands],
        list(g.stock),
        list(g.thrown),
        list(g.scores),
        g.phase,
        g.to_act,
        list(g.trick),
        list(g.calls),
        g.rng.bit_generator.state["state"]["state"],
    )


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_illegal_actions_raise_and_change_nothing(preset):
    env = make_env(4, preset, max_rounds=40)
    rng = random.Random(7)
    phases_tried = set()
    for seed in range(6):
        env.reset(seed=seed)
        for agent in env.agent_iter(20_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            phase = env.unwrapped.game.phase
            if phase not in phases_tried or rng.random() < 0.05:
                illegal = [int(a) for a in np.flatnonzero(mask == 0)]
                before = state_fingerprint(env)
                for a in rng.sample(illegal, min(4, len(illegal))):
                    with pytest.raises(ValueError, match=rf"{re.escape(action_name(a))}.*phase '{phase}'"):
                        env.step(a)
                for bad in (69, -1, 1000):
                    with pytest.raises(ValueError, match=rf"{bad}.*phase '{phase}'"):
                        env.step(bad)
                assert state_fingerprint(env) == before, "an illegal action changed the state"
                phases_tried.add(phase)
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.randrange(len(legal))]))
    expected = {"bid", "play"}
    r = env.unwrapped.rules
    if r.redeal != "off":
        expected.add("redeal")
    if r.redeal == "challenge":
        expected.add("look")
    if r.ask_optional and r.join_at:
        expected |= {"ask", "join"}
    assert expected <= phases_tried, f"phases never reached: {expected - phases_tried}"


def test_illegal_play_examples():
    """Scripted: a card not in hand, and not following suit, during the play."""
    env = make_env(4, "classic", redeal="off")
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "AH"],
        ["2D", "3D", "4D", "5D", "6D", "7C"],
        ["2H", "3H", "4H", "5H", "6H", "7H"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
    ]
    env.reset(seed=0, options={"dealer": 3, "hands": hands})
    # auction: seat 0 bids 1, the others pass; seat 0 leads
    env.step(action_id("bid:1"))
    for _ in range(3):
        env.step(action_id("pass"))
    assert env.unwrapped.game.phase == "play" and env.agent_selection == "player_0"
    before = state_fingerprint(env)
    with pytest.raises(ValueError, match=r"play:AS.*phase 'play'"):
        env.step(action_id("play:AS"))  # not in hand
    assert state_fingerprint(env) == before
    env.step(action_id("play:2C"))
    before = state_fingerprint(env)
    with pytest.raises(ValueError, match=r"play:2D.*phase 'play'"):
        env.step(action_id("play:2D"))  # seat 1 holds 7C and must follow clubs
    with pytest.raises(ValueError, match=r"pass.*phase 'play'"):
        env.step(action_id("pass"))
    assert state_fingerprint(env) == before
    env.step(action_id("play:7C"))


def test_wrong_action_types():
    env = make_env(4)
    env.reset(seed=0)
    before = state_fingerprint(env)
    for bad in ("pass", 52.0, [52], True):
        with pytest.raises(ValueError, match="bid|phase|action"):
            env.step(bad)
    with pytest.raises(ValueError, match="action id is required in phase"):
        env.step(None)  # a live agent must act
    assert state_fingerprint(env) == before
    obs, *_ = env.last()
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # numpy ints are fine


def test_step_after_game_end():
    env = make_env(3)
    env.reset(seed=0)
    rng = random.Random(0)
    for agent in env.agent_iter(100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            before = state_fingerprint(env)
            with pytest.raises(ValueError, match=r"play:2C.*for player_.*phase '[a-z]+'.*only valid action is None"):
                env.step(0)  # a finished agent may only step None
            assert state_fingerprint(env) == before
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert env.agents == []
    g = env.unwrapped.game
    assert g.phase == "done"
    for a in (0, 52, None):
        with pytest.raises(ValueError, match=r"(?s)phase 'done'.*reset|over"):
            env.step(a)
    with pytest.raises(ValueError, match="over"):
        redbeard_env.redbeard.game.apply_action(g, 0)
    env.reset(seed=1)  # and it can be reset
    assert len(env.agents) == 3


# ---------------------------------------------------------------- action names
@pytest.mark.parametrize("name", ["bogus", "", "bid:7", "bid:-1", "play:", "play:1X", "play:AX", "play:ASS", "play AS", "Rödskägg"])
def test_action_id_unknown(name):
    with pytest.raises(ValueError, match=re.escape(repr(name[5:])) if name.startswith("play:") else re.escape(repr(name))):
        action_id(name)


@pytest.mark.parametrize("bad", [None, 5, 51.0, b"pass"])
def test_action_id_not_a_string(bad):
    with pytest.raises(ValueError, match="string"):
        action_id(bad)


@pytest.mark.parametrize("bad", [69, -1, 1000, "pass", 3.0, True, None])
def test_action_name_out_of_range(bad):
    with pytest.raises(ValueError, match=r"0\.\.68"):
        action_name(bad)


# ---------------------------------------------------------------- engine edges
def test_reset_scores_outside_the_allowed_range_are_refused():
    """Scores that would wrap (int32 in the batch engine) or leave no headroom for a game's
    penalties are refused by both engines instead of being stored wrong (2**32 became 0
    and that seat then won at the first scoring)."""
    from redbeard_env.redbeard.rules import SCORE_LIMIT
    from redbeard_env.redbeard.vector import VectorEnv

    venv = VectorEnv(2, 4, "classic", seed=0)
    allowed = rf"-{SCORE_LIMIT}\.\.{SCORE_LIMIT}"
    for bad in (2**32, 2**31, SCORE_LIMIT + 1, -SCORE_LIMIT - 1):
        with pytest.raises(ValueError, match=allowed):
            venv.reset(scores=[12, 12, bad, 12])
        with pytest.raises(ValueError, match=allowed):
            venv.reset(scores=np.array([[12, 12, 12, 12], [12, 12, 12, bad]], dtype=np.int64))
        with pytest.raises(ValueError, match=rf"'scores'.*{allowed}"):
            make_env(4).reset(seed=0, options={"scores": [12, 12, bad, 12]})
    good = redbeard_env.redbeard.game.new_game(venv.rules, 4, np.random.default_rng(0), scores=[1, 2, 3, 4])
    bad = redbeard_env.redbeard.game.new_game(venv.rules, 4, np.random.default_rng(0), scores=[12, 2**31, 12, 12])
    before = venv.scores.copy()
    with pytest.raises(ValueError, match=rf"load_games: .*slot 1 .*{allowed}"):
        venv.load_games([good, bad])
    assert np.array_equal(venv.scores, before)  # slot 0 was not loaded either
    venv.reset(scores=[SCORE_LIMIT, -SCORE_LIMIT, 0, 12])  # the limits themselves are fine
    assert venv.scores[:, :2].tolist() == [[SCORE_LIMIT, -SCORE_LIMIT]] * 2
    env = make_env(4)
    env.reset(seed=0, options={"scores": [SCORE_LIMIT, -SCORE_LIMIT, 0, 12]})
    assert env.unwrapped.game.scores[:2] == [SCORE_LIMIT, -SCORE_LIMIT]


def test_vector_step_before_reset_is_refused():
    from redbeard_env.redbeard.vector import VectorEnv

    venv = VectorEnv(3, 4, "classic", seed=0)
    with pytest.raises(ValueError, match=r"step\(\) before reset\(\)"):
        venv.step(np.zeros(3, np.int64))
    obs, mask, seat = venv.reset()
    venv.step(mask.argmax(1))  # fine once reset


def _first_games(env, seed_for_actions=0, games=2):
    """The deals and scores of a few random games played from the env's current stream
    (reset(seed=None) each), as comparable plain values."""
    rng = random.Random(seed_for_actions)
    out = []
    for _ in range(games):
        env.reset()
        g = env.unwrapped.game
        trace = [g.dealer, [sorted(h) for h in g.hands]]
        for agent in env.agent_iter(5_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
        trace.append(list(g.scores))
        out.append(trace)
    return out


@pytest.mark.parametrize(
    "seed, options",
    [
        (None, {"scores": [12, 12, 12, "12"]}),  # checked after a dealer was drawn
        (None, {"hands": HANDS4[:3] + [["AS"]]}),
        (None, {"stock": ["AS", "AS"]}),
        (5, {"dealer": 9}),  # a rejected call does not reseed either
        (5, {"decks": [FULL_DECK[:51]]}),
    ],
)
def test_rejected_reset_leaves_the_generator_untouched(seed, options):
    """A reset with rejected options changes nothing: the following reset(seed=None) and
    its games are those of an env that never saw the bad call."""
    env, twin = make_env(4), make_env(4)
    env.reset(seed=3)
    twin.reset(seed=3)
    with pytest.raises(ValueError):
        env.reset(seed=seed, options=options)
    assert _first_games(env) == _first_games(twin)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(seed=9, scores=[12, 12, 2**40, 12]),
        dict(seed=9, dealer=4),
        dict(seed=9, decks=np.zeros((2, 1, 52), np.int64)),  # not a permutation
        dict(seed=9, decks=np.tile(np.arange(52), (3, 1, 1))),  # a deck list for 3 games, not 2
    ],
)
def test_rejected_vector_reset_changes_nothing(kwargs):
    """A VectorEnv.reset with a bad argument neither reseeds, nor touches the games or
    their queued decks: the env plays on as a twin that never saw the call."""
    from redbeard_env.redbeard.vector import VectorEnv, random_legal_actions

    a, b = VectorEnv(2, 4, "classic", seed=1), VectorEnv(2, 4, "classic", seed=1)
    decks = np.argsort(np.random.default_rng(0).random((2, 3, 52)), -1)
    mask = a.reset(decks=decks)[1]
    b.reset(decks=decks)
    with pytest.raises(ValueError):
        a.reset(**kwargs)
    rng = np.random.default_rng(2)
    for t in range(200):
        if t == 100:
            ra, rb = a.reset(), b.reset()
        else:
            actions = random_legal_actions(mask, rng)
            ra, rb = a.step(actions), b.step(actions)
        for x, y in zip(ra[:6], rb[:6]):
            assert np.array_equal(x, y), t
        mask = ra[1]


# ---------------------------------------------------------------- bots (issue 26 items 5-7)
@pytest.mark.parametrize("game,spec", [(g, s) for g in ("redbeard", "sortskaeg") for s in
                                       ("random", "heuristic", "pimc:samples=4", f"ppo:{'classic' if g == 'redbeard' else 'sortskaeg'}_4p")]
                         + [("redbeard", "joins:always")])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_observation_is_a_value_error_for_every_bot(game, spec, bad):
    """A NaN or an infinity in any block used to come out as an arbitrary (even illegal)
    action or a deep OverflowError; every bot refuses it, naming the row and index."""
    pytest.importorskip("torch")
    import redbeard_env
    from agents import make_agent

    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    bot = make_agent(spec, game=game)
    assert obs["action_mask"][bot.act(obs["observation"], obs["action_mask"])]  # a clean row plays legally
    for index in (3, len(obs["observation"]) // 2, len(obs["observation"]) - 1):
        row = obs["observation"].copy()
        row[index] = bad
        with pytest.raises(ValueError, match=f"holds {bad} at index {index}"):
            bot.act(row, obs["action_mask"])


@pytest.mark.parametrize("spec,words", [
    ("ppo:classic_4p,device=meta", "device must be 'cpu' or 'cuda"),
    ("ppo:classic_4p,seed=1.5", "seed must be an int"),
    ("ppo:classic_4p,greedy=2", "greedy must be True or False"),
    ('heuristic:rules={"a":1}', "unknown Rules field"),
    ("heuristic:rules=5", "rules must be a preset name"),
    ("pimc:rules=\"nonsense\"", "unknown rules preset"),
])
def test_bad_bot_parameters_are_value_errors(spec, words):
    pytest.importorskip("torch")
    from agents import make_agent

    with pytest.raises(ValueError, match=words):
        make_agent(spec)


@pytest.mark.parametrize("game,spec", [
    ("sortskaeg", "heuristic:INFINITY"), ("oh_hell", "heuristic:INFINITY"), ("oh_hell", "heuristic:nan"),
    ("redbeard", "heuristic:win_value=inf"), ("redbeard", "heuristic:threat=nan"),
    ("sortskaeg", "pimc:spite=inf"), ("oh_hell", "pimc:spite=nan"), ("redbeard", "pimc:win_value=inf"),
])
def test_non_finite_bot_parameters_are_value_errors(game, spec):
    """A parameter that reads as an infinity or NaN would make every value NaN and the
    bot's choice arbitrary (the web fuzz found heuristic:INFINITY choosing an illegal card)."""
    from agents import make_agent

    with pytest.raises(ValueError, match="must be finite"):
        make_agent(spec, game=game)


def test_errors_never_repeat_a_long_input():
    from agents import make_agent

    for spec in ("x" * 5000, "heuristic:" + "a" * 5000 + "=1", "random:" + "1" * 5000):
        with pytest.raises(ValueError) as err:
            make_agent(spec)
        assert len(str(err.value)) < 600, len(str(err.value))


# ---------------------------------------------------------------- library calls (issue 59 item 8)
GAMES = redbeard_env.registered_games()
BATCH_GAMES = games_with(has_batch_engine)  # a batch engine is optional


def _play_to_the_end(env, seed=0):
    """Random legal moves until every agent has stepped out."""
    rng = random.Random(seed)
    for _ in env.agent_iter(100_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert env.agents == []


BAD_SEEDS = [1.5, "x", -1, True, np.bool_(False), [1, 2], 3.0, np.float64(2)]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_a_bad_seed_is_a_value_error_naming_what_a_seed_may_be(game, seed):
    env = redbeard_env.make(game, num_players=4)
    env.reset(seed=3)
    before = env.unwrapped.game
    with pytest.raises(ValueError, match=r"^seed must be None or an int >= 0, got "):
        env.reset(seed=seed)
    assert env.unwrapped.game is before  # refused before anything changed


@pytest.mark.parametrize("game", BATCH_GAMES)
@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_a_bad_seed_of_a_batch_engine_is_a_value_error(game, seed):
    """A batch engine also takes a list of such ints (numpy's entropy): a list of lists is refused."""
    vector_seed = [[1], [2]] if isinstance(seed, list) else seed
    venv_type = redbeard_env.game_named(game).vector_env
    with pytest.raises(ValueError, match=r"^seed must be None or an int >= 0 \(or a list of them\), got "):
        venv_type(2, 4, seed=vector_seed)
    venv = venv_type(2, 4, seed=0)
    with pytest.raises(ValueError, match=r"^seed must be None or an int >= 0 \(or a list of them\), got "):
        venv.reset(seed=vector_seed)


@pytest.mark.parametrize("game", GAMES)
def test_numpy_seeds_play_the_same_games_as_python_ints(game):
    a, b = redbeard_env.make(game, num_players=4), redbeard_env.make(game, num_players=4)
    a.reset(seed=7)
    b.reset(seed=np.uint32(7))
    for agent in a.possible_agents:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])


@pytest.mark.parametrize("game", BATCH_GAMES)
def test_numpy_seeds_play_the_same_games_as_python_ints_on_a_batch_engine(game):
    venv_type = redbeard_env.game_named(game).vector_env
    obs_a = venv_type(3, 4, seed=5).reset()[0]
    obs_b = venv_type(3, 4, seed=np.int64(5)).reset()[0]
    assert np.array_equal(obs_a, obs_b)


@pytest.mark.parametrize("game", BATCH_GAMES)
def test_a_batch_too_large_to_allocate_is_a_value_error_with_the_bound(game):
    from redbeard_env.common import MAX_NUM_ENVS

    venv_type = redbeard_env.game_named(game).vector_env
    for num_envs in (10**12, MAX_NUM_ENVS + 1, 0, 2.0, True):
        with pytest.raises(ValueError, match=rf"^num_envs must be an int in 1\.\.{MAX_NUM_ENVS}, got "):
            venv_type(num_envs, 4, seed=0)
    assert venv_type(np.int16(2), 4, seed=0).num_envs == 2


@pytest.mark.parametrize("game", GAMES)
def test_last_after_the_end_and_calls_before_reset_are_value_errors(game):
    env = redbeard_env.make(game, num_players=4)
    for call, what in ((env.last, "last"), (lambda: env.step(0), "step"), (lambda: env.observe("player_0"), "observe")):
        with pytest.raises(ValueError, match=rf"^{what}\(\) before reset\(\): call reset\(\) first$"):
            call()
    env.reset(seed=2)
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.observe("player_9")
    _play_to_the_end(env)
    for observe in (True, False):
        with pytest.raises(ValueError, match=r"^last\(\) after the game's end: every agent is done .* call reset\(\)$"):
            env.last(observe)
    env.reset(seed=3)  # and the env plays on
    assert env.last()[2] is False


@pytest.mark.parametrize("game", GAMES)
def test_any_integral_player_count_is_accepted_and_a_bool_is_not(game):
    lo, _ = redbeard_env.game_named(game).player_range
    for n in (np.int64(lo), np.int32(lo + 1), np.uint8(lo)):
        env = redbeard_env.make(game, num_players=n)
        assert type(env.num_players) is int and env.num_players == int(n)
        env.reset(seed=0)
        assert len(env.agents) == int(n)
    for bad in (True, np.bool_(True), float(lo), str(lo)):
        with pytest.raises(ValueError, match=r"^num_players must be an int in \d\.\.\d, got "):
            redbeard_env.make(game, num_players=bad)


@pytest.mark.parametrize("game", BATCH_GAMES)
def test_any_integral_player_count_is_accepted_by_a_batch_engine_and_a_bool_is_not(game):
    info = redbeard_env.game_named(game)
    lo, _ = info.player_range
    for n in (np.int64(lo), np.int32(lo + 1), np.uint8(lo)):
        venv = info.vector_env(2, n, seed=0)
        assert type(venv.num_players) is int and venv.num_players == int(n)
    for bad in (True, np.bool_(True), float(lo), str(lo)):
        with pytest.raises(ValueError, match=r"^num_players must be an int in \d\.\.\d, got "):
            info.vector_env(2, bad, seed=0)


# ---------------------------------------------------------------- command lines' numbers (issue 59 item 8)
CLI_BAD_NUMBERS = [  # (module, argv, what the one line says)
    ("redbeard_env.redbeard.demo", ["--games", "-3"], "--games must be >= 1"),
    ("redbeard_env.redbeard.demo", ["--games", "0"], "--games must be >= 1"),
    ("redbeard_env.redbeard.demo", ["--seed", "-1"], "--seed >= 0"),
    ("redbeard_env.redbeard.demo", ["--players", "9"], "num_players must be an int in 3..7"),
    ("redbeard_train.ablation", ["--minutes", "nan"], "--minutes must be a finite number > 0, got nan"),
    ("redbeard_train.ablation", ["--minutes", "inf"], "--minutes must be a finite number > 0, got inf"),
    ("redbeard_train.ablation", ["--steps", "inf"], "--steps must be 0 .* or a finite number >= 1, got inf"),
    ("redbeard_train.ablation", ["--seed", "-5"], "--seed must be >= 0, got -5"),
    ("redbeard_train.ablation", ["--workers", "0"], "--workers must be >= 1, got 0"),
    ("redbeard_eval.research", ["--games", "-3"], "--games and --workers must be >= 1"),
    ("redbeard_eval.research", ["--seed", "-1"], "--seed >= 0"),
]


@pytest.mark.parametrize("module, argv, message", CLI_BAD_NUMBERS, ids=[f"{m.split('.')[-1]}{a}" for m, a, _ in CLI_BAD_NUMBERS])
def test_negative_or_non_finite_numbers_on_command_lines_are_one_line(module, argv, message, capsys):
    """Counts, seeds and budgets of the drivers that play or train for long were taken as
    given and failed (or divided by zero) after the work, or ran nothing."""
    import importlib

    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert ": error: " in err[-1] and re.search(message, err[-1]), err  # argparse's usage line, then the error


def test_a_report_path_that_is_a_folder_is_refused_before_any_work(tmp_path, capsys):
    from redbeard_eval import research
    from redbeard_train import ablation

    for main, argv in ((research.main, ["--out", str(tmp_path)]), (ablation.main, ["--out", str(tmp_path)]),
                       (research.main, ["--runs-dir", str(tmp_path / "file.txt")])):
        (tmp_path / "file.txt").write_text("x")
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert re.search(r"is a folder; it must name the report's file|is an existing file; it must name a folder", err), err


@pytest.mark.parametrize("flags, message", [
    (["--pause", "-1"], r"--pause must be a finite number of seconds >= 0, got -1.0"),
    (["--pause", "nan"], r"--pause must be a finite number of seconds >= 0, got nan"),
    (["--record", "{tmp}"], r"--record .* is a folder; it must name a file"),
    (["--record", "{tmp}/missing/games.jsonl"], r"--record .*: the folder .*missing does not exist"),
])
def test_the_terminal_table_refuses_a_bad_pause_or_record_file_before_the_game(tmp_path, flags, message):
    """redbeard-play slept a negative or NaN pause mid-game (a traceback) and lost a finished
    game's record to a --record folder."""
    import io

    from redbeard_web.terminal import main

    out = io.StringIO()
    code = main(["--seed", "1", *[f.format(tmp=tmp_path) for f in flags]], stdin=io.StringIO("quit\n"), stdout=out)
    assert code == 2
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1 and re.search(message, lines[0]), lines


def test_the_web_server_refuses_a_records_file_it_cannot_append_to(tmp_path):
    """redbeard-web --records naming a folder served on, logging an error and losing the
    record of every finished game."""
    pytest.importorskip("uvicorn")
    from redbeard_web.cli import main

    for path, message in ((tmp_path, "is a folder; it must name a file"),
                          (tmp_path / "missing" / "games.jsonl", "the folder .*missing does not exist")):
        with pytest.raises(SystemExit) as exit_:
            main(["--port", "0", "--records", str(path)])
        assert re.fullmatch(rf"redbeard-web: --records .*{message}.*", str(exit_.value.code)), exit_.value.code
