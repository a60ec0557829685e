"""The page and its API through Flask's test client: every route, who may call it, and hostile
input (wrong token, missing PIN, malformed JSON, oversized body, a bid for another player):
always a 4xx with a JSON reason, and the game unchanged."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from companion.gpio import Hardware, PinMap
from companion.store import Store
from companion.table import CameraFeed, SimWorld, Table
from companion.web import create_app

PIN = "246810"
REMOTE = {"REMOTE_ADDR": "192.168.1.23"}  # a phone on the table's network


@pytest.fixture
def table(tmp_path, factory):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=None,
              pin=PIN, simulated=True)
    t.sim = SimWorld()
    t.attach_camera(CameraFeed(t, "sim", sim=t.sim))
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"), clock=t.now,
                               pin_factory=factory))
    t.start()
    yield t
    t.stop()


@pytest.fixture
def app(table):
    return create_app(table, {"PUBLIC_URL": "http://table.local:8000/", "SSE_HEARTBEAT": 0.2})


class Browser:
    """A test client that reads its CSRF token from a page, like the page's scripts do."""

    def __init__(self, app, environ=None) -> None:
        self.client = app.test_client()
        self.environ = environ or {}
        page = self.client.get("/", environ_base=self.environ)
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)

    def get(self, path, **kw):
        return self.client.get(path, environ_base=self.environ, **kw)

    def post(self, path, body=None, headers=None, csrf=True, **kw):
        h = {"X-CSRF-Token": self.csrf} if csrf else {}
        h.update(headers or {})
        if body is not None and "data" not in kw:
            kw["json"] = body
        return self.client.post(path, headers=h, environ_base=self.environ, **kw)

    def unlock(self, pin=PIN):
        return self.post("/api/unlock", {"pin": pin})


@pytest.fixture
def screen(app):
    b = Browser(app)
    assert b.unlock().status_code == 200
    return b


@pytest.fixture
def game(screen, table):
    """A game of Ann and Ben with a chip revealed."""
    r = screen.post("/api/setup", {"players": ["Ann", "Ben"], "rules": {"timer_seconds": 30}})
    assert r.status_code == 200, r.json
    assert screen.post("/api/command", {"type": "reveal"}).status_code == 200
    return table


def join(app, screen, seat, environ=REMOTE):
    url = next(link["url"] for link in screen.get("/api/join-links").json if link["seat"] == seat)
    code = parse_qs(urlsplit(url).query)["code"][0]
    phone = Browser(app, environ)
    r = phone.post("/api/join", {"seat": seat, "code": code})
    assert r.status_code == 200, r.json
    phone.token = r.json["token"]
    return phone


def assert_refused(resp, status, words=""):
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True))
    assert resp.is_json and words.lower() in resp.json["error"].lower(), resp.json
    return resp


# ---------------------------------------------------------------- pages


@pytest.mark.parametrize("path", ["/", "/pad", "/setup", "/calibrate", "/history"])
def test_every_page_renders_with_a_csrf_token_and_a_strict_content_policy(app, path):
    r = app.test_client().get(path)
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert 'name="csrf-token"' in r.text
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"


def test_the_pin_shows_on_the_tables_own_screen_and_never_on_a_phone(app):
    assert PIN in app.test_client().get("/").text
    assert PIN not in app.test_client().get("/", environ_base=REMOTE).text
    assert PIN not in app.test_client().get("/pad", environ_base=REMOTE).text


def test_static_files_are_served_without_a_build_step(app):
    client = app.test_client()
    for name in ("app.css", "common.js", "board.js", "table.js", "pad.js", "setup.js",
                 "calibrate.js", "history.js"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_unknown_routes_and_methods_get_json_reasons(app):
    client = app.test_client()
    assert_refused(client.get("/nowhere"), 404, "no page at /nowhere")
    assert_refused(client.get("/api/nothing"), 404)
    assert_refused(client.get("/api/bid"), 405, "GET is not allowed")
    assert_refused(client.put("/api/bid"), 403, "CSRF")  # checked before anything else


# ---------------------------------------------------------------- reading


def test_state_is_the_published_view(app, game):
    s = app.test_client().get("/api/state").json
    assert s["phase"] == "bidding" and [p["name"] for p in s["players"]] == ["Ann", "Ben"]
    assert s["target"]["cell"] and s["board"]["size"] == 16 and s["sim"] is True


def _events(client, headers=None):
    r = client.get("/api/events", headers=headers or {}, buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"].startswith("no-cache")
    return r, iter(r.response)


def test_the_event_stream_starts_with_a_snapshot_then_sends_each_change(app, game, screen):
    r, chunks = _events(app.test_client())
    try:
        assert next(chunks).startswith(b"retry:")
        first = next(chunks)
        assert b"event: snapshot" in first and b'"phase":"bidding"' in first
        assert screen.post("/api/command", {"type": "start_timer"}).status_code == 200
        seen = b""
        while b'"phase":"timer"' not in seen:
            seen += next(chunks)
        assert b"event: state" in seen
    finally:
        r.close()


def test_a_reconnecting_page_gets_the_events_it_missed(app, game, screen, table):
    last = table.broker.last_id
    assert screen.post("/api/command", {"type": "start_timer"}).status_code == 200
    r, chunks = _events(app.test_client(), {"Last-Event-ID": str(last)})
    try:
        next(chunks)
        missed = next(chunks)
        assert missed.startswith(f"id: {last + 1}\n".encode())
        assert b"event: snapshot" not in missed
    finally:
        r.close()


def test_the_event_stream_sends_heartbeats_while_idle(app, game):
    r, chunks = _events(app.test_client())
    try:
        next(chunks), next(chunks)
        assert next(chunks) == b": ping\n\n"
    finally:
        r.close()


def test_history_lists_the_game_in_play(app, game):
    h = app.test_client().get("/api/history").json
    assert h["games"][-1]["players"] == ["Ann", "Ben"]
    assert h["games"][-1]["status"] == "playing"


# ---------------------------------------------------------------- csrf and the PIN


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(app, game, screen):
    before = game.view()["phase"]
    assert_refused(screen.post("/api/command", {"type": "start_timer"}, csrf=False), 403, "csrf")
    assert_refused(screen.post("/api/command", {"type": "start_timer"},
                               headers={"X-CSRF-Token": "forged"}), 403, "csrf")
    assert game.view()["phase"] == before


def test_a_post_from_another_site_is_refused(app, game, screen):
    assert_refused(screen.post("/api/command", {"type": "start_timer"},
                               headers={"Origin": "http://evil.example"}), 403, "cross-site")
    assert game.view()["phase"] == "bidding"


def test_referee_actions_need_the_pin(app, game):
    phone = Browser(app, REMOTE)
    for path, body in [("/api/command", {"type": "undo"}),
                       ("/api/setup", {"players": ["Eve"]}),
                       ("/api/calibrate", {"corners": [[0, 0], [100, 0], [100, 100], [0, 100]]}),
                       ("/api/calibrate/colors", {}),
                       ("/api/buttons/start", {"action": "press"}),
                       ("/api/sim/move", {"robot": "red", "direction": "up"})]:
        assert_refused(phone.post(path, body), 403, "PIN")
    for path in ("/api/camera.jpg", "/api/detected", "/api/join-links", "/api/setup-info",
                 "/api/qr/0.svg"):
        assert phone.get(path).status_code == 403, path
    assert [p["name"] for p in game.view()["players"]] == ["Ann", "Ben"]
    assert game.view()["phase"] == "bidding"


def test_a_wrong_pin_is_refused_and_guessing_is_rate_limited(app):
    phone = Browser(app, REMOTE)
    for _ in range(5):
        assert_refused(phone.unlock("000000"), 403, "wrong PIN")
    assert_refused(phone.unlock(PIN), 429, "too many")
    assert_refused(phone.post("/api/unlock", {"pin": ["x"]}), 400, "pin")


def test_the_pin_can_also_come_with_each_request(app, game):
    phone = Browser(app, REMOTE)
    r = phone.post("/api/command", {"type": "start_timer"}, headers={"X-Table-Pin": PIN})
    assert r.status_code == 200 and r.json["state"]["phase"] == "timer"


def test_locking_forgets_the_pin(app, game, screen):
    assert screen.post("/api/lock", {}).status_code == 200
    assert_refused(screen.post("/api/command", {"type": "undo"}), 403, "PIN")


# ---------------------------------------------------------------- phones


def test_a_phone_joins_with_its_seats_code_and_bids_for_its_player(app, game, screen):
    phone = join(app, screen, 1)
    r = phone.post("/api/bid", {"moves": 8}, headers={"X-Player-Token": phone.token})
    assert r.status_code == 200
    assert r.json["state"]["bids"] == [{"seat": 1, "name": "Ben", "moves": 8,
                                        "status": "waiting", "out": False}]


def test_a_wrong_join_code_gets_no_token(app, game):
    phone = Browser(app, REMOTE)
    assert_refused(phone.post("/api/join", {"seat": 0, "code": "guess"}), 403, "join code")
    assert_refused(phone.post("/api/join", {"seat": 9, "code": "x"}), 400, "seat")
    assert_refused(phone.post("/api/join", {"seat": "0", "code": "x"}), 400, "seat")


def test_a_join_code_for_an_empty_seat_is_refused(app, game, screen):
    from companion.web import api

    with app.test_request_context():
        code = api.join_code(5)
    assert_refused(Browser(app, REMOTE).post("/api/join", {"seat": 5, "code": code}), 409,
                   "no such player")


def test_a_bid_with_a_wrong_or_missing_token_is_refused(app, game):
    phone = Browser(app, REMOTE)
    assert_refused(phone.post("/api/bid", {"moves": 5}), 403, "token")
    assert_refused(phone.post("/api/bid", {"moves": 5}, headers={"X-Player-Token": "0" * 32}),
                   403, "token")
    assert game.view()["bids"] == []


def test_a_phone_cannot_bid_for_another_player(app, game, screen):
    phone = join(app, screen, 0)
    r = phone.post("/api/bid", {"moves": 3, "seat": 1}, headers={"X-Player-Token": phone.token})
    assert_refused(r, 403, "its own player")
    assert game.view()["bids"] == []


def test_a_token_from_an_earlier_game_no_longer_bids(app, game, screen):
    phone = join(app, screen, 0)
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
    assert screen.post("/api/command", {"type": "reveal"}).status_code == 200
    r = phone.post("/api/bid", {"moves": 3}, headers={"X-Player-Token": phone.token})
    assert_refused(r, 403, "token")


@pytest.mark.parametrize("body, status, words", [
    ({"moves": 0}, 400, "moves"),
    ({"moves": 100}, 400, "moves"),
    ({"moves": "7"}, 400, "moves"),
    ({"moves": True}, 400, "moves"),
    ({"moves": 7.5}, 400, "moves"),
    ({}, 400, "moves"),
])
def test_a_bad_bid_names_what_is_wrong(app, game, screen, body, status, words):
    phone = join(app, screen, 0)
    assert_refused(phone.post("/api/bid", body, headers={"X-Player-Token": phone.token}),
                   status, words)
    assert game.view()["bids"] == []


def test_malformed_json_and_a_wrong_content_type_are_refused(app, game, screen):
    phone = join(app, screen, 0)
    h = {"X-Player-Token": phone.token}
    assert_refused(phone.post("/api/bid", headers=h, data="{not json",
                              content_type="application/json"), 400, "JSON object")
    assert_refused(phone.post("/api/bid", headers=h, data="[1, 2]",
                              content_type="application/json"), 400, "JSON object")
    assert_refused(phone.post("/api/bid", headers=h, data="moves=3",
                              content_type="application/x-www-form-urlencoded"), 415, "JSON")
    assert game.view()["bids"] == []


def test_an_oversized_body_is_refused(app, game, screen):
    phone = join(app, screen, 0)
    big = json.dumps({"moves": 3, "pad": "x" * 200_000})
    r = phone.post("/api/bid", headers={"X-Player-Token": phone.token}, data=big,
                   content_type="application/json")
    assert_refused(r, 413, "too large")
    assert game.view()["bids"] == []


def test_a_bid_the_game_refuses_is_a_409_with_the_games_reason(app, game, screen):
    phone = join(app, screen, 0)
    h = {"X-Player-Token": phone.token}
    assert phone.post("/api/bid", {"moves": 6}, headers=h).status_code == 200
    assert_refused(phone.post("/api/bid", {"moves": 9}, headers=h), 409, "higher than her bid")
    assert [b["moves"] for b in game.view()["bids"]] == [6]


def test_only_the_demonstrating_player_can_say_done(app, game, screen):
    ann, ben = join(app, screen, 0), join(app, screen, 1)
    assert ann.post("/api/bid", {"moves": 4}, headers={"X-Player-Token": ann.token}
                    ).status_code == 200
    assert screen.post("/api/command", {"type": "correct", "timer": 0}).status_code == 200
    r = ben.post("/api/player/done", {}, headers={"X-Player-Token": ben.token})
    assert_refused(r, 409, "Ann's demonstration")
    assert_refused(ben.post("/api/player/done", {"seat": 0},
                            headers={"X-Player-Token": ben.token}), 403, "own player")
    assert_refused(ben.post("/api/player/dance", {}, headers={"X-Player-Token": ben.token}),
                   404, "unknown player action")
    r = ann.post("/api/player/give_up", {}, headers={"X-Player-Token": ann.token})
    assert r.status_code == 200 and r.json["state"]["verdict"]["result"] == "gave_up"


# ---------------------------------------------------------------- the referee


def test_setup_starts_a_new_game_with_the_chosen_rules_and_tiles(app, screen, table):
    r = screen.post("/api/setup", {"players": ["Ann", "Ben", "Cat"], "preset": "riogrande-2003",
                                   "rules": {"transparent_robot": True},
                                   "tiles": ["1A", "2A", "3A", "4A"]})
    assert r.status_code == 200, r.json
    s = r.json["state"]
    assert [p["name"] for p in s["players"]] == ["Ann", "Ben", "Cat"]
    assert s["board"]["tiles"] == ["1A", "2A", "3A", "4A"]
    assert "transparent" in s["robots"] and "silver" in s["robots"]
    info = screen.get("/api/setup-info").json
    assert info["players"] == ["Ann", "Ben", "Cat"] and "riogrande-2003" in info["presets"]
    assert {o["name"] for o in info["options"]} >= {"transparent_robot", "timer_seconds"}


@pytest.mark.parametrize("body, words", [
    ({"players": []}, "players"),
    ({"players": ["x" * 30]}, "players"),
    ({"players": "Ann"}, "players"),
    ({"players": ["Ann", "Ben"], "preset": "chess"}, "unknown edition"),
    ({"players": ["Ann", "Ben"], "rules": {"gravity": 2}}, "gravity"),
    ({"players": ["Ann", "Ben"], "rules": {"timer_seconds": -1}}, "timer_seconds"),
    ({"players": ["Ann", "Ben"], "tiles": ["1A", "1B", "2A", "3A"]}, "same board"),
    ({"players": ["Ann", "Ben"], "tiles": ["1A"]}, "tiles"),
    ({"players": ["Ann", "Ann"]}, "two players are called"),
])
def test_a_bad_setup_names_what_is_wrong_and_keeps_the_game(app, game, screen, body, words):
    r = screen.post("/api/setup", body)
    assert r.status_code in (400, 409)
    assert words.lower() in r.json["error"].lower(), r.json
    assert [p["name"] for p in game.view()["players"]] == ["Ann", "Ben"]
    assert game.view()["phase"] == "bidding"


def test_referee_commands_are_checked_before_the_game_sees_them(app, game, screen):
    assert_refused(screen.post("/api/command", {"type": "setup"}), 400, "type")
    assert_refused(screen.post("/api/command", {"type": "reveal", "hack": 1}), 400, "hack")
    assert_refused(screen.post("/api/command", {"type": "reveal"}), 409, "")
    assert screen.post("/api/command", {"type": "undo"}).status_code == 200
    assert game.view()["phase"] == "idle"


def test_a_referee_correction_is_recorded_as_the_referees(app, game, screen):
    r = screen.post("/api/command", {"type": "correct", "award": {"seat": 1}})
    assert r.status_code == 200, r.json
    assert [p["chips"] for p in game.view()["players"]] == [0, 1]


def test_join_links_and_qr_codes_for_each_seat(app, game, screen):
    links = screen.get("/api/join-links").json
    assert [link["seat"] for link in links] == [0, 1]
    assert links[0]["url"].startswith("http://table.local:8000/pad?seat=0&code=")
    r = app.test_client().get("/api/qr/1.svg")  # the table's own screen
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert_refused(app.test_client().get("/api/qr/99.svg"), 404, "seat")


# ---------------------------------------------------------------- camera and simulated table


def test_the_camera_snapshot_and_what_was_detected(app, game, screen):
    r = screen.get("/api/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    d = screen.get("/api/detected").json
    assert len(d["corners"]) == 4 and d["tiles"] == game.view()["board"]["tiles"]


@pytest.mark.parametrize("corners", [
    None, [[0, 0]] * 3, [[0, 0], [1, 0], [1, 1], "x"], [[0, 0], [5, 0], [5, 5], [0, 5]],
    [[0, 0], [900, 0], [900, 700], [0, -5]],
])
def test_bad_corners_are_refused(app, game, screen, corners):
    assert screen.post("/api/calibrate", {"corners": corners}).status_code == 400


def test_four_clicked_corners_are_kept(app, game, screen):
    corners = [[100, 80], [860, 90], [850, 640], [110, 630]]
    r = screen.post("/api/calibrate", {"corners": corners})
    assert r.status_code == 200
    assert screen.get("/api/detected").json is not None


def test_virtual_buttons_press_the_simulated_tables_buttons(app, screen, table):
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
    assert screen.post("/api/buttons/start", {"action": "press"}).status_code == 200
    from test_table import wait_state

    wait_state(table, lambda s: s["phase"] == "bidding")
    assert_refused(screen.post("/api/buttons/launch", {}), 404, "no button")
    assert_refused(screen.post("/api/buttons/start", {"action": "smash"}), 400, "action")
    assert_refused(screen.post("/api/buttons/dial", {"action": "turn", "steps": 99}), 400,
                   "steps")


def test_a_hand_slides_a_robot_on_the_simulated_table(app, game, screen, table):
    robots = game.view()["robots"]
    moved = None
    for d in ("up", "down", "left", "right"):
        r = screen.post("/api/sim/move", {"robot": "red", "direction": d})
        if r.status_code == 200:
            moved = r.json["robots"]["red"]
            break
    assert moved is not None and moved != robots["red"]
    assert_refused(screen.post("/api/sim/move", {"robot": "red", "direction": "sideways"}), 409,
                   "direction")
    assert_refused(screen.post("/api/sim/move", {"robot": 3, "direction": "up"}), 400, "robot")


def test_a_real_table_has_no_virtual_buttons_or_hand(tmp_path):
    t = Table(pin=PIN, simulated=False)
    t.start()
    try:
        b = Browser(create_app(t))
        b.unlock()
        assert_refused(b.post("/api/buttons/start", {}), 404, "simulated")
        assert_refused(b.post("/api/sim/move", {"robot": "red", "direction": "up"}), 404,
                       "simulated")
        assert_refused(b.get("/api/camera.jpg"), 503, "no camera")
    finally:
        t.stop()


# ---------------------------------------------------------------- never a 500

HOSTILE = [None, [], "x", 0, {"moves": {"$gt": 1}}, {"seat": -1}, {"type": None},
           {"players": [None]}, {"corners": [[1e309, 0]] * 4}, {"pin": None},
           {"robot": "red", "direction": None}, {"action": None}, {"code": None, "seat": 0}]
POSTS = ["/api/join", "/api/bid", "/api/player/done", "/api/unlock", "/api/command",
         "/api/setup", "/api/calibrate", "/api/calibrate/colors", "/api/buttons/start",
         "/api/buttons/bid-0", "/api/sim/move", "/api/lock"]


def test_hostile_bodies_on_every_post_route_never_cause_a_server_error(app, game, screen):
    phone = join(app, screen, 0)
    before = game.view()["bids"]
    for path in POSTS:
        for body in HOSTILE:
            for who in (screen, phone):
                r = who.post(path, data=json.dumps(body), content_type="application/json",
                             headers={"X-Player-Token": phone.token})
                assert r.status_code < 500, (path, body, r.status_code, r.get_data(True))
                assert r.is_json
    assert game.view()["bids"] == before
