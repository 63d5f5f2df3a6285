"""The hidden-card scan, for every registered game: many seeded games played through the web
API (every preset, every player count, every seat, random and heuristic bots, each rule
choice); at every answer the human gets -- views, hints, errors -- no card appears anywhere
in the JSON that the human may not know at that moment, and a running game never mentions
its seed.

What the human may know is worked out independently of the views: the game's record is
replayed on the game's reference engine (its records module), and after every action the
seat learns its own hand, the cards on the table and the cards of every finished trick (and,
in Rödskägg, the thrown-in cards it has seen; in Oh Hell, the turned trump card: a game's
``face_up`` cards). Knowledge only grows.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

import redbeard_env  # noqa: E402
from redbeard_env.registry import load_object  # noqa: E402
from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402

GAMES = redbeard_env.registered_games()
TOKEN = re.compile(r"[A-Za-z0-9]+")


@pytest.fixture(scope="module")
def client():
    # one address plays every scanned game: the per-address rate and share (tested in
    # test_web_hostile.py) are off here, the scan is about what the answers show
    limits = Limits(games_per_minute=0, games_per_address=10_000)
    return TestClient(create_app(GameStore(BotPool()), allowed_hosts=None, limits=limits))


class Cards:
    """Finds a game's card names in JSON data (in keys and strings, also the alias spellings
    its parse_card accepts, such as Rödskägg's ``10D``)."""

    def __init__(self, game: str):
        self.info = redbeard_env.game_named(game)
        self.names = {self.info.card_name(c) for c in range(self.info.parts.cards.NUM_CARDS)}
        views = load_object(self.info.views)
        # texts write cards as people do (Rödskägg: 10♦): those spellings count as the card too
        self.shown_as = {views.card_text(n): n for n in self.names if views.card_text(n) != n}
        self.shown_re = re.compile("|".join(sorted(map(re.escape, self.shown_as), key=len, reverse=True))) \
            if self.shown_as else None

    def token(self, tok: str) -> str | None:
        if tok in self.names:
            return tok
        if tok.upper() == tok and any(ch.isdigit() for ch in tok):  # e.g. 10D; never an English word
            try:
                return self.info.card_name(self.info.parse_card(tok))
            except ValueError:
                return None
        return None

    def find(self, data) -> set[str]:
        found: set[str] = set()
        if isinstance(data, dict):
            for k, v in data.items():
                found |= self.find(k) | self.find(v)
        elif isinstance(data, list):
            for v in data:
                found |= self.find(v)
        elif isinstance(data, str):
            found |= {c for c in map(self.token, TOKEN.findall(data)) if c}
            if self.shown_re is not None:
                found |= {self.shown_as[m] for m in self.shown_re.findall(data)}
        return found


def knowledge_by_step(record: dict, seat: int) -> tuple[list[set[str]], set[int]]:
    """What ``seat`` may know after each number of actions, from an independent replay of
    the record on the game's reference engine; and the indices of the moves by other seats
    that put a card face down (it is on no table after the move: e.g. a discard), whose
    card the seat must not be told."""
    info = redbeard_env.records.game_of_record(record)
    game, rec = info.records.start_replay(record)
    known: set[int] = set()
    face_down: set[int] = set()

    def learn() -> set[str]:
        known.update(game.hands[seat], (c for _, c in game.trick), game.played)
        seen = getattr(game, "seen_thrown", None)  # Rödskägg: thrown-in hands it has seen
        if seen is not None:
            known.update(seen[seat])
        known.update(getattr(game, "face_up", ()))  # cards face up for everyone (Oh Hell's turned card)
        return {info.card_name(c) for c in known}

    out = [learn()]
    for i, (mover, name) in enumerate(record["actions"]):
        info.records.apply_recorded(rec, record, i)
        shown = {c for _, c in game.trick} | set(game.played)
        for event in game.events:  # a round's last trick is public, though the next deal follows at once
            if event[0] == "trick":
                known.update(event[2])
                shown.update(event[2])
        card = name.partition(":")[2]
        if mover != seat and _is_card(info, card) and info.parse_card(card) not in shown:
            face_down.add(i)
        out.append(learn())
    return out, face_down


def variants(game: str) -> list[dict]:
    """Rule overrides that vary the game: each non-default choice of each choice field, and a
    short game where the Rules have a start score."""
    info = redbeard_env.game_named(game)
    rules = info.parts.rules
    base = info.make_rules()
    out = [{}]
    for field, choices in getattr(rules, "CHOICES", {}).items():
        out += [{field: c} for c in choices if c != getattr(base, field)]
    if "start_score" in {f.name for f in dataclasses.fields(base)}:
        out = [dict(o, start_score=3) for o in out]
    return out


def wrong_action(info, legal: list[str], hand: list[str]) -> str:
    """An action that is not legal now and names no card the human may not know."""
    for a in range(info.num_actions):
        name = info.action_name(a)
        card = name.partition(":")[2]
        if name not in legal and (not card or card in hand or not _is_card(info, card)):
            return name
    raise AssertionError("every action is legal")


def _is_card(info, text: str) -> bool:
    try:
        info.parse_card(text)
        return True
    except ValueError:
        return False


def scan_games(client, game: str, games: int, seed: int) -> dict:
    """Random games of ``game``; every answer the human gets holds only cards the human may
    know at that moment, no face-down move of another seat is told with its card, and a
    running game's answers never mention the seed. Returns how many answers were scanned
    and how many face-down moves of other seats there were."""
    info = redbeard_env.game_named(game)
    cards = Cards(game)
    rng = np.random.default_rng(seed)
    presets, options = list(info.presets), variants(game)
    lo, hi = info.player_range
    stats = {"answers": 0, "hidden_moves": 0}
    for k in range(games):
        players = lo + k % (hi - lo + 1)
        overrides = options[k % len(options)]
        rules = info.make_rules(presets[k % len(presets)], **overrides)
        try:
            with warnings.catch_warnings():  # a count outside a sheet's own range only warns
                warnings.simplefilter("ignore", UserWarning)
                info.check_num_players(players, rules)
        except ValueError:
            players = lo
        body = dict(game=game, rules=presets[k % len(presets)], players=players, seat=(k // 3) % players,
                    opponents=["random", "heuristic"][(k // 2) % 2], seed=seed * 100_000 + k, overrides=overrides)
        r = client.post("/api/games", json=body)
        assert r.status_code == 200, r.text
        v = r.json()
        views = [v]
        while not v["finished"]:
            if rng.random() < 0.2:
                h = client.get(f"/api/games/{v['id']}/hint?bot=heuristic")
                assert h.status_code == 200
                views.append(dict(h.json(), actions=v["actions"]))
                bad = client.post(f"/api/games/{v['id']}/actions",
                                  json={"action": wrong_action(info, v["legal"], v["hand"])})
                assert bad.status_code == 400
                views.append(dict(bad.json(), actions=v["actions"]))
            v = client.post(f"/api/games/{v['id']}/actions", json={"action": str(rng.choice(v["legal"]))}).json()
            views.append(v)
            if rng.random() < 0.2:
                views.append(client.get(f"/api/games/{v['id']}").json())
            if rng.random() < 0.05:  # the move log so far (a reopened page shows it)
                log = client.get(f"/api/games/{v['id']}/log")
                assert log.status_code == 200, log.text
                views.append(dict(log.json(), actions=v["actions"]))
        if k % 4 == 0:  # the review of your play: your own hands then, the bot's choices
            review = client.get(f"/api/games/{v['id']}/review")
            assert review.status_code == 200, review.text
            views.append(dict(review.json(), actions=v["actions"]))
        known, face_down = knowledge_by_step(client.get(f"/api/games/{v['id']}/record").json(), body["seat"])
        stats["hidden_moves"] += len(face_down)
        for view in views:
            shown = cards.find(view)
            assert shown <= known[view["actions"]], (game, view.get("phase"), shown - known[view["actions"]])
            if "seed" in json.dumps(view) and not view.get("finished"):
                raise AssertionError("a running game's answer mentions the seed")
            first = view["actions"] - len(view.get("events", []))
            for j, ev in enumerate(view.get("events", [])):  # a face-down move is told without its card
                if first + j in face_down:
                    told = cards.find([ev["action"], ev["text"], ev["said"]])
                    assert not told, (game, ev["action"], told)
            stats["answers"] += 1
    return stats


def scan_at_least(client, game: str, games: int, seed: int, answers: int) -> int:
    """Batches of ``games`` scanned games (seeds from ``seed`` on) until more than ``answers``
    answers were scanned (a game of short deals, one Oh Hell deal, needs more games)."""
    seen = 0
    for k in range(10):
        seen += scan_games(client, game, games, seed=seed + 10 * k)["answers"]
        if seen > answers:
            break
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_views_never_show_a_card_the_human_may_not_know(client, game):
    assert scan_at_least(client, game, 12, seed=1, answers=200) > 200


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_views_never_show_a_card_the_human_may_not_know_many_games(client, game):
    assert scan_at_least(client, game, 300, seed=2, answers=5_000) > 5_000


@pytest.mark.parametrize("game", GAMES)
def test_the_scan_catches_a_leak(client, game, monkeypatch):
    """The scan can fail: with a views module that also shows the next seat's hand, it
    does."""
    views = load_object(redbeard_env.game_named(game).views)
    table = views.table

    def leaky(g, seat, agents, last_trick=None):
        out = table(g, seat, agents, last_trick)
        if seat is not None:
            out["peek"] = views.sorted_hand(g.hands[(seat + 1) % g.num_players])
        return out

    monkeypatch.setattr(views, "table", leaky)
    with pytest.raises(AssertionError):
        scan_games(client, game, 2, seed=3)


@pytest.mark.parametrize("game", GAMES)
def test_the_scan_catches_a_leak_in_words(client, game, monkeypatch):
    """Cards written as people write them (``10♦``) are found too: stakes that name the next
    seat's cards that way fail the scan."""
    views = load_object(redbeard_env.game_named(game).views)
    stakes = views.stakes

    def leaky(g, seat):
        peek = " ".join(views.card_text(c) for c in views.sorted_hand(g.hands[(seat + 1) % g.num_players]))
        return stakes(g, seat) + [{"action": None, "text": f"the next player holds {peek}"}]

    monkeypatch.setattr(views, "stakes", leaky)
    with pytest.raises(AssertionError):
        scan_games(client, game, 2, seed=3)


@pytest.mark.parametrize("game", GAMES)
def test_the_scan_catches_a_face_down_move_told_with_its_card(client, game, monkeypatch):
    """The scan can fail on moves too: with a views module that tells every move as it was
    made, a face-down move of another seat (Sortskæg's discard under deal=carry) names its
    card, and the scan fails. In a game without face-down moves in these games, telling
    every move as it was made leaks nothing: the scan passes."""
    views = load_object(redbeard_env.game_named(game).views)
    hidden = scan_games(client, game, 4, seed=1)["hidden_moves"]
    monkeypatch.setattr(views, "shown_action", lambda seat, name, you: name)
    if hidden:
        with pytest.raises(AssertionError):
            scan_games(client, game, 4, seed=1)
    else:
        scan_games(client, game, 4, seed=1)
