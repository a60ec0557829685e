"""Micro Robots: the 6×6 colour-and-number board, its moves, routes, dice and the VP-chip game.

The second game of the rule sheet ``001_…`` (RULES.md, section Micro Robots), on the same
companion. Pure: no threads, no clock, no randomness of its own — the caller supplies the time
of every command, and the dice are seeded by the game's setup. The only I/O is
:meth:`Layout.load` and :meth:`Layout.save`, on a path the caller chooses.

Vocabulary first:

* :class:`Space` — ``pink1``: one of six colours and a number 1–6; each pair is on the board once,
  so a space's name is also where it is.
* :class:`Layout` — the 6×6 board, built from four 3×3 sections in any orientation; the layout
  file and its validation, which names every problem (:func:`check_rows` for a board still
  being entered).
* :class:`Route` — a start and the spaces landed on, one per move.
* :func:`shortest_route`, :func:`exact_lengths`, :func:`route_of_length` — the solver, with
  the exact set of move counts a route can have (see :class:`ExactLengths` for why it is exact).
* :func:`check_demonstration` — a called number and the landings seen: the verdict and why.
* :func:`roll`, :func:`roll_target`, :func:`roll_via` — the two dice, with the re-roll rules.
* :class:`MicroGame` — the game: commands in, events out, :meth:`MicroGame.view` for the page,
  in the manner of the classic :class:`companion.game.Game`.

The game's commands (:class:`MicroGame`; dicts; every one has ``"type"`` and ``"at"``); a
player is ``"seat"`` (0, 1, … clockwise) or ``"player"`` (her name):

``setup``     ``players`` [names] clockwise; ``layout`` (a ``micro-layout/1`` object);
              ``options`` (:class:`MicroOptions` as an object); ``seed``; ``first_roller``
              (the seat of the youngest player, default 0).
``roll``      the digital dice: the start (first round only), the target, and in the
              expert variant the intermediate target, each re-rolled as the rules say.
``place``     the same read from the real dice: ``start`` (first round only), ``target``,
              ``via`` (expert). During a round it replaces the target (an agreed re-roll).
``reroll``    the players agree to give up on this target: new dice, the chip moves along.
``call``      player, ``number``: the first call demonstrates.
``land``      ``space`` or ``spaces``: where the robot landed, move by move (the camera, or
              taps on the page). The verdict comes at the called number of moves, or at once
              on an illegal move. A landing where the robot already stands is refused.
``done``      the demonstrator stops: judged now. ``give_up``: she fails.
``verdict``   ``success`` (bool), ``by``: the table's own word on the demonstration.
``tick``      nothing but the time (the journaled form of :meth:`MicroGame.advance`).
``undo``      take back the last command (not ``tick``); a round's hourglass restarts.
``resume``    the companion starts again after being off: ``at`` is the new clock's time;
              the time spent off does not count.
``new_game``  back to setup; with setup's fields, the next game is set up at once.

Events (JSON-able; each has ``"type"`` and ``"at"``): ``game_set_up``, ``rolled``,
``target_rerolled`` {reason: stall | agreed}, ``demonstration_started``, ``landed``,
``demonstration_succeeded``, ``demonstration_failed``, ``chip_won``, ``chip_given``,
``chip_returned``, ``round_over``, ``game_over``, ``undone``, ``resumed``, ``new_game``.
A refused command raises :class:`MicroGameError` and changes nothing but what time itself
did first (its ``events``).

Phases (``view()["phase"]``): ``setup`` (no game) → ``idle`` (set up, no dice rolled) →
``round`` (a target out, the hourglass running) → ``demonstrating`` → ``round_over`` →
(roll) ``round`` … → ``game_over``.

The layout file (``micro-layout/1``, JSON) lists the board's rows from the top, as the page
draws it; each space is its colour and number::

    {"format": "micro-layout/1", "name": "kitchen table",
     "rows": [["yellow3", "yellow1", "white2", "blue5", "red5", "yellow5"], ... six rows]}

or, instead of ``rows``, the four sections as printed (north-west, north-east, south-east,
south-west; each three rows of three) and how far each is turned clockwise::

    {"format": "micro-layout/1", "name": "…", "sections": [[[…], […], […]], …],
     "rotations": [0, 90, 180, 270]}

Every colour-number pair must appear exactly once; :class:`LayoutError` names each duplicate
with its places and each missing pair.

>>> layout = example_layout()
>>> shortest_route(layout, Space.parse("pink 1"), Space.parse("white 2")).moves
5
>>> exact_lengths(layout, "pink1", "white2").describe()
'every number from 5'
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import tempfile
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import i18n
from .engine import CommandEngine
from .errors import CompanionError
from .game import GameError
from .i18n import Message

COLORS = ("blue", "yellow", "green", "red", "pink", "white")
NUMBERS = (1, 2, 3, 4, 5, 6)
SIZE = 6
SECTION = 3
LAYOUT_FORMAT = "micro-layout/1"
# The four sections in the order of the classic position file: north-west, north-east,
# south-east, south-west; each is (first row, first column) of the 6×6 grid, rows from the top.
SECTION_ORIGINS = ((0, 0), (0, 3), (3, 3), (3, 0))
SECTION_NAMES = ("north-west", "north-east", "south-east", "south-west")


class LayoutError(CompanionError, ValueError):
    """A layout that cannot be used; the message names every problem found."""


class SpaceError(CompanionError, ValueError):
    """Text that is not a space (``"purple 3"``)."""


# ---------------------------------------------------------------- spaces


@dataclass(frozen=True, order=True)
class Space:
    """One space of the board, named by its colour and number: ``Space("pink", 1)`` is
    ``pink1``. :meth:`parse` also reads ``pink 1``, ``Pink-1`` and ``1 pink``."""

    color: str
    number: int

    def __post_init__(self) -> None:
        if self.color not in COLORS:
            raise SpaceError(f"{self.color!r} is not a colour ({', '.join(COLORS)})")
        if self.number not in NUMBERS:
            raise SpaceError(f"{self.number!r} is not a number from 1 to 6")

    @property
    def name(self) -> str:
        return f"{self.color}{self.number}"

    @property
    def label(self) -> str:
        """As the rule sheet says it: ``pink 1``."""
        return f"{self.color} {self.number}"

    @property
    def words(self) -> Message:
        """:attr:`label` for players: the colour in their language (*rosa 1*)."""
        return Message("space", color=i18n.color(self.color), n=self.number)

    @property
    def short(self) -> Message:
        """:attr:`name` for players (``white1``; *weiß 1*, *blanc 1*)."""
        return Message("space.name", color=i18n.color(self.color), n=self.number)

    @property
    def index(self) -> int:
        """0–35, colour-major: the space's place in :data:`ALL_SPACES`."""
        return COLORS.index(self.color) * SIZE + self.number - 1

    def __str__(self) -> str:
        return self.name

    def shares(self, other: Space) -> bool:
        """Same colour or same number: the move rule's half that does not depend on place."""
        return self.color == other.color or self.number == other.number

    @classmethod
    def parse(cls, text: str | Space) -> Space:
        if isinstance(text, Space):
            return text
        if not isinstance(text, str):
            raise SpaceError(f"a space is text like 'pink1', not {text!r}")
        raw = text.strip().lower()
        compact = "".join(ch for ch in raw if ch.isalnum())
        letters = "".join(ch for ch in compact if ch.isalpha())
        digits = "".join(ch for ch in compact if ch.isdigit())
        if not (compact.startswith(letters) or compact.endswith(letters)) or not letters:
            raise SpaceError(f"{text.strip()!r} is not a space: say a colour and a number, "
                             "like 'pink1'")
        if letters not in COLORS:
            raise SpaceError(f"{text.strip()!r} is not a space: {letters!r} is not a colour "
                             f"({', '.join(COLORS)})")
        if digits not in {str(n) for n in NUMBERS}:
            raise SpaceError(f"{text.strip()!r} is not a space: the number must be 1 to 6")
        return cls(letters, int(digits))


ALL_SPACES: tuple[Space, ...] = tuple(Space(c, n) for c in COLORS for n in NUMBERS)


def parse_spaces(text: str | Sequence[str | Space]) -> list[Space]:
    """``"pink6, white6 red6"`` or a list → spaces. Commas, semicolons, arrows or spaces
    between names; ``pink 6`` with a space inside is read as one name."""
    if not isinstance(text, str):
        return [Space.parse(s) for s in text]
    cleaned = text.replace("→", " ").replace("->", " ").replace(",", " ").replace(";", " ")
    words = cleaned.split()
    out: list[Space] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.isalpha() and i + 1 < len(words) and words[i + 1].isdigit():
            w, i = w + words[i + 1], i + 1
        out.append(Space.parse(w))
        i += 1
    return out


# ---------------------------------------------------------------- the layout


def _rotate(block: Sequence[Sequence[Space]], quarter_turns: int) -> tuple[tuple[Space, ...], ...]:
    """A 3×3 block turned clockwise ``quarter_turns`` times."""
    rows = tuple(tuple(r) for r in block)
    for _ in range(quarter_turns % 4):
        n = len(rows)
        rows = tuple(tuple(rows[n - 1 - j][i] for j in range(n)) for i in range(n))
    return rows


@dataclass(frozen=True)
class Layout:
    """The 6×6 board as it lies on the table, rows from the top (as the page draws it).

    Every colour-number pair appears exactly once, so the constructor refuses anything else
    (:func:`validate_grid` says what is wrong). Build one from rows (:meth:`from_rows`), from
    four sections and their turns (:meth:`from_sections`), or from a layout file
    (:meth:`from_dict`, :meth:`load`).
    """

    rows: tuple[tuple[Space, ...], ...]
    name: str = field(default="", compare=False)  # a label: equal boards are equal layouts
    _where: dict[Space, tuple[int, int]] = field(init=False, repr=False, compare=False)
    _moves: dict[Space, tuple[Space, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = validate_grid(self.rows)
        if problems:
            raise LayoutError("; ".join(problems))
        rows = tuple(tuple(r) for r in self.rows)
        object.__setattr__(self, "rows", rows)
        where = {s: (r, c) for r, row in enumerate(rows) for c, s in enumerate(row)}
        object.__setattr__(self, "_where", where)
        moves: dict[Space, tuple[Space, ...]] = {}
        for s, (r, c) in where.items():
            line = [rows[r][j] for j in range(SIZE) if j != c]  # along the row, left to right
            line += [rows[i][c] for i in range(SIZE) if i != r]  # along the column, top down
            moves[s] = tuple(t for t in line if t.shares(s))
        object.__setattr__(self, "_moves", moves)

    # -- building

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str | Space]], name: str = "") -> Layout:
        """Six rows of six space names, the top row first."""
        grid, problems = _parse_grid(rows)
        if problems:
            raise LayoutError("; ".join(problems))
        return cls(grid, name)

    @classmethod
    def from_sections(
        cls,
        sections: Sequence[Sequence[Sequence[str | Space]]],
        rotations: Sequence[int] = (0, 0, 0, 0),
        name: str = "",
    ) -> Layout:
        """Four 3×3 sections (north-west, north-east, south-east, south-west), each given as
        printed (rows from the top), each turned clockwise by its rotation in degrees
        (0, 90, 180 or 270) before it is put in its place."""
        problems: list[str] = []
        if not isinstance(sections, Sequence) or isinstance(sections, str) \
                or len(sections) != 4:
            raise LayoutError("sections: give four 3×3 sections (north-west, north-east, "
                              "south-east, south-west)")
        if isinstance(rotations, str) or not isinstance(rotations, Sequence) \
                or len(rotations) != 4:
            raise LayoutError("rotations: give four rotations in degrees, one per section")
        blocks = []
        for k, block in enumerate(sections):
            parsed, errs = _parse_grid(block, SECTION, f"section {k + 1} ({SECTION_NAMES[k]})")
            problems += errs
            blocks.append(parsed if not errs else [[None] * SECTION] * SECTION)
        grid, errs = place_sections(blocks, rotations)
        problems += errs
        if problems:
            raise LayoutError("; ".join(problems))
        return cls(tuple(tuple(r) for r in grid), name)

    @classmethod
    def from_dict(cls, data: Any) -> Layout:
        """A layout file's content; see :meth:`to_dict` for the format."""
        if not isinstance(data, Mapping):
            raise LayoutError("a layout is a JSON object with 'format', 'name' and 'rows'")
        fmt = data.get("format", LAYOUT_FORMAT)
        if fmt != LAYOUT_FORMAT:
            raise LayoutError(f"format: {fmt!r} is not {LAYOUT_FORMAT!r}")
        unknown = sorted(set(data) - {"format", "name", "rows", "sections", "rotations"})
        if unknown:
            raise LayoutError(f"unknown key {unknown[0]!r} (known: format, name, rows, "
                              "sections, rotations)")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise LayoutError(f"name: a layout's name is text, not {name!r}")
        if ("rows" in data) == ("sections" in data):
            raise LayoutError("give either 'rows' (six rows of six spaces) or 'sections' "
                              "(four 3×3 sections with 'rotations'), not both or neither")
        if "rows" in data:
            if "rotations" in data:
                raise LayoutError("rotations: only with 'sections'")
            return cls.from_rows(data["rows"], name)
        return cls.from_sections(data["sections"], data.get("rotations", (0, 0, 0, 0)), name)

    @classmethod
    def from_json(cls, text: str) -> Layout:
        from .inputs import InputError, parse_json

        try:
            data = parse_json(text)
        except InputError as e:
            raise LayoutError(str(e)) from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Layout:
        """Read a layout file (``micro-layout/1``)."""
        from .inputs import InputError, read_model

        try:
            layout: Layout = read_model(path, "layout", "layout", cls.from_dict)
        except InputError as e:
            raise LayoutError(str(e)) from None
        return layout

    def to_dict(self) -> dict[str, Any]:
        """The layout file: ``{"format": "micro-layout/1", "name": "…", "rows": [["pink1", …],
        …]}`` with six rows of six names, the top row first. A file may instead give
        ``"sections"`` (four 3×3 blocks: north-west, north-east, south-east, south-west, each
        as printed) and ``"rotations"`` (degrees clockwise per section)."""
        return {"format": LAYOUT_FORMAT, "name": self.name,
                "rows": [[s.name for s in row] for row in self.rows]}

    def to_json(self, indent: int | None = None) -> str:
        if indent is None:
            return json.dumps(self.to_dict())
        # one row per line: the file reads like the board
        rows = ",\n".join("    " + json.dumps([s.name for s in row]) for row in self.rows)
        return (f'{{\n  "format": {json.dumps(LAYOUT_FORMAT)},\n  "name": '
                f'{json.dumps(self.name)},\n  "rows": [\n{rows}\n  ]\n}}\n')

    def save(self, path: str | Path) -> None:
        """Write the layout file atomically: a crash never leaves half a file."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json(indent=2))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # -- reading

    def where(self, space: Space) -> tuple[int, int]:
        """(row, column) of a space, both from 0, row 0 at the top."""
        return self._where[space]

    def at(self, row: int, column: int) -> Space:
        return self.rows[row][column]

    def moves(self, space: Space) -> tuple[Space, ...]:
        """Every space one move from ``space``: along its row (left to right), then its column
        (top down), sharing its colour or number."""
        return self._moves[space]

    def why_not(self, frm: Space, to: Space) -> str | None:
        """Why ``frm`` → ``to`` is not a move, or None when it is one."""
        if frm == to:
            return Message("micro.why.same", to=to.short)
        (r1, c1), (r2, c2) = self._where[frm], self._where[to]
        if r1 != r2 and c1 != c2:
            return Message("micro.why.line", to=to.short, start=frm.short)
        if not to.shares(frm):
            return Message("micro.why.shares", to=to.short, start=frm.short)
        return None

    def sections(self) -> tuple[tuple[tuple[Space, ...], ...], ...]:
        """The four 3×3 sections as they lie (north-west, north-east, south-east, south-west)."""
        return tuple(
            tuple(tuple(self.rows[r0 + i][c0 + j] for j in range(SECTION))
                  for i in range(SECTION))
            for r0, c0 in SECTION_ORIGINS
        )

    def turn_section(self, index: int, degrees: int = 90) -> Layout:
        """The same board with one section turned clockwise in place, as players may set it."""
        if degrees % 90:
            raise LayoutError(f"rotation {degrees!r} is not a multiple of 90")
        rotations = [0, 0, 0, 0]
        rotations[index] = degrees % 360
        return Layout.from_sections(self.sections(), rotations, self.name)

    def renamed(self, name: str) -> Layout:
        return Layout(self.rows, name)

    def text(self) -> str:
        """The board as a text grid, for the terminal."""
        return "\n".join(" ".join(f"{s.name:<7}" for s in row).rstrip() for row in self.rows)


def _parse_grid(
    rows: Any, size: int = SIZE, where: str = "rows"
) -> tuple[tuple[tuple[Space, ...], ...], list[str]]:
    """Names → spaces, with a message per bad cell; the shape is checked first."""
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        return (), [f"{where}: give {size} rows of {size} spaces, not {type(rows).__name__}"]
    if len(rows) != size:
        return (), [f"{where}: {size} rows needed, got {len(rows)}"]
    problems: list[str] = []
    grid: list[tuple[Space, ...]] = []
    for i, row in enumerate(rows):
        if isinstance(row, str) or not isinstance(row, Sequence) or len(row) != size:
            n = len(row) if isinstance(row, Sequence) and not isinstance(row, str) else None
            problems.append(f"{where}: row {i + 1} must list {size} spaces"
                            + (f", it has {n}" if n is not None else ""))
            continue
        parsed = []
        for j, name in enumerate(row):
            try:
                parsed.append(Space.parse(name))
            except SpaceError as e:
                problems.append(f"{where}: row {i + 1} column {j + 1}: {e}")
        grid.append(tuple(parsed))
    return tuple(grid), problems


def place_sections(sections: Any, rotations: Any) -> tuple[list[list[Any]], list[str]]:
    """Four 3×3 sections (north-west, north-east, south-east, south-west, each as printed),
    each turned clockwise by its rotation in degrees, put together: the six rows from the top,
    whatever each space holds (``None`` where nothing is entered yet, so a board half entered
    on the page can be checked with :func:`check_rows`), and each problem with the shape or
    a rotation."""
    grid: list[list[Any]] = [[None] * SIZE for _ in range(SIZE)]
    if isinstance(sections, str) or not isinstance(sections, Sequence) or len(sections) != 4:
        return grid, ["sections: give four 3×3 sections (north-west, north-east, south-east, "
                      "south-west)"]
    if isinstance(rotations, str) or not isinstance(rotations, Sequence) or len(rotations) != 4:
        return grid, ["rotations: give four rotations in degrees, one per section"]
    problems = []
    for k, (block, turn) in enumerate(zip(sections, rotations, strict=True)):
        where = f"section {k + 1} ({SECTION_NAMES[k]})"
        if isinstance(turn, bool) or not isinstance(turn, int) or turn % 90 \
                or not 0 <= turn < 360:
            problems.append(f"{where}: rotation {turn!r} is not 0, 90, 180 or 270")
            continue
        if isinstance(block, str) or not isinstance(block, Sequence) or len(block) != SECTION \
                or any(isinstance(r, str) or not isinstance(r, Sequence) or len(r) != SECTION
                       for r in block):
            problems.append(f"{where}: give {SECTION} rows of {SECTION} spaces")
            continue
        r0, c0 = SECTION_ORIGINS[k]
        for i, row in enumerate(_rotate(block, turn // 90)):
            for j, value in enumerate(row):
                grid[r0 + i][c0 + j] = value
    return grid, problems


def validate_grid(rows: Sequence[Sequence[Space]]) -> list[str]:
    """Every problem with a 6×6 grid of spaces, in words: ``white 3 appears twice (row 2
    column 5, row 4 column 1)``, ``red 5 is missing``. Empty when the grid is a board."""
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        return [f"the board is {SIZE} rows of {SIZE} spaces"]
    seen: dict[Space, list[tuple[int, int]]] = {}
    for i, row in enumerate(rows):
        for j, s in enumerate(row):
            if not isinstance(s, Space):
                return [f"row {i + 1} column {j + 1}: {s!r} is not a space"]
            seen.setdefault(s, []).append((i, j))
    problems: list[str] = []
    for s in ALL_SPACES:
        places = seen.get(s, [])
        if len(places) > 1:
            problems.append(_twice(s, places))
    missing = [s.words for s in ALL_SPACES if s not in seen]
    if missing:
        problems.append(Message("layout.missing", spaces=i18n.listed(missing, "list.comma"),
                                n=len(missing)))
    return problems


def _place(i: int, j: int) -> Message:
    return Message("layout.place", row=i + 1, column=j + 1)


def _twice(space: Space, places: list[tuple[int, int]]) -> Message:
    """``white 3 appears twice (row 2 column 5, row 4 column 1)``."""
    where = i18n.listed([_place(i, j) for i, j in places], "list.comma")
    if len(places) == 2:
        return Message("layout.twice", space=space.words, places=where)
    return Message("layout.duplicate", space=space.words, n=len(places), places=where)



def check_rows(rows: Sequence[Sequence[str | Space | None]]) -> list[str]:
    """The problems of a board still being entered (on the page, a tap at a time): six rows of
    six names, ``None`` (or ``""``) where nothing is chosen yet. Bad names and duplicates are
    named with their places; empty spaces are counted; when all are filled, what is missing is
    named as :func:`validate_grid` does. Empty when the board is complete and valid."""
    if isinstance(rows, str) or not isinstance(rows, Sequence) or len(rows) != SIZE or any(
            isinstance(r, str) or not isinstance(r, Sequence) or len(r) != SIZE for r in rows):
        return [f"the board is {SIZE} rows of {SIZE} spaces"]
    problems: list[str] = []
    grid: list[list[Space]] = []
    empty = 0
    seen: dict[Space, list[tuple[int, int]]] = {}
    for i, row in enumerate(rows):
        out = []
        for j, raw in enumerate(row):
            if raw is None or raw == "":
                empty += 1
                continue
            try:
                space = Space.parse(raw)
            except SpaceError as e:
                problems.append(Message("layout.bad_space", place=_place(i, j), why=str(e)))
                continue
            seen.setdefault(space, []).append((i, j))
            out.append(space)
        grid.append(out)
    if empty or problems:
        for space in ALL_SPACES:
            places = seen.get(space, [])
            if len(places) > 1:
                problems.append(_twice(space, places))
        if empty:
            problems.append(Message("layout.empty", n=empty))
        return problems
    return validate_grid(grid)


# A board that fits the worked example of the rule sheet: from pink 1 the robot may go to
# blue 1 or yellow 1 (its column) or pink 6 (its row); from pink 6 on to blue 6 or white 6
# (the row) or pink 4 (the column); and pink 1 → pink 6 → white 6 → red 6 → red 2 → white 2
# is a route of five moves (and the shortest). Every space can reach every other.
_EXAMPLE_ROWS = (
    ("green2", "yellow1", "white2", "red3", "blue5", "yellow6"),
    ("pink4", "blue4", "blue3", "pink3", "blue2", "pink2"),
    ("yellow2", "green4", "green1", "red5", "red4", "green6"),
    ("pink6", "pink1", "blue6", "white4", "white6", "white3"),
    ("green5", "blue1", "pink5", "red1", "yellow5", "green3"),
    ("yellow4", "yellow3", "red2", "white1", "red6", "white5"),
)


def example_layout() -> Layout:
    """A valid layout that fits the rule sheet's worked example (``companion micro example``)."""
    return Layout.from_rows(_EXAMPLE_ROWS, "rule-sheet example")


# ---------------------------------------------------------------- routes


@dataclass(frozen=True)
class Route:
    """A start and the spaces landed on, one per move (moves are jumps: only landings count)."""

    start: Space
    landings: tuple[Space, ...]

    @property
    def moves(self) -> int:
        return len(self.landings)

    @property
    def end(self) -> Space:
        return self.landings[-1] if self.landings else self.start

    def spaces(self) -> list[Space]:
        return [self.start, *self.landings]

    def text(self) -> str:
        return " → ".join(s.name for s in self.spaces())

    __str__ = text

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "spaces": [s.name for s in self.spaces()]}


@dataclass(frozen=True)
class ExactLengths:
    """Every move count N for which a route of exactly N moves exists (for one start, target
    and optional intermediate target).

    Why the set is exactly "0 if already there, plus every odd N from ``odd`` and every even
    N ≥ 2 from ``even``":

    * The move relation is symmetric (same row or column, shared colour or number), so a route
      of L ≥ 1 moves ending on the target extends to L + 2 by hopping back to the space it came
      from and returning; the intermediate target, once landed on, stays landed on. So if N is
      possible, so is N + 2: each parity's set is closed upwards.
    * A breadth-first search over (space, parity of moves so far, intermediate target landed
      yet) finds the fewest moves of each parity that end on the target; that is the least
      element of each parity's set. (Zero is the one count that cannot be padded from below
      and is handled alone: it needs start = target and no intermediate target.)

    So no bound or period needs checking: the two least elements describe the whole set.
    """

    zero: bool
    odd: int | None  # the fewest odd moves, None if no odd route exists
    even: int | None  # the fewest even moves ≥ 2, None if no such route exists

    def __contains__(self, n: object) -> bool:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            return False
        if n == 0:
            return self.zero
        least = self.odd if n % 2 else self.even
        return least is not None and n >= least

    @property
    def possible(self) -> bool:
        return self.zero or self.odd is not None or self.even is not None

    @property
    def shortest(self) -> int | None:
        """The fewest moves of any route (0 when already there), None if there is none."""
        if self.zero:
            return 0
        found = [n for n in (self.odd, self.even) if n is not None]
        return min(found) if found else None

    @property
    def every_from(self) -> int | None:
        """The least K such that every N ≥ K is possible; None if one parity never is."""
        if self.odd is None or self.even is None:
            return None
        # The larger least element minus one has the other parity and is at least its least.
        k = max(self.odd, self.even) - 1
        while k - 1 in self and k - 1 > 0:
            k -= 1
        return k

    def up_to(self, limit: int) -> list[int]:
        return [n for n in range(limit + 1) if n in self]

    def describe(self) -> str:
        """In words: ``5, and every number from 7``; ``odd numbers from 3``; ``none``."""
        if not self.possible:
            return "none"
        head = ["0 (already there)"] if self.zero else []
        k = self.every_from
        if k is not None:
            below = [str(n) for n in range(1, k) if n in self]
            return ", ".join(head + below + [f"every number from {k}"])
        if self.odd is not None:
            return ", ".join(head + [f"odd numbers from {self.odd}"])
        if self.even is not None:
            return ", ".join(head + [f"even numbers from {self.even}"])
        return head[0]

    def to_json(self) -> dict[str, Any]:
        return {"zero": self.zero, "odd_from": self.odd, "even_from": self.even,
                "every_from": self.every_from, "shortest": self.shortest,
                "text": self.describe()}


_Landing = tuple[Space, int, bool]  # (space, parity of moves so far, intermediate landed)


def _search(
    layout: Layout, start: Space, via: Space | None
) -> tuple[dict[_Landing, int], dict[_Landing, _Landing]]:
    """Breadth-first over (space, parity, intermediate landed): distances and parents."""
    first: _Landing = (start, 0, via is None)
    dist = {first: 0}
    parent: dict[_Landing, _Landing] = {}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        space, parity, landed = state
        for nxt in layout.moves(space):
            new: _Landing = (nxt, 1 - parity, landed or nxt == via)
            if new not in dist:
                dist[new] = dist[state] + 1
                parent[new] = state
                queue.append(new)
    return dist, parent


def _path(parent: dict[_Landing, _Landing], end: _Landing, start: Space) -> Route:
    landings = []
    state = end
    while state in parent:
        landings.append(state[0])
        state = parent[state]
    return Route(start, tuple(reversed(landings)))


def _spaces(
    start: Space | str, target: Space | str, via: Space | str | None
) -> tuple[Space, Space, Space | None]:
    return Space.parse(start), Space.parse(target), None if via is None else Space.parse(via)


def exact_lengths(
    layout: Layout, start: Space | str, target: Space | str, via: Space | str | None = None
) -> ExactLengths:
    """Every number of moves a route from ``start`` to ``target`` can have (landing on ``via``
    first when given). See :class:`ExactLengths` for why this is exact."""
    start, target, via = _spaces(start, target, via)
    dist, _ = _search(layout, start, via)
    zero = start == target and via is None
    odd = dist.get((target, 1, True))
    even = dist.get((target, 0, True))
    if even == 0:  # already there: the least even count of moves ≥ 2 is a hop out and back
        even = 2 if layout.moves(target) else None
    return ExactLengths(zero, odd, even)


def route_of_length(
    layout: Layout, start: Space | str, target: Space | str, moves: int,
    via: Space | str | None = None,
) -> Route | None:
    """One route of exactly ``moves`` moves (landing on ``via`` first when given), or None.

    The fewest-moves route of the right parity, padded at the end by hops back and forth
    between the target and the space before it."""
    start, target, via = _spaces(start, target, via)
    if moves < 0:
        return None
    if moves == 0:
        return Route(start, ()) if start == target and via is None else None
    dist, parent = _search(layout, start, via)
    end: _Landing = (target, moves % 2, True)
    least = dist.get(end)
    if least is None or least > moves:
        return None
    landings = list(_path(parent, end, start).landings)
    if landings:
        back = landings[-2] if len(landings) >= 2 else start
    else:  # already there: hop to a neighbour and back
        if not layout.moves(target):
            return None
        back = layout.moves(target)[0]
    while len(landings) < moves:
        landings += [back, target]
    return Route(start, tuple(landings))


def shortest_route(
    layout: Layout, start: Space | str, target: Space | str, via: Space | str | None = None
) -> Route | None:
    """A route with the fewest moves (landing on ``via`` first when given), or None."""
    start, target, via = _spaces(start, target, via)
    lengths = exact_lengths(layout, start, target, via)
    if lengths.shortest is None:
        return None
    return route_of_length(layout, start, target, lengths.shortest, via)


# ---------------------------------------------------------------- verifying a demonstration


@dataclass(frozen=True)
class Verdict:
    """The judgement of a demonstration: did the robot reach the target in exactly the called
    number of moves, by legal moves, landing on the intermediate target first?

    ``complete`` is False while more landings may still come (fewer than called, all legal);
    then ``success`` is False and ``reason`` says what is still missing."""

    success: bool
    complete: bool
    reason: str | None
    moves: int  # legal moves made
    position: Space  # where the robot stands after the legal moves
    via_landed: bool | None  # None when there is no intermediate target
    illegal_move: int | None = None  # 1-based number of the move that broke the rule

    def to_json(self) -> dict[str, Any]:
        return {"success": self.success, "complete": self.complete, "reason": self.reason,
                "moves": self.moves, "position": self.position.name,
                "via_landed": self.via_landed, "illegal_move": self.illegal_move}


def check_demonstration(
    layout: Layout,
    start: Space | str,
    target: Space | str,
    called: int,
    landings: Iterable[Space | str],
    via: Space | str | None = None,
    finished: bool = False,
) -> Verdict:
    """Judge the landings seen so far (the camera's, or entered move by move on the page).

    The verdict is complete at the called number of moves, at the first illegal move, or when
    ``finished`` (the player stopped). Passing over the target before the last move is allowed:
    only where the robot stands after exactly ``called`` moves counts."""
    start, target, via = _spaces(start, target, via)
    at = start
    moves = 0
    landed = None if via is None else False
    for i, raw in enumerate(landings):
        space = Space.parse(raw)
        if moves == called:
            return Verdict(False, True, Message("micro.why.extra", move=i + 1, called=called),
                           moves, at, landed, i + 1)
        why = layout.why_not(at, space)
        if why:
            return Verdict(False, True, Message("micro.why.move", move=i + 1, why=why), moves,
                           at, landed, i + 1)
        at, moves = space, moves + 1
        if via is not None and space == via:
            landed = True
    if moves < called:
        reason = Message("micro.why.short", moves=moves, called=called)
        if finished:
            reason = Message("micro.why.stopped", moves=moves, called=called)
        return Verdict(False, finished, reason, moves, at, landed)
    if at != target:
        return Verdict(False, True, Message("micro.why.elsewhere", called=called, at=at.short,
                                            target=target.short), moves, at, landed)
    if via is not None and not landed:
        return Verdict(False, True, Message("micro.why.no_via", target=target.short,
                                            via=via.short), moves, at, landed)
    return Verdict(True, True, None, moves, at, landed)


# ---------------------------------------------------------------- dice


class RandomSource(Protocol):
    """What the dice need from a random source: ``random.Random`` has it."""

    def randrange(self, stop: int, /) -> int: ...


def roll(rng: RandomSource) -> Space:
    """One throw of the colour die and the number die."""
    return Space(COLORS[rng.randrange(len(COLORS))], NUMBERS[rng.randrange(len(NUMBERS))])


def roll_avoiding(rng: RandomSource, avoid: Iterable[Space | None]) -> tuple[Space, int]:
    """Throw until the space is none of ``avoid``; the space and how many throws were
    discarded."""
    banned = {s for s in avoid if s is not None}
    if len(banned) >= len(ALL_SPACES):
        raise ValueError("every space is excluded")
    discarded = 0
    while True:
        space = roll(rng)
        if space not in banned:
            return space, discarded
        discarded += 1


def roll_target(rng: RandomSource, start: Space) -> Space:
    """The round's target: re-rolled while it is the start."""
    return roll_avoiding(rng, (start,))[0]


def roll_via(rng: RandomSource, start: Space, target: Space) -> Space:
    """The expert variant's intermediate target: re-rolled while it is the start or target."""
    return roll_avoiding(rng, (start, target))[0]


# ---------------------------------------------------------------- the game


@dataclass(frozen=True)
class MicroOptions:
    """The game's settings. ``stall_seconds`` is the hourglass after which, with nobody having
    called, the target is re-rolled (the rules say 2 or 3 minutes); None turns it off."""

    vp_to_win: int = 5
    chips: int = 25
    stall_seconds: float | None = 150.0
    expert: bool = False  # an intermediate target to land on first

    def __post_init__(self) -> None:
        for key in ("vp_to_win", "chips"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{key}: a whole number from 1, not {v!r}")
        s = self.stall_seconds
        if s is not None and (isinstance(s, bool) or not isinstance(s, int | float)
                              or not math.isfinite(s) or s <= 0):
            raise ValueError(f"stall_seconds: a positive number of seconds or null, not {s!r}")
        if not isinstance(self.expert, bool):
            raise ValueError(f"expert: true or false, not {self.expert!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> MicroOptions:
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError(f"options: an object like {{\"expert\": true}}, not {data!r}")
        known = ("vp_to_win", "chips", "stall_seconds", "expert")
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(known)})")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {"vp_to_win": self.vp_to_win, "chips": self.chips,
                "stall_seconds": self.stall_seconds, "expert": self.expert}


class MicroGameError(GameError):
    """A command the game refuses; the message is meant for the players. It is a
    :class:`companion.game.GameError`, so the table treats both games alike: ``events`` are
    what time itself did before the command was refused (the hourglass may have run out just
    before a late call); those stand."""


Event = dict[str, Any]
Command = Mapping[str, Any]

PHASES = ("setup", "idle", "round", "demonstrating", "round_over", "game_over")
COMMANDS = ("setup", "roll", "place", "reroll", "call", "land", "done", "give_up", "verdict",
            "tick", "undo", "resume", "new_game")
MAX_CALL = 99
MAX_PLAYERS = 12


@dataclass
class _State:
    phase: str = "setup"
    now: float = -math.inf
    players: list[str] = field(default_factory=list)
    vp: list[int] = field(default_factory=list)
    layout: Layout | None = None
    options: MicroOptions = field(default_factory=MicroOptions)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    seed: int | None = None
    roller: int = 0  # the seat that rolls the dice next (or rolled the target in play)
    round: int = 0
    start: Space | None = None  # where the robot stands when the round begins
    target: Space | None = None
    via: Space | None = None
    target_since: float | None = None  # when the stall hourglass was last turned
    caller: int | None = None
    called: int | None = None
    landings: list[Space] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # finished rounds
    winners: list[int] = field(default_factory=list)
    end_reason: str | None = None  # "vp" (someone has 5) | "chips" (all 25 given out)


class MicroGame(CommandEngine[_State]):
    """A whole game of Micro Robots as the table plays it: commands in, events out.

    >>> g = MicroGame()
    >>> _ = g.apply({"type": "setup", "at": 0, "players": ["Ann", "Bo"],
    ...              "layout": example_layout().to_dict(), "seed": 1})
    >>> _ = g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    >>> [e["type"] for e in g.apply({"type": "call", "at": 9, "seat": 1, "number": 5})]
    ['demonstration_started']
    >>> events = g.apply({"type": "land", "at": 12,
    ...                   "spaces": ["pink6", "white6", "red6", "red2", "white2"]})
    >>> [e["type"] for e in events][-3:]
    ['demonstration_succeeded', 'chip_won', 'round_over']
    >>> g.view()["players"][1]["vp"], g.view()["start"]
    (1, 'white2')

    Pure like :class:`companion.game.Game`: every command carries its time ``at`` (monotonic
    seconds chosen by the caller), the stall hourglass runs on those times (:meth:`advance`,
    :meth:`next_deadline`), and the dice are a ``random.Random`` seeded by ``setup``, so the
    same commands at the same times always give the same game: a journal of commands rebuilds
    it. ``rng`` only draws a seed for a ``setup`` that brings none (the ``game_set_up`` event
    says which, for the journal). Its commands, events and phases are listed in the module's
    documentation above.
    """

    COMMANDS = COMMANDS
    REFUSALS = (LayoutError, SpaceError, ValueError)
    Error = MicroGameError

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        super().__init__(_State())

    # -- public API

    def advance(self, now: float) -> list[Event]:
        """Let time pass to ``now``: the stall hourglass re-rolls the target here."""
        return self._advance(float(now))

    def _shift(self, state: _State, delta: float) -> None:
        """Every time the game keeps moves by ``delta`` (the hourglass keeps the sand it had)."""
        if math.isfinite(state.now):
            state.now += delta
        if state.target_since is not None:
            state.target_since += delta

    def next_deadline(self) -> float | None:
        """When :meth:`advance` will next have something to do (for the table loop's sleep)."""
        return _stall_ends(self.s)

    def view(self, now: float | None = None) -> dict[str, Any]:
        """Everything the page shows, JSON-able. ``now`` only sets the hourglass's
        ``remaining``; it does not advance the game. The round's answer (shortest route,
        possible counts) is in ``rounds`` only once the round is over."""
        return _view(self.s, bool(self._undo), now)

    def summary(self) -> dict[str, Any]:
        """What history keeps of this game: players, VP, winners, every finished round (with
        the classic summary's keys ``rules`` and ``chips`` too, so one history lists both)."""
        s = self.s
        return {"game": "micro-robots", "rules": "micro-robots", "players": list(s.players),
                "vp": list(s.vp), "chips": list(s.vp),
                "phase": s.phase, "winners": list(s.winners), "end_reason": s.end_reason,
                "options": s.options.to_dict(), "rounds": [dict(r) for r in s.rounds]}

    # -- helpers

    def _snapshot(self) -> _State:
        memo: dict[int, Any] = {}
        if self.s.layout is not None:
            memo[id(self.s.layout)] = self.s.layout  # immutable: shared, not copied
        return copy.deepcopy(self.s, memo)

    def _name(self, seat: int) -> str:
        return self.s.players[seat]

    def _seat(self, cmd: Command) -> int:
        players = self.s.players
        who = ", ".join(f"{i} {p}" for i, p in enumerate(players))
        if cmd.get("player") is not None:
            name = cmd["player"]
            if name in players:
                return players.index(name)
            raise MicroGameError(f"{name!r} is not at this table (seats: {who})")
        seat = cmd.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise MicroGameError("say which player: 'seat' (a seat number from 0) or 'player' "
                                 "(a name)")
        if not 0 <= seat < len(players):
            raise MicroGameError(Message("refuse.no_seat", seat=seat, seats=who))
        return seat

    def _need_phase(self, kind: str, *phases: str) -> None:
        p = self.s.phase
        if p in phases:
            return
        if p == "setup":
            raise MicroGameError(Message("refuse.not_set_up"))
        if p == "game_over":
            raise MicroGameError(Message("refuse.game_over"))
        if p in ("idle", "round_over"):
            raise MicroGameError(Message("micro.refuse.no_target"))
        if p == "demonstrating":
            raise MicroGameError(Message("micro.refuse.demonstrating",
                                         name=self._name(self.s.caller or 0)))
        raise MicroGameError(Message("micro.refuse.no_call"))

    def _space(self, cmd: Command, key: str) -> Space | None:
        raw = cmd.get(key)
        if raw is None:
            return None
        try:
            return Space.parse(raw)
        except SpaceError as e:
            raise MicroGameError(f"{key}: {e}") from None

    def _set_target(self, target: Space, via: Space | None, at: float) -> None:
        s = self.s
        if target == s.start:
            raise MicroGameError(Message("micro.refuse.target_is_start", target=target.short))
        if s.options.expert:
            if via is None:
                raise MicroGameError("the expert variant needs an intermediate target ('via')")
            if via in (s.start, target):
                raise MicroGameError(Message("micro.refuse.via_is_start", via=via.short))
        elif via is not None:
            raise MicroGameError("an intermediate target ('via') is for the expert variant")
        s.target, s.via, s.target_since = target, via, at
        s.phase = "round"

    def _roll_target(self) -> tuple[Space, Space | None, int]:
        s = self.s
        assert s.start is not None
        target, discarded = roll_avoiding(s.rng, (s.start,))
        via = None
        if s.options.expert:
            via, more = roll_avoiding(s.rng, (s.start, target))
            discarded += more
        return target, via, discarded

    def _rolled(self, kind: str, at: float, dice: str, discarded: int,
                **extra: Any) -> Event:
        s = self.s
        return {"type": kind, "at": at, "round": s.round, "seat": s.roller,
                "name": self._name(s.roller), "dice": dice, "start": _name_or_none(s.start),
                "target": _name_or_none(s.target), "via": _name_or_none(s.via),
                "discarded": discarded, **extra}

    def _advance(self, now: float) -> list[Event]:
        s = self.s
        events: list[Event] = []
        now = max(now, s.now)
        while True:
            due = self.next_deadline()
            if due is None or due > now:
                break
            s.now = max(s.now, due)
            target, via, discarded = self._roll_target()
            self._set_target(target, via, due)
            events.append(self._rolled("target_rerolled", due, "digital", discarded,
                                       reason="stall"))
        s.now = now
        return events

    # -- commands

    def _do_setup(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("setup", "setup")
        self.s, event = _set_up(cmd, at, self.s.now, self._rng)
        return [event]

    def _do_new_game(self, cmd: Command, at: float) -> list[Event]:
        now = self.s.now
        self.s = _State(now=now)
        events: list[Event] = [{"type": "new_game", "at": at}]
        if set(cmd) - {"type", "at"}:
            events += self._do_setup({**cmd, "type": "setup"}, at)
        return events

    def _do_roll(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("roll", "idle", "round_over")
        s = self.s
        first = s.start is None
        discarded = 0
        if first:
            s.start = roll(s.rng)
        s.round += 1
        target, via, more = self._roll_target()
        self._set_target(target, via, at)
        return [self._rolled("rolled", at, "digital", discarded + more, first_round=first)]

    def _do_place(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("place", "idle", "round_over", "round")
        s = self.s
        start = self._space(cmd, "start")
        target = self._space(cmd, "target")
        via = self._space(cmd, "via")
        first = s.start is None
        if first and start is None:
            raise MicroGameError("place: the first round needs the 'start' too")
        if not first and start is not None and start != s.start:
            raise MicroGameError(f"place: the robot starts on {s.start}, where the last round's "
                                 "target was; only the first round places the start")
        if target is None:
            raise MicroGameError("place: say the 'target' the dice show")
        if first:
            s.start = start
        if s.phase == "round":
            self._set_target(target, via, at)
            return [self._rolled("target_rerolled", at, "table", 0, reason="agreed")]
        s.round += 1
        self._set_target(target, via, at)
        return [self._rolled("rolled", at, "table", 0, first_round=first)]

    def _do_reroll(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("reroll", "round")
        target, via, discarded = self._roll_target()
        self._set_target(target, via, at)
        return [self._rolled("target_rerolled", at, "digital", discarded, reason="agreed")]

    def _do_call(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("call", "round")
        seat = self._seat(cmd)
        n = cmd.get("number")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CALL:
            raise MicroGameError(f"call: a number of moves from 1 to {MAX_CALL}, not {n!r}")
        s = self.s
        s.caller, s.called, s.landings, s.phase = seat, n, [], "demonstrating"
        s.target_since = None  # the hourglass stops
        return [{"type": "demonstration_started", "at": at, "seat": seat,
                 "name": self._name(seat), "number": n}]

    def _demonstrator(self, cmd: Command, kind: str) -> int:
        """The seat demonstrating; a player named in the command must be her."""
        self._need_phase(kind, "demonstrating")
        s = self.s
        assert s.caller is not None
        if cmd.get("seat") is not None or cmd.get("player") is not None:
            seat = self._seat(cmd)
            if seat != s.caller:
                raise MicroGameError(Message("refuse.not_your_demonstration",
                                             name=self._name(s.caller), other=self._name(seat)))
        return s.caller

    def _do_land(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "land")
        if ("space" in cmd) == ("spaces" in cmd):
            raise MicroGameError("land: give 'space' (one landing) or 'spaces' (a list)")
        raw = [cmd["space"]] if "space" in cmd else cmd["spaces"]
        if isinstance(raw, str) or not isinstance(raw, Sequence) or not raw:
            raise MicroGameError("land: 'spaces' is a non-empty list of spaces")
        s = self.s
        events: list[Event] = []
        for i, item in enumerate(raw):
            try:
                space = Space.parse(item)
            except SpaceError as e:
                raise MicroGameError(f"land: {e}") from None
            if s.phase != "demonstrating":
                raise MicroGameError(Message("micro.refuse.land_after", space=space.short, used=i,
                                             given=len(raw)))
            here = s.landings[-1] if s.landings else s.start
            if space == here:
                raise MicroGameError(Message("micro.refuse.land_same", space=space.short))
            s.landings.append(space)
            verdict = self._judge(finished=False)
            events.append({"type": "landed", "at": at, "seat": seat, "space": space.name,
                           "move": len(s.landings), "legal": verdict.illegal_move is None})
            if verdict.complete:
                events += self._end_demonstration(at, verdict.success, verdict.reason,
                                                  "rules")
        return events

    def _do_done(self, cmd: Command, at: float) -> list[Event]:
        self._demonstrator(cmd, "done")
        v = self._judge(finished=True)
        return self._end_demonstration(at, v.success, v.reason, "rules")

    def _do_give_up(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "give_up")
        return self._end_demonstration(at, False, f"{self._name(seat)} gave up", seat)

    def _do_verdict(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "verdict")
        success = cmd.get("success")
        if not isinstance(success, bool):
            raise MicroGameError("a verdict says success: true or false")
        by = cmd.get("by")
        if by is None or by == "" or isinstance(by, bool) or not isinstance(by, str | int):
            raise MicroGameError("a verdict says who gave it ('by')")
        reason = None if success else Message("fail.judged", name=self._name(seat))
        return self._end_demonstration(at, success, reason, by)

    def _do_undo(self, cmd: Command, at: float) -> list[Event]:
        entry = self._pop_undo()
        now = self.s.now
        self.s = entry.before
        self.s.now = now
        if self.s.phase == "round":
            self.s.target_since = at  # the hourglass is turned again
        return [{"type": "undone", "at": at, "command": entry.command.get("type")}]

    # -- the end of a round

    def _judge(self, finished: bool) -> Verdict:
        s = self.s
        assert s.layout is not None and s.start is not None and s.target is not None
        assert s.called is not None
        return check_demonstration(s.layout, s.start, s.target, s.called, s.landings, s.via,
                                   finished)

    def _end_demonstration(self, at: float, success: bool, reason: str | None,
                           by: Any) -> list[Event]:
        s = self.s
        assert s.caller is not None and s.layout is not None
        assert s.start is not None and s.target is not None
        seat, name = s.caller, self._name(s.caller)
        landings = [x.name for x in s.landings]
        events: list[Event] = []
        given = None
        if success:
            events.append({"type": "demonstration_succeeded", "at": at, "seat": seat,
                           "name": name, "number": s.called, "landings": landings, "by": by})
            s.vp[seat] += 1
            events.append({"type": "chip_won", "at": at, "seat": seat, "name": name,
                           "vp": s.vp[seat]})
        else:
            events.append({"type": "demonstration_failed", "at": at, "seat": seat,
                           "name": name, "number": s.called, "landings": landings,
                           "reason": reason, "by": by})
            to = penalty_recipient(s.vp, seat)
            if to is not None:
                s.vp[seat] -= 1
                s.vp[to] += 1
                given = to
                events.append({"type": "chip_given", "at": at, "seat": seat, "name": name,
                               "to": to, "to_name": self._name(to),
                               "vp": {"from": s.vp[seat], "to": s.vp[to]}})
            events.append({"type": "chip_returned", "at": at, "target": s.target.name,
                           "reason": Message("micro.failed")})
        lengths = exact_lengths(s.layout, s.start, s.target, s.via)
        best = shortest_route(s.layout, s.start, s.target, s.via)
        record = {
            "round": s.round, "start": s.start.name, "target": s.target.name,
            "via": _name_or_none(s.via), "seat": seat, "name": name, "number": s.called,
            "landings": landings, "success": success, "reason": reason, "by": by,
            "chip_to": given, "chip_to_name": None if given is None else self._name(given),
            "possible": s.called in lengths, "shortest": lengths.shortest,
            "shortest_route": None if best is None else [x.name for x in best.spaces()],
            "lengths": lengths.describe(), "vp": list(s.vp), "ended_at": at,
        }
        s.rounds.append(record)
        events.append({"type": "round_over", "at": at, **copy.deepcopy(record)})
        # The robot ends on the target either way; the target becomes the next start, and the
        # dice pass to the left: the next seat clockwise.
        s.start, s.target, s.via, s.target_since = s.target, None, None, None
        s.caller, s.called, s.landings = None, None, []
        s.roller = (s.roller + 1) % len(s.players)
        s.phase = "round_over"
        return events + self._check_game_over(at)

    def _check_game_over(self, at: float) -> list[Event]:
        s = self.s
        top = max(s.vp)
        if top >= s.options.vp_to_win:
            reason = "vp"
        elif sum(s.vp) >= s.options.chips:
            reason = "chips"
        else:
            return []
        s.phase, s.end_reason = "game_over", reason
        s.winners = [i for i, v in enumerate(s.vp) if v == top]
        return [{"type": "game_over", "at": at, "reason": reason, "winners": list(s.winners),
                 "names": [self._name(i) for i in s.winners], "scores": list(s.vp)}]


def penalty_recipient(vp: Sequence[int], failed: int) -> int | None:
    """Who gets a chip from the seat ``failed`` after a failed demonstration (seats clockwise):
    the other player with the fewest chips, ties to the nearest clockwise from her; None when
    she has no chip to give."""
    if vp[failed] <= 0:
        return None
    n = len(vp)
    others = [(failed + k) % n for k in range(1, n)]
    fewest = min(vp[i] for i in others)
    return next(i for i in others if vp[i] == fewest)


def _stall_ends(s: _State) -> float | None:
    """When the stall hourglass runs out (None: it is not running)."""
    if s.phase == "round" and s.options.stall_seconds and s.target_since is not None:
        return s.target_since + s.options.stall_seconds
    return None


def _set_up(cmd: Command, at: float, now: float, rng: random.Random) -> tuple[_State, Event]:
    """The state a ``setup`` command lays out, and its ``game_set_up`` event."""
    known = {"type", "at", "players", "layout", "options", "seed", "first_roller"}
    unknown = sorted(set(cmd) - known)
    if unknown:
        raise MicroGameError(f"setup: unknown field {unknown[0]!r} (known: "
                             f"{', '.join(sorted(known - {'type', 'at'}))})")
    names = cmd.get("players")
    if isinstance(names, str) or not isinstance(names, Sequence) \
            or not 2 <= len(names) <= MAX_PLAYERS:
        raise MicroGameError(f"players: a list of 2 to {MAX_PLAYERS} names, in seat order "
                             "clockwise")
    clean = []
    for n in names:
        if not isinstance(n, str) or not n.strip():
            raise MicroGameError(f"players: a name is non-empty text, not {n!r}")
        clean.append(n.strip())
    dupes = sorted({n for n in clean if clean.count(n) > 1})
    if dupes:
        raise MicroGameError(f"players: {dupes[0]!r} is seated twice")
    if cmd.get("layout") is None:
        raise MicroGameError("layout: the board's layout is missing (a micro-layout/1 "
                             "object)")
    try:
        layout = Layout.from_dict(cmd["layout"])
    except LayoutError as e:
        raise MicroGameError(f"layout: {e}") from None
    try:
        options = MicroOptions.from_dict(cmd.get("options"))
    except (TypeError, ValueError) as e:
        raise MicroGameError(f"options: {e}") from None
    seed = cmd.get("seed")
    if seed is None:
        seed = rng.randrange(2**32)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise MicroGameError(f"seed: a whole number, not {seed!r}")
    first = cmd.get("first_roller", 0)
    if isinstance(first, bool) or not isinstance(first, int) \
            or not 0 <= first < len(clean):
        raise MicroGameError(f"first_roller: a seat from 0 to {len(clean) - 1}")
    state = _State(phase="idle", now=now, players=clean, vp=[0] * len(clean),
                   layout=layout, options=options, rng=random.Random(seed), seed=seed,
                   roller=first)
    event = {"type": "game_set_up", "at": at, "players": list(clean),
             "layout": layout.to_dict(), "options": options.to_dict(), "seed": seed,
             "first_roller": first}
    return state, event


def _view(s: _State, can_undo: bool, now: float | None = None) -> dict[str, Any]:
    """What :meth:`MicroGame.view` shows."""
    t = s.now if now is None else max(now, s.now)
    deadline = _stall_ends(s)
    robot = s.landings[-1] if s.landings else s.start
    demo = None
    if s.phase == "demonstrating" and s.caller is not None and s.called is not None:
        demo = {"seat": s.caller, "name": s.players[s.caller], "number": s.called,
                "landings": [x.name for x in s.landings],
                "moves_left": s.called - len(s.landings),
                "via_landed": None if s.via is None else s.via in s.landings}
    in_play = s.target is not None
    return {
        "game": "micro-robots",
        "phase": s.phase,
        "at": s.now if math.isfinite(s.now) else None,
        "players": [{"seat": i, "name": p, "vp": s.vp[i]} for i, p in enumerate(s.players)],
        "layout": s.layout.to_dict() if s.layout is not None else None,
        "options": s.options.to_dict(),
        "round": s.round,
        "roller": s.roller if s.players else None,
        "start": _name_or_none(s.start),
        "target": _name_or_none(s.target),
        "via": _name_or_none(s.via),
        "robot": _name_or_none(robot),
        "moves": [m.name for m in s.layout.moves(robot)] if s.layout and robot else [],
        "chip_on_target": in_play,
        "chips_in_supply": s.options.chips - sum(s.vp) - in_play,
        "stall": {"seconds": s.options.stall_seconds, "since": s.target_since,
                  "ends_at": deadline,
                  "remaining": None if deadline is None else round(max(0.0, deadline - t),
                                                                   3)},
        "demonstration": demo,
        "rounds": [dict(r) for r in s.rounds],
        "winners": list(s.winners),
        "end_reason": s.end_reason,
        "can_undo": can_undo,
    }


def _name_or_none(space: Space | None) -> str | None:
    return None if space is None else space.name
