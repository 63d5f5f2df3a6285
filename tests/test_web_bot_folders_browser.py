"""The page and a ``redbeard-web --bots DIR`` table in a real browser (Playwright driving
Debian's Chromium, as in ``test_web_browser.py``): the level list offers a folder's policy
at the table it was trained for and not at another, a shipped policy at a table other than
its own is labelled with the one it was trained for (in the level list, and beside New game
once chosen), so is the custom spec of a policy trained for another table, and a game with
the offered policy starts."""

from __future__ import annotations

import pytest

from test_web_browser import _skip_reason, launch

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
torch = pytest.importorskip("torch")

LEVEL_TEXTS = "() => [...document.querySelectorAll('#opt-level option')].map((o) => o.textContent)"


def test_the_page_offers_the_folders_bot_for_its_table_and_labels_the_others(tmp_path):
    from playwright.sync_api import sync_playwright

    from agents.ppo import set_bot_folders
    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore
    from test_bot_folders import save_policy
    from test_web_server import LiveServer

    save_policy(tmp_path / "fem5.pt", "fem_opp", players=(5,))
    before = set_bot_folders([tmp_path])
    errors: list[str] = []
    try:
        with LiveServer(create_app(GameStore(BotPool(free_specs=False)))) as live, sync_playwright() as p:
            browser = launch(p)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{live.url}/?delay=0")
                page.wait_for_selector("#opt-level option", state="attached")
                page.select_option("[data-testid=game]", "redbeard:fem_opp")
                page.click("#settings-toggle")
                page.select_option("#opt-players", "5")
                # at fem_opp, 5 players: the folder's bot is offered; the shipped fem_opp bot (Strong) and
                # the search on it (Expert) say it was trained for 4 players
                page.wait_for_selector('#opt-level optgroup[label="Trained for this table"] option[value="ppo:fem5"]',
                                       state="attached")
                texts = page.evaluate(LEVEL_TEXTS)
                policy_levels = ("Strong", "Expert")
                for name in policy_levels:
                    assert any(t.startswith(name) and t.endswith("trained for fem_opp, 4 players") for t in texts), texts
                assert not any("trained for" in t for t in texts if not t.startswith(policy_levels)), texts
                assert page.is_hidden("[data-testid=bot-note]")  # Club: the heuristic
                page.select_option("[data-testid=level]", "ppo:fem_opp_4p")
                assert page.inner_text("[data-testid=bot-note]") == "ppo:fem_opp_4p is trained for fem_opp, 4 players"
                page.select_option("[data-testid=level]", "search:policy=ppo:fem_opp_4p")
                assert page.inner_text("[data-testid=bot-note]") == (
                    "search:policy=ppo:fem_opp_4p plays by ppo:fem_opp_4p, trained for fem_opp, 4 players")
                page.screenshot(path=str(tmp_path / "offered.png"))
                # at 4 players: not offered; the Expert level is at home
                page.select_option("#opt-players", "4")
                page.wait_for_selector('#opt-level option[value="ppo:fem5"]', state="detached")
                assert not any("trained for" in t for t in page.evaluate(LEVEL_TEXTS))
                page.wait_for_selector("[data-testid=bot-note]", state="hidden")
                # typed as a custom spec at 4 players, it is labelled
                page.fill("#opt-opponents", "ppo:fem5")
                assert page.inner_text("[data-testid=bot-note]") == "ppo:fem5 is trained for fem_opp, 5 players"
                page.fill("#opt-opponents", "heuristic")
                assert page.is_hidden("[data-testid=bot-note]")
                # back at 5 players the offered bot plays
                page.select_option("#opt-players", "5")
                page.wait_for_selector('#opt-level option[value="ppo:fem5"]', state="attached")
                page.select_option("[data-testid=level]", "ppo:fem5")
                page.select_option("#opt-seat", "0")
                page.fill("#opt-seed", "3")
                page.click("#settings-toggle")
                page.click("[data-testid=new-game]")
                page.wait_for_selector("[data-testid=hand] [data-card]", timeout=60_000)
                assert page.evaluate("() => state.view.agents") == ["human"] + ["ppo:fem5"] * 4
                page.screenshot(path=str(tmp_path / "playing.png"))
            finally:
                browser.close()
    finally:
        set_bot_folders(before)
    assert errors == []
