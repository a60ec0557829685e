// Setup: players, edition and rule options, tiles as detected (confirm or override).
"use strict";

(() => {
  const {api, el} = Companion;
  const $ = (id) => document.getElementById(id);
  let info = null;

  function playerRow(name) {
    const input = el("input", {name: "player", maxlength: "24", value: name || "", placeholder: "name"});
    const del = el("button", {type: "button", class: "small", text: "×", "aria-label": "remove player"});
    const row = el("div", {class: "player-row"}, input, del);
    del.addEventListener("click", () => { row.remove(); fillFirst(); });
    return row;
  }

  function optionInput(opt, value) {
    let input;
    if (opt.kind === "bool") {
      input = el("input", {type: "checkbox", name: opt.name});
      input.checked = !!value;
    } else if (opt.kind === "choice") {
      input = el("select", {name: opt.name});
      for (const c of opt.choices) input.append(el("option", {value: c, text: c}));
      input.value = value;
    } else if (opt.kind === "text") {
      input = el("input", {name: opt.name, value: value ?? "", size: "6"});
    } else {
      input = el("input", {type: "number", name: opt.name, min: "1", step: "any", value: value ?? ""});
    }
    input.dataset.kind = opt.kind;
    return el("label", {class: "option"}, el("span", {text: opt.label}), input);
  }

  function showOptions(preset) {
    const box = $("options");
    box.replaceChildren();
    const values = info.presets[preset];
    for (const opt of info.options) box.append(optionInput(opt, values[opt.name]));
  }

  function game() {
    const checked = document.querySelector('#game-choice input:checked');
    return checked ? checked.value : "ricochet-robots";
  }

  function showGame() {
    $("setup").dataset.game = game();
    fillFirst();
  }

  function fillFirst() {
    const sel = $("micro-first");
    const keep = sel.value;
    const names = [...document.querySelectorAll('#players input[name="player"]')].map((i) => i.value.trim());
    sel.replaceChildren(...names.map((n, i) => el("option", {value: String(i), text: n || `seat ${i + 1}`})));
    if (keep && Number(keep) < names.length) sel.value = keep;
  }

  function fillMicro() {
    const m = info.micro;
    const sel = $("micro-layout");
    sel.replaceChildren();
    for (const l of m.layouts) {
      const o = el("option", {value: l.name, text: l.error ? `${l.name} (unreadable)` : l.name});
      if (l.error) o.disabled = true;
      sel.append(o);
    }
    if (m.layout && m.layouts.some((l) => l.name === m.layout)) sel.value = m.layout;
    $("micro-layout-hint").textContent = m.layouts.length ? ""
      : "No layout saved yet: enter your board under Layouts first.";
    $("micro-stall").value = m.options.stall_seconds === null ? "" : String(Math.round(m.options.stall_seconds));
    if (!$("micro-stall").value && m.options.stall_seconds !== null) $("micro-stall").value = "150";
    $("micro-expert").checked = !!m.options.expert;
    fillFirst();
    $("micro-first").value = String(m.first_roller || 0);
  }

  async function load() {
    info = await api("/api/setup-info");
    document.querySelector(`#game-choice input[value="${info.game}"]`).checked = true;
    const players = $("players");
    players.replaceChildren();
    const names = info.players.length ? info.players : ["", ""];
    for (const n of names) players.append(playerRow(n));
    const sel = $("preset");
    sel.replaceChildren();
    for (const p of Object.keys(info.presets)) if (p !== "micro-robots") sel.append(el("option", {value: p, text: p}));
    sel.value = info.preset;
    showOptions(sel.value);
    const tiles = $("tiles");
    tiles.replaceChildren();
    const labels = ["north-west", "north-east", "south-east", "south-west"];
    labels.forEach((label, i) => {
      const s = el("select", {name: "tile", "aria-label": label});
      for (const t of info.tile_names) s.append(el("option", {value: t, text: t}));
      s.value = (info.detected_tiles || info.tiles)[i];
      tiles.append(el("label", {class: "tile"}, el("span", {text: label}), s));
    });
    $("tiles-hint").textContent = info.detected_tiles
      ? "Tiles as the camera reads them; change any that are wrong."
      : "The camera has not read the tiles; choose them by hand.";
    fillMicro();
    showGame();
  }

  function microBody(players) {
    const stall = $("micro-stall").value;
    return {game: "micro-robots", players, layout: $("micro-layout").value || null,
      options: {stall_seconds: stall === "" ? null : Number(stall), expert: $("micro-expert").checked},
      first_roller: Number($("micro-first").value || 0)};
  }

  async function submit(ev) {
    ev.preventDefault();
    const players = [...document.querySelectorAll('#players input[name="player"]')]
      .map((i) => i.value.trim()).filter((n) => n);
    if (game() === "micro-robots") return send(microBody(players));
    const rules = {};
    const base = info.presets[$("preset").value];
    for (const input of document.querySelectorAll("#options [name]")) {
      let v;
      if (input.dataset.kind === "bool") v = input.checked;
      else if (input.dataset.kind === "choice" || input.dataset.kind === "text") v = input.value;
      else v = input.value === "" ? null : Number(input.value);
      if (v !== base[input.name]) rules[input.name] = v;
    }
    const tiles = [...document.querySelectorAll('#tiles select')].map((s) => s.value);
    return send({players, preset: $("preset").value, rules, tiles});
  }

  async function send(body) {
    try {
      await startGame(body);
      $("setup-err").textContent = "";
      $("setup-ok").textContent = "New game started.";
    } catch (e) {
      $("setup-err").textContent = e.message;
      $("setup-ok").textContent = "";
    }
  }

  // A game in play is ended only once the user says so: the server asks (409, confirm).
  async function startGame(body) {
    try {
      return await api("/api/setup", body);
    } catch (e) {
      if (e.status !== 409 || !e.data || !e.data.confirm) throw e;
      if (!window.confirm(e.message)) throw new Error(KEEP_GAME);
      return api("/api/setup", Object.assign({}, body, {replace: true}));
    }
  }
  const KEEP_GAME = "The game in play goes on: no new game was started.";

  document.addEventListener("DOMContentLoaded", () => {
    $("add-player").addEventListener("click", () => {
      if ($("players").children.length < 8) $("players").append(playerRow(""));
      fillFirst();
    });
    $("preset").addEventListener("change", () => showOptions($("preset").value));
    for (const r of document.querySelectorAll('#game-choice input')) r.addEventListener("change", showGame);
    $("players").addEventListener("input", fillFirst);
    $("setup").addEventListener("submit", submit);
    document.addEventListener("companion:unlocked", load);
    if (document.body.dataset.admin === "1") load();
  });
})();
