// The game-tree panel: every move of the game as a dot, one row per variation (the main line
// on the first row, each variation on a row of its own below, as Sabaki draws it), the
// current node ringed; a click jumps to a node, and the keys browse (Left/Right or
// PageUp/PageDown back and forward along the line, Up/Down to the sibling variations,
// Home/End to the start and the end of the line). The current node's comment is shown and
// can be edited. The server keeps the tree (`state.tree`: per node [parent, move, player,
// has a comment], the current node and its comment); this module only draws it and asks the
// server to move about it.

const SVG = "http://www.w3.org/2000/svg";
const D = 22; // the spacing of the dots, in SVG units (the panel scrolls past its width)
const COLOURS = ["#111", "#f4f4f4", "#c62828", "#1565c0"];

let hooks = null; // { api, render, error } from app.js
let shown = null; // the last state drawn
let gameId = null;
let preferred = new Map(); // node -> the child last visited under it: "forward" goes there
let layout = null; // { children, depth, row } of the last tree drawn

const BROWSE_HELP = "Click a move to go there. Keys: Left/Right (or PageUp/PageDown) back and forward, Up/Down the other variations, Home/End the start and the end of the line, Delete removes the move and what follows. A move played where the game went on adds a variation.";
const CLOCK_HELP = "Click a move to see it while the game goes on under its clock. Keys: Left/Right (or PageUp/PageDown) back and forward, Home/End the start and the game's move.";

const $ = (id) => document.getElementById(id);

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/// Each node's children, depth and row: the first child stays on its parent's row, each
/// other child opens a row below every row used so far (a loop, not recursion).
function place(nodes) {
  const n = nodes.length;
  const children = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) {
    const p = nodes[i][0];
    if (p !== null && p < i) children[p].push(i);
  }
  const depth = new Array(n).fill(0);
  const row = new Array(n).fill(0);
  let rows = 0;
  const stack = [[0, 0]];
  while (stack.length) {
    const [id, r] = stack.pop();
    row[id] = r === -1 ? ++rows : r;
    const kids = children[id];
    for (let k = kids.length - 1; k >= 0; k--) {
      depth[kids[k]] = depth[id] + 1;
      stack.push([kids[k], k === 0 ? row[id] : -1]);
    }
  }
  return { children, depth, row, rows: rows + 1, width: Math.max(...depth) + 1 };
}

/// The nodes from the start to `id`.
function lineTo(nodes, id) {
  const out = [id];
  while (nodes[out[0]][0] !== null) out.unshift(nodes[out[0]][0]);
  return out;
}

/// The line through the current node: the start to it, then on by the remembered (or first)
/// children to a leaf.
function fullLine(state) {
  const nodes = state.tree.nodes;
  const line = lineTo(nodes, state.tree.current);
  let at = state.tree.current;
  for (;;) {
    const kids = layout.children[at];
    if (!kids.length) break;
    at = kids.includes(preferred.get(at)) ? preferred.get(at) : kids[0];
    line.push(at);
  }
  return line;
}

function nodeLabel(state, id) {
  const [parent, mv, player, comment] = state.tree.nodes[id];
  if (parent === null) return `start${comment ? ", has a comment" : ""}`;
  const sibs = layout.children[parent];
  let text = `move ${layout.depth[id]}: ${hooks.playerName(player)} ${mv}`;
  if (sibs.length > 1) text += `, variation ${sibs.indexOf(id) + 1} of ${sibs.length}`;
  if (comment) text += ", has a comment";
  if (id === state.tree.current) text += state.viewing ? ", shown" : ", current";
  if (state.viewing && id === state.viewing.live) text += ", where the game is";
  return text;
}

async function go(node) {
  if (!shown || node === null || node === undefined || node === shown.tree.current) return;
  hooks.error("");
  if (shown.clock) {
    // A game with a clock goes on: its moves are shown, never gone to.
    hooks.view(node);
    return;
  }
  try {
    hooks.render(await hooks.api("POST", `/api/game/${shown.id}/goto`, { node }));
  } catch (e) {
    hooks.error(e.message);
  }
}

function key(e) {
  if (!shown || !layout) return;
  const t = shown.tree;
  const cur = t.current;
  const parent = t.nodes[cur][0];
  let to = null;
  switch (e.key) {
    case "ArrowLeft":
    case "PageUp":
      to = parent;
      break;
    case "ArrowRight":
    case "PageDown": {
      const kids = layout.children[cur];
      to = kids.includes(preferred.get(cur)) ? preferred.get(cur) : kids[0];
      break;
    }
    case "ArrowUp":
    case "ArrowDown": {
      if (parent === null) break;
      const sibs = layout.children[parent];
      const i = sibs.indexOf(cur) + (e.key === "ArrowUp" ? -1 : 1);
      to = sibs[i];
      break;
    }
    case "Home":
      to = 0;
      break;
    case "End": {
      const line = fullLine(shown);
      to = line[line.length - 1];
      break;
    }
    case "Delete":
      e.preventDefault();
      removeNode();
      return;
    default:
      return;
  }
  e.preventDefault();
  if (to !== undefined && to !== null) go(to);
}

async function saveComment() {
  if (!shown) return;
  hooks.error("");
  try {
    hooks.render(await hooks.api("POST", `/api/game/${shown.id}/comment`, { node: shown.tree.current, text: $("comment").value }));
    $("comment-status").textContent = "saved";
  } catch (e) {
    hooks.error(e.message);
  }
}

/// Removes the current move and every move after it (its variations too); the board goes
/// back to the move before.
async function removeNode() {
  if (!shown || shown.tree.current === 0) return;
  hooks.error("");
  try {
    hooks.render(await hooks.api("POST", `/api/game/${shown.id}/remove`, { node: shown.tree.current }));
  } catch (e) {
    hooks.error(e.message);
  }
}

/// Wires the panel to the page: `api(method, path, body)`, `render(state)`, `view(node)` (shows
/// a node of a game with a clock, which goes on), `error(text)`, `playerName(index)` and
/// `colour(index)` come from app.js.
export function initTree(h) {
  hooks = h;
  $("tree-wrap").addEventListener("keydown", key);
  $("comment-save").addEventListener("click", saveComment);
  $("remove-node").addEventListener("click", removeNode);
  $("comment").addEventListener("input", () => { $("comment-status").textContent = "not saved"; });
}

/// Draws the tree of `state` (hidden for a game that has none yet).
export function drawTree(state) {
  const box = $("tree-box");
  if (!state.tree) {
    box.hidden = true;
    return;
  }
  const t = state.tree;
  const newNode = !shown || shown.id !== state.id || shown.tree.current !== t.current;
  if (state.id !== gameId) {
    gameId = state.id;
    preferred = new Map();
  }
  shown = state;
  box.hidden = false;
  layout = place(t.nodes);
  const onLine = lineTo(t.nodes, t.current);
  for (let i = 1; i < onLine.length; i++) preferred.set(onLine[i - 1], onLine[i]);
  const line = new Set(fullLine(state));
  const svg = $("tree");
  const w = layout.width * D + D, h = layout.rows * D + D / 2;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  svg.replaceChildren();
  const at = (id) => [D / 2 + layout.depth[id] * D, D / 2 + layout.row[id] * D];
  const edges = el("g", { class: "edges" }, svg);
  for (let i = 1; i < t.nodes.length; i++) {
    const [px, py] = at(t.nodes[i][0]);
    const [x, y] = at(i);
    const points = py === y ? `${px},${py} ${x},${y}` : `${px},${py} ${x - D / 2},${y} ${x},${y}`;
    el("polyline", { points, class: line.has(i) ? "on-line" : "" }, edges);
  }
  for (let i = 0; i < t.nodes.length; i++) {
    const [x, y] = at(i);
    const [, , player, comment] = t.nodes[i];
    const g = el("g", { class: "node", "data-node": i, role: "button", "aria-label": nodeLabel(state, i) }, svg);
    if (i === t.current) el("circle", { cx: x, cy: y, r: D * 0.45, class: "current-ring" }, g);
    // Browsing a game with a clock: where the game itself is.
    if (state.viewing && i === state.viewing.live) el("circle", { cx: x, cy: y, r: D * 0.45, class: "live-ring" }, g);
    el("circle", { cx: x, cy: y, r: D * 0.3, fill: player === null ? "#9e9e9e" : hooks.colour(player) || COLOURS[player % COLOURS.length], class: "dot" }, g);
    if (comment) el("circle", { cx: x + D * 0.28, cy: y - D * 0.28, r: D * 0.12, class: "comment-mark" }, g);
    g.addEventListener("click", () => go(i));
  }
  svg.dataset.nodes = t.nodes.length;
  svg.dataset.current = t.current;
  svg.dataset.rows = layout.rows;
  // Keep the current node in view.
  const wrap = $("tree-wrap");
  const [cx, cy] = at(t.current);
  if (cx < wrap.scrollLeft + D || cx > wrap.scrollLeft + wrap.clientWidth - D) wrap.scrollLeft = cx - wrap.clientWidth / 2;
  if (cy < wrap.scrollTop + D || cy > wrap.scrollTop + wrap.clientHeight - D) wrap.scrollTop = cy - wrap.clientHeight / 2;
  $("tree-pos").textContent = nodeLabel(state, t.current) + (layout.children[t.current].length > 1 ? `; ${layout.children[t.current].length} variations follow` : "");
  const ahead = [...line].filter((id) => layout.depth[id] > layout.depth[t.current]).map((id) => t.nodes[id][1]);
  $("line-ahead").textContent = ahead.length ? `then: ${ahead.slice(0, 30).join(" ")}${ahead.length > 30 ? " …" : ""}` : "";
  // The comment box follows the node, but never overwrites what is being typed at it.
  const box2 = $("comment");
  if (newNode || (document.activeElement !== box2 && $("comment-status").textContent !== "not saved")) {
    box2.value = t.comment;
    $("comment-status").textContent = "";
  }
  $("comment-label").textContent = t.current === 0 ? "Comment on the start" : `Comment on move ${layout.depth[t.current]}`;
  // A game with a clock is one line played on: nothing is removed from it.
  $("remove-node").disabled = t.current === 0 || !!state.clock;
  $("tree-keys").textContent = state.clock ? CLOCK_HELP : BROWSE_HELP;
}
