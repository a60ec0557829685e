"""The reading pipeline: one camera frame → an :class:`Observation` of the table.

>>> from companion.vision.render import render
>>> shot = render({"board": {"tiles": ["1A", "4B", "3B", "2B"]},
...                "robots": {"red": "o14", "blue": "n5"}}, seed=1, tilt=15)
>>> obs = read_frame(shot.image, tiles=["1A", "4B", "3B", "2B"])
>>> obs.robots["red"], obs.robots["blue"]
('o14', 'n5')

Steps, each in its own module: find the board (:mod:`.locate`), find the robots on the grid by
their bases (:mod:`.robots`), make sure nothing foreign lies over the board (:mod:`.track`),
identify the tiles and so which way is north (:mod:`.tileid`), name the robots' cells, and read
the target chip (:mod:`.chip`).

A frame that cannot be read raises :class:`~companion.vision.locate.VisionError` with the
reason in the user's words (no board in view, part of it out of frame, a black frame). A frame
with a hand over the board is *not* an error: it is an observation with ``occluded`` set and
no robots, which the tracker must not take as a position.

:class:`Reader` keeps what holds for a whole game — the colour profile, the tiles and where
north lies — so the per-frame work is only localisation, robots and occlusion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from ..board import Board, cell_name
from ..i18n import Message
from .cells import CellNet, Printed, decide, shipped, unprinted
from .chip import ChipReading, read_chip
from .colours import CLEAR, OPTIONAL, Profile, white_of
from .hands import reaching_in, unprinted_cells
from .locate import GRID, Location, VisionError, locate, timer_cells, track
from .robots import (
    COLOURLESS,
    RobotHit,
    find_clear,
    find_robots,
    fit_principal,
    place,
    prepare,
    score_cells,
    see_print,
    silhouette_cells,
)
from .tileid import TileReading, read_tiles
from .track import OCC_PX, light_field, occlusion

# Below this confidence in which way the board lies (the tiles' reading) every cell name is a
# guess: the robots are seen, but none is placed (a right reading is above 0.85 on renders
# under haze and glare and on the real photos; the wrong ones fell below 0.25).
NORTH_SURE = 0.5
# With the tiles given only the quarter turn is read, and its confidence is the margin of the
# best turn over the next one. A turn read wrong names every robot's cell wrong at once (all
# of them seen jumping together), so it needs a wider margin: a board read a half turn wrong
# on a small 3D render had 0.81; right readings are above 0.85 on renders and real photos.
NORTH_SURE_TILES = 0.85


@dataclass
class Observation:
    """What one frame shows. ``corners`` are the grid's NW, NE, SE, SW corners in pixels;
    ``robots`` maps colour → cell name; ``chip`` is the target chip or ``None``."""

    corners: list[list[float]]
    tiles: tuple[str, ...] | None
    tiles_confidence: float | None
    robots: dict[str, str]
    robot_scores: dict[str, float]
    chip: ChipReading | None
    occluded: bool
    occluded_cells: list[str] = field(default_factory=list)
    method: str = "outline"
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # robots expected but not seen
    # robots something was seen of, but not surely enough to place them: colour → why
    doubtful: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every robot the game has was seen: only then is this a whole position."""
        return not self.occluded and not self.missing

    def to_dict(self) -> dict[str, Any]:
        """The ``companion read --json`` shape: ``tiles``, ``robots``, ``target`` first."""
        return {
            "tiles": list(self.tiles) if self.tiles else None,
            "robots": dict(self.robots),
            "target": self.chip.to_dict() if self.chip and self.chip.shape else None,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "tiles_confidence": None if self.tiles_confidence is None
            else round(self.tiles_confidence, 3),
            "chip_confidence": round(self.chip.confidence, 3) if self.chip else None,
            "chip_unread": self.chip.reason if self.chip and not self.chip.read else None,
            "occluded": self.occluded,
            "occluded_cells": list(self.occluded_cells),
            "method": self.method,
            "missing": list(self.missing),
            "doubtful": dict(self.doubtful),
            "notes": list(self.notes),
        }

    def position(self) -> dict[str, Any]:
        """A ``ricochet-position/1`` dictionary of what was read (for ``Position.from_dict``)."""
        if self.occluded:
            raise VisionError(Message("vision.covered"))
        if not self.tiles:
            raise VisionError(Message("vision.tiles_unknown"))
        out: dict[str, Any] = {"board": {"tiles": list(self.tiles)}, "robots": dict(self.robots)}
        if self.chip and self.chip.shape:
            out["target"] = self.chip.to_dict()
        return out


def rotate_cell(col: int, row: int, k: int) -> tuple[int, int]:
    """A grid cell's coordinates after :meth:`Location.rotated` by ``k``."""
    for _ in range(k % 4):
        col, row = row, GRID - 1 - col
    return col, row


def printed_cells(board: Board, k: int, *, barriers: bool = True) -> Printed:
    """Where ``board`` prints each robot colour (its targets and diagonal barriers), in the
    grid of a location that :meth:`Location.rotated` by ``k`` orients (see :func:`rotate_cell`).
    ``barriers=False`` leaves the barriers out: under the house rule that lets a robot stop on
    a diagonal (``barrier_stop = "allowed"``) a barrier's cell may be where a robot stands."""
    def unturned(cell: int) -> tuple[int, int]:
        file, rank = board.xy(cell)
        col, row = file, GRID - 1 - rank
        for _ in range(k % 4):  # rotate_cell undone
            col, row = GRID - 1 - row, col
        return col, row

    targets: dict[str, set[tuple[int, int]]] = {}
    for t in board.targets:
        if not t.is_vortex:
            targets.setdefault(t.color, set()).add(unturned(t.cell))
    bars: dict[str, set[tuple[int, int]]] = {}
    for d in board.diagonals if barriers else ():
        bars.setdefault(d.color, set()).add(unturned(d.cell))
    return Printed({c: frozenset(v) for c, v in targets.items()},
                   {c: frozenset(v) for c, v in bars.items()})


def grid_cell_name(col: int, row: int) -> str:
    """Oriented grid cell (row 0 in the north) → its name, ``(0, 15)`` → ``a1``."""
    return cell_name((GRID - 1 - row) * GRID + col)


# Whether readers built without an explicit ``cells`` read the robots with the shipped cell
# classifier (see :func:`use_cells`).
_DEFAULT = {"cells": True}


def use_cells(on: bool) -> bool:
    """Turn the learned cell classifier on (the default) or off for every reader built from
    now on in this process without an explicit ``cells`` (``--no-cells`` on the command line):
    off, the colour scores alone decide, as before the classifier shipped. Gives the setting
    it replaced, to put back."""
    was = _DEFAULT["cells"]
    _DEFAULT["cells"] = bool(on)
    return was


def default_cells() -> CellNet | None:
    """The classifier a reader gets when none is named: the shipped model, loaded once per
    process, or None where :func:`use_cells` turned it off. A missing or unreadable model
    raises :class:`~.cells.CellModelError` naming the file; reading never quietly goes on
    without it."""
    return shipped() if _DEFAULT["cells"] else None


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT_CELLS"


# ``cells=DEFAULT_CELLS``: whatever :func:`default_cells` gives when the reader is built
DEFAULT_CELLS: Any = _Default()


@dataclass
class Reader:
    """Reads frames of one game. Give ``tiles`` when they are known (or confirmed by the user):
    then only north is searched for, once, and kept while the board stays put.

    A robot once seen is expected from then on: a frame where it cannot be found (lifted off
    the board, or lost under glare) lists it in ``missing``; the state then simply lacks it."""

    tiles: list[str] | None = None
    profile: Profile = field(default_factory=Profile)
    read_chip: bool = True
    # the learned cell classifier that has the last word on the robots (by default the
    # shipped one: :func:`default_cells`), or None: the colour scores alone decide
    cells: CellNet | None = DEFAULT_CELLS
    # per robot colour, the classifier's probability and lead this table's robot reaches on
    # its own cell (learnt at a confirmed start, :mod:`.adapt`): where the colour scores and
    # the classifier name the same cell and the classifier reaches them, the robot stands
    bars: dict[str, tuple[float, float]] = field(default_factory=dict)
    # the game's house rule lets a robot stop on a diagonal barrier (``barrier_stop =
    # "allowed"``): a barrier of a robot's colour is then no proof that it stands elsewhere
    barrier_stops: bool = False
    # the classifier's word in the last frame: colour → (its best cell, probability, lead)
    votes: dict[str, tuple[str, float, float]] = field(default_factory=dict, repr=False)
    _tiles_reading: TileReading | None = field(default=None, repr=False)
    _corners: np.ndarray | None = field(default=None, repr=False)
    _loc: Location | None = field(default=None, repr=False)
    _seen: set[str] = field(default_factory=set, repr=False)  # robots this game has shown
    # the camera's principal point, once fitted to the robots (:func:`.robots.fit_principal`):
    # it does not move during a game, so the search is made once, not on every frame
    _fitted: bool = field(default=False, repr=False)
    _principal: tuple[float, float] | None = field(default=None, repr=False)
    # this frame's search, if one was made: its principal point, kept if the frame is clear
    _found: tuple[tuple[float, float] | None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.cells is DEFAULT_CELLS:
            self.cells = default_cells()

    def read(self, image: np.ndarray, *, corners: Any = None) -> Observation:
        """The observation of ``image``. The camera fitted to the robots is kept for the game
        only from a frame found clear: under a hand the robots it fits are partly hidden, so a
        covered frame reads with its own fit and the next clear frame searches again."""
        self._found = None
        obs = self._look(image, corners)
        if self._found is not None and not obs.occluded:
            self._fitted, self._principal = True, self._found[0]
        return obs

    def _look(self, image: np.ndarray, corners: Any) -> Observation:
        if image is None or not isinstance(image, np.ndarray) or image.ndim != 3:
            raise VisionError("not a colour image")
        loc = None
        if corners is None and self._loc is not None:
            loc = track(image, self._loc)
        if loc is None:
            loc = locate(image, corners=corners)
        self._loc = loc
        frame = prepare(image, loc)
        loc, first = self._camera(frame, loc)  # what find_robots does, kept
        hits = place(first)
        # Occlusion: foreign cells that neither robots nor the centre piece explain.
        explained = _explained(loc, hits)
        rect = loc.warp(image, OCC_PX)
        grey = _shrunk_warp(image, loc.corners, LINE_PX)
        bare = bare_cells(image, loc, grey)
        occ = occlusion(rect, frame.white, explained, bare)
        # Under a hand the walls are not all seen: keep what was known, learn nothing new.
        reading = self._tiles_reading if occ.occluded else self._orientation(image, loc, hits)
        k = reading.rotation if reading else 0
        oriented = loc.rotated(k)
        board = Board.from_tiles(reading.tiles) if reading is not None else None
        view = None
        if not occ.occluded and board is not None and (
                CLEAR in self.profile.robots or set(COLOURLESS) & set(self.profile.robots)):
            # beside another robot the print is its shadow's or its body's: not the plain one
            view = see_print(image, oriented, board, _around(explained, k))
            if set(COLOURLESS) & set(self.profile.robots):
                # a black or silver robot is told from shadows and dark print by the print
                again = find_robots(frame, loc, self.profile, view.turned(k))
                if _cells(again) != _cells(hits):
                    hits, explained = again, _explained(loc, again)
                    occ = occlusion(rect, frame.white, explained, bare)
        if occ.occluded:
            return _covered(oriented, reading, occ.cells, loc, k)
        if self.cells is not None:
            colours = [c for c in self.profile.robots if c != CLEAR]
            printed = (printed_cells(board, k, barriers=not self.barrier_stops)
                       if board is not None else None)
            before = unprinted(first, hits, printed)[1]
            hits, said, _ = decide(self.cells, frame, loc, first, hits, colours, printed)
            if self.bars:
                hits = agreed(before, hits, said, self.bars)
            self.votes = {c: (grid_cell_name(*rotate_cell(*v.at, k)), v.best, v.lead)
                          for c, v in said.items()}
        # a robot not placed (the classifier does not confirm it) explains no cell a hand covers
        held = reaching_in(unprinted_cells(grey),
                           _explained(loc, {c: h for c, h in hits.items() if not h.doubt}))
        if held:
            return _covered(oriented, reading, held, loc, k)
        robots, scores, doubtful = {}, {}, {}
        sure = NORTH_SURE_TILES if self.tiles is not None else NORTH_SURE
        unsure_north = reading is not None and reading.confidence < sure
        for colour, h in hits.items():
            c, r = rotate_cell(h.col, h.row, k)
            doubt = h.doubt or (f"which way the board lies is not sure "
                                f"({reading.confidence:.2f})" if unsure_north else None)
            if doubt is not None:
                # not placed on a guessed cell: said to be not seen, and why
                doubtful[colour] = f"{grid_cell_name(c, r)}? {doubt}"
                continue
            robots[colour] = grid_cell_name(c, r)
            scores[colour] = round(h.score, 3)
        if CLEAR in self.profile.robots and view is not None:
            clear = find_clear(image, oriented, board, _shadowed(loc, hits, k), view.alike)
            if clear is not None and unsure_north:
                doubtful[CLEAR] = (f"{grid_cell_name(clear.col, clear.row)}? which way the "
                                   f"board lies is not sure ({reading.confidence:.2f})")
            elif clear is not None:
                robots[CLEAR] = grid_cell_name(clear.col, clear.row)
                scores[CLEAR] = round(clear.score, 3)
        chip = None
        if self.read_chip and board is not None:
            chip = read_chip(image, oriented, board, self.profile)
        notes, missing = self._notes(loc, robots, doubtful, reading)
        return Observation(oriented.corners.tolist(), reading.tiles if reading else None,
                           reading.confidence if reading else None, robots, scores, chip, False,
                           [], loc.method, notes, missing, doubtful)

    def _camera(self, frame: Any, loc: Location) -> tuple[Location, dict[str, np.ndarray]]:
        """``loc`` with the camera the robots fit best and the colour scores under it: searched
        until a clear frame calls for it, then kept for the rest of the game."""
        if self._fitted:
            if self._principal is not None:
                loc = loc.with_principal(self._principal)
            return loc, score_cells(frame, loc, self.profile)
        fitted, scores, searched = fit_principal(frame, loc, self.profile)
        if searched:  # kept by :meth:`read` once the frame is found clear
            self._found = (fitted.camera.principal,)
        return fitted, scores

    def _notes(self, loc: Location, robots: dict[str, str], doubtful: dict[str, str],
               reading: TileReading | None) -> tuple[list[str], list[str]]:
        """What the page and the log are told beside the robots placed: the robots expected
        (those of the profile and any this game has shown) not seen, the doubtful ones, tiles
        read uncertainly; and the robots missing."""
        notes = list(loc.notes)
        expected = {c for c in self.profile.robots if c not in OPTIONAL} | self._seen
        missing = sorted(c for c in expected if c not in robots)
        for colour in missing:
            notes.append(f"no {colour} robot seen" if colour not in doubtful else
                         f"no {colour} robot seen (doubtful: {doubtful[colour]})")
        for colour in sorted(set(doubtful) - set(missing)):
            notes.append(f"a {colour} robot not placed (doubtful: {doubtful[colour]})")
        self._seen |= set(robots)
        if reading is not None and reading.confidence < 0.9:
            notes.append(f"tiles uncertain ({reading.confidence:.2f}): confirm them with --board")
        return notes, missing

    def _orientation(self, image: np.ndarray, loc: Location, hits: dict) -> TileReading | None:
        """The tiles and north, reused while the board has not moved by a quarter cell."""
        known = self._tiles_reading
        if known is not None and self._corners is not None and known.confidence >= 0.9:
            cell = np.linalg.norm(loc.corners[1] - loc.corners[0]) / GRID
            if np.abs(loc.corners - self._corners).max() < 0.25 * cell:
                return known
        reading = read_tiles(image, loc, profile=self.profile,
                             robot_cells=[(h.col, h.row) for h in hits.values()],
                             tiles=self.tiles)
        if self.tiles is None and reading.confidence >= 0.9:
            self.tiles = list(reading.tiles)  # from now on only north is searched for
        self._tiles_reading, self._corners = reading, loc.corners.copy()
        return reading


def reader_for(tiles: Sequence[str] | None, *, robots: Sequence[str] = (),
               profile: Profile | None = None, read_chip: bool = False,
               cells: Any = True, barrier_stops: bool = False) -> Reader:
    """The reader of one game's board: its ``tiles`` (``None``: identified from the picture),
    the table's colour ``profile`` narrowed to the ``robots`` the game has. The camera feed
    and ``companion verify`` both build their reader here, so a recording replays through
    the pipeline the table reads with. ``cells``: ``True``, the process's default cell
    classifier (see :func:`default_cells`); ``False``, the colour scores alone; or a
    classifier of its own. ``barrier_stops``: the game lets a robot stop on a diagonal
    barrier (:attr:`Reader.barrier_stops`)."""
    chosen = profile or Profile()
    if robots:
        chosen = chosen.for_robots(list(robots))
    return Reader(tiles=list(tiles) if tiles else None, profile=chosen, read_chip=read_chip,
                  barrier_stops=barrier_stops,
                  **({} if cells is True else {"cells": cells or None}))


def agreed(before: Mapping[str, RobotHit], after: Mapping[str, RobotHit],
           said: Mapping[str, Any], bars: Mapping[str, tuple[float, float]]
           ) -> dict[str, RobotHit]:
    """The robots of a reading (``after``, the cell classifier's decision on the colour
    scores' ``before``, its verdicts ``said``) with those this table's ``bars`` (learnt
    at a confirmed start, :mod:`.adapt`) let stand:
    a robot the colour scores place surely on a cell that the classifier names its best
    too, with the probability and lead this table's robot reaches, on a cell no other robot
    holds. Nothing else changes."""
    out = dict(after)
    taken = {(h.col, h.row) for h in after.values() if h.doubt is None}
    for colour, (bar, lead) in bars.items():
        h, v, now = before.get(colour), said.get(colour), after.get(colour)
        if h is None or v is None or h.doubt is not None or (now is not None and now.doubt is None):
            continue
        if v.at != (h.col, h.row) or v.best < bar or v.lead < lead or v.at in taken:
            continue
        out[colour] = RobotHit(colour, h.col, h.row, h.score, h.margin, None)
        taken.add(v.at)
    return out


def _covered(oriented: Location, reading: TileReading | None, cells: Sequence[tuple[int, int]],
             loc: Location, k: int) -> Observation:
    """The observation of a frame with something over the board: no robots, the covered
    ``cells`` (col, row in the grid of ``loc``) named in the board's own grid."""
    names = sorted(grid_cell_name(*rotate_cell(c, r, k)) for c, r in cells)
    return Observation(oriented.corners.tolist(), reading.tiles if reading else None,
                       reading.confidence if reading else None, {}, {}, None, True, names,
                       loc.method, list(loc.notes))


def _explained(loc: Location, hits: dict[str, RobotHit]) -> set[tuple[int, int]]:
    """Grid cells the robots found stand on or hide from the camera, and those a sand timer
    on the centre piece may hide."""
    cells: set[tuple[int, int]] = timer_cells(loc)
    for h in hits.values():
        cells |= silhouette_cells(loc, h.col, h.row)
        cells.add((h.col, h.row))
    return cells


def _around(cells: set[tuple[int, int]], k: int) -> set[tuple[int, int]]:
    """Those cells and their neighbours, in the grid turned by ``k``: where a robot's body
    or its shadow may change the print."""
    return {rotate_cell(c + dc, r + dr, k) for c, r in cells
            for dc in (-1, 0, 1) for dr in (-1, 0, 1)}


def _shadowed(loc: Location, hits: dict[str, RobotHit], k: int) -> set[tuple[int, int]]:
    """The cells, in the grid turned by ``k``, whose print the robots found may change: those
    their bodies hide, and those round their feet where their shadows fall."""
    cells: set[tuple[int, int]] = set()
    for h in hits.values():
        cells |= silhouette_cells(loc, h.col, h.row)
        cells |= {(h.col + dc, h.row + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
    return {rotate_cell(c, r, k) for c, r in cells}


def _cells(hits: dict[str, RobotHit]) -> dict[str, tuple[int, int]]:
    return {c: (h.col, h.row) for c, h in hits.items()}


LINE_PX = 12  # rectified pixels per cell for :func:`bare_cells`
BARE = 0.35  # a cell with this little print against the board's usual cell: none is seen
GLARE = 1.08  # a cell this much lighter than the light there: glare, which washes print out


def _shrunk_warp(image: np.ndarray, corners: np.ndarray, px: int) -> np.ndarray:
    """The board (lattice ``corners`` in grid order) seen from above at ``px`` a cell, grey,
    float32: the part of the picture round it first halved until its cells are at most
    three times that size, so that thin lines are averaged in rather than skipped."""
    h, w = image.shape[:2]
    x0, y0 = np.floor(np.clip(corners.min(axis=0) - 2, 0, None)).astype(int)
    x1, y1 = np.ceil(np.minimum(corners.max(axis=0) + 2, (w, h))).astype(int)
    roi = image[y0:y1, x0:x1]
    pts = corners - (x0, y0)
    cell = np.sqrt(max(cv2.contourArea(corners.astype(np.float32)), 1.0)) / GRID
    while cell > 3 * px and min(roi.shape[:2]) >= 4:
        hh, ww = roi.shape[0] // 2 * 2, roi.shape[1] // 2 * 2
        roi = cv2.resize(roi[:hh, :ww], (ww // 2, hh // 2), interpolation=cv2.INTER_AREA)
        pts, cell = (pts + 0.5) / 2 - 0.5, cell / 2
    if roi.ndim == 3:
        roi = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
    n = GRID * px
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    M = cv2.getPerspectiveTransform(pts.astype(np.float32), dst)
    return cv2.warpPerspective(roi, M, (n, n), flags=cv2.INTER_AREA if cell > px else
                               cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
                               ).astype(np.float32)


def bare_cells(image: np.ndarray, loc: Location, rect: np.ndarray | None = None
               ) -> np.ndarray:
    """``(16, 16)`` True where a cell shows none of its print in ``image`` (BGR or grey;
    rows and columns in the grid of ``loc``, a :class:`~.locate.Location`); ``rect``: the
    board from above as :func:`_shrunk_warp` gives it at :data:`LINE_PX`, when already made.

    Every cell of a board is printed with edges (the lattice's thin lines, a cell's own
    square, a symbol), seen under any light: a shadow darkens them with the cell, haze and a
    colour cast leave them. A hand or an arm over the board shows none, however pale it is
    and however like the print its colour. So a cell whose brightness varies far less than
    the board's cells usually do (its gradients, against the light there) is covered, unless
    it is lighter than the light around it (glare washes the print out) or clipped white."""
    px = LINE_PX
    rect = _shrunk_warp(image, loc.corners, px) if rect is None else rect
    light = cv2.dilate(rect, np.ones((5, 5), np.uint8)) + 1.0
    edges = (np.abs(cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3))
             + np.abs(cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3))) / light
    printed = edges.reshape(GRID, px, GRID, px).mean(axis=(1, 3))
    bare = printed < BARE * float(np.median(printed))
    bare[7:9, 7:9] = False  # the centre piece: plain, and never a hand's for that
    if not bare.any():  # the usual frame: every cell printed, no need to look for glare
        return bare
    q = 3 * (px * px - 1) // 4  # each cell's upper quartile: its light print
    p75 = np.partition(rect.reshape(GRID, px, GRID, px).transpose(0, 2, 1, 3)
                       .reshape(GRID, GRID, -1), q, axis=2)[..., q]
    lit = p75 / light_field(p75)
    return bare & (lit < GLARE) & (p75 < 245)

def read_frame(image: np.ndarray, *, tiles: list[str] | None = None, corners: Any = None,
               profile: Profile | None = None, chip: bool = True,
               cells: CellNet | None = DEFAULT_CELLS) -> Observation:
    """Read one frame from scratch (see the module docstring); ``cells``: the learned cell
    classifier that has the last word on the robots (default: :func:`default_cells`; None:
    the colour scores alone, see :class:`Reader`)."""
    reader = Reader(tiles=list(tiles) if tiles else None, profile=profile or Profile(),
                    read_chip=chip, cells=cells)
    return reader.read(image, corners=corners)


__all__ = ["DEFAULT_CELLS", "Observation", "Reader", "VisionError", "agreed", "default_cells",
           "printed_cells", "read_frame", "rotate_cell", "use_cells", "white_of"]
