"""A second image source: the table rasterised in 3D, with meshes, lights and shadows.

The project's own renderer (:mod:`.render`) draws the board as a flat picture and the robots as
shaded outlines, and the reader grew up beside it. This module is made another way, sharing no
drawing code with it, so the reader can be judged on pictures it was not developed against:

* a real 3D scene rasterised by OpenGL (moderngl on a headless EGL context; Mesa's software
  rasteriser is enough): a board with thickness and its print as a texture drawn here from the
  board data in a look of its own; robots as lathe meshes (a wide base, a tapered body, a round
  head, or a bullet on a square plinth), their proportions drawn per scene; a hand and arm of
  capsules, a sand timer, cards and a box;
* physically based shading: GGX specular with Fresnel and Smith masking, plastic that lets
  light through (wrapped diffuse, light from behind, a pale wash under bright light), metal for
  the silver robot; one to three point lights with colour casts, a flash on the camera, a
  glossy table that mirrors the lamp, shadows from a shadow map softened by filtering;
* a camera tilted 0–45° from any side, the board filling a third to nearly all of the picture,
  a little roll; then the sensor: exposure error, white balance error, haze, sensor noise,
  blur, JPEG.

>>> shot = render3d({"board": {"tiles": ["1A", "4B", "3B", "2B"]},
...                  "robots": {"red": "o14", "blue": "n5"}}, seed=3, size=(320, 240))
>>> shot.image.shape, shot.robots["red"] == shot.board.cell("o14")
((240, 320, 3), True)

Coordinates
-----------
The world is in cells: ``x`` east, ``y`` north, ``z`` up, the origin at the centre of the
board's top face. The 16×16 grid spans ``x, y ∈ [-8, 8]``; its printed dark frame lies outside
it. The truth speaks the board plane of :mod:`.render` (``u`` east from the grid's west edge,
``v`` south from its north edge, in cells) and OpenCV's pixels (pixel centres on integers), so
frames of both sources can be judged by the same code: ``corners`` are the grid's NW, NE, SE,
SW corners in the picture, ``homography`` maps ``(u, v, 1)`` to pixels.

Cost: about 0.9 s of processor time for a 1280×960 frame (Mesa's llvmpipe threads included;
1.3–2 s of wall time on a shared two-core machine), about half of it rasterising, the rest
drawing the print and the table and developing the picture; ``Frame3D.ms`` says what each
frame took (``companion bench vision --source render3d`` prints the median).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import cv2
import numpy as np

from ..board import COLORS, DOWN, LEFT, RIGHT, UP, VORTEX, Board, Cell, tile_library
from ..errors import CompanionError
from ..rules import Position

FRAME_W = 0.46
"""Width of the printed dark frame round the grid, in cells."""
THICK = 0.09
"""The board's thickness, in cells (a little over 2 mm on 25 mm cells)."""
TEX_PX = 56
"""Texture pixels per cell of the board print."""
ROBOTS = ("red", "green", "blue", "yellow", "black", "silver")

INSTALL = ("install the moderngl package (the [test] extra) and Mesa's EGL driver "
           "(Debian/Ubuntu: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri)")


class Render3DError(CompanionError, RuntimeError):
    """The 3D renderer cannot run here (no OpenGL through EGL), or was asked for nonsense."""


# ---------------------------------------------------------------- the scene


TABLES = ("white", "grey", "dark", "wood", "felt", "glossy")


@dataclass(frozen=True)
class Scene3D:
    """Everything about a frame but the position. The defaults: a clean top-down shot of the
    board filling most of the picture under one white lamp on a wooden table."""

    tilt: float = 0.0  # camera axis off vertical, degrees
    azimuth: float = 0.0  # the side the camera stands on, degrees (0: south, 90: east)
    roll: float = 0.0  # the picture's roll about the camera axis, degrees
    fill: float = 0.85  # the board's (frame included) larger extent, fraction of the picture
    shift: tuple[float, float] = (0.0, 0.0)  # where in the free margin the board sits, -1…1
    hfov: float = 55.0  # horizontal field of view, degrees
    table: str = "wood"  # one of TABLES
    table_tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # the table's colour, RGB gains
    lights: int = 1  # lamps, 1–3
    light_seed: int = 0  # where the lamps hang and their colours
    warmth: float = 0.0  # the lamps' colour temperature, -1 (cold, bluish) … 1 (warm)
    ambient: float = 0.25  # light from the room around, relative to the key lamp
    flash: float = 0.0  # a flash on the camera, 0 (none) … 1.5
    glare: float = 0.0  # a lamp placed where the board mirrors it into the lens, 0 … 1
    gloss: float = 0.45  # roughness of the board's print (lower: glossier)
    shadow_soft: float = 1.0  # how soft shadows are (the lamp's size), 0.3 … 3
    robot_style: str = "pawn"  # pawn (disc base, body, head) | bullet (square plinth, cone)
    robot_height: float = 1.5  # cells
    robot_width: float = 1.0  # scale of the radii
    robot_gloss: float = 0.3  # plastic roughness
    translucency: float = 0.5  # how much light the plastic lets through, 0 … 1
    wash: float = 0.0  # the pale wash of translucent plastic under bright light, 0 … 1
    saturation: float = 1.0  # the robots' colour saturation
    jitter: float = 0.06  # how far robots stand off their cell centres, cells
    exposure: float = 1.0  # exposure error (1: right)
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # camera's gains, B, G, R
    haze: float = 0.0  # a veil of scattered light, 0 … 0.5
    noise: float = 1.5  # sensor noise, grey levels
    blur: float = 0.0  # optical blur, Gaussian sigma in pixels
    jpeg: int | None = None  # JPEG quality, None for none
    vignette: float = 0.15  # light fall-off toward the picture's corners
    hand: bool = False  # a hand and arm over the board
    hand_seed: int = 0
    timer: bool = False  # the sand timer on the centre piece
    clutter: bool = False  # cards and a box beside the board
    print_seed: int = 0  # the print's colour variation
    crop: float = 0.0  # the share of the board pushed out over the picture's edge (0: none)

    @property
    def markers(self) -> bool:
        """No corner markers are drawn by this source: nothing fixes north but the print."""
        return False

    @classmethod
    def random(cls, seed: int | np.random.Generator, *, hands: float = 0.2,
               timer: float = 0.2, clutter: float = 0.4, max_tilt: float = 45.0,
               crop: float = 0.05) -> Scene3D:
        """A varied scene drawn from ``seed``: a hand with probability ``hands``, the sand
        timer with ``timer``, cards and a box with ``clutter``, part of the board out of the
        picture with ``crop``."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        table = str(rng.choice(TABLES))
        tint = {
            "white": lambda: rng.uniform(0.95, 1.0, 3),
            "grey": lambda: np.full(3, rng.uniform(0.75, 1.25)),
            "dark": lambda: rng.uniform(0.6, 1.4, 3),
            "wood": lambda: rng.uniform(0.7, 1.3) * np.array([1.0, *rng.uniform(0.85, 1.1, 2)]),
            "felt": lambda: rng.uniform(0.6, 1.4, 3),
            "glossy": lambda: np.full(3, rng.uniform(0.05, 1.0)),
        }[table]()
        wb = rng.normal(1.0, 0.08, 3).clip(0.78, 1.25)
        bright = rng.random() < 0.3
        return cls(
            tilt=float(rng.uniform(0.0, max_tilt) ** 1.0),
            azimuth=float(rng.uniform(0, 360)),
            roll=float(rng.normal(0, 3)),
            fill=float(rng.uniform(0.33, 0.97)),
            shift=(float(rng.uniform(-0.9, 0.9)), float(rng.uniform(-0.9, 0.9))),
            hfov=float(rng.uniform(45, 70)),
            table=table,
            table_tint=tuple(float(t) for t in tint),  # type: ignore[arg-type]
            lights=int(rng.integers(1, 4)),
            light_seed=int(rng.integers(1 << 30)),
            warmth=float(rng.uniform(-0.8, 0.9)),
            ambient=float(rng.uniform(0.12, 0.6)),
            flash=float(rng.uniform(0.5, 1.4)) if rng.random() < 0.2 else 0.0,
            glare=float(rng.uniform(0.4, 1.0)) if rng.random() < 0.25 else 0.0,
            gloss=float(rng.uniform(0.2, 0.7)),
            shadow_soft=float(rng.uniform(0.4, 3.0)),
            robot_style=str(rng.choice(["pawn", "bullet"])),
            robot_height=float(rng.uniform(1.15, 1.75)),
            robot_width=float(rng.uniform(0.85, 1.12)),
            robot_gloss=float(rng.uniform(0.12, 0.55)),
            translucency=float(rng.uniform(0.1, 0.9)),
            wash=float(rng.uniform(0.2, 0.8)) if bright else float(rng.uniform(0.0, 0.25)),
            saturation=float(rng.uniform(0.75, 1.1)),
            jitter=float(rng.uniform(0.02, 0.12)),
            exposure=float(np.exp(rng.normal(0.0, 0.18))) * (1.1 if bright else 1.0),
            white_balance=tuple(float(w) for w in wb),  # type: ignore[arg-type]
            haze=float(rng.uniform(0.1, 0.45)) if rng.random() < 0.25 else 0.0,
            noise=float(rng.uniform(0.5, 6.0)),
            blur=float(rng.uniform(0.0, 1.6)),
            jpeg=int(rng.integers(55, 95)) if rng.random() < 0.7 else None,
            vignette=float(rng.uniform(0.0, 0.45)),
            hand=bool(rng.random() < hands),
            hand_seed=int(rng.integers(1 << 30)),
            timer=bool(rng.random() < timer),
            clutter=bool(rng.random() < clutter),
            print_seed=int(rng.integers(1 << 30)),
            crop=float(rng.uniform(0.03, 0.25)) if rng.random() < crop else 0.0,
        )


def random_scene(seed: int | np.random.Generator, **kw: Any) -> Scene3D:
    """A varied scene (:meth:`Scene3D.random`)."""
    return Scene3D.random(seed, **kw)


def random_position3d(seed: int | np.random.Generator, *,
                      robots: tuple[str, ...] = ("red", "green", "blue", "yellow")) -> Position:
    """Random tile sides (one of each board number, in random quadrants) and robots on free
    cells (no target, no barrier, not the centre block)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    lib = tile_library()["quadrants"]
    order = rng.permutation(4) + 1
    tiles = [str(rng.choice(sorted(n for n, t in lib.items() if t["board"] == int(k))))
             for k in order]
    board = Board.from_tiles(tiles)
    banned = set(board.blocked) | {t.cell for t in board.targets} | {
        d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in banned]
    picks = rng.choice(len(free), size=len(robots), replace=False)
    return Position.from_dict({"board": {"tiles": tiles}, "robots": {
        r: board.name(free[int(i)]) for r, i in zip(robots, picks, strict=True)}})


# ---------------------------------------------------------------- the result


@dataclass
class Frame3D:
    """A rendered frame and the truth about it (the fields a reader's judge needs, named as
    :class:`.render.Rendered` names them)."""

    image: np.ndarray  # BGR uint8, H×W×3
    corners: np.ndarray  # 4×2: the grid's NW, NE, SE, SW outer corners, pixels
    homography: np.ndarray  # 3×3: board plane (u, v) in cells → pixels
    robots: dict[str, Cell]
    robot_pixels: dict[str, dict[str, tuple[float, float]]]  # "base", "top" per robot
    tiles: tuple[str, ...] | None
    occluded: bool  # a hand covers part of the grid
    hidden_cells: frozenset[Cell]  # cells a hand or the timer covers a quarter or more of
    occluder_mask: np.ndarray  # H×W uint8, 255 where a hand, arm or the timer is seen
    robot_mask: np.ndarray  # H×W uint8, 255 where a robot is seen
    in_frame: bool  # all four grid corners inside the picture
    board: Board
    scene: Scene3D
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    ms: float = 0.0  # what the frame cost to make
    chip: tuple[str, str] | None = None
    markers: dict[int, np.ndarray] = field(default_factory=dict)

    def to_image(self, uv: Any) -> np.ndarray:
        """Board-plane points (N×2, cells) → pixels (N×2)."""
        pts = np.asarray(uv, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def cell_centre(self, cell: Cell) -> tuple[float, float]:
        f, r = self.board.xy(cell)
        x, y = self.to_image([(f + 0.5, self.board.height - r - 0.5)])[0]
        return float(x), float(y)


# ---------------------------------------------------------------- the camera


@dataclass(frozen=True)
class _Cam:
    K: np.ndarray  # OpenCV intrinsics
    R: np.ndarray  # world → camera (x right, y down, z forward)
    t: np.ndarray
    size: tuple[int, int]

    @property
    def eye(self) -> np.ndarray:
        return -self.R.T @ self.t

    def project(self, xyz: Any) -> np.ndarray:
        p = (np.asarray(xyz, float).reshape(-1, 3) @ self.R.T + self.t) @ self.K.T
        return p[:, :2] / p[:, 2:3]

    def gl_matrix(self, near: float = 0.5, far: float = 3000.0) -> np.ndarray:
        """World → clip space, the same projection as :meth:`project` (pixel centres on
        integers, the first row of the picture at the top)."""
        W, H = self.size
        K = self.K
        P = np.zeros((4, 4))
        P[0, 0] = 2 * K[0, 0] / W
        P[1, 1] = 2 * K[1, 1] / H
        P[0, 2] = 1 - 2 * (K[0, 2] + 0.5) / W
        P[1, 2] = 2 * (K[1, 2] + 0.5) / H - 1
        P[2, 2] = -(far + near) / (far - near)
        P[2, 3] = -2 * far * near / (far - near)
        P[3, 2] = -1
        V = np.eye(4)
        V[:3, :3] = np.diag([1.0, -1.0, -1.0]) @ self.R
        V[:3, 3] = np.diag([1.0, -1.0, -1.0]) @ self.t
        return P @ V


def _outline(margin: float) -> np.ndarray:
    e = 8.0 + margin
    return np.array([[-e, e, 0], [e, e, 0], [e, -e, 0], [-e, -e, 0]], float)


def _camera(scene: Scene3D, size: tuple[int, int]) -> _Cam:
    W, H = size
    tilt, az, roll = (math.radians(a) for a in (scene.tilt, scene.azimuth, scene.roll))
    side = np.array([math.sin(az), -math.cos(az), 0.0])  # from the board towards the camera
    away = math.sin(tilt) * side + np.array([0, 0, math.cos(tilt)])
    fwd = -away
    down = side - (side @ fwd) * fwd
    if np.linalg.norm(down) < 1e-9:
        down = side
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    c, s = math.cos(roll), math.sin(roll)
    R = np.stack([c * right + s * down, -s * right + c * down, fwd])
    f = (W / 2) / math.tan(math.radians(scene.hfov) / 2)
    K = np.array([[f, 0, (W - 1) / 2], [0, f, (H - 1) / 2], [0, 0, 1.0]])
    outline = _outline(FRAME_W + 0.05)
    dist = 40.0
    for _ in range(8):  # the distance at which the board fills `fill` of the picture
        t = -R @ (away * dist)
        cam = _Cam(K, R, t, size)
        px = cam.project(outline)
        ext = max(np.ptp(px[:, 0]) / W, np.ptp(px[:, 1]) / H)
        dist *= ext / scene.fill
    t = -R @ (away * dist)
    px = _Cam(K, R, t, size).project(outline)
    # slide the picture (the principal point) so the board sits where `shift` says
    lo, hi = px.min(axis=0), px.max(axis=0)
    room = np.array([W - 1, H - 1]) - (hi - lo)
    want = np.maximum(room, 0) * (np.asarray(scene.shift) * 0.5 + 0.5)
    if scene.crop > 0:  # over the edge the shift leans to most
        axis = int(np.argmax(np.abs(scene.shift)))
        side = 1.0 if scene.shift[axis] >= 0 else -1.0
        want[axis] = (max(room[axis], 0) if side > 0 else 0.0) + side * scene.crop * (
            hi - lo)[axis]
    K2 = K.copy()
    K2[0, 2] += want[0] - lo[0]
    K2[1, 2] += want[1] - lo[1]
    return _Cam(K2, R, t, size)


# ---------------------------------------------------------------- meshes


def _lathe(profile: list[tuple[float, float]], segments: int = 40) -> np.ndarray:
    """A surface of revolution about z from (radius, height) points, bottom to top: N×8
    triangles' vertices (position, normal, uv)."""
    p = np.asarray(profile, float)
    n = len(p)
    # normals in the (r, z) plane from the profile's direction, outward
    tang = np.gradient(p, axis=0)
    nr, nz = tang[:, 1], -tang[:, 0]
    ln = np.hypot(nr, nz) + 1e-12
    nr, nz = nr / ln, nz / ln
    ang = np.linspace(0, 2 * math.pi, segments + 1)
    ca, sa = np.cos(ang), np.sin(ang)
    pos = np.stack([p[:, 0, None] * ca, p[:, 0, None] * sa, np.repeat(p[:, 1, None], len(ang), 1)],
                   -1)
    nrm = np.stack([nr[:, None] * ca, nr[:, None] * sa, np.repeat(nz[:, None], len(ang), 1)], -1)
    uv = np.stack(np.meshgrid(ang / (2 * math.pi), np.linspace(0, 1, n)), -1)
    vert = np.concatenate([pos, nrm, uv], -1)  # n × (seg+1) × 8
    a, b = vert[:-1, :-1], vert[:-1, 1:]
    c, d = vert[1:, :-1], vert[1:, 1:]
    tris = np.stack([a, b, d, a, d, c], axis=2).reshape(-1, 8)
    return tris.astype(np.float32)


def _box(sx: float, sy: float, sz: float, z0: float = 0.0) -> np.ndarray:
    """An axis-aligned box centred on x, y, from z0 up; the top face's uv spans 0…1 with v
    from north (y max) to south."""
    out = []
    hx, hy = sx / 2, sy / 2
    faces = [  # normal, four corners counter-clockwise seen from outside
        ((0, 0, 1), [(-hx, hy, sz), (-hx, -hy, sz), (hx, -hy, sz), (hx, hy, sz)]),
        ((0, 0, -1), [(-hx, hy, 0), (hx, hy, 0), (hx, -hy, 0), (-hx, -hy, 0)]),
        ((1, 0, 0), [(hx, -hy, 0), (hx, hy, 0), (hx, hy, sz), (hx, -hy, sz)]),
        ((-1, 0, 0), [(-hx, hy, 0), (-hx, -hy, 0), (-hx, -hy, sz), (-hx, hy, sz)]),
        ((0, 1, 0), [(hx, hy, 0), (-hx, hy, 0), (-hx, hy, sz), (hx, hy, sz)]),
        ((0, -1, 0), [(-hx, -hy, 0), (hx, -hy, 0), (hx, -hy, sz), (-hx, -hy, sz)]),
    ]
    for nrm, quad in faces:
        vs = [(x, y, z + z0, *nrm, (x + hx) / sx, (hy - y) / sy) for x, y, z in quad]
        out += [vs[0], vs[1], vs[2], vs[0], vs[2], vs[3]]
    return np.array(out, np.float32)


def _sphere_arc(cz: float, r: float, a0: float, a1: float, n: int) -> list[tuple[float, float]]:
    """Profile points of a sphere of radius r centred at height cz, from angle a0 to a1
    (radians, -π/2 at the bottom pole, π/2 at the top)."""
    return [(r * math.cos(a), cz + r * math.sin(a)) for a in np.linspace(a0, a1, n)]


def robot_profile(style: str, height: float, width: float, rng: np.random.Generator
                  ) -> list[tuple[float, float]]:
    """A robot's outline as (radius, height) points, bottom to top, in cells."""
    w = width
    if style == "bullet":  # a rounded cone standing on a square plinth (drawn apart)
        hb = 0.12
        r0 = float(rng.uniform(0.28, 0.36)) * w
        top = height - hb
        pts = [(0.0, hb), (r0 * 1.05, hb), (r0, hb + 0.04)]
        for s in np.linspace(0.05, 1.0, 22):
            z = hb + 0.04 + s * (top - 0.04)
            pts.append((max(r0 * math.sqrt(max(1 - s ** 2.4, 0.0)), 0.0), z))
        pts[-1] = (0.0, height)
        return pts
    rb = float(rng.uniform(0.38, 0.45)) * w
    hb = float(rng.uniform(0.08, 0.16))
    r0 = float(rng.uniform(0.26, 0.33)) * w
    r1 = float(rng.uniform(0.13, 0.18)) * w
    rh = float(rng.uniform(0.18, 0.25)) * w
    zc = height - rh
    neck = zc - rh * 0.85
    pts = [(0.0, 0.0), (rb * 0.98, 0.0), (rb, 0.02), (rb, hb - 0.02), (rb * 0.96, hb),
           (r0 * 1.15, hb + 0.02), (r0, hb + 0.07)]
    for s in np.linspace(0.1, 1.0, 8):
        pts.append((r0 + (r1 - r0) * s ** 0.8, hb + 0.07 + s * (neck - hb - 0.07)))
    pts += [(r1 * 1.5, neck + 0.03), (r1 * 1.45, neck + 0.07), (r1 * 0.95, neck + 0.1)]
    a0 = -math.asin(min(0.95, r1 * 0.9 / rh))
    pts += _sphere_arc(zc, rh, a0, math.pi / 2, 12)
    pts[-1] = (0.0, height)
    return pts


def _capsule(a: Any, b: Any, r: float, segments: int = 20) -> np.ndarray:
    """A capsule from point a to point b, radius r: mesh vertices in the world."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    prof = _sphere_arc(0.0, r, -math.pi / 2, 0, 6) + _sphere_arc(length, r, 0, math.pi / 2, 6)
    mesh = _lathe(prof, segments)
    z = (b - a) / max(length, 1e-9)
    x = np.cross(z, [0, 0, 1.0]) if abs(z[2]) < 0.9 else np.cross(z, [1.0, 0, 0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    M = np.stack([x, y, z], 1)
    mesh[:, :3] = mesh[:, :3] @ M.T + a
    mesh[:, 3:6] = mesh[:, 3:6] @ M.T
    return mesh


def _ellipsoid(c: Any, axes: Any, M: np.ndarray, segments: int = 20) -> np.ndarray:
    mesh = _lathe(_sphere_arc(0.0, 1.0, -math.pi / 2, math.pi / 2, 12), segments)
    S = np.diag(axes)
    mesh[:, :3] = mesh[:, :3] @ (M @ S).T + np.asarray(c, float)
    n = mesh[:, 3:6] @ np.linalg.inv(M @ S)
    mesh[:, 3:6] = n / (np.linalg.norm(n, axis=1, keepdims=True) + 1e-12)
    return mesh


def _moved(mesh: np.ndarray, at: Any, turn: float = 0.0) -> np.ndarray:
    c, s = math.cos(turn), math.sin(turn)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    out = mesh.copy()
    out[:, :3] = mesh[:, :3] @ Rz.T + np.asarray(at, float)
    out[:, 3:6] = mesh[:, 3:6] @ Rz.T
    return out


# ---------------------------------------------------------------- the print


def _lin(bgr: Any) -> tuple[int, int, int]:
    return tuple(int(round(v)) for v in bgr)  # type: ignore[return-value]


PRINT_INK = {  # BGR, the print's target colours
    "red": (50, 40, 200),
    "green": (60, 155, 40),
    "blue": (190, 90, 30),
    "yellow": (30, 200, 240),
}


def _symbol(img: np.ndarray, shape: str, colour: str, cx: float, cy: float, P: int,
            rng: np.random.Generator) -> None:
    """A target symbol drawn centred at (cx, cy) in a cell of P pixels."""
    sh = 4
    S = 1 << sh

    def pts(p: np.ndarray) -> np.ndarray:
        return np.round(p * S).astype(np.int32).reshape(-1, 1, 2)

    # the target's own pale plate under the symbol, framed
    h = 0.33 * P
    cv2.rectangle(img, (int(cx - h), int(cy - h)), (int(cx + h), int(cy + h)), (246, 246, 244),
                  -1, cv2.LINE_AA)
    cv2.rectangle(img, (int(cx - h), int(cy - h)), (int(cx + h), int(cy + h)), (120, 120, 124),
                  max(1, P // 28), cv2.LINE_AA)
    r = 0.22 * P
    if shape == VORTEX:
        cols = [PRINT_INK[c] for c in ("red", "yellow", "green", "blue")]
        for k, col in enumerate(cols):
            for t in np.linspace(0, 1.6 * math.pi, 10)[:-1]:
                a = t + k * math.pi / 2
                rr = r * (0.15 + 0.85 * t / (1.6 * math.pi))
                at = (int((cx + rr * math.cos(a)) * S), int((cy + rr * math.sin(a)) * S))
                cv2.circle(img, at, int(P * 0.07 * S), col, -1, cv2.LINE_AA, sh)
        return
    ink = PRINT_INK[colour]
    if shape == "circle":
        cv2.circle(img, (int(cx * S), int(cy * S)), int(r * S), ink, -1, cv2.LINE_AA, sh)
        cv2.circle(img, (int(cx * S), int(cy * S)), int(r * 0.45 * S), (250, 250, 250), -1,
                   cv2.LINE_AA, sh)
        return
    n, phase = {"triangle": (3, -math.pi / 2), "square": (4, math.pi / 4),
                "hexagon": (6, 0.0)}[shape]
    a = phase + np.arange(n) * 2 * math.pi / n
    poly = np.stack([cx + r * 1.1 * np.cos(a), cy + r * 1.1 * np.sin(a)], 1)
    cv2.fillPoly(img, [pts(poly)], ink, cv2.LINE_AA, sh)
    inner = np.stack([cx + r * 0.45 * np.cos(a), cy + r * 0.45 * np.sin(a)], 1)
    cv2.fillPoly(img, [pts(inner)], (250, 250, 250), cv2.LINE_AA, sh)
    cv2.circle(img, (int(cx * S), int(cy * S)), int(r * 0.18 * S), ink, -1, cv2.LINE_AA, sh)


def print_texture(board: Board, seed: int = 0, px: int = TEX_PX) -> np.ndarray:
    """The board's print as a BGR picture, north up: the dark frame, bevelled cells with a
    hatched inner square, walls as dark bars, the target symbols, the centre piece, the seams
    between the four tiles, and a little colour variation from ``seed``."""
    rng = np.random.default_rng([seed, 11])
    P = px
    F = int(round(FRAME_W * P))
    n = board.width
    side = n * P + 2 * F
    img = np.zeros((side, side, 3), np.uint8)
    # the frame: dark grey with a fine pattern of lighter specks
    frame = np.array([62, 60, 64]) + rng.normal(0, 4, 3)
    img[:] = np.clip(frame, 0, 255).astype(np.uint8)
    specks = rng.random((side, side)) < 0.05
    img[specks] = np.clip(frame + 50, 0, 255).astype(np.uint8)
    # the print's tint per tile (four sheets printed apart)
    base = np.array([226, 228, 230]) + rng.normal(0, 4, 3)
    tile_tint = base + rng.normal(0, 3, (4, 3))
    hatch = np.array([150, 205, 200]) + rng.normal(0, 8, 3)  # pale olive stripes (BGR)
    groove = np.array([150, 150, 152]) + rng.normal(0, 5, 3)
    # one cell's face, drawn once, tinted per cell
    cell = np.zeros((P, P, 3), np.float32)
    cell[:] = groove
    m = max(2, P // 14)
    cell[m:P - m, m:P - m] = 1.0
    face = np.zeros((P, P), np.float32)
    face[m:P - m, m:P - m] = 1
    bevel = np.zeros((P, P), np.float32)  # lit top-left edge, shaded bottom-right
    b = max(1, P // 20)
    bevel[m:m + b, m:P - m] = 0.06
    bevel[m:P - m, m:m + b] = 0.06
    bevel[P - m - b:P - m, m:P - m] = -0.12
    bevel[m:P - m, P - m - b:P - m] = -0.12
    inner = np.zeros((P, P), np.float32)
    q0, q1 = int(P * 0.3), int(P * 0.7)
    inner[q0:q1, q0:q1] = 1
    yy, xx = np.mgrid[0:P, 0:P]
    stripes = ((((xx + yy) // max(2, P // 12)) % 2) == 0) & (inner > 0)
    rim = np.zeros((P, P), bool)
    cv2.rectangle(rim.view(np.uint8), (q0, q0), (q1 - 1, q1 - 1), 1, 1)
    rivets = np.zeros((P, P), np.uint8)
    for cx in (m + 2 * b, P - m - 2 * b):
        for cy in (m + 2 * b, P - m - 2 * b):
            cv2.circle(rivets, (cx, cy), max(1, P // 30), 1, -1)
    # every cell at once: the tint of its tile and its own, spread over its pixels
    tint = np.empty((n, n, 3))
    h = n // 2
    for quad, (rs, cs) in enumerate([(slice(0, h), slice(0, h)), (slice(0, h), slice(h, n)),
                                     (slice(h, n), slice(h, n)), (slice(h, n), slice(0, h))]):
        tint[rs, cs] = tile_tint[quad]
    tint *= 1 + rng.normal(0, 0.012, (n, n, 1))
    tint_px = np.repeat(np.repeat(tint.astype(np.float32), P, axis=0), P, axis=1)
    # per pixel of a cell: how much of the tint it shows, and what fixed colour it adds
    factor = np.where(face > 0, 1 + bevel, 0.0)
    factor[rim] = 0.82
    factor[stripes] = 0.0
    factor[rivets > 0] = 0.0
    fixed = np.zeros((P, P, 3), np.float32)
    fixed[face == 0] = groove
    fixed[stripes] = hatch
    fixed[rivets > 0] = groove * 0.9
    out = tint_px * np.tile(factor.astype(np.float32), (n, n))[..., None] + np.tile(
        fixed, (n, n, 1))
    img[F:F + n * P, F:F + n * P] = np.clip(out, 0, 255).astype(np.uint8)
    # the centre piece: a dark slab with a lighter rim
    blocked = [board.xy(c) for c in board.blocked]
    if blocked:
        fs = [f for f, _ in blocked]
        rs = [n - 1 - r for _, r in blocked]
        x0, x1 = F + min(fs) * P, F + (max(fs) + 1) * P
        y0, y1 = F + min(rs) * P, F + (max(rs) + 1) * P
        img[y0:y1, x0:x1] = (54, 50, 52)
        cv2.rectangle(img, (x0 + P // 8, y0 + P // 8), (x1 - P // 8, y1 - P // 8),
                      (92, 90, 94), max(2, P // 16))
    # targets
    for t in board.targets:
        f, r = board.xy(t.cell)
        _symbol(img, t.shape, t.color, F + (f + 0.5) * P, F + (n - 1 - r + 0.5) * P, P, rng)
    # diagonals: coloured bars across the cell
    for d in board.diagonals:
        f, r = board.xy(d.cell)
        x0, y0 = F + f * P, F + (n - 1 - r) * P
        a, c = ((x0 + 3, y0 + P - 3), (x0 + P - 3, y0 + 3)) if d.orientation == "/" else (
            (x0 + 3, y0 + 3), (x0 + P - 3, y0 + P - 3))
        ink = PRINT_INK.get(d.color, (128, 128, 128))
        cv2.line(img, a, c, _lin(np.array(ink) * 0.6), max(4, P // 4), cv2.LINE_AA)
        cv2.line(img, a, c, ink, max(3, P // 6), cv2.LINE_AA)
    # walls: dark bars with a lighter edge, centred on the cell edge
    wt = max(3, int(P * rng.uniform(0.13, 0.17)))
    wall_col = np.array([52, 52, 56]) + rng.normal(0, 4, 3)
    for cell_id in board.cells():
        f, r = board.xy(cell_id)
        x0, y0 = F + f * P, F + (n - 1 - r) * P
        for d in (UP, RIGHT, DOWN, LEFT):
            if not board.has_wall(cell_id, d) or board.neighbour(cell_id, d) is None:
                continue
            if cell_id in board.blocked and board.neighbour(cell_id, d) in board.blocked:
                continue
            if d == UP:
                p0, p1 = (x0 - wt // 2, y0 - wt // 2), (x0 + P + wt // 2, y0 + wt // 2)
            elif d == DOWN:
                p0, p1 = (x0 - wt // 2, y0 + P - wt // 2), (x0 + P + wt // 2, y0 + P + wt // 2)
            elif d == LEFT:
                p0, p1 = (x0 - wt // 2, y0 - wt // 2), (x0 + wt // 2, y0 + P + wt // 2)
            else:
                p0, p1 = (x0 + P - wt // 2, y0 - wt // 2), (x0 + P + wt // 2, y0 + P + wt // 2)
            cv2.rectangle(img, p0, p1, _lin(wall_col + 40), -1)
            cv2.rectangle(img, (p0[0] + 1, p0[1] + 1), (p1[0] - 1, p1[1] - 1), _lin(wall_col), -1)
    # the seams between the four tiles: a thin dark gap with light on one side
    mid = F + (n // 2) * P
    gap = np.array([70, 72, 76]) + rng.normal(0, 6, 3)
    cv2.line(img, (mid, F), (mid, side - F), _lin(gap), max(1, P // 30))
    cv2.line(img, (F, mid), (side - F, mid), _lin(gap), max(1, P // 30))
    # paper texture and a slow print variation
    low = cv2.resize(rng.normal(0, 1, (6, 6, 3)).astype(np.float32), (side, side),
                     interpolation=cv2.INTER_CUBIC)
    out = img.astype(np.float32) * (1 + 0.025 * low) + rng.normal(0, 2.0, (side, side, 1))
    return np.clip(out, 0, 255).astype(np.uint8)


def _table_texture(kind: str, tint: tuple[float, float, float], rng: np.random.Generator,
                   px: int = 768) -> np.ndarray:
    """The tabletop's colour as a BGR picture (it tiles a square about 90 cells across)."""
    yy = np.repeat((np.arange(px, dtype=np.float32) / px)[:, None], px, axis=1)
    lowres = rng.normal(0, 1, (8, 8)).astype(np.float32)
    low = cv2.resize(lowres, (px, px), interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((px, px), dtype=np.float32)
    if kind == "wood":
        warp = cv2.resize(rng.normal(0, 1, (4, 16)).astype(np.float32), (px, px),
                          interpolation=cv2.INTER_CUBIC)
        rings = np.sin((yy * 90 + warp * 3.0 + low * 0.8) * 2.0) * 0.5 + 0.5
        streak = cv2.GaussianBlur(fine, (0, 0), sigmaX=0.5, sigmaY=px / 56) * 4
        val = 0.8 + 0.12 * rings + 0.05 * streak + 0.04 * low
        col = np.array([60, 110, 165], np.float32)  # BGR, a honey wood
        img = val[..., None] * col
    elif kind == "felt":
        col = rng.choice([np.array([60, 110, 40]), np.array([120, 70, 30]),
                          np.array([40, 40, 130]), np.array([80, 80, 80])]).astype(np.float32)
        img = (1 + 0.06 * fine[..., None] + 0.04 * low[..., None]) * col
    elif kind == "white":
        img = (232 + 3 * fine + 4 * low)[..., None] * np.ones(3, np.float32)
    elif kind == "grey":
        img = (150 + 4 * fine + 6 * low)[..., None] * np.ones(3, np.float32)
    elif kind == "dark":
        img = (40 + 4 * fine + 5 * low)[..., None] * np.array([1.0, 0.95, 0.9], np.float32)
    else:  # glossy: a smooth lacquer, white or black, nearly without texture
        img = (225 + 1.5 * fine + 2 * low)[..., None] * np.ones(3, np.float32)
    img = img * np.array(tint[::-1], np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- shaders

_VS = """
#version 330
uniform mat4 u_vp;
uniform mat4 u_light_vp;
in vec3 in_pos;
in vec3 in_nrm;
in vec2 in_uv;
out vec3 v_pos;
out vec3 v_nrm;
out vec2 v_uv;
out vec4 v_light;
void main() {
    v_pos = in_pos;
    v_nrm = in_nrm;
    v_uv = in_uv;
    v_light = u_light_vp * vec4(in_pos, 1.0);
    gl_Position = u_vp * vec4(in_pos, 1.0);
}
"""

_FS = """
#version 330
uniform sampler2D u_tex;
uniform sampler2DShadow u_shadow;
uniform int u_use_tex;
uniform vec2 u_tex_scale;
uniform vec3 u_albedo;
uniform float u_rough;
uniform float u_metal;
uniform float u_trans;
uniform float u_wash;
uniform vec3 u_eye;
uniform int u_nlights;
uniform vec3 u_lpos[4];
uniform vec3 u_lcol[4];
uniform vec3 u_sky;
uniform vec3 u_ground;
uniform float u_soft;
in vec3 v_pos;
in vec3 v_nrm;
in vec2 v_uv;
in vec4 v_light;
out vec4 frag;

const float PI = 3.14159265;

float lit_by_key() {
    vec3 p = v_light.xyz / v_light.w * 0.5 + 0.5;
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;
    float s = 0.0;
    float r = u_soft / 1024.0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            s += texture(u_shadow, vec3(p.xy + vec2(i, j) * r, p.z - 0.0015));
    return s / 9.0;
}

vec3 environment(vec3 r) {
    // the room as a mirror sees it: a bright ceiling, a dimmer ground, a window's glow
    float up = clamp(r.z * 0.5 + 0.5, 0.0, 1.0);
    vec3 c = mix(u_ground, u_sky, smoothstep(0.35, 0.75, up));
    c += u_sky * 1.5 * pow(max(dot(r, normalize(vec3(0.5, 0.3, 0.8))), 0.0), 24.0);
    return c;
}

void main() {
    // (dot products clamped to [0, 1]: rounding past 1 would make pow() of a negative NaN)
    vec3 N = normalize(v_nrm);
    vec3 V = normalize(u_eye - v_pos);
    if (dot(N, V) < 0.0) N = -N;
    vec3 base = u_albedo;
    if (u_use_tex == 1) base *= pow(texture(u_tex, v_uv * u_tex_scale).rgb, vec3(2.2));
    float a = max(u_rough * u_rough, 0.002);
    vec3 F0 = mix(vec3(0.04), base, u_metal);
    float NV = clamp(dot(N, V), 1e-3, 1.0);
    vec3 col = vec3(0.0);
    vec3 incident = vec3(0.0);
    float key = lit_by_key();
    for (int i = 0; i < u_nlights; i++) {
        vec3 L = u_lpos[i] - v_pos;
        float d2 = dot(L, L);
        L /= sqrt(d2);
        vec3 rad = u_lcol[i] / d2;
        if (i == 0) rad *= key;
        vec3 H = normalize(L + V);
        float NL = dot(N, L);
        float NH = clamp(dot(N, H), 0.0, 1.0);
        float VH = clamp(dot(V, H), 0.0, 1.0);
        float dd = NH * NH * (a * a - 1.0) + 1.0;
        float D = a * a / (PI * dd * dd);
        float k = (u_rough + 1.0) * (u_rough + 1.0) / 8.0;
        float cl = max(NL, 0.0);
        float G = (cl / (cl * (1.0 - k) + k)) * (NV / (NV * (1.0 - k) + k));
        vec3 F = F0 + (1.0 - F0) * pow(1.0 - VH, 5.0);
        vec3 spec = D * G * F / max(4.0 * cl * NV, 1e-3);
        float w = u_trans * 0.7;
        float wrap = max((NL + w) / (1.0 + w), 0.0);
        float back = pow(clamp(dot(V, -L), 0.0, 1.0), 4.0) * u_trans;
        vec3 kd = (1.0 - F) * (1.0 - u_metal);
        col += (kd * base / PI * wrap + spec * cl + base * back * 0.35) * rad;
        incident += rad * max(wrap, 0.2);
    }
    vec3 amb = mix(u_ground, u_sky, N.z * 0.5 + 0.5);
    vec3 Fa = F0 + (max(vec3(1.0 - u_rough), F0) - F0) * pow(1.0 - NV, 5.0);
    col += (1.0 - Fa) * (1.0 - u_metal) * base * amb * (1.0 + u_trans * 0.5);
    vec3 env = environment(reflect(-V, N));
    col += Fa * env * mix(1.0, 0.25, u_rough);
    // translucent plastic scatters light back out pale: a white wash under bright light
    float lum = dot(incident, vec3(0.3, 0.5, 0.2));
    col += u_wash * vec3(0.32) * lum * (0.5 + 0.5 * pow(1.0 - NV, 2.0));
    frag = vec4(col, 1.0);
}
"""

_ID_VS = """
#version 330
uniform mat4 u_vp;
in vec3 in_pos;
void main() { gl_Position = u_vp * vec4(in_pos, 1.0); }
"""

_ID_FS = """
#version 330
uniform float u_id;
out vec4 frag;
void main() { frag = vec4(u_id, 0.0, 0.0, 1.0); }
"""

_DEPTH_VS = """
#version 330
uniform mat4 u_light_vp;
in vec3 in_pos;
void main() { gl_Position = u_light_vp * vec4(in_pos, 1.0); }
"""

_DEPTH_FS = """
#version 330
void main() { }
"""

SHADOW_PX = 2048
ID_TABLE, ID_BOARD, ID_ROBOT, ID_HAND, ID_TIMER, ID_CLUTTER = 1, 2, 10, 30, 31, 32


class _GL:
    """One headless context per process, with its programs. It is opened on the first frame:
    a pool of worker processes must each render their own (a context does not survive a
    fork)."""

    _one: _GL | None = None

    def __init__(self) -> None:
        try:
            import moderngl
        except ImportError as e:
            raise Render3DError(f"the 3D renderer needs OpenGL: {INSTALL}") from e
        try:
            self.ctx = moderngl.create_standalone_context(backend="egl", require=330)
        except Exception as e:  # noqa: BLE001 - every failure to open GL says the same
            raise Render3DError(
                f"the 3D renderer cannot open a headless OpenGL context through EGL ({e}): "
                f"{INSTALL}") from e
        self.mgl = moderngl
        self.prog = self.ctx.program(vertex_shader=_VS, fragment_shader=_FS)
        self.id_prog = self.ctx.program(vertex_shader=_ID_VS, fragment_shader=_ID_FS)
        self.depth_prog = self.ctx.program(vertex_shader=_DEPTH_VS, fragment_shader=_DEPTH_FS)
        self.shadow_tex = self.ctx.depth_texture((SHADOW_PX, SHADOW_PX))
        self.shadow_tex.compare_func = "<="
        self.shadow_tex.filter = (moderngl.LINEAR, moderngl.LINEAR)
        self.shadow_fbo = self.ctx.framebuffer(depth_attachment=self.shadow_tex)
        self.white = self.ctx.texture((1, 1), 3, bytes([255, 255, 255]))
        self._fbos: dict[tuple[int, int], tuple[Any, Any, Any]] = {}

    @classmethod
    def get(cls) -> _GL:
        if cls._one is None:
            cls._one = cls()
        return cls._one

    def targets(self, size: tuple[int, int]) -> tuple[Any, Any, Any]:
        if size not in self._fbos:
            if len(self._fbos) > 2:
                for fbo in self._fbos.values():
                    for f in fbo:
                        f.release()
                self._fbos.clear()
            ctx = self.ctx
            ms = ctx.framebuffer(ctx.renderbuffer(size, 4, samples=4, dtype="f4"),
                                 ctx.depth_renderbuffer(size, samples=4))
            resolved = ctx.framebuffer(ctx.renderbuffer(size, 4, dtype="f4"))
            ids = ctx.framebuffer(ctx.renderbuffer(size, 4, dtype="f4"),
                                  ctx.depth_renderbuffer(size))
            self._fbos[size] = (ms, resolved, ids)
        return self._fbos[size]


def gl_available() -> str | None:
    """``None`` when the 3D renderer can run here, else why not (with what to install)."""
    try:
        _GL.get()
    except Render3DError as e:
        return str(e)
    return None


# ---------------------------------------------------------------- the scene's objects


@dataclass
class _Obj:
    mesh: np.ndarray
    albedo: tuple[float, float, float]
    rough: float = 0.6
    metal: float = 0.0
    trans: float = 0.0
    wash: float = 0.0
    tex: np.ndarray | None = None  # BGR uint8
    tex_scale: tuple[float, float] = (1.0, 1.0)
    ident: int = 0
    shadow: bool = True


ROBOT_LINEAR = {  # linear RGB albedo of the plastic
    "red": (0.62, 0.025, 0.03),
    "green": (0.05, 0.36, 0.06),
    "blue": (0.02, 0.07, 0.55),
    "yellow": (0.80, 0.55, 0.015),
    "black": (0.018, 0.018, 0.02),
    "silver": (0.86, 0.86, 0.84),
}
SKIN = [(0.62, 0.38, 0.27), (0.45, 0.26, 0.16), (0.25, 0.13, 0.08), (0.70, 0.50, 0.40)]


def _saturate(rgb: Any, s: float) -> tuple[float, float, float]:
    c = np.asarray(rgb, float)
    g = float(c @ np.array([0.3, 0.55, 0.15]))
    return tuple(float(v) for v in np.clip(g + (c - g) * s, 0, 1))  # type: ignore[return-value]


def _robots(pos: Position, scene: Scene3D, rng: np.random.Generator
            ) -> tuple[list[_Obj], dict[str, np.ndarray]]:
    objs: list[_Obj] = []
    bases: dict[str, np.ndarray] = {}
    board = pos.board
    profile = robot_profile(scene.robot_style, scene.robot_height, scene.robot_width, rng)
    body = _lathe(profile, 40)
    plinth = _box(0.78 * scene.robot_width, 0.78 * scene.robot_width, 0.12)
    for k, (colour, cell) in enumerate(sorted(pos.robots.items())):
        if colour not in ROBOT_LINEAR:
            continue
        f, r = board.xy(cell)
        j = rng.normal(0, scene.jitter, 2).clip(-0.15, 0.15)
        at = np.array([f + 0.5 - 8 + j[0], r + 0.5 - 8 + j[1], 0.0])
        turn = float(rng.uniform(-0.15, 0.15))
        bases[colour] = at
        metal = colour == "silver"
        albedo = ROBOT_LINEAR[colour] if metal or colour == "black" else _saturate(
            np.asarray(ROBOT_LINEAR[colour]) * rng.uniform(0.85, 1.15, 3), scene.saturation)
        mesh = _moved(body, at, turn)
        if scene.robot_style == "bullet":
            mesh = np.concatenate([mesh, _moved(plinth, at, turn)])
        trans = 0.0 if metal or colour == "black" else scene.translucency
        objs.append(_Obj(mesh, albedo, rough=0.18 if metal else float(
            np.clip(scene.robot_gloss * rng.uniform(0.8, 1.25), 0.08, 0.8)),
            metal=1.0 if metal else 0.0, trans=trans,
            wash=0.0 if metal or colour == "black" else scene.wash, ident=ID_ROBOT + k))
    return objs, bases


def _hand(scene: Scene3D, cam: _Cam) -> list[_Obj]:
    """An arm reaching in over the board from the table's edge, ending in a hand."""
    rng = np.random.default_rng([scene.hand_seed, 5])
    skin = np.asarray(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.9, 1.1)
    # where the hand hovers: over the board, not always near the centre
    tip = np.array([*rng.uniform(-7.0, 7.0, 2), rng.uniform(0.6, 3.5)])
    ang = rng.uniform(0, 2 * math.pi)
    dirn = np.array([math.cos(ang), math.sin(ang), 0.0])
    wrist = tip - dirn * 4.5 + np.array([0, 0, rng.uniform(0.3, 1.5)])
    elbow = wrist - dirn * 11 + np.array([0, 0, rng.uniform(2, 6)])
    parts = [_capsule(elbow, wrist, 1.0), _capsule(wrist, wrist + 0.3 * (tip - wrist), 0.9)]
    side = np.cross(dirn, [0, 0, 1.0])
    palm_c = wrist + dirn * 1.8 + np.array([0, 0, -0.2])
    M = np.stack([dirn, side, [0, 0, 1.0]], 1)
    parts.append(_ellipsoid(palm_c, (2.1, 1.8, 0.55), M))
    curl = rng.uniform(0.0, 1.0)
    for k, off in enumerate(np.linspace(-1.2, 1.2, 4)):
        base = palm_c + dirn * 1.8 + side * off
        length = rng.uniform(2.0, 2.8) * (0.85 if k in (0, 3) else 1.0)
        end = base + dirn * length + np.array([0, 0, -curl * 1.2])
        parts.append(_capsule(base, end, 0.36))
    thumb_base = palm_c + side * 1.6 * rng.choice([-1, 1]) - dirn * 0.3
    parts.append(_capsule(thumb_base, thumb_base + dirn * 1.5 + (thumb_base - palm_c) * 0.5,
                          0.42))
    mesh = np.concatenate(parts)
    mesh[:, 2] = np.maximum(mesh[:, 2], 0.02)  # never below the board's face
    return [_Obj(mesh, tuple(skin.clip(0, 1)), rough=0.6, trans=0.5, wash=0.05,
                 ident=ID_HAND)]


def _timer(rng: np.random.Generator) -> list[_Obj]:
    """The sand timer standing on the centre piece: black plastic ends (the game's own) or
    wooden ones, a glass, and pale sand in its lower half."""
    ends = [(0.02, 0.02, 0.025), (0.06, 0.06, 0.065), (0.35, 0.18, 0.07)][
        int(rng.choice(3, p=[0.6, 0.2, 0.2]))]
    tall = float(rng.uniform(2.2, 2.9))
    wide = float(rng.uniform(0.6, 0.8))
    objs = [
        _Obj(_lathe([(0, 0), (wide, 0), (wide * 1.04, 0.06), (wide, 0.16), (0, 0.16)], 32),
             ends, rough=0.35, ident=ID_TIMER),
        _Obj(_lathe([(0, tall - 0.16), (wide, tall - 0.16), (wide * 1.04, tall - 0.1),
                     (wide, tall), (0, tall)], 32), ends, rough=0.35, ident=ID_TIMER),
    ]
    span = tall - 0.32
    glass = [(0.0, 0.16)] + [(0.1 + (wide - 0.2) * abs(math.cos(a)) ** 0.7,
                              0.16 + span * a / math.pi)
                             for a in np.linspace(0, math.pi, 20)] + [(0.0, tall - 0.16)]
    objs.append(_Obj(_lathe(glass, 32), (0.5, 0.53, 0.55), rough=0.06, trans=0.6,
                     ident=ID_TIMER))
    fill = float(rng.uniform(0.15, 0.4))
    sand = [(0.0, 0.17), (wide - 0.25, 0.17), (0.05, 0.17 + span * fill)]
    objs.append(_Obj(_lathe(sand, 24), (0.8, 0.76, 0.62), rough=0.9, ident=ID_TIMER))
    for a in (0.0, 2.1, 4.2) if rng.random() < 0.5 else ():
        objs.append(_Obj(_capsule((wide * 0.9 * math.cos(a), wide * 0.9 * math.sin(a), 0.1),
                                  (wide * 0.9 * math.cos(a), wide * 0.9 * math.sin(a),
                                   tall - 0.1), 0.06, 8), ends, rough=0.4, ident=ID_TIMER))
    return objs


def _clutter(rng: np.random.Generator) -> list[_Obj]:
    """Cards and the game's box lying beside the board."""
    objs: list[_Obj] = []
    for _ in range(int(rng.integers(1, 5))):
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(10.5, 16)
        at = np.array([d * math.cos(ang), d * math.sin(ang), -THICK])
        card = _box(2.6, 3.6, 0.03)
        col = tuple(float(c) for c in rng.uniform(0.05, 0.8, 3))
        objs.append(_Obj(_moved(card, at, float(rng.uniform(0, math.pi))), col, rough=0.4,
                         ident=ID_CLUTTER))
    if rng.random() < 0.7:
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(17, 22)
        at = np.array([d * math.cos(ang), d * math.sin(ang), -THICK])
        col = tuple(float(c) for c in rng.uniform(0.05, 0.7, 3))
        objs.append(_Obj(_moved(_box(12, 12, rng.uniform(2, 4)), at,
                                float(rng.uniform(0, math.pi))), col, rough=0.35,
                         ident=ID_CLUTTER))
    return objs


def _lamps(scene: Scene3D, cam: _Cam) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The lamps' positions and colours (watts in cells²: a lamp's light on the board is
    about ``colour / distance²``). The first casts the shadows."""
    rng = np.random.default_rng([scene.light_seed, 3])
    warm = scene.warmth
    pos, col = [], []
    for k in range(scene.lights):
        h = rng.uniform(40, 90)
        off = rng.uniform(0, 25 if k == 0 else 40)
        a = rng.uniform(0, 2 * math.pi)
        pos.append(np.array([off * math.cos(a), off * math.sin(a), h]))
        w = warm + rng.normal(0, 0.25)
        tint = np.array([1 + 0.22 * w, 1.0, 1 - 0.3 * w]).clip(0.4, 1.6)
        power = (1.0 if k == 0 else rng.uniform(0.2, 0.7)) * (h * h + off * off)
        col.append(tint * power * 3.0)
    if scene.glare > 0:  # a lamp where the board's face mirrors it into the lens
        p = rng.uniform(-5, 5, 2)
        eye = cam.eye
        mirror = np.array([p[0] * 2 - eye[0], p[1] * 2 - eye[1], eye[2]])
        d2 = float(np.sum((mirror - [p[0], p[1], 0]) ** 2))
        pos.append(mirror)
        col.append(np.array([1.0, 0.98, 0.95]) * scene.glare * 2.0 * d2)
    if scene.flash > 0:
        eye = cam.eye
        pos.append(eye + np.array([0.0, 0.0, 0.5]))
        col.append(np.array([1.0, 1.0, 1.0]) * scene.flash * 3.0 * float(eye @ eye))
    return pos[:4], col[:4]


def _light_matrix(lamp: np.ndarray) -> np.ndarray:
    """The key lamp's view of the table, for the shadow map."""
    target = np.zeros(3)
    fwd = target - lamp
    dist = float(np.linalg.norm(fwd))
    fwd /= dist
    up = np.array([0, 1.0, 0]) if abs(fwd[1]) < 0.9 else np.array([1.0, 0, 0])
    right = np.cross(fwd, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    V = np.eye(4)
    V[:3, :3] = np.stack([right, up, -fwd])
    V[:3, 3] = -V[:3, :3] @ lamp
    half = math.atan(15.0 / dist) * 1.0
    near, far = max(dist - 25, 1.0), dist + 25
    f = 1 / math.tan(half)
    P = np.zeros((4, 4))
    P[0, 0] = P[1, 1] = f
    P[2, 2] = -(far + near) / (far - near)
    P[2, 3] = -2 * far * near / (far - near)
    P[3, 2] = -1
    return P @ V


# ---------------------------------------------------------------- drawing


def _gl_mat(M: np.ndarray) -> bytes:
    return np.asarray(M, np.float32).T.tobytes()  # column-major


def _draw(gl: _GL, objs: list[_Obj], scene: Scene3D, cam: _Cam, size: tuple[int, int],
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rasterise: the shadow map, the picture (linear RGB, float) and the object ids."""
    ctx, mgl = gl.ctx, gl.mgl
    lamps, colours = _lamps(scene, cam)
    light_vp = _light_matrix(lamps[0])
    vp = cam.gl_matrix()
    vaos = []
    try:
        textures: dict[int, Any] = {}
        for o in objs:
            vbo = ctx.buffer(np.ascontiguousarray(o.mesh, np.float32).tobytes())
            vaos.append((o, vbo,
                         ctx.vertex_array(gl.prog, [(vbo, "3f 3f 2f", "in_pos", "in_nrm",
                                                     "in_uv")]),
                         ctx.vertex_array(gl.id_prog, [(vbo, "3f 20x", "in_pos")]),
                         ctx.vertex_array(gl.depth_prog, [(vbo, "3f 20x", "in_pos")])))
            if o.tex is not None and id(o.tex) not in textures:
                rgb = np.ascontiguousarray(o.tex[..., ::-1])
                tex = ctx.texture((rgb.shape[1], rgb.shape[0]), 3, rgb.tobytes())
                tex.build_mipmaps()
                tex.filter = (mgl.LINEAR_MIPMAP_LINEAR, mgl.LINEAR)
                tex.anisotropy = 8.0
                tex.repeat_x = tex.repeat_y = True
                textures[id(o.tex)] = tex
        ctx.enable(mgl.DEPTH_TEST)
        ctx.disable(mgl.CULL_FACE)
        # the shadow map from the key lamp
        gl.shadow_fbo.use()
        gl.shadow_fbo.clear(depth=1.0)
        gl.depth_prog["u_light_vp"].write(_gl_mat(light_vp))
        for o, _, _, _, dvao in vaos:
            if o.shadow:
                dvao.render()
        ms, resolved, ids = gl.targets(size)
        ms.use()
        ms.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)
        p = gl.prog
        p["u_vp"].write(_gl_mat(vp))
        p["u_light_vp"].write(_gl_mat(light_vp))
        p["u_eye"].value = tuple(float(v) for v in cam.eye)
        p["u_nlights"].value = len(lamps)
        lp = np.zeros((4, 3), np.float32)
        lc = np.zeros((4, 3), np.float32)
        lp[:len(lamps)] = lamps
        lc[:len(lamps)] = colours
        p["u_lpos"].write(lp.tobytes())
        p["u_lcol"].write(lc.tobytes())
        key = colours[0] / float(np.sum(lamps[0] ** 2))
        tint = key / key.mean()
        p["u_sky"].value = tuple(float(v) for v in tint * scene.ambient * 1.0)
        p["u_ground"].value = tuple(float(v) for v in tint * scene.ambient * 0.35)
        p["u_soft"].value = float(scene.shadow_soft)
        gl.shadow_tex.use(location=1)
        p["u_shadow"].value = 1
        p["u_tex"].value = 0
        for o, _, vao, _, _ in vaos:
            if o.tex is not None:
                textures[id(o.tex)].use(location=0)
                p["u_use_tex"].value = 1
            else:
                gl.white.use(location=0)
                p["u_use_tex"].value = 0
            p["u_tex_scale"].value = o.tex_scale
            p["u_albedo"].value = tuple(float(c) for c in o.albedo)
            p["u_rough"].value = float(o.rough)
            p["u_metal"].value = float(o.metal)
            p["u_trans"].value = float(o.trans)
            p["u_wash"].value = float(o.wash)
            vao.render()
        ctx.copy_framebuffer(resolved, ms)
        W, H = size
        img = np.frombuffer(resolved.read(components=3, dtype="f4"), np.float32)
        img = img.reshape(H, W, 3)[::-1]
        # the object ids, unblended
        ids.use()
        ids.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
        gl.id_prog["u_vp"].write(_gl_mat(vp))
        for o, _, _, ivao, _ in vaos:
            gl.id_prog["u_id"].value = float(o.ident)
            ivao.render()
        idmap = np.frombuffer(ids.read(components=1, dtype="f4"), np.float32)
        idmap = np.rint(idmap.reshape(H, W)[::-1]).astype(np.int32)
        for tex in textures.values():
            tex.release()
    finally:
        for _, vbo, vao, ivao, dvao in vaos:
            for x in (vao, ivao, dvao, vbo):
                x.release()
    return img, idmap


# ---------------------------------------------------------------- the sensor


_CURVE = (np.linspace(0, 1, 4096, dtype=np.float32) ** (1 / 2.2) * 255).astype(np.float32)


def _develop(img: np.ndarray, idmap: np.ndarray, scene: Scene3D, rng: np.random.Generator
             ) -> np.ndarray:
    """Linear light → an 8-bit BGR picture: exposure, white balance, haze, vignette, tone
    curve, blur, noise and JPEG."""
    H, W = img.shape[:2]
    img = np.nan_to_num(img, nan=0.0, posinf=0.0, neginf=0.0)
    board = (idmap == ID_BOARD)[::4, ::4]
    sample = img[::4, ::4]
    lum = sample[board].mean(axis=1) if board.sum() > 50 else sample.mean(axis=2).ravel()
    ref = float(np.percentile(lum, 75))
    gain = (0.62 / max(ref, 1e-6)) * scene.exposure * np.asarray(scene.white_balance[::-1],
                                                                 np.float32)
    xs = ((np.arange(W, dtype=np.float32) - W / 2) / math.hypot(W / 2, H / 2)) ** 2
    ys = ((np.arange(H, dtype=np.float32) - H / 2) / math.hypot(W / 2, H / 2)) ** 2
    fall = 1 - scene.vignette * (ys[:, None] + xs[None, :])
    x = img * fall[..., None] * gain.astype(np.float32)
    if scene.haze > 0:
        g = (np.linspace(0, 1, W, dtype=np.float32)[None, :] * rng.uniform(-0.5, 0.5)
             + np.linspace(0, 1, H, dtype=np.float32)[:, None] * rng.uniform(-0.5, 0.5))
        veil = (0.5 + 0.5 * g)[..., None] * np.array([1.0, 1.0, 1.02], np.float32)
        x = x * np.float32(1 - 0.5 * scene.haze) + veil * np.float32(scene.haze)
    # bloom: bright highlights bleed into their surroundings
    bright = np.clip(x - 1.0, 0, None)
    if bright.max() > 0:
        small = cv2.resize(bright, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigmaX=max(W, H) / 480)
        x = x + cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR) * np.float32(0.6)
    # a filmic shoulder and the sRGB curve, through a table
    x = x / (1 + 0.18 * x)
    idx = np.clip(x * np.float32(1.18 * 4095), 0, 4095).astype(np.uint16)
    out = _CURVE[idx[..., ::-1]]  # BGR, 0…255 as float32
    if scene.blur > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigmaX=scene.blur)
    if scene.noise > 0:
        amp = np.sqrt(np.clip(out, 1, 255) * np.float32(1 / 255)) * np.float32(
            0.6 * scene.noise) + np.float32(0.4 * scene.noise)
        out = out + rng.standard_normal(out.shape, dtype=np.float32) * amp
    pic = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    if scene.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", pic, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg)])
        pic = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return pic


# ---------------------------------------------------------------- the frame


_SAMPLES = np.array([(a, b) for a in (0.2, 0.5, 0.8) for b in (0.2, 0.5, 0.8)])


def _as_position(position: Position | Mapping[str, Any]) -> Position:
    return position if isinstance(position, Position) else Position.from_dict(dict(position))


def scene_of(scene: Scene3D | None, options: Mapping[str, Any]) -> Scene3D:
    """``scene`` (or the default) with ``options`` set by name; unknown names are refused."""
    base = scene or Scene3D()
    known = {f.name for f in fields(Scene3D)}
    bad = sorted(set(options) - known)
    if bad:
        raise Render3DError(f"render3d: unknown scene option(s) {', '.join(bad)} "
                            f"(known: {', '.join(sorted(known))})")
    if "table" in options and options["table"] not in TABLES:
        raise Render3DError(f"render3d: table {options['table']!r} is not one of "
                            f"{', '.join(TABLES)}")
    return replace(base, **options)


def render3d(position: Position | Mapping[str, Any], *, seed: int = 0,
             size: tuple[int, int] = (1280, 960), scene: Scene3D | None = None,
             **options: Any) -> Frame3D:
    """Render ``position`` seen as ``scene`` (the default, top-down, when none) with
    ``options`` over it (``tilt=30, table="felt"`` …). The same seed, scene and size give the
    same picture."""
    import time

    t0 = time.perf_counter()
    pos = _as_position(position)
    scene = scene_of(scene, options)
    board = pos.board
    W, H = int(size[0]), int(size[1])
    if W < 16 or H < 16:
        raise Render3DError("render3d: the picture must be at least 16×16 pixels")
    rng = np.random.default_rng([seed, 1])
    gl = _GL.get()
    cam = _camera(scene, (W, H))
    objs: list[_Obj] = []
    # the table: a large textured square just under the board
    table_tex = _table_texture(scene.table, scene.table_tint, np.random.default_rng([seed, 2]))
    glossy = scene.table == "glossy"
    table = _box(400, 400, 1.0, z0=-THICK - 1.0)
    objs.append(_Obj(table, (1.0, 1.0, 1.0), rough=0.08 if glossy else
                     {"felt": 0.95, "wood": 0.45}.get(scene.table, 0.6), tex=table_tex,
                     tex_scale=(400 / 90, 400 / 90), ident=ID_TABLE, shadow=True))
    # the board: a thin slab with its print on top and dark edges
    side = 16 + 2 * FRAME_W
    tex = print_texture(board, scene.print_seed)
    slab = _box(side, side, THICK, z0=-THICK)
    top = slab[:6].copy()
    top[:, 2] += 1e-4
    objs.append(_Obj(top, (1.0, 1.0, 1.0), rough=scene.gloss, tex=tex, ident=ID_BOARD))
    objs.append(_Obj(slab[6:], (0.06, 0.06, 0.065), rough=0.5, ident=ID_BOARD))
    robots, bases = _robots(pos, scene, rng)
    objs += robots
    if scene.timer:
        objs += _timer(np.random.default_rng([seed, 7]))
    if scene.clutter:
        objs += _clutter(np.random.default_rng([seed, 4]))
    if scene.hand:
        objs += _hand(scene, cam)
    linear, idmap = _draw(gl, objs, scene, cam, (W, H), rng)
    image = _develop(linear, idmap, scene, np.random.default_rng([seed, 6]))
    # the truth
    grid = np.array([[-8, 8, 0], [8, 8, 0], [8, -8, 0], [-8, -8, 0]], float)
    corners = cam.project(grid)
    # board plane (u, v) → world (x, y) = (u - 8, 8 - v) → pixels
    B = np.array([[1.0, 0, -8], [0, -1.0, 8], [0, 0, 1]])
    Hw = cam.K @ np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.t])
    Hb = Hw @ B
    Hb /= Hb[2, 2]
    occl = (idmap == ID_HAND) | (idmap == ID_TIMER)
    hand_px = idmap == ID_HAND
    hidden = _covered(board, Hb, occl, W, H)
    by_hand = _covered(board, Hb, hand_px, W, H)
    robot_id = {ID_ROBOT + k: c for k, c in enumerate(sorted(pos.robots))}
    robot_pixels = {}
    height = scene.robot_height
    for colour, at in bases.items():
        px = cam.project([at, at + [0, 0, height]])
        robot_pixels[colour] = {"base": (float(px[0, 0]), float(px[0, 1])),
                                "top": (float(px[1, 0]), float(px[1, 1]))}
    in_frame = bool(np.all((corners >= 0) & (corners <= [W - 1, H - 1])))
    return Frame3D(
        image=image, corners=corners, homography=Hb,
        robots={c: pos.robots[c] for c in bases},
        robot_pixels=robot_pixels, tiles=board.tiles,
        occluded=bool(by_hand) or bool(hidden & {pos.robots[c] for c in bases}),
        hidden_cells=hidden, occluder_mask=(occl * 255).astype(np.uint8),
        robot_mask=(((idmap >= ID_ROBOT) & (idmap < ID_ROBOT + len(robot_id))) * 255
                    ).astype(np.uint8),
        in_frame=in_frame, board=board, scene=scene, camera_matrix=cam.K,
        rvec=cv2.Rodrigues(cam.R)[0].ravel(), tvec=cam.t.copy(),
        ms=(time.perf_counter() - t0) * 1000)


def _covered(board: Board, Hb: np.ndarray, mask: np.ndarray, W: int, H: int
             ) -> frozenset[Cell]:
    """Cells of which ``mask`` covers a quarter or more (3 of 9 sample points)."""
    if not mask.any():
        return frozenset()
    cells = [c for c in board.cells() if c not in board.blocked]
    uv = np.array([(board.xy(c)[0] + 0.0, board.height - 1 - board.xy(c)[1] + 0.0)
                   for c in cells])
    pts = (uv[:, None, :] + _SAMPLES[None]).reshape(-1, 1, 2)
    px = cv2.perspectiveTransform(pts, Hb).reshape(len(cells), len(_SAMPLES), 2)
    xi = np.rint(px[..., 0]).astype(int)
    yi = np.rint(px[..., 1]).astype(int)
    inside = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    hit = np.zeros(inside.shape, bool)
    hit[inside] = mask[yi[inside], xi[inside]]
    return frozenset(c for c, h in zip(cells, hit.sum(axis=1) >= 3, strict=True) if h)


def random_frame(seed: int, *, size: tuple[int, int] = (1280, 960), hands: float = 0.2,
                 fifth: bool | None = None, **scene_kw: Any) -> Frame3D:
    """A frame drawn wholly from ``seed``: a random position (a fifth robot, black or silver,
    on a third of the boards unless ``fifth`` says) and a random scene."""
    rng = np.random.default_rng([seed, 9])
    extra: tuple[str, ...] = ()
    want = rng.random() < 1 / 3 if fifth is None else fifth
    pick = str(rng.choice(["black", "silver"]))
    if want:
        extra = (pick,)
    pos = random_position3d(rng, robots=(*COLORS, *extra))
    scene = Scene3D.random(rng, hands=hands, **scene_kw)
    return render3d(pos, seed=seed, size=size, scene=scene)


__all__ = [
    "FRAME_W", "INSTALL", "ROBOTS", "TABLES", "Frame3D", "Render3DError", "Scene3D",
    "gl_available", "print_texture", "random_frame", "random_position3d", "random_scene",
    "render3d", "robot_profile",
]
