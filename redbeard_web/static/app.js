// The game page: talks to the JSON API of redbeard_web.app; no build step, no libraries.
// It knows no game: every game's card faces, move labels, texts, stakes and rules come from
// the server (/api/options, the views, /api/levels, /api/bots). Every clickable move carries
// data-action="<action name>" (tests click by it); every card carries data-card="<card name>".
// This file: state, the API, the new-game form and levels (kept in localStorage with the bot
// speed), the trained bots of the chosen table and the label of a bot trained for another,
// playing (the bots wait at a round's result while it is read), resuming, keys.
// table.js draws the table; panels.js the hint, review, rules and replays.
"use strict";

const state = {
  options: null,      // /api/options
  games: {},          // game name -> its options (presets, players, bots, card faces, labels, rules pages)
  levels: {},         // "game:preset" -> /api/levels answer
  tableBots: {},      // [game, preset, players, rule changes] as JSON -> /api/bots answer
  levelsAsked: 0,     // the level list's latest refresh (an older answer is not drawn)
  bots: null,         // the /api/bots answer of the level list drawn
  game: null,         // the game of the form
  view: null,         // the last view from the server
  busy: false,        // a request or the bots' moves are being shown
  skip: false,        // show the rest of the bots' moves at once
  delay: 600,
  replay: null,       // {id, steps, step, game, you, log}
  record: null,       // the finished game's record, once fetched
  lastBody: null,     // the last new-game request (for "Play again")
  focus: 0,           // the hand card the arrow keys are on
  roundTricks: [],    // the tricks of the round on the table: [{cards, winner}]
  lastRound: null,    // the last round's result (its round_end effect)
  roundHold: null,    // while the bots wait for a round's result to be read: ends the wait
  hint: null,         // the hint shown: {action, actions (moves so far)}
  want: {},           // form choices to apply once the game's lists are filled: {players, seat, level}
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "style") {  // through the CSSOM: the page's CSP allows no style attributes
      for (const decl of String(v).split(";")) {
        const at = decl.indexOf(":");
        if (at > 0) node.style.setProperty(decl.slice(0, at).trim(), decl.slice(at + 1).trim());
      }
    }
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

// ------------------------------------------------------------------ API
let pending = 0;
let busyTimer = null;

function busyText(path) {
  if (path.includes("/review")) return "reviewing your play…";
  if (path.includes("/hint")) return "thinking about a hint…";
  if (path.includes("/replays")) return "loading the replay…";
  return "the bots are thinking…";
}

// A request; one that takes over 400 ms shows the spinner until it is answered.
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  pending += 1;
  if (!busyTimer) {
    busyTimer = setTimeout(() => { $("busy-text").textContent = busyText(path); $("busy").hidden = false; }, 400);
  }
  try {
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: "the server sent no JSON (" + res.status + ")" }; }
    if (!res.ok) {
      const err = new Error(data && data.error ? data.error : "HTTP " + res.status);
      err.status = res.status;
      throw err;
    }
    return data;
  } finally {
    pending -= 1;
    if (!pending) {
      clearTimeout(busyTimer);
      busyTimer = null;
      $("busy").hidden = true;
    }
  }
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// ------------------------------------------------------------------ ready
async function waitUntilReady() {
  const box = $("ready-status");
  for (;;) {
    let s;
    try { s = await fetch("/api/ready").then((r) => r.json()); } catch (e) { return; }
    if (s.ready) {
      box.textContent = s.state === "failed" ? "some bots failed to load" : "";
      box.className = s.state === "failed" ? "warn" : "";
      return;
    }
    box.replaceChildren(el("span", { class: "spinner" }), ` loading the bots ${s.loaded.length}/${s.total}…`);
    await new Promise((r) => setTimeout(r, 500));
  }
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
      group.append(el("option", { value: `${g.name}:${preset}`, text: presets.length > 1 ? `${g.title}: ${preset}` : g.title,
        selected: g.name === opts.default_game && preset === g.default_rules }));
    }
    select.append(group);
  }
  const names = opts.games.map((g) => {
    const sheets = Object.keys(g.presets).length;
    return sheets > 1 ? `${g.title} with ${sheets} rule sheets` : g.title;
  });
  $("intro-games").textContent = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}` : names.join("");
  document.title = `${opts.games.map((g) => g.title).join(", ")} — play against the bots`;
  const saved = savedSettings();
  if (saved.game && [...select.options].some((o) => o.value === saved.game)) select.value = saved.game;
  state.want = { players: saved.players, seat: saved.seat, level: saved.level };
  selectGame(true);
  if (saved.game === select.value) {
    if (saved.opponents) $("opt-opponents").value = saved.opponents;
    if (saved.overrides) $("opt-overrides").value = saved.overrides;
  }
}

// The form follows the chosen game: players range, seats, its bots and levels, the intro.
function selectGame(force = false) {
  const [game, preset] = $("opt-game").value.split(":");
  const changed = game !== state.game;
  state.game = game;
  const g = state.games[game];
  if (!g) return;
  const players = $("opt-players");
  const keep = Number(players.value);
  players.replaceChildren();
  const wanted = Number(state.want.players);
  delete state.want.players;
  const fits = (n) => n >= g.players[0] && n <= g.players[1];
  const chosen = fits(wanted) ? wanted : fits(keep) && !force ? keep : g.default_players;
  for (let n = g.players[0]; n <= g.players[1]; n++) {
    players.append(el("option", { value: n, text: n, selected: n === chosen }));
  }
  if (changed || force) {
    $("opt-opponents").value = g.bots.includes("heuristic") ? "heuristic" : g.bots[0] || "random";
    $("hint-bot").value = g.bots.includes("heuristic") ? "heuristic" : g.bots[0] || "random";
    if (!state.view) $("title").textContent = g.title;
    $("intro-game").textContent = g.intro || "";
  }
  fillSeats();
  loadLevels(game, preset);
}

// The policies the server plays at the form's table (game, sheet, players, rule changes),
// each with the table it was trained at and whether that is this one (GET /api/bots).
async function tableBots() {
  const [game, rules] = $("opt-game").value.split(":");
  let overrides = {};
  try { overrides = parseOverrides($("opt-overrides").value); } catch (e) { /* New game says what is wrong */ }
  const players = $("opt-players").value;
  const key = JSON.stringify([game, rules, players, overrides]);
  if (!state.tableBots[key]) {
    const query = new URLSearchParams({ game, rules, players, overrides: JSON.stringify(overrides) });
    try { state.tableBots[key] = await api("GET", `/api/bots?${query}`); }
    catch (e) { return { bots: [] }; }  // rule changes the server refuses: New game says why
  }
  return state.tableBots[key];
}

// The policy a bot plays by: a level's (the levels answer names it: a search searches one), a
// policy named inside a spec (search:policy=ppo:fem_opp_4p), else the spec itself.
function policyOf(spec) {
  const text = String(spec || "").trim();
  const level = ((state.levels[$("opt-game").value] || {}).levels || []).find((lv) => lv.bot === text);
  if (level) return level.policy || text;
  const nested = /[:,]\s*\w+\s*=\s*(ppo:[A-Za-z0-9_+-]+)/.exec(text);
  return nested ? nested[1] : text;
}

// "trained for classic, 4 players" for a bot whose policy the table's answer says was trained
// at another table.
function trainedFor(spec, bots) {
  const entry = (bots.bots || []).find((b) => b.bot === policyOf(spec));
  return entry && !entry.fits ? `trained for ${entry.trained}` : "";
}

// The level list of the form's table: the levels (a policy trained for another table says so),
// the --bots folders' policies trained for this table, and Custom.
async function loadLevels(game, preset) {
  const key = `${game}:${preset}`;
  const asked = ++state.levelsAsked;
  try {
    if (!state.levels[key]) state.levels[key] = await api("GET", `/api/levels?game=${game}&rules=${preset}`);
  } catch (e) { state.levels[key] = { levels: [] }; }
  const bots = await tableBots();
  if ($("opt-game").value !== key || asked !== state.levelsAsked) return;
  state.bots = bots;
  const select = $("opt-level");
  const keep = state.want.level || select.value;
  delete state.want.level;
  select.replaceChildren();
  const levels = state.levels[key].levels;
  levels.forEach((lv, i) => {
    const rating = `rating ${lv.rating.toFixed(1)}${lv.rated ? "" : " (on the rated sheet)"}`;
    const note = trainedFor(lv.bot, bots);
    select.append(el("option", { value: lv.bot, text: `${lv.name} · ${rating}${note ? " · " + note : ""}`,
      title: `${lv.bot}: OpenSkill rating ${lv.rating} ± ${lv.sigma}${note ? "; " + note : ""}`, "data-level": lv.name }));
  });
  const trained = bots.bots.filter((b) => !b.shipped && b.fits);
  if (trained.length) {
    const group = el("optgroup", { label: "Trained for this table" });
    for (const b of trained) {
      group.append(el("option", { value: b.bot, text: b.bot.replace(/^ppo:/, ""), "data-level": b.bot,
        title: `${b.bot}: trained for ${b.trained}` }));
    }
    select.append(group);
  }
  select.append(el("option", { value: "custom", text: "Custom…", title: "the bot spec under ⚙" }));
  const list = $("bot-list");
  const g = state.games[game];
  list.replaceChildren();
  for (const spec of [...g.bots, ...trained.map((b) => b.bot)]) {
    const note = trainedFor(spec, bots);
    list.append(el("option", { value: spec, label: note || null }));
  }
  const byName = levels.findIndex((lv) => lv.name === keep || lv.bot === keep);
  const options = [...select.options];
  if (keep === "custom" || !levels.length && !trained.length) select.value = "custom";
  else if (byName >= 0) select.selectedIndex = byName;
  else if (options.some((o) => o.value === keep)) select.value = keep;
  else select.selectedIndex = Math.max(0, Math.min(1, levels.length - 1));  // Club by default
  showBotNote();
}

// Beside New game: what the chosen bots' policy was trained for, when not for this table.
function showBotNote() {
  const spec = opponentsOfForm();
  const note = trainedFor(spec, state.bots || {});
  const policy = policyOf(spec);
  $("bot-note").textContent = !note ? "" : policy === spec.trim() ? `${spec} is ${note}` : `${spec} plays by ${policy}, ${note}`;
  $("bot-note").hidden = !note;
}

function fillSeats() {
  const seat = $("opt-seat");
  const keep = state.want.seat !== undefined ? String(state.want.seat) : seat.value;
  delete state.want.seat;
  seat.replaceChildren();
  const n = Number($("opt-players").value);
  for (let s = 0; s < n; s++) seat.append(el("option", { value: s, text: s, selected: String(s) === keep }));
}

// ------------------------------------------------------------------ remembered settings
// The form's choices (game, level, players, seat, custom bots, rule changes) and the bot speed
// are kept in the browser, so a reload or the next visit starts from them; a resumed game
// puts its own settings in the form, and New game then uses what the form shows.
const SAVED = "redbeard.table.settings";

function savedSettings() {
  try { return JSON.parse(localStorage.getItem(SAVED)) || {}; } catch (e) { return {}; }
}

function saveSettings(choices = {}) {
  const level = $("opt-level").selectedOptions[0];
  const out = Object.assign({ game: $("opt-game").value, level: level ? level.dataset.level || level.value : undefined,
    players: $("opt-players").value, seat: $("opt-seat").value, opponents: $("opt-opponents").value,
    overrides: $("opt-overrides").value, delay: $("opt-delay").value }, choices);
  try { localStorage.setItem(SAVED, JSON.stringify(out)); } catch (e) { /* no storage: nothing is kept */ }
}

// The form shows a game's settings (a new-game request, e.g. of a resumed game).
function showSettingsOf(body) {
  const choice = `${body.game}:${body.rules}`;
  if ([...$("opt-game").options].some((o) => o.value === choice)) $("opt-game").value = choice;
  const opponents = [].concat(body.opponents);
  const level = opponents.every((o) => o === opponents[0]) ? opponents[0] : "custom";
  state.want = { players: body.players, seat: body.seat, level };
  selectGame();
  $("opt-opponents").value = opponents[0];
  $("opt-overrides").value = overridesText(body.overrides || {});
  const known = ((state.levels[$("opt-game").value] || {}).levels || []).find((lv) => lv.bot === level);
  saveSettings({ level: known ? known.name : level });
}

// {start_score: 6, hand_sizes: [3, 2, 1]} -> "start_score=6 hand_sizes=3,2,1"
function overridesText(overrides) {
  return Object.entries(overrides).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : v}`).join(" ");
}

// "start_score=6 leader=trick_winner hand_sizes=3,2,1" -> an object of Rules fields.
function parseOverrides(text) {
  const out = {};
  for (const item of text.split(/[\s;]+|,(?=\s*[A-Za-z_]\w*=)/).filter(Boolean)) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new Error(`a rule change is field=value (e.g. start_score=6), got "${item}"`);
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

function opponentsOfForm() {
  const level = $("opt-level").value;
  if (level && level !== "custom") return level;
  return $("opt-opponents").value.trim() || "heuristic";
}

async function newGame(event) {
  if (event) event.preventDefault();
  if (state.busy && state.roundHold) {  // a round's result on show: the rest of the moves at once
    state.skip = true;
    while (state.busy) await new Promise((r) => setTimeout(r, 50));
  }
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
      opponents: opponentsOfForm(),
      seed: seedText ? Number(seedText) : null,
      overrides: parseOverrides($("opt-overrides").value),
    };
  } catch (e) {
    showError(e.message);
    return;
  }
  saveSettings();
  if (state.view && !state.view.finished) {
    state.confirmed = body;
    $("confirm-box").hidden = false;
    $("confirm-new").focus();
    return;
  }
  await startGame(body);
}

async function startGame(body) {
  state.busy = true;
  state.lastBody = body;
  $("game-over").hidden = true;
  $("game-over").classList.remove("mini");
  state.record = null;
  state.view = null;
  resetGamePanels();
  setStatus("Dealing …");
  showMode("game");
  try {
    const view = await api("POST", "/api/games", body);
    setGameUrl(view.id);
    await show(view);
  } catch (e) {
    showError(e.message);
    state.busy = false;
    if (!state.view) showMode("intro");
  }
}

function resetGamePanels() {
  for (const id of ["log", "hint", "review", "round-tricks", "stakes"]) $(id).replaceChildren();
  $("round-result").hidden = true;
  state.roundTricks = [];
  state.hint = null;
  setRoundBanner(null);
}

function showMode(mode) {
  $("intro").hidden = mode !== "intro";
  $("game").hidden = mode !== "game";
  $("replay").hidden = mode !== "replay";
  if (mode !== "game") $("game-over").hidden = true;
  else if (state.view && state.view.finished) $("game-over").hidden = false;
}

// ------------------------------------------------------------------ the game's address
function setGameUrl(id) {
  const params = new URLSearchParams(location.search);
  params.set("game", id);
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

function clearGameUrl() {
  const params = new URLSearchParams(location.search);
  params.delete("game");
  const query = params.toString();
  history.replaceState(null, "", location.pathname + (query ? `?${query}` : ""));
}

// A game named in the address: the same hand and moves, the log so far.
async function resume(id) {
  state.busy = true;
  showMode("game");
  setStatus("Opening your game …");
  try {
    const view = await api("GET", `/api/games/${id}`);
    const log = await api("GET", `/api/games/${id}/log`);
    state.lastBody = bodyOfView(view);
    showSettingsOf(state.lastBody);  // the form shows the game's sheet, bots, players and rule changes
    resetGamePanels();
    for (const entry of log.entries.slice(0, log.entries.length - view.events.length)) logEntry(entry, view.your_seat);
    await show(view);
  } catch (e) {
    state.busy = false;
    clearGameUrl();
    showMode("intro");
    showError(e.status === 404 ? "That game is no longer on the server (games expire when nobody looks at them); "
      + "start a new one." : e.message);
  }
}

// The new-game request that makes a game like this view's (for Play again after a reload).
function bodyOfView(view) {
  const g = state.games[view.game];
  let best = null;
  for (const [preset, fields] of Object.entries(g ? g.presets : {})) {
    const diff = {};
    for (const [k, v] of Object.entries(view.rules)) if (JSON.stringify(fields[k]) !== JSON.stringify(v)) diff[k] = v;
    if (!best || Object.keys(diff).length < Object.keys(best.overrides).length) best = { rules: preset, overrides: diff };
  }
  const opponents = view.agents.filter((_, s) => s !== view.your_seat);
  return { game: view.game, rules: best ? best.rules : undefined, overrides: best ? best.overrides : {},
    players: view.players, seat: view.your_seat, opponents, seed: null };
}

// ------------------------------------------------------------------ playing
async function act(action) {
  if (state.busy || !state.view || !state.view.legal.includes(action)) return;
  state.busy = true;
  state.showLast = false;
  state.hint = null;
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

// How long the bots wait, at most, for the player to read a round's result (ms).
function roundWait() {
  return Math.max(4000, 8 * state.delay);
}

// Show the moves since the last view one by one, then the view itself. At a round's end the
// bots wait while its result is read (see showRoundResult), so it never covers the next
// round; the game's last round is told in the game-over box instead.
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
    for (const e of ev.effects) if (e.type === "trick") state.roundTricks.push({ cards: e.cards, winner: e.winner });
    const end = ev.effects.find((e) => e.type === "round_end");
    const dealt = ev.effects.some((e) => e.type === "deal" || e.type === "round_end");  // tricks start afresh
    if (end) setRoundBanner(end);
    const last = view.finished && ev === view.events[view.events.length - 1];  // the game-over box tells it
    if (!state.skip) {
      const mine = ev.seat === you;
      const trick = ev.effects.some((e) => e.type === "trick");
      renderTable(ev.table, view, ev);
      renderHand(ev.table.your_hand, [], view);
      renderRoundTricks(state.roundTricks, view.game, you);
      if (end && !last && state.delay > 0) {
        await showRoundResult(end, roundWait());
        if (dealt) state.roundTricks = [];
        renderRoundTricks(state.roundTricks, view.game, you);
        $("round-result").hidden = true;  // with the table on the new round
        continue;
      }
      if (state.delay > 0 && !mine) await pause(trick ? state.delay * 2 : state.delay);
      else if (state.delay > 0 && trick) await pause(state.delay * 1.5);
    }
    if (dealt) state.roundTricks = [];
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
  renderChart(view.sheet_view, $("chart"), view.your_seat);
  state.roundTricks = (view.round_tricks || []).slice();
  renderRoundTricks(state.roundTricks, view.game, view.your_seat);
  const seen = $("seen");
  seen.replaceChildren();
  for (const note of view.card_notes || []) {
    seen.append(el("span", { class: "muted", text: note.label + ": " }));
    for (const c of note.cards) seen.append(cardNode(c, view.game, { extra: "small" }));
  }
  $("review-button").disabled = !(view.sheet || []).length;
  if (view.finished) showGameOver(view);
  if (view.legal.length && matchMedia("(max-width: 900px)").matches) window.scrollTo(0, 0);
}

function setStatus(text) { $("status").textContent = text; }

// ------------------------------------------------------------------ keys
function onKey(e) {
  if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (!$("replay").hidden && state.replay) {
    if (e.key === "ArrowRight") replayStep(state.replay.step + 1);
    else if (e.key === "ArrowLeft") replayStep(state.replay.step - 1);
    return;
  }
  const view = state.view;
  if ($("game").hidden || !view) return;
  if (state.roundHold && ["Enter", "Escape", " "].includes(e.key)) { state.roundHold(); e.preventDefault(); return; }
  if (e.key === "Escape") { closeDialogs(); return; }
  const key = e.key.toLowerCase();
  if (key === "h") { hint(); e.preventDefault(); return; }
  if (state.busy || !view.legal.length) return;
  if (/^\d$/.test(key) && view.legal.includes(`bid:${key}`)) { act(`bid:${key}`); e.preventDefault(); return; }
  const letters = (state.games[view.game] || {}).keys || {};
  const named = key === "p" ? "pass" : letters[key];
  if (named && view.legal.includes(named)) { act(named); e.preventDefault(); return; }
  const cards = [...document.querySelectorAll("#hand button.card.playable")];
  if (!cards.length) return;
  if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    const at = cards.indexOf(document.activeElement);
    const from = at >= 0 ? at : Math.min(state.focus, cards.length - 1);
    const next = at < 0 ? from : (from + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    state.focus = next;
    cards[next].focus();
    e.preventDefault();
  } else if (e.key === "Enter" && !cards.includes(document.activeElement)) {
    cards[Math.min(state.focus, cards.length - 1)].focus();
    e.preventDefault();
  }
}

function closeDialogs() {
  $("confirm-box").hidden = true;
  $("rules-box").hidden = true;
  $("round-result").hidden = true;
}

// ------------------------------------------------------------------ start
function init() {
  const params = new URLSearchParams(location.search);
  const sel = $("opt-delay");
  const savedDelay = savedSettings().delay;
  if (params.has("delay") || savedDelay !== undefined) {
    const d = String(Math.max(0, Number(params.has("delay") ? params.get("delay") : savedDelay) || 0));
    if (![...sel.options].some((o) => o.value === d)) sel.append(el("option", { value: d, text: d + " ms" }));
    sel.value = d;
  }
  state.delay = Number(sel.value);
  sel.addEventListener("change", () => { state.delay = Number(sel.value); });
  for (const form of [$("new-game-form"), $("settings")]) form.addEventListener("change", () => saveSettings());
  $("opt-game").addEventListener("change", () => selectGame());
  $("opt-players").addEventListener("change", () => { fillSeats(); loadLevels(...$("opt-game").value.split(":")); });
  $("opt-overrides").addEventListener("change", () => loadLevels(...$("opt-game").value.split(":")));
  $("opt-opponents").addEventListener("input", () => { $("opt-level").value = "custom"; showBotNote(); });
  $("opt-level").addEventListener("change", () => {
    if ($("opt-level").value === "custom") toggleSettings(true);
    showBotNote();
  });
  $("settings-toggle").addEventListener("click", () => toggleSettings());
  $("new-game-form").addEventListener("submit", newGame);
  $("confirm-new").addEventListener("click", () => { $("confirm-box").hidden = true; startGame(state.confirmed); });
  $("confirm-cancel").addEventListener("click", () => { $("confirm-box").hidden = true; });
  $("play-again").addEventListener("click", () => {
    const body = state.lastBody || (state.view && bodyOfView(state.view));
    if (body) startGame(Object.assign({}, body, { seed: null }));
  });
  $("close-game-over").addEventListener("click", () => { $("game-over").classList.toggle("mini"); });
  $("skip").addEventListener("click", () => { state.skip = true; });
  $("round-banner").addEventListener("click", () => { if (state.lastRound && !state.roundHold) showRoundResult(state.lastRound); });
  window.addEventListener("resize", () => { if (!$("game").hidden) layoutOval(); });
  document.addEventListener("keydown", onKey);
  initPanels();
  waitUntilReady();
  api("GET", "/api/options").then((opts) => {
    fillOptions(opts);
    if (params.has("game")) resume(params.get("game"));
  }).catch((e) => showError(e.message));
}

function toggleSettings(open) {
  const box = $("settings");
  box.hidden = open === undefined ? !box.hidden : !open;
  $("settings-toggle").setAttribute("aria-expanded", String(!box.hidden));
}

document.addEventListener("DOMContentLoaded", init);
