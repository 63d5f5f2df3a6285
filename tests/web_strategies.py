"""Hypothesis strategies for fuzzing the web table (tests/test_web_fuzz.py): JSON values,
new-game bodies (valid and not) for every registered game, rule overrides, bot specs, bad
actions and mutated records. Everything comes from the registry (a new game is covered
without a line here): presets, player ranges, Rules fields and their allowed values, bots,
shipped policies, card and action names."""

from __future__ import annotations

import copy
import dataclasses

from hypothesis import strategies as st

import redbeard_env
from agents.registry import available_agents
from redbeard_web.bots import shipped_checkpoints

GAMES = tuple(redbeard_env.registered_games())

# ---------------------------------------------------------------- JSON
leaves = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.integers(-5, 10)
          | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
json_values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def info(game: str):
    return redbeard_env.game_named(game)


# ---------------------------------------------------------------- rules
def field_values(game: str, name: str) -> st.SearchStrategy:
    """Allowed values of one Rules field of ``game`` (from its rules module), or values
    near its default for fields without a declared range."""
    rules = info(game).parts.rules
    default = getattr(info(game).make_rules(), name)
    if name in getattr(rules, "CHOICES", {}):
        return st.sampled_from(rules.CHOICES[name])
    if name in getattr(rules, "INT_RANGES", {}):
        lo, hi = rules.INT_RANGES[name]
        return st.integers(lo, hi if hi is not None else lo + 100)
    if name in getattr(rules, "BOOL_FIELDS", ()):
        return st.booleans()
    if isinstance(default, tuple):
        return st.lists(st.integers(1, 7), min_size=1, max_size=4)
    if default is None or isinstance(default, int):
        return st.none() | st.integers(1, 2 * 10**9)
    return json_values


def short_overrides(game: str) -> st.SearchStrategy:
    """Valid overrides that keep a game short (a few rounds), where the Rules allow it."""
    fields = {f.name for f in dataclasses.fields(info(game).rules_type)}
    if "start_score" in fields:
        return st.fixed_dictionaries({"start_score": st.integers(1, 4)})
    if "hand_sizes" in fields:
        return st.fixed_dictionaries({"hand_sizes": st.lists(st.integers(1, 3), min_size=1, max_size=3)})
    return st.just({})


def rule_overrides(game: str) -> st.SearchStrategy:
    """Overrides of any fields: mostly allowed values, sometimes anything JSON, sometimes an
    unknown field."""
    names = [f.name for f in dataclasses.fields(info(game).rules_type)]
    value = st.sampled_from(names).flatmap(lambda n: st.tuples(st.just(n), field_values(game, n) | json_values))
    junk = st.tuples(st.text(max_size=10), json_values)
    return st.lists(value | junk, max_size=4).map(dict)


# ---------------------------------------------------------------- bots
def good_specs(game: str) -> list[str]:
    """Cheap bot specs ``game`` plays (within a small search budget)."""
    known = available_agents(game)
    specs = [b for b in ("heuristic", "random", "random:seed=3") if b in known]
    if "pimc" in known:
        specs += ["pimc:samples=2", "pimc:samples=4,seed=1", "PIMC:seed=1,samples=4"]
    if "joins" in known:
        specs += ["joins:always", "joins:free,base=random"]
    specs += [f"ppo:{name}" for name in shipped_checkpoints(game)]
    return specs


def bot_specs(game: str) -> st.SearchStrategy:
    """Bot specs for ``game``: cheap ones it plays, and bad ones (another game's bots,
    searches beyond any budget, containers, paths, junk text)."""
    others = sorted({b for g in GAMES if g != game for b in available_agents(g)} - set(available_agents(game)))
    bad = ["pimc:samples=1000000", "pimc:samples=300,rollout=pimc", "ppo:/etc/passwd", "ppo:../x", "ppo:secretfile",
           "ppo:checkpoint=secretfile", "sb3:model", 'heuristic:rules={"a":1}', "heuristic:x=[1]",
           "ppo:classic_4p,device=meta", "heuristic:win_value=1e400", "random:seed=" + "9" * 40, "x" * 300, ":", ""]
    bad += [f"ppo:{n}" for g in GAMES if g != game for n in shipped_checkpoints(g)]
    junk = st.text(max_size=40) | st.builds(lambda n, v: f"{n}:{v}", st.sampled_from(available_agents(game)),
                                          st.text(max_size=20))
    return st.sampled_from(good_specs(game)) | st.sampled_from(others + bad) | junk


# ---------------------------------------------------------------- new games
@st.composite
def valid_bodies(draw) -> dict:
    """A new-game body that is mostly valid: a registered game, one of its presets, a
    player count in its range, a seat, cheap opponents, a seed, short-game overrides."""
    game = draw(st.sampled_from(GAMES))
    g = info(game)
    lo, hi = g.player_range
    players = draw(st.integers(lo, hi))
    body = {"game": game, "rules": draw(st.sampled_from(list(g.presets))), "players": players,
            "seat": draw(st.integers(0, players - 1)), "seed": draw(st.integers(0, 2**53 - 1)),
            "overrides": draw(short_overrides(game))}
    if draw(st.booleans()):
        body["opponents"] = draw(st.sampled_from(good_specs(game)))
    else:
        body["opponents"] = draw(st.lists(st.sampled_from(good_specs(game)), min_size=players - 1,
                                          max_size=players - 1))
    return body


@st.composite
def any_bodies(draw):
    """Anything a client may post as a new game: a valid body with one part broken, a body
    of random fields, or not an object at all."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(json_values)
    body = draw(valid_bodies())
    if kind == 1:
        key = draw(st.sampled_from(["game", "rules", "players", "seat", "opponents", "seed", "overrides", "extra"]))
        body[key] = draw(json_values)
    elif kind == 2:
        body["overrides"] = draw(rule_overrides(body["game"]))
    else:
        body["opponents"] = draw(bot_specs(body["game"]))
    return body


def bad_actions(game: str) -> st.SearchStrategy:
    """Actions that are never legal or not actions at all (JSON of any kind, junk text,
    long text); legal-looking names are drawn by the machine from the game's names."""
    names = [info(game).action_name(a) for a in range(info(game).num_actions)]
    return (json_values.filter(lambda v: not isinstance(v, str)) | st.text(max_size=30).filter(lambda t: t not in names)
            | st.builds(lambda n: n.upper() + "!", st.sampled_from(names)) | st.just("play:" + "A" * 500))


# ---------------------------------------------------------------- records
@st.composite
def mutated_records(draw, record: dict) -> dict:
    """A valid record with one thing changed: a field removed or replaced, actions cut,
    dropped, swapped or renamed, a card of a deal changed, a big meta, another game.
    (Positions are drawn as plain numbers and taken modulo the record's sizes, so that the
    draws do not depend on the record: Hypothesis replays them the same way.)"""
    rec = copy.deepcopy(record)
    keys = sorted(rec)
    kind = draw(st.integers(0, 8))
    at = draw(st.integers(0, 10**6))
    value = draw(json_values)
    actions = rec["actions"]
    if kind == 0:
        del rec[keys[at % len(keys)]]
    elif kind == 1:
        rec[keys[at % len(keys)]] = value
    elif kind == 2 and actions:
        del actions[at % len(actions):]
    elif kind == 3 and len(actions) > 1:
        i = at % (len(actions) - 1)
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    elif kind == 4 and actions:
        g = redbeard_env.records.game_of_record(rec)
        actions[at % len(actions)][1] = g.action_name((at // 7) % g.num_actions)
    elif kind == 5 and rec.get("deals"):
        deal = rec["deals"][at % len(rec["deals"])]
        hands = [h for h in deal.get("hands", []) if h]
        if hands:
            hand = hands[(at // 7) % len(hands)]
            hand[(at // 49) % len(hand)] = ["AS", "Y1", "JS", "", "10D", str(value)[:3]][at % 6]
    elif kind == 6:
        rec["meta"] = {"junk": [0.5 * i for i in range(at % 5000)]}
    elif kind == 7:
        rec["game"] = list(GAMES)[at % len(GAMES)] if at % 3 else str(value)[:8]
    else:
        rec["seed"] = None if at % 5 == 0 else at * 10**13
    return rec


__all__ = ["GAMES", "any_bodies", "bad_actions", "bot_specs", "good_specs", "json_values", "mutated_records",
           "rule_overrides", "short_overrides", "valid_bodies"]
