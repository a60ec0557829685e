"""A learned look at single cells: is a robot standing here, and which?

The board's geometry comes from :mod:`.locate` as for every other reader; this module cuts, for
each cell asked about, a small upright crop that holds the cell and the space above it where a
standing robot's body is seen, and classifies it with a small convolutional network: empty, or
one of the robots of :data:`CLASSES`.

The crop follows the camera model (:class:`~companion.vision.locate.Camera`): its bottom edge
lies on the floor in front of the cell (towards the camera), its width spans one and a half
cells across the line of sight, and it reaches up to where a robot's top is seen, or to the far
side of the cell when the camera looks straight down. A robot standing on the cell therefore
always stands on the crop's lower part, whatever the tilt; a robot on the cell behind shows
only in its upper part.

The network is trained offline (``python -m companion.vision.train_cells``, the ``train``
extra) and ships as ONNX in ``companion/vision/models``; here it runs on OpenCV's own
``cv2.dnn``, so reading needs nothing beyond OpenCV and numpy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ..inputs import InputError
from .locate import GRID, Location, timer_cells

# "transparent" is learned so that the clear robot is taken for none of the others; it is
# read by its own reader (:func:`~.robots.find_clear`), not by this one
CLASSES = ("empty", "red", "green", "blue", "yellow", "black", "silver", "transparent")
CROP_W, CROP_H = 32, 48  # pixels of one crop: across the line of sight, and up it
SPAN = 0.75  # half the crop's width, and its reach in front of the cell centre (cells)
FAR = 0.75  # how far past the cell centre the crop reaches on the floor (cells)
TOP = 1.9  # how high above the board the crop reaches (cells; a robot is about 1.4 tall)
MODEL = Path(__file__).with_name("models") / "cells.onnx"


def _directions(loc: Location, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors on the board, per cell: away from the camera's foot, and across it."""
    foot = loc.camera.centre[:2]
    d = centres - foot
    n = np.linalg.norm(d, axis=1, keepdims=True)
    d = np.where(n > 1e-6, d / np.maximum(n, 1e-6), np.array([0.0, 1.0]))
    return d, np.stack([-d[:, 1], d[:, 0]], axis=1)


def crop_frames(loc: Location, cells: np.ndarray) -> np.ndarray:
    """``(N, 3, 2)`` pixel points per grid cell ``(col, row)``: the crop's bottom-left and
    bottom-right corners, and its top's middle."""
    cells = np.asarray(cells, dtype=np.float64).reshape(-1, 2)
    centres = cells + 0.5
    away, perp = _directions(loc, centres)
    zero = np.zeros((len(centres), 1))
    front = centres - SPAN * away
    bl = loc.camera.project(np.hstack([front - SPAN * perp, zero]))
    br = loc.camera.project(np.hstack([front + SPAN * perp, zero]))
    mid = 0.5 * (bl + br)
    far = loc.camera.project(np.hstack([centres + FAR * away, zero]))
    top = loc.camera.project(np.hstack([centres, np.full((len(centres), 1), TOP)]))
    # whichever reaches further from the bottom edge: the robot's top seen at a slant, or
    # the cell's far side seen from straight above
    use_top = (np.linalg.norm(top - mid, axis=1) > np.linalg.norm(far - mid, axis=1))[:, None]
    return np.stack([bl, br, np.where(use_top, top, far)], axis=1)


@lru_cache(maxsize=1)
def _unit_grid() -> tuple[np.ndarray, np.ndarray]:
    s = (np.arange(CROP_W, dtype=np.float64) + 0.5) / CROP_W
    t = 1.0 - (np.arange(CROP_H, dtype=np.float64) + 0.5) / CROP_H
    return s[None, :], t[:, None]  # across (1, W), up (H, 1)


def cut(image: np.ndarray, scale: float, white: np.ndarray, loc: Location,
        cells: np.ndarray) -> np.ndarray:
    """``(N, 3, CROP_H, CROP_W)`` float32 crops of grid cells ``(col, row)`` from ``image``
    (BGR, ``scale`` of its pixels per pixel of the frame ``loc`` was found in), in units of
    the board's white ``white`` (so a colour cast and the light's level are taken out), less
    a half. Points off the picture read as black."""
    cells = np.asarray(cells).reshape(-1, 2)
    if not len(cells):
        return np.zeros((0, 3, CROP_H, CROP_W), np.float32)
    pts = crop_frames(loc, cells) * scale  # (N, 3, 2)
    bl, br, top = pts[:, 0], pts[:, 1], pts[:, 2]
    up = top - 0.5 * (bl + br)
    s, t = _unit_grid()
    xy = (bl[:, None, None, :] + s[None, :, :, None] * (br - bl)[:, None, None, :]
          + t[None, :, :, None] * up[:, None, None, :])  # (N, H, W, 2)
    maps = xy.reshape(-1, CROP_W, 2).astype(np.float32)
    out = cv2.remap(np.ascontiguousarray(image, dtype=np.float32), maps[..., 0], maps[..., 1],
                    interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=(0, 0, 0))
    out = out.reshape(len(cells), CROP_H, CROP_W, 3) / np.maximum(
        np.asarray(white, np.float32), 1.0)
    return (np.clip(out, 0.0, 2.0) - 0.5).transpose(0, 3, 1, 2).astype(np.float32)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class CellModelError(InputError):
    """The classifier's model file is missing or cannot be read; the message names it."""


@dataclass
class CellNet:
    """The shipped classifier, on ``cv2.dnn``. :meth:`probabilities` takes crops from
    :func:`cut` and gives ``(N, len(CLASSES))``. One net may serve several threads (the
    camera's, a benchmark's workers): ``cv2.dnn`` nets keep their input and output between
    ``setInput`` and ``forward``, so those run under a lock."""

    net: cv2.dnn.Net
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def load(cls, path: Path | str = MODEL) -> CellNet:
        """The model at ``path``; :class:`CellModelError` naming the file when it is missing
        or not a model OpenCV can run."""
        path = Path(path)
        if not path.is_file():
            raise CellModelError(f"the cell classifier's model {path} is missing")
        try:
            net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as e:
            why = str(e).strip().splitlines()[-1] if str(e).strip() else "not an ONNX model"
            raise CellModelError(f"the cell classifier's model {path} cannot be read "
                                 f"({why})") from None
        if net.empty():
            raise CellModelError(f"the cell classifier's model {path} cannot be read "
                                 f"(an empty network)")
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        return cls(net)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        if not len(crops):
            return np.zeros((0, len(CLASSES)), np.float32)
        blob = np.ascontiguousarray(crops, dtype=np.float32)
        with self._lock:
            self.net.setInput(blob)
            out = np.array(self.net.forward(), dtype=np.float64)  # a copy, out of the lock
        return softmax(out.reshape(len(crops), len(CLASSES)))


@lru_cache(maxsize=1)
def shipped() -> CellNet:
    """The model that ships in the package, loaded once per process (and shared: see
    :class:`CellNet`); :class:`CellModelError` when it is missing or unreadable."""
    return CellNet.load(MODEL)


def all_cells() -> np.ndarray:
    rows, cols = np.mgrid[0:GRID, 0:GRID]
    return np.stack([cols.ravel(), rows.ravel()], axis=1)




# ---------------------------------------------------------------- deciding the robots

SURE = 0.8  # a robot is placed by the classifier only with this probability on its cell …
SURE_LEAD = 0.5  # … and no other cell within this of it
# Where the colour scores found no such robot, the classifier alone places one only when its
# word for it (:attr:`CellVerdict.own`) is this likely.
ALONE = 0.9
ABSENT = 0.2  # below this on every cell looked at, the classifier sees no such robot
TOP_CELLS = 3  # per robot colour, its best cells by the colour scores are looked at
# A tall robot leans into the crops of the cells next to it along the line of sight, so the
# classifier is often as sure of a neighbour as of its own cell. Cells within RIVAL of the
# classifier's best are its rivals; when they all lie round one cell, the colour scores
# (which test the floor in front of a robot's foot) choose among them, if their choice leads
# every other rival by NEAR_LEAD, scores at least FLOOR, and ranks among the colour's best.
# A rival further away (a printed target of the robot's colour) leaves the robot unplaced.
RIVAL = 0.5
NEAR_LEAD = 0.05
FLOOR = 0.05
# A game plays one colourless fifth robot: the classifier's black and silver together are its
# word for it (dim light and the robot's own plastic make one of the other: on the 3D source
# most colourless robots it missed were split on their own cell, 0.33/0.67, 0.45/0.45). Only
# where a sand timer may stand must its class alone be this likely: the timer's dark glass and
# frame look a little like both at once (black alone 0.78 on timers with no black robot on
# the board, 3D dev frames 840021 and 840109).
ONE_COLOURLESS = 0.85
COLOURLESS = ("black", "silver")  # the two fifth robots, told from the print by lightness alone


def candidates(loc: Location, scores: dict[str, np.ndarray], hits: dict) -> np.ndarray:
    """``(N, 2)`` grid cells ``(col, row)`` worth classifying: each colour's best few cells by
    the colour scores (:func:`~.robots.score_cells`) and every robot found, each with its
    neighbours in front and behind along the line of sight (a robot's body leans over the
    cell behind it: the colour scores may put it one cell off that way, never across)."""
    seeds: set[tuple[int, int]] = {(h.col, h.row) for h in hits.values()}
    for s in scores.values():
        for idx in np.argsort(s, axis=None)[::-1][:TOP_CELLS]:
            r, c = divmod(int(idx), GRID)
            seeds.add((c, r))
    if not seeds:
        return np.zeros((0, 2), np.int64)
    base = np.array(sorted(seeds), np.float64)
    away, _ = _directions(loc, base + 0.5)
    want = set(seeds)
    for sign in (-1.0, 1.0):
        for c, r in np.floor(base + 0.5 + sign * away).astype(np.int64):
            want.add((int(c), int(r)))
    cells = sorted((c, r) for c, r in want if 0 <= c < GRID and 0 <= r < GRID
                   and not (7 <= c <= 8 and 7 <= r <= 8))
    return np.array(cells, np.int64).reshape(-1, 2)


@dataclass(frozen=True)
class CellVerdict:
    """What the classifier says of one robot colour over the cells looked at."""

    colour: str
    cell: tuple[int, int] | None  # (col, row) where it is sure the robot stands, or None
    best: float  # the robot's probability on its best cell
    lead: float  # … less its probability on the next best cell
    at: tuple[int, int]  # that best cell
    # the classifier's word for the robot there: its class's probability, for a game's one
    # colourless robot black's and silver's together (as ``best``) …
    own: float = 0.0
    alone: float = 0.0  # … and its class's alone (black or silver, never summed)

    @property
    def absent(self) -> bool:
        return self.best < ABSENT


def verdicts(probs: np.ndarray, cells: np.ndarray, colours: list[str]) -> dict[str, CellVerdict]:
    """Per robot colour of the game, where the classifier is sure it stands, from the
    probabilities ``(N, len(CLASSES))`` over ``cells``. A game plays one colourless fifth
    robot: the network's black and silver are then one robot (dim light makes one of the
    other)."""
    p = probs.copy()
    b, s = CLASSES.index("black"), CLASSES.index("silver")
    if ("black" in colours) != ("silver" in colours):
        p[:, b] = p[:, s] = probs[:, b] + probs[:, s]
    out = {}
    for colour in colours:
        if colour not in CLASSES or colour == "transparent" or not len(cells):
            continue
        col = p[:, CLASSES.index(colour)]
        order = np.argsort(col)[::-1]
        best = float(col[order[0]])
        second = float(col[order[1]]) if len(order) > 1 else 0.0
        at = (int(cells[order[0], 0]), int(cells[order[0], 1]))
        sure = best >= SURE and best - second >= SURE_LEAD
        own = float(p[order[0], CLASSES.index(colour)])
        alone = float(probs[order[0], CLASSES.index(colour)])
        out[colour] = CellVerdict(colour, at if sure else None, best, best - second, at, own,
                                  alone)
    return out


def ranked(score: np.ndarray | None, cell: tuple[int, int]) -> bool:
    """Whether ``cell`` (col, row) is among the best :data:`TOP_CELLS` of one colour's scores
    (``(16, 16)``, by row and column). The classifier alone places a robot only there: a
    cell it is looked at for being a neighbour along the line of sight, with no colour of the
    robot's own, is where a tall robot on the cell behind it leans into its crop."""
    if score is None:
        return False
    return int((score > score[cell[1], cell[0]]).sum()) < TOP_CELLS


@dataclass(frozen=True)
class Printed:
    """What the board prints in the robots' colours, in the grid of the location read
    (``(col, row)`` per colour): its target symbols, and its diagonal barriers. To both
    readers a printed patch of a robot's colour looks like the robot seen from above; a
    barrier most of all (a long bar of the colour, with the robot's width), and no robot
    ever stops on a barrier cell (nor starts on one)."""

    targets: dict[str, frozenset[tuple[int, int]]] = field(default_factory=dict)
    barriers: dict[str, frozenset[tuple[int, int]]] = field(default_factory=dict)


def _barrier_cells(printed: Printed | None, colour: str) -> frozenset[tuple[int, int]]:
    return printed.barriers.get(colour, frozenset()) if printed is not None else frozenset()


def unprinted(scores: dict[str, np.ndarray], hits: dict, printed: Printed | None
              ) -> tuple[dict[str, np.ndarray], dict]:
    """The colour scores and the robots found without the diagonal barriers printed in each
    robot's colour: no robot stands there, so a colour score there is the print's (a robot
    found there is a doubt, not a robot), and no cell there is looked at for it."""
    from .robots import RobotHit

    if printed is None or not printed.barriers:
        return scores, hits
    scores = dict(scores)
    hits = dict(hits)
    for colour, cells in printed.barriers.items():
        if colour in scores and cells:
            s = scores[colour].copy()
            for c, r in cells:
                s[r, c] = -1.0
            scores[colour] = s
        h = hits.get(colour)
        if h is not None and h.doubt is None and (h.col, h.row) in cells:
            hits[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin,
                                    "its cell is a diagonal printed in its colour, where no "
                                    "robot stops")
    return scores, hits


# A printed target of a robot's colour far from the cell the classifier is sure of is set
# aside as the print, not the robot, when the other targets of that colour look (to the
# classifier) within this of it: the print fools it all over this frame, not the robot on one
# target; and the colour scores, which see a robot's height, must prefer the sure cell.
SIBLING = 0.3


def set_aside(marks: TargetLook, probs: np.ndarray, scores: dict[str, np.ndarray],
              colour: str) -> dict[str, np.ndarray]:
    """Discount, in place in ``probs`` (over the cells ``marks`` was made with), the printed
    targets of one ``colour`` that rival the cell the classifier is surest of off them, where
    the evidence says they are print (:data:`SIBLING`); gives the colour scores with them set
    aside too. ``marks``: the classifier's word on every target (:class:`TargetLook`)."""
    assert marks.printed is not None
    targets = marks.printed.targets.get(colour, frozenset())
    k = CLASSES.index(colour)
    p = probs[:, k]
    keys = marks.keys
    plain = [i for i, key in enumerate(keys) if key not in targets]
    score = scores.get(colour)
    if not plain or score is None:
        return scores
    i0 = max(plain, key=lambda i: p[i])
    here = keys[i0]

    def far(key: tuple[int, int]) -> bool:
        return max(abs(key[0] - here[0]), abs(key[1] - here[1])) > 1

    rivals = [i for i, key in enumerate(keys)
              if key in targets and far(key) and p[i] >= p[i0] - RIVAL]
    if p[i0] < ALONE or not rivals or any(
            p[i] > p[i0] or score[here[1], here[0]] < score[keys[i][1], keys[i][0]] + NEAR_LEAD
            for i in rivals):
        return scores  # the colour scores must prefer the sure cell to every rival
    seen = {t: v for t, v in marks.seen(colour).items() if t in targets}
    for i in rivals:
        r = keys[i]
        others = [v for t, v in seen.items() if t != r and far(t)]
        if not others or max(others) < p[i] - SIBLING:
            return scores  # it may be the robot on its target: the doubt stands
    s = score.copy()
    for i in rivals:
        probs[i, k] = 0.0
        s[keys[i][1], keys[i][0]] = -1.0
    return {**scores, colour: s}


def _with_print(marks: TargetLook, probs: np.ndarray, cells: np.ndarray,
                scores: dict[str, np.ndarray], colours: list[str], printed: Printed | None
                ) -> dict[str, np.ndarray]:
    """The classifier's probabilities (in place) and the colour scores (given back) with the
    print of each robot's colour taken out: its barriers, and its far targets where
    :func:`set_aside` finds them print."""
    if printed is None:
        return scores
    for colour in colours:
        bars = _barrier_cells(printed, colour)
        if bars and colour in CLASSES:
            on = np.array([(int(c), int(r)) in bars for c, r in cells], bool)
            probs[on, CLASSES.index(colour)] = 0.0
        if printed.targets.get(colour):
            scores = set_aside(marks, probs, scores, colour)
    return scores


class TargetLook:
    """The classifier's word on each colour's printed targets (those not among the cells
    classified are looked at once, when first asked about), to tell a robot standing on its
    own target from the target's print: the print of one colour looks alike on all its
    targets, a robot only on one. ``probs`` over ``cells``: the classifier's word before any
    print was set aside; ``look(cells)``: its probabilities on more cells."""

    def __init__(self, look, probs: np.ndarray, cells: np.ndarray, printed: Printed | None):
        self.look, self.probs, self.printed = look, probs, printed
        self.keys = [(int(c), int(r)) for c, r in cells]
        self._seen: dict[str, dict[tuple[int, int], float]] = {}

    def seen(self, colour: str) -> dict[tuple[int, int], float]:
        """Per printed target of ``colour``, the classifier's probability of that robot."""
        if colour not in self._seen:
            targets = (self.printed.targets.get(colour, frozenset())
                       | self.printed.barriers.get(colour, frozenset())) if self.printed else ()
            k = CLASSES.index(colour)
            seen = {key: float(self.probs[i, k]) for i, key in enumerate(self.keys)
                    if key in targets}
            rest = sorted(t for t in targets if t not in seen)
            if rest:
                more = self.look(np.array(rest, np.int64))[:, k].tolist()
                seen.update(zip(rest, more, strict=True))
            self._seen[colour] = seen
        return self._seen[colour]

    def stands_out(self, colour: str, cell: tuple[int, int]) -> bool:
        """Whether the classifier's word on ``cell`` can be the robot of ``colour``: always
        off its targets; on one, only when it leads every other target of its colour by
        :data:`SIBLING` (else the print fools it in this frame, and the robot is a doubt)."""
        if self.printed is None or colour not in CLASSES:
            return True
        if cell in self.printed.barriers.get(colour, ()):
            return False
        if cell not in self.printed.targets.get(colour, ()):
            return True
        seen = self.seen(colour)
        others = [v for t, v in seen.items()
                  if max(abs(t[0] - cell[0]), abs(t[1] - cell[1])) > 1]
        return max(others, default=0.0) <= seen[cell] - SIBLING


def decide(net: CellNet, frame, loc: Location, scores: dict[str, np.ndarray], hits: dict,
           colours: list[str], printed: Printed | None = None
           ) -> tuple[dict, dict[str, CellVerdict], int]:
    """The robots of ``hits`` (from :func:`~.robots.place`) with the classifier's word on
    them: a robot both place on one cell stands (the classifier likely there, if not well
    ahead of every other cell); one the classifier alone is sure of stands where it says, if
    the colour scores rank that cell among their best (:func:`ranked`); one
    they put on different cells, or that the classifier is not sure of, is doubtful (said to
    be not seen, with the reason). Also the verdicts, and how many cells were classified.

    ``printed``: the board's print in the robots' colours (:class:`Printed`); a robot is
    never placed on a barrier of its own colour, nor is that barrier its rival. A robot
    still unplaced stands where the two settle it together (:func:`settle`), or where each,
    too unsure alone, names the same cell (:func:`concur`), or, once every other coloured
    robot stands, where the classifier alone names it (:func:`lone`, :func:`off_timer`); a
    colourless one where a sand timer may stand is a doubt unless the classifier knows its
    own class there."""
    from .robots import RobotHit

    scores, hits = unprinted(scores, hits, printed)
    cells = candidates(loc, scores, hits)
    probs = net.probabilities(cut(frame.image, frame.scale, frame.white, loc, cells))

    def look(more: np.ndarray) -> np.ndarray:
        return net.probabilities(cut(frame.image, frame.scale, frame.white, loc, more))

    marks = TargetLook(look, probs.copy(), cells, printed)  # looked at once, used twice
    scores = _with_print(marks, probs, cells, scores, colours, printed)
    said = verdicts(probs, cells, colours)
    out: dict[str, RobotHit] = {}
    taken: dict[tuple[int, int], str] = {}
    for colour in sorted(said, key=lambda c: -said[c].best):
        v = said[colour]
        h = hits.get(colour)
        if (v.cell is None and h is not None and h.doubt is None and (h.col, h.row) == v.at
                and v.best >= SURE and v.at not in taken):
            # both readers put it on one cell: a neighbour the classifier also likes (the
            # robot's body leaning over the cell behind it) does not make it a guess
            out[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin, None)
            taken[v.at] = colour
            continue
        if v.cell is not None and (h is None or h.doubt is not None) and (
                v.own < ALONE or not ranked(scores.get(colour), v.cell)
                or not marks.stands_out(colour, v.cell)):
            v = CellVerdict(colour, None, v.best, v.lead, v.at, v.own, v.alone)  # not sure alone
        if v.cell is None:
            if h is None or v.absent and h.doubt is not None:
                continue
            out[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin, h.doubt or (
                f"the cell classifier is not sure of it ({v.best:.2f}, {v.lead:.2f} ahead)"))
            continue
        if h is not None and h.doubt is None and (h.col, h.row) != v.cell:
            out[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin,
                                   "the cell classifier sees it on another cell "
                                   f"({v.best:.2f})")
            continue
        if v.cell in taken:
            out[colour] = RobotHit(colour, v.cell[0], v.cell[1], v.best, v.lead,
                                   f"its cell holds the {taken[v.cell]} robot")
            continue
        out[colour] = RobotHit(colour, v.cell[0], v.cell[1], v.best, v.lead, None)
        taken[v.cell] = colour
    for colour, h in hits.items():  # colours the classifier does not know (transparent)
        if colour not in said:
            out[colour] = h
    timer = timer_cells(loc)
    out = _timer_doubts(out, said, timer, _colourless_rivals(probs, cells, colours, timer))
    return _unplaced(out, said, probs, cells, scores, hits, colours, timer, marks), said, len(cells)


def _unplaced(out: dict, said: dict[str, CellVerdict], probs: np.ndarray, cells: np.ndarray,
              scores: dict[str, np.ndarray], hits: dict, colours: list[str],
              timer: set[tuple[int, int]], marks: TargetLook) -> dict:
    """The robots of ``out`` with those still unplaced placed where the two readers settle
    them together (:func:`settle`), or each, too unsure alone, names one cell
    (:func:`concur`); and, once every other coloured robot of the game stands on its cell
    (so no robot unseen can be what the classifier sees: a washed-out coloured robot looks
    colourless, or like another colour, to it; a colourless one lifted off the board looks
    like no coloured one), where the classifier alone names the game's colourless robot
    (:func:`lone`), or a coloured one off the cells of a sand timer that both readers take
    for it (:func:`off_timer`)."""
    from .robots import RobotHit

    taken = {(h.col, h.row): c for c, h in out.items() if h.doubt is None}
    for colour in said:
        h = out.get(colour)
        if h is not None and h.doubt is None:
            continue
        hit = hits.get(colour)
        hit = hit if hit is not None and hit.doubt is None else None
        score = scores.get(colour)
        cell = (settle(probs, cells, colour, colours, score, timer)
                or concur(probs, cells, colour, colours, score))
        if cell is None and all(out.get(c) is not None and out[c].doubt is None
                                for c in said if c != colour and c not in COLOURLESS):
            cell = (lone(probs, cells, colour, colours, score, timer, taken)
                    or off_timer(probs, cells, colour, colours, score, timer, hit))
        if cell is not None and cell[0] not in taken and marks.stands_out(colour, cell[0]):
            out[colour] = RobotHit(colour, cell[0][0], cell[0][1], cell[1], 0.0, None)
            taken[cell[0]] = colour
    return out


def _timer_doubts(out: dict, said: dict[str, CellVerdict], timer: set[tuple[int, int]],
                  rivals: Callable[[tuple[int, int]], tuple[tuple[int, int], float] | None]
                  = lambda at: None) -> dict:
    """The robots of ``out`` with a colourless one made doubtful where a sand timer on the
    centre piece may stand (``timer``), unless the classifier gives its own class (black or
    silver, not the two summed) :data:`ONE_COLOURLESS` there: the timer's dark glass and
    frame look like one to both readers, to the classifier a little like both at once.

    Even then it is a doubt where ``rivals`` (:func:`_colourless_rivals`) names a cell off
    the timer, not next to it, that the classifier likes within :data:`SURE_LEAD` as much:
    a tall timer looks like a big silver robot, and the real one stands elsewhere."""
    from .robots import RobotHit

    out = dict(out)
    for colour, h in out.items():
        v = said.get(colour)
        if colour not in COLOURLESS or h.doubt is not None or (h.col, h.row) not in timer:
            continue
        why = None
        if v is None or v.at != (h.col, h.row) or v.alone < ONE_COLOURLESS:
            why = f"{v.alone if v is not None else 0.0:.2f} {colour}"
        elif (rival := rivals((h.col, h.row))) is not None and rival[1] >= v.best - SURE_LEAD:
            why = f"a cell off it looks nearly as much like it, {rival[1]:.2f}"
        if why is not None:
            out[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin,
                                   f"a sand timer on the centre piece may stand there ({why})")
    return out


def _colourless_rivals(probs: np.ndarray, cells: np.ndarray, colours: list[str],
                       timer: set[tuple[int, int]]
                       ) -> Callable[[tuple[int, int]], tuple[tuple[int, int], float] | None]:
    """For a cell ``(col, row)``: the cell the classifier likes best for the game's
    colourless robot (black and silver summed when it plays one of them) among those off
    the sand timer's cells and not next to the given one, with that probability; None when
    there is none."""
    b, s = CLASSES.index("black"), CLASSES.index("silver")
    pair = probs[:, b] + probs[:, s] if ("black" in colours) != ("silver" in colours) \
        else np.maximum(probs[:, b], probs[:, s])

    def rival(at: tuple[int, int]) -> tuple[tuple[int, int], float] | None:
        best: tuple[tuple[int, int], float] | None = None
        for i, (c, r) in enumerate(cells.tolist()):
            if (c, r) in timer or max(abs(c - at[0]), abs(r - at[1])) <= 1:
                continue
            if best is None or pair[i] > best[1]:
                best = ((c, r), float(pair[i]))
        return best
    return rival


def _own(probs: np.ndarray, colour: str, colours: list[str]) -> np.ndarray:
    """``(N,)`` the classifier's word for one robot colour on each cell: its class's
    probability, or for a game's one colourless robot (black or silver, not both) black's
    and silver's together."""
    b, s = CLASSES.index("black"), CLASSES.index("silver")
    if colour in COLOURLESS and ("black" in colours) != ("silver" in colours):
        return probs[:, b] + probs[:, s]
    return probs[:, CLASSES.index(colour)]


def settle(probs: np.ndarray, cells: np.ndarray, colour: str, colours: list[str],
           score: np.ndarray | None, timer: set[tuple[int, int]] | frozenset = frozenset()
           ) -> tuple[tuple[int, int], float] | None:
    """The cell ``(col, row)`` where the classifier and the colour scores ``score`` together
    put a robot the two did not place alone, and the classifier's word there; or None.

    The classifier must be sure (:data:`SURE`) of some cell, and every cell it nearly
    likes as much (:data:`RIVAL`) must lie next to the one the colour scores prefer among
    them: then the robot stands there, leaning into the others' crops, if the colour scores
    lead every rival by :data:`NEAR_LEAD`, reach :data:`FLOOR` (not for a colourless robot,
    whose scores are often nil where the print is dark) and rank the cell among the colour's
    best (:func:`ranked`), and the classifier alone is :data:`ALONE` sure of it (not merely
    :data:`SURE`, even where the colour scores placed the robot there without a doubt: on a
    real photo seen from a camera turned further they put the green robot one cell off,
    where the classifier gave it 0.90 and its own cell 1.00). A colourless robot is never
    settled on a cell a sand timer on the centre piece may hide (``timer``): the timer's
    glass and frame look like one."""
    if score is None or not len(cells):
        return None
    own = _own(probs, colour, colours)
    best = float(own.max())
    if best < SURE:
        return None
    rivals = np.nonzero(own >= best - RIVAL)[0]
    sc = score[cells[rivals, 1], cells[rivals, 0]]
    order = np.argsort(-sc, kind="stable")
    pick = rivals[order[0]]
    here = cells[pick]
    for o in order[1:]:
        if (np.abs(cells[rivals[o]] - here).max() > 1
                or sc[order[0]] - sc[o] < NEAR_LEAD):
            return None
    cell = (int(here[0]), int(here[1]))
    colourless = colour in COLOURLESS
    floor = -np.inf if colourless else FLOOR
    if own[pick] < ALONE or sc[order[0]] < floor or not ranked(score, cell):
        return None
    if colourless and cell in timer:
        return None
    return cell, float(own[pick])


# A robot too faint for either reader alone (translucent plastic washed out by bright light,
# haze): the colour scores' best cell, reaching CONCUR_FLOOR however little it leads, is the
# classifier's best too, with at least CONCUR, and no cell away from it comes within RIVAL.
CONCUR = 0.6
CONCUR_FLOOR = 0.05


def concur(probs: np.ndarray, cells: np.ndarray, colour: str, colours: list[str],
           score: np.ndarray | None) -> tuple[tuple[int, int], float] | None:
    """The cell ``(col, row)`` where the colour scores ``score`` and the classifier, each too
    unsure to place a robot alone, put it together, and the classifier's word there; or None.
    The colour scores' best cell (reaching :data:`CONCUR_FLOOR`) must be the classifier's
    best of the cells looked at, with :data:`CONCUR`, and every cell not next to it
    :data:`RIVAL` less. Never a colourless robot: a shadow beside a robot seen from above is
    as dark and colourless as it, to both readers (a lifted silver robot was seen there)."""
    if score is None or not len(cells) or colour in COLOURLESS:
        return None
    r, c = divmod(int(np.argmax(score)), GRID)
    if float(score[r, c]) < CONCUR_FLOOR:
        return None
    at = np.nonzero((cells[:, 0] == c) & (cells[:, 1] == r))[0]
    if not len(at):
        return None
    own = _own(probs, colour, colours)
    p = float(own[at[0]])
    near = np.abs(cells - (c, r)).max(axis=1) <= 1
    if p < CONCUR or p < float(own.max()) or (
            (~near).any() and float(own[~near].max()) > p - RIVAL):
        return None
    return (c, r), p


# The game's one colourless robot where the classifier, black and silver summed, gives it
# this on one cell and no other cell comes within SURE_LEAD: washed-out and dim colourless
# robots on the 3D source read 0.73-0.89 on their own cells with nothing else near; a cell
# that was none read up to 0.57 off the sand timer's cells (0.78 on a coloured robot lost in
# haze, which the caller rules out: every other robot must stand on its cell).
LONE = 0.75


def lone(probs: np.ndarray, cells: np.ndarray, colour: str, colours: list[str],
         score: np.ndarray | None, timer: set[tuple[int, int]] | frozenset = frozenset(),
         placed: Iterable[tuple[int, int]] = ()) -> tuple[tuple[int, int], float] | None:
    """The cell ``(col, row)`` where the classifier alone puts a game's one colourless robot
    below :data:`ALONE` (black and silver summed reaching :data:`LONE`, every other cell
    looked at :data:`SURE_LEAD` less), off the cells a sand timer may hide (``timer``) and
    among the colour scores' best (:func:`ranked`), and not next to a robot ``placed`` (cells
    ``(col, row)``: a robot's shadow, and its body seen against the cell behind it, look
    colourless too; a rendered yellow robot's cell behind read so); and its word there, or
    None. Only for a game that plays one colourless robot, and only once every other robot
    is placed (the caller's part): a coloured robot washed out by haze looks colourless to
    it too."""
    if (colour not in COLOURLESS or ("black" in colours) == ("silver" in colours)
            or score is None or len(cells) < 2):
        return None
    own = _own(probs, colour, colours)
    order = np.argsort(-own)
    i = int(order[0])
    cell = (int(cells[i, 0]), int(cells[i, 1]))
    if (own[i] < LONE or own[i] - own[order[1]] < SURE_LEAD or cell in timer
            or not ranked(score, cell)
            or any(max(abs(c - cell[0]), abs(r - cell[1])) <= 1 for c, r in placed)):
        return None
    return cell, float(own[i])


def off_timer(probs: np.ndarray, cells: np.ndarray, colour: str, colours: list[str],
              score: np.ndarray | None, timer: set[tuple[int, int]] | frozenset, hit
              ) -> tuple[tuple[int, int], float] | None:
    """The cell ``(col, row)`` of a coloured robot that the colour scores placed on a cell a
    sand timer on the centre piece may hide (``hit``, a :class:`~.robots.RobotHit`; ``timer``)
    while the classifier is :data:`ALONE` sure of a cell off those cells and not next to it,
    ranked among the colour's best (:func:`ranked`), and likes no other cell off the timer's
    within :data:`RIVAL` but beside it; and the classifier's word there, or None. A timer with
    wooden ends over pale sand looks like the yellow robot to both readers (the 3D source,
    0.89-0.97 to the classifier), the robot itself standing elsewhere. Only once every other
    robot is placed (the caller's part), so the cell is no other robot washed out."""
    if (hit is None or colour in COLOURLESS or score is None or not len(cells)
            or (hit.col, hit.row) not in timer):
        return None
    own = _own(probs, colour, colours)
    keys = [(int(c), int(r)) for c, r in cells]
    off = [i for i, key in enumerate(keys) if key not in timer]
    if not off:
        return None
    i = max(off, key=lambda j: own[j])
    cell = keys[i]
    if (own[i] < ALONE or max(abs(cell[0] - hit.col), abs(cell[1] - hit.row)) <= 1
            or not ranked(score, cell)):
        return None
    if any(own[j] >= own[i] - RIVAL and max(abs(keys[j][0] - cell[0]),
                                            abs(keys[j][1] - cell[1])) > 1 for j in off):
        return None
    return cell, float(own[i])


__all__ = ["CLASSES", "CROP_H", "CROP_W", "CellModelError", "CellNet", "CellVerdict", "Printed",
           "all_cells", "candidates", "concur", "crop_frames", "cut", "decide", "lone", "off_timer",
           "ranked", "settle", "shipped", "softmax", "unprinted", "verdicts"]
