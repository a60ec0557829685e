"""The table's views: the hourglass as every page gets it, what the LEDs show, the board drawn."""

from __future__ import annotations

from companion.table_view import lights_view, micro_lights_view, timer_view


def test_a_running_hourglass_gives_its_deadline_on_the_wall_clock():
    t = timer_view(100.0, 5000.0, True, 60.0, 60.0, 130.5)
    assert t["remaining"] == 30.5 and t["deadline"] == 5030.5 and t["server_time"] == 5000.0
    assert t["_ends_at"] == 130.5  # the table's own clock, for the loop only


def test_a_stopped_hourglass_keeps_its_seconds_and_has_no_deadline():
    t = timer_view(100.0, 5000.0, False, 42.0, 60.0, 130.5)
    assert t["remaining"] == 42.0 and t["deadline"] is None and t["_ends_at"] is None


def test_an_hourglass_run_out_shows_zero_not_a_negative_time():
    assert timer_view(200.0, 5000.0, True, 60.0, 60.0, 130.0)["remaining"] == 0.0


def test_the_leds_show_the_verdicts_outcome_and_the_mode():
    view = {"solo": True, "timer": {"runs": 2}}
    shown = lights_view(view, {"result": "over_bid"})
    assert shown["verdict"] == "failure" and shown["mode"] == "solo" and shown["easy"]
    assert lights_view({"solo": False, "timer": {}}, None)["verdict"] is None


def test_in_micro_robots_the_leds_show_the_stall_hourglass_and_the_callers_number():
    v = {"phase": "demonstrating", "players": [{"name": "Anna"}, {"name": "Ben"}],
         "stall": {"ends_at": None, "since": None, "seconds": 120.0, "remaining": None},
         "demonstration": {"seat": 1, "number": 4}}
    shown = micro_lights_view(v, {"result": "success"})
    assert shown["demonstrating"] == 1 and shown["bid_to_meet"] == 4
    assert shown["verdict"] == "success" and shown["timer"]["running"] is False
