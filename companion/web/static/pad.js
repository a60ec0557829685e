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
        me = {seat: r.seat, token: r.token, name: r.name};
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
    who.textContent = `${name}'s bid pad`;
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
      b.addEventListener("click", () => send("/api/bid", {moves: n}));
      box.append(b);
    }
  }

  function render(s) {
    state = s;
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
    live(render);
    requestAnimationFrame(tick);
  });
})();
