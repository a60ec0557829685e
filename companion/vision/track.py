"""Occlusion and stable-frame tracking: what the companion may believe from a stream of frames.

A frame is **occluded** when something that is neither board nor robot lies over the board: a
hand moving a robot, an arm reaching across. It is found cell by cell on the board seen from
above: a cell is *foreign* when most of it is neither the light printed surface nor explained
by what is known to be there (the centre piece, a robot and the floor it hides). "Light" is
judged against the light that falls there (a smooth field fitted over the board, so a lamp's
fall-off is not a hand), and glare that washes the print out is surface too. Foreign cells
come in a connected clump under a hand; a clump of a few cells, or several foreign cells in
all, mark the frame occluded, and such a frame is never read as a position. A cell that shows
none of the board's print is foreign too, whatever its colour (a pale hand in bright light,
see :func:`~companion.vision.read.bare_cells`).

The :class:`Tracker` then accepts a new board state only once the same state has been read on
``stable`` of the last ``2 * stable - 1`` unoccluded frames (the last one among them: a
majority), so a robot caught mid-slide, or a frame between two hand movements, never counts
as a move, while a frame or two misread among the still ones do not lose the look.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from .colours import balanced_lab, cell_lightness
from .locate import GRID

OCC_PX = 8  # rectified pixels per cell for the occlusion test
FOREIGN = 0.6  # fraction of a cell that is not surface for it to count as foreign
PARTLY = 0.45  # … as partly covered, beside a cell that is surely covered
SURE = 0.85
CLUMP = 3  # connected foreign cells that make a frame occluded
TOTAL = 5  # foreign cells in all that make a frame occluded


def light_field(cell_l: np.ndarray) -> np.ndarray:
    """``(16, 16)`` the board's lightness as the room's light lays it out: a smooth surface
    (quadratic in the cell coordinates, in log lightness) fitted to the cells' lightness
    while leaving out the cells that do not follow it — a hand or a robot darker, a glare
    spot lighter. Light falling off across the board follows it; a hand does not."""
    v, u = (np.mgrid[0:GRID, 0:GRID].astype(np.float64) - (GRID - 1) / 2) / (GRID / 2)
    A = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1).reshape(-1, 6)
    y = np.log(np.maximum(cell_l.astype(np.float64), 1.0)).ravel()
    centre = np.zeros((GRID, GRID), bool)
    centre[7:9, 7:9] = True
    lo, hi = np.percentile(y, [20, 90])
    use = (y >= lo) & (y <= hi) & ~centre.ravel()
    fit = np.full_like(y, np.median(y))
    for _ in range(4):
        if use.sum() < 12:
            break
        coef, *_ = np.linalg.lstsq(A[use], y[use], rcond=None)
        fit = A @ coef
        res = y - fit
        spread = 1.4826 * float(np.median(np.abs(res[use] - np.median(res[use]))))
        use = (np.abs(res) < max(0.08, 2.5 * spread)) & ~centre.ravel()
    return np.exp(fit).reshape(GRID, GRID).astype(np.float32)


def foreign_fraction(rect_bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """``(16, 16)`` fraction of every cell that is not light, colourless print."""
    img = cv2.blur(rect_bgr, (3, 3)).astype(np.float32)  # sensor noise is not a hand
    lab = balanced_lab(img, white)
    L = lab[..., 0]
    px = rect_bgr.shape[0] // GRID
    # Light falls off across a board: judge lightness against the light there.
    cell_l = cell_lightness(L)
    ref = cv2.resize(light_field(cell_l), (L.shape[1], L.shape[0]),
                     interpolation=cv2.INTER_LINEAR)
    surf = (L > 0.62 * ref) & (np.hypot(lab[..., 1], lab[..., 2]) < 12)
    # glare: lighter than the light there, or washed out by the camera, whatever tint its
    # clipping leaves
    surf |= (L > 1.15 * ref) | (img.min(axis=-1) >= 230)
    return 1.0 - surf.reshape(GRID, px, GRID, px).mean(axis=(1, 3))


@dataclass(frozen=True)
class Occlusion:
    occluded: bool
    cells: tuple[tuple[int, int], ...]  # foreign (col, row) grid cells
    largest: int


def occlusion(rect_bgr: np.ndarray, white: np.ndarray,
              explained: Iterable[tuple[int, int]], bare: np.ndarray | None = None
              ) -> Occlusion:
    """Is anything foreign over the board? ``explained`` cells (col, row) are expected to look
    foreign: the centre piece, robots and the floor they hide. ``bare``: ``(16, 16)`` cells
    whose printed lines are not seen (:func:`~.lattice.bare_cells`), foreign too, whatever
    their colour.

    A hand covers some cells wholly and the cells round its edge in part: a clump of cells
    each at least :data:`PARTLY` foreign counts too when one of them is :data:`SURE` to be
    covered (a pale hand in bright light is only just told from the print)."""
    frac = foreign_fraction(rect_bgr, white)
    free = np.ones((GRID, GRID), bool)
    for c, r in explained:
        free[r, c] = False
    free[7:9, 7:9] = False  # the centre piece
    if bare is not None:
        frac = np.where(bare, np.maximum(frac, SURE), frac)
    mask = (frac >= FOREIGN) & free
    weak = (frac >= PARTLY) & free
    n, labels, stats, _ = cv2.connectedComponentsWithStats(weak.astype(np.uint8),
                                                           connectivity=8)
    for i in range(1, n):
        part = labels == i
        if stats[i, cv2.CC_STAT_AREA] >= CLUMP and (frac[part] >= SURE).any():
            mask |= part
    cells = tuple((int(c), int(r)) for r, c in zip(*np.nonzero(mask), strict=True))
    if not cells:
        return Occlusion(False, (), 0)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    largest = int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0
    return Occlusion(largest >= CLUMP or len(cells) >= TOTAL, cells, largest)


# ---------------------------------------------------------------- the tracker


@dataclass(frozen=True)
class TrackEvent:
    """What one frame did to the tracker: ``kind`` is ``"accepted"`` (a new stable state),
    ``"steady"`` (the accepted state seen again), ``"pending"`` (a change not yet stable),
    ``"occluded"`` or ``"unseen"`` (the board could not be read)."""

    kind: str
    state: dict[str, str] | None
    reason: str | None = None


@dataclass
class Tracker:
    """Accept a robot layout only once ``stable`` of the last ``2 * stable - 1`` frames since
    the board was last hidden agree on it, the frame just read among them.

    >>> t = Tracker(stable=2)
    >>> t.update({"red": "c2"}).kind, t.update({"red": "c2"}).kind
    ('pending', 'accepted')
    """

    stable: int = 3
    accepted: dict[str, str] | None = None
    _recent: list[dict[str, str]] = field(default_factory=list, repr=False)

    def update(self, robots: dict[str, str] | None, *, occluded: bool = False,
               error: str | None = None) -> TrackEvent:
        """Feed one frame's reading (``None`` with ``error`` when it could not be read)."""
        if occluded:
            self._recent.clear()
            return TrackEvent("occluded", None, "a hand or arm is over the board")
        if robots is None:
            self._recent.clear()
            return TrackEvent("unseen", None, error or "the board could not be read")
        state = dict(sorted(robots.items()))
        self._recent = [*self._recent, state][-(2 * self.stable - 1):]
        if state == self.accepted:
            return TrackEvent("steady", self.accepted)
        if sum(s == state for s in self._recent) >= self.stable:
            self.accepted = state
            self._recent = [state]
            return TrackEvent("accepted", state)
        return TrackEvent("pending", state)

    def observe(self, observation) -> TrackEvent:  # an Observation from read.py
        """Feed an :class:`~companion.vision.read.Observation`. A robot the reader misses is
        simply absent from the state: whether it was lifted off the board or is lost under
        glare, the demonstration checker pauses until it is back (``Observation.missing``
        says which)."""
        if observation.occluded:
            return self.update(None, occluded=True)
        return self.update(observation.robots)
