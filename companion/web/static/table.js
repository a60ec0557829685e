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
    // the transparent robot (a variant) may pass walls: the hand says how many
    if ($("passes")) $("passes").classList.toggle("hidden", name !== "transparent");
  });

  const PHASES = {
    setup: "Set up a game", idle: "Reveal a chip", waiting: "Reveal a chip",
    thinking: "Think! First bid starts the hourglass", bidding: "Bidding",
    demonstrating: "Demonstration", round_over: "Round over", over: "Game over",
    game_over: "Game over",
  };

  const MICRO_PHASES = {
    setup: "Set up a game", idle: "Roll the dice", round: "Find a route! The first call demonstrates",
    demonstrating: "Demonstration", round_over: "Round over: roll for the next target",
    game_over: "Game over",
  };
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
    $("message").textContent = s.message || "";
    renderCamera(s.camera);
    renderJoin(s);
    renderButtons(s);
    document.body.dataset.seq = s.seq;
  }

  function renderClassic(s) {
    board.drawBoard(s.board || {size: 16});
    board.setTarget(s.target);
    if (!replaying) board.setRobots(s.robots || {});
    $("phase").textContent = PHASES[s.phase] || s.phase || "…";
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = targetText(s.target);
    renderBids(s);
    renderDemo(s);
    renderOptimal(s);
    renderScores(s);
    renderChip(s);
  }

  // What a real camera sees, or why it cannot (the simulated table's camera never fails).
  const VIEWS = {hidden: "a hand is over the board", unseen: "cannot see the board"};
  function renderCamera(c) {
    const box = $("camera-status");
    const real = c && c.source !== "sim";
    const text = !real ? "" : c.error ? c.error
      : c.view && VIEWS[c.view] ? `Camera: ${VIEWS[c.view]}` : c.note ? `Camera: ${c.note}` : "";
    box.textContent = text;
    box.dataset.view = real ? (c.view || "") : "";
    box.dataset.ok = real && !c.error ? "1" : "0";
  }

  // The chip on the centre piece as the camera sees it while a chip is awaited, and the
  // chips still in the deck, to pick one by hand.
  let deckKey = null;
  function renderChip(s) {
    const seen = s.chip_seen;
    const label = (c) => c === "vortex" ? "the vortex" : c;
    // (an unread or refused chip is explained in the message above)
    $("chip-seen").textContent = seen && seen.status === "previous"
      ? `The camera sees last round's chip (${label(seen.chip)}) on the centre piece: lay the next one there, or pick it below.`
      : "";
    $("chip-seen").dataset.status = seen ? seen.status : "";
    const waiting = s.phase === "idle" || s.phase === "round_over";
    $("pick").classList.toggle("hidden", !waiting || !(s.deck || []).length);
    const key = JSON.stringify(s.deck || []) + (seen && seen.color ? seen.color : "");
    if (key === deckKey) return;
    deckKey = key;
    // chips of the colour the camera saw first
    const first = seen && seen.status === "unread" && seen.color ? seen.color : null;
    const deck = (s.deck || []).slice().sort((a, b) =>
      (first && b.startsWith(first) ? 1 : 0) - (first && a.startsWith(first) ? 1 : 0));
    $("pick-chip").replaceChildren(...deck.map((c) => el("option", {value: c, text: c})));
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
    $("phase").textContent = MICRO_PHASES[s.phase] || s.phase;
    $("phase").dataset.phase = s.phase || "";
    $("target").textContent = s.target
      ? `from ${label(s.start)} to ${label(s.target)}` + (s.via ? `, landing on ${label(s.via)} first` : "")
      : (s.start ? `the robot stands on ${label(s.start)}` : "no target rolled");
    $("target").dataset.target = s.target || "";
    dice($("dice"), s.target);
    dice($("via-dice"), s.via);
    $("roller").textContent = s.roller_name ? `${s.roller_name} rolls${s.phase === "round" ? "" : " next"}` : "";
    $("demo").textContent = d
      ? `${d.name} called ${d.number}: ${d.landings.length ? d.landings.map(label).join(" → ") : "no landing yet"}` +
        ` (${d.moves_left} to go)` + (d.via_landed === false ? `, not yet on ${label(s.via)}` : "")
      : "–";
    $("demo").dataset.moves = d ? String(d.landings.length) : "";
    document.body.dataset.demo = d ? "1" : "0";
    const v = s.verdict;
    $("verdict").textContent = v
      ? `${v.name}: ${v.result === "success" ? `made exactly ${v.number} moves and wins a VP chip` : v.result.replace("_", " ")}` +
        (v.result !== "success" && v.reason ? ` — ${v.reason}` : "") +
        (v.chip_to ? `; gives a VP chip to ${v.chip_to}` : "")
      : "";
    $("verdict").dataset.result = v ? v.result : "";
    $("answer").textContent = last
      ? `Shortest: ${last.shortest === null ? "no route" : `${last.shortest} moves`}` +
        (last.shortest_route ? ` (${last.shortest_route.map(label).join(" → ")})` : "") +
        `. Possible counts: ${last.lengths}.` + (last.possible ? "" : ` ${last.number} was not possible.`)
      : (s.phase === "round" || d ? "shown after the round" : "–");
    $("answer").dataset.state = last ? "shown" : "";
    const t = $("scores");
    t.replaceChildren();
    for (const p of s.players || []) {
      const won = (s.winners || []).includes(p.seat);
      t.append(el("tr", {"data-seat": String(p.seat), class: won ? "winner" : ""},
        el("td", {text: p.name + (won ? " 🏆" : "")}),
        el("td", {class: "chips", text: "●".repeat(p.vp)}),
        el("td", {class: "num", text: String(p.vp)})));
    }
    $("supply").textContent = s.phase === "game_over"
      ? (s.end_reason === "vp" ? `Game over: ${s.vp_to_win} VP reached.` : `Game over: all ${s.chips} VP chips given out.`)
      : `${s.chips_in_supply} VP chips in the supply` + (s.chip_on_target ? ", one on the target" : "") +
        `; ${s.vp_to_win} VP wins.`;
    $("tap-hint").textContent = d
      ? (document.body.dataset.admin === "1" ? "Tap where the robot lands, move by move." : "")
      : "";
    fillPlace(s);
  }

  let placeKey = null;
  function fillPlace(s) {
    const rows = s.layout ? s.layout.rows : null;
    const key = JSON.stringify(rows) + (s.start ? "1" : "0") + s.options.expert;
    if (key === placeKey) return;
    placeKey = key;
    const names = rows ? rows.flat().slice().sort() : [];
    const fill = (id, first, show) => {
      const sel = $(id);
      sel.replaceChildren(el("option", {value: "", text: first}), ...names.map((n) => el("option", {value: n, text: MicroBoard.label(n)})));
      sel.classList.toggle("hidden", !show);
    };
    fill("place-start", "start", !s.start);
    fill("place-target", "target", true);
    fill("place-via", "intermediate", !!s.options.expert);
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

  // The referee changes the table PIN here; it is kept beside the journal for the next start.
  const PIN_WORDS = {label: "New table PIN", button: "Change the PIN", done: "PIN changed",
    hint: "4 to 12 digits"};
  function pinChanger() {
    const box = $("controls");
    if (!box || $("pin-change")) return;
    const input = el("input", {id: "new-pin", inputmode: "numeric", autocomplete: "off", size: "8",
      maxlength: "12", placeholder: PIN_WORDS.hint, "aria-label": PIN_WORDS.label});
    const form = el("form", {id: "pin-change", class: "row"}, input,
      el("button", {type: "submit", text: PIN_WORDS.button}));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const pin = input.value.trim();
      try {
        await api("/api/pin", {pin});
        if ($("pin")) $("pin").textContent = pin;
        input.value = "";
        $("message").textContent = PIN_WORDS.done;
      } catch (e) { $("message").textContent = e.message; }
    });
    box.append(form);
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
        const passes = picked === "transparent" && $("passes") ? $("passes").value : "";
        const direction = passes ? `${b.dataset.slide} ${passes}` : b.dataset.slide;
        try { await api("/api/sim/move", {robot: picked, direction}); $("message").textContent = ""; }
        catch (e) { $("message").textContent = e.message; }
      });
    }
    $("replay").addEventListener("click", () => state && state.optimal && replay(state.optimal));
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
