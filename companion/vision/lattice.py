"""The board found by its lattice: the 17 × 17 printed lines between the cells.

The board's outline alone is brittle on real tables: its printed frame may be a thin grey band
(and then a light table merges with it), a hand or glare breaks it, a sunny wooden table is as
pale as the cells. The lattice of thin dark lines between the cells, though, is everywhere on
the board and nowhere else, and its geometry is rigid: 17 lines each way, evenly spaced on the
board plane. So, from any rough quadrilateral that holds the board (an outline that took in
some table, or the whole picture):

1. the rough region is rectified with a margin, and thin dark lines along each axis are
   brought out (a directional black-hat) and found with a Hough transform near that axis;
2. in each family the lines that fall on one evenly spaced sequence are kept (a vote over
   pairs of lines and the number of cells between them), so wood grain, robots and the edge of
   the table drop out; their crossings give a homography from line indices to pixels;
3. which 17 consecutive lines are the board's is told by where the cells stop: between two
   lattice lines on the board the lines across run on (a row of cells), outside it they do
   not (frame, table);
4. it is accepted only when the lattice holds on what of it is in the picture: nearly every
   one of the 15 inner lines each way is seen along the board, every row and column but one
   is a row of cells (the outermost ones always), and the cells stop on both sides of it. A
   picture that is not a board (noise, clutter) has no such lattice, and is refused; a single
   tile is refused by :func:`cell_likeness`. A lattice that holds but runs out of the picture
   names the edge it loses.

Fitting again from the lattice found (up to four times) makes the rectified view nearly exact,
so the final lines are found to a fraction of a cell. A rough quadrilateral much larger than
the board is searched a second way, for cells from a third of its size up.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from ..i18n import Message

GRID = 16
PX = 20  # rectified pixels per cell
BROAD_PX = 48  # the same, for a rough quadrilateral up to three times the board's size
MARGIN = 3  # cells of margin round the rough quadrilateral


@dataclass(frozen=True)
class LatticeFit:
    """Four lattice corners in image pixels (clockwise on screen from the top-left one), how
    well the lattice holds (``score`` 0..1), and the reason when it does not (``problem``)."""

    corners: np.ndarray | None
    score: float
    problem: str | None = None
    out_edge: str | None = None  # which of the board's edges is out of the picture


def _prepare(gray: np.ndarray, rough: np.ndarray, px: int) -> tuple[np.ndarray, np.ndarray]:
    """The rough quadrilateral rectified at ``px`` per cell with :data:`MARGIN`; returns
    the rectified picture and ``M`` (image → rectified)."""
    rough = np.asarray(rough, dtype=np.float64).reshape(4, 2)
    cell = np.sqrt(max(cv2.contourArea(rough.astype(np.float32)), 1.0)) / GRID
    k = min(1.0, 1.6 * px / max(cell, 1e-6))
    img = gray
    if k < 0.95:
        h, w = gray.shape
        img = cv2.resize(gray, (max(1, round(w * k)), max(1, round(h * k))),
                         interpolation=cv2.INTER_AREA)
    else:
        k = 1.0
    src = (rough * k).astype(np.float32)
    n = (GRID + 2 * MARGIN) * px
    dst = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], np.float32) * px + MARGIN * px
    Ms = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    warped = cv2.warpPerspective(img, Ms, (n, n), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    valid = cv2.warpPerspective(np.full(img.shape, 255, np.uint8), Ms, (n, n),
                                flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0)
    S = np.diag([k, k, 1.0])
    M = Ms @ S
    warped = warped.copy()
    warped[valid == 0] = 0
    return np.dstack([warped, valid]), M


def _responses(warped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thin dark lines across x (vertical lines) and across y (horizontal ones)."""
    g = warped[..., 0].astype(np.float32)
    valid = warped[..., 1] > 0
    g = cv2.GaussianBlur(g, (0, 0), 0.7)
    kv = np.ones((1, 7), np.uint8)
    kh = np.ones((7, 1), np.uint8)
    rv = cv2.morphologyEx(g, cv2.MORPH_CLOSE, kv) - g
    rh = cv2.morphologyEx(g, cv2.MORPH_CLOSE, kh) - g
    # smooth along each line so a line is one ridge, not a row of dots
    rv = cv2.blur(rv, (1, 9))
    rh = cv2.blur(rh, (9, 1))
    inval = cv2.erode(valid.astype(np.uint8), np.ones((9, 9), np.uint8)) == 0
    rv[inval] = 0
    rh[inval] = 0
    return rv, rh


def _hough(resp: np.ndarray, vertical: bool, px: int, near: float) -> np.ndarray:
    """Lines near one axis: rows of (position at the centre, slope, votes) — position is x at
    the middle row for vertical lines, y at the middle column for horizontal ones."""
    r = resp
    thr = max(6.0, float(np.percentile(r, 88)))
    binary = (r > thr).astype(np.uint8) * 255
    n = r.shape[0]
    c = n / 2.0
    span = 0.3
    tries = [(0.0, span), (np.pi - span, np.pi)] if vertical else \
        [(np.pi / 2 - span, np.pi / 2 + span)]
    out = []
    for lo, hi in tries:
        lines = cv2.HoughLinesWithAccumulator(binary, 1, np.pi / 360, int(2.5 * px),
                                              min_theta=lo, max_theta=hi)
        if lines is None:
            continue
        for rho, theta, votes in lines.reshape(-1, 3)[:300]:
            ct, st = np.cos(theta), np.sin(theta)
            if vertical:  # x cos + y sin = rho → x = (rho - y sin)/cos
                if abs(ct) < 1e-6:
                    continue
                pos = (rho - c * st) / ct
                slope = -st / ct
            else:
                if abs(st) < 1e-6:
                    continue
                pos = (rho - c * ct) / st
                slope = -ct / st
            out.append((pos, slope, votes))
    if not out:
        return np.zeros((0, 3))
    arr = np.array(out, dtype=np.float64)
    arr = arr[np.argsort(-arr[:, 2])]
    kept: list[np.ndarray] = []
    for ln in arr:
        if all(abs(ln[0] - k[0]) > near for k in kept):
            kept.append(ln)
        if len(kept) >= 45:
            break
    return np.array(kept)


def _sequence(pos: np.ndarray, votes: np.ndarray, shortest: float, longest: float
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """The lines that fall on one evenly spaced sequence, its spacing between ``shortest`` and
    ``longest`` pixels: (their indices, their rows)."""
    m = len(pos)
    if m < 6:
        return None
    i, j = np.triu_indices(m, 1)
    a, b = pos[i], pos[j]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    ks = np.arange(1, GRID + 1)
    d = (hi[:, None] - lo[:, None]) / ks[None, :]  # (pairs, k)
    ok = (d > shortest) & (d < longest)
    pi_, ki = np.nonzero(ok)
    if len(pi_) == 0:
        return None
    starts = lo[pi_]
    steps = d[pi_, ki]
    idx = (pos[None, :] - starts[:, None]) / steps[:, None]  # (hyp, lines)
    err = np.abs(idx - np.round(idx))
    inl = err < 0.16
    # lines on the sequence, less the places in its span where a line is missing (a sequence
    # at half the spacing takes in the cells' inner print, but has a gap at every other step)
    ri = np.where(inl, np.round(idx), np.nan)
    with np.errstate(invalid="ignore"):
        span = np.nanmax(ri, axis=1) - np.nanmin(ri, axis=1) + 1
    found = inl.sum(axis=1)
    score = found - 0.7 * np.clip(np.nan_to_num(span) - found, 0, None)
    best = int(np.argmax(score))
    # a gently changing spacing (the rough view's perspective): a 1-D projective fit
    sel = inl[best]
    ind = np.round(idx[best][sel])
    t = pos[sel]
    for _ in range(3):
        if len(t) < 5:
            return None
        A = np.column_stack([ind, np.ones_like(ind), -ind * t])
        p, q, r = np.linalg.lstsq(A, t, rcond=None)[0]
        # every line's index under the model
        denom = p - r * pos
        with np.errstate(divide="ignore", invalid="ignore"):
            fi = (pos - q) / denom
        local = np.abs((p - q * r) / (1 + r * fi) ** 2)  # d(pos)/d(index)
        err2 = np.abs(fi - np.round(fi))
        sel = np.isfinite(fi) & (err2 < 0.2) & (local > 0.75 * shortest) & (local < 1.15 * longest)
        ind = np.round(fi[sel])
        t = pos[sel]
    # one line per index: the strongest
    rows = np.nonzero(sel)[0]
    order = rows[np.argsort(-votes[rows])]
    seen: dict[int, int] = {}
    for row in order:
        k = int(round(float((pos[row] - q) / (p - r * pos[row]))))
        seen.setdefault(k, row)
    if len(seen) < 6:
        return None
    keys = np.array(sorted(seen))
    return keys, np.array([seen[k] for k in keys])


def _nanmedian(a: np.ndarray, axis: int) -> np.ndarray:
    """``np.nanmedian`` without its slow path: sort (NaN last) and take the middle of what is
    not NaN; NaN where nothing is."""
    a = np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1)
    srt = np.sort(a, axis=-1)
    n = (~np.isnan(a)).sum(axis=-1)
    lo = np.clip((n - 1) // 2, 0, None)[..., None]
    hi = np.clip(n // 2, 0, None)[..., None]
    med = 0.5 * (np.take_along_axis(srt, lo, -1) + np.take_along_axis(srt, hi, -1))[..., 0]
    return np.where(n > 0, med, np.nan)


def _crossings(vl: np.ndarray, hl: np.ndarray, c: float) -> np.ndarray:
    """Where vertical lines (x = xc + s·(y − c)) meet horizontal ones (y = yc + s·(x − c))."""
    xv, sv = vl[:, 0][:, None], vl[:, 1][:, None]
    yh, sh = hl[:, 0][None, :], hl[:, 1][None, :]
    # x = xv + sv (y - c); y = yh + sh (x - c)
    x = (xv + sv * (yh - c) - sv * sh * c) / (1 - sv * sh)
    y = yh + sh * (x - c)
    return np.dstack([x, y])


def _sample(resp: np.ndarray, G: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """``resp`` at index-space points (..., 2) mapped by ``G``; 0 off the picture, NaN off
    the rectified view."""
    flat = pts.reshape(-1, 2)
    h = flat @ G[:, :2].T + G[:, 2]
    xy = h[:, :2] / h[:, 2:3]
    n = resp.shape[0]
    x = np.round(xy[:, 0]).astype(int)
    y = np.round(xy[:, 1]).astype(int)
    inside = (x >= 0) & (x < n) & (y >= 0) & (y < n)
    out = np.full(len(flat), np.nan)
    out[inside] = resp[y[inside], x[inside]]
    return out.reshape(pts.shape[:-1])


class _Lines(NamedTuple):
    """The lattice lines one pass found: ``M`` (image → rectified), the line responses with
    NaN out of the picture (``rvn`` vertical, ``rhn`` horizontal), the indices of the lines
    kept each way (``iv``, ``ih``) and ``G`` (line indices → rectified pixels)."""

    M: np.ndarray
    rvn: np.ndarray
    rhn: np.ndarray
    iv: np.ndarray
    ih: np.ndarray
    G: np.ndarray


def _find_lines(gray: np.ndarray, rough: np.ndarray, px: int, lo: float, hi: float
                ) -> _Lines | None:
    """Steps 1 and 2 of the module docstring: the rough region rectified, its thin dark lines
    found, those on one evenly spaced sequence each way kept, and the homography from their
    indices to pixels; ``None`` when there is no such lattice."""
    warped, M = _prepare(gray, rough, px)
    rv, rh = _responses(warped)
    off = warped[..., 1] == 0  # out of the picture: says nothing either way
    rvn, rhn = rv.copy(), rh.copy()
    rvn[off] = np.nan
    rhn[off] = np.nan
    n = rv.shape[0]
    c = n / 2.0
    near = 0.3 * lo * px
    V, Hh = _hough(rv, True, px, near), _hough(rh, False, px, near)
    sv = _sequence(V[:, 0], V[:, 2], lo * px, hi * px) if len(V) else None
    sh = _sequence(Hh[:, 0], Hh[:, 2], lo * px, hi * px) if len(Hh) else None
    if sv is None or sh is None:
        return None
    iv, rows_v = sv
    ih, rows_h = sh
    pts = _crossings(V[rows_v], Hh[rows_h], c)  # (len iv, len ih, 2)
    src = np.dstack(np.meshgrid(iv, ih, indexing="ij")).reshape(-1, 2).astype(np.float32)
    dst = pts.reshape(-1, 2).astype(np.float32)
    if len(src) < 12:
        return None
    G, _ = cv2.findHomography(src, dst, cv2.RANSAC, 0.25 * lo * px)
    if G is None:
        return None
    return _Lines(M, rvn, rhn, iv, ih, G)


def _strengths(resp: np.ndarray, G: np.ndarray, t: np.ndarray, idx: np.ndarray,
               other: tuple[float, float], vertical: bool) -> np.ndarray:
    """Median response along each line ``idx`` over the other family's span (sampled at
    ``t`` along it)."""
    a, b = other
    along = a + (b - a) * t
    if vertical:
        p = np.dstack(np.meshgrid(idx, along, indexing="ij"))
    else:
        p = np.dstack(np.meshgrid(along, idx, indexing="xy"))
    s = _sample(resp, G, p)
    with np.errstate(all="ignore"):
        out = np.median(np.where(np.isnan(s), 0.0, s), axis=1)
        seen = np.mean(~np.isnan(s), axis=1)
    return np.where(seen > 0.6, out, np.nan)


def _strips(resp: np.ndarray, G: np.ndarray, t: np.ndarray, idx: np.ndarray,
            cross: np.ndarray, vertical_cross: bool) -> np.ndarray:
    """For each strip between lines ``idx`` and ``idx + 1``: how strongly the lines of
    the other family (indices ``cross``) run across it (median over them)."""
    out = []
    for k in idx:
        along = k + 0.2 + 0.6 * t[::3]
        if vertical_cross:  # strip between horizontal lines k, k+1; vertical lines cross
            p = np.dstack(np.meshgrid(cross, along, indexing="ij"))
        else:
            p = np.dstack(np.meshgrid(along, cross, indexing="xy"))
        s = _sample(resp, G, p)
        with np.errstate(all="ignore"):
            per = _nanmedian(s, axis=1)
            frac = np.mean(~np.isnan(s))
        out.append(float(_nanmedian(per, axis=0)) if frac > 0.6 else np.nan)
    return np.array(out, dtype=np.float64)


def _window(L: np.ndarray, S: np.ndarray, typical: float) -> int:
    """The first of the 17 lines (step 3): lines seen along the board and rows of cells
    between them count for it, places where the cells stop against it; what lies out of the
    picture counts neither way. ``typical`` is how strongly lines run across a row of cells."""
    tl = 0.5 * float(np.nanpercentile(L, 75)) if np.isfinite(L).any() else 0.0
    ts = 0.45 * typical
    Lz, Sz = np.nan_to_num(L - tl), np.nan_to_num(S - ts)
    best, best_s = 0, -np.inf
    for s in range(0, len(L) - GRID):
        sc = Lz[s:s + GRID + 1].sum() + 2 * Sz[s:s + GRID].sum()
        if s > 0:
            sc -= 2 * Sz[s - 1]
        if s + GRID < len(S):
            sc -= 2 * Sz[s + GRID]
        if sc > best_s:
            best, best_s = s, sc
    return best


def _image_corners(G: np.ndarray, M: np.ndarray, u0: float, v0: float) -> np.ndarray:
    """The corners of the lattice whose first lines are ``u0``, ``v0``, in image pixels (grid
    order)."""
    grid = np.array([[u0, v0], [u0 + GRID, v0], [u0 + GRID, v0 + GRID], [u0, v0 + GRID]])
    h_ = grid @ G[:, :2].T + G[:, 2]
    warp_pts = h_[:, :2] / h_[:, 2:3]
    Mi = np.linalg.inv(M)
    h2 = warp_pts @ Mi[:, :2].T + Mi[:, 2]
    return h2[:, :2] / h2[:, 2:3]


def _outside(shape: tuple[int, ...], corners: np.ndarray) -> list[str]:
    """Which picture edges (of a picture of ``shape``) the lattice's corners run out at."""
    h, w = shape[:2]
    cell = np.sqrt(max(cv2.contourArea(corners.astype(np.float32)), 1.0)) / GRID
    m = 0.3 * cell
    outside = []
    if corners[:, 1].min() < -m:
        outside.append("top")
    if corners[:, 1].max() > h - 1 + m:
        outside.append("bottom")
    if corners[:, 0].min() < -m:
        outside.append("left")
    if corners[:, 0].max() > w - 1 + m:
        outside.append("right")
    return outside


def _verdict(lines: tuple[np.ndarray, np.ndarray], mids: tuple[np.ndarray, np.ndarray],
             strips: tuple[np.ndarray, np.ndarray], wv: int, wh: int, typical: float,
             outside: list[str]) -> tuple[str | None, str | None, float]:
    """Step 4: whether the lattice holds on what of it is in the picture — its lines
    (vertical, horizontal), the responses midway between them, the rows of cells (columns,
    rows) — from its first lines ``wv``, ``wh``; returns (problem, out edge, score)."""
    Lv, Lh = lines
    mid_v, mid_h = mids
    Sv, Sh = strips
    problem = None
    out_edge = None
    # how the lattice holds, on what of it is in the picture: lines, rows of cells, and
    # where the cells stop
    inner_v, inner_h = Lv[wv + 1:wv + GRID], Lh[wh + 1:wh + GRID]
    base_v = np.nanmedian(mid_v[wv:wv + GRID])
    base_h = np.nanmedian(mid_h[wh:wh + GRID])
    seen_v, seen_h = np.isfinite(inner_v).sum(), np.isfinite(inner_h).sum()
    strong_v = int(np.nansum(inner_v > 2.0 * base_v + 2.0))
    strong_h = int(np.nansum(inner_h > 2.0 * base_h + 2.0))
    rows = np.concatenate([Sv[wv:wv + GRID], Sh[wh:wh + GRID]])
    rows_seen = int(np.isfinite(rows).sum())
    row_ok = int(np.nansum(rows > 0.3 * typical))
    beyond = []
    for S, w_, names in ((Sv, wv, ("left", "right")), (Sh, wh, ("top", "bottom"))):
        for k, name in ((w_ - 1, names[0]), (w_ + GRID, names[1])):
            val = S[k] if 0 <= k < len(S) else np.nan
            beyond.append((name, val))
    # the outermost rows and columns inside the lattice must be cells too: a lattice one
    # row off takes in a strip of frame and table on one side and leaves cells on the other
    edges = np.array([Sv[wv], Sv[wv + GRID - 1], Sh[wh], Sh[wh + GRID - 1]])
    edges_ok = bool(np.all(np.isnan(edges) | (edges > 0.3 * typical)))
    holds = (seen_v >= 6 and seen_h >= 6 and strong_v >= 0.85 * seen_v
             and strong_h >= 0.85 * seen_h and rows_seen >= 12
             and row_ok >= rows_seen - 1 and edges_ok)
    if not holds:
        problem = Message("vision.no_lattice")
    elif outside:
        problem = Message(f"vision.out_edge.{outside[0]}")
        out_edge = outside[0]
    elif seen_v < GRID - 1 or seen_h < GRID - 1 or rows_seen < 2 * GRID:
        problem = Message("vision.no_lattice")
    else:
        for _name, val in beyond:
            if np.isnan(val):
                continue
            if val > 0.5 * typical:
                problem = Message("vision.cells_run_on")
                break
    score = float(min(strong_v, strong_h) / (GRID - 1)) * float(row_ok / (2 * GRID))
    return problem, out_edge, score


def _fit_once(gray: np.ndarray, rough: np.ndarray, px: int = PX, lo: float = 0.55,
              hi: float = 1.6) -> tuple[LatticeFit, np.ndarray | None]:
    """One pass (see the module docstring): the fit, and the lattice corners in the image
    (grid order) even when the lattice did not hold, for the next pass to start from."""
    found = _find_lines(gray, rough, px, lo, hi)
    if found is None:
        return LatticeFit(None, 0.0, "no lattice of cells in view"), None
    M, rvn, rhn, iv, ih, G = found
    # line strengths and rows of cells, over a range of indices round the lines found
    # a board partly out of the picture shows fewer than 17 lines: look well past them
    ext_v, ext_h = 3, 3
    lo_v, hi_v = int(iv.min()) - ext_v, int(iv.max()) + ext_v
    lo_h, hi_h = int(ih.min()) - ext_h, int(ih.max()) + ext_h
    us = np.arange(lo_v, hi_v + 1, dtype=np.float64)
    vs = np.arange(lo_h, hi_h + 1, dtype=np.float64)
    t = np.linspace(0, 1, 48)
    span_h = (float(ih.min()), float(ih.max()))
    span_v = (float(iv.min()), float(iv.max()))
    Lv = _strengths(rvn, G, t, us, span_h, True)
    Lh = _strengths(rhn, G, t, vs, span_v, False)
    mid_v = _strengths(rvn, G, t, us + 0.5, span_h, True)
    mid_h = _strengths(rhn, G, t, vs + 0.5, span_v, False)
    core_v = iv[(iv > iv.min()) & (iv < iv.max())].astype(np.float64)
    core_h = ih[(ih > ih.min()) & (ih < ih.max())].astype(np.float64)
    Sh = _strips(rvn, G, t, vs, core_v, True)  # rows of cells (between horizontal lines)
    Sv = _strips(rhn, G, t, us, core_h, False)  # columns of cells

    if len(Lv) < GRID + 1 or len(Lh) < GRID + 1:
        return LatticeFit(None, 0.0, "no lattice of cells in view"), None
    rows_all = np.concatenate([Sv, Sh])
    if not np.isfinite(rows_all).any():
        return LatticeFit(None, 0.0, "no lattice of cells in view"), None
    typical = float(np.nanpercentile(rows_all, 75))

    wv, wh = _window(Lv, Sv, typical), _window(Lh, Sh, typical)
    corners = _image_corners(G, M, us[wv], vs[wh])
    # which picture edge a cut-off lattice side runs out at
    outside = _outside(gray.shape, corners)
    problem, out_edge, score = _verdict((Lv, Lh), (mid_v, mid_h), (Sv, Sh), wv, wh, typical,
                                        outside)
    if problem is not None:
        return LatticeFit(None, score, problem, out_edge), corners
    return LatticeFit(_screen_order(corners), score), corners


def _screen_order(pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    return np.roll(pts, -start, axis=0)


def fit_lattice(gray: np.ndarray, rough: np.ndarray, *, broad: bool = True) -> LatticeFit:
    """The board's lattice from a rough quadrilateral round it (see the module docstring);
    ``broad`` also looks for a board much smaller than the quadrilateral."""
    rough = np.asarray(rough, dtype=np.float64).reshape(4, 2)
    if not np.isfinite(rough).all() or cv2.contourArea(rough.astype(np.float32)) < 100:
        return LatticeFit(None, 0.0, "no lattice of cells in view")
    best: LatticeFit | None = None
    # first as if the rough quadrilateral were nearly the board; failing that, looking for
    # cells from a third of its size up (a board filling a third of the picture)
    for first in ((PX, 0.55, 1.6), (BROAD_PX, 0.3, 1.6))[:2 if broad else 1]:
        start = rough
        for n in range(4):
            with warnings.catch_warnings():  # medians of lines wholly off the picture
                warnings.simplefilter("ignore", RuntimeWarning)
                fit, corners = _fit_once(gray, start, *first) if n == 0 else \
                    _fit_once(gray, start)
            if best is None or (fit.corners is not None) > (best.corners is not None) or (
                    (fit.corners is not None) == (best.corners is not None)
                    and fit.score > best.score):
                best = fit
            if corners is None:
                break
            corners = _screen_order(corners)
            cell = np.sqrt(max(cv2.contourArea(corners.astype(np.float32)), 1.0)) / GRID
            if fit.corners is not None and \
                    np.abs(corners - _screen_order(start)).max() < 0.1 * cell:
                break
            start = corners
        if best is not None and (best.corners is not None or best.out_edge is not None):
            break
    assert best is not None
    return best


def cell_likeness(gray: np.ndarray, loc: object, px: int = 16) -> tuple[float, float]:
    """How alike neighbouring cells look (median normalised correlation of each cell with the
    next one along either axis), and the same for cells two apart.

    On a board the cells repeat at every cell, so both are high. A lattice fitted at half the
    real spacing (a single tile taken for the board: its 8 cells seen as 16) repeats only at
    every second "cell", so the first is far below the second."""
    warped = loc.warp(gray, px).astype(np.float32)  # type: ignore[attr-defined]
    cells = warped.reshape(GRID, px, GRID, px).transpose(0, 2, 1, 3).reshape(GRID, GRID, -1)
    cells = cells - cells.mean(axis=2, keepdims=True)
    norm = np.linalg.norm(cells, axis=2, keepdims=True)
    cells = cells / np.maximum(norm, 1e-3)

    def at(k: int) -> float:
        a = (cells[:, :-k] * cells[:, k:]).sum(axis=2).ravel()
        b = (cells[:-k] * cells[k:]).sum(axis=2).ravel()
        return float(np.median(np.concatenate([a, b])))

    return at(1), at(2)
