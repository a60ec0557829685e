"""The players answer the camera's question through the page's API: a real table loop with
the simulated camera, the real solver and the real verifier, the page's Flask app in front.

During a demonstration a robot that stood still is seen on a cell no legal move reaches while
another robot moves: the camera takes it for a misreading and asks. "Yes, it is there" makes
the move illegal, as the camera read it; "no, it stands where it stood" lets the count go on.
The demonstrator does not answer (she could deny her own illegal move); the other players'
phones and the main screen with the PIN do; every refusal is a 4xx naming what is wrong, and
changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    SIM_PIN,
    ask,
    demonstrating,
    make_table,
    reveal_and_solve,
    set_up,
    wait_state,
)
from test_web import REMOTE, Browser, assert_refused, join

from companion.web import create_app


@pytest.fixture
def table(tmp_path):
    t = make_table(tmp_path, pin=SIM_PIN)
    t.start()
    yield t
    t.stop()


@pytest.fixture
def app(table):
    return create_app(table, {"PUBLIC_URL": "http://table.local:8000/", "SSE_HEARTBEAT": 0.2})


@pytest.fixture
def screen(app):
    b = Browser(app)
    assert b.unlock().status_code == 200
    return b


def test_the_question_is_data_for_the_page_robot_seen_and_believed(table):
    asked = ask(table)
    q = asked["state"]["question"]
    assert q["robots"] == [{"robot": asked["still"], "seen": asked["wrong"],
                            "believed": asked["stood"]}]
    assert q["seat"] == 1 and q["solo"] is False
    assert asked["state"]["robots"][asked["still"]] == asked["stood"]


def test_a_player_watching_says_yes_and_the_move_is_judged_illegal_as_read(app, screen, table):
    asked = ask(table)
    phone = join(app, screen, 0)  # Ann watches Ben demonstrate
    r = phone.post("/api/answer", {"robots": {asked["still"]: True}},
                   headers={"X-Player-Token": phone.token})
    assert r.status_code == 200, r.json
    assert [e["type"] for e in r.json["result"]][:2] == ["answered", "illegal"], r.json
    state = wait_state(table, lambda s: s["question"] is None)
    verdict = table.game.s.verdict
    assert verdict is not None and not verdict["success"] and verdict["by"] == "camera"
    assert asked["wrong"] in str(verdict.get("reason")), verdict
    assert state["phase"] != "demonstrating" or state["demonstrating"]["seat"] != 1


def test_the_host_says_no_and_the_robot_is_believed_where_it_stood(screen, table):
    asked = ask(table)
    r = screen.post("/api/answer", {"robots": {asked["still"]: False}})
    assert r.status_code == 200, r.json
    assert [e["type"] for e in r.json["result"]] == ["answered"], r.json
    state = wait_state(table, lambda s: s["question"] is None)
    assert state["phase"] == "demonstrating" and state["verdict"] is None
    assert state["robots"][asked["still"]] == asked["stood"]
    assert table.game.s.round.moves == [asked["first"]]
    # seen on the wrong cell again, it is the camera's known mistake: no new question
    table.observe(None, "camera")
    table.observe({**state["robots"], asked["still"]: asked["wrong"]}, "camera")
    table.call(lambda: None)  # the look handled
    assert table.view()["question"] is None and table.view()["phase"] == "demonstrating"


def _unchanged(table: Any, before: dict[str, Any]) -> None:
    now = table.view()
    assert now["question"] == before["question"] and now["phase"] == "demonstrating"
    assert now["demonstrating"] == before["demonstrating"] and now["verdict"] is None


def test_who_may_not_answer_is_refused_and_nothing_changes(app, screen, table):
    asked = ask(table)
    before = table.view()
    still = asked["still"]
    stranger = Browser(app, REMOTE)
    assert_refused(stranger.post("/api/answer", {"robots": {still: True}}), 403,
                   "main screen with the table PIN")
    assert_refused(stranger.post("/api/answer", {"robots": {still: True}},
                                 headers={"X-Player-Token": "0" * 32}), 403, "token")
    ben = join(app, screen, 1)  # the demonstrator's own phone
    assert_refused(ben.post("/api/answer", {"robots": {still: False}},
                            headers={"X-Player-Token": ben.token}), 403, "demonstrator")
    _unchanged(table, before)


@pytest.mark.parametrize(("sent", "words"), [
    ({"robots": ["x"]}, "an object of robot"),
    ({"robots": {}}, "an object of robot"),
    ({}, "an object of robot"),
    ({"robots": {"silver": True}}, "not silver"),
    ({"robots": {"<STILL>": "yes"}}, "is true"),
    ({"robots": {"<STILL>": True}, "seat": 0}, "seat: not a field of an answer"),
])
def test_a_malformed_answer_names_what_is_wrong_and_changes_nothing(screen, table, sent,
                                                                    words):
    asked = ask(table)
    before = table.view()
    if "robots" in sent and isinstance(sent["robots"], dict):
        sent = {**sent, "robots": {asked["still"] if k == "<STILL>" else k: v
                                   for k, v in sent["robots"].items()}}
    assert_refused(screen.post("/api/answer", sent), 400, words)
    _unchanged(table, before)


def test_an_answer_with_no_question_open_is_refused(screen, table):
    demonstrating(table)
    assert table.view()["question"] is None
    assert_refused(screen.post("/api/answer", {"robots": {"blue": True}}), 409,
                   "no question")
    assert table.view()["phase"] == "demonstrating" and table.game.s.round.moves == []


def test_in_solo_play_the_only_player_answers_from_her_phone(app, screen, table):
    set_up(table, timer=0.3, players=("Ann",))
    opt = reveal_and_solve(table)
    assert table.submit({"type": "bid", "seat": 0, "value": opt["length"]}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    asked = ask(table, ready=(opt, table.referee.position()))
    assert asked["state"]["question"]["solo"] is True
    ann = join(app, screen, 0)
    r = ann.post("/api/answer", {"robots": {asked["still"]: False}},
                 headers={"X-Player-Token": ann.token})
    assert r.status_code == 200, r.json
    wait_state(table, lambda s: s["question"] is None)
