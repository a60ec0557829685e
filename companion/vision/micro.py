"""Micro Robots through the camera: the board's layout, and the space the robot stands on.

Three things, each usable alone:

* :func:`read_micro_layout` — a frame → the 36 spaces as far as they can be told
  (:class:`MicroLayoutReading`): six rows of ``"pink1"`` or ``None``, a confidence per space,
  the board's corners, and what is wrong (:func:`companion.micro.check_rows`). This is what
  the page shows for the players to confirm or correct, once per board.
* :class:`MicroReader` — a known layout → per frame, quickly, the robot's space
  (:class:`MicroObservation`), or ``occluded`` when a hand or arm is over the board.
* :class:`MicroTracker` — observations → **landings**: a new space the robot has rested on
  for a few unoccluded frames, which is what :func:`companion.micro.check_demonstration`
  judges.

>>> from companion.micro import example_layout
>>> from companion.vision.micro_render import render_micro
>>> shot = render_micro(example_layout(), "pink1", seed=2, tilt=15)
>>> reading = read_micro_layout(shot.image)
>>> reading.complete
True
>>> MicroReader(example_layout()).read(shot.image).space
'pink1'

How the board is found: :mod:`companion.vision.micro_locate` (corners given by hand, the four
corner markers, or the lattice of its 36 die faces). Without markers the top-left of the
picture is the top-left of the layout read; a known layout is matched in all four turns, so
it does not matter how the board lies.

How a face is read: its colour from the median of its middle, after the glare that lifts the
dark background round it is taken off again, as a log-chromaticity (so dim and uneven light do
not matter) moved by the one shift that best fits the whole board to the six inks with exactly
six faces each (so a colour cast does not matter either); its number by normalised
correlation with the project's own drawings of the six numbers
(:func:`~companion.vision.micro_look.face_ink`), pips or digits, in the four turns, one turn per
section, a lead counting for more between prints that look alike (a 3 and a 5). Then the 36
faces get the 36 colour-number pairs by the best one-to-one assignment, and each face's
confidence is how much worse the best assignment would be without its pair. A face is named
only when that is near-certain *and* its own colour and number do not speak against it. What
cannot be trusted is left out of the evidence: a number whose print is hardly there (covered),
a colour like no ink, the faces round three or more covered ones (a hand), and the colour of
the faces least like the pairs they first got (the robot's glass makes red look pink); under
strong glare a face that looks white may be yellow or pink, and one that looks pink red. A
single face left over (under the robot, say) is the one pair nobody took, marked deduced.

How the robot is seen, frame by frame: every face is compared with what the layout says it
is — its colour against its colour's median on this board, its own number's match, its ink's
contrast (a clear piece over a face halves it) and its brightness against its neighbours' —
and the most changed face is the robot's, if it stands out over every other face (glare
counts less: it changes faces too). A tall piece leans over the faces behind it, away from the
camera, so of two changed neighbours the one in front is its foot. Faces changed far more than
glare can, that the robot does not explain, are a hand: the frame is occluded.

Every assumption about how the board looks comes from :mod:`companion.vision.micro_look`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from ..i18n import Message
from ..micro import ALL_SPACES, COLORS, NUMBERS, SECTION, SIZE, Layout, Space, check_rows
from .locate import BoardNotFound, VisionError
from .micro_locate import MicroLocation, locate_micro
from .micro_look import LOOK, NUMERALS, Look, face_ink
from .micro_render import MicroShot, random_layout, render_micro
from .track import Tracker

READ_PX = 56  # top-down pixels a space when a layout is read
TRACK_PX = 24  # … and on every frame of a game
CONFIDENT = 0.98  # a face is named from this confidence on
# The costs of a face taking a colour or a number (negative log-likelihoods).
SIGMA_CHROMA = 0.10  # spread of one ink's log-chromaticity on one board
BETA_NUMBER = 42.0  # how sharply the template scores tell two numbers apart
COST_CAP = 14.0  # no single number match counts for more than this
COLOUR_CAP = 40.0  # … nor colour (a colour is told more surely than a number)
CONTRADICTION = 4.5  # a face's own evidence against its pair beyond this leaves it unread
SEEN = 0.75  # a face whose best template match is below this share of the board's usual
COLOUR_SEEN = 25.0  # … or whose colour costs this much even for its nearest ink, is unseen
GLARE_BLIND = 0.3  # under this much glare, yellow and white, red and pink look alike


def _grid_centres() -> np.ndarray:
    """(36, 2) face centres in grid order (row-major from grid (0, 0)), in spaces."""
    r, c = np.mgrid[0:SIZE, 0:SIZE]
    return np.stack([c.ravel() + 0.5, r.ravel() + 0.5], axis=1).astype(np.float64)


CENTRES = _grid_centres()
SECTIONS = np.array([(r // SECTION) * 2 + (c // SECTION) for r in range(SIZE)
                     for c in range(SIZE)])  # 0 NW, 1 NE, 2 SW, 3 SE: one print turn each


# ---------------------------------------------------------------- measuring the faces


def _log_chroma(bgr: np.ndarray) -> np.ndarray:
    """``(..., 3)`` BGR → ``(..., 2)``: log(blue/green), log(red/green). A brightness change
    leaves it alone and a colour cast shifts every colour by the same amount. (A floor of 3 %
    of the brightest channel keeps the logarithm of a channel near zero from swinging.)"""
    x = np.asarray(bgr, dtype=np.float64)
    lg = np.log(x + 0.03 * x.max(axis=-1, keepdims=True) + 0.5)
    return np.stack([lg[..., 0] - lg[..., 1], lg[..., 2] - lg[..., 1]], axis=-1)


@lru_cache(maxsize=8)
def _templates(px: int, numerals: str, look: Look = LOOK) -> np.ndarray:
    """(6 numbers, 4 turns, t, t) float32: the middle of each face's ink as printed."""
    fpx = int(round(look.face * px))
    crop = max(1, int(round(0.06 * fpx)))
    out = np.stack([np.stack([face_ink(n, fpx, t, numerals, look)[crop:fpx - crop,
                                                                  crop:fpx - crop]
                              for t in range(4)]) for n in NUMBERS]).astype(np.float32)
    out.flags.writeable = False
    return out


@dataclass
class FaceMeasures:
    """The 36 faces of one frame, in grid order (row-major from grid ``(0, 0)``)."""

    colour: np.ndarray  # (36, 3) BGR of each face's middle, glare taken off
    chroma: np.ndarray  # (36, 2) its log-chromaticity
    glare: np.ndarray  # (36,) how far glare lifts the background round it, for the light
    blind: np.ndarray  # (36,) bool: so washed out by glare that nothing can be told
    scores: dict[str, np.ndarray]  # numerals → (36, 6 numbers, 4 turns) template scores


def _regions(px: int) -> tuple[np.ndarray, np.ndarray]:
    """Per face the pixel offsets of its middle and of the background band round it."""
    half = px / 2
    ys, xs = np.mgrid[0:px, 0:px]
    d = np.maximum(np.abs(xs + 0.5 - half), np.abs(ys + 0.5 - half)) / px  # 0 … 0.5
    middle = np.argwhere(d <= 0.28)
    band = np.argwhere((d >= 0.43) & (d < 0.5))
    return middle, band


def _tiles(top: np.ndarray, px: int) -> np.ndarray:
    """(36, px, px, 3) float32: each space of a top-down board with half a space of margin,
    in grid order."""
    o = px // 2
    n = SIZE * px
    board = top[o:o + n, o:o + n].astype(np.float32)
    return board.reshape(SIZE, px, SIZE, px, 3).transpose(0, 2, 1, 3, 4).reshape(36, px, px, 3)


def _colours_of(top: np.ndarray, px: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
    """Each face's own colour (36, 3), glare (36,), whether glare has blinded it (36,), and
    the lift glare adds to the background round it (36, 3), from a top-down board with half
    a space of margin (:meth:`MicroLocation.warp`).

    Glare adds the same light to the face and to the dark background round it; that lift,
    measured on the background over its least lifted level on the board, is taken off the
    median of the face's middle. Clipped pixels have lost their colour and are left out
    while the face has others."""
    spaces = _tiles(top, px)
    middle, band = _regions(px)
    mid = spaces[:, middle[:, 0], middle[:, 1]]
    ground = np.median(spaces[:, band[:, 0], band[:, 1]], axis=1)
    lift = np.clip(ground - np.percentile(ground, 10, axis=0), 0, None)
    clipped = (mid >= 250).any(axis=2)
    share = clipped.mean(axis=1)
    kept = np.where(clipped[..., None] & (share < 0.7)[:, None, None], np.nan, mid)
    colour = np.clip(np.nanmedian(kept, axis=1) - lift, 1.0, None)
    light = max(float(np.median(mid.max(axis=2))), 1.0)
    return colour, lift.mean(axis=1) / light, share > 0.5, lift


def measure_faces(top: np.ndarray, px: int, look: Look,
                  numerals: Iterable[str] = NUMERALS) -> FaceMeasures:
    """Colours and template scores of the 36 faces of a top-down board (``warp``, with half
    a space of margin)."""
    colour, glare, blind, _ = _colours_of(top, px)
    gray = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # a soft high-pass: the ink against its face, not the light across it
    gray = gray - cv2.GaussianBlur(gray, (0, 0), px * 0.3)
    scores = {}
    for style in numerals:
        T = _templates(px, style, look)
        t = T.shape[-1]
        pad = max(2, int(round(0.07 * px)))
        out = np.zeros((36, 6, 4), np.float32)
        for i in range(36):
            patch = _patch(gray, px, i, t, pad)
            for a in range(6):
                for b in range(4):
                    s = cv2.matchTemplate(patch, T[a, b], cv2.TM_CCOEFF_NORMED)
                    out[i, a, b] = float(np.abs(s).max())
        scores[style] = out
    return FaceMeasures(colour, _log_chroma(colour), glare, blind, scores)


def _patch(image: np.ndarray, px: int, i: int, t: int, pad: int) -> np.ndarray:
    """Face ``i``'s middle ``t`` pixels square, ``pad`` more all round, from a top-down
    board with half a space of margin."""
    r, c = divmod(i, SIZE)
    x0 = int(round((1.0 + c) * px - 0.5 - t / 2 - pad + 0.5))
    y0 = int(round((1.0 + r) * px - 0.5 - t / 2 - pad + 0.5))
    return image[y0:y0 + t + 2 * pad, x0:x0 + t + 2 * pad]


# ---------------------------------------------------------------- one-to-one assignment


def assign(cost: np.ndarray) -> np.ndarray:
    """The cheapest one-to-one assignment of a square cost matrix (Hungarian method, with
    potentials): ``out[i]`` is the column row ``i`` takes."""
    n = cost.shape[0]
    inf = np.inf
    u = np.zeros(n + 1)
    v = np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=np.int64)  # p[j]: the row holding column j (1-based, 0: none)
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(n + 1, inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    out = np.empty(n, dtype=np.int64)
    out[p[1:] - 1] = np.arange(n)
    return out


def _balanced(cost6: np.ndarray) -> np.ndarray:
    """Six of each: (36, 6) costs → the class each face takes."""
    cols = assign(np.repeat(cost6, 6, axis=1))
    return cols // 6


# ---------------------------------------------------------------- colours and numbers




def _prototypes(look: Look) -> np.ndarray:
    return _log_chroma(np.array([look.colour(c) for c in COLORS], dtype=np.float64))


@dataclass
class _Colours:
    cost: np.ndarray  # (36, 6): how unlike each colour each face is
    centres: np.ndarray  # (6, 2) each colour's log-chromaticity on this board
    shift: np.ndarray  # (2,) the colour cast, as a shift of log-chromaticity


def _colours(chroma: np.ndarray, look: Look, hidden: np.ndarray | None = None) -> _Colours:
    """The colour cast of the whole board and how unlike each ink every face is.

    The cast shifts every ink alike; it is the shift that best fits six faces to each ink.
    Then each ink's centre on this board is its faces' median (a real board's inks may
    differ from the look's a little), and a face's cost is its squared distance to a centre
    in units of :data:`SIGMA_CHROMA`, capped."""
    proto = _prototypes(look)
    use = np.ones(36, bool) if hidden is None else ~hidden
    if use.sum() < 6:
        use = np.ones(36, bool)  # (the caller names no colour then)
    best = None
    for shift0 in _shift_guesses(chroma[use], proto):
        shift = shift0
        for _ in range(6):
            d2 = ((chroma[:, None, :] - shift - proto[None]) ** 2).sum(axis=2)
            d2[~use] = 0.0
            cls = _balanced(np.minimum(d2, 4.0))
            new = np.median((chroma - proto[cls])[use], axis=0)
            if np.allclose(new, shift, atol=1e-3):
                break
            shift = new
        total = float(np.minimum(d2[np.arange(36), cls], 4.0)[use].sum())
        if best is None or total < best[0]:
            best = (total, shift, cls)
    _, shift, cls = best
    centres = proto + shift
    for k in range(6):
        members = (cls == k) & use
        if members.sum() >= 3:  # the board's own ink, kept near the look's
            own = np.median(chroma[members], axis=0)
            if np.linalg.norm(own - centres[k]) < 0.3:
                centres[k] = own
    d2 = ((chroma[:, None, :] - centres[None]) ** 2).sum(axis=2)
    cost = np.minimum(d2 / (2 * SIGMA_CHROMA ** 2), COLOUR_CAP)
    return _Colours(cost, centres, shift)


def _shift_guesses(chroma: np.ndarray, proto: np.ndarray) -> list[np.ndarray]:
    """Starting points for the cast: none, and "the palest faces are the white ones"."""
    guesses = [np.zeros(2)]
    if len(chroma) >= 6:
        pale = chroma[np.argsort(np.linalg.norm(chroma, axis=1))[:6]]
        guesses.append(np.median(pale, axis=0) - proto[COLORS.index("white")])
    return guesses


@lru_cache(maxsize=8)
def _likeness(px: int, numerals: str, look: Look = LOOK) -> np.ndarray:
    """(4 turns, 6, 6): how alike the printed numbers are (their normalised correlation).
    A 3 and a 5 share most of their ink, so a small lead of one over the other already
    says much; a 1 and a 6 share little, so the same lead says less."""
    T = _templates(px, numerals, look)
    out = np.zeros((4, 6, 6))
    for t in range(4):
        v = np.stack([(T[n, t] - T[n, t].mean()).ravel() for n in range(6)])
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        out[t] = v @ v.T
    out.flags.writeable = False
    return out


def number_costs(scores: np.ndarray, turns: np.ndarray, likeness: np.ndarray) -> np.ndarray:
    """(N, 6) template scores at each face's print turn → the cost of each number: how far
    it trails the best, in units of how far two such prints can be told apart."""
    best = scores.argmax(axis=1)
    apart = np.sqrt(np.clip(2.0 * (1.0 - likeness[turns, best]), 1e-3, None))  # (N, 6)
    lead = scores.max(axis=1, keepdims=True) - scores
    return np.minimum(BETA_NUMBER * lead / apart, COST_CAP)


def _numbers(scores: np.ndarray, likeness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per face the cost of each number at its section's print turn, and the turns.

    One turn per section: the one under which its nine faces match best."""
    turns = np.zeros(4, dtype=np.int64)
    per_face = np.zeros((36, 6))
    for s in range(4):
        members = SECTIONS == s
        turns[s] = int(np.argmax(scores[members].max(axis=1).sum(axis=0)))
        per_face[members] = scores[members][:, :, turns[s]]
    return number_costs(per_face, turns[SECTIONS], likeness), turns


def _style(measures: FaceMeasures) -> str:
    """Pips or digits: whichever the board's faces match better overall."""
    return max(measures.scores, key=lambda s: float(measures.scores[s].max(axis=(1, 2)).sum()))


# ---------------------------------------------------------------- reading a layout


@dataclass
class MicroLayoutReading:
    """What the camera makes of a Micro Robots board, for the players to confirm.

    ``rows``: six rows of six, the top row first (the picture's top, or the markers' when
    there are markers), each ``"pink1"`` or ``None`` where the camera cannot tell.
    ``confidence``: the same shape, 0..1 (``None`` rows still carry how sure the best guess
    would have been, which the page may show as a hint). ``corners``: the grid's top-left,
    top-right, bottom-right, bottom-left corners in pixels. ``problems``: what is wrong or
    missing, from :func:`companion.micro.check_rows` and the reader's own conflicts
    (``"row 2 column 3 looks like red 3, as row 4 column 1 does"``); empty when the reading
    is a whole, valid layout. ``deduced``: (row, column) of a face that was not seen but is
    the one pair left over."""

    rows: list[list[str | None]]
    confidence: list[list[float]]
    corners: list[list[float]]
    problems: list[str]
    method: str
    numerals: str
    deduced: list[tuple[int, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    robot_at: tuple[int, int] | None = None  # (row, column) the robot stands on, if seen

    @property
    def robot(self) -> str | None:
        """The space the robot stands on, when it is seen and that space is read."""
        if self.robot_at is None:
            return None
        r, c = self.robot_at
        return self.rows[r][c]

    @property
    def complete(self) -> bool:
        """Every space read and the whole a valid layout."""
        return not self.problems

    def layout(self, name: str = "") -> Layout:
        """The reading as a :class:`~companion.micro.Layout`; a
        :class:`~companion.micro.LayoutError` says what is still wrong when it is not whole."""
        from ..micro import LayoutError

        if self.problems:
            raise LayoutError("; ".join(self.problems))
        return Layout.from_rows(self.rows, name)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The ``companion micro read --json`` shape."""
        return {
            "rows": [list(r) for r in self.rows],
            "confidence": [[round(float(c), 3) for c in r] for r in self.confidence],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "problems": list(self.problems),
            "complete": self.complete,
            "method": self.method,
            "numerals": self.numerals,
            "deduced": [list(d) for d in self.deduced],
            "robot": self.robot,
            "robot_at": None if self.robot_at is None else list(self.robot_at),
            "notes": list(self.notes),
        }


def _confidences(cost: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per face, how sure the assignment is of its label: 1 − e^(−Δ), Δ the extra cost of
    the best assignment in which that face has another label."""
    n = len(labels)
    base = float(cost[np.arange(n), labels].sum())
    out = np.zeros(n)
    big = float(cost.max()) * n + 1.0
    for i in range(n):
        c = cost.copy()
        c[i, labels[i]] = big
        alt = assign(c)
        out[i] = 1.0 - np.exp(-(float(c[np.arange(n), alt].sum()) - base))
    return out


def _pair_cost(colours: _Colours, numbers: np.ndarray) -> np.ndarray:
    """(36 faces, 36 pairs) in :data:`companion.micro.ALL_SPACES` order (colour-major)."""
    return (np.repeat(colours.cost, 6, axis=1) + np.tile(numbers, (1, 6)))


def _unseen(m: FaceMeasures, style: str, colours: _Colours
            ) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per face, whether its colour and whether its number cannot be trusted, and whether
    something lies over the board.

    A number is unseen when its print is hardly there (the best match well below the
    board's usual: covered); a colour when it is like none of the inks (the robot's glass,
    skin, a sleeve). Three or more covered faces are a hand: its fingers may lie over the
    faces round them too, so nothing of those is trusted at all. (The robot's own face is
    found later, from the pairs the others leave it.)"""
    best = m.scores[style].max(axis=(1, 2))
    covered = best < SEEN * float(np.median(best))
    odd = colours.cost.min(axis=1) > COLOUR_SEEN
    hand = int(covered.sum()) >= 3  # the robot covers one face, and may dim the one behind
    if hand:
        grid = covered.reshape(SIZE, SIZE).astype(np.uint8)
        covered = cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel().astype(bool)
        return odd | covered, covered, hand
    return odd, covered, hand


def _assignment(m: FaceMeasures, style: str, look: Look, no_colour: np.ndarray,
                no_number: np.ndarray) -> tuple[_Colours, np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]:
    """Colour and number costs (none for what is unseen), the print turns, the pair costs
    and the best one-to-one assignment of pairs to faces."""
    colours = _colours(m.chroma, look, hidden=no_colour)
    # Glare washes a colour out: under it a colour says less, and under much of it a face
    # that looks white may be yellow or pink, one that looks pink may be red (never the
    # other way: glare adds no colour).
    colours.cost /= 1.0 + GLARE_WEIGHT * m.glare[:, None]
    washed = m.glare > GLARE_BLIND
    for true, seen in (("yellow", "white"), ("pink", "white"), ("red", "pink")):
        a, b = COLORS.index(true), COLORS.index(seen)
        colours.cost[washed, a] = np.minimum(colours.cost[washed, a], colours.cost[washed, b])
    colours.cost[no_colour] = 0.0  # no evidence: the colour is whatever is left
    numbers, turns = _numbers(m.scores[style], _likeness(READ_PX, style, look))
    numbers[no_number] = 0.0
    cost = _pair_cost(colours, numbers)
    return colours, numbers, turns, cost, assign(cost)


def _robot_suspects(z: np.ndarray, glare: np.ndarray, face: int | None) -> np.ndarray:
    """The faces whose colour is not trusted: the face least like its pair may be the robot's
    even when the robot is not clear beyond doubt (``face``, when it is), and the faces round
    it that changed too may be it: under its glass red passes for pink. So may a much changed
    face under glare. Their number is trusted, unless covered (it shows through the glass)."""
    rz = z / (1.0 + GLARE_WEIGHT * glare)
    suspect = (z >= SUSPECT) & (glare > GLARE_BLIND)
    top_face = int(np.argmax(rz)) if face is None else face
    if rz[top_face] >= ROBOT_MIN or face is not None:
        tr, tc = divmod(top_face, SIZE)
        for i in range(36):
            r, c = divmod(i, SIZE)
            if i == top_face or (max(abs(r - tr), abs(c - tc)) == 1 and rz[i] >= ROBOT_MIN):
                suspect[i] = True
    return suspect


def _read_faces(labels: np.ndarray, colours: _Colours, numbers: np.ndarray, sure: np.ndarray,
                no_colour: np.ndarray, no_number: np.ndarray
                ) -> tuple[list[list[str | None]], list[list[float]], list[str],
                           list[tuple[int, int]]]:
    """Each face's space where the reading is sure of it, the confidences, the faces that
    look like another's pair, and the spaces that half follow from the others."""
    rows: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    conf = [[0.0] * SIZE for _ in range(SIZE)]
    problems: list[str] = []
    deduced: list[tuple[int, int]] = []
    own_colour = colours.cost.argmin(axis=1)
    own_number = numbers.argmin(axis=1)
    for i, lab in enumerate(labels):
        r, c = divmod(i, SIZE)
        if no_colour[i] and no_number[i]:
            continue  # nothing of it seen: at most the one pair left over, below
        k, n = divmod(int(lab), 6)
        # the face's own colour and number must not speak against its pair (a face the
        # assignment is sure of may still be too glared to favour it by itself)
        agrees = (colours.cost[i, k] - colours.cost[i, own_colour[i]] <= CONTRADICTION
                  and numbers[i, n] - numbers[i, own_number[i]] <= CONTRADICTION)
        conf[r][c] = float(sure[i]) if agrees else min(float(sure[i]), 0.5)
        if agrees and sure[i] >= CONFIDENT:
            rows[r][c] = ALL_SPACES[lab].name
            if no_colour[i] or no_number[i]:
                deduced.append((r, c))  # half of it follows from the others
        elif not (no_colour[i] or no_number[i]) and colours.cost[i, own_colour[i]] < 2.0 \
                and numbers[i, own_number[i]] == 0:
            claimed = own_colour[i] * 6 + own_number[i]
            holder = int(np.flatnonzero(labels == claimed)[0])
            if holder != i:
                hr, hc = divmod(holder, SIZE)
                problems.append(f"row {r + 1} column {c + 1} looks like "
                                f"{ALL_SPACES[claimed].label}, as row {hr + 1} column "
                                f"{hc + 1} does")
    return rows, conf, problems, deduced


def read_micro_layout(image: np.ndarray, *, corners: Any = None, look: Look = LOOK
                      ) -> MicroLayoutReading:
    """Read a Micro Robots board's layout from one frame (see the module docstring).

    Raises :class:`~companion.vision.locate.VisionError` (or its ``BoardNotFound``) when there
    is no board to read: a black frame, no board in view, part of it out of the frame."""
    loc = locate_micro(image, corners=corners, look=look)
    top = loc.warp(image, READ_PX)
    m = measure_faces(top, READ_PX, look)
    style = _style(m)
    no_colour, no_number, hand = _unseen(m, style, _colours(m.chroma, look))
    colours, numbers, turns, cost, labels = _assignment(m, style, look, no_colour, no_number)
    # Where the robot stands (or a hand lies): the faces least like the pairs they got. Its
    # glass lets a face's number through but not its colour, so nothing of it is trusted.
    z, glare, unshaded, skin = face_changes(top, READ_PX, look, style, labels // 6,
                                            labels % 6, turns[SECTIONS])
    seen = judge_faces(z, glare, unshaded, skin, lambda i: robot_shadow(loc, look, i),
                       lambda i: front_faces(loc, i))
    # a hand changes faces far more than glare can; under glare the change may be the
    # glare's, the layout's guesses being only provisional
    # (a face already unseen got whatever pair was left: its change says nothing)
    covered = [i for i in seen.covered
               if glare[i] <= GLARE_BLIND and not (no_colour[i] or no_number[i])]
    if covered:
        hand = True
        grid = np.zeros(36, np.uint8)
        grid[covered] = 1
        near = cv2.dilate(grid.reshape(SIZE, SIZE), np.ones((3, 3), np.uint8)).ravel() > 0
        no_colour, no_number = no_colour | near, no_number | near
    # the robot's face and the faces round it that changed too: their colour is not trusted
    suspect = _robot_suspects(z, glare, seen.face)
    no_colour = no_colour | suspect
    if covered or suspect.any():
        colours, numbers, turns, cost, labels = _assignment(m, style, look, no_colour,
                                                            no_number)
    sure = _confidences(cost, labels)
    if no_colour.sum() > 36 // 2:
        sure[:] = 0.0  # too little of the board is seen to tell a colour cast by
    rows, conf, problems, deduced = _read_faces(labels, colours, numbers, sure, no_colour,
                                                no_number)
    empty = [(r, c) for r in range(SIZE) for c in range(SIZE) if rows[r][c] is None]
    taken = {x for row in rows for x in row if x is not None}
    if len(empty) == 1 and len(taken) == 35:
        (r, c), = empty
        rows[r][c] = next(s.name for s in ALL_SPACES if s.name not in taken)
        # as sure as the least sure of the others it follows from
        conf[r][c] = min(conf[a][b] for a in range(SIZE) for b in range(SIZE)
                         if (a, b) != (r, c))
        deduced.append((r, c))
        problems = []
    problems = check_rows(rows) + problems
    if hand:
        problems.append("something lies over the board (a hand?): the spaces under and "
                        "round it are left to fill, or read the board again")
    notes = list(loc.notes)
    robot_at = None if seen.face is None else divmod(seen.face, SIZE)
    for r, c in sorted(deduced):
        why = "the robot stands on it" if (r, c) == robot_at else "not clearly seen"
        notes.append(f"row {r + 1} column {c + 1} ({why}): {rows[r][c]} follows from the "
                     "others")
    return MicroLayoutReading(rows, conf, loc.corners.tolist(), problems, loc.method, style,
                              sorted(deduced), notes, robot_at)


# ---------------------------------------------------------------- the robot, frame by frame


@dataclass
class MicroObservation:
    """What one frame shows of a known board: the robot's ``space`` (``"pink1"``; ``None``
    when it is not on the board, or cannot be told), and whether a hand or arm is over the
    board (``occluded``: then ``space`` is ``None`` and the frame must never count as a
    landing). ``covered`` names the spaces that looked foreign."""

    space: str | None
    occluded: bool
    score: float = 0.0  # how clearly the robot stands out (0 when none is seen)
    covered: list[str] = field(default_factory=list)
    corners: list[list[float]] = field(default_factory=list)
    method: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "occluded": self.occluded, "score": round(self.score, 3),
                "covered": list(self.covered),
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "method": self.method, "notes": list(self.notes)}


# How the robot is modelled: a piece standing on a face, ROBOT_H spaces tall and ROBOT_R
# spaces round (the classic robots' size over the look's space).
ROBOT_H_MM = 37.5
ROBOT_R_MM = 11.25
# A face's distance from its print, in units of: log-chromaticity, template score lost,
# ink contrast lost (as a share of its colour's usual contrast, from 80 %).
DEV_UNIT, DROP_UNIT, FAINT_UNIT = 0.3, 0.1, 0.2
DIM_UNIT = 0.25  # … and brightness lost against its colour's, where it lies
SPREAD_SHARE = 0.2  # a bare paper pixel this far from its face's level is off it
SPREAD_UNIT = 0.2  # … and this share of the paper off its level counts as one unit of change
ROBOT_MIN = 1.5  # the most changed face is the robot's from this far on
GLARE_WEIGHT = 4.0  # how much less a face's change counts per unit of glare over it
FOREIGN = 7.0  # a face this far from its print that the robot does not explain: a hand
HAND = 3.0  # … or two such faces this far (three, if glare is over them)
CLEAR = 1.3  # the robot's face must stand out this much over any other face
SUSPECT = 2.4  # a face this changed from its provisional pair is not trusted in a layout
SKIN = 0.3  # this share of the background round two faces bright and coloured: a hand
LIFTED = 0.3  # … and so much lift of the background round it: a hand, not the robot
LEAN = 0.6  # a face in front changed this much of the one behind it may be the robot's foot
GLARED = 0.6  # … counting this share of a glared face's change, glare or no glare
MISMATCH = 0.7  # a layout fits its board far better in one turn than in the others
MOVED = 8  # when this many faces are far from their print, look whether the board moved


def _orientations(loc: MicroLocation) -> list[tuple[MicroLocation, np.ndarray]]:
    """The four turns of a location, each with where its grid faces lie in the first's:
    ``perm[i]`` is the index, in ``loc``'s grid order, of the turned grid's face ``i``."""
    base = loc.to_image(CENTRES)
    out = []
    for k in range(4):
        turned = loc.rotated(k)
        pts = turned.to_image(CENTRES)
        perm = np.linalg.norm(pts[:, None] - base[None], axis=2).argmin(axis=1)
        out.append((turned, perm))
    return out


def _moved(a: MicroLocation, b: MicroLocation) -> float:
    """How far one location's corners lie from another's (in whichever turn fits), in
    spaces."""
    return min(float(np.abs(np.roll(a.corners, -k, axis=0) - b.corners).max())
               for k in range(4)) / max(b.space_px, 1.0)


def _layout_arrays(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Colour index and number (0–5) of every face, in grid order."""
    flat = [s for row in layout.rows for s in row]
    return (np.array([COLORS.index(s.color) for s in flat]),
            np.array([s.number - 1 for s in flat]))


class MicroReader:
    """Reads the robot's space, frame after frame, on a board of a known layout.

    >>> reader = MicroReader(layout)  # doctest: +SKIP
    >>> obs = reader.read(frame)  # doctest: +SKIP
    >>> obs.space, obs.occluded  # doctest: +SKIP
    ('pink1', False)

    The first frame finds the board (:func:`locate_micro`), matches the layout to it in the
    four turns (a board that fits no turn much better than the others is not this layout:
    an error) and
    learns how each section's print is turned. Every later frame only looks at the board
    where it was: a small top-down view, each face's colour and printed number against what
    the layout says they are. The robot is the face that is no longer as printed, and of a
    row of such faces the one nearest the camera (its body leans over the faces behind it);
    faces that are not as printed and that the robot does not explain are a hand or arm: the
    frame is occluded. When most of the board stops looking like the layout the board has
    moved and is found again."""

    def __init__(self, layout: Layout, *, look: Look = LOOK, corners: Any = None) -> None:
        if not isinstance(layout, Layout):
            raise TypeError(f"MicroReader needs a Layout, not {type(layout).__name__}")
        self.layout = layout
        self.look = look
        self._corners = corners
        self._loc: MicroLocation | None = None
        self._turns: np.ndarray | None = None
        self._style: str = look.numerals
        self._colour, self._number = _layout_arrays(layout)

    # -- the board

    def _find(self, image: np.ndarray, loc: MicroLocation | None = None) -> MicroLocation:
        if loc is None:
            loc = locate_micro(image, corners=self._corners, look=self.look)
        top = loc.warp(image, READ_PX)
        m = measure_faces(top, READ_PX, self.look)
        style = _style(m)
        colours = _colours(m.chroma, self.look)
        likeness = _likeness(READ_PX, style, self.look)
        tried = []
        for k, (turned, perm) in enumerate(_orientations(loc)):
            ccost = colours.cost[perm, self._colour]
            scores = m.scores[style][perm]
            turns = np.array([int(np.argmax(scores[SECTIONS == s][
                np.arange((SECTIONS == s).sum()), self._number[SECTIONS == s]].sum(axis=0)))
                for s in range(4)])
            at_turn = scores[np.arange(36), :, turns[SECTIONS]]
            ncost = number_costs(at_turn, turns[SECTIONS], likeness)[np.arange(36),
                                                                      self._number]
            total = float(np.minimum(ccost + ncost, COST_CAP).sum())
            # the print turns were measured in the first grid's view; seen from the turned
            # grid, every face is turned back by k quarter turns
            tried.append((total, k, turned, (turns - k) % 4))
        tried.sort(key=lambda t: t[0])
        total, _, loc, turns = tried[0]
        if total > MISMATCH * tried[1][0]:
            name = f" {self.layout.name!r}" if self.layout.name else ""
            raise VisionError(Message("vision.micro.not_layout", name=name))
        self._turns, self._style = turns, style
        return loc

    # -- one frame

    def read(self, image: np.ndarray) -> MicroObservation:
        """The robot's space in one frame (see the class docstring). Raises
        :class:`~companion.vision.locate.VisionError` when the board cannot be seen at all."""
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
            raise VisionError(Message("vision.not_colour"))
        if float(image.max()) < 25:
            raise BoardNotFound(Message("vision.black"))
        fresh = self._loc is None or self._loc.image_size != (image.shape[1], image.shape[0])
        if fresh:
            self._loc = self._find(image)
        z, glare, unshaded, skin = self._anomalies(image)
        if not fresh and int((z >= HAND).sum()) >= MOVED:
            # much of the board is not as printed: a hand over it, or the board was moved
            try:
                loc = locate_micro(image, corners=self._corners, look=self.look)
            except VisionError:
                return self._observation(None, True, 0.0, np.flatnonzero(z >= HAND),
                                         ["the board is mostly covered, or has moved"])
            if _moved(loc, self._loc) > 0.25:
                self._loc = self._find(image, loc)
                z, glare, unshaded, skin = self._anomalies(image)
        return self._judge(z, glare, unshaded, skin)

    def _anomalies(self, image: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        assert self._loc is not None and self._turns is not None
        top = self._loc.warp(image, TRACK_PX)
        return face_changes(top, TRACK_PX, self.look, self._style, self._colour,
                            self._number, self._turns[SECTIONS])

    def _judge(self, z: np.ndarray, glare: np.ndarray, unshaded: np.ndarray,
               skin: np.ndarray) -> MicroObservation:
        assert self._loc is not None
        seen = judge_faces(z, glare, unshaded, skin,
                           lambda i: robot_shadow(self._loc, self.look, i),
                           lambda i: front_faces(self._loc, i))
        if seen.covered:
            return self._observation(None, True, 0.0, seen.covered, [])
        if seen.face is None:
            return self._observation(None, False, 0.0, [], [seen.note] if seen.note else [])
        return self._observation(seen.face, False, seen.score, [], [])

    def _observation(self, face: int | None, occluded: bool, score: float,
                     covered: Iterable[int], notes: list[str]) -> MicroObservation:
        assert self._loc is not None
        flat = [s for row in self.layout.rows for s in row]
        return MicroObservation(
            None if face is None else flat[face].name, occluded, score,
            sorted(flat[i].name for i in covered), self._loc.corners.tolist(),
            self._loc.method, list(self._loc.notes) + notes)


def face_changes(top: np.ndarray, px: int, look: Look, style: str, colour: np.ndarray,
                 number: np.ndarray, turns: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per face (grid order) how far it is from its print, how much glare is over it, how
    far it is from its print but for its brightness (which a shadow changes too), and how
    much of the background round it looks like skin.

    ``colour`` and ``number`` say what each face shows (indices), ``turns`` how its print is
    turned. The change adds up: its colour's distance from its colour's on this board (the
    median of its six faces), how much worse its own number's print matches than the usual,
    and how much of its ink's usual contrast it has lost (a transparent piece over a face
    halves it without changing much else). A face washed out by glare changes by 0: nothing
    can be told there."""
    q = _quick_measures(top, px, look, style, number, turns)
    centres = np.zeros((6, 2))
    usual = np.zeros(6)
    for k in range(6):
        members = colour == k
        if members.any():
            centres[k] = np.median(q.chroma[members], axis=0)
            usual[k] = np.median(q.contrast[members])
    dev = np.linalg.norm(q.chroma - centres[colour], axis=1)
    drop = np.clip(np.median(q.known) - q.known, 0, None)
    faint = np.clip(0.8 - q.contrast / np.maximum(usual[colour], 1e-6), 0, None)
    z = dev / DEV_UNIT + drop / DROP_UNIT + faint / FAINT_UNIT
    dimmed = _dimming(q.bright, colour, q.glare) / DIM_UNIT
    # a shadow's edge across a face spreads its paper too: not counted where only the glass
    # can be (the faces in front of the robot); and so does glare's, where it lies
    spread = q.spread / SPREAD_UNIT / (1.0 + GLARE_WEIGHT * q.glare)
    z = z + dimmed + spread
    z[q.blind] = 0.0
    return z, q.glare, np.where(q.blind, 0.0, z - dimmed - spread), q.skin


def _dimming(bright: np.ndarray, colour: np.ndarray, glare: np.ndarray) -> np.ndarray:
    """Per face how much darker it is than its colour is where it lies: its brightness over
    its colour's median, against the same for the faces round it that no glare lifts
    (light falls off across a board). A clear piece over a white face dims it; so does a
    shadow, beside it."""
    usual = np.array([np.median(bright[colour == k]) if (colour == k).any() else 1.0
                      for k in range(6)])
    rel = (bright / np.maximum(usual[colour], 1.0)).reshape(SIZE, SIZE)
    clear = (glare <= GLARE_BLIND / 3).reshape(SIZE, SIZE)
    local = np.ones_like(rel)
    for r in range(SIZE):
        for c in range(SIZE):
            around = [rel[i, j] for i in range(max(0, r - 1), min(SIZE, r + 2))
                      for j in range(max(0, c - 1), min(SIZE, c + 2))
                      if (i, j) != (r, c) and clear[i, j]]
            if around:
                local[r, c] = np.median(around)
    dim = np.clip(1.0 - rel / np.maximum(local, 1e-3), 0, None).ravel()
    dim[glare > GLARE_BLIND / 3] = 0.0  # a face under glare is not darker than it looks
    return dim


def front_faces(loc: MicroLocation, i: int) -> list[int]:
    """The faces next to face ``i`` on the camera's side (the way a robot's foot is seen
    from its top): none right under the camera."""
    d = loc.camera.centre[:2] - CENTRES[i]
    if np.linalg.norm(d) < 0.5:
        return []
    sx, sy = int(np.sign(d[0])) if abs(d[0]) > 0.25 else 0, \
        int(np.sign(d[1])) if abs(d[1]) > 0.25 else 0
    out = []
    for dx, dy in {(sx, 0), (0, sy), (sx, sy)} - {(0, 0)}:
        col, row = i % SIZE + dx, i // SIZE + dy
        if 0 <= row < SIZE and 0 <= col < SIZE:
            out.append(row * SIZE + col)
    return out


def robot_shadow(loc: MicroLocation, look: Look, i: int) -> set[int]:
    """The faces whose middle a robot standing on face ``i`` may cover in the picture (it is
    tall, and leans away from the camera in it)."""
    k = look.space_mm
    h, r = ROBOT_H_MM / k, ROBOT_R_MM / k + 0.1  # (it stands a little off the centre)
    c = CENTRES[i]
    pts = [[c[0] + r * np.cos(a), c[1] + r * np.sin(a), z]
           for z in np.linspace(0, h, 6) for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    g = loc.to_grid(loc.camera.project(np.array(pts)))
    return {int(v) * SIZE + int(u) for u, v in g if 0 <= u < SIZE and 0 <= v < SIZE}


@dataclass(frozen=True)
class _Seen:
    face: int | None  # the robot's face
    score: float
    covered: list[int]  # faces something foreign lies over
    note: str | None = None


def judge_faces(z: np.ndarray, glare: np.ndarray, unshaded: np.ndarray, skin: np.ndarray,
                shadow: Any, front: Any) -> _Seen:
    """The robot's face from the faces' changes, and the faces a hand is over.

    Glare changes a face's colour and contrast too, so for *which* face the robot is on a
    change counts less under glare; a hand changes a face far more than glare can, so for
    *whether* something foreign is there the change counts in full. ``shadow(i)`` is the set
    of faces a robot on face ``i`` may cover: their change is the robot's; ``front(i)`` the
    faces next to ``i`` on the camera's side. ``unshaded`` is the change but for brightness:
    a face in front of the robot may lie in its shadow, never under its glass."""
    robot = z / (1.0 + GLARE_WEIGHT * glare)
    changed = np.maximum(robot, GLARED * z)
    base: int | None = int(np.argmax(robot))
    # a tall piece leans over the faces behind it, away from the camera: of a changed face
    # and a changed one in front of it whose robot would cover it, the robot stands in front
    for _ in range(2):
        ahead = [a for a in front(base) if base in shadow(a) and min(
            changed[a], unshaded[a]) >= max(ROBOT_MIN, LEAN * changed[base])]
        if not ahead:
            break
        base = max(ahead, key=lambda a: changed[a])
    explained = shadow(base) | {base}
    if changed[base] < ROBOT_MIN:
        base, explained = None, set()
    rest = np.array([i for i in range(36) if i not in explained])
    foreign = [int(i) for i in range(36) if i != base and z[i] >= FOREIGN]
    # Glare lifts the background round faces it leaves much as they are; skin lifts it
    # round faces it covers. A lifted face next to a lifted one that hardly changed is in
    # glare.
    lifted = glare >= LIFTED
    calm = lifted & (z < HAND / 2)
    glary = np.zeros(36, bool)
    for i in np.flatnonzero(lifted):
        r, c = divmod(int(i), SIZE)
        glary[i] = any(calm[j] for j in range(36) if j != i
                       and max(abs(j // SIZE - r), abs(j % SIZE - c)) <= 1)
    # a robot changes its own face and at most one it leans over; a hand, several
    spread = [int(i) for i in range(36) if unshaded[i] >= HAND and not glary[i]]
    if len(spread) >= 3:
        foreign += [i for i in spread if i != base]
    # a face changed as much as a hand changes one, with the dark background round it lifted
    # as skin lifts it, is under a hand
    if base is not None and z[base] >= FOREIGN and lifted[base] and not glary[base]:
        foreign.append(base)
    warm = [int(i) for i in np.flatnonzero(skin >= SKIN)]
    if len(warm) >= 2:  # skin round two faces or more: fingers, a hand
        foreign += warm
    # fingers over the edges of a few faces change each less than a palm, but together
    touched = [int(i) for i in rest if robot[i] >= HAND]
    if len(touched) < 2:
        touched = [int(i) for i in rest if z[i] >= HAND]
        touched = touched if len(touched) >= 3 else []
    foreign = sorted(set(foreign) | set(touched))
    if foreign:
        return _Seen(None, 0.0, foreign)
    if base is None:
        return _Seen(None, 0.0, [], "no robot seen on the board")
    # over every other face, its neighbours too: a shadow or glare beside the robot may
    # change a face more than a clear piece on a white one does; and a face under glare
    # that changed much may be hiding the robot
    runner = float(np.delete(changed, base).max())
    if changed[base] < CLEAR * runner:
        return _Seen(None, 0.0, [], "the robot does not stand out clearly (glare?)")
    return _Seen(base, float(changed[base]), [])


@dataclass
class _Quick:
    chroma: np.ndarray  # (36, 2)
    known: np.ndarray  # (36,) the template score of each face's own number
    contrast: np.ndarray  # (36,) its ink's contrast over the face's own brightness
    blind: np.ndarray  # (36,) bool: so washed out by glare that nothing can be told
    glare: np.ndarray  # (36,) how far glare lifts the background round it, for the light
    bright: np.ndarray  # (36,) its colour's brightest channel, glare taken off
    skin: np.ndarray  # (36,) share of the background round it that is bright and coloured
    spread: np.ndarray  # (36,) share of its bare paper far from the paper's own level


@lru_cache(maxsize=8)
def _near_ink(px: int, numerals: str, look: Look = LOOK) -> np.ndarray:
    """(6, 4, t, t) float32 masks: each print's ink and a little round it."""
    T = _templates(px, numerals, look)
    r = max(1, int(round(0.1 * T.shape[-1])))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    out = np.stack([np.stack([cv2.dilate((T[n, t] > 0.2).astype(np.uint8), kernel)
                              for t in range(4)]) for n in range(6)]).astype(np.float32)
    out.flags.writeable = False
    return out


def _quick_measures(top: np.ndarray, px: int, look: Look, style: str, numbers: np.ndarray,
                    turns: np.ndarray) -> _Quick:
    """The per-frame measures: each face's colour, and how well and how strongly its own
    number's print shows (one template a face, not all of them)."""
    colour, glare, blind, lift = _colours_of(top, px)
    raw = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = raw - cv2.GaussianBlur(raw, (0, 0), px * 0.3)
    T = _templates(px, style, look)
    t = T.shape[-1]
    pad = 2
    known = np.zeros(36, np.float32)
    near = _near_ink(px, style, look)
    windows = np.empty((36, t, t), np.float32)
    for i in range(36):
        # matched only near its ink: a shadow's edge across the rest of a face with one pip
        # would otherwise outweigh the pip
        s = cv2.matchTemplate(_patch(gray, px, i, t, pad), T[numbers[i], turns[i]],
                              cv2.TM_CCOEFF_NORMED, mask=near[numbers[i], turns[i]])
        s = np.abs(np.nan_to_num(s))
        known[i] = float(s.max())
        dy, dx = np.unravel_index(int(np.argmax(s)), s.shape)
        windows[i] = _patch(raw, px, i, t, pad)[dy:dy + t, dx:dx + t]
    # A face's bare paper is one level but for noise; a clear piece over it shows its rim,
    # its lens and the face behind bent through it: much of the paper far from that level.
    bare = near[numbers, turns] < 0.5
    level = np.nanmedian(np.where(bare, windows, np.nan).reshape(36, -1), axis=1)
    off = np.abs(windows - level[:, None, None]) > SPREAD_SHARE * level[:, None, None]
    spread = ((off & bare).reshape(36, -1).sum(axis=1)
              / np.maximum(bare.reshape(36, -1).sum(axis=1), 1)).astype(np.float32)
    # the ink against the face, over the face's own light (medians: a shadow's edge or a
    # highlight across the face moves them little)
    prints = T[numbers, turns]
    paper = np.nanmedian(np.where(prints < 0.2, windows, np.nan).reshape(36, -1), axis=1)
    inked = (prints > 0.6).reshape(36, -1).any(axis=1)
    ink = np.nanmedian(np.where(prints > 0.6, windows, np.nan).reshape(36, -1)[inked], axis=1)
    amp = np.zeros(36)
    amp[inked] = ink - paper[inked]
    contrast = (np.abs(amp) / np.maximum(paper - lift.mean(axis=1), 1.0)).astype(np.float32)
    # Skin (or a sleeve) over the dark background is bright and coloured; glare and the
    # robot's glass are bright but grey, a shadow dark.
    spaces = _tiles(top, px)
    _, band = _regions(px)
    ring = spaces[:, band[:, 0], band[:, 1]]
    mx, mn = ring.max(axis=2), ring.min(axis=2)
    level = float(np.percentile(np.median(mx, axis=1), 10))
    light = max(float(np.median(spaces[:, px // 2, px // 2].max(axis=1))), 1.0)
    skin = ((mx > level + 0.25 * light) & ((mx - mn) / (mx + 10.0) > 0.3)).mean(axis=1)
    return _Quick(_log_chroma(colour), known, contrast, blind, glare, colour.max(axis=1),
                  skin, spread)


# ---------------------------------------------------------------- landings


@dataclass(frozen=True)
class MicroTrackEvent:
    """What one observation did: ``kind`` is ``"landed"`` (the robot has rested on a new
    space: a move), ``"placed"`` (the first space it rests on when no start was given),
    ``"steady"`` (still where it was), ``"pending"`` (on a new space, not yet for long
    enough), ``"occluded"`` or ``"unseen"``."""

    kind: str
    space: str | None
    reason: str | None = None


class MicroTracker:
    """Observations → landings: a space the robot has rested on for ``stable`` unoccluded
    frames in a row, other than the one it rested on before. A frame with a hand over the
    board, or with no robot seen, starts the count again, so a robot held in a hand over a
    space, or caught between two frames, never lands.

    >>> t = MicroTracker(start="pink1", stable=2)
    >>> [t.update(MicroObservation(s, False)).kind for s in ("pink6", "pink6", "pink6")]
    ['pending', 'landed', 'steady']
    >>> t.resting
    'pink6'
    """

    def __init__(self, start: Space | str | None = None, stable: int = 3) -> None:
        if stable < 1:
            raise ValueError(f"stable: at least 1 frame, not {stable}")
        self._tracker = Tracker(stable=stable)
        if start is not None:
            self._tracker.accepted = {"robot": Space.parse(start).name}

    @property
    def resting(self) -> str | None:
        """The space the robot last rested on (the start, before any landing)."""
        accepted = self._tracker.accepted
        return None if accepted is None else accepted["robot"]

    def update(self, observation: MicroObservation) -> MicroTrackEvent:
        before = self.resting
        if observation.occluded:
            e = self._tracker.update(None, occluded=True)
            return MicroTrackEvent("occluded", None, e.reason)
        if observation.space is None:
            e = self._tracker.update(None, error="no robot seen on the board")
            return MicroTrackEvent("unseen", None, e.reason)
        e = self._tracker.update({"robot": observation.space})
        if e.kind == "accepted":
            return MicroTrackEvent("placed" if before is None else "landed",
                                   observation.space)
        return MicroTrackEvent(e.kind, observation.space)

    def landings(self, observations: Iterable[MicroObservation]) -> Iterable[str]:
        """The spaces landed on, in order, as the observations come."""
        for observation in observations:
            if self.update(observation).kind == "landed":
                yield observation.space  # type: ignore[misc]


__all__ = [
    "MicroLayoutReading", "MicroLocation", "MicroObservation", "MicroReader", "MicroShot",
    "MicroTrackEvent", "MicroTracker", "assign", "locate_micro", "random_layout",
    "read_micro_layout", "render_micro",
]

