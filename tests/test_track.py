"""Occlusion and the stable-frame tracker: hands over the board are flagged, clean boards are
not, and a layout is only accepted after it has held for a few frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import read3d

from companion.board import cell_name
from companion.vision.colours import white_of
from companion.vision.locate import VisionError, from_corners
from companion.vision.read import Reader
from companion.vision.render import Scene, random_position, render
from companion.vision.robots import find_robots, prepare, silhouette_cells
from companion.vision.track import OCC_PX, Tracker, occlusion


def _occlusion(shot):
    loc = from_corners(shot.corners, (1280, 960))
    frame = prepare(shot.image, loc)
    explained = set()
    for h in find_robots(frame, loc, Reader().profile).values():
        explained |= silhouette_cells(loc, h.col, h.row) | {(h.col, h.row)}
    return occlusion(loc.warp(shot.image, OCC_PX), white_of(loc.warp(shot.image, 6)), explained)


@pytest.mark.parametrize("seed", [61, 62, 63, 64])
def test_a_hand_over_the_board_is_flagged(seed):
    shot = render(random_position(seed), seed=seed, tilt=12, hands=1, rotation=seed * 41)
    assert shot.occluded
    occ = _occlusion(shot)
    assert occ.occluded
    assert occ.largest >= 3


@pytest.mark.parametrize("seed,scene", [
    (65, {"tilt": 0}), (66, {"tilt": 28, "brightness": 0.4, "noise": 5}),
    (67, {"tilt": 15, "glare": 0.7}), (68, {"tilt": 20, "cast": (1.2, 1.0, 0.85)}),
])
def test_a_clean_board_is_not_flagged(seed, scene):
    shot = render(random_position(seed), seed=seed, **scene)
    assert not _occlusion(shot).occluded


def _random_frame(seed: int, robots: int = 4):
    """A frame drawn the way ``companion bench vision`` draws its frames."""
    rng = np.random.default_rng(seed)
    pos = random_position(rng, robots=("red", "green", "blue", "yellow", "black")[:robots])
    return render(pos, seed=seed, scene=Scene.random(rng))


@pytest.mark.parametrize("seed,robots", [(9264, 5), (9293, 4), (9351, 5)])
def test_glare_and_light_falling_off_are_not_a_hand(seed, robots):
    # 9264, 9351: glare clipped by the camera, tinted by the colour cast as it is undone;
    # 9293: a dim lamp's glare and fall-off. None of them is something over the board.
    shot = _random_frame(seed, robots)
    assert shot.scene.glare > 0 and not shot.occluded
    obs = Reader(tiles=list(shot.tiles)).read(shot.image)
    assert not obs.occluded, obs.occluded_cells
    assert obs.robots == {k: cell_name(v) for k, v in shot.robots.items()}


def test_a_pale_hand_in_bright_light_is_flagged():
    shot = _random_frame(9314)
    assert shot.occluded and shot.scene.brightness > 0.8
    obs = Reader(tiles=list(shot.tiles)).read(shot.image)
    assert obs.occluded and obs.robots == {}


def test_an_occluded_frame_is_never_read_as_a_position():
    for seed in (70, 71, 72):
        shot = render(random_position(seed), seed=seed, tilt=10, hands=2)
        try:
            obs = Reader(tiles=list(shot.tiles)).read(shot.image)
        except VisionError:
            continue  # "cannot see" is an honest answer too
        assert obs.occluded and obs.robots == {}


def test_a_layout_is_accepted_only_after_it_holds():
    t = Tracker(stable=3)
    a = {"red": "c2", "blue": "j4"}
    assert t.update(a).kind == "pending"
    assert t.update(a).kind == "pending"
    event = t.update(a)
    assert event.kind == "accepted" and event.state == a
    assert t.update(a).kind == "steady"


def test_a_robot_caught_mid_slide_is_not_accepted():
    t = Tracker(stable=3)
    start = {"red": "c2"}
    for _ in range(3):
        t.update(start)
    assert t.update({"red": "c5"}).kind == "pending"  # passing through
    assert t.update({"red": "c9"}).kind == "pending"
    for _ in range(2):
        t.update({"red": "c12"})
    assert t.accepted == start
    assert t.update({"red": "c12"}).kind == "accepted"
    assert t.accepted == {"red": "c12"}


def test_occluded_and_unseen_frames_break_a_run():
    t = Tracker(stable=2)
    t.update({"red": "c2"})
    assert t.update(None, occluded=True).kind == "occluded"
    assert t.update({"red": "c2"}).kind == "pending"  # the count starts again
    assert t.update(None, error="black frame").reason == "black frame"
    assert t.accepted is None


def test_a_robot_seen_before_and_now_hidden_is_reported_missing():
    pos = random_position(73)
    shot = render(pos, seed=73, tilt=10)
    reader = Reader(tiles=list(shot.tiles))
    first = reader.read(shot.image)
    assert first.complete
    # The red robot hidden under a white card: not seen, and said so.
    hidden = shot.image.copy()
    x, y = shot.robot_pixels["red"]["base"]
    top = shot.robot_pixels["red"]["top"]
    r = int(abs(top[1] - y) + abs(top[0] - x)) + 30
    cv2.rectangle(hidden, (int(x) - r, int(y) - r), (int(x) + r, int(y) + r),
                  (235, 235, 235), -1)
    obs = reader.read(hidden)
    assert obs.missing == ["red"] and not obs.complete
    assert "red" not in obs.robots
    assert {k: v for k, v in first.robots.items() if k != "red"} == obs.robots


def test_a_hand_over_a_few_cells_under_haze_is_flagged():
    # a pale hand under a thick haze over 14 cells: its edges lose contrast like the print's
    shot, obs = read3d(730023, hands=1.0)
    assert shot.scene.haze > 0.4 and 10 <= len(shot.hidden_cells) <= 20 and shot.occluded
    assert obs.occluded and obs.occluded_cells
    assert obs.robots == {}


def test_a_hazy_board_with_no_hand_is_read():
    shot, obs = read3d(710003, hands=0.2)
    assert shot.scene.haze > 0.3 and not shot.occluded and shot.in_frame
    assert not obs.occluded
    assert obs.robots
