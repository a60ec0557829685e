// Practice: a puzzle of exactly N optimal moves (or the puzzle of the day), played move by
// move on the page, with graded hints; a solved puzzle is kept with the history.
"use strict";

(() => {
  const {api, el} = Companion;
  const $ = (id) => document.getElementById(id);
  let puzzle = null;   // {position, seed, moves, robots, target, geometry}
  let route = [];
  let picked = null;
  let started = 0;
  let hintLevel = 0;
  let solved = false;
  let ticker = null;
  const board = new BoardView.View($("board"), (name) => {
    picked = name;
    board.pick(name);
    $("picked").textContent = `${name} robot picked`;
  });

  function fail(e) { $("error").textContent = e && e.message ? e.message : String(e); }

  function clock() {
    const s = Math.floor((Date.now() - started) / 1000);
    $("clock").textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  async function deal(daily) {
    $("error").textContent = "";
    $("status").textContent = "Dealing…";
    const moves = parseInt($("moves").value, 10);
    puzzle = await api("/api/practice/deal", {moves, daily: !!daily});
    route = []; picked = null; hintLevel = 0; solved = false;
    board.drawBoard(puzzle.geometry);
    board.setTarget(puzzle.target);
    board.setRobots(puzzle.robots);
    $("hints").replaceChildren();
    $("play").classList.remove("hidden");
    $("status").textContent = `${daily ? "Puzzle of the day" : "Puzzle " + puzzle.seed}: ` +
      `bring the ${puzzle.target.robot} robot to its ${puzzle.target.color} ${puzzle.target.shape} ` +
      `in ${puzzle.moves} moves.`;
    started = Date.now();
    clearInterval(ticker);
    ticker = setInterval(clock, 1000);
    show();
  }

  function show() {
    $("count").textContent = String(route.length);
    $("route").textContent = route.join(", ");
    clock();
  }

  async function play(next) {
    if (!puzzle || solved) return;
    const got = await api("/api/practice/move", {position: puzzle.position, route: next});
    if (!got.legal) { fail(got.reason); return; }
    $("error").textContent = "";
    route = next;
    board.setRobots(got.robots);
    show();
    if (got.reached) await finish();
  }

  async function finish() {
    solved = true;
    clearInterval(ticker);
    const seconds = (Date.now() - started) / 1000;
    const got = await api("/api/practice/done", {position: puzzle.position, route, seconds,
      hint: hintLevel, seed: puzzle.seed});
    const e = got.entry;
    $("status").textContent = `Solved in ${e.moves} moves (the best is ${e.optimal}) in ` +
      `${Math.round(e.seconds)} s` + (e.hint ? `, with hints up to level ${e.hint}.` : ".") +
      " It is kept in History.";
  }

  async function hint() {
    if (!puzzle || hintLevel >= 4) return;
    const got = await api("/api/practice/hint", {position: puzzle.position, level: hintLevel + 1});
    hintLevel += 1;
    $("hints").replaceChildren(...got.hints.map((h) => el("li", {text: h.text})));
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("deal-form").addEventListener("submit", (ev) => { ev.preventDefault(); deal(false).catch(fail); });
    $("daily").addEventListener("click", () => deal(true).catch(fail));
    for (const b of document.querySelectorAll("#arrows [data-dir]")) {
      b.addEventListener("click", () => {
        if (!picked) { fail("pick a robot first"); return; }
        play([...route, `${picked} ${b.dataset.dir}`]).catch(fail);
      });
    }
    $("undo").addEventListener("click", () => play(route.slice(0, -1)).catch(fail));
    $("restart").addEventListener("click", () => play([]).catch(fail));
    $("hint").addEventListener("click", () => hint().catch(fail));
    document.addEventListener("keydown", (ev) => {
      const dir = {ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right"}[ev.key];
      if (dir && picked && puzzle) { ev.preventDefault(); play([...route, `${picked} ${dir}`]).catch(fail); }
    });
  });
})();
