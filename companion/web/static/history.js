// History: every game played on this table and each player's record.
"use strict";

(() => {
  const {api, el} = Companion;
  const fmt = (x) => (x === null || x === undefined ? "–" : String(x));

  async function load() {
    const h = await api("/api/history");
    const t = document.getElementById("stats");
    const head = ["Player", "Games", "Won", "Chips", "Rounds won", "Bids", "Optimal bids", "Avg over best"];
    t.replaceChildren(el("tr", {}, ...head.map((x) => el("th", {text: x}))));
    for (const p of h.players) {
      t.append(el("tr", {}, ...[p.name, p.games, p.games_won, p.chips, p.rounds_won, p.bids_made,
        p.optimal_share === null ? "–" : `${Math.round(p.optimal_share * 100)}%`,
        p.average_excess === null ? "–" : p.average_excess.toFixed(2)].map((x) => el("td", {text: fmt(x)}))));
    }
    const games = document.getElementById("games");
    games.replaceChildren();
    for (const g of h.games.slice().reverse()) {
      const who = g.players.map((n, i) => `${n} ${g.chips[i]}`).join(", ");
      const rules = typeof g.rules === "string" ? g.rules : `${g.rules.preset || "abacus-2013"} (custom)`;
      games.append(el("p", {}, el("strong", {text: g.started || "this game"}),
        ` ${rules}, ${g.rounds} rounds, ${g.status} — ${who}` +
        (g.winners && g.winners.length ? ` — won by ${g.winners.join(" & ")}` : "")));
    }
    if (!h.games.length) games.append(el("p", {text: "No games yet."}));
    const practice = document.getElementById("practice");
    practice.replaceChildren();
    for (const p of (h.practice || []).slice().reverse()) {
      practice.append(el("p", {}, el("strong", {text: p.solved}),
        ` ${p.moves} moves (best ${fmt(p.optimal)}) in ${Math.round(p.seconds)} s` +
        (p.hint ? `, hints up to level ${p.hint}` : "") + (p.seed ? ` — puzzle ${p.seed}` : "")));
    }
    if (!(h.practice || []).length) practice.append(el("p", {text: "No practice puzzles yet."}));
  }

  document.addEventListener("DOMContentLoaded", () => { load().catch((e) => console.error(e)); });
})();
