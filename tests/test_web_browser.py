"""End to end in a real headless browser: Playwright for Python driving Debian's Chromium
(``apt-get install -y chromium``; Playwright's own browser download is not used). The
test starts a game on the page, plays it to the end by clicking, saves a screenshot, and
opens the replay with every hand face up; then the same for every other registered game
(Sortskæg).

Skipped, with the reason, when Playwright or /usr/bin/chromium is missing (``.ci/run``
installs both). Run as a script to make the README screenshot of a game in progress::

    python tests/test_web_browser.py --screenshot docs/img/web_game.png
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
MOVE_OR_END = "[data-action]:not([disabled]), [data-testid=game-over]:not([hidden])"


def _skip_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright; .ci/run installs it)"
    if not os.path.exists(CHROMIUM):
        return f"Debian's Chromium is not at {CHROMIUM} (apt-get install -y chromium; .ci/run installs it)"
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return "the web extra is not installed (pip install -e '.[web]')"
    return None


def _registered_games() -> tuple[str, ...]:
    import redbeard_env

    return redbeard_env.registered_games()


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def page_on_a_live_server():
    """A page of Chromium (1400 x 950) on a fresh live server; yields (server, page,
    errors): the page's JavaScript errors and console errors are collected in ``errors``."""
    from playwright.sync_api import sync_playwright

    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore
    from test_web_server import LiveServer

    errors: list[str] = []
    with LiveServer(create_app(GameStore(BotPool()))) as live, sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 950})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            yield live, page, errors
        finally:
            browser.close()


def start_game(page, url: str, opponents: str, seed: int, overrides: str = "", delay: int = 0,
               game: str = "redbeard:classic") -> None:
    page.goto(f"{url}/?delay={delay}")
    page.wait_for_selector("#opt-level option", state="attached")  # options and levels loaded from the API
    page.select_option("[data-testid=game]", game)
    page.click("#settings-toggle")  # players, seat, custom bots, seed and rule changes are under ⚙
    page.select_option("#opt-players", "4")
    page.select_option("#opt-seat", "0")
    page.fill("#opt-opponents", opponents)
    page.fill("#opt-seed", str(seed))
    page.fill("#opt-overrides", overrides)
    page.click("#settings-toggle")
    page.click("[data-testid=new-game]")


def click_moves(page, rng: random.Random, max_clicks: int, stop=None) -> int:
    """Click random enabled moves until the game-over summary shows (or ``stop(page)``)."""
    for clicks in range(max_clicks):
        page.wait_for_selector(MOVE_OR_END, timeout=60_000)
        if page.is_visible("[data-testid=game-over]") or (stop and stop(page)):
            return clicks
        moves = page.query_selector_all("[data-action]:not([disabled])")
        rng.choice(moves).click()
    raise AssertionError(f"no end after {max_clicks} clicks")


def test_play_a_full_game_by_clicking(tmp_path):
    from playwright.sync_api import expect

    from redbeard_env.redbeard.records import load_records

    with page_on_a_live_server() as (live, page, errors):
        start_game(page, live.url, "heuristic", seed=7, overrides="start_score=4")
        page.wait_for_selector(MOVE_OR_END)
        # a hint for the first decision names one of the legal moves
        if not page.is_visible("[data-testid=game-over]"):
            page.click("#hint-button")
            hinted = page.wait_for_selector("[data-hint]").get_attribute("data-hint")
            assert page.query_selector(f'[data-action="{hinted}"]') is not None
        clicks = click_moves(page, random.Random(7), 3000)
        summary = page.inner_text("[data-testid=game-over]")
        assert "wins" in summary or "You win" in summary or "no winner" in summary, summary
        assert clicks > 3
        shot = tmp_path / "game_over.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        # the score sheet has a row per round, the log a line per move
        assert page.locator("#sheet tbody tr").count() >= 1
        assert page.locator("#log li").count() > clicks
        # the record downloads as one JSON line that replays to the same game
        with page.expect_download() as download:
            page.click("#download-record")
        saved = tmp_path / "game.jsonl"
        download.value.save_as(saved)
        (record,) = load_records(saved)
        assert record["agents"][0] == "human" and record["seed"] == 7
        # the finished game's replay shows all four hands face up at the first move
        page.click("#replay-record")
        page.wait_for_selector("#rp-seats .seat")
        assert page.locator("#rp-seats .seat").count() == 4
        assert page.locator("#rp-seats .seat .card").count() == 24
        steps = page.get_attribute("#rp-step", "max")
        page.click("#rp-last")
        expect(page.locator("#rp-pos")).to_have_text(f"move {steps} of {steps}")
        expect(page.locator("#rp-status")).to_contain_text("win")
        # a record file opened on the page: the same replay
        page.click("#rp-close")
        page.set_input_files("#open-record", str(saved))
        expect(page.locator("#rp-pos")).to_have_text(f"move 0 of {len(record['actions'])}")
        assert page.locator("#rp-seats .seat .card").count() == 24
    assert errors == []


OTHER_GAMES = _registered_games()[1:]  # the first game is played above, with more checks


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_play_a_whole_game_of_every_other_game_by_clicking(tmp_path, game):
    """Sortskæg (and any later game) in the page: the game chosen in the game selector, its
    cards drawn from the server's card faces, every move clicked to the end, the score sheet
    with a row per round, the record downloaded and replayed with every hand."""
    from playwright.sync_api import expect

    import redbeard_env
    from redbeard_env.records import load_records
    from redbeard_web.app import game_options

    info = redbeard_env.game_named(game)
    faces = game_options(game)["cards"]
    players = min(max(4, info.player_range[0]), info.player_range[1])
    with page_on_a_live_server() as (live, page, errors):
        start_game(page, live.url, "heuristic", seed=11, game=f"{game}:{info.default_rules}")
        page.wait_for_selector(MOVE_OR_END)
        expect(page.locator("#title")).to_have_text(info.title)
        assert page.locator("#others .seat").count() == players - 1
        cards = page.locator("[data-testid=hand] [data-card]")
        assert cards.count() > 0
        for k in range(cards.count()):  # the game's cards, drawn with the game's faces
            name = cards.nth(k).get_attribute("data-card")
            classes = cards.nth(k).get_attribute("class").split()
            assert name in faces and set(faces[name][2].split()) <= set(classes)  # a face may add no class
        assert page.locator("[data-testid=question]").inner_text()
        bids = set()

        def note_bids(page) -> bool:
            bids.update(t for t in page.locator("#others .call").all_inner_texts() if t)
            return False

        clicks = click_moves(page, random.Random(11), 3000, stop=note_bids)
        summary = page.inner_text("[data-testid=game-over]")
        assert "win" in summary, summary
        assert clicks >= 2 and bids  # a bid and a card at least (one Oh Hell deal may be short); the others' bids shown
        with page.expect_download() as download:
            page.click("#download-record")
        saved = tmp_path / "game.jsonl"
        download.value.save_as(saved)
        (record,) = load_records(saved)  # replays exactly
        assert record["game"] == game and record["seed"] == 11 and record["agents"][0] == "human"
        assert page.locator("#sheet tbody tr").count() == len(record["rounds"])
        page.click("#replay-record")
        page.wait_for_selector("#rp-seats .seat")
        assert page.locator("#rp-seats .seat").count() == players
        dealt = sum(len(h) for h in record["deals"][0]["hands"])
        assert page.locator("#rp-seats .seat .card").count() == dealt
        page.click("#rp-last")
        expect(page.locator("#rp-status")).to_contain_text("win")
    assert errors == []


def make_readme_screenshot(path: str, opponents: str = "ppo:classic_4p", seed: int = 4) -> None:
    """A real game against ``opponents`` in progress, the human following the heuristic's
    hints: taken after two rounds, at the human's card with cards on the table and the
    hint shown."""
    from playwright.sync_api import sync_playwright

    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore
    from test_web_server import LiveServer

    with LiveServer(create_app(GameStore(BotPool()))) as live, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        start_game(page, live.url, opponents, seed=seed, delay=0)
        for _ in range(3000):
            page.wait_for_selector(MOVE_OR_END, timeout=60_000)
            if page.is_visible("[data-testid=game-over]"):
                raise RuntimeError("the game ended before a good moment for the screenshot; try another seed")
            page.click("#hint-button")
            hinted = page.wait_for_selector("[data-hint]").get_attribute("data-hint")
            if (page.locator("#sheet tbody tr").count() >= 2 and hinted.startswith("play:")
                    and page.locator("#trick .played:not(.old)").count() >= 2):
                break
            page.click(f'[data-action="{hinted}"]')
        page.screenshot(path=path)
        browser.close()
    print(f"wrote {path}")


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    sys.path[:0] = [str(here), str(here.parent)]  # this checkout's packages, and test_web_server
    if len(sys.argv) == 3 and sys.argv[1] == "--screenshot":
        make_readme_screenshot(sys.argv[2])
    else:
        sys.exit("usage: python tests/test_web_browser.py --screenshot PATH")
