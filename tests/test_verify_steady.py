"""A robot read alone where its moves left it, and read there again after a hand, is where it
was read: its moves are not taken back as a misreading when it is later seen back on the cell
it left (:class:`companion.verify_caution.Steady`). One look alone, or several robots read
changed together (a wrong north, several robots misread at once, which can last over several
looks), are still taken for a misreading."""

from __future__ import annotations

from test_verify import of_type

from companion.benchmarks import verify as bench
from companion.board import Board
from companion.rules import Goal, Position
from companion.verify import Demonstration
from companion.verify_replay import replay, stable_looks

# Drawn by the one-hand row of `companion bench verify` (seed 716, the 22nd illegal
# demonstration): red up from h6 stops on h7 (a wall); green up; then, under one hand, red down
# (to h1) and red put back on h6, where nothing stops it going up.
START = {"red": "h6", "green": "a7", "blue": "h10", "yellow": "i16"}
RED_UP = {**START, "red": "h7"}
GREEN_UP = {**RED_UP, "green": "a9"}
RED_BACK = {**GREEN_UP, "red": "h6"}


def position() -> Position:
    board = Board.from_tiles(["4D", "3A", "1C", "2B"])
    robots = {r: board.cell(c) for r, c in START.items()}
    return Position(board, robots, Goal(board.cell("e7"), "red"))


def judged(looks: list, bid: int = 7) -> tuple[list[dict], dict]:
    demo = Demonstration(position(), bid)
    events: list[dict] = []
    for k, look in enumerate(looks):
        events += demo.observe(look, at=float(k))
        if demo.verdict is not None:
            break
    if demo.verdict is None:
        events += demo.done(at=float(len(looks)))
    assert demo.verdict is not None
    return events, demo.verdict


def test_a_move_seen_again_after_a_hand_is_not_taken_back_when_the_robot_is_put_back():
    # red read on h7 in two looks a hand apart (green moved in the second): red stood there.
    # Seen back on h6, where no legal move takes it, is red's own illegal move; it was taken
    # back as a misreading before, and the demonstration judged "incomplete" (no move made)
    events, verdict = judged([None, RED_UP, None, GREEN_UP, None, RED_BACK])
    assert not of_type(events, "rewound")
    assert verdict["verdict"] == "illegal" and verdict["reason"].startswith("red stopped on h6")
    assert verdict["route"] == "red up, green up"


def test_the_recorded_demonstration_is_judged_illegal_through_the_tracker():
    p = position()
    board = p.board
    states = [{r: board.cell(c) for r, c in s.items()}
              for s in (RED_UP, GREEN_UP, {**GREEN_UP, "red": "h1"}, RED_BACK)]
    rec = bench.Recorded("illegal", p, 7, states, ["red", "green", "red", "red"], together=(3,))
    assert bench.judge(rec, bench.true_readings(rec)) == "illegal"
    looks = stable_looks((float(t), r) for t, r in enumerate(bench.true_readings(rec)))
    assert not of_type(replay(p, 7, looks).events, "rewound")


def test_a_move_seen_in_one_look_alone_is_still_taken_back():
    # red read on h7 for one still spell and back on h6 after the next hand: nothing tells a
    # misreading of red standing still from red's move and an illegal way back, so the move
    # is taken back (the demonstration made no move)
    events, verdict = judged([None, RED_UP, None, START])
    (rewound,) = of_type(events, "rewound")
    assert rewound["robot"] == "red" and rewound["to"] == "h6"
    assert verdict["verdict"] == "incomplete"


def test_a_move_read_beside_another_robot_changed_is_taken_back_even_seen_again():
    # red's change came with yellow's in one look (yellow standing still, misread far away),
    # and both readings stayed over a hand: several robots misread at once can keep their
    # wrong cells over several looks, so red's move is still a misreading when it is seen
    # back on h6 (never an "illegal" from readings that may all be one misreading)
    misread = {**RED_UP, "yellow": "m3"}
    events, verdict = judged([None, misread, None, misread, None, START])
    assert of_type(events, "rewound") and verdict["verdict"] != "illegal"
