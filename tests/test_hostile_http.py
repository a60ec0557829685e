"""Hostile input over the whole HTTP API: hypothesis generates the bodies, headers (non-ASCII
bytes included), path segments and query strings of requests to every route of the real app
(the table loop, its journal and the simulated table behind it). Not one answer may be a 5xx,
and nothing may be logged as an error (a traceback). The number of requests tried per route is
printed (``pytest -s``)."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_web import PIN

from companion.micro import example_layout
from companion.web import create_app

FIELDS = ["seat", "code", "moves", "type", "pin", "players", "game", "preset", "rules", "tiles",
          "layout", "options", "first_roller", "chip", "success", "reason", "move", "space",
          "spaces", "start", "target", "via", "robot", "direction", "action", "steps",
          "corners", "rows", "sections", "rotations", "name", "replace", "to", "confirm",
          "award", "revoke", "bid", "timer", "robots", "snapshot", "board", "new", "current"]
COMMANDS = ["reveal", "undo", "start_timer", "done", "give_up", "verdict", "correct", "move",
            "roll", "reroll", "place", "land", "bid", "setup", "tick", "resume", "new_game"]
# Routes whose work is slow (a camera picture rendered or read) get fewer tries.
SLOW = {"/api/camera.jpg", "/api/layouts/read", "/api/calibrate/colors", "/api/detected"}

header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=40)
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
           | st.sampled_from(["ééé", "\u202e", "\x00", "pink6", "blue up", "red", "4B",
                              PIN, "micro-robots", "ricochet-robots", "Kitchen table"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=5)
                      | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)
objects = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8),
                          values | st.sampled_from(COMMANDS), max_size=6)
bodies = (objects.map(lambda d: ("application/json", json.dumps(d).encode()))
          | values.map(lambda v: ("application/json", json.dumps(v).encode()))
          | st.tuples(st.sampled_from(["application/json", "text/plain",
                                       "application/x-www-form-urlencoded", ""]),
                      st.binary(max_size=300)))
segments = st.text(max_size=24) | st.sampled_from(["0", "1", "7", "-1", "99999999999", "done",
                                                   "give_up", "land", "start", "bid-0",
                                                   "dial", "Kitchen table", "..", "%00"])


@pytest.fixture
def app(sim_table):
    """The simulated table (conftest's), its stream beating faster."""
    return create_app(sim_table, {"PUBLIC_URL": "http://table.local:8000/", "SSE_HEARTBEAT": 0.1})


def client(app, unlock: bool):
    c = app.test_client()
    page = c.get("/", environ_base={"REMOTE_ADDR": "192.168.1.23"})
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
    if unlock:
        r = c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": csrf},
                   environ_base={"REMOTE_ADDR": "192.168.1.23"})
        assert r.status_code == 200
    return c, csrf


def routes(app) -> list[tuple[str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            out.append((rule.rule, method))
    return sorted(out)


def fill(rule: str, parts: list[str]) -> str:
    """The route with each ``<...>`` variable replaced by a generated segment."""
    it = iter(parts)
    return re.sub(r"<[^>]+>", lambda m: quote(next(it, "x"), safe=""), rule)


@pytest.mark.slow
def test_no_request_to_any_route_gets_a_server_error(app, caplog):
    caplog.set_level(logging.ERROR)
    admin, admin_csrf = client(app, unlock=True)
    anon, anon_csrf = client(app, unlock=False)
    screen, screen_csrf = client(app, unlock=True)
    # a game in play, so the routes reach the game's own checks
    for path, body in (("/api/layouts", {"name": "Kitchen table", "rows": [
            [s.name for s in row] for row in example_layout().rows]}),
            ("/api/setup", {"players": ["Ann", "Ben"]}), ("/api/command", {"type": "reveal"})):
        r = screen.post(path, json=body, headers={"X-CSRF-Token": screen_csrf},
                        environ_base={"REMOTE_ADDR": "192.168.1.23"})
        assert r.status_code == 200, r.json
    table_routes = routes(app)
    tried: Counter[str] = Counter()
    errors: list[str] = []

    @settings(max_examples=1500, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(route=st.sampled_from(table_routes), who=st.sampled_from(["admin", "anon"]),
           parts=st.lists(segments, min_size=2, max_size=2),
           query=st.dictionaries(st.text(max_size=8), st.text(max_size=12), max_size=3),
           body=bodies,
           csrf=st.sampled_from(["good", "none"]) | header_text,
           player=st.none() | header_text, pin=st.none() | header_text,
           origin=st.none() | header_text, last=st.none() | header_text)
    def hit(route, who, parts, query, body, csrf, player, pin, origin, last):
        rule, method = route
        if rule in SLOW and tried[f"{method} {rule}"] >= 15:
            return
        send(route, who, parts, query, body, csrf, player, pin, origin, last)

    def send(route, who, parts, query, body, csrf, player, pin, origin, last):
        rule, method = route
        c, token = (admin, admin_csrf) if who == "admin" else (anon, anon_csrf)
        headers = {}
        if csrf == "good":
            headers["X-CSRF-Token"] = token
        elif csrf != "none":
            headers["X-CSRF-Token"] = csrf
        for name, value in (("X-Player-Token", player), ("X-Table-Pin", pin),
                            ("Origin", origin), ("Last-Event-ID", last)):
            if value is not None:
                headers[name] = value
        path = fill(rule, parts)
        if query:
            path += "?" + urlencode(query)
        kind, data = body
        kw = {"headers": headers, "environ_base": {"REMOTE_ADDR": "192.168.1.23"}}
        if method == "POST":
            kw.update(data=data, content_type=kind or None)
        resp = c.open(path, method=method, buffered=False, **kw)
        try:
            tried[f"{method} {rule}"] += 1
            if resp.status_code >= 500:
                errors.append(f"{method} {path} {headers} {data[:80]!r}: {resp.status_code} "
                              f"{resp.get_data(as_text=True)[:200]}")
        finally:
            resp.close()

    # every route at least once with a stranger's and a bad-token request, whatever the
    # generated examples below happen to favour (their mix differs from one run to another)
    for route in table_routes:
        for who, csrf in (("anon", "none"), ("admin", "good")):
            send(route, who, ["x", "é"], {}, ("application/json", b"{}"), csrf, "é", None,
                 None, None)
    hit()
    # and the cases the issue found, by name
    for headers in ({"X-CSRF-Token": "é"}, {"X-CSRF-Token": admin_csrf, "X-Player-Token": "é"}):
        resp = admin.post("/api/bid", json={"moves": 3}, headers=headers)
        tried["POST /api/bid"] += 1
        assert resp.status_code == 403, resp.get_data(as_text=True)
    resp = anon.post("/api/join", json={"seat": 0, "code": "ééé"},
                     headers={"X-CSRF-Token": anon_csrf})
    tried["POST /api/join"] += 1
    assert resp.status_code == 403 and "join code" in resp.json["error"]

    print(f"\n{'route':45} requests")
    for rule, method in table_routes:
        print(f"{method + ' ' + rule:45} {tried[f'{method} {rule}']:8}")
    print(f"{'all':45} {sum(tried.values()):8}   5xx: {len(errors)}   "
          f"tracebacks: {len(caplog.records)}")
    assert not errors, "\n".join(errors[:10])
    assert not caplog.records, [r.getMessage() for r in caplog.records[:5]]
    assert all(tried[f"{method} {rule}"] > 0 for rule, method in table_routes), tried


def test_raw_non_ascii_header_bytes_on_a_real_server_are_refused_not_crashed(app, caplog):
    """The same through waitress on a socket: header values holding any byte 0x80-0xff (as a
    hostile client sends them) and the issue's join code."""
    import http.client
    import random

    from companion.web.serve import serve_in_thread

    caplog.set_level(logging.ERROR)
    server, base = serve_in_thread(app)
    port = server.effective_port
    rng = random.Random(15)
    statuses: Counter[int] = Counter()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/")
        page = conn.getresponse()
        cookie = page.getheader("Set-Cookie").split(";")[0]
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.read().decode()).group(1)
        cases = [("/api/join", {"X-CSRF-Token": csrf}, {"seat": 0, "code": "ééé"})]
        for _ in range(120):
            junk = bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randrange(1, 12)))
            name = rng.choice(["X-CSRF-Token", "X-Player-Token", "X-Table-Pin"])
            headers = {"X-CSRF-Token": csrf, name: junk.decode("latin-1")}
            path = rng.choice(["/api/bid", "/api/call", "/api/player/done", "/api/command",
                               "/api/unlock", "/api/join", "/api/setup"])
            cases.append((path, headers, {"moves": 3, "seat": 0, "code": "x", "pin": "1"}))
        for path, headers, body in cases:
            conn.request("POST", path, body=json.dumps(body).encode(),
                         headers={"Content-Type": "application/json", "Cookie": cookie,
                                  **headers})
            resp = conn.getresponse()
            resp.read()
            statuses[resp.status] += 1
    finally:
        server.close()
    print(f"\nraw header bytes over a socket: {sum(statuses.values())} requests, "
          f"statuses {dict(sorted(statuses.items()))}")
    assert all(code < 500 for code in statuses), statuses
    assert not caplog.records, [r.getMessage() for r in caplog.records[:5]]
