"""Robots unlike the real pieces in the project's renderer (``Scene.robot_variety``): the
cell classifier is trained on them, so that other editions' shapes and plastics read too."""

import numpy as np
import pytest

from companion.vision.render import (
    REAL_PIECE,
    ROBOT_SHAPES,
    RobotLook,
    Scene,
    _look_profile,
    random_position,
    render,
)


def _mask_rows(mask: np.ndarray) -> int:
    ys = np.nonzero(mask.any(axis=1))[0]
    return int(ys.max() - ys.min() + 1) if len(ys) else 0


def test_without_variety_every_robot_is_the_real_piece_and_the_frame_is_unchanged():
    pos = random_position(4)
    plain = render(pos, seed=4, size=(320, 240), tilt=20)
    same = render(pos, seed=4, size=(320, 240), tilt=20, robot_variety=0.0)
    assert np.array_equal(plain.image, same.image)
    varied = render(pos, seed=4, size=(320, 240), tilt=20, robot_variety=1.0)
    assert not np.array_equal(plain.image, varied.image)
    # the board and where the robots stand are the same: only the robots' looks change
    assert np.allclose(plain.corners, varied.corners) and plain.robots == varied.robots


def _drawn(look: RobotLook) -> tuple[np.ndarray, np.ndarray]:
    """One red robot drawn alone, seen at 40° tilt: the picture and its mask."""
    from companion.vision import render as R

    img = np.zeros((240, 320, 3), np.uint8)
    mask = np.zeros((240, 320), np.uint8)
    cam = R._camera(Scene(tilt=40.0), (16, 16), (320, 240), R.BORDER)
    R._draw_robot(img, mask, cam, np.array([0.5, -4.0, 0.0]), "red", np.array([0.0, 0.0, 1.0]),
                  look)
    return img, mask


@pytest.mark.parametrize("shape", ROBOT_SHAPES)
def test_every_shape_stands_as_tall_as_its_height_says(shape):
    z, r, slope = _look_profile(RobotLook(shape=shape, height=1.2))
    assert z[-1] == pytest.approx(_look_profile(REAL_PIECE)[0][-1] * 1.2)
    assert (r >= 0).all() and r[0] > 0.2 and np.isfinite(slope).all()
    img, mask = _drawn(RobotLook(shape=shape))
    assert mask.sum() > 0 and img[mask > 0].mean() > 20


def test_a_taller_robot_reaches_higher_in_the_picture():
    def rows(look: RobotLook) -> int:
        return _mask_rows(_drawn(look)[1])

    assert rows(RobotLook(height=1.25)) > rows(REAL_PIECE) > rows(RobotLook(height=0.75))


def test_washed_out_plastic_is_paler_and_dull_plastic_greyer():
    plain, mask = _drawn(REAL_PIECE)
    washed, _ = _drawn(RobotLook(wash=0.5))
    dull, _ = _drawn(RobotLook(dull=0.5))
    on = mask > 0

    def chroma(img: np.ndarray) -> float:
        px = img[on].astype(float)
        return float((px.max(axis=1) - px.min(axis=1)).mean())

    assert washed[on].mean() > plain[on].mean()
    assert chroma(dull) < chroma(plain) and chroma(washed) < chroma(plain)


def test_a_robot_look_out_of_range_is_refused_naming_what_is_wrong():
    with pytest.raises(ValueError, match="unknown shape 'blob'"):
        RobotLook(shape="blob")
    with pytest.raises(ValueError, match="height 5"):
        RobotLook(height=5.0)
