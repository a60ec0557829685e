"""The 3D image source: its truth holds in its pictures, and the same seed gives the same one.

These tests need OpenGL through EGL (moderngl, Mesa); they do not skip without it: the
renderer then fails with what to install."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision import render3d as r3
from companion.vision.read import read_frame

POS = {"board": {"tiles": ["1A", "4B", "3B", "2B"]},
       "robots": {"red": "o14", "blue": "n5", "green": "c3", "yellow": "h12"}}
CLEAN = {"noise": 0.0, "jpeg": None, "blur": 0.0, "vignette": 0.0}


def _grey(img: np.ndarray, xy) -> float:
    x, y = (int(round(v)) for v in xy)
    return float(img[y - 1:y + 2, x - 1:x + 2].mean())


@pytest.fixture(scope="module")
def tilted():
    return r3.render3d(POS, seed=5, size=(640, 480), tilt=30, azimuth=70, fill=0.9, **CLEAN)


def test_the_same_seed_gives_the_same_picture_and_another_seed_another():
    a = r3.random_frame(11, size=(256, 192))
    b = r3.random_frame(11, size=(256, 192))
    c = r3.random_frame(12, size=(256, 192))
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.corners, b.corners) and a.robots == b.robots
    assert a.image.shape != c.image.shape or not np.array_equal(a.image, c.image)


def test_the_corners_lie_between_the_dark_frame_and_the_light_cells(tilted):
    img = tilted.image
    # the board plane: just outside each grid corner lies the dark frame, just inside it the
    # corner cell's light face
    for (u, v), (du, dv) in zip([(0, 0), (16, 0), (16, 16), (0, 16)],
                                [(-1, -1), (1, -1), (1, 1), (-1, 1)], strict=True):
        outside = tilted.to_image([(u + 0.22 * du, v + 0.22 * dv)])[0]
        inside = tilted.to_image([(u - 0.3 * du, v - 0.3 * dv)])[0]
        assert _grey(img, outside) < 110, (u, v)
        assert _grey(img, inside) > _grey(img, outside) + 60, (u, v)
    # and the corners are those the homography gives
    grid = tilted.to_image([(0, 0), (16, 0), (16, 16), (0, 16)])
    assert np.allclose(grid, tilted.corners, atol=1e-6)
    assert tilted.in_frame and not tilted.occluded


def test_each_robot_shows_its_colour_above_its_cell(tilted):
    img = tilted.image.astype(float)
    for colour, cell in tilted.robots.items():
        assert cell == tilted.board.cell(POS["robots"][colour])
        base, top = (np.array(tilted.robot_pixels[colour][k]) for k in ("base", "top"))
        centre = np.array(tilted.cell_centre(cell))
        assert np.linalg.norm(base - centre) < 0.2 * np.linalg.norm(
            tilted.corners[1] - tilted.corners[0]) / 16
        x, y = np.rint(base + 0.35 * (top - base)).astype(int)
        b, g, r = img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0)
        assert tilted.robot_mask[y, x] == 255
        if colour == "red":
            assert r > g + 40 and r > b + 40
        elif colour == "green":
            assert g > r + 20 and g > b + 20
        elif colour == "blue":
            assert b > r + 40 and b > g + 20
        else:
            assert r > b + 60 and g > b + 40


def test_a_hands_hidden_cells_are_covered_in_the_picture():
    kw = dict(seed=3, size=(480, 360), tilt=15, hand_seed=2, **CLEAN)
    bare = r3.render3d(POS, **kw)
    shot = r3.render3d(POS, hand=True, **kw)
    assert shot.occluded and not bare.occluded and not bare.hidden_cells
    assert len(shot.hidden_cells) >= 4

    def patch_diff(cell: int) -> float:
        x, y = (int(round(v)) for v in shot.cell_centre(cell))
        a, b = (im[y - 3:y + 4, x - 3:x + 4].astype(int) for im in (shot.image, bare.image))
        return float(np.abs(a - b).mean())

    # under the hand the print is gone (its hatching, its walls): the picture changed there
    hidden = [patch_diff(c) for c in shot.hidden_cells]
    assert np.mean(np.array(hidden) > 10) >= 0.85
    # cells far from the hand are mostly as they were (its shadow may reach some)
    far = [c for c in range(256) if c not in shot.board.blocked
           and min(abs(c % 16 - h % 16) + abs(c // 16 - h // 16)
                   for h in shot.hidden_cells) > 4]
    assert np.median([patch_diff(c) for c in far]) < 6


def test_a_timer_on_the_centre_piece_covers_no_cell_seen_from_above():
    shot = r3.render3d(POS, seed=2, size=(320, 240), timer=True, **CLEAN)
    assert not shot.occluded and not shot.hidden_cells
    assert shot.occluder_mask.any()


@pytest.mark.slow
def test_the_reader_finds_the_board_in_a_clean_top_down_frame():
    shot = r3.render3d(POS, seed=1, size=(960, 720), **CLEAN)
    obs = read_frame(shot.image, chip=False)
    found = np.array(obs.corners)
    cell = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
    err = min(np.abs(np.roll(found, -k, axis=0) - shot.corners).max() for k in range(4))
    assert err < 0.25 * cell


def test_random_scenes_vary_and_keep_the_board_in_the_picture():
    scenes = [r3.random_scene(s) for s in range(200)]
    assert {s.table for s in scenes} == set(r3.TABLES)
    assert max(s.tilt for s in scenes) > 40 and min(s.fill for s in scenes) < 0.4
    assert any(s.hand for s in scenes) and any(s.timer for s in scenes)
    shot = r3.render3d(POS, seed=0, size=(320, 240), scene=scenes[7])
    assert shot.in_frame and shot.image.shape == (240, 320, 3)


def test_unknown_options_are_refused_by_name():
    with pytest.raises(r3.Render3DError, match="glare_x"):
        r3.render3d(POS, seed=0, size=(64, 48), glare_x=1)
    with pytest.raises(r3.Render3DError, match="table"):
        r3.render3d(POS, seed=0, size=(64, 48), table="marble")


def test_without_egl_the_error_says_what_to_install(monkeypatch):
    import moderngl

    def no_egl(*a, **k):
        raise RuntimeError("eglGetDisplay failed")

    monkeypatch.setattr(r3._GL, "_one", None)
    monkeypatch.setattr(moderngl, "create_standalone_context", no_egl)
    with pytest.raises(r3.Render3DError, match="libegl1 libegl-mesa0 libgl1-mesa-dri"):
        r3.render3d(POS, seed=0, size=(64, 48))
    assert "libegl-mesa0" in r3.gl_available()


def test_the_module_example_runs():
    import doctest

    assert doctest.testmod(r3).failed == 0


def test_a_cropped_frame_says_its_board_is_out_of_the_picture():
    shot = r3.render3d(POS, seed=0, size=(320, 240), crop=0.2, shift=(0.9, 0.1), **CLEAN)
    assert not shot.in_frame
    assert (shot.corners[:, 0] > 319).sum() == 2  # the east corners, past the right edge
    whole = r3.render3d(POS, seed=0, size=(320, 240), shift=(0.9, 0.1), **CLEAN)
    assert whole.in_frame


def test_the_3d_source_shares_no_code_with_the_other_renderer():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(r3.__file__).read_text())
    ours = [(node.level, node.module or "") for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)]
    # from the project only the board's data, the rules' position and the error root: nothing
    # of companion.vision (no drawing, no reader)
    assert {m for level, m in ours if level == 2} <= {"board", "errors", "rules"}
    assert not [m for level, m in ours if level == 1]
    assert not any(m.startswith("companion") for _, m in ours)


def test_a_flash_straight_on_leaves_no_holes_in_the_light(monkeypatch):
    # where the board mirrors the flash into the lens, shading must stay finite (a NaN there
    # once came out as black and red specks)
    seen = []
    develop = r3._develop

    def check(img, *a):
        seen.append(bool(np.isfinite(img).all()))
        return develop(img, *a)

    monkeypatch.setattr(r3, "_develop", check)
    r3.render3d(POS, seed=0, size=(320, 240), flash=1.4, gloss=0.2, **CLEAN)
    assert seen == [True]
