"""Cells that do not show the board's print (companion.vision.hands): a hand reaching in over
the board's side is flagged even where its colour passes for the print, a clear board is not."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import read3d

from companion.vision.hands import LEAST, PX, print_likeness, reaching_in, unprinted_cells
from companion.vision.locate import from_corners
from companion.vision.read import LINE_PX, _shrunk_warp
from companion.vision.render import random_position, render


def _grey_board(seed: int = 3) -> np.ndarray:
    shot = render(random_position(seed), seed=seed, tilt=10)
    loc = from_corners(shot.corners, (1280, 960))
    return _shrunk_warp(shot.image, loc.corners, LINE_PX)


def test_the_reader_and_the_cue_agree_on_the_pixels_a_cell():
    assert LINE_PX == PX


def test_a_board_that_is_not_the_right_size_is_refused_by_name():
    with pytest.raises(ValueError, match="192×192"):
        print_likeness(np.zeros((100, 100), np.float32))
    with pytest.raises(ValueError, match="grey board"):
        print_likeness(np.zeros((192, 192, 3), np.float32))


def test_a_clear_board_looks_like_its_own_print():
    grey = _grey_board()
    likeness = print_likeness(grey)
    assert likeness.shape == (16, 16)
    assert np.median(likeness) > 0.7
    # a robot or a target may stand out, but never a clump reaching in from the side
    assert reaching_in(unprinted_cells(grey), set()) == ()


def test_a_plain_patch_over_the_side_is_unprinted_and_glare_is_not():
    grey = _grey_board()
    covered = grey.copy()
    covered[0:3 * PX, 0:2 * PX] = 0.75 * float(np.median(grey))  # skin gone grey, 3×2 cells
    plain = unprinted_cells(covered)
    assert plain[0:3, 0:2].all()
    assert reaching_in(plain, set()) == tuple(sorted((c, r) for c in range(2) for r in range(3)))
    glare = grey.copy()
    glare[0:3 * PX, 0:2 * PX] = 255.0  # washed-out print: lighter than the light there
    assert not unprinted_cells(glare)[0:3, 0:2].any()


def test_only_a_clump_reaching_the_side_and_unexplained_is_a_hand():
    plain = np.zeros((16, 16), bool)
    plain[5:8, 5:7] = True  # six cells in the middle: a robot and its shadow, not an arm
    assert reaching_in(plain, set()) == ()
    plain = np.zeros((16, 16), bool)
    plain[0:LEAST, 15] = True  # down the east side
    assert len(reaching_in(plain, set())) == LEAST
    assert reaching_in(plain, {(15, 0)}) == ()  # one cell a robot placed there explains


@pytest.mark.parametrize("seed", [
    770044,  # pale fingers over the north side that the white balance turns to a light grey
    780030,  # a hand over a corner whose skin the colour scores took for the yellow robot
])
def test_a_hand_reaching_in_that_passes_for_print_is_flagged(seed):
    shot, obs = read3d(seed, hands=1.0)
    assert shot.occluded and shot.in_frame
    assert obs.occluded and obs.occluded_cells and obs.robots == {}
    clear, seen = read3d(seed, hands=0.0)  # the same scene without the hand
    assert not clear.occluded
    assert not seen.occluded and seen.robots
