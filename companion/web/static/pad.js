// A phone as one player's bid pad: join with the seat's QR code, then bid with one tap.
"use strict";

(() => {
  const {api, live, el, timerRemaining, fmtTime, targetText, playerName, t, tn} = Companion;
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
    if (!me) { who.textContent = t("pad.scan"); return; }
    const name = state ? playerName(state, me.seat) : me.name;
    who.textContent = t(state && state.game === "micro-robots" ? "pad.who_micro" : "pad.who", {name});
    who.dataset.seat = String(me.seat);
    document.body.dataset.joined = "1";
    if (state) setKeys(state);  // joined now: a key is live only if a bid would be taken
  }

  async function send(path, body) {
    if (!me) { $("pad-err").textContent = t("pad.join_first"); return; }
    try {
      await api(path, body, {"X-Player-Token": me.token});
      $("pad-err").textContent = "";
    } catch (e) {
      // on her own phone a player is told in her own terms what the game refused
      $("pad-err").textContent = e.said && e.said.key === "refuse.bid_higher"
        ? t("pad.lower_only", {n: e.said.args.previous}) : e.message;
      if (e.status === 403) { localStorage.removeItem(KEY); me = null; showWho(); }
    } finally {
      // a key that was live a moment ago (or forced on) is set back to what it can do now;
      // the refusal above stays on screen
      if (state) setKeys(state);
    }
  }

  // This player's answer to the camera's question (a refusal is shown, the phone stays joined)
  async function answer(robots) {
    if (!me) { $("pad-err").textContent = t("pad.join_first"); return; }
    try {
      await api("/api/answer", {robots}, {"X-Player-Token": me.token});
      $("pad-err").textContent = "";
    } catch (e) { $("pad-err").textContent = e.message; }
  }

  // Which keys do something now: a key that cannot is disabled, and looks it. In the classic
  // game a key is live while bids are open and it is lower than this player's own bid; in
  // Micro Robots while a round is on. (A phone not yet joined keeps them: a tap tells it how
  // to join.)
  function setKeys(s) {
    const micro = s.game === "micro-robots";
    const open = micro ? s.phase === "round" : s.phase === "bidding" || s.phase === "timer";
    const own = !micro && me ? (s.bids || []).find((b) => b.seat === me.seat) : null;
    const mine = own ? own.moves : null;
    for (const k of document.querySelectorAll("#keys button")) {
      const off = !!me && (!open || (mine !== null && Number(k.dataset.moves) >= mine));
      k.disabled = off;
      k.setAttribute("aria-disabled", off ? "true" : "false");
    }
    $("keys").classList.toggle("resting", !!me && !open);
  }

  function buildKeys() {
    const box = $("keys");
    for (let n = 1; n <= 24; n++) {
      const b = el("button", {type: "button", "data-moves": String(n), text: String(n)});
      b.disabled = true;  // until the first state says what a tap would do
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
    $("phase").textContent = d ? t("micro.head.demonstrating", {name: d.name, n: d.number})
      : s.phase === "idle" ? t("micro.pad.wait") : s.phase === "round" ? t("micro.pad.call")
        : t(`micro.head.${s.phase}`);
    $("target").textContent = s.target ? `${label(s.start)} → ${label(s.target)}` +
      (s.via ? ` (${label(s.via)})` : "") : "";
    const mine = me ? (s.players || []).find((p) => p.seat === me.seat) : null;
    const myDemo = d && me && d.seat === me.seat;
    $("mybid").textContent = myDemo ? t("micro.pad.your_call", {n: d.number, left: d.moves_left})
      : d ? t("micro.pad.called", {name: d.name, n: d.number}) : (mine ? t("micro.pad.vp", {n: mine.vp}) : "");
    $("mybid").dataset.moves = myDemo ? String(d.number) : "";
    const v = s.verdict;
    $("pad-hint").textContent = v && s.phase !== "round"
      ? t(v.result === "success" ? "micro.success" : "micro.failure", {name: v.name, n: v.number}) +
        (v.reason && v.result !== "success" ? ` — ${I18n.say(v.reason_msg, v.reason)}` : "") : "";
    setKeys(s);
    $("demo-actions").classList.toggle("hidden", !myDemo);
    $("list-title").textContent = t("scores.title");
    const list = $("bids");
    list.replaceChildren();
    for (const p of s.players || []) {
      list.append(el("li", {class: me && p.seat === me.seat ? "mine" : ""},
        el("span", {class: "bid-moves", text: String(p.vp)}), el("span", {class: "bid-name", text: p.name})));
    }
    showWho();
  }

  // A new game voids every phone's join: say so, rather than fail at the first tap.
  function newGame(epoch) {
    if (!me || !epoch) return;
    if (!me.epoch) { me.epoch = epoch; localStorage.setItem(KEY, JSON.stringify(me)); return; }
    if (me.epoch === epoch) return;
    localStorage.removeItem(KEY);
    me = null;
    $("pad-err").textContent = t("pad.rejoin");
    document.body.dataset.rejoin = "1";
    showWho();
  }

  // a new round or phase clears what a tap said about the last one ("the timer has run out")
  let lastStep = null;
  function render(s) {
    const step = `${s.game}:${s.round}:${s.phase}`;
    newGame(s.epoch);
    // a new game's "join again" stays until the phone joins again (a fresh page)
    if (step !== lastStep && !document.body.dataset.rejoin) $("pad-err").textContent = "";
    lastStep = step;
    state = s;
    document.body.dataset.game = s.game === "micro-robots" ? "micro" : "classic";
    if (s.game === "micro-robots") { renderMicro(s); return; }
    $("phase").textContent = Companion.headline(s, timerRemaining(s.timer));
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = s.phase === "round_over" ? t("pad.wait_chip") : targetText(s.target);
    $("list-title").textContent = t("bids.title");
    const list = $("bids");
    list.replaceChildren();
    let mine = null;
    for (const b of s.bids || []) {
      if (me && b.seat === me.seat) mine = b.moves;
      list.append(el("li", {class: me && b.seat === me.seat ? "mine" : ""},
        el("span", {class: "bid-moves", text: String(b.moves)}),
        el("span", {class: "bid-name", text: b.name || playerName(s, b.seat)})));
    }
    if (!list.children.length) list.append(el("li", {class: "empty", text: t("bids.none")}));
    const demo = s.demonstrating;
    const myDemo = !!(demo && me && demo.seat === me.seat);
    const open = s.phase === "bidding" || s.phase === "timer";
    $("mybid").textContent = myDemo ? tn("pad.your_turn", demo.bid)
      : demo ? t("pad.watch", {name: demo.name})
        : mine !== null && open ? t("pad.your_bid", {n: mine}) : open ? t("pad.tap_to_bid") : "";
    $("mybid").dataset.moves = mine === null ? "" : String(mine);
    setKeys(s);  // a key is live only when a tap would be a bid the game takes
    $("demo-actions").classList.toggle("hidden", !myDemo);
    Companion.renderQuestion($("question"), s, me ? me.seat : -1, answer);
    renderAfter(s);
    showWho();
  }

  // After the round, on every phone: the verdict, the best route and the scores.
  function renderAfter(s) {
    const over = s.phase === "round_over" || s.phase === "game_over";
    $("after-round").classList.toggle("hidden", !over || (!s.verdict && !s.optimal));
    const v = s.verdict;
    // the verdict once: in the headline when it is the round's news, else here
    const said = over ? Companion.verdictText(s) : "";
    $("pad-verdict").textContent = said === $("phase").textContent ? "" : said;
    $("pad-verdict").dataset.result = over && v ? v.result : "";
    $("pad-why").textContent = over && v && Companion.needsWhy(v) ? t("verdict.why", {reason: I18n.say(v.reason_msg, v.reason)}) : "";
    const o = s.optimal;
    $("pad-optimal").textContent = !o ? (s.optimal_known ? t("optimal.known") : "–")
      : o.moves.length ? tn("optimal.route", o.length, {route: o.moves.map(I18n.move).join(", ")}) : t("optimal.none");
    $("pad-optimal").dataset.state = o ? "shown" : "";
    const tbl = $("pad-scores");
    tbl.replaceChildren();
    for (const p of s.players || []) {
      tbl.append(el("tr", {"data-seat": String(p.seat), class: me && p.seat === me.seat ? "mine" : ""},
        el("td", {class: "name", text: p.name}), el("td", {class: "num", text: String(p.chips ?? 0)})));
    }
  }

  function tick() {
    if (state) {
      const tm = state.timer;
      // the hourglass of a round that is over shows nothing rather than a stale 0:00
      const live = tm && (tm.running || ["bidding", "timer", "round"].includes(state.phase));
      const left = live ? timerRemaining(tm) : null;
      $("timer-text").textContent = live ? fmtTime(left) : "–";
      const frac = tm && tm.total ? Math.max(0, Math.min(1, left / tm.total)) : 0;
      $("sand").style.transform = `scaleX(${frac})`;
      if (state.game !== "micro-robots" && tm && tm.running) {
        const head = Companion.headline(state, left);
        if ($("phase").textContent !== head) $("phase").textContent = head;
      }
    }
    requestAnimationFrame(tick);
  }

  document.addEventListener("DOMContentLoaded", async () => {
    buildKeys();
    $("done").addEventListener("click", () => send("/api/player/done", {}));
    $("give-up").addEventListener("click", () => send("/api/player/give_up", {}));
    document.addEventListener("companion:language", () => { if (state) render(state); else showWho(); });
    await join();
    live(render, (name, data) => { if (name === "new_game") newGame(data.epoch); });
    requestAnimationFrame(tick);
  });
})();
