// History: every game played on this table and each player's record.
"use strict";

(() => {
  const {api, el} = Companion;

  async function load() {
    const h = await api("/api/history");
    const t = document.getElementById("stats");
    t.replaceChildren(el("tr", {}, ...["Player", "Games", "Wins", "Chips", "Rounds won", "Demos", "Succeeded", "Avg over best"]
      .map((x) => el("th", {text: x}))));
    for (const p of h.players) {
      t.append(el("tr", {}, ...[p.name, p.games, p.wins, p.chips, p.rounds_won, p.demonstrations, p.successes,
        p.avg_over_optimal === null ? "–" : p.avg_over_optimal.toFixed(2)].map((x) => el("td", {text: String(x)}))));
    }
    const games = document.getElementById("games");
    games.replaceChildren();
    for (const g of h.games) {
      const who = g.players.map((p) => `${p.name} ${p.chips}`).join(", ");
      games.append(el("p", {}, el("strong", {text: g.started || "game"}), ` ${g.preset} — ${who}` +
        (g.winners && g.winners.length ? ` — won by ${g.winners.join(" & ")}` : "")));
    }
    if (!h.games.length) games.append(el("p", {text: "No games yet."}));
  }

  document.addEventListener("DOMContentLoaded", () => { load().catch((e) => console.error(e)); });
})();
