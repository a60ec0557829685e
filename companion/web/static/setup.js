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
    del.addEventListener("click", () => row.remove());
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

  async function load() {
    info = await api("/api/setup-info");
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
  }

  async function submit(ev) {
    ev.preventDefault();
    const players = [...document.querySelectorAll('#players input[name="player"]')]
      .map((i) => i.value.trim()).filter((n) => n);
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
    try {
      await api("/api/setup", {players, preset: $("preset").value, rules, tiles});
      $("setup-err").textContent = "";
      $("setup-ok").textContent = "New game started.";
    } catch (e) {
      $("setup-err").textContent = e.message;
      $("setup-ok").textContent = "";
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("add-player").addEventListener("click", () => {
      if ($("players").children.length < 8) $("players").append(playerRow(""));
    });
    $("preset").addEventListener("change", () => showOptions($("preset").value));
    $("setup").addEventListener("submit", submit);
    document.addEventListener("companion:unlocked", load);
    if (document.body.dataset.admin === "1") load();
  });
})();
