// A phone as one player's bid pad: join with the seat's QR code, then bid with one tap.
"use strict";

(() => {
  const {api, live, el, timerRemaining, fmtTime, targetText, playerName} = Companion;
  const $ = (id) => document.getElementById(id);
  const KEY = "companion.pad";
  let me = null;
  let state = null;

  function load() {
    try { return JSON.parse(localStorage.getItem(KEY)); } catch (e) { return null; }
  }

  async function join() {
    const q = new URLSearchParams(location.search);
    if (q.has("seat") && q.has("code")) {
      try {
        const r = await api("/api/join", {seat: parseInt(q.get("seat"), 10), code: q.get("code")});
        me = {seat: r.seat, token: r.token, name: r.name, epoch: r.epoch};
        localStorage.setItem(KEY, JSON.stringify(me));
        history.replaceState(null, "", "/pad");
      } catch (e) {
        $("pad-err").textContent = e.message;
        me = load();
      }
    } else {
      me = load();
    }
    showWho();
  }

  function showWho() {
    const who = $("who");
    if (!me) { who.textContent = "Scan your seat's QR code on the table screen."; return; }
    const name = state ? playerName(state, me.seat) : me.name;
    who.textContent = state && state.game === "micro-robots" ? `${name}'s pad` : `${name}'s bid pad`;
    who.dataset.seat = String(me.seat);
    document.body.dataset.joined = "1";
  }

  async function send(path, body) {
    if (!me) { $("pad-err").textContent = "join first: scan your QR code"; return; }
    try {
      await api(path, body, {"X-Player-Token": me.token});
      $("pad-err").textContent = "";
    } catch (e) {
      $("pad-err").textContent = e.message;
      if (e.status === 403) { localStorage.removeItem(KEY); me = null; showWho(); }
    }
  }

  function buildKeys() {
    const box = $("keys");
    for (let n = 1; n <= 24; n++) {
      const b = el("button", {type: "button", "data-moves": String(n), text: String(n)});
      // a bid in the classic game; in Micro Robots the call of that many moves
      b.addEventListener("click", () => state && state.game === "micro-robots"
        ? send("/api/call", {moves: n}) : send("/api/bid", {moves: n}));
      box.append(b);
    }
  }

  let grid = null;
  function renderMicro(s) {
    const {label} = MicroBoard;
    if (!grid) grid = new MicroBoard.Grid($("pad-board"), (space) => {
      const d = state && state.demonstrating;
      if (space && d && me && d.seat === me.seat) send("/api/player/land", {space});
    });
    grid.setLayout(s.layout ? s.layout.rows : null);
    const d = s.demonstrating;
    grid.mark({robot: s.robot, target: s.target, via: s.via, start: s.phase === "round" || d ? s.start : null,
      steps: d ? d.landings : []});
    $("phase").textContent = {idle: "Waiting for the dice", round: "Find a route and call!",
      demonstrating: "Demonstration", round_over: "Round over", game_over: "Game over",
      setup: "Waiting for the game"}[s.phase] || s.phase;
    $("target").textContent = s.target ? `${label(s.start)} → ${label(s.target)}` +
      (s.via ? ` via ${label(s.via)}` : "") : "";
    const mine = me ? (s.players || []).find((p) => p.seat === me.seat) : null;
    const myDemo = d && me && d.seat === me.seat;
    $("mybid").textContent = myDemo ? `You called ${d.number}: tap each landing (${d.moves_left} to go)`
      : d ? `${d.name} called ${d.number}` : (mine ? `Your VP: ${mine.vp}` : "");
    $("mybid").dataset.moves = myDemo ? String(d.number) : "";
    const v = s.verdict;
    $("pad-hint").textContent = v && s.phase !== "round" ? `${v.name}: ${v.result.replace("_", " ")}` +
      (v.reason && v.result !== "success" ? ` — ${v.reason}` : "") : "";
    for (const k of document.querySelectorAll("#keys button")) k.disabled = s.phase !== "round";
    $("demo-actions").classList.toggle("hidden", !myDemo);
    const list = $("bids");
    list.replaceChildren();
    for (const p of s.players || []) {
      list.append(el("li", {class: me && p.seat === me.seat ? "mine" : ""},
        el("span", {class: "bid-moves", text: String(p.vp)}), el("span", {class: "bid-name", text: p.name})));
    }
    showWho();
  }

  // A new game voids every phone's join: say so, rather than fail at the first tap.
  const REJOIN = "A new game has started: scan your seat's QR code on the table screen again.";
  function newGame(epoch) {
    if (!me || !epoch) return;
    if (!me.epoch) { me.epoch = epoch; localStorage.setItem(KEY, JSON.stringify(me)); return; }
    if (me.epoch === epoch) return;
    localStorage.removeItem(KEY);
    me = null;
    $("pad-err").textContent = REJOIN;
    document.body.dataset.rejoin = "1";
    showWho();
  }

  function render(s) {
    newGame(s.epoch);
    state = s;
    document.body.dataset.game = s.game === "micro-robots" ? "micro" : "classic";
    if (s.game === "micro-robots") { renderMicro(s); return; }
    $("phase").textContent = s.phase || "…";
    $("target").textContent = targetText(s.target);
    const list = $("bids");
    list.replaceChildren();
    let mine = null;
    for (const b of s.bids || []) {
      if (me && b.seat === me.seat) mine = b.moves;
      list.append(el("li", {class: me && b.seat === me.seat ? "mine" : ""},
        el("span", {class: "bid-moves", text: String(b.moves)}),
        el("span", {class: "bid-name", text: b.name || playerName(s, b.seat)})));
    }
    $("mybid").textContent = mine === null ? "" : `Your bid: ${mine}`;
    $("mybid").dataset.moves = mine === null ? "" : String(mine);
    for (const k of document.querySelectorAll("#keys button")) {
      k.disabled = mine !== null && Number(k.dataset.moves) >= mine;
    }
    const demo = s.demonstrating;
    $("demo-actions").classList.toggle("hidden", !(demo && me && demo.seat === me.seat));
    showWho();
  }

  function tick() {
    if (state) {
      const t = state.timer;
      const left = timerRemaining(t);
      $("timer-text").textContent = t ? fmtTime(left) : "–";
      const frac = t && t.total ? Math.max(0, Math.min(1, left / t.total)) : 0;
      $("sand").style.transform = `scaleX(${frac})`;
    }
    requestAnimationFrame(tick);
  }

  document.addEventListener("DOMContentLoaded", async () => {
    buildKeys();
    $("done").addEventListener("click", () => send("/api/player/done", {}));
    $("give-up").addEventListener("click", () => send("/api/player/give_up", {}));
    await join();
    live(render, (name, data) => { if (name === "new_game") newGame(data.epoch); });
    requestAnimationFrame(tick);
  });
})();
