// The board as SVG, drawn from the state's board geometry and robot cells, with the cells'
// names along its edges (columns a–p under it, rows 1–16 beside it: a1 is the south-west
// corner, as the position files and the camera's questions name cells).
"use strict";

const BoardView = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const U = 10;  // one cell
  const LEFT = 7, BOTTOM = 7;  // room for the row numbers and the column letters
  const FILL = {
    red: "#d93a32", green: "#2f9e44", blue: "#2f6fd6", yellow: "#f2c230",
    black: "#222", silver: "#b9bec7", transparent: "rgba(255,255,255,0.35)", any: "#8e44ad",
  };

  function cellXY(name, size) {
    const f = name.charCodeAt(0) - 97;
    const r = parseInt(name.slice(1), 10) - 1;
    return [f * U, (size - 1 - r) * U];
  }

  function cellName(f, r) { return `${String.fromCharCode(97 + f)}${r + 1}`; }

  function node(tag, attrs) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  }

  function shape(t, x, y, s) {
    const cx = x + U / 2, cy = y + U / 2, r = s * U;
    const color = FILL[t.color] || FILL.any;
    const common = {fill: color, class: "target-mark"};
    switch (t.shape) {
      case "circle": return node("circle", Object.assign({cx, cy, r}, common));
      case "square": return node("rect", Object.assign({x: cx - r, y: cy - r, width: 2 * r, height: 2 * r}, common));
      case "triangle": return node("polygon", Object.assign({points: `${cx},${cy - r} ${cx + r},${cy + r} ${cx - r},${cy + r}`}, common));
      case "hexagon": {
        const pts = [];
        for (let i = 0; i < 6; i++) {
          const a = Math.PI / 3 * i;
          pts.push(`${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`);
        }
        return node("polygon", Object.assign({points: pts.join(" ")}, common));
      }
      default: {  // the vortex
        const g = node("g", {class: "target-mark"});
        ["red", "green", "blue", "yellow"].forEach((c, i) => {
          g.append(node("circle", {cx, cy, r: r * (1 - i * 0.22), fill: FILL[c]}));
        });
        return g;
      }
    }
  }

  class View {
    constructor(container, onPick) {
      this.container = container;
      this.onPick = onPick;
      this.key = null;
      this.size = 16;
      this.robots = {};
      this.svg = node("svg", {class: "board-svg", role: "img"});
      container.append(this.svg);
    }

    drawBoard(geo) {
      const key = JSON.stringify(geo);
      if (key === this.key) return;
      this.key = key;
      const n = this.size = geo.size || 16;
      const svg = this.svg;
      svg.replaceChildren();
      svg.setAttribute("viewBox", `${-LEFT} -2 ${n * U + LEFT + 2} ${n * U + BOTTOM + 2}`);
      // the cells' names along two edges: letters under the columns, numbers beside the rows
      const labels = node("g", {class: "labels", "aria-hidden": "true"});
      for (let i = 0; i < n; i++) {
        const col = node("text", {x: i * U + U / 2, y: n * U + BOTTOM / 2 + 1.6, "text-anchor": "middle",
          class: "label label-col", "data-col": String.fromCharCode(97 + i)});
        col.textContent = String.fromCharCode(97 + i);
        const row = node("text", {x: -LEFT / 2, y: (n - 1 - i) * U + U / 2 + 1.5, "text-anchor": "middle",
          class: "label label-row", "data-row": String(i + 1)});
        row.textContent = String(i + 1);
        labels.append(col, row);
      }
      svg.append(labels);
      const cells = node("g", {class: "cells"});
      for (let f = 0; f < n; f++) {
        for (let r = 0; r < n; r++) {
          cells.append(node("rect", {x: f * U + 0.3, y: r * U + 0.3, width: U - 0.6, height: U - 0.6, class: "cell"}));
        }
      }
      svg.append(cells);
      for (const c of geo.blocked || []) {
        const [x, y] = cellXY(c, n);
        svg.append(node("rect", {x, y, width: U, height: U, class: "blocked"}));
      }
      const marks = node("g", {class: "targets"});
      for (const t of geo.targets || []) {
        const [x, y] = cellXY(t.cell, n);
        const m = shape(t, x, y, 0.28);
        m.dataset.cell = t.cell;
        marks.append(m);
      }
      svg.append(marks);
      for (const d of geo.diagonals || []) {
        const [x, y] = cellXY(d.cell, n);
        const line = d.orientation === "/" ? {x1: x + 1, y1: y + U - 1, x2: x + U - 1, y2: y + 1}
          : {x1: x + 1, y1: y + 1, x2: x + U - 1, y2: y + U - 1};
        svg.append(node("line", Object.assign({stroke: FILL[d.color], class: "diagonal"}, line)));
      }
      const walls = node("g", {class: "walls"});
      walls.append(node("rect", {x: 0, y: 0, width: n * U, height: n * U, class: "edge"}));
      for (const [c, dir] of geo.walls || []) {
        const [x, y] = cellXY(c, n);
        const seg = {
          up: [x, y, x + U, y], down: [x, y + U, x + U, y + U],
          left: [x, y, x, y + U], right: [x + U, y, x + U, y + U],
        }[dir];
        if (seg) walls.append(node("line", {x1: seg[0], y1: seg[1], x2: seg[2], y2: seg[3], class: "wall"}));
      }
      svg.append(walls);
      this.goal = node("rect", {class: "goal hidden", width: U, height: U});
      svg.append(this.goal);
      this.routeLayer = node("g", {class: "route"});
      svg.append(this.routeLayer);
      this.robotLayer = node("g", {class: "robots"});
      svg.append(this.robotLayer);
      this.namedLayer = node("g", {class: "named"});
      svg.append(this.namedLayer);
      this.robots = {};
      this.namedKey = null;
      this.setNamed(this.named || []);
    }

    // The cells the table's words name ("red seen on b1 — is that right?"): each ringed and
    // tinted in its robot's colour, its column letter and row number picked out too, so the
    // players find it on the board. cells: [{cell, robot}] (an empty list clears them).
    setNamed(cells) {
      this.named = cells;
      if (!this.namedLayer) return;
      const key = JSON.stringify(cells);
      if (key === this.namedKey) return;
      this.namedKey = key;
      this.namedLayer.replaceChildren();
      for (const t of this.svg.querySelectorAll(".label.picked-out")) t.classList.remove("picked-out");
      for (const {cell, robot} of cells) {
        const f = cell.charCodeAt(0) - 97, r = parseInt(cell.slice(1), 10) - 1;
        if (!(f >= 0 && f < this.size && r >= 0 && r < this.size)) continue;
        const [x, y] = cellXY(cell, this.size);
        const colour = FILL[robot] || "#e5534b";
        const g = node("g", {class: "named-cell", "data-cell": cellName(f, r)});
        g.append(node("rect", {x: x + 0.4, y: y + 0.4, width: U - 0.8, height: U - 0.8, rx: 1.5,
          fill: colour, class: "named-tint"}));
        g.append(node("rect", {x: x - 0.9, y: y - 0.9, width: U + 1.8, height: U + 1.8, rx: 2.5,
          class: "named-halo"}));
        g.append(node("rect", {x: x - 0.9, y: y - 0.9, width: U + 1.8, height: U + 1.8, rx: 2.5,
          stroke: colour, class: "named-ring"}));
        this.namedLayer.append(g);
        for (const t of this.svg.querySelectorAll(`.label[data-col="${cell[0]}"], .label[data-row="${r + 1}"]`)) {
          t.classList.add("picked-out");
        }
      }
    }

    setTarget(t) {
      if (!this.goal) return;
      if (!t || !t.cell) { this.goal.setAttribute("class", "goal hidden"); return; }
      const [x, y] = cellXY(t.cell, this.size);
      this.goal.setAttribute("x", x);
      this.goal.setAttribute("y", y);
      this.goal.setAttribute("stroke", FILL[t.robot] || FILL.any);
      this.goal.setAttribute("class", "goal");
    }

    setRobots(robots) {
      if (!this.robotLayer) return;
      for (const [name, g] of Object.entries(this.robots)) {
        if (!(name in robots)) { g.remove(); delete this.robots[name]; }
      }
      for (const [name, cell] of Object.entries(robots)) {
        let g = this.robots[name];
        if (!g) {
          g = node("g", {class: `robot robot-${name}`, "data-robot": name, tabindex: "0"});
          g.append(node("circle", {cx: U / 2, cy: U / 2, r: U * 0.36, fill: FILL[name] || "#888", class: "robot-body"}));
          g.append(node("circle", {cx: U / 2, cy: U * 0.42, r: U * 0.13, class: "robot-head"}));
          g.addEventListener("click", () => this.onPick && this.onPick(name));
          g.addEventListener("keydown", (ev) => {  // Tab to a robot, Enter or Space picks it
            if ((ev.key === "Enter" || ev.key === " ") && this.onPick) { ev.preventDefault(); this.onPick(name); }
          });
          this.robotLayer.append(g);
          this.robots[name] = g;
        }
        const [x, y] = cellXY(cell, this.size);
        g.style.transform = `translate(${x}px, ${y}px)`;
        g.dataset.cell = cell;
      }
    }

    // The best route drawn on the board: one numbered arrow per move, in the moving robot's
    // colour, from where it stood to where it stopped (null clears it).
    setRoute(o) {
      if (!this.routeLayer) return;
      this.routeLayer.replaceChildren();
      if (!o || !o.steps || !o.start) return;
      let before = o.start;
      o.steps.forEach((step, i) => {
        const robot = String(step.move).split(" ")[0];
        const from = before[robot], to = step.robots[robot];
        before = step.robots;
        if (!from || !to || from === to) return;
        const [x1, y1] = cellXY(from, this.size).map((v) => v + U / 2);
        const [x2, y2] = cellXY(to, this.size).map((v) => v + U / 2);
        const len = Math.hypot(x2 - x1, y2 - y1);
        const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        const ex = x2 - ux * 3.2, ey = y2 - uy * 3.2;  // stop short of the robot's centre
        const colour = FILL[robot] || FILL.any;
        const g = node("g", {class: "route-step", "data-step": String(i + 1)});
        g.append(node("line", {x1: x1 + ux * 2, y1: y1 + uy * 2, x2: ex - ux * 2, y2: ey - uy * 2, stroke: colour, class: "route-line"}));
        const px = -uy, py = ux;
        g.append(node("polygon", {points: `${ex},${ey} ${ex - ux * 3 + px * 1.8},${ey - uy * 3 + py * 1.8} ${ex - ux * 3 - px * 1.8},${ey - uy * 3 - py * 1.8}`,
          fill: colour, class: "route-head"}));
        const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
        g.append(node("circle", {cx: mx, cy: my, r: 2.6, fill: "#fff", stroke: colour, class: "route-badge"}));
        const label = node("text", {x: mx, y: my + 1.3, "text-anchor": "middle", class: "route-num"});
        label.textContent = String(i + 1);
        g.append(label);
        this.routeLayer.append(g);
      });
    }

    pick(name) {
      for (const [n, g] of Object.entries(this.robots)) g.classList.toggle("picked", n === name);
    }
  }

  return {View, cellXY, cellName};
})();
