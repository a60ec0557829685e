"""Board localisation: where the 16×16 lattice of cells lies in a camera frame.

Four ways, tried in this order by :func:`locate`:

1. **Corners given by hand** (``corners=``), the last resort a user can always fall back on.
2. **ArUco markers** (``DICT_4X4_50``, ids 0–3) stuck beside the board corners, when all four are
   seen: exact and cheap.
3. **The board itself**: the playing surface is a large, bright, unsaturated quadrilateral
   (off-white cells) framed by a dark printed border, on whatever table. Its outline is found as
   the biggest such region; each side is then fitted as a straight line through the outline
   points that lie on it, so a robot or a hand hiding part of one side does not bend it.
4. **The lattice of cells** (:mod:`companion.vision.lattice`), when the outline fails (a thin
   or pale frame, a table as light as the cells) or its frame is not clearly dark all round:
   the 17 × 17 printed lines, verified to stop where the board does, searched for round the
   outlines found, round the regions dense in thin dark lines (:func:`lined_quads`: on a
   white, grey or glossy table the outline runs on into the table, the lines do not) and in
   the whole picture. It also names the edge of a board that runs out of the picture.

Whatever found it, a board must repeat its print at every cell (:func:`board_like`): a single
tile's 8 × 8 cells taken for 16 × 16 do not, and are refused.

Everything here works in *grid* coordinates: ``(u, v)`` in cells, ``(0, 0)`` at the first corner
found, ``u`` along the first side, ``(16, 16)`` at the opposite corner. Which corner is really the
north-west one is not known yet: the board is the same square whichever way it is turned, and
only the tiles tell (see :mod:`companion.vision.tileid`). ``Location.rotated`` re-labels the grid
once that is known.

Since robots are tall, the camera's pose matters, not just the board plane: the homography is
decomposed into a pinhole camera (:class:`Camera`), so that a point ``z`` cells above the board
can be projected too (see :mod:`companion.vision.robots`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from ..errors import CompanionError
from ..i18n import Message, said

GRID = 16


class VisionError(CompanionError, ValueError):
    """The frame cannot be read; the message says what is wrong, in the user's words (a
    :class:`~companion.i18n.Message`, so a page says it in its own language)."""


class BoardNotFound(VisionError):
    """No board (or not all of it) is in view."""


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the board plane, from one homography.

    ``P`` maps grid points ``(u, v, z)`` (cells; ``z`` up from the board) to pixels. ``centre``
    is the camera's position in the same units; its foot ``centre[:2]`` is where parallax points
    away from.
    """

    P: np.ndarray
    focal: float
    centre: np.ndarray
    principal: tuple[float, float] | None = None  # pixels; None: the picture's centre

    def project(self, pts: np.ndarray) -> np.ndarray:
        """``(..., 3)`` grid points → ``(..., 2)`` pixels."""
        pts = np.asarray(pts, dtype=np.float64)
        flat = pts.reshape(-1, 3)
        h = flat @ self.P[:, :3].T + self.P[:, 3]
        out = h[:, :2] / h[:, 2:3]
        return out.reshape(*pts.shape[:-1], 2)


@dataclass(frozen=True)
class Location:
    """Where the board is in one frame.

    ``corners`` are the four outer corners of the cell lattice in pixels, in grid order
    ``(0,0), (16,0), (16,16), (0,16)``; ``H`` maps grid ``(u, v, 1)`` to pixels; ``method`` says
    how it was found (``"manual"``, ``"markers"``, ``"outline"``, ``"lattice"``); ``quality`` is
    0..1.
    """

    corners: np.ndarray
    H: np.ndarray
    camera: Camera
    method: str
    quality: float
    image_size: tuple[int, int]  # (width, height)
    notes: tuple[str, ...] = field(default=())

    def to_image(self, uv: np.ndarray) -> np.ndarray:
        """Grid points on the board plane → pixels."""
        uv = np.asarray(uv, dtype=np.float64)
        flat = uv.reshape(-1, 2)
        h = flat @ self.H[:, :2].T + self.H[:, 2]
        return (h[:, :2] / h[:, 2:3]).reshape(uv.shape)

    def to_grid(self, xy: np.ndarray) -> np.ndarray:
        """Pixels → grid points on the board plane."""
        xy = np.asarray(xy, dtype=np.float64)
        Hi = np.linalg.inv(self.H)
        flat = xy.reshape(-1, 2)
        h = flat @ Hi[:, :2].T + Hi[:, 2]
        return (h[:, :2] / h[:, 2:3]).reshape(xy.shape)

    def rotated(self, k: int) -> Location:
        """The same location with the grid turned by ``k`` quarter turns, so that grid corner
        ``k`` becomes ``(0, 0)``."""
        k %= 4
        if k == 0:
            return self
        corners = np.roll(self.corners, -k, axis=0)
        out = from_corners(corners, self.image_size, method=self.method,
                           quality=self.quality, notes=self.notes)
        principal = self.camera.principal
        return out if principal is None else out.with_principal(principal)

    def with_principal(self, principal: tuple[float, float]) -> Location:
        """The same board seen by the camera whose principal point is ``principal`` (pixels)
        instead of the picture's centre."""
        return replace(self, camera=camera_from_homography(self.H, self.image_size, principal))

    def warp(self, image: np.ndarray, px_per_cell: int, border: float = 0.0) -> np.ndarray:
        """The board seen from straight above: ``px_per_cell`` pixels a cell, plus ``border``
        cells of margin all round."""
        n = int(round((GRID + 2 * border) * px_per_cell))
        S = np.array([[px_per_cell, 0, border * px_per_cell],
                      [0, px_per_cell, border * px_per_cell],
                      [0, 0, 1]], dtype=np.float64)
        M = S @ np.linalg.inv(self.H)
        return cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)


# ---------------------------------------------------------------- camera from a homography


def default_focal(image_size: tuple[int, int]) -> float:
    """A typical camera's focal length in pixels (about 62° across, the Pi camera's field)."""
    return 0.83 * max(image_size)


def camera_from_homography(H: np.ndarray, image_size: tuple[int, int],
                           principal: tuple[float, float] | None = None) -> Camera:
    """Decompose ``H = K [r1 r2 t]`` with square pixels and the principal point at the image
    centre (or at ``principal``, in pixels: a cropped picture's lies off its centre, and one
    plane's homography cannot tell where). The focal length follows from ``r1 ⟂ r2`` and
    ``|r1| = |r2|`` when the view is oblique enough to tell; from a near top-down view it
    cannot, so a typical lens is assumed (the parallax it predicts is small there anyway)."""
    w, h = image_size
    cx, cy = (w / 2.0, h / 2.0) if principal is None else (float(principal[0]),
                                                           float(principal[1]))
    T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], dtype=np.float64)
    Hc = T @ H
    Hc = Hc / np.linalg.norm(Hc[:, 0])
    h1, h2 = Hc[:, 0], Hc[:, 1]
    f0 = default_focal(image_size)
    # Two linear equations in w = 1/f², weighted by how much each one knows.
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    # Prior: f near f0, as a weak third equation.
    scale = np.abs(a).max() if np.abs(a).max() > 0 else 1.0
    prior_w = 1.0 / f0 ** 2
    lam = 0.02 * scale
    A = np.concatenate([a, [lam]])
    B = np.concatenate([b, [-lam * prior_w]])
    wv = -float(A @ B) / float(A @ A)
    f = 1.0 / np.sqrt(wv) if wv > 0 else f0
    f = float(np.clip(f, 0.45 * max(w, h), 4.0 * max(w, h)))
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], dtype=np.float64)
    A_ = np.linalg.inv(K) @ H
    s = (np.linalg.norm(A_[:, 0]) + np.linalg.norm(A_[:, 1])) / 2.0
    r1 = A_[:, 0] / np.linalg.norm(A_[:, 0])
    r2 = A_[:, 1] - r1 * (r1 @ A_[:, 1])
    r2 /= np.linalg.norm(r2)
    r3 = np.cross(r1, r2)
    P = np.column_stack([H[:, 0], H[:, 1], s * (K @ r3), H[:, 2]])
    M = P[:, :3]
    C = -np.linalg.solve(M, P[:, 3])
    if C[2] < 0:  # make +z point towards the camera, i.e. up from the table
        P[:, 2] = -P[:, 2]
        C = -np.linalg.solve(P[:, :3], P[:, 3])
    return Camera(P=P, focal=f, centre=C, principal=principal)


def from_corners(corners: np.ndarray, image_size: tuple[int, int], *, method: str = "manual",
                 quality: float = 1.0, notes: tuple[str, ...] = ()) -> Location:
    """A :class:`Location` from four lattice corners in grid order."""
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    grid = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float64)
    H = cv2.getPerspectiveTransform(grid.astype(np.float32), corners.astype(np.float32))
    H = H.astype(np.float64)
    return Location(corners=corners, H=H, camera=camera_from_homography(H, image_size),
                    method=method, quality=quality, image_size=image_size, notes=notes)


def _check_quad(corners: np.ndarray, image_size: tuple[int, int]) -> None:
    w, h = image_size
    pts = corners.astype(np.float32).reshape(-1, 1, 2)
    if not cv2.isContourConvex(pts):
        raise BoardNotFound(Message("vision.not_convex"))
    area = cv2.contourArea(pts)
    if area < 0.04 * w * h:
        raise BoardNotFound(Message("vision.too_small"))


SQUARE = 1.4  # the most a board's two sides may differ in length, seen by any plausible lens


def squareness(corners: np.ndarray, image_size: tuple[int, int]) -> float:
    """How far from square the board with these corners is, as the ratio (≥ 1) of its two
    sides' lengths on the table, for the lens (focal length 0.45–4 times the picture's size,
    centred) that makes it most nearly square. A real board is square from any angle (≈ 1.0
    on every real photo); a lattice fitted at half a cell's period along one way (cells
    with a printed square inside them, one edge of the board out of the picture) is not."""
    w, h = image_size
    grid = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float32)
    H = cv2.getPerspectiveTransform(grid, np.asarray(corners, np.float32).reshape(4, 2))
    Hc = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]]) @ H.astype(np.float64)
    f = np.geomspace(0.45, 4.0, 48) * max(w, h)
    # K⁻¹ h for each focal length, for the board's two sides
    a = np.stack([Hc[0, 0] / f, Hc[1, 0] / f, np.full_like(f, Hc[2, 0])])
    b = np.stack([Hc[0, 1] / f, Hc[1, 1] / f, np.full_like(f, Hc[2, 1])])
    na, nb = np.linalg.norm(a, axis=0), np.linalg.norm(b, axis=0)
    off = np.abs(np.log(na / nb)) + np.abs((a * b).sum(axis=0)) / (na * nb)
    i = int(np.argmin(off))
    return float(np.exp(abs(np.log(na[i] / nb[i]))))


def check_corners(corners: Any, image_size: tuple[int, int],
                  names: str = "north-west, north-east, south-east, south-west") -> np.ndarray:
    """Corners given by hand, as a 4×2 array; a :class:`VisionError` says what is wrong with
    them (not four points, not clockwise, not a convex quadrilateral, too small)."""
    c = np.asarray(corners, dtype=np.float64)
    if c.size != 8 or not np.isfinite(c).all():
        raise VisionError(f"corners: four x,y pairs ({names})")
    c = c.reshape(4, 2)
    _check_quad(c, image_size)
    x, y = c[:, 0], c[:, 1]
    if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
        raise VisionError(f"corners: give them clockwise on the picture: {names}")
    return c


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Four points → clockwise on screen, starting with the one nearest the top-left."""
    pts = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise on screen (y down)
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    return np.roll(pts, -start, axis=0)


# ---------------------------------------------------------------- markers


def _aruco_detector() -> cv2.aruco.ArucoDetector:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    return cv2.aruco.ArucoDetector(d, params)


def marker_grid_corners() -> dict[int, np.ndarray]:
    """Each marker's four printed corners (TL, TR, BR, BL) in grid cells, ids 0..3 at the
    board's NW, NE, SE, SW: the sheet's geometry, as the renderer and the sheet share it."""
    from types import SimpleNamespace

    from .render import marker_layout

    return {int(k): np.asarray(v, dtype=np.float64)
            for k, v in marker_layout(SimpleNamespace(width=GRID, height=GRID)).items()}


def detect_markers(gray: np.ndarray) -> dict[int, np.ndarray]:
    """Every ArUco marker (``DICT_4X4_50``) in a grey frame: id → its 4×2 corners in pixels.

    Markers are looked for in a half-size picture (four times cheaper; they are large) and
    their corners then refined on the full one."""
    h, w = gray.shape
    k = min(1.0, 800.0 / max(h, w))
    small = cv2.resize(gray, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA) \
        if k < 1 else gray
    corners, ids, _ = _aruco_detector().detectMarkers(small)
    if ids is None:
        return {}
    if k < 1:
        pts = np.vstack([c.reshape(4, 2) for c in corners]).astype(np.float32)
        pts = (pts + 0.5) / k - 0.5
        cv2.cornerSubPix(gray, pts.reshape(-1, 1, 2), (3, 3), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05))
        corners = [pts[4 * i:4 * i + 4].reshape(1, 4, 2) for i in range(len(corners))]
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def locate_markers(gray: np.ndarray, image_size: tuple[int, int]) -> Location | None:
    """The board from its ArUco markers (at least three of the four), or ``None``."""
    layout = marker_grid_corners()
    src, dst = [], []
    for i, c in detect_markers(gray).items():
        if i in layout:
            src.append(layout[i])
            dst.append(c)
    if len(src) < 3:
        return None
    H, _ = cv2.findHomography(np.vstack(src).astype(np.float32),
                              np.vstack(dst).astype(np.float32), 0)
    if H is None:
        return None
    grid = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float64)
    h = grid @ H[:, :2].T + H[:, 2]
    pts = h[:, :2] / h[:, 2:3]
    return from_corners(pts, image_size, method="markers", quality=len(src) / 4)


# ---------------------------------------------------------------- the board's own outline


def _surface_parts(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Balanced brightness, its neighbourhood's brightest, saturation, and the frame's white."""
    b, g, r = cv2.split(image)
    mx = cv2.max(cv2.max(b, g), r)
    bright = float(np.percentile(mx, 97))
    if bright < 25:
        raise BoardNotFound(Message("vision.black"))
    # Colour cast: the bright, nearly grey pixels (short of any glare) tell its hue; undo it
    # first. Strongly coloured pixels are left out, or a large light wood table would pass
    # for the white and turn the board blue.
    mn0 = cv2.min(cv2.min(b, g), r)
    sat0 = mx.astype(np.int16) - mn0.astype(np.int16)
    sel = ((mx >= np.percentile(mx, 60)) & (mx <= np.percentile(mx, 97))
           & (sat0 < 0.45 * mx.astype(np.int16)))
    if sel.sum() > 0.01 * mx.size:
        mean = np.array([b[sel].mean(), g[sel].mean(), r[sel].mean()]) + 1.0
        gain = mean.max() / mean
    else:
        gain = np.ones(3)
    bal = cv2.merge([cv2.convertScaleAbs(c, alpha=float(k)) for c, k in zip((b, g, r), gain,
                                                                             strict=True)])
    mx = bal.max(axis=2)
    sat = mx.astype(np.int16) - bal.min(axis=2).astype(np.int16)
    k = max(3, (min(mx.shape) // 12) | 1)
    local = cv2.blur(cv2.dilate(mx, np.ones((k, k), np.uint8)), (k, k)).astype(np.int16)
    return mx.astype(np.int16), local, sat, float(np.percentile(mx, 97))


def surface_mask(image: np.ndarray, level: float = 0.5,
                 parts: tuple | None = None, barrier: np.ndarray | None = None) -> np.ndarray:
    """Pixels that look like the playing surface: nearly colourless, brighter than ``level``
    of the frame's white, and not much darker than their neighbourhood's brightest (so the
    board's dark frame always parts it from the table, and light falling off across the
    board does not cut its far half away).

    Brightness is judged after undoing the frame's colour cast, so dim rooms and warm lamps
    (which turn the white cells beige) do not matter much. With a ``barrier`` (see
    :func:`glare_barrier`) the neighbourhood test gives way to it: under glare the frame is no
    longer much darker than the glare beside it, but it is still a band darker than both its
    sides."""
    mx, local, sat, bright = parts if parts is not None else _surface_parts(image)
    if barrier is None:
        near = mx > 0.62 * local
    else:
        near = barrier == 0
    return ((mx > level * bright) & near & (sat < 0.28 * mx + 12)).astype(np.uint8) * 255


def glare_barrier(image: np.ndarray, mx: np.ndarray) -> np.ndarray:
    """Where the surface cannot run on (255): dark bands at least a few pixels wide, and
    washed-out glare.

    A glare spot *adds* light: it lifts the board's dark frame as much as the cells beside it,
    so their ratio says little there while their difference stays. A pixel is print when it
    is darker than the brightest within half a cell of it by a quarter of the light there,
    never of more than the frame's usual white, so glare does not raise the bar (beside
    clipped glare, by any visible step). Thin lines (between cells) are opened away; the print
    inside a cell has too little contrast to count. Where glare has washed the picture out,
    nothing of the print is left to see; such patches, larger than a cell, are a barrier too,
    so a pale table cannot join the board through them."""
    m8 = np.clip(mx, 0, 255).astype(np.uint8)
    k = max(3, (min(mx.shape) // 24) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    half = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, ((k // 2) | 1, (k // 2) | 1))
    near = cv2.dilate(m8, half).astype(np.float32)
    white = float(np.percentile(mx, 90))
    bar = 0.25 * np.minimum(near, white)
    # beside clipped glare the cells show nothing: whatever is visibly darker is print
    bar = np.where(near >= 250, np.minimum(bar, 25.0), bar)
    dark = ((near - mx) > bar).astype(np.uint8) * 255
    dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    washed = cv2.blur(image.max(axis=2), (k, k)) >= 238  # the print's darks are gone too
    clipped = cv2.morphologyEx(washed.astype(np.uint8) * 255, cv2.MORPH_CLOSE, disc)
    clipped = cv2.morphologyEx(clipped, cv2.MORPH_OPEN, disc)
    # where the frame runs into glare it fades before the glare is washed out: bridge the gap
    return cv2.morphologyEx(cv2.bitwise_or(dark, clipped), cv2.MORPH_CLOSE, half)


def _fit_side(pts: np.ndarray, a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray | None:
    """Refit one side ``a→b`` of a rough quadrilateral as a line through the outline points
    within ``tol`` of it, ignoring its ends (the corners are often hidden)."""
    d = b - a
    L = np.linalg.norm(d)
    if L < 1:
        return None
    n = np.array([-d[1], d[0]]) / L
    t = (pts - a) @ d / L ** 2
    dist = np.abs((pts - a) @ n)
    sel = (t > 0.08) & (t < 0.92) & (dist < tol)
    if sel.sum() < 10:
        return None
    line = cv2.fitLine(pts[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return line  # vx, vy, x0, y0


def _intersect(l1: np.ndarray, l2: np.ndarray) -> np.ndarray:
    d1, p1 = l1[:2], l1[2:]
    d2, p2 = l2[:2], l2[2:]
    A = np.array([d1, -d2]).T
    s = np.linalg.solve(A, p2 - p1)
    return p1 + s[0] * d1


def _component(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """The board's region in a surface mask: the large component that is most nearly a filled
    convex shape (a light table around the board is large too, but it is a ring)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    H_, W_ = mask.shape
    best, best_score = -1, 0.0
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < 0.04 * W_ * H_:
            continue
        x, y, bw, bh = stats[i, :4]
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        cnts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cnt = max(cnts, key=cv2.contourArea)
        hull_area = max(cv2.contourArea(cv2.convexHull(cnt)), 1.0)
        solidity = area / hull_area
        # int(): numpy's booleans add up as a logical or, never past 1
        sides = int(x <= 1) + int(y <= 1) + int(x + bw >= W_ - 1) + int(y + bh >= H_ - 1)
        score = area * solidity ** 6 * (0.05 if sides >= 3 else 1.0)
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        raise BoardNotFound(Message("vision.no_board_colour"))
    return (labels == best).astype(np.uint8) * 255, int(stats[best, cv2.CC_STAT_AREA])


def _on_frame_edge(a: np.ndarray, b: np.ndarray, W: int, H: int, m: float = 3.0) -> bool:
    for k, lim in ((0, 0.0), (1, 0.0), (0, W - 1.0), (1, H - 1.0)):
        if abs(a[k] - lim) <= m and abs(b[k] - lim) <= m:
            return True
    return False


def _quad_from_hull(hull: np.ndarray, W: int, H: int) -> np.ndarray | None:
    """Four sides from a convex outline: its four longest edges that are not the frame's edge
    (where the board runs out of the picture), met pairwise at the corners."""
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.015, 0.02, 0.03, 0.04, 0.06):
        poly = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float64)
        if len(poly) < 4:
            return None
        edges = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
        keep = [i for i, (a, b) in enumerate(edges) if not _on_frame_edge(a, b, W, H)]
        if len(keep) < 4 or len(poly) > 8:
            continue
        longest = sorted(keep, key=lambda i: -np.linalg.norm(edges[i][1] - edges[i][0]))[:4]
        longest.sort()
        lines = []
        for i in longest:
            a, b = edges[i]
            d = (b - a) / np.linalg.norm(b - a)
            lines.append(np.array([d[0], d[1], a[0], a[1]]))
        quad = []
        for j in range(4):
            l1, l2 = lines[j - 1], lines[j]
            if abs(l1[0] * l2[1] - l1[1] * l2[0]) < 0.3:  # nearly parallel: not a corner
                return None
            quad.append(_intersect(l1, l2))
        return np.array(quad)
    return None


def _ransac_sides(pts: np.ndarray, tol: float, rng: np.random.Generator
                  ) -> np.ndarray | None:
    """Four straight sides of an outline that may bulge where glare, a hand or a robot
    spills over it: the four lines that each run through the most outline points, two
    roughly parallel pairs, met at the corners."""
    lines = []
    left = pts
    for _ in range(4):
        if len(left) < 20:
            return None
        i = rng.integers(0, len(left), size=(300, 2))
        a, b = left[i[:, 0]], left[i[:, 1]]
        d = b - a
        n = np.linalg.norm(d, axis=1)
        ok = n > tol * 8
        a, d, n = a[ok], d[ok], n[ok]
        if len(a) == 0:
            return None
        nrm = np.stack([-d[:, 1], d[:, 0]], axis=1) / n[:, None]
        # distance of every point from every candidate line: |(p - a) · n|
        dist = np.abs(left @ nrm.T - (a * nrm).sum(axis=1))  # (points, candidates)
        count = (dist < tol).sum(axis=0)
        best = int(np.argmax(count))
        inl = dist[:, best] < tol
        fit = cv2.fitLine(left[inl].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append(fit)
        # drop the inliers and anything within a wider band, so the next side is another one
        nb = np.array([-fit[1], fit[0]])
        band = np.abs((left - fit[2:]) @ nb) < 3 * tol
        left = left[~band]
    ang = np.array([np.arctan2(ln[1], ln[0]) % np.pi for ln in lines])
    # pair the lines into two families of nearly parallel sides
    best_pair, best_err = None, 1e9
    for pair in ((0, 1), (0, 2), (0, 3)):
        rest = tuple(i for i in range(4) if i not in pair)

        def diff(i: int, j: int) -> float:
            x = abs(ang[i] - ang[j])
            return min(x, np.pi - x)

        err = diff(*pair) + diff(*rest)
        if err < best_err:
            best_pair, best_err = (pair, rest), err
    if best_pair is None or best_err > 0.6:
        return None
    (i, j), (k, m) = best_pair
    try:
        quad = np.array([_intersect(lines[a_], lines[b_]) for a_, b_ in
                         ((i, k), (i, m), (j, k), (j, m))])
    except np.linalg.LinAlgError:
        return None
    return order_corners(quad)


def _outline_at(small: np.ndarray, mask: np.ndarray
                ) -> tuple[float, np.ndarray, bool] | None:
    """One try at the outline from one surface mask: (how well it fits, quad, touches the
    frame's edge)."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    blob, area = _component(mask)
    H_, W_ = mask.shape
    cnts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    pts = cnt.reshape(-1, 2).astype(np.float64)
    onedge = ((pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= W_ - 2)
              | (pts[:, 1] >= H_ - 2))
    quad = _ransac_sides(pts[~onedge][::2], 1.5, np.random.default_rng(0))
    if quad is None:
        quad = _quad_from_hull(cv2.convexHull(cnt), W_, H_)
    if quad is None:
        return None
    quad = order_corners(quad)
    qmask = np.zeros_like(blob)
    cv2.fillPoly(qmask, [np.round(quad).astype(np.int32)], 255)
    q_area = max(float(cv2.countNonZero(qmask)), 1.0)
    inside = float(cv2.countNonZero(cv2.bitwise_and(blob, qmask)))
    # How much of the quad the surface fills, times how much of the surface the quad holds.
    fit = min(1.0, inside / q_area) * (inside / max(area, 1))
    return fit, quad, bool(onedge.any())


CLEAR_OUTLINE = 0.85  # an outline fitting this well needs no second look for glare


def locate_outline(image: np.ndarray) -> Location:
    """The board from its own outline (see the module docstring)."""
    h0, w0 = image.shape[:2]
    scale = min(1.0, 480.0 / max(h0, w0))
    small = cv2.resize(image, (round(w0 * scale), round(h0 * scale)),
                       interpolation=cv2.INTER_AREA) if scale < 1 else image
    parts = _surface_parts(small)
    barrier: np.ndarray | None = None
    best: tuple[float, np.ndarray, bool] | None = None
    # every level with the plain neighbourhood test; then, only when none of them gave a
    # clear outline (glare, a table as light as the cells), with the glare-proof barrier
    for glare, level in itertools.product((False, True), (0.5, 0.38, 0.62, 0.28)):
        if glare and barrier is None:
            if best is not None and best[0] >= CLEAR_OUTLINE:
                break
            barrier = glare_barrier(small, parts[0])
        try:
            found = _outline_at(small, surface_mask(small, level, parts,
                                                    barrier if glare else None))
        except BoardNotFound:
            continue
        if found is not None and (best is None or found[0] > best[0]):
            best = found
        if best is not None and best[0] > 0.93:
            break
    if best is None:
        raise BoardNotFound(Message("vision.not_quadrilateral"))
    fill, quad, touches = best
    corners = quad / scale + (0.5 / scale - 0.5)  # small-image pixel centres → full image
    cell = np.sqrt(cv2.contourArea(corners.astype(np.float32))) / GRID
    out = ((corners[:, 0] < -0.3 * cell) | (corners[:, 0] > w0 - 1 + 0.3 * cell)
           | (corners[:, 1] < -0.3 * cell) | (corners[:, 1] > h0 - 1 + 0.3 * cell))
    if out.any():
        raise BoardNotFound(Message("vision.out_of_frame"))
    _check_quad(corners, (w0, h0))
    if squareness(corners, (w0, h0)) > SQUARE:  # a board's outline with a side cut off
        raise BoardNotFound(Message("vision.outline_broken"))
    quality = float(np.clip(fill, 0, 1))
    if quality < 0.75:
        raise BoardNotFound(Message("vision.outline_broken"))
    notes = ("the board touches the edge of the frame",) if touches else ()
    return from_corners(corners, (w0, h0), method="outline", quality=quality, notes=notes)


def refine_lattice(image_gray: np.ndarray, loc: Location, px: int = 12) -> Location:
    """Nudge the corners so the grid lines of the rectified board fall on the printed ones.

    The outline can be off by a fraction of a cell where its edge is soft; the lattice of thin
    dark lines between cells is everywhere, so it pins the fit down. Each side of the board is
    moved along its normal by the shift that best aligns the line profile near that side."""
    n = GRID * px
    warped = loc.warp(image_gray, px)
    g = warped.astype(np.float32)
    # Dark thin lines: the local minimum against a small neighbourhood.
    blur = cv2.blur(g, (px // 2 * 2 + 1, px // 2 * 2 + 1))
    line = np.clip(blur - g, 0, None)
    col = line.mean(axis=0)
    row = line.mean(axis=1)
    shifts = np.arange(-px // 2, px // 2 + 1)

    def best_shift(profile: np.ndarray, lo: bool) -> float:
        # grid lines expected at multiples of px; fit near the chosen end (first/last 5 lines)
        idx = np.arange(0, 6) if lo else np.arange(GRID - 5, GRID + 1)
        scores = []
        for s in shifts:
            pos = idx * px + s
            pos = pos[(pos >= 0) & (pos < n)]
            scores.append(profile[pos].sum() if len(pos) else -1)
        return float(shifts[int(np.argmax(scores))]) / px

    du0, du1 = best_shift(col, True), best_shift(col, False)
    dv0, dv1 = best_shift(row, True), best_shift(row, False)
    if max(abs(du0), abs(du1), abs(dv0), abs(dv1)) == 0:
        return loc
    grid = np.array([[du0, dv0], [GRID + du1, dv0], [GRID + du1, GRID + dv1], [du0, GRID + dv1]])
    corners = loc.to_image(grid)
    return from_corners(corners, loc.image_size, method=loc.method, quality=loc.quality,
                        notes=loc.notes)


def frame_contrast(gray: np.ndarray, loc: Location) -> float:
    """How dark the band just outside the lattice (the printed frame) is against the cells just
    inside it, on its lightest side: about 0.4 on a board, near 1 where the lattice does not
    lie on one.

    Compared point by point along each side, as a difference: glare lifts the frame and the
    cells beside it alike, so where it falls on the frame the difference still holds."""
    px = 8
    w = loc.warp(gray, px, border=0.5).astype(np.float32)
    n = w.shape[0]
    o0, o1 = int(0.12 * px), int(0.38 * px)
    t = o1 - o0
    a, b = px // 2, n - px // 2  # the lattice's first and last pixel rows
    inner = w[a + px:b - px, a + px:b - px]
    pairs = [(w[o0:o1, a:b], w[a + 1:a + 1 + t, a:b]),  # north: (frame, cells)
             (w[n - o1:n - o0, a:b], w[b - 1 - t:b - 1, a:b]),  # south
             (w[a:b, o0:o1].T, w[a:b, a + 1:a + 1 + t].T),  # west
             (w[a:b, n - o1:n - o0].T, w[a:b, b - 1 - t:b - 1].T)]  # east
    white = float(np.percentile(inner, 75)) + 1.0
    drop = [float(np.median(cells.mean(axis=0) - band.mean(axis=0))) for band, cells in pairs]
    return 1.0 - min(drop) / white  # every side must be framed


def track(image: np.ndarray, prev: Location, *, max_shift: float = 0.3) -> Location | None:
    """The board where it was in the last frame, nudged onto the printed lattice; ``None`` when
    it is no longer there (moved, or its frame hidden), and a full search is needed.

    A camera over a game table does not move, so this is the per-frame path: a few small warps
    instead of a search of the whole picture."""
    h, w = image.shape[:2]
    if (w, h) != prev.image_size:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if float(gray.max()) < 25:
        raise BoardNotFound(Message("vision.black"))
    loc = refine_lattice(gray, prev)
    cell = np.linalg.norm(prev.corners[1] - prev.corners[0]) / GRID
    if np.abs(loc.corners - prev.corners).max() > max_shift * cell:
        return None
    if prev.method == "lattice":
        # found by its cells, not its frame (a thin grey one): the cells must still be there
        if not board_like(gray, loc):
            return None
    elif frame_contrast(gray, loc) > 0.8:
        return None
    return Location(corners=loc.corners, H=loc.H, camera=loc.camera, method=prev.method,
                    quality=prev.quality, image_size=prev.image_size, notes=prev.notes)


def locate(image: np.ndarray, *, corners: np.ndarray | None = None,
           use_markers: bool = True, refine: bool = True) -> Location:
    """Find the board in a BGR frame; raises :class:`BoardNotFound` with the reason."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        raise VisionError(Message("vision.not_colour"))
    h, w = image.shape[:2]
    if corners is not None:
        return from_corners(check_corners(corners, (w, h)), (w, h), method="manual")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if float(gray.max()) < 25:
        raise BoardNotFound(Message("vision.black"))
    if use_markers:
        loc = locate_markers(gray, (w, h))
        if loc is not None:
            _check_quad(loc.corners, (w, h))
            return loc
    try:
        loc = locate_outline(image)
        if refine:
            loc = refine_lattice(gray, loc)
        # The board's printed frame must run dark along all four sides: a quad cut off by the
        # picture's edge, or fitted to a line of walls, has cells or table where it should be.
        contrast = frame_contrast(gray, loc)
        if contrast > 0.8:
            raise BoardNotFound(Message("vision.frame_unseen"))
        if not board_like(gray, loc):
            raise BoardNotFound(NOT_A_BOARD)
    except BoardNotFound as e:
        # A thin or pale frame, a table as light as the cells, glare: the lattice of cells
        # still tells where the board is, or that it is not wholly in the picture.
        return locate_lattice(image, gray, e)
    if contrast <= FRAME_CLEAR:
        return loc
    # A pale frame, which the outline took in part of, leaves it a fraction of a cell off;
    # where the lattice holds from there and puts the board elsewhere, it is the surer.
    from .lattice import fit_lattice

    fit = fit_lattice(gray, loc.corners, broad=False)
    if fit.corners is not None:
        cell = float(np.linalg.norm(loc.corners[1] - loc.corners[0])) / GRID
        turned = min(range(4), key=lambda k: float(np.abs(np.roll(fit.corners, -k, axis=0)
                                                          - loc.corners).max()))
        corners = np.roll(fit.corners, -turned, axis=0)
        if 0.15 * cell < np.abs(corners - loc.corners).max() < 1.5 * cell:
            moved = from_corners(corners, (w, h), method="lattice", quality=fit.score)
            if board_like(gray, moved):
                return moved
    return loc


def quadrant_cells(q: int) -> tuple[slice, slice]:
    """Grid rows and columns of quadrant ``q`` (0 north-west, 1 north-east, 2 south-east,
    3 south-west: the order of a board's tiles)."""
    rows = slice(0, 8) if q in (0, 1) else slice(8, 16)
    cols = slice(0, 8) if q in (0, 3) else slice(8, 16)
    return rows, cols


FRAME_CLEAR = 0.6  # a frame contrast this low: a dark printed frame, seen all round

NOT_A_BOARD = Message("vision.single_tile")  # cells, but a single tile's


def board_like(gray: np.ndarray, loc: Location) -> bool:
    """Whether the cells found repeat at every cell, as a board's do, and not only at every
    second one, as when a single tile's 8 × 8 cells are taken for a board's 16 × 16 (see
    :func:`~companion.vision.lattice.cell_likeness`)."""
    from .lattice import cell_likeness

    next_one, two_on = cell_likeness(gray, loc)
    return next_one >= 0.2 and next_one >= 0.75 * two_on


def rough_quads(image: np.ndarray) -> list[np.ndarray]:
    """Rough quadrilaterals that may hold the board, best first: the outlines of board-like
    regions at several brightness levels (see :func:`surface_mask`), and the whole picture (a board
    that fills it)."""
    h0, w0 = image.shape[:2]
    scale = min(1.0, 480.0 / max(h0, w0))
    small = cv2.resize(image, (round(w0 * scale), round(h0 * scale)),
                       interpolation=cv2.INTER_AREA) if scale < 1 else image
    found: list[tuple[float, np.ndarray]] = []
    try:
        parts = _surface_parts(small)
    except BoardNotFound:
        parts = None
    if parts is not None:
        for level in (0.5, 0.38, 0.62):
            try:
                got = _outline_at(small, surface_mask(small, level, parts))
            except BoardNotFound:
                continue
            if got is not None:
                quad = got[1] / scale + (0.5 / scale - 0.5)
                if all(np.abs(quad - q).max() > 0.02 * max(h0, w0) for _, q in found):
                    found.append((got[0], quad))
    found.sort(key=lambda f: -f[0])
    for quad in lined_quads(image):
        if all(np.abs(quad - q).max() > 0.02 * max(h0, w0) for _, q in found):
            found.append((0.0, quad))
    whole = np.array([[0, 0], [w0 - 1, 0], [w0 - 1, h0 - 1], [0, h0 - 1]], dtype=np.float64)
    return [q for _, q in found] + [whole]


LINED = 0.08  # thin dark lines over a board's area: the share of pixels (a board's ≈ 0.2)


def _lined_mask(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Where the picture (brought to at most 640 px) is dense in thin dark lines, as a
    board's cells are (255 there), and the scale it was brought down by."""
    h0, w0 = image.shape[:2]
    scale = min(1.0, 640.0 / max(h0, w0))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (round(w0 * scale), round(h0 * scale)),
                       interpolation=cv2.INTER_AREA) if scale < 1 else gray
    dark = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, np.ones((5, 5), np.uint8))
    light = cv2.dilate(small, np.ones((9, 9), np.uint8)).astype(np.float32) + 1.0
    lines = (dark.astype(np.float32) > 0.08 * light).astype(np.float32)
    k = max(5, (min(small.shape) // 16) | 1)
    dense = cv2.blur(lines, (k, k)) > LINED
    mask = cv2.morphologyEx(dense.astype(np.uint8) * 255, cv2.MORPH_OPEN,
                            np.ones((5, 5), np.uint8))
    return mask, scale


def lined_edge(image: np.ndarray) -> str | None:
    """The one picture edge (``top``, ``right``, ``bottom``, ``left``) that a large patch
    of cells runs out at, along at least half of it, or ``None`` (none, or several): where
    no board was found, the side of the board that is out of the picture."""
    mask, _ = _lined_mask(image)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[big, cv2.CC_STAT_AREA] < 0.25 * mask.size:
        return None
    # the dense patch reaches half a blur beyond the cells: brought back to them, it still
    # runs to an edge that cuts the cells, not to one that a strip of frame and table parts
    k = max(5, (min(mask.shape) // 16) | 1)
    blob = cv2.erode((labels == big).astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    runs = {"top": blob[:3].any(axis=0).mean(), "bottom": blob[-3:].any(axis=0).mean(),
            "left": blob[:, :3].any(axis=1).mean(), "right": blob[:, -3:].any(axis=1).mean()}
    cut = [side for side, run in runs.items() if run >= 0.5]
    return cut[0] if len(cut) == 1 else None  # cells to every edge: no side is sure


def lined_quads(image: np.ndarray) -> list[np.ndarray]:
    """Rough quadrilaterals round the regions dense in thin dark lines, largest first.

    The lattice of cells is a dense weave of thin dark lines; a plain table is not. Where
    the table is as pale as the cells and the printed frame too thin or too washed out to
    part them (a glossy or white table, haze, a board a third of the picture wide), the
    surface outline runs on into the table, but the lines still stop where the board does.
    Each region's smallest enclosing rectangle, a quarter larger, is a rough quadrilateral
    for :func:`~companion.vision.lattice.fit_lattice` (which refuses whatever is not a board)."""
    mask, scale = _lined_mask(image)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    found: list[tuple[float, np.ndarray]] = []
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area < 0.02 * mask.size:
            continue
        x, y, bw, bh = stats[i, :4]
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        cnts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(max(cnts, key=cv2.contourArea)) + np.array([x, y])
        solidity = area / max(cv2.contourArea(hull), 1.0)
        if solidity < 0.6:  # a board's cells are one compact patch
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
        box = cv2.boxPoints(((cx, cy), (1.25 * rw, 1.25 * rh), angle)).astype(np.float64)
        found.append((area * solidity ** 4, order_corners((box + 0.5) / scale - 0.5)))
    found.sort(key=lambda f: -f[0])
    return [q for _, q in found[:2]]


DIM = 170  # a picture whose 99th percentile of grey is below this is dim


def stretched(gray: np.ndarray) -> np.ndarray:
    """``gray`` with its 1st–99th percentiles spread over 0–255 where the picture is dim
    (its light cells darker than :data:`DIM`, whose lines are then too faint for the
    lattice's tests, made in grey levels), else ``gray`` itself. A pale picture is left as it
    is: spread out, its lattice is found less exactly (3D source, pale tables)."""
    lo, hi = (float(v) for v in np.percentile(gray[::4, ::4], (1, 99)))
    if hi >= DIM or hi - lo < 8:
        return gray
    out = (gray.astype(np.float32) - lo) * (255.0 / (hi - lo))
    return np.clip(out, 0, 255).astype(np.uint8)


def locate_lattice(image: np.ndarray, gray: np.ndarray, why: Exception) -> Location:
    """The board by its lattice (a :class:`Location`, method ``"lattice"``), tried
    from every rough quadrilateral; when none holds, :class:`BoardNotFound` with the
    clearest reason known: an edge out of the picture, else ``why``."""
    from .lattice import fit_lattice

    h, w = gray.shape[:2]
    gray = stretched(gray)
    edge = None
    tile = str(why) == NOT_A_BOARD
    for rough in rough_quads(image):
        fit = fit_lattice(gray, rough)
        if fit.corners is not None:
            try:
                _check_quad(fit.corners, (w, h))
            except BoardNotFound:
                continue
            if squareness(fit.corners, (w, h)) > SQUARE:
                continue
            loc = from_corners(fit.corners, (w, h), method="lattice", quality=fit.score)
            if board_like(gray, loc):
                return loc
            tile = True
            continue
        if fit.out_edge is not None and edge is None:
            edge = fit.problem
    if tile:  # cells, but a tile's: its own edges say nothing of a board's
        raise BoardNotFound(NOT_A_BOARD)
    if edge is None:
        side = lined_edge(image)
        edge = Message(f"vision.out_edge.{side}") if side is not None else None
    raise BoardNotFound(edge if edge is not None else said(why))


# The sand timer stands on the centre piece, up to three cells tall and 0.8 of a cell round
# (the game's own is about two): seen from the side it hides the cells behind it.
TIMER_HEIGHT = 3.0
TIMER_RADIUS = 0.8


def timer_cells(loc: Location) -> set[tuple[int, int]]:
    """Grid cells (col, row) that a sand timer standing on the centre piece may hide from
    this camera: they are not a hand for being covered."""
    a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = np.stack([GRID / 2 + TIMER_RADIUS * np.cos(a), GRID / 2 + TIMER_RADIUS * np.sin(a)],
                    axis=1)
    pts = np.array([[u, v, z] for z in np.linspace(0, TIMER_HEIGHT, 7) for u, v in ring])
    g = loc.to_grid(loc.camera.project(pts))
    return {(int(u), int(v)) for u, v in g if 0 <= u < GRID and 0 <= v < GRID}
