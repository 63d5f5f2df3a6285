"""``redbeard-play --game G`` for every registered game, driven through stdin: a whole
game to its end with a record that replays exactly, the table drawn by the game's views,
and only known cards printed before the first card is played."""

from __future__ import annotations

import io
import re

import pytest

import redbeard_env
from redbeard_env.records import load_records
from redbeard_web.session import BotPool, GameSession, parse_new_game
from redbeard_web.terminal import main, parse_input

from test_terminal import Script

GAMES = redbeard_env.registered_games()


class Tries(Script):
    """Input: some fixed lines, then every action name of the game over and over (most of
    them illegal at any moment; the game re-prompts, so a legal one always comes)."""

    LIMIT = 500_000

    def __init__(self, game: str, first: list[str]):
        info = redbeard_env.game_named(game)
        super().__init__(first, [info.action_name(a) for a in range(info.num_actions)])


def players_of(game: str) -> int:
    lo, hi = redbeard_env.game_named(game).player_range
    return min(max(4, lo), hi)


def short(game: str) -> list[str]:
    fields = redbeard_env.game_named(game).make_rules().__dataclass_fields__
    return ["--set", "start_score=4"] if "start_score" in fields else []


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_through_stdin(game, tmp_path):
    info = redbeard_env.game_named(game)
    path = tmp_path / "games.jsonl"
    out = io.StringIO()
    code = main(["--game", game, "--players", str(players_of(game)), "--seat", "1", "--seed", "3",
                 "--record", str(path)] + short(game),
                stdin=Tries(game, ["help", "hint", "hint random", "table", "xyz"]), stdout=out)
    text = out.getvalue()
    assert code == 0, text[-2000:]
    assert text.startswith(f"{info.title}, sheet {info.default_rules}")
    assert "Type an action at the prompt" in text  # help, from the game's views
    assert "heuristic would choose" in text and "random would choose" in text
    assert "'xyz' is not an action" in text
    assert "your hand:" in text and "player_0 (heuristic)" in text
    (record,) = load_records(path)  # written, and it replays exactly
    assert record.get("game", GAMES[0]) == game and record["agents"][1] == "human" and record["seed"] == 3
    assert record["meta"]["app"] == "redbeard-play"
    final = text.split("Final scores: ")[1].splitlines()[0]
    assert final == ", ".join(f"{'You' if s == 1 else f'player_{s}'} {v}" for s, v in enumerate(record["scores"]))
    outcome = text.split("Final scores: ")[0].rstrip().splitlines()[-1]
    assert "win" in outcome or "round limit" in outcome, outcome


@pytest.mark.parametrize("game", GAMES)
def test_rules_choices_are_the_games_presets(game, capsys):
    info = redbeard_env.game_named(game)
    others = [p for g in GAMES if g != game for p in redbeard_env.game_named(g).presets]
    with pytest.raises(SystemExit):
        main(["--game", game, "--rules", others[0]], stdin=io.StringIO(""), stdout=io.StringIO())
    assert "invalid choice" in capsys.readouterr().err
    out = io.StringIO()
    lo, hi = info.player_range
    assert main(["--game", game, "--players", str(hi + 1)], stdin=io.StringIO(""), stdout=out) == 2
    assert f"players must be an int in {lo}..{hi}" in out.getvalue()


@pytest.mark.parametrize("game", GAMES)
def test_only_known_cards_are_printed_before_the_first_card(game):
    """Quitting at the first question: the output names no card but the player's own
    (the hand of the same seeded game) and the cards face up for everyone (Oh Hell's
    turned card), and the hand line shows all of them."""
    info = redbeard_env.game_named(game)
    out = io.StringIO()
    main(["--game", game, "--seed", "5", "--seat", "0"], stdin=io.StringIO("quit\n"), stdout=out)
    text = out.getvalue()
    opts = parse_new_game({"game": game, "seed": 5, "seat": 0})
    session = GameSession("x", opts["rules"], opts["players"], 0, opts["agents"], 5, BotPool())
    session.run_bots()
    names = {info.card_name(c) for c in range(info.parts.cards.NUM_CARDS)}
    shown_as = {session.views.card_text(n): n for n in names}  # how the terminal writes each card
    hand = set(session.views.hand(session.game, 0))
    assert session.game.trick == [] or all(s == 0 for s, _ in session.game.trick)  # no card played by another
    printed = {t for t in re.findall(r"[A-Za-z0-9]+", text) if t in names}
    printed |= {shown_as[t] for t in re.findall(r"\S+", text) if t in shown_as}
    face_up = {info.card_name(c) for c in getattr(session.game, "face_up", ())}
    assert printed <= hand | face_up, printed - hand - face_up
    line = [ln for ln in text.splitlines() if "your hand:" in ln][-1]
    items = [t for t in line.split("your hand:")[1].split() if not t.endswith(":")]  # "S: A K" / "Y: 10 3"
    assert len(items) == len(hand) > 0, line


@pytest.mark.parametrize("game", GAMES)
def test_typed_cards_and_bids_in_every_game(game):
    info = redbeard_env.game_named(game)
    card = info.card_name(0)
    play = next(info.action_name(a) for a in range(info.num_actions) if info.action_name(a).endswith(":" + card))
    assert parse_input(card.lower(), [play], game) == play
    assert parse_input(play, [play], game) == play
    assert parse_input("2", ["bid:1", "bid:2"], game) == "bid:2"
    with pytest.raises(ValueError, match="not allowed"):
        parse_input("3", ["bid:1", "bid:2"], game)
    with pytest.raises(ValueError, match="not an action"):
        parse_input("xyzzy", ["bid:1"], game)
