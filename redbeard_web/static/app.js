// The game page: talks to the JSON API of redbeard_web.app; no build step, no libraries.
// It knows no game: every game's card faces, move labels and texts come from the server
// (/api/options and the views). Every clickable move carries data-action="<action name>"
// (tests click by it); every card carries data-card="<card name>".
"use strict";

const state = {
  options: null,      // /api/options
  games: {},          // game name -> its options (presets, players, bots, card faces, labels)
  game: null,         // the game of the form
  view: null,         // the last view from the server
  busy: false,        // a request or the bots' moves are being shown
  skip: false,        // show the rest of the bots' moves at once
  delay: 600,
  replay: null,       // {id, steps, step, game}
  record: null,       // the finished game's record, once fetched
  lastBody: null,     // the last new-game request (for "Play again")
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// Wait ms milliseconds, or less if the player asks to skip the bots' moves.
async function pause(ms) {
  const end = Date.now() + ms;
  while (!state.skip && Date.now() < end) await new Promise((r) => setTimeout(r, Math.min(50, end - Date.now())));
}

// ------------------------------------------------------------------ cards and names
function gameInfo(game) {
  return state.games[game] || { cards: {}, labels: {}, prefixes: {} };
}

// A card as the game draws it: [label, mark, css class] from the server's card faces.
function cardNode(name, game, opts = {}) {
  const [label, mark, cls] = gameInfo(game).cards[name] || [name, "", ""];
  const tag = opts.action ? "button" : "span";
  const node = el(tag, {
    class: "card " + cls + (opts.extra ? " " + opts.extra : ""),
    "data-action": opts.action || null,
    "data-card": name,
    type: opts.action ? "button" : null,
    title: opts.title || name,
  }, el("span", { class: "rank", text: label }), el("span", { class: "suit", text: mark }));
  if (opts.action) {
    node.disabled = !!opts.disabled;
    node.addEventListener("click", () => act(opts.action));
  }
  return node;
}

function actionLabel(name, game) {
  const info = gameInfo(game);
  if (info.labels[name]) return info.labels[name];
  for (const [prefix, label] of Object.entries(info.prefixes)) {
    if (name.startsWith(prefix)) return label + name.slice(prefix.length);
  }
  return name;
}

function seatName(seat, you) {
  return seat === you ? "You" : "player_" + seat;
}

// The card a move is about ("play:AS", "discard:Y10" -> the card), or null.
function cardOf(action, hand) {
  const i = action.indexOf(":");
  const card = i < 0 ? null : action.slice(i + 1);
  return card !== null && hand.includes(card) ? card : null;
}

// ------------------------------------------------------------------ API
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: "the server sent no JSON (" + res.status + ")" }; }
  if (!res.ok) throw new Error(data && data.error ? data.error : "HTTP " + res.status);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// ------------------------------------------------------------------ new game form
function fillOptions(opts) {
  state.options = opts;
  const select = $("opt-game");
  for (const g of opts.games) {
    state.games[g.name] = g;
    const presets = Object.keys(g.presets);
    const group = el("optgroup", { label: g.title });
    for (const preset of presets) {
      group.append(el("option", { value: `${g.name}:${preset}`, text: presets.length > 1 ? preset : g.title,
        selected: g.name === opts.default_game && preset === g.default_rules }));
    }
    select.append(group);
  }
  selectGame(true);
}

// The form follows the chosen game: players range, seats, the bots it offers, the intro.
function selectGame(force = false) {
  const [game] = $("opt-game").value.split(":");
  const changed = game !== state.game;
  state.game = game;
  const g = state.games[game];
  if (!g) return;
  const players = $("opt-players");
  const keep = Number(players.value);
  players.replaceChildren();
  const chosen = keep >= g.players[0] && keep <= g.players[1] && !force ? keep : g.default_players;
  for (let n = g.players[0]; n <= g.players[1]; n++) {
    players.append(el("option", { value: n, text: n, selected: n === chosen }));
  }
  if (changed || force) {
    const list = $("bot-list");
    list.replaceChildren();
    for (const b of g.bots) list.append(el("option", { value: b }));
    $("opt-opponents").value = g.bots[0] || "heuristic";
    $("hint-bot").value = g.bots.includes("heuristic") ? "heuristic" : g.bots[0] || "random";
    $("title").textContent = g.title;
    $("intro-game").textContent = g.intro || "";
  }
  fillSeats();
}

function fillSeats() {
  const seat = $("opt-seat");
  const keep = seat.value;
  seat.replaceChildren();
  const n = Number($("opt-players").value);
  for (let s = 0; s < n; s++) seat.append(el("option", { value: s, text: s, selected: String(s) === keep }));
}

// "start_score=6 leader=trick_winner hand_sizes=3,2,1" -> an object of Rules fields.
function parseOverrides(text) {
  const out = {};
  for (const item of text.split(/[\s;]+|,(?=\s*[A-Za-z_]\w*=)/).filter(Boolean)) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new Error(`an override is field=value (e.g. start_score=6), got "${item}"`);
    out[item.slice(0, eq)] = parseValue(item.slice(eq + 1));
  }
  return out;
}

function parseValue(raw) {
  if (/^-?\d+$/.test(raw)) return Number(raw);
  if (/^(true|True)$/.test(raw)) return true;
  if (/^(false|False)$/.test(raw)) return false;
  if (/^(null|None)$/.test(raw)) return null;
  const list = raw.replace(/^[([]|[)\]]$/g, "");
  if (/^-?\d+(,-?\d+)+,?$/.test(list)) return list.split(",").filter(Boolean).map(Number);
  return raw;
}

async function newGame(event) {
  if (event) event.preventDefault();
  if (state.busy) return;
  showError("");
  let body;
  try {
    const seedText = $("opt-seed").value.trim();
    if (seedText && !/^\d+$/.test(seedText)) throw new Error("the seed is a whole number (or empty for a random one)");
    const [game, rules] = $("opt-game").value.split(":");
    body = {
      game,
      rules,
      players: Number($("opt-players").value),
      seat: Number($("opt-seat").value),
      opponents: $("opt-opponents").value.trim() || "heuristic",
      seed: seedText ? Number(seedText) : null,
      overrides: parseOverrides($("opt-overrides").value),
    };
  } catch (e) {
    showError(e.message);
    return;
  }
  await startGame(body);
}

async function startGame(body) {
  state.busy = true;
  state.lastBody = body;
  $("game-over").hidden = true;
  state.record = null;
  state.view = null;
  $("log").replaceChildren();
  $("hint").replaceChildren();
  $("round-result").hidden = true;
  setStatus("Dealing …");
  showMode("game");
  try {
    const view = await api("POST", "/api/games", body);
    await show(view);
  } catch (e) {
    showError(e.message);
    state.busy = false;
    if (!state.view) showMode("intro");
  }
}

function showMode(mode) {
  $("intro").hidden = mode !== "intro";
  $("game").hidden = mode !== "game";
  $("replay").hidden = mode !== "replay";
  if (mode !== "game") $("game-over").hidden = true;
}

// ------------------------------------------------------------------ playing
async function act(action) {
  if (state.busy || !state.view || !state.view.legal.includes(action)) return;
  state.busy = true;
  showError("");
  $("hint").replaceChildren();
  $("round-result").hidden = true;
  renderControls();
  try {
    const view = await api("POST", `/api/games/${state.view.id}/actions`, { action });
    await show(view);
  } catch (e) {
    showError(e.message);
    state.busy = false;
    renderControls();
  }
}

// Show the moves since the last view one by one, then the view itself.
async function show(view) {
  state.busy = true;
  const you = view.your_seat;
  state.view = Object.assign({}, view, { legal: [] });  // nothing clickable while moves play
  $("title").textContent = view.title;
  renderControls();
  renderSheet(view.sheet_view, $("sheet"));
  if (view.events_skipped) {
    $("log").append(el("li", { class: "effects", text: `… ${view.events_skipped} earlier moves not shown` }));
  }
  state.skip = false;
  const others = view.events.filter((ev) => ev.seat !== you).length;
  $("skip").hidden = !(state.delay > 0 && others > 1);
  for (const ev of view.events) {
    logEvent(ev, you);
    const end = ev.effects.find((e) => e.type === "round_end");
    if (end) showRoundResult(end);
    if (state.skip) continue;
    const mine = ev.seat === you;
    renderTable(ev.table, view, ev);
    renderHand(ev.table.your_hand, [], view);
    if (state.delay > 0 && !mine) {
      const trickDone = ev.effects.some((e) => e.type === "trick");
      await pause(trickDone ? state.delay * 2 : state.delay);
    }
  }
  $("skip").hidden = true;
  state.view = view;
  state.busy = false;
  render(view);
}

function render(view) {
  renderTable(view.table, view, null);
  renderControls();
  renderSheet(view.sheet_view, $("sheet"));
  const seen = $("seen");
  seen.replaceChildren();
  for (const note of view.card_notes || []) {
    seen.append(el("span", { class: "muted", text: note.label + ": " }));
    for (const c of note.cards) seen.append(cardNode(c, view.game, { extra: "small" }));
  }
  if (view.finished) showGameOver(view);
}

function renderControls() {
  const view = state.view;
  if (!view) return;
  const legal = state.busy ? [] : view.legal;
  renderHand(view.hand, legal, view);
  const actions = $("actions");
  actions.replaceChildren();
  for (const name of view.legal) {
    if (cardOf(name, view.hand)) continue;  // a card move: the card in the hand is its button
    const b = el("button", { type: "button", class: "move " + name.replace(/:.*/, ""), "data-action": name,
      text: actionLabel(name, view.game) });
    b.disabled = !legal.includes(name);
    b.addEventListener("click", () => act(name));
    actions.append(b);
  }
  $("question").textContent = questionText(view, state.busy);
  $("hint-button").disabled = state.busy || !view.legal.length;
}

// The hand; a card that a legal move is about is a button for that move.
function renderHand(hand, legal, view) {
  const node = $("hand");
  node.replaceChildren();
  const moves = {};
  for (const name of (view && view.legal) || []) {
    const card = cardOf(name, hand);
    if (card) moves[card] = name;
  }
  for (const c of hand) {
    const action = moves[c] || null;
    const enabled = action !== null && legal.includes(action);
    node.append(cardNode(c, view.game, { action, disabled: !enabled, extra: enabled ? "playable" : "",
      title: action ? actionLabel(action, view.game) : c }));
  }
}

function questionText(view, busy) {
  if (view.finished) return "The game is over.";
  if (busy) return "";
  if (!view.legal.length) return `Waiting for player_${view.to_act} …`;
  return view.question || "Your move.";
}

// ------------------------------------------------------------------ the table
function seatPanel(p, you, agents, game, opts = {}) {
  const flags = (p.flags || []).map((f) => el("span", { class: "flag " + (f.class || ""), title: f.title || null,
    text: f.text }));
  const cls = ["seat"];
  if (p.to_act) cls.push("to-act");
  if (p.seat === you) cls.push("you");
  if (p.inactive) cls.push("inactive");
  if (opts.moved) cls.push("moved");
  const backs = el("div", { class: "backs", title: `${p.hand_size} cards` });
  if (opts.hand) {
    for (const c of opts.hand) backs.append(cardNode(c, game, { extra: "small" }));
  } else if (p.seat !== you) {
    for (let i = 0; i < p.hand_size; i++) backs.append(el("span", { class: "back" }));
  }
  return el("div", { class: cls.join(" "), "data-seat": p.seat },
    el("div", { class: "name" }, el("b", { text: p.name || seatName(p.seat, you) }),
      el("span", { class: "agent", text: agents[p.seat] === "human" ? "" : " " + agents[p.seat] })),
    el("div", { class: "score", title: "score", text: p.score }),
    el("div", { class: "line" }, el("span", { class: "call", text: p.call_text || "" }),
      el("span", { class: "tricks", text: p.tricks ? `tricks ${p.tricks}` : "" })),
    el("div", { class: "flags" }, ...flags),
    backs,
    opts.moveText ? el("div", { class: "said", text: opts.moveText }) : null);
}

function renderTable(table, view, ev) {
  const you = view.your_seat;
  const n = table.players.length;
  const others = $("others");
  others.replaceChildren();
  for (let k = 1; k < n; k++) {   // clockwise from your left
    const p = table.players[(you + k) % n];
    const moved = ev && ev.seat === p.seat;
    others.append(seatPanel(p, you, view.agents, view.game, { moved, moveText: moved ? ev.said : null }));
  }
  const mine = ev && ev.seat === you;
  $("me").replaceChildren(seatPanel(table.players[you], you, view.agents, view.game,
    { moved: mine, moveText: mine ? ev.said : null }));
  renderTrick($("trick"), $("trick-note"), table, you, view.game);
  setStatus(table.status.join(" · "));
}

function renderTrick(node, note, table, you, game) {
  node.replaceChildren();
  let cards = table.trick;
  let winner = null;
  if (!cards.length && table.last_trick) {
    cards = table.last_trick.cards;
    winner = table.last_trick.winner;
    note.textContent = `${seatName(winner, you)} ${winner === you ? "win" : "wins"} the trick`;
  } else {
    note.textContent = table.trick_note || "";
  }
  for (const { seat, card } of cards) {
    node.append(el("div", { class: "played" + (winner === seat ? " won" : "") + (winner !== null ? " old" : "") },
      cardNode(card, game), el("div", { class: "who", text: seatName(seat, you) })));
  }
}

// The round's result, shown on the table until the player's next move.
function showRoundResult(end) {
  const box = $("round-result");
  box.textContent = end.summary || end.text || "";
  box.hidden = !box.textContent;
}

function setStatus(text) { $("status").textContent = text; }

function logEvent(ev, you) {
  const log = $("log");
  const item = el("li", { class: ev.seat === you ? "mine" : "" }, ev.text);
  const notes = ev.effects.map((e) => e.text).filter(Boolean);
  if (notes.length) item.append(el("div", { class: "effects", text: notes.join(" · ") }));
  log.append(item);
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

// The score sheet as the server lays it out: a head row and one row per scored round.
function renderSheet(sheet, table) {
  table.replaceChildren();
  const head = el("tr");
  for (const h of sheet.head) head.append(el("th", { text: h.text, title: h.title || null }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of sheet.rows) {
    const row = el("tr");
    for (const c of r) row.append(el("td", { text: c.text, title: c.title || null, class: c.class || null }));
    body.append(row);
  }
  table.append(body);
}

// ------------------------------------------------------------------ hint
async function hint() {
  if (state.busy || !state.view || !state.view.legal.length) return;
  const box = $("hint");
  const game = state.view.game;
  box.textContent = "thinking …";
  try {
    const bot = $("hint-bot").value.trim() || "heuristic";
    const h = await api("GET", `/api/games/${state.view.id}/hint?bot=${encodeURIComponent(bot)}`);
    box.replaceChildren(el("div", {}, el("b", { text: h.bot }), ` would choose `,
      el("b", { "data-hint": h.action, text: actionLabel(h.action, game) })));
    if (h.values) {
      const rows = Object.entries(h.values).sort((a, b) => b[1] - a[1]);
      const t = el("table", { class: "values" },
        el("tr", {}, el("th", { text: "action" }), el("th", { text: h.kind === "probability" ? "probability" : "value" })));
      for (const [name, v] of rows) {
        t.append(el("tr", { class: name === h.action ? "best" : "" }, el("td", { text: actionLabel(name, game) }),
          el("td", { text: h.kind === "probability" ? (100 * v).toFixed(1) + " %" : v.toFixed(2) })));
      }
      box.append(t);
    } else {
      box.append(el("div", { class: "muted", text: "(this bot gives no values)" }));
    }
  } catch (e) {
    box.textContent = e.message;
  }
}

// ------------------------------------------------------------------ the end
function outcomeText(view, you) {
  if (view.truncated) return "The game reached its round limit: no winner.";
  const winners = view.winners || [];
  if (winners.length === 1 && winners[0] === you) return "You win!";
  const names = winners.map((w) => (w === you ? "You" : `player_${w} (${view.agents[w]})`));
  if (names.length > 1) return `${names.join(" and ")} share the win.`;
  return names.length ? `${names[0]} wins the game.` : "The game ended without a winner.";
}

function showGameOver(view) {
  const you = view.your_seat;
  $("game-over-title").textContent = outcomeText(view, you);
  const t = $("final-scores");
  t.replaceChildren(el("tr", {}, el("th", { text: "player" }), el("th", { text: "final score" })));
  for (let s = 0; s < view.players; s++) {
    t.append(el("tr", { class: (view.winners || []).includes(s) ? "best" : "" },
      el("td", { text: seatName(s, you) + (view.agents[s] === "human" ? "" : ` (${view.agents[s]})`) }),
      el("td", { text: view.scores[s] })));
  }
  $("game-over").hidden = false;
}

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
  state.replay = { id: frame.id, steps: frame.steps, game: frame.game };
  $("rp-step").max = frame.steps;
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

function renderReplay(f) {
  state.replay.step = f.step;
  $("rp-step").value = f.step;
  $("rp-pos").textContent = `move ${f.step} of ${f.steps}`;
  const status = [f.title].concat(f.status);
  if (f.last) status.push(`last: ${f.last.text}`);
  if (f.finished) {
    const w = f.winners;
    status.push(!w.length ? "no winner" : w.length === 1 ? `player_${w[0]} wins` : `${w.map((s) => "player_" + s).join(" and ")} share the win`);
  }
  $("rp-status").textContent = status.join(" · ");
  const seats = $("rp-seats");
  seats.replaceChildren();
  for (const p of f.seats) {
    seats.append(seatPanel(p, -1, f.agents, f.game, { hand: p.hand, moved: f.last && f.last.seat === p.seat }));
  }
  const trick = $("rp-trick");
  trick.replaceChildren();
  for (const { seat, card } of f.trick) {
    trick.append(el("div", { class: "played" }, cardNode(card, f.game), el("div", { class: "who", text: "player_" + seat })));
  }
  renderSheet(f.sheet_view, $("rp-sheet"));
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

// ------------------------------------------------------------------ start
function init() {
  const params = new URLSearchParams(location.search);
  const sel = $("opt-delay");
  if (params.has("delay")) {
    const d = String(Math.max(0, Number(params.get("delay")) || 0));
    if (![...sel.options].some((o) => o.value === d)) sel.append(el("option", { value: d, text: d + " ms" }));
    sel.value = d;
  }
  state.delay = Number(sel.value);
  sel.addEventListener("change", () => { state.delay = Number(sel.value); });
  $("opt-game").addEventListener("change", () => selectGame());
  $("opt-players").addEventListener("change", fillSeats);
  $("new-game-form").addEventListener("submit", newGame);
  $("hint-button").addEventListener("click", hint);
  $("play-again").addEventListener("click", () => {
    if (state.lastBody) startGame(Object.assign({}, state.lastBody, { seed: null }));
  });
  $("download-record").addEventListener("click", downloadRecord);
  $("replay-record").addEventListener("click", async () => {
    try { await openReplay(await fetchRecord()); } catch (e) { showError(e.message); }
  });
  $("close-game-over").addEventListener("click", () => { $("game-over").hidden = true; });
  $("skip").addEventListener("click", () => { state.skip = true; });
  $("open-record").addEventListener("change", openRecordFile);
  $("rp-first").addEventListener("click", () => replayStep(0));
  $("rp-prev").addEventListener("click", () => replayStep(state.replay.step - 1));
  $("rp-next").addEventListener("click", () => replayStep(state.replay.step + 1));
  $("rp-last").addEventListener("click", () => replayStep(state.replay.steps));
  $("rp-step").addEventListener("change", (e) => replayStep(Number(e.target.value)));
  $("rp-close").addEventListener("click", () => showMode(state.view ? "game" : "intro"));
  document.addEventListener("keydown", (e) => {
    if (!state.replay || $("replay").hidden) return;
    if (e.key === "ArrowRight") replayStep(state.replay.step + 1);
    if (e.key === "ArrowLeft") replayStep(state.replay.step - 1);
  });
  api("GET", "/api/options").then(fillOptions).catch((e) => showError(e.message));
}

document.addEventListener("DOMContentLoaded", init);
