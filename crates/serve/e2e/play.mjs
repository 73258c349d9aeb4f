// Plays games on the page served by `tabula serve` in Debian's Chromium, by clicking (or
// by keys alone), as a person would: moves are picked among the cells the page shows as
// playable, never from a list of moves.
//
//   node play.mjs BASE_URL ARTEFACT_DIR SCENARIO
//
// Prints one `RESULT {json}` line for the Rust test to check and writes screenshots to
// ARTEFACT_DIR; exits 0 only when every check held. Chromium is /usr/bin/chromium unless
// TABULA_CHROMIUM names another.

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [base, outDir, scenario] = process.argv.slice(2);
if (!base || !outDir || !scenario) {
  console.error("usage: node play.mjs BASE_URL ARTEFACT_DIR SCENARIO");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const WAIT_MS = 30_000; // the longest wait for one agent reply or one page change
const DEADLINE_MS = 150_000; // the whole scenario
setTimeout(() => {
  console.error(`${scenario}: not finished within ${DEADLINE_MS} ms`);
  process.exit(3);
}, DEADLINE_MS).unref();

function check(cond, message) {
  if (!cond) throw new Error(`check failed: ${message}`);
}

// A small seeded generator, so that a failing game can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  };
}
const pick = rng(Number(process.env.TABULA_E2E_SEED || 7));

// ---- reading the page ----

async function boardState(page) {
  return page.$eval("#board", (b) => ({ ply: Number(b.dataset.ply), over: b.dataset.over === "true", human: b.dataset.human === "true" }));
}

const playable = (page) => page.$$eval("#board g.clickable", (els) => els.map((e) => Number(e.dataset.cell)));
const statusText = (page) => page.$eval("#status", (e) => e.textContent);
const moveList = (page) => page.$$eval("#moves li", (els) => els.map((e) => e.textContent));

/// Waits until the game is over or a human is to move, at a ply after `after`.
async function humanTurn(page, after) {
  await page.waitForFunction(
    (after) => {
      const b = document.getElementById("board");
      return Number(b.dataset.ply) > after && (b.dataset.over === "true" || b.dataset.human === "true");
    },
    after,
    { timeout: WAIT_MS },
  );
  return boardState(page);
}

/// Every cell of the board carries a label naming it and what is on it; the last move's
/// cells say so. `pattern` is what a label must look like.
async function checkLabels(page, cells, pattern) {
  const labels = await page.$$eval("#board [role=gridcell]", (els) => els.map((e) => e.getAttribute("aria-label") || ""));
  check(labels.length === cells, `${labels.length} labelled cells, not ${cells}`);
  for (const l of labels) check(pattern.test(l), `cell label ${JSON.stringify(l)} does not match ${pattern}`);
  const s = await boardState(page);
  if (s.ply > 0) {
    const last = await page.$eval("#moves li:last-child", (e) => e.textContent);
    if (!/pass|swap/i.test(last)) check(labels.some((l) => l.includes("last move")), "no cell is labelled as the last move");
  }
}

/// The page fits its width: no horizontal scroll, and the board inside the window (and,
/// on a narrow window, filling most of its width).
async function checkFits(page, narrow = false) {
  const m = await page.evaluate(() => {
    const r = document.getElementById("board").getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, left: r.left, right: r.right, width: r.width };
  });
  check(m.scroll <= m.inner, `the page scrolls sideways: ${m.scroll} px wide in a ${m.inner} px window`);
  check(m.left >= 0 && m.right <= m.inner && (!narrow || m.width > m.inner * 0.8), `the board (${m.left}..${m.right}) does not fit ${m.inner} px well`);
  return m;
}

// ---- acting on it ----

/// Plays one move for the human by clicking playable cells (one, or several for a move of
/// several cells) or Pass when no cell is playable; returns the state at the next human turn.
async function clickMove(page) {
  const before = await boardState(page);
  for (let click = 0; click < 4; click++) {
    const cells = await playable(page);
    if (!cells.length) {
      check(!(await page.$eval("#pass", (b) => b.disabled)), "no playable cell and no Pass");
      await page.click("#pass");
      break;
    }
    const cell = cells[pick(cells.length)];
    const selected = await page.$$eval("#board [aria-label*=', selected']", (els) => els.length);
    await page.click(`#board g[data-cell="${cell}"]`);
    // Either the move went (the ply moves on) or one more cell is selected.
    await page.waitForFunction(
      ([ply, selected]) => {
        const b = document.getElementById("board");
        return Number(b.dataset.ply) > ply || b.querySelectorAll("[aria-label*=', selected']").length > selected;
      },
      [before.ply, selected],
      { timeout: WAIT_MS },
    );
    if ((await boardState(page)).ply > before.ply) break;
  }
  return humanTurn(page, before.ply);
}

/// Plays one move for the human by keys alone: for each cell of the move, the arrows take
/// the cursor to a playable cell and Enter selects or plays it. Returns the state at the
/// next human turn and the cells chosen.
async function keyMove(page, width) {
  const before = await boardState(page);
  const chosen = [];
  for (let step = 0; step < 4; step++) {
    const cells = await playable(page);
    check(cells.length > 0, "no playable cell");
    const cell = cells[pick(cells.length)];
    const at = await page.evaluate(() => Number(document.activeElement.dataset.cell));
    check(!Number.isNaN(at), "the focus is not on the board");
    const dx = (cell % width) - (at % width);
    const dy = Math.floor(cell / width) - Math.floor(at / width);
    for (let i = 0; i < Math.abs(dx); i++) await page.keyboard.press(dx > 0 ? "ArrowRight" : "ArrowLeft");
    for (let i = 0; i < Math.abs(dy); i++) await page.keyboard.press(dy > 0 ? "ArrowDown" : "ArrowUp");
    check((await page.evaluate(() => Number(document.activeElement.dataset.cell))) === cell, `the arrows did not reach cell ${cell}`);
    const selected = await page.$$eval("#board [aria-label*=', selected']", (els) => els.length);
    await page.keyboard.press("Enter");
    chosen.push(cell);
    await page.waitForFunction(
      ([ply, selected]) => {
        const b = document.getElementById("board");
        return Number(b.dataset.ply) > ply || b.querySelectorAll("[aria-label*=', selected']").length > selected;
      },
      [before.ply, selected],
      { timeout: WAIT_MS },
    );
    if ((await boardState(page)).ply > before.ply) break;
  }
  return { state: await humanTurn(page, before.ply), chosen };
}

async function newGame(page, game, params, players) {
  await page.selectOption("#game", game);
  for (const [name, value] of Object.entries(params)) await page.fill(`#game-params input[data-param="${name}"]`, value);
  for (const [i, p] of players.entries()) await page.fill(`#seats input[data-seat="${i}"]`, p);
  await page.click("#new-game button[type=submit]");
  await page.waitForSelector("#play:not([hidden])", { timeout: WAIT_MS });
  const err = await page.$eval("#setup-error", (e) => e.textContent);
  check(err === "", `the game was refused: ${err}`);
}

/// Clicks moves until the game is over; the number of human moves made.
async function playToEnd(page, { maxMoves = 400, each } = {}) {
  let s = await boardState(page);
  if (!s.human && !s.over) s = await humanTurn(page, s.ply - 1);
  let moves = 0;
  while (!s.over) {
    check(moves < maxMoves, `no end after ${maxMoves} moves`);
    s = await clickMove(page);
    moves += 1;
    if (each) await each(s, moves);
  }
  return moves;
}

async function shot(page, name) {
  const path = join(outDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// ---- the scenarios ----

const scenarios = {
  // Go 9x9 against MCTS: moves clicked, one pass, then Resign; then a new game with the
  // colours swapped, in which the agent opens and the human answers. Komi -20 keeps the
  // human ahead by the count, so that the agent answers the pass by playing on: a pass
  // back that wins would end the game.
  async go(page) {
    await newGame(page, "go", { size: "9", komi: "-20" }, ["human", "mcts(playouts=100)"]);
    await checkFits(page);
    let s;
    for (let i = 0; i < 6; i++) s = await clickMove(page);
    await checkLabels(page, 81, /^[a-hj]\d, (empty|black stone|white stone)(, last move)?(, playable)?$/);
    await page.click("#pass");
    s = await humanTurn(page, s.ply);
    check((await moveList(page)).includes("pass"), "the pass is in the move list");
    for (let i = 0; i < 4 && !s.over; i++) s = await clickMove(page);
    const shots = [await shot(page, "go-9x9")];
    check(!s.over, "the game ended early");
    await page.click("#resign");
    await page.waitForFunction(() => document.getElementById("board").dataset.over === "true", null, { timeout: WAIT_MS });
    const result = await statusText(page);
    check(/^Game over: black resigned; white \(mcts\(playouts=100\)\) wins by resignation\.$/.test(result), `result: ${result}`);
    check(await page.$eval("#resign", (b) => b.disabled), "Resign is still offered after the end");
    check((await playable(page)).length === 0, "cells are still playable after the end");
    shots.push(await shot(page, "go-9x9-resigned"));
    const plies = (await boardState(page)).ply;
    const played = await moveList(page);

    // Save SGF downloads the record, which the arena's writer wrote.
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: WAIT_MS }), page.click("#save-sgf")]);
    const sgfPath = join(outDir, "go-9x9.sgf");
    await download.saveAs(sgfPath);
    const sgf = readFileSync(sgfPath, "utf8");
    check(sgf.startsWith("(;") && sgf.includes("GM[1]") && sgf.includes("RE[W+R]") && sgf.includes("PW[mcts(playouts=100)]"), `the saved record: ${sgf.slice(0, 200)}`);

    await page.click("#swap-colours");
    await page.waitForFunction(() => document.getElementById("play-title").textContent.endsWith("mcts(playouts=100) vs human"), null, { timeout: WAIT_MS });
    s = await humanTurn(page, 0);
    check(s.ply === 1 && !s.over, "the agent, now black, opened");
    s = await clickMove(page);
    check(s.ply === 3, `after the human's answer and the agent's reply the ply is ${s.ply}`);
    const swapped = await page.$eval("#play-title", (e) => e.textContent);

    // A reload shows the same game (its id is in the address), and the form shows its spec
    // and players.
    await page.reload();
    await page.waitForFunction(() => Number(document.getElementById("board").dataset.ply) === 3, null, { timeout: WAIT_MS });
    const form = await page.evaluate(() => ({
      game: document.getElementById("game").value,
      size: document.querySelector('#game-params input[data-param="size"]').value,
      komi: document.querySelector('#game-params input[data-param="komi"]').value,
      players: [...document.querySelectorAll("#seats input[data-seat]")].map((i) => i.value),
    }));
    check(form.game === "go" && form.size === "9" && form.komi === "-20", `the form shows ${JSON.stringify(form)}`);
    check(form.players.join(" vs ") === "mcts(playouts=100) vs human", `the form's players: ${form.players}`);
    check((await page.$eval("#play-title", (e) => e.textContent)) === swapped, "the reload shows another game");

    // Load SGF replays the saved record into a new game between two humans: the same moves.
    for (const i of [0, 1]) await page.fill(`#seats input[data-seat="${i}"]`, "human");
    await page.setInputFiles("#sgf-file", sgfPath);
    await page.waitForFunction((n) => document.getElementById("play-title").textContent.endsWith("human vs human") && Number(document.getElementById("board").dataset.ply) === n, plies, { timeout: WAIT_MS });
    const loaded = await moveList(page);
    check(JSON.stringify(loaded) === JSON.stringify(played), `loaded ${loaded}, played ${played}`);
    check((await page.$eval("#setup-error", (e) => e.textContent)) === "", "the load was refused");
    // A file that is not a record is refused with the server's reason (the browser logs
    // the 400 as a console error, expected here).
    const logged = problems.length;
    await page.setInputFiles("#sgf-file", { name: "bad.sgf", mimeType: "text/plain", buffer: Buffer.from("(;GM[1]SZ[9];B[zz])") });
    await page.waitForFunction(() => document.getElementById("setup-error").textContent !== "", null, { timeout: WAIT_MS });
    const refused = await page.$eval("#setup-error", (e) => e.textContent);
    check(/^bad\.sgf: sgf: move 1 \(B\[zz\]\)/.test(refused), `refused: ${refused}`);
    const expected = problems.splice(logged).filter((p) => !/status of 400/.test(p));
    problems.push(...expected);
    return { plies, result, swapped, form, loaded: loaded.length, refused, shots };
  },

  // Othello on a phone-sized window (375 px): the whole game by clicking, the page never
  // wider than the window.
  async othello(page) {
    await page.setViewportSize({ width: 375, height: 740 });
    await newGame(page, "othello", {}, ["human", "alphabeta(depth=2)"]);
    const start = await checkFits(page, true);
    const shots = [];
    let solved = null;
    let scored = null;
    const moves = await playToEnd(page, {
      each: async (s, n) => {
        if (n % 10 === 0) await checkLabels(page, 64, /^[a-h][1-8], (empty|black disc|white disc)(, last move)?(, playable)?$/);
        if (n === 10) shots.push(await shot(page, "othello-375"));
        // In the middle game, alpha-beta's score on every legal move.
        const open = !scored && n >= 8 && s.human && !s.over ? await playable(page) : [];
        if (open.length) {
          await page.fill("#analysis-agent", "alphabeta(depth=4)");
          await page.click("#analyse");
          await page.waitForFunction((n) => document.querySelectorAll("#board .overlay .mark").length === n, open.length, { timeout: 2 * WAIT_MS });
          const labels = await page.$$eval("#board g.clickable", (els) => els.map((e) => e.getAttribute("aria-label")));
          check(labels.every((l) => /analysis: [a-h][1-8] (score -?\d+|(wins|loses) in \d+)/.test(l)), `not every legal move has a score: ${labels}`);
          scored = { moves: open.length, labels };
          shots.push(await shot(page, "othello-alphabeta"));
          await page.click("#analyse");
          await page.waitForFunction(() => document.querySelectorAll("#board .overlay .mark").length === 0, null, { timeout: WAIT_MS });
        }
        // In the endgame, the exact solver's score on every legal move.
        const empties = await page.$$eval("#board [role=gridcell]", (els) => els.filter((e) => /, empty/.test(e.getAttribute("aria-label"))).length);
        if (solved || s.over || !s.human || empties > 14) return;
        const cells = await playable(page);
        if (!cells.length) return;
        await page.fill("#analysis-agent", "solve(max_empties=14)");
        await page.click("#analyse");
        await page.waitForFunction((n) => document.querySelectorAll("#board .overlay .mark").length === n, cells.length, { timeout: 2 * WAIT_MS });
        const labels = await page.$$eval("#board g.clickable", (els) => els.map((e) => e.getAttribute("aria-label")));
        check(labels.every((l) => /analysis: [a-h][1-8] score -?\d+/.test(l)), `not every legal move has its exact score: ${labels}`);
        solved = { empties, moves: cells.length, labels };
        shots.push(await shot(page, "othello-solve"));
        await page.click("#analyse");
        await page.waitForFunction(() => document.querySelectorAll("#board .overlay .mark").length === 0, null, { timeout: WAIT_MS });
      },
    });
    check(solved !== null, "no endgame position was analysed");
    check(scored !== null, "no middle-game position was analysed");
    const end = await checkFits(page, true);
    const result = await statusText(page);
    check(/^Game over: (Draw|(black|white) \(.*\) wins) — /.test(result), `result: ${result}`);
    shots.push(await shot(page, "othello-375-end"));
    return { moves, plies: (await boardState(page)).ply, result, width: { start, end }, scored, solved, shots };
  },

  // Amazons 6x6 against MCTS: each move is three cells (the queen, its square, the arrow),
  // the first move chosen by keys, the others by clicks.
  async amazons(page) {
    await newGame(page, "amazons", { size: "6" }, ["human", "mcts(playouts=200)"]);
    // By keys first: Enter on a queen selects it, Escape drops it; then a whole move of
    // three cells by arrows and Enter.
    const queens = await playable(page);
    await page.focus(`#board g[data-cell="${queens[queens.length - 1]}"]`);
    await page.keyboard.press("Enter");
    check((await page.$$eval("#board [aria-label*=', selected']", (els) => els.length)) === 1, "Enter did not select the queen");
    await page.keyboard.press("Escape");
    check((await page.$$eval("#board [aria-label*=', selected']", (els) => els.length)) === 0, "Escape did not drop the selection");
    const byKeys = await keyMove(page, 6);
    check(byKeys.chosen.length === 3, `a move of ${byKeys.chosen.length} cells`);
    const name = (c) => `${"abcdef"[c % 6]}${6 - Math.floor(c / 6)}`;
    const first = (await moveList(page))[0];
    const [q, to, arrow] = byKeys.chosen.map(name);
    check(first === `${q}-${to}/${arrow}`, `keys chose ${q} ${to} ${arrow} but ${first} was played`);
    const moves = 1 + await playToEnd(page, {
      each: async (s, n) => {
        if (n === 1) await checkLabels(page, 36, /^[a-f][1-6], (empty|arrow|white amazon|black amazon)(, last move)?(, selected)?(, playable)?$/);
      },
    });
    const history = await moveList(page);
    check(history.every((m) => /^[a-f][1-6]-[a-f][1-6]\/[a-f][1-6]$/.test(m)), `moves: ${history.join(" ")}`);
    const result = await statusText(page);
    check(/^Game over: (white|black) \(.*\) wins/.test(result), `result: ${result}`);
    const shots = [await shot(page, "amazons-6x6-end")];

    // The same game in steps: each click is a whole action (amazon, destination, arrow),
    // the picked and the landed amazon are shown and named on the board.
    await newGame(page, "amazons-steps", { size: "5" }, ["human", "mcts(playouts=100)"]);
    let s = await clickMove(page);
    check(s.human && !s.over, "after picking an amazon the same side moves on");
    const picked = await page.$$eval("#board [aria-label*='picked amazon']", (els) => els.length);
    check(picked === 1, `${picked} cells name the picked amazon`);
    s = await clickMove(page);
    const landed = await page.$$eval("#board [aria-label*='landed amazon']", (els) => els.length);
    check(landed === 1, `${landed} cells name the landed amazon`);
    shots.push(await shot(page, "amazons-steps-5x5-landed"));
    const steps = 2 + await playToEnd(page);
    const stepList = await moveList(page);
    check(stepList.every((m) => /^[a-e][1-5]$/.test(m)), `steps: ${stepList.join(" ")}`);
    check(stepList.length % 3 === 0, `${stepList.length} steps do not make whole moves`);
    const stepResult = await statusText(page);
    check(/^Game over: (white|black) \(.*\) wins/.test(stepResult), `result: ${stepResult}`);
    shots.push(await shot(page, "amazons-steps-5x5-end"));
    return { moves, plies: history.length, result, steps, stepPlies: stepList.length, stepResult, shots };
  },

  // Hex 5x5 against MCTS, on its rhombus of hexagons: a whole game by clicking (Hex has no
  // draws, so someone wins).
  async hex(page) {
    // Under a Fischer clock (10 min + 1 s): both clocks shown, the human's counting down.
    await page.selectOption("#clock-kind", "fischer");
    await page.fill("#clock-main", "600");
    await page.fill("#clock-inc", "1");
    await newGame(page, "hex", { size: "5" }, ["human", "mcts(playouts=200)"]);
    let clocks = null;
    const moves = await playToEnd(page, {
      each: async (s, n) => {
        if (n !== 1) return;
        await checkLabels(page, 25, /^[a-e][1-5], (empty|black stone|white stone)(, last move)?(, playable)?$/);
        if (s.over) return;
        const read = () => page.$$eval("#clocks .clock", (els) => els.map((e) => ({ text: e.textContent, ms: Number(e.dataset.ms), running: e.classList.contains("running") })));
        clocks = await read();
        check(clocks.length === 2 && clocks.every((c) => /^(black|white) \d+:\d\d$/.test(c.text)), `clocks: ${JSON.stringify(clocks)}`);
        check(clocks[0].running && !clocks[1].running, `the human's clock is not the one running: ${JSON.stringify(clocks)}`);
        check(clocks.every((c) => c.ms > 590000 && c.ms <= 601000), `clocks: ${JSON.stringify(clocks)}`);
        await page.waitForFunction((ms) => Number(document.querySelector("#clock-0").dataset.ms) < ms - 300, clocks[0].ms, { timeout: WAIT_MS });
      },
    });
    check(clocks !== null, "the game ended before the clocks were seen");
    check((await page.$$eval("#clocks .clock.running", (els) => els.length)) === 0, "a clock still runs after the end");
    const result = await statusText(page);
    check(/^Game over: (black|white) \(.*\) wins/.test(result), `result: ${result}`);
    const shots = [await shot(page, "hex-5x5-end")];
    return { moves, plies: (await boardState(page)).ply, result, clocks, shots };
  },

  // Connect Four by keys alone: the form (Tab, type-ahead, Enter), then arrows and Enter on
  // the board; every move lands in the column the cursor was taken to.
  async connect4(page) {
    const kb = page.keyboard;
    await kb.press("Tab");
    check(await page.evaluate(() => document.activeElement.id === "game"), "Tab does not reach the game list first");
    await kb.type("c");
    check((await page.$eval("#game", (e) => e.value)) === "connect4", "typing c does not pick connect4");
    const focusId = () => page.evaluate(() => document.activeElement.dataset.seat ?? document.activeElement.dataset.param ?? document.activeElement.id);
    for (let i = 0; i < 10 && (await focusId()) !== "1"; i++) await kb.press("Tab");
    check((await focusId()) === "1", "Tab does not reach player 2");
    await kb.press("Control+A");
    await kb.type("alphabeta(depth=2)");
    await kb.press("Enter");
    await page.waitForSelector("#play:not([hidden])", { timeout: WAIT_MS });
    check(await page.evaluate(() => document.activeElement.closest("#board") !== null), "the board does not have the focus after Start");
    let s = await boardState(page);
    let moves = 0;
    while (!s.over) {
      check(moves < 30, "no end after 30 moves");
      const cols = [...new Set((await playable(page)).map((c) => c % 7))];
      const col = cols[pick(cols.length)];
      const at = await page.evaluate(() => Number(document.activeElement.dataset.cell));
      check(!Number.isNaN(at), "the focus left the board");
      const dx = col - (at % 7);
      for (let i = 0; i < Math.abs(dx); i++) await kb.press(dx > 0 ? "ArrowRight" : "ArrowLeft");
      if (moves === 0) await kb.press("ArrowDown"); // any row of the column plays it
      await kb.press("Enter");
      const before = s.ply;
      s = await humanTurn(page, before);
      const played = (await moveList(page))[before];
      check(played === String(col + 1), `the cursor was on column ${col + 1} but ${played} was played`);
      moves += 1;
      if (moves === 1) await checkLabels(page, 42, /^column [1-7], row [1-6], (empty|red disc|yellow disc)(, last move)?(, playable)?$/);
    }
    const result = await statusText(page);
    check(/^Game over: (Draw|(red|yellow) \(.*\) wins)/.test(result), `result: ${result}`);
    const shots = [await shot(page, "connect4-keys-end")];

    // "Save record" downloads the arena's record of the game (Connect Four has no SGF);
    // "Load a record" replays it into a new game between two humans: the same moves.
    check(await page.$eval("#save-sgf", (e) => e.hidden), "Save SGF is offered for Connect Four");
    const played = await moveList(page);
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: WAIT_MS }), page.click("#save-record")]);
    const recordPath = join(outDir, "connect4.json");
    await download.saveAs(recordPath);
    const record = JSON.parse(readFileSync(recordPath, "utf8"));
    check(record.game.startsWith("connect4") && record.moves.length === s.ply && record.rewards.length === 2, `the saved record: ${JSON.stringify(record).slice(0, 300)}`);
    for (const i of [0, 1]) await page.fill(`#seats input[data-seat="${i}"]`, "human");
    await page.setInputFiles("#sgf-file", recordPath);
    await page.waitForFunction((n) => document.getElementById("play-title").textContent.endsWith("human vs human") && Number(document.getElementById("board").dataset.ply) === n, s.ply, { timeout: WAIT_MS });
    const loaded = await moveList(page);
    check(JSON.stringify(loaded) === JSON.stringify(played), `loaded ${loaded}, played ${played}`);
    check((await page.$eval("#setup-error", (e) => e.textContent)) === "", "the record was refused");

    // "Delete game", confirmed: the page goes back to the form and the server forgets it.
    const id = await page.evaluate(() => location.hash.slice(1));
    page.once("dialog", (d) => d.accept());
    await page.click("#delete-game");
    await page.waitForFunction(() => document.getElementById("play").hidden, null, { timeout: WAIT_MS });
    const deleted = await page.$eval("#setup-error", (e) => e.textContent);
    check(deleted === `Game ${id} deleted.`, `after the delete: ${deleted}`);
    // (The browser logs the expected 404 as a console error.)
    const logged = problems.length;
    const gone = await page.evaluate(async (id) => (await fetch(`/api/game/${id}`)).status, id);
    check(gone === 404, `the deleted game answers ${gone}`);
    problems.push(...problems.splice(logged).filter((p) => !/status of 404/.test(p)));
    return { moves, plies: s.ply, result, record: record.moves.length, deleted: gone, shots };
  },

  // The analysis overlay on Go 9x9: switched on, it draws win rates and visits on empty
  // points and they change as the search goes on; after a move it is about the new
  // position; switched off, it is gone.
  async analysis(page) {
    await newGame(page, "go", { size: "9" }, ["human", "mcts(playouts=100)"]);
    await page.fill("#analysis-agent", "mcts");
    await page.click("#analyse");
    const marks = () => page.$$eval("#board .overlay .mark", (els) => els.map((e) => `${e.dataset.cell}:${e.textContent}`).join(" "));
    await page.waitForFunction(() => document.querySelectorAll("#board .overlay .mark").length >= 3, null, { timeout: WAIT_MS });
    const first = await marks();
    await page.waitForFunction((first) => {
      const now = [...document.querySelectorAll("#board .overlay .mark")].map((e) => `${e.dataset.cell}:${e.textContent}`).join(" ");
      return now !== first && now !== "";
    }, first, { timeout: WAIT_MS });
    const grown = await marks();
    const labels = await page.$$eval("#board [role=gridcell]", (els) => els.map((e) => e.getAttribute("aria-label")));
    const analysed = labels.filter((l) => l.includes("analysis:"));
    check(analysed.length >= 3, `${analysed.length} cells carry the analysis in their labels`);
    check(analysed.every((l) => /, empty, playable, analysis: [A-HJ]\d \d+\.\d% win rate, \d+ visits(, line( [A-HJ]\d| pass)+)?$/.test(l)), `labels: ${analysed.slice(0, 3).join(" | ")}`);
    const shots = [await shot(page, "go-9x9-analysis")];

    // Hovering a mark shows its line as numbered ghost stones, the first on that point.
    const best = await page.$eval("#board .overlay .mark", (e) => e.dataset.cell);
    await page.hover(`#board g.cell[data-cell="${best}"]`);
    await page.waitForFunction(() => document.querySelectorAll("#board .ghosts .ghost").length >= 2, null, { timeout: WAIT_MS });
    const ghosts = await page.$$eval("#board .ghosts .ghost", (els) => els.map((e) => `${e.dataset.cell}:${e.textContent}`));
    const line = await page.$eval(`#board g.cell[data-cell="${best}"]`, (e) => e.getAttribute("aria-label"));
    check(ghosts[0] === `${best}:1`, `the line starts elsewhere: ${ghosts.join(" ")} (hovered ${best})`);
    check(/, line( [A-HJ]\d| pass){2,}$/.test(line), `the label has no line: ${line}`);
    check(await page.$eval("#board .overlay", (e) => e.style.display === "none"), "the marks stay drawn under the line");
    shots.push(await shot(page, "go-9x9-line"));
    await page.mouse.move(1, 1);
    await page.waitForFunction(() => !document.querySelector("#board .ghosts"), null, { timeout: WAIT_MS });

    // A move: the overlay is about the position after the agent's reply.
    const before = await boardState(page);
    const s = await clickMove(page);
    check(s.ply === before.ply + 2, "the agent replied");
    await page.waitForFunction((version) => {
      const o = document.querySelector("#board .overlay");
      return o && Number(o.dataset.version) >= version && o.querySelectorAll(".mark").length >= 3;
    }, 0, { timeout: WAIT_MS });
    const after = await marks();
    const occupied = await page.$$eval("#board [role=gridcell]", (els) => els.filter((e) => /stone/.test(e.getAttribute("aria-label"))).map((e) => e.dataset.cell));
    const marked = after.split(" ").map((m) => m.split(":")[0]);
    check(marked.every((c) => !occupied.includes(c)), `a mark on a stone: ${after}`);
    check(after !== grown, "the overlay did not change after the move");

    // The win-rate graph has a point for the first position (analysed), the agent's move and
    // the position now on the board.
    await page.waitForFunction(() => document.querySelectorAll("#graph .point").length >= 3, null, { timeout: WAIT_MS });
    const graph = await page.$$eval("#graph .point", (els) => els.map((e) => [Number(e.dataset.ply), Number(e.dataset.win)]));
    check(graph.map(([p]) => p).join(",") === "0,1,2", `graph points at plies ${graph.map(([p]) => p)}`);
    check(graph.every(([, w]) => w >= 0 && w <= 1), `graph: ${JSON.stringify(graph)}`);
    check(/^black's win rate: \d+% after 2 plies$/.test(await page.$eval("#graph-title", (e) => e.textContent)), "the graph's title");
    shots.push(await shot(page, "go-9x9-graph"));

    await page.click("#analyse");
    await page.waitForFunction(() => !document.querySelector("#board .overlay"), null, { timeout: WAIT_MS });
    check(!(await page.$eval("#analyse", (e) => e.checked)), "Analyse is still on");
    return { first, grown, after, ghosts, graph, shots };
  },
};

// GDL tic-tac-toe from the server's bundled games, against MCTS: drawn on the grid of its
// `cell` relation, the seats named by its roles; a whole game by clicking cells. Then GDL
// Connect Four's rules pasted into the form, and one move by clicking a column: the piece
// lands on the bottom row.
scenarios.gdl = async (page) => {
  await newGame(page, "gdl", {}, ["human", "mcts(playouts=100)"]);
  check(/^gdl\(game=ticTacToe\): human vs mcts/.test(await page.$eval("#play-title", (e) => e.textContent)), "the title names the game");
  check(!(await page.$eval("#board-wrap", (e) => e.hidden)), "no board drawn from the cell relation");
  check(await page.$$eval("#board .cell", (c) => c.length) === 9, "the grid is not 3x3");
  check(/^xplayer \(human\) to move/.test(await statusText(page)), `the seat is not named by its role: ${await statusText(page)}`);
  const facts = await page.$$eval("#gdl-facts li", (l) => l.map((e) => e.textContent));
  check(facts.length === 1 && facts[0] === "(control xplayer)", `facts beside the board: ${facts}`);
  let s = await boardState(page);
  let moves = 0;
  const played = [];
  while (!s.over) {
    check(moves < 9, "no end after 9 moves");
    const cells = await page.$$("#board .cell.clickable");
    check(cells.length > 0, "no cell to click");
    const labels = await Promise.all(cells.map((c) => c.getAttribute("aria-label")));
    check(labels.every((l) => /^cell [123] [123], empty, playable/.test(l)), `cells: ${labels}`);
    const i = pick(cells.length);
    const [, col, row] = labels[i].match(/^cell (\d) (\d)/);
    await cells[i].click();
    const mv = `(mark ${col} ${row})`;
    played.push(mv);
    moves += 1;
    s = await humanTurn(page, s.ply);
    const list = await moveList(page);
    check(list.includes(mv), `${mv} is not in the move list ${list}`);
    const mark = await page.$eval(`#board .cell[aria-label^="cell ${col} ${row},"]`, (e) => e.getAttribute("aria-label"));
    check(/^cell \d \d, xplayer x/.test(mark), `the clicked cell reads ${mark}`);
  }
  const result = await statusText(page);
  check(result.startsWith("Game over"), `status: ${result}`);
  check(await page.$$eval("#move-list button.legal-move:not([disabled])", (b) => b.length) === 0, "moves left to click after the end");
  const shots = [await shot(page, "gdl-tictactoe")];

  // Rules pasted into the form: the project's GDL Connect Four, between two humans.
  const rules = readFileSync(new URL("../../../testdata/gdl/connectFour.kif", import.meta.url), "utf8");
  await page.fill("#kif", rules);
  await page.fill('#seats input[data-seat="1"]', "human");
  await page.click("#new-game button[type=submit]");
  await page.waitForFunction(() => /^gdl\(game=pasted-[0-9a-f]{16}\): human vs human$/.test(document.getElementById("play-title").textContent), null, { timeout: WAIT_MS });
  const pasted = await page.$$eval("#move-list button.legal-move:not([disabled])", (b) => b.map((e) => e.textContent));
  check(pasted.length === 7, `pasted Connect Four offers ${pasted}`);
  check(await page.$$eval("#board .cell", (c) => c.length) === 42, "the rack is not 7x6");
  // Any cell of column 4 drops there; row 1 is the bottom row.
  await page.click('#board .cell[aria-label^="column 4 6,"]');
  await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 1, null, { timeout: WAIT_MS });
  check((await moveList(page))[0] === "(drop 4)", `the column click played ${await moveList(page)}`);
  const landed = await page.$eval('#board .cell[aria-label^="column 4 1,"]', (e) => e.getAttribute("aria-label"));
  check(/^column 4 1, red r, last move/.test(landed), `the bottom of column 4 reads ${landed}`);
  shots.push(await shot(page, "gdl-connect-four"));

  // Three roles: the bundled three-player Nim, two seats named in the form (the third is
  // human), played to its end by buttons against MCTS as green.
  await page.fill("#kif", "");
  await page.fill('#game-params input[data-param="game"]', "threePlayerNim");
  await page.fill('#seats input[data-seat="0"]', "human");
  await page.fill('#seats input[data-seat="1"]', "mcts(playouts=50)");
  await page.click("#new-game button[type=submit]");
  await page.waitForFunction(() => /^gdl\(game=threePlayerNim\): human vs mcts\(playouts=50\) vs human$/.test(document.getElementById("play-title").textContent), null, { timeout: WAIT_MS });
  check(await page.$$eval("#seats input[data-seat]", (i) => i.length) === 3, "the form has no third seat");
  check(/^red \(human\) to move/.test(await statusText(page)), `status: ${await statusText(page)}`);
  const nimFacts = await page.$$eval("#gdl-facts li", (l) => l.map((e) => e.textContent));
  check(nimFacts.includes("(stones a 7)"), `facts: ${nimFacts}`);
  let nim = await boardState(page);
  let nimMoves = 0;
  while (!nim.over) {
    check(nimMoves < 12, "three-player Nim did not end in 12 human moves");
    await page.click("#move-list button.legal-move:not([disabled]) >> nth=0");
    nimMoves += 1;
    nim = await humanTurn(page, nim.ply);
  }
  const nimResult = await statusText(page);
  check(/^Game over: (red|green|blue) \(/.test(nimResult), `three-player result: ${nimResult}`);

  // Simultaneous moves: the bundled race against a random agent under a 10-minute clock;
  // each turn the human's button is clicked and the turn is played with the agent's choice.
  await page.fill('#game-params input[data-param="game"]', "simultaneousRace");
  await page.fill('#seats input[data-seat="1"]', "random(seed=4)");
  await page.selectOption("#clock-kind", "fischer");
  await page.fill("#clock-main", "600");
  await page.fill("#clock-inc", "0");
  await page.click("#new-game button[type=submit]");
  await page.waitForFunction(() => /^gdl\(game=simultaneousRace\): human vs random/.test(document.getElementById("play-title").textContent), null, { timeout: WAIT_MS });
  check(/^Every player moves at once/.test(await statusText(page)), `status: ${await statusText(page)}`);
  // The human's clock runs while it chooses; the agent's only while it searches.
  const raceClocks = await page.$$eval("#clocks .clock", (els) => els.map((e) => ({ id: e.id, running: e.classList.contains("running"), ms: Number(e.dataset.ms) })));
  check(raceClocks.length === 2 && raceClocks[0].running && !raceClocks[1].running && raceClocks.every((c) => c.ms > 590000), `race clocks: ${JSON.stringify(raceClocks)}`);
  shots.push(await shot(page, "gdl-race"));
  let race = await boardState(page);
  let turns = 0;
  while (!race.over) {
    check(turns < 12, "the race did not end in 12 turns");
    const buttons = await page.$$eval('#move-list .joint-seat[data-seat="0"] button', (b) => b.map((e) => e.textContent));
    check(buttons.includes("(run 3)"), `left's moves: ${buttons}`);
    await page.click('#move-list .joint-seat[data-seat="0"] button:text-is("(run 3)")');
    turns += 1;
    await page.waitForFunction((ply) => Number(document.getElementById("board").dataset.ply) > ply, race.ply, { timeout: WAIT_MS });
    race = await boardState(page);
  }
  check((await page.$$eval("#clocks .clock.running", (els) => els.length)) === 0, "a clock still runs after the race");
  const raceMoves = await moveList(page);
  check(raceMoves.length === turns && raceMoves.every((m) => m.startsWith("(run 3) + ")), `the race's turns: ${raceMoves}`);
  return { moves, plies: s.ply, played, result, pasted: pasted.length, nim: { moves: nimMoves, result: nimResult }, race: turns, shots };
};

// An arena match started from the page: Connect Four, MCTS against alpha-beta, 4 games at
// 100 ms a move (with an SPRT);
// the table fills in as games finish; a finished game opens on the board and is stepped
// through to its end and back.
scenarios.match = async (page) => {
  await page.fill("#match-game", "connect4");
  await page.fill("#match-a", "mcts");
  await page.fill("#match-b", "alphabeta(depth=2)");
  await page.fill("#match-games", "4");
  await page.fill("#match-ms", "100");
  await page.fill("#match-nodes", "20000");
  await page.fill("#match-sprt", "sprt(elo0=0,elo1=50)");
  await page.fill("#match-openings", "random:2");
  await page.click("#match-form button[type=submit]");
  await page.waitForSelector("#match-box:not([hidden])", { timeout: WAIT_MS });
  check((await page.$eval("#match-error", (e) => e.textContent)) === "", "the match was refused");
  // The table as it streams: each count of finished games seen, until the match is done.
  const seen = new Set();
  const deadline = Date.now() + 4 * WAIT_MS;
  for (;;) {
    const box = await page.$eval("#match-box", (b) => ({ status: b.dataset.status, played: Number(b.dataset.played) }));
    seen.add(box.played);
    if (box.status !== "running") break;
    check(Date.now() < deadline, "the match did not finish");
    await page.waitForFunction((n) => {
      const b = document.getElementById("match-box");
      return Number(b.dataset.played) > n || b.dataset.status !== "running";
    }, box.played, { timeout: 4 * WAIT_MS });
  }
  const status = await page.$eval("#match-box", (b) => b.dataset.status);
  check(status === "done", `match status ${status}: ${await page.$eval("#match-status", (e) => e.textContent)}`);
  const line = await page.$eval("#match-status", (e) => e.textContent);
  check(line.includes("(100 ms, 20000 nodes a move, openings random:2)"), `status line: ${line}`);
  const played = await page.$eval("#match-box", (b) => Number(b.dataset.played));
  check(played >= 1 && played <= 4, `played ${played}`);
  check(seen.size >= 2, `the table was seen only at ${[...seen]} games`);
  const rows = await page.$$eval("#match-list li", (els) => els.map((e) => e.textContent));
  check(rows.length === played, `${rows.length} games listed, ${played} played`);
  const wld = await page.$eval("#match-wld", (e) => ({ text: e.textContent, games: Number(e.dataset.games) }));
  check(wld.games === played && /^\d+-\d+-\d+$/.test(wld.text), `W-L-D ${wld.text}`);
  const elo = await page.$eval("#match-elo", (e) => e.textContent);
  check(/^(-?\d+|∞|-∞|–) ± (\d+|∞|–)$/.test(elo), `Elo ${elo}`);
  const sprt = await page.$eval("#match-sprt-state", (e) => e.textContent);
  check(/^LLR -?\d+\.\d\d in \(/.test(sprt), `SPRT ${sprt}`);
  check(await page.$eval("#match-stop", (b) => b.disabled), "Stop is still enabled");
  const shots = [await shot(page, "match-table")];

  // The first game on the board, move by move.
  const plies = Number((rows[0].match(/(\d+) moves/) || [])[1]);
  await page.click("#match-list li:first-child button");
  await page.waitForSelector("#replay-bar:not([hidden])", { timeout: WAIT_MS });
  check((await boardState(page)).ply === 0, "the game opens at its start");
  for (let i = 1; i <= 3; i++) {
    await page.click("#replay-next");
    await page.waitForFunction((i) => Number(document.getElementById("board").dataset.ply) === i, i, { timeout: WAIT_MS });
    const last = await page.$$eval("#board [role=gridcell]", (els) => els.filter((e) => /last move/.test(e.getAttribute("aria-label"))).length);
    check(last === 1, `after move ${i}: ${last} cells marked as the last move`);
  }
  await page.click("#replay-back");
  await page.waitForFunction(() => Number(document.getElementById("board").dataset.ply) === 2, null, { timeout: WAIT_MS });
  await page.click("#replay-end");
  await page.waitForFunction((n) => Number(document.getElementById("board").dataset.ply) === n, plies, { timeout: WAIT_MS });
  const end = await statusText(page);
  check(end.startsWith("Game over") && !end.includes("human"), `at the end: ${end}`);
  check(await page.$eval("#replay-next", (b) => b.disabled), "Next is enabled at the end");
  check((await page.$eval("#replay-pos", (e) => e.textContent)) === `move ${plies} of ${plies}`, "the position text");
  shots.push(await shot(page, "match-replay"));

  // A round robin of three agents at tic-tac-toe, one game a pair: the standings fill in.
  await page.fill("#match-game", "tictactoe");
  await page.fill("#match-a", "alphabeta(depth=9)");
  await page.fill("#match-b", "random(seed=1)");
  await page.click("#match-add");
  check(await page.$eval("#match-agent-3", (e) => e === document.activeElement), "the new agent box has not the focus");
  await page.keyboard.type("random(seed=2)");
  await page.fill("#match-games", "1");
  await page.fill("#match-nodes", "");
  await page.fill("#match-sprt", "");
  await page.click("#match-form button[type=submit]");
  await page.waitForFunction(() => /^Round robin of 3 agents/.test(document.getElementById("match-status").textContent), null, { timeout: WAIT_MS });
  await page.waitForFunction(() => document.getElementById("match-box").dataset.status !== "running", null, { timeout: 4 * WAIT_MS });
  const tourney = await page.$eval("#match-status", (e) => e.textContent);
  check(/3 of 3 games, done/.test(tourney), `tournament status: ${tourney}`);
  check(await page.$eval("#match-table", (t) => t.hidden), "the match table shows for a tournament");
  const standings = await page.$$eval("#tourney-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  check(standings.length === 3 && standings.every((r) => r[2] === "2"), `standings: ${JSON.stringify(standings)}`);
  check(standings[0][1].startsWith("alphabeta(depth=9,"), `the perfect player is not first: ${JSON.stringify(standings)}`);
  check((await page.$$eval("#match-list li", (l) => l.length)) === 3, "three games listed");
  shots.push(await shot(page, "tournament"));
  return { played, seen: [...seen], wld: wld.text, elo, sprt, plies, end, standings, shots };
};

// The Search view over a small database (the project's 9x9 search fixtures): a corner
// pattern set up by clicking (a black stone on the 3-3 point, the region dragged over the
// corner) finds the four games that open there, draws the continuation numbered 1 on the
// board and lists its figures; the hits are exported as SGF; the same stone placed by keys is
// searched as a whole-board position; a hit opens on the board at its move and steps on; a
// two-move sequence put down with the stone tools finds its four games and the move that
// follows in them; a search is stopped
// while it runs; the view fits a 375 px window.
scenarios.search = async (page) => {
  await page.waitForSelector("#search:not([hidden])", { timeout: WAIT_MS });
  await page.fill("#search-size", "9");
  await page.dispatchEvent("#search-size", "change");
  check((await page.$$eval("#search-board [role=gridcell]", (e) => e.length)) === 81, "the search board is not 9x9");
  const cell = (x, y) => `#search-board g[data-cell="${y * 9 + x}"]`;
  const label = (x, y) => page.$eval(cell(x, y), (e) => e.getAttribute("aria-label"));
  await page.click(cell(2, 2));
  check((await label(2, 2)) === "C7, black stone", `after a click: ${await label(2, 2)}`);
  // The region: a drag from one corner of it to the other.
  await page.check('input[name="search-tool"][value="region"]');
  const centre = async (sel) => { const b = await page.locator(sel).boundingBox(); return [b.x + b.width / 2, b.y + b.height / 2]; };
  const [ax, ay] = await centre(cell(0, 0));
  const [bx, by] = await centre(cell(3, 3));
  await page.mouse.move(ax, ay);
  await page.mouse.down();
  await page.mouse.move(bx, by, { steps: 5 });
  await page.mouse.up();
  check(/in the region/.test(await label(3, 3)) && !/in the region/.test(await label(4, 4)), "the region is not the dragged rectangle");
  check((await page.$eval("#search-kind", (e) => e.value)) === "pattern", "drawing a region does not switch to a pattern search");
  await page.selectOption("#search-anchor", "corner");
  await page.click("#search-form button[type=submit]");
  await page.waitForFunction(() => document.getElementById("search-results").dataset.total !== undefined, null, { timeout: WAIT_MS });
  const pattern = Number(await page.$eval("#search-results", (e) => e.dataset.total));
  const hits = await page.$$eval("#search-hits li", (els) => els.map((e) => e.textContent));
  check(hits.length === pattern, `${hits.length} hits listed of ${pattern}`);
  const marks = await page.$$eval("#search-board .cont", (els) => els.map((e) => `${e.closest("[data-cell]").dataset.cell}:${e.textContent}`));
  check(marks.length >= 1 && marks[0].endsWith(":1"), `continuation marks: ${marks}`);
  const first = await page.$eval("#search-conts li:first-child", (e) => e.textContent);
  check(/^white [A-J]\d: 4 games, black wins 50%, white wins 50%$/.test(first), `continuation 1: ${first}; ${pattern} hits: ${hits.join(" | ")}; ${await page.$eval("#search-status", (e) => e.textContent)}`);
  const markedLabel = await page.$eval(`#search-board g[data-cell="${marks[0].split(":")[0]}"]`, (e) => e.getAttribute("aria-label"));
  check(/continuation 1: white, 4 games$/.test(markedLabel), `the marked point's label: ${markedLabel}`);
  const shots = [await shot(page, "search-pattern")];

  // Export: one SGF collection of the hits' games.
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: WAIT_MS }), page.click("#search-export")]);
  const sgfPath = join(outDir, "search.sgf");
  await download.saveAs(sgfPath);
  const exported = readFileSync(sgfPath, "utf8").split("(;GM[1]").length - 1;

  // By keys: the board cleared, the stone put back with the arrows and Enter, searched as a
  // whole-board position.
  await page.click("#search-clear");
  await page.check('input[name="search-tool"][value="B"]');
  await page.focus('#search-board g[tabindex="0"]');
  const at = await page.evaluate(() => Number(document.activeElement.dataset.cell));
  for (let i = 0; i < (at % 9) - 2; i++) await page.keyboard.press("ArrowLeft");
  for (let i = 0; i < Math.floor(at / 9) - 2; i++) await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  check((await label(2, 2)) === "C7, black stone", `after Enter: ${await label(2, 2)}`);
  await page.selectOption("#search-kind", "position");
  await page.click("#search-form button[type=submit]");
  await page.waitForFunction(() => document.querySelectorAll("#search-board .cont").length > 0, null, { timeout: WAIT_MS });
  const position = Number(await page.$eval("#search-results", (e) => e.dataset.total));

  // A hit opens on the board at its move, and the rest of the game steps on from there.
  await page.click("#search-hits li:first-child button");
  await page.waitForFunction(() => !document.getElementById("play").hidden && !document.getElementById("replay-bar").hidden, null, { timeout: WAIT_MS });
  const opened = (await boardState(page)).ply;
  const title = await page.$eval("#play-title", (e) => e.textContent);
  check(/^go\(size=9,komi=5\.5.*\): Ann vs Bob, 2021-03-01, B\+R$/.test(title), `title: ${title}`);
  check((await moveList(page)).join(" ") === "C7", `moves: ${await moveList(page)}`);
  await page.click("#replay-next");
  await page.waitForFunction(() => Number(document.getElementById("board").dataset.ply) === 2, null, { timeout: WAIT_MS });
  check((await moveList(page)).join(" ") === "C7 D7", `after Next: ${await moveList(page)}`);

  // A move sequence: Black's 3-3 point and White's answer beside it, put down with the stone
  // tools (the tool turns to the other colour by itself), found in the four games that open
  // with it, each before its first move.
  await page.click("#search-clear");
  await page.selectOption("#search-kind", "sequence");
  check(await page.$eval("#search-anchor", (e) => e.closest("label").hidden), "the pattern's anchor shows for a sequence");
  await page.check('input[name="search-tool"][value="B"]');
  await page.click(cell(2, 2));
  const tool = () => page.$eval('input[name="search-tool"]:checked', (e) => e.value);
  check((await tool()) === "W", `the tool after Black's move: ${await tool()}`);
  await page.click(cell(3, 2));
  check((await label(3, 2)) === "D7, white stone, move 2 of the sequence", `after the second move: ${await label(3, 2)}`);
  // The last move's point takes it back; then it goes down again.
  await page.click(cell(3, 2));
  check((await label(3, 2)) === "D7, empty" && (await tool()) === "W", `after taking it back: ${await label(3, 2)}, tool ${await tool()}`);
  await page.click(cell(3, 2));
  const numbers = await page.$$eval("#search-board text.seq", (els) => els.map((e) => e.textContent));
  check(numbers.join(" ") === "1 2", `the sequence's numbers: ${numbers}`);
  await page.click("#search-form button[type=submit]");
  await page.waitForFunction(() => / in this order /.test(document.getElementById("search-status").textContent), null, { timeout: WAIT_MS });
  const sequence = Number(await page.$eval("#search-results", (e) => e.dataset.total));
  const seqHits = await page.$$eval("#search-hits li", (els) => els.map((e) => e.textContent));
  check(seqHits.length === sequence && seqHits.every((h) => /at move 0Open$/.test(h)), `sequence hits: ${seqHits.join(" | ")}`);
  // Each game goes on with Black's 4-4 point beside them, turned back to the query's corner.
  const seqNext = await page.$eval("#search-conts li:first-child", (e) => e.textContent);
  check(seqNext === "black D6: 4 games, black wins 50%, white wins 50%", `the sequence's continuation 1: ${seqNext}`);
  const seqMarks = await page.$$eval("#search-board .cont", (els) => els.map((e) => `${e.closest("[data-cell]").dataset.cell}:${e.textContent}`));
  check(seqMarks.join(" ") === `${3 * 9 + 3}:1`, `the sequence's continuation marks: ${seqMarks}`);
  shots.push(await shot(page, "search-sequence"));

  // Stop: the search's request is held on its way, so that it is still running when Stop is
  // pressed; the page sends the stop with that search's ticket and stops waiting for it.
  // While it runs the page asks how far it has got, by the same ticket, and shows the
  // answer: given here by the test, since the held search never reaches the server.
  let held = null;
  await page.route("**/api/search", (route) => { held = route; });
  let progressTicket = null;
  await page.route("**/api/search/progress", (route) => {
    progressTicket = route.request().postDataJSON().ticket;
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ticket: progressTicket, state: "running", read: 12288, total: 31996 }) });
  });
  await page.click("#search-form button[type=submit]");
  await page.waitForSelector("#search-stop:not([hidden])", { timeout: WAIT_MS });
  check(await page.$eval("#search-submit", (e) => e.disabled), "Search can be pressed while a search runs");
  await page.waitForFunction(() => document.getElementById("search-status").textContent === "Searching… 12,288 of 31,996 games read", null, { timeout: WAIT_MS });
  check(progressTicket === held?.request().postDataJSON().ticket, `progress asked for ${progressTicket}`);
  await page.unroute("**/api/search/progress");
  const stopRequest = page.waitForRequest((r) => r.url().endsWith("/api/search/stop"), { timeout: WAIT_MS });
  await page.click("#search-stop");
  const stopBody = (await stopRequest).postDataJSON();
  await page.waitForFunction(() => document.getElementById("search-status").textContent === "Search stopped.", null, { timeout: WAIT_MS });
  const ticket = held && held.request().postDataJSON().ticket;
  check(/^page-/.test(stopBody.ticket) && stopBody.ticket === ticket, `stop ${JSON.stringify(stopBody)} for the search with ticket ${ticket}`);
  check((await page.$eval("#search-stop", (e) => e.hidden)) && !(await page.$eval("#search-submit", (e) => e.disabled)), "after the stop the page still waits");
  await page.unroute("**/api/search");
  await held.abort().catch(() => {});
  const stopped = await page.$eval("#search-status", (e) => e.textContent);

  // On a phone: no sideways scroll, the search board most of the width.
  await page.setViewportSize({ width: 375, height: 740 });
  const fit = await page.evaluate(() => {
    const r = document.getElementById("search-board").getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, width: r.width, left: r.left, right: r.right };
  });
  check(fit.scroll <= fit.inner && fit.left >= 0 && fit.right <= fit.inner && fit.width > fit.inner * 0.8, `at 375 px: ${JSON.stringify(fit)}`);
  await page.locator("#search").scrollIntoViewIfNeeded();
  shots.push(await shot(page, "search-375"));
  return { pattern, position, exported, opened, hits, marks, first, title, sequence, seqHits, seqNext, stopped, fit, shots };
};

// Tree: Go 9x9 between two humans; back by a click on the tree, another move makes a
// variation, then jumps between the branches by clicks and by keys, a comment, and Save SGF
// with both branches and the comment in it.
scenarios.tree = async function tree(page) {
  await newGame(page, "go", { size: "9" }, ["human", "human"]);
  for (let i = 0; i < 4; i++) await clickMove(page);
  const tree = () => page.$eval("#tree", (t) => ({ nodes: Number(t.dataset.nodes), current: Number(t.dataset.current), rows: Number(t.dataset.rows) }));
  const current = (n) => page.waitForFunction((n) => document.getElementById("tree").dataset.current === String(n), n, { timeout: WAIT_MS });
  let t = await tree();
  check(t.nodes === 5 && t.current === 4 && t.rows === 1, `after four moves: ${JSON.stringify(t)}`);
  const mainLine = await moveList(page);

  // Back to move 2 by a click on its dot: the board and the move list follow.
  await page.click('#tree g[data-node="2"]');
  await current(2);
  check((await boardState(page)).ply === 2, "the board is not at move 2");
  check((await moveList(page)).join(" ") === mainLine.slice(0, 2).join(" "), `moves at node 2: ${await moveList(page)}`);
  const label = await page.$eval('#tree g[data-node="2"]', (g) => g.getAttribute("aria-label"));
  check(/^move 2: white [A-HJ]\d, current$/.test(label), `node 2's label: ${label}`);

  // Another move there: a variation on a second row.
  let other = null;
  for (let tries = 0; tries < 20 && !other; tries++) {
    const cells = await playable(page);
    const cell = cells[pick(cells.length)];
    await page.click(`#board g[data-cell="${cell}"]`);
    await page.waitForFunction(() => Number(document.getElementById("board").dataset.ply) === 3, null, { timeout: WAIT_MS });
    t = await tree();
    if (t.nodes === 6) {
      other = (await moveList(page))[2];
    } else {
      // The main line's own move, followed: back, and another.
      await page.click('#tree g[data-node="2"]');
      await current(2);
    }
  }
  check(other && other !== mainLine[2], `no variation: ${JSON.stringify(t)}`);
  t = await tree();
  check(t.current === 5 && t.rows === 2, `after the variation: ${JSON.stringify(t)}`);

  // Between the branches by clicks...
  await page.click('#tree g[data-node="4"]');
  await current(4);
  check((await moveList(page)).join(" ") === mainLine.join(" "), "the main line's moves are back");
  await page.click('#tree g[data-node="5"]');
  await current(5);
  check((await moveList(page))[2] === other, "the variation's move is shown");
  // ...and by keys: Up to the main line's move, Left back, Right forward, Down to the variation.
  await page.focus("#tree-wrap");
  await page.keyboard.press("ArrowUp");
  await current(3);
  await page.keyboard.press("ArrowLeft");
  await current(2);
  await page.keyboard.press("ArrowRight");
  await current(3);
  await page.keyboard.press("ArrowDown");
  await current(5);
  await page.keyboard.press("ArrowLeft");
  await current(2);
  await page.keyboard.press("ArrowLeft");
  await current(1);
  await page.keyboard.press("End");
  await current(5); // the line last visited: the variation

  // A comment on the variation's move.
  await page.fill("#comment", "a quieter idea");
  await page.click("#comment-save");
  await page.waitForFunction(() => document.querySelectorAll("#tree .comment-mark").length === 1, null, { timeout: WAIT_MS });
  const pos = await page.$eval("#tree-pos", (e) => e.textContent);
  check(pos.includes("has a comment"), `the current node's description: ${pos}`);

  // Save SGF: both branches and the comment.
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: WAIT_MS }), page.click("#save-sgf")]);
  const sgfPath = join(outDir, "tree.sgf");
  await download.saveAs(sgfPath);
  const sgf = readFileSync(sgfPath, "utf8");
  check(sgf.includes("C[a quieter idea]"), `no comment in ${sgf}`);
  const branches = sgf.split("\n(;").length - 1;
  check(branches === 2, `${branches} branches in ${sgf}`);
  const shots = [await shot(page, "tree")];

  // The variation removed (its move is on the board): the tree is the main line again and
  // the board at the move before it. Then the main line's last move, by the Delete key.
  await page.click("#remove-node");
  await current(2);
  t = await tree();
  check(t.nodes === 5 && t.rows === 1, `after removing the variation: ${JSON.stringify(t)}`);
  check((await moveList(page)).join(" ") === mainLine.slice(0, 2).join(" "), `moves after the removal: ${await moveList(page)}`);
  await page.click('#tree g[data-node="4"]');
  await current(4);
  await page.focus("#tree-wrap");
  await page.keyboard.press("Delete");
  await current(3);
  check((await tree()).nodes === 4, "Delete removed the last move");
  await page.click('#tree g[data-node="0"]');
  await current(0);
  check(await page.$eval("#remove-node", (b) => b.disabled), "the start cannot be removed");

  // On a phone: the panel fits, no sideways scroll.
  await page.setViewportSize({ width: 375, height: 740 });
  const fit = await checkFits(page, true);
  const wrap = await page.$eval("#tree-wrap", (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right }; });
  check(wrap.left >= 0 && wrap.right <= 375, `the tree panel at 375 px: ${JSON.stringify(wrap)}`);
  shots.push(await shot(page, "tree-375"));
  return { nodes: (await tree()).nodes, branches, other, fit, shots };
};

// Train: by clicking only, a short TD run on Amazons 6x6 is started from the form, its
// learning curve gets points, it is stopped, resumed (the counts go on from where they
// were), stopped again, and a game against the learned weights is opened and a move played.
scenarios.train = async (page) => {
  await page.waitForSelector("#train-eval option", { state: "attached", timeout: WAIT_MS });
  const where = await page.$eval("#train-where", (e) => e.textContent);
  check(/temporary folder/.test(where), `where runs live: ${where}`);
  // The form's defaults: TD(0) on Amazons 6x6 against random moves, 50000 learner moves,
  // a 10-game evaluation every 1000.
  await page.click("#train-form button[type=submit]");
  const box = () => page.$eval("#train-box", (e) => ({ status: e.dataset.status, points: Number(e.dataset.points), step: Number(e.dataset.step) }));
  const pointsAtLeast = (n) => page.waitForFunction((n) => {
    const b = document.getElementById("train-box");
    return !b.hidden && Number(b.dataset.points) >= n && document.querySelectorAll("#train-curve circle.point").length >= n;
  }, n, { timeout: WAIT_MS });
  const statusIs = async (s) => {
    try {
      await page.waitForFunction((s) => document.getElementById("train-box").dataset.status === s, s, { timeout: WAIT_MS });
    } catch (e) {
      throw new Error(`the run is not ${s}: ${JSON.stringify(await box())}, ${await page.$eval("#train-status", (e) => e.textContent)}; ${await page.$eval("#train-error", (e) => e.textContent)}`);
    }
  };
  await pointsAtLeast(4);
  const grown = await box();
  check(grown.status === "running", `after the start: ${JSON.stringify(grown)}`);
  const summary = await page.$eval("#train-summary", (e) => e.textContent);
  check(/^\d+ evaluations of 10 games against random: \d+% at the start, \d+% after \d+ moves/.test(summary), `summary: ${summary}`);
  const labels = await page.$$eval("#train-curve text", (els) => els.map((e) => e.textContent));
  check(labels.includes("learner moves") && labels.includes("score against random"), `axis labels: ${labels}`);
  await page.click("#train-stop");
  await statusIs("stopped");
  const stopped = await box();
  check(stopped.step > 0, `stopped: ${JSON.stringify(stopped)}`);
  check(await page.$eval("#train-resume", (e) => !e.disabled), "Resume is not offered for a stopped run");
  const listed = await page.$eval('#train-runs li[data-id="run-1"]', (e) => e.textContent);
  check(/run-1: amazons\(size=6\), document, stopped/.test(listed), `runs list: ${listed}`);
  await page.click("#train-resume");
  await statusIs("running");
  await pointsAtLeast(stopped.points + 2);
  const resumed = await box();
  check(resumed.step > stopped.step, `resumed from ${stopped.step} to ${resumed.step}`);
  await page.click("#train-stop");
  await statusIs("stopped");
  const again = await box();
  const shotPath = join(outDir, "train.png");
  await page.locator("#train").screenshot({ path: shotPath });
  const shots = [shotPath];
  // Play against the learned weights: a new game on the Play view, the agent trained:run-1.
  await page.waitForSelector("#train-play:not([disabled])", { timeout: WAIT_MS });
  await page.click("#train-play");
  await page.waitForFunction(() => !document.getElementById("play").hidden && document.getElementById("board").dataset.human === "true", null, { timeout: WAIT_MS });
  const title = await page.$eval("#play-title", (e) => e.textContent);
  check(title.includes("trained:run-1"), `the game's title: ${title}`);
  const after = await clickMove(page);
  check(after.ply >= 2 || after.over, `after a move and the reply: ${JSON.stringify(after)}`);
  // On a phone: no sideways scroll, the curve within the window.
  await page.setViewportSize({ width: 375, height: 740 });
  const fit = await page.evaluate(() => {
    const r = document.getElementById("train-curve").getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, left: r.left, right: r.right, width: r.width };
  });
  check(fit.scroll <= fit.inner && fit.left >= 0 && fit.right <= fit.inner && fit.width > fit.inner * 0.7, `at 375 px: ${JSON.stringify(fit)}`);
  // The run deleted, once confirmed: gone from the list and its box closed.
  await page.setViewportSize({ width: 1100, height: 900 });
  page.once("dialog", (d) => d.accept());
  await page.click('#train-runs button[aria-label="delete run-1"]');
  await page.waitForFunction(() => !document.querySelector('#train-runs li[data-id="run-1"]'), null, { timeout: WAIT_MS });
  const deleted = await page.$eval("#train-box", (e) => e.hidden);
  check(deleted, "the deleted run's box is still shown");
  return { grown, stopped, resumed, again, summary, title, plies: after.ply, fit, deleted, shots };
};

/// The cell index of a Go point such as "e5" on a board of `size` (rows from the top).
function goCell(point, size) {
  const col = "abcdefghjklmnopqrstuvwxyz".indexOf(point[0].toLowerCase());
  return (size - Number(point.slice(1))) * size + col;
}

/// Clicks the Go points `points` in turn (between two humans), each checked to be played.
async function clickPoints(page, points, size) {
  for (const p of points) {
    const before = (await boardState(page)).ply;
    await page.click(`#board g[data-cell="${goCell(p, size)}"]`);
    await page.waitForFunction((ply) => Number(document.getElementById("board").dataset.ply) > ply, before, { timeout: WAIT_MS });
  }
}

// Go 9x9 against an external GTP engine of the server's configuration (GNU Go), picked
// from the players' suggestions: moves clicked, each answered by the engine, then Resign.
scenarios.engine = async (page) => {
  const offered = await page.$$eval("#agent-specs option", (os) => os.map((o) => o.value));
  check(offered.includes("engine:gnugo"), `the players' suggestions: ${offered}`);
  check(!offered.some((o) => o.includes("gtp")), "a gtp spec is suggested");
  await newGame(page, "go", { size: "9" }, ["human", "engine:gnugo"]);
  let s;
  for (let i = 0; i < 4; i++) {
    s = await clickMove(page);
    check(!s.over, `the game ended after ${s.ply} plies: ${await statusText(page)}`);
    check(s.ply === 2 * (i + 1), `after move ${i + 1} the ply is ${s.ply}`);
  }
  await checkLabels(page, 81, /^[a-hj]\d, (empty|black stone|white stone)(, last move)?(, playable)?$/);
  const moves = await moveList(page);
  const title = await page.$eval("#play-title", (e) => e.textContent);
  check(title.endsWith(": human vs engine:gnugo"), `title: ${title}`);
  const shots = [await shot(page, "go-engine")];
  await page.click("#resign");
  await page.waitForFunction(() => document.getElementById("board").dataset.over === "true", null, { timeout: WAIT_MS });
  const result = await statusText(page);
  check(result === "Game over: black resigned; white (engine:gnugo) wins by resignation.", `result: ${result}`);
  return { plies: s.ply, moves, result, shots };
};

// Go 9x9 analysed by an external engine of the server's configuration (`tabula gtp`, which
// streams `lz-analyze`), picked from the analysis box's suggestions: its marks drawn on the
// board, redrawn after a move, gone when switched off.
scenarios["engine-analysis"] = async (page) => {
  const offered = await page.$$eval("#agent-specs option", (os) => os.map((o) => o.value));
  check(offered.includes("engine:analyst"), `the suggestions: ${offered}`);
  await newGame(page, "go", { size: "9" }, ["human", "mcts(playouts=100)"]);
  await page.fill("#analysis-agent", "engine:analyst");
  await page.click("#analyse");
  await page.waitForFunction(() => document.querySelectorAll("#board .overlay .mark").length >= 3, null, { timeout: WAIT_MS });
  // The engine's stream goes on: the marks change with its next reports.
  const marks = () => page.$$eval("#board .overlay .mark", (els) => els.map((e) => `${e.dataset.cell}:${e.textContent}`).join(" "));
  const first = await marks();
  await page.waitForFunction((first) => {
    const now = [...document.querySelectorAll("#board .overlay .mark")].map((e) => `${e.dataset.cell}:${e.textContent}`).join(" ");
    return now !== first && now !== "";
  }, first, { timeout: WAIT_MS });
  const labels = await page.$$eval("#board [role=gridcell]", (els) => els.map((e) => e.getAttribute("aria-label")));
  const analysed = labels.filter((l) => l.includes("analysis:"));
  check(analysed.length >= 3, `${analysed.length} cells carry the analysis in their labels`);
  check(analysed.every((l) => /, empty, playable, analysis: [A-HJ]\d \d+\.\d% win rate, \d+ visits(, line( [A-HJ]\d| pass)+)?$/.test(l)), `labels: ${analysed.slice(0, 3).join(" | ")}`);
  const shots = [await shot(page, "go-9x9-engine-analysis")];
  const s = await clickMove(page);
  check(s.ply === 2, "the agent replied");
  await page.waitForFunction(() => {
    const o = document.querySelector("#board .overlay");
    return o && Number(o.dataset.version) > 0 && o.querySelectorAll(".mark").length >= 3;
  }, null, { timeout: WAIT_MS });
  const occupied = await page.$$eval("#board [role=gridcell]", (els) => els.filter((e) => /stone/.test(e.getAttribute("aria-label"))).map((e) => e.dataset.cell));
  const marked = await page.$$eval("#board .overlay .mark", (els) => els.map((e) => e.dataset.cell));
  check(marked.every((c) => !occupied.includes(c)), `a mark on a stone: ${marked}`);
  const status = await statusText(page);
  check(!/failed/.test(status), `status: ${status}`);
  await page.click("#analyse");
  await page.waitForFunction(() => !document.querySelector("#board .overlay"), null, { timeout: WAIT_MS });
  return { first, labels: analysed.length, marked, shots };
};

// The territory estimate of a 9x9 position clicked between two humans: Black walls off
// the left five columns, White the right four, and two White stones die inside Black's
// side. The toggle draws the ownership squares, fades and crosses the dead stones, and
// shows the estimated score.
scenarios.territory = async (page) => {
  await newGame(page, "go", { size: "9", komi: "6.5" }, ["human", "human"]);
  check(await page.$eval("#territory-box", (e) => !e.hidden), "no Territory toggle for Go");
  const points = [];
  for (let row = 1; row <= 9; row++) points.push(`e${row}`, `f${row}`);
  points.push("c4", "c5", "c7", "c6", "b5", "h5", "d6", "h3");
  await clickPoints(page, points, 9);
  check((await boardState(page)).ply === points.length, "every point was played");
  await page.check("#territory");
  await page.waitForFunction(() => document.getElementById("territory-score").textContent.startsWith("Estimate:"), null, { timeout: WAIT_MS });
  const score = await page.$eval("#territory-score", (e) => e.textContent);
  const owners = await page.$$eval("#board .territory .owner", (els) => els.length);
  const dead = await page.$$eval("#board .territory .dead", (els) => els.length);
  const deadLabels = await page.$$eval("#board [role=gridcell]", (els) => els.map((e) => e.getAttribute("aria-label")).filter((l) => l.includes("dead")));
  check(owners >= 60, `${owners} ownership marks`);
  check(dead === 2, `${dead} dead stones marked`);
  check(deadLabels.length === 2 && deadLabels.every((l) => /^c[56], white stone.*territory: dead, black's \d+%$/.test(l)), `dead labels: ${deadLabels}`);
  check(/^Estimate: B\+\d+(\.\d)? \(komi 6\.5; 2 dead stones; \d+ playouts\)$/.test(score), `score: ${score}`);
  await page.locator("#play").scrollIntoViewIfNeeded();
  const shots = [await shot(page, "go-territory")];
  // Off again: the marks go.
  await page.uncheck("#territory");
  check((await page.$$eval("#board .territory", (els) => els.length)) === 0, "marks left after the toggle went off");
  check((await page.$eval("#territory-score", (e) => e.textContent)) === "", "the score stays after the toggle went off");
  return { owners, dead, score, deadLabels, shots };
};

// Go 9x9 under byo-yomi chosen in the form (no main time, 3 periods of 30 s): both clocks
// show their periods, on the screen and to screen readers, before and after a move.
scenarios.byoyomi = async (page) => {
  await page.selectOption("#clock-kind", "byoyomi");
  check(await page.$eval("#clock-count-box", (e) => !e.hidden), "no periods field for byo-yomi");
  await page.fill("#clock-main", "0");
  await page.fill("#clock-period", "30");
  await page.fill("#clock-count", "3");
  await newGame(page, "go", { size: "9" }, ["human", "human"]);
  const read = () => page.$$eval("#clocks .clock", (els) => els.map((e) => ({ text: e.textContent, label: e.getAttribute("aria-label") })));
  await clickPoints(page, ["e5"], 9);
  const clocks = await read();
  check(clocks.length === 2 && clocks.every((c) => /^(black|white) 0:[23]\d \(3×30s\)$/.test(c.text)), `clocks: ${JSON.stringify(clocks)}`);
  check(clocks.every((c) => c.label.includes("then 3 periods of 30s")), `labels: ${JSON.stringify(clocks)}`);
  const shots = [await shot(page, "go-byoyomi")];

  // Browsing under the clock: the first move shown in the tree while the game goes on.
  await clickPoints(page, ["c3", "g7"], 9);
  await page.click('#tree g.node[data-node="1"]');
  await page.waitForSelector("#view-bar:not([hidden])", { timeout: WAIT_MS });
  const shown = await boardState(page);
  check(shown.ply === 1 && !shown.human, `a move shown: ${JSON.stringify(shown)}`);
  check((await playable(page)).length === 0, "cells playable on a move shown");
  check(await page.$eval("#move-input", (e) => e.disabled), "the move box is open on a move shown");
  check(await page.$eval("#move-form button[type=submit]", (e) => e.disabled), "Play can be pressed on a move shown");
  const help = await page.$eval("#tree-keys", (e) => e.textContent);
  check(help.startsWith("Click a move to see it while the game goes on"), `the tree's help: ${help}`);
  const viewText = () => page.$eval("#view-pos", (e) => e.textContent);
  let bar = await viewText();
  check(bar === "Showing move 1; the game is at move 3, and its clocks run.", `bar: ${bar}`);
  const said = await statusText(page);
  check(said === "white (human) to move in the game.", `status: ${said}`);
  check((await page.$$eval("#clocks .clock.running", (els) => els.length)) === 1, "no clock runs while a move is shown");
  // White plays from another page: the board stays on move 1, the bar follows the game.
  const played = await page.evaluate(async () => {
    const r = await fetch(`/api/game/${location.hash.slice(1)}/move`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ move: "d6" }) });
    return r.status;
  });
  check(played === 200, `White's move from elsewhere: ${played}`);
  await page.waitForFunction(() => document.getElementById("view-pos").textContent.includes("at move 4"), null, { timeout: WAIT_MS });
  check((await boardState(page)).ply === 1, "the game's move took the board off the move shown");
  // The tree's keys walk the line without touching the game.
  await page.focus("#tree-wrap");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => document.getElementById("board").dataset.ply === "2", null, { timeout: WAIT_MS });
  bar = await viewText();
  check(bar === "Showing move 2; the game is at move 4, and its clocks run.", `bar: ${bar}`);
  shots.push(await shot(page, "go-clock-browse"));
  // Back to the game: Black to move at move 4, on the board.
  await page.click("#view-back");
  await page.waitForSelector("#view-bar", { state: "hidden", timeout: WAIT_MS });
  const back = await boardState(page);
  check(back.ply === 4 && back.human, `back to the game: ${JSON.stringify(back)}`);
  check((await playable(page)).length > 0, "no cells playable back in the game");

  // Paused: no clock runs, the status says so, nothing is played or taken back; Resume runs
  // Black's clock again.
  const pauseButton = () => page.$eval("#pause-clocks", (e) => e.textContent);
  check((await pauseButton()) === "Pause clocks", `the pause button: ${await pauseButton()}`);
  await page.click("#pause-clocks");
  await page.waitForFunction(() => document.getElementById("pause-clocks").textContent === "Resume clocks", null, { timeout: WAIT_MS });
  const pausedSaid = await statusText(page);
  check(pausedSaid === "The clocks are paused: Resume clocks to play on.", `status: ${pausedSaid}`);
  check((await page.$$eval("#clocks .clock.running", (els) => els.length)) === 0, "a clock runs while paused");
  check((await playable(page)).length === 0, "cells playable while paused");
  check(await page.$eval("#undo", (e) => e.disabled), "Undo can be pressed while paused");
  // An analysis asked for while paused waits for the clocks, and the page says so.
  check(await page.$eval("#analysis-paused", (e) => e.hidden), "the analysis is said to be stopped before one was asked for");
  await page.click("#analyse");
  await page.waitForFunction(() => !document.getElementById("analysis-paused").hidden, null, { timeout: WAIT_MS });
  const analysisPaused = await page.$eval("#analysis-paused", (e) => e.textContent);
  shots.push(await shot(page, "go-clock-paused"));
  await page.click("#pause-clocks");
  await page.waitForFunction(() => document.getElementById("pause-clocks").textContent === "Pause clocks", null, { timeout: WAIT_MS });
  await page.waitForFunction(() => document.getElementById("analysis-paused").hidden, null, { timeout: WAIT_MS });
  check(await page.$eval("#analyse", (e) => e.checked), "the analysis was turned off by Resume");
  await page.click("#analyse");
  await page.waitForFunction(() => !document.getElementById("analyse").checked, null, { timeout: WAIT_MS });
  await page.waitForFunction(() => document.querySelector("#clock-0.running") !== null, null, { timeout: WAIT_MS });
  check((await playable(page)).length > 0, "no cells playable after Resume");
  return { clocks, viewed: { ply: shown.ply, bar }, back: back.ply, paused: pausedSaid, analysis_paused: analysisPaused, shots };
};

const run = scenarios[scenario];
if (!run) {
  console.error(`no scenario ${scenario}; there are: ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}

const executablePath = process.env.TABULA_CHROMIUM || "/usr/bin/chromium";
// No background traffic: the test machines reach no host but their own.
const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const browser = await chromium.launch({ executablePath, args });
const problems = [];
let code = 0;
const started = Date.now();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error: ${m.text()}`); });
  await page.goto(base);
  await page.waitForSelector("#game option", { state: "attached", timeout: WAIT_MS });
  const result = await run(page);
  check(problems.length === 0, problems.join("; "));
  console.log(`RESULT ${JSON.stringify({ scenario, ms: Date.now() - started, ...result })}`);
} catch (e) {
  console.error(`${scenario}: ${e.stack || e}`);
  if (problems.length) console.error(problems.join("\n"));
  code = 1;
} finally {
  await browser.close();
}
process.exit(code);
