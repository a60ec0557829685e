"""The table loop: commands in order, the journal, the clock, the solver off the loop, the camera
and the verifier, the simulated table and its virtual buttons."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from conftest import (
    WAIT,
    ask,
    make_table,
    reveal_and_solve,
    set_up,
    unreachable,
    wait_state,
)

from companion.events import Broker
from companion.gpio import Hardware, PinMap
from companion.sim import SimWorld
from companion.store import Store
from companion.table import Table
from companion.table_view import board_geometry
from companion.vision.feed import CameraFeed


@pytest.fixture
def table(tmp_path):
    t = make_table(tmp_path)
    t.start()
    yield t
    t.stop()


# ---------------------------------------------------------------- commands and journal


def test_setup_places_the_robots_where_the_simulated_camera_sees_them(table):
    set_up(table)
    state = wait_state(table, lambda s: s["phase"] == "idle")
    assert set(state["robots"]) == {"red", "green", "blue", "yellow", "black"}
    assert table.sim.truth() == state["robots"]
    assert state["board"]["size"] == 16 and len(state["board"]["targets"]) == 17


def test_a_refused_command_gives_the_games_reason_and_changes_nothing(table):
    set_up(table)
    assert table.submit({"type": "reveal"}).ok
    assert table.submit({"type": "bid", "seat": 0, "value": 7}).ok
    before = table.view()["bids"]
    out = table.submit({"type": "bid", "seat": 0, "value": 9})
    assert not out.ok and "higher than her bid of 7" in out.reason
    assert table.view()["bids"] == before


def test_unknown_and_internal_command_types_are_refused(table):
    assert "unknown command" in table.submit({"type": "explode"}).reason
    assert not table.submit({"type": "tick"}).ok


def test_commands_apply_in_the_order_they_were_posted(table):
    set_up(table, players=("Ann", "Ben", "Cat"))
    assert table.submit({"type": "reveal"}).ok
    futures = [table.post({"type": "bid", "seat": s, "value": v}, "phone")
               for s, v in ((2, 9), (0, 9), (1, 9))]
    assert all(f.result(WAIT).ok for f in futures)
    # equal bids: the first to bid that number demonstrates first
    assert [b["seat"] for b in table.view()["bids"]] == [2, 0, 1]


def test_the_timer_runs_out_on_the_loops_clock_without_any_input(table):
    set_up(table, timer=0.5)
    assert table.submit({"type": "reveal"}).ok
    assert table.submit({"type": "bid", "seat": 1, "value": 30}).ok
    state = wait_state(table, lambda s: s["phase"] == "demonstrating")
    assert state["demonstrating"]["seat"] == 1 and state["demonstrating"]["bid"] == 30


def test_the_journal_brings_back_the_same_round_after_a_restart(tmp_path):
    t = make_table(tmp_path)
    t.start()
    set_up(t)
    assert t.submit({"type": "reveal"}).ok
    assert t.submit({"type": "bid", "seat": 0, "value": 12}).ok
    before = t.view()
    t.stop()

    again = make_table(tmp_path)
    again.start()
    try:
        after = again.view()
        assert after["phase"] == "timer"
        assert after["round"] == before["round"] and after["target"] == before["target"]
        assert after["bids"] == before["bids"]
        assert after["robots"] == before["robots"]
        assert after["epoch"] == before["epoch"]  # phones stay joined
        assert again.sim.truth() == after["robots"]
        assert 0 < after["timer"]["remaining"] <= 60
    finally:
        again.stop()


def test_stop_applies_every_command_queued_before_it(tmp_path):
    t = make_table(tmp_path, sim=False)
    t.start()
    set_up(t, players=[f"P{i}" for i in range(8)])
    t.submit({"type": "reveal"})
    futures = [t.post({"type": "bid", "seat": s, "value": 20 - s}) for s in range(8)]
    t.stop()
    assert all(f.result(0).ok for f in futures)
    with Store(tmp_path / "j.db", readonly=True) as store:
        assert len(store.view()["bids"]) == 8


def test_the_secret_and_so_the_player_tokens_survive_a_restart(tmp_path):
    a = make_table(tmp_path, sim=False)
    b = make_table(tmp_path, sim=False)
    assert a.secret == b.secret and len(a.secret) >= 32
    assert (tmp_path / "j.db.key").stat().st_mode & 0o077 == 0
    assert make_table(tmp_path, sim=False, name="other.db").secret != a.secret


# ---------------------------------------------------------------- the solver


def test_the_solver_runs_off_the_loop_and_is_cancelled_when_the_game_moves_on(tmp_path):
    started, cancelled = threading.Event(), threading.Event()

    def slow_solve(position, *, deadline, cancel):
        started.set()
        while not cancel.is_set():
            time.sleep(0.01)
        cancelled.set()
        return None

    t = make_table(tmp_path, solve=slow_solve, sim=False)
    t.start()
    try:
        set_up(t)
        assert t.submit({"type": "reveal"}).ok
        assert started.wait(WAIT)
        assert t.view()["solving"]
        # the loop still answers at once while the solver works
        t0 = time.monotonic()
        assert t.submit({"type": "bid", "seat": 0, "value": 5}).ok
        assert time.monotonic() - t0 < 1.0
        assert t.submit({"type": "new_game", "players": ["Cat", "Dan"]}).ok
        assert cancelled.wait(WAIT)
    finally:
        t.stop()


def test_the_optimal_solution_is_shown_only_after_the_round(table):
    set_up(table, timer=0.3)
    opt = reveal_and_solve(table)
    state = table.view()
    assert not state["show_optimal"] and state["optimal"] is None  # phones read the state
    assert opt["length"] == len(opt["steps"]) and opt["start"] == state["robots"]
    assert table.submit({"type": "bid", "seat": 0, "value": 1}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    assert table.submit({"type": "give_up", "seat": 0}).ok
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["show_optimal"] and state["optimal"]["moves"] == opt["moves"]


# ---------------------------------------------------------------- camera and demonstration


def test_a_demonstration_on_the_simulated_table_is_followed_move_by_move(table):
    set_up(table, timer=0.3)
    opt = reveal_and_solve(table)
    assert table.submit({"type": "bid", "seat": 1, "value": opt["length"]}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    for i, move in enumerate(opt["moves"][:-1], 1):
        robot, direction = move.split()[:2]
        table.hand.slide(robot, direction)
        wait_state(table, lambda s, i=i: s["demonstrating"]["count"] == i)
    robot, direction = opt["moves"][-1].split()[:2]
    table.hand.slide(robot, direction)
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "success" and state["verdict"]["seat"] == 1
    assert [p["chips"] for p in state["players"]] == [0, 1]
    assert state["show_optimal"]


def test_a_failed_demonstration_puts_the_robots_back_and_the_next_bidder_starts(table):
    set_up(table, timer=0.3)
    opt = reveal_and_solve(table)
    start = table.view()["robots"]
    assert table.submit({"type": "bid", "seat": 0, "value": opt["length"]}).ok
    assert table.submit({"type": "bid", "seat": 1, "value": opt["length"]}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    robot, direction = opt["moves"][0].split()[:2]
    table.hand.slide(robot, direction)
    wait_state(table, lambda s: s["demonstrating"]["count"] == 1)
    assert table.submit({"type": "give_up", "seat": 0}).ok
    state = wait_state(table, lambda s: s["demonstrating"] and s["demonstrating"]["seat"] == 1
                       and not s["demonstrating"]["restoring"])
    assert state["verdict"]["result"] == "gave_up" and state["verdict"]["seat"] == 0
    assert table.sim.truth() == start  # the simulated hand put them back
    for i, move in enumerate(opt["moves"], 1):
        robot, direction = move.split()[:2]
        table.hand.slide(robot, direction)
        wait_state(table, lambda s, i=i: s["phase"] == "round_over"
                   or s["demonstrating"]["count"] == i)
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "success" and state["verdict"]["seat"] == 1, state[
        "verdict"]


def test_robots_moved_between_rounds_are_journaled_where_the_camera_sees_them(table):
    set_up(table)
    free = next(d for d in ("up", "down", "left", "right")
                if _can_slide(table.sim, "red", d))
    where = table.hand.slide("red", free)
    state = wait_state(table, lambda s: s["robots"]["red"] == where["red"])
    assert table.game.view()["robots"]["red"] == where["red"]
    assert state["phase"] == "idle"


def _can_slide(sim: SimWorld, robot: str, direction: str) -> bool:
    from companion.rules import Move

    pos = sim.position()
    return pos.slide(Move.parse(f"{robot} {direction}")).moved


def test_the_sim_camera_renders_a_jpeg_with_the_detection_drawn_over_it(table):
    set_up(table)
    jpeg = table.eyes.jpeg(overlay=True)
    assert jpeg[:3] == b"\xff\xd8\xff"
    detected = table.eyes.detected()
    assert detected["tiles"] == list(table.game.s.board.tiles)
    assert len(detected["corners"]) == 4


def test_a_slide_by_hand_that_cannot_move_is_refused(table):
    set_up(table)
    with pytest.raises(ValueError, match="no purple robot|unknown robot|no purple"):
        table.hand.slide("purple", "up")


# ---------------------------------------------------------------- buttons


def test_virtual_buttons_drive_the_gpio_code_on_mock_pins(tmp_path, factory):
    t = make_table(tmp_path)
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"),
                               clock=t.now, pin_factory=factory))
    t.start()
    try:
        set_up(t)
        names = [b["name"] for b in wait_state(t, lambda s: s["buttons"])["buttons"]]
        assert "start" in names and "bid-0" in names and "bid-1" in names
        t.hand.press("start")
        wait_state(t, lambda s: s["phase"] == "bidding")
        t.hand.press("dial", "turn", 6)
        t.hand.press("bid-1")
        state = wait_state(t, lambda s: s["bids"])
        assert state["bids"][0]["seat"] == 1 and state["bids"][0]["moves"] == 6
        with pytest.raises(KeyError):
            t.hand.press("bid-7")
    finally:
        t.stop()


def test_a_real_table_has_no_virtual_buttons(tmp_path):
    t = make_table(tmp_path, sim=False)
    t.start()
    try:
        assert t.view()["buttons"] is None
        with pytest.raises(ValueError):
            t.hand.slide("red", "up")
    finally:
        t.stop()


# ---------------------------------------------------------------- pieces


def test_board_geometry_lists_walls_targets_and_the_centre_block():
    from companion.board import Board

    geo = board_geometry(Board.from_tiles(["4B", "3B", "2B", "1A"]))
    assert geo["size"] == 16 and geo["tiles"] == ["4B", "3B", "2B", "1A"]
    assert set(geo["blocked"]) == {"h8", "i8", "h9", "i9"}
    assert all(d in ("up", "right") for _, d in geo["walls"])
    assert board_geometry(None) is None


def test_the_broker_drops_a_client_that_falls_behind_and_keeps_the_rest():
    b = Broker(client_queue=4)
    slow, _ = b.subscribe()
    fast, _ = b.subscribe()
    for i in range(4):
        b.publish("state", {"i": i})
    for _ in range(4):
        fast._queue.get_nowait()
    b.publish("state", {"i": 4})
    assert slow.dropped and b.clients == 1
    assert fast._queue.get_nowait().startswith(b"id: 5\n")


def test_the_broker_replays_missed_events_or_sends_a_snapshot():
    b = Broker(snapshot=lambda: {"fresh": True}, backlog=3)
    for i in range(5):
        b.publish("state", {"i": i})
    _, first = b.subscribe("3")
    assert [c.split(b"\n")[0] for c in first] == [b"id: 4", b"id: 5"]
    _, first = b.subscribe("1")  # older than the backlog
    assert b"event: snapshot" in first[0] and b'"fresh":true' in first[0]
    _, first = b.subscribe("junk")
    assert b"event: snapshot" in first[0]
    _, first = b.subscribe("99")  # from before a restart
    assert b"event: snapshot" in first[0]


def test_closing_the_broker_ends_every_stream():
    b = Broker()
    sub, first = b.subscribe()
    chunks = sub.stream(first, heartbeat=30)
    assert next(chunks).startswith(b"retry:")
    assert b"snapshot" in next(chunks)
    b.close()
    assert list(chunks) == []
    with pytest.raises(RuntimeError):
        b.subscribe()


# ---------------------------------------------------------------- a real camera


def test_a_malformed_observation_is_refused_and_the_loop_goes_on(table):
    set_up(table)
    before = wait_state(table, lambda s: s["phase"] == "idle")["robots"]
    table.observe({"red": "z99"}, "camera")
    assert table.submit({"type": "reveal"}).ok  # the loop is still serving commands
    assert table.view()["robots"] == before


def test_a_robot_the_camera_does_not_see_stays_where_it_stood(tmp_path):
    table = make_table(tmp_path, sim=False)
    table.start()
    try:
        _unseen_robot_stays(table)
    finally:
        table.stop()


def _unseen_robot_stays(table: Table) -> None:
    set_up(table)
    robots = wait_state(table, lambda s: s["phase"] == "idle")["robots"]
    board = table.game.s.board
    taken = {board.cell(c) for c in robots.values()}
    free = next(board.name(c) for c in board.cells() if c not in taken
                and c not in board.blocked and board.target_at(c) is None
                and board.diagonal_at(c) is None)
    seen = {r: c for r, c in robots.items() if r != "yellow"}  # lifted off, or under glare
    table.observe({**seen, "red": free}, "camera")
    wait_state(table, lambda s: s["robots"]["red"] == free)
    assert table.game.view()["robots"] == {**robots, "red": free}, table.view()["message"]


# ---------------------------------------------------------------- the chip from the camera


def test_a_chip_the_camera_reads_while_the_game_waits_starts_the_round(table):
    set_up(table, timer=0.3)
    table.observe_chip("Blue  Triangle", color="blue")
    state = wait_state(table, lambda s: s["phase"] == "bidding")
    assert state["target"]["chip"] == "blue triangle"
    assert state["message"] == "The camera read the chip: blue triangle"
    # while the round is on, the chip on the piece is the round's: nothing else is revealed
    table.observe_chip("red circle")
    table.observe_chip(None)
    assert table.submit({"type": "bid", "seat": 0, "value": 9}).ok
    assert table.view()["target"]["chip"] == "blue triangle" and table.view()["round"] == 1
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    assert table.submit({"type": "verdict", "success": True, "by": "referee"}).ok
    wait_state(table, lambda s: s["phase"] == "round_over")
    table.observe_chip("blue triangle")  # Ann's chip still lies on the piece
    state = wait_state(table, lambda s: s["chip_seen"] is not None)
    assert state["chip_seen"]["status"] == "previous" and state["phase"] == "round_over"
    table.observe_chip(None)  # taken off ...
    wait_state(table, lambda s: s["chip_seen"] is None)
    table.observe_chip("blue triangle")  # ... and laid down again: the game refuses it
    state = wait_state(table, lambda s: "Ann has it" in s["message"])
    assert state["chip_seen"]["status"] == "refused" and state["phase"] == "round_over"
    assert "blue triangle" not in state["deck"] and "red circle" in state["deck"]


def test_a_chip_revealed_by_the_camera_and_undone_is_not_revealed_again(table):
    set_up(table)
    table.observe_chip("green square")  # misread, say: the referee undoes it
    wait_state(table, lambda s: s["phase"] == "bidding")
    assert table.submit({"type": "undo"}).ok
    table.observe_chip("green square")  # the camera looks afresh and sees the same chip
    state = wait_state(table, lambda s: s["chip_seen"] is not None)
    assert state["phase"] == "idle" and state["chip_seen"]["status"] == "previous"
    table.observe_chip("yellow hexagon")
    state = wait_state(table, lambda s: s["phase"] == "bidding")
    assert state["target"]["chip"] == "yellow hexagon"


def test_a_chip_the_camera_cannot_read_is_left_to_the_players(table):
    set_up(table)
    table.observe_chip(None, reason="the picture is too blurred", color="green")
    state = wait_state(table, lambda s: s["chip_seen"] is not None)
    assert state["phase"] == "idle" and state["chip_seen"]["status"] == "unread"
    assert "a green chip" in state["message"] and "too blurred" in state["message"]
    assert len(state["deck"]) == 17  # the page offers every chip still in the deck
    table.observe_chip("purple star")
    state = wait_state(table, lambda s: "purple star" in s["message"])
    assert "not a target chip" in state["message"] and state["phase"] == "idle"
    table.observe_chip(7)  # nonsense from a camera is reported, never played
    wait_state(table, lambda s: "not 7" in s["message"])
    assert table.submit({"type": "reveal", "chip": "green circle"}).ok


def test_a_real_camera_feed_reads_frames_and_hands_stable_layouts_to_the_table(tmp_path):
    import cv2

    from companion.rules import Move, Position
    from companion.vision.render import render

    t = make_table(tmp_path, sim=False)
    t.start()
    try:
        set_up(t)
        g = t.game.view()
        pos = Position.from_dict({"board": {"tiles": list(t.game.s.board.tiles)},
                                  "robots": g["robots"]})
        move = next(m for m, s in pos.legal_moves() if m.robot == "red")
        moved = pos.push(Move.parse(move.text()))
        expected = pos.board.name(moved.robots["red"])
        frames = tmp_path / "frames"
        frames.mkdir()
        for i in range(5):  # a mounted camera: the same view, fresh sensor noise
            shot = render(moved, seed=3, noise_seed=i, markers=True)
            cv2.imwrite(str(frames / f"{i:03d}.png"), shot.image)
        camera = CameraFeed(t, str(frames), interval=0.01)
        t.attach_camera(camera)
        camera.start()
        state = wait_state(t, lambda s: s["robots"]["red"] == expected, timeout=60)
        assert state["robots"] == {r: moved.board.name(c) for r, c in moved.robots.items()}
        camera.stop()
    finally:
        t.stop()


# ---------------------------------------------------------------- Micro Robots at the table

from companion.micro import example_layout  # noqa: E402

ROUTE = ["pink6", "white6", "red6", "red2", "white2"]  # the rule sheet's five moves


def micro_set_up(t: Table, players=("Ann", "Bo", "Cy"), **options: Any) -> dict[str, Any]:
    spec = t.pages.check_micro_setup(list(players), example_layout().to_dict(), options)
    out = t.submit(spec)
    assert out.ok, out.reason
    return spec


def place(t: Table, start: str | None = "pink1", target: str = "white2") -> None:
    cmd = {"type": "place", "target": target}
    if start:
        cmd["start"] = start
    out = t.submit(cmd)
    assert out.ok, out.reason


def test_a_micro_round_played_by_taps_wins_a_vp_chip(table):
    micro_set_up(table)
    state = wait_state(table, lambda s: s["phase"] == "idle")
    assert state["game"] == "micro-robots" and len(state["layout"]["rows"]) == 6
    place(table)
    state = wait_state(table, lambda s: s["phase"] == "round")
    assert state["timer"]["running"] and state["timer"]["total"] == 150
    assert state["last_round"] is None and state["chips_in_supply"] == 24
    assert table.submit({"type": "call", "seat": 1, "number": 5}).ok
    assert not table.submit({"type": "call", "seat": 2, "number": 3}).ok  # the first call
    for space in ROUTE:
        out = table.submit({"type": "land", "space": space})
        assert out.ok, out.reason
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "success" and state["verdict"]["name"] == "Bo"
    assert [p["vp"] for p in state["players"]] == [0, 1, 0]
    assert state["last_round"]["shortest"] == 5 and state["last_round"]["lengths"]
    assert state["robot"] == "white2" and state["start"] == "white2"
    assert table.micro_sim.robot == "white2"  # the robot stays on the target


def test_an_illegal_landing_is_explained_and_costs_a_chip(table):
    micro_set_up(table)
    place(table)
    assert table.submit({"type": "call", "seat": 1, "number": 5}).ok
    for space in ROUTE:
        assert table.submit({"type": "land", "space": space}).ok
    assert table.submit({"type": "place", "target": "pink1"}).ok
    assert table.submit({"type": "call", "seat": 1, "number": 2}).ok
    assert table.submit({"type": "land", "space": "green5"}).ok  # not in line with white2
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    v = state["verdict"]
    assert v["result"] == "illegal" and "not in the same row or column" in v["reason"]
    # Bo's chip goes to the fewest, Ann and Cy tied: the nearest clockwise from Bo is Cy
    assert v["chip_to"] == "Cy" and [p["vp"] for p in state["players"]] == [0, 0, 1]
    assert state["chips_in_supply"] == 24 and state["robot"] == "pink1"


def test_the_simulated_camera_judges_a_demonstration_from_the_robots_landings(table):
    micro_set_up(table)
    place(table)
    wait_state(table, lambda s: s["seen"] == "pink1")  # the camera sees the robot on start
    assert table.submit({"type": "call", "seat": 0, "number": 5}).ok
    for i, space in enumerate(ROUTE, 1):
        table.hand.put_micro(None)  # the hand lifts it: hidden, no landing
        table.hand.put_micro(space)
        if i < len(ROUTE):
            state = wait_state(table, lambda s, i=i: s["demonstrating"] and len(
                s["demonstrating"]["landings"]) == i)
            assert state["demonstrating"]["landings"][-1] == space
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "success" and state["verdict"]["by"] == "rules"


def test_the_camera_seam_takes_a_robots_space_or_none_and_refuses_nonsense(table):
    micro_set_up(table)
    place(table)
    assert table.submit({"type": "call", "seat": 2, "number": 5}).ok
    table.observe_micro(None)
    table.observe_micro("pink1")  # set down on the start: where it stood, no landing
    table.observe_micro("purple 9")
    state = wait_state(table, lambda s: "purple" in s["message"])
    assert state["demonstrating"]["landings"] == []
    table.observe_micro("pink 6")
    state = wait_state(table, lambda s: s["demonstrating"]["landings"] == ["pink6"])
    table.observe_micro("pink6")  # seen again where it rests: nothing new
    table.observe_micro("green5")  # an illegal landing from the camera ends it
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "illegal" and state["verdict"]["by"] == "rules"


def test_a_layout_proposed_by_the_camera_waits_for_the_user(table):
    rows = [[s.name for s in row] for row in example_layout().rows]
    rows[0][0] = None
    rows[1][1] = "pink1"  # misread: pink 1 twice, blue 4 missing
    conf = [[0.9] * 6 for _ in range(6)]
    conf[1][1] = 0.3
    table.propose_layout(rows, conf)
    state = wait_state(table, lambda s: s["proposal"])
    p = table.pages.proposal()
    assert p["rows"][1][1] == "pink1" and p["confidence"][1][1] == 0.3
    assert any("pink 1 appears twice" in x for x in p["problems"])
    assert "confirm" in state["message"]
    table.propose_layout([["pink1"]], None)
    wait_state(table, lambda s: "six rows" in s["message"] or "6 rows" in s["message"])
    table.propose_layout(rows, [[2.0] * 6] * 6)
    wait_state(table, lambda s: "confidence" in s["message"])
    assert table.pages.proposal()["confidence"][1][1] == 0.3  # a bad proposal changes nothing


def test_the_simulated_camera_shows_the_micro_table(table):
    import cv2
    import numpy as np

    from companion.vision.micro import read_micro_layout

    micro_set_up(table)
    place(table)
    image = cv2.imdecode(np.frombuffer(table.eyes.jpeg(overlay=False), np.uint8),
                         cv2.IMREAD_COLOR)
    reading = read_micro_layout(image)
    assert reading.rows == [[s.name for s in row] for row in example_layout().rows]
    assert reading.robot == "pink1"
    assert table.eyes.jpeg(overlay=True) != table.eyes.jpeg(overlay=False)
    assert len(table.eyes.detected()["corners"]) == 4


def test_the_micro_layout_is_read_from_the_simulated_camera(table):
    micro_set_up(table)
    proposal = table.pages.read_layout()
    assert proposal["rows"] == [[s.name for s in row] for row in example_layout().rows]
    assert proposal["source"] == "camera" and proposal["problems"] == []
    assert wait_state(table, lambda s: s["proposal"])["message"].endswith("under Layouts")


def test_a_micro_game_comes_back_mid_round_after_a_restart(tmp_path):
    t = make_table(tmp_path)
    t.start()
    micro_set_up(t)
    place(t)
    assert t.submit({"type": "call", "seat": 1, "number": 5}).ok
    assert t.submit({"type": "land", "space": "pink6"}).ok
    before = t.view()
    t.stop()
    again = make_table(tmp_path)
    again.start()
    try:
        state = wait_state(again, lambda s: s["phase"] == "demonstrating")
        assert state["demonstrating"] == before["demonstrating"]
        assert state["layout"] == before["layout"] and state["players"] == before["players"]
        assert again.micro_sim.robot == "pink6"  # the hand put the robot back where it was
        for space in ROUTE[1:]:
            assert again.submit({"type": "land", "space": space}).ok
        assert wait_state(again, lambda s: s["phase"] == "round_over")["verdict"]["result"] \
            == "success"
    finally:
        again.stop()


def test_switching_to_micro_and_back_is_a_new_game_each_time(table):
    set_up(table)
    assert table.submit({"type": "reveal"}).ok
    micro_set_up(table)
    state = wait_state(table, lambda s: s.get("game") == "micro-robots")
    assert state["phase"] == "idle" and state["board"] is None
    set_up(table)
    state = wait_state(table, lambda s: s["game"] == "ricochet-robots" and s["phase"] == "idle")
    assert table.micro_sim.layout is None
    games = table.pages.history()["games"]
    assert [g["game"] for g in games] == ["ricochet-robots", "micro-robots", "ricochet-robots"]


def test_the_stall_hourglass_rerolls_the_target_on_the_loops_clock(tmp_path):
    t = make_table(tmp_path)
    t.start()
    try:
        spec = t.pages.check_micro_setup(["Ann", "Bo"], example_layout().to_dict(), {})
        spec["options"]["stall_seconds"] = 0.5  # below what a user may choose: a test's clock
        assert t.submit(spec).ok
        place(t)
        state = wait_state(t, lambda s: s["round"] == 1 and s["target"] != "white2")
        assert state["phase"] == "round" and "new target" in state["message"]
    finally:
        t.stop()


@pytest.mark.parametrize("players, layout, options, words", [
    (["Ann"], None, {}, "2 to"),
    (["Ann", "Bo"], None, {}, "choose a saved layout"),
    (["Ann", "Bo"], "nowhere", {}, "no layout called"),
    (["Ann", "Bo"], {"rows": [["pink1"] * 6] * 6}, {}, "pink 1 appears 36 times"),
    (["Ann", "Bo"], "EXAMPLE", {"stall_seconds": 5}, "60 to 600"),
    (["Ann", "Bo"], "EXAMPLE", {"speed": 5}, "unknown option"),
])
def test_a_bad_micro_setup_names_the_field(table, players, layout, options, words):
    if layout == "EXAMPLE":
        layout = example_layout().to_dict()
    with pytest.raises(ValueError, match=words):
        table.pages.check_micro_setup(players, layout, options)


def released(t: Table, name: str, index: int | None = None) -> None:
    """Wait until a virtual button's last tap is released (a tap lasts a moment)."""
    end = time.monotonic() + WAIT
    while not t.hardware.pin(name, index).state:
        assert time.monotonic() < end
        time.sleep(0.01)


@pytest.mark.slow
def test_the_buttons_play_micro_robots(tmp_path, factory):
    t = make_table(tmp_path)
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"), clock=t.now,
                               pin_factory=factory))
    t.start()
    try:
        micro_set_up(t, players=("Ann", "Bo"))
        t.hand.press("start")  # roll the dice
        state = wait_state(t, lambda s: s["phase"] == "round")
        assert state["target"] and state["start"] and state["target"] != state["start"]
        first = state["target"]
        assert t.hardware.sync()
        levels = [t.hardware.devices["hourglass"][i].value
                  for i in range(len(t.hardware.pins.hourglass))]
        assert levels[0] > 0  # the stall hourglass runs on the LED bar
        released(t, "start")
        t.hand.press("start")  # a tap while a target is out: the table re-rolls it
        end = time.monotonic() + WAIT
        while t.call(lambda: t.store.commands()[-1]["type"]) != "reroll":
            assert time.monotonic() < end
            time.sleep(0.02)
        assert first  # (the new target may be the same space again: dice are dice)
        t.hardware.turn(4)
        t.hand.press("bid-1")  # Bo's button: call the dial's number
        state = wait_state(t, lambda s: s["phase"] == "demonstrating")
        assert state["demonstrating"]["seat"] == 1 and state["demonstrating"]["number"] == 4
        # the LEDs are shown just after the page: wait until the buttons know who demonstrates
        end = time.monotonic() + WAIT
        released(t, "bid", 1)
        while (t.hardware._view or {}).get("demonstrating") != 1:
            assert time.monotonic() < end
            time.sleep(0.01)
        t.hand.press("bid-1-hold")  # held by the demonstrator: she gives up
        state = wait_state(t, lambda s: s["phase"] == "round_over", timeout=WAIT)
        assert state["verdict"]["result"] == "gave_up"
    finally:
        t.stop()


def test_the_transparent_robot_variant_plays_a_round_on_the_simulated_table(table):
    info = table.pages.setup_info()
    option = next(o for o in info["options"] if o["name"] == "transparent_robot")
    assert option["kind"] == "bool" and "transparent robot (variant" in option["label"]
    spec = table.pages.check_setup(["Ann", "Ben"], "abacus-2013",
                             {"timer_seconds": 0.3, "transparent_robot": True}, None)
    assert table.submit(spec).ok
    state = wait_state(table, lambda s: "transparent" in s["robots"])
    assert table.sim.truth()["transparent"] == state["robots"]["transparent"]
    assert table.submit({"type": "reveal", "chip": "vortex"}).ok  # any robot, the transparent too
    wait_state(table, lambda s: s["optimal_known"])
    opt = table.pages.solution()
    assert table.submit({"type": "bid", "seat": 0, "value": opt["length"]}).ok
    wait_state(table, lambda s: s["phase"] == "demonstrating")
    for move in opt["moves"]:
        robot, how = move.split(" ", 1)  # the transparent robot's choices ride along: "up +wall"
        table.hand.slide(robot, how)
    state = wait_state(table, lambda s: s["phase"] == "round_over")
    assert state["verdict"]["result"] == "success", state["verdict"]


def test_the_simulated_hand_passes_walls_with_the_transparent_robot(table):
    from companion.rules import Move, Position

    spec = table.pages.check_setup(["Ann", "Ben"], "abacus-2013", {"transparent_robot": True}, None)
    assert table.submit(spec).ok
    wait_state(table, lambda s: "transparent" in s["robots"])
    board, robots = table.sim.board, dict(table.sim.robots)
    others = {c for r, c in robots.items() if r != "transparent"}
    # a free cell from which passing one wall goes further than stopping at it
    found = None
    for cell in board.cells():
        if cell in others or cell in board.blocked or found:
            continue
        pos = Position(board, {**robots, "transparent": cell}, None, table.sim.rules)
        for d in ("up", "down", "left", "right"):
            plain = pos.slide(Move.parse(f"transparent {d}"))
            passed = pos.slide(Move.parse(f"transparent {d} +wall"))
            if passed.error is None and passed.moved and passed.end != plain.end:
                found = (cell, d, passed.end)
                break
    assert found is not None
    cell, d, end = found
    table.sim.place({**{r: board.name(c) for r, c in robots.items()},
                     "transparent": board.name(cell)})
    where = table.hand.slide("transparent", f"{d} +wall")
    assert where["transparent"] == board.name(end)


def test_a_table_started_for_micro_robots_offers_it_first_in_setup(tmp_path):
    t = make_table(tmp_path, preset="micro-robots")
    t.start()
    try:
        info = t.pages.setup_info()
        assert info["game"] == "micro-robots" and info["preset"] == "abacus-2013"
        assert "micro-robots" not in info["presets"]
        assert info["micro"]["options"]["stall_seconds"] == 150
    finally:
        t.stop()


def test_a_misread_robot_during_a_demonstration_is_asked_about_not_judged(table):
    # the camera sees the first move and, at once, a robot standing still on a cell no legal
    # moves reach: the page asks about it, the move counts, no verdict is given
    asked = ask(table)
    still, wrong, seen, view = asked["still"], asked["wrong"], asked["seen"], asked["state"]
    assert f"{still} seen on {wrong}" in view["message"]
    assert view["phase"] == "demonstrating" and view["demonstrating"]["count"] == 1
    # the moving robot then seen where nothing stops it, the doubt still open: unsure, and
    # the players judge (no verdict, the question on the page)
    table.observe(None, "camera")
    after, mover = asked["after"], asked["mover"]
    stray = after.board.name(unreachable(after, mover, (asked["wrong_cell"],)))
    table.observe({**seen, still: wrong, mover: stray}, "camera")
    view = wait_state(table, lambda s: "not sure" in s["message"])
    assert view["phase"] == "demonstrating" and view["verdict"] is None
    assert f"{still} seen on {wrong} — is that right?" in view["message"]


def test_done_while_the_camera_sees_no_robot_of_the_end_is_left_to_the_referee(tmp_path):
    table = make_table(tmp_path, sim=False)
    table.start()
    try:
        set_up(table, timer=0.3)
        robots = wait_state(table, lambda s: s["phase"] == "idle")["robots"]
        assert table.submit({"type": "reveal"}).ok
        assert table.submit({"type": "bid", "seat": 0, "value": 5}).ok
        wait_state(table, lambda s: s["phase"] == "demonstrating")
        table.observe(None, "camera")  # a hand over the board, then yellow is not seen
        table.observe({r: c for r, c in robots.items() if r != "yellow"}, "camera")
        wait_state(table, lambda s: "yellow" in str(s["message"]))
        out = table.submit({"type": "done", "seat": 0})
        assert not out.ok and out.reason.key == "refuse.camera_unsure"
        assert f"yellow is not seen (last seen on {robots['yellow']})" in str(out.reason)
        state = wait_state(table, lambda s: s["phase"] == "demonstrating")
        assert state["verdict"] is None  # no failure: the referee judges
        assert table.submit({"type": "verdict", "success": False, "by": "referee"}).ok
    finally:
        table.stop()
