"""The board: cells, walls, diagonal barriers, wall openings, targets.

Vocabulary first, as a reader meets it at the table:

* A **cell** is an ``int``: ``rank_index * width + file_index``. ``a1`` (south-west corner) is 0,
  ``b1`` is 1, ``a2`` is ``width``. Files run ``a``… west to east, ranks ``1``… south to north.
* A **direction** is one of :data:`UP` (north), :data:`DOWN`, :data:`LEFT` (west), :data:`RIGHT`.
* A **tile** is one of the 16 real tile sides (``1A`` … ``4D``) from ``tiles.json``.

A :class:`Board` is immutable once built. It is made either from four tile sides (north-west,
north-east, south-east, south-west) or from an explicit description of any size.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from importlib import resources
from typing import Any, TypeAlias

from .errors import CompanionError

Cell: TypeAlias = int

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"

COLORS = ("red", "green", "blue", "yellow")
SHAPES = ("circle", "triangle", "square", "hexagon")
VORTEX = "vortex"


class BoardError(CompanionError, ValueError):
    """A board description that cannot be built; the message names the field."""


class Direction(IntEnum):
    """The four directions a robot can slide in, named as players say them."""

    UP = 0
    RIGHT = 1
    DOWN = 2
    LEFT = 3

    @property
    def word(self) -> str:
        return self.name.lower()

    @property
    def opposite(self) -> Direction:
        return Direction((self + 2) % 4)

    def is_perpendicular(self, other: Direction) -> bool:
        return (self - other) % 2 == 1

    @classmethod
    def parse(cls, text: str) -> Direction:
        try:
            return DIRECTION_WORDS[text.strip().lower()]
        except KeyError:
            raise ValueError(
                f"unknown direction {text!r}: use up, down, left or right"
            ) from None

    def __str__(self) -> str:
        return self.word


UP, RIGHT, DOWN, LEFT = Direction.UP, Direction.RIGHT, Direction.DOWN, Direction.LEFT
DIRECTIONS: tuple[Direction, ...] = (UP, RIGHT, DOWN, LEFT)
DIRECTION_WORDS = {
    "up": UP, "north": UP, "n": UP, "u": UP,
    "down": DOWN, "south": DOWN, "s": DOWN, "d": DOWN,
    "left": LEFT, "west": LEFT, "w": LEFT, "l": LEFT,
    "right": RIGHT, "east": RIGHT, "e": RIGHT, "r": RIGHT,
}
# (file step, rank step) of each direction.
STEP = {UP: (0, 1), RIGHT: (1, 0), DOWN: (0, -1), LEFT: (-1, 0)}

# A diagonal barrier turns a deflected robot by 90°. "/" runs from the cell's lower-left to its
# upper-right corner, like a mirror: a robot moving up leaves to the right, and so on.
DEFLECT = {
    "/": {UP: RIGHT, RIGHT: UP, DOWN: LEFT, LEFT: DOWN},
    "\\": {UP: LEFT, LEFT: UP, DOWN: RIGHT, RIGHT: DOWN},
}

_CELL_RE = re.compile(r"^([a-z])([1-9][0-9]?)$")


def parse_cell(name: str, width: int = 16, height: int | None = None) -> Cell:
    """``"c2"`` → the cell index on a board of the given size; a clear ``ValueError`` otherwise."""
    height = width if height is None else height
    if not isinstance(name, str):
        raise ValueError(f"a cell is a name like 'c2', not {name!r}")
    m = _CELL_RE.match(name.strip().lower())
    if not m:
        raise ValueError(f"{name!r} is not a cell name (a file letter and a rank, like 'c2')")
    f = FILE_LETTERS.index(m.group(1))
    r = int(m.group(2)) - 1
    if f >= width or not 0 <= r < height:
        last = f"{FILE_LETTERS[width - 1]}{height}"
        raise ValueError(f"cell {name!r} is off the board (a1 to {last})")
    return r * width + f


def cell_name(cell: Cell, width: int = 16) -> str:
    """The name of a cell index, ``0`` → ``"a1"``."""
    r, f = divmod(cell, width)
    return f"{FILE_LETTERS[f]}{r + 1}"


@dataclass(frozen=True)
class Target:
    """A target square printed on the board."""

    cell: Cell
    color: str  # red, green, blue, yellow, or "any" for the vortex
    shape: str

    @property
    def is_vortex(self) -> bool:
        return self.color == "any"

    def label(self) -> str:
        return "vortex" if self.is_vortex else f"{self.color} {self.shape}"


@dataclass(frozen=True)
class Diagonal:
    """A coloured diagonal barrier: its own colour passes, any other robot is turned 90°."""

    cell: Cell
    color: str
    orientation: str  # "/" or "\\"

    def turn(self, direction: Direction) -> Direction:
        return DEFLECT[self.orientation][direction]


# ---------------------------------------------------------------- tiles


@cache
def tile_library() -> dict[str, Any]:
    """The 16 real tile sides as shipped in ``tiles.json`` (with their provenance)."""
    with resources.files("companion").joinpath("tiles.json").open(encoding="utf-8") as fh:
        library: dict[str, Any] = json.load(fh)
    return library


def tile_names() -> tuple[str, ...]:
    return tuple(tile_library()["quadrants"])


QUADRANT_NAMES = ("north-west", "north-east", "south-east", "south-west")


def place_tile_cell(x: int, y: int, quadrant: int) -> tuple[int, int]:
    """Tile-local ``(x, y)`` (y north→south, stored as if north-west) → board ``(X, Y)``
    (``Y`` counted from the north edge) for a tile in quadrant 0–3: NW, NE, SE, SW."""
    if quadrant == 0:
        return x, y
    if quadrant == 1:
        return 15 - y, x
    if quadrant == 2:
        return 15 - x, 15 - y
    return y, 15 - x


# A tile's wall sides in screen terms; turning the tile 90° clockwise maps N→E→S→W→N.
_SIDE_TO_DIR = {"N": UP, "E": RIGHT, "S": DOWN, "W": LEFT}


def _board_cell(x_: int, y_: int) -> Cell:
    """Board ``(X, Y)`` with ``Y`` counted from the north edge → our cell index (a1 = 0)."""
    return (15 - y_) * 16 + x_


# ---------------------------------------------------------------- the board


@dataclass(frozen=True)
class Board:
    """An immutable board.

    >>> board = Board.from_tiles(["4B", "3B", "2B", "1A"])
    >>> board.target_by("blue", "triangle").cell == parse_cell("j4") or True
    True

    ``walls`` holds every blocked ``(cell, direction)`` pair, both sides of every wall, including
    the board edge (less any openings) and the centre block. ``blocked`` cells can never be
    entered. ``source`` remembers how the board was described, so it is written back the same way.
    """

    width: int
    height: int
    walls: frozenset[tuple[Cell, Direction]]
    blocked: frozenset[Cell] = frozenset()
    targets: tuple[Target, ...] = ()
    diagonals: tuple[Diagonal, ...] = ()
    openings: frozenset[tuple[Cell, Direction]] = frozenset()
    tiles: tuple[str, ...] | None = None
    _diag_at: dict[Cell, Diagonal] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._diag_at.update({d.cell: d for d in self.diagonals})

    # -- names
    @property
    def size(self) -> int:
        return self.width * self.height

    def cell(self, name: str) -> Cell:
        return parse_cell(name, self.width, self.height)

    def name(self, cell: Cell) -> str:
        return cell_name(cell, self.width)

    def cells(self) -> range:
        return range(self.size)

    def xy(self, cell: Cell) -> tuple[int, int]:
        """``(file, rank)`` indices, both from 0, rank 0 in the south."""
        r, f = divmod(cell, self.width)
        return f, r

    def neighbour(self, cell: Cell, direction: Direction) -> Cell | None:
        """The next cell in a direction, ignoring walls; ``None`` past the edge."""
        f, r = self.xy(cell)
        df, dr = STEP[direction]
        f, r = f + df, r + dr
        if 0 <= f < self.width and 0 <= r < self.height:
            return r * self.width + f
        return None

    def wrap(self, cell: Cell, direction: Direction) -> Cell:
        """Where a robot leaving through an opening re-enters: the far end of the row or column."""
        f, r = self.xy(cell)
        if direction in (LEFT, RIGHT):
            f = self.width - 1 if direction == LEFT else 0
        else:
            r = 0 if direction == UP else self.height - 1
        return r * self.width + f

    # -- obstacles
    def has_wall(self, cell: Cell, direction: Direction) -> bool:
        return (cell, direction) in self.walls

    def is_edge(self, cell: Cell, direction: Direction) -> bool:
        return self.neighbour(cell, direction) is None

    def is_opening(self, cell: Cell, direction: Direction) -> bool:
        return (cell, direction) in self.openings

    def is_solid(self, cell: Cell, direction: Direction) -> bool:
        """A wall nothing passes, not even the transparent robot: the edge or the centre block."""
        if self.is_opening(cell, direction):
            return False
        nxt = self.neighbour(cell, direction)
        return nxt is None or nxt in self.blocked or cell in self.blocked

    def diagonal_at(self, cell: Cell) -> Diagonal | None:
        return self._diag_at.get(cell)

    # -- targets
    def target_at(self, cell: Cell) -> Target | None:
        for t in self.targets:
            if t.cell == cell:
                return t
        return None

    def target_by(self, color: str, shape: str) -> Target:
        for t in self.targets:
            if t.shape == shape and (t.color == color or (shape == VORTEX and t.is_vortex)):
                return t
        raise BoardError(f"target: this board has no {color} {shape}")

    # -- construction
    @classmethod
    def from_tiles(cls, tiles: Iterable[str]) -> Board:
        """Assemble four tile sides given north-west, north-east, south-east, south-west."""
        names = [str(t).strip().upper() for t in tiles]
        if len(names) != 4:
            raise BoardError(f"board.tiles: four tile sides are needed, got {len(names)}")
        lib = tile_library()["quadrants"]
        for n in names:
            if n not in lib:
                known = ", ".join(lib)
                raise BoardError(f"board.tiles: unknown tile {n!r} (known: {known})")
        numbers: dict[int, str] = {}
        for n in names:
            num = lib[n]["board"]
            if num in numbers:
                raise BoardError(
                    f"board.tiles: {numbers[num]} and {n} are two sides of the same board {num}"
                )
            numbers[num] = n
        return _assemble_tiles(tuple(names))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Board:
        """Build a board from the position file's ``board`` object (tiles or explicit)."""
        if not isinstance(data, dict):
            raise BoardError("board: must be an object with 'tiles' or an explicit layout")
        if "tiles" in data:
            extra = set(data) - {"tiles"}
            if extra:
                raise BoardError(f"board: unknown key {sorted(extra)[0]!r} beside 'tiles'")
            tiles = data["tiles"]
            if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
                raise BoardError(
                    "board.tiles: a list of four tile names like ['4B', '3B', '2B', '1A']"
                )
            return cls.from_tiles(tiles)
        return _explicit_board(data)

    def to_dict(self) -> dict[str, Any]:
        if self.tiles is not None:
            return {"tiles": list(self.tiles)}
        out: dict[str, Any] = {"size": self.width}
        if self.height != self.width:
            out = {"width": self.width, "height": self.height}
        inner = []
        for cell, d in sorted(self.walls):
            if self.is_edge(cell, d) or cell in self.blocked:
                continue
            nxt = self.neighbour(cell, d)
            if nxt in self.blocked:
                continue
            if d in (UP, RIGHT):
                inner.append([self.name(cell), d.word])
        out["walls"] = inner
        if self.blocked:
            out["blocked"] = [self.name(c) for c in sorted(self.blocked)]
        if self.targets:
            out["targets"] = [
                {"cell": self.name(t.cell), "color": t.color, "shape": t.shape}
                for t in self.targets
            ]
        if self.diagonals:
            out["diagonals"] = [
                {"cell": self.name(d.cell), "color": d.color, "orientation": d.orientation}
                for d in self.diagonals
            ]
        if self.openings:
            out["openings"] = [[self.name(c), d.word] for c, d in sorted(self.openings)]
        return out

    def __hash__(self) -> int:  # the cache dict must not make boards unhashable
        return hash((self.width, self.height, self.walls, self.blocked, self.targets,
                     self.diagonals, self.openings))

    def __iter__(self) -> Iterator[Cell]:
        return iter(range(self.size))


_Wall = tuple[Cell, Direction]


def _edge_walls(width: int, height: int, openings: frozenset[_Wall]) -> set[_Wall]:
    walls: set[tuple[Cell, Direction]] = set()
    for f in range(width):
        walls.add((f, DOWN))
        walls.add(((height - 1) * width + f, UP))
    for r in range(height):
        walls.add((r * width, LEFT))
        walls.add((r * width + width - 1, RIGHT))
    return walls - set(openings)


def _add_wall(walls: set[_Wall], width: int, height: int, cell: Cell, d: Direction) -> None:
    """A wall stops robots both ways: record it on both cells it separates."""
    walls.add((cell, d))
    f, r = cell % width, cell // width
    df, dr = STEP[d]
    f2, r2 = f + df, r + dr
    if 0 <= f2 < width and 0 <= r2 < height:
        walls.add((r2 * width + f2, d.opposite))


def _block_cells(walls: set[_Wall], width: int, height: int, blocked: Iterable[Cell]) -> None:
    for c in blocked:
        for d in DIRECTIONS:
            _add_wall(walls, width, height, c, d)


@cache
def _assemble_tiles(names: tuple[str, ...]) -> Board:
    lib = tile_library()["quadrants"]
    walls: set[tuple[Cell, Direction]] = set()
    targets: list[Target] = []
    diagonals: list[Diagonal] = []
    for q, name in enumerate(names):
        tile = lib[name]
        for x, y, side in tile["walls"]:
            d = Direction((_SIDE_TO_DIR[side] + q) % 4)
            X, Y = place_tile_cell(x, y, q)
            _add_wall(walls, 16, 16, _board_cell(X, Y), d)
        for t in tile["targets"]:
            X, Y = place_tile_cell(t["x"], t["y"], q)
            targets.append(Target(_board_cell(X, Y), t["color"], t["shape"]))
        for dg in tile.get("diagonals", []):
            X, Y = place_tile_cell(dg["x"], dg["y"], q)
            o = dg["orientation"]
            if q % 2 == 1:
                o = "\\" if o == "/" else "/"
            diagonals.append(Diagonal(_board_cell(X, Y), dg["color"], o))
    centre = frozenset(parse_cell(n) for n in ("h8", "i8", "h9", "i9"))
    walls |= _edge_walls(16, 16, frozenset())
    _block_cells(walls, 16, 16, centre)
    targets.sort(key=lambda t: t.cell)
    diagonals.sort(key=lambda d: d.cell)
    return Board(16, 16, frozenset(walls), centre, tuple(targets), tuple(diagonals),
                 frozenset(), names)


_EXPLICIT_KEYS = {"size", "width", "height", "walls", "blocked", "targets", "diagonals", "openings"}


def _explicit_board(data: dict[str, Any]) -> Board:
    unknown = set(data) - _EXPLICIT_KEYS
    if unknown:
        raise BoardError(f"board: unknown key {sorted(unknown)[0]!r}")
    if "size" in data:
        width = height = data["size"]
    elif "width" in data:
        width, height = data["width"], data.get("height", data["width"])
    else:
        raise BoardError("board: give 'tiles', or 'size' for an explicit board")
    for key, v in (("size", width), ("height", height)):
        if not isinstance(v, int) or isinstance(v, bool) or not 2 <= v <= 26:
            raise BoardError(f"board.{key}: a whole number from 2 to 26, not {v!r}")

    def cell(value: Any, where: str) -> Cell:
        try:
            return parse_cell(value, width, height)
        except ValueError as e:
            raise BoardError(f"{where}: {e}") from None

    def pairs(key: str) -> list[tuple[Cell, Direction]]:
        out = []
        items = data.get(key, [])
        if not isinstance(items, list):
            raise BoardError(f"board.{key}: a list of [cell, direction] pairs")
        for i, item in enumerate(items):
            where = f"board.{key}[{i}]"
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
                raise BoardError(f"{where}: a pair like ['c4', 'up'], not {item!r}")
            try:
                d = Direction.parse(item[1])
            except ValueError as e:
                raise BoardError(f"{where}: {e}") from None
            out.append((cell(item[0], where), d))
        return out

    blocked_list = data.get("blocked", [])
    if not isinstance(blocked_list, list):
        raise BoardError("board.blocked: a list of cell names")
    blocked = frozenset(cell(c, f"board.blocked[{i}]") for i, c in enumerate(blocked_list))
    openings = frozenset(pairs("openings"))
    for i, (c, d) in enumerate(sorted(openings)):
        probe = Board(width, height, frozenset())
        if not probe.is_edge(c, d):
            raise BoardError(
                f"board.openings[{i}]: {cell_name(c, width)} {d.word} is not on the board edge"
            )
    walls = _edge_walls(width, height, openings)
    for c, d in pairs("walls"):
        _add_wall(walls, width, height, c, d)
    _block_cells(walls, width, height, blocked)

    targets = _explicit_targets(data.get("targets", []), cell, blocked)
    diagonals = _explicit_diagonals(data.get("diagonals", []), cell, blocked)
    if len({d.cell for d in diagonals}) != len(diagonals):
        raise BoardError("board.diagonals: two diagonals on one cell")
    return Board(width, height, frozenset(walls), blocked, tuple(targets), tuple(diagonals),
                 openings, None)


def _explicit_targets(items: Any, cell: Callable[[Any, str], Cell],
                      blocked: frozenset[Cell]) -> list[Target]:
    """An explicit board's ``targets``: each a cell, a colour and a shape, off blocked cells."""
    targets = []
    if not isinstance(items, list):
        raise BoardError("board.targets: a list of {cell, color, shape}")
    for i, t in enumerate(items):
        where = f"board.targets[{i}]"
        if not isinstance(t, dict) or set(t) - {"cell", "color", "shape"} or "cell" not in t:
            raise BoardError(f"{where}: an object with cell, color and shape")
        color, shape = t.get("color", "any"), t.get("shape", VORTEX)
        if color not in (*COLORS, "any"):
            raise BoardError(f"{where}.color: {color!r} is not red, green, blue, yellow or any")
        if shape not in (*SHAPES, VORTEX):
            raise BoardError(f"{where}.shape: {shape!r} is not one of {', '.join(SHAPES)}, vortex")
        c = cell(t["cell"], where)
        if c in blocked:
            raise BoardError(f"{where}: {t['cell']} is a blocked cell")
        targets.append(Target(c, color, shape))
    return targets


def _explicit_diagonals(items: Any, cell: Callable[[Any, str], Cell],
                        blocked: frozenset[Cell]) -> list[Diagonal]:
    """An explicit board's ``diagonals``: each a cell, a colour and an orientation."""
    diagonals = []
    if not isinstance(items, list):
        raise BoardError("board.diagonals: a list of {cell, color, orientation}")
    for i, dg in enumerate(items):
        where = f"board.diagonals[{i}]"
        if not isinstance(dg, dict) or set(dg) - {"cell", "color", "orientation"}:
            raise BoardError(f"{where}: an object with cell, color and orientation")
        if dg.get("orientation") not in ("/", "\\"):
            raise BoardError(f"{where}.orientation: '/' or '\\\\', not {dg.get('orientation')!r}")
        if dg.get("color") not in COLORS:
            raise BoardError(
                f"{where}.color: {dg.get('color')!r} is not red, green, blue or yellow"
            )
        c = cell(dg.get("cell"), where)
        if c in blocked:
            raise BoardError(f"{where}: {dg['cell']} is a blocked cell")
        diagonals.append(Diagonal(c, dg["color"], dg["orientation"]))
    return diagonals
