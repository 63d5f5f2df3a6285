"""Every bot of every game declares its spec parameters (agents.params), the registry checks
specs against the declarations, and no accepted value makes a bot misbehave: each declared
parameter, at its bounds and in between, plays short games with legal actions only (issue 59).
A Hypothesis fuzz of specs (extreme, non-finite, wrong-typed and nested values) goes through
``make_agent``: every spec is either refused with one line or builds a bot that plays legally.
The broader versions (more games and decisions, costlier nested bots, more examples) are
``slow``."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import redbeard_env
from agents import make_agent
from agents.params import MAX_NESTING, Param
from agents.registry import SHARED_BOTS, check_spec, declaration, game_bots, resolve, spec_cost
from game_parts import OneTable, games_with, has_bot, shipped_policies

GAMES = tuple(redbeard_env.registered_games())
SEARCH_GAMES = games_with(has_bot, "pimc")  # the games with a determinised search
OPTIONAL = {"sb3": "sb3_contrib", "ppo": "torch", "openspiel": "pyspiel"}  # bots that need an extra


def bots_of(game: str) -> list[str]:
    return sorted(set(game_bots(game)) | set(SHARED_BOTS))


def factory_of(name: str, game: str):
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    return resolve(name, game)[0]


shipped = shipped_policies


# ---------------------------------------------------------------- the declarations
@pytest.mark.parametrize("game,name", [(g, n) for g in GAMES for n in bots_of(g)])
def test_every_bot_declares_every_parameter(game, name):
    """``PARAMS`` names exactly the factory's keywords but ``game`` (which the table sets),
    every default is allowed by its declaration, and a decision's cost is positive."""
    factory = factory_of(name, game)
    declared = declaration(factory)
    assert declared is not None, f"{name} of {game} declares no PARAMS"
    signature = inspect.signature(factory).parameters
    assert set(declared) == set(signature) - {"game"}, (name, sorted(declared), sorted(signature))
    assert all(isinstance(p, Param) for p in declared.values())
    for key, param in declared.items():
        default = signature[key].default
        if default is inspect.Parameter.empty or default is None or param.kind in ("bot", "rules"):
            continue
        assert param.check(key, default) == default
        if param.kind in ("int", "float"):
            assert param.low <= default <= param.high and math.isfinite(param.high - param.low)
    assert 0 < float(getattr(factory, "COST", 1.0)) < math.inf


def test_out_of_range_values_are_one_line_errors_naming_the_range():
    """The issue's reproductions: each a ValueError naming the parameter and its range."""
    cases = [
        ("redbeard", "heuristic:bid_samples=0", "bid_samples must be an int in 1..4096, got 0"),
        ("redbeard", "heuristic:bid_samples=1000000", "bid_samples must be an int in 1..4096"),
        ("redbeard", "heuristic:bid_samples=1000000000000", "bid_samples must be an int in 1..4096"),
        ("redbeard", "heuristic:bid_samples=10**12", "bid_samples must be an int in 1..4096, got '10\\*\\*12'"),
        ("redbeard", "heuristic:bid_samples=64.0", "bid_samples must be an int"),
        ("sortskaeg", "heuristic:trump_factor=1e308", "trump_factor must be a number in 0..1"),
        ("sortskaeg", "heuristic:joker_value=1e308", "joker_value must be a number in 0..1"),
        ("oh_hell", "heuristic:trump_factor=-1e308", "trump_factor must be a number in 0..1"),
        ("oh_hell", "heuristic:trump_factor=inf", "trump_factor must be finite"),
        ("redbeard", "heuristic:win_value=nan", "win_value must be finite"),
        ("redbeard", "pimc:samples=5000", "samples must be an int in 1..4096"),
        ("redbeard", "pimc:horizon=forever", "horizon must be one of auto, round, game"),
        ("redbeard", "pimc:rollout=heuristic:bid_samples=0", "rollout 'heuristic:bid_samples=0': bid_samples must be"),
        ("redbeard", "pimc:rollout=5", "rollout must be a bot spec"),
        ("sortskaeg", "pimc:spite=1e308", "spite must be a number in 0..2"),
        ("redbeard", "random:seed=-1", "seed must be an int in 0..2\\*\\*63-1"),
        ("redbeard", "random:seed=True", "seed must be an int"),
        ("redbeard", "ppo:classic_4p,greedy=1", "greedy must be True or False"),
        ("redbeard", "ppo:" + "a" * 5000, "checkpoint must be a name or path of at most 1024 characters"),
        ("redbeard", "joins:always,base=" + "pimc:rollout=" * (MAX_NESTING + 1) + "heuristic", "nest at most"),
        ("redbeard", "heuristic:win_value=" + "-" * 10000 + "1", "nested too deeply"),
    ]
    if "oh_hell" in GAMES:
        cases.append(("oh_hell", "openspiel:ismcts,simulations=0", "simulations must be an int in 2..100000"))
    for game, spec, words in cases:
        with pytest.raises(ValueError, match=words) as err:
            make_agent(spec, game=game)
        assert "\n" not in str(err.value) and len(str(err.value)) < 600, str(err.value)


def test_a_long_checkpoint_name_is_a_value_error_not_an_os_error():
    pytest.importorskip("torch")
    from agents.ppo import resolve_checkpoint

    with pytest.raises(ValueError, match="no PPO checkpoint"):
        resolve_checkpoint("a" * 1000)  # within the declared length, beyond the file system's
    with pytest.raises(ValueError, match="no PPO checkpoint"):
        make_agent("ppo:" + "b" * 1000)


def test_a_spec_is_priced_from_the_declarations_nested_bots_included():
    """pimc:rollout=pimc costs the product of the two searches (it used to be charged like
    pimc:samples=1024, a sixth of its time); samples and candidates scale linearly."""
    game = SEARCH_GAMES[0]
    one, heuristic = spec_cost("pimc", game), spec_cost("heuristic", game)
    assert spec_cost("pimc:samples=32", game) == pytest.approx(2 * one)
    nested = spec_cost("pimc:rollout=pimc", game)
    assert nested == pytest.approx(one * one / heuristic)  # a playout asks pimc where it asked the heuristic
    assert nested > 4 * spec_cost("pimc:samples=1024", game)
    assert spec_cost("joins:always,base=pimc", game) == pytest.approx(one)
    assert spec_cost("pimc:rollout=pimc,horizon=game", game) == pytest.approx(nested)  # the horizon costs nothing
    assert spec_cost("random", game) > 0 and spec_cost("heuristic:bid_samples=4096", game) == pytest.approx(4 * heuristic)
    for g in SEARCH_GAMES:
        assert spec_cost("pimc:rollout=pimc", g) == pytest.approx(spec_cost("pimc", g) ** 2 / spec_cost("heuristic", g))


# ---------------------------------------------------------------- every parameter at its bounds
def values_to_try(param: Param, game: str, name: str, broad: bool) -> list:
    """The values a parameter is played at: its bounds and a middle value, every choice,
    a few bots, the game's presets and shipped policies."""
    if param.kind in ("int", "float"):
        middle = (param.low + param.high) / 2
        if param.kind == "int":
            middle = int(middle) if param.high - param.low < 10**6 else int(param.low + 1000)
        return [param.low, middle, param.high]
    if param.kind == "bool":
        return [True, False]
    if param.kind == "choice":
        return list(param.choices)
    if param.kind == "rules":
        presets = list(redbeard_env.game_named(game).presets)
        return presets if broad else presets[:2]
    if param.kind == "bot":
        bots = ["random", "heuristic"]
        if broad:
            bots += ["pimc:samples=1"] + [f"ppo:{p}" for p in shipped(game)[:1]]
        return bots
    if param.kind == "policy":
        return [f"ppo:{p}" for p in shipped(game)[:1]]
    if param.kind == "text" and name == "ppo":
        return shipped(game) if broad else shipped(game)[:1]
    return []  # an sb3 model's path: a trained model file is needed


def bound_cases(broad: bool) -> list:
    cases = []
    for game in GAMES:
        for name in bots_of(game):
            if name == "sb3":
                continue  # needs a trained model file (its declaration is checked above)
            if name == "ppo" and not shipped(game):
                continue  # no policy of the game to play (its declaration is checked above)
            try:
                factory = resolve(name, game)[0]
            except ValueError:  # an optional extra that is not installed
                continue
            for key, param in declaration(factory).items():
                cases.append((game, name, key))
    return cases


def spec_text(name: str, key: str, value, game: str) -> str:
    required = {"ppo": f"ppo:{(shipped(game) or ['none'])[0]}", "joins": "joins:always"}
    head = required.get(name, name)
    if name == "ppo" and key == "checkpoint":
        return f"ppo:{value}"
    if name == "joins" and key == "mode":
        return f"joins:{value}"
    return f"{head}{',' if ':' in head else ':'}{key}={value}"


def play_short_game(bot, game: str, rules: str | None, decisions: int, seed: int) -> int:
    """Seat the bot at a table of heuristics (one game at a time, a new one when a game
    ends) and let it make ``decisions`` decisions with a real choice, spread over the game's
    phases (every third such decision); every action must be legal. Returns the decisions
    checked."""
    heuristic = make_agent("heuristic", game=game)
    table = OneTable(game, 4, rules, seed)
    choices = checked = 0
    for step in range(400):
        if table.over:
            table = OneTable(game, 4, rules, seed + step)
        obs, mask = table.observe()
        real = int(mask[0].sum()) > 1
        if real:
            choices += 1
        if real and choices % 3 == 1:
            action = np.asarray(bot.act_batch(obs, mask), dtype=np.int64)
            assert action.shape == (1,) and mask[0, action[0]] == 1, (bot.spec, int(action[0]))
            checked += 1
            if checked >= decisions:
                return checked
        else:
            action = heuristic.act_batch(obs, mask)
        table.step(action)
    return checked


def check_bound_case(game: str, name: str, key: str, broad: bool) -> None:
    import warnings

    factory = factory_of(name, game)
    param = declaration(factory)[key]
    for value in values_to_try(param, game, name, broad):
        spec = spec_text(name, key, value, game)
        if key == "device" and value != "cpu":
            with pytest.raises(ValueError, match="no such CUDA device|device"):
                make_agent(spec, game=game)  # this machine's torch may see no GPU: a ValueError, never deeper
            continue
        bot = make_agent(spec, game=game, seed=0)
        costly = check_spec(spec, game).cost > 4096
        decisions = (6 if broad else 3) if not costly else (2 if broad else 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # an overflow or invalid value inside is a failure too
            rules = value if param.kind == "rules" else None
            assert play_short_game(bot, game, rules, decisions, seed=len(spec)) == decisions, spec


@pytest.mark.parametrize("game,name,key", bound_cases(broad=False))
def test_every_parameter_at_its_bounds_plays_legal_actions(game, name, key):
    check_bound_case(game, name, key, broad=False)


@pytest.mark.slow
@pytest.mark.parametrize("game,name,key", bound_cases(broad=True))
def test_every_parameter_at_its_bounds_plays_legal_actions_broadly(game, name, key):
    check_bound_case(game, name, key, broad=True)


# ---------------------------------------------------------------- batches a bot refuses (issue 59, item 8)
def positions(game: str, count: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decisions with a real choice from heuristic self-play (one game, 4 players,
    spread over its phases; games of 4 players until there are ``count``)."""
    heuristic = make_agent("heuristic", game=game)
    table = OneTable(game, 4, seed=11)
    keep_obs, keep_mask = [], []
    for step in range(400):
        if table.over:
            table = OneTable(game, 4, seed=11 + step)
        obs, mask = table.observe()
        if mask[0].sum() > 1 and step % 4 == 0:
            keep_obs.append(obs[0].copy())
            keep_mask.append(mask[0].copy())
            if len(keep_obs) == count:
                break
        table.step(heuristic.act_batch(obs, mask))
    return np.array(keep_obs), np.array(keep_mask)


_POSITIONS: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def positions_of(game: str) -> tuple[np.ndarray, np.ndarray]:
    if game not in _POSITIONS:
        _POSITIONS[game] = positions(game)
    return _POSITIONS[game]


def cheap_bots(game: str) -> list[str]:
    out = ["random", "heuristic"] + (["pimc:samples=2"] if has_bot(game, "pimc") else [])
    out += ["joins:always"] if "joins" in game_bots(game) else []
    out += [f"ppo:{p}" for p in shipped(game)[:1]]
    if "openspiel" in game_bots(game):
        out += ["openspiel:ismcts,simulations=4"]
    return out


@pytest.mark.parametrize("game,spec", [(g, s) for g in GAMES for s in cheap_bots(g)])
def test_every_bot_refuses_a_bad_batch_with_a_value_error(game, spec):
    """A mask of the wrong length, a mask holding other values than 0 and 1, observations
    whose count differs from the masks', and an observation beyond the game's bounds (the
    PPO bot used to take all of them; Sortskæg's pimc overflowed on 1e30) are ValueErrors."""
    if spec.startswith(("ppo", "openspiel")):
        pytest.importorskip("torch" if spec.startswith("ppo") else "pyspiel")
    bot = make_agent(spec, game=game, seed=0)
    obs, mask = positions_of(game)
    obs, mask = obs[:2], mask[:2]
    assert all(mask[i, a] for i, a in enumerate(bot.act_batch(obs, mask)))  # a good batch plays
    bad = {
        "short mask": (obs, mask[:, :-1], "shape"),
        "long mask": (obs, np.concatenate([mask, mask[:, :1]], 1), "shape"),
        "mask of -1": (obs, np.where(mask > 0, -1, 0).astype(np.int8), "0 \\(illegal\\) and 1 \\(legal\\) only"),
        "mask of 2": (obs, (mask * 2).astype(np.int8), "0 \\(illegal\\) and 1 \\(legal\\) only"),
        "mask of 0.5": (obs, mask * 0.5, "0 \\(illegal\\) and 1 \\(legal\\) only"),
        "two observations, one mask": (obs, mask[:1], "one per mask"),
        "one observation, two masks": (obs[:1], mask, "one per mask"),
    }
    for at in (0, obs.shape[1] // 3, obs.shape[1] - 1):
        for value in (1e30, -1e30, 11.0, np.nan):
            row = obs.copy()
            row[1, at] = value
            bad[f"{value} at {at}"] = (row, mask, f"row 1 holds \\S+ at index {at};")
    for what, (o, m, words) in bad.items():
        with pytest.raises(ValueError, match=words):
            bot.act_batch(o, m)
            raise AssertionError(f"{spec} took a batch with {what}")


# ---------------------------------------------------------------- a checkpoint's bots share its network
def test_bots_of_one_checkpoint_share_its_network(tmp_path):
    """200 ``ppo:classic_4p,seed=N`` bots used to hold 200 copies of one network (282 MB on
    the server); they share one now, a rewritten file is read afresh, and the cache of
    networks is bounded."""
    torch = pytest.importorskip("torch")
    from agents import ppo

    name = shipped(GAMES[0])[0]
    bots = [make_agent(f"ppo:{name},seed={s}", game=GAMES[0]) for s in range(20)]
    assert all(b.net is bots[0].net for b in bots)
    assert not any(p.requires_grad for p in bots[0].net.parameters())
    path = tmp_path / "policy.pt"
    torch.manual_seed(0)
    ppo.save_checkpoint(path, ppo.PolicyNet(hidden=(8,), game=GAMES[0]))
    first = make_agent(f"ppo:{path}", game=GAMES[0])
    assert make_agent(f"ppo:{path},seed=3", game=GAMES[0]).net is first.net
    torch.manual_seed(1)
    ppo.save_checkpoint(path, ppo.PolicyNet(hidden=(8,), game=GAMES[0]))  # a new file at the same path
    second = make_agent(f"ppo:{path}", game=GAMES[0])
    assert second.net is not first.net
    assert not torch.equal(second.net.policy.weight, first.net.policy.weight)
    for k in range(ppo.MAX_SHARED_POLICIES + 2):
        other = tmp_path / f"p{k}.pt"
        ppo.save_checkpoint(other, ppo.PolicyNet(hidden=(4,), game=GAMES[0]))
        make_agent(f"ppo:{other}", game=GAMES[0])
    assert len(ppo._shared) == ppo.MAX_SHARED_POLICIES


# ---------------------------------------------------------------- fuzz: any spec, through make_agent
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXAMPLES, SLOW_EXAMPLES = 150, 3000
EXTREME = ["0", "-1", "1e308", "-1e308", "1e400", "-1e400", "inf", "-inf", "nan", "10**12", "2**63", str(2**63),
           str(10**30), "1e-308", "5e-324", "True", "False", "None", "'x'", "[1]", "{}", "()", "b'x'", "1j", "x",
           "0x10", "1_000", "-0.0", ""]


def number_texts(param: Param) -> st.SearchStrategy:
    lo, hi = param.low, param.high
    inside = (st.integers(int(lo), int(min(hi, lo + 10**6))) if param.kind == "int"
              else st.floats(lo, hi, allow_nan=False))
    near = st.sampled_from([lo, hi, lo - 1, hi + 1, (lo + hi) / 2, lo - 1e-9, hi + 1e-9])
    return st.one_of(inside.map(repr), near.map(lambda x: repr(int(x)) if param.kind == "int" and x == int(x) else repr(x)))


def value_texts(param: Param, game: str, depth: int) -> st.SearchStrategy:
    junk = st.sampled_from(EXTREME) | st.text(alphabet=st.characters(blacklist_characters=",\x00"), max_size=12)
    if param.kind in ("int", "float"):
        good = number_texts(param)
    elif param.kind == "choice":
        good = st.sampled_from(param.choices)
    elif param.kind == "rules":
        good = st.sampled_from(list(redbeard_env.game_named(game).presets))
    elif param.kind == "bot":
        good = nested_specs(game, depth + 1)
    elif param.kind == "bool":
        good = st.sampled_from(["True", "False"])
    else:  # a checkpoint
        good = st.sampled_from(shipped(game) or ["none"])
    return st.one_of(good, good, junk)


def nested_specs(game: str, depth: int) -> st.SearchStrategy:
    """A bot spec of ``game`` with at most one parameter (a nested value cannot hold a comma)."""
    if depth > MAX_NESTING + 1:
        return st.sampled_from(["heuristic", "random", "pimc"])
    names = st.sampled_from([n for n in bots_of(game) if n not in ("sb3", "ppo", "joins", "openspiel")] + ["nobot"])

    def one(name):
        if name == "nobot":
            return st.just("nobot")
        declared = declaration(resolve(name, game)[0])
        if not declared:  # a bot without parameters
            return st.just(name)
        return st.one_of(st.just(name), st.sampled_from(sorted(declared)).flatmap(
            lambda key: value_texts(declared[key], game, depth).map(lambda v: f"{name}:{key}={v}")))

    return names.flatmap(one)


@st.composite
def bot_specs(draw, games=GAMES):
    game = draw(st.sampled_from(games))
    names = [n for n in bots_of(game) if n != "sb3" and _installed(n)]  # sb3: no model file here
    name = draw(st.sampled_from(names))
    declared = declaration(resolve(name, game)[0])
    keys = draw(st.lists(st.sampled_from(sorted(declared)), unique=True, max_size=3)) if declared else []
    items = [f"{key}={draw(value_texts(declared[key], game, 0))}" for key in keys]
    if name == "ppo" and "checkpoint" not in keys:
        items.insert(0, draw(st.sampled_from(shipped(game) or ["none"])))
    if name == "joins" and "mode" not in keys:
        items.insert(0, draw(st.sampled_from(["always", "never", "free"])))
    return game, name + (":" + ",".join(items) if items else "")


def _installed(name: str) -> bool:
    import importlib.util

    return name not in OPTIONAL or importlib.util.find_spec(OPTIONAL[name]) is not None


def check_any_spec(game: str, spec: str) -> None:
    """A spec is refused with one line by both check_spec and make_agent, or it is priced,
    builds and (when cheap) plays legal actions on recorded positions."""
    try:
        checked = check_spec(spec, game)
    except ValueError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 800, message
        with pytest.raises(ValueError):
            make_agent(spec, game=game)
        return
    cost = checked.cost
    assert 0 < cost < math.inf
    if cost > 600:
        return  # accepted and priced; playing it would take long (the bounds test plays the costliest)
    try:
        bot = make_agent(spec, game=game, seed=0)
    except ValueError as exc:  # only what a bot cannot know before it loads a file
        assert spec.startswith("ppo:") and ("checkpoint" in str(exc) or "device" in str(exc)), str(exc)
        return
    obs, mask = positions_of(game)
    actions = np.asarray(bot.act_batch(obs[:3], mask[:3]))
    assert all(mask[i, a] == 1 for i, a in enumerate(actions)), (spec, actions)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.data_too_large])
@given(bot_specs())
def test_any_spec_is_refused_in_one_line_or_plays_legally(game_and_spec):
    check_any_spec(*game_and_spec)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.data_too_large])
@given(bot_specs())
def test_any_spec_is_refused_in_one_line_or_plays_legally_many(game_and_spec):
    check_any_spec(*game_and_spec)


# ---------------------------------------------------------------- observations no game state has
def check_corrupt_observations(game: str, spec: str, stride: int, values: tuple, count: int) -> None:
    """Observations within the game's bounds but describing no game state (a one-hot with two
    entries, a count off by some) are a ValueError or a legal action, never another error
    (pimc used to raise StopIteration and IndexError, or play out for ever)."""
    import warnings

    bot = make_agent(spec, game=game, seed=0)
    obs, mask = positions_of(game)
    for row in range(min(count, len(obs))):
        for at in range(row, obs.shape[1], stride):
            for value in values:
                o = obs[row:row + 1].copy()
                o[0, at] = value
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("error", RuntimeWarning)
                        action = int(bot.act_batch(o, mask[row:row + 1])[0])
                except ValueError:
                    continue
                assert mask[row, action] == 1, (spec, at, value, action)


@pytest.mark.parametrize("game,spec", [(g, s) for g in GAMES for s in ("pimc:samples=2", "heuristic", "random")
                                       if has_bot(g, s.partition(":")[0])])
def test_an_observation_no_game_state_has_is_refused_or_played_legally(game, spec):
    check_corrupt_observations(game, spec, stride=41, values=(2.0, -1.0), count=1)


@pytest.mark.slow
@pytest.mark.parametrize("game,spec", [(g, s) for g in GAMES for s in cheap_bots(g) if not s.startswith(("openspiel", "ppo"))])
def test_an_observation_no_game_state_has_is_refused_or_played_legally_broadly(game, spec):
    check_corrupt_observations(game, spec, stride=3, values=(0.0, 1.0, 2.0, -1.0, 10.0), count=2)


@pytest.mark.parametrize("game", SEARCH_GAMES)
def test_a_search_plays_out_with_a_search_as_its_rollout_bot(game):
    """``pimc:rollout=pimc`` following a trick: the inner search reads the sampled worlds'
    observations, which must say who played the cards on the table (Oh Hell's worlds lacked
    the deal's history: the inner search failed on the trick's owners)."""
    bot = make_agent("pimc:samples=1,rollout=pimc:samples=1", game=game, seed=0)
    trick = redbeard_env.game_named(game).parts.observation.OBS_SLICES["trick"]
    heuristic = make_agent("heuristic", game=game)
    table = OneTable(game, 4, seed=3)
    searched = 0
    for step in range(320):
        if table.over:
            table = OneTable(game, 4, seed=3 + step)
        obs, mask = table.observe()
        if obs[0, trick].sum() > 0 and mask[0].sum() > 1:  # following, with a choice
            assert mask[0, int(bot.act_batch(obs, mask)[0])] == 1
            searched += 1
            if searched >= 4:
                break
        table.step(heuristic.act_batch(obs, mask))
    assert searched >= 4
