"""Two unsure readers agreeing (``cells.concur``): a translucent robot washed out by bright
light or haze is too faint for the colour scores to report and too unlike the robots the
classifier learnt for it to be sure alone, yet both name the same cell and nothing else comes
near; and a sand timer on the centre piece is never taken for the colourless robot."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import class_probs

from companion.board import cell_name
from companion.vision.cells import (
    CONCUR,
    CONCUR_FLOOR,
    ONE_COLOURLESS,
    RIVAL,
    SURE,
    SURE_LEAD,
    CellVerdict,
    concur,
)
from companion.vision.cells import _colourless_rivals as colourless_rivals
from companion.vision.cells import _timer_doubts as timer_doubts
from companion.vision.colours import Profile
from companion.vision.read import Reader
from companion.vision.render3d import gl_available, random_frame
from companion.vision.robots import RobotHit

needs_gl = pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")

CELLS = np.array([[4, 5], [4, 6], [11, 2]])  # a cell, the one behind it, one far away


def _score(values: dict[tuple[int, int], float]) -> np.ndarray:
    s = np.zeros((16, 16))
    for (c, r), v in values.items():
        s[r, c] = v
    return s


def test_two_unsure_readers_naming_one_cell_place_the_robot():
    # each below its own bar: the classifier under SURE, the colour scores faint
    p = (CONCUR + SURE) / 2
    probs = class_probs([{"red": p}, {"red": 0.1}, {}])
    score = _score({(4, 5): CONCUR_FLOOR + 0.02, (9, 9): CONCUR_FLOOR})
    assert concur(probs, CELLS, "red", ["red"], score) == ((4, 5), pytest.approx(p))


def test_the_readers_must_name_the_same_cell():
    probs = class_probs([{"red": 0.3}, {"red": 0.75}, {}])
    score = _score({(4, 5): 0.3})  # the colour scores' best is not the classifier's
    assert concur(probs, CELLS, "red", ["red"], score) is None


def test_each_reader_must_say_something():
    score = _score({(4, 5): 0.3})
    assert concur(class_probs([{"red": CONCUR - 0.05}, {}, {}]), CELLS, "red", ["red"],
                  score) is None
    probs = class_probs([{"red": 0.75}, {}, {}])
    assert concur(probs, CELLS, "red", ["red"], _score({(4, 5): CONCUR_FLOOR / 2})) is None
    assert concur(probs, CELLS, "red", ["red"], None) is None


def test_a_colourless_robot_is_never_placed_by_agreement():
    # from straight above a robot's shadow lies beside it, as dark and colourless as the
    # black or silver robot: both readers half see one there (a lifted silver robot was)
    score = _score({(4, 5): 0.47})
    for colour in ("black", "silver"):
        probs = class_probs([{colour: 0.8}, {}, {}])
        assert concur(probs, CELLS, colour, ["red", colour], score) is None
    assert concur(class_probs([{"red": 0.8}, {}, {}]), CELLS, "red", ["red"], score)[0] == (4, 5)


def test_a_far_cell_the_classifier_nearly_likes_as_much_leaves_the_robot_unplaced():
    score = _score({(4, 5): 0.3})
    probs = class_probs([{"green": 0.75}, {}, {"green": 0.75 - RIVAL + 0.05}])
    assert concur(probs, CELLS, "green", ["green"], score) is None
    probs = class_probs([{"green": 0.75}, {}, {"green": 0.75 - RIVAL - 0.05}])
    assert concur(probs, CELLS, "green", ["green"], score)[0] == (4, 5)


def test_a_colourless_robot_where_a_timer_may_stand_needs_its_own_class():
    hit = {"black": RobotHit("black", 8, 6, 0.8, 0.5)}
    # the two colourless classes summed are sure, black alone is not: the timer
    unsure = {"black": CellVerdict("black", (8, 6), 0.98, 0.9, (8, 6), own=0.98, alone=0.65)}
    out = timer_doubts(hit, unsure, {(8, 6), (8, 5)})
    assert out["black"].doubt is not None and "timer" in out["black"].doubt
    sure = {"black": CellVerdict("black", (8, 6), 0.98, 0.9, (8, 6), own=0.98,
                                     alone=ONE_COLOURLESS + 0.05)}
    assert timer_doubts(hit, sure, {(8, 6)})["black"].doubt is None
    assert timer_doubts(hit, unsure, {(8, 5)})["black"].doubt is None  # no timer there
    red = {"red": RobotHit("red", 8, 6, 0.8, 0.5)}
    said = {"red": CellVerdict("red", (8, 6), 0.9, 0.9, (8, 6), own=0.6, alone=0.6)}
    assert timer_doubts(red, said, {(8, 6)})["red"].doubt is None  # a coloured robot



def test_a_colourless_robot_on_the_timer_is_a_doubt_where_a_far_cell_looks_as_much_like_it():
    # a tall timer looks like a big silver robot to the classifier: its own class sure on
    # the timer's cell and on the cell where the real one stands, far away
    hit = {"silver": RobotHit("silver", 7, 8, 0.8, 0.5)}
    said = {"silver": CellVerdict("silver", (7, 8), 0.94, 0.01, (7, 8), own=0.94, alone=0.94)}
    timer = {(7, 7), (7, 8), (8, 7), (8, 8)}

    def far(value: float):
        return lambda at: ((1, 10), value)

    out = timer_doubts(hit, said, timer, far(0.93))
    assert out["silver"].doubt is not None and "timer" in out["silver"].doubt
    assert timer_doubts(hit, said, timer, far(0.94 - SURE_LEAD - 0.05))["silver"].doubt is None
    assert timer_doubts(hit, said, timer)["silver"].doubt is None  # no rival given


def test_the_rival_cells_are_off_the_timer_and_not_next_to_the_robot():
    cells = np.array([[7, 8], [7, 7], [6, 8], [1, 10], [12, 3]])
    probs = class_probs([{"silver": 0.9}, {"silver": 0.9}, {"black": 0.9},
                         {"black": 0.4, "silver": 0.4}, {"silver": 0.5}])
    rival = colourless_rivals(probs, cells, ["red", "silver"], {(7, 7), (7, 8)})
    assert rival((7, 8)) == ((1, 10), pytest.approx(0.8))  # black and silver summed
    both = colourless_rivals(probs, cells, ["black", "silver"], {(7, 7), (7, 8)})
    assert both((7, 8)) == ((12, 3), pytest.approx(0.5))  # two robots: not summed
    assert rival((1, 10))[0] == (6, 8)


def _read(seed: int):
    shot = random_frame(seed)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    reader = Reader(tiles=list(shot.tiles), profile=Profile().for_robots(list(truth)),
                    read_chip=False)
    reader.read(shot.image)
    return reader.read(shot.image), truth


@needs_gl
def test_washed_out_robots_both_readers_half_see_are_read_on_a_3d_frame():
    # two robots under haze that neither reader placed alone (measured: classifier 0.83 and
    # 0.69 on their cells, nothing else near)
    obs, truth = _read(710087)
    assert obs.robots.get("red") == truth["red"]
    assert obs.robots.get("green") == truth["green"]
    assert all(truth[r] == c for r, c in obs.robots.items())


@needs_gl
def test_a_sand_timer_is_not_read_as_the_black_robot_on_a_3d_frame():
    # the black robot stands at the board's edge; the timer's dark glass behind the centre
    # piece was read as it, a wrong cell
    obs, truth = _read(730051)
    assert "black" in truth and obs.robots.get("black") in (None, truth["black"])
    assert "timer" in obs.doubtful.get("black", "timer")
    assert all(truth[r] == c for r, c in obs.robots.items())


@needs_gl
def test_the_timer_is_not_read_as_the_silver_robot_after_a_hand_frame():
    # read first with a hand over the board (the lean's camera is then left at the centre),
    # the timer was read as the silver robot standing far off on b11: a wrong cell
    hand = random_frame(770034, hands=1.0)
    clear = random_frame(770034, hands=0.0)
    truth = {k: cell_name(v) for k, v in clear.robots.items()}
    reader = Reader(tiles=list(clear.tiles), profile=Profile().for_robots(list(truth)),
                    read_chip=False)
    reader.read(hand.image)
    obs = reader.read(clear.image)
    assert "silver" in truth and obs.robots.get("silver") in (None, truth["silver"])
    assert all(truth[r] == c for r, c in obs.robots.items())
