"""Where a Micro Robots board lies in a camera frame: :func:`locate_micro`.

In this order: corners given by hand; the four ArUco corner markers of the classic board's
sheet (:mod:`companion.vision.markers`), laid at the Micro board's corners the same way —
they also fix which corner is the top-left of the layout; otherwise the board itself: its 36
die faces, bright on the dark sections, are a lattice of squares, fitted whatever the tilt,
and six of them each way is the board (a lattice larger than that is not a Micro board, a
smaller one is covered or out of the frame, and the error says which).

Everything here is in *grid* coordinates: ``(u, v)`` in spaces, ``(0, 0)`` at the first corner,
``(6, 6)`` at the opposite one. Without markers the first corner is the one nearest the
picture's top-left; a known layout is matched to the grid in all four turns later
(:class:`companion.vision.micro.MicroReader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np

from ..i18n import Message
from ..micro import SIZE
from .locate import (
    BoardNotFound,
    Camera,
    VisionError,
    camera_from_homography,
    check_corners,
    detect_markers,
)
from .micro_look import LOOK, Look
from .render import CELL_MM, marker_layout

WORK = 640  # the lattice is looked for at most this many pixels across


# ---------------------------------------------------------------- where the board is


@dataclass(frozen=True)
class MicroLocation:
    """Where the 6×6 lattice of spaces lies in one frame.

    ``corners`` are grid ``(0, 0), (6, 0), (6, 6), (0, 6)`` in pixels (clockwise on the
    picture); ``H`` maps grid ``(u, v, 1)`` (spaces) to pixels; ``camera`` projects points
    above the board (``z`` in spaces) for the robot; ``method`` is ``"manual"``,
    ``"markers"`` or ``"faces"``; ``quality`` the share of faces found where the lattice
    puts them."""

    corners: np.ndarray
    H: np.ndarray
    camera: Camera
    method: str
    quality: float
    image_size: tuple[int, int]
    notes: tuple[str, ...] = ()

    def to_image(self, uv: Any) -> np.ndarray:
        uv = np.asarray(uv, dtype=np.float64)
        h = uv.reshape(-1, 2) @ self.H[:, :2].T + self.H[:, 2]
        return (h[:, :2] / h[:, 2:3]).reshape(uv.shape)

    def to_grid(self, xy: Any) -> np.ndarray:
        xy = np.asarray(xy, dtype=np.float64)
        Hi = np.linalg.inv(self.H)
        h = xy.reshape(-1, 2) @ Hi[:, :2].T + Hi[:, 2]
        return (h[:, :2] / h[:, 2:3]).reshape(xy.shape)

    def warp(self, image: np.ndarray, px: int, margin: float = 0.5) -> np.ndarray:
        """The board from straight above, ``px`` pixels a space, ``margin`` spaces round it:
        pixel ``((u + margin)·px − 0.5, (v + margin)·px − 0.5)`` is grid point ``(u, v)``."""
        n = int(round((SIZE + 2 * margin) * px))
        S = np.array([[px, 0, margin * px - 0.5], [0, px, margin * px - 0.5], [0, 0, 1.0]])
        return cv2.warpPerspective(image, S @ np.linalg.inv(self.H), (n, n),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def rotated(self, k: int) -> MicroLocation:
        """The same board with grid corner ``k`` as the new ``(0, 0)``."""
        k %= 4
        if k == 0:
            return self
        return _location(np.roll(self.corners, -k, axis=0), self.image_size, self.method,
                         self.quality, self.notes)

    @property
    def space_px(self) -> float:
        """About how many pixels a space spans in the picture."""
        return float(np.sqrt(cv2.contourArea(self.corners.astype(np.float32)))) / SIZE


def _location(corners: np.ndarray, image_size: tuple[int, int], method: str,
              quality: float = 1.0, notes: tuple[str, ...] = ()) -> MicroLocation:
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    grid = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    H = cv2.getPerspectiveTransform(grid, corners.astype(np.float32)).astype(np.float64)
    return MicroLocation(corners, H, camera_from_homography(H, image_size), method,
                         float(quality), image_size, tuple(notes))


def micro_marker_corners(look: Look = LOOK) -> dict[int, np.ndarray]:
    """Each corner marker's printed corners in grid spaces, laid at the Micro board's corners
    as the classic board's sheet lays them (ids 0–3 at the top-left, top-right, bottom-right,
    bottom-left of the layout)."""
    k = look.space_mm / CELL_MM
    side = SIZE * k
    layout = marker_layout(SimpleNamespace(width=side, height=side), border=look.rim * k)
    return {int(i): np.asarray(q, dtype=np.float64) / k for i, q in layout.items()}


def _from_markers(gray: np.ndarray, image_size: tuple[int, int], look: Look
                  ) -> MicroLocation | None:
    layout = micro_marker_corners(look)
    found = {i: c for i, c in detect_markers(gray).items() if i in layout}
    if len(found) < 3:
        return None
    src = np.vstack([layout[i] for i in found]).astype(np.float32)
    dst = np.vstack(list(found.values())).astype(np.float32)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return None
    grid = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float64)
    h = grid @ H[:, :2].T + H[:, 2]
    return _location(h[:, :2] / h[:, 2:3], image_size, "markers", len(found) / 4)


def _face_blobs(small: np.ndarray) -> np.ndarray:
    """Candidate die faces in a small frame: compact, nearly square bright patches standing
    out from their surroundings. (N, 3): centre x, y and area, in small-frame pixels."""
    mx = small.max(axis=2)
    h, w = mx.shape
    block = max(15, (min(h, w) // 8) | 1)
    mask = cv2.adaptiveThreshold(mx, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                 block, -8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 40 or area > 0.02 * h * w:
            continue
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        cnts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        cnt = max(cnts, key=cv2.contourArea)
        filled = cv2.contourArea(cnt)
        hull = cv2.contourArea(cv2.convexHull(cnt))
        (_, _), (rw, rh), _ = cv2.minAreaRect(cnt)
        if hull <= 0 or filled / hull < 0.9 or min(rw, rh) < 4:
            continue
        if max(rw, rh) / min(rw, rh) > 1.7 or filled / (rw * rh) < 0.8:
            continue
        m = cv2.moments(cnt)
        out.append((m["m10"] / m["m00"] + x, m["m01"] / m["m00"] + y, filled))
    return np.array(out, dtype=np.float64).reshape(-1, 3)


def _grow_lattice(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer lattice coordinates for face centres: from the face with most neighbours, an
    affine lattice through it and its two nearest perpendicular neighbours, refitted (then as
    a homography) while it grows outwards. Returns (coordinates, inlier mask) or None."""
    n = len(pts)
    if n < 6:
        return None
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    pitch = float(np.median(d.min(axis=1)))
    near = (d > 0.7 * pitch) & (d < 1.35 * pitch)
    best: tuple[int, np.ndarray, np.ndarray] | None = None
    for seed in np.argsort(-near.sum(axis=1))[:6]:
        nb = np.flatnonzero(near[seed])
        if len(nb) < 2:
            continue
        vecs = pts[nb] - pts[seed]
        lens = np.linalg.norm(vecs, axis=1)
        a = vecs[int(np.argmin(lens))]
        cosang = np.abs(vecs @ a) / (lens * np.linalg.norm(a))
        perp = np.flatnonzero(cosang < 0.35)
        if len(perp) == 0:
            continue
        b = vecs[perp[np.argmin(lens[perp])]]
        H = np.array([[a[0], b[0], pts[seed][0]], [a[1], b[1], pts[seed][1]], [0, 0, 1.0]])
        radius = 1.6
        for _ in range(8):
            g = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
            r = np.round(g)
            ok = (np.linalg.norm(g - r, axis=1) < 0.25) & (np.abs(r).max(axis=1) <= radius)
            if ok.sum() < 4:
                break
            if ok.sum() >= 8 and len(np.unique(r[ok, 0])) > 1 and len(np.unique(r[ok, 1])) > 1:
                Hn, _ = cv2.findHomography(r[ok], pts[ok], 0)
            else:
                A = cv2.estimateAffine2D(r[ok], pts[ok])[0]
                Hn = None if A is None else np.vstack([A, [0, 0, 1]])
            if Hn is None:
                break
            H = Hn
            radius = radius * 1.7 + 1
        g = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
        r = np.round(g)
        ok = np.linalg.norm(g - r, axis=1) < 0.25
        if best is None or ok.sum() > best[0]:
            best = (int(ok.sum()), r.astype(int), ok)
    return None if best is None else (best[1], best[2])


def _from_faces(image: np.ndarray, look: Look) -> MicroLocation:
    h0, w0 = image.shape[:2]
    scale = min(1.0, WORK / max(h0, w0))
    small = cv2.resize(image, (round(w0 * scale), round(h0 * scale)),
                       interpolation=cv2.INTER_AREA) if scale < 1 else image
    blobs = _face_blobs(small)
    if len(blobs) >= 6:  # the die faces are all of a size; the dice beside the board are not
        med = float(np.median(blobs[:, 2]))
        blobs = blobs[(blobs[:, 2] > 0.5 * med) & (blobs[:, 2] < 1.8 * med)]
    if len(blobs) < 9:
        raise BoardNotFound(Message("vision.micro.no_faces"))
    pts = (blobs[:, :2] + 0.5) / scale - 0.5  # small-frame pixel centres → full frame
    grown = _grow_lattice(pts)
    if grown is None or grown[1].sum() < 9:
        raise BoardNotFound(Message("vision.micro.no_faces"))
    coords, ok = grown
    ii, jj = coords[ok, 0], coords[ok, 1]
    span = (int(ii.max() - ii.min() + 1), int(jj.max() - jj.min() + 1))
    # the 6×6 window holding most faces (the dice beside the board may line up too)
    best = None
    for i0 in range(int(ii.min()), int(ii.max()) - SIZE + 2):
        for j0 in range(int(jj.min()), int(jj.max()) - SIZE + 2):
            inside = (ii >= i0) & (ii < i0 + SIZE) & (jj >= j0) & (jj < j0 + SIZE)
            if best is None or inside.sum() > best[0]:
                best = (int(inside.sum()), i0, j0)
    src = coords[ok].astype(np.float64)
    H0, _ = cv2.findHomography(src, pts[ok], 0)
    if best is None:
        raise BoardNotFound(_missing_rows(H0, src, span, (w0, h0)))
    count, i0, j0 = best
    sel = (ii >= i0) & (ii < i0 + SIZE) & (jj >= j0) & (jj < j0 + SIZE)
    beyond = int((~sel).sum())
    if beyond > max(4, count // 3):  # two dice may line up with the faces, not a dozen
        raise BoardNotFound(Message("vision.micro.too_large", count=count + beyond))
    grid = src[sel] - [i0, j0] + 0.5
    img_pts = pts[ok][sel]
    pitch = float(np.median(np.linalg.norm(np.diff(img_pts, axis=0), axis=1)))
    H, inl = cv2.findHomography(grid, img_pts, cv2.RANSAC, max(1.5, 0.06 * pitch))
    if H is None:
        raise BoardNotFound(Message("vision.micro.no_lattice"))
    inl = inl.ravel().astype(bool)
    H, _ = cv2.findHomography(grid[inl], img_pts[inl], 0)
    if inl.sum() < 12:
        raise BoardNotFound(Message("vision.micro.few_faces", count=int(inl.sum())))
    gc = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float64)
    corners = cv2.perspectiveTransform(gc.reshape(-1, 1, 2), H).reshape(-1, 2)
    # a lattice seen in a mirror is not a board lying on a table: make it clockwise
    x, y = corners[:, 0], corners[:, 1]
    if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
        corners = corners[[0, 3, 2, 1]]
    # the top-left of the picture is the top-left of the layout read
    corners = np.roll(corners, -int(np.argmin(corners.sum(axis=1))), axis=0)
    notes = []
    space = float(np.sqrt(cv2.contourArea(corners.astype(np.float32)))) / SIZE
    outside = ((corners[:, 0] < -0.3 * space) | (corners[:, 0] > w0 - 1 + 0.3 * space)
               | (corners[:, 1] < -0.3 * space) | (corners[:, 1] > h0 - 1 + 0.3 * space))
    if outside.any():
        notes.append("the board touches the edge of the frame")
    return _location(corners, (w0, h0), "faces", inl.sum() / SIZE ** 2, tuple(notes))


def _missing_rows(H: np.ndarray | None, coords: np.ndarray, span: tuple[int, int],
                  size: tuple[int, int]) -> str:
    """Why fewer than six rows (or columns) of faces are seen: off the picture, or covered."""
    seen = Message("vision.micro.rows_seen", count=min(span))
    if H is None:
        return Message("vision.micro.rows_hidden", seen=seen)
    w, h = size
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    ends = []
    for axis in (0, 1):
        if span[axis] >= SIZE:
            continue
        for step in (-1, 1):
            edge = lo.copy() if step < 0 else hi.copy()
            other = 1 - axis
            for t in np.linspace(lo[other], hi[other], 5):
                p = edge.copy()
                p[axis] += step
                p[other] = t
                ends.append(p)
    if ends:
        xy = cv2.perspectiveTransform(np.array(ends, np.float64).reshape(-1, 1, 2), H)
        xy = xy.reshape(-1, 2)
        off = (xy[:, 0] < 0) | (xy[:, 0] > w - 1) | (xy[:, 1] < 0) | (xy[:, 1] > h - 1)
        if off.any():
            return Message("vision.micro.rows_out", seen=seen)
    return Message("vision.micro.rows_covered", seen=seen)


def locate_micro(image: np.ndarray, *, corners: Any = None, look: Look = LOOK,
                 markers: bool = True) -> MicroLocation:
    """Find the Micro Robots board in a BGR frame (see the module docstring); raises
    :class:`~companion.vision.locate.BoardNotFound` with the reason in the user's words."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 \
            or image.size == 0:
        raise VisionError(Message("vision.not_colour"))
    h, w = image.shape[:2]
    names = "top-left, top-right, bottom-right, bottom-left of the layout"
    if corners is not None:
        return _location(check_corners(corners, (w, h), names), (w, h), "manual")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if float(gray.max()) < 25:
        raise BoardNotFound(Message("vision.black"))
    if markers:
        loc = _from_markers(gray, (w, h), look)
        if loc is not None:
            return loc
    return _from_faces(image, look)


__all__ = ["MicroLocation", "locate_micro", "micro_marker_corners"]
