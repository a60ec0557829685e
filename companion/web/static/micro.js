// Micro Robots on the page: the 6×6 board of colours and numbers as a grid of tappable spaces,
// drawn from the layout, with the robot, the start chip, the target (and the expert variant's
// intermediate target), the landings of a demonstration and, after a round, the shortest route.
"use strict";

const MicroBoard = (() => {
  const COLORS = ["blue", "yellow", "green", "red", "pink", "white"];
  const SIZE = 6;

  function parse(name) {
    const m = /^([a-z]+)([1-6])$/.exec(name || "");
    return m && COLORS.includes(m[1]) ? {color: m[1], number: Number(m[2])} : null;
  }

  function label(name) {
    const p = parse(name);
    const color = p && typeof I18n !== "undefined" ? I18n.t(`color.${p.color}`) : p && p.color;
    return p ? `${color} ${p.number}` : (name || "–");
  }

  class Grid {
    // onTap(space, row, col) is called when a space is tapped (null: taps do nothing);
    // size is 6 for the board, 3 for one section of it.
    constructor(container, onTap, size) {
      this.onTap = onTap;
      this.size = size || SIZE;
      this.key = null;
      this.cells = [];
      this.grid = document.createElement("div");
      this.grid.className = `micro-grid size-${this.size}`;
      this.grid.setAttribute("role", "grid");
      for (let r = 0; r < this.size; r++) {
        for (let c = 0; c < this.size; c++) {
          const b = document.createElement("button");
          b.type = "button";
          b.className = "space";
          b.dataset.row = String(r);
          b.dataset.col = String(c);
          const num = document.createElement("span");
          num.className = "num";
          const mark = document.createElement("span");
          mark.className = "mark";
          b.append(num, mark);
          b.addEventListener("click", () => this.onTap && this.onTap(b.dataset.space || null, r, c));
          this.cells.push(b);
          this.grid.append(b);
        }
      }
      container.append(this.grid);
    }

    cell(r, c) { return this.cells[r * this.size + c]; }

    // rows: six rows of six names from the top, null where nothing is entered yet.
    setLayout(rows) {
      const key = JSON.stringify(rows);
      if (key === this.key) return;
      this.key = key;
      this.byName = {};
      for (let r = 0; r < this.size; r++) {
        for (let c = 0; c < this.size; c++) {
          const name = rows && rows[r] ? rows[r][c] : null;
          const b = this.cell(r, c);
          const p = parse(name);
          b.dataset.space = p ? name : "";
          b.className = p ? `space c-${p.color}` : "space empty";
          b.querySelector(".num").textContent = p ? String(p.number) : "";
          b.setAttribute("aria-label", p ? label(name) : `row ${r + 1} column ${c + 1}, empty`);
          if (p) this.byName[name] = b;
        }
      }
    }

    // marks: {robot, start, target, via, seen, steps: [names in order], flagged: {name: text},
    // named: [[row, col], …] from the top left (the spaces a problem names: "row 1 column 2")}
    mark(m) {
      for (const b of this.cells) {
        for (const k of ["robot", "start", "target", "via", "seen", "step", "flag", "selected", "named"]) delete b.dataset[k];
        b.querySelector(".mark").textContent = "";
        b.removeAttribute("title");
      }
      const at = (name) => (name && this.byName ? this.byName[name] : null);
      (m.steps || []).forEach((name, i) => {
        const b = at(name);
        if (b) { b.dataset.step = String(i + 1); b.querySelector(".mark").textContent = String(i + 1); }
      });
      for (const k of ["start", "target", "via", "seen", "robot"]) {
        const b = at(m[k]);
        if (b) b.dataset[k] = "1";
      }
      for (const [name, text] of Object.entries(m.flagged || {})) {
        const b = at(name);
        if (b) { b.dataset.flag = "1"; b.title = text; }
      }
      for (const [r, c] of m.named || []) {
        if (r >= 0 && r < this.size && c >= 0 && c < this.size) this.cell(r, c).dataset.named = "1";
      }
    }

    select(r, c) {
      for (const b of this.cells) delete b.dataset.selected;
      if (r !== null && r !== undefined) this.cell(r, c).dataset.selected = "1";
    }
  }

  // The two dice of a roll: the colour die and the number die.
  function dice(box, name) {
    box.replaceChildren();
    const p = parse(name);
    if (!p) return;
    const colour = document.createElement("span");
    colour.className = `die c-${p.color}`;
    colour.title = p.color;
    const number = document.createElement("span");
    number.className = "die number";
    number.textContent = String(p.number);
    box.append(colour, number);
    box.dataset.space = name;
  }

  return {Grid, COLORS, SIZE, parse, label, dice};
})();
