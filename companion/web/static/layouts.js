// Layouts: enter a Micro Robots board a tap at a time (space by space, or as four sections and
// how each is turned), checked by the companion as you go; save, load, rename and delete by
// name; and confirm or correct a board the camera read.
"use strict";

(() => {
  const {api, el, t} = Companion;
  const {Grid, COLORS, parse} = MicroBoard;
  const $ = (id) => document.getElementById(id);
  const empty = (n) => Array.from({length: n}, () => Array(n).fill(null));
  let rows = empty(6);
  let sections = [empty(3), empty(3), empty(3), empty(3)];
  let rotations = [0, 0, 0, 0];
  let selected = null;  // {grid: "whole" | 0..3, r, c}
  let pending = {};
  let flagged = {};
  let named = [];  // the spaces the problems name, [row, col] from the top left
  let fromProposal = false;
  let whole = null;
  const parts = [];

  const mode = () => document.querySelector('#mode input:checked').value;

  function values(g) { return g === "whole" ? rows : sections[g]; }
  function gridOf(g) { return g === "whole" ? whole : parts[g]; }

  function select(g, r, c) {
    for (const x of [whole, ...parts]) x.select(null);
    selected = {grid: g, r, c};
    gridOf(g).select(r, c);
    const p = parse(values(g)[r][c]);
    pending = p ? {...p} : {};
    showPalette();
  }

  function showPalette() {
    for (const b of document.querySelectorAll("#colours button")) b.dataset.on = b.dataset.color === pending.color ? "1" : "0";
    for (const b of document.querySelectorAll("#numbers button")) b.dataset.on = Number(b.dataset.number) === pending.number ? "1" : "0";
  }

  function pick(kind, value) {
    if (!selected) { $("layout-err").textContent = t("layouts.tap_first"); return; }
    pending[kind] = value;
    showPalette();
    if (pending.color && pending.number) {
      const {grid, r, c} = selected;
      values(grid)[r][c] = `${pending.color}${pending.number}`;
      const n = grid === "whole" ? 6 : 3;
      const next = r * n + c + 1;
      if (next < n * n) select(grid, Math.floor(next / n), next % n);
      else if (grid !== "whole" && grid < 3) select(grid + 1, 0, 0);
      else { pending = {}; showPalette(); }
      changed();
    }
  }

  let checking = 0;
  async function changed() {
    $("layout-err").textContent = "";
    $("layout-ok").textContent = "";
    const body = mode() === "rows" ? {rows} : {sections, rotations};
    const ticket = ++checking;
    try {
      const r = await api("/api/layouts/check", body);
      if (ticket !== checking) return;
      if (mode() === "sections") whole.setLayout(r.rows);
      const list = $("problems");
      list.replaceChildren(...r.problems.map((p, i) => el("li", {text: I18n.say((r.problems_msg || [])[i], p)})));
      named = places(r.problems_msg || []);
      list.dataset.complete = r.complete ? "1" : "0";
      if (r.complete) list.append(el("li", {class: "ok", text: t("layouts.complete")}));
    } catch (e) { $("layout-err").textContent = e.message; }
    draw();
  }

  function draw() {
    if (mode() === "rows") whole.setLayout(rows);
    parts.forEach((p, i) => p.setLayout(sections[i]));
    const names = {};
    for (const [name, text] of Object.entries(flagged)) names[name] = text;
    whole.mark({flagged: names, named});
    if (selected) gridOf(selected.grid).select(selected.r, selected.c);
  }

  // every space a problem names ("pink 1 appears twice (row 1 column 1, row 1 column 2)"),
  // so that the grid rings them
  function places(messages) {
    const out = [];
    const walk = (m, depth) => {
      if (!m || typeof m !== "object" || depth > 12) return;
      if (Array.isArray(m)) { m.forEach((x) => walk(x, depth + 1)); return; }
      const a = m.args || {};
      if (m.key === "layout.place" && Number.isInteger(a.row) && Number.isInteger(a.column)) {
        out.push([a.row - 1, a.column - 1]);
      }
      for (const v of Object.values(a)) walk(v, depth + 1);
    };
    walk(messages, 0);
    return out;
  }

  function setMode(m) {
    document.querySelector(`#mode input[value="${m}"]`).checked = true;
    $("sections").classList.toggle("hidden", m !== "sections");
    $("whole").classList.toggle("preview", m === "sections");
    $("entry-hint").textContent = m === "rows"
      ? t("layouts.hint") : t("layouts.hint_sections");
    selected = null;
    changed();
  }

  async function refresh(pick) {
    const r = await api("/api/layouts");
    const sel = $("saved");
    sel.replaceChildren(...r.layouts.map((l) => el("option", {value: l.name, text: l.error ? t("setup.unreadable", {name: l.name}) : l.name})));
    if (pick) sel.value = pick;
    $("proposal-row").classList.toggle("hidden", !r.proposal);
  }

  async function act(fn) {
    $("layout-err").textContent = "";
    $("layout-ok").textContent = "";
    try { await fn(); } catch (e) { $("layout-err").textContent = e.message; }
  }

  function build() {
    whole = new Grid($("whole"), (space, r, c) => { if (mode() === "rows") select("whole", r, c); });
    for (let k = 0; k < 4; k++) {
      const box = el("div", {class: "section"});
      const turn = el("select", {"aria-label": t("layouts.turn", {n: k + 1}), "data-section": String(k)});
      for (const d of [0, 90, 180, 270]) turn.append(el("option", {value: String(d), text: `${d}°`}));
      turn.addEventListener("change", () => { rotations[k] = Number(turn.value); changed(); });
      const names = ["setup.nw", "setup.ne", "setup.se", "setup.sw"];
      box.append(el("div", {class: "hint", text: t(names[k])}));
      const holder = el("div", {class: "micro-board small"});
      box.append(holder, turn);
      $("sections").append(box);
      parts.push(new Grid(holder, (space, r, c) => select(k, r, c), 3));
    }
    for (const c of COLORS) {
      const b = el("button", {type: "button", class: `swatch c-${c}`, "data-color": c, text: t(`color.${c}`)});
      b.addEventListener("click", () => pick("color", c));
      $("colours").append(b);
    }
    for (let n = 1; n <= 6; n++) {
      const b = el("button", {type: "button", class: "digit", "data-number": String(n), text: String(n)});
      b.addEventListener("click", () => pick("number", n));
      $("numbers").append(b);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    build();
    for (const r of document.querySelectorAll("#mode input")) r.addEventListener("change", () => setMode(mode()));
    $("clear-space").addEventListener("click", () => {
      if (!selected) return;
      values(selected.grid)[selected.r][selected.c] = null;
      pending = {};
      showPalette();
      changed();
    });
    $("clear-all").addEventListener("click", () => {
      rows = empty(6); sections = [empty(3), empty(3), empty(3), empty(3)]; rotations = [0, 0, 0, 0];
      for (const s of document.querySelectorAll("#sections select")) s.value = "0";
      flagged = {}; fromProposal = false; selected = null; changed();
    });
    $("load").addEventListener("click", () => act(async () => {
      const name = $("saved").value;
      if (!name) throw new Error(t("layouts.none_saved"));
      const l = await api(`/api/layouts/${encodeURIComponent(name)}`);
      rows = l.rows; flagged = {}; fromProposal = false;
      $("layout-name").value = l.name;
      setMode("rows");
    }));
    $("rename").addEventListener("click", () => act(async () => {
      const to = $("rename-to").value.trim();
      await api(`/api/layouts/${encodeURIComponent($("saved").value)}/rename`, {to});
      await refresh(to);
      $("layout-ok").textContent = t("layouts.renamed", {name: to});
    }));
    $("delete").addEventListener("click", () => act(async () => {
      const name = $("saved").value;
      if (!name || !window.confirm(t("layouts.confirm_delete", {name}))) return;
      await api(`/api/layouts/${encodeURIComponent(name)}/delete`, {});
      await refresh();
      $("layout-ok").textContent = t("layouts.deleted", {name});
    }));
    function showProposal(p) {
      rows = p.rows; flagged = {}; fromProposal = true;
      (p.confidence || []).forEach((row, r) => row.forEach((conf, c) => {
        if (conf < 0.6 && rows[r][c]) flagged[rows[r][c]] = t("layouts.unsure", {pct: Math.round(conf * 100)});
      }));
      setMode("rows");
      const read = rows.flat().filter((x) => x).length;
      $("entry-hint").textContent = read
        ? t("layouts.proposal_read") : t("layouts.proposal_none");
    }
    $("load-proposal").addEventListener("click", () => act(async () => {
      showProposal(await api("/api/layouts/proposal"));
    }));
    $("read-camera").addEventListener("click", () => act(async () => {
      const button = $("read-camera");
      button.disabled = true;
      try {
        const p = await api("/api/layouts/read", {});
        showProposal(p);
        await refresh();
        $("layout-ok").textContent = p.problems.length ? "" : I18n.t("layouts.read_whole");
      } finally { button.disabled = false; }
    }));
    $("dismiss-proposal").addEventListener("click", () => act(async () => {
      await api("/api/layouts/proposal/dismiss", {});
      await refresh();
    }));
    $("save").addEventListener("click", () => act(async () => {
      const name = $("layout-name").value;
      const body = mode() === "rows" ? {name, rows} : {name, sections, rotations};
      body.replace = $("replace").checked;
      const r = await api("/api/layouts", body);
      if (fromProposal) { await api("/api/layouts/proposal/dismiss", {}); fromProposal = false; flagged = {}; draw(); }
      await refresh(r.layout.name);
      $("layout-ok").textContent = t("layouts.saved_as", {name: r.layout.name});
    }));
    const start = () => { refresh().catch((e) => { $("layout-err").textContent = e.message; }); changed(); };
    document.addEventListener("companion:unlocked", start);
    if (document.body.dataset.admin === "1") start(); else draw();
  });
})();
