// The main screen: board, target, hourglass, bids, demonstration, best solution, scores.
"use strict";

(() => {
  const {api, live, el, timerRemaining, fmtTime, targetText, playerName} = Companion;
  const $ = (id) => document.getElementById(id);
  let state = null;
  let picked = null;
  let replaying = false;
  let replayedRound = null;
  const board = new BoardView.View($("board"), (name) => {
    picked = name;
    board.pick(name);
    const p = $("picked");
    if (p) p.textContent = `${name} robot picked`;
  });

  const PHASES = {
    setup: "Set up a game", idle: "Reveal a chip", waiting: "Reveal a chip",
    thinking: "Think! First bid starts the hourglass", bidding: "Bidding",
    demonstrating: "Demonstration", round_over: "Round over", over: "Game over",
    game_over: "Game over",
  };

  function render(s) {
    state = s;
    board.drawBoard(s.board || {size: 16});
    board.setTarget(s.target);
    if (!replaying) board.setRobots(s.robots || {});
    $("phase").textContent = PHASES[s.phase] || s.phase || "…";
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = targetText(s.target);
    $("message").textContent = s.message || "";
    renderBids(s);
    renderDemo(s);
    renderOptimal(s);
    renderScores(s);
    renderJoin(s);
    renderButtons(s);
    document.body.dataset.seq = s.seq;
  }

  function renderBids(s) {
    const list = $("bids");
    list.replaceChildren();
    for (const b of s.bids || []) {
      const li = el("li", {class: b.seat === s.leader ? "lead" : ""},
        el("span", {class: "bid-moves", text: String(b.moves)}),
        el("span", {class: "bid-name", text: b.name || playerName(s, b.seat)}));
      if (b.out) li.classList.add("out");
      list.append(li);
    }
    if (!list.children.length) list.append(el("li", {class: "empty", text: "no bids yet"}));
  }

  function renderDemo(s) {
    const d = s.demonstrating;
    $("demo").textContent = d
      ? `${d.name || playerName(s, d.seat)}: ${d.moves} of ${d.bid} moves` +
        (d.route && d.route.length ? ` — ${d.route.join(", ")}` : "")
      : "–";
    $("demo").dataset.moves = d ? d.moves : "";
    const v = s.verdict;
    const box = $("verdict");
    box.textContent = v ? `${v.name || playerName(s, v.seat)}: ${v.result.replace("_", " ")}` +
      (v.reason ? ` — ${v.reason}` : "") : "";
    box.dataset.result = v ? v.result : "";
  }

  function renderOptimal(s) {
    const o = s.optimal;
    const box = $("optimal");
    if (!o) {
      box.textContent = s.solving ? "searching…" : s.optimal_known ? "found — shown after the round" : "–";
      box.dataset.state = s.solving ? "solving" : s.optimal_known ? "known" : "";
      $("replay").classList.add("hidden");
      return;
    }
    box.dataset.state = "shown";
    box.textContent = o.moves.length ? `${o.length} moves: ${o.moves.join(", ")}` : "no solution found";
    $("replay").classList.toggle("hidden", !o.steps || !o.steps.length);
    const roundKey = `${s.round}`;
    if (o.steps && o.steps.length && replayedRound !== roundKey) {
      replayedRound = roundKey;
      replay(o);
    }
  }

  async function replay(o) {
    if (replaying) return;
    replaying = true;
    const note = $("replay-note");
    note.classList.remove("hidden");
    board.setRobots(o.start);
    await wait(700);
    for (let i = 0; i < o.steps.length; i++) {
      note.textContent = `Best solution, move ${i + 1} of ${o.steps.length}: ${o.steps[i].move}`;
      board.setRobots(o.steps[i].robots);
      await wait(900);
    }
    note.textContent = `Best solution: ${o.steps.length} moves`;
    document.body.dataset.replayed = String(o.steps.length);
    await wait(1500);
    note.classList.add("hidden");
    replaying = false;
    if (state) board.setRobots(state.robots || {});
  }

  function wait(ms) { return new Promise((r) => setTimeout(r, ms)); }

  function renderScores(s) {
    const t = $("scores");
    t.replaceChildren();
    for (const p of s.players || []) {
      t.append(el("tr", {"data-seat": String(p.seat)},
        el("td", {text: p.name}), el("td", {class: "num", text: String(p.chips ?? 0)})));
    }
  }

  let joinKey = null;
  function renderJoin(s) {
    const box = $("qrs");
    if (!box || $("join").hidden) return;
    const key = JSON.stringify((s.players || []).map((p) => p.name)) + s.epoch;
    if (key === joinKey) return;
    joinKey = key;
    box.replaceChildren();
    (s.players || []).forEach((p) => {
      const img = el("img", {src: `/api/qr/${p.seat}.svg?e=${s.epoch}`, alt: `QR code for ${p.name}`, class: "qr"});
      const link = el("a", {class: "join-link", "data-seat": String(p.seat), text: p.name});
      box.append(el("figure", {}, img, el("figcaption", {}, link)));
    });
    if (document.body.dataset.admin === "1") fillJoinLinks();
  }

  async function fillJoinLinks() {
    try {
      const links = await api("/api/join-links");
      for (const l of links) {
        const a = document.querySelector(`.join-link[data-seat="${l.seat}"]`);
        if (a) a.href = l.url;
      }
    } catch (e) { /* needs the PIN; the QR codes still work */ }
  }

  let buttonsKey = null;
  function renderButtons(s) {
    const box = $("buttons");
    if (!box || !s.buttons) return;
    const key = JSON.stringify(s.buttons);
    if (key === buttonsKey) return;
    buttonsKey = key;
    box.replaceChildren();
    for (const b of s.buttons) {
      if (b.kind === "dial") {
        for (const [label, steps] of [[`${b.label} −`, -1], [`${b.label} +`, 1]]) {
          const btn = el("button", {type: "button", "data-button": b.name, text: label});
          btn.addEventListener("click", () => press(b.name, "turn", steps));
          box.append(btn);
        }
      } else {
        const btn = el("button", {type: "button", "data-button": b.name, text: b.label});
        btn.addEventListener("click", () => press(b.name, "press", 1));
        box.append(btn);
      }
    }
  }

  async function press(name, action, steps) {
    try { await api(`/api/buttons/${encodeURIComponent(name)}`, {action, steps}); $("message").textContent = ""; }
    catch (e) { $("message").textContent = e.message; }
  }

  function tick() {
    if (state) {
      const t = state.timer;
      const left = timerRemaining(t);
      $("timer-text").textContent = t ? fmtTime(left) : "–";
      const frac = t && t.total ? Math.max(0, Math.min(1, left / t.total)) : 0;
      $("sand").style.transform = `scaleY(${frac})`;
      $("hourglass").classList.toggle("running", !!(t && t.running));
      $("hourglass").dataset.left = left === null ? "" : left.toFixed(1);
    }
    requestAnimationFrame(tick);
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const b of document.querySelectorAll("[data-command]")) {
      b.addEventListener("click", async () => {
        try { await api("/api/command", {type: b.dataset.command}); $("message").textContent = ""; }
        catch (e) { $("message").textContent = e.message; }
      });
    }
    for (const b of document.querySelectorAll("[data-slide]")) {
      b.addEventListener("click", async () => {
        if (!picked) { $("message").textContent = "click a robot on the board first"; return; }
        try { await api("/api/sim/move", {robot: picked, direction: b.dataset.slide}); $("message").textContent = ""; }
        catch (e) { $("message").textContent = e.message; }
      });
    }
    $("replay").addEventListener("click", () => state && state.optimal && replay(state.optimal));
    document.addEventListener("companion:unlocked", () => {
      $("join").hidden = false;
      joinKey = null;
      if (state) renderJoin(state);
      fillJoinLinks();
    });
    live(render);
    requestAnimationFrame(tick);
  });
})();
