// Shared by every page: the CSRF-protected JSON calls, the live event stream, the PIN unlock.
"use strict";

// The words of every page, from the catalogue of the chosen language (companion/catalogues):
// a phone's own choice, else its browser's language on a bid pad and the table's elsewhere.
const I18n = (() => {
  const node = document.getElementById("catalogues");
  const all = node ? JSON.parse(node.textContent) : {en: {}};
  const KEY = "companion.lang";
  const code = (v) => { const c = String(v || "").slice(0, 2).toLowerCase(); return all[c] ? c : null; };
  let lang = choose(document.body.dataset.tableLang);

  function stored() { try { return code(localStorage.getItem(KEY)); } catch (e) { return null; } }

  function choose(table) {
    const browser = (navigator.languages || [navigator.language]).map(code).find(Boolean);
    const pad = document.body.classList.contains("page-pad");
    return stored() || (pad ? browser || code(table) : code(table) || browser) || "en";
  }

  // "{name} bids {moves}" with its placeholders filled
  function t(key, params) {
    const words = all[lang] || {};
    const text = key in words ? words[key] : (all.en && key in all.en ? all.en[key] : key);
    return text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
  }

  // a count: KEY.one or KEY.other by the language's plural rule ("1 move", "6 moves")
  function tn(key, n, params) {
    const form = new Intl.PluralRules(lang).select(n) === "one" ? "one" : "other";
    return t(`${key}.${form}`, Object.assign({n}, params || {}));
  }

  // What the server said as a catalogue key and its values ({key, args}; a value that is
  // itself {key, args}, such as a colour or a direction, said in this language too), else
  // the server's own text (fallback) as it came; shown as a sentence, capital first.
  function say(m, fallback) {
    const text = phrase(m, fallback);
    return text.charAt(0).toLocaleUpperCase(lang) + text.slice(1);
  }

  function phrase(m, fallback) {
    if (!m || typeof m !== "object" || typeof m.key !== "string") {
      return fallback == null ? (m == null || typeof m === "object" ? "" : String(m)) : String(fallback);
    }
    const args = {};
    for (const [k, v] of Object.entries(m.args || {})) {
      args[k] = v && typeof v === "object" && typeof v.key === "string" ? phrase(v) : v;
    }
    const words = all[lang] || {}, en = all.en || {};
    if (!(m.key in words) && !(m.key in en) && typeof args.n === "number") return tn(m.key, args.n, args);
    if (!(m.key in words) && !(m.key in en)) return fallback == null ? m.key : String(fallback);
    return t(m.key, args);
  }

  function apply(root) {
    const scope = root || document;
    for (const n of scope.querySelectorAll("[data-i18n]")) n.textContent = t(n.dataset.i18n);
    for (const [attr, data] of [["placeholder", "i18nPlaceholder"], ["aria-label", "i18nAriaLabel"], ["title", "i18nTitle"]]) {
      for (const n of scope.querySelectorAll(`[data-${attr === "aria-label" ? "i18n-aria-label" : "i18n-" + attr}]`)) {
        n.setAttribute(attr, t(n.dataset[data]));
      }
    }
    document.documentElement.lang = lang;
    const pickBox = document.getElementById("lang-pick");
    if (pickBox) pickBox.value = lang;
  }

  function set(next, remember) {
    const c = code(next);
    if (!c) return;
    if (remember) { try { localStorage.setItem(KEY, c); } catch (e) { /* private mode */ } }
    if (c === lang) return;
    lang = c;
    apply();
    document.dispatchEvent(new Event("companion:language"));
  }

  // the table's language changed on Setup: pages without a choice of their own follow it
  function follow(table) {
    if (!stored()) set(choose(table), false);
  }

  // a time left as the hourglass shows it, the same in every language (i18n.clock):
  // "10:00" from a minute up, "38 s" below; lang: another catalogue than the page's
  function clock(s, other) {
    if (s === null || s === undefined || Number.isNaN(Number(s))) return "–";
    const n = Math.max(0, Math.ceil(s));
    if (n >= 60) return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
    const was = lang;
    if (other && all[other]) lang = other;
    try { return t("time.short", {n}); } finally { lang = was; }
  }

  function chip(target) {
    if (!target) return "";
    if (target.shape === "vortex") return t("chip.vortex");
    return t(`chip.${target.color}.${target.shape}`);
  }

  function move(text) {
    const [robot, dir, ...rest] = String(text).split(" ");
    const arrow = {up: "↑", down: "↓", left: "←", right: "→"}[dir] || dir;
    return `${t(`color.${robot}`)} ${arrow}${rest.length ? " " + rest.join(" ") : ""}`;
  }

  return {t, tn, say, apply, set, follow, clock, chip, move, get lang() { return lang; }};
})();

const Companion = (() => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;

  async function api(path, body, extraHeaders) {
    const opts = {
      method: body === undefined ? "GET" : "POST",
      credentials: "same-origin",
      headers: Object.assign({"X-CSRF-Token": csrf}, extraHeaders || {}),
    };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const resp = await fetch(path, opts);
    let data = null;
    try { data = await resp.json(); } catch (e) { data = {error: resp.statusText}; }
    if (!resp.ok) {
      const err = new Error(I18n.say(data && data.error_msg, (data && data.error) || resp.statusText));
      err.status = resp.status;
      err.said = data && data.error_msg;  // the server's words as a key and values
      err.data = data;
      throw err;
    }
    return data;
  }

  // The live state. EventSource reconnects by itself and sends Last-Event-ID, so the server
  // replays what was missed or sends a fresh snapshot.
  function live(onState, onEvent) {
    const dot = document.getElementById("conn");
    let source = null;
    function open() {
      source = new EventSource("/api/events");
      source.onopen = () => { if (dot) dot.className = "conn up"; connNote(null); };
      source.onerror = () => {
        if (dot) dot.className = "conn down";
        if (source.readyState === EventSource.CLOSED) {
          setTimeout(open, 3000);
          whyNotLive(onState);
        }
      };
      for (const name of ["snapshot", "state"]) {
        source.addEventListener(name, (ev) => {
          const state = JSON.parse(ev.data);
          state._received = performance.now();
          if (state.timer) state.timer._received = state._received;
          if (name === "snapshot") syncClock(state);
          onState(state, name);
          window.__companionSeen = {seq: state.seq, at: performance.timeOrigin + performance.now()};
        });
      }
      if (onEvent) {
        for (const name of ["move", "verdict", "bid", "round", "new_game"]) {
          source.addEventListener(name, (ev) => onEvent(name, JSON.parse(ev.data)));
        }
      }
    }
    open();
    window.addEventListener("pagehide", () => source && source.close());
  }

  // When the live stream cannot be opened the page says why (the server's own reason) and
  // shows the state it can still read, instead of an empty board.

  function connNote(text) {
    let box = document.getElementById("conn-msg");
    if (!text) { if (box) box.remove(); return; }
    if (!box) {
      box = el("div", {id: "conn-msg", class: "err conn-msg", role: "alert"});
      const main = document.querySelector("main");
      if (main) main.prepend(box);
    }
    box.textContent = text;
  }

  async function whyNotLive(onState) {
    let reason = null;
    const ask = new AbortController();
    try {
      const resp = await fetch("/api/events", {credentials: "same-origin", signal: ask.signal});
      if (!resp.ok) {
        let data = null;
        try { data = await resp.json(); } catch (e) { data = null; }
        reason = I18n.t("conn.refused") + ((data && data.error) || resp.statusText) + ".";
      }
    } catch (e) {
      reason = I18n.t("conn.offline");
    } finally {
      ask.abort();  // a stream that did open is not kept: EventSource opens its own
    }
    if (!reason) return;
    try {
      const state = await api("/api/state");
      state._received = performance.now();
      if (state.timer) state.timer._received = state._received;
      syncClock(state);
      onState(state, "snapshot");
      connNote(reason + I18n.t("conn.polling"));
    } catch (e) {
      connNote(reason);
    }
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  function setAdmin(on) {
    document.body.dataset.admin = on ? "1" : "0";
    const form = document.getElementById("unlock");
    if (form) form.classList.toggle("hidden", on);
  }

  // The server's wall clock as this page sees it, taken from each fresh snapshot (a page's
  // first state): a running timer's deadline then reads the same on every page, however late
  // it was loaded, and an event replayed after a reconnect cannot bring back old sand.
  let clockOffset = null;  // server seconds minus this page's seconds
  function syncClock(state) {
    if (state && state.timer && typeof state.timer.server_time === "number") {
      clockOffset = state.timer.server_time - Date.now() / 1000;
    }
  }

  function timerRemaining(timer) {
    if (!timer) return null;
    if (!timer.running) return timer.remaining;
    if (typeof timer.deadline === "number" && clockOffset !== null) {
      // (never more than the hourglass holds: a page that heard the server's clock late
      // would otherwise read 10:01 of a 10:00 hourglass)
      const left = Math.max(0, timer.deadline - (Date.now() / 1000 + clockOffset));
      return typeof timer.total === "number" && timer.total > 0 ? Math.min(timer.total, left) : left;
    }
    const elapsed = (performance.now() - timer._received) / 1000;
    return Math.max(0, timer.remaining - elapsed);
  }

  function fmtTime(s) {
    if (s === null || s === undefined) return "–";
    const t = Math.ceil(s);
    return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
  }

  function targetText(t) {
    if (!t) return I18n.t("target.none");
    // the chip as the players see it on the centre piece (cell names are not on the board)
    if (t.shape === "vortex") return I18n.t("target.vortex");
    if (t.color && t.shape) return I18n.t("target.chip", {chip: I18n.chip(t)});
    return I18n.t("target.robot", {cell: t.cell, robot: I18n.t(`robot.${t.robot || "any"}`)});
  }

  // "to the green circle": the end of "Find a route …"
  function targetTo(t) {
    if (!t) return "";
    if (t.shape === "vortex") return I18n.t("to.vortex");
    if (t.color && t.shape) return I18n.t(`to.${t.color}.${t.shape}`);
    return I18n.t("to.cell", {cell: t.cell, robot: I18n.t(`robot.${t.robot || "any"}`)});
  }

  function playerName(state, seat) {
    const p = (state.players || []).find((q) => q.seat === seat);
    return p ? p.name : I18n.t("seat", {n: seat + 1});
  }

  function names(list) {
    if (list.length <= 1) return list.join("");
    return list.slice(0, -1).join(", ") + I18n.t("and") + list[list.length - 1];
  }

  // The headline of the classic game, in the players' words: what is happening and what to
  // do now ("Find a route to the green circle", "Anna bids 6 — 38 s left to go lower").
  function headline(s, left) {
    const t = I18n.t;
    const lead = (s.bids || []).find((b) => b.seat === s.leader) || (s.bids || []).find((b) => !b.out);
    const d = s.demonstrating;
    switch (s.phase) {
      case "setup": return t("head.setup");
      case "idle": return t("head.reveal_first");
      case "bidding":
        if (lead) return t("head.lead_stopped", {name: lead.name, moves: I18n.tn("moves", lead.moves)});
        return t(s.solo ? "head.find_solo" : "head.find", {to: targetTo(s.target)});
      case "timer": {
        const time = I18n.clock(left);  // "10:00", "38 s": as the hourglass reads
        if (!lead) return t("head.no_bid", {time});
        return t("head.lead", {name: lead.name, moves: I18n.tn("moves", lead.moves), time});
      }
      case "demonstrating":
        if (!d) return t("head.waiting");
        if (d.restoring) return t("head.restoring", {name: d.name});
        return I18n.tn("head.shows", d.bid, {name: d.name});
      case "round_over": {
        const v = s.verdict;
        if (v && v.result === "success") return verdictText(s);
        return t((s.bids || []).length ? "head.nobody" : "head.no_bids");
      }
      case "game_over": {
        const w = (s.winners || []).map((seat) => playerName(s, seat));
        if (!w.length) return t("head.game_over_none");
        return t(w.length > 1 ? "head.game_over_many" : "head.game_over", {names: names(w)});
      }
      default: return t("head.waiting");
    }
  }

  // The verdict of the last demonstration ("Ben did it in 6 — +1 chip").
  function verdictText(s) {
    const v = s.verdict;
    if (!v) return "";
    const name = v.name || playerName(s, v.seat);
    const key = ["success", "over_bid", "illegal", "incomplete", "gave_up"].includes(v.result) ? v.result : "incomplete";
    return I18n.t(`verdict.${key}`, {name, moves: v.moves ?? v.bid ?? ""});
  }

  // the game's own reason, where the verdict alone does not say what went wrong (a rule broken,
  // a route that missed); over a bid or given up needs no more words
  function needsWhy(v) {
    return !!(v && v.reason && ["illegal", "incomplete", "failure"].includes(v.result));
  }

  document.addEventListener("DOMContentLoaded", () => {
    I18n.apply();
    const pickBox = document.getElementById("lang-pick");
    if (pickBox) pickBox.addEventListener("change", () => I18n.set(pickBox.value, true));
    const form = document.getElementById("unlock");
    if (!form) return;
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const err = document.getElementById("unlock-err");
      try {
        await api("/api/unlock", {pin: document.getElementById("pin-input").value.trim()});
        err.textContent = "";
        setAdmin(true);
        document.dispatchEvent(new Event("companion:unlocked"));
      } catch (e) {
        err.textContent = e.message;
      }
    });
  });

  // The camera's open question (state.question: each robot seen where, believed where) in
  // ``box``: "blue seen on k10 — is that right?" with "Yes" and "No, it stands on c2" for
  // each robot. ``mine``: this screen's seat (null: the main screen), ``send(robots)`` posts
  // the answer once every robot asked about is answered (an arrival held for a second look
  // is judged on all its readings together). The demonstrator's own phone is told the others
  // answer (unless she plays alone).
  const chosen = new WeakMap();  // box → {key: the question, answers: robot → true/false}
  function renderQuestion(box, s, mine, send) {
    const q = s.question;
    box.classList.toggle("hidden", !q);
    box.replaceChildren();
    if (!q) return;
    box.append(el("h2", {text: I18n.t("answer.title")}));
    if (mine !== null && mine === q.seat && !q.solo) {
      box.append(el("p", {class: "hint", text: I18n.t("answer.demonstrator")}));
      return;
    }
    const key = JSON.stringify(q.robots);
    if (!chosen.has(box) || chosen.get(box).key !== key) chosen.set(box, {key, answers: {}});
    const answers = chosen.get(box).answers;
    const pick = (robot, yes) => {
      answers[robot] = yes;
      if (q.robots.every((r) => r.robot in answers)) send(Object.assign({}, answers));
      else renderQuestion(box, s, mine, send);
    };
    for (const r of q.robots) {
      const said = I18n.t("answer.seen", {robot: I18n.t(`color.${r.robot}`), cell: r.seen});
      const yes = el("button", {type: "button", class: "answer-yes", "data-robot": r.robot, text: I18n.t("answer.yes")});
      const no = el("button", {type: "button", class: "answer-no", "data-robot": r.robot, text: I18n.t("answer.no", {cell: r.believed})});
      if (r.robot in answers) (answers[r.robot] ? yes : no).setAttribute("aria-pressed", "true");
      yes.addEventListener("click", () => pick(r.robot, true));
      no.addEventListener("click", () => pick(r.robot, false));
      box.append(el("div", {class: "answer", "data-robot": r.robot},
        el("p", {class: "answer-said", text: said.charAt(0).toUpperCase() + said.slice(1)}),
        el("div", {class: "row"}, yes, no)));
    }
  }

  return {api, live, el, setAdmin, timerRemaining, syncClock, fmtTime, targetText, targetTo,
    playerName, names, csrf, headline, verdictText, needsWhy, renderQuestion,
    follow: I18n.follow, t: I18n.t, tn: I18n.tn};
})();
