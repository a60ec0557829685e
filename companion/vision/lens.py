"""Lens calibration: the camera's focal length, centre and distortion from chessboard photos.

Cheap wide-angle lenses bend straight lines; near the board's edges that can move a wall by a
good fraction of a cell. Calibration is optional: print the chessboard sheet (``companion
calibration camera --sheet``), photograph it 10–20 times with the table's camera (tilted, near
the corners, at different distances) and run ``companion calibration camera PHOTOS…``. The
result is a small JSON profile; readers undistort frames (or just points) with it.

>>> profile = LensProfile.load("calibration/lens.json")  # doctest: +SKIP
>>> straight = profile.undistort(frame)  # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import CompanionError
from .markers import CHESSBOARD_PATTERN, CHESSBOARD_SQUARE_MM

LENS_FORMAT = "companion-lens/1"
MIN_VIEWS = 5


class LensError(CompanionError, ValueError):
    """Calibration that cannot be done or a profile that cannot be used; says why."""


@dataclass(frozen=True, eq=False)
class LensProfile:
    """A calibrated camera: intrinsics ``camera_matrix`` (3×3) and OpenCV distortion
    coefficients ``dist_coeffs`` (k1, k2, p1, p2, k3) for pictures of ``image_size`` (w, h)."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms: float = 0.0  # reprojection error of the calibration, pixels
    views: int = 0
    pattern: tuple[int, int] = CHESSBOARD_PATTERN
    square_mm: float = CHESSBOARD_SQUARE_MM
    _maps: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, compare=False, repr=False)

    # -- storage
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": LENS_FORMAT,
            "image_size": list(self.image_size),
            "camera_matrix": np.asarray(self.camera_matrix, float).round(6).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs, float).ravel().round(8).tolist(),
            "rms": round(float(self.rms), 4),
            "views": int(self.views),
            "pattern": list(self.pattern),
            "square_mm": float(self.square_mm),
        }

    @classmethod
    def from_dict(cls, data: Any) -> LensProfile:
        if not isinstance(data, dict):
            raise LensError("lens profile: a JSON object is expected")
        if data.get("format") != LENS_FORMAT:
            raise LensError(f"lens profile: format {data.get('format')!r} is not "
                            f"{LENS_FORMAT!r}")
        try:
            K = np.array(data["camera_matrix"], float)
            d = np.array(data["dist_coeffs"], float).ravel()
            size = tuple(int(v) for v in data["image_size"])
        except (KeyError, TypeError, ValueError) as e:
            raise LensError(f"lens profile: missing or bad field ({e})") from None
        if K.shape != (3, 3) or len(size) != 2 or d.size not in (4, 5, 8, 12, 14):
            raise LensError("lens profile: camera_matrix must be 3×3, image_size [w, h], "
                            "dist_coeffs 4, 5, 8, 12 or 14 numbers")
        return cls(K, d, (size[0], size[1]), float(data.get("rms", 0.0)),
                   int(data.get("views", 0)),
                   tuple(data.get("pattern", CHESSBOARD_PATTERN)),  # type: ignore[arg-type]
                   float(data.get("square_mm", CHESSBOARD_SQUARE_MM)))

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return p

    @classmethod
    def load(cls, path: str | Path) -> LensProfile:
        from ..inputs import InputError, read_json

        if not Path(path).exists():
            raise LensError(f"{path}: no such lens profile")
        try:
            data = read_json(path, "lens profile")
        except InputError as e:
            raise LensError(f"{path}: not a readable JSON lens profile ({e})") from None
        return cls.from_dict(data)

    # -- use
    def for_size(self, size: tuple[int, int]) -> LensProfile:
        """The same lens at another resolution of the same sensor (e.g. calibrated at
        1640×1232, used at 1280×960): the intrinsics scale, the distortion does not."""
        w, h = size
        sx, sy = w / self.image_size[0], h / self.image_size[1]
        if abs(sx - sy) > 0.01:
            raise LensError(f"lens profile: {self.image_size[0]}×{self.image_size[1]} and "
                            f"{w}×{h} have different shapes; calibrate at this size")
        K = np.array(self.camera_matrix, float)
        K[0] *= sx
        K[1] *= sy
        return LensProfile(K, self.dist_coeffs, (w, h), self.rms, self.views, self.pattern,
                           self.square_mm)

    def _profile_for(self, size: tuple[int, int]) -> LensProfile:
        return self if tuple(size) == tuple(self.image_size) else self.for_size(size)

    def undistort(self, image: np.ndarray) -> np.ndarray:
        """The picture with straight lines straight (same size and camera matrix)."""
        h, w = image.shape[:2]
        key = (w, h)
        if key not in self._maps:
            p = self._profile_for(key)
            self._maps[key] = cv2.initUndistortRectifyMap(
                p.camera_matrix, p.dist_coeffs, None, p.camera_matrix, key, cv2.CV_16SC2)
        m1, m2 = self._maps[key]
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR)

    def undistort_points(self, points: Any, size: tuple[int, int] | None = None) -> np.ndarray:
        """Pixel points N×2 of a raw picture → where they lie in the undistorted picture."""
        p = self._profile_for(size or self.image_size)
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.undistortPoints(pts, p.camera_matrix, p.dist_coeffs,
                                   P=p.camera_matrix).reshape(-1, 2)

    def distort_points(self, points: Any, size: tuple[int, int] | None = None) -> np.ndarray:
        """The inverse: undistorted pixel points → where the raw picture shows them."""
        p = self._profile_for(size or self.image_size)
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        K = p.camera_matrix
        norm = np.column_stack([(pts[:, 0] - K[0, 2]) / K[0, 0], (pts[:, 1] - K[1, 2]) / K[1, 1],
                                np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), K, p.dist_coeffs)
        return out.reshape(-1, 2)


@dataclass
class Calibration:
    """The outcome of a calibration run: the profile, and which photos were used or not."""

    profile: LensProfile
    used: list[str]
    rejected: dict[str, str]
    per_view_error: dict[str, float]


def find_chessboard(image: np.ndarray, pattern: tuple[int, int] = CHESSBOARD_PATTERN
                    ) -> np.ndarray | None:
    """The chessboard's inner corners (N×2, sub-pixel) or ``None`` when not fully seen."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ok, corners = cv2.findChessboardCornersSB(grey, pattern, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
    if ok:
        return corners.reshape(-1, 2).astype(np.float64)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    ok, corners = cv2.findChessboardCorners(grey, pattern, flags=flags)
    if not ok:
        return None
    corners = cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1),
                               (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 1e-3))
    return corners.reshape(-1, 2).astype(np.float64)


def calibrate(
    images: Iterable[tuple[str, np.ndarray]],
    pattern: tuple[int, int] = CHESSBOARD_PATTERN,
    square_mm: float = CHESSBOARD_SQUARE_MM,
    min_views: int = MIN_VIEWS,
) -> Calibration:
    """Calibrate from named pictures of the chessboard sheet. Pictures where the whole
    chessboard is not found are listed in ``rejected`` with the reason; fewer than
    ``min_views`` usable ones raise :class:`LensError`."""
    cols, rows = pattern
    board = np.zeros((cols * rows, 3), np.float32)
    board[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    obj_pts, img_pts, used = [], [], []
    rejected: dict[str, str] = {}
    size: tuple[int, int] | None = None
    for name, img in images:
        h, w = img.shape[:2]
        if size is None:
            size = (w, h)
        elif (w, h) != size:
            rejected[name] = f"size {w}×{h} differs from the first photo's {size[0]}×{size[1]}"
            continue
        corners = find_chessboard(img, pattern)
        if corners is None:
            rejected[name] = f"the whole {cols}×{rows}-corner chessboard is not visible"
            continue
        obj_pts.append(board)
        img_pts.append(corners.astype(np.float32).reshape(-1, 1, 2))
        used.append(name)
    if size is None:
        raise LensError("calibration: no photos given")
    if len(used) < min_views:
        raise LensError(f"calibration: the chessboard was found in {len(used)} photo(s); at "
                        f"least {min_views} are needed (10–20 recommended)")
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    errors = {}
    for name, o, i, r, t in zip(used, obj_pts, img_pts, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(o, r, t, K, dist)
        errors[name] = float(np.sqrt(np.mean(np.sum((proj - i) ** 2, axis=2))))
    profile = LensProfile(K, dist.ravel(), size, float(rms), len(used), pattern, square_mm)
    return Calibration(profile, used, rejected, errors)


__all__ = ["Calibration", "LENS_FORMAT", "LensError", "LensProfile", "calibrate",
           "find_chessboard"]
