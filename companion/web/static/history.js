// History: every game played on this table and each player's record, with small charts drawn
// here as SVG: each player's chips in a game, and every bid of a round against its best route.
"use strict";

(() => {
  const {api, el, t, tn, names} = Companion;
  const fmt = (x) => (x === null || x === undefined ? "–" : String(x));
  const NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#f2c230", "#2f9e44", "#e5534b", "#5b9bf0", "#e667af", "#9aa5b8", "#f08c3a", "#8e7cf0"];
  let last = null;

  function svg(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  // one bar per player: chips won in this game
  function chipsChart(g, colour) {
    const most = Math.max(1, ...g.chips);
    const rowH = 16, labelW = 70, w = 300;
    const box = svg("svg", {viewBox: `0 0 ${w} ${g.players.length * rowH + 4}`, class: "chart chips-chart", role: "img",
      "aria-label": t("history.chart_chips")});
    g.players.forEach((name, i) => {
      const y = i * rowH + 2;
      box.append(svg("text", {x: labelW - 4, y: y + 11, "text-anchor": "end", class: "chart-label"}, name.length > 10 ? name.slice(0, 9) + "…" : name));
      const len = (w - labelW - 30) * g.chips[i] / most;
      box.append(svg("rect", {x: labelW, y: y + 2, width: Math.max(len, 1), height: rowH - 5, rx: 2, fill: colour(name)}));
      box.append(svg("text", {x: labelW + len + 4, y: y + 11, class: "chart-label"}, String(g.chips[i])));
    });
    return box;
  }

  // per round: the best route as a dash, each player's bid as a dot of their colour
  function bidsChart(g, colour) {
    const plays = (g.plays || []).filter((p) => p.bids.length || p.optimum !== null);
    if (!plays.length) return null;
    const values = plays.flatMap((p) => p.bids.map((b) => b.value).concat(p.optimum === null ? [] : [p.optimum]));
    const top = Math.max(3, ...values), left = 22, w = 300, h = 110, bottom = 16;
    const step = Math.min(40, (w - left - 8) / plays.length);
    const y = (v) => 6 + (h - bottom - 6) * (1 - v / top);
    const box = svg("svg", {viewBox: `0 0 ${w} ${h}`, class: "chart bids-chart", role: "img", "aria-label": t("history.chart_bids")});
    for (const v of [0, Math.round(top / 2), top]) {
      box.append(svg("line", {x1: left, x2: w, y1: y(v), y2: y(v), class: "chart-grid"}));
      box.append(svg("text", {x: left - 4, y: y(v) + 3, "text-anchor": "end", class: "chart-label"}, String(v)));
    }
    plays.forEach((p, i) => {
      const cx = left + step * (i + 0.5);
      if (p.optimum !== null && p.optimum !== undefined) {
        box.append(svg("line", {x1: cx - step * 0.35, x2: cx + step * 0.35, y1: y(p.optimum), y2: y(p.optimum), class: "chart-best"}));
      }
      p.bids.forEach((b, j) => {
        const dot = svg("circle", {cx: cx + (j - (p.bids.length - 1) / 2) * Math.min(5, step / 4), cy: y(b.value), r: 3.2, fill: colour(b.name)});
        dot.append(svg("title", {}, `${b.name}: ${b.value}`));
        box.append(dot);
      });
      if (plays.length <= 20 || i % 5 === 0) {
        box.append(svg("text", {x: cx, y: h - 4, "text-anchor": "middle", class: "chart-label"}, String(p.round ?? i + 1)));
      }
    });
    return box;
  }

  function legend(players, colour) {
    return el("div", {class: "legend"}, el("span", {class: "best-key", text: `— ${t("history.chart_best")}`}),
      ...players.map((n) => {
        const dot = svg("svg", {viewBox: "0 0 10 10", class: "dot"});
        dot.append(svg("circle", {cx: 5, cy: 5, r: 4, fill: colour(n)}));
        return el("span", {class: "key"}, dot, n);
      }));
  }

  function render(h) {
    const colours = {};
    const colour = (name) => {
      if (!(name in colours)) colours[name] = PALETTE[Object.keys(colours).length % PALETTE.length];
      return colours[name];
    };
    const table = document.getElementById("stats");
    const head = ["history.player", "history.played", "history.won", "history.chips", "history.rounds_won",
      "history.bids", "history.optimal", "history.excess"];
    table.replaceChildren(el("tr", {}, ...head.map((x) => el("th", {text: t(x)}))));
    for (const p of h.players) {
      table.append(el("tr", {}, ...[p.name, p.games, p.games_won, p.chips, p.rounds_won, p.bids_made,
        p.optimal_share === null ? "–" : `${Math.round(p.optimal_share * 100)}%`,
        p.average_excess === null ? "–" : p.average_excess.toFixed(2)].map((x, i) =>
        el("td", {class: i ? "num" : "name", text: fmt(x), "data-label": t(head[i])}))));
    }
    const games = document.getElementById("games");
    games.replaceChildren();
    for (const g of h.games.slice().reverse()) {
      const preset = typeof g.rules === "string" ? g.rules : (g.rules.preset || "abacus-2013");
      const presetName = t(`preset.${preset}`);
      const rules = typeof g.rules === "string" ? presetName : t("history.custom", {preset: presetName});
      const when = g.started ? new Date(g.started).toLocaleString(I18n.lang) : t("history.this_game");
      const line = [g.game === "micro-robots" ? t("setup.game.micro") : rules, tn("rounds", g.rounds),
        t(`history.status.${g.status}`)].join(" · ");
      const card = el("section", {class: "game"},
        el("h3", {}, el("strong", {text: when}), " ", el("span", {class: "hint", text: line})));
      if (g.winners && g.winners.length) card.append(el("p", {class: "won-by", text: t("history.won_by", {names: names(g.winners)})}));
      const charts = el("div", {class: "charts"});
      charts.append(el("figure", {}, el("figcaption", {text: t("history.chart_chips")}), chipsChart(g, colour)));
      const bids = bidsChart(g, colour);
      if (bids) {
        charts.append(el("figure", {}, el("figcaption", {text: t("history.chart_bids")}), bids, legend(g.players, colour)));
      }
      card.append(charts);
      games.append(card);
    }
    if (!h.games.length) games.append(el("p", {text: t("history.no_games")}));
    const practice = document.getElementById("practice");
    practice.replaceChildren();
    for (const p of (h.practice || []).slice().reverse()) {
      const parts = [tn("moves", p.moves), t("history.practice_best", {best: fmt(p.optimal)}),
        t("history.practice_time", {time: I18n.clock(Math.round(p.seconds))})];
      if (p.hint) parts.push(t("history.practice_hints", {level: p.hint}));
      if (p.seed) parts.push(t("history.practice_seed", {seed: p.seed}));
      practice.append(el("p", {}, el("strong", {text: p.solved}), " " + parts.join(" · ")));
    }
    if (!(h.practice || []).length) practice.append(el("p", {text: t("history.no_practice")}));
  }

  async function load() {
    last = await api("/api/history");
    render(last);
    document.body.dataset.loaded = "1";
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.addEventListener("companion:language", () => last && render(last));
    load().catch((e) => console.error(e));
  });
})();
