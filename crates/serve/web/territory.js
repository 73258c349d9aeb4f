// The "Territory" toggle for Go: the server's estimate of who will own each point (Monte
// Carlo playouts, GET /api/game/{id}/territory) drawn on the board as small squares shaded
// by the probability, the stones it judges dead faded and crossed, and the expected score
// beside the board. The estimate is asked for once per position while the toggle is on.

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

let estimate = null; // the last estimate: the server's answer plus the game's id
let asked = null; // "id/version" of the request in flight
let last = null; // what the board was last drawn from: { state, centre, S }

function isGo(state) {
  return !!state.board && state.spec.split("(")[0] === "go";
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.append(e);
  return e;
}

function clear() {
  const svg = $("board");
  for (const g of svg.querySelectorAll(".territory")) g.remove();
  for (const cell of svg.querySelectorAll("[data-label-plain]")) {
    cell.setAttribute("aria-label", cell.dataset.labelPlain);
    delete cell.dataset.labelPlain;
  }
}

function draw() {
  clear();
  if (!last || !estimate || estimate.id !== last.state.id || estimate.version !== last.state.version) return;
  const { state, centre, S } = last;
  const svg = $("board");
  const w = state.board.width;
  const layer = el("g", { class: "territory", "pointer-events": "none", "aria-hidden": "true" }, svg);
  const dead = new Set(estimate.dead);
  estimate.ownership.forEach((own, i) => {
    const [cx, cy] = centre(i % w, Math.floor(i / w));
    const cell = svg.querySelector(`[data-cell="${i}"]`);
    const words = [];
    if (dead.has(i)) {
      el("circle", { cx, cy, r: S * 0.44, fill: "#dcb35c", opacity: 0.55, class: "dead" }, layer);
      el("path", { d: `M${cx - 9},${cy - 9}L${cx + 9},${cy + 9}M${cx + 9},${cy - 9}L${cx - 9},${cy + 9}`, stroke: "#c62828", "stroke-width": 3 }, layer);
      words.push("dead");
    }
    const p = Math.abs(own);
    if (p >= 0.2) {
      const side = S * 0.34;
      el("rect", { x: cx - side / 2, y: cy - side / 2, width: side, height: side, fill: own > 0 ? "#000" : "#fff", stroke: own > 0 ? "none" : "#0006", "stroke-width": 0.5, "fill-opacity": p.toFixed(2), class: "owner" }, layer);
      words.push(`${own > 0 ? "black" : "white"}'s ${Math.round(p * 100)}%`);
    }
    if (cell && words.length) {
      cell.dataset.labelPlain = cell.getAttribute("aria-label");
      cell.setAttribute("aria-label", `${cell.dataset.labelPlain}, territory: ${words.join(", ")}`);
    }
  });
}

async function fetchFor(state) {
  const key = `${state.id}/${state.version}`;
  if (asked === key) return;
  asked = key;
  $("territory-score").textContent = "Estimating…";
  try {
    const r = await fetch(`/api/game/${state.id}/territory`);
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
    if (asked !== key) return; // a later position asked meanwhile
    estimate = { ...data, id: state.id };
    showScore();
    draw();
  } catch (e) {
    if (asked === key) $("territory-score").textContent = `No estimate: ${e.message}`;
  } finally {
    if (asked === key) asked = null;
  }
}

function showScore() {
  const e = estimate;
  const dead = e.dead.length;
  $("territory-score").textContent = `Estimate: ${e.score} (komi ${e.komi}; ${dead} dead stone${dead === 1 ? "" : "s"}; ${e.playouts} playouts)`;
}

/// Called after every drawing of the board: shows the toggle for Go and, when it is on,
/// the estimate of the position on the board (asking the server for it if needed).
export function territoryAfterDraw(state, centre, S) {
  last = { state, centre, S };
  const go = isGo(state);
  $("territory-box").hidden = !go;
  if (!go || !$("territory").checked) {
    $("territory-score").textContent = "";
    return;
  }
  if (estimate && estimate.id === state.id && estimate.version === state.version) {
    showScore();
    draw();
  } else {
    fetchFor(state);
  }
}

/// Wires the toggle.
export function initTerritory() {
  $("territory").addEventListener("change", () => {
    if (!last) return;
    if ($("territory").checked) territoryAfterDraw(last.state, last.centre, last.S);
    else {
      clear();
      $("territory-score").textContent = "";
    }
  });
}
