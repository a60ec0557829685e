"""The Micro Robots table as a camera above it sees it, with the truth beside it.

>>> from companion.micro import example_layout
>>> shot = render_micro(example_layout(), "pink1", seed=3, tilt=20, rotation=35, noise=4)
>>> shot.image.shape, shot.robot.name
((960, 1280, 3), 'pink1')

The board is printed from a :class:`~companion.micro.Layout` in the look of
:mod:`companion.vision.micro_look` (every guess about the real print lives there); camera,
light, table, robot, hands, markers, lens and sensor are the classic renderer's own
(:func:`companion.vision.render.shoot`, with the same :class:`~companion.vision.render.Scene`),
so a Micro Robots frame varies exactly as a classic one does.

Coordinates
-----------
* **Board plane** ``(u, v)`` in *spaces*: ``u`` from the layout's left edge rightwards, ``v``
  from its top row downwards (the layout's rows as the page draws them). Space ``(row r,
  column c)`` spans ``u ∈ [c, c + 1], v ∈ [r, r + 1]``; its die face is centred there.
* ``MicroShot.homography`` maps ``(u, v, 1)`` to image pixels (the undistorted picture when
  the lens distorts, as in the classic renderer); ``corners`` are the grid's ``(0, 0), (6, 0),
  (6, 6), (0, 6)`` in the picture as rendered: the top-left of the layout first, clockwise.
* Physical sizes (robot, hands, markers) are the classic renderer's, in 25 mm cells; a space
  is :attr:`Look.space_mm` long.

Each section's print is turned as the section lies (``turns``: quarter turns clockwise of the
north-west, north-east, south-east and south-west sections); by default a fixed function of
the layout, so every frame of one table shows the same board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from ..micro import SECTION, SECTION_ORIGINS, SIZE, Layout, Space
from .micro_look import LOOK, Look, die_image, face_image
from .render import CELL_MM, Scene, scene_with, shoot, squares_covered

PX_SPACE = 64  # texture pixels per space


@dataclass
class MicroShot:
    """A rendered Micro Robots frame and the truth about it."""

    image: np.ndarray  # BGR uint8, H×W×3
    layout: Layout
    robot: Space | None  # where the robot stands (None: off the board)
    corners: np.ndarray  # 4×2: the grid's corners, top-left of the layout first, clockwise
    homography: np.ndarray  # 3×3: board plane (u, v) in spaces → image pixels
    robot_pixels: dict[str, tuple[float, float]] | None  # {"base": (x, y), "top": (x, y)}
    occluded: bool  # a hand or arm covers a quarter of a face or more
    hidden: frozenset[Space]  # the faces a hand or arm covers (a quarter or more)
    occluder_mask: np.ndarray  # H×W uint8, 255 where a hand or arm is
    robot_mask: np.ndarray  # H×W uint8, 255 where the robot's body is seen
    markers: dict[int, np.ndarray]  # marker id → 4×2 image corners
    in_frame: bool  # all four grid corners lie inside the picture
    scene: Scene
    look: Look
    turns: tuple[int, int, int, int]  # each section's print, quarter turns clockwise
    dice: tuple[str, int] | None  # what the colour die and the number die show
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray

    def space_centre(self, space: Space | str) -> tuple[float, float]:
        """Where a face's centre appears in the image (lens distortion included)."""
        r, c = self.layout.where(Space.parse(space))
        return self.to_image([(c + 0.5, r + 0.5)])[0]

    def to_image(self, uv: Any) -> list[tuple[float, float]]:
        """Board-plane points (spaces) → image pixels, lens distortion included."""
        from .render import _distort

        pts = np.asarray(uv, dtype=np.float64).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        out = _distort(ideal, self.camera_matrix, self.dist_coeffs)
        return [(float(x), float(y)) for x, y in out]


def default_turns(layout: Layout) -> tuple[int, int, int, int]:
    """How each section's print is turned when the caller does not say: fixed per layout."""
    return tuple(sum(s.index for row in sec for s in row) % 4  # type: ignore[return-value]
                 for sec in layout.sections())


def _section_of(r: int, c: int) -> int:
    for k, (r0, c0) in enumerate(SECTION_ORIGINS):
        if r0 <= r < r0 + SECTION and c0 <= c < c0 + SECTION:
            return k
    raise ValueError((r, c))  # pragma: no cover - every space lies in a section


def _traces(img: np.ndarray, look: Look, rng: np.random.Generator) -> None:
    """Thin circuit lines along the lanes between the faces, with round pads: the mainboard
    the rule sheet's story speaks of."""
    P = PX_SPACE
    off = look.rim * P
    n = SIZE
    for _ in range(26):
        horizontal = rng.random() < 0.5
        lane = int(rng.integers(0, n + 1))
        a, b = sorted(rng.integers(0, n + 1, 2))
        if a == b:
            b = a + 1
        jog = rng.uniform(-0.06, 0.06)
        if horizontal:
            y = off + (lane + jog) * P
            p0, p1 = (off + a * P, y), (off + b * P, y)
        else:
            x = off + (lane + jog) * P
            p0, p1 = (x, off + a * P), (x, off + b * P)
        cv2.line(img, (int(p0[0] * 16), int(p0[1] * 16)), (int(p1[0] * 16), int(p1[1] * 16)),
                 look.trace, max(1, P // 40), cv2.LINE_AA, 4)
        for q in (p0, p1):
            cv2.circle(img, (int(q[0] * 16), int(q[1] * 16)), int(P * 0.045 * 16), look.trace,
                       -1, cv2.LINE_AA, 4)


@lru_cache(maxsize=16)
def board_print(layout: Layout, turns: tuple[int, int, int, int], look: Look = LOOK
                ) -> np.ndarray:
    """The board seen from straight above, :data:`PX_SPACE` pixels a space, its rim
    included: pixel ``((u + rim)·PX − 0.5, (v + rim)·PX − 0.5)`` is board-plane point
    ``(u, v)``. Cached: a table's board does not change during a game."""
    P = PX_SPACE
    side = int(round((SIZE + 2 * look.rim) * P))
    img = np.empty((side, side, 3), np.uint8)
    img[:] = look.background
    _traces(img, look, np.random.default_rng(sum(s.index * (i + 1) for i, s in
                                                 enumerate(r for row in layout.rows
                                                           for r in row)) % 1000))
    fpx = int(round(look.face * P))
    for r, row in enumerate(layout.rows):
        for c, space in enumerate(row):
            turn = turns[_section_of(r, c)]
            face = face_image(space.color, space.number, fpx, turn, look)
            x0 = int(round((look.rim + c + 0.5) * P - fpx / 2))
            y0 = int(round((look.rim + r + 0.5) * P - fpx / 2))
            # keep the background at the rounded corners: paste where the face is not it
            region = img[y0:y0 + fpx, x0:x0 + fpx]
            differs = np.any(face != np.array(look.background, np.uint8), axis=2)
            region[differs] = face[differs]
    seam = max(1, int(round(look.seam * P)))
    mid = int(round((look.rim + SECTION) * P)) - seam // 2
    img[mid:mid + seam, :] = look.seam_colour
    img[:, mid:mid + seam] = look.seam_colour
    img.flags.writeable = False
    return img


def _dice(look: Look, dice: tuple[str, int], rng: np.random.Generator, k: float
          ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The two dice lying on the table beside the board, as flat things for ``shoot``."""
    px = 48
    size = look.die_mm / CELL_MM  # in cells
    out = []
    side = int(rng.integers(0, 4))
    along = rng.uniform(0.15, 0.65)
    for i, (img, mask) in enumerate((die_image(px, colour=dice[0], look=look),
                                     die_image(px, number=dice[1], look=look))):
        t = (along + 0.22 * i) * SIZE * k
        gap = (look.rim + rng.uniform(0.7, 1.4)) * k
        far = SIZE * k + gap
        centre = ((t, -gap), (far, t), (t, far), (-gap, t))[side]
        a = rng.uniform(0, 2 * np.pi)
        s = size / px
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
        shift = np.array(centre) - R @ np.array([(px - 1) / 2, (px - 1) / 2])
        M = np.array([[R[0, 0], R[0, 1], shift[0]], [R[1, 0], R[1, 1], shift[1]], [0, 0, 1]])
        out.append((img, M, mask))
    return out


def render_micro(
    layout: Layout,
    robot: Space | str | None,
    *,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    scene: Scene | None = None,
    noise_seed: int | None = None,
    look: Look = LOOK,
    turns: tuple[int, int, int, int] | None = None,
    dice: tuple[str, int] | None = None,
    **options: Any,
) -> MicroShot:
    """Render a Micro Robots table: ``layout`` on the table, the robot on the space
    ``robot`` (``None``: not on the board), the two dice beside it showing ``dice``
    (``("red", 4)``) when given.

    ``scene`` and any :class:`~companion.vision.render.Scene` field as a keyword
    (``tilt=25, hands=1``) set camera, light, table and hands, exactly as for the classic
    :func:`~companion.vision.render.render`; the same arguments always give the same image."""
    scene = scene_with(scene, options)
    where = None
    if robot is not None:
        robot = Space.parse(robot)
        where = layout.where(robot)
    turns = default_turns(layout) if turns is None else tuple(int(t) % 4 for t in turns)
    if len(turns) != 4:
        raise ValueError("turns: one quarter-turn count per section (four)")
    k = look.space_mm / CELL_MM  # cells per space: the scene machinery works in cells
    robots = {}
    if where is not None:
        r, c = where
        robots[look.robot] = ((c + 0.5) * k, (r + 0.5) * k)
    extras = _dice(look, dice, np.random.default_rng([seed, 7]), k) if dice else ()
    centres = np.array([((c + 0.5) * k, (r + 0.5) * k)
                        for r in range(SIZE) for c in range(SIZE)])

    def covered(Hb: np.ndarray, occl: np.ndarray) -> frozenset[Space]:
        hit = squares_covered(centres, look.face * k, Hb, occl)
        return frozenset(layout.rows[i // SIZE][i % SIZE] for i in np.flatnonzero(hit))

    shot = shoot(board_print(layout, turns, look), (SIZE * k, SIZE * k), robots=robots,
                 scene=scene, seed=seed, size=size, noise_seed=noise_seed,
                 px=PX_SPACE / k, border=look.rim * k, extras=extras, covered=covered)
    to_spaces = np.diag([k, k, 1.0])
    pixels = shot.robot_pixels.get(look.robot)
    return MicroShot(
        image=shot.image, layout=layout, robot=robot, corners=shot.corners,
        homography=shot.homography @ to_spaces, robot_pixels=pixels,
        occluded=bool(shot.hidden), hidden=shot.hidden, occluder_mask=shot.occluder_mask,
        robot_mask=shot.robot_mask, markers=shot.markers, in_frame=shot.in_frame, scene=scene,
        look=look, turns=turns, dice=None if dice is None else (dice[0], int(dice[1])),
        camera_matrix=shot.camera_matrix, dist_coeffs=shot.dist_coeffs,
    )


def random_layout(seed: int | np.random.Generator, name: str = "") -> Layout:
    """A random valid layout: the 36 spaces in any order (the real sections fix some of the
    order, which is not known to us, so any order is allowed)."""
    from ..micro import ALL_SPACES

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    order = rng.permutation(len(ALL_SPACES))
    spaces = [ALL_SPACES[int(i)] for i in order]
    return Layout(tuple(tuple(spaces[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)), name)


__all__ = ["PX_SPACE", "MicroShot", "board_print", "default_turns", "random_layout",
           "render_micro"]
