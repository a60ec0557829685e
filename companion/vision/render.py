"""The renderer: a position as a camera above the table would see it, with the truth beside it.

Vision is tested, benchmarked and demonstrated on rendered frames, so the renderer must look
like the real printed tiles under a real room's light, and must say exactly what it drew.

>>> from companion.rules import Position
>>> pos = Position.from_dict({"board": {"tiles": ["1A", "4B", "3B", "2B"]},
...     "robots": {"red": "o14", "blue": "n5"}, "target": {"color": "blue", "shape": "triangle"}})
>>> shot = render(pos, seed=3, tilt=20, rotation=35, noise=4)
>>> shot.image.shape
(960, 1280, 3)

Coordinates
-----------
* **Board plane** ``(u, v)``, in cells: ``u`` from the west edge of the 16×16 grid eastwards,
  ``v`` from the north edge southwards (so a top-down picture of the board with north up has
  ``u`` to the right and ``v`` downwards). Cell ``a1`` spans ``u ∈ [0, 1], v ∈ [15, 16]``; its
  centre is ``(0.5, 15.5)``. The printed dark border frame lies outside the grid, :data:`BORDER`
  cells wide.
* ``Rendered.homography`` maps board-plane ``(u, v, 1)`` to image pixels (pixel centres at
  integer coordinates, OpenCV's convention). With a distorting lens (``distortion=k1``) it
  maps to the *undistorted* picture (``LensProfile(camera_matrix, dist_coeffs, size)
  .undistort(image)``); ``corners``, ``markers``, ``robot_pixels`` and ``to_image()`` always
  give positions in the picture as rendered.
* ``Rendered.corners``: the outer corners of the 16×16 cell grid in the image, in the order
  **north-west, north-east, south-east, south-west** (``(0,0), (16,0), (16,16), (0,16)`` in the
  board plane) — the same order as a position's ``board.tiles``.
* The world behind the camera model: ``x`` east, ``y`` north, ``z`` up, in cells, origin at the
  board's centre. Robots stand on the board plane and rise to :data:`ROBOT_HEIGHT` cells, so
  their tops are displaced by parallax; a reader must find a robot by its base.

ArUco markers (``markers=True``) lie on the table just outside the board's corners, ids
0 north-west, 1 north-east, 2 south-east, 3 south-west, as described in
:mod:`companion.vision.markers` (the printable sheet). Their image corners are in
``Rendered.markers``.

The camera, light, table, robots, hands and sensor are the same for any board:
:func:`shoot` does them for any flat board texture; :func:`render` only prints the classic
board and says which cells a hand hides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np

from ..board import COLORS, SHAPES, VORTEX, Board, Cell
from ..rules import Position

# ---------------------------------------------------------------- the physical model

BORDER = 0.42
"""Width of the printed dark frame around the 16×16 grid, in cells."""
ROBOT_HEIGHT = 1.5
"""A robot's height in cells (a real robot is about 3.8 cm tall on 2.5 cm cells)."""
ROBOT_RADIUS = 0.45
"""A robot's base radius in cells."""
CELL_MM = 25.0
"""The real size of one cell, used to place the printed markers."""

# Where each marker lies, in board-plane cells: marker k's paper square touches the board's
# outer corner k with its inner corner. Numbers from companion.vision.markers (kept here so the
# renderer does not import the sheet generator); see that module for the printed geometry.
MARKER_IDS = {"north-west": 0, "north-east": 1, "south-east": 2, "south-west": 3}
MARKER_PAPER_MM = 60.0
MARKER_SIDE_MM = 40.0

# Printed colours (BGR) of the four target colours, the robots and the print.
INK = {
    "red": (48, 42, 196),
    "green": (62, 150, 46),
    "blue": (176, 76, 36),
    "yellow": (36, 192, 236),
}
ROBOT_COLORS = {
    "red": (40, 36, 185),
    "green": (44, 140, 36),
    "blue": (150, 58, 24),
    "yellow": (30, 168, 236),
    "black": (38, 36, 36),
    "silver": (232, 226, 218),  # the tint of polished metal; its light is all mirrored
    "transparent": (246, 250, 244),  # the tint of clear plastic over what lies behind
}
CELL_BG = (200, 206, 208)
CELL_INNER = (236, 234, 230)
CELL_FRAME = (186, 180, 178)
HATCH = (160, 196, 194)
GRID_LINE = (128, 132, 128)
WALL = (58, 56, 56)
FRAME = (56, 58, 60)
CENTRE_PIECE = (48, 46, 48)


# ---------------------------------------------------------------- the scene


@dataclass(frozen=True)
class Scene:
    """Everything about a shot except the position: camera, light, table, hands.

    The defaults are a clean, well-lit, top-down shot. :meth:`random` draws a varied one.
    """

    tilt: float = 0.0  # camera axis off vertical, degrees (0–30 for a mounted camera)
    azimuth: float = 0.0  # which side the camera leans from, degrees (0 = from the south)
    rotation: float = 0.0  # the board's rotation in the picture, degrees, any
    fill: float = 0.9  # how much of the picture the board (and markers) may reach, 0–1
    offset: tuple[float, float] = (0.0, 0.0)  # the board centre's shift, fraction of the size
    focal: float = 1.0  # focal length in picture widths (1.0 ≈ 53° horizontal field)
    markers: bool = False  # ArUco markers at the corners
    hands: int = 0  # hands and arms over the board (0, 1 or 2)
    brightness: float = 1.0  # overall light; 0.35 is a dim room
    gradient: float = 0.0  # light fall-off across the picture, 0–0.6
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # colour cast, gains on B, G, R
    glare: float = 0.0  # strength of a specular glare spot, 0–1
    noise: float = 0.0  # sensor noise, standard deviation in grey levels
    blur: float = 0.0  # optical blur, Gaussian sigma in pixels
    jpeg: int | None = None  # JPEG quality, None for no compression
    shadows: bool = True  # robots and hands cast shadows
    jitter: float = 0.06  # how far robots stand off their cell centres, cells
    table: str = "wood"  # wood | cloth | plain | pale (a white or light grey tabletop)
    chip: bool = True  # the target chip lies on the centre piece
    distortion: float = 0.0  # lens distortion k1 (negative: the barrel of a wide-angle lens)
    haze: float = 0.0  # a veil of scattered light over everything (a window behind), 0–0.6
    # 0: every robot is the real piece; above: each robot gets a look of its own (shape, height,
    # width, gloss, washed-out or dull plastic, :class:`RobotLook`), this share of them
    robot_variety: float = 0.0
    # 0: the targets printed as the classic board prints them; above: each target printed in
    # another style (:func:`print_odd`: its shape, size, ink, ground, outline, wear) with this
    # probability, and about ``12 × print_variety`` symbols of any colour printed on empty
    # cells (other editions' print, stickers; ``Rendered.printed`` names their cells)
    print_variety: float = 0.0

    @classmethod
    def random(
        cls, seed: int | np.random.Generator, *, hands: float = 0.2, markers: float = 0.5,
        max_tilt: float = 30.0, max_distortion: float = 0.0,
    ) -> Scene:
        """A varied shot: tilts up to ``max_tilt``, any rotation, the photometric variations,
        markers with probability ``markers`` and hands with probability ``hands``; with
        ``max_distortion``, a barrel lens up to that k1 (none by default, as after lens
        calibration)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        dim = rng.random() < 0.2
        cast = tuple(float(x) for x in rng.normal(1.0, 0.07, 3).clip(0.8, 1.2))
        return cls(
            tilt=float(rng.uniform(0, max_tilt)),
            azimuth=float(rng.uniform(0, 360)),
            rotation=float(rng.uniform(0, 360)),
            fill=float(rng.uniform(0.75, 0.96)),
            offset=(float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.03, 0.03))),
            focal=float(rng.uniform(0.8, 1.4)),
            markers=bool(rng.random() < markers),
            hands=int(rng.integers(1, 3)) if rng.random() < hands else 0,
            brightness=float(rng.uniform(0.3, 0.5) if dim else rng.uniform(0.75, 1.1)),
            gradient=float(rng.uniform(0, 0.5)),
            cast=cast,  # type: ignore[arg-type]
            glare=float(rng.uniform(0.3, 0.8)) if rng.random() < 0.3 else 0.0,
            noise=float(rng.uniform(1, 6) * (1.6 if dim else 1.0)),
            blur=float(rng.uniform(0, 1.4)),
            jpeg=int(rng.integers(60, 95)) if rng.random() < 0.6 else None,
            shadows=True,
            jitter=float(rng.uniform(0.02, 0.1)),
            table=str(rng.choice(["wood", "wood", "cloth", "plain"])),
            chip=True,
            # drawn last and only when asked, so the default sequence of scenes never changes
            distortion=-float(rng.uniform(0, max_distortion)) if max_distortion > 0 else 0.0,
        )


HARD = ("haze", "cast", "glare", "dim_blue")


def hard_scene(seed: int | np.random.Generator, kind: str | None = None) -> Scene:
    """A varied shot (:meth:`Scene.random`, no hands) under one of the hard conditions real
    photos show, ``kind`` of :data:`HARD` or drawn: a strong haze that pales the robots, a
    strong colour cast, a strong glare spot, or dim bluish light."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    base = Scene.random(rng, hands=0.0)
    kind = kind or str(rng.choice(HARD))
    if kind == "haze":
        return replace(base, haze=float(rng.uniform(0.3, 0.55)))
    if kind == "cast":
        gains = rng.uniform(0.7, 1.3, 3)
        return replace(base, cast=tuple(float(g) for g in gains / gains.mean()))
    if kind == "glare":
        return replace(base, glare=float(rng.uniform(0.8, 1.0)))
    if kind == "dim_blue":
        return replace(base, brightness=float(rng.uniform(0.28, 0.45)),
                       cast=(float(rng.uniform(1.2, 1.4)), 1.0, float(rng.uniform(0.65, 0.8))),
                       noise=float(rng.uniform(4, 9)))
    raise ValueError(f"hard scene: {kind!r} is not one of {', '.join(HARD)}")


@dataclass
class Rendered:
    """A rendered frame and the truth about it."""

    image: np.ndarray  # BGR uint8, H×W×3
    corners: np.ndarray  # 4×2 float: the grid's NW, NE, SE, SW outer corners, in pixels
    homography: np.ndarray  # 3×3: board plane (u, v) in cells → image pixels
    robots: dict[str, Cell]  # where each robot stands
    robot_pixels: dict[str, dict[str, tuple[float, float]]]  # {"base": (x, y), "top": (x, y)}
    tiles: tuple[str, ...] | None  # NW, NE, SE, SW tile sides, when the board is made of tiles
    chip: tuple[str, str] | None  # (colour, shape) of the chip on the centre piece; vortex:
    #                               ("any", "vortex"); None when no chip lies there
    occluded: bool  # a hand or arm covers part of the board
    hidden_cells: frozenset[Cell]  # cells a hand or arm covers (a quarter or more)
    occluder_mask: np.ndarray  # H×W uint8, 255 where a hand or arm is
    markers: dict[int, np.ndarray]  # marker id → 4×2 image corners (marker's TL, TR, BR, BL)
    board: Board
    scene: Scene
    camera_matrix: np.ndarray  # 3×3 intrinsics K
    rvec: np.ndarray  # world → camera rotation (Rodrigues), world in cells, see module doc
    tvec: np.ndarray
    in_frame: bool  # all four grid corners lie inside the picture
    dist_coeffs: np.ndarray = field(default_factory=lambda: np.zeros(5))  # the lens's, OpenCV's
    robot_mask: np.ndarray | None = None  # H×W uint8, 255 where a robot's body is seen
    printed: frozenset[Cell] = frozenset()  # cells with an extra symbol (``print_variety``)

    def to_image(self, uv: Any) -> np.ndarray:
        """Board-plane points (N×2, cells) → image pixels (N×2), lens distortion included."""
        pts = np.asarray(uv, dtype=np.float64).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return _distort(ideal, self.camera_matrix, self.dist_coeffs)

    def cell_centre(self, cell: Cell) -> tuple[float, float]:
        """Where a cell's centre (on the board plane) appears in the image."""
        x, y = self.to_image([cell_uv(self.board, cell)])[0]
        return float(x), float(y)


def _distort(pts: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Ideal (pinhole) pixels → where a lens with ``dist`` puts them."""
    if not np.any(dist):
        return pts
    norm = np.column_stack([(pts[:, 0] - K[0, 2]) / K[0, 0], (pts[:, 1] - K[1, 2]) / K[1, 1],
                            np.ones(len(pts))])
    out, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), K, dist)
    return out.reshape(-1, 2)


def _lens_maps(K: np.ndarray, dist: np.ndarray, W: int, H: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel of the distorted picture, where it lies in the ideal one (cached: a
    mounted camera keeps its lens and pose)."""
    return _lens_maps_cached(tuple(np.asarray(K, float).ravel()),
                             tuple(np.asarray(dist, float).ravel()), W, H)


@lru_cache(maxsize=4)
def _lens_maps_cached(k: tuple[float, ...], d: tuple[float, ...], W: int, H: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Solved on a coarse grid and interpolated: the mapping is smooth (well under 0.05 px
    off inside the picture) and the full solve would cost 100 ms."""
    K, dist = np.array(k).reshape(3, 3), np.array(d)
    step = 8
    xs = np.arange(0, W + step, step, dtype=np.float64)
    ys = np.arange(0, H + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pts, K, dist, P=K).reshape(len(ys), len(xs), 2)
    big = cv2.resize(ideal.astype(np.float32), (len(xs) * step, len(ys) * step),
                     interpolation=cv2.INTER_LINEAR)
    # resize aligns pixel centres; shift so grid node k lands on pixel k·step exactly
    shift = (step - 1) / 2
    M = np.float32([[1, 0, -shift], [0, 1, -shift]])
    big = cv2.warpAffine(big, M, (big.shape[1], big.shape[0]), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(big[:H, :W, 0]), np.ascontiguousarray(big[:H, :W, 1])


def cell_uv(board: Board, cell: Cell) -> tuple[float, float]:
    """A cell's centre in board-plane coordinates ``(u, v)``."""
    f, r = board.xy(cell)
    return f + 0.5, board.height - 1 - r + 0.5


# ---------------------------------------------------------------- the camera


@dataclass(frozen=True)
class _Camera:
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    board_to_world: np.ndarray  # 3×3: (u, v, 1) → (x, y, 1) on the plane z = 0

    def project(self, xyz: np.ndarray) -> np.ndarray:
        """World points N×3 (cells) → pixels N×2."""
        cam = xyz @ self.R.T + self.t
        p = cam @ self.K.T
        return p[:, :2] / p[:, 2:3]

    def homography(self) -> np.ndarray:
        Hw = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        H = Hw @ self.board_to_world
        return H / H[2, 2]

    @property
    def position(self) -> np.ndarray:
        return -self.R.T @ self.t


def _camera(scene: Scene, dims: tuple[float, float], size: tuple[int, int],
            border: float = BORDER) -> _Camera:
    W, H = size
    bw, bh = dims
    to_world = np.array([[1.0, 0, -bw / 2], [0, -1.0, bh / 2], [0, 0, 1]])
    tilt, az, roll = (math.radians(a) for a in (scene.tilt, scene.azimuth, scene.rotation))
    # The camera stands on the azimuth side (0 = south) and looks at the board's centre.
    away = np.array([math.sin(tilt) * -math.sin(az), math.sin(tilt) * -math.cos(az),
                     math.cos(tilt)])
    fwd = -away
    north = np.array([0.0, 1.0, 0.0])
    down = -(north - fwd * (north @ fwd))
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    c, s = math.cos(roll), math.sin(roll)
    x_axis = c * right + s * down
    y_axis = -s * right + c * down
    R = np.stack([x_axis, y_axis, fwd])
    f = scene.focal * W
    K = np.array([[f, 0, (W - 1) / 2], [0, f, (H - 1) / 2], [0, 0, 1.0]])
    # Choose the distance so the board (its frame, and the markers when there are any) fits
    # in `fill` of the picture in both directions, whatever the rotation: a camera is mounted
    # so the whole board is in view.
    margin = border + (MARKER_PAPER_MM / CELL_MM if scene.markers else 0.0)
    outline = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], float)
    outline[:, 0] *= bw / 2 + margin
    outline[:, 1] *= bh / 2 + margin
    dist = f * (max(bw, bh) + 2 * margin) / (scene.fill * min(W, H))
    for _ in range(4):
        t = -R @ (away * dist)
        pts = _Camera(K, R, t, to_world).project(outline)
        reach = np.abs(pts - K[:2, 2]).max(axis=0)
        dist *= max(reach[0] / (scene.fill * W / 2), reach[1] / (scene.fill * H / 2), 1e-6)
    t = -R @ (away * dist)
    K = K.copy()
    K[0, 2] += scene.offset[0] * W
    K[1, 2] += scene.offset[1] * H
    return _Camera(K, R, t, to_world)


# ---------------------------------------------------------------- drawing helpers

_SHIFT = 4
_ONE = 1 << _SHIFT


def _fx(pts: Any) -> np.ndarray:
    """Float pixel coordinates → OpenCV fixed point (sub-pixel drawing with ``shift``)."""
    return np.round(np.asarray(pts, dtype=np.float64) * _ONE).astype(np.int32)


def _poly(img: np.ndarray, pts: Any, color: Any) -> None:
    cv2.fillPoly(img, [_fx(pts).reshape(-1, 1, 2)], color, cv2.LINE_AA, _SHIFT)


def _circle(img: np.ndarray, c: Any, r: float, color: Any, thickness: int = -1) -> None:
    cx, cy = _fx(c)
    cv2.circle(img, (int(cx), int(cy)), int(round(r * _ONE)), color, thickness, cv2.LINE_AA,
               _SHIFT)


def _line(img: np.ndarray, a: Any, b: Any, color: Any, thickness: int) -> None:
    pa, pb = _fx(a), _fx(b)
    cv2.line(img, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), color,
             max(1, thickness), cv2.LINE_AA, _SHIFT)


def _regular(c: tuple[float, float], r: float, n: int, phase: float) -> np.ndarray:
    a = phase + np.arange(n) * 2 * math.pi / n
    return np.column_stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)])


def _paste_warped(dst: np.ndarray, src: np.ndarray, M: np.ndarray,
                  mask: np.ndarray | None = None) -> None:
    """Warp ``src`` by ``M`` into ``dst`` in place, touching only the destination's bounding
    box (a full-frame warp per piece would cost the frame budget)."""
    h, w = src.shape[:2]
    quad = cv2.perspectiveTransform(
        np.array([[[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]], np.float64), M)[0]
    H, W = dst.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1.0, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ M
    if mask is None:
        # hard-edged: pixels outside the source keep what is there
        roi = np.ascontiguousarray(dst[y0:y1, x0:x1])
        cv2.warpPerspective(src, T, (x1 - x0, y1 - y0), dst=roi, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        dst[y0:y1, x0:x1] = roi
        return
    a = cv2.warpPerspective(mask, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    warped = cv2.warpPerspective(src, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    a3 = cv2.merge([a, a, a])
    roi = dst[y0:y1, x0:x1]
    blended = cv2.add(cv2.multiply(warped, a3, scale=1 / 255),
                      cv2.multiply(roi, cv2.bitwise_not(a3), scale=1 / 255))
    dst[y0:y1, x0:x1] = blended


# ---------------------------------------------------------------- symbols


def _shade(color: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * k, 0, 255)) for c in color)  # type: ignore[return-value]


@lru_cache(maxsize=64)
def _symbol(color: str, shape: str, px: int, on_tile: bool = False
            ) -> tuple[np.ndarray, np.ndarray]:
    """A printed target symbol on its white square, ``px`` pixels wide, and its mask.

    The tiles and the chips print the symbols differently, as the real ones do: on a tile (as
    it lies in the north-west) the triangle points up, the hexagon has flat top and bottom
    and the moon's crescent is at its lower left; on a chip the triangle points down, the
    hexagon stands on a corner and the crescent is at the lower right. Drawn four times
    larger then reduced, which anti-aliases the small print."""
    flip = -1.0 if on_tile else 1.0
    s = px * 4
    img = np.full((s, s, 3), 244, np.uint8)
    c = (s / 2, s / 2)
    outline = (40, 40, 40)
    if shape == VORTEX:
        img[:] = (40, 34, 36)
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) - s / 2
        rad = np.sqrt(xx * xx + yy * yy) / (s / 2)
        ang = np.arctan2(yy, xx)
        arm = ((ang + rad * 7.0) % (2 * math.pi)) / (2 * math.pi)
        palette = np.array([INK["red"], INK["yellow"], INK["green"], INK["blue"]], np.float32)
        col = palette[(arm * 4).astype(int) % 4]
        fade = np.clip(1.25 - rad, 0, 1)[..., None]
        img[:] = (col * fade + np.float32(34) * (1 - fade)).astype(np.uint8)
        _circle(img, c, s * 0.07, (235, 235, 235))
    else:
        ink = INK[color]
        r = s * 0.40
        if shape == "circle":
            _circle(img, c, r, outline)
            _circle(img, c, r * 0.9, ink)
            # the moon's pale crescent
            moon = np.zeros((s, s), np.uint8)
            _circle(moon, (c[0] + flip * r * 0.28, c[1] + r * 0.28), r * 0.78, 255)
            disc = np.zeros((s, s), np.uint8)
            _circle(disc, c, r * 0.9, 255)
            cover = np.zeros((s, s), np.uint8)
            _circle(cover, (c[0] - flip * r * 0.1, c[1] - r * 0.1), r * 0.82, 255)
            crescent = (moon > 127) & (disc > 127) & ~(cover > 127)
            img[crescent] = (236, 236, 236)
        elif shape == "triangle":
            tri = np.array([[c[0] - r * 1.05, c[1] - flip * r * 0.7],
                            [c[0] + r * 1.05, c[1] - flip * r * 0.7],
                            [c[0], c[1] + flip * r * 1.05]])
            _poly(img, tri, outline)
            inner = c + (tri - c) * 0.84
            _poly(img, inner, ink)
            sun = (c[0], c[1] - flip * r * 0.1)
            _poly(img, _regular(sun, r * 0.38, 12, 0), (240, 240, 240))
            _circle(img, sun, r * 0.22, _shade(ink, 0.8))
        elif shape == "square":
            sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * r * 0.88 + c
            _poly(img, sq, outline)
            _poly(img, c + (sq - c) * 0.86, ink)
            _circle(img, c, r * 0.42, (225, 225, 228))
            cv2.ellipse(img, (int(c[0] * _ONE), int(c[1] * _ONE)),
                        (int(r * 0.78 * _ONE), int(r * 0.2 * _ONE)), -25, 0, 360,
                        (230, 230, 230), max(2, s // 40), cv2.LINE_AA, _SHIFT)
        elif shape == "hexagon":
            hexa = _regular(c, r, 6, 0.0 if on_tile else math.pi / 2)
            _poly(img, hexa, outline)
            _poly(img, c + (hexa - c) * 0.87, ink)
            star = []
            for k in range(8):
                a = -math.pi / 2 + k * math.pi / 4
                rr = r * (0.78 if k % 2 == 0 else 0.16)
                star.append((c[0] + rr * math.cos(a), c[1] + rr * math.sin(a)))
            _poly(img, np.array(star), (240, 240, 240))
        else:  # pragma: no cover - shapes come from the board
            raise ValueError(f"unknown target shape {shape!r}")
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA)
    mask = np.full((px, px), 255, np.uint8)
    return small, mask


def _put(dst: np.ndarray, patch: np.ndarray, cx: float, cy: float) -> None:
    h, w = patch.shape[:2]
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    dst[y0:y0 + h, x0:x0 + w] = patch


# ---------------------------------------------------------------- the flat board texture

PX = 56  # texture pixels per cell


@lru_cache(maxsize=4)
def _stone(h: int, w: int, base: tuple[int, int, int]) -> np.ndarray:
    """The printed stone texture of walls and frame: dark with lighter flecks. Fixed seed, so
    every process prints the same board."""
    rng = np.random.default_rng(sum(base) * 7919 + h * 31 + w)
    tone = 1 + 0.18 * rng.normal(0, 1, (h, w, 1)).astype(np.float32)
    img = np.array(base, np.float32)[None, None, :] * tone
    fleck = rng.random((h, w)) < 0.15
    img[fleck] = np.float32(125) * (0.8 + 0.4 * rng.random((int(fleck.sum()), 1),
                                                             dtype=np.float32))
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (3, 3), 0)
    img.flags.writeable = False
    return img


def _cell_patch(slash: bool) -> np.ndarray:
    """One plain cell's print: a grey square, a pale inner square with three hatch stripes,
    rivet dots along the edge."""
    P = PX
    cp = np.empty((P, P, 3), np.uint8)
    cp[:] = CELL_BG
    for (q0, q1), col in (((0.24, 0.76), CELL_FRAME), ((0.29, 0.71), CELL_INNER)):
        cv2.rectangle(cp, (int(P * q0 * _ONE), int(P * q0 * _ONE)),
                      (int(P * q1 * _ONE), int(P * q1 * _ONE)), col, -1, cv2.LINE_AA, _SHIFT)
    hatch = np.zeros((P, P), np.uint8)
    for k in (-1, 0, 1):
        d = k * P * 0.11
        if slash:
            a, b = (P * 0.36 + d, P * 0.64 + d), (P * 0.64 + d, P * 0.36 + d)
        else:
            a, b = (P * 0.36 + d, P * 0.36 - d), (P * 0.64 + d, P * 0.64 - d)
        _line(hatch, a, b, 255, max(2, P // 14))
    inside = np.zeros((P, P), np.uint8)
    inside[int(P * 0.31):int(P * 0.69) + 1, int(P * 0.31):int(P * 0.69) + 1] = 255
    hatch = cv2.bitwise_and(hatch, inside)
    al = (hatch.astype(np.float32) / 255)[..., None]
    cp[:] = (cp * (1 - al) + np.array(HATCH, np.float32) * al).astype(np.uint8)
    for k in range(1, 6):
        for (x, y) in ((k * P / 6, P * 0.1), (k * P / 6, P * 0.9), (P * 0.1, k * P / 6),
                       (P * 0.9, k * P / 6)):
            _circle(cp, (x, y), P * 0.018, (170, 170, 168))
    return cp


def _uv_tex(u: float, v: float) -> tuple[float, float]:
    """Board-plane ``(u, v)`` → texture pixel coordinates."""
    return (u + BORDER) * PX - 0.5, (v + BORDER) * PX - 0.5


@lru_cache(maxsize=4)
def _blank_board(bw: int, bh: int, tiled: bool) -> np.ndarray:
    """The print every board shares: frame, plain cells, grid lines, tile seams."""
    P = PX
    off = BORDER * P
    Wt, Ht = int(round((bw + 2 * BORDER) * P)), int(round((bh + 2 * BORDER) * P))
    img = _stone(Ht, Wt, FRAME).copy()
    patches = {True: _cell_patch(True), False: _cell_patch(False)}
    half_w, half_h = bw // 2, bh // 2
    for v in range(bh):
        for f in range(bw):
            # a tile is printed once and turned into its quadrant: the hatch turns with it
            quadrant = (0 if f < half_w else 1) if v < half_h else (3 if f < half_w else 2)
            slash = quadrant % 2 == 1 if tiled else False
            x0, y0 = int(round(off + f * P)), int(round(off + v * P))
            img[y0:y0 + P, x0:x0 + P] = patches[slash]
    for k in range(bw + 1):
        x = off + k * P - 0.5
        _line(img, (x, off), (x, off + bh * P), GRID_LINE, 2)
    for k in range(bh + 1):
        y = off + k * P - 0.5
        _line(img, (off, y), (off + bw * P, y), GRID_LINE, 2)
    if tiled:  # the seams between the four tiles
        _line(img, _uv_tex(half_w, 0), _uv_tex(half_w, bh), (112, 114, 112), 3)
        _line(img, _uv_tex(0, half_h), _uv_tex(bw, half_h), (112, 114, 112), 3)
    img.flags.writeable = False
    return img


@lru_cache(maxsize=8)
def board_texture(board: Board) -> np.ndarray:
    """The board seen from straight above with north up, :data:`PX` pixels per cell, its
    frame included: pixel ``((u + BORDER) * PX - 0.5, (v + BORDER) * PX - 0.5)`` is board-plane
    point ``(u, v)``. Cached: a board's print never changes."""
    P = PX
    bw, bh = board.width, board.height
    img = _blank_board(bw, bh, board.tiles is not None).copy()
    stone = _stone(img.shape[0], img.shape[1], WALL)
    uv = _uv_tex
    plain = np.empty((P, P, 3), np.uint8)
    plain[:] = CELL_BG
    for t in board.targets:
        f, r = board.xy(t.cell)
        x0, y0 = int(round(BORDER * P + f * P)), int(round(BORDER * P + (bh - 1 - r) * P))
        img[y0 + 2:y0 + P - 1, x0 + 2:x0 + P - 1] = CELL_BG
        sym, _ = _symbol(t.color, t.shape, int(P * 0.62), on_tile=True)
        if board.tiles is not None:  # the print turns with its tile, clockwise per quadrant
            v = bh - 1 - r
            quadrant = (0 if f < bw // 2 else 1) if v < bh // 2 else (3 if f < bw // 2 else 2)
            sym = np.ascontiguousarray(np.rot90(sym, k=-quadrant))
        _put(img, sym, x0 + P / 2, y0 + P / 2)
    for dg in board.diagonals:
        f, r = board.xy(dg.cell)
        v = bh - 1 - r
        if dg.orientation == "/":
            a, b = uv(f + 0.06, v + 0.94), uv(f + 0.94, v + 0.06)
        else:
            a, b = uv(f + 0.06, v + 0.06), uv(f + 0.94, v + 0.94)
        ink = INK[dg.color]
        _line(img, a, b, _shade(ink, 0.55), int(P * 0.17))
        _line(img, a, b, ink, int(P * 0.12))
        _line(img, a, b, _shade(ink, 1.25), max(1, int(P * 0.03)))
    # the centre piece: blocked cells, grey, raised
    for cell in board.blocked:
        f, r = board.xy(cell)
        v = bh - 1 - r
        p0, p1 = uv(f, v), uv(f + 1, v + 1)
        cv2.rectangle(img, (int(p0[0]), int(p0[1])), (int(math.ceil(p1[0])),
                                                    int(math.ceil(p1[1]))), CENTRE_PIECE, -1)
    # walls: each inner wall once, from its north or east side; the edge is the frame, and the
    # centre piece's own walls are its sides
    half = PX * 0.2 / 2 / P
    for cell, d in board.walls:
        if d.name not in ("UP", "RIGHT") or board.is_edge(cell, d):
            continue
        nb = board.neighbour(cell, d)
        if cell in board.blocked or nb in board.blocked:
            continue
        f, r = board.xy(cell)
        v = bh - 1 - r
        if d.name == "UP":
            pa, pb = uv(f - half, v - half), uv(f + 1 + half, v + half)
        else:
            pa, pb = uv(f + 1 - half, v - half), uv(f + 1 + half, v + 1 + half)
        x0, y0 = int(round(pa[0])), int(round(pa[1]))
        x1, y1 = int(round(pb[0])) + 1, int(round(pb[1])) + 1
        img[y0:y1, x0:x1] = stone[y0:y1, x0:x1]
    if board.blocked:  # the centre piece's bevel
        cells = list(board.blocked)
        fs = [board.xy(c)[0] for c in cells]
        vs = [bh - 1 - board.xy(c)[1] for c in cells]
        p0, p1 = uv(min(fs), min(vs)), uv(max(fs) + 1, max(vs) + 1)
        cv2.rectangle(img, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), (52, 50, 52),
                      max(2, P // 12))
        cv2.line(img, (int(p0[0]) + 3, int(p0[1]) + 3), (int(p1[0]) - 3, int(p0[1]) + 3),
                 (110, 106, 108), 2)
    img.flags.writeable = False
    return img


ODD_SHAPES = ("disc", "ring", "triangle", "square", "diamond", "hexagon", "star", "cross")
# inks an odd print may take besides the target's own: every robot's colour, and near-black,
# grey and white print (what a colourless robot may be taken for)
ODD_INKS = (*INK.values(), (40, 38, 38), (70, 66, 64), (150, 150, 150), (205, 205, 210))


def _odd_ink(rng: np.random.Generator, ink: tuple[int, int, int]) -> tuple[int, int, int]:
    """``ink`` as another printer makes it: hue, saturation and value moved a little."""
    hsv = cv2.cvtColor(np.uint8([[ink]]), cv2.COLOR_BGR2HSV).astype(np.float64)[0, 0]
    hsv[0] = (hsv[0] + rng.uniform(-7, 7)) % 180
    hsv[1] = np.clip(hsv[1] * rng.uniform(0.55, 1.2), 0, 255)
    hsv[2] = np.clip(hsv[2] * rng.uniform(0.7, 1.2), 0, 255)
    out = cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0]
    return (int(out[0]), int(out[1]), int(out[2]))


def _odd_symbol(rng: np.random.Generator, ink: tuple[int, int, int], px: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """A symbol in a style of its own, ``px`` pixels square, and its opacity (0 … 1): one of
    :data:`ODD_SHAPES`, of any size and turn, with or without an outline, an emblem, a
    ground (white or tinted) under it; faded or worn."""
    s = px * 4
    img = np.zeros((s, s, 3), np.uint8)
    alpha = np.zeros((s, s), np.uint8)
    c = (s / 2 + rng.uniform(-0.06, 0.06) * s, s / 2 + rng.uniform(-0.06, 0.06) * s)
    ground = rng.random()
    if ground < 0.35:  # a ground under the symbol: white paper or the ink's tint
        tint = rng.uniform(0.15, 0.6) if rng.random() < 0.5 else 0.0
        col = tuple(int(255 * (1 - tint) + ink[k] * tint) for k in range(3))
        img[:] = col
        alpha[:] = 255
    r = s * rng.uniform(0.2, 0.45)
    shape = str(rng.choice(ODD_SHAPES))
    turn = rng.uniform(0, 2 * math.pi)
    if shape in ("disc", "ring"):
        pts = _regular(c, r, 40, 0.0)
    elif shape == "star":
        n = int(rng.integers(4, 9))
        k = np.arange(2 * n)
        rr = np.where(k % 2 == 0, r, r * rng.uniform(0.35, 0.6))
        a = turn + k * math.pi / n
        pts = np.column_stack([c[0] + rr * np.cos(a), c[1] + rr * np.sin(a)])
    elif shape == "cross":
        w = rng.uniform(0.25, 0.45)
        base = np.array([[-w, -1], [w, -1], [w, -w], [1, -w], [1, w], [w, w], [w, 1], [-w, 1],
                         [-w, w], [-1, w], [-1, -w], [-w, -w]], float)
        rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        pts = base @ rot.T * r + c
    else:
        n = {"triangle": 3, "square": 4, "diamond": 4, "hexagon": 6}[shape]
        pts = _regular(c, r, n, turn if shape != "diamond" else math.pi / 4)
    if rng.random() < 0.5:  # an outline round it, dark or white
        edge = (40, 40, 40) if rng.random() < 0.6 else (240, 240, 240)
        _poly(img, c + (pts - c) * 1.12, edge)
        _poly(alpha, c + (pts - c) * 1.12, 255)
    _poly(img, pts, ink)
    _poly(alpha, pts, 255)
    if shape == "ring":
        _circle(img, c, r * rng.uniform(0.4, 0.7), (236, 236, 236))
    elif rng.random() < 0.5:  # a pale emblem in it
        _circle(img, (c[0] + rng.uniform(-0.2, 0.2) * r, c[1] + rng.uniform(-0.2, 0.2) * r),
                r * rng.uniform(0.15, 0.45), (238, 238, 236))
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA)
    a = cv2.resize(alpha, (px, px), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    a *= float(rng.uniform(0.55, 1.0)) if rng.random() < 0.4 else 1.0  # faded
    if rng.random() < 0.35:  # worn: blotches of the print rubbed off
        blot = cv2.GaussianBlur(rng.random((px, px)).astype(np.float32), (0, 0), px / 10)
        blot = (blot - blot.min()) / max(float(np.ptp(blot)), 1e-6)
        a *= np.clip((blot - rng.uniform(0.1, 0.5)) * 4.0, 0.0, 1.0)
    return small, a


def print_odd(texture: np.ndarray, board: Board, rng: np.random.Generator, share: float
              ) -> tuple[np.ndarray, frozenset[Cell]]:
    """The board's texture (:func:`board_texture`) with a share ``share`` of its targets
    printed again in other styles (:func:`_odd_symbol`, the target's colour as another
    printer makes it) and about ``12 × share`` symbols of any ink of :data:`ODD_INKS` on
    empty cells, and those cells. The cells' walls are left as they are."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"print variety: {share} is not a share between 0 and 1")
    P = PX
    bh = board.height
    tex = texture.copy()
    inner = int(round(P * 0.8))

    def put(cell: Cell, ink: tuple[int, int, int], clear: bool) -> None:
        f, r = board.xy(cell)
        x0 = int(round(BORDER * P + f * P + (P - inner) / 2))
        y0 = int(round(BORDER * P + (bh - 1 - r) * P + (P - inner) / 2))
        roi = tex[y0:y0 + inner, x0:x0 + inner]
        if clear:  # the classic symbol gone: the cell's plain ground first
            roi[:] = CELL_BG
        sym, a = _odd_symbol(rng, ink, inner)
        roi[:] = (roi * (1 - a[..., None]) + sym * a[..., None]).astype(np.uint8)

    for t in board.targets:
        if not t.is_vortex and rng.random() < share:
            put(t.cell, _odd_ink(rng, INK[t.color]), clear=rng.random() < 0.8)
    banned = set(board.blocked) | {t.cell for t in board.targets} | {
        d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in banned]
    n = min(len(free), int(rng.poisson(12 * share)))
    extra = [free[int(i)] for i in rng.choice(len(free), size=n, replace=False)] if n else []
    for cell in extra:
        put(cell, _odd_ink(rng, ODD_INKS[int(rng.integers(len(ODD_INKS)))]), clear=False)
    tex.flags.writeable = False
    return tex, frozenset(extra)


def _draw_chip(tex: np.ndarray, board: Board, chip: tuple[str, str], angle: float) -> None:
    """The revealed target chip: the target's symbol on a square, lying on the centre piece."""
    cells = list(board.blocked)
    if not cells:
        return
    P = PX
    fs = [board.xy(c)[0] for c in cells]
    vs = [board.height - 1 - board.xy(c)[1] for c in cells]
    cu = (min(fs) + max(fs) + 1) / 2
    cv = (min(vs) + max(vs) + 1) / 2
    cx, cy = (cu + BORDER) * P - 0.5, (cv + BORDER) * P - 0.5
    side = int(P * 1.15)
    sym, _ = _symbol(chip[0], chip[1], side)
    sq = np.full((side + 8, side + 8, 3), 60, np.uint8)
    sq[4:-4, 4:-4] = sym
    M = cv2.getRotationMatrix2D(((side + 7) / 2, (side + 7) / 2), angle, 1.0)
    M[0, 2] += cx - (side + 7) / 2
    M[1, 2] += cy - (side + 7) / 2
    M3 = np.vstack([M, [0, 0, 1]])
    mask = np.full(sq.shape[:2], 255, np.uint8)
    mask[:4] = mask[-4:] = 0
    mask[:, :4] = mask[:, -4:] = 0
    mask = cv2.GaussianBlur(mask, (3, 3), 0)
    _paste_warped(tex, sq, M3, mask)


# ---------------------------------------------------------------- the table

TABLES = ("wood", "cloth", "plain", "pale")


@lru_cache(maxsize=8)
def _table(kind: str, W: int, H: int, variant: int) -> np.ndarray:
    rng = np.random.default_rng(1000 + variant)
    w, h = max(W // 2, 8), max(H // 2, 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array([(52, 104, 168), (40, 86, 150), (70, 128, 190), (34, 62, 110)][variant % 4],
                        np.float32)
        ang = rng.uniform(0, math.pi)
        across = -xx * math.sin(ang) + yy * math.cos(ang)
        along = xx * math.cos(ang) + yy * math.sin(ang)
        width = h / rng.uniform(3, 6)  # floor planks
        plank = np.floor(across / width)
        frac = across / width - plank
        seam = np.exp(-((np.minimum(frac, 1 - frac) * width / 1.2) ** 2))
        warp = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (w, h)) * 5
        grain = np.sin((across + warp + 0.02 * along) * rng.uniform(0.25, 0.5) + plank * 3.1)
        streak = cv2.resize(rng.normal(0, 1, (h // 16 + 1, 6)).astype(np.float32), (w, h))
        k = 1 + 0.06 * grain + 0.05 * streak + 0.06 * np.sin(plank * 1.7)
        img = base[None, None, :] * (k * (1 - 0.4 * seam))[..., None]
    elif kind == "cloth":
        base = np.array([(70, 110, 60), (120, 70, 50), (60, 60, 120), (90, 90, 90)][variant % 4],
                        np.float32)
        tex = rng.normal(0, 1, (h, w)).astype(np.float32)
        img = base[None, None, :] * (1 + 0.05 * tex[..., None])
    elif kind == "pale":  # white laminate, a light tablecloth: as light as the board's cells
        base = np.array([(236, 236, 232), (222, 226, 228), (226, 222, 214), (244, 244, 244)][
            variant % 4], np.float32)
        img = base[None, None, :] * (1 + 0.015 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    else:
        base = np.array([(200, 200, 196), (150, 160, 170), (90, 95, 100), (210, 215, 220)][
            variant % 4], np.float32)
        img = base[None, None, :] * (1 + 0.02 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    img = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (W, H), interpolation=cv2.INTER_LINEAR)
    img.flags.writeable = False
    return img


# ---------------------------------------------------------------- markers


@lru_cache(maxsize=8)
def _marker_paper(marker_id: int, px: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side = int(round(px * MARKER_SIDE_MM / MARKER_PAPER_MM))
    m = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    paper = np.full((px, px), 246, np.uint8)
    o = (px - side) // 2
    paper[o:o + side, o:o + side] = np.where(m > 127, 246, 22)
    out = cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR)
    out.flags.writeable = False
    return out


def marker_layout(board: Board, border: float = BORDER) -> dict[int, np.ndarray]:
    """Each marker's four corners (its own TL, TR, BR, BL as printed, upright with north up) in
    board-plane cells: the marker's paper square lies diagonally outside the board's corner,
    its inner corner touching the frame's outer corner."""
    paper = MARKER_PAPER_MM / CELL_MM
    side = MARKER_SIDE_MM / CELL_MM
    q = (paper - side) / 2
    bw, bh = board.width, board.height
    b = border
    # paper squares' top-left corners in (u, v)
    origin = {
        0: (-b - paper, -b - paper),
        1: (bw + b, -b - paper),
        2: (bw + b, bh + b),
        3: (-b - paper, bh + b),
    }
    out = {}
    for k, (u0, v0) in origin.items():
        u, v = u0 + q, v0 + q
        out[k] = np.array([[u, v], [u + side, v], [u + side, v + side], [u, v + side]])
    return out


# ---------------------------------------------------------------- robots


def _robot_profile(n: int = 36) -> tuple[np.ndarray, np.ndarray]:
    """Heights and radii of a robot's slices, bottom to top, in cells: like the real pieces,
    an egg standing on a flat foot, widest a third of the way up, with a shallow groove
    where the head begins."""
    z = np.linspace(0, ROBOT_HEIGHT, n)
    widest = 0.3 * ROBOT_HEIGHT
    up = np.clip((z - widest) / (ROBOT_HEIGHT - widest), 0, 1)
    r = ROBOT_RADIUS * np.sqrt(np.clip(1 - up ** 2.2, 0, None))
    low = z < widest
    r[low] = ROBOT_RADIUS * (0.9 + 0.1 * z[low] / widest)
    groove = 0.68 * ROBOT_HEIGHT
    r *= 1 - 0.07 * np.exp(-(((z - groove) / 0.05) ** 2))
    r[-1] = max(r[-1], 0.06)
    return z, r


_Z, _R = _robot_profile()
# the surface normal's vertical slope on each slice (a tapering side faces a little upwards)
_SLOPE = np.gradient(-_R, _Z)
_N_RING = 24
_RING = np.stack([np.cos(np.linspace(0, 2 * math.pi, _N_RING, endpoint=False)),
                  np.sin(np.linspace(0, 2 * math.pi, _N_RING, endpoint=False))], axis=1)


ROBOT_SHAPES = ("egg", "cylinder", "cone", "bullet", "pawn")


@dataclass(frozen=True)
class RobotLook:
    """How one robot is made, for robots unlike the real pieces (other editions, other
    plastics): its outline (:data:`ROBOT_SHAPES`; "egg" is the real piece), its height and
    width against the real piece's, how glossy it is, and how its colour comes out."""

    shape: str = "egg"
    height: float = 1.0
    width: float = 1.0
    gloss: float = 1.0  # the highlight's strength against the real piece's
    sharp: float = 18.0  # the highlight's exponent: small, a broad sheen; large, a pin point
    wash: float = 0.0  # washed out towards white: translucent plastic in bright light, 0–0.6
    dull: float = 0.0  # its colour greyed (less saturated), 0–0.5

    def __post_init__(self) -> None:
        if self.shape not in ROBOT_SHAPES:
            raise ValueError(f"robot look: unknown shape {self.shape!r} "
                             f"(known: {', '.join(ROBOT_SHAPES)})")
        if not (0.3 <= self.height <= 2.0 and 0.3 <= self.width <= 2.0):
            raise ValueError(f"robot look: height {self.height} and width {self.width} must "
                             f"lie between 0.3 and 2 of the real piece's")

    @classmethod
    def random(cls, rng: np.random.Generator) -> RobotLook:
        return cls(shape=str(rng.choice(ROBOT_SHAPES)), height=float(rng.uniform(0.75, 1.25)),
                   width=float(rng.uniform(0.8, 1.15)), gloss=float(rng.uniform(0.0, 2.0)),
                   sharp=float(rng.uniform(4.0, 40.0)),
                   wash=float(rng.uniform(0.0, 0.55)) if rng.random() < 0.35 else 0.0,
                   dull=float(rng.uniform(0.0, 0.5)) if rng.random() < 0.35 else 0.0)


REAL_PIECE = RobotLook()


@lru_cache(maxsize=64)
def _look_profile(look: RobotLook) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heights, radii and side slopes of a robot's slices (:func:`_robot_profile`) for
    ``look``."""
    if look == REAL_PIECE:
        return _Z, _R, _SLOPE
    n = len(_Z)
    h = ROBOT_HEIGHT * look.height
    z = np.linspace(0, h, n)
    u = z / h
    if look.shape == "egg":
        r = _R.copy()
    elif look.shape == "cylinder":  # a straight side, its top edge rounded
        r = ROBOT_RADIUS * 0.85 * np.sqrt(np.clip(1 - np.clip((u - 0.85) / 0.15, 0, 1) ** 2,
                                                   0, None))
    elif look.shape == "cone":  # tapering to a flat top
        r = ROBOT_RADIUS * (1.0 - 0.7 * u)
    elif look.shape == "bullet":  # a straight side under a round dome
        r = ROBOT_RADIUS * 0.8 * np.sqrt(np.clip(1 - np.clip((u - 0.6) / 0.4, 0, 1) ** 2,
                                                  0, None))
    else:  # "pawn": a wide foot, a narrow neck and a ball of a head
        head = 0.75
        ball = ROBOT_RADIUS * 0.6 * np.sqrt(np.clip(1 - ((u - head) / 0.25) ** 2, 0, None))
        body = ROBOT_RADIUS * (1.0 - 0.55 * np.clip(u / 0.5, 0, 1))
        r = np.where(u < 0.5, body, np.maximum(ball, ROBOT_RADIUS * 0.45 * (u < 0.6)))
    r = np.maximum(r * look.width, 0.0)
    r[-1] = max(r[-1], 0.06)
    return z, r, np.gradient(-r, z)


def _draw_robot(img: np.ndarray, mask: np.ndarray, cam: _Camera, base: np.ndarray, name: str,
                light: np.ndarray, look: RobotLook = REAL_PIECE) -> None:
    """A pawn, ray-cast in its own small window: each pixel's ray meets the slices top down;
    the first slice it is inside is the surface seen there, shaded by its normal; ``look``:
    how this robot is made (:class:`RobotLook`)."""
    H, W = img.shape[:2]
    pz, pr, pslope = _look_profile(look)  # the real piece's by default
    wide = ROBOT_RADIUS * max(look.width, 1.0)
    outline = np.stack([base[0] + wide * np.r_[_RING[:, 0], _RING[:, 0]],
                        base[1] + wide * np.r_[_RING[:, 1], _RING[:, 1]],
                        np.r_[np.zeros(_N_RING), np.full(_N_RING, float(pz[-1]))]], axis=1)
    pts = cam.project(outline)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    rays_cam = np.stack([(xs - cam.K[0, 2]) / cam.K[0, 0], (ys - cam.K[1, 2]) / cam.K[1, 1],
                         np.ones_like(xs)], axis=-1)
    d = rays_cam @ cam.R.astype(np.float32)  # camera → world directions (R: world → camera)
    c = cam.position.astype(np.float32)
    zs, rs = pz.astype(np.float32), pr.astype(np.float32)
    # the ray's point at every slice height: (h, w, slices)
    t = (zs[None, None, :] - c[2]) / d[..., 2:3]
    px = c[0] + t * d[..., 0:1] - base[0]
    py = c[1] + t * d[..., 1:2] - base[1]
    rho = np.sqrt(px * px + py * py)
    inside = rho < rs[None, None, :]
    hit = inside.any(axis=-1)
    if not hit.any():
        return
    last = len(pz) - 1
    k = last - np.argmax(inside[..., ::-1], axis=-1)  # the highest slice hit
    k1 = np.minimum(k + 1, last)

    def at(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, idx[..., None], -1)[..., 0]

    # where between slice k (inside) and k + 1 (outside) the ray crosses the surface
    out_k1 = at(rho, k1) - pr[k1]
    in_k = at(rho, k) - pr[k]
    frac = np.where(k < last, out_k1 / np.minimum(out_k1 - in_k, -1e-9) * -1, 0.0)
    frac = np.clip(frac, 0, 1)
    hx = at(px, k1) + (at(px, k) - at(px, k1)) * frac
    hy = at(py, k1) + (at(py, k) - at(py, k1)) * frac
    hr = np.sqrt(hx * hx + hy * hy)
    top = k == last
    nxy = np.where(top, 0.0, 1.0)
    nz = np.where(top, 1.0, pslope[k1] + (pslope[k] - pslope[k1]) * frac)
    nx = hx / np.maximum(hr, 1e-6) * nxy
    ny = hy / np.maximum(hr, 1e-6) * nxy
    norm = np.sqrt(nx * nx + ny * ny + nz * nz)
    nx, ny, nz = nx / norm, ny / norm, nz / norm
    lam = np.clip(nx * light[0] + ny * light[1] + nz * light[2], 0, 1)
    # Blinn highlight towards the camera
    view = -d / np.linalg.norm(d, axis=-1, keepdims=True)
    half = view + light
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    spec = np.clip(nx * half[..., 0] + ny * half[..., 1] + nz * half[..., 2], 0, 1)
    color = np.array(ROBOT_COLORS[name], np.float32)
    if look.dull:
        color = color + look.dull * (color.mean() - color)
    # the size of a pixel where the ray meets the surface, in cells
    tk = np.take_along_axis(t, k[..., None], -1)[..., 0]
    cells_per_px = tk / cam.K[0, 0] * np.linalg.norm(d, axis=-1)
    if name in ("silver", "transparent"):
        # The direction the surface mirrors: the room above (dim, lighter towards its walls),
        # the light board below, and the lamp itself.
        ndv = np.clip(nx * view[..., 0] + ny * view[..., 1] + nz * view[..., 2], 0, 1)
        rx, ry, rz = (2 * ndv * n_ - v_ for n_, v_ in ((nx, view[..., 0]), (ny, view[..., 1]),
                                                       (nz, view[..., 2])))
        # Straight down it sees its own shadow, further out the light board, at the horizon
        # the room's walls and above the dim ceiling, as on the real photograph.
        room = np.interp(rz, [-1.0, -0.75, -0.3, -0.1, 0.1, 0.4, 1.0],
                         [0.22, 0.3, 0.8, 0.5, 0.42, 0.24, 0.18]).astype(np.float32)
        lamp = np.clip(rx * light[0] + ry * light[1] + rz * light[2], 0, 1) ** 24 * 1.6
    if name == "silver":  # polished metal: nothing of its own, all mirror
        # its turned rings catch the light in bands
        hz = pz[k1] + (pz[k] - pz[k1]) * frac
        rings = 0.8 + 0.5 * np.cos(np.pi * hz / 0.13) ** 8
        rgb = (room * rings + lamp)[..., None].astype(np.float32) * color[None, None, :]
    elif name == "transparent":
        # A clear piece: the board behind it, bent by the curved surface like a lens, and
        # more and more of the room mirrored towards its outline (Fresnel), where it is dark.
        ncam = np.stack([nx, ny, nz], axis=-1) @ cam.R.T.astype(np.float32)
        bend = 0.35 * ROBOT_RADIUS / np.maximum(cells_per_px, 1e-6)  # a third of its radius
        mx_ = (xs - x0 + ncam[..., 0] * bend).astype(np.float32)
        my_ = (ys - y0 + ncam[..., 1] * bend).astype(np.float32)
        behind = cv2.remap(img[y0:y1, x0:x1], mx_, my_, cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REFLECT).astype(np.float32)
        fres = (0.04 + 0.96 * (1 - ndv) ** 5)[..., None]
        rgb = ((1 - fres) * 0.9 * behind * color[None, None, :] / 255
               + fres * (room + lamp)[..., None] * 215 + (lamp * 60)[..., None])
    else:
        shine = spec ** look.sharp * 90 * look.gloss
        shade = 0.38 + 0.75 * lam
        rgb = color[None, None, :] * shade[..., None].astype(np.float32) + shine[..., None]
        if look.wash:  # light through translucent plastic: pale all over, brightest lit
            rgb = rgb * (1 - look.wash) + look.wash * (150 + 105 * lam)[..., None]
    # soft silhouette: how far inside the slice's circle the ray passes, in pixels
    margin = (rs[None, None, :] - rho).max(axis=-1) / np.maximum(cells_per_px, 1e-6)
    alpha = np.clip(margin + 0.5, 0, 1) * hit
    roi = img[y0:y1, x0:x1].astype(np.float32)
    a3 = alpha[..., None].astype(np.float32)
    roi = roi * (1 - a3) + np.clip(rgb, 0, 255) * a3
    img[y0:y1, x0:x1] = roi.astype(np.uint8)
    mask[y0:y1, x0:x1] |= (alpha > 0.5).astype(np.uint8) * 255


def _draw_shadow(shadow: np.ndarray, cam: _Camera, base: np.ndarray, light: np.ndarray,
                 strength: int = 255, look: RobotLook = REAL_PIECE) -> None:
    """A robot's shadow on the board: its slices projected along the light onto the plane
    (``strength`` below 255: a clear piece lets most of the light through)."""
    d = -light[:2] / max(light[2], 0.2)
    z, r, _ = _look_profile(look)
    z, r = z[::4], r[::4]
    n = len(z)
    pts = np.stack([base[0] + d[0] * z[:, None] + r[:, None] * _RING[None, :, 0],
                    base[1] + d[1] * z[:, None] + r[:, None] * _RING[None, :, 1],
                    np.zeros((n, _N_RING))], axis=-1).reshape(-1, 3)
    polys = _fx(cam.project(pts)).reshape(n, _N_RING, 1, 2)
    if strength >= 255:
        for poly in polys:  # one at a time: fillPoly given them all would cut their overlaps out
            cv2.fillPoly(shadow, [poly], 255, cv2.LINE_8, _SHIFT)
        return
    mine = np.zeros_like(shadow)
    for poly in polys:
        cv2.fillPoly(mine, [poly], strength, cv2.LINE_8, _SHIFT)
    np.maximum(shadow, mine, out=shadow)


# ---------------------------------------------------------------- hands and arms

_SKIN = [(150, 178, 226), (118, 150, 205), (88, 118, 168), (60, 84, 120), (170, 192, 232)]
_SLEEVE = [(60, 40, 30), (40, 40, 160), (150, 150, 150), (30, 100, 40), (200, 200, 200),
           (90, 60, 110)]


def _draw_hand(img: np.ndarray, occl: np.ndarray, shadow: np.ndarray | None,
               rng: np.random.Generator, corners: np.ndarray, light: np.ndarray,
               cells: float = 16) -> None:
    """An arm reaching in from a picture edge, its hand over the board. Drawn in the window
    it covers only: a full-frame layer per hand would cost more than the whole board."""
    H, W = img.shape[:2]
    cell_px = float(np.linalg.norm(corners[1] - corners[0])) / cells
    # a point over the board, inside the grid
    a, b = rng.uniform(0.1, 0.9, 2)
    top = corners[0] + (corners[1] - corners[0]) * a
    bot = corners[3] + (corners[2] - corners[3]) * a
    tip = top + (bot - top) * b
    side = rng.integers(0, 4)
    along = rng.uniform(0.15, 0.85)
    start = np.array([(along * W, -0.05 * H), (W * 1.05, along * H), (along * W, 1.05 * H),
                      (-0.05 * W, along * H)][side], float)
    vec = tip - start
    u = vec / float(np.linalg.norm(vec))
    n = np.array([-u[1], u[0]])
    arm_w = cell_px * rng.uniform(2.0, 2.8)
    skin = np.array(_SKIN[rng.integers(len(_SKIN))], np.float32)
    wrist = tip - u * cell_px * rng.uniform(2.2, 3.0)
    # the window: everything lies within an arm's width of the segment start → tip
    reach = arm_w + 2.5 * cell_px
    lo = np.floor(np.minimum(start, tip) - reach).astype(int)
    hi = np.ceil(np.maximum(start, tip) + reach).astype(int)
    x0, y0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
    x1, y1 = min(int(hi[0]), W), min(int(hi[1]), H)
    if x1 <= x0 or y1 <= y0:
        return
    o = np.array([x0, y0], float)
    roi = img[y0:y1, x0:x1]
    layer = roi.copy()
    mask = np.zeros(roi.shape[:2], np.uint8)
    start_, wrist_, vec_ = start - o, wrist - o, vec
    # the arm in three lengthwise strips, darker at the sides: a round limb
    for k, (w_frac, shade) in enumerate(((1.0, 0.72), (0.7, 0.88), (0.35, 1.0))):
        w0 = arm_w * w_frac / 2
        w1 = arm_w * 0.72 * w_frac / 2
        poly = np.array([start_ + n * w0, wrist_ + n * w1, wrist_ - n * w1, start_ - n * w0])
        _poly(layer, poly, tuple(float(c) for c in skin * shade))
        if k == 0:
            _poly(mask, poly, 255)
    # a sleeve over the part of the arm nearest the edge, sometimes
    if rng.random() < 0.6:
        cut = start_ + vec_ * rng.uniform(0.3, 0.6)
        sl = np.array(_SLEEVE[rng.integers(len(_SLEEVE))], np.float32)
        wc = arm_w * 0.6
        poly = np.array([start_ + n * arm_w * 0.6, cut + n * wc, cut - n * wc,
                         start_ - n * arm_w * 0.6])
        _poly(layer, poly, tuple(float(c) for c in sl))
        _poly(mask, poly, 255)
    # the hand: a palm and fingers spread towards the tip
    palm_c = wrist_ + u * cell_px * 1.0
    palm = cv2.ellipse2Poly((int(palm_c[0]), int(palm_c[1])),
                            (int(cell_px * 1.3), int(cell_px * 1.05)),
                            int(math.degrees(math.atan2(u[1], u[0]))), 0, 360, 10)
    cv2.fillPoly(layer, [palm], tuple(float(c) for c in skin * 0.92), cv2.LINE_AA)
    cv2.fillPoly(mask, [palm], 255, cv2.LINE_AA)
    spread = rng.uniform(0.15, 0.35)
    finger = tuple(float(c) for c in skin * 0.85)
    for k in range(4):
        ang = (k - 1.5) * spread
        d = u * math.cos(ang) + n * math.sin(ang)
        root = palm_c + n * (k - 1.5) * cell_px * 0.45 + u * cell_px * 0.6
        end = root + d * cell_px * rng.uniform(1.2, 1.9)
        th = max(2, int(cell_px * 0.42))
        _line(layer, root, end, finger, th)
        _line(mask, root, end, 255, th)
    thumb_root = palm_c - n * cell_px * 0.9
    thumb_end = thumb_root + (u * 0.6 - n * 0.8) * cell_px * 1.4
    _line(layer, thumb_root, thumb_end, finger, max(2, int(cell_px * 0.48)))
    _line(mask, thumb_root, thumb_end, 255, max(2, int(cell_px * 0.48)))
    m = mask > 0
    roi[m] = layer[m]
    occl[y0:y1, x0:x1] |= mask
    if shadow is None:
        return
    # the shadow the hand throws on the board: it is held several cells above it
    lift = rng.uniform(3.0, 8.0) * cell_px
    dx, dy = (int(round(v)) for v in -light[:2] / max(light[2], 0.2) * lift / 4)
    sx0, sy0 = max(x0 + dx, 0), max(y0 + dy, 0)
    sx1, sy1 = min(x1 + dx, W), min(y1 + dy, H)
    if sx1 > sx0 and sy1 > sy0:
        part = mask[sy0 - y0 - dy:sy1 - y0 - dy, sx0 - x0 - dx:sx1 - x0 - dx] // 2
        np.maximum(shadow[sy0:sy1, sx0:sx1], part, out=shadow[sy0:sy1, sx0:sx1])


# ---------------------------------------------------------------- photometry


@lru_cache(maxsize=2)
def _noise_bank(W: int, H: int) -> np.ndarray:
    """A fixed field of Gaussian noise (32 levels per standard deviation), a little larger than
    the frame: each frame takes a seeded crop of it, far cheaper than fresh noise per pixel."""
    rng = np.random.default_rng(77)
    bank = (rng.standard_normal((H + 64, W + 64, 3), dtype=np.float32) * 32).astype(np.int16)
    bank.flags.writeable = False
    return bank


def _photometry(img: np.ndarray, scene: Scene, rng: np.random.Generator,
                shadow: np.ndarray | None, noise_rng: np.random.Generator,
                raised: np.ndarray | None = None) -> np.ndarray:
    """Light and sensor, in the order a camera meets them: shadows and uneven light, colour
    cast, glare, optical blur, sensor noise, JPEG. Done on 8-bit images with OpenCV's
    saturating arithmetic, the only way to stay inside the frame budget.

    The glare is a lamp mirrored in the glossy print and the table top: what stands above
    them (``raised``: robots, hands) hides it, and shows only its own highlights."""
    H, W = img.shape[:2]
    h, w = max(H // 8, 4), max(W // 8, 4)
    gain = np.full((h, w), scene.brightness, np.float32)
    if scene.gradient > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, 2 * math.pi)
        lin = ((xx / w - 0.5) * math.cos(ang) + (yy / h - 0.5) * math.sin(ang))
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        rad = np.sqrt(((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2)
        g = 1 - scene.gradient * (0.8 * (lin + 0.5) + 0.6 * rad)
        gain *= np.clip(g, 0.12, 1.2)
    gain3 = gain[..., None] * np.array(scene.cast, np.float32)[None, None, :]
    gain3 = np.clip(gain3 * 128, 0, 255).astype(np.uint8)
    out = cv2.multiply(img, cv2.resize(gain3, (W, H), interpolation=cv2.INTER_LINEAR),
                       scale=1 / 128)
    if shadow is not None and shadow.any():
        s = cv2.GaussianBlur(shadow, (0, 0), 3.0)
        keep = cv2.bitwise_not(cv2.multiply(s, 0.45, dtype=cv2.CV_8U))
        out = cv2.multiply(out, cv2.merge([keep, keep, keep]), scale=1 / 255)
    if scene.haze > 0:
        # a milky veil: contrast and colour washed towards a light grey of the room's tint
        veil = np.array(scene.cast, np.float32) * 210.0 * min(scene.brightness * 1.2, 1.0)
        out = cv2.addWeighted(out, 1.0 - scene.haze,
                              np.full_like(out, np.clip(veil, 0, 255).astype(np.uint8)),
                              scene.haze, 0.0)
    if scene.glare > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
        sx, sy = rng.uniform(0.04, 0.12) * w, rng.uniform(0.04, 0.12) * h
        glare = np.exp(-(((xx - gx) / sx) ** 2 + ((yy - gy) / sy) ** 2))
        glare = np.clip(glare * scene.glare * 255, 0, 255).astype(np.uint8)
        glare = cv2.resize(glare, (W, H), interpolation=cv2.INTER_LINEAR)
        if raised is not None:
            glare[raised > 0] = 0
        out = cv2.add(out, cv2.merge([glare, glare, glare]))
    if scene.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur)
    if scene.noise > 0:
        bank = _noise_bank(W, H)
        ox, oy = (int(v) for v in noise_rng.integers(0, 64, 2))
        noise = cv2.multiply(np.ascontiguousarray(bank[oy:oy + H, ox:ox + W]),
                             scene.noise / 32.0, dtype=cv2.CV_16S)
        out = cv2.add(out, noise, dtype=cv2.CV_8U)
    if scene.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------- render


def _position(position: Position | Mapping[str, Any]) -> Position:
    if isinstance(position, Position):
        return position
    return Position.from_dict(dict(position))


def _chip_of(pos: Position) -> tuple[str, str] | None:
    g = pos.target
    if g is None:
        return None
    if g.shape is not None:
        return ("any", VORTEX) if g.shape == VORTEX else (str(g.color), g.shape)
    t = pos.board.target_at(g.cell)
    if t is None:
        return None
    return (t.color, t.shape)


_SCENE_FIELDS = {f.name for f in fields(Scene)}


def render(
    position: Position | Mapping[str, Any],
    *,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    scene: Scene | None = None,
    noise_seed: int | None = None,
    **options: Any,
) -> Rendered:
    """Render a position as the camera would see it.

    ``size`` is ``(width, height)``. ``scene`` (default: a clean top-down shot) sets the camera,
    light and table; any :class:`Scene` field may also be passed as a keyword
    (``tilt=25, hands=1``) and overrides it. The same position, seed, size and scene always
    give the same image. ``noise_seed``, when given, draws the sensor noise alone from it
    (successive frames of one mounted camera: same pose and light, fresh noise).
    """
    scene = scene_with(scene, options)
    pos = _position(position)
    board = pos.board
    chip = _chip_of(pos) if scene.chip else None
    if chip is not None and not board.blocked:
        chip = None

    printed: frozenset[Cell] = frozenset()
    if scene.print_variety:
        # its own generator, so that the rest of the frame is drawn as without it
        base, printed = print_odd(board_texture(board), board,
                                  np.random.default_rng([seed, 4177]), scene.print_variety)
    else:
        base = board_texture(board)

    def dress(tex: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if chip is None:
            return tex
        tex = tex.copy()
        _draw_chip(tex, board, chip, float(rng.uniform(-12, 12)))
        return tex

    shot = shoot(base, (board.width, board.height),
                 robots={name: cell_uv(board, cell) for name, cell in pos.robots.items()},
                 scene=scene, seed=seed, size=size, noise_seed=noise_seed, dress=dress,
                 covered=lambda Hb, occl: _hidden_cells(board, Hb, occl, *occl.shape[::-1]))
    return Rendered(
        image=shot.image, corners=shot.corners, homography=shot.homography,
        robots=dict(pos.robots), robot_pixels=shot.robot_pixels, tiles=board.tiles, chip=chip,
        occluded=bool(shot.hidden), hidden_cells=shot.hidden, occluder_mask=shot.occluder_mask,
        markers=shot.markers, board=board, scene=scene, camera_matrix=shot.camera_matrix,
        rvec=shot.rvec, tvec=shot.tvec, in_frame=shot.in_frame, dist_coeffs=shot.dist_coeffs,
        robot_mask=shot.robot_mask, printed=printed,
    )


def scene_with(scene: Scene | None, options: Mapping[str, Any]) -> Scene:
    """``scene`` (default: a clean top-down shot) with any :class:`Scene` fields overridden;
    an unknown option is a ``TypeError`` that lists the known ones."""
    unknown = set(options) - _SCENE_FIELDS
    if unknown:
        raise TypeError(f"render: unknown option {sorted(unknown)[0]!r} "
                        f"(known: {', '.join(sorted(_SCENE_FIELDS))})")
    return replace(scene or Scene(), **options)


@dataclass
class Shot:
    """What :func:`shoot` made of a flat board: the picture, and the truth every game's board
    shares (where the grid, the robots, the hands and the markers ended up)."""

    image: np.ndarray  # BGR uint8, H×W×3
    corners: np.ndarray  # 4×2: the grid's corners (0, 0), (w, 0), (w, h), (0, h), in pixels
    homography: np.ndarray  # 3×3: board plane (u, v) → image pixels (before lens distortion)
    robot_pixels: dict[str, dict[str, tuple[float, float]]]
    robot_mask: np.ndarray  # H×W uint8: robot bodies the hands leave in view
    occluder_mask: np.ndarray  # H×W uint8: hands and arms
    markers: dict[int, np.ndarray]
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    dist_coeffs: np.ndarray
    in_frame: bool
    hidden: Any  # what ``covered`` said about the hands (an empty frozenset without hands)


def shoot(
    texture: np.ndarray,
    dims: tuple[float, float],
    *,
    robots: Mapping[str, tuple[float, float]],
    scene: Scene,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    noise_seed: int | None = None,
    px: float = PX,
    border: float = BORDER,
    dress: Any = None,
    extras: Any = (),
    covered: Any = None,
) -> Shot:
    """The scene machinery every board shares: a flat board on a table, seen by a camera in a
    room, with robots standing on it and hands reaching over it.

    All lengths are in classic cells (:data:`CELL_MM`), so robots, hands and markers keep their
    real size on any board. ``texture`` is the board seen from straight above, ``px`` pixels a
    cell, with ``border`` cells of frame round its ``dims`` = (width, height) grid: texture
    pixel ``((u + border)·px − 0.5, (v + border)·px − 0.5)`` is board-plane point ``(u, v)``.
    ``robots`` maps a robot's name (its look, :data:`ROBOT_COLORS`) to its base on the board
    plane. ``dress(texture, rng)`` may print on the board first (the classic chip);
    ``extras`` are ``(image, matrix, mask or None)`` things lying flat on the table, each
    matrix taking its pixels to the board plane; ``covered(homography, hand_mask)`` turns the
    hands into the game's own truth (its hidden cells).
    """
    W, H = int(size[0]), int(size[1])
    if W < 64 or H < 48:
        raise ValueError(f"render: size {W}×{H} is too small")
    bw, bh = dims
    if scene.table not in TABLES:
        raise ValueError(f"render: unknown table {scene.table!r} (known: {', '.join(TABLES)})")
    rng = np.random.default_rng(seed)
    cam = _camera(scene, dims, (W, H), border)
    Hb = cam.homography()
    # texture pixel → image: texture (x, y) = ((u + border)·px − 0.5, (v + border)·px − 0.5)
    S = np.array([[px, 0, border * px - 0.5], [0, px, border * px - 0.5], [0, 0, 1]])
    M = Hb @ np.linalg.inv(S)

    variant = int(rng.integers(0, 4))
    img = _table(scene.table, W, H, variant).copy()

    # light: a direction from above, for shading and shadows
    la = rng.uniform(0, 2 * math.pi)
    elev = math.radians(rng.uniform(50, 75))
    light = np.array([math.cos(la) * math.cos(elev), math.sin(la) * math.cos(elev),
                      math.sin(elev)])

    markers: dict[int, np.ndarray] = {}
    if scene.markers:
        paper_px = 96
        layout = marker_layout(SimpleNamespace(width=bw, height=bh), border=border)
        q = (MARKER_PAPER_MM - MARKER_SIDE_MM) / 2 / CELL_MM
        paper_cells = MARKER_PAPER_MM / CELL_MM
        for k, quad in layout.items():
            u0, v0 = quad[0] - q
            sc = paper_cells / paper_px
            Sm = np.array([[sc, 0, u0 + sc / 2], [0, sc, v0 + sc / 2], [0, 0, 1]])
            _paste_warped(img, _marker_paper(k, paper_px), Hb @ Sm)
            markers[k] = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), Hb).reshape(-1, 2)
    for thing, to_plane, mask in extras:
        _paste_warped(img, thing, Hb @ to_plane, mask)

    tex = dress(texture, rng) if dress is not None else texture
    # the board's own drop shadow on the table, then the board
    outline = np.array([[-border, -border], [bw + border, -border],
                        [bw + border, bh + border], [-border, bh + border]])
    out_px = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), Hb).reshape(-1, 2)
    shadow = np.zeros((H, W), np.uint8) if scene.shadows else None
    if shadow is not None:
        _poly(shadow, out_px + 3, 110)
    _paste_warped(img, tex, M)
    if shadow is not None:
        _poly(shadow, out_px, 0)

    # robots, farthest from the camera first
    cam_pos = cam.position
    bases = {}
    for name, (u, v) in robots.items():
        jx, jy = rng.uniform(-1, 1, 2) * scene.jitter
        bases[name] = np.array([u - bw / 2 + jx, bh / 2 - v + jy, 0.0])
    order = sorted(bases, key=lambda n: -float(np.linalg.norm(bases[n] - cam_pos)))
    robot_mask = np.zeros((H, W), np.uint8)
    # the looks from a generator of their own: the default frames stay the same
    vary = np.random.default_rng([seed, 7919])
    looks = {name: RobotLook.random(vary) if vary.random() < scene.robot_variety
             else REAL_PIECE for name in sorted(bases)}
    if shadow is not None:
        for name in order:
            _draw_shadow(shadow, cam, bases[name], light, 90 if name == "transparent" else 255,
                         looks[name])
    robot_pixels = {}
    for name in order:
        _draw_robot(img, robot_mask, cam, bases[name], name, light, looks[name])
        b = cam.project(bases[name][None])[0]
        t = cam.project((bases[name] + [0, 0, ROBOT_HEIGHT * looks[name].height])[None])[0]
        robot_pixels[name] = {"base": (float(b[0]), float(b[1])), "top": (float(t[0]), float(t[1]))}
    if shadow is not None:
        shadow[robot_mask > 0] = 0

    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [bw, 0], [bw, bh], [0, bh]]], np.float64), Hb)[0]
    occl = np.zeros((H, W), np.uint8)
    for _ in range(scene.hands):
        _draw_hand(img, occl, shadow, rng, corners, light, cells=bw)
    if shadow is not None and scene.hands:
        shadow[occl > 0] = 0  # a hand is not in its own shadow

    hidden = covered(Hb, occl) if scene.hands and covered is not None else frozenset()
    dist = np.array([scene.distortion, 0.0, 0.0, 0.0, 0.0])
    if scene.distortion:
        mx, my = _lens_maps(cam.K, dist, W, H)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        occl = cv2.remap(occl, mx, my, cv2.INTER_NEAREST)
        robot_mask = cv2.remap(robot_mask, mx, my, cv2.INTER_NEAREST)
        if shadow is not None:
            shadow = cv2.remap(shadow, mx, my, cv2.INTER_LINEAR)
        corners = _distort(corners, cam.K, dist)
        markers = {k: _distort(v, cam.K, dist) for k, v in markers.items()}
        for name, p in robot_pixels.items():
            b, t = _distort(np.array([p["base"], p["top"]]), cam.K, dist)
            robot_pixels[name] = {"base": (float(b[0]), float(b[1])),
                                  "top": (float(t[0]), float(t[1]))}
    noise_rng = rng if noise_seed is None else np.random.default_rng([seed, noise_seed])
    image = _photometry(img, scene, rng, shadow, noise_rng, cv2.bitwise_or(robot_mask, occl))
    in_frame = bool(((corners >= 0) & (corners <= [W - 1, H - 1])).all())
    return Shot(
        image=image, corners=corners.astype(np.float64), homography=Hb,
        robot_pixels=robot_pixels, robot_mask=cv2.bitwise_and(robot_mask, cv2.bitwise_not(occl)),
        occluder_mask=occl, markers=markers, camera_matrix=cam.K,
        rvec=cv2.Rodrigues(cam.R)[0].ravel(), tvec=cam.t.copy(), dist_coeffs=dist,
        in_frame=in_frame, hidden=hidden,
    )


_SAMPLES = np.array([(a, b) for a in (0.2, 0.5, 0.8) for b in (0.2, 0.5, 0.8)])


def _hidden_cells(board: Board, Hb: np.ndarray, occl: np.ndarray, W: int, H: int
                  ) -> frozenset[Cell]:
    """Cells at least a quarter covered by a hand or arm (3 of 9 sample points)."""
    cells = [c for c in board.cells() if c not in board.blocked]
    uv = np.array([cell_uv(board, c) for c in cells])
    hit = squares_covered(uv, 1.0, Hb, occl)
    return frozenset(c for c, h in zip(cells, hit, strict=True) if h)


def squares_covered(centres: np.ndarray, side: float, Hb: np.ndarray, occl: np.ndarray
                    ) -> np.ndarray:
    """Per square (board-plane ``centres``, ``side`` long), whether a hand or arm covers a
    quarter of it or more (3 of 9 sample points of ``occl``, seen through ``Hb``)."""
    H, W = occl.shape[:2]
    uv = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    pts = (uv[:, None, :] + (_SAMPLES[None, :, :] - 0.5) * side).reshape(-1, 1, 2)
    px = cv2.perspectiveTransform(pts, Hb).reshape(len(uv), len(_SAMPLES), 2)
    xi = np.clip(np.round(px[..., 0]).astype(int), 0, W - 1)
    yi = np.clip(np.round(px[..., 1]).astype(int), 0, H - 1)
    inside = (px[..., 0] >= 0) & (px[..., 0] < W) & (px[..., 1] >= 0) & (px[..., 1] < H)
    covered = (occl[yi, xi] > 0) & inside
    return covered.sum(axis=1) >= 3


def random_position(seed: int | np.random.Generator, *, robots: tuple[str, ...] = (
        "red", "green", "blue", "yellow"), tiles: tuple[str, ...] | None = None) -> Position:
    """A random legal position over random tile sides (one per board number, each in a random
    quadrant), robots on cells without targets or barriers, and a random target chip."""
    from ..board import tile_library

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if tiles is None:
        lib = tile_library()["quadrants"]
        nums = [1, 2, 3, 4]
        rng.shuffle(nums)
        tiles = tuple(
            str(rng.choice([n for n, t in lib.items() if t["board"] == num])) for num in nums)
    board = Board.from_tiles(tiles)
    banned = set(board.blocked) | {t.cell for t in board.targets} | {
        d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in banned]
    picks = rng.choice(len(free), size=len(robots), replace=False)
    target = board.targets[int(rng.integers(len(board.targets)))]
    data = {
        "board": {"tiles": list(tiles)},
        "robots": {r: board.name(free[int(i)]) for r, i in zip(robots, picks, strict=True)},
        "target": {"color": target.color, "shape": target.shape} if not target.is_vortex else {
            "color": "any", "shape": VORTEX},
    }
    return Position.from_dict(data)


__all__ = [
    "BORDER", "CELL_MM", "COLORS", "MARKER_IDS", "ROBOT_HEIGHT", "ROBOT_RADIUS", "SHAPES",
    "Rendered", "Scene", "Shot", "board_texture", "cell_uv", "marker_layout", "random_position",
    "render", "scene_with", "shoot", "squares_covered",
]
