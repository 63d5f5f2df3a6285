// Rödskägg page: talks to the JSON API of redbeard_web.app; no build step, no libraries.
// Every clickable move carries data-action="<SPEC action name>" (tests click by it).
"use strict";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);
const ACTION_LABEL = {
  pass: "Pass", redbeard: "Rödskägg!", keep: "Keep hand", redeal: "Throw in (redeal)",
  look: "Look at it", no_look: "Don't look", ask: "Ask: who joins?", skip: "Skip the question",
  join: "Join", fold: "Fold",
};
const REASON = {
  trick: "trick", look: "look", bid_over_score: "bid over score", forget: "skipped question",
  contract: "contract failed", joiner_fail: "joined without a trick", zero_trick: "no trick",
  redbeard_zero: "Rödskägg made",
};

const state = {
  options: null,
  view: null,         // the last view from the server
  busy: false,        // a request or the bots' moves are being shown
  skip: false,        // show the rest of the bots' moves at once
  delay: 600,
  replay: null,       // {id, steps, frame}
  record: null,       // the finished game's record, once fetched
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
function cardNode(name, opts = {}) {
  const rank = name[0] === "T" ? "10" : name[0];
  const suit = name[1];
  const tag = opts.action ? "button" : "span";
  const node = el(tag, {
    class: "card" + (RED.has(suit) ? " red" : "") + (opts.extra ? " " + opts.extra : ""),
    "data-action": opts.action || null,
    "data-card": name,
    type: opts.action ? "button" : null,
    title: opts.title || null,
  }, el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUIT_SYMBOL[suit] }));
  if (opts.action) {
    node.disabled = !!opts.disabled;
    node.addEventListener("click", () => act(opts.action));
  }
  return node;
}

function actionLabel(name) {
  if (name.startsWith("bid:")) return "Bid " + name.slice(4);
  if (name.startsWith("play:")) return "Play " + name.slice(5);
  return ACTION_LABEL[name] || name;
}

function callText(call) {
  if (call === null || call === undefined) return "";
  if (call === "pass") return "pass";
  if (call === "redbeard") return "Rödskägg";
  return "bid " + call.slice(4);
}

function seatName(seat, you) {
  return seat === you ? "You" : "player_" + seat;
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
  const rules = $("opt-rules");
  for (const name of Object.keys(opts.presets)) rules.append(el("option", { value: name, text: name }));
  const players = $("opt-players");
  for (let n = opts.players[0]; n <= opts.players[1]; n++) {
    players.append(el("option", { value: n, text: n, selected: n === 4 }));
  }
  const list = $("bot-list");
  for (const b of opts.bots) list.append(el("option", { value: b }));
  $("opt-opponents").value = opts.bots[0];
  $("hint-bot").value = opts.bots.includes("heuristic") ? "heuristic" : opts.bots[0];
  fillSeats();
}

function fillSeats() {
  const seat = $("opt-seat");
  const keep = seat.value;
  seat.replaceChildren();
  const n = Number($("opt-players").value);
  for (let s = 0; s < n; s++) seat.append(el("option", { value: s, text: s, selected: String(s) === keep }));
}

function parseOverrides(text) {
  const out = {};
  for (const item of text.split(/[\s,;]+/).filter(Boolean)) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new Error(`an override is field=value (e.g. start_score=6), got "${item}"`);
    const key = item.slice(0, eq);
    const raw = item.slice(eq + 1);
    let value = raw;
    if (/^-?\d+$/.test(raw)) value = Number(raw);
    else if (/^(true|True)$/.test(raw)) value = true;
    else if (/^(false|False)$/.test(raw)) value = false;
    else if (/^(null|None)$/.test(raw)) value = null;
    out[key] = value;
  }
  return out;
}

async function newGame(event) {
  event.preventDefault();
  if (state.busy) return;
  showError("");
  let body;
  try {
    const seedText = $("opt-seed").value.trim();
    if (seedText && !/^\d+$/.test(seedText)) throw new Error("the seed is a whole number (or empty for a random one)");
    body = {
      rules: $("opt-rules").value,
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
  state.busy = true;
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
  const previous = state.view;
  state.view = Object.assign({}, view, { legal: [] });  // nothing clickable while moves play
  renderControls();
  renderSheet(view.sheet, view.players, you, $("sheet"));
  if (view.events_skipped) {
    $("log").append(el("li", { class: "effects", text: `… ${view.events_skipped} earlier moves not shown` }));
  }
  state.skip = false;
  const others = view.events.filter((ev) => ev.seat !== you).length;
  $("skip").hidden = !(state.delay > 0 && others > 1);
  for (const ev of view.events) {
    logEvent(ev, you);
    const end = ev.effects.find((e) => e.type === "round_end");
    if (end) showRoundResult(end, ev.effects, you);
    if (state.skip) continue;
    const mine = ev.seat === you;
    renderTable(ev.table, you, view.agents, ev);
    renderHand(ev.table.your_hand, [], view);
    if (state.delay > 0 && !mine) {
      const trickDone = ev.effects.some((e) => e.type === "trick");
      await pause(trickDone ? state.delay * 2 : state.delay);
    }
  }
  $("skip").hidden = true;
  state.view = view;
  state.busy = false;
  render(view, previous);
}

function render(view) {
  const you = view.your_seat;
  renderTable(view.table, you, view.agents, null);
  renderControls();
  renderSheet(view.sheet, view.players, you, $("sheet"));
  const seen = $("seen");
  seen.replaceChildren();
  if (view.seen_thrown.length) {
    seen.append(el("span", { class: "muted", text: "Thrown-in cards you have seen: " }));
    for (const c of view.seen_thrown) seen.append(cardNode(c, { extra: "small" }));
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
    if (name.startsWith("play:")) continue;
    const b = el("button", { type: "button", class: "move " + name.replace(/:.*/, ""), "data-action": name,
      text: actionLabel(name) });
    b.disabled = !legal.includes(name);
    b.addEventListener("click", () => act(name));
    actions.append(b);
  }
  $("question").textContent = questionText(view, state.busy);
  $("hint-button").disabled = state.busy || !view.legal.length;
}

function renderHand(hand, legal, view) {
  const node = $("hand");
  node.replaceChildren();
  const playing = view && ["play", "duel"].includes(view.phase);
  for (const c of hand) {
    const action = "play:" + c;
    const enabled = legal.includes(action);
    node.append(cardNode(c, { action: playing && view.legal.includes(action) ? action : null,
      disabled: !enabled, extra: enabled ? "playable" : "" }));
  }
}

function questionText(view, busy) {
  const t = view.table;
  if (view.finished) return "The game is over.";
  if (busy) return "";
  if (!view.legal.length) return `Waiting for player_${view.to_act} …`;
  switch (view.phase) {
    case "redeal": return "Your hand has no face card: keep it, or throw it in for a new one?";
    case "look": return `player_${t.thrower} threw in a hand. Look at it? If it held no face card you pay +5, otherwise they do.`;
    case "bid": return t.high_bid ? `Your call: the highest bid is ${callText(t.high_bid)} (player_${t.declarer}).` : "Your call: nobody has bid yet.";
    case "ask": return "You are the declarer: ask the others whether they join, or skip the question?";
    case "join": return "Do you join the last tricks, or fold?";
    case "play": case "duel": return t.trick.length ? "Your card: follow suit if you can." : "Your lead.";
  }
  return "";
}

// ------------------------------------------------------------------ the table
function seatPanel(p, you, agents, opts = {}) {
  const flags = [];
  if (p.dealer) flags.push(el("span", { class: "flag dealer", title: "dealer", text: "D" }));
  if (p.declarer) flags.push(el("span", { class: "flag declarer", title: "declarer", text: "★" }));
  if (p.joiner) flags.push(el("span", { class: "flag", text: "joined" }));
  if (p.bounced) flags.push(el("span", { class: "flag", text: "bounced" }));
  if (!p.active) flags.push(el("span", { class: "flag out", text: "out" }));
  else if (!p.in_round) flags.push(el("span", { class: "flag out", text: "folded" }));
  if (p.winner) flags.push(el("span", { class: "flag winner", text: "winner" }));
  const cls = ["seat"];
  if (p.to_act) cls.push("to-act");
  if (p.seat === you) cls.push("you");
  if (!p.active || !p.in_round) cls.push("inactive");
  if (opts.moved) cls.push("moved");
  const backs = el("div", { class: "backs", title: `${p.hand_size} cards` });
  if (opts.hand) {
    for (const c of opts.hand) backs.append(cardNode(c, { extra: "small" }));
  } else if (p.seat !== you) {
    for (let i = 0; i < p.hand_size; i++) backs.append(el("span", { class: "back" }));
  }
  return el("div", { class: cls.join(" "), "data-seat": p.seat },
    el("div", { class: "name" }, el("b", { text: p.name || seatName(p.seat, you) }),
      el("span", { class: "agent", text: agents[p.seat] === "human" ? "" : " " + agents[p.seat] })),
    el("div", { class: "score", title: "score", text: p.score }),
    el("div", { class: "line" }, el("span", { class: "call", text: callText(p.call) }),
      el("span", { class: "tricks", text: p.tricks ? `tricks ${p.tricks}` : "" })),
    el("div", { class: "flags" }, ...flags),
    backs,
    opts.moveText ? el("div", { class: "said", text: opts.moveText }) : null);
}

function renderTable(table, you, agents, ev) {
  const n = table.players.length;
  const others = $("others");
  others.replaceChildren();
  for (let k = 1; k < n; k++) {   // clockwise from your left
    const p = table.players[(you + k) % n];
    const moved = ev && ev.seat === p.seat;
    others.append(seatPanel(p, you, agents, { moved, moveText: moved ? shortMove(ev.action) : null }));
  }
  $("me").replaceChildren(seatPanel(table.players[you], you, agents,
    { moved: ev && ev.seat === you, moveText: ev && ev.seat === you ? shortMove(ev.action) : null }));
  renderTrick($("trick"), $("trick-note"), table, you);
  setStatus(statusText(table, you));
}

function renderTrick(node, note, table, you) {
  node.replaceChildren();
  let cards = table.trick;
  let winner = null;
  if (!cards.length && table.last_trick) {
    cards = table.last_trick.cards;
    winner = table.last_trick.winner;
    note.textContent = `${seatName(winner, you)} ${winner === you ? "win" : "wins"} the trick`;
  } else {
    note.textContent = table.phase === "play" || table.phase === "duel"
      ? `trick ${table.tricks_done + 1} of 6` : "";
  }
  for (const { seat, card } of cards) {
    node.append(el("div", { class: "played" + (winner === seat ? " won" : "") + (winner !== null ? " old" : "") },
      cardNode(card), el("div", { class: "who", text: seatName(seat, you) })));
  }
}

// The round's result, shown on the table until the player's next move.
function showRoundResult(end, effects, you) {
  const box = $("round-result");
  let text;
  if (end.declarer === null) {
    text = `Round ${end.round}: everyone passed.`;
  } else {
    const who = seatName(end.declarer, you);
    const failed = effects.some((e) => e.type === "score" && e.reason === "contract" && e.seat === end.declarer);
    const made = end.bid === "redbeard" ? end.tricks[end.declarer] === 6 : !failed;
    const bid = end.bid === "redbeard" ? "called Rödskägg" : `bid ${end.bid.slice(4)}`;
    text = `Round ${end.round}: ${who} ${bid} and took ${end.tricks[end.declarer]} — ${made ? "made it" : "failed"}.`;
  }
  const penalties = effects.filter((e) => e.type === "score" && e.reason !== "trick")
    .map((e) => `${seatName(e.seat, you)} ${e.delta > 0 ? "+" : ""}${e.delta} (${REASON[e.reason] || e.reason})`);
  if (penalties.length) text += " " + penalties.join(", ") + ".";
  box.textContent = text;
  box.hidden = false;
}

function shortMove(action) {
  if (action.startsWith("play:")) return "plays " + action.slice(5).replace("T", "10");
  if (action.startsWith("bid:")) return "bids " + action.slice(4);
  return actionLabel(action);
}

function statusText(table, you) {
  const parts = [`Round ${table.round}`, `dealer ${seatName(table.dealer, you)}`];
  if (table.declarer !== null) parts.push(`declarer ${seatName(table.declarer, you)} (${callText(table.high_bid)})`);
  if (table.phase === "duel") parts.push(`duel between ${table.duellists.map((s) => seatName(s, you)).join(" and ")}`);
  if (table.to_act !== null) parts.push(table.to_act === you ? "your turn" : `player_${table.to_act} to act`);
  parts.push(`stock ${table.stock_size} cards`);
  return parts.join(" · ");
}

function setStatus(text) { $("status").textContent = text; }

function logEvent(ev, you) {
  const log = $("log");
  const item = el("li", { class: ev.seat === you ? "mine" : "" }, ev.text);
  const notes = [];
  for (const e of ev.effects) {
    if (e.type === "score") notes.push(`${seatName(e.seat, you)} ${e.delta > 0 ? "+" : ""}${e.delta} (${REASON[e.reason] || e.reason})`);
    else if (e.type === "trick") notes.push(`${seatName(e.winner, you)} ${e.winner === you ? "take" : "takes"} the trick`);
    else if (e.type === "round_end") notes.push(`round ${e.round} over`);
    else if (e.type === "eliminated") notes.push(`${seatName(e.seat, you)} ${e.seat === you ? "are" : "is"} out of the game`);
    else if (e.type === "duel") notes.push(`duel: ${e.seats.map((s) => seatName(s, you)).join(" vs ")}`);
    else if (e.type === "winner") notes.push(`${seatName(e.seat, you)} ${e.seat === you ? "win" : "wins"} the game!`);
    else if (e.type === "truncated") notes.push("the game reached its round limit");
    else if (e.type === "deal") notes.push(e.kind === "duel" ? "new duel deal" : `new deal, dealer ${seatName(e.dealer, you)}`);
  }
  if (notes.length) item.append(el("div", { class: "effects", text: notes.join(" · ") }));
  log.append(item);
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function shortSeat(seat, you) {
  return seat === you ? "You" : "P" + seat;
}

// One row per scored round: the declarer and bid, then each player's score after the
// round with the tricks taken in brackets ("–": folded or out).
function renderSheet(sheet, n, you, table) {
  table.replaceChildren();
  const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "bid" }));
  for (let s = 0; s < n; s++) head.append(el("th", { text: shortSeat(s, you), title: seatName(s, you) }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of sheet) {
    const bid = r.bid === "redbeard" ? "R" : r.bid ? r.bid.slice(4) : "";
    const row = el("tr", {}, el("td", { text: r.round }),
      el("td", { text: r.declarer === null ? "–" : `${shortSeat(r.declarer, you)}: ${bid}`,
        title: r.declarer === null ? "all passed" : `${seatName(r.declarer, you)} ${callText(r.bid)}` }));
    for (let s = 0; s < n; s++) {
      const out = r.in_round[s] ? "" : " –";
      row.append(el("td", { class: r.scores[s] === 0 ? "zero" : "", title: `tricks ${r.tricks[s]}`,
        text: `${r.scores[s]}` + (r.tricks[s] ? ` (${r.tricks[s]})` : "") + out }));
    }
    body.append(row);
  }
  table.append(body);
}

// ------------------------------------------------------------------ hint
async function hint() {
  if (state.busy || !state.view || !state.view.legal.length) return;
  const box = $("hint");
  box.textContent = "thinking …";
  try {
    const bot = $("hint-bot").value.trim() || "heuristic";
    const h = await api("GET", `/api/games/${state.view.id}/hint?bot=${encodeURIComponent(bot)}`);
    box.replaceChildren(el("div", {}, el("b", { text: h.bot }), ` would choose `,
      el("b", { "data-hint": h.action, text: actionLabel(h.action) })));
    if (h.values) {
      const rows = Object.entries(h.values).sort((a, b) => b[1] - a[1]);
      const t = el("table", { class: "values" },
        el("tr", {}, el("th", { text: "action" }), el("th", { text: h.kind === "probability" ? "probability" : "value" })));
      for (const [name, v] of rows) {
        t.append(el("tr", { class: name === h.action ? "best" : "" }, el("td", { text: actionLabel(name) }),
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
function showGameOver(view) {
  const you = view.your_seat;
  let title;
  if (view.truncated) title = "The game reached its round limit: no winner.";
  else if (view.winner === you) title = "You win!";
  else title = `player_${view.winner} (${view.agents[view.winner]}) wins the game.`;
  $("game-over-title").textContent = title;
  const t = $("final-scores");
  t.replaceChildren(el("tr", {}, el("th", { text: "player" }), el("th", { text: "final score" })));
  for (let s = 0; s < view.players; s++) {
    t.append(el("tr", { class: s === view.winner ? "best" : "" },
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
    const a = el("a", { href: URL.createObjectURL(blob), download: `redbeard-${state.view.id}.jsonl` });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ replays
async function openReplay(record) {
  showError("");
  const frame = await api("POST", "/api/replays", { record });
  state.replay = { id: frame.id, steps: frame.steps };
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
  const status = [`Round ${f.round}`, `dealer player_${f.dealer}`];
  if (f.declarer !== null) status.push(`declarer player_${f.declarer}`);
  if (f.last) status.push(`last: ${f.last.text}`);
  if (f.finished) status.push(f.winner === null ? "no winner" : `player_${f.winner} wins`);
  $("rp-status").textContent = status.join(" · ");
  const seats = $("rp-seats");
  seats.replaceChildren();
  for (let s = 0; s < f.players; s++) {
    const p = {
      seat: s, name: "player_" + s, score: f.scores[s], call: f.calls[s], tricks: f.tricks[s],
      active: f.active[s], in_round: f.in_round[s], dealer: s === f.dealer, declarer: s === f.declarer,
      to_act: s === f.to_act, winner: s === f.winner, hand_size: f.hands[s].length,
    };
    seats.append(seatPanel(p, -1, f.agents, { hand: f.hands[s], moved: f.last && f.last.seat === s }));
  }
  const trick = $("rp-trick");
  trick.replaceChildren();
  for (const { seat, card } of f.trick) {
    trick.append(el("div", { class: "played" }, cardNode(card), el("div", { class: "who", text: "player_" + seat })));
  }
  renderSheet(f.sheet, f.players, -1, $("rp-sheet"));
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
  $("opt-players").addEventListener("change", fillSeats);
  $("new-game-form").addEventListener("submit", newGame);
  $("hint-button").addEventListener("click", hint);
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
