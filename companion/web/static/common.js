// Shared by every page: the CSRF-protected JSON calls, the live event stream, the PIN unlock.
"use strict";

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
      const err = new Error((data && data.error) || resp.statusText);
      err.status = resp.status;
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
  const CONN_WORDS = {
    refused: "Live updates are not available: ",
    offline: "The table cannot be reached; trying again…",
    polling: " The page refreshes every few seconds meanwhile.",
  };

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
        reason = CONN_WORDS.refused + ((data && data.error) || resp.statusText) + ".";
      }
    } catch (e) {
      reason = CONN_WORDS.offline;
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
      connNote(reason + CONN_WORDS.polling);
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
      return Math.max(0, timer.deadline - (Date.now() / 1000 + clockOffset));
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
    if (!t) return "no chip revealed";
    if (t.shape === "vortex") return "the vortex (any robot)";
    if (t.color && t.shape) return `${t.color} ${t.shape} at ${t.cell}`;
    return `${t.cell} for ${t.robot}`;
  }

  function playerName(state, seat) {
    const p = (state.players || []).find((q) => q.seat === seat);
    return p ? p.name : `seat ${seat + 1}`;
  }

  document.addEventListener("DOMContentLoaded", () => {
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

  return {api, live, el, setAdmin, timerRemaining, syncClock, fmtTime, targetText, playerName,
    csrf};
})();
