// On the table page: in solo play, graded hints on request (1 the length … 4 the route), each
// one journaled by the table, so the round is known to be hinted; at a round's end, every
// distinct optimal route (moves of two robots that end alike in either order count once).
"use strict";

// A hint in the page's language, built from its values (level, length, cost, robots, first,
// route) rather than the server's English sentence; the Practice page uses it too.
const HintWords = (() => {
  const {t, tn} = Companion;

  function move(m) {
    const passes = (m.passes || []).map((p) => (p === "bounce" ? p : `+${p}`));
    return I18n.move([m.robot, m.direction, ...passes].join(" "));
  }

  function colors(robots) {
    const words = robots.map((r) => t(`color.${r}`));
    return words.length <= 1 ? words.join("") : words.slice(0, -1).join(", ") + t("and") + words[words.length - 1];
  }

  function text(h) {
    switch (h.level) {
      case 1: return h.cost === h.length ? tn("hint.length", h.length)
        : tn("hint.length_cost", h.length, {cost: h.cost});
      case 2: return tn("hint.robots", h.robots.length, {robots: colors(h.robots)});
      case 3: return t("hint.first", {move: move(h.first)});
      case 4: return t("hint.route", {route: h.route.map(move).join(", ")});
      default: return h.text;
    }
  }

  return {text, move};
})();

(() => {
  const {api, el, tn} = Companion;
  const $ = (id) => document.getElementById(id);
  const IN_PLAY = ["bidding", "timer", "demonstrating"];
  let round = null;
  let level = 0;
  let shown = [];  // the hints of this round, as the server sent them
  let routes = null;

  function showHints() {
    $("solo-hint-list").replaceChildren(...shown.map((h) => el("li", {text: HintWords.text(h)})));
  }

  function showRoutes() {
    $("all-routes").classList.toggle("hidden", !routes);
    if (!routes) return;
    const n = routes.count;
    const part = {shown: routes.routes.length};
    const more = n > part.shown;
    $("all-routes-title").textContent = routes.complete
      ? (more ? tn("routes.first", n, part) : tn("routes.count", n, part))
      : (more ? tn("routes.at_least_first", n, part) : tn("routes.at_least", n, part));
    $("all-routes-list").replaceChildren(...routes.routes.map((r) => el("li", {text: r.map(I18n.move).join(", ")})));
  }

  async function refresh() {
    const s = await api("/api/state");
    const solo = s.game === "ricochet-robots" && (s.players || []).length === 1 &&
      IN_PLAY.includes(s.phase);
    $("solo-hints").classList.toggle("hidden", !solo);
    if (s.round !== round) { round = s.round; level = 0; shown = []; showHints(); }
    routes = (s.show_optimal && s.optimal && s.optimal.routes) || null;
    showRoutes();
  }

  async function hint() {
    if (level >= 4) return;
    try {
      const got = await api("/api/hint", {level: level + 1});
      level += 1;
      shown = got.hints;
      showHints();
      $("solo-hint-err").textContent = "";
    } catch (e) {
      $("solo-hint-err").textContent = e.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!$("solo-hints") || !$("all-routes")) return;
    $("solo-hint").addEventListener("click", () => { hint(); });
    document.addEventListener("companion:language", () => { showHints(); showRoutes(); });
    refresh().catch(() => {});
    setInterval(() => { refresh().catch(() => {}); }, 2000);
  });
})();
