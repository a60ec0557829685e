"""The page as players see it: event-to-screen latency over many open pages, page load time, and
the memory of the running companion.

The real ``companion run`` (simulated table, its own journal in a temporary directory) is started
on a free loopback port; one headless Chromium opens ``--clients`` pages, each in its own browser
context: the table page, then phones joined to seats 1..8 as bid pads (more clients open further
table pages). A game of eight players is set up and a chip revealed over the same HTTP API the
page uses (PIN, CSRF token, player tokens).

Latency: for each event a bid is posted for a seat; each page records, with a MutationObserver,
the moment its ``#bids`` list first shows that player's new number (``performance.timeOrigin +
performance.now()``). The page clock is tied to Python's ``time.time()`` per page by the
round trip with the smallest delay (the error is at most half that round trip, reported as
``clock_err_ms``). Latency runs from just before the POST leaves to that moment.

Load: a fresh context per load (nothing cached), timed from ``goto`` to the ``load`` event and to
the first state from the event stream rendered (``window.__companionSeen``).

Memory: ``VmRSS`` of the companion process before any page, with all pages open, after the
events, and its peak (``VmHWM``).

``companion bench web [--clients N] [--events N] [--loads N] [--out PATH]``
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from . import write_report

CHROMIUM = Path("/usr/bin/chromium")
PIN = "246813"
SEATS = 8
GOAL_MEDIAN_MS = 100.0
WAIT_MS = 15_000
START_TIMEOUT = 60.0
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}

# Watches the bid list for one player's number; the first matching mutation stamps the time.
WATCH_JS = """([name, moves]) => {
  window.__hit = null;
  const shows = () => [...document.querySelectorAll('#bids li')].some((li) => {
    const n = li.querySelector('.bid-name'), m = li.querySelector('.bid-moves');
    return n && m && n.textContent === name && m.textContent === moves;
  });
  if (window.__obs) window.__obs.disconnect();
  if (shows()) { window.__hit = -1; return; }
  const list = document.getElementById('bids');
  window.__obs = new MutationObserver(() => {
    if (window.__hit === null && shows()) {
      window.__hit = performance.timeOrigin + performance.now();
      window.__obs.disconnect();
    }
  });
  window.__obs.observe(list, {childList: true, subtree: true, characterData: true});
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in kB."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "median_ms": statistics.median(values),
            "p90_ms": pct(values, 0.9), "max_ms": max(values), "min_ms": min(values)}


class Companion:
    """``companion run`` on the simulated table, in its own process; always stopped."""

    def __init__(self, db: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--camera", "sim", "--host",
             "127.0.0.1", "--port", str(self.port), "--db", str(db), "--pin", PIN, "--quiet"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self._ready = threading.Event()
        # A thread reads the output (selecting on a buffered pipe could miss lines already read)
        threading.Thread(target=self._drain, daemon=True).start()
        if not self._ready.wait(START_TIMEOUT) or self.proc.poll() is not None:
            self.stop()
            raise RuntimeError("companion run did not start:\n" + "".join(self.output))

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if "Ctrl-C" in line:
                self._ready.set()
        self._ready.set()  # ended: the caller sees the process gone

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


class Api:
    """A scripted client of the server, with cookies and the CSRF token as a browser has."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.opener.open(base + "/", timeout=10).read().decode()
        found = re.search(r'name="csrf-token" content="([^"]+)"', page)
        if not found:
            raise RuntimeError("the table page has no CSRF token")
        self.csrf = found.group(1)

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-CSRF-Token": self.csrf, **(headers or {})})
        return json.loads(self.opener.open(req, timeout=10).read())

    def get(self, path: str) -> Any:
        return json.loads(self.opener.open(self.base + path, timeout=10).read())


def clock_offset(page: Any) -> tuple[float, float]:
    """(page epoch ms - Python epoch ms, error bound ms) from the tightest of a few round trips."""
    best: tuple[float, float] | None = None
    for _ in range(7):
        t0 = time.time() * 1000
        p = page.evaluate("performance.timeOrigin + performance.now()")
        t1 = time.time() * 1000
        rtt = t1 - t0
        if best is None or rtt / 2 < best[1]:
            best = (p - (t0 + t1) / 2, rtt / 2)
    assert best is not None
    return best


def measure_loads(browser: Any, api: Api, loads: int) -> dict[str, Any]:
    """Cold loads of the table page. A closed page's event stream holds its slot on the server
    until the next write to it fails, so after each load the dial is turned (the table
    republishes its state) to let the server notice and free it."""
    url = api.base
    to_load: list[float] = []
    to_state: list[float] = []
    for _ in range(loads):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        try:
            page = ctx.new_page()
            t0 = time.monotonic()
            page.goto(url + "/", wait_until="load", timeout=WAIT_MS)
            t1 = time.monotonic()
            page.wait_for_function("window.__companionSeen !== undefined", timeout=WAIT_MS,
                                   polling="raf")
            t2 = time.monotonic()
        finally:
            ctx.close()
        api.post("/api/buttons/dial", {"action": "turn", "steps": 1})
        to_load.append((t1 - t0) * 1000)
        to_state.append((t2 - t0) * 1000)
    return {"to_load": summary(to_load), "to_first_state": summary(to_state)}


def measure(clients: int, events: int, loads: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        companion = Companion(Path(tmp) / "journal.db")
        try:
            pid = companion.proc.pid
            memory = {"started": rss_kb(pid)}
            api = Api(companion.url)
            api.post("/api/unlock", {"pin": PIN})
            names = [f"P{i + 1}" for i in range(SEATS)]
            api.post("/api/setup", {"players": names,
                                    "rules": {"timer_seconds": 3600, "no_bid_seconds": 3600}})
            api.post("/api/command", {"type": "reveal"})
            links = [link["url"] for link in api.get("/api/join-links")]
            tokens = []
            for seat, link in enumerate(links):
                code = link.split("code=")[1]
                tokens.append(Api(companion.url).post(
                    "/api/join", {"seat": seat, "code": code})["token"])

            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True,
                    args=["--no-sandbox", "--disable-background-networking"])
                try:
                    load = measure_loads(browser, api, loads)
                    memory["before_clients"] = rss_kb(pid)
                    pages = []
                    kinds = []
                    for i in range(clients):
                        phone = 1 <= i <= len(links)
                        opts = dict(PHONE) if phone else {"viewport": {"width": 1280,
                                                                        "height": 900}}
                        page = browser.new_context(bypass_csp=True, **opts).new_page()
                        if phone:
                            page.goto(links[i - 1], timeout=WAIT_MS)
                            page.wait_for_selector(f"#who:has-text(\"{names[i - 1]}'s bid pad\")",
                                                   timeout=WAIT_MS)
                        else:
                            page.goto(companion.url + "/", timeout=WAIT_MS)
                        page.wait_for_function("window.__companionSeen !== undefined",
                                               timeout=WAIT_MS)
                        pages.append(page)
                        kinds.append("phone" if phone else "table")
                    memory["with_clients"] = rss_kb(pid)
                    offsets = [clock_offset(p) for p in pages]

                    dom: list[float] = []
                    seen_py: list[float] = []
                    posts: list[float] = []
                    for k in range(events):
                        seat, moves = k % SEATS, 99 - k // SEATS
                        for p in pages:
                            p.evaluate(WATCH_JS, [names[seat], str(moves)])
                        t0 = time.time() * 1000
                        m0 = time.monotonic()
                        api_out = api.post("/api/bid", {"moves": moves},
                                           {"X-Player-Token": tokens[seat]})
                        posts.append((time.monotonic() - m0) * 1000)
                        if not api_out.get("ok"):
                            raise RuntimeError(f"bid {moves} for seat {seat} refused: {api_out}")
                        for p, (off, _) in zip(pages, offsets, strict=True):
                            p.wait_for_function("window.__hit !== null", timeout=WAIT_MS)
                            seen_py.append((time.monotonic() - m0) * 1000)
                            hit = p.evaluate("window.__hit")
                            if hit == -1:  # already on screen when the watch was set
                                raise RuntimeError("the bid was on screen before it was posted")
                            dom.append(hit - off - t0)
                    memory["after_events"] = rss_kb(pid)
                finally:
                    browser.close()
        finally:
            companion.stop()
    return {
        "clients": {"total": clients, "table_pages": kinds.count("table"),
                    "phones": kinds.count("phone")},
        "events": events,
        "latency_dom": summary(dom),
        "latency_seen_by_driver": summary(seen_py),
        "post_round_trip": summary(posts),
        "clock_err_ms": max(err for _, err in offsets),
        "load": load,
        "memory_kb": memory,
    }


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench web", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8, help="open pages (8)")
    parser.add_argument("--events", type=int, default=40, help="bids posted (40)")
    parser.add_argument("--loads", type=int, default=5, help="cold page loads timed (5)")
    parser.add_argument("--out", default="bench-web.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 11:
        parser.error("--clients: from 1 to 11 (the server holds 12 event streams)")
    if not 1 <= args.events <= 400:
        parser.error("--events: from 1 to 400")
    if not 1 <= args.loads <= 50:
        parser.error("--loads: from 1 to 50")
    if not CHROMIUM.exists():
        print(f"bench web: skipped, needs Chromium at {CHROMIUM} (apt-get install -y chromium)",
              file=sys.stderr)
        return 2

    r = measure(args.clients, args.events, args.loads)
    c = r["clients"]
    print(f"web: event-to-screen latency, {r['events']} bids x {c['total']} pages "
          f"({c['table_pages']} table, {c['phones']} phones) in one headless Chromium "
          f"(goal: median ≤ {GOAL_MEDIAN_MS:g} ms)")
    print(f"{'measure':<34} {'n':>5} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    rows = [("post → DOM shows bid (per page)", r["latency_dom"]),
            ("post → driver sees it (upper)", r["latency_seen_by_driver"]),
            ("bid POST round trip", r["post_round_trip"]),
            ("page load: goto → load", r["load"]["to_load"]),
            ("page load: goto → first state", r["load"]["to_first_state"])]
    for name, s in rows:
        print(f"{name:<34} {s['n']:>5} {s['median_ms']:>10.1f} {s['p90_ms']:>8.1f} "
              f"{s['max_ms']:>8.1f}")
    print(f"page clock tie error ≤ {r['clock_err_ms']:.2f} ms")
    m = r["memory_kb"]
    print("companion process memory (MB)")
    print(f"{'started':>10} {'no pages':>10} {'pages open':>10} {'after':>10} {'peak':>10}")
    print(f"{m['started']['VmRSS'] / 1024:>10.1f} {m['before_clients']['VmRSS'] / 1024:>10.1f} "
          f"{m['with_clients']['VmRSS'] / 1024:>10.1f} {m['after_events']['VmRSS'] / 1024:>10.1f} "
          f"{m['after_events']['VmHWM'] / 1024:>10.1f}")
    met = r["latency_dom"]["median_ms"] <= GOAL_MEDIAN_MS
    print(f"  latency_median   {'ok' if met else 'MISSED'}")
    report = {"benchmark": "web", "goal": {"median_ms": GOAL_MEDIAN_MS}, "met": met,
              "machine": {"python": platform.python_version(), "processor": platform.machine()},
              **r}
    return write_report(args.out, report, 0 if met else 1)
