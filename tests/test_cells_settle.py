"""The classifier and the colour scores settling a robot together (``cells.settle``): a tall
robot leans into its neighbours' crops, so the classifier is as sure of them as of its own
cell; the colour scores choose among such neighbours, never among cells far apart."""

import numpy as np
import pytest
from conftest import class_probs

from companion.vision.cells import (
    ALONE,
    FLOOR,
    NEAR_LEAD,
    ONE_COLOURLESS,
    RIVAL,
    SURE,
    TOP_CELLS,
    settle,
)


def _score(values: dict[tuple[int, int], float]) -> np.ndarray:
    """A colour's (16, 16) scores by (row, col), given per (col, row); 0 elsewhere."""
    s = np.zeros((16, 16))
    for (c, r), v in values.items():
        s[r, c] = v
    return s


CELLS = np.array([[4, 5], [4, 6], [11, 2]])  # a cell, the one behind it, one far away


def test_a_robot_leaning_into_the_cell_behind_stands_where_the_colour_scores_say():
    probs = class_probs([{"yellow": 0.99}, {"yellow": 0.999}, {}])
    score = _score({(4, 5): 0.3, (4, 6): 0.1})
    assert settle(probs, CELLS, "yellow", ["yellow"], score) == ((4, 5), pytest.approx(0.99))
    # the other way round, the other cell
    score = _score({(4, 5): 0.1, (4, 6): 0.3})
    assert settle(probs, CELLS, "yellow", ["yellow"], score)[0] == (4, 6)


def test_neighbours_the_colour_scores_cannot_tell_apart_leave_the_robot_unplaced():
    probs = class_probs([{"yellow": 0.99}, {"yellow": 0.999}, {}])
    score = _score({(4, 5): 0.3, (4, 6): 0.3 - NEAR_LEAD / 2})
    assert settle(probs, CELLS, "yellow", ["yellow"], score) is None


def test_a_rival_far_away_leaves_the_robot_unplaced_whatever_the_colour_scores_say():
    # a printed target of the robot's colour looks like the robot to the classifier; the
    # colour scores are fooled by it as easily
    probs = class_probs([{"green": 0.99}, {}, {"green": 0.99 - RIVAL + 0.05}])
    score = _score({(4, 5): 0.6, (11, 2): 0.05})
    assert settle(probs, CELLS, "green", ["green"], score) is None
    # … and once it is no rival, the robot is placed
    probs = class_probs([{"green": 0.99}, {}, {"green": 0.99 - RIVAL - 0.05}])
    assert settle(probs, CELLS, "green", ["green"], score)[0] == (4, 5)


def test_the_classifier_must_be_sure_and_the_colour_scores_must_rank_the_cell():
    score = _score({(4, 5): 0.3})
    assert settle(class_probs([{"red": SURE - 0.01}, {}, {}]), CELLS, "red", ["red"], score) is None
    assert settle(class_probs([{"red": ALONE - 0.01}, {}, {}]), CELLS, "red", ["red"],
                  score) is None
    sure = class_probs([{"red": 0.97}, {}, {}])
    assert settle(sure, CELLS, "red", ["red"], score)[0] == (4, 5)
    # ranked below the colour's best few cells: not placed
    low = _score({(4, 5): 0.3, **{(c, 0): 0.5 for c in range(TOP_CELLS)}})
    assert settle(sure, CELLS, "red", ["red"], low) is None
    # no colour at all on the cell: not placed
    faint = _score({(4, 5): FLOOR / 2})
    assert settle(sure, CELLS, "red", ["red"], faint) is None
    assert settle(sure, CELLS, "red", ["red"], None) is None


def test_the_one_colourless_robot_is_black_and_silver_together():
    # a black robot the classifier takes for silver in dim light (a real photo: 0.89 silver)
    probs = class_probs([{"black": 0.05, "silver": 0.89}, {}, {}])
    score = _score({(4, 5): 0.26, (4, 6): 0.02})
    assert settle(probs, CELLS, "black", ["red", "black"], score)[0] == (4, 5)
    # a colourless robot's scores may be nil where its print is dark: no floor for it
    assert settle(probs, CELLS, "black", ["red", "black"], _score({}))[0] == (4, 5)
    # with both in the game (not a real game, but the rule holds), each its own class
    assert settle(probs, CELLS, "black", ["black", "silver"], score) is None
    # split between the two, neither plainly leading, it is still the game's one colourless
    # robot (on the 3D source most colourless robots missed were split on their own cell)
    both = class_probs([{"black": 0.3, "silver": 0.62}, {}, {}])
    assert 0.62 < ONE_COLOURLESS and 0.92 >= ALONE
    assert settle(both, CELLS, "black", ["red", "black"], score)[0] == (4, 5)
    assert settle(both, CELLS, "black", ["black", "silver"], score) is None


def test_a_colourless_robot_is_never_settled_where_a_sand_timer_may_stand():
    # the timer's glass on the centre piece looks like the black robot: on a cell it may hide,
    # a colourless robot is left unseen; a coloured robot there is settled as anywhere
    score = _score({(4, 5): 0.3, (4, 6): 0.1})
    black = class_probs([{"black": 0.99}, {"black": 0.999}, {}])
    assert settle(black, CELLS, "black", ["black"], score) is not None
    assert settle(black, CELLS, "black", ["black"], score, timer={(4, 5)}) is None
    yellow = class_probs([{"yellow": 0.99}, {"yellow": 0.999}, {}])
    assert settle(yellow, CELLS, "yellow", ["yellow"], score, timer={(4, 5)}) is not None
