// On the table page: in solo play, graded hints on request (1 the length … 4 the route), each
// one journaled by the table, so the round is known to be hinted; at a round's end, every
// distinct optimal route (moves of two robots that end alike in either order count once).
"use strict";

(() => {
  const {api, el} = Companion;
  const $ = (id) => document.getElementById(id);
  const IN_PLAY = ["bidding", "timer", "demonstrating"];
  let round = null;
  let level = 0;

  async function refresh() {
    const s = await api("/api/state");
    const solo = s.game === "ricochet-robots" && (s.players || []).length === 1 &&
      IN_PLAY.includes(s.phase);
    $("solo-hints").classList.toggle("hidden", !solo);
    if (s.round !== round) { round = s.round; level = 0; $("solo-hint-list").replaceChildren(); }
    const all = s.show_optimal && s.optimal && s.optimal.routes;
    $("all-routes").classList.toggle("hidden", !all);
    if (all) {
      const n = all.count;
      $("all-routes-title").textContent = `${all.complete ? "" : "At least "}${n} distinct ` +
        `optimal route${n === 1 ? "" : "s"}` + (n > all.routes.length ? `; the first ${all.routes.length}:` : ":");
      $("all-routes-list").replaceChildren(...all.routes.map((r) => el("li", {text: r.join(", ")})));
    }
  }

  async function hint() {
    if (level >= 4) return;
    try {
      const got = await api("/api/hint", {level: level + 1});
      level += 1;
      $("solo-hint-list").replaceChildren(...got.hints.map((h) => el("li", {text: h.text})));
      $("solo-hint-err").textContent = "";
    } catch (e) {
      $("solo-hint-err").textContent = e.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!$("solo-hints") || !$("all-routes")) return;
    $("solo-hint").addEventListener("click", () => { hint(); });
    refresh().catch(() => {});
    setInterval(() => { refresh().catch(() => {}); }, 2000);
  });
})();
