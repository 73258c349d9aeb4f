// The Train view: start a temporal-difference training run on the server, watch its learning
// curve grow over /api/train/{id}/events, stop and resume it, and play against the weights
// it learned. The page never names a file: runs are named by the server or by the user, and
// the learned weights play as the player `trained:NAME`, which the server locates.

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let hooks = null; // { api, attach } from app.js
let info = null; // GET /api/train: the trainable games, the caps, where runs live
let shown = null; // the run in the box
let events = null;

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

const pct = (x) => `${Math.round(x * 100)}%`;

/// The evaluators of the game named in the form.
function fillModels() {
  const name = $("train-game").value.trim().split("(")[0];
  const game = info && info.games.find((g) => g.name === name);
  const select = $("train-eval");
  const keep = select.value;
  select.replaceChildren(
    ...(game ? game.models : []).map((m) => Object.assign(document.createElement("option"), { value: m.name, textContent: `${m.name}: ${m.about}` })),
  );
  if (game && game.models.some((m) => m.name === keep)) select.value = keep;
}

function number(id) {
  const v = $(id).value.trim();
  return v === "" ? null : Number(v);
}

async function start(ev) {
  ev.preventDefault();
  $("train-error").textContent = "";
  const body = {
    game: $("train-game").value.trim(),
    eval: $("train-eval").value || null,
    preset: $("train-preset").value,
    init: $("train-init").value,
    opponent: $("train-opponent").value.trim(),
    eval_opponent: $("train-eval-opponent").value.trim(),
    moves: number("train-moves"),
    eval_every: number("train-eval-every"),
    eval_games: number("train-eval-games"),
    alpha: number("train-alpha"),
    halve_every: number("train-halve"),
    lambda: number("train-lambda"),
    epsilon: number("train-epsilon"),
    seed: number("train-seed"),
    name: $("train-name").value.trim() || null,
  };
  try {
    watch(await hooks.api("POST", "/api/train", body));
    $("train-name").value = "";
    refresh();
  } catch (e) {
    $("train-error").textContent = e.message;
  }
}

/// Shows `run` in the box and follows its events.
function watch(run) {
  if (events) events.close();
  shown = null;
  show(run);
  events = new EventSource(`/api/train/${run.id}/events`);
  events.addEventListener("train", (e) => {
    const r = JSON.parse(e.data);
    const was = shown && shown.status;
    show(r);
    if (was !== r.status) refresh();
  });
}

function show(run) {
  if (shown && shown.id === run.id && shown.status === run.status && run.step < shown.step) return; // an older report
  shown = run;
  const box = $("train-box");
  box.hidden = false;
  box.dataset.status = run.status;
  box.dataset.points = run.curve.length;
  box.dataset.step = run.step;
  $("train-run-title").textContent = `${run.id}: ${run.game}, ${run.eval}`;
  const speed = run.moves_per_s ? `, ${Math.round(run.moves_per_s)} moves/s` : "";
  $("train-status").textContent =
    `${run.status}: ${run.step} of ${run.moves} learner moves, ${run.games} games${speed}` +
    ` (${run.algorithm}, λ ${run.schedule.lambda}, α ${run.schedule.alpha0}, ε ${run.schedule.epsilon}, against ${run.opponent})` +
    (run.error ? `: ${run.error}` : "");
  $("train-stop").disabled = run.status !== "running";
  $("train-resume").disabled = run.status !== "stopped";
  $("train-play").disabled = !run.weights || run.status === "failed";
  drawCurve(run);
}

/// The learning curve: the learner's score in each evaluation match against moves.
function drawCurve(run) {
  const svg = $("train-curve");
  svg.replaceChildren();
  const [W, H, left, right, top, bottom] = [480, 260, 56, 20, 14, 46];
  const pts = run.curve;
  // The axis follows the run as it goes, up to its length.
  const reached = Math.max(run.step, ...pts.map((p) => p.step));
  const xmax = Math.max(1, Math.min(run.moves, Math.ceil(reached * 1.1)), reached);
  const x = (s) => left + ((W - left - right) * s) / xmax;
  const y = (v) => top + (H - top - bottom) * (1 - v);
  const axis = { stroke: "#444", "stroke-width": 1 };
  el("line", { x1: left, y1: y(0), x2: W - right, y2: y(0), ...axis }, svg);
  el("line", { x1: left, y1: y(0), x2: left, y2: y(1), ...axis }, svg);
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    el("line", { x1: left, y1: y(v), x2: W - right, y2: y(v), stroke: "#ddd", "stroke-width": 1 }, svg);
    el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 12, fill: "#444" }, svg).textContent = pct(v);
  }
  for (const k of [0, 0.5, 1]) {
    const s = Math.round(xmax * k);
    el("text", { x: x(s), y: y(0) + 16, "text-anchor": k === 0 ? "start" : k === 1 ? "end" : "middle", "font-size": 12, fill: "#444" }, svg).textContent = s;
  }
  el("text", { x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle", "font-size": 13, fill: "#222" }, svg).textContent = "learner moves";
  const label = el("text", { x: 14, y: (top + H - bottom) / 2, "text-anchor": "middle", "font-size": 13, fill: "#222" }, svg);
  label.setAttribute("transform", `rotate(-90 14 ${(top + H - bottom) / 2})`);
  label.textContent = `score against ${run.eval_opponent}`;
  if (pts.length) {
    el("polyline", { points: pts.map((p) => `${x(p.step)},${y(p.score)}`).join(" "), fill: "none", stroke: "#1565c0", "stroke-width": 2 }, svg);
    for (const p of pts) el("circle", { class: "point", cx: x(p.step), cy: y(p.score), r: 3.5, fill: "#1565c0" }, svg);
  }
  $("train-summary").textContent = summary(run);
}

function summary(run) {
  const pts = run.curve;
  if (!pts.length) return "No evaluation yet.";
  const last = pts[pts.length - 1];
  const best = pts.reduce((a, b) => (b.score > a.score ? b : a));
  return `${pts.length} evaluation${pts.length === 1 ? "" : "s"} of ${run.schedule.eval_games} games against ${run.eval_opponent}: ` +
    `${pct(pts[0].score)} at the start, ${pct(last.score)} after ${last.step} moves (${last.games} games), best ${pct(best.score)} after ${best.step} moves.`;
}

/// The runs in the server's folder.
async function refresh() {
  let list;
  try {
    list = await hooks.api("GET", "/api/train");
  } catch (e) {
    $("train-error").textContent = e.message;
    return;
  }
  info = list;
  $("train-where").textContent = list.temporary
    ? "Runs are kept in a temporary folder of the server's own: they last as long as the server (start it with --train-dir to keep them)."
    : `Runs are kept in the server's training folder (${list.folder}); runs already there can be resumed.`;
  fillModels();
  $("train-runs").replaceChildren(
    ...list.runs.map((run) => {
      const li = document.createElement("li");
      li.dataset.id = run.id;
      const last = run.curve.length ? `, last score ${pct(run.curve[run.curve.length - 1].score)}` : "";
      li.append(`${run.id}: ${run.game}, ${run.eval}, ${run.status}, ${run.step} of ${run.moves} moves${last}`);
      const button = (text, label, action) => {
        const b = Object.assign(document.createElement("button"), { type: "button", textContent: text });
        b.setAttribute("aria-label", `${label} ${run.id}`);
        b.addEventListener("click", action);
        li.append(b);
      };
      button("Show", "show", () => watch(run));
      if (run.weights && run.status !== "failed") button("Play", "play against", () => play(run));
      if (run.status !== "running") button("Delete", "delete", () => remove(run));
      return li;
    }),
  );
}

/// Deletes a run that is not running, with its folder, once the user confirms.
async function remove(run) {
  if (!confirm(`Delete training run ${run.id} with its checkpoint and weights? It cannot be brought back.`)) return;
  $("train-error").textContent = "";
  try {
    await hooks.api("DELETE", `/api/train/${run.id}`);
    if (shown && shown.id === run.id) {
      if (events) events.close();
      events = null;
      shown = null;
      $("train-box").hidden = true;
    }
  } catch (e) {
    $("train-error").textContent = e.message;
  }
  await refresh();
}

/// A new game on the Play view: the user against the run's learned weights.
async function play(run) {
  $("train-error").textContent = "";
  try {
    const state = await hooks.api("POST", "/api/game", { spec: run.game, players: ["human", run.player] });
    hooks.attach(state, true);
    $("play").scrollIntoView();
  } catch (e) {
    $("train-error").textContent = e.message;
  }
}

async function post(action) {
  $("train-error").textContent = "";
  if (!shown) return;
  try {
    const run = await hooks.api("POST", `/api/train/${shown.id}/${action}`);
    // A stop's answer may come after the event that the run stopped: the events tell.
    if (action === "resume") watch(run);
    else $("train-stop").disabled = true;
  } catch (e) {
    $("train-error").textContent = e.message;
  }
}

export function initTrain(fromApp) {
  hooks = fromApp;
  $("train-form").addEventListener("submit", start);
  $("train-game").addEventListener("input", fillModels);
  $("train-stop").addEventListener("click", () => post("stop"));
  $("train-resume").addEventListener("click", () => post("resume"));
  $("train-play").addEventListener("click", () => { if (shown) play(shown); });
  $("train-game-help").textContent = "";
  refresh().then(() => {
    if (info) $("train-game-help").textContent = `a game with a linear evaluator: ${info.games.map((g) => g.name).join(", ")}`;
  });
}
