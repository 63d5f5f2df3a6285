"""The card table's layout and flow in a real browser (Playwright driving Debian's Chromium,
as in ``test_web_table_browser.py``), each test at 1280 x 800 and on a phone (390 x 844),
with one browser for the module:

- nothing on the table overlaps at 3 to 7 players: the seats, the trick's cards, its label
  ("takes the trick"), what a seat just did (its bubble) and the status line above the table
  (element boxes compared, with a whole trick on the table and each seat's bubble in turn);
- one box at a time: at a round's end the bots wait while its result is read (no move and no
  bidding under it; they go on after "Next round" or, left alone, by themselves), the game's
  last round is told in the game-over box and not in a second one, "This round's tricks"
  follows the round on the table, the Moves log says who won once (a watcher on the page
  checks every change of the page against these);
- the hint marks its move on the table and speaks in points, not the bot's raw utilities;
  the review is done by default by the strongest level's bot that values moves, its costs in
  points to a tenth, and its answer comes into view, clear of the game-over box;
- a replay shows every card of every hand, also on a phone (each card, scrolled to, is the
  element at its own centre, and no card needs sideways scrolling);
- a reload keeps the level, the bot speed and the game's settings, and New game then starts
  what the form shows; a later visit starts from the same level and speed;
- the landing text names every game, and the rules open at their start.

Screenshots of each are saved under the test's tmp dir.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_web_browser import MOVE_OR_END, _skip_reason, launch  # noqa: E402
from test_web_table_browser import start  # noqa: E402

from redbeard_web.levels import levels_of  # noqa: E402
from redbeard_web.review import default_bot  # noqa: E402

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
ROUND_NEXT = "#round-result:not([hidden]) .next"

# Installed in every page before its scripts: after every change of the page, the rules of
# one box at a time; breaches are collected in window.__breaches.
WATCH = """
window.__breaches = [];
window.__holds = 0;
document.addEventListener("DOMContentLoaded", () => {
  const $ = (id) => document.getElementById(id);
  const shown = (node) => node && !node.hidden && node.getClientRects().length > 0;
  let logAtOpen = null;
  const check = () => {
    const box = $("round-result"), over = $("game-over"), log = $("log");
    if (!box || !over || !log) return;
    const breach = (what) => { if (window.__breaches.length < 20) window.__breaches.push(what); };
    if (shown(box)) {
      if (logAtOpen === null) { logAtOpen = log.children.length; window.__holds += 1; }
      if (shown(over)) breach("the round's result and the game-over box at once");
      if (document.querySelector("[data-action]:not([disabled])")) breach("moves to make under the round's result");
      if (log.children.length > logAtOpen) breach("moves played under the round's result");
    } else if (!shown(over)) {  // (a finished game's table may be the tie-break's, its list the last round's)
      logAtOpen = null;
      const taken = [...document.querySelectorAll("#oval .seat .tricks")]
        .reduce((sum, t) => sum + (Number((t.textContent.match(/\\d+/) || ["0"])[0])), 0);
      const listed = document.querySelectorAll("#round-tricks li.trick").length;
      if (listed !== taken) breach(`"This round's tricks" lists ${listed} tricks, the seats have taken ${taken}`);
    }
  };
  new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true,
    characterData: true });
});
"""

# With a whole trick on the table (its winner named) and each seat's bubble in turn, drawn
# by the page's own renderTable: every pair of things that overlap, and anything clipped.
OVERLAPS = """(said) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const meet = (a, b) => a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5;
  const inside = (a, b) => a.l >= b.l - 0.5 && a.r <= b.r + 0.5 && a.t >= b.t - 0.5 && a.b <= b.b + 0.5;
  const view = state.view, you = view.your_seat;
  const table = JSON.parse(JSON.stringify(view.table));
  const n = table.players.length;
  const faces = Object.keys(state.games[view.game].cards);
  const cards = faces.filter((c) => c.startsWith("10")).concat(faces);  // the widest labels first
  table.trick = [];
  table.last_trick = { cards: table.players.map((p, i) => ({ seat: (you + 1 + i) % n, card: cards[i] })),
                       winner: (you + 1) % n };
  const problems = [];
  for (let s = 0; s < n; s++) {
    renderTable(table, view, { seat: s, said, action: "", effects: [] });
    const things = [["status line", box(document.getElementById("status-line"))],
      ...[...document.querySelectorAll("#oval .seat")].map((e) => [`seat ${e.dataset.seat}`, box(e)]),
      ...[...document.querySelectorAll("#trick .played")].map((e) => [`card of ${e.dataset.seat}`, box(e)]),
      ["trick label", box(document.getElementById("trick-note"))]];
    const bubble = document.querySelector("#oval .said");
    if (bubble) things.push([`bubble of ${bubble.closest(".seat").dataset.seat}`, box(bubble)]);
    for (let i = 0; i < things.length; i++) {
      for (let j = i + 1; j < things.length; j++) {
        const [a, ab] = things[i], [b, bb] = things[j];
        if (a.startsWith("bubble") || b.startsWith("bubble")) {
          const [bub, other] = a.startsWith("bubble") ? [a, b] : [b, a];
          if (other === `seat ${bub.split(" ").pop()}`) continue;  // inside its own seat
        }
        if (meet(ab, bb)) problems.push(`${n} players, bubble at ${s}: ${a} overlaps ${b}`);
      }
    }
    const well = box(document.getElementById("trick"));
    for (const [what, b] of things) {
      if ((what.startsWith("card") || what === "trick label") && !inside(b, well)) problems.push(`${what} is cut off`);
      if (b.l < 0 || b.r > innerWidth) problems.push(`${what} is outside the window's width`);
    }
    if (document.querySelectorAll("#trick .played").length !== n) problems.push("not every card of the trick is shown");
    if (!/takes? the trick/.test(document.getElementById("trick-note").textContent)) problems.push("no trick label");
  }
  render(view);
  return [...new Set(problems)];
}"""

# Each card of the replay's hands scrolled to: is it the element at its own centre (not
# hidden, clipped or covered), within the window's width?
REPLAY_CARDS = """() => {
  const cards = [...document.querySelectorAll("#rp-seats .seat [data-card]")];
  const hidden = [];
  for (const c of cards) {
    c.scrollIntoView({ block: "center", inline: "nearest" });
    const r = c.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!(r.width > 0 && r.left >= 0 && r.right <= innerWidth && hit && c.contains(hit))) hidden.push(c.dataset.card);
  }
  return { cards: cards.length, hidden, sideways: document.documentElement.scrollWidth > innerWidth };
}"""

# The review's answer: inside the window, and the element at its corners and centre.
IN_VIEW = """(id) => {
  const node = document.getElementById(id);
  const r = node.getBoundingClientRect();
  const points = [[r.left + 4, r.top + 4], [r.right - 4, r.bottom - 4], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
  return { top: r.top, bottom: r.bottom, inside: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0
             && r.right <= innerWidth,
           covered: points.filter(([x, y]) => !node.contains(document.elementFromPoint(x, y))).length };
}"""


@pytest.fixture(scope="module")
def served():
    """One live server and one Chromium for the module."""
    from playwright.sync_api import sync_playwright

    from redbeard_web.app import create_app
    from redbeard_web.session import BotPool
    from redbeard_web.store import GameStore
    from test_web_server import LiveServer

    with LiveServer(create_app(GameStore(BotPool()))) as live, sync_playwright() as p:
        browser = launch(p)
        try:
            yield live, browser
        finally:
            browser.close()


@pytest.fixture(params=list(VIEWPORTS))
def table(request, served):
    """A fresh page (its own storage) at each size; its errors must stay empty."""
    live, browser = served
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.add_init_script(WATCH)
    try:
        yield SimpleNamespace(page=page, url=live.url, errors=errors, name=request.param)
    finally:
        context.close()
    assert errors == []


def test_nothing_on_the_table_overlaps_at_3_to_7_players(table, tmp_path):
    page = table.page
    for players in range(3, 8):
        start(page, table.url, "redbeard:classic", "random", seed=players, players=players)
        page.wait_for_selector(MOVE_OR_END, timeout=60_000)
        problems = page.evaluate(OVERLAPS, "looks at the thrown-in hand")
        page.screenshot(path=str(tmp_path / f"{table.name}_{players}_players.png"))
        assert problems == [], problems


def play_to_the_end(page, rng: random.Random, let_one_pass: bool, max_clicks: int = 3000) -> int:
    """Click random moves to the game's end, pressing Next round at each round's result
    (``let_one_pass``: the first one is left to end by itself); returns how many results
    were shown."""
    results = 0
    for _ in range(max_clicks):
        page.wait_for_selector(f"{MOVE_OR_END}, {ROUND_NEXT}", timeout=90_000)
        if page.is_visible("[data-testid=game-over]"):
            return results
        if page.is_visible(ROUND_NEXT):
            results += 1
            if not (let_one_pass and results == 1):
                page.click(ROUND_NEXT)
            page.wait_for_selector("#round-result", state="hidden", timeout=60_000)  # the bots go on
            continue
        moves = page.query_selector_all("[data-action]:not([disabled])")
        if moves:
            rng.choice(moves).click()
    raise AssertionError(f"no end after {max_clicks} clicks")


def test_a_game_one_box_at_a_time_with_hint_review_and_replay(table, tmp_path):
    page = table.page
    # bots a little slower than instant: a round's result waits for the player
    start(page, table.url, "redbeard:classic", "heuristic", seed=3, overrides="start_score=4", delay=20)
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)

    # the hint: its move marked on the table, its values in points against its choice
    page.click("#hint-button")
    hinted = page.wait_for_selector("[data-hint]").get_attribute("data-hint")
    marked = page.locator(".hinted")
    assert marked.count() == 1 and marked.get_attribute("data-action") == hinted and marked.is_visible()
    values = page.locator("#hint td.value").all_inner_texts()
    assert values and "its choice" in values, values
    assert all(re.fullmatch(r"its choice|as good|\d+\.\d points? (worse|better)|< 1 %|\d+ %", v) for v in values), values
    page.screenshot(path=str(tmp_path / f"{table.name}_hint.png"))

    results = play_to_the_end(page, random.Random(3), let_one_pass=table.name == "desktop")
    assert results >= 1  # the game had a round before its last, and its result waited
    assert page.evaluate("window.__breaches") == []
    assert page.evaluate("window.__holds") >= results

    # the end: the last round in the game-over box, no second box; who won said once
    assert page.is_visible("#game-over-round") and not page.is_visible("#round-result")
    assert re.search(r"Round \d+", page.inner_text("#game-over-round"))
    page.screenshot(path=str(tmp_path / f"{table.name}_game_over.png"))
    log = page.inner_text("#log")
    assert len(re.findall(r"wins? the game|share the win", log)) == 1, log[-400:]

    # the review: by the strongest level's bot that values moves, in points, in view
    page.click("#review-game")
    page.wait_for_function("() => !document.querySelector('#review').innerText.startsWith('reviewing')", timeout=120_000)
    seen = page.evaluate(IN_VIEW, "review")
    page.screenshot(path=str(tmp_path / f"{table.name}_review.png"))
    assert seen["inside"] and seen["covered"] == 0, seen
    reviewer = default_bot("redbeard")
    level = next(lv["name"] for lv in levels_of("redbeard", "classic")["levels"] if lv["bot"] == reviewer)
    assert page.inner_text("#review p").startswith(f"{reviewer} (the {level} level's bot)"), page.inner_text("#review p")
    costs = page.locator("#review td.cost").all_inner_texts()
    assert costs and all(re.fullmatch(r"\d+\.\d points?", c) for c in costs), costs

    # the replay: every card of every hand, at the start and a few moves on
    record = page.request.get(f"{table.url}/api/games/{game_of(page)}/record").json()
    page.click("#replay-record")
    page.wait_for_selector("#rp-seats .seat")
    shown = page.evaluate(REPLAY_CARDS)
    page.screenshot(path=str(tmp_path / f"{table.name}_replay.png"), full_page=True)
    assert shown == {"cards": sum(len(h) for h in record["deals"][0]["hands"]), "hidden": [], "sideways": False}
    for _ in range(7):
        page.click("#rp-next")
    page.wait_for_function("() => document.querySelector('#rp-pos').textContent.startsWith('move 7 ')")
    shown = page.evaluate(REPLAY_CARDS)
    assert shown["cards"] > 0 and shown["hidden"] == [] and not shown["sideways"], shown


def game_of(page) -> str:
    """The id of the game in the page's address."""
    return re.search(r"game=([\w-]+)", page.url).group(1)


def form_of(page) -> dict:
    return page.evaluate("""() => ({
      game: document.querySelector('[data-testid=game]').value,
      level: document.querySelector('[data-testid=level]').selectedOptions[0].dataset.level || 'custom',
      delay: document.querySelector('#opt-delay').value, players: document.querySelector('#opt-players').value,
      seat: document.querySelector('#opt-seat').value, overrides: document.querySelector('#opt-overrides').value })""")


def test_a_reload_keeps_the_level_the_speed_and_the_games_settings(table):
    page = table.page
    page.goto(table.url)
    page.wait_for_selector("#opt-level option", state="attached")
    page.select_option("[data-testid=game]", "redbeard:fem_opp")
    # the sheet's own Strong bot (a policy trained for fem_opp), once the sheet's levels are in
    strong = next(lv["bot"] for lv in levels_of("redbeard", "fem_opp")["levels"] if lv["name"] == "Strong")
    page.wait_for_selector(f'#opt-level option[data-level="Strong"][value="{strong}"]', state="attached")
    page.select_option("[data-testid=level]", strong)
    page.click("#settings-toggle")
    page.select_option("#opt-players", "5")
    page.select_option("#opt-seat", "2")
    page.fill("#opt-overrides", "start_score=6")
    page.select_option("#opt-delay", "0")
    page.click("#settings-toggle")
    page.click("[data-testid=new-game]")
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)
    chosen = {"game": "redbeard:fem_opp", "level": "Strong", "delay": "0", "players": "5", "seat": "2",
              "overrides": "start_score=6"}
    assert form_of(page) == chosen

    first = page.url
    page.reload()
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)
    page.wait_for_function("() => document.querySelector('[data-testid=level]').selectedOptions[0].dataset.level")
    assert page.url == first and form_of(page) == chosen

    # New game starts what the form shows
    page.click("[data-testid=new-game]")
    page.click("[data-testid=confirm-new]")
    page.wait_for_function(f"() => location.href !== {first!r}")
    page.wait_for_selector(MOVE_OR_END, timeout=60_000)
    view = page.request.get(f"{table.url}/api/games/{game_of(page)}").json()
    assert view["players"] == 5 and view["your_seat"] == 2 and view["rules"]["start_score"] == 6
    assert [a for s, a in enumerate(view["agents"]) if s != 2] == [strong] * 4

    # a later visit without a game starts from the same choices
    page.goto(table.url)
    page.wait_for_selector('#opt-level option[data-level="Strong"]', state="attached")
    assert form_of(page) == chosen


def test_the_landing_text_names_every_game(table):
    page = table.page
    page.goto(table.url)
    page.wait_for_selector("#opt-level option", state="attached")
    options = page.request.get(f"{table.url}/api/options").json()
    intro = page.inner_text("#intro")
    assert all(g["title"] in intro for g in options["games"]), intro
    assert all(g["title"] in page.title() for g in options["games"]), page.title()


def test_the_rules_open_at_their_start(table):
    page = table.page
    page.goto(table.url)
    page.wait_for_selector("#opt-level option", state="attached")
    page.select_option("[data-testid=game]", "redbeard:fem_opp")
    page.click("#rules-button")
    page.wait_for_selector("#rules-box:not([hidden])")
    box = page.evaluate("() => { const b = document.querySelector('#rules-box'); "
                        "return [b.scrollTop, b.scrollHeight, b.clientHeight]; }")
    assert box[1] > box[2], box  # the rules are longer than their box
    assert box[0] == 0, box
