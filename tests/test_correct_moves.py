"""The ``moves`` correction: the camera takes back moves it counted for a misreading. Only
moves made can be kept, in their order; what is kept must be legal and not yet a success;
anything else is refused, naming what is wrong, and the game is as it was."""

from __future__ import annotations

import pytest
from conftest import SMALL_BOARD as BOARD
from conftest import SMALL_ROBOTS as ROBOTS
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.game import Game, GameError


def demonstrating(moves: list[str]) -> Game:
    """Anna bids 3 on the blue triangle (h8), the hourglass runs out, and she makes ``moves``."""
    g = Game()
    g.apply({"type": "setup", "at": 0, "players": ["Anna", "Ben"], "seed": 7, "board": BOARD,
             "robots": ROBOTS})
    g.apply({"type": "reveal", "at": 1, "chip": "blue triangle"})
    g.apply({"type": "bid", "at": 2, "seat": 0, "value": 3})
    g.apply({"type": "tick", "at": 700})
    for i, m in enumerate(moves):
        g.apply({"type": "move", "at": 701 + i, "move": m, "seat": 0})
    assert g.phase == "demonstrating"
    return g


def correct(g: Game, moves, at: float = 800) -> list[dict]:
    return g.apply({"type": "correct", "at": at, "moves": moves, "by": "camera"})


def test_moves_taken_back_leave_the_robots_where_the_kept_moves_put_them():
    g = demonstrating(["blue up", "red up"])
    events = correct(g, ["blue up"])
    assert events[0]["type"] == "corrected" and events[0]["taken_back"] == 1
    assert g.s.round.moves == ["blue up"]
    assert g.s.cells(g.s.robots) == {**ROBOTS, "blue": "a8"}
    g.apply({"type": "move", "at": 900, "move": "blue right", "seat": 0})
    assert g.s.verdict["success"] and g.s.verdict["moves"] == 2


@pytest.mark.parametrize(("moves", "words"), [
    (["blue right"], "only moves made can be kept"),
    (["red up", "blue up"], "only moves made can be kept"),
    ("blue up", "the moves left"),
    ([1], "the moves left"),
    (["blue up", "red up", "red up"], "only moves made can be kept"),
])
def test_a_correction_that_keeps_what_was_not_made_is_refused(moves, words):
    g = demonstrating(["blue up", "red up"])
    before = (list(g.s.round.moves), dict(g.s.robots))
    with pytest.raises(GameError, match=words):
        correct(g, moves)
    assert (g.s.round.moves, g.s.robots) == before


def test_kept_moves_that_would_be_a_success_are_refused():
    # red up to c8 stops blue on b8; without red's move blue's slide right reaches h8, the
    # target: a success is given with a verdict, never made by taking moves away
    g = demonstrating(["red up", "blue up", "blue right"])
    assert g.s.cells(g.s.robots)["blue"] == "b8"
    with pytest.raises(GameError, match="would be a success"):
        correct(g, ["blue up", "blue right"])
    assert g.s.round.moves == ["red up", "blue up", "blue right"]


def test_outside_a_demonstration_there_are_no_moves_to_correct():
    g = Game()
    g.apply({"type": "setup", "at": 0, "players": ["Anna", "Ben"], "seed": 7, "board": BOARD,
             "robots": ROBOTS})
    g.apply({"type": "reveal", "at": 1, "chip": "blue triangle"})
    with pytest.raises(GameError, match="no demonstration"):
        correct(g, [])


@settings(max_examples=60, deadline=None)
@given(keep=st.lists(st.sampled_from(["blue up", "red up", "green right", "yellow down",
                                      "blue right"]), max_size=3))
def test_any_correction_is_taken_as_a_subsequence_or_refused_with_the_game_unchanged(keep):
    g = demonstrating(["blue up", "red up"])
    before = (list(g.s.round.moves), dict(g.s.robots), g.phase)
    try:
        correct(g, keep)
    except GameError as e:
        assert str(e)
        assert (g.s.round.moves, g.s.robots, g.phase) == before
        return
    made = iter(before[0])
    assert all(any(m == x for x in made) for m in keep)  # kept in the order made
    assert g.s.round.moves == keep and g.phase == "demonstrating"
