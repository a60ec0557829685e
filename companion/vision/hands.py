"""Cells that do not show the board's print: where a hand or an arm lies over the board.

Every cell of the grid is printed alike: the thin lattice lines round it and the same square
inside, seen under any light (a shadow or haze lowers their contrast, not their shape). A pale
hand whose colour the camera's white balance turns to a light grey passes the colour test of
:func:`~.track.foreign_fraction` as printed surface, and its fingers have edges enough for
:func:`~.read.bare_cells`; but its cells do not look like the board's usual cell. So each cell
is compared, by normalised cross-correlation (blind to the light's level and contrast), with
the median of all the cells, at the best of a few pixels' shift (the corners are found to a
fraction of a cell). Glare washes the print out as well: a cell that is not darker than the
light there, or clipped white, is never counted.

A target, a wall or a robot differs from the usual cell too, but alone or where a robot
explains it. A hand's skin may, though, be taken for a yellow or red robot by the colour
scores, and the cells that robot would hide are then explained away; the classifier does not
confirm it. So once the classifier has had its word, a clump of unprinted cells that the
robots placed do not explain, reaching in from the grid's edge as an arm does, covers the
board (:func:`reaching_in`).
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from .locate import GRID
from .track import light_field

PX = 12  # rectified pixels per cell (the grey board of :func:`~.read.bare_cells`)
MARGIN = 2  # pixels round a cell the comparison takes in: the lattice lines on both sides
SHIFT = 2  # pixels a cell may lie off where the corners put it
# likeness to the usual cell, against the board's median likeness, below which a cell does not
# show the print: a render's cells are alike (median 0.85), a photo's less so (its lens and
# print leave 0.55-0.70), and a hand's cells fall under half of either
UNPRINTED = 0.5
# a cell not a little darker than the light there may be washed out by glare, or lie in light
# the smooth fit of the board's light misses (a real board's side, a robot's shadow), or be
# clipped: such cells are not counted
LIT = 0.95
CLIPPED = 245
# unprinted cells in a clump that no robot placed explains, reaching the grid's edge: a hand
# (on clear 3D development frames and the real photos the largest such clump was 3 cells)
LEAST = 5


def print_likeness(rect: np.ndarray) -> np.ndarray:
    """``(16, 16)`` each cell's likeness (normalised cross-correlation, -1…1) to the board's
    median cell, best within :data:`SHIFT` pixels; ``rect``: the board from above, grey,
    :data:`PX` pixels a cell."""
    rect = np.asarray(rect, np.float32)
    if rect.ndim != 2 or rect.shape != (GRID * PX, GRID * PX):
        raise ValueError(f"print_likeness needs a grey board of {GRID * PX}×{GRID * PX} "
                         f"pixels, not {rect.shape}")
    pad, m, size = MARGIN + SHIFT, MARGIN, PX + 2 * MARGIN
    big = cv2.copyMakeBorder(rect, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    starts = pad - m + PX * np.arange(GRID)
    windows = np.lib.stride_tricks.sliding_window_view(big, (size, size))
    patches = windows[starts[:, None], starts[None, :]]  # (16, 16, size, size)
    keep = np.ones((GRID, GRID), bool)
    keep[7:9, 7:9] = False  # the centre piece is not a cell
    cells = patches[keep].reshape(int(keep.sum()), -1)
    half = len(cells) // 2  # the median cell, pixel by pixel (partition: a third the time)
    template = np.partition(cells, half, axis=0)[half].reshape(size, size).astype(np.float32)
    score = cv2.matchTemplate(big, template, cv2.TM_CCOEFF_NORMED)
    best = cv2.dilate(score, np.ones((2 * SHIFT + 1, 2 * SHIFT + 1), np.uint8))
    return best[starts[:, None], starts[None, :]]


def unprinted_cells(rect: np.ndarray) -> np.ndarray:
    """``(16, 16)`` True where a cell looks far less like the board's usual cell than most do
    and is darker than the light there (not washed out by glare): a hand's or an arm's,
    unless a robot, a target or a wall explains it."""
    likeness = print_likeness(rect)
    q = 3 * (PX * PX - 1) // 4  # each cell's upper quartile: its light print
    p75 = np.partition(rect.reshape(GRID, PX, GRID, PX).transpose(0, 2, 1, 3)
                       .reshape(GRID, GRID, -1), q, axis=2)[..., q]
    lit = p75 / light_field(np.maximum(p75, 1.0))
    out = (likeness < UNPRINTED * float(np.median(likeness))) & (lit < LIT) & (p75 < CLIPPED)
    out[7:9, 7:9] = False
    return out


def reaching_in(plain: np.ndarray, explained: Iterable[tuple[int, int]]
                ) -> tuple[tuple[int, int], ...]:
    """The (col, row) cells of every clump of at least :data:`LEAST` connected ``plain`` cells
    (:func:`unprinted_cells`) that nothing ``explained`` covers and that reaches the grid's
    edge: an arm comes in over the board's side.

    The reader asks this once the classifier has had its word, with the cells of the robots
    it places only: a hand's skin read as a yellow or red robot by its colour, which the
    classifier then does not confirm, explains no cell."""
    free = np.asarray(plain, bool).copy()
    for c, r in explained:
        free[r, c] = False
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free.astype(np.uint8), connectivity=8)
    out: list[tuple[int, int]] = []
    for i in range(1, n):
        part = labels == i
        edge = part[0].any() or part[-1].any() or part[:, 0].any() or part[:, -1].any()
        if stats[i, cv2.CC_STAT_AREA] >= LEAST and edge:
            out += [(int(c), int(r)) for r, c in zip(*np.nonzero(part), strict=True)]
    return tuple(sorted(out))


__all__ = ["CLIPPED", "LEAST", "LIT", "PX", "UNPRINTED", "print_likeness", "reaching_in",
           "unprinted_cells"]
