"""Practice puzzles through the page's API: dealt at the asked length, each move judged by the
rules, hints that agree with the solver, and a solved puzzle kept with the history (on disk)."""

from __future__ import annotations

import re
import time

import pytest

from companion.gpio import Hardware, PinMap
from companion.rules import Position
from companion.solver import solve
from companion.store import Store
from companion.table import Table
from companion.web import create_app


@pytest.fixture
def table(tmp_path, factory):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=None,
              pin="112233", simulated=True)
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"), clock=t.now,
                               pin_factory=factory))
    t.start()
    yield t
    t.stop()


@pytest.fixture
def page(table):
    client = create_app(table, {"PUBLIC_URL": "http://table.local:8000/"}).test_client()
    html = client.get("/practice")
    assert html.status_code == 200 and 'id="board"' in html.text and "practice.js" in html.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', html.text).group(1)

    def post(path, body):
        return client.post(path, json=body, headers={"X-CSRF-Token": csrf})

    post.client = client
    return post


def test_a_practice_puzzle_is_dealt_played_hinted_and_kept_in_history(page, tmp_path):
    r = page("/api/practice/deal", {"moves": 4})
    assert r.status_code == 200, r.json
    puzzle = r.json
    pos = Position.from_dict(puzzle["position"])
    assert solve(pos).cost == 4 == puzzle["moves"]
    assert puzzle["target"]["cell"] == pos.board.name(pos.target.cell)
    # a move that goes nowhere is refused with the rules' reason; a legal one moves a robot
    r = page("/api/practice/hint", {"position": puzzle["position"], "level": 4})
    hints = r.json["hints"]
    assert [h["level"] for h in hints] == [1, 2, 3, 4] and hints[0]["length"] == 4
    route = [f"{m['robot']} {m['direction']}" for m in hints[3]["route"]]
    r = page("/api/practice/move", {"position": puzzle["position"], "route": route[:1]})
    assert r.json["legal"] and not r.json["reached"] and r.json["moves"] == 1
    assert r.json["robots"] != puzzle["robots"]
    r = page("/api/practice/move", {"position": puzzle["position"], "route": route})
    assert r.json["reached"]
    r = page("/api/practice/done", {"position": puzzle["position"], "route": route,
                                    "seconds": 42.4, "hint": 4, "seed": puzzle["seed"]})
    assert r.status_code == 200, r.json
    assert r.json["entry"]["optimal"] == 4 and r.json["entry"]["moves"] == 4
    got = page.client.get("/api/history").json["practice"]
    assert [(p["moves"], p["seconds"], p["hint"], p["seed"]) for p in got] == \
        [(4, 42.4, 4, puzzle["seed"])]
    with Store(tmp_path / "j.db", readonly=True) as store:  # on disk, beside the games
        assert store.practice()[0]["route"] == route


def test_the_puzzle_of_the_day_is_the_same_for_everyone(page):
    a = page("/api/practice/deal", {"moves": 5, "daily": True}).json
    b = page("/api/practice/deal", {"moves": 5, "daily": True}).json
    assert a["position"] == b["position"] and a["seed"].startswith("daily-")


def test_bad_practice_requests_are_refused_and_nothing_is_kept(page):
    assert page("/api/practice/deal", {"moves": 11}).status_code == 400
    assert page("/api/practice/deal", {"moves": 3, "rules": "nonsense"}).status_code == 400
    puzzle = page("/api/practice/deal", {"moves": 3}).json
    r = page("/api/practice/move", {"position": {"board": 1}, "route": []})
    assert r.status_code == 400 and "position" in r.json["error"]
    r = page("/api/practice/move", {"position": puzzle["position"], "route": ["blue sideways"]})
    assert r.status_code == 400 and "route" in r.json["error"]
    r = page("/api/practice/done", {"position": puzzle["position"], "route": [],
                                    "seconds": 3, "hint": 0})
    assert r.status_code == 409
    r = page("/api/practice/hint", {"position": puzzle["position"], "level": 9})
    assert r.status_code == 400
    assert page.client.get("/api/history").json["practice"] == []
