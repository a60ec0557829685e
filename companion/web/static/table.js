// The main screen: board, target, hourglass, bids, demonstration, best solution, scores.
"use strict";

(() => {
  const {api, live, el, timerRemaining, fmtTime, targetText, targetTo, playerName, names, t, tn} = Companion;
  const $ = (id) => document.getElementById(id);
  let state = null;
  let picked = null;
  let replaying = false;
  let replayedRound = null;
  const board = new BoardView.View($("board"), (name) => {
    picked = name;
    board.pick(name);
    const p = $("picked");
    if (p) p.textContent = t("sim.picked", {robot: t(`robot.${name}`)});
    // the transparent robot (a variant) may pass walls: the hand says how many
    if ($("passes")) $("passes").classList.toggle("hidden", name !== "transparent");
  });

  let microGrid = null;

  function render(s) {
    state = s;
    const micro = s.game === "micro-robots";
    document.body.dataset.game = micro ? "micro" : "classic";
    if (micro) {
      renderMicro(s);
    } else {
      renderClassic(s);
    }
    Companion.follow(s.lang);
    $("message").textContent = noticeText(s);
    if (!micro) board.setNamed(s.notice ? [] : namedCells([s.message_msg, s.camera && s.camera.note_msg]));
    renderCamera(s.camera);
    renderDevices(s.devices);
    renderJoin(s);
    renderButtons(s);
    renderVoice(s.voice);
    renderReferee(s);
    Companion.renderQuestion($("question"), s, null, answer);
    document.body.dataset.seq = s.seq;
  }

  // the table's message, in this page's language where the table gave its words
  function noticeText(s) {
    const n = s.notice;
    if (!n) return I18n.say(s.message_msg, s.message || "");
    const params = Object.assign({}, n.params);
    if (params.chip) params.chip = params.chip === "vortex" ? t("chip.vortex") : t(`chip.${params.chip.replace(" ", ".")}`);
    return t(n.key, params);
  }

  // The cells the table's words name, with the robot they speak of: the camera's question
  // ("red seen on b1 — is that right?"), a robot it misses ("… last seen near c4").
  const CELL = /^[a-p](?:[1-9]|1[0-6])$/;
  function namedCells(messages) {
    const out = [];
    const walk = (m, depth) => {
      if (!m || typeof m !== "object" || depth > 8) return;
      if (Array.isArray(m)) { m.forEach((x) => walk(x, depth + 1)); return; }
      const args = m.args || {};
      if (typeof args.cell === "string" && CELL.test(args.cell)) {
        const r = args.robot;
        const robot = r && typeof r.key === "string" && r.key.startsWith("color.") ? r.key.slice(6) : null;
        if (!out.some((c) => c.cell === args.cell)) out.push({cell: args.cell, robot});
      }
      for (const v of Object.values(args)) walk(v, depth + 1);
    };
    walk(messages, 0);
    return out;
  }

  function renderClassic(s) {
    board.drawBoard(s.board || {size: 16});
    board.setTarget(s.target);
    if (!replaying) board.setRobots(s.robots || {});
    $("phase").textContent = Companion.headline(s, timerRemaining(s.timer));
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = s.phase === "round_over" ? t("head.reveal_next") : targetText(s.target);
    board.setRoute(s.optimal && s.optimal.steps && !replaying ? s.optimal : null);
    renderBids(s);
    renderDemo(s);
    renderOptimal(s);
    renderScores(s);
    renderChip(s);
  }

  // What a real camera sees, or why it cannot (the simulated table's camera never fails).
  const VIEWS = {hidden: "camera.hidden", unseen: "camera.unseen"};
  function renderCamera(c) {
    const box = $("camera-status");
    const real = c && c.source !== "sim";
    const text = !real ? "" : c.error ? I18n.say(c.error_msg, c.error)
      : c.view && VIEWS[c.view] ? t(VIEWS[c.view]) : c.note ? t("camera.note", {note: I18n.say(c.note_msg, c.note)}) : "";
    box.textContent = text;
    box.dataset.view = real ? (c.view || "") : "";
    box.dataset.ok = real && !c.error ? "1" : "0";
  }

  // Buttons and lights that do not work, and why (no GPIO, a chip that cannot be opened).
  function renderDevices(d) {
    const box = $("devices-status");
    box.textContent = d ? t("devices.not_working", {what: d.missing.join(", "), why: d.problems.join(" ")}) : "";
    box.dataset.ok = d ? "0" : "1";
  }

  // The chip on the centre piece as the camera sees it while a chip is awaited, and the
  // chips still in the deck, to pick one by hand.
  let deckKey = null;
  function renderChip(s) {
    const seen = s.chip_seen;
    const label = (c) => c === "vortex" ? t("chip.vortex") : t(`chip.${String(c).replace(" ", ".")}`);
    // (an unread or refused chip is explained in the message above)
    $("chip-seen").textContent = seen && seen.status === "previous"
      ? t("chip_seen.previous", {chip: label(seen.chip)})
      : "";
    $("chip-seen").dataset.status = seen ? seen.status : "";
    const waiting = s.phase === "idle" || s.phase === "round_over";
    $("pick").classList.toggle("hidden", !waiting || !(s.deck || []).length);
    const key = JSON.stringify(s.deck || []) + (seen && seen.color ? seen.color : "") + I18n.lang;
    if (key === deckKey) return;
    deckKey = key;
    // chips of the colour the camera saw first
    const first = seen && seen.status === "unread" && seen.color ? seen.color : null;
    const deck = (s.deck || []).slice().sort((a, b) =>
      (first && b.startsWith(first) ? 1 : 0) - (first && a.startsWith(first) ? 1 : 0));
    $("pick-chip").replaceChildren(...deck.map((c) => el("option", {value: c, text: label(c)})));
  }

  // ---------------------------------------------------------------- Micro Robots

  function renderMicro(s) {
    const {label, dice} = MicroBoard;
    if (!microGrid) microGrid = new MicroBoard.Grid($("micro-board"), tapSpace);
    microGrid.setLayout(s.layout ? s.layout.rows : null);
    const d = s.demonstrating;
    const last = s.last_round;
    microGrid.mark({
      robot: s.robot, start: s.phase === "round" || d ? s.start : null,
      target: s.target, via: s.via, seen: s.seen,
      steps: d ? d.landings : (last && last.shortest_route ? last.shortest_route.slice(1) : []),
    });
    $("micro-board").dataset.phase = s.phase;
    $("phase").textContent = d ? t("micro.head.demonstrating", {name: d.name, n: d.number})
      : t(`micro.head.${s.phase}`);
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = s.target
      ? t(s.via ? "micro.target_via" : "micro.target", {from: label(s.start), to: label(s.target), via: label(s.via)})
      : (s.start ? t("micro.stands", {space: label(s.start)}) : t("micro.no_target"));
    $("target").dataset.target = s.target || "";
    dice($("dice"), s.target);
    dice($("via-dice"), s.via);
    $("roller").textContent = s.roller_name
      ? t(s.phase === "round" ? "micro.rolls" : "micro.rolls_next", {name: s.roller_name}) : "";
    $("demo").textContent = d
      ? t("micro.demo", {name: d.name, n: d.number, left: d.moves_left,
        route: d.landings.length ? d.landings.map(label).join(" → ") : t("micro.no_landing")}) +
        (d.via_landed === false ? t("micro.not_via", {via: label(s.via)}) : "")
      : t("demo.none");
    $("demo").dataset.moves = d ? String(d.landings.length) : "";
    document.body.dataset.demo = d ? "1" : "0";
    const v = s.verdict;
    $("verdict").textContent = v
      ? t(v.result === "success" ? "micro.success" : "micro.failure", {name: v.name, n: v.number}) +
        (v.chip_to ? t("micro.chip_to", {name: v.chip_to}) : "")
      : "";
    $("verdict-why").textContent = v && Companion.needsWhy(v) ? t("verdict.why", {reason: I18n.say(v.reason_msg, v.reason)}) : "";
    $("verdict").dataset.result = v ? v.result : "";
    $("answer").textContent = last
      ? (last.shortest === null ? t("micro.no_route") : t("micro.shortest", {moves: tn("moves", last.shortest)})) +
        (last.shortest_route ? ` (${last.shortest_route.map(label).join(" → ")})` : "") +
        `. ${t("micro.counts", {counts: last.lengths})}` + (last.possible ? "" : ` ${t("micro.not_possible", {n: last.number})}`)
      : (s.phase === "round" || d ? t("micro.after") : "–");
    $("answer").dataset.state = last ? "shown" : "";
    const tbl = $("scores");
    tbl.replaceChildren();
    for (const p of s.players || []) {
      const won = (s.winners || []).includes(p.seat);
      tbl.append(el("tr", {"data-seat": String(p.seat), class: won ? "winner" : ""},
        el("td", {text: p.name + (won ? " 🏆" : "")}),
        el("td", {class: "chips", text: "●".repeat(p.vp)}),
        el("td", {class: "num", text: String(p.vp)})));
    }
    $("supply").textContent = s.phase === "game_over"
      ? (s.end_reason === "vp" ? t("micro.over_vp", {n: s.vp_to_win}) : t("micro.over_chips", {n: s.chips}))
      : tn("micro.supply", s.chips_in_supply) + (s.chip_on_target ? t("micro.on_target") : "") +
        t("micro.vp_wins", {n: s.vp_to_win});
    $("tap-hint").textContent = d
      ? (document.body.dataset.admin === "1" ? t("micro.tap_landing") : "")
      : "";
    fillPlace(s);
  }

  let placeKey = null;
  function fillPlace(s) {
    const rows = s.layout ? s.layout.rows : null;
    const key = JSON.stringify(rows) + (s.start ? "1" : "0") + s.options.expert + I18n.lang;
    if (key === placeKey) return;
    placeKey = key;
    const names = rows ? rows.flat().slice().sort() : [];
    const fill = (id, first, show) => {
      const sel = $(id);
      sel.replaceChildren(el("option", {value: "", text: first}), ...names.map((n) => el("option", {value: n, text: MicroBoard.label(n)})));
      sel.classList.toggle("hidden", !show);
    };
    fill("place-start", t("referee.start"), !s.start);
    fill("place-target", t("referee.target"), true);
    fill("place-via", t("referee.via"), !!s.options.expert);
  }

  async function tapSpace(space) {
    if (!state || !space || document.body.dataset.admin !== "1") return;
    try {
      if ($("hand") && $("hand").checked) await api("/api/sim/micro", {space});
      else if (state.demonstrating) await api("/api/command", {type: "land", space});
      else return;
      $("message").textContent = "";
    } catch (e) { $("message").textContent = e.message; }
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
    if (!list.children.length) list.append(el("li", {class: "empty", text: t("bids.none")}));
  }

  function renderDemo(s) {
    const d = s.demonstrating;
    $("demo").textContent = d
      ? tn("demo.progress", d.bid, {name: d.name || playerName(s, d.seat), used: d.moves}) +
        (d.route && d.route.length ? ` — ${d.route.map(I18n.move).join(", ")}` : "")
      : t("demo.none");
    $("demo").dataset.moves = d ? d.moves : "";
    const v = s.verdict;
    const box = $("verdict");
    box.textContent = Companion.verdictText(s);
    box.dataset.result = v ? v.result : "";
    $("verdict-why").textContent = v && Companion.needsWhy(v) ? t("verdict.why", {reason: I18n.say(v.reason_msg, v.reason)}) : "";
  }

  function renderOptimal(s) {
    const o = s.optimal;
    const box = $("optimal");
    if (!o) {
      box.textContent = s.solving ? t("optimal.searching") : s.optimal_known ? t("optimal.known") : "–";
      box.dataset.state = s.solving ? "solving" : s.optimal_known ? "known" : "";
      $("replay").classList.add("hidden");
      return;
    }
    box.dataset.state = "shown";
    box.textContent = o.moves.length ? tn("optimal.route", o.length, {route: o.moves.map(I18n.move).join(", ")})
      : t("optimal.none");
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
    board.setRoute(null);
    board.setRobots(o.start);
    await wait(700);
    for (let i = 0; i < o.steps.length; i++) {
      note.textContent = t("replay.step", {i: i + 1, n: o.steps.length, move: I18n.move(o.steps[i].move)});
      board.setRobots(o.steps[i].robots);
      await wait(900);
    }
    note.textContent = tn("replay.end", o.steps.length);
    document.body.dataset.replayed = String(o.steps.length);
    await wait(1500);
    note.classList.add("hidden");
    replaying = false;
    if (state) {
      board.setRobots(state.robots || {});
      board.setRoute(state.optimal && state.optimal.steps ? state.optimal : null);
    }
  }

  function wait(ms) { return new Promise((r) => setTimeout(r, ms)); }

  function renderScores(s) {
    const tbl = $("scores");
    tbl.replaceChildren();
    for (const p of s.players || []) {
      tbl.append(el("tr", {"data-seat": String(p.seat), class: (s.winners || []).includes(p.seat) ? "winner" : ""},
        el("td", {class: "name", text: p.name}), el("td", {class: "chips", text: "●".repeat(Math.min(p.chips ?? 0, 17))}),
        el("td", {class: "num", text: String(p.chips ?? 0)})));
    }
    $("supply").textContent = !s.players || !s.players.length ? ""
      : s.chips_needed && s.chips_needed < 17 ? tn("scores.to_win", s.chips_needed) : t("scores.all_chips");
  }

  let joinKey = null;
  function renderJoin(s) {
    const box = $("qrs");
    if (!box || $("join").hidden) return;
    const key = JSON.stringify((s.players || []).map((p) => p.name)) + s.epoch + I18n.lang;
    if (key === joinKey) return;
    joinKey = key;
    box.replaceChildren();
    (s.players || []).forEach((p) => {
      const img = el("img", {src: `/api/qr/${p.seat}.svg?e=${s.epoch}`, alt: t("join.qr", {name: p.name}), class: "qr"});
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
    const key = JSON.stringify(s.buttons) + JSON.stringify((s.players || []).map((p) => p.name)) + I18n.lang;
    if (key === buttonsKey) return;
    buttonsKey = key;
    box.replaceChildren();
    for (const b of s.buttons) {
      if (b.kind === "dial") {
        for (const [label, steps] of [[t("sim.dial_down"), -1], [t("sim.dial_up"), 1]]) {
          const btn = el("button", {type: "button", "data-button": b.name, text: label});
          btn.addEventListener("click", () => press(b.name, "turn", steps));
          box.append(btn);
        }
      } else {
        const btn = el("button", {type: "button", "data-button": b.name, text: buttonLabel(s, b)});
        btn.addEventListener("click", () => press(b.name, "press", 1));
        box.append(btn);
      }
    }
  }

  // the virtual buttons in the players' words: "Ann's button", "Start (reveal a chip)"
  function buttonLabel(s, b) {
    const m = /^bid-(\d+)(-hold)?$/.exec(b.name);
    if (m) return t(m[2] ? "sim.button_hold" : "sim.button", {name: playerName(s, Number(m[1]))});
    if (b.name === "start") return t(s.game === "micro-robots" ? "sim.start_micro" : "sim.start");
    if (b.name === "start-hold") return t("sim.start_hold");
    return b.label;
  }

  // The host answers the camera's question at the main screen (the PIN unlocks it).
  async function answer(robots) {
    try { await api("/api/answer", {robots}); }
    catch (e) { $("message").textContent = e.message; }
  }

  // The referee's buttons are live only when the game would take them.
  function renderReferee(s) {
    const waiting = s.phase === "idle" || s.phase === "round_over";
    const live = {reveal: waiting, roll: waiting, reroll: s.phase === "round", undo: !!s.can_undo};
    for (const b of document.querySelectorAll("#controls [data-command]")) {
      if (b.dataset.command in live) b.disabled = !live[b.dataset.command];
    }
  }

  // The voice's on/off and volume (the table's own settings: the PIN unlocks them).
  function renderVoice(v) {
    const card = $("voice-card");
    card.classList.toggle("hidden", !v);
    if (!v) return;
    if (document.activeElement !== $("voice-on")) $("voice-on").checked = v.on;
    if (document.activeElement !== $("voice-volume")) $("voice-volume").value = String(v.volume);
    $("voice-missing").classList.toggle("hidden", v.available);
    $("voice-test").disabled = !v.available || !v.on;
  }

  async function voiceSettings(change) {
    try { await api("/api/settings", change); $("message").textContent = ""; }
    catch (e) { $("message").textContent = e.message; }
  }

  async function press(name, action, steps) {
    try { await api(`/api/buttons/${encodeURIComponent(name)}`, {action, steps}); $("message").textContent = ""; }
    catch (e) { $("message").textContent = e.message; }
  }

  // The referee changes the table PIN here; it is kept beside the journal for the next start.
  function pinChanger() {
    const box = $("controls");
    if (!box || $("pin-change")) return;
    const input = el("input", {id: "new-pin", inputmode: "numeric", autocomplete: "off", size: "8",
      maxlength: "12", placeholder: t("pin.hint"), "aria-label": t("pin.label")});
    const form = el("form", {id: "pin-change", class: "row"}, input,
      el("button", {type: "submit", text: t("pin.button")}));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const pin = input.value.trim();
      try {
        await api("/api/pin", {pin});
        if ($("pin")) $("pin").textContent = pin;
        input.value = "";
        $("message").textContent = t("pin.done");
      } catch (e) { $("message").textContent = e.message; }
    });
    box.append(form);
  }

  function tick() {
    if (state) {
      const tm = state.timer;
      // the hourglass of a round that is over shows nothing rather than a stale 0:00
      const live = tm && (tm.running || ["bidding", "timer", "round"].includes(state.phase));
      const left = live ? timerRemaining(tm) : null;
      $("timer-text").textContent = live ? fmtTime(left) : "–";
      const frac = tm && tm.total ? Math.max(0, Math.min(1, left / tm.total)) : 0;
      $("sand").style.transform = `scaleY(${frac})`;
      $("hourglass").classList.toggle("running", !!(tm && tm.running));
      $("hourglass").dataset.left = left === null ? "" : left.toFixed(1);
      if (state.game !== "micro-robots" && tm && tm.running) {
        const head = Companion.headline(state, left);
        if ($("phase").textContent !== head) $("phase").textContent = head;
      }
    }
    requestAnimationFrame(tick);
  }

  async function slide(dir) {
    if (!picked) { $("message").textContent = t("sim.pick_first"); return; }
    const passes = picked === "transparent" && $("passes") ? $("passes").value : "";
    const direction = passes ? `${dir} ${passes}` : dir;
    try { await api("/api/sim/move", {robot: picked, direction}); $("message").textContent = ""; }
    catch (e) { $("message").textContent = e.message; }
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
        slide(b.dataset.slide);
      });
    }
    // the arrow keys slide the picked robot on the simulated table
    document.addEventListener("keydown", (ev) => {
      const dir = {ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right"}[ev.key];
      if (!dir || !$("sim") || document.body.dataset.admin !== "1" || document.body.dataset.game === "micro") return;
      if (ev.target && /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
      ev.preventDefault();
      slide(dir);
    });
    document.addEventListener("companion:language", () => { if (state) render(state); });
    $("replay").addEventListener("click", () => state && state.optimal && replay(state.optimal));
    $("voice-on").addEventListener("change", () => voiceSettings({voice_on: $("voice-on").checked}));
    $("voice-volume").addEventListener("change", () => voiceSettings({volume: Number($("voice-volume").value)}));
    $("voice-test").addEventListener("click", async () => {
      try { await api("/api/voice/test", {}); } catch (e) { $("message").textContent = e.message; }
    });
    $("pick").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try { await api("/api/command", {type: "reveal", chip: $("pick-chip").value}); $("message").textContent = ""; }
      catch (e) { $("message").textContent = e.message; }
    });
    $("place").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const cmd = {type: "place"};
      for (const k of ["start", "target", "via"]) {
        const v = $(`place-${k}`).value;
        if (v && !$(`place-${k}`).classList.contains("hidden")) cmd[k] = v;
      }
      try { await api("/api/command", cmd); $("message").textContent = ""; }
      catch (e) { $("message").textContent = e.message; }
    });
    if ($("lift")) {
      $("lift").addEventListener("click", async () => {
        try { await api("/api/sim/micro", {space: null}); } catch (e) { $("message").textContent = e.message; }
      });
    }
    document.addEventListener("companion:unlocked", () => {
      $("join").hidden = false;
      joinKey = null;
      if (state) renderJoin(state);
      fillJoinLinks();
    });
    pinChanger();
    live(render);
    requestAnimationFrame(tick);
  });
})();
