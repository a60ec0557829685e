"""The Micro Robots renderer draws what its truth says: each face in its colour where the
layout puts it, the robot on its space, hands where it says they are, the same picture for
the same arguments, and the print turned as each section lies."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.micro import Layout, Space, example_layout
from companion.vision.micro_look import LOOK, Look, face_image, face_ink
from companion.vision.micro_render import (
    PX_SPACE,
    board_print,
    default_turns,
    random_layout,
    render_micro,
)
from companion.vision.render import Scene

LAYOUT = example_layout()


def face_colour(shot, space: Space) -> np.ndarray:
    """The median colour round a face's centre, between its pips (a ring at a quarter of
    the face), in the picture."""
    r, c = shot.layout.where(space)
    pts = [(c + 0.5 + 0.2 * np.cos(a), r + 0.5 + 0.2 * np.sin(a))
           for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)]
    px = np.round(shot.to_image(pts)).astype(int)
    return np.median(shot.image[px[:, 1], px[:, 0]].astype(float), axis=0)


@pytest.mark.parametrize("tilt,rotation,azimuth", [(0, 0, 0), (25, 70, 130), (30, 200, 300)])
def test_corners_are_the_layouts_grid_corners_clockwise(tilt, rotation, azimuth):
    shot = render_micro(LAYOUT, "pink1", tilt=tilt, rotation=rotation, azimuth=azimuth)
    expected = np.array(shot.to_image([(0, 0), (6, 0), (6, 6), (0, 6)]))
    np.testing.assert_allclose(shot.corners, expected, atol=1e-6)
    a, b = shot.corners[1] - shot.corners[0], shot.corners[2] - shot.corners[1]
    assert a[0] * b[1] - a[1] * b[0] > 0  # clockwise on the picture (y down)
    assert shot.in_frame


def test_a_top_down_shot_has_the_layouts_top_row_at_the_top_of_the_picture():
    shot = render_micro(LAYOUT, None)
    tl, tr, br, bl = shot.corners
    assert tl[0] < tr[0] and tl[1] < bl[1]
    first, last = LAYOUT.rows[0][0], LAYOUT.rows[5][5]
    assert shot.space_centre(first)[1] < shot.space_centre(last)[1]


@pytest.mark.parametrize("colour,channel_order", [
    ("blue", (0, 1, 2)), ("red", (2, 1, 0)), ("green", (1, 0, 2)), ("yellow", (2, 1, 0)),
])
def test_each_face_is_printed_in_its_colour_where_the_layout_puts_it(colour, channel_order):
    shot = render_micro(LAYOUT, None, tilt=10, rotation=15)
    for number in range(1, 7):
        bgr = face_colour(shot, Space(colour, number))
        # the face's strongest channel is its ink's strongest
        assert int(np.argmax(bgr)) == channel_order[0], (colour, number, bgr)


def test_white_faces_are_pale_and_pink_is_bluer_than_red():
    shot = render_micro(LAYOUT, None, tilt=8)
    for n in range(1, 7):
        w = face_colour(shot, Space("white", n))
        assert w.min() > 180 and w.max() - w.min() < 25
        pink, red = face_colour(shot, Space("pink", n)), face_colour(shot, Space("red", n))
        assert pink[0] - red[0] > 80  # the blue channel tells them apart


def test_the_same_arguments_give_the_same_picture_and_a_new_seed_another():
    a = render_micro(LAYOUT, "red3", seed=4, tilt=12, noise=3, glare=0.5, hands=1)
    b = render_micro(LAYOUT, "red3", seed=4, tilt=12, noise=3, glare=0.5, hands=1)
    c = render_micro(LAYOUT, "red3", seed=5, tilt=12, noise=3, glare=0.5, hands=1)
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, c.image)


def test_the_robot_stands_on_its_space_and_leans_away_from_the_camera():
    shot = render_micro(LAYOUT, "green4", tilt=28, azimuth=0)
    r, c = LAYOUT.where(Space.parse("green4"))
    quad = np.array(shot.to_image([(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)]),
                    np.float32)
    assert shot.robot.name == "green4"
    assert cv2.pointPolygonTest(quad, shot.robot_pixels["base"], False) > 0
    # the camera stands on the south side: the robot's top leans north, up the picture
    assert shot.robot_pixels["top"][1] < shot.robot_pixels["base"][1]
    assert shot.robot_mask.any()


def test_without_a_robot_nothing_stands_on_the_board():
    shot = render_micro(LAYOUT, None, tilt=10)
    assert shot.robot is None and shot.robot_pixels is None
    assert not shot.robot_mask.any()


def test_the_robot_changes_its_face_in_the_picture():
    empty = render_micro(LAYOUT, None, seed=2)
    robot = render_micro(LAYOUT, "yellow2", seed=2)
    here = face_colour(robot, Space.parse("yellow2")) - face_colour(empty,
                                                                    Space.parse("yellow2"))
    there = face_colour(robot, Space.parse("blue1")) - face_colour(empty, Space.parse("blue1"))
    assert np.abs(here).max() > 30  # its glass over the yellow face
    assert np.abs(there).max() < 3


@pytest.mark.parametrize("seed", [3, 8, 11])
def test_hands_over_the_board_say_which_spaces_they_hide(seed):
    shot = render_micro(random_layout(seed), None, seed=seed, tilt=10, hands=1)
    assert shot.occluded and shot.hidden
    assert shot.occluder_mask.any()
    for space in shot.hidden:  # a hidden face's centre region is under the hand or near it
        r, c = shot.layout.where(space)
        quad = np.round(shot.to_image([(c + 0.11, r + 0.11), (c + 0.89, r + 0.11),
                                       (c + 0.89, r + 0.89), (c + 0.11, r + 0.89)]))
        mask = np.zeros_like(shot.occluder_mask)
        cv2.fillPoly(mask, [quad.astype(np.int32)], 255)
        covered = cv2.countNonZero(cv2.bitwise_and(mask, shot.occluder_mask))
        assert covered >= 0.15 * cv2.countNonZero(mask)


def test_a_sections_print_is_turned_as_the_section_lies():
    turns = (0, 1, 2, 3)
    tex = board_print(LAYOUT, turns)
    fpx = int(round(LOOK.face * PX_SPACE))
    for (r, c), turn in (((0, 0), 0), ((0, 5), 1), ((5, 5), 2), ((5, 0), 3)):
        space = LAYOUT.rows[r][c]
        x0 = int(round((LOOK.rim + c + 0.5) * PX_SPACE - fpx / 2))
        y0 = int(round((LOOK.rim + r + 0.5) * PX_SPACE - fpx / 2))
        printed = tex[y0:y0 + fpx, x0:x0 + fpx].astype(float)
        diffs = [np.abs(printed - face_image(space.color, space.number, fpx, t)).mean()
                 for t in range(4)]
        best = int(np.argmin(diffs))
        # a 2, 3 or 6 of pips looks the same turned half round
        assert best % (2 if space.number in (2, 3, 6) else 4) == turn % (
            2 if space.number in (2, 3, 6) else 4) or diffs[best] == diffs[turn]


def test_every_frame_of_one_table_prints_its_sections_alike():
    assert default_turns(LAYOUT) == default_turns(Layout.from_rows(
        [[s.name for s in row] for row in LAYOUT.rows]))
    a = render_micro(LAYOUT, None, seed=1)
    b = render_micro(LAYOUT, None, seed=1, noise_seed=7)
    assert a.turns == b.turns


def test_digits_and_pips_are_both_printed_from_the_one_drawing():
    for n in range(1, 7):
        pips = face_ink(n, 40, 0, "pips")
        digits = face_ink(n, 40, 0, "digits")
        assert pips.max() > 0.9 and digits.max() > 0.9
        assert not np.allclose(pips, digits)
    # six pips have six blobs of ink
    m = (face_ink(6, 80, 0, "pips") > 0.5).astype(np.uint8)
    assert cv2.connectedComponents(m)[0] - 1 == 6


def test_the_dice_lie_on_the_table_beside_the_board():
    plain = render_micro(LAYOUT, None, seed=6)
    dice = render_micro(LAYOUT, None, seed=6, dice=("red", 5))
    changed = np.abs(plain.image.astype(int) - dice.image.astype(int)).max(axis=2) > 40
    board = np.zeros(changed.shape, np.uint8)
    cv2.fillPoly(board, [np.round(plain.corners).astype(np.int32)], 1)
    assert changed.sum() > 500
    assert not (changed & (board > 0)).any()
    assert dice.dice == ("red", 5)


def test_markers_lie_at_the_four_corners():
    shot = render_micro(LAYOUT, None, markers=True, tilt=15, rotation=30)
    assert sorted(shot.markers) == [0, 1, 2, 3]
    centre = shot.corners.mean(axis=0)
    for k, quad in shot.markers.items():
        # marker k is beyond grid corner k, seen from the board's centre
        outward = shot.corners[k] - centre
        assert (quad.mean(axis=0) - shot.corners[k]) @ outward > 0


def test_a_wrong_option_or_look_is_refused_with_its_name():
    with pytest.raises(TypeError, match="unknown option 'tilted'"):
        render_micro(LAYOUT, None, tilted=5)
    with pytest.raises(ValueError, match="numerals 'roman'"):
        Look(numerals="roman")
    with pytest.raises(ValueError, match="side 'gold'"):
        Look(side="gold")
    with pytest.raises(ValueError, match="not a colour"):
        render_micro(LAYOUT, "purple3")


def test_scene_and_keywords_combine_as_in_the_classic_renderer():
    shot = render_micro(LAYOUT, None, scene=Scene(tilt=20), rotation=10)
    assert shot.scene.tilt == 20 and shot.scene.rotation == 10


def test_random_layouts_are_valid_and_seeded():
    assert random_layout(3) == random_layout(3)
    assert random_layout(3) != random_layout(4)
