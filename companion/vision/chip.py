"""The target chip on the centre piece: its colour and its symbol.

The chip is small (a cell across) and lies at a random angle, so it is read in two steps:

* **Colour** from the hues on the centre piece, against the same hue references as the robots.
  A chip showing three or more colours at once is the vortex; a centre piece with no colour
  and no bright print on it holds no chip.
* **Symbol** by comparison with *the board's own target squares* of that colour: the board
  carries exactly one circle, triangle, square and hexagon of every colour, printed with the
  same ink under the same light, so they are the best possible templates. The chip's outline
  (edge map) is matched against each at every quarter turn plus small angles and a few scales;
  matching edges rather than grey levels also copes with chips whose fill differs from the
  board's print.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..board import COLORS, Board
from .colours import Profile, balanced_lab, white_of
from .locate import GRID, Location

PX = 40  # rectified pixels per cell for the chip and its templates


@dataclass(frozen=True)
class ChipReading:
    """``color`` is red/green/blue/yellow or ``any`` (vortex); ``shape`` a board shape or
    ``vortex``; ``None`` when the board is unknown. ``confidence`` 0..1."""

    color: str
    shape: str | None
    confidence: float

    def to_dict(self) -> dict[str, str]:
        out = {"color": self.color}
        if self.shape:
            out["shape"] = self.shape
        return out


def _patch(image: np.ndarray, loc: Location, u: float, v: float, size: float) -> np.ndarray:
    """A square of the board, ``size`` cells across centred on grid ``(u, v)``, from above."""
    n = int(round(size * PX))
    s = size / n
    S = np.array([[s, 0, u - size / 2 + s / 2], [0, s, v - size / 2 + s / 2], [0, 0, 1]])
    M = loc.H @ S
    return cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _hue_fractions(lab: np.ndarray, profile: Profile) -> tuple[np.ndarray, float]:
    """Fraction of clearly coloured pixels near each colour's hue, and the coloured fraction."""
    a, b = lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    hue = np.arctan2(b, a)
    coloured = chroma > 14
    n = max(int(coloured.sum()), 1)
    fr = []
    for c in COLORS:
        ra, rb = profile.references[c][1:]
        dh = np.abs(np.angle(np.exp(1j * (hue - np.arctan2(rb, ra)))))
        fr.append(float((coloured & (dh < 0.45)).sum()) / n)
    return np.array(fr), float(coloured.mean())


def _ink(bgr: np.ndarray, white: np.ndarray, colour: str, profile: Profile) -> np.ndarray:
    """How much each pixel is the ink of ``colour`` (0..1), as a float image."""
    lab = balanced_lab(bgr.astype(np.float32), white)
    m = profile.membership(lab[None])  # profile lists robot colours; ask by reference
    if colour in m:
        return m[colour][0].astype(np.float32)
    tmp = Profile(references=profile.references, robots=(colour,))
    return tmp.membership(lab[None])[colour][0].astype(np.float32)


SYMBOL = 0.72  # the part of a target cell its symbol covers, in cells
SCALES = (1.0, 1.3, 1.6, 1.85)  # chip symbol size over board symbol size


def _features(bgr: np.ndarray, white: np.ndarray, colour: str, profile: Profile) -> np.ndarray:
    """The ink of one colour: the symbol's coloured shape, whatever surrounds it."""
    ink = _ink(bgr, white, colour, profile)
    return cv2.GaussianBlur(ink, (3, 3), 0)


def read_chip(image: np.ndarray, loc: Location, board: Board | None,
              profile: Profile | None = None) -> ChipReading | None:
    """The chip on the centre piece (``loc`` oriented, north first), or ``None`` if there is
    none. Without a board only the colour is read."""
    profile = profile or Profile()
    white = white_of(loc.warp(image, 6))
    centre = _patch(image, loc, GRID / 2, GRID / 2, 1.6)
    lab = balanced_lab(centre.astype(np.float32), white)
    fr, coloured = _hue_fractions(lab, profile)
    L = lab[..., 0]
    bright = float((L > 55).mean())
    if coloured < 0.01 and bright < 0.02:
        return None
    strong = np.sort(fr)[::-1]
    if strong[3] > 0.1 and strong[0] < 0.35 and coloured > 0.08:  # all four colours at once
        return ChipReading("any", "vortex", float(min(1.0, strong[2] / 0.2)))
    if coloured < 0.01:
        return None
    k = int(np.argmax(fr))
    colour = COLORS[k]
    conf_colour = float(strong[0] - strong[1])
    if board is None:
        return ChipReading(colour, None, conf_colour)
    cands = [t for t in board.targets if t.color == colour]
    if not cands:
        return ChipReading(colour, None, conf_colour)
    scores = _shape_scores(lab, _ink(centre, white, colour, profile), PX,
                           {t.shape for t in cands})
    if not scores:
        return ChipReading(colour, None, conf_colour)
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    shape = ranked[0][0]
    margin = ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else -1.0)
    return ChipReading(colour, shape, float(min(1.0, conf_colour) * min(1.0, margin / 0.02)))


def read_symbol(bgr: np.ndarray, colour: str, profile: Profile | None = None) -> str | None:
    """The symbol on a square picture of one printed target (or chip) of a known colour."""
    profile = profile or Profile()
    side = min(bgr.shape[:2])
    pad = max(2, side // 5)  # room around the symbol, as on the centre piece
    img = cv2.copyMakeBorder(bgr, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    white = white_of(img)
    lab = balanced_lab(img.astype(np.float32), white)
    scores = _shape_scores(lab, _ink(img, white, colour, profile), side, set(_references()))
    return max(scores, key=scores.get) if scores else None


def _shape_scores(lab: np.ndarray, ink: np.ndarray, cell_px: int, shapes: set[str]
                  ) -> dict[str, float]:
    """How well each shape's outline explains the symbol's (higher is better)."""
    sigs = [sg for sg in (signature(silhouette(lab, ink, cell_px=cell_px)),
                          signature(silhouette(lab, ink, outline=False, cell_px=cell_px)))
            if sg is not None]
    if not sigs:
        return {}
    # A small symbol's corners come out rounded, which weakens its harmonics evenly: fit each
    # ideal outline's harmonics with a gain, and keep the one that leaves the least unexplained.
    scores = {}
    for shape, ref in _references().items():
        if shape not in shapes:
            continue
        # The 2nd harmonic is left out: it is elongation, which a slightly wrong board corner
        # gives any symbol.
        r2 = ref[1:]
        rr = float(r2 @ r2)
        total = 0.0
        for one in sigs:
            s2 = one[1:]
            gain = float(np.clip(s2 @ r2 / rr, 0.55, 1.2)) if rr > 1e-5 else 0.0
            total += float(np.linalg.norm(s2 - gain * r2))
        scores[shape] = -total / len(sigs)
    return scores


def silhouette(lab: np.ndarray, ink: np.ndarray, outline: bool = True,
               cell_px: int = PX) -> np.ndarray:
    """The symbol's filled outline, from balanced Lab and the ink of its colour.

    Printed chips are light squares: the symbol is the ink and its dark outline, everything
    that is not the light ground, grown out from the ink. Tokens are dark discs: the symbol is
    its light outline and the ink, within half a cell of the ink. ``outline=False`` keeps a
    printed chip's coloured field alone: a second opinion where the outline is faint."""
    h, w = ink.shape
    inked = ink > 0.35  # printed ink strays further in hue than a robot's plastic
    m = inked.astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(m)
    if n <= 1:
        return np.zeros((h, w), np.uint8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    big = 1 + int(np.argmax(areas))
    core = labels == big
    # Ink cut into pieces by a star or a sun: its centre is that of all the sizeable pieces.
    pieces = 1 + np.nonzero(areas >= 0.05 * areas.max())[0]
    weights = stats[pieces, cv2.CC_STAT_AREA].astype(np.float64)
    cx, cy = (cents[pieces] * weights[:, None]).sum(axis=0) / weights.sum()
    inked_all = np.isin(labels, pieces)
    L = lab[..., 0]
    ring = cv2.dilate(core.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    ring &= ~(cv2.dilate(core.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0)
    ground = float(np.median(L[ring])) if ring.any() else 50.0
    yy, xx = np.mgrid[0:h, 0:w]
    d2 = (xx - cx) ** 2 + (yy - cy) ** 2
    near = d2 <= (0.5 * cell_px) ** 2
    if ground >= 45:  # a light square: its ground is the lightest print around the symbol
        ground = float(np.percentile(L[near], 90))
    if ground < 45:  # a token: its own bright rim lies about 0.4 cell out; keep inside it
        near = d2 <= (0.35 * cell_px) ** 2
    if ground >= 45:
        sym = (((L < ground - 18) & outline) | inked) & near
    else:
        sym = ((L > ground + 22) | inked) & near
    sym = cv2.morphologyEx(sym.astype(np.uint8) * 255, cv2.MORPH_CLOSE,
                           np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(sym)
    keep = np.zeros((h, w), np.uint8)
    core_labels = set(np.unique(labels[core if outline else inked_all])) - {0}
    if ground < 45:  # a token's outline is often broken into pieces: keep all near the ink
        core_labels |= set(range(1, n))
    for lab_id in core_labels:
        keep[labels == lab_id] = 255
    cnts, _ = cv2.findContours(keep, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros_like(keep)
    if cnts:  # every symbol's outline is convex: the hull mends a broken or hollow print
        pts = np.vstack(cnts) if ground < 45 or not outline else max(cnts, key=cv2.contourArea)
        cv2.fillPoly(out, [cv2.convexHull(pts)], 255)
    return out


def signature(mask: np.ndarray, n: int = 128) -> np.ndarray | None:
    """Rotation- and scale-free shape numbers: the outline's radius around its centroid as a
    function of angle, normalised, as the strength of its 2nd to 8th harmonics."""
    if cv2.countNonZero(mask) < 12:
        return None
    if mask.shape[0] < 200:  # a denser outline: every angle bin gets its points
        k = 200 // mask.shape[0] + 1
        mask = cv2.resize(mask, None, fx=k, fy=k, interpolation=cv2.INTER_LINEAR)
        mask = (mask > 127).astype(np.uint8) * 255
    m = cv2.moments(mask, binaryImage=True)
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = max(cnts, key=len).reshape(-1, 2).astype(np.float64)
    ang = np.arctan2(pts[:, 1] - cy, pts[:, 0] - cx)
    rad = np.hypot(pts[:, 0] - cx, pts[:, 1] - cy)
    bins = ((ang + np.pi) / (2 * np.pi) * n).astype(int) % n
    r = np.zeros(n)
    np.maximum.at(r, bins, rad)
    filled = r > 0
    if filled.sum() < n // 2:
        return None
    idx = np.arange(n)
    r = np.interp(idx, idx[filled], r[filled], period=n)
    r /= r.mean()
    spec = np.abs(np.fft.rfft(r - 1.0)) / n
    return spec[2:9]


def _references() -> dict[str, np.ndarray]:
    """Signatures of the four ideal outlines."""
    if _REFS:
        return _REFS
    s = 200
    c = s / 2
    shapes = {
        "circle": [(c + 70 * np.cos(a), c + 70 * np.sin(a)) for a in np.linspace(0, 6.28, 90)],
        "triangle": [(c + 80 * np.cos(a), c + 80 * np.sin(a))
                     for a in np.pi / 2 + np.arange(3) * 2 * np.pi / 3],
        "square": [(c + 60, c + 60), (c - 60, c + 60), (c - 60, c - 60), (c + 60, c - 60)],
        "hexagon": [(c + 70 * np.cos(a), c + 70 * np.sin(a))
                    for a in np.pi / 2 + np.arange(6) * np.pi / 3],
    }
    for name, pts in shapes.items():
        m = np.zeros((s, s), np.uint8)
        cv2.fillPoly(m, [np.array(pts, np.int32)], 255)
        sig = signature(m)
        assert sig is not None
        _REFS[name] = sig
    return _REFS


_REFS: dict[str, np.ndarray] = {}
