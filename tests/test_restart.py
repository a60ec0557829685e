"""The journal is the one truth across restarts: a table started again on its journal picks the
round up where the journal has it. The simulated table's (and the camera's) first look is
reconciled with the journal, never turned into new moves; an undo keeps the simulated robots in
agreement with the game; the last verdict is part of the journaled state."""

from __future__ import annotations

import json
import time

from conftest import make_table, reveal_and_solve, set_up, wait_state

from companion.store import Store


def moves_in_journal(db) -> list[str]:
    with Store(db, readonly=True) as store:
        return [c["move"] for c in store.commands() if c["type"] == "move"]


def slide(t, move: str) -> None:
    robot, direction = move.split()[:2]
    t.hand.slide(robot, direction)


def demonstrating(tmp_path, bidders=(1,)):
    """A table in the demonstration of a round whose optimal route is known, and that route."""
    t = make_table(tmp_path)
    t.start()
    set_up(t, timer=0.3)
    opt = reveal_and_solve(t)
    for seat in bidders:
        assert t.submit({"type": "bid", "seat": seat, "value": opt["length"]}).ok
    wait_state(t, lambda s: s["phase"] == "demonstrating")
    return t, opt["moves"]


def restart(tmp_path, t):
    t.stop()
    again = make_table(tmp_path)
    again.start()
    return again


def test_a_restart_mid_demonstration_keeps_the_moves_and_adds_none(tmp_path):
    t, route = demonstrating(tmp_path)
    assert len(route) >= 2, route
    made = route[:-1]
    for i, move in enumerate(made, 1):
        slide(t, move)
        wait_state(t, lambda s, i=i: s["demonstrating"]["count"] == i)
    before = t.view()
    db = tmp_path / "j.db"
    journaled = moves_in_journal(db)
    assert len(journaled) == len(made)

    t = restart(tmp_path, t)
    try:
        time.sleep(1.0)  # the simulated camera's first look has long reached the table
        after = t.view()
        assert moves_in_journal(db) == journaled  # no phantom move
        assert after["phase"] == "demonstrating"
        assert after["demonstrating"]["route"] == before["demonstrating"]["route"]
        assert after["robots"] == before["robots"] == t.sim.truth()
        assert after["verdict"] is None and not after["message"]
        slide(t, route[-1])  # the last move finishes the route, counted once
        state = wait_state(t, lambda s: s["phase"] == "round_over")
        assert state["verdict"]["result"] == "success", state["verdict"]
        assert len(moves_in_journal(db)) == len(route)
    finally:
        t.stop()


def test_undoing_a_move_puts_the_simulated_robot_back_and_the_route_goes_on(tmp_path):
    t, route = demonstrating(tmp_path)
    try:
        slide(t, route[0])
        wait_state(t, lambda s: s["demonstrating"]["count"] == 1)
        start = t.view()["demonstrating"]
        assert t.submit({"type": "undo"}).ok
        state = wait_state(t, lambda s: s["demonstrating"]["count"] == 0)
        assert t.sim.truth() == state["robots"]  # the hand followed the undo
        time.sleep(0.5)
        assert t.view()["demonstrating"]["count"] == 0, start
        for i, move in enumerate(route, 1):
            slide(t, move)
            wait_state(t, lambda s, i=i: s["phase"] == "round_over"
                       or s["demonstrating"]["count"] == i)
        state = wait_state(t, lambda s: s["phase"] == "round_over")
        assert state["verdict"]["result"] == "success", state
    finally:
        t.stop()


def test_the_last_verdict_survives_a_restart_and_an_undo_takes_it_away(tmp_path):
    t, route = demonstrating(tmp_path, bidders=(0, 1))
    slide(t, route[0])
    wait_state(t, lambda s: s["demonstrating"]["count"] == 1)
    assert t.submit({"type": "give_up", "seat": 0}).ok
    state = wait_state(t, lambda s: s["demonstrating"]["seat"] == 1)
    verdict = state["verdict"]
    assert verdict["result"] == "gave_up" and verdict["seat"] == 0

    t = restart(tmp_path, t)
    try:
        state = t.view()
        assert state["verdict"] == verdict
        assert state["demonstrating"]["seat"] == 1 and state["demonstrating"]["count"] == 0
        assert t.submit({"type": "undo"}).ok  # the give-up is taken back
        state = wait_state(t, lambda s: s["demonstrating"]["seat"] == 0)
        assert state["verdict"] is None  # no stale verdict
        assert state["demonstrating"]["count"] == 1
        assert t.sim.truth() == state["robots"]
    finally:
        t.stop()


def test_a_camera_verdict_keeps_its_reason_across_a_restart(tmp_path):
    t, route = demonstrating(tmp_path)
    reason = "red h6→n2 is not a legal slide"
    assert t.submit({"type": "verdict", "success": False, "by": "camera",
                     "reason": reason}).ok
    state = wait_state(t, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "illegal" and state["verdict"]["reason"] == reason
    t = restart(tmp_path, t)
    try:
        assert t.view()["verdict"] == state["verdict"]
    finally:
        t.stop()


def test_a_look_that_disagrees_with_the_journal_after_a_restart_is_shown_not_played(tmp_path):
    t, route = demonstrating(tmp_path)
    slide(t, route[0])
    wait_state(t, lambda s: s["demonstrating"]["count"] == 1)
    journal = t.view()["robots"]
    db = tmp_path / "j.db"
    t.stop()
    # started again without the simulated camera: a real camera's first look comes in
    again = make_table(tmp_path, sim=False)
    again.start()
    try:
        moved = dict(journal)
        robot = next(iter(moved))
        moved[robot] = next(c for c in ("a1", "p16", "a16", "p1") if c not in journal.values())
        again.observe(moved)
        state = wait_state(again, lambda s: "does not match the journal" in s["message"])
        assert f"{robot} on {journal[robot]}" in state["message"]
        assert state["demonstrating"]["count"] == 1
        assert moves_in_journal(db) == [route[0]]
        again.observe(journal)  # put back: the camera takes the round up again
        state = wait_state(again, lambda s: not s["message"])
        assert state["demonstrating"]["count"] == 1 and moves_in_journal(db) == [route[0]]
    finally:
        again.stop()


def test_every_page_gets_the_time_left_now_however_late_it_asks(tmp_path):
    from companion.web import create_app

    t = make_table(tmp_path, sim=False, solve=None)
    t.start()
    try:
        set_up(t, timer=60)
        assert t.submit({"type": "reveal"}).ok
        assert t.submit({"type": "bid", "seat": 0, "value": 9}).ok
        published = t.view()["timer"]
        time.sleep(1.5)  # nothing is published meanwhile
        client = create_app(t).test_client()
        state = client.get("/api/state").json["timer"]
        assert state["running"] and published["remaining"] - state["remaining"] >= 1.4
        assert abs(state["deadline"] - published["deadline"]) < 0.1  # one deadline for all
        assert abs(state["deadline"] - state["server_time"] - state["remaining"]) < 0.01
        _, first = t.broker.subscribe()  # a page opening its stream now
        snap = json.loads(first[0].decode().split("data: ", 1)[1])
        assert abs(snap["timer"]["remaining"] - state["remaining"]) < 0.5
        assert "_ends_at" not in snap["timer"]
    finally:
        t.stop()


def test_a_new_game_asks_first_and_tells_the_phones_to_join_again(tmp_path):
    from test_web import Browser

    from companion.web import create_app

    t = make_table(tmp_path, sim=False, solve=None, pin="2468")
    t.start()
    try:
        app = create_app(t)
        screen = Browser(app)
        assert screen.unlock("2468").status_code == 200
        assert screen.post("/api/setup", {"players": ["Ann", "Ben"]}).status_code == 200
        assert screen.post("/api/command", {"type": "reveal"}).status_code == 200
        epoch = t.view()["epoch"]
        r = screen.post("/api/setup", {"players": ["Cy", "Di"]})
        assert r.status_code == 409 and r.json["confirm"] is True
        assert "game is in play" in r.json["error"] and "Ann 0" in r.json["error"]
        assert [p["name"] for p in t.view()["players"]] == ["Ann", "Ben"]
        sub, _ = t.broker.subscribe()
        r = screen.post("/api/setup", {"players": ["Cy", "Di"], "replace": True})
        assert r.status_code == 200 and r.json["state"]["epoch"] != epoch
        sent = b""
        while b"event: new_game" not in sent:
            sent += sub._queue.get(timeout=5)
        assert r.json["state"]["epoch"].encode() in sent.split(b"event: new_game", 1)[1]
    finally:
        t.stop()


def test_the_pin_is_kept_beside_the_journal_and_can_be_changed(tmp_path):
    from test_web import Browser

    from companion.web import create_app

    t = make_table(tmp_path, sim=False, solve=None)
    pin = t.pages.pin
    t.start()
    t.stop()
    t = make_table(tmp_path, sim=False, solve=None)
    assert t.pages.pin == pin  # a restart keeps it
    t.start()
    try:
        app = create_app(t)
        screen = Browser(app)
        assert screen.unlock(pin).status_code == 200
        for bad in ("12", "abcd", "١٢٣٤", 1234, "1" * 13):
            r = screen.post("/api/pin", {"pin": bad})
            assert r.status_code == 400 and "pin" in r.json["error"], (bad, r.json)
        assert screen.post("/api/pin", {"pin": "97531"}).status_code == 200
        assert screen.get("/api/setup-info").status_code == 200  # this page stays unlocked
        other = Browser(app)
        assert other.unlock(pin).status_code == 403
        assert other.unlock("97531").status_code == 200
    finally:
        t.stop()
    assert make_table(tmp_path, sim=False, solve=None).pages.pin == "97531"
    given = make_table(tmp_path, sim=False, solve=None, pin="2468")
    assert given.pages.pin == "2468"
    given.start()  # kept once the journal is this table's
    given.stop()
    assert make_table(tmp_path, sim=False, solve=None).pages.pin == "2468"
