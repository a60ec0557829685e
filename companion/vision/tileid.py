"""Tile identification: which four of the 16 tile sides make the board, how they are laid out,
and so which way round the board lies in the frame.

The walls are the tiles' fingerprint. The rectified board is measured once: for every cell edge,
how much of a band along it is dark (a printed wall fills it; the thin line between two cells
does not). Each tile side, placed in each quadrant, predicts exactly which of its edges carry a
wall, so each ``(side, quadrant, turn of the board)`` gets a log-likelihood ratio against "no
idea". The best legal board — one side of each of the four double-sided boards — is then chosen
among all 4 turns × 24 placements × 16 side choices, and its lead over the runner-up becomes the
confidence. The coloured target squares add their own evidence.

Edges hidden behind a standing robot are left out (they say nothing either way). Walls on the
line between two quadrants may be printed on either tile, so there a tile is only rewarded for a
wall it has, never punished for one its neighbour may have.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from ..board import COLORS, place_tile_cell, tile_library
from .colours import Profile, balanced_lab, white_of
from .locate import GRID, Location, VisionError, quadrant_cells

N, E, S, W = 0, 1, 2, 3
_SIDE = {"N": N, "E": E, "S": S, "W": W}
_STEP = {N: (-1, 0), E: (0, 1), S: (1, 0), W: (0, -1)}  # (row, col)
CENTRE = {(7, 7), (7, 8), (8, 7), (8, 8)}  # (row, col)
PX = 16  # rectified pixels per cell for measuring walls


class TileError(VisionError):
    """The tiles cannot be told apart in this frame, or a given board does not fit what is seen."""


@dataclass(frozen=True)
class TileReading:
    """Which sides (north-west, north-east, south-east, south-west), the quarter turns of the
    grid that put north up (``rotation``), and how sure: ``confidence`` 0..1 and ``margin`` the
    log-likelihood lead over the best different board."""

    tiles: tuple[str, str, str, str]
    rotation: int
    confidence: float
    margin: float
    score: float


def _set_edge(arr: np.ndarray, row: int, col: int, d: int, value: float) -> None:
    arr[row, col, d] = value
    dr, dc = _STEP[d]
    r2, c2 = row + dr, col + dc
    if 0 <= r2 < GRID and 0 <= c2 < GRID:
        arr[r2, c2, (d + 2) % 4] = value


@cache
def _expectations() -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
    """Per tile side and quadrant: expected walls ``(T, 4, 16, 16, 4)``, the weight of a
    "no wall" prediction (interior edges only) and of a "wall" prediction."""
    lib = tile_library()["quadrants"]
    names = tuple(lib)
    exp = np.zeros((len(names), 4, GRID, GRID, 4), dtype=np.float32)
    w_no = np.zeros((4, GRID, GRID, 4), dtype=np.float32)
    for q in range(4):
        rows, cols = quadrant_cells(q)
        inside = np.zeros((GRID, GRID), dtype=bool)
        inside[rows, cols] = True
        for r in range(GRID):
            for c in range(GRID):
                if not inside[r, c] or (r, c) in CENTRE:
                    continue
                for d in range(4):
                    dr, dc = _STEP[d]
                    r2, c2 = r + dr, c + dc
                    if not (0 <= r2 < GRID and 0 <= c2 < GRID):
                        continue  # the board edge: always a wall, says nothing
                    if (r2, c2) in CENTRE or not inside[r2, c2]:
                        continue  # centre block, or the line shared with a neighbour
                    w_no[q, r, c, d] = 1.0
    for t, name in enumerate(names):
        for q in range(4):
            for x, y, side in lib[name]["walls"]:
                col, row = place_tile_cell(x, y, q)
                d = (_SIDE[side] + q) % 4
                dr, dc = _STEP[d]
                if not (0 <= row + dr < GRID and 0 <= col + dc < GRID):
                    continue
                _set_edge(exp[t, q], row, col, d, 1.0)
    w_yes = np.ones_like(exp)
    return names, exp, w_no, w_yes


@cache
def _target_expectations() -> np.ndarray:
    """``(T, 4, 16, 16, 5)``: which colour (red, green, blue, yellow, multi) each tile side
    prints on each cell, per quadrant."""
    lib = tile_library()["quadrants"]
    names = tuple(lib)
    out = np.zeros((len(names), 4, GRID, GRID, 5), dtype=np.float32)
    for t, name in enumerate(names):
        for q in range(4):
            for tg in lib[name]["targets"]:
                col, row = place_tile_cell(tg["x"], tg["y"], q)
                k = COLORS.index(tg["color"]) if tg["color"] in COLORS else 4
                out[t, q, row, col, k] = 1.0
    return out


# A board's edges are walls about one time in twelve; the darkest few in a hundred are walls.
WALL_SHARE = 96  # percentile of the edges' darkness taken as the walls' own
WALL_CONTRAST = 0.06  # below this between the walls' darkness and the typical edge's: no walls seen


def wall_evidence(rectified_gray: np.ndarray, px: int = PX, n: int = GRID) -> np.ndarray:
    """``(n, n, 4)`` probability-like wall strength of every cell side, from the board (or one
    loose tile, ``n = 8``) seen from above at ``px`` pixels a cell.

    Two readings of each band along a side, the stronger kept: the share of it that is dark
    by a fixed measure (a wall printed sharp), and how dark it is on average compared with
    the other sides of this board (:func:`_relative_walls`): a small or soft picture blurs a
    wall into a line only a quarter darker than the cells, which no fixed measure takes for
    a wall, yet it is still far darker than the thin line between two cells."""
    g = rectified_gray.astype(np.float32)
    inner = g.reshape(n, px, n, px)[:, px // 4: 3 * px // 4, :, px // 4: 3 * px // 4]
    white = float(np.percentile(inner, 75))
    # Dark against the light around it: glare adds the same light to a wall and the cells
    # beside it, so their difference holds where their ratio does not; a dim corner scales
    # both, so there the ratio holds.
    cells = np.percentile(inner.transpose(0, 2, 1, 3).reshape(n, n, -1), 75, axis=2)
    local = cv2.medianBlur(np.clip(cells, 0, 255).astype(np.uint8), 3).astype(np.float32)
    local = cv2.resize(local, (g.shape[1], g.shape[0]), interpolation=cv2.INTER_LINEAR)
    dark = ((local - g) > 0.4 * np.minimum(local, white)).astype(np.float32)
    frac = _bands(dark, px, n)
    fixed = 1.0 / (1.0 + np.exp(-(frac - 0.35) / 0.07))
    depth = _bands(np.clip((local - g) / np.maximum(local, 1.0), 0.0, 1.0), px, n)
    return np.maximum(fixed, _relative_walls(depth)).astype(np.float32)


def _bands(values: np.ndarray, px: int, n: int) -> np.ndarray:
    """``(n, n, 4)`` the mean of ``values`` (a rectified picture) over a band along each cell
    side, the corners trimmed."""
    ii = cv2.integral(values.astype(np.float32)).astype(np.float64)
    Hh, Ww = values.shape
    bw = max(2, int(round(0.2 * px)))
    trim = max(1, int(round(0.18 * px)))
    idx = np.arange(n) * px

    def boxes(y0: np.ndarray, y1: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        y0, y1 = np.clip(y0, 0, Hh), np.clip(y1, 0, Hh)
        x0, x1 = np.clip(x0, 0, Ww), np.clip(x1, 0, Ww)
        area = np.maximum((y1 - y0) * (x1 - x0), 1)
        return (ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]) / area

    R, C = np.meshgrid(idx, idx, indexing="ij")  # top-left pixel of every cell
    out = np.zeros((n, n, 4), dtype=np.float32)
    out[:, :, S] = boxes(R + px - bw, R + px + bw, C + trim, C + px - trim)
    out[:, :, E] = boxes(R + trim, R + px - trim, C + px - bw, C + px + bw)
    out[:, :, N] = np.roll(out[:, :, S], 1, axis=0)
    out[:, :, W] = np.roll(out[:, :, E], 1, axis=1)
    return out


def _relative_walls(depth: np.ndarray) -> np.ndarray:
    """Wall strength from each side's mean darkness ``depth`` against this board's own: the
    typical side (the median: most are the thin lines between cells) is no wall, the darkest
    few (:data:`WALL_SHARE`) are; half way between them is even odds. A board whose darkest
    sides are hardly darker than the rest shows no walls this way (zeros)."""
    n = depth.shape[0]
    inside = np.ones(depth.shape, dtype=bool)
    inside[0, :, N] = inside[-1, :, S] = inside[:, 0, W] = inside[:, -1, E] = False
    sides = depth[inside]
    typical = float(np.median(sides))
    walls = float(np.percentile(sides, WALL_SHARE))
    if walls - typical < WALL_CONTRAST or n < 8:
        return np.zeros_like(depth)
    mid = 0.5 * (typical + walls)
    return 1.0 / (1.0 + np.exp(-(depth - mid) / ((walls - typical) / 8.0)))


def target_evidence(rectified_bgr: np.ndarray, white: np.ndarray, profile: Profile,
                    px: int = PX) -> np.ndarray:
    """``(16, 16, 5)``: how strongly each cell's middle shows red, green, blue, yellow, and
    several colours at once (the vortex)."""
    img = rectified_bgr.astype(np.float32)
    mid = img.reshape(GRID, px, GRID, px, 3)[:, px // 4: 3 * px // 4, :, px // 4: 3 * px // 4]
    mid = mid.transpose(0, 2, 1, 3, 4).reshape(GRID, GRID, -1, 3)
    lab = balanced_lab(mid, white)
    refs = profile.references
    out = np.zeros((GRID, GRID, 5), dtype=np.float32)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    hues = []
    for k, colour in enumerate(COLORS):
        ref = np.array(refs[colour][1:], dtype=np.float32)
        ang = np.arctan2(ref[1], ref[0])
        h = np.arctan2(lab[..., 2], lab[..., 1])
        dh = np.abs(np.angle(np.exp(1j * (h - ang))))
        hit = (chroma > 18) & (dh < 0.5)
        frac = hit.mean(axis=2)
        hues.append(frac)
        out[..., k] = frac
    stack = np.stack(hues, axis=-1)
    out[..., 4] = np.sort(stack, axis=-1)[..., -3]  # a third colour present: the vortex
    return out


def _rotate_evidence(ev: np.ndarray, k: int) -> np.ndarray:
    """Evidence measured on the grid → evidence on the grid turned so corner ``k`` is first
    (see :meth:`Location.rotated`)."""
    out = ev
    for _ in range(k % 4):
        out = np.rot90(out, 1, axes=(0, 1))
        if out.shape[-1] == 4:
            out = np.roll(out, -1, axis=2)
    return np.ascontiguousarray(out)


def quadrant_scores(walls: np.ndarray, targets: np.ndarray | None = None,
                    hidden: np.ndarray | None = None) -> np.ndarray:
    """``(4 turns, T sides, 4 quadrants)`` log-likelihood ratios of each side in each place."""
    names, exp, w_no, w_yes = _expectations()
    texp = _target_expectations()
    p = np.clip(walls, 0.03, 0.97)
    if hidden is not None:
        p = np.where(hidden[..., None], 0.5, p)
    out = np.zeros((4, len(names), 4), dtype=np.float64)
    for k in range(4):
        pk = _rotate_evidence(p, k)
        l1 = np.log(pk / 0.5)
        l0 = np.log((1 - pk) / 0.5)
        # exp is 1 where a wall is predicted; elsewhere a "no wall" counts inside the quadrant.
        s = (exp * l1[None, None]).sum(axis=(2, 3, 4))
        s += ((1 - exp) * w_no[None] * l0[None, None]).sum(axis=(2, 3, 4))
        if targets is not None:
            tk = _rotate_evidence(targets, k)
            if hidden is not None:
                hk = _rotate_evidence(hidden.astype(np.float32)[..., None], k)[..., 0] > 0
                tk = np.where(hk[..., None], np.nan, tk)
            has = np.nan_to_num(tk, nan=0.0)
            ok = ~np.isnan(tk[..., 0])
            # A predicted target: that colour should cover part of the cell's middle.
            hit = np.clip(has, 0, 1)
            lt = np.log((0.05 + hit) / 0.3)
            s += 1.5 * (texp * lt[None, None] * ok[None, None, ..., None]).sum(axis=(2, 3, 4))
        out[k] = s
    return out


def _best_boards(scores: np.ndarray, fixed: tuple[str, ...] | None = None,
                 turns: tuple[int, ...] = (0, 1, 2, 3)
                 ) -> list[tuple[float, int, tuple[str, str, str, str]]]:
    """Every legal board (one side of each board number, any placement) with its score,
    best first, over the given turns of the grid."""
    names = _expectations()[0]
    lib = tile_library()["quadrants"]
    by_number: dict[int, list[int]] = {}
    for t, n in enumerate(names):
        by_number.setdefault(int(lib[n]["board"]), []).append(t)
    numbers = sorted(by_number)
    results = []
    for k in turns:
        if fixed is not None:
            idx = [names.index(n) for n in fixed]
            results.append((float(sum(scores[k, t, q] for q, t in enumerate(idx))), k,
                            tuple(fixed)))
            continue
        for perm in itertools.permutations(numbers, 4):
            choice = []
            total = 0.0
            for q, num in enumerate(perm):
                cands = by_number[num]
                best_t = max(cands, key=lambda t, q=q, k=k: scores[k, t, q])
                total += scores[k, best_t, q]
                choice.append(names[best_t])
                # also keep the runner-up side, so the margin sees near-misses
            results.append((float(total), k, tuple(choice)))
            for q, num in enumerate(perm):
                for t in by_number[num]:
                    if names[t] == choice[q]:
                        continue
                    alt = list(choice)
                    alt[q] = names[t]
                    delta = scores[k, t, q] - scores[k, names.index(choice[q]), q]
                    results.append((float(total + delta), k, tuple(alt)))
    results.sort(key=lambda r: -r[0])
    return results


# Every board has at least 72 wall sides inside (18 on its sparest tile side); a picture
# that shows less than a quarter of that has not seen its walls.
WALLS_SEEN = 18.0


def walls_unseen(walls: np.ndarray, hidden: np.ndarray | None = None) -> bool:
    """Does the wall evidence (``(16, 16, 4)``) show hardly any wall inside the board, away
    from its frame and the centre block (:data:`WALLS_SEEN`)? Then the picture is too soft or
    too hazy for walls, and "no wall" on every side is no evidence of a board without them."""
    inside = np.ones(walls.shape, dtype=bool)
    inside[0, :, N] = inside[-1, :, S] = inside[:, 0, W] = inside[:, -1, E] = False
    for r, c in CENTRE:
        inside[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = False
    if hidden is not None:
        inside &= ~hidden[..., None]
    return float(np.where(inside, walls, 0.0).sum()) < WALLS_SEEN


def identify(walls: np.ndarray, targets: np.ndarray | None = None,
             hidden: np.ndarray | None = None, *, tiles: list[str] | None = None
             ) -> TileReading:
    """The most likely board and its turn (see the module docstring).

    A board turned a quarter is the same board with its tiles named from another corner, so the
    walls alone cannot say where north is. By convention north is the grid's first side (the far
    side of the board from the camera, or the side of marker 0): without ``tiles`` the grid is
    read as it lies. With ``tiles`` given, the turn that fits them is found, and a board that
    fits badly is an error.

    A picture in which hardly any wall shows (:func:`walls_unseen`) says nothing of the walls:
    not that there are none. Its walls are then left out, and only the targets speak; a
    board given is not refused for walls that were not seen."""
    if walls_unseen(walls, hidden):
        walls = np.full_like(walls, 0.5)
    scores = quadrant_scores(walls, targets, hidden)
    fixed = None
    if tiles is not None:
        fixed = tuple(str(t).strip().upper() for t in tiles)
        names = _expectations()[0]
        for t in fixed:
            if t not in names:
                raise TileError(f"unknown tile side {t!r} (known: {', '.join(names)})")
    ranked = _best_boards(scores, fixed, turns=(0, 1, 2, 3) if fixed else (0,))
    best_score, k, best = ranked[0]
    runner = next((r for r in ranked[1:] if (r[1], r[2]) != (k, best)), None)
    margin = best_score - runner[0] if runner else 50.0
    confidence = float(1.0 / (1.0 + np.exp(-(margin - 4.0) / 2.0)))
    if fixed is not None:
        free_score, _, free_tiles = _best_boards(scores, turns=(0,))[0]
        if best_score < free_score - 25.0:
            raise TileError(
                f"the board given ({', '.join(fixed)}) does not match the walls seen; "
                f"it looks more like {', '.join(free_tiles)}")
    return TileReading(tiles=best, rotation=k, confidence=confidence, margin=float(margin),
                       score=float(best_score))


def identify_tile(walls: np.ndarray) -> list[tuple[float, str, int]]:
    """One loose tile seen from above (``(8, 8, 4)`` wall evidence): every side and quarter
    turn, best first, scored on the tile's inner edges. Checks the wall model on real print."""
    names, exp, w_no, _ = _expectations()
    p = np.clip(walls, 0.03, 0.97)
    mask = w_no[0, :8, :8]
    out = []
    for k in range(4):
        pk = _rotate_evidence(p, k)
        l1, l0 = np.log(pk / 0.5), np.log((1 - pk) / 0.5)
        for t, name in enumerate(names):
            e = exp[t, 0, :8, :8]
            out.append((float((mask * (e * l1 + (1 - e) * l0)).sum()), name, k))
    out.sort(key=lambda r: -r[0])
    return out


def _lattice_score(gray: np.ndarray, corners: np.ndarray, cells: int, px: int) -> float:
    n = cells * px
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    w = cv2.warpPerspective(gray, M, (n, n)).astype(np.float32)
    line = np.clip(cv2.blur(w, (7, 7)) - w, 0, None)  # thin dark lines
    idx = np.clip(np.arange(cells + 1) * px, 0, n - 1)
    return float(line[:, idx].mean() + line[idx, :].mean())


def fit_lattice(gray: np.ndarray, corners, cells: int = 8, px: int = 16) -> np.ndarray:
    """Corners given roughly (within about a third of a cell) → the corners that put the
    printed lines between cells on the lattice, by moving one corner at a time."""
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2).copy()
    for step in (6.0, 3.0, 1.0):
        for _ in range(3):
            for i in range(4):
                best, best_at = _lattice_score(gray, c, cells, px), c[i].copy()
                for dx in range(-2, 3):
                    for dy in range(-2, 3):
                        trial = c.copy()
                        trial[i] += (dx * step, dy * step)
                        sc = _lattice_score(gray, trial, cells, px)
                        if sc > best:
                            best, best_at = sc, trial[i].copy()
                c[i] = best_at
    return c


def read_loose_tile(image: np.ndarray, rough_corners) -> list[tuple[float, str, int]]:
    """One tile lying on its own (a photo of the tiles laid apart), its corners given roughly:
    :func:`identify_tile` on its fitted lattice."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    c = fit_lattice(gray, rough_corners)
    n = 8 * PX
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    top = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(c.astype(np.float32), dst),
                              (n, n))
    return identify_tile(wall_evidence(top, PX, 8))


def hidden_cells(loc: Location, robot_cells: list[tuple[int, int]]) -> np.ndarray:
    """``(16, 16)`` cells whose floor standing robots may hide (row, col)."""
    from .robots import silhouette_cells

    out = np.zeros((GRID, GRID), dtype=bool)
    for col, row in robot_cells:
        for c, r in silhouette_cells(loc, col, row):
            out[r, c] = True
    return out


def read_tiles(image: np.ndarray, loc: Location, *, profile: Profile | None = None,
               robot_cells: list[tuple[int, int]] | None = None,
               tiles: list[str] | None = None) -> TileReading:
    """Measure the frame and identify its board (``loc`` in grid order, not yet oriented)."""
    profile = profile or Profile()
    rect = loc.warp(image, PX)
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    walls = wall_evidence(gray)
    white = white_of(rect)
    targets = target_evidence(rect, white, profile)
    hidden = hidden_cells(loc, robot_cells or [])
    return identify(walls, targets, hidden, tiles=tiles)


def orient(image: np.ndarray, loc: Location, *, tiles: list[str] | None = None,
           profile: Profile | None = None, robot_cells: list[tuple[int, int]] | None = None
           ) -> tuple[Location, TileReading]:
    """The location turned so grid ``(0, 0)`` is the board's north-west corner, and the tiles."""
    reading = read_tiles(image, loc, profile=profile, robot_cells=robot_cells, tiles=tiles)
    return loc.rotated(reading.rotation), reading
