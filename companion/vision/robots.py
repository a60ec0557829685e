"""Robots: which cell each robot stands on.

A robot is a tall piece. Seen at an angle its top leans away from the camera over the cells
behind it, so the colour blob's centre is the wrong cell. Instead every candidate cell is
*tested with a model of a robot standing there*: the camera recovered from the board
(:class:`~companion.vision.locate.Camera`) projects points up the robot's axis from that cell's
centre, and points on the floor just in front of its base (between it and the camera). The robot
is on the cell where its colour covers the body points while the floor in front is clear:

* the cell behind the true one sees the robot's colour over its body points too (hidden by the
  robot), but its floor in front is the robot's base — penalised;
* the cell in front sees the floor, not the robot, over its lower body points;
* a target square of the robot's colour is flat: it colours a cell's lowest points only.

Colours are soft memberships from the table's :class:`~companion.vision.colours.Profile`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from ..board import DOWN, LEFT, RIGHT, UP, Board
from .colours import Profile, balanced_lab, cell_lightness, white_of
from .locate import GRID, Location, quadrant_cells

# A robot in cell units: about 1.4 cells tall, its base about 0.75 of a cell across.
ROBOT_HEIGHT = 1.4
ROBOT_RADIUS = 0.36
WORK_SIZE = 640  # frames are read at most this many pixels across
PRESENT = 0.45  # a robot is reported only above this score
# … silver above this one: it looks more like the print than any other robot (a dark print
# square can reach 0.55, a shadow more where the print is not compared), and a robot missed
# is safer than a robot seen where none stands
PRESENT_SILVER = 0.58
# … or above the plain one where the print is compared and no other cell comes near it: a
# dim, noisy frame takes the polish off a silver robot, never the lead it has over the print
SILVER_LEAD = 0.3
COLOURLESS = ("black", "silver")  # robots told from the print by lightness alone
# A reading is doubtful — the robot is said to be not seen, never put on a guessed cell — when
# another cell away from it scores within this of its best …
DOUBT_LEAD = 0.1
# … or it is weak (below the first) and another cell comes within the second …
DOUBT_WEAK, DOUBT_WEAK_LEAD = 0.6, 0.2
# … or its cell looks this much (score over score) like another robot's colour: a dark blue
# robot over a black one's, a pale yellow one under haze over a green one's. Measured on
# renders and real photos: a robot rightly read stays under 0.2, the wrong ones above 0.5.
DOUBT_ALIKE = 0.35


@dataclass(frozen=True)
class RobotHit:
    """A robot found on grid cell ``(col, row)`` (row 0 at grid ``v = 0``)."""

    colour: str
    col: int
    row: int
    score: float
    margin: float  # score minus the best score on a cell not next to this one
    doubt: str | None = None  # why the reading is not to be trusted (then: not seen)


@dataclass
class Frame:
    """One frame prepared for reading: smoothed, shrunk, and the board's white measured."""

    image: np.ndarray  # working-size BGR, float32, lightly smoothed
    scale: float  # working pixels per input pixel
    white: np.ndarray  # BGR of the surface
    lab: np.ndarray | None = None  # balanced Lab of ``image`` (computed on demand)
    lift: np.ndarray | None = None  # (16, 16) the board's usual light over the light per cell

    def lab_at(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Balanced Lab at ``(..., 2)`` input-pixel points, and which points are in the frame."""
        h, w = self.image.shape[:2]
        p = np.asarray(xy) * self.scale
        x = np.rint(p[..., 0]).astype(np.int64)
        y = np.rint(p[..., 1]).astype(np.int64)
        ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        x = np.clip(x, 0, w - 1)
        y = np.clip(y, 0, h - 1)
        bgr = self.image[y, x]
        return balanced_lab(bgr, self.white), ok


def prepare(image: np.ndarray, loc: Location) -> Frame:
    """Shrink and smooth a frame once for every reader that samples it, and measure the
    board's white and how the light falls across it."""
    h, w = image.shape[:2]
    scale = min(1.0, WORK_SIZE / max(h, w))
    small, left = image, scale
    while left <= 0.5:  # exact halvings (OpenCV's fast path), then bilinear under 2:1
        hh, ww = small.shape[0] // 2 * 2, small.shape[1] // 2 * 2
        small = cv2.resize(small[:hh, :ww], (ww // 2, hh // 2), interpolation=cv2.INTER_AREA)
        left *= 2
    if left < 1.0:
        small = cv2.resize(small, (round(w * scale), round(h * scale)),
                           interpolation=cv2.INTER_LINEAR)
    small = cv2.blur(small, (3, 3)).astype(np.float32)
    rect = loc.warp(image, 6)
    white = white_of(rect)
    cell_l = cell_lightness(balanced_lab(cv2.blur(rect, (3, 3)), white)[..., 0])
    # the light around each cell: a median over 5×5 cells passes over a robot, its shadow or
    # a dark symbol, and follows a lamp's fall-off into the board's corners
    near = cv2.medianBlur(cell_l, 5)
    lift = np.clip(float(np.median(near)) / np.maximum(near, 1.0), 0.7, 3.0)
    return Frame(image=small, scale=scale, white=white, lift=lift)


def _cell_centres() -> np.ndarray:
    rows, cols = np.mgrid[0:GRID, 0:GRID]
    return np.stack([cols.ravel() + 0.5, rows.ravel() + 0.5], axis=1)  # (256, 2) as (u, v)


_CENTRES = _cell_centres()
_BLOCK = {(7, 7), (8, 7), (7, 8), (8, 8)}  # the centre piece, whichever way the board lies
_BODY_Z = np.array([0.12, 0.3, 0.5, 0.7, 0.9, 1.1]) * (ROBOT_HEIGHT / 1.4)
_BODY_LAT = (-0.18, 0.0, 0.18)
_FRONT_LAT = (-0.22, 0.0, 0.22)
_FRONT_DIST = 0.7
# Round the foot, just inside its edge: a robot covers it, a flat target symbol does not.
_RING_R = 0.30
_RING_ANGLES = np.arange(6) * np.pi / 3 + np.pi / 6


def _directions(loc: Location, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors on the board, per cell: away from the camera's foot, and across it."""
    foot = loc.camera.centre[:2]
    d = centres - foot
    n = np.linalg.norm(d, axis=1, keepdims=True)
    # Right under the camera there is no "away": any direction will do, parallax is nil.
    d = np.where(n > 1e-6, d / np.maximum(n, 1e-6), np.array([0.0, 1.0]))
    perp = np.stack([-d[:, 1], d[:, 0]], axis=1)
    return d, perp


def sample_points(loc: Location, centres: np.ndarray = _CENTRES) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions of the body points ``(N, B, 2)`` and floor points ``(N, F, 2)``."""
    away, perp = _directions(loc, centres)
    body = []
    for z in _BODY_Z:
        for lat in _BODY_LAT:
            if lat and z > 0.8:
                continue  # the piece narrows towards its top
            g = centres + lat * perp
            body.append(np.column_stack([g, np.full(len(g), z)]))
    front = []
    for lat in _FRONT_LAT:
        g = centres - _FRONT_DIST * away + lat * perp
        front.append(np.column_stack([g, np.zeros(len(g))]))
    for a in _RING_ANGLES:
        g = centres + _RING_R * (np.cos(a) * away + np.sin(a) * perp)
        body.append(np.column_stack([g, np.full(len(g), 0.06)]))
    B = np.stack(body, axis=1)
    F = np.stack(front, axis=1)
    return loc.camera.project(B), loc.camera.project(F)


N_RING = len(_RING_ANGLES)  # the last body points are the foot ring


def _on_board(loc: Location, xy: np.ndarray, margin: float = 0.25) -> np.ndarray:
    g = loc.to_grid(xy)
    return ((g[..., 0] > -margin) & (g[..., 0] < GRID + margin)
            & (g[..., 1] > -margin) & (g[..., 1] < GRID + margin))


def _front_cells(loc: Location) -> np.ndarray:
    """Per cell, the index of the neighbouring cell towards the camera (-1 off the board, or
    on the centre piece, where no robot can stand to hide it)."""
    away, _ = _directions(loc, _CENTRES)
    g = np.floor(_CENTRES - away).astype(int)
    ok = (g[:, 0] >= 0) & (g[:, 0] < GRID) & (g[:, 1] >= 0) & (g[:, 1] < GRID)
    idx = g[:, 1] * GRID + g[:, 0]
    same = idx == np.arange(len(idx))
    block = np.isin(idx, [r * GRID + c for c, r in _BLOCK])
    return np.where(ok & ~same & ~block, idx, -1)


def _lean(loc: Location, centres: np.ndarray) -> np.ndarray:
    """How far (cells) the top of a robot standing at each of ``centres`` is seen past its
    base, away from the camera: its parallax."""
    foot, height = loc.camera.centre[:2], float(loc.camera.centre[2])
    return (np.linalg.norm(centres - foot, axis=-1) * ROBOT_HEIGHT
            / max(height - ROBOT_HEIGHT, 1e-6))


def _hideable(loc: Location, front_cell: np.ndarray) -> np.ndarray:
    """Per cell, the share of its foot ring that a robot standing on the cell in front could
    hide from the camera. A robot hides the floor only as far as its top leans away from the
    camera (its parallax): seen from nearly straight above, none of a neighbour's foot."""
    away, perp = _directions(loc, _CENTRES)
    f = np.maximum(front_cell, 0)
    base = _CENTRES[f]
    top = base + away[f] * _lean(loc, base)[:, None]  # where its top is seen, on the floor
    ring = (_CENTRES[:, None, :] + _RING_R * (np.cos(_RING_ANGLES)[None, :, None] * away[:, None]
                                            + np.sin(_RING_ANGLES)[None, :, None] * perp[:, None]))
    seg = (top - base)[:, None, :]
    t = np.clip(((ring - base[:, None]) * seg).sum(-1) / np.maximum((seg * seg).sum(-1), 1e-9),
                0.0, 1.0)
    gap = np.linalg.norm(ring - (base[:, None] + t[..., None] * seg), axis=-1)
    return np.where(front_cell >= 0, (gap < ROBOT_RADIUS).mean(axis=1), 0.0)


def score_cells(frame: Frame, loc: Location, profile: Profile,
                view: PrintView | None = None) -> dict[str, np.ndarray]:
    """Per robot colour, a ``(16, 16)`` score array (row, col) of "a robot stands here".

    With ``view``, what the board's print shows in this location's grid (:func:`see_print`),
    the colourless robots are judged by the print too: none stands where a cell shows its
    print, or is only darkened evenly (a shadow is as dark and colourless as they are), and
    their body points that fall on dark print (the vortex's square, the board's frame) say
    nothing."""
    bxy, fxy = sample_points(loc)
    blab, bok = frame.lab_at(bxy)
    flab, fok = frame.lab_at(fxy)
    bok &= _on_board(loc, bxy)
    fok &= _on_board(loc, fxy, margin=0.0)
    lift = frame.lift.reshape(-1, 1) if frame.lift is not None else None
    bm = profile.membership(blab, lift)
    fm = profile.membership(flab, lift)
    front_cell = _front_cells(loc)
    hideable = _hideable(loc, front_cell)
    if view is not None:
        on_print = bok & ~view.dark_at(loc.to_grid(bxy))
        shade = view.shade()
    out = {}
    for colour in bm:
        judged = view is not None and colour in COLOURLESS
        ok = on_print if judged else bok
        b = np.where(ok, bm[colour], 0.0)
        nb = ok[:, :-N_RING].sum(axis=1)
        body = b[:, :-N_RING].sum(axis=1) / np.maximum(nb, 1)
        # The foot may be hidden behind another robot standing in front: that counts too.
        others = [bm[c] for c in bm if c != colour]
        cover = np.maximum(bm[colour], np.max(others, axis=0)) if others else bm[colour]
        rb = np.where(ok, cover, 0.0)[:, -N_RING:]
        nr = ok[:, -N_RING:].sum(axis=1)
        ring = rb.sum(axis=1) / np.maximum(nr, 1)
        body = np.minimum(body, np.where(nr > 0, ring, body))
        if judged:
            body = body * shade
        f = np.where(fok, fm[colour], 0.0)
        nf = fok.sum(axis=1)
        front = f.sum(axis=1) / np.maximum(nf, 1)
        # The colour on the floor in front only counts against a cell when the cell in front
        # holds a standing robot itself, tall enough from here to hide this one's foot: then
        # this cell is merely hidden behind it (a flat target of the same colour in front, or
        # a shadow, says nothing).
        ahead = np.where(front_cell >= 0, body[np.maximum(front_cell, 0)], 0.0)
        s = body - front * ahead * hideable
        if colour == "silver":
            # A colourless robot hides the print it stands on: colour seen over its body and
            # foot says it is not there (the vortex's dark square with its coloured spiral).
            tint = np.where(bok, np.hypot(blab[..., 1], blab[..., 2]) > 10, False)
            s -= 2.0 * np.maximum(tint.sum(axis=1) / np.maximum(bok.sum(axis=1), 1) - 0.05, 0)
        s[nb < 4] = 0.0
        s = s.reshape(GRID, GRID)
        for c, r in _BLOCK:
            s[r, c] = -1.0
        out[colour] = s
    return out


# Where the principal point of a cropped picture may lie, as shares of its width and height off
# its centre: the board's homography cannot tell (see camera_from_homography), the robots can.
# Searched coarse (the first step) then fine (the second) round the best, out to their sum.
PRINCIPAL_STEPS = (0.3, 0.15)
# The robots must stand this much better (their best scores summed) on another principal point
# before the picture's centre is given up …
REFIT_GAIN = 0.15
# … which is not looked for while every robot seen stands this well under the centre's camera.
FIT_SURE = 0.7


def robots_fit(scores: dict[str, np.ndarray], colours: list[str]) -> float:
    """How well the robots of ``colours`` standing on the board explain the frame: their
    best scores, summed."""
    return float(sum(float(scores[c].max()) for c in colours))


def fit_principal(frame: Frame, loc: Location, profile: Profile
                  ) -> tuple[Location, dict[str, np.ndarray], bool]:
    """The location with the camera under which the robots stand best, and its scores
    (:func:`score_cells`). A picture cropped off its centre moves the principal point, which
    the board alone cannot show; a camera assumed at the wrong one leans the robots the wrong
    way or by the wrong length, onto the next cell. Searched over :data:`PRINCIPAL_STEPS`
    when a coloured robot seen stands weakly (:data:`FIT_SURE`); the centre is kept unless
    another point fits them by :data:`REFIT_GAIN` more. The third value says whether the
    search was made (a game's reader keeps its outcome: the camera's principal point does not
    move during a game, and the search costs about 16 readings of the colour scores)."""
    scores = score_cells(frame, loc, profile)
    # the colourless robots are told from shadows by the print, later: not judged by here
    seen = [c for c, s in scores.items() if float(s.max()) >= PRESENT and c not in COLOURLESS]
    if not seen or min(float(scores[c].max()) for c in seen) >= FIT_SURE:
        return loc, scores, False
    w, h = loc.image_size
    best, fit, at = (loc, scores), -1.0, (0.0, 0.0)
    for step in PRINCIPAL_STEPS:
        x0, y0 = at
        for dx in (-step, 0.0, step):
            for dy in (-step, 0.0, step):
                shift = (x0 + dx, y0 + dy)
                if shift == (0.0, 0.0) or (dx, dy) == (0.0, 0.0):
                    continue
                moved = loc.with_principal((w / 2 + shift[0] * w, h / 2 + shift[1] * h))
                s = score_cells(frame, moved, profile)
                f = robots_fit(s, seen)
                if f > fit:
                    best, fit, at = (moved, s), f, shift
    if fit > robots_fit(scores, seen) + REFIT_GAIN:
        return best[0], best[1], True
    return loc, scores, True


def find_robots(frame: Frame, loc: Location, profile: Profile,
                view: PrintView | None = None) -> dict[str, RobotHit]:
    """The best cell of every robot colour the profile lists, when its score is convincing
    (``view``: what the print shows, see :func:`score_cells`).

    Two robots never share a cell: if two colours pick the same one, the weaker takes its
    next best cell. A hit whose cell is a guess carries a ``doubt`` (:func:`doubt_of`): the
    caller reports that robot as not seen, with the reason, and still knows something
    stands there."""
    return place(score_cells(frame, loc, profile, view), print_seen=view is not None)


def place(scores: dict[str, np.ndarray], *, print_seen: bool = False) -> dict[str, RobotHit]:
    """Robots on cells from their ``(16, 16)`` score arrays (:func:`find_robots`), strongest
    first; ``print_seen``: the scores judged the print too (a silver robot well ahead of
    every other cell is then believed below its usual bar)."""
    hits: dict[str, RobotHit] = {}
    taken: dict[tuple[int, int], str] = {}
    order = sorted(scores, key=lambda c: -float(scores[c].max()))
    for colour in order:
        s = scores[colour].copy()
        own = divmod(int(np.argmax(s)), GRID)  # its best cell, taken or not: (row, col)
        for (c, r) in taken:
            s[r, c] = -1.0
        idx = int(np.argmax(s))
        r, c = divmod(idx, GRID)
        best = float(s[r, c])
        far = s.copy()
        far[max(0, r - 1):r + 2, max(0, c - 1):c + 2] = -1.0
        lead = best - float(far.max())
        if best < PRESENT or (colour == "silver" and best < PRESENT_SILVER and not (
                print_seen and lead >= SILVER_LEAD)):
            continue
        doubt = doubt_of(colour, best, lead, scores, c, r)
        if doubt is None and (own[1], own[0]) in taken:
            doubt = f"it looks most like the {taken[(own[1], own[0])]} robot's cell"
        hits[colour] = RobotHit(colour, c, r, best, lead, doubt)
        taken[(c, r)] = colour
    return hits


def doubt_of(colour: str, best: float, lead: float, scores: dict[str, np.ndarray],
             col: int, row: int) -> str | None:
    """Why a robot's best cell ``(col, row)`` is a guess, in words, or None when it is not:
    another cell away from it scores nearly as well, or the robot is weak and another cell
    comes close, or the cell looks nearly as much like another robot's colour, which finds
    no better cell of its own (a robot of that colour standing elsewhere says nothing of
    this one; the colourless two are not compared with each other: the print tells them
    apart)."""
    if lead < DOUBT_LEAD:
        return f"another cell looks nearly as much like it ({lead:.2f} apart)"
    if best < DOUBT_WEAK and lead < DOUBT_WEAK_LEAD:
        return f"faint ({best:.2f}) and another cell comes close ({lead:.2f} apart)"
    for other, s in scores.items():
        if other == colour or (other in COLOURLESS and colour in COLOURLESS):
            continue
        alike = float(s[row, col]) / max(best, 1e-6)
        r, c = divmod(int(np.argmax(s)), GRID)
        if alike >= DOUBT_ALIKE and max(abs(r - row), abs(c - col)) <= 1:
            return f"it looks like the {other} robot too ({alike:.2f})"
    return None


def silhouette_cells(loc: Location, col: int, row: int) -> set[tuple[int, int]]:
    """Grid cells whose floor a robot on ``(col, row)`` may hide from the camera."""
    centre = np.array([[col + 0.5, row + 0.5]])
    away, perp = _directions(loc, centre)
    pts = []
    for z in np.linspace(0, ROBOT_HEIGHT, 6):
        for lat in (-ROBOT_RADIUS, 0.0, ROBOT_RADIUS):
            for ax in (-ROBOT_RADIUS, 0.0, ROBOT_RADIUS):
                g = centre[0] + lat * perp[0] + ax * away[0]
                pts.append([g[0], g[1], z])
    xy = loc.camera.project(np.array(pts))
    g = loc.to_grid(xy)
    cells = set()
    for u, v in g:
        if 0 <= u < GRID and 0 <= v < GRID:
            cells.add((int(u), int(v)))
    return cells


def body_pixels(image: np.ndarray, loc: Location, cell: str) -> np.ndarray:
    """BGR colours over the projected body of a robot on ``cell`` (oriented ``loc``)."""
    from ..board import parse_cell

    idx = parse_cell(cell)
    rank, file = divmod(idx, GRID)
    centre = np.array([[file + 0.5, GRID - 1 - rank + 0.5]])
    bxy, _ = sample_points(loc, centre)
    h, w = image.shape[:2]
    xy = np.rint(bxy.reshape(-1, 2)).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    xy = xy[ok]
    blurred = cv2.blur(image, (3, 3))
    return blurred[xy[:, 1], xy[:, 0]].astype(np.float32)


# ---------------------------------------------------------------- the print a robot hides

PRINT_PX = 20  # rectified pixels per cell for comparing a cell's print with its tile's
SHIFT = 2  # rectified pixels a cell's print may lie off the lattice found


@lru_cache(maxsize=8)
def _print_masks(board: Board) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Where each grid cell's print (row, col, from the north-west) is a plain cell's: its
    kind ``(16, 16)`` (-1: nothing to compare, on a diagonal or the centre piece), whether it
    is plain all over, and per kind a ``(PRINT_PX, PRINT_PX)`` mask (wall bands and the symbol
    left out) with the operators that fit a plane to the masked pixels (design matrix and its
    pseudo-inverse), to take out the light's slope. Cells of one kind are compared at once."""
    P = PRINT_PX
    band = round(0.2 * P)
    sides = {UP: (slice(0, band), slice(None)), DOWN: (slice(P - band, P), slice(None)),
             LEFT: (slice(None), slice(0, band)), RIGHT: (slice(None), slice(P - band, P))}
    kinds = np.full((GRID, GRID), -1)
    plain = np.zeros((GRID, GRID), bool)
    keys: dict[tuple, int] = {}
    for cell in board.cells():
        file, rank = board.xy(cell)
        r, c = GRID - 1 - rank, file
        if cell in board.blocked or board.diagonal_at(cell) is not None:
            continue
        key = (tuple(board.has_wall(cell, d) for d in sides), board.target_at(cell) is not None)
        kinds[r, c] = keys.setdefault(key, len(keys))
        plain[r, c] = not any(key[0]) and not key[1]
    yy, xx = np.mgrid[0:P, 0:P].astype(np.float32) / P
    ops = []
    for walls, target in keys:  # in the order of their numbers
        m = np.ones((P, P), bool)
        for wall, (ys, xs) in zip(walls, sides.values(), strict=True):
            if wall:
                m[ys, xs] = False
        if target:
            m[band:P - band, band:P - band] = False
        A = np.column_stack([np.ones(int(m.sum()), np.float32), xx[m], yy[m]])
        ops.append((m, A, np.linalg.pinv(A)))
    kinds.flags.writeable = False
    plain.flags.writeable = False
    return kinds, plain, tuple(ops)


# How plainly a cell shows its print, and how evenly it is darkened, against a colourless
# robot standing there (a shadow shows both): up to the first value of each a robot may
# stand there, past the second none does.
ALIKE_ROBOT, ALIKE_PRINT = 0.12, 0.35
EVEN_ROBOT, EVEN_PRINT = 0.7, 0.85
DARK_PX = 10  # raster cells per grid cell of the board's dark print


@dataclass(frozen=True)
class PrintView:
    """What the board's own print says about each grid cell of one frame (row, col, in the
    grid of the location it was measured on; see :func:`see_print`)."""

    alike: np.ndarray  # (16, 16) correlation with the tile's plain print, NaN: not compared
    even: np.ndarray  # (16, 16) share of the cell's darkened part that is one even shade of
    #                   its print (as under a shadow); NaN where little of it is dark, or
    #                   where the print shows so plainly that it does not matter
    foot: np.ndarray  # (16, 16) the print under a robot's foot is compared (not a target)
    dark: np.ndarray  # (16, 16) × DARK_PX² raster: printed dark and colourless

    def turned(self, k: int) -> PrintView:
        """The same for the grid turned back by ``k`` quarter turns: from a location
        :meth:`~companion.vision.locate.Location.rotated` by ``k`` to the one it came from."""
        return PrintView(*(np.rot90(a, -k) for a in (self.alike, self.even, self.foot,
                                                     self.dark)))

    def shade(self) -> np.ndarray:
        """``(256,)`` per cell, 1 where a colourless robot may stand for all the print says,
        falling to 0 where the cell shows its print, or is only darkened evenly: a shadow,
        as dark and colourless as the robot that casts it, or as a silver one."""
        a = np.clip((ALIKE_PRINT - self.alike) / (ALIKE_PRINT - ALIKE_ROBOT), 0.0, 1.0)
        e = np.clip((EVEN_PRINT - self.even) / (EVEN_PRINT - EVEN_ROBOT), 0.0, 1.0)
        f = np.fmin(np.where(np.isnan(a), 1.0, a), np.where(np.isnan(e), 1.0, e))
        return np.where(self.foot, f, 1.0).ravel()

    def dark_at(self, grid: np.ndarray) -> np.ndarray:
        """Whether ``(..., 2)`` grid points lie on dark print, or off the cells altogether
        (the board's dark frame)."""
        g = np.floor(np.asarray(grid) * DARK_PX).astype(np.int64)
        n = GRID * DARK_PX
        inside = (g[..., 0] >= 0) & (g[..., 0] < n) & (g[..., 1] >= 0) & (g[..., 1] < n)
        return ~inside | self.dark[np.clip(g[..., 1], 0, n - 1), np.clip(g[..., 0], 0, n - 1)]


@lru_cache(maxsize=8)
def _dark_print(board: Board) -> np.ndarray:
    """Where the board is printed dark and colourless, as a raster of the grid from the
    north-west: the vortex's square (a little wider than printed: the lattice found may lie
    that much off), where blur greys its spiral. There dark and colourless says nothing of a
    black or silver robot."""
    D = DARK_PX
    out = np.zeros((GRID * D, GRID * D), bool)
    half = round(0.35 * D)
    for t in board.targets:
        if t.is_vortex:
            file, rank = board.xy(t.cell)
            r, c = (GRID - 1 - rank) * D + D // 2, file * D + D // 2
            out[r - half:r + half, c - half:c + half] = True
    out.flags.writeable = False
    return out


def see_print(image: np.ndarray, loc: Location, board: Board,
              hidden: set[tuple[int, int]] | frozenset = frozenset()) -> PrintView:
    """What the print shows of each grid cell; ``loc`` is oriented (north-west first) and
    ``hidden`` grid cells ``(col, row)`` are not taken for the plain print (another robot or
    its shadow may lie there).

    Every plain cell of a tile is printed alike, so the tile's plain cell is the median of its
    plain cells in this very frame, and compared with each cell, walls and the symbol left
    out, by correlation after a plane fitted to each is taken out: the room's light, its slope
    across a cell and a colour cast change nothing, while a robot standing on the cell hides
    the print (near 0, or below) — and the transparent robot bends it. A shadow's edge across
    a cell lowers the correlation too, but a shadow is one even shade of what it falls on: in
    the cell's darker part, seen against the plain print, the ratio of the two is the same
    everywhere, where a robot's own look is not. Nothing is compared on a diagonal, the centre
    piece, or glare the camera clipped."""
    P = PRINT_PX
    gray = cv2.cvtColor(loc.warp(image, P), cv2.COLOR_BGR2GRAY).astype(np.float32)
    washed = (gray >= 250).reshape(GRID, P, GRID, P).mean(axis=(1, 3)) > 0.1
    cells = gray.reshape(GRID, P, GRID, P).transpose(0, 2, 1, 3)
    kinds, plain, ops = _print_masks(board)
    free = ~washed  # glare the camera clipped shows nothing of the print
    for c, r in hidden:
        if 0 <= c < GRID and 0 <= r < GRID:
            free[r, c] = False
    alike = np.full((GRID, GRID), np.nan)
    aligned = np.zeros_like(cells)  # each cell's plain print, where it lies best
    for rows, cols in map(quadrant_cells, range(4)):
        pick = plain[rows, cols] & free[rows, cols]
        if pick.sum() < 6:
            continue
        template = np.median(cells[rows, cols][pick], axis=0)  # a tile's plain cell
        # … and the same moved by up to a tenth of a cell: the lattice found in the picture
        # may be that far off a cell's print, most of all near the board's edge
        pad = np.pad(template, SHIFT, mode="edge")
        moved = np.stack([pad[SHIFT + dy:SHIFT + dy + P, SHIFT + dx:SHIFT + dx + P]
                          for dy in range(-SHIFT, SHIFT + 1) for dx in range(-SHIFT, SHIFT + 1)])
        quarter = np.zeros((GRID, GRID), bool)
        quarter[rows, cols] = True
        for k, (m, A, pinv) in enumerate(ops):
            where = np.nonzero(quarter & ~washed & (kinds == k))
            if not len(where[0]) or m.mean() < 0.4:
                continue
            raw = cells[where][:, m]
            t = moved[:, m]
            x = raw - (raw @ pinv.T) @ A.T
            t0 = t - (t @ pinv.T) @ A.T
            nx, nt = np.linalg.norm(x, axis=1), np.linalg.norm(t0, axis=1)
            corr = (x @ t0.T) / (nx[:, None] * nt[None, :] + 1e-6)
            best = corr.argmax(axis=1)
            # washed out by glare: nothing to compare
            alike[where] = np.where(nx < 0.3 * float(nt.min()), np.nan,
                                    corr[np.arange(len(best)), best])
            aligned[where] = moved[best]
    foot = (kinds >= 0) & ~_foot_unseen(board)
    even = np.full((GRID, GRID), np.nan)
    # only where it may matter: a cell that shows its print plainly is no robot's anyway
    with np.errstate(invalid="ignore"):
        where = np.nonzero(foot & (alike < ALIKE_PRINT))
    if len(where[0]):
        masks = np.stack([ops[k][0] for k in kinds[where]])
        even[where] = _evenness(cells[where], aligned[where], masks)
    return PrintView(alike, even, foot, _dark_print(board))


def _evenness(seen: np.ndarray, plain: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(N,)`` for cells ``(N, P, P)``, their plain print and where to compare them: the
    share of each cell's darkened part (under a fifth darker than its lit part) whose
    darkening is within 15 % of its typical one — near 1 under a shadow, lower under a robot;
    NaN where little is dark."""
    n_px = masks[0].size
    ratio = ((seen + 4.0) / (plain + 4.0)).reshape(len(seen), n_px)
    valid = masks.reshape(len(seen), n_px)
    rows = np.arange(len(seen))
    nv = valid.sum(axis=1)
    ordered = np.sort(np.where(valid, ratio, -np.inf), axis=1)  # the compared ones last
    lit = ordered[rows, n_px - nv + (9 * (nv - 1)) // 10][:, None]  # their 90th percentile
    dark = valid & (ratio < 0.8 * lit)
    n = dark.sum(axis=1)
    ordered = np.sort(np.where(dark, ratio, np.inf), axis=1)
    typical = ordered[rows, np.maximum(n - 1, 0) // 2][:, None]
    within = (dark & (np.abs(ratio / typical - 1.0) < 0.15)).sum(axis=1) / np.maximum(n, 1)
    return np.where(n >= 0.1 * nv, within, np.nan)


@lru_cache(maxsize=8)
def _foot_unseen(board: Board) -> np.ndarray:
    """Cells (row, col, from the north-west) whose print under a robot's foot is left out of
    the comparison: a target's symbol, printed once on the board."""
    out = np.zeros((GRID, GRID), bool)
    for t in board.targets:
        file, rank = board.xy(t.cell)
        out[GRID - 1 - rank, file] = True
    out.flags.writeable = False
    return out


# ---------------------------------------------------------------- the transparent robot

CLEAR_SEEN = 0.5  # a cell this unlike the plain print (correlation) may hold the clear robot,
CLEAR_LEAD = 0.12  # … when no cell away from it comes within this of it,
CLEAR_CONTRAST = 0.33  # … and the cells round it are this much more like their print


def find_clear(image: np.ndarray, loc: Location, board: Board,
               hidden: set[tuple[int, int]], alike: np.ndarray | None = None
               ) -> RobotHit | None:
    """The transparent robot, where it can be seen; ``loc`` oriented (north-west first),
    ``hidden`` the grid cells ``(col, row)`` other robots and their shadows may change, and
    ``alike`` how like their print they look (:func:`see_print`) when already measured.

    A clear piece has no colour of its own: it shows the board behind it, bent by its curved
    surface, inside an outline darkened by the room it mirrors at grazing angles. So it is
    found by what it does to the print: the cell whose print matches its tile's plain print
    far worse than any other, and than the cells round it, is where it stands. On a cell
    whose print cannot be compared — a diagonal, or hidden by another robot — or where
    nothing stands out clearly, it is not seen, and the caller says so."""
    if alike is None:
        alike = see_print(image, loc, board, hidden).alike
    seen = np.where(np.isnan(alike), np.inf, alike)  # hidden cells too, for a second look
    alike = seen.copy()
    for c, r in hidden:
        if 0 <= c < GRID and 0 <= r < GRID:
            alike[r, c] = np.inf
    r, c = divmod(int(np.argmin(alike)), GRID)
    others = alike.copy()
    others[max(0, r - 1):r + 2, max(0, c - 1):c + 2] = np.inf
    # Seen at an angle the piece's upper half lies over the cell behind it, which can look the
    # less like its print: it stands on the one in front, when that one is unlike it too.
    away, _ = _directions(loc, np.array([[c + 0.5, r + 0.5]]))
    front = np.array([c + 0.5, r + 0.5]) - away[0]
    fc, fr = (int(v) for v in np.floor(front))
    if 0 <= fc < GRID and 0 <= fr < GRID and (fc, fr) != (c, r):
        if alike[fr, fc] < CLEAR_SEEN:
            r, c = fr, fc
            others[max(0, r - 1):r + 2, max(0, c - 1):c + 2] = np.inf
        elif not np.isfinite(alike[fr, fc]) and _lean(loc, front)[()] > 0.3 and not (
                seen[fr, fc] > seen[r, c] + CLEAR_LEAD):
            # it may stand there, beside another robot or on print not compared, and only
            # lean over this one: unless that cell, looked at all the same, shows its print
            return None
    best = float(alike[r, c])
    lead = float(others.min()) - best
    if not np.isfinite(best) or best > CLEAR_SEEN or lead < CLEAR_LEAD:
        return None
    # Where the print itself is poorly seen (a dim corner, blur, glare) every cell is a little
    # unlike it, and one a little more so is no robot: the cells round it must show theirs.
    r0, c0 = max(0, r - 2), max(0, c - 2)
    near = alike[r0:r + 3, c0:c + 3].copy()
    near[max(0, r - 1) - r0:r + 2 - r0, max(0, c - 1) - c0:c + 2 - c0] = np.inf
    near = near[np.isfinite(near)]
    if not len(near) or float(np.median(near)) - best < CLEAR_CONTRAST:
        return None
    return RobotHit("transparent", c, r, 1.0 - best, lead)
