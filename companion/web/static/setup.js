// Setup: players, edition and rule options, tiles as detected (confirm or override).
"use strict";

(() => {
  const {api, el, t} = Companion;
  const SEATS = 8;
  const $ = (id) => document.getElementById(id);
  let info = null;

  function playerRow(name) {
    const input = el("input", {name: "player", maxlength: "24", value: name || "", placeholder: t("setup.name"),
      "data-i18n-placeholder": "setup.name"});
    const del = el("button", {type: "button", class: "small", text: "×", "aria-label": t("setup.remove"),
      "data-i18n-aria-label": "setup.remove"});
    const row = el("div", {class: "player-row"}, input, del);
    del.addEventListener("click", () => { row.remove(); fillFirst(); });
    return row;
  }

  // Each rule option in plain words (the catalogue's option.* and choice.*), never its name.
  const TILE_SIDES = ["AB", "ABCD"];
  function optionInput(opt, value) {
    let input;
    if (opt.kind === "bool") {
      input = el("input", {type: "checkbox", name: opt.name});
      input.checked = !!value;
    } else if (opt.kind === "choice" || opt.name === "tile_sides") {
      input = el("select", {name: opt.name});
      const choices = opt.name === "tile_sides" ? TILE_SIDES.concat(TILE_SIDES.includes(value) ? [] : [value]) : opt.choices;
      for (const c of choices) {
        const key = `choice.${opt.name}.${c}`;
        const text = t(key);
        input.append(el("option", {value: c, text: text === key ? c : text, "data-i18n": key}));
      }
      input.value = value;
      if (opt.name === "tile_sides") input.dataset.kind = "text";
    } else if (opt.kind === "text") {
      input = el("input", {name: opt.name, value: value ?? "", size: "6"});
    } else {
      input = el("input", {type: "number", name: opt.name, min: "1", step: "any", value: value ?? ""});
    }
    if (!input.dataset.kind) input.dataset.kind = opt.kind;
    const key = `option.${opt.name}`;
    return el("label", {class: "option"}, el("span", {text: t(key), "data-i18n": key}), input);
  }

  function showOptions(preset) {
    const box = $("options");
    box.replaceChildren();
    const values = info.presets[preset];
    for (const opt of info.options) box.append(optionInput(opt, values[opt.name]));
    // every edition in one line, the chosen one first and marked
    const names = [preset, ...Object.keys(info.presets).filter((p) => p !== preset && p !== "micro-robots")];
    $("preset-help").replaceChildren(...names.map((p) => el("li", {class: p === preset ? "chosen" : "", "data-preset": p},
      el("strong", {text: t(`preset.${p}`), "data-i18n": `preset.${p}`}), ": ",
      el("span", {text: t(`preset_help.${p}`), "data-i18n": `preset_help.${p}`}))));
  }

  function game() {
    const checked = document.querySelector('#game-choice input:checked');
    return checked ? checked.value : "ricochet-robots";
  }

  function showGame() {
    $("setup").dataset.game = game();
    $("players-range").textContent = t(game() === "micro-robots" ? "setup.players_range_micro" : "setup.players_range",
      {max: info ? info.seats || SEATS : SEATS});
    fillFirst();
  }

  function fillFirst() {
    const sel = $("micro-first");
    const keep = sel.value;
    const names = [...document.querySelectorAll('#players input[name="player"]')].map((i) => i.value.trim());
    sel.replaceChildren(...names.map((n, i) => el("option", {value: String(i), text: n || t("seat", {n: i + 1})})));
    if (keep && Number(keep) < names.length) sel.value = keep;
  }

  function fillMicro() {
    const m = info.micro;
    const sel = $("micro-layout");
    sel.replaceChildren();
    for (const l of m.layouts) {
      const o = el("option", {value: l.name, text: l.error ? t("setup.unreadable", {name: l.name}) : l.name});
      if (l.error) o.disabled = true;
      sel.append(o);
    }
    if (m.layout && m.layouts.some((l) => l.name === m.layout)) sel.value = m.layout;
    $("micro-layout-hint").textContent = m.layouts.length ? "" : t("setup.no_layout");
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
    for (const p of Object.keys(info.presets)) {
      if (p !== "micro-robots") sel.append(el("option", {value: p, text: t(`preset.${p}`), "data-i18n": `preset.${p}`}));
    }
    sel.value = info.preset;
    showOptions(sel.value);
    const tiles = $("tiles");
    tiles.replaceChildren();
    const labels = ["setup.nw", "setup.ne", "setup.se", "setup.sw"];
    labels.forEach((label, i) => {
      const s = el("select", {name: "tile", "aria-label": t(label), "data-i18n-aria-label": label});
      for (const name of info.tile_names) s.append(el("option", {value: name, text: name}));
      s.value = (info.detected_tiles || info.tiles)[i];
      tiles.append(el("label", {class: "tile"}, el("span", {text: t(label), "data-i18n": label}), s));
    });
    const hint = info.detected_tiles ? "setup.tiles_seen" : "setup.tiles_unseen";
    $("tiles-hint").textContent = t(hint);
    $("tiles-hint").dataset.i18n = hint;
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

  // The table's language first (the new game's words and voice), then the game; after
  // that, straight to the table.
  async function send(body) {
    try {
      await api("/api/settings", {language: $("table-lang").value});
      await startGame(body);
      $("setup-err").textContent = "";
      $("setup-ok").textContent = t("setup.started");
      setTimeout(() => { location.href = "/"; }, 600);
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
      if (!window.confirm(e.message)) throw new Error(t("setup.keep_game"));
      return api("/api/setup", Object.assign({}, body, {replace: true}));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("add-player").addEventListener("click", () => {
      if ($("players").children.length < SEATS) $("players").append(playerRow(""));
      fillFirst();
    });
    $("preset").addEventListener("change", () => showOptions($("preset").value));
    $("table-lang").addEventListener("change", () => Companion.follow($("table-lang").value));
    for (const r of document.querySelectorAll('#game-choice input')) r.addEventListener("change", showGame);
    $("players").addEventListener("input", fillFirst);
    $("setup").addEventListener("submit", submit);
    document.addEventListener("companion:unlocked", load);
    if (document.body.dataset.admin === "1") load();
  });
})();
