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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from . import board as _board
from .board import DEFLECT, DIRECTIONS, Board, Direction
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
    hit_table: np.ndarray  # (option, from << 8 | to), as the numpy tables hold it
    _into: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    def into(self, o: int, c: int) -> list[int]:
        """The cells from which option ``o`` slides through ``c``."""
        got = self._into.get((o, c))
        if got is None:
            got = np.flatnonzero(self.hit_table[o, c::256] != NEVER).tolist()
            self._into[(o, c)] = got
        return got


@dataclass
class KindTables:
    """The numpy tables of one kind of robot (see the module docstring)."""

    kind: str
    options: Sequence[Sequence[Option | _Way | None]]  # [cell][o]: how to name the move
    hit: np.ndarray  # (O, 65536) uint8 (for the four directions, a view of hit_packed's bytes)
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
                self.hit)
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


class _Way(NamedTuple):
    """How a move of a robot that never passes anything is named: its direction alone."""

    direction: Direction
    passes: tuple[str, ...] = ()


_WAYS = tuple(_Way(d) for d in DIRECTIONS)


class _PlainOptions(Sequence):
    """``options[cell][o]`` of a kind whose options are the four directions in order."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, cell):  # type: ignore[override]
        return _WAYS


# ---------------------------------------------------------------- tables in one numpy pass
#
# The walls of a board of tiles are the walls of its four tiles, each placed in its quarter
# (kept per tile side and quarter: 64 small arrays, made once), and the edge and the centre
# block. The slides of every cell and direction are then traced all at once, one step of
# every slide per numpy call, and the tables written from those steps: a new board costs a
# fraction of a millisecond where tracing slide by slide in Python cost tens.


def _wall_array(width: int, height: int, walls) -> np.ndarray:
    out = np.zeros(4 * width * height, bool)
    for cell, d in walls:
        out[int(d) * width * height + cell] = True
    return out


@cache
def _tile_walls(name: str, quarter: int) -> np.ndarray:
    """Walls of one tile side placed in one quarter of a 16×16 board, both sides of each."""
    walls: set = set()
    for x, y, side in _board.tile_library()["quadrants"][name]["walls"]:
        d = Direction((_board._SIDE_TO_DIR[side] + quarter) % 4)
        x_, y_ = _board.place_tile_cell(x, y, quarter)
        _board._add_wall(walls, 16, 16, _board._board_cell(x_, y_), d)
    return _wall_array(16, 16, walls)


@cache
def _frame_walls() -> np.ndarray:
    """The edge of a 16×16 board and the walls round its centre block."""
    walls = _board._edge_walls(16, 16, frozenset())
    _board._block_cells(walls, 16, 16, {_board.parse_cell(n) for n in ("h8", "i8", "h9", "i9")})
    return _wall_array(16, 16, walls)


def board_walls(board: Board) -> np.ndarray:
    """``walls[d * size + cell]``: is there a wall on side ``d`` of ``cell``."""
    if board.tiles is not None and board.width == board.height == 16:
        out = _frame_walls().copy()
        for q, name in enumerate(board.tiles):
            out |= _tile_walls(name, q)
        return out
    return _wall_array(board.width, board.height, board.walls)


@cache
def _grids(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's column and row, as (height, width) arrays (kept: read only)."""
    col = np.broadcast_to(np.arange(width), (height, width))
    row = np.broadcast_to(np.arange(height)[:, None], (height, width))
    return col, row


@cache
def _starts(n: int, blocked: frozenset[int]) -> tuple[np.ndarray, ...]:
    """The cells robots can stand on, and for the four directions' paths (kept per board
    shape and blocked cells: read only): each path's start, direction and row in the flat
    tables, and the tables by (direction, cell) of the cost, axis and direction of a move."""
    free = np.arange(n, dtype=np.intp)
    if blocked:
        keep = np.ones(n, bool)
        keep[list(blocked)] = False
        free = free[keep]
    start = np.tile(free, 4)
    opt = np.repeat(np.arange(4, dtype=np.intp), free.size)
    base = (opt << 16) | (start << 8)
    cost = np.zeros((4, 256), np.uint8)
    axis = np.zeros((4, 256), np.uint8)
    direction = np.zeros((4, 256), np.uint8)
    for o in range(4):
        cost[o, free] = 1
        axis[o, free] = o & 1
        direction[o, free] = o
    out = (free, start, opt, base, cost, axis, direction)
    for a in out:
        a.flags.writeable = False
    return out


def _runs(walls: np.ndarray, width: int, height: int) -> np.ndarray:
    """``runs[d, cell]``: how many cells a slide from ``cell`` in direction ``d`` goes on an
    empty board without barriers (the edge is walled: no openings)."""
    n = width * height
    wall = walls.reshape(4, height, width)
    col, row = _grids(width, height)
    out = np.empty((4, n), np.intp)
    ahead = np.minimum.accumulate(np.where(wall[1], col, width - 1)[:, ::-1], axis=1)[:, ::-1]
    out[1] = (ahead - col).reshape(-1)
    behind = np.maximum.accumulate(np.where(wall[3], col, 0), axis=1)
    out[3] = (col - behind).reshape(-1)
    ahead = np.minimum.accumulate(np.where(wall[0], row, height - 1)[::-1], axis=0)[::-1]
    out[0] = (ahead - row).reshape(-1)
    behind = np.maximum.accumulate(np.where(wall[2], row, 0), axis=0)
    out[2] = (row - behind).reshape(-1)
    return out


def _nz(mask: np.ndarray) -> np.ndarray:
    return mask.ravel().nonzero()[0]


_TURN = np.array([[d for d in range(4)]] + [[int(DEFLECT[o][Direction(d)]) for d in range(4)]
                                            for o in ("/", "\\")], np.intp)  # [orientation][d]


def _straight_steps(board: Board, walls: np.ndarray, start: np.ndarray, opt: np.ndarray,
                    base: np.ndarray, step_of: np.ndarray, nat: np.ndarray,
                    flat_packed: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every step of every straight slide (its row, cell, direction and number), the slides'
    lengths and first hits written into ``nat`` and ``flat_packed``."""
    run = _runs(walls, board.width, board.height)[opt, start]
    nat.reshape(-1)[(opt << 8) | start] = run
    count = run + 1  # steps 0..run
    path = np.repeat(np.arange(start.size), count)
    all_e = np.arange(path.size) - np.repeat(np.cumsum(count) - count, count)
    all_base = base.take(path)
    all_d = opt.take(path)
    all_cell = start.take(path) + all_e * step_of.take(all_d)
    moving = _nz(all_e)
    b, c = all_base.take(moving), all_cell.take(moving)
    flat_packed[(((b & 0xFFFF) | c) << 2) | (b >> 16)] = all_e.take(moving)
    return all_base, all_cell, all_d, all_e


def _bent_steps(walls: np.ndarray, turn_at: np.ndarray, start: np.ndarray, opt: np.ndarray,
                base: np.ndarray, step_of: np.ndarray, nat: np.ndarray,
                flat_packed: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_straight_steps` where diagonals turn the slides, traced a step at a time, with
    whether each step was deflected; None for a slide that goes round for ever or too long."""
    n = turn_at.size
    cell, d = start.copy(), opt.copy()
    defl = np.zeros(start.size, bool)
    steps = [(base, cell, d, defl)]
    e = 0
    while cell.size:
        stop = walls.take(d * n + cell)
        if stop.any():
            nat.reshape(-1)[((opt << 8) | start)[stop]] = e
            go = ~stop
            base, start, opt, cell, d, defl = (x[go] for x in
                                               (base, start, opt, cell, d, defl))
            if cell.size == 0:
                break
        e += 1
        if e > MAX_STEPS:
            return None
        cell = cell + step_of.take(d)
        t = turn_at.take(cell)
        bent = t != 0
        if bent.any():
            d = _TURN[t, d]
            defl = defl | bent
        steps.append((base, cell, d, defl))
    for e in range(len(steps) - 1, 0, -1):  # the first step into a cell is written last
        b, c, _, _ = steps[e]
        flat_packed[(((b & 0xFFFF) | c) << 2) | (b >> 16)] = e
    all_base = np.concatenate([x[0] for x in steps])
    all_cell = np.concatenate([x[1] for x in steps])
    all_d = np.concatenate([x[2] for x in steps])
    all_defl = np.concatenate([x[3] for x in steps])
    all_e = np.concatenate([np.full(x[0].size, i, np.intp) for i, x in enumerate(steps)])
    return all_base, all_cell, all_d, all_e, all_defl


def _build_kind_fast(board: Board, rules: Rules, kind: str) -> KindTables | None:
    """:func:`_build_kind` for a robot that passes nothing on a board without openings, every
    slide traced at once; None where that does not apply (then the slide-by-slide build)."""
    if kind == TRANSPARENT or board.openings:
        return None
    n, w = board.size, board.width
    walls = board_walls(board)
    turn_at = np.zeros(n, np.intp)  # 0: nothing turns this kind there; 1 "/", 2 "\"
    barrier = np.zeros(n, bool)
    for dg in board.diagonals:
        barrier[dg.cell] = True
        if dg.color != kind:
            turn_at[dg.cell] = 1 if dg.orientation == "/" else 2
    turns = bool(board.diagonals) and bool(turn_at.any())
    step_of = np.array([w, 1, -w, -1], np.intp)
    free, start, opt, base, cost, axis, direction = _starts(n, frozenset(board.blocked))
    nat = np.zeros((4, 256), np.uint8)
    packed = np.full((1 << 16, 4), NEVER, np.uint8)
    hit = packed.T  # (direction, pair): the same bytes, no second table to fill
    flat_packed = packed.reshape(-1)
    if not turns:  # straight slides: each is its start and a run of cells up to a wall
        all_base, all_cell, all_d, all_e = _straight_steps(
            board, walls, start, opt, base, step_of, nat, flat_packed)
        all_defl = None
    else:
        bent = _bent_steps(walls, turn_at, start, opt, base, step_of, nat, flat_packed)
        if bent is None:  # round for ever, or too long: the slide-by-slide build says
            return None
        all_base, all_cell, all_d, all_e, all_defl = bent
    src = (all_base >> 8) & 0xFF
    ok = (all_e >= 1) & (all_cell != src)
    if rules.barrier_stop == "illegal" and board.diagonals:
        ok &= ~barrier.take(all_cell)
    code = all_cell | (ok.astype(np.intp) << 8) | ((all_d & 1) << 9) | ((all_d & 2) << 10)
    if rules.diagonal_counts_as_ricochet and all_defl is not None:
        code |= all_defl.astype(np.intp) << 10
    end = np.zeros((4, 1 << 16), np.uint16)
    end.reshape(-1)[all_base | all_e] = code
    t = KindTables(kind, _PlainOptions(n), hit, nat, end, cost, axis, direction)
    t._hit_packed = packed.view("<u4").reshape(-1)
    t._nat_packed = np.ascontiguousarray(nat.T).view("<u4").reshape(-1)
    moved = all_cell != src
    t._reach = (src[moved], all_cell[moved])
    t._uniform = True
    return t


@lru_cache(maxsize=8)
def _tables_cached(board: Board, barrier_stop: str, diag_counts: bool,
                   kind: str) -> KindTables:
    rules = Rules(barrier_stop=barrier_stop, diagonal_counts_as_ricochet=diag_counts)
    return _build_kind_fast(board, rules, kind) or _build_kind(board, rules, kind)


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


def forget_boards() -> None:
    """Drop every board's cached tables and estimates (the per-tile walls stay: they are the
    tile library's), so that the next solve meets its board new: for the benchmark."""
    _RECENT.clear()
    _tables_cached.cache_clear()
    _distance_cached.cache_clear()


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


def distance_to(board: Board, rules: Rules, kind: str, target: int,
                build: Callable[[], np.ndarray | None] | None = None) -> np.ndarray:
    """Moves a robot of this kind needs from each cell to ``target`` if it could stop anywhere
    along its slides (other robots would stop it there): a lower bound that never overestimates.
    Unreachable cells hold 255. Index 256 is a spare entry, also 255. ``build``: another way
    to work it out the first time (None from it: the one here)."""
    memo = _memo(board)
    key = (rules.barrier_stop, rules.diagonal_counts_as_ricochet, kind, target)
    d = memo.get(key)
    if d is None:
        kind_tables(board, rules, kind)
        d = build() if build is not None else None
        memo[key] = d = _distance_cached(board, *key) if d is None else d
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
