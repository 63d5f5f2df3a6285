// The table: cards, the seats around the oval in seat order, the trick in the free middle
// (in the order played, each card over its player's name, the winner marked until the next
// card), a round's result (the only box over the table), the question with its stakes and
// buttons, your hand, the round's tricks, the score sheet and its chart, the log.
// Everything drawn comes from the server's views; nothing here knows a game.
"use strict";

// ------------------------------------------------------------------ cards and names
function gameInfo(game) {
  return state.games[game] || { cards: {}, labels: {}, prefixes: {}, keys: {} };
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
    title: opts.title || label + (mark.length === 1 ? mark : " " + mark),
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
    if (name.startsWith(prefix)) {
      const card = name.slice(prefix.length);
      const face = info.cards[card];
      return label + (face && face[1].length === 1 ? face[0] + face[1] : card);
    }
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

// A text with its suit symbols coloured, a colour game's cards as coloured chips and "You"
// in bold (``game``: whose cards; default the game on the page).
function richText(text, game) {
  const g = game || (state.view ? state.view.game : state.replay ? state.replay.game : null);
  const faces = gameInfo(g).cards;
  const out = el("span");
  for (const part of String(text).split(/((?:10|[2-9JQKA])[♥♦♠♣]|\bYou\b|\b[A-Z]\d{1,2}\b)/)) {
    if (!part) continue;
    const face = faces[part];
    if (/[♥♦]$/.test(part)) out.append(el("span", { class: "red", text: part }));
    else if (/[♠♣]$/.test(part)) out.append(el("span", { class: "black", text: part }));
    else if (part === "You") out.append(el("b", { text: part }));
    else if (face && face[1].length > 1) out.append(el("span", { class: "tcard " + face[2], title: `${face[1]} ${face[0]}`, text: part }));
    else out.append(part);
  }
  return out;
}

// ------------------------------------------------------------------ the question, stakes, buttons, hand
function renderControls() {
  const view = state.view;
  if (!view) return;
  const legal = state.busy ? [] : view.legal;
  const stakes = view.stakes || [];
  const tip = {};
  for (const s of stakes) if (s.action) tip[s.action] = s.text;
  renderHand(view.hand, legal, view);
  const actions = $("actions");
  actions.replaceChildren();
  const keys = Object.fromEntries(Object.entries(gameInfo(view.game).keys || {}).map(([k, v]) => [v, k]));
  for (const name of view.legal) {
    if (cardOf(name, view.hand)) continue;  // a card move: the card in the hand is its button
    const key = name.startsWith("bid:") ? name.slice(4) : keys[name];
    const b = el("button", { type: "button", class: "move " + name.replace(/:.*/, ""), "data-action": name,
      title: (tip[name] || actionLabel(name, view.game)) + (key ? ` (key ${key.toUpperCase()})` : "") },
      actionLabel(name, view.game));
    b.disabled = !legal.includes(name);
    b.addEventListener("click", () => act(name));
    actions.append(b);
  }
  $("question").textContent = questionText(view, state.busy);
  const list = $("stakes");
  list.replaceChildren();
  if (!state.busy) {
    for (const s of stakes) {
      list.append(el("li", { class: s.action ? "for-action" : "note", "data-for": s.action || null }, richText(s.text)));
    }
  }
  list.hidden = !list.children.length;
  $("hint-button").disabled = state.busy || !view.legal.length;
  markHint();
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
      title: action ? actionLabel(action, view.game) : null }));
  }
}

function questionText(view, busy) {
  if (view.finished) return "The game is over.";
  if (busy) return "";
  if (!view.legal.length) return `Waiting for player_${view.to_act} …`;
  return view.question || "Your move.";
}

// ------------------------------------------------------------------ the seats around the oval
// Where relative seat k of n sits, in % of the oval: you at the bottom, the others clockwise
// (your left first, over the top, to your right).
function seatSpot(k, n) {
  const angle = (Math.PI / 2) + (2 * Math.PI * k) / n;
  return { x: 50 + 37 * Math.cos(angle), y: 50 + 39 * Math.sin(angle) };
}

function seatPanel(p, you, agents, game, opts = {}) {
  const help = gameInfo(game).flag_help || {};
  const flags = (p.flags || []).map((f) => {
    const title = help[f.text] || f.title || null;
    return el("span", { class: "flag " + (f.class || ""), title, "aria-label": title, text: f.text });
  });
  const cls = ["seat"];
  if (p.to_act) cls.push("to-act");
  if (p.seat === you) cls.push("you");
  if (p.inactive) cls.push("inactive");
  if (opts.moved) cls.push("moved");
  const backs = el("div", { class: "backs", title: `${p.hand_size} cards in hand` });
  if (opts.hand) {
    for (const c of opts.hand) backs.append(cardNode(c, game, { extra: "small" }));
  } else if (p.seat !== you) {
    for (let i = 0; i < p.hand_size; i++) backs.append(el("span", { class: "back" }));
  }
  const node = el("div", { class: cls.join(" "), "data-seat": p.seat },
    el("div", { class: "name" }, el("b", { text: opts.name || p.name || seatName(p.seat, you) }),
      el("span", { class: "agent", text: agents[p.seat] === "human" ? "" : " " + agents[p.seat] })),
    el("div", { class: "mid" }, el("span", { class: "score", title: "score" + (p.to_act ? " · to act" : ""), text: p.score }),
      el("span", { class: "flags" }, ...flags)),
    el("div", { class: "line" }, el("span", { class: "call", text: p.call_text || "" }),
      el("span", { class: "tricks", title: "tricks taken this round", text: p.tricks ? `tricks ${p.tricks}` : "" })),
    backs,
    opts.moveText ? el("div", { class: "said" }, richText(opts.moveText)) : null);
  return node;
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
  $("oval").dataset.players = n;
  renderTrick(table, you, view.game, ev);
  setStatus(table.status.join(" · "));
  const last = table.last_trick;
  $("last-trick-button").hidden = !(last && table.trick.length);
  layoutOval();
}

// Each card of the trick in the order played, its player named under it; the trick just won
// stays, its winner marked, until the next card. A card just played flies in from its seat
// and a won trick is gathered towards its winner (the offsets are set by layoutOval).
function renderTrick(table, you, game, ev) {
  const node = $("trick-cards");
  const note = $("trick-note");
  node.replaceChildren();
  let cards = table.trick;
  let winner = null;
  const showLast = state.showLast && table.last_trick && table.trick.length;
  if ((!cards.length || showLast) && table.last_trick) {
    cards = table.last_trick.cards;
    winner = table.last_trick.winner;
    note.textContent = `${seatName(winner, you)} ${winner === you ? "take" : "takes"} the trick` + (showLast ? " (last trick)" : "");
  } else {
    note.textContent = table.trick_note || "";
  }
  const played = ev ? cardOf(ev.action, cards.map((c) => c.card)) : null;
  const short = $("oval").clientWidth < 560;  // a phone: the score sheet's short names
  const who = (seat) => (short && seat !== you ? `P${seat}` : seatName(seat, you));
  const gather = ev && winner !== null && ev.effects.some((e) => e.type === "trick");
  for (const { seat, card } of cards) {
    const cls = ["played"];
    if (winner === seat) cls.push("won");
    if (winner !== null && winner !== seat) cls.push("old");
    if (card === played && seat === ev.seat) cls.push("fresh");
    if (gather) cls.push("gathering");
    node.append(el("div", { class: cls.join(" "), "data-seat": seat, "data-winner": gather ? winner : null },
      cardNode(card, game), el("div", { class: "who", title: seatName(seat, you), text: who(seat) })));
  }
}

// The box of an element in the oval's pixels.
function boxIn(node, origin) {
  const r = node.getBoundingClientRect();
  return { l: r.left - origin.left, t: r.top - origin.top, r: r.right - origin.left, b: r.bottom - origin.top };
}

// The seats and the trick laid out in pixels from the oval's size: every seat inside the
// oval's box at its place clockwise (you at the bottom), the trick in the largest free
// rectangle around the middle, its cards made smaller until they fit there.
function layoutOval() {
  const oval = $("oval");
  const W = oval.clientWidth, H = oval.clientHeight;
  const n = Number(oval.dataset.players);
  if (!W || !H || !n) return;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const seats = [...$("others").children];
  const boxes = [];
  seats.forEach((node, i) => {
    const spot = seatSpot(i + 1, n);
    const w = node.offsetWidth, h = node.offsetHeight;
    const x = clamp((spot.x / 100) * W - w / 2, 0, W - w), y = clamp((spot.y / 100) * H - h / 2, 0, H - h);
    node.style.setProperty("left", `${x}px`);
    node.style.setProperty("top", `${y}px`);
    boxes.push({ l: x, t: y, r: x + w, b: y + h });
  });
  const me = $("me").firstElementChild;
  if (me) {
    const w = me.offsetWidth, h = me.offsetHeight;
    me.style.setProperty("left", `${(W - w) / 2}px`);
    me.style.setProperty("top", `${H - h}px`);
    boxes.push({ l: (W - w) / 2, t: H - h, r: (W + w) / 2, b: H });
  }
  // the trick's place: of the rectangles around the middle clear of every seat (edges on the
  // oval's or the seats' edges), the largest where a whole trick of n cards fits in rows at
  // full size (measured on a card on show), else the largest
  const cx = W / 2, cy = H / 2, gap = 6;
  const ls = [gap, ...boxes.map((b) => b.r + gap)].filter((x) => x < cx);
  const rs = [W - gap, ...boxes.map((b) => b.l - gap)].filter((x) => x > cx);
  const ts = [gap, ...boxes.map((b) => b.b + gap)].filter((y) => y < cy);
  const bs = [H - gap, ...boxes.map((b) => b.t - gap)].filter((y) => y > cy);
  const trick = $("trick");
  trick.classList.remove("smaller", "smallest");
  const shown = $("trick-cards").firstElementChild;
  const rowGap = parseFloat(getComputedStyle($("trick-cards")).rowGap) || 0;
  const colGap = parseFloat(getComputedStyle($("trick-cards")).columnGap) || 0;
  const noteH = ($("trick-note").offsetHeight || 16) + 4;
  const fitsAll = (w, h) => {
    if (!shown) return true;
    const perRow = Math.floor((w + colGap) / (shown.offsetWidth + colGap));
    const rows = perRow > 0 ? Math.ceil(n / perRow) : Infinity;
    return rows * shown.offsetHeight + (rows - 1) * rowGap + noteH <= h;
  };
  let well = { l: cx - 1, t: cy - 1, r: cx + 1, b: cy + 1 }, best = -1;
  for (const l of ls) for (const r of rs) for (const t of ts) for (const b of bs) {
    if (boxes.some((s) => s.l < r && s.r > l && s.t < b && s.b > t)) continue;
    const score = (r - l) * (b - t) + (fitsAll(r - l, b - t) ? W * H : 0);
    if (score > best) { best = score; well = { l, t, r, b }; }
  }
  // centred on the middle of the table where it still holds the trick
  const centred = { l: Math.max(well.l, 2 * cx - well.r), r: Math.min(well.r, 2 * cx - well.l),
    t: Math.max(well.t, 2 * cy - well.b), b: Math.min(well.b, 2 * cy - well.t) };
  if (fitsAll(centred.r - centred.l, centred.b - centred.t)) well = centred;
  trick.style.setProperty("left", `${well.l}px`);
  trick.style.setProperty("top", `${well.t}px`);
  trick.style.setProperty("width", `${Math.max(0, well.r - well.l)}px`);
  trick.style.setProperty("height", `${Math.max(0, well.b - well.t)}px`);
  const fits = () => trick.scrollHeight <= trick.clientHeight + 1 && trick.scrollWidth <= trick.clientWidth + 1;
  if (!fits()) trick.classList.add("smaller");
  if (!fits()) trick.classList.replace("smaller", "smallest");
  // where each card flies in from (its seat) and is gathered to (the winner's seat)
  const origin = oval.getBoundingClientRect();
  const seatBox = (seat) => {
    const node = oval.querySelector(`.seat[data-seat="${seat}"]`);
    return node ? boxIn(node, origin) : null;
  };
  for (const card of $("trick-cards").children) {
    const c = boxIn(card, origin);
    const from = seatBox(card.dataset.seat);
    if (from) {
      card.style.setProperty("--fx", `${(from.l + from.r - c.l - c.r) / 2}px`);
      card.style.setProperty("--fy", `${(from.t + from.b - c.t - c.b) / 2}px`);
    }
    const to = card.dataset.winner !== undefined ? seatBox(card.dataset.winner) : null;
    if (to) {
      card.style.setProperty("--gx", `${(to.l + to.r - c.l - c.r) / 2}px`);
      card.style.setProperty("--gy", `${(to.t + to.b - c.t - c.b) / 2}px`);
    }
  }
}

// ------------------------------------------------------------------ the round's result
// A finished round's result: its headline and every score change with its reason.
function roundResultNodes(end) {
  const nodes = [el("div", { class: "title" }, richText(end.headline || end.summary || end.text || ""))];
  const list = el("ul");
  for (const c of end.changes || []) list.append(el("li", {}, richText(c.text)));
  for (const note of end.notes || []) list.append(el("li", { class: "note" }, richText(note)));
  if (list.children.length) nodes.push(list);
  return nodes;
}

// The last round's result as a chip above the table (it opens the result box).
function setRoundBanner(end) {
  const chip = $("round-banner");
  chip.hidden = !end;
  chip.textContent = end ? `${end.headline || end.text || "round over"} ▸` : "";
  state.lastRound = end || null;
}

// The round's result over the table, the only box there. With ``wait`` (ms) the bots wait
// for the player: resolves when "Next round" (or Enter) is pressed, or after ``wait`` ms
// unless the player tapped the box to keep it; the caller closes it once the table has moved
// on. Without: it shows until OK or the player's next move.
function showRoundResult(end, wait = 0) {
  const box = $("round-result");
  box.replaceChildren(...roundResultNodes(end));
  let done = false, kept = false, left = wait;
  const button = el("button", { type: "button", class: "chip next", onclick: (e) => {
    e.stopPropagation();
    if (wait) done = true;
    else box.hidden = true;
  } }, wait ? "Next round ▸" : "OK");
  const count = el("span", { class: "muted small countdown" });
  box.append(el("div", { class: "buttons" }, button, count));
  box.title = wait ? "tap to keep this open" : "";
  box.onclick = () => { kept = true; };
  box.hidden = false;
  if (!wait) return Promise.resolve();
  state.roundHold = () => { done = true; };
  button.focus({ preventScroll: true });
  return (async () => {
    while (!done && !state.skip && (kept || left > 0)) {
      count.textContent = kept ? "kept open" : `${Math.ceil(left / 1000)} s`;
      await new Promise((r) => setTimeout(r, 100));
      left -= 100;
    }
    state.roundHold = null;
  })();
}

// ------------------------------------------------------------------ the round's tricks
function renderRoundTricks(tricks, game, you) {
  const list = $("round-tricks");
  list.replaceChildren();
  for (const t of tricks || []) {
    const item = el("li", { class: "trick" });
    for (const { seat, card } of t.cards) {
      item.append(cardNode(card, game, { extra: "small" + (seat === t.winner ? " won" : ""),
        title: `${seatName(seat, you)}: ${card}` }));
    }
    item.append(el("span", { class: "muted", text: ` → ${seatName(t.winner, you)}` }));
    list.append(item);
  }
  if (!list.children.length) list.append(el("li", { class: "muted", text: "no trick yet" }));
}

// ------------------------------------------------------------------ the log
// A move's notes and its round's summary, each said once (the summary repeats the round's
// notes, e.g. who won the game).
function moveNotes(notes, summary) {
  const out = notes.filter((n) => n && !(summary && summary.includes(n)));
  return summary ? out.concat([summary]) : out;
}

function logEvent(ev, you) {
  const log = $("log");
  const item = el("li", { class: ev.seat === you ? "mine" : "" }, richText(ev.text));
  const end = ev.effects.find((e) => e.type === "round_end");
  const notes = moveNotes(ev.effects.filter((e) => e.type !== "round_end").map((e) => e.text), end && end.summary);
  if (notes.length) item.append(el("div", { class: "effects" }, richText(notes.join(" · "))));
  appendLog(log, item);
}

function logEntry(entry, you) {
  const item = el("li", { class: entry.seat === you ? "mine" : "" }, richText(entry.text));
  const notes = moveNotes(entry.notes, entry.summary);
  if (notes.length) item.append(el("div", { class: "effects" }, richText(notes.join(" · "))));
  appendLog($("log"), item);
}

function appendLog(log, item) {
  log.append(item);
  while (log.children.length > 400) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

// ------------------------------------------------------------------ the score sheet and chart
// The score sheet as the server lays it out: a head row and one row per scored round.
function renderSheet(sheet, table, you = null) {
  table.replaceChildren();
  const head = el("tr");
  for (const h of sheet.head) {
    const mine = you !== null && h.text === `P${you}`;  // a replay's sheet: your column is "You"
    head.append(el("th", { text: mine ? "You" : h.text, title: mine ? "You" : h.title || null }));
  }
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of sheet.rows) {
    const row = el("tr");
    for (const c of r) {
      row.append(el("td", { title: c.title || null, class: c.class || null }, c.text,
        c.sub ? el("sub", { text: c.sub }) : null));
    }
    body.append(row);
  }
  table.append(body);
  const legend = table.id === "sheet" ? $("sheet-legend") : null;
  if (legend) legend.textContent = sheet.legend || "";
  const wrap = table.parentElement;
  if (wrap) wrap.scrollTop = wrap.scrollHeight;
}

const SEAT_COLOURS = ["#c0392b", "#2471a3", "#229954", "#b9770e", "#7d3c98", "#17a589", "#566573"];

// Every seat's score after each round as lines (yours thicker), the 0 line marked.
function renderChart(sheet, box, you) {
  box.replaceChildren();
  const series = sheet.series || [];
  const points = series.flatMap((s) => s.points);
  if (!series.length || series[0].points.length < 2) return;
  const W = 320, H = 150, pad = 22;
  const lo = Math.min(0, ...points), hi = Math.max(0, ...points);
  const steps = series[0].points.length - 1;
  const x = (i) => pad + (i * (W - pad - 6)) / Math.max(steps, 1);
  const y = (v) => 6 + ((hi - v) * (H - pad - 6)) / Math.max(hi - lo, 1);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  const add = (tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
    return node;
  };
  add("line", { x1: pad, x2: W - 6, y1: y(0), y2: y(0), class: "zero-line" });
  add("text", { x: 2, y: y(0) + 4, class: "axis", text: "" }).textContent = "0";
  add("text", { x: 2, y: y(hi) + 8, class: "axis" }).textContent = String(hi);
  add("text", { x: 2, y: y(lo), class: "axis" }).textContent = lo === 0 ? "" : String(lo);
  add("text", { x: W - 40, y: H - 4, class: "axis" }).textContent = `round ${steps}`;
  for (const s of series) {
    const line = add("polyline", { points: s.points.map((v, i) => `${x(i)},${y(v)}`).join(" "), fill: "none",
      stroke: SEAT_COLOURS[s.seat % SEAT_COLOURS.length], "stroke-width": s.seat === you ? 3 : 1.5 });
    const t = document.createElementNS(ns, "title");
    t.textContent = `${s.name}: ${s.points.join(" → ")}`;
    line.append(t);
  }
  box.append(svg);
  const legend = el("div", { class: "chart-legend" });
  for (const s of series) {
    legend.append(el("span", { style: `color:${SEAT_COLOURS[s.seat % SEAT_COLOURS.length]}` }, "━ ",
      el("span", { class: "ink", text: s.name })));
  }
  box.append(legend);
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
  const last = $("game-over-round");  // the last round's result: here, not in a second box
  last.replaceChildren(...(state.lastRound ? roundResultNodes(state.lastRound) : []));
  last.hidden = !state.lastRound;
  $("round-result").hidden = true;
  $("round-banner").hidden = true;
  $("game-over").hidden = false;
}
