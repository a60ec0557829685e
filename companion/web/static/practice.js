// Practice: a puzzle of exactly N optimal moves (or the puzzle of the day), played move by
// move on the page, with graded hints; a solved puzzle is kept with the history. Every word
// comes from the catalogue of the page's language, and is written again when it changes.
"use strict";

(() => {
  const {api, el, t, tn, targetTo} = Companion;
  const $ = (id) => document.getElementById(id);
  let puzzle = null;   // {position, seed, moves, robots, target, geometry}
  let route = [];
  let picked = null;
  let started = 0;
  let hintLevel = 0;
  let solved = false;
  let ticker = null;
  let status = () => "";  // the status line, in whatever language is chosen when it is shown
  let shown = [];  // the hints taken, as the server sent them
  const board = new BoardView.View($("board"), (name) => {
    picked = name;
    board.pick(name);
    showPicked();
  });

  function showPicked() {
    $("picked").textContent = picked ? t("practice.picked", {robot: t(`robot.${picked}`)}) : t("practice.pick");
  }

  function say(fn) { status = fn; $("status").textContent = fn(); }

  function showHints() {
    $("hints").replaceChildren(...shown.map((h) => el("li", {text: HintWords.text(h)})));
  }

  function fail(e) { $("error").textContent = e && e.message ? e.message : String(e); }

  function clock() {
    const s = Math.floor((Date.now() - started) / 1000);
    $("clock").textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  async function deal(daily) {
    $("error").textContent = "";
    say(() => t("practice.dealing"));
    const moves = parseInt($("moves").value, 10);
    puzzle = await api("/api/practice/deal", {moves, daily: !!daily});
    route = []; picked = null; hintLevel = 0; solved = false; shown = [];
    board.drawBoard(puzzle.geometry);
    board.setTarget(puzzle.target);
    board.setRobots(puzzle.robots);
    showHints();
    showPicked();
    $("play").classList.remove("hidden");
    const p = puzzle;
    say(() => {
      const words = {puzzle: daily ? t("practice.daily") : t("practice.seed", {seed: p.seed}),
        to: targetTo(p.target), moves: tn("moves", p.moves)};
      return p.target.robot ? t("practice.goal", {robot: t(`robot.${p.target.robot}`), ...words})
        : t("practice.goal_any", words);
    });
    started = Date.now();
    clearInterval(ticker);
    ticker = setInterval(clock, 1000);
    show();
  }

  function show() {
    $("count").textContent = String(route.length);
    $("route").textContent = route.map(I18n.move).join(", ");
    clock();
  }

  async function play(next) {
    if (!puzzle || solved) return;
    const got = await api("/api/practice/move", {position: puzzle.position, route: next});
    if (!got.legal) { fail(I18n.say(got.reason_msg, got.reason)); return; }
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
    say(() => {
      const words = {moves: tn("moves", e.moves), best: e.optimal,
        time: I18n.clock(Math.round(e.seconds)), level: e.hint};
      return e.hint ? t("practice.solved_hints", words) : t("practice.solved", words);
    });
  }

  async function hint() {
    if (!puzzle || hintLevel >= 4) return;
    const got = await api("/api/practice/hint", {position: puzzle.position, level: hintLevel + 1});
    hintLevel += 1;
    shown = got.hints;
    showHints();
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("deal-form").addEventListener("submit", (ev) => { ev.preventDefault(); deal(false).catch(fail); });
    $("daily").addEventListener("click", () => deal(true).catch(fail));
    for (const b of document.querySelectorAll("#arrows [data-dir]")) {
      b.addEventListener("click", () => {
        if (!picked) { fail(t("practice.pick_first")); return; }
        play([...route, `${picked} ${b.dataset.dir}`]).catch(fail);
      });
    }
    $("undo").addEventListener("click", () => play(route.slice(0, -1)).catch(fail));
    $("restart").addEventListener("click", () => play([]).catch(fail));
    $("hint").addEventListener("click", () => hint().catch(fail));
    document.addEventListener("companion:language", () => {
      showPicked();
      showHints();
      if (puzzle) show();
      $("status").textContent = status();
    });
    document.addEventListener("keydown", (ev) => {
      const dir = {ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right"}[ev.key];
      if (dir && picked && puzzle) { ev.preventDefault(); play([...route, `${picked} ${dir}`]).catch(fail); }
    });
  });
})();
