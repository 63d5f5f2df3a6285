"""The card table in a real browser (Playwright driving Debian's Chromium, as in
``test_web_browser.py``), for Rödskägg's ``fem_opp`` sheet (with its redeal and look
questions) and Sortskæg, each at 1400 x 900 and on a phone (390 x 844):

- a whole game is played by clicking; at every one of your turns the question is there and,
  for a join, ask, look or redeal question, a non-empty stakes box; on the phone the hand,
  the question and its buttons are inside the viewport without scrolling;
- reloading the page mid-game resumes the same game (same hand, same moves so far), and New
  game during a game asks first;
- at the end the game-over box offers Play again (also after "Look at the table"), the
  review lists decisions with their value differences, and the replay shows the moves with
  a jump to any round and calls your seat "You";
- screenshots of each are saved under the test's tmp dir.

Run as a script to make the README's pictures::

    python tests/test_web_table_browser.py --readme docs/img
"""

from __future__ import annotations

import contextlib
import random
import sys
from pathlib import Path

import pytest

if __name__ == "__main__":  # run as a script: this checkout's packages before any installed copy
    sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from test_web_browser import MOVE_OR_END, _skip_reason, launch  # noqa: E402

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
QUESTIONS_WITH_STAKES = {"join", "fold", "ask", "skip", "look", "no_look", "keep", "redeal"}

# the elements of your turn that must be on screen, each outside the viewport listed by name
OFF_SCREEN = """() => {
  const els = [document.querySelector('[data-testid=hand]'), document.querySelector('[data-testid=question]'),
               ...document.querySelectorAll('#actions [data-action]'), ...document.querySelectorAll('#hand [data-action]')];
  return els.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.top + scrollY < 0 || r.bottom + scrollY > innerHeight || r.left < 0 || r.right > innerWidth;
  }).map((e) => e.dataset.action || e.id);
}"""


@contextlib.contextmanager
def live_page(viewport: dict):
    """A page of Chromium at ``viewport`` on a fresh live server; yields (server, page, errors)."""
    from playwright.sync_api import sync_playwright

    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore
    from test_web_server import LiveServer

    errors: list[str] = []
    with LiveServer(create_app(GameStore(BotPool()))) as live, sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport=viewport)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            yield live, page, errors
        finally:
            browser.close()


def start(page, url: str, game: str, opponents: str | None, seed: int, overrides: str = "", players: int = 4,
          level: str | None = None, delay: int = 0) -> None:
    """A new game from the form: the game, the players, a seed and rule changes under ⚙, the
    bots as a level (default: the form's, or ``level`` by name) or (``opponents``) a custom spec."""
    page.goto(f"{url}/?delay={delay}")
    page.wait_for_selector("#opt-level option", state="attached")
    page.select_option("[data-testid=game]", game)
    if level is not None:
        page.wait_for_selector(f'#opt-level option[data-level="{level}"]', state="attached")
        page.select_option("[data-testid=level]", page.get_attribute(f'#opt-level option[data-level="{level}"]', "value"))
    page.click("#settings-toggle")
    page.select_option("#opt-players", str(players))
    page.select_option("#opt-seat", "0")
    page.fill("#opt-seed", str(seed))
    page.fill("#opt-overrides", overrides)
    if opponents:
        page.fill("#opt-opponents", opponents)  # the level becomes "Custom"
    page.click("#settings-toggle")
    page.click("[data-testid=new-game]")


def your_turn(page) -> dict:
    """What the page shows at your turn: the legal moves, the hand, the question, the stakes."""
    return page.evaluate("""() => ({
      moves: [...document.querySelectorAll('[data-action]:not([disabled])')].map((e) => e.dataset.action),
      hand: [...document.querySelectorAll('[data-testid=hand] [data-card]')].map((e) => e.dataset.card),
      question: document.querySelector('[data-testid=question]').innerText.trim(),
      stakes: document.querySelector('[data-testid=stakes]').innerText.trim(),
      log: document.querySelectorAll('#log li').length,
    })""")


def play(page, rng: random.Random, phone: bool, seen: set, stop=None, max_clicks: int = 3000) -> int:
    """Click random legal moves to the end (or until ``stop(turn)``), checking each turn."""
    for clicks in range(max_clicks):
        page.wait_for_selector(MOVE_OR_END, timeout=90_000)
        if page.is_visible("[data-testid=game-over]"):
            return clicks
        turn = your_turn(page)
        assert turn["question"] and turn["moves"], turn
        kinds = QUESTIONS_WITH_STAKES & set(turn["moves"])
        if kinds:
            assert turn["stakes"], f"no stakes for {sorted(kinds)}: {turn['question']}"
            seen |= kinds
        if phone:
            assert page.evaluate(OFF_SCREEN) == [], f"off screen at {turn['question']}"
        if stop is not None and stop(turn):
            return clicks
        page.click(f'[data-action="{rng.choice(turn["moves"])}"]')
    raise AssertionError(f"no end after {max_clicks} clicks")


def check_reload_resumes(page) -> None:
    """Reload mid-game: the same game (its address), hand and moves so far."""
    before = your_turn(page)
    url = page.url
    assert "game=" in url
    page.reload()
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)
    after = your_turn(page)
    assert page.url == url
    assert after["hand"] == before["hand"] and after["moves"] == before["moves"]
    assert after["question"] == before["question"] and after["log"] >= 1
    # New game during a game asks first; keep playing
    page.click("[data-testid=new-game]")
    page.wait_for_selector("[data-testid=confirm-new]")
    page.click("#confirm-cancel")
    assert page.url == url and your_turn(page)["hand"] == before["hand"]


def check_the_end(page, tmp_path: Path, name: str) -> None:
    """Game over: Play again (also after Look at the table), the review, the replay."""
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=play-again]")).to_be_visible()
    page.screenshot(path=str(tmp_path / f"{name}_game_over.png"))
    page.click("#close-game-over")
    expect(page.locator("[data-testid=game-over]")).to_be_visible()
    expect(page.locator("[data-testid=play-again]")).to_be_visible()
    page.click("#review-game")
    page.wait_for_selector("#review .review-entry, #review p", timeout=120_000)
    page.wait_for_function("() => !document.querySelector('#review').innerText.startsWith('reviewing')", timeout=120_000)
    costs = [float(c) for c in page.locator("#review .review-entry").evaluate_all("rs => rs.map(r => r.dataset.cost)")]
    assert costs and all(c > 0 for c in costs) and costs == sorted(costs, reverse=True), costs
    page.locator("#review").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / f"{name}_review.png"))
    # the replay: the moves with their trick winners, a jump to any round, your seat is "You"
    page.click("#replay-record")
    page.wait_for_selector("#rp-log li")
    steps = int(page.get_attribute("#rp-step", "max"))
    assert page.locator("#rp-log li").count() == steps
    rounds = page.locator("#rp-round option").count()
    assert rounds >= 2
    target = page.locator("#rp-round option").nth(rounds - 1).get_attribute("value")
    page.select_option("#rp-round", target)
    expect(page.locator("#rp-pos")).to_have_text(f"move {target} of {steps}")
    assert "You" in page.locator("#rp-seats").inner_text()
    assert "takes the trick" in page.locator("#rp-log").inner_text() or "take the trick" in page.locator("#rp-log").inner_text()
    page.screenshot(path=str(tmp_path / f"{name}_replay.png"))
    page.click("#rp-close")
    page.click("[data-testid=play-again]")
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)
    assert page.locator("#log li").count() < steps  # a new game


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_whole_fem_opp_game_with_its_questions_stakes_reload_and_review(tmp_path, viewport):
    phone = viewport == "phone"
    seen: set = set()
    with live_page(PHONE if phone else DESKTOP) as (live, page, errors):
        # random bots throw in often, so you are asked to look; a short game (start score 5)
        start(page, live.url, "redbeard:fem_opp", "random", seed=3, overrides="start_score=5")
        rng = random.Random(3)
        play(page, rng, phone, seen, stop=lambda turn: turn["log"] >= 12)
        page.screenshot(path=str(tmp_path / f"{viewport}_fem_opp_table.png"))
        check_reload_resumes(page)
        play(page, rng, phone, seen)
        check_the_end(page, tmp_path, f"{viewport}_fem_opp")
    assert "redeal" in seen, seen  # under fem_opp any hand may be thrown in: you are asked every round
    assert errors == []


def test_every_kind_of_question_shows_its_stakes():
    """Over a few fem_opp games the page asks each of the redeal, look, ask and join
    questions, and each time shows its stakes (checked in ``play``)."""
    seen: set = set()
    with live_page(PHONE) as (live, page, errors):
        for seed in range(1, 16):
            start(page, live.url, "redbeard:fem_opp", "random", seed=seed, overrides="start_score=6")
            play(page, random.Random(seed), True, seen)
            if {"redeal", "look", "ask", "join"} <= seen:
                break
    assert {"redeal", "look", "ask", "join"} <= seen, seen
    assert errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_whole_sortskaeg_game_with_keys_reload_and_review(tmp_path, viewport):
    phone = viewport == "phone"
    with live_page(PHONE if phone else DESKTOP) as (live, page, errors):
        start(page, live.url, "sortskaeg:sortskaeg", None, seed=11)  # the level's bots
        page.wait_for_selector(MOVE_OR_END, timeout=90_000)
        turn = your_turn(page)
        bid = next(m for m in turn["moves"] if m.startswith("bid:"))
        page.keyboard.press(bid[4:])  # a digit bids
        page.wait_for_function(f"() => [...document.querySelectorAll('#log li.mine')].some(li => li.innerText.includes('You bid {bid[4:]}'))")
        play(page, random.Random(11), phone, set(), stop=lambda turn: turn["log"] >= 30)
        page.screenshot(path=str(tmp_path / f"{viewport}_sortskaeg_table.png"))
        check_reload_resumes(page)
        play(page, random.Random(12), phone, set())
        check_the_end(page, tmp_path, f"{viewport}_sortskaeg")
    assert errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_seven_players_fit(tmp_path, viewport):
    """Seven at the table: every seat inside the screen, the score sheet as wide as its box,
    on the phone the hand and buttons on screen."""
    phone = viewport == "phone"
    with live_page(PHONE if phone else DESKTOP) as (live, page, errors):
        start(page, live.url, "redbeard:classic", "heuristic", seed=2, overrides="start_score=3", players=7)
        play(page, random.Random(2), phone, set(), stop=lambda turn: turn["log"] >= 40)
        seats = page.evaluate("""() => [...document.querySelectorAll('#others .seat, #me .seat')].map((e) => {
          const r = e.getBoundingClientRect(); return [r.left >= 0 && r.right <= innerWidth, r.width]; })""")
        assert len(seats) == 7 and all(ok for ok, _ in seats), seats
        fits = page.evaluate("() => { const w = document.querySelector('#sheet').parentElement; "
                             "return [w.scrollWidth, w.clientWidth]; }")
        assert fits[0] <= fits[1], fits
        page.screenshot(path=str(tmp_path / f"{viewport}_7_players.png"), full_page=True)
    assert errors == []


def make_readme_pictures(folder: str) -> None:
    """docs/img/web_table.png (a Rödskägg game in progress against the Strong level) and
    docs/img/web_review.png (the review after a game)."""
    out = Path(folder)
    with live_page(DESKTOP) as (live, page, errors):
        rng = random.Random(4)
        for seed in range(4, 40):  # a game that reaches a card to play with cards on the table, after a round
            start(page, live.url, "redbeard:fem_opp", None, seed=seed, overrides="", level="Strong")
            play(page, rng, False, set(), stop=lambda turn: page.locator("#sheet tbody tr").count() >= 1
                 and any(m.startswith("play:") for m in turn["moves"])
                 and page.locator("#trick .played:not(.old)").count() >= 2)
            if not page.is_visible("[data-testid=game-over]"):
                break
        page.click("#hint-button")
        page.wait_for_selector("[data-hint]")
        page.screenshot(path=str(out / "web_table.png"))
        start(page, live.url, "redbeard:fem_opp", None, seed=4, overrides="start_score=5", level="Strong")
        play(page, rng, False, set())
        page.click("#review-game")  # the game-over box gets small
        page.wait_for_selector("#review .review-entry", timeout=120_000)
        page.locator("#review-box").scroll_into_view_if_needed()
        page.screenshot(path=str(out / "web_review.png"))
    print(f"wrote {out / 'web_table.png'} and {out / 'web_review.png'}; page errors: {errors}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--readme":
        make_readme_pictures(sys.argv[2])
    else:
        sys.exit("usage: python tests/test_web_table_browser.py --readme docs/img")
