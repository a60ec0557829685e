"""The page and its API through Flask's test client: every route, who may call it, and hostile
input (wrong token, missing PIN, malformed JSON, oversized body, a bid for another player):
always a 4xx with a JSON reason, and the game unchanged."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from companion import i18n
from companion.table import Table
from companion.web import create_app

PIN = "246810"  # the simulated table's (conftest.SIM_PIN)
REMOTE = {"REMOTE_ADDR": "192.168.1.23"}  # a phone on the table's network


@pytest.fixture
def table(sim_table):
    return sim_table


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
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"],
                                      "replace": True}).status_code == 200
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
    r = assert_refused(phone.post("/api/bid", {"moves": 9}, headers=h), 409,
                       "higher than her bid")
    # … and as its key and values, for the phone to say it in its own language
    said = r.json["error_msg"]
    assert said["key"] == "refuse.bid_higher"
    assert (said["args"]["bid"], said["args"]["previous"]) == (9, 6)
    assert i18n.render("de", said).endswith("das Gebot 9 ist höher als das eigene Gebot 6")
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
    ({"players": ["Ann", "Ann"], "replace": True}, "two players are called"),
    ({"players": ["Ann", "Ben"], "board": {"tiles": ["4B", "3B", "2B", "1A"]}},
     "board: not a field"),
    ({"players": ["Ann", "Ben"], "robots": {"red": "c2"}}, "robots: not a field"),
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


def test_four_clicked_corners_are_kept(app, game, screen, table):
    corners = [[100, 80], [860, 90], [850, 640], [110, 630]]
    r = screen.post("/api/calibrate", {"corners": corners})
    assert r.status_code == 200
    assert r.json["result"]["corners"] == corners
    # the camera reads the board from the clicked corners from now on, in the order given
    assert [list(c) for c in table.camera.corners] == corners
    assert screen.get("/api/detected").json["source"] == table.camera.spec


def test_virtual_buttons_press_the_simulated_tables_buttons(app, screen, table):
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
    assert screen.post("/api/buttons/start", {"action": "press"}).status_code == 200
    from conftest import wait_state

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
        assert_refused(b.get("/api/camera.jpg"), 409, "no camera")
    finally:
        t.stop()


# ---------------------------------------------------------------- never a 500

HOSTILE = [None, [], "x", 0, {"moves": {"$gt": 1}}, {"seat": -1}, {"type": None},
           {"players": [None]}, {"corners": [[1e309, 0]] * 4}, {"pin": None},
           {"robot": "red", "direction": None}, {"action": None}, {"code": None, "seat": 0}]
POSTS = ["/api/join", "/api/bid", "/api/player/done", "/api/unlock", "/api/command",
         "/api/setup", "/api/calibrate", "/api/calibrate/colors", "/api/buttons/start",
         "/api/buttons/bid-0", "/api/sim/move", "/api/lock"]


def never_a_server_error(app, screen, paths, bodies) -> None:
    """Every body on every path, from the screen and from a joined phone: a JSON 4xx."""
    phone = join(app, screen, 0)
    for path in paths:
        for body in bodies:
            for who in (screen, phone):
                r = who.post(path, data=json.dumps(body), content_type="application/json",
                             headers={"X-Player-Token": phone.token})
                assert r.status_code < 500, (path, body, r.status_code, r.get_data(True))
                assert r.is_json


def test_hostile_bodies_on_every_post_route_never_cause_a_server_error(app, game, screen):
    before = game.view()["bids"]
    never_a_server_error(app, screen, POSTS, HOSTILE)
    assert game.view()["bids"] == before


# ---------------------------------------------------------------- Micro Robots

from companion.micro import example_layout  # noqa: E402

EXAMPLE_ROWS = [[s.name for s in row] for row in example_layout().rows]
ROUTE = ["pink6", "white6", "red6", "red2", "white2"]


@pytest.fixture
def micro(screen, table):
    """A Micro Robots game of Ann, Ben and Cy on the saved rule-sheet board, a target placed."""
    r = screen.post("/api/layouts", {"name": "Kitchen table", "rows": EXAMPLE_ROWS})
    assert r.status_code == 200, r.json
    r = screen.post("/api/setup", {"game": "micro-robots", "players": ["Ann", "Ben", "Cy"],
                                   "layout": "Kitchen table", "options": {"stall_seconds": 180}})
    assert r.status_code == 200, r.json
    assert r.json["state"]["game"] == "micro-robots" and r.json["state"]["phase"] == "idle"
    r = screen.post("/api/command", {"type": "place", "start": "pink1", "target": "white2"})
    assert r.status_code == 200, r.json
    return table


def test_a_micro_round_from_a_phones_call_to_the_vp_chip(app, micro, screen):
    ben = join(app, screen, 1)
    h = {"X-Player-Token": ben.token}
    r = ben.post("/api/call", {"moves": 5}, headers=h)
    assert r.status_code == 200 and r.json["state"]["demonstrating"]["name"] == "Ben"
    for space in ROUTE[:3]:  # Ben taps his landings on his phone
        assert ben.post("/api/player/land", {"space": space}, headers=h).status_code == 200
    for space in ROUTE[3:]:  # the rest on the table screen
        assert screen.post("/api/command", {"type": "land", "space": space}).status_code == 200
    s = app.test_client().get("/api/state").json
    assert s["phase"] == "round_over" and s["verdict"]["result"] == "success"
    assert [p["vp"] for p in s["players"]] == [0, 1, 0] and s["chips_in_supply"] == 24
    assert s["last_round"]["shortest_route"] == ["pink1", *ROUTE]


def test_the_rounds_answer_never_reaches_a_phone_before_the_round_is_over(app, micro, screen):
    def answer_in(text: str) -> bool:
        return "shortest" in text or "every number from" in text or "lengths" in text

    phone = Browser(app, REMOTE)
    assert not answer_in(phone.get("/api/state").get_data(as_text=True))
    ann = join(app, screen, 0)
    assert ann.post("/api/call", {"moves": 2}, headers={"X-Player-Token": ann.token}
                    ).status_code == 200
    assert not answer_in(phone.get("/api/state").get_data(as_text=True))
    assert screen.post("/api/command", {"type": "give_up"}).status_code == 200
    assert answer_in(phone.get("/api/state").get_data(as_text=True))


def test_a_strangers_call_is_refused_and_a_phone_calls_only_for_its_player(app, micro, screen):
    stranger = Browser(app, REMOTE)
    assert_refused(stranger.post("/api/call", {"moves": 3}), 403, "token")
    assert_refused(stranger.post("/api/call", {"moves": 3}, headers={"X-Player-Token": "f" * 32}),
                   403, "token")
    ann = join(app, screen, 0)
    h = {"X-Player-Token": ann.token}
    assert_refused(ann.post("/api/call", {"moves": 3, "seat": 1}, headers=h), 403, "own player")
    for bad in (0, 100, "5", True, None):
        assert_refused(ann.post("/api/call", {"moves": bad}, headers=h), 400, "moves")
    assert micro.view()["phase"] == "round"
    ben = join(app, screen, 1)
    assert ben.post("/api/call", {"moves": 4}, headers={"X-Player-Token": ben.token}
                    ).status_code == 200
    assert_refused(ann.post("/api/call", {"moves": 3}, headers=h), 409, "Ben is demonstrating")
    # only the demonstrator taps landings from a phone
    assert_refused(ann.post("/api/player/land", {"space": "pink6"}, headers=h), 409,
                   "Ben's demonstration")
    assert micro.view()["demonstrating"]["landings"] == []


@pytest.mark.parametrize("body, status, words", [
    ({"type": "land"}, 409, "give 'space'"),
    ({"type": "land", "space": 6}, 400, "space"),
    ({"type": "land", "space": "x" * 200}, 400, "space"),
    ({"type": "land", "space": "purple 9"}, 409, "not a colour"),
    ({"type": "land", "space": "pink1"}, 409, "already stands on pink1"),
    ({"type": "land", "spaces": "pink6"}, 400, "spaces"),
    ({"type": "land", "spaces": [1, 2]}, 400, "spaces"),
    ({"type": "land", "spaces": []}, 400, "spaces"),
    ({"type": "land", "space": "pink6", "spaces": ["pink6"]}, 409, "give 'space'"),
])
def test_a_malformed_landing_is_refused_and_changes_nothing(app, micro, screen, body, status,
                                                              words):
    assert screen.post("/api/command", {"type": "verdict", "success": True}).status_code == 409
    ann = join(app, screen, 0)
    assert ann.post("/api/call", {"moves": 5}, headers={"X-Player-Token": ann.token}
                    ).status_code == 200
    assert_refused(screen.post("/api/command", body), status, words)
    assert micro.view()["demonstrating"]["landings"] == []


def test_an_illegal_landing_ends_the_demonstration_with_the_chip_penalty(app, micro, screen):
    ann = join(app, screen, 0)
    h = {"X-Player-Token": ann.token}
    assert ann.post("/api/call", {"moves": 5}, headers=h).status_code == 200
    for space in ROUTE:
        assert ann.post("/api/player/land", {"space": space}, headers=h).status_code == 200
    assert screen.post("/api/command", {"type": "roll"}).status_code == 200
    target = micro.view()["target"]
    assert ann.post("/api/call", {"moves": 3}, headers=h).status_code == 200
    from companion.micro import Space

    here, layout = Space.parse(micro.view()["robot"]), example_layout()
    bad = next(x.name for row in layout.rows for x in row  # a space no move reaches
               if x != here and x.name != target and layout.why_not(here, x))
    r = ann.post("/api/player/land", {"space": bad}, headers=h)
    assert r.status_code == 200
    s = r.json["state"]
    assert s["phase"] == "round_over" and s["verdict"]["result"] == "illegal"
    assert "move 1" in s["verdict"]["reason"] and s["verdict"]["chip_to"] == "Ben"
    assert [p["vp"] for p in s["players"]] == [0, 1, 0]


@pytest.mark.parametrize("body, words", [
    ({"game": "micro-robots", "players": ["Ann"]}, "2 to"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"]}, "choose a saved layout"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "layout": "Cellar"},
     "no layout called"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "layout": 7}, "layout"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"],
      "layout": {"rows": [["pink1"] * 6] * 6}}, "appears 36 times"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "layout": "Kitchen table",
      "options": {"stall_seconds": 2}}, "60 to 600"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "layout": "Kitchen table",
      "options": []}, "options"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "layout": "Kitchen table",
      "first_roller": 5}, "first_roller"),
    ({"game": "micro-robots", "players": ["Ann", "Ben"], "tiles": ["1A"]}, "tiles"),
    ({"game": "go", "players": ["Ann", "Ben"]}, "game"),
])
def test_a_bad_micro_setup_names_what_is_wrong_and_keeps_the_game(app, micro, screen, body,
                                                                  words):
    r = screen.post("/api/setup", body)
    assert_refused(r, 400, words)
    assert micro.view()["phase"] == "round" and micro.view()["target"] == "white2"


def test_layouts_are_checked_as_you_go_and_saved_renamed_and_deleted(app, screen, tmp_path):
    partial = [row[:] for row in EXAMPLE_ROWS]
    partial[0][0] = None
    partial[1][1] = "pink1"
    r = screen.post("/api/layouts/check", {"rows": partial})
    assert r.status_code == 200 and not r.json["complete"]
    assert "pink 1 appears twice (row 2 column 2, row 4 column 2)" in r.json["problems"]
    assert "1 space still to fill" in r.json["problems"]
    assert screen.post("/api/layouts/check", {"rows": EXAMPLE_ROWS}).json["complete"]
    # the four sections as printed, each turned: the board they make is checked the same way
    sections = [[row[c0:c0 + 3] for row in EXAMPLE_ROWS[r0:r0 + 3]]
                for r0, c0 in ((0, 0), (0, 3), (3, 3), (3, 0))]
    r = screen.post("/api/layouts/check", {"sections": sections, "rotations": [0, 0, 0, 0]})
    assert r.json["complete"] and r.json["rows"] == EXAMPLE_ROWS
    r = screen.post("/api/layouts/check", {"sections": sections, "rotations": [90, 0, 0, 45]})
    assert r.json["complete"] is False and any("45" in p for p in r.json["problems"])
    assert r.json["rows"][0][2] == EXAMPLE_ROWS[0][0]  # turned a quarter clockwise
    r = screen.post("/api/layouts", {"name": "Turned", "sections": sections,
                                     "rotations": [90, 0, 0, 0]})
    assert r.status_code == 200 and r.json["layout"]["rows"][0][2] == "green2"
    assert (tmp_path / "micro-layouts" / "turned.json").exists()
    assert_refused(screen.post("/api/layouts", {"name": "Turned", "rows": EXAMPLE_ROWS}), 409,
                   "already saved")
    assert screen.post("/api/layouts", {"name": "Turned", "rows": EXAMPLE_ROWS,
                                        "replace": True}).status_code == 200
    assert screen.get("/api/layouts/turned").json["rows"] == EXAMPLE_ROWS
    r = screen.post("/api/layouts/Turned/rename", {"to": "Attic"})
    assert [x["name"] for x in r.json["layouts"]] == ["Attic"]
    assert_refused(screen.get("/api/layouts/Turned"), 404, "no layout called")
    assert screen.post("/api/layouts/Attic/delete", {}).json["layouts"] == []
    assert_refused(screen.post("/api/layouts/Attic/delete", {}), 404, "no layout called")


@pytest.mark.parametrize("body, status, words", [
    ({"name": "x", "rows": [["pink1"] * 6] * 6}, 400, "appears 36 times"),
    ({"name": "x", "rows": [[1] * 6] * 6}, 400, "not a space"),
    ({"name": "x", "rows": "pink1"}, 400, "6 rows of 6"),
    ({"name": "x"}, 400, "either rows"),
    ({"name": "x", "rows": EXAMPLE_ROWS, "sections": []}, 400, "either rows"),
    ({"name": "", "rows": EXAMPLE_ROWS}, 400, "give the layout a name"),
    ({"name": ["x"], "rows": EXAMPLE_ROWS}, 400, "give the layout a name"),
    ({"name": "???", "rows": EXAMPLE_ROWS}, 400, "letters or digits"),
    ({"name": "x", "rows": EXAMPLE_ROWS, "colour": "red"}, 400, "colour"),
    ({"name": "x", "sections": [[["pink1"]]], "rotations": [0, 0, 0, 0]}, 400, "four 3×3"),
])
def test_a_bad_layout_names_what_is_wrong_and_saves_nothing(app, screen, tmp_path, body,
                                                            status, words):
    assert_refused(screen.post("/api/layouts", body), status, words)
    assert screen.get("/api/layouts").json["layouts"] == []


def test_layouts_need_the_pin(app):
    phone = Browser(app, REMOTE)
    for path in ("/api/layouts", "/api/layouts/x", "/api/layouts/proposal"):
        assert_refused(phone.get(path), 403, "PIN")
    for path in ("/api/layouts", "/api/layouts/check", "/api/layouts/x/rename",
                 "/api/layouts/x/delete", "/api/layouts/proposal/dismiss", "/api/sim/micro",
                 "/api/layouts/read"):
        assert_refused(phone.post(path, {"rows": EXAMPLE_ROWS, "name": "x"}), 403, "PIN")


def test_the_cameras_proposed_layout_is_confirmed_on_the_page(app, screen, table):
    assert_refused(screen.get("/api/layouts/proposal"), 404, "no layout")
    rows = [row[:] for row in EXAMPLE_ROWS]
    rows[2][2] = None
    table.propose_layout(rows, [[0.95] * 6] * 6)
    from conftest import wait_state

    wait_state(table, lambda s: s["proposal"])
    p = screen.get("/api/layouts/proposal").json
    assert p["rows"][2][2] is None and "1 space still to fill" in p["problems"]
    assert screen.get("/api/layouts").json["proposal"] is True
    assert screen.post("/api/layouts/proposal/dismiss", {}).status_code == 200
    assert screen.get("/api/layouts").json["proposal"] is False


def test_the_board_is_read_from_the_camera_for_the_user_to_confirm(app, micro, screen):
    r = screen.post("/api/layouts/read", {})
    assert r.status_code == 200, r.json
    assert r.json["rows"] == EXAMPLE_ROWS and r.json["problems"] == []
    assert r.json["robot"] == "pink1"  # the face under the robot follows from the others
    assert screen.get("/api/layouts/proposal").json["rows"] == EXAMPLE_ROWS
    assert screen.get("/api/layouts").json["proposal"] is True


def test_reading_a_micro_board_off_a_classic_table_says_why_not(app, screen, game):
    assert_refused(screen.post("/api/layouts/read", {}), 409, "cannot read a Micro Robots")
    assert screen.get("/api/layouts").json["proposal"] is False


def test_the_page_offers_the_chips_still_in_the_deck(app, screen, table):
    r = screen.post("/api/setup", {"players": ["Ann", "Ben"]})
    assert r.status_code == 200 and len(r.json["state"]["deck"]) == 17
    r = screen.post("/api/command", {"type": "reveal", "chip": "yellow square"})
    assert r.status_code == 200 and r.json["state"]["target"]["chip"] == "yellow square"
    assert "yellow square" not in r.json["state"]["deck"]


def test_colours_are_learned_from_the_camera_for_the_classic_game_only(app, screen, table):
    assert_refused(screen.post("/api/calibrate/colors", {}), 409, "set up a game first")
    assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
    r = screen.post("/api/calibrate/colors", {})
    assert r.status_code == 200, r.json
    assert {"red", "green", "blue", "yellow"} <= set(r.json["result"]["robots"])
    assert table.camera.profile is not None  # the camera reads with them from now on
    assert screen.post("/api/layouts", {"name": "Kitchen table", "rows": EXAMPLE_ROWS}
                       ).status_code == 200
    assert screen.post("/api/setup", {"game": "micro-robots", "players": ["Ann", "Ben"],
                                      "layout": "Kitchen table"}).status_code == 200
    assert_refused(screen.post("/api/calibrate/colors", {}), 409, "classic game")


def test_the_simulated_hand_puts_the_micro_robot_down(app, micro, screen):
    from conftest import wait_state

    ann = join(app, screen, 0)
    assert ann.post("/api/call", {"moves": 5}, headers={"X-Player-Token": ann.token}
                    ).status_code == 200
    assert screen.post("/api/sim/micro", {"space": None}).json["robot"] is None
    assert screen.post("/api/sim/micro", {"space": "pink 6"}).json["robot"] == "pink6"
    wait_state(micro, lambda s: s["demonstrating"] and s["demonstrating"]["landings"] == [
        "pink6"])
    assert_refused(screen.post("/api/sim/micro", {"space": "nowhere"}), 409, "not a space")
    assert_refused(screen.post("/api/sim/micro", {"space": 3}), 400, "space")


def test_the_micro_pages_render(app):
    client = app.test_client()
    assert client.get("/layouts").status_code == 200
    for name in ("micro.js", "layouts.js"):
        assert client.get(f"/static/{name}").status_code == 200, name


MICRO_POSTS = ["/api/call", "/api/player/land", "/api/layouts", "/api/layouts/check",
               "/api/layouts/x/rename", "/api/layouts/x/delete", "/api/sim/micro",
               "/api/layouts/proposal/dismiss", "/api/layouts/read"]
MICRO_HOSTILE = HOSTILE + [{"space": {"$ne": 1}}, {"rows": [[None] * 6] * 5},
                           {"rows": [[{"a": 1}] * 6] * 6}, {"sections": "x", "rotations": 3},
                           {"sections": [[[None] * 3] * 3] * 4, "rotations": [True] * 4},
                           {"to": None}, {"to": "x" * 100}, {"type": "land", "spaces": [None]}]


@pytest.mark.slow
def test_hostile_bodies_on_the_micro_routes_never_cause_a_server_error(app, micro, screen):
    before = micro.view()["phase"]
    never_a_server_error(app, screen, MICRO_POSTS + ["/api/command", "/api/setup"],
                         MICRO_HOSTILE)
    assert micro.view()["phase"] == before
