// Solo play on the table page: graded hints on request (1 the length … 4 the route), each one
// journaled by the table, so the round is known to be hinted.
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
    if (!$("solo-hints")) return;
    $("solo-hint").addEventListener("click", () => { hint(); });
    refresh().catch(() => {});
    setInterval(() => { refresh().catch(() => {}); }, 2000);
  });
})();
