"""The optimal solver: the fewest moves (with the transparent robot, the least total cost).

>>> from companion.rules import Position
>>> pos = Position.load("companion/examples/hardest-24.json")   # doctest: +SKIP
>>> result = solve(pos)                                           # doctest: +SKIP
>>> result.status, result.length                                  # doctest: +SKIP
('solved', 24)

The API, for the table, the verifier and the command line:

* :func:`solve` ``(position, *, max_cost=None, deadline=None, cancel=None,
  memory_limit=1 << 30)`` → :class:`Solution` (``status`` ``solved`` / ``no_solution`` /
  ``deadline`` / ``cancelled``, ``moves``, ``cost``, ``lower_bound``, ``reason``). Stop it
  from another thread with a :class:`threading.Event` passed as ``cancel``; ``deadline`` is a
  :func:`time.monotonic` time. Bad positions raise :class:`SolverError`; passing the memory
  cap raises :class:`SearchMemoryError` (a :class:`SolverError`).
* :func:`check_bid` ``(position, bid)`` → :class:`BidCheck` (``meets``, and the optimum when
  one is within the bid).
* :func:`prepare` ``(position)`` builds a board's tables ahead of the first solve.

Short positions under the classic rules (no diagonals or openings, no transparent robot, a
coloured target, immediate reversal allowed) go first to a plain-Python A* that needs no move
tables (:mod:`companion.solver_small`); it gives up past :data:`SMALL_BUDGET` units of work,
and the numpy search below takes the position over, with the route the small search found on
the way but had not proven optimal, if any: the numpy search returns it as soon as no open
position is cheaper, without working through the level of its cost.

How the numpy search works: A* over whole positions packed into ``uint64`` keys (8 bits per
robot, plus two bits for the active robot's must-ricochet progress, and five for the last move
when immediate reversal is forbidden), processed in buckets of equal (cost so far + estimate,
cost so far). The estimate is the active robot's distance to the target if it could stop anywhere
(:func:`companion.solver_tables.distance_to`), plus one where the active robot cannot get one
closer by its own next move from where the others stand (then a helper must move first, or
that move gains nothing): it never overestimates and drops by at most one per move, so each
position is expanded once, at its optimal cost. Where all robots but the active one move
alike (the fast path), the look-ahead follows the active robot's whole route alone instead,
every move one closer (as the small search does): a position that fails it needs a helper's
move or a detour; one that passes ends the search, its route costing the bucket's estimate,
which no open position undercuts. The look-ahead is made when a position leaves its bucket;
a position that fails it waits in the next one, and the active robot's moves one closer from it
keep the estimate raised (they would fail it too). Robots that move
alike and play the same part (the helpers on a board without their barriers) are kept sorted,
so their order does not count. All moves of a bucket are generated at once with numpy from the
move tables (:mod:`companion.solver_tables`); a handful of positions go one by one in Python
instead, where a dozen numpy calls would cost more than the work. Expanded positions are
remembered in a hash table (:class:`_HashSet`), and in big searches with four robots in bitsets
indexed by the position's rank. While a search is small, each new position's parent is
recorded, so the route is read back by look-up; past that, from the expanded positions, one
move at a time.

Everything the rules say is in the search itself: must-ricochet (strict: the active robot's
last axis and whether it has turned are part of the position; lenient; off), the forbidden
immediate reversal (``riogrande-2003``: the robot that moved last may not go straight back),
the vortex (any robot may arrive; under strict, each robot is tried as the one that arrives),
four to six robots, coloured barriers, openings and the transparent robot's passes at +1 each
(up to :data:`~companion.rules.MAX_PASSES` in one move, as the rules allow).
:mod:`companion.rules` stays the one authority: every route returned has passed
:func:`companion.rules.validate_route`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from math import comb
from typing import Any, Protocol

import numpy as np

from .errors import CompanionError
from .memcap import memory_cap
from .rules import Move, Position, validate_route
from .solver_small import applies as small_applies
from .solver_small import prepare as small_prepare
from .solver_small import relaxed_distance as small_distance
from .solver_small import solve_small
from .solver_tables import (
    DEFLECTED_BIT,
    HORIZONTAL_BIT,
    NEVER,
    OK_BIT,
    PLAIN,
    KindTables,
    TableError,
    distance_to,
    final_direction,
    kind_tables,
    robot_kind,
)

__all__ = [
    "BidCheck",
    "Cancel",
    "SearchMemoryError",
    "Solution",
    "SolverError",
    "check_bid",
    "prepare",
    "solve",
]

DEFAULT_MEMORY_LIMIT = 1 << 30
UNREACHABLE = 255
CHUNK = 1 << 14  # positions expanded per numpy batch (its temporaries: a few MB)
DENSE_MAX_BITS = 1 << 30  # a visited bitset up to 128 MiB
DENSE_AFTER = 400_000  # expanded positions before a search moves to the bitsets (their
# first touch of each page costs more than the hash table does for smaller searches)
TRAIL_MAX = 1 << 19  # child-parent pairs recorded for reading the route back
TURN_BLOCKS = 64  # bitset blocks for positions whose active robot has not turned yet
SCALAR_CHUNK = 10  # below this, the fast path's moves are made one by one in Python
SMALL_CHUNK = 2048  # below this, positions that have and have not turned go in one batch
BLOCKWISE_CHUNK = 4096  # from here on, the fast path's moves go block by block (no divisions)
RADIX_MIN, RADIX_MAX = 2048, 49152  # arrays sorted 16 bits at a time (:func:`_radix_sorted`)
CAP_AFTER = 1 << 20  # bytes a search holds before it reads the memory free (_memory_limit)
SMALL_BUDGET = 150  # the plain-Python search's work (look-aheads, expansions at 3) before the
# numpy one takes over, with four robots as with five: a median position needs about 50; 150
# solves a few 5- and 6-movers more than 100 did (in about 1 ms, not 3-4 by numpy), and one
# that gives up there has lost about 1 ms
_U8 = np.uint64(255)
_AXES4 = np.array([0, 1, 0, 1], np.uint8)  # the axis of UP, RIGHT, DOWN, LEFT (1: horizontal)


# sorting networks: kept sorted, interchangeable robots need a few min/max per move
_NETWORKS = {
    1: [],
    2: [(0, 1)],
    3: [(0, 1), (0, 2), (1, 2)],
    4: [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)],
    5: [(0, 1), (3, 4), (2, 4), (2, 3), (1, 4), (0, 3), (0, 2), (1, 3), (1, 2)],
    6: [(1, 2), (4, 5), (0, 2), (3, 5), (0, 1), (3, 4), (1, 4), (0, 3), (2, 5), (1, 3),
        (2, 4), (2, 3)],
}

# must-ricochet progress of the active robot (strict), in the two bits above the robots
DONE, UNMOVED, LAST_VERTICAL, LAST_HORIZONTAL = 0, 1, 2, 3


def _flag_next(flag: int, deflected: int, horizontal: int, axis: int) -> int:
    """Strict must-ricochet progress after an active robot's move: the move started on
    ``axis``, ended moving horizontally or not, and a barrier turned it or not."""
    if flag == DONE or deflected or (flag >= LAST_VERTICAL and flag - LAST_VERTICAL != axis):
        return DONE
    return LAST_VERTICAL + horizontal


# the same as a table, by progress << 3 | deflected << 2 | horizontal << 1 | axis: the middle
# two bits are a move's end code >> 8 & _TURN_BITS
_FLAG_NEXT = np.array([_flag_next(i >> 3, (i >> 2) & 1, (i >> 1) & 1, i & 1)
                       for i in range(32)], np.uint8)
_FLAG_NEXT_LIST = _FLAG_NEXT.tolist()
_TURN_BITS = (DEFLECTED_BIT | HORIZONTAL_BIT) >> 8


class SolverError(CompanionError, ValueError):
    """A position the solver cannot work on; the message says why."""


class SearchMemoryError(SolverError, MemoryError):
    """The search would need more memory than its cap (``memory_limit``)."""


class Cancel(Protocol):
    """Anything with ``is_set()``, such as :class:`threading.Event`."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found.

    ``status``: ``"solved"`` (``moves`` is an optimal route), ``"no_solution"`` (none at all, or
    none within ``max_cost``; ``reason`` says which), ``"deadline"`` or ``"cancelled"`` (stopped;
    ``lower_bound`` is proven: no route is cheaper; ``moves`` may hold a route found but not
    proven optimal).
    """

    status: str
    moves: tuple[Move, ...] | None
    cost: int | None
    lower_bound: int
    reason: str | None = None
    expanded: int = 0
    seconds: float = 0.0

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    @property
    def length(self) -> int | None:
        """Number of moves of the route (equal to ``cost`` unless the transparent robot passes)."""
        return None if self.moves is None else len(self.moves)

    def describe(self) -> str:
        if self.solved:
            assert self.moves is not None
            extra = "" if self.cost == self.length else f", cost {self.cost}"
            plural = "" if self.length == 1 else "s"
            return f"{self.length} move{plural}{extra}: " + ", ".join(m.text() for m in self.moves)
        return self.reason or self.status

    def to_json(self) -> dict[str, Any]:
        """``{"length", "cost", "moves"}`` as the command line prints it, plus the status."""
        out: dict[str, Any] = {
            "status": self.status,
            "length": self.length,
            "cost": self.cost,
            "moves": None if self.moves is None else [m.to_json() for m in self.moves],
        }
        if not self.solved:
            out["lower_bound"] = self.lower_bound
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class BidCheck:
    """Can ``bid`` be met from this position? ``meets`` is None when the search was stopped
    before it could tell; ``solution`` is the optimum when one was found within the bid."""

    bid: int
    meets: bool | None
    solution: Solution


# ---------------------------------------------------------------- the public functions


def solve(
    position: Position,
    *,
    max_cost: int | None = None,
    deadline: float | None = None,
    cancel: Cancel | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
) -> Solution:
    """The optimal route from ``position`` to its target.

    ``max_cost``: give up on routes dearer than this (``no_solution`` within it). ``deadline``:
    a :func:`time.monotonic` time to stop at; ``cancel``: stop as soon as ``cancel.is_set()``
    (checked between batches, every few milliseconds). ``memory_limit``: bytes the search may
    hold; passing it raises :class:`SearchMemoryError`. Bad positions raise :class:`SolverError`.
    Safe to call from a worker thread; it keeps no state between calls beyond cached tables.
    """
    started = time.perf_counter()
    goal = position.target
    if goal is None:
        raise SolverError("target: the position has no target to solve for")
    if max_cost is not None and max_cost < 0:
        raise SolverError(f"max_cost: a number of moves from 0, not {max_cost}")
    claimers = position.active_robots()
    if not claimers:
        raise SolverError(f"target: there is no {goal.robot} robot on the board")
    try:
        unproven: list[tuple[tuple[Move, ...], int]] = []
        result = _solve_small(position, claimers, max_cost, deadline, cancel, unproven)
        if result is not None:
            pass
        elif goal.is_vortex and position.rules.ricochet == "strict" and len(claimers) > 1:
            result = _solve_each_claimer(position, claimers, max_cost, deadline, cancel,
                                         memory_limit)
        else:
            search = _Search(position, claimers, max_cost, deadline, cancel, memory_limit)
            search.known = unproven[0] if unproven else None
            result = search.run()
    except TableError as e:
        raise SolverError(str(e)) from None
    if result.moves is not None:
        verdict = validate_route(position, result.moves)
        if not (verdict.legal and verdict.reached) or verdict.cost != result.cost:
            raise AssertionError(  # a disagreement between the solver's tables and the rules
                f"solver route fails the rules: {verdict.reason} "
                f"({', '.join(m.text() for m in result.moves)})")
    # made anew, not by dataclasses.replace, which costs a fiftieth of a short solve
    return Solution(result.status, result.moves, result.cost, result.lower_bound, result.reason,
                    result.expanded, time.perf_counter() - started)


def _solve_small(position: Position, claimers: tuple[str, ...], max_cost: int | None,
                 deadline: float | None, cancel: Cancel | None,
                 unproven: list[tuple[tuple[Move, ...], int]]) -> Solution | None:
    """The plain-Python search (:mod:`companion.solver_small`) where it applies and stays
    within its budget; None to leave the position to the numpy search, with the route the
    small search found but did not prove optimal in ``unproven``, if any."""
    if SMALL_BUDGET <= 0 or not small_applies(position, claimers) or (
            cancel is not None and cancel.is_set()) or (
            deadline is not None and time.monotonic() >= deadline):
        return None
    found = solve_small(position, claimers, max_cost, SMALL_BUDGET, unproven)
    if found is None:
        return None
    moves, cost, expanded = found
    return Solution("solved", moves, cost, cost, None, expanded)


def prepare(position: Position) -> float:
    """Build the move tables of this board for every robot on it, and the estimates for all
    its targets, now rather than in the first :func:`solve` (they are cached per board: call
    this when a game's board is read). Returns the seconds it took."""
    started = time.perf_counter()
    board, rules = position.board, position.rules
    cells = {t.cell for t in board.targets}
    if position.target is not None:
        cells.add(position.target.cell)
    try:
        for robot in position.robots:
            kind = robot_kind(board, robot)
            tables = kind_tables(board, rules, kind)
            tables.py, tables.hit_packed, tables.nat_packed  # noqa: B018 - else built on first use
            for cell in cells:
                distance_to(board, rules, kind, cell)
    except TableError as e:
        raise SolverError(str(e)) from None
    small_prepare(board, cells)
    return time.perf_counter() - started


def check_bid(
    position: Position,
    bid: int,
    *,
    deadline: float | None = None,
    cancel: Cancel | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
) -> BidCheck:
    """Can a route of at most ``bid`` moves (cost) reach the target? Searches no deeper than
    the bid, so a low bid is answered quickly."""
    if isinstance(bid, bool) or not isinstance(bid, int) or bid < 1:
        raise SolverError(f"bid: a number of moves from 1, not {bid!r}")
    result = solve(position, max_cost=bid, deadline=deadline, cancel=cancel,
                   memory_limit=memory_limit)
    if result.solved:
        return BidCheck(bid, True, result)
    if result.status == "no_solution":
        return BidCheck(bid, False, result)
    return BidCheck(bid, None, result)


def _solve_each_claimer(position: Position, claimers: tuple[str, ...], max_cost: int | None,
                        deadline: float | None, cancel: Cancel | None,
                        memory_limit: int) -> Solution:
    """Vortex under strict must-ricochet: only the arriving robot must have turned, so try each
    robot as the one that arrives (the most promising first) and keep the cheapest."""
    board, target = position.board, position.target
    assert target is not None

    def estimate(r: str) -> int:
        h = distance_to(board, position.rules, robot_kind(board, r), target.cell)
        return int(h[position.robots[r]])

    order = sorted(claimers, key=estimate)
    best: Solution | None = None
    bounds: list[int] = []
    expanded = 0
    stopped: Solution | None = None
    for i, r in enumerate(order):
        limit = max_cost
        if best is not None:
            assert best.cost is not None
            limit = best.cost - 1 if limit is None else min(limit, best.cost - 1)
            if limit < estimate(r):
                continue
        res = _Search(position, (r,), limit, deadline, cancel, memory_limit).run()
        expanded += res.expanded
        if res.solved:
            best = res
        elif res.status in ("deadline", "cancelled"):
            # no route is cheaper than this robot's bound or the robots not tried yet allow
            stopped = res
            bounds.extend([res.lower_bound, *(estimate(x) for x in order[i + 1:])])
            break
    if stopped is not None:
        low = min(bounds + ([best.cost] if best is not None and best.cost else []))
        return replace(stopped, lower_bound=low, moves=best.moves if best else stopped.moves,
                       cost=best.cost if best else stopped.cost, expanded=expanded)
    if best is not None:
        return replace(best, expanded=expanded)
    limit_text = f" within {max_cost} moves" if max_cost is not None else ""
    return Solution("no_solution", None, None, (max_cost or 0) + 1,
                    f"no robot can reach {target.label(board)}{limit_text}", expanded)


# ---------------------------------------------------------------- the visited set


class _Runs:
    """A set of ``uint64`` entries ``key << 8 | cost`` kept as a few sorted runs (merged as they
    grow, like a log-structured tree): cheap to add a sorted batch, cheap to test a batch. It
    holds the few entries that do not fit their row of a :class:`_HashSet`."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    @property
    def nbytes(self) -> int:
        return sum(r.nbytes for r in self.runs)

    def add_entries(self, entries: np.ndarray) -> None:
        """Add sorted ``key << 8 | cost`` entries."""
        if entries.size == 0:
            return
        self.runs.append(entries)
        while len(self.runs) > 1 and self.runs[-2].size <= 2 * self.runs[-1].size:
            b = self.runs.pop()
            a = self.runs.pop()
            merged = np.concatenate((a, b))
            merged.sort(kind="stable")  # two sorted runs: a linear merge
            self.runs.append(merged)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(keys.size, bool)
        if not self.runs or keys.size == 0:
            return found
        probe = keys << np.uint64(8)
        for run in self.runs:
            i = run.searchsorted(probe)
            np.minimum(i, run.size - 1, out=i)
            found |= (run.take(i) >> np.uint64(8)) == keys
        return found

    def contains_at(self, keys: np.ndarray, g: int) -> np.ndarray:
        found = np.zeros(keys.size, bool)
        probe = (keys << np.uint64(8)) | np.uint64(g)
        for run in self.runs:
            i = run.searchsorted(probe)
            np.minimum(i, run.size - 1, out=i)
            found |= run.take(i) == probe
        return found


_EMPTY = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # no key has all bits set
_FIB_INT, _MASK64 = 0x9E37_79B9_7F4A_7C15, (1 << 64) - 1  # 2**64 / golden ratio
_FIB = np.uint64(_FIB_INT)  # multiplicative hashing: the row is the product's top bits
HASH_WIDTH = 8  # keys per row: one 64-byte cache line
HASH_START_BITS = 12  # rows of a new search's visited set: room for 16,384 positions (256 KB),
# enough for most searches that reach numpy; growing costs more than the bigger start


class _HashSet:
    """Keys (with the cost each was expanded at) in a hash table whose rows hold
    :data:`HASH_WIDTH` keys: a batch is tested with one gather of whole rows and one compare,
    whatever its order (sorted runs answer unsorted batches several times slower). The table is
    at most half full; the rare key whose row is full goes to a few sorted runs."""

    def __init__(self, bits: int = 9) -> None:
        self.count = 0
        self.overflow = _Runs()
        self._alloc(bits)

    def _alloc(self, bits: int) -> None:
        self.bits = bits
        self.keys = np.full((1 << bits, HASH_WIDTH), _EMPTY, np.uint64)
        self.costs = np.zeros((1 << bits, HASH_WIDTH), np.uint8)
        self.fill_bytes = bytearray(1 << bits)  # keys in each row, for Python and numpy alike
        self.fill = np.frombuffer(self.fill_bytes, np.uint8)
        self.shift = np.uint64(64 - bits)

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.costs.nbytes + self.fill.nbytes + self.overflow.nbytes

    def _rows(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _FIB) >> self.shift).astype(np.intp)

    def add(self, keys: np.ndarray, g: int | np.ndarray) -> None:
        """Add distinct keys not in the set yet, expanded at cost ``g``."""
        if keys.size == 0:
            return
        need = self.count + keys.size
        if 2 * need > self.keys.size:
            self._grow(need)
        self.count = need
        if keys.size <= 16 and isinstance(g, int):
            self._insert_few(keys.tolist(), g)
            return
        keys = keys.astype(np.uint64, copy=False)
        self._insert(keys, np.full(keys.size, g, np.uint8) if isinstance(g, int) else g)

    def _grow(self, need: int) -> None:
        """A table twice as big (or more), filled a block of rows at a time: big searches
        should not hold every key two or three times over while it moves."""
        bits = self.bits
        while 2 * need > HASH_WIDTH << bits:
            bits += 1
        old_keys, old_costs, old_runs = self.keys, self.costs, self.overflow.runs
        self._alloc(bits)
        self.overflow = _Runs()
        for lo in range(0, old_keys.shape[0], 1 << 15):
            block = old_keys[lo:lo + (1 << 15)]
            used = block != _EMPTY
            self._insert(block[used], old_costs[lo:lo + (1 << 15)][used])
        for run in old_runs:
            self._insert(run >> np.uint64(8), (run & _U8).astype(np.uint8))

    def _insert_few(self, keys: list[int], g: int) -> None:
        """:meth:`_insert` one key at a time: for a handful, quicker than a dozen numpy calls."""
        fill, table, costs = self.fill_bytes, self.keys, self.costs
        shift = 64 - self.bits
        for k in keys:
            row = ((k * _FIB_INT) & _MASK64) >> shift
            col = fill[row]
            if col < HASH_WIDTH:
                table[row, col] = k
                costs[row, col] = g
                fill[row] = col + 1
            else:
                self.overflow.add_entries(np.array([(k << 8) | g], np.uint64))

    def _insert(self, keys: np.ndarray, costs: np.ndarray) -> None:
        rows = self._rows(keys)
        while keys.size:
            col = self.fill.take(rows)
            full = col >= HASH_WIDTH
            if full.any():
                over = _nz(full)
                entries = (keys.take(over) << np.uint64(8)) | costs.take(over)
                entries.sort()
                self.overflow.add_entries(entries)
                fit = _nz(~full)
                keys, costs, rows, col = keys.take(fit), costs.take(fit), rows.take(fit), \
                    col.take(fit)
            # flat slots: one index array gathers and scatters several times faster than
            # a (row, column) pair
            slot = rows * HASH_WIDTH + col
            flat_keys = self.keys.reshape(-1)
            flat_keys[slot] = keys  # keys meeting in one row: one of them gets the slot
            won = flat_keys.take(slot) == keys
            if won.all():
                self.costs.reshape(-1)[slot] = costs
                self.fill[rows] += 1
                return
            wins = _nz(won)
            self.costs.reshape(-1)[slot.take(wins)] = costs.take(wins)
            self.fill[rows.take(wins)] += 1
            lost = _nz(~won)
            keys, costs, rows = keys.take(lost), costs.take(lost), rows.take(lost)

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """All keys, sorted, and their costs."""
        used = self.keys != _EMPTY
        keys, costs = self.keys[used], self.costs[used]
        for run in self.overflow.runs:
            keys = np.concatenate((keys, run >> np.uint64(8)))
            costs = np.concatenate((costs, (run & np.uint64(255)).astype(np.uint8)))
        order = np.argsort(keys)
        return keys.take(order), costs.take(order)

    def _match(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = self._rows(keys)
        return rows, self.keys.take(rows, axis=0) == keys[:, None]

    def contains(self, keys: np.ndarray) -> np.ndarray:
        if self.count == 0 or keys.size == 0:
            return np.zeros(keys.size, bool)
        keys = keys.astype(np.uint64, copy=False)
        rows, eq = self._match(keys)
        found = eq.view(np.uint64).reshape(-1) != 0  # a row of 8 booleans is one uint64
        if self.overflow.runs:
            full = _nz(self.fill.take(rows) >= HASH_WIDTH)
            if full.size:
                found[full] |= self.overflow.contains(keys.take(full))
        return found

    def contains_at(self, keys: np.ndarray, g: int) -> np.ndarray:
        if self.count == 0 or keys.size == 0:
            return np.zeros(keys.size, bool)
        keys = keys.astype(np.uint64, copy=False)
        rows, eq = self._match(keys)
        eq &= self.costs.take(rows, axis=0) == g
        found = eq.any(axis=1)
        if self.overflow.runs:
            found |= self.overflow.contains_at(keys, g)
        return found

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which keys are in the set, and the value (``cost``) kept with each (0 if absent)."""
        if self.count == 0 or keys.size == 0:
            return np.zeros(keys.size, bool), np.zeros(keys.size, np.uint8)
        keys = keys.astype(np.uint64, copy=False)
        rows, eq = self._match(keys)
        value = (self.costs.take(rows, axis=0) * eq).max(axis=1)
        found = eq.view(np.uint64).reshape(-1) != 0
        for run in self.overflow.runs:
            i = np.minimum(run.searchsorted(keys << np.uint64(8)), run.size - 1)
            entry = run.take(i)
            there = (entry >> np.uint64(8)) == keys
            found |= there
            value = np.where(there, (entry & _U8).astype(np.uint8), value)
        return found, value

    def update(self, keys: np.ndarray, value: int) -> None:
        """Set the value kept with keys already in the set."""
        if keys.size == 0:
            return
        keys = keys.astype(np.uint64, copy=False)
        rows, eq = self._match(keys)
        hit_rows, hit_cols = eq.nonzero()
        self.costs[rows.take(hit_rows), hit_cols] = value
        for run in self.overflow.runs:  # only the low byte changes: the runs stay sorted
            i = np.minimum(run.searchsorted(keys << np.uint64(8)), run.size - 1)
            there = i[(run.take(i) >> np.uint64(8)) == keys]
            run[there] = (run.take(there) & ~_U8) | np.uint64(value)


_COMB = [np.array([comb(c, k) for c in range(256)], np.int64) for k in range(7)]
_OFFSETS = np.arange(256, dtype=np.intp) << 16  # option o's block in a flat move table
# for r robots: the other robots of each one, in order
_BLOCKERS = {r: np.array([[j for j in range(r) if j != i] for i in range(r)], np.intp)
             for r in range(2, 7)}
# rank of three sorted cells a < b < c is a + C(b, 2) + C(c, 3); the last two from one table
_C23 = (_COMB[2][:, None] + _COMB[3][None, :]).astype(np.int32).reshape(-1)


class _Closed:
    """Positions already expanded, and at which cost (for reading the route back).

    Small searches keep everything in a :class:`_HashSet`. Once a search grows past
    ``DENSE_AFTER`` positions, and when the robots' layout allows one (four robots), it moves
    to bitsets by rank, with the keys kept per cost: one for positions whose active robot has
    turned (or with no ricochet rule), and under strict must-ricochet one more for those that
    have not, with a block per (active cell, progress) seen: few, as the robot has only gone
    straight. There, a position whose active robot has not turned counts as seen when the same
    robots were already expanded *with* a turn: that one is at least as good (in small searches
    the extra look saves too little to pay for itself)."""

    def __init__(self, layout: _Layout, allow_dense: bool) -> None:
        self.layout = layout
        self.table = _HashSet(HASH_START_BITS)
        self.allow_dense = allow_dense
        self.dense: np.ndarray | None = None
        self.turn: np.ndarray | None = None  # bitset of positions not yet turned
        self.by_cost: dict[int, list[np.ndarray]] = {}
        self.by_cost_bytes = 0  # their total, kept as they come: nbytes is asked per batch
        self.count = 0
        r = layout.n_robots
        self.below_active = layout.dense_bits // max(1, layout.n_cells)  # rank radix of it
        self.turn_stride = (self.below_active + 7) // 8 * 8  # whole bytes per block
        self.turn_slot = np.full(4 * 256, -1, np.int64)  # (progress, active cell) -> block
        self.turn_blocks = 0
        self.active_shift = np.uint64(8 * (r - 1))

    @property
    def nbytes(self) -> int:
        n = self.table.nbytes
        if self.dense is not None:
            n += self.dense.nbytes + self.by_cost_bytes
        if self.turn is not None:
            n += self.turn_blocks * self.turn_stride // 8
        return n

    def dense_test_rank(self, rank: np.ndarray, bits: np.ndarray | None = None) -> np.ndarray:
        bits = self.dense if bits is None else bits
        assert bits is not None
        byte = bits.take(rank >> 3)
        byte >>= (rank & 7).astype(np.uint8)
        byte &= 1
        return byte.view(bool)

    def _low_test(self, keys: np.ndarray) -> np.ndarray:
        """Membership of keys without ricochet bits."""
        if self.dense is not None:
            return self.dense_test_rank(self.layout.rank(keys))
        return self.table.contains(keys)

    def _turn_index(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Block (-1: none yet) and bit index of keys with ricochet bits, in ``self.turn``."""
        lay = self.layout
        act = ((keys >> self.active_shift) & _U8).astype(np.intp)
        flag = (keys >> lay.flag_shift).astype(np.intp)
        slot = self.turn_slot.take(flag * 256 + act)
        rest = lay.rank(keys & lay.pos_mask) - act * self.below_active
        return slot, np.maximum(slot, 0) * self.turn_stride + rest

    def contains(self, keys: np.ndarray) -> np.ndarray:
        lay = self.layout
        if not lay.strict or self.dense is None:  # the turned twins save too little to look
            return self._low_test(keys)
        flag = keys >> lay.flag_shift
        rest = _nz(flag != 0)
        if rest.size == 0:
            return self._low_test(keys)
        done = _nz(flag == 0)
        out = np.zeros(keys.size, bool)
        if done.size:
            out[done] = self._low_test(keys.take(done))
        kr = keys.take(rest)
        seen = self._low_test(kr & lay.pos_mask)  # dominated by a turned twin: cheap, first
        if self.turn is not None:
            slot, index = self._turn_index(kr)
            seen |= (slot >= 0) & self.dense_test_rank(index, self.turn)
        if self.table.count:
            unseen = _nz(~seen)
            seen[unseen] = self.table.contains(kr.take(unseen))
        out[rest] = seen
        return out

    def add_new(self, keys: np.ndarray, g: int) -> np.ndarray:
        """Of sorted, distinct keys about to be expanded at cost ``g``, the ones not expanded
        before, now added (one rank computation for both)."""
        if self.dense is None:
            keys = keys.take(_nz(~self.contains(keys)))
            self.add(keys, g)
            return keys
        rest = keys[:0]
        if self.layout.strict:
            split = int(keys.searchsorted(np.uint64(1) << self.layout.flag_shift))
            keys, rest = keys[:split], keys[split:]
            if rest.size:
                rest = rest.take(_nz(~self.contains(rest)))
                self.count += rest.size
                self._turn_add(rest, g)
        if keys.size:
            rank = self.layout.rank(keys)
            fresh = _nz(~self.dense_test_rank(rank))
            keys, rank = keys.take(fresh), rank.take(fresh)
            self.count += keys.size
            self._set_bits(self.dense, rank)
            self._keep(g, keys.astype(np.uint32) if self.layout.n_robots * 8 <= 32 else keys)
        return np.concatenate((keys, rest)) if rest.size else keys

    def add(self, keys: np.ndarray, g: int) -> None:
        """Add sorted, distinct keys expanded at cost ``g``."""
        self.count += keys.size
        if self.dense is None:
            self.table.add(keys, g)
            if self.allow_dense and self.count > DENSE_AFTER:
                self._densify()
            return
        if self.layout.strict:
            split = int(keys.searchsorted(np.uint64(1) << self.layout.flag_shift))
            self._turn_add(keys[split:], g)
            keys = keys[:split]
        self._dense_add(keys, g)

    def _set_bits(self, bits: np.ndarray, index: np.ndarray) -> None:
        """Set bits at ``index``; equal bytes must be next to each other."""
        if index.size == 0:
            return
        byte = index >> 3
        bit = np.left_shift(np.uint8(1), (index & 7).astype(np.uint8))
        starts = _nz(np.concatenate(([True], byte[1:] != byte[:-1])))
        bits[byte.take(starts)] |= np.bitwise_or.reduceat(bit, starts)

    def _dense_add(self, low: np.ndarray, g: int) -> None:
        if low.size == 0:
            return
        assert self.dense is not None
        self._set_bits(self.dense, self.layout.rank(low))  # sorted keys: increasing ranks
        self._keep(g, low.astype(np.uint32) if self.layout.n_robots * 8 <= 32 else low)

    def _keep(self, g: int, keys: np.ndarray) -> None:
        """Keys expanded at cost ``g``, kept for reading the route back."""
        self.by_cost.setdefault(g, []).append(keys)
        self.by_cost_bytes += keys.nbytes

    def _turn_add(self, keys: np.ndarray, g: int) -> None:
        """Keys with ricochet bits: into their blocks (sorted keys keep each block's bits in
        order, and blocks are whole bytes), or the hash set once the blocks run out."""
        if keys.size == 0:
            return
        assert self.turn is not None
        slot, index = self._turn_index(keys)
        if (slot < 0).any():
            lay = self.layout
            pair = ((keys >> lay.flag_shift).astype(np.intp) * 256
                    + ((keys >> self.active_shift) & _U8).astype(np.intp))
            for p in np.unique(pair[slot < 0]).tolist():
                if self.turn_blocks < TURN_BLOCKS:
                    self.turn_slot[p] = self.turn_blocks
                    self.turn_blocks += 1
            slot, index = self._turn_index(keys)
            over = _nz(slot < 0)
            if over.size:
                self.table.add(keys.take(over), g)
                keep = _nz(slot >= 0)
                keys, index = keys.take(keep), index.take(keep)
        self._set_bits(self.turn, index)
        self._keep(g, keys)

    def _densify(self) -> None:
        """Move everything from the hash set to new bitsets."""
        self.dense = np.zeros((self.layout.dense_bits + 7) // 8, np.uint8)
        if self.layout.strict:
            self.turn = np.zeros(TURN_BLOCKS * self.turn_stride // 8, np.uint8)
        keys, costs = self.table.items()
        self.table = _HashSet()
        for run_g in np.unique(costs).tolist():
            some = keys[costs == run_g]
            self.count -= some.size
            self.add(some, int(run_g))

    def contains_at(self, keys: np.ndarray, g: int) -> np.ndarray:
        found = self.table.contains_at(keys, g)
        for arr in self.by_cost.get(g, ()):
            if arr.size == 0:
                continue
            k = keys.astype(arr.dtype) if arr.dtype != keys.dtype else keys
            fits = keys <= np.uint64(np.iinfo(arr.dtype).max)
            i = arr.searchsorted(k)
            np.minimum(i, arr.size - 1, out=i)
            found |= (arr.take(i) == k) & fits
        return found


# ---------------------------------------------------------------- the layout of a key


@dataclass
class _Layout:
    """Which robot sits in which byte of a key, and which robots are kept sorted together."""

    names: list[str]  # robot of each slot
    kinds: list[str]
    groups: list[list[int]]  # slots kept sorted (ascending cell), each group contiguous
    group_of: list[int]
    active: int | None  # slot of the one robot that must arrive; None: any robot may
    strict: bool
    n_cells: int
    reversal: bool = False  # the last move is part of the key (immediate reversal forbidden)
    flag_shift: np.uint64 = field(init=False)
    last_shift: np.uint64 = field(init=False)
    pos_mask: np.uint64 = field(init=False)
    key_bits: int = field(init=False)
    dense_bits: int = field(init=False)
    _comb: list[np.ndarray] = field(init=False)

    @property
    def n_robots(self) -> int:
        return len(self.names)

    def __post_init__(self) -> None:
        r = len(self.names)
        self.flag_shift = np.uint64(8 * r)
        self.last_shift = np.uint64(8 * r + 2)
        self.pos_mask = np.uint64((1 << (8 * r)) - 1)
        self.key_bits = 8 * r + (2 if self.strict else 0) + (5 if self.reversal else 0)
        total = 1
        for g in self.groups:
            total *= comb(self.n_cells, len(g))
        self.dense_bits = total
        self._comb = _COMB

    def rank(self, keys: np.ndarray) -> np.ndarray:
        """A dense number for each key's robots (the ricochet bits ignored), increasing with the
        key: groups in mixed radix, each group's sorted cells in colexicographic order."""
        cells = np.ascontiguousarray(keys, "<u8").view(np.uint8).reshape(keys.size, 8)
        if self.groups == [[0, 1, 2], [3]]:  # the common case, in fewer steps
            rank = cells[:, 3].astype(np.int64) * comb(self.n_cells, 3)
            rank += _C23.take((cells[:, 1].astype(np.uint16) << 8) | cells[:, 2])
            rank += cells[:, 0]
            return rank
        rank = np.zeros(keys.size, np.int64)
        mult = 1
        for g in self.groups:
            part = np.zeros(keys.size, np.int64)
            for i, slot in enumerate(g):
                part += self._comb[i + 1].take(cells[:, slot])
            if mult == 1:
                rank += part
            else:
                part *= mult
                rank += part
            mult *= comb(self.n_cells, len(g))
        return rank

    def pack(self, cells: dict[str, int], flag: int) -> int:
        """The key of robots at ``cells``."""
        key = 0
        for g in self.groups:
            vals = sorted(cells[self.names[s]] for s in g)
            for s, v in zip(g, vals, strict=True):
                key |= v << (8 * s)
        return key | (flag << (8 * len(self.names)) if self.strict else key)

    def cells_of(self, key: int) -> list[int]:
        return [(key >> (8 * s)) & 255 for s in range(len(self.names))]

    def flag_of(self, key: int) -> int:
        return (key >> (8 * len(self.names))) & 3 if self.strict else 0

    def last_of(self, key: int) -> int:
        """The last move (:func:`_last_move`), 0 at the start or when it does not count."""
        return (key >> (8 * len(self.names) + 2)) & 31 if self.reversal else 0


def _last_move(slot: int | np.ndarray, direction: int | np.ndarray) -> Any:
    """The last move as kept in a key when immediate reversal is forbidden: the slot of the
    robot that moved and the direction it ended moving in (0: no move yet)."""
    return 1 + slot * 4 + direction


def _forbids(last: int, slot: int, direction: int) -> bool:
    """Does the last move ``last`` forbid robot ``slot``'s move in ``direction``?"""
    return last == _last_move(slot, (direction + 2) & 3)


def _make_layout(position: Position, claimers: tuple[str, ...]) -> _Layout:
    board = position.board
    names = list(position.robots)
    single = len(claimers) == 1
    strict = single and position.rules.ricochet == "strict"
    # group robots that move alike and play the same part; the active robot alone, last
    buckets: dict[str, list[str]] = {}
    for n in names:
        if single and n == claimers[0]:
            continue
        buckets.setdefault(robot_kind(board, n), []).append(n)
    ordered: list[list[str]] = list(buckets.values())
    if single:
        ordered.append([claimers[0]])
    slots: list[str] = []
    groups: list[list[int]] = []
    for grp in ordered:
        groups.append(list(range(len(slots), len(slots) + len(grp))))
        slots.extend(grp)
    group_of = [0] * len(slots)
    for gi, g in enumerate(groups):
        for s in g:
            group_of[s] = gi
    active = slots.index(claimers[0]) if single else None
    return _Layout(slots, [robot_kind(board, n) for n in slots], groups, group_of, active,
                   strict, board.size, position.rules.immediate_reversal == "forbidden")


# ---------------------------------------------------------------- the search


@dataclass
class _Batch:
    keys: np.ndarray
    cost: np.ndarray | int
    h: np.ndarray | int
    checked: bool = False  # the keys are already known not to be expanded
    parents: np.ndarray | None = None  # the position each key was reached from


class _Search:
    """One A* search for one active robot (or for any robot, at the vortex)."""

    def __init__(self, position: Position, claimers: tuple[str, ...], max_cost: int | None,
                 deadline: float | None, cancel: Cancel | None, memory_limit: int) -> None:
        self.position = position
        self.board = position.board
        self.rules = position.rules
        assert position.target is not None
        self.target = position.target.cell
        self.claimers = claimers
        self.max_cost = max_cost
        self.deadline = deadline
        self.cancel = cancel
        self.memory_given = memory_limit
        self.memory_cap: int | None = None  # and no more than is free: see _memory_limit
        self.layout = lay = _make_layout(position, claimers)
        self.tables: list[KindTables] = [kind_tables(self.board, self.rules, k)
                                         for k in lay.kinds]
        # plain robots on a board the small search can take: its bitboards are quicker
        self.dist = [distance_to(self.board, self.rules, k, self.target,
                                 (lambda: small_distance(self.board, self.target))
                                 if k == PLAIN else None) for k in lay.kinds]
        self.claim = [lay.active == s if lay.active is not None else True
                      for s in range(len(lay.names))]
        self.uniform = all(t.uniform_cost() for t in self.tables)
        # a batch's arrays grow with the ways to slide from a cell: keep them a few MB
        self.chunk = max(1024, CHUNK * 4 // max(t.n_options for t in self.tables))
        self.lenient = self.rules.ricochet == "lenient"
        self.fast = self._is_fast()
        self.narrow = lay.n_robots == 4  # keys without ricochet bits fit 32 bits
        self.dist_list = self.dist[-1].tolist()  # the active robot's (fast path)
        self.active_dist = self.dist[lay.active].tolist() if lay.active is not None else []
        self.nc3 = comb(self.board.size, 3)  # fast path: rank = active * C(n, 3) + helpers'
        self.expanded = 0
        self.goals: list[tuple[int, int, int, int]] = []  # (cost, key, parent, parent's cost)
        # (child, parent, move cost) batches by the parent's cost, for reading the route back
        self.trail: dict[int, list[tuple[np.ndarray, np.ndarray, Any]]] = {}
        self.trail_size = 0
        self.recording = True
        # a route found before the search (by the small search) and its cost: once every
        # open position costs at least as much, it is optimal
        self.known: tuple[tuple[Move, ...], int] | None = None
        # immediate reversal forbidden: each position (without its last move) and the last
        # move it was first expanded with, 0 once it has been expanded for every move
        self.firsts = _HashSet() if self.layout.reversal else None
        self.pruned = False  # a position was left out for costing more than max_cost
        self.closer_tables: dict[int, np.ndarray] = {}  # see _closer_table
        self.code_tables: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    # -- estimates
    def descends(self, keys: np.ndarray) -> np.ndarray:
        """Can the active robot, with the others where they stand, make one move that brings
        it one closer by the estimate, or that claims the target when it is one away? Where
        it cannot, every route needs at least one move more than the estimate: a helper must
        move first, or the robot's own next move gains nothing (or lands on the target without
        the ricochet, and must leave and come back). A robot on the target that has not
        turned counts as one away, for the same reason. Adding that move keeps the estimate
        consistent (it still drops by at most one per move), so positions are still expanded
        once, at their optimal cost."""
        lay = self.layout
        s = lay.active
        assert s is not None
        if keys.size <= SCALAR_CHUNK:
            return np.array([self._descends_one(k) for k in keys.tolist()], bool)
        t = self.tables[s]
        n = keys.size
        raw = np.ascontiguousarray(keys, "<u8").view(np.uint8).reshape(n, 8)
        a = raw[:, s].astype(np.intp)
        base = a << 8
        others = [j for j in range(lay.n_robots) if j != s]
        dist = self.dist[s]
        flag = raw[:, lay.n_robots] & 3 if lay.strict else None
        at_target = a == self.target
        if flag is not None:
            at_target &= flag == DONE
        if self.fast:  # four directions at once from the packed tables: (n, option)
            first = t.hit_packed.take(base | raw[:, others[0]]).view(np.uint8)
            for j in others[1:]:
                np.minimum(first, t.hit_packed.take(base | raw[:, j]).view(np.uint8), out=first)
            first -= 1
            np.minimum(first, t.nat_packed.take(a).view(np.uint8), out=first)
            flat = first.reshape(n, 4) | base[:, None]
            flat += _OFFSETS[:4]
            codes = t.end_flat.take(flat)
            closer = dist.take(codes & 255) == (dist.take(a) - np.uint8(1))[:, None]
            closer &= (codes & OK_BIT) != 0
            if flag is not None:
                closer &= self._claims(codes, flag[:, None], _AXES4)
            return (closer.view(np.uint32).reshape(-1) != 0) | at_target
        if others:
            pairs = np.concatenate([base | raw[:, j] for j in others]).reshape(len(others), n)
            first = t.hit.take(pairs, axis=1).min(axis=1)  # (option, n)
        else:
            first = np.full((t.n_options, n), NEVER, np.uint8)
        first -= 1
        np.minimum(first, t.nat.take(a, axis=1), out=first)
        flat = first | base
        flat += _OFFSETS[:t.n_options, None]
        codes = t.end_flat.take(flat)
        closer = dist.take(codes & 255) == dist.take(a) - np.uint8(1)
        closer &= (codes & OK_BIT).astype(bool)
        if flag is not None:
            closer &= self._claims(codes, flag, t.axis.take(a, axis=1))
        return closer.any(axis=0) | at_target

    def _claims(self, codes: np.ndarray, flag: np.ndarray, axis0: np.ndarray) -> np.ndarray:
        """Strict must-ricochet: a move that ends on the target claims it only if the active
        robot has turned by then (broadcast over moves and positions)."""
        if codes.size < SMALL_CHUNK:  # few moves: fewer numpy calls
            turned = (codes & DEFLECTED_BIT) != 0
            turned |= flag == DONE
            turned |= (flag >= LAST_VERTICAL) & ((flag - LAST_VERTICAL) != axis0)
            turned |= (codes & 255) != self.target
            return turned
        # many: worked out only where a move ends on the target, few of them
        fails = (codes & 255) == self.target
        if fails.any():
            flag = np.broadcast_to(flag, codes.shape)[fails]
            turned = (codes[fails] & DEFLECTED_BIT) != 0
            turned |= flag == DONE
            turned |= (flag >= LAST_VERTICAL) & (
                (flag - LAST_VERTICAL) != np.broadcast_to(axis0, codes.shape)[fails])
            fails[fails] = ~turned
        return ~fails

    def _descends_one(self, key: int) -> bool:
        lay = self.layout
        s = lay.active
        assert s is not None
        cells = lay.cells_of(key)
        a = cells[s]
        flag = lay.flag_of(key)
        if a == self.target:
            return flag == DONE
        py = self.tables[s].py
        dist = self.active_dist
        goal = dist[a] - 1
        b = a << 8
        qs = [b | q for j, q in enumerate(cells) if j != s]
        for hit, nat, end, axis in zip(py.hit, py.nat, py.end, py.axis, strict=True):
            m = nat[a] + 1
            for q in qs:
                if hit[q] < m:
                    m = hit[q]
            code = end[b | (m - 1)]
            if code & OK_BIT and dist[code & 255] == goal and (
                    code & 255 != self.target or flag == DONE or code & DEFLECTED_BIT
                    or flag >= LAST_VERTICAL and flag - LAST_VERTICAL != axis[a]):
                return True
        return False

    def _alone(self, keys: np.ndarray, rem: int) -> np.ndarray:
        """The fast path's whole-route look-ahead: of sorted keys whose active robot is
        ``rem`` moves away by the estimate, which can it finish from alone, every move one
        closer? The others stay where they stand, so each move's end comes from the packed
        tables as in :meth:`descends`, a move at a time, for a frontier of entries: a position
        (``idx``), a cell of the active robot and its ricochet progress (``fl``, None without
        the strict rule). Per step, one gather finds the first helper on all four paths of
        every entry, and tables by a move's end code (:meth:`_code_tables`) say whether it
        lands one closer and where the next step starts."""
        n = keys.size
        k = self.layout.n_robots - 1
        raw = np.ascontiguousarray(keys, "<u8").view(np.uint8).reshape(n, 8)
        passed = np.zeros(n, bool)
        if rem == 0:  # on the target without the ricochet: it must leave and come back
            return passed
        helpers = np.ascontiguousarray(raw[:, :k].T)  # (helper, position): rows gather fast
        fl = raw[:, k + 1] & 3 if self.layout.strict else None
        t = self.tables[0]
        cell_of, base_of, turn_of = self._code_tables()
        base = raw[:, k].astype(np.intp) << 8
        cell = raw[:, k]
        idx = None  # the entries' positions (None: one entry per position, in order)
        while idx is None or idx.size:
            pairs = (helpers if idx is None else helpers.take(idx, axis=1)) | base
            first = np.minimum.reduce(t.hit_packed.take(pairs).view(np.uint8), axis=0)
            first -= 1
            np.minimum(first, t.nat_packed.take(cell).view(np.uint8), out=first)
            flat = first.reshape(-1, 4) | base[:, None]
            flat += _OFFSETS[:4]
            codes = t.end_flat.take(flat)  # (entry, direction)
            closer = self._closer_table(rem).take(codes)
            if rem == 1:
                if fl is not None:
                    closer &= self._claims(codes, fl[:, None], _AXES4)
                ends = _nz(closer.any(axis=1))
                passed[ends if idx is None else idx.take(ends)] = True
                return passed
            e = _nz(closer)
            code = codes.reshape(-1).take(e)
            row = e >> 2
            idx = row if idx is None else idx.take(row)
            base, cell = base_of.take(code), cell_of.take(code)
            if fl is not None:
                fl = _FLAG_NEXT.take((fl.take(row).astype(np.intp) << 3) | turn_of.take(code)
                                     | (e & 1))
            if idx.size > 64:  # two ways to one cell: follow it once
                both = idx.astype(np.int64) << 10 | cell.astype(np.int64) << 2
                if fl is not None:
                    both |= fl
                both = _sorted_unique(both)
                idx, cell = both >> 10, ((both >> 2) & 255).astype(np.uint8)
                base = cell.astype(np.intp) << 8
                fl = (both & 3).astype(np.uint8) if fl is not None else None
            rem -= 1
        return passed

    def _closer_table(self, rem: int) -> np.ndarray:
        """By a move's end code: is it a legal stop ``rem - 1`` away by the estimate?"""
        got = self.closer_tables.get(rem)
        if got is None:
            codes = np.arange(1 << 12)
            got = self.dist[-1].take(codes & 255) == rem - 1
            got &= (codes & OK_BIT) != 0
            self.closer_tables[rem] = got
        return got

    def _code_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """By a move's end code: the cell it ends on, that cell << 8 (where its own moves
        start in the tables) and its turn bits for :data:`_FLAG_NEXT`."""
        if self.code_tables is None:
            codes = np.arange(1 << 12)
            self.code_tables = ((codes & 255).astype(np.uint8), (codes & 255) << 8,
                                (codes >> 8) & _TURN_BITS)
        return self.code_tables

    def _alone_path(self, key: int, rem: int) -> list[tuple[int, int, int, int]] | None:
        """The fast path's whole-route look-ahead for one position, in Python: the moves
        (slot, from cell, option, to cell) of the active robot alone to the target, every
        move one closer by the estimate, or None."""
        lay = self.layout
        s = lay.active
        assert s is not None
        cells = lay.cells_of(key)
        py = self.tables[s].py
        dist = self.active_dist
        strict = lay.strict
        others = [q for j, q in enumerate(cells) if j != s]
        failed: set[int] = set()
        ways = list(enumerate(zip(py.hit, py.nat, py.end, py.axis, strict=True)))

        def walk(a: int, flag: int, rem: int) -> list[tuple[int, int, int, int]] | None:
            b = a << 8
            qs = [b | q for q in others]
            for o, (hit, nat, end, axis) in ways:
                m = nat[a] + 1
                for q in qs:
                    if hit[q] < m:
                        m = hit[q]
                code = end[b | (m - 1)]
                v = code & 255
                if not code & OK_BIT or dist[v] != rem - 1:
                    continue
                nf = _FLAG_NEXT_LIST[(flag << 3) | ((code >> 8) & _TURN_BITS) | axis[a]] \
                    if strict else DONE
                if rem == 1:
                    if nf == DONE:
                        return [(s, a, o, v)]
                    continue
                if (v << 2 | nf) in failed:
                    continue
                rest = walk(v, nf, rem - 1)
                if rest is not None:
                    return [(s, a, o, v), *rest]
                failed.add(v << 2 | nf)
            return None

        return walk(cells[s], lay.flag_of(key), rem) if rem > 0 else None

    def estimate(self, cells: list[np.ndarray]) -> np.ndarray:
        lay = self.layout
        if lay.active is not None:
            return self.dist[lay.active].take(cells[lay.active])
        h = self.dist[0].take(cells[0])
        for s in range(1, len(cells)):
            h = np.minimum(h, self.dist[s].take(cells[s]))
        return h

    # -- moves
    def successors(self, keys: np.ndarray, g: int,
                   only: np.ndarray | None = None) -> Iterable[_Batch]:
        """Every legal move from every position in ``keys`` (all of cost ``g`` so far), one
        batch per moving robot with all its options at once. Goals reached are noted in
        ``self.goals``. ``only`` (immediate reversal forbidden): where not 0, the one move
        that the last move ``only`` forbade, the only one still to make from there
        (:meth:`_reversal_copies`)."""
        lay = self.layout
        r_count = len(lay.names)
        n = keys.size
        raw = np.ascontiguousarray(keys, "<u8").view(np.uint8).reshape(n, 8)
        cells = [raw[:, s].astype(np.intp) for s in range(r_count)]
        flag = (raw[:, r_count] & 3).astype(np.intp) if lay.strict else None
        last = (raw[:, r_count] >> 2).astype(np.intp) if lay.reversal else None
        for r in range(r_count):
            t = self.tables[r]
            n_opt = t.n_options
            mine = cells[r]
            base = mine << 8
            if r_count > 1:
                pairs = np.concatenate([base | cells[j] for j in range(r_count) if j != r]
                                       ).reshape(r_count - 1, n)
                first = t.hit.take(pairs, axis=1).min(axis=1)  # (option, n)
            else:
                first = np.full((n_opt, n), NEVER, np.uint8)
            first -= 1
            np.minimum(first, t.nat.take(mine, axis=1), out=first)
            flat = first | base
            flat += _OFFSETS[:n_opt, None]
            codes = t.end_flat.take(flat)
            if last is not None:  # no robot goes straight back the way it just came
                direction = t.direction.take(mine, axis=1)
                back = direction == ((last - 1) & 3) ^ 2
                back &= ((last - 1) >> 2 == r) & (last > 0)
                codes[back] = 0
                if only is not None:
                    other = direction != ((only - 1) & 3) ^ 2
                    other |= (only - 1) >> 2 != r
                    other &= only > 0
                    codes[other] = 0
            codes = codes.reshape(-1)
            idx = _nz(codes & OK_BIT)
            if idx.size == 0:
                continue
            opt = idx // n
            sel = idx - opt * n
            code = codes.take(idx)
            new = (code & 255).astype(np.intp)
            grp = lay.groups[lay.group_of[r]]
            clear = np.uint64(0)
            for s_ in grp:
                clear |= np.uint64(255 << (8 * s_))
            child = keys.take(sel) & ~clear
            if len(grp) == 1:
                child |= new.astype(np.uint64) << np.uint64(8 * r)
            else:
                cols = [new if s_ == r else cells[s_].take(sel) for s_ in grp]
                for i, j in _NETWORKS[len(grp)]:
                    lo = np.minimum(cols[i], cols[j])
                    cols[j] = np.maximum(cols[i], cols[j])
                    cols[i] = lo
                for s_, col in zip(grp, cols, strict=True):
                    child |= col.astype(np.uint64) << np.uint64(8 * s_)
            start = opt * 256 + mine.take(sel)
            new_flag = None
            if lay.strict and r == lay.active:
                assert flag is not None
                axis0 = t.axis.reshape(-1).take(start)
                new_flag = _FLAG_NEXT.take((flag.take(sel) << 3) | ((code >> 8) & _TURN_BITS)
                                           | axis0).astype(np.uint64)
                child = (child & ~(np.uint64(3) << lay.flag_shift)) | \
                    (new_flag << lay.flag_shift)
            if last is not None:
                slot_now = np.full(idx.size, grp[0], np.intp)  # where the mover is, sorted
                for s_ in grp:
                    if s_ != r:
                        slot_now += cells[s_].take(sel) < new
                moved = _last_move(slot_now, final_direction(code)).astype(np.uint64)
                child = (child & ~(np.uint64(31) << lay.last_shift)) | (moved << lay.last_shift)
            cost: np.ndarray | int = 1 if self.uniform else \
                t.cost.reshape(-1).take(start).astype(np.int64)
            if self.claim[r] and not (self.lenient and g == 0):
                at = new == self.target
                if new_flag is not None:
                    at &= new_flag == DONE
                hits = _nz(at)
                if hits.size:
                    gc = g + (cost if isinstance(cost, int) else cost.take(hits))
                    best_i = int(gc.argmin()) if not isinstance(gc, int) else 0
                    gbest = gc if isinstance(gc, int) else int(gc[best_i])
                    self.goals.append((gbest, int(child[hits[best_i]]),
                                       int(keys[sel[hits[best_i]]]), g))
            # the estimate of each child
            if lay.active is not None:
                h: np.ndarray | int = self.dist[r].take(new).astype(np.int64) \
                    if r == lay.active else -1  # -1: unchanged, the caller knows it
            else:
                h = self.dist[r].take(new).astype(np.int64)
                for s_ in range(r_count):
                    if s_ != r:
                        np.minimum(h, self.dist[s_].take(cells[s_].take(sel)), out=h)
            yield _Batch(child, cost, h, parents=keys.take(sel) if self.recording else None)

    # -- the fast path: one active robot and helpers that all move alike
    def _is_fast(self) -> bool:
        lay = self.layout
        r = lay.n_robots
        return (2 <= r <= 6 and lay.active == r - 1 and not lay.reversal
                and lay.groups == [list(range(r - 1)), [r - 1]]
                and len({id(t) for t in self.tables}) == 1 and self.uniform
                and self.tables[0].n_options == 4)

    def _expand(self, keys: np.ndarray, g: int, hr: int,
                only: np.ndarray | None = None) -> Iterable[_Batch]:
        """All moves from a sorted chunk: one by one in Python for a handful, else the fast
        path (in big strict searches, the positions that have turned apart: no ricochet bits
        to carry), else the general one."""
        if not self.fast:
            yield from self.successors(keys, g, only)
            return
        if keys.size <= SCALAR_CHUNK:
            yield from self._scalar_successors(keys, g, hr)
            return
        if self.layout.strict and self.layout.n_robots == 4 and keys.size >= SMALL_CHUNK:
            split = int(keys.searchsorted(np.uint64(1) << np.uint64(32)))
            if split:
                yield from self._fast_successors(keys[:split], g, turned=True)
            if split < keys.size:
                yield from self._fast_successors(keys[split:], g)
            return
        yield from self._fast_successors(keys, g)

    def _scalar_successors(self, keys: np.ndarray, g: int, hr: int) -> Iterable[_Batch]:
        """:meth:`_fast_successors` for a handful of positions, one slide at a time: a few
        dozen numpy calls cost more than the work itself here. ``hr``: the estimate of them
        all, which the helpers' moves keep."""
        py = self.tables[0].py
        ways = list(zip(py.hit, py.nat, py.end, (0, 1, 0, 1), strict=True))  # and each axis
        flag_next = _FLAG_NEXT_LIST
        dist = self.dist_list
        target = self.target
        goal_ok = not (self.lenient and g == 0)
        r_count = self.layout.n_robots
        k = r_count - 1  # helpers in bytes 0..k-1, the active robot in byte k
        act_shift = 8 * k
        flag_shift = 8 * r_count
        low_mask = (1 << act_shift) - 1
        shifts = [8 * i for i in range(r_count)]
        children: list[int] = []
        parents: list[int] = []
        estimates: list[int] = []
        for key in keys.tolist():
            cs = [(key >> sh) & 255 for sh in shifts]
            fl = key >> flag_shift
            high = key & ~low_mask  # the active robot and its progress stay
            for r, s in enumerate(cs):
                b = s << 8
                qs = [b | c for j, c in enumerate(cs) if j != r]
                for hit, nat, end, axis in ways:
                    m = nat[s] + 1
                    for q in qs:
                        x = hit[q]
                        if x < m:
                            m = x
                    code = end[b | (m - 1)]
                    if not code & OK_BIT:
                        continue
                    v = code & 255
                    if r < k:
                        rest = cs[:k]
                        rest[r] = v
                        rest.sort()
                        child = high
                        for sh, c in zip(shifts, rest):  # noqa: B905 - one helper fewer
                            child |= c << sh
                        children.append(child)
                        parents.append(key)
                        estimates.append(hr)
                        continue
                    nf = flag_next[(fl << 3) | ((code >> 8) & _TURN_BITS) | axis]
                    child = (nf << flag_shift) | (v << act_shift) | (key & low_mask)
                    if v == target and nf == DONE and goal_ok:
                        self.goals.append((g + 1, child, key, g))
                    children.append(child)
                    parents.append(key)
                    estimates.append(dist[v])
        if children:
            child = np.array(children, np.uint64)
            fresh = _nz(~self.closed.contains(child))
            yield _Batch(child.take(fresh), 1, np.array(estimates, np.int64).take(fresh),
                         checked=True, parents=np.array(parents, np.uint64).take(fresh))

    def _seen4(self, act: np.ndarray, tri: np.ndarray, flag: np.ndarray | None) -> np.ndarray:
        """Expanded already? Four robots, by rank: the active robot's cell, the rank of the
        sorted helpers and the ricochet progress (None: all have turned). A position not yet
        turned also counts as seen when its turned twin was (that one is at least as good)."""
        c = self.closed
        rank = act.astype(np.int32) * np.int32(self.nc3)
        rank += tri
        seen = c.dense_test_rank(rank)
        if flag is not None and c.turn is not None:
            slot = c.turn_slot.take(flag.astype(np.intp) * 256 + act)
            index = np.maximum(slot, 0) * c.turn_stride + tri
            seen |= (slot >= 0) & c.dense_test_rank(index, c.turn)
        return seen

    def _fast_successors(self, keys: np.ndarray, g: int, turned: bool = False,
                         check: bool = True) -> Iterable[_Batch]:
        """All moves of all positions at once, for the layout: helpers sorted in bytes
        0..k-1, the active robot in byte k, its ricochet progress (strict) above. ``turned``:
        every position's active robot has turned, no ricochet bits to carry. With four robots
        and the bitsets in use, visited tests go by rank, computed here. Small integer types
        throughout: this loop is memory-bound. ``check``: leave out the children expanded
        already (else the caller does, when their bucket is taken)."""
        t = self.tables[0]
        n = keys.size
        r_count = self.layout.n_robots
        k = r_count - 1
        raw = np.ascontiguousarray(keys, "<u8").view(np.uint8).reshape(n, 8)
        cells = np.empty((r_count, n), np.uint8)  # (slot, n)
        for i in range(r_count):
            cells[i] = raw[:, i]
        flag = raw[:, r_count].copy() if self.layout.strict and not turned else None
        base = cells.astype(np.intp) << 8
        # the first robot on each path, for all four directions at once: the tables hold the
        # four directions' bytes in one uint32
        small = n < BLOCKWISE_CHUNK  # few positions: fewer, broadcast numpy calls
        if small:
            pairs = base[:, None, :] | cells[_BLOCKERS[r_count]]
        else:
            pairs = np.empty((r_count, k, n), np.intp)
            for r in range(r_count):
                for i, j in enumerate(j for j in range(r_count) if j != r):
                    np.bitwise_or(base[r], cells[j], out=pairs[r, i])
        packed = t.hit_packed.take(pairs)
        first = packed[:, 0].view(np.uint8).copy()  # (mover, 4n): byte o of each position
        for i in range(1, k):
            np.minimum(first, packed[:, i].view(np.uint8), out=first)
        first -= 1
        np.minimum(first, t.nat_packed.take(cells).view(np.uint8), out=first)
        if small:  # (mover, position, option): no transposed copy
            flat = first.reshape(r_count, n, 4) | base[:, :, None]
            flat += _OFFSETS[:4]
        else:
            by_option = first.reshape(r_count, n, 4).transpose(0, 2, 1)
            flat = np.empty((r_count, 4, n), np.intp)  # (mover, option, n)
            for o in range(4):
                np.bitwise_or(by_option[:, o], base, out=flat[:, o])
                flat[:, o] += o << 16
            del by_option
        codes = t.end_flat.take(flat)
        # a generator keeps its locals while the caller handles each batch: let the
        # biggest go now
        del pairs, packed, first, flat, base
        ok = (codes & OK_BIT).astype(bool)
        # four robots and the bitsets in use: test the visited set by rank, computed here
        use_rank = (r_count == 4 and self.closed.dense is not None
                    and not self.closed.table.count)
        # helper moves: the others stay sorted, the new cell is slotted in; same estimate
        if small:  # all helper moves in one go
            idx = _nz(ok[:k])
            has_moves = idx.size > 0
            if has_moves:
                mover = idx // (4 * n)
                par = (idx >> 2) - mover * n
                v = (codes[:k].reshape(-1).take(idx) & 255).astype(np.uint8)
                flat_cells = cells.reshape(-1)
                rest_cols = [flat_cells.take((i + (mover <= i)) * n + par) for i in range(k - 1)]
        else:  # many: move by move, no divisions
            news: list[np.ndarray] = []
            pars: list[np.ndarray] = []
            rests: list[list[np.ndarray]] = [[] for _ in range(k - 1)]
            for r in range(k):
                for o in range(4):
                    sel = _nz(ok[r, o])
                    if sel.size == 0:
                        continue
                    news.append((codes[r, o].take(sel) & 255).astype(np.uint8))
                    pars.append(sel)
                    # the other helpers of the moving one, in order
                    for i, j in enumerate(j for j in range(k) if j != r):
                        rests[i].append(cells[j].take(sel))
            has_moves = bool(news)
            if has_moves:
                v, par = np.concatenate(news), np.concatenate(pars)
                rest_cols = [np.concatenate(c) for c in rests]
        if has_moves:
            out = _insert_sorted(rest_cols, v)
            act = cells[k].take(par)
            if use_rank:
                tri = _C23.take((out[1].astype(np.uint16) << 8) | out[2])
                tri += out[0]
                seen = self._seen4(act, tri, None if flag is None else flag.take(par))
                fresh = _nz(~seen)
                act, par = act.take(fresh), par.take(fresh)
                out = [c.take(fresh) for c in out]
            wide = np.uint32 if r_count == 4 else np.uint64
            child = act.astype(wide) << wide(8 * k)
            for i, c in enumerate(out):
                child |= c.astype(wide) << wide(8 * i)
            if flag is not None:
                child = child.astype(np.uint64)
                child |= flag.take(par).astype(np.uint64) << np.uint64(8 * r_count)
            if not use_rank and check:
                fresh = _nz(~self.closed.contains(child))
                child, par = child.take(fresh), par.take(fresh)
            yield _Batch(child, 1, -1, checked=True,
                         parents=keys.take(par) if self.recording else None)
        # active moves: the helpers stay as they are; the estimate is the new cell's
        idx = _nz(ok[k])
        if idx.size == 0:
            return
        if small:  # by (position, option)
            opt, par = idx & 3, idx >> 2
        else:  # by (option, position)
            opt = idx // n
            par = idx - opt * n
        code = codes[k].reshape(-1).take(idx)
        v = (code & 255).astype(np.uint8)
        nf = None
        if flag is not None:  # options are the four directions in order: the axis is o & 1
            nf = _FLAG_NEXT.take((flag.take(par) << 3) | ((code >> 8) & _TURN_BITS) | (opt & 1))
        low = np.ascontiguousarray(keys, np.uint64) & np.uint64((1 << (8 * k)) - 1)
        if not (self.lenient and g == 0):
            at = v == self.target
            if nf is not None:
                at &= nf == DONE
            hits = _nz(at)
            if hits.size:
                p0 = int(par[hits[0]])
                self.goals.append((g + 1, (self.target << (8 * k)) | int(low[p0]),
                                   int(keys[p0]), g))
        if use_rank:
            tri = _C23.take((cells[1].astype(np.uint16) << 8) | cells[2])
            tri += cells[0]
            fresh = _nz(~self._seen4(v, tri.take(par), nf))
            v, par = v.take(fresh), par.take(fresh)
            if nf is not None:
                nf = nf.take(fresh)
        if r_count == 4 and nf is None:
            child = v.astype(np.uint32) << np.uint32(24)
            child |= low.take(par).astype(np.uint32)
        else:
            child = v.astype(np.uint64) << np.uint64(8 * k)
            child |= low.take(par)
        if nf is not None:
            child |= nf.astype(np.uint64) << np.uint64(8 * r_count)
        h = self.dist[k].take(v).astype(np.int64)
        if not use_rank and check:
            fresh = _nz(~self.closed.contains(child))
            child, h, par = child.take(fresh), h.take(fresh), par.take(fresh)
        yield _Batch(child, 1, h, checked=True,
                     parents=keys.take(par) if self.recording else None)

    # -- the main loop
    def run(self) -> Solution:
        lay = self.layout
        pos = self.position
        start_key = lay.pack(dict(pos.robots), UNMOVED)
        start_cells = [np.array([c], np.intp) for c in lay.cells_of(start_key)]
        h0 = int(self.estimate(start_cells)[0])
        board = self.board
        assert pos.target is not None
        goal = pos.target
        where = board.name(self.target)
        # "the blue triangle at j4", or the cell alone for a target given by its cell
        label = f"{goal.label(board)} at {where}" if goal.color and goal.shape else where
        one = self.claimers[0] if len(self.claimers) == 1 else None
        if board.diagonal_at(self.target) is not None and self.rules.barrier_stop == "illegal":
            return Solution("no_solution", None, None, 0,
                            f"{label} is on a diagonal barrier, where no robot may stop under "
                            "these rules")
        if h0 >= UNREACHABLE:
            return Solution("no_solution", None, None, 0,
                            f"{one or 'no robot'} can never reach {label}: walls cut it off "
                            f"from every cell {'it' if one else 'a robot'} can get to")
        if lay.active is not None and not (
                self._alone_path(start_key, h0) is not None if self.fast
                else self._descends_one(start_key)):
            h0 += 1
        if self.max_cost is not None and h0 > self.max_cost:
            return Solution("no_solution", None, None, h0,
                            f"no route within {self.max_cost} moves: {one or 'any robot'} "
                            f"needs at least {h0} to reach {label}")
        use_dense = lay.dense_bits <= DENSE_MAX_BITS and not lay.reversal and \
            lay.dense_bits // 8 < self.memory_given // 2
        self.closed = _Closed(lay, use_dense)
        open_: dict[tuple[int, int], list[np.ndarray]] = {
            (h0, 0): [np.array([start_key], np.uint64)]}
        sizes: dict[tuple[int, int], int] = {(h0, 0): 8}
        self.open_bytes = 8
        best: tuple[int, int, int, int] | None = None  # a goal: (cost, key, parent, its cost)
        f = h0
        while open_:
            f = min(k[0] for k in open_)
            if best is not None and best[0] <= f:
                break
            if self.known is not None and self.known[1] <= f:
                return Solution("solved", self.known[0], self.known[1], self.known[1], None,
                                self.expanded)
            if self.max_cost is not None and f > self.max_cost:
                break
            g = max(k[1] for k in open_ if k[0] == f)
            arrays = open_.pop((f, g))
            self.open_bytes -= sizes.pop((f, g))
            piecewise = self.closed.dense is not None and not lay.reversal and \
                sum(a.size for a in arrays) > 4 * self.chunk
            if piecewise:
                # a big bucket goes a slice at a time, each sorted on its own: a key met
                # again in a later slice is found expanded by then, and the bucket is never
                # held twice over while it is joined
                keys = _take_slice(arrays, self.chunk)
            else:
                # sorted in place only when it is a new array: the trail may hold the others
                keys = _sorted_unique(_concat_consuming(arrays) if len(arrays) > 1
                                      else arrays[0], inplace=len(arrays) > 1)
                arrays = []
            groups = [(keys, f - g)]
            if self.fast and SCALAR_CHUNK < keys.size < SMALL_CHUNK and \
                    self.closed.dense is None and not (self.lenient and g == 0):
                # a bucket of a few hundred positions: those that carry the bare estimate
                # are only looked ahead from (they end the search or wait a level: none is
                # expanded here), and only the rest make their moves, whose children are
                # tested against the expanded positions when their bucket is taken
                stop = self._should_stop()
                if stop:
                    return self._stopped(stop, f, best)
                keys = keys.take(_nz(~self.closed.contains(keys)))
                if keys.size == 0:
                    continue
                groups = self._lookahead(keys, g, f, open_, sizes)
                best = self._take_goal(best)
                if best is not None and best[0] <= f:
                    continue
                rem = f - g - 1  # children in this level that carry the bare estimate
                ahead: list[np.ndarray] = []  # ... to look ahead from now
                for keys, hr in groups:
                    for b in self._fast_successors(keys, g, check=False):
                        if self.recording and b.parents is not None:
                            self._record(b, g)
                        if isinstance(b.h, int):  # the helpers' moves: the parent's estimate
                            if hr == rem and rem > 0:
                                ahead.append(b.keys)
                                continue
                            self._push(open_, sizes, b.keys, g + 1, hr, b.checked)
                            continue
                        h = np.maximum(b.h, hr) if self._inherits(g, f, hr) else b.h
                        if rem > 0:
                            bare = _nz((b.h == rem) & (h == rem))
                            if bare.size:
                                ahead.append(b.keys.take(bare))
                                rest = _nz((b.h != rem) | (h != rem))
                                b.keys, h = b.keys.take(rest), h.take(rest)
                        self._push(open_, sizes, b.keys, g + 1, h, b.checked)
                    self.closed.add(keys, g)
                    self.expanded += keys.size
                if ahead:
                    self._look_now(ahead, g + 1, f, open_, sizes)
                best = self._take_goal(best)
                self._check_memory(f)
                continue
            # big buckets a slice at a time: the look-ahead's and the visited test's arrays
            # stay the size of a slice, not of the bucket (copies of one position reached by
            # different last moves must meet: those buckets go whole)
            whole = lay.reversal or (self.lenient and g == 0) or keys.size <= 4 * self.chunk
            parts = [keys] if whole else np.array_split(keys, -(-keys.size // self.chunk))
            parts.reverse()
            del keys
            while parts or arrays:
                part = parts.pop() if parts else _take_slice(arrays, self.chunk)
                groups = [(part, f - g)]
                if lay.active is not None:
                    groups = self._lookahead(part, g, f, open_, sizes)
                    best = self._take_goal(best)
                    stop = self._should_stop() if part.size > self.chunk else None
                    if stop:
                        return self._stopped(stop, f, best)
                for keys, hr in groups:
                    if best is not None and best[0] <= f:
                        break
                    only = None
                    if self.lenient and g == 0:
                        # the start, left open: under lenient must-ricochet the same robots after a
                        # move are another position (from there the straight slide counts)
                        only = np.zeros(keys.size, np.intp) if lay.reversal else None
                    elif lay.reversal:
                        keys, only = self._reversal_copies(keys, g)
                    else:
                        keys = self.closed.add_new(keys, g)
                    inherits = self._inherits(g, f, hr)
                    for lo in range(0, keys.size, self.chunk):
                        stop = self._should_stop()
                        if stop:
                            return self._stopped(stop, f, best)
                        chunk = keys[lo:lo + self.chunk]
                        self.expanded += chunk.size
                        for b in self._expand(chunk, g, hr,
                                              None if only is None else only[lo:lo + self.chunk]):
                            gc = g + b.cost if isinstance(b.cost, int) else g + b.cost
                            h = hr if isinstance(b.h, int) and b.h < 0 else b.h
                            if inherits and not isinstance(h, int):
                                h = np.maximum(h, hr)
                            if self.recording and b.parents is not None:
                                self._record(b, g)
                            self._push(open_, sizes, b.keys, gc, h, b.checked)
                        best = self._take_goal(best)
                        self._check_memory(f)
                        if best is not None and best[0] <= f:
                            break
                if best is not None and best[0] <= f:
                    break
        if best is None:
            if self.max_cost is not None and (open_ or self.pruned):
                return Solution("no_solution", None, None, self.max_cost + 1,
                                f"no route within {self.max_cost} moves", self.expanded)
            return Solution("no_solution", None, None, f,
                            f"{one + ' cannot' if one else 'no robot can'} reach {label} "
                            "whatever the robots do", self.expanded)
        if self.max_cost is not None and best[0] > self.max_cost:
            return Solution("no_solution", None, None, self.max_cost + 1,
                            f"no route within {self.max_cost} moves", self.expanded)
        moves = self._route(best, start_key)
        return Solution("solved", tuple(moves), best[0], best[0], None, self.expanded)

    def _take_goal(self, best: tuple[int, int, int, int] | None
                   ) -> tuple[int, int, int, int] | None:
        """The cheapest goal so far, with those the last batch reached."""
        if self.goals:
            found = min(self.goals)
            self.goals.clear()
            if best is None or found[0] < best[0]:
                return found
        return best

    def _check_memory(self, f: int) -> None:
        if self.recording and (self.trail_size > TRAIL_MAX or self.closed.dense is not None):
            self.recording = False  # big searches read the route back by search
        if self.trail and self.closed.dense is not None:
            # the bitsets' keys by cost cover every expanded position: the route is read
            # back from them alone
            self.trail.clear()
            self.trail_size = 0
        used = self.open_bytes + self.closed.nbytes + 16 * self.trail_size
        if self.firsts is not None:
            used += self.firsts.nbytes
        if used > min(self.memory_given, CAP_AFTER) and used > self._memory_limit():
            raise SearchMemoryError(
                f"the search would need more than {self._memory_limit() >> 20} MiB "
                f"(proved at least {f} moves after {self.expanded} positions)")

    def _memory_limit(self) -> int:
        """The cap, and no more than the share of the memory free now
        (:func:`~companion.memcap.memory_cap`), read once the search holds :data:`CAP_AFTER`:
        reading ``/proc/meminfo`` costs a tenth of a millisecond, a good part of a short
        search. The bitsets are allowed only if they fit in half of it (long before a search
        needs them, it has read the cap)."""
        if self.memory_cap is None:
            self.memory_cap = memory_cap(self.memory_given)
            if self.layout.dense_bits // 8 >= self.memory_cap // 2:
                self.closed.allow_dense = False
        return self.memory_cap

    def _record(self, b: _Batch, g: int) -> None:
        assert b.parents is not None
        if b.keys.size:
            self.trail.setdefault(g, []).append((b.keys, b.parents, b.cost))
            self.trail_size += b.keys.size

    def _reversal_copies(self, keys: np.ndarray,
                         g: int) -> tuple[np.ndarray, np.ndarray]:
        """Immediate reversal forbidden: the same robots (and ricochet progress) reached by
        different last moves are different positions, but never worth expanding more than
        twice. The first copy makes every move but the one its last move forbids; a later one
        (never cheaper) needs only that one move, as the first made all its others at no
        greater cost; after that, every move has been made. Of sorted keys expanded at cost
        ``g``: those to expand, now marked, and for each the one move it is left to make (0:
        all its moves)."""
        lay = self.layout
        keys = keys.take(_nz(~self.closed.contains(keys)))
        n = keys.size
        if n == 0:
            return keys, np.zeros(0, np.intp)
        last_bits = np.uint64(31) << lay.last_shift
        base = keys & ~last_bits
        last = ((keys >> lay.last_shift) & np.uint64(31)).astype(np.intp)
        known, first = self.firsts.lookup(base)
        # copies in this bucket: the rank of each among those of its robots, and the last
        # move of the first of them
        order = base.argsort(kind="stable")
        sorted_base = base.take(order)
        starts = np.ones(n, bool)
        np.not_equal(sorted_base[1:], sorted_base[:-1], out=starts[1:])
        lead = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
        rank = np.empty(n, np.intp)
        rank[order] = np.arange(n) - lead
        lead_last = np.empty(n, np.intp)
        lead_last[order] = last.take(order).take(lead)
        only = np.where(known, first, lead_last).astype(np.intp)
        full = ~known & (rank == 0)
        part = (known & (first > 0) & (rank == 0)) | (~known & (rank == 1))
        only[full] = 0
        keep = _nz(full | part)
        keys, only = keys.take(keep), only.take(keep)
        self.closed.add(keys, g)
        # the robots seen for the first time: their first copy's last move, or 0 when a
        # second copy is expanded here too; those seen before are done with
        done_now = np.zeros(n, bool)
        done_now[order] = np.concatenate((~starts[1:], [False]))  # a second copy follows
        new = _nz(full)
        self.firsts.add(base.take(new), np.where(done_now.take(new), 0,
                                                 last.take(new)).astype(np.uint8))
        self.firsts.update(base.take(_nz(known & part)), 0)
        return keys, only

    def _lookahead(self, keys: np.ndarray, g: int, f: int, open_: dict,
                   sizes: dict) -> list[tuple[np.ndarray, int]]:
        """Split a bucket's positions by the estimate they carry: those pushed with the bare
        estimate whose active robot cannot get closer on its own move (on the fast path: all
        the way to the target alone, :meth:`_alone`) to the next level, unexpanded (see
        :meth:`descends`); the rest are expanded, in groups of one estimate (the helpers'
        moves leave it as it is). One that reaches the target alone is the search's goal."""
        s = self.layout.active
        assert s is not None
        if keys.size <= SCALAR_CHUNK:
            shift, dist = 8 * s, self.active_dist
            fresh_l: list[int] = []
            raised_l: list[int] = []
            later_l: list[int] = []
            for k in keys.tolist():
                if dist[(k >> shift) & 255] != f - g:
                    raised_l.append(k)
                elif self._alone_path(k, f - g) is not None if self.fast else \
                        self._descends_one(k):
                    fresh_l.append(k)
                else:
                    later_l.append(k)
            if self.fast and fresh_l:
                self._finish_alone(fresh_l[0], g, f)
            if later_l:
                self._append(open_, sizes, (f + 1, g), np.array(later_l, np.uint64))
            return [(np.array(x, np.uint64), hr) for x, hr in
                    ((fresh_l, f - g), (raised_l, f - g - 1)) if x]
        act = (keys >> np.uint64(8 * s)) & _U8
        bare = self.dist[s].take(act) == f - g
        fresh = _nz(bare)
        raised = _nz(~bare)  # moved up a level before: no need to look again
        if fresh.size:
            parts = []
            for lo in range(0, fresh.size, self.chunk):
                if lo and self._should_stop():
                    return []  # the caller sees the stop before expanding anything
                part = keys.take(fresh[lo:lo + self.chunk])
                parts.append(self._alone(part, f - g) if self.fast else self.descends(part))
                if self.fast and parts[-1].any():
                    self._finish_alone(int(part[_nz(parts[-1])[0]]), g, f)
                    if self.goals:  # a route of this level's cost: the search is over
                        return []
            ok = np.concatenate(parts)
            later = fresh.take(_nz(~ok))
            if later.size:
                self._append(open_, sizes, (f + 1, g), keys.take(later))
                fresh = fresh.take(_nz(ok))
        groups = []
        if fresh.size:
            groups.append((keys if fresh.size == keys.size else keys.take(fresh), f - g))
        if raised.size:
            groups.append((keys if raised.size == keys.size else keys.take(raised), f - g - 1))
        return groups

    def _look_now(self, ahead: list[np.ndarray], g: int, f: int, open_: dict,
                  sizes: dict) -> None:
        """Children at cost ``g`` in the level ``f`` being worked through, carrying the bare
        estimate: looked ahead from now, in the pass that made them, rather than when their
        bucket is taken (often a pass of its own, only to move them all a level up). Those
        that fail wait in the next level, their estimate raised; one that passes ends the
        search (a route of cost ``f``, the least any open position allows)."""
        # children met twice, or expanded already, are many (two in three): looked at once
        keys = _sorted_unique(np.concatenate(ahead), inplace=True)
        keys = keys.take(_nz(~self.closed.contains(keys)))
        if keys.size == 0:
            return
        ok = self._alone(keys, f - g)
        passed = _nz(ok)
        if passed.size:
            self._finish_alone(int(keys[passed[0]]), g, f)
            return
        self._append(open_, sizes, (f + 1, g), keys)

    def _inherits(self, g: int, f: int, hr: int) -> bool:
        """Do the active robot's moves from these positions (at cost ``g``, in the bucket of
        ``f``, estimate ``hr``) keep the raised estimate? On the fast path, positions whose
        estimate was raised failed the whole-route look-ahead, the others where they stand:
        the active robot's move one closer from one of them fails it too (with it, the
        parent would have passed), so that child goes with the estimate raised, in the
        parent's bucket of f, and not to the bucket below to fail its look-ahead there.
        Not from the start under lenient must-ricochet, where a straight slide does not
        count."""
        return self.fast and hr < f - g and not (self.lenient and g == 0)

    def _finish_alone(self, key: int, g: int, f: int) -> None:
        """A position of the bucket at cost ``g`` from which the active robot finishes alone
        in ``f - g`` moves: a route of cost ``f``, the least any open position allows, so the
        search is over (its parent -1 marks the goal for :meth:`_route`). Not at the start
        under lenient must-ricochet, where a straight slide there does not count."""
        if not (self.lenient and g == 0):
            self.goals.append((f, key, -1, g))

    def _push(self, open_: dict, sizes: dict, keys: np.ndarray, gc: Any, h: Any,
              checked: bool = False) -> None:
        if keys.size == 0:
            return
        if not checked:
            fresh = _nz(~self.closed.contains(keys))
            if fresh.size == 0:
                return
            keys = keys.take(fresh)
            if not isinstance(gc, int):
                gc = gc.take(fresh)
            if not isinstance(h, int):
                h = h.take(fresh)
        fc = gc + h
        if isinstance(fc, int) or isinstance(gc, int) and _all_equal(fc):
            fv = fc if isinstance(fc, int) else int(fc[0])
            assert isinstance(gc, int)
            self._append(open_, sizes, (fv, gc), keys)
            return
        if isinstance(gc, int) and fc.size <= 64:
            where: dict[int, list[int]] = {}
            for i, fv in enumerate(fc.tolist()):
                where.setdefault(fv, []).append(i)
            for fv, idx in where.items():
                self._append(open_, sizes, (fv, gc), keys.take(idx))
            return
        code = fc + gc * 4096
        lo = int(code.min())
        counts = np.bincount(code - lo)
        for v in _nz(counts):
            idx = _nz(code == lo + v)
            c = int(lo + v)
            self._append(open_, sizes, (c % 4096, c // 4096), keys.take(idx))

    def _append(self, open_: dict, sizes: dict, key: tuple[int, int], keys: np.ndarray) -> None:
        if self.max_cost is not None and key[0] > self.max_cost:
            self.pruned = True
            return
        if self.narrow and keys.dtype != np.uint32 and keys.size > 4096 and \
                int(keys.max()) <= 0xFFFFFFFF:
            keys = keys.astype(np.uint32)  # four robots without ricochet bits: half the memory
        lst = open_.setdefault(key, [])
        lst.append(keys)
        sizes[key] = sizes.get(key, 0) + keys.nbytes  # bytes held by each bucket
        self.open_bytes += keys.nbytes
        if len(lst) > 64 and sizes[key] > 1 << 25:  # drop repeats before they pile up
            merged = _sorted_unique(np.concatenate(lst), inplace=True)
            open_[key] = [merged]
            self.open_bytes += merged.nbytes - sizes[key]
            sizes[key] = merged.nbytes

    def _should_stop(self) -> str | None:
        if self.cancel is not None and self.cancel.is_set():
            return "cancelled"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "deadline"
        return None

    def _stopped(self, why: str, f: int, best: tuple[int, int, int, int] | None) -> Solution:
        moves = cost = None
        if best is not None:
            cost = best[0]
            moves = tuple(self._route(best, self.layout.pack(dict(self.position.robots),
                                                             UNMOVED)))
        if self.known is not None and (cost is None or self.known[1] < cost):
            moves, cost = self.known
        text = "stopped at the deadline" if why == "deadline" else "cancelled"
        return Solution(why, moves, cost, f,
                        f"{text} after proving that no route is shorter than {f} moves",
                        self.expanded)

    # -- reading the route back
    def _route(self, goal: tuple[int, int, int, int], start_key: int) -> list[Move]:
        """Walk back from the goal. Each position's parent comes from the trail of moves
        recorded while the search was small; past that, a predecessor is any expanded position
        one move before it (at its cost) from which that move lands here, found by
        :meth:`_step_back`."""
        cost, key, parent, pg = goal
        # (slot, from cell, option, to cell), last move first
        if parent < 0:  # the active robot finishes alone from key (:meth:`_finish_alone`)
            tail = self._alone_path(key, cost - pg)
            assert tail is not None
            steps = tail[::-1]
            g = pg
        else:
            steps = [self._move_between(parent, key, cost - pg)]
            key, g = parent, pg
        while g > 0:
            found = self._trail_parent(key, g)
            if found is not None:
                pk, pg = found
                steps.append(self._move_between(pk, key, g - pg))
            else:
                back = self._step_back(key, g, start_key)
                if back is None:  # pragma: no cover - would be a bug in the search
                    raise AssertionError("solver: lost the route while reading it back")
                pk, pg, slot, cell, option = back
                steps.append((slot, cell, option, self.layout.cells_of(key)[slot]))
            key, g = pk, pg
        # replay on the real robots: the robot standing on the move's start cell moves
        at = {c: r for r, c in self.position.robots.items()}
        moves: list[Move] = []
        for slot, cell, option, to in reversed(steps):
            name = at.pop(cell)
            at[to] = name
            opt = self.tables[slot].options[cell][option]
            assert opt is not None
            moves.append(Move(name, opt.direction, opt.passes))
        return moves

    def _trail_parent(self, key: int, g: int) -> tuple[int, int] | None:
        """A recorded parent of ``key`` reached at cost ``g``, and the parent's cost."""
        for pg in range(g - 1, -1, -1):
            for children, parents, cost in self.trail.get(pg, ()):
                for i in _nz(children == key).tolist():
                    if (cost if isinstance(cost, int) else int(cost[i])) == g - pg:
                        return int(parents[i]), pg
            if self.uniform:
                break
        return None

    def _move_between(self, parent: int, child: int, cost: int) -> tuple[int, int, int, int]:
        """The move (slot, from cell, option, to cell) that turns position ``parent`` into
        ``child`` at this cost."""
        lay = self.layout
        before, after = lay.cells_of(parent), lay.cells_of(child)
        p = (set(before) - set(after)).pop()
        c = (set(after) - set(before)).pop()
        r = before.index(p)
        py = self.tables[r].py
        others = [q for s_, q in enumerate(before) if s_ != r]
        flag_before, flag_after = lay.flag_of(parent), lay.flag_of(child)
        last_before, last_after = lay.last_of(parent), lay.last_of(child)
        b = p << 8
        for o, (hit, nat, end) in enumerate(zip(py.hit, py.nat, py.end, strict=True)):
            m = min([hit[b | q] for q in others], default=NEVER)
            code = end[b | min(m - 1, nat[p])]
            if not code & OK_BIT or code & 255 != c or py.cost[o][p] != cost:
                continue
            if lay.reversal and (_forbids(last_before, r, py.direction[o][p]) or last_after
                                 != _last_move(after.index(c), final_direction(code))):
                continue
            if flag_before in self._parent_flags(r, o, p, code, flag_after):
                return r, p, o, c
        raise AssertionError("solver: a recorded move is not a move")  # pragma: no cover

    def _step_back(self, key: int, g: int,
                   start_key: int) -> tuple[int, int, int, int, int] | None:
        lay = self.layout
        cells = lay.cells_of(key)
        flag = lay.flag_of(key)
        last = lay.last_of(key)
        # the active robot first (it moves most), and each robot's candidates checked before
        # the next robot's are listed: usually only one or two robots need listing
        order = sorted(range(len(cells)), key=lambda s_: s_ != lay.active)
        for r in order:
            c = cells[r]
            cands: list[tuple[int, int, int, int, int]] = []  # (key, cost, slot, cell, opt)
            py = self.tables[r].py
            others = [q for s, q in enumerate(cells) if s != r]
            grp = lay.groups[lay.group_of[r]]
            same = [cells[s] for s in grp if s != r]  # the rest of its group, kept sorted
            rest_key = 0
            for s, q in enumerate(cells):
                if s not in grp:
                    rest_key |= q << (8 * s)
            for o, (hit, nat, end) in enumerate(zip(py.hit, py.nat, py.end, strict=True)):
                for p in py.into(o, c):
                    if p in others:
                        continue
                    b = p << 8
                    m = min([hit[b | q] for q in others], default=NEVER)
                    code = end[b | min(m - 1, nat[p])]
                    if not code & OK_BIT or code & 255 != c:
                        continue
                    pg = g - py.cost[o][p]
                    if pg < 0:
                        continue
                    vals = sorted([p, *same])
                    pos_key = rest_key
                    for s_, v in zip(grp, vals, strict=True):
                        pos_key |= v << (8 * s_)
                    lasts = [0]
                    if lay.reversal:
                        if last != _last_move(r, final_direction(code)):
                            continue
                        mover = grp[vals.index(p)]  # its slot before the move
                        lasts = [0] if pg == 0 else [
                            x for x in range(1, 4 * lay.n_robots + 1)
                            if not _forbids(x, mover, py.direction[o][p])]
                    for pf in self._parent_flags(r, o, p, code, flag):
                        for x in lasts:
                            cands.append((pos_key | (pf << (8 * lay.n_robots))
                                          | (x << int(lay.last_shift)), pg, r, p, o))
            for cand in cands:
                if cand[1] == 0 and cand[0] == start_key:
                    return cand
            for pg in sorted({cand[1] for cand in cands if cand[1] > 0}):
                group = [cand for cand in cands if cand[1] == pg]
                hit_at = self.closed.contains_at(np.array([x[0] for x in group], np.uint64), pg)
                for cand, ok in zip(group, hit_at.tolist(), strict=True):
                    if ok:
                        return cand
        return None

    def _parent_flags(self, r: int, o: int, p: int, code: int, flag: int) -> list[int]:
        """The ricochet progress a position may have had before this move, given the one after
        it (only the active robot's own moves change it)."""
        lay = self.layout
        if not lay.strict:
            return [0]
        if r != lay.active:
            return [flag]
        axis0 = self.tables[r].py.axis[o][p]
        moved = ((code >> 8) & _TURN_BITS) | axis0
        return [before for before in (DONE, UNMOVED, LAST_VERTICAL, LAST_HORIZONTAL)
                if _FLAG_NEXT_LIST[(before << 3) | moved] == flag]


def _insert_sorted(rest: list[np.ndarray], v: np.ndarray) -> list[np.ndarray]:
    """Columns ``rest`` are sorted across (rest[0] <= rest[1] <= ...); put ``v`` in its
    place: the sorted columns of all of them."""
    if not rest:
        return [v]
    out = [np.minimum(rest[0], v)]
    for i in range(1, len(rest)):
        out.append(np.maximum(rest[i - 1], np.minimum(rest[i], v)))
    out.append(np.maximum(rest[-1], v))
    return out


def _nz(mask: np.ndarray) -> np.ndarray:
    """Indices where ``mask`` is true, flattened: ``np.flatnonzero`` without its Python-level
    wrapper, which costs ten times the work on the small arrays of small searches."""
    return mask.ravel().nonzero()[0]


def _all_equal(a: np.ndarray) -> bool:
    return a.size == 0 or bool((a == a[0]).all())


def _sorted_unique(keys: np.ndarray, inplace: bool = False) -> np.ndarray:
    """Sort and drop repeats (sort + neighbour compare: far faster than ``np.unique`` here).
    ``inplace``: the caller's array may be sorted where it is."""
    if keys.size <= 1:
        return keys
    if RADIX_MIN <= keys.size <= RADIX_MAX:
        keys = _radix_sorted(keys)
    elif inplace:
        keys.sort()
    else:
        keys = np.sort(keys)
    keep = np.empty(keys.size, bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]  # a mask: no index array as big as the keys


def _radix_sorted(keys: np.ndarray) -> np.ndarray:
    """``np.sort(keys)`` for unsigned keys, 16 bits at a time: numpy sorts 16-bit keys by
    radix (``kind="stable"``), so a few such passes beat its comparison sort of slice-sized
    arrays of wider keys (half the time for 16,384 keys of 34 bits)."""
    bits = int(keys.max()).bit_length()
    shift = 0
    while True:
        digit = keys if shift == 0 else keys >> keys.dtype.type(shift)
        keys = keys.take(np.argsort(digit.astype(np.uint16), kind="stable"))
        shift += 16
        if shift >= bits:
            return keys


def _take_slice(arrays: list[np.ndarray], size: int) -> np.ndarray:
    """Sorted, distinct keys of about ``size`` taken off the end of ``arrays``."""
    taken = [arrays.pop()]
    total = taken[0].size
    while arrays and total + arrays[-1].size <= 2 * size and total < size:
        total += arrays[-1].size
        taken.append(arrays.pop())
    return _sorted_unique(_concat_consuming(taken), inplace=True) if len(taken) > 1 \
        else _sorted_unique(taken[0])


def _concat_consuming(arrays: list[np.ndarray]) -> np.ndarray:
    """``np.concatenate(arrays)``, letting go of each piece once copied (``arrays`` is left
    empty): a big bucket is held once, not twice, while it is joined."""
    out = np.empty(sum(a.size for a in arrays), np.result_type(*arrays))
    at = 0
    arrays.reverse()
    while arrays:
        a = arrays.pop()
        out[at:at + a.size] = a
        at += a.size
        del a
    return out
