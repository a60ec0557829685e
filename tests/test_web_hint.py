"""Hints during solo play through the page's API: each one is journaled, so the round is known
to be hinted, and what it says agrees with the solver's route for the round."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from contextlib import closing

import pytest

from companion.board import Board
from companion.gpio import Hardware, PinMap
from companion.rules import Move, Position, validate_route
from companion.sim import SimWorld
from companion.solver import solve
from companion.store import Store
from companion.table import Table
from companion.vision.feed import CameraFeed
from companion.web import create_app

PIN = "135790"
BOARD = {"tiles": ["4B", "3B", "2B", "1A"]}


@pytest.fixture
def table(tmp_path, factory):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=solve,
              pin=PIN, simulated=True)
    t.sim = SimWorld()
    t.attach_camera(CameraFeed(t, "sim", sim=t.sim))
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"), clock=t.now,
                               pin_factory=factory))
    t.start()
    yield t
    t.stop()


class Page:
    def __init__(self, app) -> None:
        self.client = app.test_client()
        page = self.client.get("/")
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
        assert self.post("/api/unlock", {"pin": PIN}).status_code == 200

    def post(self, path, body):
        return self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf})


def journaled(tmp_path) -> list[dict]:
    """The commands on disk, read with a connection of our own."""
    with closing(sqlite3.connect(tmp_path / "j.db")) as conn:
        return [json.loads(t) for (t,) in conn.execute("SELECT command FROM journal")]


def start_round(table, players):
    page = Page(create_app(table, {"PUBLIC_URL": "http://table.local:8000/"}))
    # the robots stand where the simulated table deals them (the edition's fifth one too)
    r = page.post("/api/setup", {"players": players, "tiles": BOARD["tiles"]})
    assert r.status_code == 200, r.json
    assert page.post("/api/command", {"type": "reveal"}).status_code == 200
    for _ in range(400):  # the table's solver works in its own thread
        if table.pages.solution() is not None:
            break
        time.sleep(0.05)
    return page


def test_a_solo_hint_is_journaled_and_agrees_with_the_route(table, tmp_path):
    page = start_round(table, ["Ann"])
    known = table.pages.solution()
    r = page.post("/api/hint", {"level": 1})
    assert r.status_code == 200, r.json
    assert [h["level"] for h in r.json["hints"]] == [1]
    assert r.json["hints"][0]["length"] == known["length"]
    r = page.post("/api/hint", {"level": 4})
    route = r.json["hints"][3]["route"]
    assert [f"{m['robot']} {m['direction']}" for m in route] == known["moves"]
    assert r.json["hints"][2]["first"] == route[0]
    # the page builds each hint's words in its own language from these values, not the text
    assert r.json["hints"][1]["robots"] == list(dict.fromkeys(m["robot"] for m in route))
    assert [h["kind"] for h in r.json["hints"]] == ["length", "robots", "first move", "route"]
    assert all(h["cost"] >= h["length"] == known["length"] for h in r.json["hints"])
    assert [c["level"] for c in journaled(tmp_path) if c["type"] == "hint"] == [1, 4]
    r = table.game.s.round  # where the robots stood when the chip was revealed
    pos = Position(Board.from_dict(BOARD), dict(r.snapshot), table.game._goal(r.chip),
                   table.game.s.rules)
    verdict = validate_route(pos, [Move.parse(f"{m['robot']} {m['direction']}")
                                   for m in route])
    assert verdict.legal and verdict.reached and verdict.moves == known["length"]


def test_hints_are_refused_outside_solo_play_and_at_bad_levels(table, tmp_path):
    page = start_round(table, ["Ann", "Ben"])
    r = page.post("/api/hint", {"level": 1})
    assert r.status_code == 409 and "solo" in r.json["error"]
    r = page.post("/api/hint", {"level": 5})
    assert r.status_code == 400 and "level" in r.json["error"]
    assert not [c for c in journaled(tmp_path) if c["type"] == "hint"]


def test_the_round_knows_every_distinct_optimal_route_for_its_end(table, monkeypatch):
    # the listing stops after a few seconds; on a machine busy with other work that can come
    # before the list is complete, which is not what this test is about
    monkeypatch.setattr("companion.solving.ROUTES_SECONDS", 60.0)
    start_round(table, ["Ann"])
    known = table.pages.solution()
    routes = known["routes"]
    assert routes["complete"] and routes["count"] == len(routes["routes"]) >= 1
    r = table.game.s.round
    pos = Position(Board.from_dict(BOARD), dict(r.snapshot), table.game._goal(r.chip),
                   table.game.s.rules)
    for texts in routes["routes"]:
        verdict = validate_route(pos, [Move.parse(t) for t in texts])
        assert verdict.legal and verdict.reached and verdict.moves == known["length"]
    assert len({tuple(x) for x in routes["routes"]}) == len(routes["routes"])
