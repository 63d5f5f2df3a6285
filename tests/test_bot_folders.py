"""Bots for any table (issue 61, item 6): ``ppo:NAME`` in the bot folders a program is given
(``--bots DIR``), the table a checkpoint records, and the label of a policy at a table it was
not trained for -- in the library, ``evaluate.py``, ``redbeard-play`` and the web API. (The
page itself: test_web_bot_folders_browser.py.) The policies are tiny untrained networks saved
with the config a training run records."""

from __future__ import annotations

import io

import pytest

torch = pytest.importorskip("torch")

from agents import ppo  # noqa: E402
from agents.ppo import (PolicyNet, fits_table, misfit_note, named_checkpoint, named_policies,  # noqa: E402
                        resolve_checkpoint, save_checkpoint, set_bot_folders, trained_table)
from redbeard_env.registry import game_named  # noqa: E402

GAME = "redbeard"
RULES = game_named(GAME).make_rules


def save_policy(path, rules="classic", overrides=None, players=(4,), game=GAME, config=True, seed=0):
    """A tiny policy at ``path`` recording its table as the trainer does (``config=False``:
    as older files do, the Rules fields and the player count only)."""
    torch.manual_seed(seed)
    net = PolicyNet(hidden=(8,), game=game)
    table = game_named(game).make_rules(rules, **(overrides or {}))
    save_checkpoint(path, net, rules=table, num_players=players[0] if len(players) == 1 else None,
                    config={"game": game, "rules": rules, "overrides": dict(overrides or {}), "players": list(players)}
                    if config else None)
    return path


@pytest.fixture
def folders(tmp_path):
    """Two bot folders, set as a program's --bots would set them (and put back after):
    first/fem5.pt (fem_opp, 5 players), second/pipe/final.pt (classic with
    leader=trick_winner, 4 players), second/run/policy.pt and first/classic_4p.pt (hidden
    by the shipped policy of that name)."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second / "pipe", second / "run"):
        folder.mkdir(parents=True)
    save_policy(first / "fem5.pt", "fem_opp", players=(5,))
    save_policy(second / "pipe" / "final.pt", "classic", {"leader": "trick_winner"})
    save_policy(second / "run" / "policy.pt", "classic", players=(3, 5))
    save_policy(first / "classic_4p.pt", "fem_opp")
    before = set_bot_folders([first, second])
    yield first, second
    set_bot_folders(before)


# ---------------------------------------------------------------- names
def test_a_name_is_shipped_then_each_folder_in_turn(folders, tmp_path):
    first, second = folders
    assert named_checkpoint("classic_4p") == ppo.PRETRAINED_DIR / "classic_4p.pt"  # shipped hides first/classic_4p.pt
    assert named_checkpoint("fem5") == first / "fem5.pt"
    assert named_checkpoint("pipe") == second / "pipe" / "final.pt"
    assert named_checkpoint("run") == second / "run" / "policy.pt"
    # in one folder NAME.pt, then NAME/final.pt, then NAME/policy.pt; an earlier folder first
    save_policy(second / "run" / "final.pt")
    assert named_checkpoint("run") == second / "run" / "final.pt"
    save_policy(first / "run.pt")
    assert named_checkpoint("run") == first / "run.pt"
    assert named_checkpoint("nothing") is None
    names = named_policies()
    assert list(names)[:len(list(ppo.PRETRAINED_DIR.glob("*.pt")))] == sorted(p.stem for p in ppo.PRETRAINED_DIR.glob("*.pt"))
    assert {"fem5", "pipe", "run"} <= set(names) and names["classic_4p"].parent == ppo.PRETRAINED_DIR
    bot = ppo.PPOAgent("fem5")
    assert bot.name == "ppo:fem5" and bot.game == GAME


def test_names_are_never_paths_and_a_missing_name_says_where_it_was_looked_for(folders, tmp_path, monkeypatch):
    first, second = folders
    for text in ("first/fem5", "../fem5", "..", "fem5.pt", "a b", ""):
        with pytest.raises(ValueError, match="no path separators"):
            named_checkpoint(text)
    with pytest.raises(ValueError, match="no PPO checkpoint named 'nothing'") as err:
        resolve_checkpoint("nothing")
    assert str(first) in str(err.value) and str(second) in str(err.value) and "NAME/final.pt" in str(err.value)
    # a name never means a file of the working directory; a path does
    save_policy(tmp_path / "mine")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="no PPO checkpoint named 'mine'"):
        resolve_checkpoint("mine")
    assert resolve_checkpoint("./mine").resolve() == tmp_path / "mine" and resolve_checkpoint("first/fem5.pt").is_file()
    with pytest.raises(ValueError, match="is not a folder"):
        set_bot_folders([tmp_path / "no_such_folder"])
    assert ppo.bot_folders() == (first, second)  # a refused list changes nothing


def test_without_folders_a_name_is_only_a_shipped_one(tmp_path):
    assert ppo.bot_folders() == ()
    with pytest.raises(ValueError, match=r"no bot folder: --bots DIR adds one"):
        resolve_checkpoint("fem5")


# ---------------------------------------------------------------- the table a checkpoint records
def test_a_checkpoint_says_at_which_table_it_was_trained(tmp_path):
    def table(path):
        return trained_table(ppo.read_payload(path))

    fem5 = table(save_policy(tmp_path / "a.pt", "fem_opp", players=(5,)))
    assert fem5.text() == "fem_opp, 5 players"
    assert fits_table(fem5, GAME, RULES("fem_opp"), 5)
    assert not fits_table(fem5, GAME, RULES("fem_opp"), 4) and not fits_table(fem5, GAME, RULES("classic"), 5)
    assert not fits_table(fem5, "sortskaeg", game_named("sortskaeg").make_rules(), 5)
    changed = table(save_policy(tmp_path / "b.pt", "classic", {"leader": "trick_winner", "eliminate_at": 30}, (3, 4)))
    assert changed.text() == "classic with leader=trick_winner eliminate_at=30, 3/4 players"
    assert fits_table(changed, GAME, RULES("classic", eliminate_at=30, leader="trick_winner"), 3)
    assert not fits_table(changed, GAME, RULES("classic", leader="trick_winner"), 3)
    # a table is its Rules: a sheet whose fields are set to another's is that other table
    fem_fields = {k: v for k, v in vars(RULES("fem_opp")).items() if getattr(RULES("classic"), k) != v}
    assert fits_table(fem5, GAME, RULES("classic", **fem_fields), 5)
    # older files: the Rules fields and the player count; the nearest sheet names them
    old = table(save_policy(tmp_path / "c.pt", "fem_opp", {"start_score": 9}, config=False))
    assert old.text() == "fem_opp with start_score=9, 4 players" and fits_table(old, GAME, RULES("fem_opp", start_score=9), 4)
    # a file that records nothing fits no table, and says so
    torch.manual_seed(0)
    save_checkpoint(tmp_path / "d.pt", PolicyNet(hidden=(8,)))
    bare = table(tmp_path / "d.pt")
    assert not fits_table(bare, GAME, RULES("classic"), 4)
    assert bare.text() == "rules it does not record, player counts it does not record"


def test_the_note_names_both_tables(tmp_path):
    payload = ppo.read_payload(save_policy(tmp_path / "a.pt", "classic"))
    assert misfit_note("ppo:X", payload, GAME, RULES("classic"), 4) is None
    assert misfit_note("ppo:X", payload, GAME, RULES("fem_opp"), 5, "fem_opp") == \
        "ppo:X was trained at classic, 4 players; this table is fem_opp, 5 players"
    assert misfit_note("ppo:X", payload, GAME, RULES("classic", zero_rule="bounce"), 4, "classic") == \
        "ppo:X was trained at classic, 4 players; this table is classic with zero_rule=bounce, 4 players"


def test_shipped_policies_record_their_tables():
    """Every shipped policy says where it was trained, and fits that table."""
    for name, path in named_policies().items():
        trained = trained_table(ppo.read_payload(path))
        assert trained.preset and trained.players, name
        assert all(fits_table(trained, trained.game, trained.rules, n) for n in trained.players), name


# ---------------------------------------------------------------- evaluate.py
def test_evaluate_plays_a_folder_bot_by_name_with_a_note(folders, capsys):
    from redbeard_eval import cli

    first, _ = folders
    base = ["--players", "4", "--games", "4", "--seed", "1", "--quiet"]
    set_bot_folders([])  # the command line sets them
    cli.main(["--agents", "ppo:fem5", "ppo:pipe", "heuristic", *base, "--bots", str(first), "--bots", str(folders[1])])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "note: ppo:fem5 was trained at fem_opp, 5 players; this table is classic, 4 players"
    assert out[1] == ("note: ppo:pipe was trained at classic with leader=trick_winner, 4 players; "
                      "this table is classic, 4 players")
    assert any(line.startswith("ppo:fem5 ") for line in out) and any(line.startswith("ppo:pipe ") for line in out)
    # at its own table no note; a path needs no folder
    set_bot_folders([])
    cli.main(["--agents", "ppo:pipe", "heuristic", *base, "--set", "leader=trick_winner", "--bots", str(folders[1])])
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("note:") for line in out) and any(line.startswith("ppo:pipe ") for line in out)
    set_bot_folders([])
    cli.main(["--agents", f"ppo:{first / 'fem5.pt'}", "heuristic", *base[2:], "--players", "5", "--rules", "fem_opp"])
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("note:") for line in out) and any("fem5.pt " in line for line in out)


@pytest.mark.slow  # two processes start (about 20 s on two cores)
def test_worker_processes_search_the_programs_folders(folders, capsys):
    """--workers: each process builds its own bots, from the folders the program was given."""
    from redbeard_eval import cli

    first, _ = folders
    set_bot_folders([])
    cli.main(["--agents", "ppo:fem5", "heuristic", "--players", "5", "--rules", "fem_opp", "--games", "10", "--seed", "1",
              "--quiet", "--workers", "2", "--batch-size", "5", "--bots", str(first)])
    out = capsys.readouterr().out.splitlines()
    row = next(line for line in out if line.startswith("ppo:fem5 "))
    assert row.split()[1] == "10" and not any(line.startswith("note:") for line in out)
    set_bot_folders([])


@pytest.mark.parametrize("argv,words", [
    (["--agents", "ppo:fem5", "heuristic", "--players", "4"], "no PPO checkpoint named 'fem5'"),
    (["--agents", "heuristic", "--bots", "/no/such/folder"], "--bots: bot folder '/no/such/folder' is not a folder"),
])
def test_evaluate_refuses_a_missing_name_or_folder_in_one_line(argv, words, capsys):
    from redbeard_eval import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(argv + ["--games", "4", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and words in err and "\n" not in err
    set_bot_folders([])


# ---------------------------------------------------------------- redbeard-play
def play(argv, typed="table\nquit\n"):
    from redbeard_web.terminal import main

    out = io.StringIO()
    try:
        code = main(argv, stdin=io.StringIO(typed), stdout=out)
    finally:
        set_bot_folders([])
    return code, out.getvalue()


def test_the_terminal_game_seats_folder_bots_and_labels_them(folders):
    first, second = folders
    set_bot_folders([])
    code, out = play(["--bots", str(first), "--bots", str(second), "--opponents", "ppo:fem5", "heuristic", "ppo:pipe",
                      "--seed", "3", "--seat", "1"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "note: ppo:fem5 was trained at fem_opp, 5 players; this table is classic, 4 players"
    assert lines[1].startswith("note: ppo:pipe was trained at classic with leader=trick_winner, 4 players")
    # the seats' names (the column wraps a long one onto lines of its own)
    assert "player_0 (ppo:fem5, trained for" in out and "fem_opp, 5 players)" in out
    assert "player_3 (ppo:pipe, trained for" in out and "4\n    players)" in out and "player_2 (heuristic)" in out
    # at its own table: no note, no label; a path works without a folder
    code, out = play(["--opponents", f"ppo:{first / 'fem5.pt'}", "--rules", "fem_opp", "--players", "5", "--seed", "3"])
    assert code == 0 and "note:" not in out and "trained for" not in out and "fem5.pt" in out


def test_the_terminal_game_refuses_a_missing_name_naming_the_folders(folders):
    first, second = folders
    code, out = play(["--bots", str(first), "--opponents", "ppo:pipe", "--seed", "3"])
    assert code == 2 and "ppo:pipe: no policy of Rödskägg by that name" in out and str(first) in out
    assert str(second) not in out and "ppo:fem5" in out
    code, out = play(["--bots", str(first / "nothing"), "--seed", "3"])
    assert code == 2 and "--bots: bot folder" in out


# ---------------------------------------------------------------- the web API
@pytest.fixture
def web(folders):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    from starlette.testclient import TestClient

    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore

    return TestClient(create_app(GameStore(BotPool(free_specs=False)), allowed_hosts=None))


def bots_at(web, **query):
    r = web.get("/api/bots", params={"game": GAME, **query})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_web_offers_a_folder_bot_at_its_table_and_labels_it_at_another(web):
    import json

    at_five = bots_at(web, rules="fem_opp", players="5")
    assert at_five["table"] == "fem_opp, 5 players"
    entry = {b["bot"]: b for b in at_five["bots"]}
    assert entry["ppo:fem5"] == {"bot": "ppo:fem5", "shipped": False, "fits": True, "trained": "fem_opp, 5 players"}
    assert not entry["ppo:pipe"]["fits"]
    assert entry["ppo:fem_opp_4p"] == {"bot": "ppo:fem_opp_4p", "shipped": True, "fits": False,
                                       "trained": "fem_opp, 4 players"}
    assert "ppo:sortskaeg_4p" not in entry and "ppo:classic_4p" in entry  # the game's policies only
    at_four = {b["bot"]: b for b in bots_at(web, rules="fem_opp", players="4")["bots"]}
    assert not at_four["ppo:fem5"]["fits"] and at_four["ppo:fem_opp_4p"]["fits"]
    changed = bots_at(web, rules="classic", players="4", overrides=json.dumps({"leader": "trick_winner"}))
    assert changed["table"] == "classic with leader=trick_winner, 4 players"
    fits = {b["bot"] for b in changed["bots"] if b["fits"]}
    assert fits == {"ppo:pipe"}  # not the shipped classic bots: another table
    assert {b["bot"] for b in bots_at(web, players="4")["bots"] if b["fits"]} == {"ppo:classic_4p", "ppo:mixed_3to7p"}


@pytest.mark.parametrize("query,words", [
    ({}, "say which game"),
    ({"game": "chess"}, "game must be one of"),
    ({"game": GAME, "rules": "nope"}, "rules must be a preset"),
    ({"game": GAME, "players": "9"}, "players must be an int in 3..7"),
    ({"game": GAME, "players": "-1"}, "players must be an int"),
    ({"game": GAME, "overrides": "[1]"}, "overrides must be a JSON object"),
    ({"game": GAME, "overrides": "{"}, "overrides must be a JSON object"),
    ({"game": GAME, "overrides": '{"no_field": 1}'}, "unknown Rules field"),
    ({"game": GAME, "overrides": "{" + " " * 3000 + "}"}, "at most 2000 characters"),
])
def test_the_bots_question_refuses_bad_parameters(web, query, words):
    r = web.get("/api/bots", params=query)
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_the_web_plays_folder_bots_by_name_only(web, folders, tmp_path, monkeypatch):
    first, _ = folders
    r = web.post("/api/games", json={"rules": "fem_opp", "players": 5, "opponents": "ppo:fem5", "seed": 1})
    assert r.status_code == 200, r.text
    assert r.json()["agents"].count("ppo:fem5") == 4
    assert web.post("/api/games", json={"opponents": "ppo:pipe", "seed": 1}).status_code == 200  # at another table too
    # a folder's policy that cannot play is refused without saying where the folder is
    payload = torch.load(first / "fem5.pt", weights_only=True)
    payload["identity"] = {**payload["identity"], "obs_layout": "another"}
    torch.save(payload, first / "stale.pt")
    from redbeard_web import bots

    monkeypatch.setattr(bots, "LISTING_SECONDS", 0.0)  # the folders are listed again (else within 2 s)
    r = web.post("/api/games", json={"rules": "fem_opp", "players": 5, "opponents": "ppo:stale", "seed": 1})
    assert r.status_code == 400 and "policy stale.pt of a bot folder would not play as trained" in r.json()["error"]
    assert str(tmp_path) not in r.json()["error"]
    monkeypatch.chdir(tmp_path)
    for spec, words in ((f"ppo:{first / 'fem5.pt'}", "not file paths"), ("ppo:first", "not a shipped policy"),
                        ("ppo:fem5.pt", "not file paths"), ("ppo:../first/fem5", "not file paths"),
                        ("ppo:nothing", "not a shipped policy of Rödskägg or in its bot folders")):
        r = web.post("/api/games", json={"opponents": spec, "seed": 1})
        assert r.status_code == 400 and words in r.json()["error"], (spec, r.text)
        assert str(tmp_path) not in r.json()["error"]  # the server never says where its folders are


def test_a_table_without_bot_folders_offers_none(tmp_path):
    pytest.importorskip("starlette")
    from redbeard_web.bots import folder_policies, offered_specs

    assert folder_policies(GAME) == [] and "ppo:fem5" not in offered_specs(GAME)


def test_the_servers_command_line_takes_bot_folders(tmp_path):
    pytest.importorskip("starlette")
    from redbeard_web import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(["--bots", str(tmp_path / "nothing"), "--port", "0"])
    assert "--bots: bot folder" in str(exit_.value.code)
    assert "--bots DIR" in cli.build_parser().format_help()
