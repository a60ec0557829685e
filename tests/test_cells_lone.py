"""The robots the classifier sees that neither reader placed before (issue 13, the 3D source):
the game's one colourless robot the classifier alone names below its usual bar once every
other robot stands on its cell (``cells.lone``); a coloured robot the colour scores took a
sand timer for (``cells.off_timer``); a timer no longer read as the black robot where the
classifier's black alone is 0.78 there; and a leaning robot still settled only at ALONE."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import class_probs

from companion.board import cell_name
from companion.vision.cells import (
    ALONE,
    LONE,
    ONE_COLOURLESS,
    RIVAL,
    SURE,
    SURE_LEAD,
    TOP_CELLS,
    CellVerdict,
    lone,
    off_timer,
    settle,
)
from companion.vision.cells import _timer_doubts as timer_doubts
from companion.vision.colours import Profile
from companion.vision.read import Reader
from companion.vision.render3d import gl_available, random_frame
from companion.vision.robots import RobotHit

needs_gl = pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")

CELLS = np.array([[4, 5], [4, 6], [11, 2], [7, 6]])  # a cell, the one behind, one far, one timer's
TIMER = {(7, 6), (8, 6)}


def _score(values: dict[tuple[int, int], float]) -> np.ndarray:
    s = np.zeros((16, 16))
    for (c, r), v in values.items():
        s[r, c] = v
    return s


def test_the_one_colourless_robot_the_classifier_alone_names_is_placed():
    # measured on its own cell: 0.59 black and 0.24 silver, nothing anywhere else
    probs = class_probs([{"black": 0.59, "silver": 0.24}, {}, {}, {}])
    score = _score({(4, 5): 0.4})
    assert LONE < 0.83 < ALONE
    assert lone(probs, CELLS, "silver", ["red", "silver"], score, TIMER) == (
        (4, 5), pytest.approx(0.83))
    assert lone(probs, CELLS, "black", ["red", "black"], score, TIMER)[0] == (4, 5)


def test_a_lone_colourless_robot_needs_the_bar_the_lead_the_rank_and_no_timer():
    score = _score({(4, 5): 0.4, (7, 6): 0.4})
    weak = class_probs([{"black": LONE - 0.05}, {}, {}, {}])
    assert lone(weak, CELLS, "black", ["black"], score) is None
    rival = class_probs([{"black": 0.85}, {}, {"silver": 0.85 - SURE_LEAD + 0.05}, {}])
    assert lone(rival, CELLS, "black", ["black"], score) is None
    sure = class_probs([{"black": 0.85}, {}, {}, {}])
    low = _score({(c, 0): 1.0 for c in range(TOP_CELLS)})
    assert lone(sure, CELLS, "black", ["black"], low) is None  # not among the colour's best
    # two colourless robots in the game: the summed word means nothing
    assert lone(sure, CELLS, "black", ["black", "silver"], score) is None
    on_timer = class_probs([{}, {}, {}, {"black": 0.85}])
    assert lone(on_timer, CELLS, "black", ["black"], score, TIMER) is None
    assert lone(on_timer, CELLS, "black", ["black"], score, set())[0] == (7, 6)
    red = class_probs([{"red": 0.85}, {}, {}, {}])
    assert lone(red, CELLS, "red", ["red"], score) is None  # colourless robots only


def test_no_lone_colourless_robot_is_placed_next_to_another_robot():
    # a rendered yellow robot's cell behind read colourless to the classifier: its body seen
    # against it, and its shadow (the perturb benchmark's own frame, seed 41: black on c7)
    sure = class_probs([{"black": 0.85}, {}, {}, {}])
    score = _score({(4, 5): 0.4})
    assert lone(sure, CELLS, "black", ["black"], score, TIMER, {(4, 6)}) is None
    assert lone(sure, CELLS, "black", ["black"], score, TIMER, {(5, 4)}) is None
    assert lone(sure, CELLS, "black", ["black"], score, TIMER, {(4, 7)})[0] == (4, 5)


def test_a_leaning_robot_is_not_settled_below_alone_where_the_colour_scores_placed_it():
    # a real photo seen from a camera turned further (perturb's tilt of blefeuvr 102610):
    # the colour scores put the green robot one cell off without a doubt, the classifier
    # 0.90 there and 1.00 on its own cell; settled at SURE it stood on a wrong cell
    probs = class_probs([{"green": 0.896}, {"green": 1.0}, {}, {}])
    score = _score({(4, 5): 0.65, (4, 6): 0.01})
    assert SURE < 0.896 < ALONE
    assert settle(probs, CELLS, "green", ["green"], score) is None


def test_a_robot_the_colour_scores_took_a_sand_timer_for_stands_where_the_classifier_says():
    # the timer's wooden ends over pale sand: 0.97 yellow to the classifier, and the colour
    # scores' best; the robot far off, 1.00
    probs = class_probs([{"yellow": 1.0}, {}, {}, {"yellow": 0.97}])
    score = _score({(7, 6): 0.95, (4, 5): 0.49})
    hit = RobotHit("yellow", 7, 6, 0.95, 0.4)
    assert off_timer(probs, CELLS, "yellow", ["yellow"], score, TIMER, hit) == (
        (4, 5), pytest.approx(1.0))
    assert off_timer(probs, CELLS, "yellow", ["yellow"], score, set(), hit) is None  # no timer
    assert off_timer(probs, CELLS, "yellow", ["yellow"], score, TIMER, None) is None
    far = class_probs([{"yellow": 1.0}, {}, {"yellow": 1.0 - RIVAL + 0.05}, {"yellow": 0.97}])
    assert off_timer(far, CELLS, "yellow", ["yellow"], score, TIMER, hit) is None
    unsure = class_probs([{"yellow": ALONE - 0.05}, {}, {}, {"yellow": 0.97}])
    assert off_timer(unsure, CELLS, "yellow", ["yellow"], score, TIMER, hit) is None
    black = class_probs([{"black": 1.0}, {}, {}, {"black": 0.97}])
    assert off_timer(black, CELLS, "black", ["black"], _score({(7, 6): 0.9, (4, 5): 0.5}),
                     TIMER, RobotHit("black", 7, 6, 0.9, 0.4)) is None  # the timer's own rule


def test_a_timer_the_classifier_gives_black_alone_0_78_is_a_doubt():
    hit = {"black": RobotHit("black", 7, 6, 0.52, 0.5)}
    said = {"black": CellVerdict("black", (7, 6), 0.97, 0.95, (7, 6), own=0.97, alone=0.78)}
    assert ONE_COLOURLESS > 0.78
    out = timer_doubts(hit, said, TIMER)
    assert out["black"].doubt is not None and "timer" in out["black"].doubt


def _read(seed: int):
    shot = random_frame(seed)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    fifth = "silver" if "silver" in truth else "black"
    reader = Reader(tiles=list(shot.tiles), read_chip=False,
                    profile=Profile().for_robots(["red", "green", "blue", "yellow", fifth]))
    reader.read(shot.image)
    return reader.read(shot.image), truth


@needs_gl
@pytest.mark.parametrize("seed", [830057, 840050])
def test_a_dim_colourless_robot_is_read_on_a_3d_frame(seed):
    # the classifier 0.86 and 0.88 on its cell (black and silver summed), nothing else near
    obs, truth = _read(seed)
    assert obs.robots.get("black") == truth["black"]
    assert obs.robots == truth


@needs_gl
def test_a_timer_is_not_read_as_a_black_robot_that_is_not_on_the_board_on_a_3d_frame():
    # no fifth robot on this board; the game looks for the black one and read the timer
    obs, truth = _read(840109)
    assert "black" not in truth and "black" not in obs.robots
    assert all(truth[r] == c for r, c in obs.robots.items())


@needs_gl
def test_the_yellow_robot_beside_a_timer_both_readers_like_is_read_on_a_3d_frame():
    obs, truth = _read(840112)
    assert obs.robots.get("yellow") == truth["yellow"]
    assert all(truth[r] == c for r, c in obs.robots.items())
