"""The target chip on the centre piece: its colour and its symbol.

A revealed chip lies on the centre piece, about a cell across, at any angle. Chips come in two
looks: a light printed square (the symbol on white paper, as the board prints its targets) and
a dark round token (the symbol's light outline and coloured fill on black). Reading goes:

* **Find the chip.** A light chip is what rises well above the centre piece's own light (a
  smooth surface fitted to the piece's rim, so a glare or a gradient over the piece is not
  taken for a chip) in the size and shape of a chip. Its own paper lies under the same light as
  its symbol, so the chip is balanced against that paper, not against the board's white far
  away. A dark token is the black disc on the grey piece, read against the board's white.
* **Colour.** Every clearly coloured pixel (clearer than plain paper's noise) goes to the
  nearest of the four ink hues *as the board's own printed target squares show them in this
  very frame*: the same ink under the same light, so a colour cast or one table's printing
  moves the chip and its references together. Three or more colours at once, with none
  ruling, is the vortex.
* **Symbol.** Its outline (the coloured field, and the field with the dark rim printed round
  it), turned into rotation- and scale-free numbers (the harmonics of its radius around its
  centre), against the ideal circle, triangle, square and hexagon among the shapes the board
  prints in that colour. Round outlines differ little (a hexagon's corners blur away), their
  middles wholly: the moon is solid ink there, the comet's sun an ink dot, the planet and the
  star are light print — so the middle rules out what it contradicts.
* **Never a guess.** A chip whose colour is mixed, whose symbol fits two shapes nearly as
  well, whose outline and middle disagree, or which the picture shows too blurred to tell
  (measured on the centre piece's own straight sides) is returned *unread*, with the reason;
  the players then pick the chip on the page. A bare piece is no chip at all: what does not
  rise above the piece's own light and noise is not there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .. import i18n
from ..board import COLORS, SHAPES, VORTEX, Board
from ..i18n import Message
from .colours import Profile, balanced_lab, white_of
from .locate import GRID, Location

PX = 80  # rectified pixels per cell at the least (outlines fall between pixels less coarsely)
PX_MAX = 120  # and at the most: finer adds time, not certainty
PIECE = 1.9  # the part of the centre piece searched for the chip, cells across

COLOUR_SHARE = 0.72  # a single-colour chip: at least this share of its coloured pixels
VORTEX_SHARE = 0.08  # the vortex: three colours with at least this share each ...
VORTEX_TOP = 0.6  # ... and none with more than this
SHAPE_MARGIN = 0.003  # the best shape must beat the next by this much (harmonic distance)
DISAGREE = 0.006  # a shape its middle allows, but whose outline is this much worse: unread
BLUR_MAX = 0.08  # cells: blurrier, a star's middle and corners are gone and it looks a moon
# How much of each symbol's middle is light print (see _centre_light): the moon is solid ink
# there, the comet's sun an ink dot in a light ring, the planet and the star are light.
MIDDLE = {"circle": (0.0, 0.1), "triangle": (0.0, 0.3), "square": (0.15, 1.0),
          "hexagon": (0.15, 1.0)}

ShapesOf = Callable[[str], set[str]]  # a colour → the symbols a chip of it may show


@dataclass(frozen=True)
class ChipReading:
    """What the centre piece shows.

    ``color`` is red/green/blue/yellow, ``any`` for the vortex, or ``None`` when even the
    colour could not be told; ``shape`` a board shape or ``vortex``, ``None`` while unread.
    ``reason`` says why the chip is unread (``None`` when it was read). ``confidence`` 0..1."""

    color: str | None
    shape: str | None
    confidence: float
    reason: str | None = None

    @property
    def read(self) -> bool:
        """Colour and symbol both known: the chip names one target."""
        return self.reason is None and self.color is not None and self.shape is not None

    def label(self) -> str:
        """``blue triangle``, ``vortex``, or what is unread and why, in the user's words."""
        if self.read:
            return "vortex" if self.shape == VORTEX else f"{self.color} {self.shape}"
        seen = f"a {self.color} chip" if self.color else "a chip"
        return f"{seen}, unread: {self.reason}"

    def to_dict(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.color:
            out["color"] = self.color
        if self.shape:
            out["shape"] = self.shape
        return out


def _shape(name: str) -> object:
    """A symbol's name for players (``circle`` → *Kreis*, *cercle*)."""
    return Message(f"shape.{name}") if name in (*SHAPES, VORTEX) else name


def _unread(reason: str, color: str | None = None, confidence: float = 0.0) -> ChipReading:
    return ChipReading(color, None, confidence, reason)


# ---------------------------------------------------------------- sampling


def _px_per_cell(loc: Location) -> tuple[int, float]:
    """How finely to sample the centre piece (about twice as finely as the picture shows it,
    within bounds), and how finely the picture shows it."""
    c = GRID / 2
    p = loc.to_image(np.array([[c - 1, c - 1], [c + 1, c - 1], [c + 1, c + 1], [c - 1, c + 1]]))
    side = float(np.mean([np.linalg.norm(p[i] - p[(i + 1) % 4]) for i in range(4)])) / 2
    return int(np.clip(round(2 * side), PX, PX_MAX)), side


def _patch(image: np.ndarray, loc: Location, u: float, v: float, size: float,
           px: int = PX) -> np.ndarray:
    """A square of the board, ``size`` cells across centred on grid ``(u, v)``, from above."""
    n = int(round(size * px))
    s = size / n
    S = np.array([[s, 0, u - size / 2 + s / 2], [0, s, v - size / 2 + s / 2], [0, 0, 1]])
    M = loc.H @ S
    return cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def blur_at_centre(image: np.ndarray, loc: Location) -> float:
    """How blurred the picture is around the centre piece, in cells (a Gaussian's sigma).

    The piece's four straight sides against the light cells are the sharpest long edges on
    the board: across each short stretch of them the light rises by a step ``h`` whose
    steepest slope is ``h / (sigma * sqrt(2 pi))``. The median over all stretches leaves out
    those a robot or a chip covers."""
    _, seen = _px_per_cell(loc)
    px = int(np.clip(round(4 * seen), 64, 200))
    grey = cv2.cvtColor(_patch(image, loc, GRID / 2, GRID / 2, 3.0, px),
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    a, b = int(0.5 * px), int(2.5 * px)  # the block's sides in this patch
    half, seg = int(0.4 * px), int(0.25 * px)
    sigmas = []
    for side in range(4):
        g = np.rot90(grey, side)  # each side in turn at the top
        for x0 in range(a + seg // 2, b - seg, seg):
            profile = g[a - half:a + half, x0:x0 + seg].mean(axis=1)
            step = abs(float(profile[:half // 3].mean() - profile[-half // 3:].mean()))
            slope = float(np.abs(np.diff(profile)).max())
            if step >= 20 and slope > 0:
                sigmas.append(step / (np.sqrt(2 * np.pi) * slope) / px)
    return float(np.median(sigmas)) if sigmas else 0.0


# ---------------------------------------------------------------- colour


def _ref_hues(profile: Profile) -> np.ndarray:
    """The four ink hues (radians in Lab's a-b plane), in :data:`COLORS` order, from the
    profile."""
    return np.array([np.arctan2(profile.references[c][2], profile.references[c][1])
                     for c in COLORS])


def board_inks(image: np.ndarray, loc: Location, board: Board, white: np.ndarray,
               profile: Profile | None = None, px: int = 24) -> np.ndarray:
    """The four ink hues as the board's own printed targets show them in this frame.

    Each target square is balanced against its own light print, so a gradient or a glare
    across the board does not move its hue; each colour's hue is the median of its targets
    (a robot standing on one does not carry it), taken when three of them agree, or two that
    agree with the profile too. Otherwise the profile's hue stands."""
    hues = _ref_hues(profile or Profile())
    seen: dict[str, list[float]] = {c: [] for c in COLORS}
    top = loc.warp(image, px)  # the board from above, north up
    m = px // 5
    for t in board.targets:
        if t.color not in seen:
            continue
        f, r = board.xy(t.cell)
        v = board.height - 1 - r
        cell = top[v * px:(v + 1) * px, f * px:(f + 1) * px].reshape(-1, 3).astype(np.float32)
        lum = cell.sum(axis=1)
        local = np.median(cell[lum >= np.percentile(lum, 85)], axis=0)
        lab = balanced_lab(top[v * px + m:(v + 1) * px - m, f * px + m:(f + 1) * px - m]
                           .astype(np.float32), np.maximum(np.maximum(local, white * 0.25), 1.0))
        a, b = lab[..., 1].ravel(), lab[..., 2].ravel()
        chroma = np.hypot(a, b)
        strong = chroma >= max(12.0, float(np.percentile(chroma, 80)))
        if strong.sum() < 4:
            continue
        # the chroma-weighted mean direction of (a, b) is that of their plain sum
        seen[t.color].append(float(np.arctan2(b[strong].sum(), a[strong].sum())))
    for k, colour in enumerate(COLORS):
        if len(seen[colour]) < 2:
            continue
        off = np.angle(np.exp(1j * (np.array(seen[colour]) - hues[k])))  # from the profile
        mid = float(np.median(off))
        agree = int((np.abs(np.angle(np.exp(1j * (off - mid)))) < 0.35).sum())
        if agree >= 3 or (agree == 2 and abs(mid) < 0.6):
            hues[k] += mid
    return hues


def _votes(lab: np.ndarray, where: np.ndarray, hues: np.ndarray, min_chroma: float = 12.0,
           noise: float = 0.0) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Each clearly coloured pixel in ``where`` votes for its nearest ink hue; ``noise`` is
    the chroma plain paper reaches here.

    Returns each colour's share of the votes, the coloured share of ``where``, the coloured
    mask and each pixel's nearest colour (-1 where not coloured)."""
    a, b = lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    inside = chroma[where]
    if inside.size:  # glare pales every ink alike: judge colour against the chip's own
        min_chroma = max(7.0, min(min_chroma, 0.45 * float(np.percentile(inside, 97))))
    coloured = where & (chroma >= max(min_chroma, 1.3 * noise))
    nearest = np.full(coloured.shape, -1, np.int64)
    hue = np.arctan2(b[coloured], a[coloured])
    nearest[coloured] = np.argmin(np.abs(np.angle(np.exp(1j * (hue[:, None] - hues)))), axis=1)
    n = max(int(coloured.sum()), 1)
    shares = np.bincount(nearest[coloured], minlength=len(hues)).astype(float) / n
    return shares, float(coloured.sum()) / max(int(where.sum()), 1), coloured, nearest


def _colour(shares: np.ndarray, coloured_share: float) -> ChipReading | tuple[int, float]:
    """The vortex, an unread chip, or the one colour's index and how sure it is."""
    if (int((shares >= VORTEX_SHARE).sum()) >= 3 and float(shares.max()) <= VORTEX_TOP
            and coloured_share > 0.08):
        return ChipReading("any", VORTEX, float(min(1.0, np.sort(shares)[-3] / 0.2)))
    top = int(np.argmax(shares))
    if shares[top] < COLOUR_SHARE:
        second = COLORS[int(np.argsort(shares)[-2])]
        return _unread(Message("chip.why.mixed", color=i18n.color(COLORS[top]),
                               other=i18n.color(second)),
                       confidence=float(shares[top]))
    return top, float(min(1.0, (shares[top] - COLOUR_SHARE) / (1 - COLOUR_SHARE) + 0.5))


# ---------------------------------------------------------------- finding the chip


def _rim(px: int, n: int) -> np.ndarray:
    """The centre piece's rim in a patch of it, ``n`` pixels across: where a chip seldom lies."""
    a, b = int(round(0.06 * px)), int(round(0.3 * px))
    rim = np.zeros((n, n), bool)
    rim[a:n - a, a:n - a] = True
    rim[b:n - b, b:n - b] = False
    return rim


def _piece_light(grey: np.ndarray, px: int) -> np.ndarray:
    """How the light falls on the centre piece: a smooth surface fitted to the piece's rim
    (the brighter outliers, a chip's corner or the board beyond, left out), so that a glare
    or a gradient over the piece is not taken for a chip."""
    n = grey.shape[0]
    yy, xx = (np.mgrid[0:n, 0:n].astype(np.float32) - (n - 1) / 2) / (n / 2)
    rim = _rim(px, n)
    rim[1::2] = False  # every other row is plenty for six numbers
    x, y, g = xx[rim], yy[rim], grey[rim]
    A = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1).astype(np.float64)
    keep = np.ones(len(g), bool)
    coef = np.zeros(6)
    for _ in range(3):
        Ak = A[keep]
        coef = np.linalg.solve(Ak.T @ Ak + 1e-6 * np.eye(6), Ak.T @ g[keep])
        res = g - A @ coef
        keep = res <= np.percentile(res, 60)
    return (coef[0] + coef[1] * xx + coef[2] * yy + coef[3] * xx * xx + coef[4] * xx * yy
            + coef[5] * yy * yy)


def _clear_edge(mask: np.ndarray, px: int) -> np.ndarray:
    """The mask without the patch's edge: the board beyond the piece, if the corners are a
    little off, or a robot leaning over it."""
    e = max(1, int(round(0.08 * px)))
    mask[:e] = 0
    mask[-e:] = 0
    mask[:, :e] = 0
    mask[:, -e:] = 0
    return mask


def _largest(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The largest blob of a mask: its pixels, its filled outline, and that outline."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
    if count <= 1:
        return None
    blob = labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    cnts, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(cnts, key=cv2.contourArea)
    filled = np.zeros(mask.shape, np.uint8)
    cv2.drawContours(filled, [outline], -1, 1, -1)
    return blob, filled.astype(bool), outline


def _light_chip(piece: np.ndarray, rise: np.ndarray, board_white: np.ndarray, px: int
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """A light chip on the dark centre piece (``rise``: how far above the piece's own light
    each pixel is): its filled outline and its paper, or ``None`` when nothing of a chip's
    size and shape rises well above the piece there."""
    bgr = piece.astype(np.float32)
    grey = bgr.mean(axis=2)
    top = float(np.percentile(rise, 98))
    if top < 0.15 * float(board_white.mean()):
        return None
    # Balanced as the board is, but never clipped: under a glare the chip and the piece are
    # both brighter than the board's white.
    scale = max(1.0, float(np.percentile(grey, 99)) / float(board_white.mean()))
    lab = balanced_lab(bgr, board_white * scale)
    plain = np.hypot(lab[..., 1], lab[..., 2]) < 18  # paper, not a light ink like yellow
    bright = _clear_edge(((rise > 0.5 * top) & plain).astype(np.uint8), px)
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    found = _largest(bright)
    if found is None:
        return None
    paper = found[0]
    # The whole chip: what rises at least part of the way, joined to its paper (a pale symbol
    # or a shaded corner under a glare), and convex, as every chip is.
    count, labels = cv2.connectedComponents(_clear_edge((rise > 0.3 * top).astype(np.uint8),
                                                       px))
    whole = np.isin(labels, list(set(np.unique(labels[paper])) - {0}))
    cnts, _ = cv2.findContours(whole.astype(np.uint8), cv2.RETR_EXTERNAL,
                               cv2.CHAIN_APPROX_NONE)
    outline = cv2.convexHull(max(cnts, key=cv2.contourArea))
    filled = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(filled, [outline], 1)
    area = float(filled.sum())
    (_, _), (w, h), _ = cv2.minAreaRect(outline)
    _, radius = cv2.minEnclosingCircle(outline)
    squareish = area / max(w * h, 1.0) >= 0.82 and max(w, h) <= 1.3 * min(w, h)
    roundish = area / max(np.pi * radius ** 2, 1.0) >= 0.8
    if not (0.45 <= area / px ** 2 <= 2.0 and (squareish or roundish)):
        return None
    return filled.astype(bool), paper


def _token_face(lab: np.ndarray, px: int) -> np.ndarray | None:
    """A dark token's face: the black disc on the grey piece, its symbol inside, or ``None``."""
    L = lab[..., 0]
    piece = float(np.median(L))
    dark = _clear_edge(((L < 0.6 * piece) & (L < piece - 6)).astype(np.uint8), px)
    dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    found = _largest(dark)
    if found is None:
        return None
    outline = cv2.convexHull(found[2])  # the symbol may cut into the face's outline
    face = np.zeros(L.shape, np.uint8)
    cv2.fillPoly(face, [outline], 1)
    _, radius = cv2.minEnclosingCircle(outline)
    area = float(face.sum())
    if not (0.15 <= area / px ** 2 <= 1.6 and area / max(np.pi * radius ** 2, 1.0) >= 0.6):
        return None
    return face.astype(bool)


# ---------------------------------------------------------------- reading


def read_chip(image: np.ndarray, loc: Location, board: Board | None,
              profile: Profile | None = None) -> ChipReading | None:
    """The chip on the centre piece (``loc`` oriented, north first): read, or unread with the
    reason, or ``None`` when the piece is bare. Without a board only the colour is read."""
    profile = profile or Profile()
    px, seen = _px_per_cell(loc)
    board_white = white_of(loc.warp(image, 6))
    hues = (board_inks(image, loc, board, board_white, profile) if board is not None
            else _ref_hues(profile))
    piece = _patch(image, loc, GRID / 2, GRID / 2, PIECE, px)
    # sensor noise, amplified where the light is dim, would vote for every colour
    piece = cv2.GaussianBlur(piece, (0, 0), 0.8 * px / max(seen, 1.0))
    shapes_of = None if board is None else _board_shapes(board)
    blur = blur_at_centre(image, loc)
    grey = piece.astype(np.float32).mean(axis=2)
    rise = grey - _piece_light(grey, px)
    light = _light_chip(piece, rise, board_white, px)
    if light is not None:
        return _read_light(piece, *light, px, hues, shapes_of, blur)
    lab = balanced_lab(piece.astype(np.float32), board_white)
    # what the bare piece shows at its rim: anything less than that above it is not there
    rim = _rim(px, len(lab))
    noise = float(np.percentile(np.hypot(lab[..., 1], lab[..., 2])[rim], 99))
    standing = rise > max(0.15 * float(board_white.mean()),
                          2.0 * float(np.percentile(np.abs(rise[rim]), 95)))
    return _read_dark(lab, px, hues, shapes_of, blur, noise, standing)


def _board_shapes(board: Board) -> ShapesOf:
    """The symbols the board prints in a colour: the only ones its chips can show."""
    return lambda colour: {t.shape for t in board.targets if t.color == colour}


def _read_light(bgr: np.ndarray, filled: np.ndarray, paper: np.ndarray, px: int,
                hues: np.ndarray, shapes_of: ShapesOf | None, blur: float = 0.0
                ) -> ChipReading:
    """A light chip: balanced against its own paper, coloured by vote, shaped by outline."""
    lum = bgr.astype(np.float32).sum(axis=2)
    paper = paper & (lum >= np.percentile(lum[paper], 40))  # not the paper's shaded edge
    lab = balanced_lab(bgr.astype(np.float32),
                       np.maximum(np.median(bgr[paper].astype(np.float32), axis=0), 1.0))
    k = max(3, int(round(px * 0.07)) | 1)
    inner = cv2.erode(filled.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    noise = float(np.percentile(np.hypot(lab[..., 1], lab[..., 2])[paper], 95))
    shares, coloured_share, coloured, nearest = _votes(lab, inner, hues, noise=noise)
    if coloured_share < 0.02:
        return _unread(Message("chip.why.no_colour_face_down"))
    got = _chip_colour(shares, coloured_share, shapes_of, blur)
    if isinstance(got, ChipReading):
        return got
    top, conf, shapes = got
    ground_L = float(np.median(lab[..., 0][paper]))
    sils = _light_silhouettes(lab, coloured & (nearest == top), inner, ground_L)
    allowed = shapes
    if sils:
        middle = _centre_light(lab, sils[0], ground_L)
        allowed = {sh for sh in shapes if MIDDLE[sh][0] <= middle <= MIDDLE[sh][1]}
    return _decide(COLORS[top], conf, sils, shapes, allowed)


def _chip_colour(shares: np.ndarray, coloured_share: float, shapes_of: ShapesOf | None,
                 blur: float) -> ChipReading | tuple[int, float, set[str]]:
    """The chip's colour, how sure it is, and the symbols the chip may then show; or the
    vortex; or, as an unread reading, why the colour or the symbol is not to be told."""
    colour = _colour(shares, coloured_share)
    if isinstance(colour, ChipReading):
        return colour
    top, conf = colour
    if shapes_of is None:
        return _unread(Message("chip.why.no_tiles"), COLORS[top], conf)
    if blur > BLUR_MAX:
        return _unread(Message("chip.why.blurred"), COLORS[top], conf)
    return top, conf, shapes_of(COLORS[top])


def _read_dark(lab: np.ndarray, px: int, hues: np.ndarray, shapes_of: ShapesOf | None,
               blur: float = 0.0, noise: float = 0.0, standing: np.ndarray | None = None
               ) -> ChipReading | None:
    """No light chip: a dark token, the vortex, or nothing on the centre piece. ``noise`` is
    the chroma the bare piece reaches, ``standing`` where something rises above its light."""
    n = lab.shape[0]
    face = _token_face(lab, px)
    if face is None:
        yy, xx = np.mgrid[0:n, 0:n]
        where = ((xx - n / 2) ** 2 + (yy - n / 2) ** 2) <= (0.8 * px) ** 2
    else:  # inside the face: its lit edge is not part of the symbol
        k = max(3, int(round(px * 0.05)) | 1)
        where = cv2.erode(face.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    shares, coloured_share, coloured, nearest = _votes(lab, where, hues, 14.0, noise)
    if standing is None:
        standing = lab[..., 0] > 55
    k = max(3, int(0.06 * px) | 1)  # what is there is bigger than the noise's specks
    speck = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    bright = cv2.morphologyEx((standing & where).astype(np.uint8), cv2.MORPH_OPEN, speck)
    solid = cv2.morphologyEx(coloured.astype(np.uint8), cv2.MORPH_OPEN, speck)
    there = max(int(bright.sum()), int(solid.sum())) / px ** 2
    if there < 0.03:
        return None if face is None else _unread(Message("chip.why.dark"))
    got = _chip_colour(shares, coloured_share, shapes_of, blur)
    if isinstance(got, ChipReading) and got.shape == VORTEX:
        return got
    if face is None:
        return _unread(Message("chip.why.something"))
    if coloured_share < 0.01:
        return _unread(Message("chip.why.no_colour"))
    if isinstance(got, ChipReading):
        return got
    top, conf, shapes = got
    sil = _token_silhouette(lab, coloured & (nearest == top), face, px)
    return _decide(COLORS[top], conf, [sil] if sil is not None else [], shapes, shapes)


def read_square(bgr: np.ndarray, profile: Profile | None = None,
                shapes: set[str] | None = None) -> ChipReading:
    """A picture of one printed target square or chip, filling the picture: its colour and
    symbol (``shapes``: the ones it may be; all four by default)."""
    profile = profile or Profile()
    if bgr is None or bgr.ndim != 3 or bgr.shape[2] != 3:
        raise ValueError("a chip picture must be a colour image")
    side = min(bgr.shape[:2])
    if side < 16:
        raise ValueError(f"a chip picture must be at least 16 pixels across, not {side}")
    if bgr.shape[0] != bgr.shape[1]:  # a crop a few pixels off square
        bgr = cv2.resize(bgr, (side, side), interpolation=cv2.INTER_AREA)
    pad = max(2, side // 5)  # room around the symbol, as on the centre piece
    img = cv2.copyMakeBorder(bgr, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    lab = balanced_lab(img.astype(np.float32), white_of(img))
    filled = np.zeros(img.shape[:2], bool)
    filled[pad:-pad, pad:-pad] = True
    paper = filled & (lab[..., 0] > 70) & (np.hypot(lab[..., 1], lab[..., 2]) < 12)
    hues = _ref_hues(profile)
    allowed = set(shapes or SHAPES)
    if paper.mean() >= 0.15:
        return _read_light(img, filled, paper, side, hues, lambda _colour: allowed)
    reading = _read_dark(lab, side, hues, lambda _colour: allowed)
    return reading or _unread(Message("chip.why.none"))


# ---------------------------------------------------------------- the symbol


def _light_silhouettes(lab: np.ndarray, ink: np.ndarray, inner: np.ndarray, ground_L: float
                       ) -> list[np.ndarray]:
    """The symbol's outline on a light chip, twice: its coloured field alone, and the field
    with the dark rim printed round it. Both filled and made convex (every symbol is)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)))
    if count <= 1:
        return []
    areas = stats[1:, cv2.CC_STAT_AREA]
    core = np.isin(labels, 1 + np.nonzero(areas >= 0.08 * areas.max())[0])
    field = _hull(core)
    if field is None:
        return []
    # The rim hugs the field: darker print further out is the chip's or the square's frame.
    k = max(3, int(0.2 * np.sqrt(cv2.countNonZero(field) / np.pi)) * 2 + 1)
    near = cv2.dilate(field, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    dark = (lab[..., 0] < ground_L - 20) & inner & near
    sym = cv2.morphologyEx((dark | core).astype(np.uint8), cv2.MORPH_CLOSE,
                           np.ones((3, 3), np.uint8))
    count, labels, _, _ = cv2.connectedComponentsWithStats(sym)
    keep = list(set(np.unique(labels[core])) - {0})
    rimmed = _hull(np.isin(labels, keep)) if keep else None
    return [field] if rimmed is None else [field, rimmed]


def _token_silhouette(lab: np.ndarray, ink: np.ndarray, where: np.ndarray, px: int
                      ) -> np.ndarray | None:
    """The symbol on a dark token: its light outline and its ink, near the ink."""
    count, labels, stats, cents = cv2.connectedComponentsWithStats(ink.astype(np.uint8))
    if count <= 1:
        return None
    areas = stats[1:, cv2.CC_STAT_AREA]
    pieces = 1 + np.nonzero(areas >= 0.05 * areas.max())[0]
    weights = stats[pieces, cv2.CC_STAT_AREA].astype(np.float64)
    cx, cy = (cents[pieces] * weights[:, None]).sum(axis=0) / weights.sum()
    L = lab[..., 0]
    ground = float(np.median(L[where]))
    yy, xx = np.mgrid[0:L.shape[0], 0:L.shape[1]]
    near = ((xx - cx) ** 2 + (yy - cy) ** 2 <= (0.35 * px) ** 2) & where
    sym = (((L > ground + 22) | np.isin(labels, pieces)) & near).astype(np.uint8)
    sym = cv2.morphologyEx(sym, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return _hull(sym > 0)  # the outline is often broken into pieces: all of them count


def _hull(mask: np.ndarray) -> np.ndarray | None:
    """The filled convex hull of a mask's pixels (it mends a broken or hollow print)."""
    cnts, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return None
    out = np.zeros(mask.shape, np.uint8)
    cv2.fillPoly(out, [cv2.convexHull(np.vstack(cnts))], 255)
    return out


def _centre_light(lab: np.ndarray, hull: np.ndarray, ground_L: float) -> float:
    """How much of the symbol's middle (within 0.3 of its radius) is light, colourless
    print rather than ink, 0..1."""
    m = cv2.moments(hull, binaryImage=True)
    if m["m00"] <= 0:
        return 0.5
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    radius = np.sqrt(m["m00"] / np.pi)
    inside = hull > 0
    L = lab[..., 0]
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    dark = float(np.percentile(L[inside], 10))
    light = np.clip((L - dark) / max(ground_L - dark, 5.0), 0, 1)
    plain = np.clip(1 - chroma / max(float(np.percentile(chroma[inside], 80)), 8.0), 0, 1)
    yy, xx = np.mgrid[0:L.shape[0], 0:L.shape[1]]
    middle = (xx - cx) ** 2 + (yy - cy) ** 2 <= (0.3 * radius) ** 2
    return float((light * plain)[middle].mean()) if middle.any() else 0.5


def _decide(colour: str, conf_colour: float, sils: list[np.ndarray], shapes: set[str],
            allowed: set[str]) -> ChipReading:
    """Among the ``shapes`` a chip of this colour may show, the one whose ideal outline
    explains the silhouettes best, of those its middle ``allowed``: if it is clearly best, and
    the middle does not overrule a clearly better outline."""
    scores = _shape_scores(sils, shapes)
    if not scores:
        return _unread(Message("chip.why.symbol"), colour, conf_colour * 0.5)
    ranked = sorted(((sh, sc) for sh, sc in scores.items() if sh in allowed),
                    key=lambda kv: -kv[1])
    best_outline = max(scores, key=scores.get)  # type: ignore[arg-type]
    if not ranked or scores[best_outline] - ranked[0][1] > DISAGREE:
        return _unread(Message("chip.why.outline", shape=_shape(best_outline)), colour,
                       conf_colour * 0.5)
    if len(ranked) == 1:
        return ChipReading(colour, ranked[0][0], conf_colour)
    margin = ranked[0][1] - ranked[1][1]
    conf = float(conf_colour * min(1.0, margin / (4 * SHAPE_MARGIN)))
    if margin < SHAPE_MARGIN:
        return _unread(Message("chip.why.either", shape=_shape(ranked[0][0]),
                               other=_shape(ranked[1][0])), colour,
                       conf)
    return ChipReading(colour, ranked[0][0], conf)


def _shape_scores(sils: list[np.ndarray], shapes: set[str]) -> dict[str, float]:
    """How well each of the ``shapes``' ideal outlines explains the silhouettes (higher is
    better)."""
    sigs = [sg for sg in (signature(s) for s in sils) if sg is not None]
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
