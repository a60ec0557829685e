"""An arrival that passes the bid only with another robot's reading waits for a second look
(companion.verify_arrival): a robot standing still misread in the very look of the arrival
never tells a player who did it right that they passed the bid, and an over-bid hidden under
the arrival's hand is still an over-bid once the board is seen again after a hand (never a
success; unsure when the demonstration ends first)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.benchmarks import verify as bench
from companion.rules import Position
from companion.verify import Demonstration
from companion.verify_replay import replay

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def open_board() -> Position:
    """Blue on a1 for the target h1 (one move right); green far away on d5."""
    return Position.from_dict({"board": {"size": 8, "walls": []},
                               "robots": {"blue": "a1", "green": "d5"},
                               "target": {"cell": "h1", "robot": "blue"},
                               "rules": {"ricochet": "off"}})


ARRIVAL = {"blue": "h1", "green": "d8"}  # blue arrives; green read on d8 (green up)


def verdicts(events: list[dict]) -> list[str]:
    return [e["verdict"] for e in events if "verdict" in e]


def test_the_arrival_look_is_held_with_a_question_and_no_move_counted():
    demo = Demonstration(open_board(), bid=1)
    events = demo.observe(None, at=1.0) + demo.observe(ARRIVAL, at=2.0)
    assert [e["type"] for e in events] == ["occluded", "doubt"]
    doubt = events[-1]
    assert doubt["robots"] == {"green": {"seen": "d8", "believed": "d5"}}
    assert doubt["question"] == "green seen on d8 — is that right?"
    assert demo.count == 0 and demo.verdict is None and demo.unsure_end


def test_a_robot_seen_back_without_a_hand_was_misread_and_the_arrival_succeeds():
    demo = Demonstration(open_board(), bid=1)
    demo.observe(None, at=1.0)
    demo.observe(ARRIVAL, at=2.0)
    events = demo.observe({"blue": "h1", "green": "d5"}, at=3.0)  # no hand since
    assert verdicts(events) == ["success"]
    assert [e["move"] for e in events if e["type"] == "move"] == ["blue right"]


def test_the_same_reading_after_a_hand_counts_every_move_an_over_bid():
    demo = Demonstration(open_board(), bid=1)
    demo.observe(None, at=1.0)
    demo.observe(ARRIVAL, at=2.0)
    assert verdicts(demo.observe(None, at=3.0)) == []
    events = demo.observe({"blue": "c4", "green": "d8"}, at=4.0)  # green still there
    assert verdicts(events) == ["over_bid"]
    assert [e["move"] for e in events if e["type"] == "move"] == ["green up", "blue right"]


def test_seen_back_after_a_hand_is_unsure_a_hand_may_have_put_it_back():
    demo = Demonstration(open_board(), bid=1)
    demo.observe(None, at=1.0)
    demo.observe(ARRIVAL, at=2.0)
    demo.observe(None, at=3.0)
    events = demo.observe({"blue": "h1", "green": "d5"}, at=4.0)
    assert verdicts(events) == ["unsure"]
    assert events[0]["question"] == "green seen on d8 — is that right?"


def test_no_news_keeps_it_held_and_done_then_is_unsure():
    demo = Demonstration(open_board(), bid=1)
    demo.observe(None, at=1.0)
    demo.observe(ARRIVAL, at=2.0)
    # green read on a third cell, no hand: a robot does not move by itself; still held
    assert demo.observe({"blue": "h1", "green": "f8"}, at=3.0) == []
    # a robot lost to the camera while held counts nothing
    assert verdicts(demo.observe({"blue": "h1"}, at=4.0)) == []
    assert demo.count == 0
    ended = demo.done(at=5.0)
    assert verdicts(ended) == ["unsure"]
    assert ended[0]["question"] == "green seen on d8 — is that right?"


def test_an_arrival_that_fails_on_its_own_is_judged_at_once():
    # a bid of 1 and blue needs two moves (up, then right): the other robot's reading does
    # not make the failure, so it is not held
    p = Position.from_dict({"board": {"size": 8, "walls": []},
                            "robots": {"blue": "a1", "green": "d5"},
                            "target": {"cell": "h8", "robot": "blue"},
                            "rules": {"ricochet": "off"}})
    demo = Demonstration(p, bid=1)
    events = demo.observe(None, at=1.0) + demo.observe({"blue": "h8", "green": "d1"}, at=2.0)
    assert verdicts(events) == ["over_bid"]


def test_passing_over_the_target_before_the_bid_with_a_misread_robot_goes_on():
    # Red right reaches the target p6 at move 1 of a bid of 3 (no success yet: the bid is
    # not met); blue, standing still, is misread on p8 in that look. Red's own move is no
    # failure, so blue is doubted and red's move counted, as in any other look (not held):
    # after the next hand blue is seen back, red goes down and up again, a success.
    position = Position.from_dict({
        "board": {"tiles": ["2A", "3C", "1D", "4C"]},
        "robots": {"red": "c6", "green": "d14", "blue": "o15", "yellow": "c13"},
        "target": {"cell": "p6", "robot": "red"}})
    still = {"green": "d14", "yellow": "c13"}
    looks = [{**still, "red": "p6", "blue": "p8"}, {**still, "red": "p1", "blue": "o15"},
             {**still, "red": "p6", "blue": "o15"}]
    result = replay(position, 3, [(float(t), o) for t, o in enumerate(
        x for look in looks for x in (None, look))])
    assert result.verdict == "success" and result.count == 3, result.reason


def _looks(rec: bench.Recorded, last: dict[str, int] | None) -> list:
    """Each recorded state after a hand; ``last``: the final state misread so (then seen
    truly, no hand between)."""
    board = rec.position.board
    out: list = []
    for s in rec.states[:-1]:
        out += [None, {r: board.name(c) for r, c in s.items()}]
    truth = {r: board.name(c) for r, c in rec.states[-1].items()}
    if last is not None:
        out += [None, {r: board.name(c) for r, c in last.items()}, truth]
    else:
        out += [None, truth]
    return [(float(t), o) for t, o in enumerate(out)]


def _misread_at_arrival(rec: bench.Recorded, data: st.DataObject) -> dict[str, int]:
    """The final state with one robot that stood still in the last move read on a free cell
    (not the target)."""
    board = rec.position.board
    end = rec.states[-1]
    robot = data.draw(st.sampled_from([r for r in bench.ROBOTS if r != rec.movers[-1]]),
                      label="robot")
    taken = set(end.values()) | {rec.position.target.cell}
    cell = data.draw(st.sampled_from([c for c in board if c not in board.blocked
                                      and c not in taken]), label="cell")
    return {**end, robot: cell}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, data=st.data())
def test_an_honest_route_with_a_still_robot_misread_at_the_arrival_stays_a_success(seed, data):
    rec = bench.recorded_demo(random.Random(seed), "honest")
    result = replay(rec.position, rec.bid, _looks(rec, _misread_at_arrival(rec, data)))
    assert result.verdict == "success", (result.reason, rec.movers)
    assert result.count == len(rec.states)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, data=st.data())
def test_an_over_bid_with_a_still_robot_misread_at_the_arrival_stays_an_over_bid(seed, data):
    rec = bench.recorded_demo(random.Random(seed), "over_bid")
    result = replay(rec.position, rec.bid, _looks(rec, _misread_at_arrival(rec, data)))
    assert result.verdict == "over_bid", (result.reason, rec.movers)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, data=st.data())
def test_an_over_bid_hidden_under_the_arrivals_hand_is_never_a_success(seed, data):
    """An honest route whose arrival look also hides one legal move of another robot (so it
    passes the bid by that move): an over-bid once the end is seen again after a hand,
    unsure when the demonstration ends before; never a success."""
    rec = bench.recorded_demo(random.Random(seed), "honest")
    before = rec.position.with_robots(rec.states[-2]) if len(rec.states) > 1 else rec.position
    target = rec.position.target
    extra = [m for m, s in before.legal_moves()
             if m.robot != rec.movers[-1] and s.end != target.cell]
    if not extra:
        return
    move = data.draw(st.sampled_from(extra), label="move")
    mid = before.push(move)
    hero = rec.movers[-1]
    arrive = [m for m, s in mid.legal_moves() if m.robot == hero and s.end == target.cell]
    if not arrive:
        return  # the other robot's move is in the arrival's way
    last = mid.push(arrive[0]).robots
    board = rec.position.board
    looks = [(float(t), o) for t, o in enumerate(
        [x for s in rec.states[:-1] for x in (None, {r: board.name(c) for r, c in s.items()})]
        + [None, {r: board.name(c) for r, c in last.items()}])]
    ended = replay(rec.position, rec.bid, looks)
    assert ended.verdict in ("over_bid", "unsure"), (ended.verdict, ended.reason)
    again = replay(rec.position, rec.bid, [*looks, (99.0, None), (100.0, looks[-1][1])])
    assert again.verdict == "over_bid", (again.verdict, again.reason, rec.movers, move)


def _back_at_arrival(rec: bench.Recorded) -> list[dict[str, int]]:
    """The final state with one robot that stood still in the last move misread on a cell it
    stood on earlier in the demonstration (as if its moves there were a misreading)."""
    end = rec.states[-1]
    out = []
    for robot in end:
        if robot == rec.movers[-1]:
            continue
        for cell in {s[robot] for s in [rec.position.robots, *rec.states[:-1]]} - {end[robot]}:
            if cell not in end.values() and cell != rec.position.target.cell:
                out.append({**end, robot: cell})
    return out


@pytest.mark.parametrize("kind", ["honest", "over_bid"])
def test_a_still_robot_misread_at_the_arrival_where_it_stood_before_takes_no_move_back(kind):
    # That reading alone would take back the robot's moves counted before: an over-bid then
    # passed for a success (78 of 116 such cases), an honest route for a shorter one. The
    # arrival is held until the next look shows the robot where it is believed.
    tried = 0
    for seed in range(60):
        rec = bench.recorded_demo(random.Random(seed), kind)
        for last in _back_at_arrival(rec):
            result = replay(rec.position, rec.bid, _looks(rec, last))
            assert result.verdict == ("success" if kind == "honest" else "over_bid"), (
                seed, last, result.reason)
            if kind == "honest":
                assert result.count == len(rec.states), (seed, last)
            tried += 1
    assert tried > 20
