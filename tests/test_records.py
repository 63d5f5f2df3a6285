"""Game records (redbeard_env.redbeard.records): round trip through JSON lines, exact replay on the
reference engine, clear errors for bad records."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from redbeard_env import records
from redbeard_env.redbeard import game as G
from redbeard_env.redbeard import records as R
from redbeard_env.redbeard.cards import action_id, action_name, parse_card
from redbeard_env.redbeard.rules import PRESETS, make_rules


def play_random(preset: str, players: int, seed: int, **overrides) -> tuple[G.Game, R.Recorder, list]:
    """A game between uniformly random players, recorded; also returns the trajectory
    (phase, seat to act, scores) after every action, taken from the live game."""
    game = G.new_game(make_rules(preset, **overrides), players, np.random.default_rng(seed))
    rec = R.Recorder(game, agents=["random"] * players, seed=seed, meta={"test": True})
    pick = np.random.default_rng([seed, 99])
    trajectory = []
    while not game.game_over:
        rec.apply(int(pick.choice(G.legal_actions(game))))
        trajectory.append((game.phase, game.to_act, tuple(game.scores)))
    return game, rec, trajectory


def replay_trajectory(record: dict) -> list:
    game, rec = R.start_replay(record)
    out = []
    for i in range(len(record["actions"])):
        R.apply_recorded(rec, record, i)
        out.append((game.phase, game.to_act, tuple(game.scores)))
    return out


CASES = [(preset, players, seed) for preset in PRESETS for players, seed in ((3, 1), (5, 2), (7, 3))]


@pytest.mark.parametrize("preset,players,seed", CASES)
def test_record_round_trip_replays_the_identical_game(preset, players, seed, tmp_path):
    game, rec, trajectory = play_random(preset, players, seed, start_score=6)
    record = rec.record()
    path = tmp_path / "games.jsonl"
    assert R.append_records(path, [record]) == 1
    (loaded,) = R.load_records(path)  # load_records replays it (check=True)
    assert loaded == json.loads(json.dumps(record))
    # the replay passes through the same states as the live game, action by action
    assert replay_trajectory(loaded) == trajectory
    again = R.replay(loaded)
    assert (again.scores, again.winner, again.truncated, again.rounds_played) == (
        game.scores, game.winner, game.truncated, game.rounds_played)
    # the record describes the game: every deal a full deck, one entry per scored round
    assert len(record["rounds"]) == game.rounds_played
    assert record["scores"] == game.scores and record["winner"] == game.winner
    for deal in record["deals"]:
        cards = [c for h in deal["hands"] for c in h] + deal["stock"]
        assert sorted(parse_card(c) for c in cards) == list(range(52))


def test_record_fields_follow_the_game():
    game, rec, _ = play_random("fem_opp", 4, 11)
    record = rec.record()
    assert record["format"] == "redbeard-record" and record["version"] == 1
    assert record["rules"] == records.rules_dict(PRESETS["fem_opp"])
    assert record["players"] == 4 and record["agents"] == ["random"] * 4 and record["seed"] == 11
    assert record["start_scores"] == [12] * 4 and record["meta"] == {"test": True}
    # the first deal is the one the game started with: hands of the right seats
    first = record["deals"][0]
    assert first["kind"] == "round" and all(len(h) == 6 for h in first["hands"])
    # each round's scores are the running scores after its scoring: the next round starts
    # from them, so the first action of the next round (no penalty yet) sees them
    for r in record["rounds"]:
        assert len(r["scores"]) == 4 and len(r["tricks"]) == 4
        assert r["declarer"] is None or r["bid"] is not None
    # every action is [seat, SPEC name]
    assert all(isinstance(s, int) and action_name(action_id(a)) == a for s, a in record["actions"])


def test_recorder_rejects_a_game_already_under_way_and_unfinished_records():
    game = G.new_game(PRESETS["classic"], 4, np.random.default_rng(0))
    rec = R.Recorder(game)
    with pytest.raises(ValueError, match="not over"):
        rec.record()
    while game.phase != "play":  # a call has been made
        rec.apply(G.legal_actions(game)[-1])
    with pytest.raises(ValueError, match="right after new_game"):
        R.Recorder(game)


def test_illegal_action_is_not_recorded():
    game = G.new_game(PRESETS["classic"], 4, np.random.default_rng(0))
    rec = R.Recorder(game)
    illegal = next(a for a in range(69) if a not in G.legal_actions(game))
    with pytest.raises(ValueError, match="illegal action"):
        rec.apply(illegal)
    assert rec.actions == []


def test_record_from_actions_equals_the_live_recording():
    game, rec, _ = play_random("wikipedia", 4, 5, start_score=5)
    live = rec.record()
    decks = [R.deck_of(d, 4) for d in live["deals"]]
    as_numpy = [(np.asarray(deck, dtype=np.int64), rank) for deck, rank in decks]  # as evaluate.py holds them
    rebuilt = R.record_from_actions(make_rules("wikipedia", start_score=5), 4, dealer=np.int64(live["deals"][0]["dealer"]), decks=as_numpy,
                                    actions=[(np.int64(s), np.int64(action_id(a))) for s, a in live["actions"]],
                                    scores=live["start_scores"], agents=live["agents"], seed=5, meta={"test": True})
    json.dumps(rebuilt)  # plain JSON types even from numpy inputs
    assert rebuilt["deals"] == live["deals"] and rebuilt["actions"] == live["actions"]
    assert rebuilt["rounds"] == live["rounds"] and rebuilt["winner"] == live["winner"]
    with pytest.raises(ValueError, match="deals again"):
        R.record_from_actions("wikipedia", 4, dealer=live["deals"][0]["dealer"], decks=decks[:1],
                              actions=[(s, action_id(a)) for s, a in live["actions"]], scores=live["start_scores"])


@pytest.fixture(scope="module")
def good_record():
    _, rec, _ = play_random("classic", 4, 21, start_score=6)
    record = rec.record()
    assert len(record["deals"]) >= 2
    return json.loads(json.dumps(record))


def tampered(record, change):
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def _swap_illegal_action(r):
    # replace the first card play with a card the player does not hold
    game, rec = R.start_replay(r)
    for i, (seat, name) in enumerate(r["actions"]):
        if name.startswith("play:"):
            foreign = next(c for c in range(52) if c not in game.hands[seat])
            r["actions"][i][1] = action_name(foreign)
            return
        R.apply_recorded(rec, r, i)


BAD = [
    ("not an object", lambda r: r.clear() or r.update(x=1), "format"),
    ("format", lambda r: r.update(format="chess"), "format"),
    ("version", lambda r: r.update(version=2), "version"),
    ("missing field", lambda r: r.pop("winner"), "missing field"),
    ("unknown rules field", lambda r: r["rules"].update(colour="red"), "rules"),
    ("rules value", lambda r: r["rules"].update(leader="nobody"), "leader"),
    ("players", lambda r: r.update(players=9), "players"),
    ("agents", lambda r: r.update(agents=["x"]), "agents"),
    ("seed", lambda r: r.update(seed="7"), "seed"),
    ("duplicate card", lambda r: r["deals"][0]["stock"].__setitem__(0, r["deals"][0]["hands"][0][0]), "exactly once"),
    ("short hand", lambda r: r["deals"][0]["hands"][1].pop(), "6 cards"),
    ("bad card name", lambda r: r["deals"][0]["stock"].__setitem__(0, "ZZ"), "unknown card"),
    ("reshuffle", lambda r: r["deals"][0]["reshuffle"].pop(), "52 cards"),
    ("deal kind", lambda r: r["deals"][0].update(kind="party"), "kind"),
    ("action shape", lambda r: r["actions"].__setitem__(0, ["bid:1"]), r"actions\[0\]"),
    ("action name", lambda r: r["actions"].__setitem__(0, [r["actions"][0][0], "dance"]), "unknown action"),
    ("wrong seat", lambda r: r["actions"][0].__setitem__(0, (r["actions"][0][0] + 1) % 4), "is to act"),
    ("illegal action", _swap_illegal_action, "illegal action"),
    ("action after the end", lambda r: r["actions"].append(r["actions"][-1]), "after the game ended"),
    ("missing actions", lambda r: r["actions"].pop(), "not over"),
    ("missing deal", lambda r: r["deals"].pop(), "deal"),
    ("final scores", lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1), r"scores\[0\]"),
    ("winner", lambda r: r.update(winner=(r["winner"] + 1) % 4), "winner"),
    ("round result", lambda r: r["rounds"][0].update(declarer=(r["rounds"][0]["declarer"] or 0) + 1), r"rounds\[0\]"),
    ("dealt hands", lambda r: r["deals"][1].update(dealer=(r["deals"][1]["dealer"] + 1) % 4), r"deals\[1\]"),
]


@pytest.mark.parametrize("what,change,message", BAD, ids=[b[0] for b in BAD])
def test_bad_records_get_clear_errors(good_record, what, change, message):
    R.validate(good_record)  # the unchanged record is fine
    with pytest.raises(ValueError, match=message):
        R.validate(tampered(good_record, change))


def test_hands_may_be_listed_in_any_order(good_record):
    shuffled = tampered(good_record, lambda r: [h.reverse() for d in r["deals"] for h in d["hands"]])
    assert R.validate(shuffled) is shuffled


def test_load_records_names_the_bad_line(tmp_path, good_record):
    path = tmp_path / "r.jsonl"
    R.append_records(path, [good_record, good_record])
    with open(path, "a") as f:
        f.write("\n{not json\n")
    with pytest.raises(ValueError, match="line 4: not valid JSON"):
        R.load_records(path)
    path.write_text(json.dumps(good_record) + "\n" + json.dumps(tampered(good_record, lambda r: r.update(winner=None))) + "\n")
    with pytest.raises(ValueError, match="line 2: .*winner"):
        R.load_records(path)
    assert len(R.load_records(path, check=False)) == 2


def test_a_record_is_plain_data(good_record):
    """Only JSON types: a record never carries anything a loader would execute."""
    def walk(x):
        if isinstance(x, dict):
            assert all(isinstance(k, str) for k in x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        else:
            assert x is None or isinstance(x, (bool, int, float, str)), type(x)
    walk(good_record)


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_thousands_of_recorded_games_replay_exactly(preset):
    """1000 games per preset (3-7 players, full start scores), each recorded, written as a
    JSON line, read back and replayed state for state."""
    for k in range(1000):
        players = 3 + k % 5
        game, rec, trajectory = play_random(preset, players, 10_000 + k)
        record = R.parse_record_line(json.dumps(rec.record()))
        assert replay_trajectory(record) == trajectory
        R.validate(record)
