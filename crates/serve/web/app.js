// tabula's page: pick a game and its players, then play on an SVG board while agents think.
// Talks to the JSON API under /api and listens to /api/game/{id}/events (server-sent events).

import { initTree, drawTree } from "./tree.js";
import { initTrain } from "./train.js";
import { initTerritory, territoryAfterDraw } from "./territory.js";
import { overtimeFromForm, showOvertimeFields, overtimeKind, overtimeShown } from "./clock.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let catalogue = null;
let game = null; // the last state
let events = null;
let selection = []; // cells clicked so far of a multi-cell move (Amazons)
let cursor = null; // the board's keyboard cursor: a cell index
let overlay = null; // the latest analysis report for the position on the board
let hover = null; // the cell under the pointer or the keyboard focus, whose line is shown
let drawn = null; // what the last drawBoard drew: { marks, centre, S, st }
let replay = null; // the finished game replayed on the board: { moves, label }, or null
let viewing = null; // the node of a game with a clock shown while the game goes on, or null
let match = null; // the match shown
let matchEvents = null;

// How each game names its players and cells, for labels; anything else gets generic names.
const STYLE = {
  go: { owners: ["black", "white"], colours: ["#111", "#f4f4f4"], grid: "lines", letters: "abcdefghjklmnopqrstuvwxyz", fromBottom: true, board: "#dcb35c" },
  othello: { owners: ["black", "white"], colours: ["#111", "#f4f4f4"], board: "#2e7d32", fromBottom: false, ink: "#e8f5e9", hint: "#ffffffb0" },
  hex: { owners: ["black", "white"], colours: ["#111", "#f4f4f4"], board: "#e8d9b5", fromBottom: false },
  amazons: { owners: ["white", "black"], colours: ["#f4f4f4", "#111"], board: "#d9c9a3", fromBottom: true, checker: true },
  tictactoe: { owners: ["X", "O"], colours: ["#1565c0", "#c62828"], board: "#fafafa", fromBottom: true, marks: ["X", "O"] },
  connect4: { owners: ["red", "yellow"], colours: ["#d32f2f", "#fbc02d"], board: "#1e4fa3", fromBottom: true, columns: true },
};
// Amazons taken in steps (amazon, destination, arrow) looks like Amazons.
STYLE["amazons-steps"] = STYLE.amazons;
// The games whose records are saved and loaded as SGF.
const SGF_GAMES = ["go", "othello", "amazons"];
// ink: the coordinates' colour; hint: the mark on a cell where a move can be made.
const DEFAULT_STYLE = { owners: ["first", "second", "third", "fourth"], colours: ["#111", "#f4f4f4", "#c62828", "#1565c0"], board: "#e0d8c8", fromBottom: false, ink: "#444", hint: "#1565c0a0" };

function styleOf(state) {
  const name = state.spec.split("(")[0];
  const st = { name, ...DEFAULT_STYLE, ...(STYLE[name] || {}) };
  // A GDL game: its roles name the seats; its grid (if any) names cells by the values of its
  // `cell` relation, and a game of column drops is clicked by columns.
  if (state.gdl) {
    st.owners = state.gdl.roles;
    st.colours = GDL_COLOURS;
    st.gdl = state.board && state.board.gdl;
    st.columns = !!(state.board && state.board.columns);
  }
  return st;
}

// Roles named by a colour, as GDL games often name them, and the colour of their discs.
const ROLE_COLOURS = { red: "#d32f2f", yellow: "#fbc02d", white: "#f4f4f4", black: "#111", blue: "#1565c0", green: "#2e7d32", orange: "#ef6c00", purple: "#6a1b9a" };
// The colours of GDL pieces by owner (a piece no role owns is grey).
const GDL_COLOURS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"];

function cellName(st, x, y, w, h) {
  const letters = st.letters || "abcdefghijklmnopqrstuvwxyz";
  const row = st.fromBottom ? h - y : y + 1;
  if (st.gdl) return `${st.columns ? "column " : "cell "}${st.gdl.cols[x]} ${st.gdl.rows[y]}`;
  if (st.columns) return `column ${x + 1}, row ${row}`;
  return `${letters[x] || "?"}${row}`;
}

function ownerName(st, owner) {
  if (owner === null || owner === undefined) return "no player's";
  return st.owners[owner] || `player ${owner + 1}`;
}

async function api(method, path, body) {
  const init = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await fetch(path, init);
  let data = null;
  try { data = await r.json(); } catch (_) { data = { error: `HTTP ${r.status}` }; }
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

// ---- the form ----

function fillGames() {
  const select = $("game");
  for (const g of catalogue.games) {
    const o = document.createElement("option");
    o.value = g.name;
    o.textContent = g.name;
    select.append(o);
  }
  const list = $("agent-specs");
  for (const a of catalogue.agents) {
    const o = document.createElement("option");
    o.value = a.name;
    o.label = a.about;
    list.append(o);
  }
  // The server's external engines, by name (their commands stay on the server).
  for (const e of catalogue.engines || []) {
    list.append(Object.assign(document.createElement("option"), { value: e.name, label: `external engine (${e.games.join(", ")})` }));
  }
  for (const name of catalogue.gdl_games || []) {
    const o = document.createElement("option");
    o.value = name;
    $("gdl-names").append(o);
  }
  select.addEventListener("change", fillParams);
  fillParams();
}

function fillParams() {
  const g = catalogue.games.find((g) => g.name === $("game").value);
  $("game-about").textContent = g.about;
  const box = $("game-params");
  box.replaceChildren(Object.assign(document.createElement("legend"), { textContent: "Parameters" }));
  if (!g.params.length) box.append(Object.assign(document.createElement("p"), { className: "help", textContent: "none" }));
  for (const p of g.params) {
    const label = document.createElement("label");
    label.textContent = p.name;
    const input = document.createElement("input");
    input.name = p.name;
    input.placeholder = p.default;
    input.dataset.param = p.name;
    if (g.name === "gdl" && p.name === "game") {
      // The server offers its GDL games by name; the first is filled in.
      input.setAttribute("list", "gdl-names");
      input.value = (catalogue.gdl_games || [])[0] || "";
      input.autocomplete = "off";
    }
    const help = Object.assign(document.createElement("span"), { className: "help", textContent: p.help });
    help.id = `help-${p.name}`;
    input.setAttribute("aria-describedby", help.id);
    label.append(input, help);
    box.append(label);
  }
  $("kif-box").hidden = g.name !== "gdl";
  const seats = $("seats");
  seats.replaceChildren(Object.assign(document.createElement("legend"), { textContent: "Players" }));
  for (let i = 0; i < 2; i++) addSeat(i === 0 ? "human" : g.engine);
}

/// One more seat in the form (a GDL game with more roles than two gets one per role, once
/// the server has said how many; the seats not given are human).
function addSeat(value) {
  const seats = $("seats");
  const i = seats.querySelectorAll("input[data-seat]").length;
  const label = document.createElement("label");
  label.textContent = `Player ${i + 1}`;
  const input = document.createElement("input");
  input.setAttribute("list", "agent-specs");
  input.dataset.seat = i;
  input.value = value;
  const help = Object.assign(document.createElement("span"), { className: "help", textContent: "human, or an agent spec such as mcts(time_ms=1000)" });
  label.append(input, help);
  seats.append(label);
}

function specFromForm() {
  const name = $("game").value;
  const parts = [];
  for (const input of $("game-params").querySelectorAll("input[data-param]")) {
    const v = input.value.trim();
    if (v !== "") parts.push(`${input.dataset.param}=${v}`);
  }
  return parts.length ? `${name}(${parts.join(",")})` : name;
}

/// The time control chosen in the form, as the API takes it (null: no clock).
function clockFromForm() {
  const kind = $("clock-kind").value;
  const ms = (id) => Math.round(Number($(id).value) * 1000);
  if (kind === "move") return { per_move_ms: ms("clock-main") };
  if (kind === "fischer") return { main_ms: ms("clock-main"), inc_ms: ms("clock-inc") };
  return overtimeFromForm(kind, ms);
}

function showClockFields() {
  const kind = $("clock-kind").value;
  $("clock-main-box").hidden = kind === "";
  $("clock-inc-box").hidden = kind !== "fischer";
  $("clock-main-label").textContent = kind === "move" ? "Time per move (s)" : "Main time (s)";
  showOvertimeFields(kind);
}

async function startGame(ev) {
  ev.preventDefault();
  $("setup-error").textContent = "";
  const players = [...$("seats").querySelectorAll("input[data-seat]")].map((i) => i.value.trim() || "human");
  // Seats past the second left human are not sent: the server makes every seat not given
  // human, so a form with three seats also starts a two-player game.
  while (players.length > 2 && players[players.length - 1] === "human") players.pop();
  const body = { spec: specFromForm(), players, clock: clockFromForm() };
  const kif = $("game").value === "gdl" ? $("kif").value : "";
  if (kif.trim() !== "") {
    if (new Blob([kif]).size > (catalogue.max_kif || 262144)) {
      $("setup-error").textContent = "The pasted rules are over 256 KiB.";
      return;
    }
    body.kif = kif;
  }
  try {
    const state = await api("POST", "/api/game", body);
    attach(state, true);
  } catch (e) {
    $("setup-error").textContent = e.message;
  }
}

/// Most bytes of an SGF file sent to the server (its limit too).
const MAX_SGF = 1024 * 1024;

/// Reads the record picked in the form (SGF, or the arena's JSON lines) and starts a game
/// replaying it.
async function loadSgf() {
  $("setup-error").textContent = "";
  const file = $("sgf-file").files[0];
  if (!file) return;
  if (file.size > MAX_SGF) {
    $("setup-error").textContent = `${file.name} is over 1 MiB.`;
    return;
  }
  const players = [...$("seats").querySelectorAll("input[data-seat]")].map((i) => i.value.trim() || "human");
  try {
    const text = await file.text();
    const json = /\.jsonl?$/i.test(file.name) || text.trimStart().startsWith("{");
    const body = { players: players.length === 2 ? players : ["human", "human"], clock: clockFromForm() };
    body[json ? "record" : "sgf"] = text;
    const state = await api("POST", "/api/game", body);
    attach(state, true);
  } catch (e) {
    $("setup-error").textContent = `${file.name}: ${e.message}`;
  } finally {
    $("sgf-file").value = "";
  }
}

/// A new game of the same spec with the players' seats swapped.
async function swapColours() {
  $("play-error").textContent = "";
  try {
    const players = [...game.players].reverse();
    attach(await api("POST", "/api/game", { spec: game.spec, players, clock: game.clock ? game.clock.control : null }), false);
  } catch (e) {
    $("play-error").textContent = e.message;
  }
}

// ---- a game ----

/// The parameters of a spec `name(k=v,...)`, split at the top level's commas.
function specParams(spec) {
  const open = spec.indexOf("(");
  const params = {};
  if (open < 0 || !spec.endsWith(")")) return params;
  let depth = 0, start = open + 1;
  for (let i = start; i < spec.length; i++) {
    const c = spec[i];
    if (c === "(") depth++;
    else if ((c === "," && depth === 0) || i === spec.length - 1) {
      const part = spec.slice(start, i);
      const eq = part.indexOf("=");
      if (eq > 0) params[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
      start = i + 1;
    } else if (c === ")") depth--;
  }
  return params;
}

/// Shows a game's spec and players in the form, so that a reload or a rematch can be
/// changed and started again.
function showInForm(state) {
  const name = state.spec.split("(")[0];
  if (!catalogue.games.some((g) => g.name === name)) return;
  if ($("game").value !== name) { $("game").value = name; fillParams(); }
  const params = specParams(state.spec);
  for (const input of $("game-params").querySelectorAll("input[data-param]")) input.value = params[input.dataset.param] ?? "";
  while ($("seats").querySelectorAll("input[data-seat]").length < state.players.length) addSeat("human");
  for (const input of $("seats").querySelectorAll("input[data-seat]")) input.value = state.players[Number(input.dataset.seat)] ?? "human";
  const c = state.clock && state.clock.control;
  $("clock-kind").value = c ? (c.per_move_ms ? "move" : overtimeKind(c) ?? "fischer") : "";
  if (c) $("clock-main").value = (c.per_move_ms ?? c.main_ms) / 1000;
  if (c && c.inc_ms !== undefined) $("clock-inc").value = c.inc_ms / 1000;
  showClockFields();
}

function attach(state, focusBoard, review = null) {
  if (events) events.close();
  replay = review;
  viewing = null;
  showInForm(state);
  selection = [];
  cursor = null;
  overlay = null;
  hover = null;
  game = null;
  $("info").replaceChildren();
  location.hash = state.id;
  $("play").hidden = false;
  render(state);
  if (focusBoard) focusCursor();
  events = new EventSource(`/api/game/${state.id}/events`);
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
  events.addEventListener("info", (e) => showInfo(JSON.parse(e.data)));
  events.addEventListener("analysis", (e) => showAnalysis(JSON.parse(e.data)));
  events.addEventListener("deleted", () => detach("This game was deleted."));
}

/// Leaves the game on the board (deleted here or by another page): back to the form.
function detach(message) {
  if (events) events.close();
  events = null;
  game = null;
  $("play").hidden = true;
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  $("setup-error").textContent = message;
  $("game").focus();
}

/// Deletes the game on the board, after asking; the server forgets it and its state-file row.
async function deleteGame() {
  if (!game || !confirm(`Delete game ${game.id}? It cannot be brought back.`)) return;
  $("play-error").textContent = "";
  const id = game.id;
  try {
    // This page is leaving the game: its own "deleted" event is not needed.
    if (events) events.close();
    await api("DELETE", `/api/game/${id}`);
    detach(`Game ${id} deleted.`);
  } catch (e) {
    $("play-error").textContent = e.message;
  }
}

async function send(move, player) {
  $("play-error").textContent = "";
  try {
    const body = player === undefined ? { move } : { move, player };
    const state = await api("POST", `/api/game/${game.id}/move`, body);
    selection = [];
    render(state);
  } catch (e) {
    $("play-error").textContent = e.message;
  }
}

function status(state, st) {
  if (state.viewing) {
    const t = state.viewing.live_turn;
    return t === null ? "A move of the game is shown; the game goes on." : `${ownerName(st, t)} (${state.players[t]}) to move in the game.`;
  }
  // A replayed game names the agents that played it, not the page's two human seats.
  const players = replay ? replay.players : state.players;
  if (state.over) {
    const r = state.rewards || [];
    const best = Math.max(...r);
    const winners = r.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0);
    let text = winners.length === 1 ? `${ownerName(st, winners[0])} (${players[winners[0]]}) wins` : "Draw";
    if (state.resigned !== null && state.resigned !== undefined) text = `${ownerName(st, state.resigned)} resigned; ${text} by resignation`;
    if (state.flagged !== null && state.flagged !== undefined) text = `${ownerName(st, state.flagged)} ran out of time; ${text} on time`;
    if (state.failed) text = `${ownerName(st, state.failed.seat)} (${players[state.failed.seat]}) failed: ${state.failed.reason}; ${text}`;
    if (state.score) text += ` — ${state.score}`;
    return `Game over: ${text}.`;
  }
  if (state.paused === "asked") return "The clocks are paused: Resume clocks to play on.";
  if (state.simultaneous) {
    // Every seat chooses at once; the turn is played when all have.
    const waiting = (state.joint || []).filter((j) => !j.chosen).map((j) => `${ownerName(st, j.seat)} (${players[j.seat]})`);
    return `Every player moves at once: waiting for ${waiting.join(", ") || "the turn to be played"}.`;
  }
  if (state.turn === null) return "Every player moves at once.";
  const who = `${ownerName(st, state.turn)} (${players[state.turn]})`;
  let text = state.thinking ? `${who} is thinking…` : `${who} to move.`;
  if (state.error) text += ` ${state.error}`;
  return text;
}

function render(state) {
  if (game && state.id === game.id && state.version < game.version) return; // an older state, overtaken
  if (state.viewing) {
    viewing = state.viewing.node;
  } else if (viewing !== null && game && state.id === game.id) {
    // The game went on while an earlier move was shown: show that move again, with the game's
    // new clocks and tree.
    showView(viewing);
    return;
  }
  if (game && state.id === game.id && (state.ply !== game.ply || state.tree?.current !== game.tree?.current)) selection = [];
  const hadFocus = $("board").contains(document.activeElement);
  game = state;
  if (overlay && (!state.analysis || overlay.version < state.version || overlay.run < state.analysis.run)) overlay = null;
  $("analyse").checked = !!state.analysis;
  if (state.analysis && document.activeElement !== $("analysis-agent")) $("analysis-agent").value = state.analysis.agent;
  // The server runs no analysis while a player has paused the clocks (and the pause, a new
  // version, took the last report's marks off the board).
  $("analysis-paused").hidden = !(state.analysis && state.paused === "asked");
  const st = styleOf(state);
  $("play-title").textContent = replay ? `${state.spec}: ${replay.label}` : `${state.spec}: ${state.players.join(" vs ")}`;
  showReplay(state);
  showViewBar(state);
  $("status").textContent = status(state, st);
  clockSeen = performance.now();
  drawClocks();
  const moves = $("moves");
  moves.replaceChildren(...state.history.map((ply) => Object.assign(document.createElement("li"), { textContent: ply.join(" + ") })));
  const canPlay = state.human_to_move && !state.over && state.paused !== "asked";
  $("move-input").disabled = !canPlay;
  $("move-form").querySelector("button[type=submit]").disabled = !canPlay;
  $("pass").disabled = !canPlay || !state.legal.some((m) => /^(pass|swap)$/i.test(m.move));
  $("pass").textContent = state.legal.some((m) => m.move === "swap") && !state.legal.some((m) => m.move === "pass") ? "Swap" : "Pass";
  const save = $("save-sgf");
  save.hidden = !SGF_GAMES.includes(st.name);
  save.href = `/api/game/${state.id}/sgf`;
  save.download = `${st.name}-${state.id}.sgf`;
  const record = $("save-record");
  record.href = `/api/game/${state.id}/record`;
  record.download = `${st.name}-${state.id}.json`;
  $("resign").disabled = state.over || state.players.length !== 2 || !state.players.includes("human");
  const pause = $("pause-clocks");
  pause.hidden = !state.clock || state.over || !!state.viewing;
  pause.textContent = state.paused ? "Resume clocks" : "Pause clocks";
  $("undo").disabled = state.paused === "asked";
  const board = $("board");
  board.dataset.ply = state.ply;
  board.dataset.over = state.over;
  board.dataset.human = canPlay;
  drawBoard(state, st);
  drawMoveList(state, canPlay);
  drawGraph(state, st);
  drawTree(state);
  territoryAfterDraw(state, drawn?.centre, drawn?.S);
  if (hadFocus) focusCursor();
}

// ---- the clocks ----

let clockSeen = 0; // when the last state arrived (performance.now()), for the running clock

function clockText(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return s.toFixed(1);
  const m = Math.floor(s / 60);
  const r = Math.floor(s % 60);
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${String(r).padStart(2, "0")}` : `${m}:${String(r).padStart(2, "0")}`;
}

/// Shows each side's time; the running clock counts down from the state's figure.
function drawClocks() {
  const c = game && game.clock;
  $("clocks").hidden = !c || replay !== null;
  if (!c || replay) return;
  const st = styleOf(game);
  const box = $("clocks");
  while (box.children.length < c.left_ms.length) {
    box.append(Object.assign(document.createElement("span"), { id: `clock-${box.children.length}`, className: "clock" }));
  }
  for (const seat of c.left_ms.keys()) {
    const span = $(`clock-${seat}`);
    let left = c.left_ms[seat] ?? 0;
    // At a simultaneous turn `running` lists every seat still choosing, and a seat that has
    // chosen shows the time it used (`chosen_ms`).
    const on = Array.isArray(c.running) ? c.running.includes(seat) : c.running === seat;
    const running = on && !game.paused;
    // A paused clock stands where it was stopped.
    if (on) left -= c.used_ms + (running ? performance.now() - clockSeen : 0);
    else if (c.chosen_ms && typeof c.chosen_ms[seat] === "number") left -= c.chosen_ms[seat];
    const over = overtimeShown(c, seat, left);
    if (over) left = over.ms;
    span.textContent = `${ownerName(st, seat)} ${clockText(left)}${over ? over.extra : ""}`;
    span.dataset.ms = Math.max(0, Math.round(left));
    span.classList.toggle("running", running);
    span.classList.toggle("low", left < 10000);
    span.setAttribute("aria-label", `${ownerName(st, seat)}'s clock: ${clockText(left)} left${over ? over.spoken : ""}${running ? ", running" : ""}`);
  }
}

/// Games without a board (most GDL games): the legal moves as buttons, in place of the board.
function drawMoveList(state, canPlay) {
  const list = $("move-list");
  const boardless = !state.board;
  // A GDL game keeps its buttons beside its board: not every move touches a cell (noop).
  list.hidden = !boardless && !state.gdl;
  $("board-wrap").hidden = boardless;
  $("board-keys").hidden = boardless;
  drawFacts(state);
  if (list.hidden) {
    list.replaceChildren();
    return;
  }
  const hadFocus = list.contains(document.activeElement);
  if (state.simultaneous && state.joint && state.joint.length) {
    // A simultaneous turn: each human seat that has not chosen gets its own moves.
    const st = styleOf(state);
    list.replaceChildren(
      ...state.joint.map((j) => {
        const group = Object.assign(document.createElement("div"), { className: "joint-seat" });
        group.setAttribute("role", "group");
        const name = `${ownerName(st, j.seat)} (${state.players[j.seat]})`;
        group.setAttribute("aria-label", `moves of ${name}`);
        group.dataset.seat = j.seat;
        group.append(Object.assign(document.createElement("span"), { textContent: j.chosen ? `${name} has chosen` : j.human ? `${name}:` : `${name} is choosing…` }));
        for (const mv of j.legal) {
          const b = Object.assign(document.createElement("button"), { type: "button", textContent: mv, className: "legal-move" });
          b.disabled = state.over;
          b.addEventListener("click", () => send(mv, j.seat));
          group.append(b);
        }
        return group;
      }),
    );
    if (hadFocus) list.querySelector("button:not([disabled])")?.focus();
    return;
  }
  list.replaceChildren(
    ...state.legal.map((m) => {
      const b = Object.assign(document.createElement("button"), { type: "button", textContent: m.move, className: "legal-move" });
      b.disabled = !canPlay;
      b.addEventListener("click", () => send(m.move));
      return b;
    }),
  );
  if (!state.legal.length && !state.over) list.append(Object.assign(document.createElement("p"), { className: "help", textContent: canPlay ? "no legal move" : "waiting for the other side" }));
  if (hadFocus) list.querySelector("button:not([disabled])")?.focus();
}

/// A GDL game's facts that are not drawn on its board (all of them when it has none).
function drawFacts(state) {
  let facts = $("gdl-facts");
  if (!facts) {
    facts = Object.assign(document.createElement("ul"), { id: "gdl-facts", className: "gdl-facts" });
    facts.setAttribute("aria-label", "facts of the position");
    $("move-list").after(facts);
  }
  facts.hidden = !state.gdl;
  if (!state.gdl) return facts.replaceChildren();
  const items = state.gdl.facts.map((f) => Object.assign(document.createElement("li"), { textContent: f }));
  if (state.gdl.more_facts) items.push(Object.assign(document.createElement("li"), { textContent: `… and ${state.gdl.more_facts} more` }));
  facts.replaceChildren(...items);
}

/// The win-rate graph: player 1's win rate (the first seat's) after each ply that a search
/// looked at, the analysis running now included; hidden until there is a point.
function drawGraph(state, st) {
  const points = new Map(state.evals.map(([ply, w]) => [ply, w]));
  if (overlay && overlay.version === state.version && !state.viewing && typeof overlay.win_rate === "number" && state.turn !== null && state.players.length === 2) {
    points.set(state.ply, state.turn === 0 ? overlay.win_rate : 1 - overlay.win_rate);
  }
  const svg = $("graph");
  svg.replaceChildren();
  $("graph-box").hidden = points.size === 0;
  if (!points.size) return;
  const W = 400, H = 90, pad = 6;
  const last = Math.max(10, state.ply, ...points.keys());
  const x = (ply) => pad + ((W - 2 * pad) * ply) / last;
  const y = (w) => pad + (H - 2 * pad) * (1 - w);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "#fafafa", stroke: "#ccc" }, svg);
  el("line", { x1: pad, y1: y(0.5), x2: W - pad, y2: y(0.5), stroke: "#bbb", "stroke-dasharray": "4 3" }, svg);
  el("line", { x1: x(state.ply), y1: pad, x2: x(state.ply), y2: H - pad, stroke: "#e53935", "stroke-width": 1 }, svg);
  const sorted = [...points.entries()].sort((a, b) => a[0] - b[0]);
  el("polyline", { points: sorted.map(([p, w]) => `${x(p)},${y(w)}`).join(" "), fill: "none", stroke: "#1565c0", "stroke-width": 2 }, svg);
  for (const [p, w] of sorted) {
    const dot = el("circle", { class: "point", cx: x(p), cy: y(w), r: 3, fill: "#1565c0", "data-ply": p, "data-win": w.toFixed(3) }, svg);
    el("title", {}, dot).textContent = `after ${p} plies: ${ownerName(st, 0)} ${(w * 100).toFixed(1)}%`;
  }
  const [lp, lw] = sorted[sorted.length - 1];
  const who = ownerName(st, 0);
  $("graph-title").textContent = `${who}'s win rate: ${(lw * 100).toFixed(0)}% after ${lp} plies`;
  svg.setAttribute("aria-label", `${who}'s win rate along the game: ${sorted.map(([p, w]) => `${Math.round(w * 100)}% after ${p}`).join(", ")}`);
}

/// An analysis report: kept for the overlay when it is about the position shown (or a
/// newer one whose state is on its way), and shown in the panel.
function showAnalysis(report) {
  if (!game || !game.analysis || report.version < game.version || report.run < game.analysis.run) return;
  overlay = report;
  // An analysis is of the game's position, not of a move shown before it.
  if (report.version !== game.version || game.viewing) return;
  showInfo(report);
  const hadFocus = $("board").contains(document.activeElement);
  drawBoard(game, styleOf(game));
  drawGraph(game, styleOf(game));
  if (hadFocus) focusCursor();
}

async function toggleAnalysis() {
  $("play-error").textContent = "";
  const agent = $("analyse").checked ? $("analysis-agent").value.trim() || "mcts" : null;
  try {
    render(await api("POST", `/api/game/${game.id}/analysis`, { agent }));
  } catch (e) {
    $("analyse").checked = false;
    $("play-error").textContent = e.message;
  }
}

/// The overlay's marks: cell -> the statistics of the best move that lands there.
function overlayMarks(state) {
  const marks = new Map();
  if (!overlay || overlay.version !== state.version || !state.board || state.viewing) return marks;
  const where = new Map(state.legal.map((m) => [m.move, m.path.length >= 2 ? m.path[1] : m.path[0]]));
  let stats = [...overlay.root_moves];
  if (!stats.length && overlay.pv.length) stats = [{ move: overlay.pv[0], visits: 0, win_rate: overlay.win_rate, score: overlay.score }];
  stats.sort((a, b) => b.visits - a.visits || (b.score ?? 0) - (a.score ?? 0));
  const total = stats.reduce((n, m) => n + m.visits, 0);
  // The twelve most visited moves of a tree search; every move an alpha-beta search or
  // an exact solver scored.
  for (const [rank, m] of stats.slice(0, stats.some((m) => m.visits) ? 12 : stats.length).entries()) {
    const cell = where.get(m.move);
    if (cell === undefined || marks.has(cell)) continue;
    let top, bottom, label;
    const line = m.line || [];
    const lineText = line.length > 1 ? `, line ${line.slice(0, 6).map((p) => p.move).join(" ")}` : "";
    if (m.win_rate !== null && m.win_rate !== undefined) {
      top = `${Math.round(m.win_rate * 100)}`;
      bottom = m.visits ? compact(m.visits) : "";
      label = `analysis: ${m.move} ${(m.win_rate * 100).toFixed(1)}% win rate${m.visits ? `, ${m.visits} visits` : ""}${lineText}`;
    } else if (m.proven_in !== null && m.proven_in !== undefined) {
      // A proven result: wins or loses in so many moves, whatever the evaluation says.
      top = `${m.proven_in > 0 ? "W" : "L"}${Math.abs(m.proven_in)}`;
      bottom = "";
      label = `analysis: ${m.move} ${m.proven_in > 0 ? "wins" : "loses"} in ${Math.abs(m.proven_in)}${lineText}`;
    } else if (m.score !== null && m.score !== undefined) {
      top = compact(m.score);
      bottom = "";
      label = `analysis: ${m.move} score ${m.score}${lineText}`;
    } else continue;
    marks.set(cell, { rank, top, bottom, label, line, share: total ? m.visits / total : 1, win: m.win_rate });
  }
  return marks;
}

/// Black or white, whichever reads better on the colour `#rgb` or `#rrggbb`.
function inkOn(colour) {
  const hex = colour.slice(1);
  const digits = hex.length === 3 ? [...hex].map((d) => d + d) : [hex.slice(0, 2), hex.slice(2, 4), hex.slice(4, 6)];
  const [r, g, b] = digits.map((d) => parseInt(d, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? "#111" : "#fff";
}

function compact(n) {
  const a = Math.abs(n);
  if (a >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${Math.round(n / 1e3)}k`;
  return String(n);
}

function showInfo(info) {
  const rows = [];
  if (info.win_rate !== null && info.win_rate !== undefined) rows.push(["win rate", `${(info.win_rate * 100).toFixed(1)}%`]);
  if (info.score !== null && info.score !== undefined) rows.push(["score", String(info.score)]);
  if (info.proven_in !== null && info.proven_in !== undefined) rows.push(["proven", info.proven_in > 0 ? `win in ${info.proven_in}` : `loss in ${-info.proven_in}`]);
  rows.push(["depth", `${info.depth}/${info.seldepth}`]);
  rows.push(["nodes", info.nodes.toLocaleString()]);
  rows.push(["speed", info.ms > 0 ? `${Math.round(info.nodes / info.ms).toLocaleString()} k/s` : "–"]);
  rows.push(["best line", info.pv.join(" ") || "–"]);
  $("info").replaceChildren(...rows.flatMap(([k, v]) => [
    Object.assign(document.createElement("dt"), { textContent: k }),
    Object.assign(document.createElement("dd"), { textContent: v }),
  ]));
}

// ---- the board ----

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/// The legal moves still possible after the cells selected so far, and the cells to click next.
function nextCells(state, st) {
  const w = state.board.width;
  const next = new Map(); // cell -> moves ending or continuing there
  for (const m of state.legal) {
    const p = m.path;
    if (p.length <= selection.length) continue;
    if (!selection.every((c, i) => p[i] === c)) continue;
    const c = p[selection.length];
    const cells = st.columns && selection.length === 0
      ? [...Array(state.board.height).keys()].map((y) => y * w + (c % w))
      : [c];
    for (const cell of cells) {
      if (!next.has(cell)) next.set(cell, []);
      next.get(cell).push(m);
    }
  }
  return next;
}

/// The playable cell under the pointer of event `e`, or null.
function cellAt(e) {
  const g = document.elementFromPoint(e.clientX, e.clientY)?.closest("#board g.clickable[data-cell]");
  return g ? Number(g.dataset.cell) : null;
}

function clickCell(cell) {
  cursor = cell;
  const st = styleOf(game);
  const next = nextCells(game, st);
  const moves = next.get(cell);
  if (!moves) {
    if (selection.length) { selection = []; drawBoard(game, st); }
    return;
  }
  const depth = selection.length + 1;
  const done = moves.filter((m) => m.path.length === depth);
  if (done.length === 1 && moves.length === 1) return send(done[0].move);
  if (done.length >= 1 && moves.every((m) => m.path.length === depth)) return send(done[0].move);
  selection.push(moves[0].path[selection.length]);
  drawBoard(game, st);
}

function drawBoard(state, st) {
  const svg = $("board");
  svg.replaceChildren();
  const b = state.board;
  if (!b) {
    svg.setAttribute("viewBox", "0 0 10 1");
    return;
  }
  const S = 40;
  const hex = b.geometry === "hex";
  const rowH = hex ? S * 0.866 : S;
  // Coordinates sit above and to the left; the other two edges get a thin rim only.
  const rim = S * 0.15;
  const margin = st.columns ? rim : S * 0.6;
  const centre = (x, y) => [margin + (hex ? (x + y * 0.5) : x) * S + S / 2, margin + y * rowH + S / 2];
  const width = margin + rim + (hex ? (b.width + (b.height - 1) * 0.5) : b.width) * S;
  const height = margin + rim + (b.height - 1) * rowH + S;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  el("rect", { x: 0, y: 0, width, height, fill: hex ? "#f6f4ef" : st.board, rx: 6 }, svg);
  const canPlay = state.human_to_move && !state.over && state.paused !== "asked";
  const next = canPlay ? nextCells(state, st) : new Map();
  // Marks on the empty cells a move can reach, where they tell something: not when nearly
  // every empty cell is playable (Go, Hex), where they would only cover the board.
  const targets = [...next.entries()].filter(([c, ms]) => b.cells[c] === null && ms.some((m) => m.path[selection.length] === c)).length;
  const empty = b.cells.filter((c) => c === null).length;
  const hints = selection.length > 0 || targets * 2 <= empty;
  const last = new Set(state.last ? state.last.path : []);
  const marks = overlayMarks(state);
  if (cursor === null || cursor >= b.width * b.height) {
    cursor = next.size ? Math.min(...next.keys()) : Math.floor(b.height / 2) * b.width + Math.floor(b.width / 2);
  }
  const chosen = new Set(selection);
  if (st.grid === "lines") {
    for (let i = 0; i < b.width; i++) { const [x0, y0] = centre(i, 0); const [, y1] = centre(i, b.height - 1); el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#3a2a10", "stroke-width": 1.2 }, svg); }
    for (let j = 0; j < b.height; j++) { const [x0, y0] = centre(0, j); const [x1] = centre(b.width - 1, j); el("line", { x1: x0, y1: y0, x2: x1, y2: y0, stroke: "#3a2a10", "stroke-width": 1.2 }, svg); }
  }
  // Coordinates along the edges.
  for (let x = 0; x < b.width && !st.columns; x++) {
    const [cx] = centre(x, 0);
    const t = el("text", { x: cx, y: margin * 0.7, "text-anchor": "middle", "font-size": 14, fill: st.ink, "aria-hidden": "true" }, svg);
    t.textContent = st.gdl ? st.gdl.cols[x] : (st.letters || "abcdefghijklmnopqrstuvwxyz")[x];
  }
  for (let y = 0; y < b.height; y++) {
    const [cx, cy] = centre(0, y);
    const t = el("text", { x: cx - S / 2 - 4, y: cy + 4, "text-anchor": "end", "font-size": 14, fill: st.ink, "aria-hidden": "true" }, svg);
    t.textContent = st.columns ? "" : st.gdl ? st.gdl.rows[y] : String(st.fromBottom ? b.height - y : y + 1);
  }
  const hexPoints = (cx, cy) => [...Array(6).keys()].map((k) => {
    const a = Math.PI / 6 + (k * Math.PI) / 3;
    const r = S / Math.sqrt(3);
    return `${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`;
  }).join(" ");
  for (let y = 0; y < b.height; y++) {
    const row = el("g", { role: "row" }, svg);
    for (let x = 0; x < b.width; x++) {
      const i = y * b.width + x;
      const v = b.cells[i];
      const [cx, cy] = centre(x, y);
      const g = el("g", { class: "cell", role: "gridcell", tabindex: i === cursor ? "0" : "-1", "data-cell": i }, row);
      let what = "empty";
      // The cell's ground.
      const ground = hex
        ? el("polygon", { points: hexPoints(cx, cy), fill: "#e8d9b5", stroke: "#8d7b55", "stroke-width": 1, class: "focus-ring" }, g)
        : st.grid === "lines"
          ? el("rect", { x: cx - S / 2, y: cy - S / 2, width: S, height: S, fill: "transparent", class: "focus-ring" }, g)
          : el("rect", { x: cx - S / 2, y: cy - S / 2, width: S, height: S, fill: st.checker && (x + y) % 2 ? "#b58863" : st.board, stroke: st.columns ? "none" : "#0004", class: "focus-ring" }, g);
      if (st.columns) el("circle", { cx, cy, r: S * 0.38, fill: "#f6f4ef" }, g);
      if (v === "blocked") {
        what = b.blocked || "blocked";
        if (hex) ground.setAttribute("fill", "#555");
        else {
          el("rect", { x: cx - S / 2 + 2, y: cy - S / 2 + 2, width: S - 4, height: S - 4, fill: "#555", rx: 3 }, g);
          el("path", { d: `M${cx - 8},${cy - 8}L${cx + 8},${cy + 8}M${cx + 8},${cy - 8}L${cx - 8},${cy + 8}`, stroke: "#ddd", "stroke-width": 3 }, g);
        }
      } else if (Array.isArray(v)) {
        const [owner, kind] = v;
        const piece = b.pieces[kind] || "piece";
        what = `${ownerName(st, owner)} ${piece}`;
        const colour = (owner !== null && st.colours[owner]) || "#888";
        if (st.gdl) {
          // A GDL piece is the text of its `cell` fact's content: on a disc of its owner's
          // colour when the role is named by one (red, white...), else in a colour of its own.
          const named = owner !== null && ROLE_COLOURS[st.owners[owner]];
          if (named) el("circle", { cx, cy, r: S * 0.42, fill: named, stroke: "#0008", "stroke-width": 1 }, g);
          const ink = named ? (["white", "yellow"].includes(st.owners[owner]) ? "#111" : "#f4f4f4") : colour;
          const t = el("text", { x: cx, y: cy + S * 0.16, "text-anchor": "middle", "font-size": piece.length > 2 ? S * 0.3 : S * 0.45, "font-weight": 700, fill: ink }, g);
          t.textContent = piece;
          what = owner === null ? piece : `${ownerName(st, owner)} ${piece}`;
        } else if (st.marks) {
          const t = el("text", { x: cx, y: cy + S * 0.25, "text-anchor": "middle", "font-size": S * 0.75, "font-weight": 700, fill: colour }, g);
          t.textContent = st.marks[owner] || "?";
        } else {
          el("circle", { cx, cy, r: S * 0.42, fill: colour, stroke: "#0008", "stroke-width": 1 }, g);
          if (/(^|\s)(amazon|queen)$/.test(piece)) {
            const t = el("text", { x: cx, y: cy + S * 0.17, "text-anchor": "middle", "font-size": S * 0.5, fill: owner === 0 ? "#111" : "#f4f4f4" }, g);
            t.textContent = "♛";
          }
          // The amazon of a move made in steps, picked or landed: framed as a selection is.
          if (/^(picked|landed) /.test(piece)) el("rect", { x: cx - S / 2 + 2, y: cy - S / 2 + 2, width: S - 4, height: S - 4, fill: "none", stroke: "#1565c0", "stroke-width": 3 }, g);
        }
      }
      if (last.has(i)) el("circle", { cx, cy, r: S * 0.12, fill: "#e53935" }, g);
      if (chosen.has(i)) el("rect", { x: cx - S / 2 + 2, y: cy - S / 2 + 2, width: S - 4, height: S - 4, fill: "none", stroke: "#1565c0", "stroke-width": 3 }, g);
      const name = cellName(st, x, y, b.width, b.height);
      const clickable = next.has(i);
      if (clickable) {
        const isTarget = next.get(i).some((m) => m.path[selection.length] === i);
        if (hints && isTarget && v === null) el("circle", { cx, cy, r: S * 0.12, fill: st.hint }, g);
        g.classList.add("clickable");
      }
      g.addEventListener("pointerenter", () => showLine(i));
      g.addEventListener("focus", () => {
        if (cursor !== i) moveCursor(i);
        if (g.matches(":focus-visible")) showLine(i);
      });
      const extra = [last.has(i) ? "last move" : "", chosen.has(i) ? "selected" : "", clickable ? "playable" : "", marks.get(i)?.label || ""].filter(Boolean).join(", ");
      g.setAttribute("aria-label", `${name}, ${what}${extra ? ", " + extra : ""}`);
    }
  }
  drawn = { marks, centre, S, st };
  if (marks.size) drawOverlay(svg, marks, centre, S, overlay);
  if (hover !== null) showLine(hover);
}

/// Draws the analysis's line from the move at `cell` as numbered ghost pieces (and hides
/// the other marks meanwhile); `null` takes it away.
function showLine(cell) {
  hover = cell;
  const svg = $("board");
  svg.querySelector(".ghosts")?.remove();
  const layer = svg.querySelector(".overlay");
  const mark = cell === null || !drawn ? null : drawn.marks.get(cell);
  if (layer) layer.style.display = mark && mark.line.length ? "none" : "";
  if (!mark || !mark.line.length) return;
  const { centre, S, st } = drawn;
  const w = game.board.width;
  const ghosts = el("g", { class: "ghosts", "aria-hidden": "true", "pointer-events": "none" }, svg);
  const seen = new Set();
  for (const [k, ply] of mark.line.entries()) {
    const at = ply.path.length >= 2 ? ply.path[1] : ply.path[0];
    if (at === undefined || seen.has(at)) continue; // a cell played twice keeps its first number
    seen.add(at);
    const [cx, cy] = centre(at % w, Math.floor(at / w));
    const colour = st.colours[ply.player] || "#888";
    const g = el("g", { class: "ghost", "data-cell": at }, ghosts);
    el("circle", { cx, cy, r: S * 0.42, fill: colour, "fill-opacity": 0.6, stroke: "#0008", "stroke-width": 1 }, g);
    const t = el("text", { x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: inkOn(colour) }, g);
    t.textContent = String(k + 1);
  }
}

/// The analysis on the board: a disc per move, coloured by its win rate (red to green) and
/// sized by its share of the visits, with the win rate in percent and the visits below; the
/// best move is ringed.
function drawOverlay(svg, marks, centre, S, report) {
  const w = game.board.width;
  const layer = el("g", { class: "overlay", "aria-hidden": "true", "pointer-events": "none", "data-version": report.version, "data-run": report.run }, svg);
  for (const [cell, m] of marks) {
    const [cx, cy] = centre(cell % w, Math.floor(cell / w));
    const hue = m.win === null || m.win === undefined ? 210 : Math.round(120 * m.win);
    const g = el("g", { class: "mark", "data-cell": cell }, layer);
    el("circle", { cx, cy, r: S * (0.3 + 0.12 * Math.sqrt(m.share)), fill: `hsl(${hue} 70% 45% / 0.85)`, stroke: m.rank === 0 ? "#1565c0" : "#0006", "stroke-width": m.rank === 0 ? 3 : 1 }, g);
    const t = el("text", { x: cx, y: cy + (m.bottom ? -1 : 4), "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#fff" }, g);
    t.textContent = m.top;
    if (m.bottom) {
      const v = el("text", { x: cx, y: cy + 11, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, g);
      v.textContent = m.bottom;
    }
  }
}

/// Focuses the cursor's cell, if the board shows one.
function focusCursor() {
  const cell = $("board").querySelector(`[data-cell="${cursor}"]`);
  if (cell) cell.focus();
}

/// The board's keys: arrows move the cursor (Home/End: the row's ends), Enter or Space plays
/// (or selects) the cell under it, Escape drops a half-made move.
function boardKey(e) {
  if (!game || !game.board) return;
  const { width: w, height: h } = game.board;
  let x = cursor % w;
  let y = Math.floor(cursor / w);
  switch (e.key) {
    case "ArrowLeft": x = Math.max(0, x - 1); break;
    case "ArrowRight": x = Math.min(w - 1, x + 1); break;
    case "ArrowUp": y = Math.max(0, y - 1); break;
    case "ArrowDown": y = Math.min(h - 1, y + 1); break;
    case "Home": x = 0; break;
    case "End": x = w - 1; break;
    case "Enter":
    case " ":
      e.preventDefault();
      clickCell(cursor);
      focusCursor();
      return;
    case "Escape":
      if (selection.length) { selection = []; drawBoard(game, styleOf(game)); focusCursor(); }
      return;
    default:
      return;
  }
  e.preventDefault();
  moveCursor(y * w + x);
  focusCursor();
}

/// Puts the cursor on `cell`: the one cell of the board in the tab order.
function moveCursor(cell) {
  cursor = cell;
  for (const c of $("board").querySelectorAll(".cell")) c.setAttribute("tabindex", c.dataset.cell === String(cursor) ? "0" : "-1");
}

// ---- matches ----

async function startMatch(ev) {
  ev.preventDefault();
  $("match-error").textContent = "";
  const body = {
    game: $("match-game").value.trim(),
    agents: [$("match-a").value.trim(), $("match-b").value.trim(), ...[...document.querySelectorAll(".match-more")].map((i) => i.value.trim()).filter(Boolean)],
    games: Number($("match-games").value),
    time_ms: Number($("match-ms").value),
  };
  const nodes = $("match-nodes").value.trim();
  if (nodes) body.nodes = Number(nodes);
  const sprt = $("match-sprt").value.trim();
  if (sprt) body.sprt = sprt;
  const openings = $("match-openings").value.trim();
  if (openings) body.openings = openings;
  try {
    watchMatch(await api("POST", "/api/match", body));
  } catch (e) {
    $("match-error").textContent = e.message;
  }
}

function watchMatch(table) {
  if (matchEvents) matchEvents.close();
  match = null;
  showMatch(table);
  matchEvents = new EventSource(`/api/match/${table.id}/events`);
  matchEvents.addEventListener("match", (e) => showMatch(JSON.parse(e.data)));
}

const fixed = (x, digits) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : x === null ? "∞" : "–");

function resultText(rewards) {
  const show = (r) => (r === 0.5 ? "½" : String(Math.round(r * 100) / 100));
  return rewards.map(show).join("–");
}

function showMatch(t) {
  if (match && t.id === match.id && t.played < match.played) return; // an older table
  match = t;
  const box = $("match-box");
  box.hidden = false;
  box.dataset.status = t.status;
  box.dataset.played = t.played;
  const r = t.report;
  const w = r.wld;
  const limits = `${t.time_ms} ms` + (t.nodes ? `, ${t.nodes} nodes` : "") + " a move" + (t.openings ? `, openings ${t.openings}` : "");
  const who = t.tournament ? `Round robin of ${t.agents.length} agents, ${t.per_pair} game${t.per_pair === 1 ? "" : "s"} a pair,` : `${t.agents[0]} vs ${t.agents[1]}`;
  $("match-status").textContent = `${who} at ${t.game} (${limits}): ${t.played} of ${t.games} games, ${t.status}` + (t.error ? ` (${t.error})` : "");
  $("match-table").hidden = !!t.tournament;
  showStandings(t);
  $("match-stop").disabled = t.status !== "running";
  showMatchGames(t);
  if (t.tournament) return;
  $("match-wld").textContent = `${w.wins}-${w.losses}-${w.draws}`;
  $("match-wld").dataset.games = w.wins + w.losses + w.draws;
  $("match-score").textContent = t.played ? `${fixed(r.score.score * 100, 1)}% [${fixed(r.score.low * 100, 1)}%, ${fixed(r.score.high * 100, 1)}%]` : "–";
  const elo = r.elo;
  $("match-elo").textContent = t.played ? `${fixed(elo.elo, 0)} ± ${fixed(elo.margin, 0)}` : "–";
  $("match-los").textContent = t.played ? `${fixed(r.los * 100, 1)}%` : "–";
  $("match-sprt-row").hidden = !r.sprt;
  if (r.sprt) {
    const s = r.sprt.status;
    const decision = { AcceptH0: "H0 accepted", AcceptH1: "H1 accepted", Continue: "going on" }[s.decision] || s.decision;
    $("match-sprt-state").textContent = `LLR ${fixed(s.llr, 2)} in (${fixed(s.lower, 2)}, ${fixed(s.upper, 2)}): ${decision}`;
  }
}

/// A tournament's standings, best rating first: games, points, W-L-D and Elo with its 95%
/// interval (the arena's fit over every game so far, the first agent anchored at 0).
function showStandings(t) {
  let table = $("tourney-table");
  if (!table) {
    table = document.createElement("table");
    table.id = "tourney-table";
    table.innerHTML = "<caption>Standings</caption><thead><tr><th scope=col>#</th><th scope=col>Agent</th><th scope=col>Games</th><th scope=col>Points</th><th scope=col>W-L-D</th><th scope=col>Elo (95%)</th></tr></thead><tbody></tbody>";
    $("match-table").after(table);
  }
  table.hidden = !t.tournament;
  if (!t.tournament) return;
  const r = t.report;
  table.tBodies[0].replaceChildren(
    ...r.standings.map((s, k) => {
      const tr = document.createElement("tr");
      const cells = [k + 1, s.name || t.agents[s.player], s.games, fixed(s.points, 1), `${s.wld.wins}-${s.wld.losses}-${s.wld.draws}`, r.rating_error ? "–" : `${fixed(Math.abs(s.elo) < 0.5 ? 0 : s.elo, 0)} ± ${fixed(s.error95, 0)}`];
      cells.forEach((c, i) => tr.append(Object.assign(document.createElement(i === 1 ? "th" : "td"), i === 1 ? { textContent: String(c), scope: "row" } : { textContent: String(c) })));
      return tr;
    }),
  );
}

/// The finished games of a match or tournament, each with its Open button.
function showMatchGames(t) {
  const list = $("match-list");
  list.replaceChildren(
    ...t.records.map((rec) => {
      const li = document.createElement("li");
      li.dataset.index = rec.index;
      li.append(`${rec.players.join(" vs ")}: ${resultText(rec.rewards)}, ${rec.moves.length} moves`);
      const open = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
      open.setAttribute("aria-label", `open game ${rec.index + 1}`);
      open.addEventListener("click", () => openRecord(rec));
      li.append(open);
      return li;
    }),
  );
}

/// Opens a finished game on the board at its start, to be stepped through move by move: an
/// ordinary game between two human seats on which the page plays the record's moves.
async function openRecord(rec) {
  $("match-error").textContent = "";
  try {
    const state = await api("POST", "/api/game", { spec: rec.game, players: ["human", "human"] });
    attach(state, false, { moves: rec.moves, players: rec.players, label: `game ${rec.index + 1} of the match, ${rec.players.join(" vs ")}` });
    $("play").scrollIntoView();
  } catch (e) {
    $("match-error").textContent = e.message;
  }
}

/// Shows node `node` of a game with a clock without touching the game, which goes on (the
/// game's own node leaves the view).
async function showView(node) {
  if (!game) return;
  const id = game.id;
  viewing = node;
  try {
    const state = await api("GET", `/api/game/${id}/view?node=${node}`);
    if (!game || game.id !== id || viewing !== node) return; // left, or another node asked for
    if (!state.viewing) viewing = null; // the game's own node
    render(state);
  } catch (e) {
    // The move shown was taken back (an undo), or the server could not be reached.
    if (viewing === node) leaveView();
  }
}

/// Back from a move shown to the game as it is.
async function leaveView() {
  if (!game) return;
  viewing = null;
  try { render(await api("GET", `/api/game/${game.id}`)); } catch (e) { $("play-error").textContent = e.message; }
}

function showViewBar(state) {
  const bar = $("view-bar");
  bar.hidden = !state.viewing;
  if (!state.viewing) return;
  $("view-pos").textContent = `Showing move ${state.ply}; the game is at move ${state.viewing.live_ply}, and its clocks run.`;
  bar.dataset.node = state.viewing.node;
}

function showReplay(state) {
  const bar = $("replay-bar");
  bar.hidden = !replay;
  if (!replay) return;
  const n = replay.moves.length;
  $("replay-pos").textContent = `move ${state.ply} of ${n}`;
  bar.dataset.ply = state.ply;
  bar.dataset.plies = n;
  $("replay-start").disabled = $("replay-back").disabled = state.ply === 0;
  $("replay-next").disabled = $("replay-end").disabled = state.ply >= n || state.over;
}

async function replayStep(forward) {
  if (!replay || !game) return;
  $("play-error").textContent = "";
  try {
    if (forward) {
      const mv = replay.moves[game.ply];
      if (mv !== undefined) render(await api("POST", `/api/game/${game.id}/move`, { move: mv }));
    } else if (game.ply > 0) {
      render(await api("POST", `/api/game/${game.id}/undo`));
    }
  } catch (e) {
    $("play-error").textContent = e.message;
  }
}

async function replayTo(end) {
  while (replay && game && (end ? game.ply < replay.moves.length && !game.over : game.ply > 0)) {
    const before = game.ply;
    await replayStep(end);
    if (game.ply === before) break;
  }
}

// ---- the game database (the Search view) ----

// The board being set up: each point null, "B" or "W"; the don't-care points; the pattern's
// region (two opposite corners) and a corner clicked and waiting for the other; the move
// sequence (`[colour, cell]` in order); the search running (its ticket and the fetch's
// controller).
const search = { size: 19, cells: [], any: new Set(), region: null, pending: null, cursor: null, drag: null, found: null, query: null, seq: [], running: null };
const GO_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

function pointName(n, x, y) {
  return `${GO_LETTERS[x] || "?"}${n - y}`;
}

/// A new empty board of the size in the form (`keep`: only if the size changed).
function resetSearchBoard(keep = false) {
  const n = Number($("search-size").value);
  if (keep === true && n === search.size && search.cells.length === n * n) return;
  if (!Number.isInteger(n) || n < 2 || n > 25) {
    $("search-error").textContent = "The board size must be 2 to 25.";
    return;
  }
  $("search-error").textContent = "";
  search.size = n;
  search.cells = new Array(n * n).fill(null);
  search.any = new Set();
  search.region = null;
  search.pending = null;
  search.found = null;
  search.seq = [];
  search.cursor = Math.floor(n / 2) * n + Math.floor(n / 2);
  drawSearchBoard();
}

const searchTool = () => document.querySelector('input[name="search-tool"]:checked').value;
const sequenceMode = () => $("search-kind").value === "sequence";

/// Uses a stone tool on a point of the move sequence: a new point adds the next move in the
/// tool's colour (and the tool turns to the other colour), the last move's point takes it
/// back, the empty tool takes out the move on the point.
function sequenceTool(cell, tool) {
  const at = search.seq.findIndex(([, c]) => c === cell);
  if (tool === "E") {
    if (at >= 0) search.seq.splice(at, 1);
  } else if (at === search.seq.length - 1 && at >= 0) {
    search.seq.pop();
    setTool(search.seq.length ? other(search.seq[search.seq.length - 1][0]) : tool);
  } else if (at < 0) {
    search.seq.push([tool, cell]);
    setTool(other(tool));
  }
}

const other = (colour) => (colour === "B" ? "W" : "B");

function setTool(value) {
  const input = document.querySelector(`input[name="search-tool"][value="${value}"]`);
  if (input) input.checked = true;
}

/// The region as its top-left and bottom-right points, or null.
function regionBox() {
  if (!search.region) return null;
  const [[ax, ay], [bx, by]] = search.region;
  return { x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) };
}

/// Uses the chosen tool on a point (`first`: the press of a drag, `last`: its release).
function applyTool(cell, how = "click") {
  const n = search.size;
  const at = [cell % n, Math.floor(cell / n)];
  const tool = searchTool();
  if (tool === "region") {
    if (how === "down") { search.drag = cell; return; }
    if (how === "up" && search.drag !== null && search.drag !== cell) {
      search.region = [[search.drag % n, Math.floor(search.drag / n)], at];
      search.pending = null;
    } else if (search.pending === null) {
      search.pending = cell;
    } else {
      search.region = [[search.pending % n, Math.floor(search.pending / n)], at];
      search.pending = null;
    }
    search.drag = null;
    if (search.region && !sequenceMode()) $("search-kind").value = "pattern";
    showSearchOptions();
  } else if (how === "down") {
    return;
  } else if (sequenceMode()) {
    if (tool === "any") return;
    sequenceTool(cell, tool);
  } else if (tool === "any") {
    if (search.any.has(cell)) search.any.delete(cell); else search.any.add(cell);
  } else if (tool === "E") {
    search.cells[cell] = null;
  } else {
    search.cells[cell] = search.cells[cell] === tool ? null : tool;
  }
  search.found = null;
  drawSearchBoard();
}

function drawSearchBoard() {
  const svg = $("search-board");
  const hadFocus = svg.contains(document.activeElement);
  svg.replaceChildren();
  const n = search.size;
  const S = 40, margin = S * 0.6, rim = S * 0.15;
  const size = margin + rim + n * S;
  const centre = (x, y) => [margin + x * S + S / 2, margin + y * S + S / 2];
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  el("rect", { x: 0, y: 0, width: size, height: size, fill: "#dcb35c", rx: 6 }, svg);
  for (let i = 0; i < n; i++) {
    const [x0, y0] = centre(i, 0);
    const [, y1] = centre(i, n - 1);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#3a2a10", "stroke-width": 1.2 }, svg);
    const [a0, b0] = centre(0, i);
    const [a1] = centre(n - 1, i);
    el("line", { x1: a0, y1: b0, x2: a1, y2: b0, stroke: "#3a2a10", "stroke-width": 1.2 }, svg);
    const t = el("text", { x: x0, y: margin * 0.7, "text-anchor": "middle", "font-size": 14, fill: "#444", "aria-hidden": "true" }, svg);
    t.textContent = GO_LETTERS[i].toLowerCase();
    const r = el("text", { x: a0 - S / 2 - 4, y: b0 + 4, "text-anchor": "end", "font-size": 14, fill: "#444", "aria-hidden": "true" }, svg);
    r.textContent = String(n - i);
  }
  const box = regionBox();
  if (box) {
    const [x0, y0] = centre(box.x0, box.y0);
    const [x1, y1] = centre(box.x1, box.y1);
    el("rect", { class: "region", x: x0 - S / 2 + 2, y: y0 - S / 2 + 2, width: x1 - x0 + S - 4, height: y1 - y0 + S - 4, fill: "#1565c01a", stroke: "#1565c0", "stroke-width": 3, "stroke-dasharray": "8 4", "pointer-events": "none" }, svg);
  }
  const seqAt = new Map(sequenceMode() ? search.seq.map(([, c], k) => [c, k]) : []);
  // The continuations found: numbered marks, 1 the most played.
  const marks = new Map();
  if (search.found) {
    for (const [k, c] of search.found.continuations.entries()) {
      if (!c.point) continue;
      const cell = c.point[1] * n + c.point[0];
      if (!marks.has(cell)) marks.set(cell, { k: k + 1, c });
    }
  }
  for (let y = 0; y < n; y++) {
    const row = el("g", { role: "row" }, svg);
    for (let x = 0; x < n; x++) {
      const i = y * n + x;
      const [cx, cy] = centre(x, y);
      const g = el("g", { class: "cell", role: "gridcell", tabindex: i === search.cursor ? "0" : "-1", "data-cell": i }, row);
      el("rect", { x: cx - S / 2, y: cy - S / 2, width: S, height: S, fill: "transparent", class: "focus-ring" }, g);
      // In sequence mode the board shows the moves, numbered, in place of the stones.
      const k = seqAt.get(i);
      const v = sequenceMode() ? (k === undefined ? null : search.seq[k][0]) : search.cells[i];
      const parts = [pointName(n, x, y), v === "B" ? "black stone" : v === "W" ? "white stone" : "empty"];
      if (v) el("circle", { cx, cy, r: S * 0.44, fill: v === "B" ? "#111" : "#f4f4f4", stroke: "#0008", "stroke-width": 1 }, g);
      if (k !== undefined) {
        const t = el("text", { class: "seq", x: cx, y: cy + 6, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: v === "B" ? "#fff" : "#111", "pointer-events": "none" }, g);
        t.textContent = String(k + 1);
        parts.push(`move ${k + 1} of the sequence`);
      }
      if (search.any.has(i)) {
        el("path", { d: `M${cx - 9},${cy - 9}L${cx + 9},${cy + 9}M${cx + 9},${cy - 9}L${cx - 9},${cy + 9}`, stroke: "#c62828", "stroke-width": 3 }, g);
        parts.push("don't care");
      }
      if (box && x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1) parts.push("in the region");
      if (search.pending === i) {
        el("rect", { x: cx - S / 2 + 3, y: cy - S / 2 + 3, width: S - 6, height: S - 6, fill: "none", stroke: "#1565c0", "stroke-width": 3 }, g);
        parts.push("region corner");
      }
      const m = marks.get(i);
      if (m) {
        const colour = m.c.color === "B" ? "#111" : "#f4f4f4";
        const mark = el("g", { class: "cont", "data-rank": m.k, "pointer-events": "none" }, g);
        el("circle", { cx, cy, r: S * 0.36, fill: colour, "fill-opacity": 0.75, stroke: "#1565c0", "stroke-width": 2 }, mark);
        const t = el("text", { x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: inkOn(colour) }, mark);
        t.textContent = String(m.k);
        parts.push(`continuation ${m.k}: ${m.c.color === "B" ? "black" : "white"}, ${m.c.count} game${m.c.count === 1 ? "" : "s"}`);
      }
      g.setAttribute("aria-label", parts.join(", "));
      g.addEventListener("pointerdown", (e) => {
        // No text selection while dragging; the point takes the focus, for the keys.
        e.preventDefault();
        search.cursor = i;
        for (const c of svg.querySelectorAll(".cell")) c.setAttribute("tabindex", c === g ? "0" : "-1");
        g.focus({ preventScroll: true });
        applyTool(i, "down");
      });
      g.addEventListener("pointerup", () => applyTool(i, searchTool() === "region" ? "up" : "click"));
      g.addEventListener("focus", () => { search.cursor = i; });
    }
  }
  if (hadFocus) svg.querySelector(`[data-cell="${search.cursor}"]`)?.focus();
}

function searchBoardKey(e) {
  const n = search.size;
  let x = search.cursor % n;
  let y = Math.floor(search.cursor / n);
  switch (e.key) {
    case "ArrowLeft": x = Math.max(0, x - 1); break;
    case "ArrowRight": x = Math.min(n - 1, x + 1); break;
    case "ArrowUp": y = Math.max(0, y - 1); break;
    case "ArrowDown": y = Math.min(n - 1, y + 1); break;
    case "Home": x = 0; break;
    case "End": x = n - 1; break;
    case "Enter":
    case " ":
      e.preventDefault();
      applyTool(search.cursor, "click");
      $("search-board").querySelector(`[data-cell="${search.cursor}"]`)?.focus();
      return;
    default:
      return;
  }
  e.preventDefault();
  search.cursor = y * n + x;
  for (const c of $("search-board").querySelectorAll(".cell")) c.setAttribute("tabindex", c.dataset.cell === String(search.cursor) ? "0" : "-1");
  $("search-board").querySelector(`[data-cell="${search.cursor}"]`)?.focus();
}

/// The search the form and the board describe, as the API takes it.
function searchQuery() {
  const n = search.size;
  const stones = [];
  for (const [i, v] of search.cells.entries()) if (v) stones.push([v, i % n, Math.floor(i / n)]);
  const q = { kind: $("search-kind").value, size: n, stones };
  if (q.kind === "sequence") {
    if (!search.seq.length) throw new Error("Put the sequence's moves on the board first (the stone tools; the colours alternate).");
    delete q.stones;
    q.moves = search.seq.map(([c, i]) => [c, i % n, Math.floor(i / n)]);
    if (search.region) q.region = search.region;
    q.swap_colors = $("search-swap").checked;
  } else if (q.kind === "pattern") {
    if (!search.region) throw new Error("Draw the pattern's region first (the region tool: drag, or click two corners).");
    q.region = search.region;
    q.any = [...search.any].map((i) => [i % n, Math.floor(i / n)]);
    q.anchor = $("search-anchor").value;
    q.swap_colors = $("search-swap").checked;
  } else if ($("search-to-move").value) {
    q.to_move = $("search-to-move").value;
  }
  for (const [key, id] of [["player", "search-player"], ["from", "search-from"], ["to", "search-to"], ["winner", "search-winner"]]) {
    const v = $(id).value.trim();
    if (v) q[key] = v;
  }
  return q;
}

const percent = (k, n) => (n ? `${Math.round((100 * k) / n)}%` : "–");

/// A search's ticket: what `POST /api/search/stop` names it by.
const newTicket = () => `page-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

async function runSearch(ev) {
  ev?.preventDefault();
  if (search.running) return;
  $("search-error").textContent = "";
  let q;
  try { q = searchQuery(); } catch (e) { $("search-error").textContent = e.message; return; }
  $("search-status").textContent = "Searching…";
  $("search-results").hidden = false;
  const running = { ticket: newTicket(), controller: new AbortController() };
  search.running = running;
  $("search-stop").hidden = false;
  $("search-submit").disabled = true;
  watchSearch(running);
  try {
    const r = await fetch("/api/search", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...q, ticket: running.ticket }),
      signal: running.controller.signal,
    });
    const found = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) throw new Error(found.error || `HTTP ${r.status}`);
    search.query = q;
    search.found = found;
    showSearch(found, false);
    drawSearchBoard();
  } catch (e) {
    if (running.stopped) {
      $("search-status").textContent = "Search stopped.";
    } else {
      $("search-status").textContent = "";
      $("search-error").textContent = e.message;
    }
  } finally {
    if (search.running === running) search.running = null;
    $("search-stop").hidden = true;
    $("search-submit").disabled = false;
  }
}

/// Shows how far the search `running` has got, asking the server every quarter second
/// until it ends: the games read of those to read, or that it waits for other searches.
async function watchSearch(running) {
  const games = new Intl.NumberFormat("en");
  while (true) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (search.running !== running || running.stopped) return;
    let p;
    try {
      const r = await fetch("/api/search/progress", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ticket: running.ticket }) });
      if (!r.ok) return;
      p = await r.json();
    } catch {
      return;
    }
    if (search.running !== running || running.stopped) return;
    if (p.state === "running" && p.total > 0) {
      $("search-status").textContent = `Searching… ${games.format(p.read)} of ${games.format(p.total)} games read`;
    } else if (p.state === "waiting") {
      $("search-status").textContent = "Searching… (waiting for other searches to end)";
    }
  }
}

/// Stops the search running: the server drops it (waiting or running) and the page stops
/// waiting for its answer.
function stopSearch() {
  const running = search.running;
  if (!running) return;
  running.stopped = true;
  fetch("/api/search/stop", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ticket: running.ticket }) }).catch(() => {});
  running.controller.abort();
}

/// Shows the options that apply to the kind of search chosen.
function showSearchOptions() {
  const kind = $("search-kind").value;
  $("search-anchor").closest("label").hidden = kind !== "pattern";
  $("search-to-move").closest("label").hidden = kind !== "position";
  $("search-swap").closest("label").hidden = kind === "position";
}

function showSearch(found, more) {
  const n = found.size;
  const box = $("search-results");
  box.hidden = false;
  box.dataset.total = found.total;
  $("search-status").textContent = `${found.total} hit${found.total === 1 ? "" : "s"} in ${found.games} game${found.games === 1 ? "" : "s"} (${Math.round(found.ms)} ms); ${found.note}.`;
  $("search-export").disabled = found.total === 0;
  if (!more) {
    $("search-conts").replaceChildren(...found.continuations.slice(0, 30).map((c, k) => {
      const li = document.createElement("li");
      li.dataset.rank = k + 1;
      const where = c.point ? pointName(n, c.point[0], c.point[1]) : "pass";
      li.textContent = `${c.color === "B" ? "black" : "white"} ${where}: ${c.count} game${c.count === 1 ? "" : "s"}, black wins ${percent(c.black_wins, c.count)}, white wins ${percent(c.white_wins, c.count)}`;
      return li;
    }));
    if (!found.continuations.length) $("search-conts").append(Object.assign(document.createElement("li"), { textContent: "none" }));
    $("search-hits").replaceChildren();
  }
  for (const h of found.hits) {
    const li = document.createElement("li");
    li.dataset.game = h.game;
    li.dataset.move = h.move;
    const who = `${h.black ?? "?"} (B) – ${h.white ?? "?"} (W)`;
    li.append(`${who}, ${h.date ?? "no date"}, ${h.result ?? "no result"}, at move ${h.move}`);
    const open = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
    open.setAttribute("aria-label", `open ${h.black ?? "?"} against ${h.white ?? "?"} at move ${h.move}`);
    open.addEventListener("click", () => openHit(h));
    li.append(open);
    $("search-hits").append(li);
  }
  const shown = $("search-hits").children.length;
  $("search-more").hidden = shown >= found.total;
  $("search-more").dataset.offset = shown;
}

async function moreHits() {
  if (!search.query) return;
  try {
    showSearch(await api("POST", "/api/search", { ...search.query, offset: Number($("search-more").dataset.offset) }), true);
  } catch (e) {
    $("search-error").textContent = e.message;
  }
}

/// Opens a hit on the board at its move: a game between two human seats loaded from the
/// record up to that move, with the rest of the game to step through.
async function openHit(h) {
  $("search-error").textContent = "";
  try {
    const g = await api("GET", `/api/search/game/${h.game}?move=${h.move}`);
    const state = await api("POST", "/api/game", { sgf: g.sgf, players: ["human", "human"] });
    const players = [g.black ?? "black", g.white ?? "white"];
    attach(state, false, { moves: g.moves, players, label: `${players.join(" vs ")}, ${g.date ?? "no date"}, ${g.result ?? "no result"}` });
    $("play").scrollIntoView();
  } catch (e) {
    $("search-error").textContent = e.message;
  }
}

/// Downloads the hits' games as one SGF collection.
async function exportHits() {
  if (!search.query) return;
  $("search-error").textContent = "";
  try {
    const r = await fetch("/api/search/export", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(search.query) });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || `HTTP ${r.status}`);
    const url = URL.createObjectURL(new Blob([await r.text()], { type: "application/x-go-sgf" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "search.sgf" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) {
    $("search-error").textContent = e.message;
  }
}

function initSearch() {
  if (!catalogue.database) return;
  $("search").hidden = false;
  $("search-title").textContent = `Search ${catalogue.database}`;
  $("search-size").addEventListener("change", () => resetSearchBoard(true));
  $("search-clear").addEventListener("click", () => resetSearchBoard());
  $("search-form").addEventListener("submit", runSearch);
  $("search-stop").addEventListener("click", stopSearch);
  $("search-kind").addEventListener("change", () => { search.found = null; showSearchOptions(); drawSearchBoard(); });
  showSearchOptions();
  $("search-more").addEventListener("click", moreHits);
  $("search-export").addEventListener("click", exportHits);
  $("search-board").addEventListener("keydown", searchBoardKey);
  $("search-board").addEventListener("pointerleave", () => { search.drag = null; });
  resetSearchBoard();
}

// ---- start ----

async function init() {
  $("new-game").addEventListener("submit", startGame);
  $("sgf-file").addEventListener("change", loadSgf);
  $("clock-kind").addEventListener("change", showClockFields);
  setInterval(() => { if (game && game.clock && game.clock.running !== null) drawClocks(); }, 200);
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const v = $("move-input").value.trim();
    if (v) send(v).then(() => { if (!$("play-error").textContent) $("move-input").value = ""; });
  });
  $("pass").addEventListener("click", () => {
    const m = game.legal.find((m) => /^pass$/i.test(m.move)) || game.legal.find((m) => /^swap$/i.test(m.move));
    if (m) send(m.move);
  });
  $("undo").addEventListener("click", async () => {
    $("play-error").textContent = "";
    try { selection = []; render(await api("POST", `/api/game/${game.id}/undo`)); } catch (e) { $("play-error").textContent = e.message; }
  });
  $("new").addEventListener("click", () => { $("setup").scrollIntoView(); $("game").focus(); });
  $("swap-colours").addEventListener("click", swapColours);
  $("delete-game").addEventListener("click", deleteGame);
  $("view-back").addEventListener("click", leaveView);
  $("pause-clocks").addEventListener("click", async () => {
    $("play-error").textContent = "";
    const path = `/api/game/${game.id}/${game.paused ? "resume" : "pause"}`;
    try { render(await api("POST", path, {})); } catch (e) { $("play-error").textContent = e.message; }
  });
  $("resign").addEventListener("click", async () => {
    $("play-error").textContent = "";
    try { render(await api("POST", `/api/game/${game.id}/resign`, {})); } catch (e) { $("play-error").textContent = e.message; }
  });
  $("board").addEventListener("keydown", boardKey);
  // Cells are pressed on the board itself, not on their elements: an analysis report
  // redraws the board, and a cell redrawn between the press and the release would
  // otherwise lose its click.
  let pressed = null;
  $("board").addEventListener("pointerdown", (e) => { pressed = e.button === 0 ? cellAt(e) : null; });
  $("board").addEventListener("pointerup", (e) => {
    const cell = cellAt(e);
    if (pressed !== null && cell === pressed) clickCell(cell);
    pressed = null;
  });
  // A click without a pointer (a screen reader's activation) names its cell directly.
  $("board").addEventListener("click", (e) => {
    const g = e.detail === 0 ? e.target.closest?.("#board g.clickable[data-cell]") : null;
    if (g) clickCell(Number(g.dataset.cell));
  });
  $("board").addEventListener("pointerleave", () => showLine(null));
  $("board").addEventListener("focusout", (e) => {
    if (e.target.isConnected && !$("board").contains(e.relatedTarget) && !$("board").matches(":hover")) showLine(null);
  });
  $("analyse").addEventListener("change", toggleAnalysis);
  initTerritory();
  $("match-form").addEventListener("submit", startMatch);
  $("match-add").addEventListener("click", () => {
    const n = document.querySelectorAll(".match-more").length + 3;
    if (n > 8) return;
    const label = Object.assign(document.createElement("label"), { textContent: `Agent ${n} ` });
    const input = Object.assign(document.createElement("input"), { className: "match-more", id: `match-agent-${n}`, autocomplete: "off", spellcheck: false });
    input.setAttribute("list", "agent-specs");
    label.append(input);
    $("match-add").before(label);
    $("match-add").disabled = n >= 8;
    input.focus();
  });
  $("match-stop").addEventListener("click", async () => {
    try { if (match) showMatch(await api("POST", `/api/match/${match.id}/stop`)); } catch (e) { $("match-error").textContent = e.message; }
  });
  $("replay-next").addEventListener("click", () => replayStep(true));
  $("replay-back").addEventListener("click", () => replayStep(false));
  $("replay-end").addEventListener("click", () => replayTo(true));
  $("replay-start").addEventListener("click", () => replayTo(false));
  $("analysis-agent").addEventListener("change", () => { if ($("analyse").checked) toggleAnalysis(); });
  try {
    catalogue = await api("GET", "/api/games");
  } catch (e) {
    $("setup-error").textContent = `cannot reach the server: ${e.message}`;
    return;
  }
  fillGames();
  initSearch();
  initTree({
    api,
    render,
    view: showView,
    error: (text) => { $("play-error").textContent = text; },
    // A simultaneous turn's node is every player's (its player is the number of seats).
    playerName: (p) => (game && p >= game.players.length ? "every player" : game ? ownerName(styleOf(game), p) : `player ${p + 1}`),
    colour: (p) => (game && p >= game.players.length ? "#888" : game ? styleOf(game).colours[p] : null),
  });
  initTrain({ api, attach });
  const id = location.hash.slice(1);
  if (id) {
    try { attach(await api("GET", `/api/game/${encodeURIComponent(id)}`), false); } catch (_) { location.hash = ""; }
  }
}

init();
