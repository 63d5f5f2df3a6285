// The panels beside the table: the hint, the review of your play, the rules, the finished
// game's record and its replay (every hand face up, the moves with their trick winners, a
// jump to any round, your seat called "You").
"use strict";

// ------------------------------------------------------------------ hint
// A difference of two values in the units a player counts in.
function unitText(x, units) {
  if (units === "win probability") return `${(100 * x).toFixed(1)} % win chance`;
  const r = Math.round(x * 10) / 10;
  return `${r.toFixed(1)} point${r === 1 ? "" : "s"}`;
}

// How a move compares with the bot's choice, by the bot's own values (expected points this
// round; a trained policy: how often it plays the move).
function hintValueText(v, chosen, kind) {
  if (kind === "probability") return v < 0.005 ? "< 1 %" : `${Math.round(100 * v)} %`;
  const d = Math.round((chosen - v) * 10) / 10;
  if (d === 0) return "as good";
  return `${unitText(Math.abs(d), "points")} ${d > 0 ? "worse" : "better"}`;
}

// The hinted move marked on the table (its card or button), until the next move.
function markHint() {
  for (const node of document.querySelectorAll(".hinted")) node.classList.remove("hinted");
  const h = state.hint, view = state.view;
  if (!h || !view || h.actions !== view.actions || !view.legal.includes(h.action)) return;
  for (const node of document.querySelectorAll("#hand [data-action], #actions [data-action]")) {
    if (node.dataset.action === h.action) node.classList.add("hinted");
  }
}

async function hint() {
  if (state.busy || !state.view || !state.view.legal.length) return;
  const box = $("hint");
  const view = state.view;
  const game = view.game;
  box.textContent = "thinking …";
  try {
    const bot = $("hint-bot").value.trim() || "heuristic";
    const h = await api("GET", `/api/games/${view.id}/hint?bot=${encodeURIComponent(bot)}`);
    if (state.view !== view) return;  // a move was made meanwhile
    state.hint = { action: h.action, actions: view.actions };
    markHint();
    box.replaceChildren(el("div", {}, el("b", { text: h.bot }), " would choose ",
      el("b", { "data-hint": h.action, text: actionLabel(h.action, game) }), " (marked on the table)"));
    if (h.values) {
      const rows = Object.entries(h.values).sort((a, b) => b[1] - a[1]);
      const prob = h.kind === "probability";
      const chosen = h.values[h.action];
      const head = el("th", { text: prob ? "how often it plays it" : "compared with its choice",
        title: prob ? "how likely the trained policy is to play each move"
          : "each move's expected points this round by the bot's own reckoning, against the move it chose" });
      const t = el("table", { class: "values" }, el("tr", {}, el("th", { text: "move" }), head));
      for (const [name, v] of rows) {
        t.append(el("tr", { class: name === h.action ? "best" : "", "data-value": v },
          el("td", { text: actionLabel(name, game) }),
          el("td", { class: "value", text: name === h.action && !prob ? "its choice" : hintValueText(v, chosen, h.kind) })));
      }
      box.append(t);
    } else {
      box.append(el("div", { class: "muted", text: "(this bot gives no values)" }));
    }
  } catch (e) {
    box.textContent = e.message;
  }
}

// ------------------------------------------------------------------ review
// The level a bot plays at in the game on the page ("pimc" -> "Strong"), if any.
function levelOf(bot) {
  const [game, preset] = $("opt-game").value.split(":");
  const key = `${state.view ? state.view.game : game}:${preset}`;
  const found = ((state.levels[key] || {}).levels || []).find((lv) => lv.bot === bot);
  return found ? found.name : null;
}

async function review() {
  if (!state.view) return;
  const box = $("review");
  const game = state.view.game;
  $("review-box").open = true;
  box.textContent = "reviewing …";
  bringReviewIntoView();
  try {
    const bot = $("review-bot").value.trim();
    const r = await api("GET", `/api/games/${state.view.id}/review` + (bot ? `?bot=${encodeURIComponent(bot)}` : ""));
    const level = levelOf(r.bot);
    box.replaceChildren(el("p", { class: "small" },
      el("b", { text: r.bot }), level ? ` (the ${level} level's bot)` : "",
      ` looked at ${r.reviewed} of your decisions` + (r.finished ? "" : ` (the ${r.rounds} finished round${r.rounds === 1 ? "" : "s"})`)
      + `: ${r.entries.length} where it would have chosen otherwise` + (r.entries.length ? `, costing ${unitText(r.total_cost, r.units)} in all.` : ".")));
    if (r.entries.length) {
      const t = el("table", { class: "review" }, el("tr", {}, el("th", { text: "round" }), el("th", { text: "you" }),
        el("th", { text: r.bot }), el("th", { text: "cost",
          title: `the bot's value of its own choice minus its value of yours, in ${r.units === "points" ? "expected points" : "win chance"}` })));
      for (const e of r.entries) {
        const tip = `${e.question} Your hand: ${e.hand.join(" ")}` + (e.trick.length ? `; on the table: ${e.trick.map((c) => c.card).join(" ")}` : "")
          + `. Values: ${Object.entries(e.values).map(([a, v]) => `${actionLabel(a, game)} ${v}`).join(", ")}`;
        t.append(el("tr", { class: "review-entry", "data-move": e.move, "data-cost": e.cost, title: tip },
          el("td", { text: e.round }), el("td", { text: actionLabel(e.chosen, game) }),
          el("td", { text: actionLabel(e.suggested, game) }), el("td", { class: "cost", text: unitText(e.cost, r.units) })));
      }
      box.append(el("div", { class: "review-list" }, t));
    }
  } catch (e) {
    box.textContent = e.message;
  }
  bringReviewIntoView();
}

// The review's answer where the player can read it: in the window (and the side panel),
// clear of the small game-over box.
function bringReviewIntoView() {
  $("review-box").scrollIntoView({ block: "start", behavior: "instant" });
}

// ------------------------------------------------------------------ rules
async function showRules() {
  const box = $("rules-box");
  const text = $("rules-text");
  text.replaceChildren();
  let title = "", page = [];
  if (state.view && !$("game").hidden) {
    try {
      const r = await api("GET", `/api/games/${state.view.id}/rules`);
      title = `${r.title}: the rules of this game`;
      page = r.page;
    } catch (e) { /* fall back to the sheet in the form */ }
  }
  if (!page.length) {
    const [game, preset] = $("opt-game").value.split(":");
    const g = state.games[game] || {};
    title = `${g.title || ""}${Object.keys(g.presets || {}).length > 1 ? ` (${preset})` : ""}: the rules`;
    page = (g.rules_pages || {})[preset] || [];
  }
  $("rules-title").textContent = title;
  for (const part of page) text.append(el("h3", { text: part.title }), el("p", { text: part.text }));
  box.hidden = false;
  box.scrollTop = 0;  // the rules from their start (focus would scroll to the button at the end)
  $("rules-close").focus({ preventScroll: true });
}

// ------------------------------------------------------------------ the record
async function fetchRecord() {
  if (!state.record) state.record = await api("GET", `/api/games/${state.view.id}/record`);
  return state.record;
}

async function downloadRecord() {
  try {
    const record = await fetchRecord();
    const blob = new Blob([JSON.stringify(record) + "\n"], { type: "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `${state.view.game}-${state.view.id}.jsonl` });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ replays
async function openReplay(record) {
  showError("");
  const frame = await api("POST", "/api/replays", { record });
  const log = await api("GET", `/api/replays/${frame.id}/log`);
  state.replay = { id: frame.id, steps: frame.steps, game: frame.game, you: log.you, log };
  $("rp-step").max = frame.steps;
  const rounds = $("rp-round");
  rounds.replaceChildren();
  for (const r of log.rounds) rounds.append(el("option", { value: r.move, text: `${r.round} (move ${r.move})` }));
  const list = $("rp-log");
  list.replaceChildren();
  for (const entry of log.entries) {
    const item = el("li", { "data-step": entry.move + 1, class: entry.seat === log.you ? "mine" : "" },
      el("button", { type: "button", class: "link", title: "go to this move" }, richText(entry.text)));
    const notes = moveNotes(entry.notes, entry.summary);
    if (notes.length) item.append(el("div", { class: "effects" }, richText(notes.join(" · "))));
    item.querySelector("button").addEventListener("click", () => replayStep(entry.move + 1));
    list.append(item);
  }
  showMode("replay");
  renderReplay(frame);
}

async function replayStep(step) {
  if (!state.replay) return;
  step = Math.max(0, Math.min(state.replay.steps, step));
  try {
    renderReplay(await api("GET", `/api/replays/${state.replay.id}?step=${step}`));
  } catch (e) { showError(e.message); }
}

// "player_2" -> "You" for the seat you played.
function youText(text, you) {
  return you === null || you === undefined ? text : String(text).split(`player_${you}`).join("You");
}

function renderReplay(f) {
  const rp = state.replay;
  const you = rp.you;
  rp.step = f.step;
  $("rp-step").value = f.step;
  $("rp-pos").textContent = `move ${f.step} of ${f.steps}`;
  const entries = rp.log.entries;
  const status = [f.title].concat(f.status);
  if (f.last) status.push(`last: ${entries[f.step - 1] ? entries[f.step - 1].text : f.last.text}`);
  if (f.finished) {
    const w = f.winners;
    status.push(!w.length ? "no winner" : w.length === 1 ? `${seatName(w[0], you)} ${w[0] === you ? "win" : "wins"}`
      : `${w.map((s) => seatName(s, you)).join(" and ")} share the win`);
  }
  $("rp-status").replaceChildren(richText(youText(status.join(" · "), you)));
  const seats = $("rp-seats");
  seats.replaceChildren();
  for (const p of f.seats) {
    seats.append(seatPanel(p, you, f.agents, f.game, { hand: p.hand, moved: f.last && f.last.seat === p.seat,
      name: seatName(p.seat, you) }));
  }
  const trick = $("rp-trick");
  trick.replaceChildren();
  let cards = f.trick, winner = null;
  const done = entries[f.step - 1];
  if (!cards.length && done && done.winner !== null && done.trick) {
    cards = done.trick;
    winner = done.winner;
  }
  for (const { seat, card } of cards) {
    trick.append(el("div", { class: "played" + (seat === winner ? " won" : winner !== null ? " old" : "") },
      cardNode(card, f.game), el("div", { class: "who", text: seatName(seat, you) })));
  }
  $("rp-trick-note").textContent = winner !== null ? `${seatName(winner, you)} ${winner === you ? "take" : "takes"} the trick` : "";
  const round = rp.log.rounds.filter((r) => r.move <= f.step).pop();
  if (round) $("rp-round").value = String(round.move);
  for (const item of $("rp-log").children) item.classList.toggle("current", Number(item.dataset.step) === f.step);
  const current = $("rp-log").querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
  renderSheet(f.sheet_view, $("rp-sheet"), you === undefined ? null : you);
}

async function openRecordFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  try {
    const lines = (await file.text()).split("\n").filter((l) => l.trim());
    if (!lines.length) throw new Error("the file holds no record");
    let index = 0;
    if (lines.length > 1) {
      const answer = prompt(`The file holds ${lines.length} games. Which one (1–${lines.length})?`, "1");
      if (answer === null) return;
      index = Number(answer) - 1;
      if (!(index >= 0 && index < lines.length)) throw new Error("no such game in the file");
    }
    let record;
    try { record = JSON.parse(lines[index]); } catch (e) { throw new Error("that line is not JSON: " + e.message); }
    await openReplay(record);
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ wiring
function initPanels() {
  $("hint-button").addEventListener("click", hint);
  $("review-button").addEventListener("click", review);
  $("review-game").addEventListener("click", () => { $("game-over").classList.add("mini"); review(); });
  $("rules-button").addEventListener("click", showRules);
  $("rules-close").addEventListener("click", () => { $("rules-box").hidden = true; });
  $("download-record").addEventListener("click", downloadRecord);
  $("replay-record").addEventListener("click", async () => {
    try { await openReplay(await fetchRecord()); } catch (e) { showError(e.message); }
  });
  $("last-trick-button").addEventListener("click", () => {
    state.showLast = !state.showLast;
    if (state.view) renderTable(state.view.table, state.view, null);
  });
  $("open-record").addEventListener("change", openRecordFile);
  $("rp-first").addEventListener("click", () => replayStep(0));
  $("rp-prev").addEventListener("click", () => replayStep(state.replay.step - 1));
  $("rp-next").addEventListener("click", () => replayStep(state.replay.step + 1));
  $("rp-last").addEventListener("click", () => replayStep(state.replay.steps));
  $("rp-step").addEventListener("change", (e) => replayStep(Number(e.target.value)));
  $("rp-round").addEventListener("change", (e) => replayStep(Number(e.target.value)));
  $("rp-close").addEventListener("click", () => showMode(state.view ? "game" : "intro"));
}
