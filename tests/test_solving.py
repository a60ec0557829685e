"""The solver on its own thread: one search at a time, its answer delivered once, a cancelled
search never delivered."""

from __future__ import annotations

import threading

from companion.rules import Position
from companion.solver import solve
from companion.solving import Solving, all_routes

POSITION = {"board": {"size": 16}, "robots": {"red": "a1", "blue": "p16"},
            "target": {"cell": "a16", "robot": "red"}}


def _position() -> Position:
    return Position.from_dict(POSITION)


def test_the_answer_comes_back_once_with_every_optimal_route():
    got: list = []
    done = threading.Event()
    s = Solving(solve, 10.0, deliver=lambda a: (got.append(a), done.set()))
    s.start(3, _position())
    assert s.busy and s.round == 3
    assert done.wait(10)
    number, pos, result, err, routes = got[0]
    assert (number, err, result.status) == (3, None, "solved")
    assert routes["count"] == len(routes["routes"]) >= 1
    assert all(len(r) == len(result.moves) for r in routes["routes"])
    s.answered(3)
    assert not s.busy


def test_a_cancelled_search_is_never_delivered_and_a_failing_one_says_why():
    started, release = threading.Event(), threading.Event()

    def slow(pos, deadline, cancel):
        started.set()
        release.wait(5)
        return None

    got: list = []
    s = Solving(slow, 10.0, deliver=got.append)
    s.start(1, _position())
    assert started.wait(5)
    s.cancel()
    release.set()
    assert not s.busy

    def broken(pos, deadline, cancel):
        raise RuntimeError("out of memory")

    done = threading.Event()
    s = Solving(broken, 10.0, deliver=lambda a: (got.append(a), done.set()))
    s.start(2, _position())
    assert done.wait(5)
    assert got == [(2, got[0][1], None, "out of memory", None)]


def test_without_a_solver_nothing_runs():
    s = Solving(None, 1.0, deliver=lambda a: None)
    s.start(1, _position())
    assert not s.busy


def test_routes_are_listed_only_for_a_solved_round():
    assert all_routes(_position(), None, 0.0) is None
