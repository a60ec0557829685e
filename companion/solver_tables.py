"""Move tables for the solver: every slide of every kind of robot, precomputed with numpy.

A slide is a fixed *path* of cells from its start (walls, openings and barriers decide it); other
robots only cut it short. So for each kind of robot, start cell ``s`` and option ``o`` (a
direction; for the transparent robot also its choices at walls and barriers) the tables hold:

* ``hit[o][s << 8 | q]`` — the first step of the path that enters cell ``q`` (255: never);
* ``nat[o][s]`` — the step where the slide ends on an empty board (:data:`LOOP` when it would
  slide round for ever);
* ``end[o][s << 8 | e]`` — stopping at step ``e``: the cell (bits 0–7), whether that stop is a
  legal move (bit 8: it moved, it is not on a barrier when that is illegal, every pass it chose
  was used), the axis of its final direction (bit 9: horizontal), whether a barrier turned it
  (bit 10) and the sense of its final direction (bit 11: down or left), so that bits 9 and 11
  together are the final :class:`~companion.board.Direction` (:func:`final_direction`).

The search then finds a slide's end with a few array look-ups: the first robot on the path is
``min(hit[o][s << 8 | q] for q in the other robots)``. The paths are traced here exactly as
:func:`companion.rules.slide` traces them; the tests hold the two to each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .board import DIRECTIONS, Board, Direction
from .errors import CompanionError
from .rules import MAX_PASSES, TRANSPARENT, Rules

# Ways to slide from one cell the tables hold (a real board has at most 12 for the transparent
# robot, passes and all; tiny boards with openings and many barriers can have hundreds).
MAX_OPTIONS = 256
NEVER = 255  # hit: the path never enters that cell
LOOP = 254  # nat: the slide never stops on an empty board
MAX_STEPS = 250  # a longer path does not fit the tables (no real board comes near)
OK_BIT, HORIZONTAL_BIT, DEFLECTED_BIT, BACKWARD_BIT = 1 << 8, 1 << 9, 1 << 10, 1 << 11
PLAIN = "plain"  # a robot that no barrier lets through: all such robots move alike


class TableError(CompanionError, ValueError):
    """A board the solver's tables cannot hold (more than 256 cells, absurdly long paths)."""


@dataclass(frozen=True)
class Option:
    """One way to slide from one cell: a direction and, for the transparent robot, its choices."""

    direction: Direction
    passes: tuple[str, ...]
    cost: int
    cells: tuple[int, ...]  # step 0 is the start
    final: tuple[int, ...]  # direction after each step
    deflected: tuple[bool, ...]  # turned by a barrier by then
    natural_end: int  # step where it stops on an empty board, or LOOP
    last_choice: int  # step where its last chosen pass happens (0: none)


def robot_kind(board: Board, robot: str) -> str:
    """Robots that move alike share a kind: a coloured robot differs only where a barrier of
    its colour lets it through."""
    if robot == TRANSPARENT:
        return TRANSPARENT
    if any(d.color == robot for d in board.diagonals):
        return robot
    return PLAIN


def _trace(board: Board, color: str | None, start: int, d: Direction,
           tokens: tuple[str, ...], transparent: bool) -> tuple[Option | None, str | None]:
    """Follow one slide on an empty board, as :func:`companion.rules.slide` does; returns the
    option (None if the choices do not fit) and the next obstacle it met without a choice."""
    tok = list(tokens)
    d0 = d
    cells, final, defl = [start], [int(d)], [False]
    cell, deflected, last_choice = start, False, 0
    seen = {(cell, d, len(tok))}
    next_choice = None
    natural = None
    while True:
        if board.is_opening(cell, d):
            nxt = board.wrap(cell, d)
            if nxt in board.blocked:
                break
        elif board.has_wall(cell, d):
            nxt = board.neighbour(cell, d)
            passable = transparent and not board.is_solid(cell, d)
            if passable and tok and tok[0] == "wall":
                tok.pop(0)
                last_choice = len(cells)
            else:
                if passable and not tok and next_choice is None:
                    next_choice = "wall"
                break
        else:
            nxt = board.neighbour(cell, d)
        assert nxt is not None
        cell = nxt
        diag = board.diagonal_at(cell)
        if diag is not None and diag.color != color:
            if transparent and tok:
                t = tok.pop(0)
                last_choice = len(cells)
                if t == "bounce":
                    d = diag.turn(d)
                    deflected = True
                elif t != "barrier":
                    return None, None
            else:
                if transparent and next_choice is None:
                    next_choice = "barrier"
                d = diag.turn(d)
                deflected = True
        cells.append(cell)
        final.append(int(d))
        defl.append(deflected)
        state = (cell, d, len(tok))
        if state in seen:
            natural = LOOP
            break
        seen.add(state)
        if len(cells) > MAX_STEPS:
            raise TableError("board: a slide is longer than the solver's tables allow")
    if tok:
        return None, next_choice
    cost = 1 + sum(1 for t in tokens if t != "bounce")
    end = len(cells) - 1 if natural is None else LOOP
    return Option(d0, tokens, cost, tuple(cells), tuple(final),
                  tuple(defl), end, last_choice), (None if natural == LOOP else next_choice)


def options_from(board: Board, kind: str, start: int, d: Direction) -> list[Option]:
    """Every option from ``start`` in direction ``d`` on an empty board: for the transparent
    robot, every choice of stopping or passing at each wall and barrier, up to
    :data:`~companion.rules.MAX_PASSES` passes, as :func:`companion.rules.transparent_options`
    lists them."""
    color = None if kind in (PLAIN, TRANSPARENT) else kind
    if kind != TRANSPARENT:
        opt, _ = _trace(board, color, start, d, (), False)
        assert opt is not None
        return [opt]
    out: list[Option] = []
    stack: list[tuple[str, ...]] = [()]
    traced = 0
    while stack:
        passes = stack.pop()
        traced += 1
        if len(out) > MAX_OPTIONS or traced > 8 * MAX_OPTIONS:  # the choices grow
            # exponentially with barriers and openings: give up before they fill the memory
            raise TableError(f"board: a {kind} robot has more than {MAX_OPTIONS} ways to slide "
                             f"from one cell; the solver handles up to {MAX_OPTIONS}")
        opt, nxt = _trace(board, None, start, d, passes, True)
        if opt is not None and (not passes or passes[-1] != "bounce"):
            out.append(opt)
        if nxt is None or sum(1 for p in passes if p != "bounce") >= MAX_PASSES:
            continue
        stack.append((*passes, nxt))
        if nxt == "barrier":
            stack.append((*passes, "bounce"))
    return out


@dataclass
class PyTables:
    """:class:`KindTables` seen as Python sequences of ints, for work done one slide at a time
    (numpy scalars are slow to index one by one)."""

    hit: list[memoryview]
    nat: list[memoryview]
    end: list[memoryview]
    cost: list[memoryview]
    axis: list[memoryview]
    direction: list[memoryview]
    hit_grid: np.ndarray  # (option, from, to)
    _into: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    def into(self, o: int, c: int) -> list[int]:
        """The cells from which option ``o`` slides through ``c``."""
        got = self._into.get((o, c))
        if got is None:
            got = np.flatnonzero(self.hit_grid[o, :, c] != NEVER).tolist()
            self._into[(o, c)] = got
        return got


@dataclass
class KindTables:
    """The numpy tables of one kind of robot (see the module docstring)."""

    kind: str
    options: list[list[Option | None]]  # [cell][o]
    hit: np.ndarray  # (O, 65536) uint8
    nat: np.ndarray  # (O, 256) uint8
    end: np.ndarray  # (O, 65536) uint16
    cost: np.ndarray  # (O, 256) uint8
    axis: np.ndarray  # (O, 256) uint8: the start direction's axis (1: horizontal)
    direction: np.ndarray  # (O, 256) uint8: the start direction
    _hit_packed: np.ndarray | None = field(default=None, repr=False)
    _nat_packed: np.ndarray | None = field(default=None, repr=False)
    _reach: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _py: PyTables | None = field(default=None, repr=False)
    _uniform: bool | None = field(default=None, repr=False)

    @property
    def py(self) -> PyTables:
        """The same tables as Python bytes and lists, for walking a route back one slide at a
        time (numpy scalars are slow to index one by one)."""
        if self._py is None:
            n_opt = self.n_options
            self._py = PyTables(
                [memoryview(self.hit[o]) for o in range(n_opt)],
                [memoryview(self.nat[o]) for o in range(n_opt)],
                [memoryview(self.end[o]) for o in range(n_opt)],
                [memoryview(self.cost[o]) for o in range(n_opt)],
                [memoryview(self.axis[o]) for o in range(n_opt)],
                [memoryview(self.direction[o]) for o in range(n_opt)],
                self.hit.reshape(n_opt, 256, 256))
        return self._py

    @property
    def reach_edges(self) -> tuple[np.ndarray, np.ndarray]:
        if self._reach is None:
            self._reach = _reach_edges(self)
        return self._reach

    @property
    def hit_packed(self) -> np.ndarray:
        """``hit`` of four options in one uint32 per pair of cells (option o in byte o)."""
        if self._hit_packed is None:
            self._hit_packed = np.ascontiguousarray(self.hit[:4].T).view("<u4").reshape(-1)
        return self._hit_packed

    @property
    def nat_packed(self) -> np.ndarray:
        if self._nat_packed is None:
            self._nat_packed = np.ascontiguousarray(self.nat[:4].T).view("<u4").reshape(-1)
        return self._nat_packed

    @property
    def end_flat(self) -> np.ndarray:
        return self.end.reshape(-1)

    @property
    def n_options(self) -> int:
        return self.hit.shape[0]

    def uniform_cost(self) -> bool:
        if self._uniform is None:
            self._uniform = bool((self.cost <= 1).all())
        return self._uniform


def _build_kind(board: Board, rules: Rules, kind: str) -> KindTables:
    n = board.size
    per_cell: list[list[Option]] = []
    for s in range(n):
        opts: list[Option] = []
        if s not in board.blocked:
            for d in DIRECTIONS:
                opts.extend(options_from(board, kind, s, d))
        per_cell.append(opts)
    n_opt = max(4, max(len(o) for o in per_cell))
    if n_opt > MAX_OPTIONS:
        raise TableError(f"board: a {kind} robot has {n_opt} ways to slide from one cell; "
                         f"the solver handles up to {MAX_OPTIONS}")
    hit = np.full((n_opt, 1 << 16), NEVER, np.uint8)
    nat = np.zeros((n_opt, 256), np.uint8)
    end = np.zeros((n_opt, 1 << 16), np.uint16)
    cost = np.zeros((n_opt, 256), np.uint8)
    axis = np.zeros((n_opt, 256), np.uint8)
    direction = np.zeros((n_opt, 256), np.uint8)
    barrier_illegal = rules.barrier_stop == "illegal"
    diag_counts = rules.diagonal_counts_as_ricochet
    diag_cells = {dg.cell for dg in board.diagonals}
    options: list[list[Option | None]] = []
    for s, opts in enumerate(per_cell):
        row: list[Option | None] = list(opts) + [None] * (n_opt - len(opts))
        options.append(row)
        for o, opt in enumerate(opts):
            cells = np.asarray(opt.cells, np.int64)
            # the first step >= 1 entering each cell
            first_cells, first = np.unique(cells[1:], return_index=True)
            hit[o, (s << 8) | first_cells] = first + 1
            nat[o, s] = opt.natural_end
            cost[o, s] = opt.cost
            axis[o, s] = int(opt.direction) & 1
            direction[o, s] = int(opt.direction)
            for e in range(len(cells)):
                c = int(cells[e])
                ok = (e >= 1 and c != s and e >= opt.last_choice
                      and not (barrier_illegal and c in diag_cells))
                code = c | (OK_BIT if ok else 0) | (HORIZONTAL_BIT if opt.final[e] & 1 else 0)
                code |= BACKWARD_BIT if opt.final[e] & 2 else 0
                if opt.deflected[e] and diag_counts:
                    code |= DEFLECTED_BIT
                end[o, (s << 8) | e] = code
    return KindTables(kind, options, hit, nat, end, cost, axis, direction)


@lru_cache(maxsize=8)
def _tables_cached(board: Board, barrier_stop: str, diag_counts: bool,
                   kind: str) -> KindTables:
    rules = Rules(barrier_stop=barrier_stop, diagonal_counts_as_ricochet=diag_counts)
    return _build_kind(board, rules, kind)


_RECENT: list[tuple[Board, dict]] = []  # the last few boards' tables, found by identity


def _memo(board: Board) -> dict:
    """The memo of a board seen lately: hashing a board (all its walls and targets) for the
    caches costs more than a step of a small search, and a game keeps one board for long."""
    for b, memo in _RECENT:
        if b is board:
            return memo
    memo = {}
    _RECENT.insert(0, (board, memo))
    del _RECENT[4:]
    return memo


def kind_tables(board: Board, rules: Rules, kind: str) -> KindTables:
    """The tables of one kind of robot on one board (cached: a game uses one board for long)."""
    memo = _memo(board)
    key = (rules.barrier_stop, rules.diagonal_counts_as_ricochet, kind)
    t = memo.get(key)
    if t is None:
        if board.size > 256:
            raise TableError(f"board: the solver handles up to 256 cells, not {board.size}")
        t = memo[key] = _tables_cached(board, *key)
    return t


@lru_cache(maxsize=64)
def _distance_cached(board: Board, barrier_stop: str, diag_counts: bool, kind: str,
                     target: int) -> np.ndarray:
    t = _tables_cached(board, barrier_stop, diag_counts, kind)
    return _relaxed_distance(t, board, target)


def distance_to(board: Board, rules: Rules, kind: str, target: int) -> np.ndarray:
    """Moves a robot of this kind needs from each cell to ``target`` if it could stop anywhere
    along its slides (other robots would stop it there): a lower bound that never overestimates.
    Unreachable cells hold 255. Index 256 is a spare entry, also 255."""
    memo = _memo(board)
    key = (rules.barrier_stop, rules.diagonal_counts_as_ricochet, kind, target)
    d = memo.get(key)
    if d is None:
        kind_tables(board, rules, kind)
        d = memo[key] = _distance_cached(board, *key)
    return d


def _relaxed_distance(t: KindTables, board: Board, target: int) -> np.ndarray:
    src, dst = t.reach_edges
    dist = np.full(257, 255, np.int64)
    dist[target] = 0
    frontier = 0
    while True:
        # cells one move from a cell at distance `frontier`
        cand = src[dist.take(dst) == frontier]
        cand = cand[dist.take(cand) == 255]
        if cand.size == 0:
            break
        dist[cand] = frontier + 1
        frontier += 1
    return dist.astype(np.uint8)


def _reach_edges(t: KindTables) -> tuple[np.ndarray, np.ndarray]:
    """Every (from, to) where a slide from ``from`` passes ``to``: if robots stood in the way
    it could stop there. From the ``hit`` table: the path of an option enters ``to``."""
    passes = (t.hit != NEVER).any(axis=0).reshape(256, 256)
    np.fill_diagonal(passes, False)
    src, dst = np.nonzero(passes)
    return src.astype(np.int64), dst.astype(np.int64)


def final_direction(code: int | np.ndarray) -> int | np.ndarray:
    """The direction a slide ends moving in, from its ``end`` code."""
    return ((code >> 9) & 1) | ((code >> 10) & 2)


def table_slide(t: KindTables, start: int, option: int,
                occupied: frozenset[int]) -> tuple[int, bool]:
    """Where option ``option`` from ``start`` ends with robots on ``occupied``, read from the
    tables exactly as the search reads them: ``(cell, legal)``. For tests and diagnostics."""
    m = NEVER
    for q in occupied:
        m = min(m, int(t.hit[option][(start << 8) | q]))
    e = min(m - 1, int(t.nat[option][start]))
    code = int(t.end[option][(start << 8) | e])
    return code & 255, bool(code & OK_BIT)
