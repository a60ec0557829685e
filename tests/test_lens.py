"""Lens calibration recovers a known camera from pictures of the printed chessboard, and the
profile round-trips, rescales and undistorts."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision.lens import LensError, LensProfile, calibrate, find_chessboard
from companion.vision.markers import CHESSBOARD_PATTERN, chessboard_sheet

SIZE = (800, 600)
K_TRUE = np.array([[760.0, 0, 405.0], [0, 760.0, 296.0], [0, 0, 1]])
D_TRUE = np.array([-0.28, 0.09, 0.0, 0.0, 0.0])
PX_PER_MM = 3.0


@pytest.fixture(scope="module")
def sheet_raster() -> np.ndarray:
    return chessboard_sheet().rasterize(PX_PER_MM)


def photograph(sheet: np.ndarray, rvec, tvec, K=K_TRUE, dist=D_TRUE, size=SIZE) -> np.ndarray:
    """What a camera with lens distortion sees of the flat sheet (in mm, z = 0)."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    pix = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    norm = cv2.undistortPoints(pix, K, dist).reshape(-1, 2)
    R, _ = cv2.Rodrigues(np.asarray(rvec, float))
    Hn = np.column_stack([R[:, 0], R[:, 1], np.asarray(tvec, float)])
    plane = np.linalg.solve(Hn, np.column_stack([norm, np.ones(len(norm))]).T).T
    mm = plane[:, :2] / plane[:, 2:3]
    mapx = (mm[:, 0] * PX_PER_MM).reshape(h, w).astype(np.float32)
    mapy = (mm[:, 1] * PX_PER_MM).reshape(h, w).astype(np.float32)
    grey = cv2.remap(sheet, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=140)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


def views(sheet: np.ndarray, n: int = 8, seed: int = 1) -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    centre = np.array([105.0, 30 + 120.0, 0.0])  # the chessboard's middle on the sheet, mm
    out = []
    for i in range(n):
        rot = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3)])
        R, _ = cv2.Rodrigues(rot)
        shift = np.array([rng.uniform(-70, 70), rng.uniform(-50, 50), rng.uniform(430, 560)])
        tvec = shift - R @ centre
        out.append((f"view{i}.png", photograph(sheet, rot, tvec)))
    return out


@pytest.fixture(scope="module")
def photos(sheet_raster):
    return views(sheet_raster)


@pytest.fixture(scope="module")
def calibrated(photos):
    return calibrate(photos)


def test_calibration_recovers_the_camera(calibrated):
    result = calibrated
    prof = result.profile
    assert len(result.used) >= 7 and prof.views == len(result.used)
    assert prof.image_size == SIZE
    assert prof.rms < 0.5
    K = prof.camera_matrix
    assert K[0, 0] == pytest.approx(760, rel=0.03) and K[1, 1] == pytest.approx(760, rel=0.03)
    assert K[0, 2] == pytest.approx(405, abs=12) and K[1, 2] == pytest.approx(296, abs=12)
    assert prof.dist_coeffs[0] == pytest.approx(-0.28, abs=0.05)
    assert max(result.per_view_error.values()) < 1.0


def test_undistorting_a_photo_straightens_the_chessboard(photos, calibrated):
    prof = calibrated.profile
    img = photos[0][1]

    def bend(corners: np.ndarray) -> float:
        """How far the outer rows' corners stray from straight lines, pixels."""
        grid = corners.reshape(CHESSBOARD_PATTERN[1], CHESSBOARD_PATTERN[0], 2)
        worst = 0.0
        for row in (grid[0], grid[-1], grid[:, 0], grid[:, -1]):
            a, b = row[0], row[-1]
            n = np.array([-(b - a)[1], (b - a)[0]]) / np.linalg.norm(b - a)
            worst = max(worst, float(np.abs((row - a) @ n).max()))
        return worst

    before = bend(find_chessboard(img))
    after = bend(find_chessboard(prof.undistort(img)))
    assert before > 2.0
    assert after < 0.5 * before and after < 1.5


def test_points_round_trip_through_distortion(photos):
    prof = LensProfile(K_TRUE, D_TRUE, SIZE)
    pts = np.array([[20.0, 30.0], [400, 300], [780, 580], [600, 100]])
    raw = prof.distort_points(pts)
    assert np.abs(raw - pts).max() > 1.0
    np.testing.assert_allclose(prof.undistort_points(raw), pts, atol=0.05)


def test_profile_round_trips_and_rescales(tmp_path):
    prof = LensProfile(K_TRUE, D_TRUE, SIZE, rms=0.2, views=12)
    path = prof.save(tmp_path / "sub" / "lens.json")
    back = LensProfile.load(path)
    np.testing.assert_allclose(back.camera_matrix, K_TRUE)
    np.testing.assert_allclose(back.dist_coeffs, D_TRUE)
    assert back.image_size == SIZE and back.views == 12
    assert json.loads(path.read_text())["format"] == "companion-lens/1"
    half = prof.for_size((400, 300))
    assert half.camera_matrix[0, 0] == pytest.approx(380)
    assert half.camera_matrix[1, 2] == pytest.approx(148)
    with pytest.raises(LensError, match="different shapes"):
        prof.for_size((400, 400))
    # a picture at half size is undistorted with the rescaled lens
    assert prof.undistort(np.zeros((300, 400, 3), np.uint8)).shape == (300, 400, 3)


@pytest.mark.parametrize("data,message", [
    ([], "a JSON object"), ({"format": "x"}, "format 'x'"),
    ({"format": "companion-lens/1", "camera_matrix": [[1]], "dist_coeffs": [0] * 5,
      "image_size": [4, 3]}, "3×3"),
    ({"format": "companion-lens/1"}, "missing or bad field"),
])
def test_bad_profiles_say_what_is_wrong(data, message):
    with pytest.raises(LensError, match=message):
        LensProfile.from_dict(data)


def test_a_missing_or_broken_profile_file(tmp_path):
    with pytest.raises(LensError, match="no such lens profile"):
        LensProfile.load(tmp_path / "lens.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(LensError, match="not a readable JSON"):
        LensProfile.load(tmp_path / "bad.json")


def test_too_few_usable_photos_is_an_error_naming_the_count(photos):
    blank = ("blank.png", np.full((600, 800, 3), 200, np.uint8))
    small = ("small.png", np.full((300, 400, 3), 200, np.uint8))
    with pytest.raises(LensError, match="found in 2 photo"):
        calibrate([photos[0], blank, photos[1], small])
    result = calibrate([*photos[:5], blank, small])
    assert set(result.rejected) == {"blank.png", "small.png"}
    assert "not visible" in result.rejected["blank.png"]
    assert "differs" in result.rejected["small.png"]
    with pytest.raises(LensError, match="no photos"):
        calibrate([])


def test_camera_command_calibrates_from_a_folder(tmp_path, photos, capsys):
    folder = tmp_path / "shots"
    folder.mkdir()
    for name, img in photos:
        cv2.imwrite(str(folder / name), img)
    (folder / "broken.png").write_bytes(b"not a picture")
    out = tmp_path / "lens.json"
    assert main(["calibration", "camera", str(folder), "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "reprojection error" in printed.out and "broken.png" in printed.err
    assert LensProfile.load(out).camera_matrix[0, 0] == pytest.approx(760, rel=0.03)


def test_camera_command_bad_input_exits_2(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((60, 80, 3), 200, np.uint8))
    assert main(["calibration", "camera", str(blank)]) == 2
    assert "found in 0 photo" in capsys.readouterr().err
    assert main(["calibration", "camera", str(blank), "--pattern", "6by9"]) == 2
    assert main(["calibration", "camera", str(blank), "--square-mm", "0"]) == 2
    assert main(["calibration", "camera", str(tmp_path / "none")]) == 2
    assert main(["calibration", "camera"]) == 2
