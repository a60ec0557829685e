"""Micro Robots: the 6×6 colour-and-number board, its moves, routes, dice and the VP-chip game.

The second game of the rule sheet ``001_…`` (RULES.md, section Micro Robots), on the same
companion. Pure: no threads, no clock, no randomness of its own — the caller supplies the time
of every command and a random source for the dice. The only I/O is :meth:`Layout.load` and
:meth:`Layout.save`, which read and write a layout file on a path the caller chooses.

Vocabulary first:

* :class:`Space` — ``pink1``: one of six colours and a number 1–6; each pair is on the board once,
  so a space's name is also where it is.
* :class:`Layout` — the 6×6 board, built from four 3×3 sections in any orientation; the layout
  file (``micro-layout/1``) and its validation, which names every problem.
* :class:`Route` — a start and the spaces landed on, one per move.
* :func:`shortest_route`, :func:`exact_lengths`, :func:`route_of_length` — the solver, with
  the exact set of move counts a route can have (see :class:`ExactLengths` for why it is exact).
* :func:`check_demonstration` — a called number and the landings seen: the verdict and why.
* :func:`roll`, :func:`roll_target`, :func:`roll_via` — the two dice, with the re-roll rules.
* :class:`MicroGame` — the game: commands in, events out, :meth:`MicroGame.view` for the page.

>>> layout = example_layout()
>>> shortest_route(layout, Space.parse("pink 1"), Space.parse("white 2")).moves
5
>>> exact_lengths(layout, "pink1", "white2").describe()
'every number from 5'
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

COLORS = ("blue", "yellow", "green", "red", "pink", "white")
NUMBERS = (1, 2, 3, 4, 5, 6)
SIZE = 6
SECTION = 3
LAYOUT_FORMAT = "micro-layout/1"
# The four sections in the order of the classic position file: north-west, north-east,
# south-east, south-west; each is (first row, first column) of the 6×6 grid, rows from the top.
SECTION_ORIGINS = ((0, 0), (0, 3), (3, 3), (3, 0))
SECTION_NAMES = ("north-west", "north-east", "south-east", "south-west")


class LayoutError(ValueError):
    """A layout that cannot be used; the message names every problem found."""


class SpaceError(ValueError):
    """Text that is not a space (``"purple 3"``)."""


class CommandError(ValueError):
    """A game command that cannot be applied now; the game is unchanged."""


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
    name: str = ""
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
        grid: list[list[Space | None]] = [[None] * SIZE for _ in range(SIZE)]
        for k, (block, turn) in enumerate(zip(sections, rotations, strict=True)):
            where = f"section {k + 1} ({SECTION_NAMES[k]})"
            if isinstance(turn, bool) or not isinstance(turn, int) or turn % 90 \
                    or not 0 <= turn < 360:
                problems.append(f"{where}: rotation {turn!r} is not 0, 90, 180 or 270")
                continue
            parsed, errs = _parse_grid(block, SECTION, where)
            problems += errs
            if errs:
                continue
            r0, c0 = SECTION_ORIGINS[k]
            for i, row in enumerate(_rotate(parsed, turn // 90)):
                for j, s in enumerate(row):
                    grid[r0 + i][c0 + j] = s
        if problems:
            raise LayoutError("; ".join(problems))
        return cls(tuple(tuple(r) for r in grid), name)  # type: ignore[arg-type]

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
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise LayoutError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Layout:
        """Read a layout file (``micro-layout/1``)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise LayoutError(f"{path}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise LayoutError(f"{path}: not a text file") from None
        try:
            return cls.from_json(text)
        except LayoutError as e:
            raise LayoutError(f"{path}: {e}") from None

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
            return f"{to} is where the robot already stands; a move goes to another space"
        (r1, c1), (r2, c2) = self._where[frm], self._where[to]
        if r1 != r2 and c1 != c2:
            return f"{to} is not in the same row or column as {frm}"
        if not to.shares(frm):
            return f"{to} shares neither colour nor number with {frm}"
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
    problems = []
    for s in ALL_SPACES:
        places = seen.get(s, [])
        if len(places) > 1:
            times = {2: "twice", 3: "three times"}.get(len(places), f"{len(places)} times")
            at = ", ".join(f"row {i + 1} column {j + 1}" for i, j in places)
            problems.append(f"{s.label} appears {times} ({at})")
    missing = [s.label for s in ALL_SPACES if s not in seen]
    if missing:
        problems.append(", ".join(missing) + (" is" if len(missing) == 1 else " are")
                        + " missing")
    return problems


# A board that fits the worked example of the rule sheet: from pink 1 the robot may go to
# blue 1 or yellow 1 (its column) or pink 6 (its row); from pink 6 on to blue 6 or white 6
# (the row) or pink 4 (the column); and pink 1 → pink 6 → white 6 → red 6 → red 2 → white 2
# is a route of five moves (and the shortest).
_EXAMPLE_ROWS = (
    ("yellow3", "yellow1", "white2", "blue5", "red5", "yellow5"),
    ("pink4", "red3", "red1", "green1", "green6", "green3"),
    ("white3", "yellow4", "pink2", "pink5", "pink3", "blue4"),
    ("pink6", "pink1", "blue6", "blue3", "white6", "yellow2"),
    ("white1", "blue1", "red4", "yellow6", "green2", "white5"),
    ("green5", "green4", "red2", "blue2", "red6", "white4"),
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


_State = tuple[Space, int, bool]  # (space, parity of moves so far, intermediate landed)


def _search(
    layout: Layout, start: Space, via: Space | None
) -> tuple[dict[_State, int], dict[_State, _State]]:
    """Breadth-first over (space, parity, intermediate landed): distances and parents."""
    first: _State = (start, 0, via is None)
    dist = {first: 0}
    parent: dict[_State, _State] = {}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        space, parity, landed = state
        for nxt in layout.moves(space):
            new: _State = (nxt, 1 - parity, landed or nxt == via)
            if new not in dist:
                dist[new] = dist[state] + 1
                parent[new] = state
                queue.append(new)
    return dist, parent


def _path(parent: dict[_State, _State], end: _State, start: Space) -> Route:
    landings = []
    state = end
    while state in parent:
        landings.append(state[0])
        state = parent[state]
    return Route(start, tuple(reversed(landings)))


def _spaces(*spaces: Space | str | None) -> list[Space | None]:
    return [None if s is None else Space.parse(s) for s in spaces]


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
    end: _State = (target, moves % 2, True)
    if end not in dist or dist[end] > moves:
        if not (dist.get(end) == 0 and layout.moves(target)):
            return None
    base = _path(parent, end, start)
    landings = list(base.landings)
    back = landings[-2] if len(landings) >= 2 else start
    if not landings:  # already there: hop to a neighbour and back
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
            return Verdict(False, True, f"move {i + 1} is one more than the {called} called",
                           moves, at, landed, i + 1)
        why = layout.why_not(at, space)
        if why:
            return Verdict(False, True, f"move {i + 1}: {why}", moves, at, landed, i + 1)
        at, moves = space, moves + 1
        if via is not None and space == via:
            landed = True
    if moves < called:
        reason = f"{moves} of {called} moves made"
        if finished:
            reason = f"stopped after {moves} of the {called} moves called"
        return Verdict(False, finished, reason, moves, at, landed)
    if at != target:
        return Verdict(False, True, f"after {called} moves the robot is on {at}, not on the "
                       f"target {target}", moves, at, landed)
    if via is not None and not landed:
        return Verdict(False, True, f"the robot reached {target} without landing on the "
                       f"intermediate target {via} first", moves, at, landed)
    return Verdict(True, True, None, moves, at, landed)


# ---------------------------------------------------------------- dice


class RandomSource(Protocol):
    """What the dice need from a random source: ``random.Random`` has it."""

    def randrange(self, stop: int) -> int: ...


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
    """The game's settings. ``stall_seconds`` is the hourglass after which nobody has called
    and the target is re-rolled (the rules say 2 or 3 minutes); None turns it off."""

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
        if s is not None and (isinstance(s, bool) or not isinstance(s, int | float) or s <= 0):
            raise ValueError(f"stall_seconds: a positive number of seconds or null, not {s!r}")
        if not isinstance(self.expert, bool):
            raise ValueError(f"expert: true or false, not {self.expert!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> MicroOptions:
        data = dict(data or {})
        known = ("vp_to_win", "chips", "stall_seconds", "expert")
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(known)})")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {"vp_to_win": self.vp_to_win, "chips": self.chips,
                "stall_seconds": self.stall_seconds, "expert": self.expert}


PHASES = ("setup", "ready", "round", "demonstrating", "over")


@dataclass
class _GameState:
    vp: list[int]
    roller: int
    phase: str = "setup"
    start: Space | None = None
    target: Space | None = None
    via: Space | None = None
    round: int = 1
    target_since: float | None = None  # when the hourglass was last turned
    caller: int | None = None
    called: int | None = None
    landings: list[Space] = field(default_factory=list)
    last_result: dict[str, Any] | None = None
    winners: list[int] = field(default_factory=list)
    end_reason: str | None = None
    at: float | None = None  # time of the last command

    def copy(self) -> _GameState:
        return replace(self, vp=list(self.vp), landings=list(self.landings),
                       winners=list(self.winners),
                       last_result=None if self.last_result is None else dict(self.last_result))


class MicroGame:
    """A game of Micro Robots at one table: commands in, events out.

    >>> import random
    >>> g = MicroGame(example_layout(), ["Ann", "Bo"], rng=random.Random(1))
    >>> [e["type"] for e in g.apply({"type": "roll", "at": 0})]
    ['rolled']
    >>> g.view()["phase"]
    'round'

    ``players`` sit in clockwise order; ``first_roller`` is the seat that rolls first (the
    youngest). ``rng`` is the digital dice' random source; without it, targets come from the
    table's dice with ``place``. Every command is a dict with a ``"type"`` and the time
    ``"at"`` in seconds on the caller's monotonic clock:

    * ``roll`` — the dice: the start (first round only), the target, and in the expert variant
      the intermediate target. ``place`` — the same from the table's real dice:
      ``{"start": "pink1"}`` (first round), ``"target"``, ``"via"``; during a round it replaces
      the target.
    * ``reroll`` — the players agree to give up on this target: a new one (the chip moves).
    * ``tick`` — time passes: when nobody has called for ``stall_seconds`` the target is
      re-rolled (or, without digital dice, a ``stalled`` event asks for new dice).
    * ``call`` — ``{"player": "Ann", "number": 5}``: the first call demonstrates.
    * ``land`` — ``{"space": "pink6"}`` or ``{"spaces": [...]}``: the robot's landings, as the
      camera or the page gives them. The verdict comes at the called number of moves or at an
      illegal move. ``finish`` — the player stops: the verdict now.
    * ``undo`` — take back the last command (any number of times).

    :meth:`apply` returns the events (JSON-ready dicts, each with ``"type"`` and ``"at"``) or
    raises :class:`CommandError` and changes nothing. :meth:`view` is the snapshot the page
    draws; :meth:`to_dict` / :meth:`from_dict` keep a game across a restart.
    """

    def __init__(
        self,
        layout: Layout,
        players: Sequence[str],
        *,
        options: MicroOptions | None = None,
        rng: RandomSource | None = None,
        first_roller: int = 0,
    ) -> None:
        names = list(players)
        if len(names) < 2:
            raise ValueError("players: Micro Robots needs at least two players")
        for n in names:
            if not isinstance(n, str) or not n.strip():
                raise ValueError(f"players: a player's name is non-empty text, not {n!r}")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"players: {dupes[0]!r} is seated twice")
        if not 0 <= first_roller < len(names):
            raise ValueError(f"first_roller: a seat from 0 to {len(names) - 1}")
        self.layout = layout
        self.players: tuple[str, ...] = tuple(names)
        self.options = options or MicroOptions()
        self.rng = rng
        self._s = _GameState(vp=[0] * len(names), roller=first_roller)
        self._history: list[tuple[str, _GameState]] = []

    # -- the public surface

    def apply(self, command: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Apply one command; its events, or :class:`CommandError` with the game unchanged."""
        if not isinstance(command, Mapping):
            raise CommandError(f"a command is an object with a 'type', not {command!r}")
        kind = command.get("type")
        if not isinstance(kind, str) or kind not in self._HANDLERS:
            raise CommandError(f"unknown command type {kind!r} (known: "
                               f"{', '.join(sorted(self._HANDLERS))})")
        at = command.get("at")
        if isinstance(at, bool) or not isinstance(at, int | float):
            raise CommandError(f"{kind}: 'at' (the time in seconds) is missing or not a number")
        if self._s.at is not None and at < self._s.at:
            raise CommandError(f"{kind}: at {at} is before the last command's {self._s.at}")
        if kind == "undo":
            return self._undo(float(at))
        handler = self._HANDLERS[kind]
        before = self._s.copy()
        try:
            events = handler(self, command, float(at))
        except (SpaceError, ValueError) as e:
            self._s = before
            if isinstance(e, CommandError):
                raise
            raise CommandError(f"{kind}: {e}") from None
        except BaseException:
            self._s = before
            raise
        if events:
            self._s.at = float(at)
            self._history.append((kind, before))
        for e in events:
            e["at"] = float(at)
        return events

    @property
    def phase(self) -> str:
        return self._s.phase

    def vp(self, player: str) -> int:
        return self._s.vp[self._seat(player)]

    def view(self) -> dict[str, Any]:
        """Everything the page shows, JSON-ready. The answer (shortest route, possible counts)
        appears only in ``last_result``, once a round is over."""
        s = self._s
        name = _name_or_none
        robot = s.landings[-1] if s.landings else s.start
        deadline = None
        if s.phase == "round" and self.options.stall_seconds and s.target_since is not None:
            deadline = s.target_since + self.options.stall_seconds
        demo = None
        if s.phase == "demonstrating" and s.caller is not None and s.called is not None:
            demo = {"player": self.players[s.caller], "called": s.called,
                    "landings": [x.name for x in s.landings],
                    "moves_left": s.called - len(s.landings),
                    "via_landed": None if s.via is None else s.via in s.landings}
        return {
            "game": "micro-robots",
            "layout": self.layout.to_dict(),
            "options": self.options.to_dict(),
            "players": [{"name": p, "seat": i, "vp": s.vp[i]} for i, p in
                        enumerate(self.players)],
            "phase": s.phase,
            "round": s.round,
            "roller": self.players[s.roller],
            "start": name(s.start),
            "target": name(s.target),
            "via": name(s.via),
            "robot": name(robot),
            "chips_in_supply": self.options.chips - sum(s.vp) - (s.target is not None),
            "chip_on_target": s.target is not None,
            "stall": {"seconds": self.options.stall_seconds, "since": s.target_since,
                      "deadline": deadline},
            "demonstration": demo,
            "last_result": s.last_result,
            "winners": [self.players[i] for i in s.winners],
            "end_reason": s.end_reason,
            "can_undo": bool(self._history),
            "at": s.at,
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole game, JSON-ready, to survive a restart (undo history excepted)."""
        s = self._s
        return {
            "format": "micro-game/1",
            "layout": self.layout.to_dict(),
            "players": list(self.players),
            "options": self.options.to_dict(),
            "state": {
                "vp": list(s.vp), "roller": s.roller, "phase": s.phase,
                "start": _name_or_none(s.start), "target": _name_or_none(s.target),
                "via": _name_or_none(s.via), "round": s.round, "target_since": s.target_since,
                "caller": s.caller, "called": s.called,
                "landings": [x.name for x in s.landings], "last_result": s.last_result,
                "winners": list(s.winners), "end_reason": s.end_reason, "at": s.at,
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], rng: RandomSource | None = None) -> MicroGame:
        """A game saved by :meth:`to_dict`."""
        if not isinstance(data, Mapping) or data.get("format") != "micro-game/1":
            raise ValueError("not a saved Micro Robots game (format micro-game/1)")
        game = cls(Layout.from_dict(data["layout"]), data["players"],
                   options=MicroOptions.from_dict(data["options"]), rng=rng)
        st = dict(data["state"])
        for key in ("start", "target", "via"):
            st[key] = None if st[key] is None else Space.parse(st[key])
        st["landings"] = [Space.parse(x) for x in st["landings"]]
        if st["phase"] not in PHASES or len(st["vp"]) != len(game.players):
            raise ValueError("a saved game's state does not fit its players")
        game._s = _GameState(**st)
        return game

    # -- helpers

    def _seat(self, player: Any) -> int:
        if isinstance(player, str) and player in self.players:
            return self.players.index(player)
        raise CommandError(f"{player!r} is not at this table (players: "
                           f"{', '.join(self.players)})")

    def _need(self, kind: str, *phases: str) -> None:
        if self._s.phase not in phases:
            what = {
                "setup": "the first roll has not been made",
                "ready": "the next target has not been rolled",
                "round": "the round is open, nobody has called yet",
                "demonstrating": f"{self.players[self._s.caller or 0]} is demonstrating",
                "over": "the game is over",
            }[self._s.phase]
            raise CommandError(f"{kind}: not now: {what}")

    def _draw(self, needs_start: bool) -> tuple[Space | None, Space, Space | None, int]:
        if self.rng is None:
            raise CommandError("roll: this table has no digital dice; 'place' the target "
                               "from the real dice")
        start = self._s.start
        discarded = 0
        if needs_start:
            start = roll(self.rng)
        assert start is not None
        target, d = roll_avoiding(self.rng, (start,))
        discarded += d
        via = None
        if self.options.expert:
            via, d = roll_avoiding(self.rng, (start, target))
            discarded += d
        return (start if needs_start else None), target, via, discarded

    def _set_target(self, target: Space, via: Space | None, at: float) -> None:
        s = self._s
        if target == s.start:
            raise CommandError(f"target {target} is the start: roll again")
        if self.options.expert:
            if via is None:
                raise CommandError("the expert variant needs an intermediate target ('via')")
            if via in (s.start, target):
                raise CommandError(f"intermediate target {via} is the start or the target: "
                                   "roll again")
        elif via is not None:
            raise CommandError("an intermediate target is for the expert variant only")
        s.target, s.via, s.target_since = target, via, at
        s.phase = "round"

    def _rolled_event(self, kind: str, start: Space | None, dice: str, discarded: int,
                      reason: str | None = None) -> dict[str, Any]:
        s = self._s
        e: dict[str, Any] = {"type": kind, "by": self.players[s.roller], "dice": dice,
                             "start": _name_or_none(s.start), "target": _name_or_none(s.target),
                             "via": _name_or_none(s.via), "discarded": discarded,
                             "round": s.round}
        if reason:
            e["reason"] = reason
        if start is not None:
            e["first_start"] = True
        return e

    # -- commands

    def _cmd_roll(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("roll", "setup", "ready")
        needs_start = self._s.phase == "setup"
        start, target, via, discarded = self._draw(needs_start)
        if start is not None:
            self._s.start = start
        self._set_target(target, via, at)
        return [self._rolled_event("rolled", start, "digital", discarded)]

    def _cmd_place(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("place", "setup", "ready", "round")
        s = self._s
        start = None
        if s.phase == "setup":
            if cmd.get("start") is None:
                raise CommandError("place: the first round needs a 'start' too")
            start = Space.parse(cmd["start"])
            s.start = start
        elif cmd.get("start") is not None:
            raise CommandError("place: the start is where the last target was; only the "
                               "first round places it")
        if cmd.get("target") is None:
            raise CommandError("place: 'target' is missing")
        target = Space.parse(cmd["target"])
        via = None if cmd.get("via") is None else Space.parse(cmd["via"])
        rerolling = s.phase == "round"
        self._set_target(target, via, at)
        if rerolling:
            return [self._rolled_event("target_rerolled", None, "table", 0, "agreed")]
        return [self._rolled_event("rolled", start, "table", 0)]

    def _cmd_reroll(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("reroll", "round")
        return self._reroll(at, "agreed")

    def _reroll(self, at: float, reason: str) -> list[dict[str, Any]]:
        _, target, via, discarded = self._draw(False)
        self._set_target(target, via, at)
        return [self._rolled_event("target_rerolled", None, "digital", discarded, reason)]

    def _cmd_tick(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        s = self._s
        limit = self.options.stall_seconds
        if s.phase != "round" or not limit or s.target_since is None \
                or at < s.target_since + limit:
            return []
        if self.rng is None:
            s.target_since = at  # the hourglass is turned again while the dice are rolled
            return [{"type": "stalled", "target": _name_or_none(s.target)}]
        return self._reroll(at, "stall")

    def _cmd_call(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("call", "round")
        seat = self._seat(cmd.get("player"))
        n = cmd.get("number")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise CommandError(f"call: the number of moves is a whole number from 1, not {n!r}")
        s = self._s
        s.caller, s.called, s.landings, s.phase = seat, n, [], "demonstrating"
        return [{"type": "called", "player": self.players[seat], "number": n}]

    def _cmd_land(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("land", "demonstrating")
        if ("space" in cmd) == ("spaces" in cmd):
            raise CommandError("land: give 'space' (one landing) or 'spaces' (a list)")
        raw = [cmd["space"]] if "space" in cmd else cmd["spaces"]
        if isinstance(raw, str) or not isinstance(raw, Sequence) or not raw:
            raise CommandError("land: 'spaces' is a non-empty list of spaces")
        spaces = [Space.parse(x) for x in raw]
        s = self._s
        events: list[dict[str, Any]] = []
        for space in spaces:
            if s.phase != "demonstrating":
                raise CommandError(f"land: {space} comes after the demonstration ended")
            s.landings.append(space)
            verdict = self._verdict(finished=False)
            legal = verdict.illegal_move is None
            events.append({"type": "landed", "player": self.players[s.caller or 0],
                           "space": space.name, "move": len(s.landings), "legal": legal})
            if verdict.complete:
                events += self._end_round(verdict)
        return events

    def _cmd_finish(self, cmd: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
        self._need("finish", "demonstrating")
        return self._end_round(self._verdict(finished=True))

    def _verdict(self, finished: bool) -> Verdict:
        s = self._s
        assert s.start is not None and s.target is not None and s.called is not None
        return check_demonstration(self.layout, s.start, s.target, s.called, s.landings,
                                   s.via, finished)

    def _end_round(self, verdict: Verdict) -> list[dict[str, Any]]:
        s = self._s
        assert s.caller is not None and s.start is not None and s.target is not None
        caller = s.caller
        lengths = exact_lengths(self.layout, s.start, s.target, s.via)
        best = shortest_route(self.layout, s.start, s.target, s.via)
        chip: dict[str, str] | None = None
        if verdict.success:
            s.vp[caller] += 1
        else:
            to = penalty_recipient(s.vp, caller)
            if to is not None:
                s.vp[caller] -= 1
                s.vp[to] += 1
                chip = {"from": self.players[caller], "to": self.players[to]}
        result = {
            "round": s.round, "player": self.players[caller], "called": s.called,
            "start": s.start.name, "target": s.target.name, "via": _name_or_none(s.via),
            "landings": [x.name for x in s.landings], "success": verdict.success,
            "reason": verdict.reason, "penalty": chip,
            "possible": s.called in lengths, "shortest": lengths.shortest,
            "shortest_route": None if best is None else [x.name for x in best.spaces()],
            "lengths": lengths.describe(),
        }
        events: list[dict[str, Any]] = [
            {"type": "round_ended", **result,
             "vp": {p: s.vp[i] for i, p in enumerate(self.players)}}
        ]
        # The robot ends on the target either way; the target becomes the next start.
        s.last_result = result
        s.start, s.target, s.via, s.target_since = s.target, None, None, None
        s.caller, s.called, s.landings = None, None, []
        s.roller = (s.roller + 1) % len(self.players)
        s.round += 1
        s.phase = "ready"
        events += self._check_end()
        return events

    def _check_end(self) -> list[dict[str, Any]]:
        s = self._s
        top = max(s.vp)
        if top >= self.options.vp_to_win:
            reason = "vp"
        elif sum(s.vp) >= self.options.chips:
            reason = "chips"
        else:
            return []
        s.phase, s.end_reason = "over", reason
        s.winners = [i for i, v in enumerate(s.vp) if v == top]
        return [{"type": "game_over", "reason": reason,
                 "winners": [self.players[i] for i in s.winners],
                 "vp": {p: s.vp[i] for i, p in enumerate(self.players)}}]

    def _undo(self, at: float) -> list[dict[str, Any]]:
        if not self._history:
            raise CommandError("undo: nothing to undo")
        kind, before = self._history.pop()
        self._s = before
        if self._s.phase == "round":
            self._s.target_since = at  # the hourglass is turned again
        self._s.at = at
        return [{"type": "undone", "command": kind, "at": at}]

    _HANDLERS = {
        "roll": _cmd_roll, "place": _cmd_place, "reroll": _cmd_reroll, "tick": _cmd_tick,
        "call": _cmd_call, "land": _cmd_land, "finish": _cmd_finish, "undo": None,
    }


def penalty_recipient(vp: Sequence[int], failed: int) -> int | None:
    """Who gets a chip from the player at seat ``failed`` (seats clockwise): the other player
    with the fewest chips, ties to the nearest clockwise from her; None when she has none."""
    if vp[failed] <= 0:
        return None
    n = len(vp)
    others = [(failed + k) % n for k in range(1, n)]
    fewest = min(vp[i] for i in others)
    return next(i for i in others if vp[i] == fewest)


def _name_or_none(space: Space | None) -> str | None:
    return None if space is None else space.name
