"""Every optimal route of a position, told apart as a player sees them.

Two routes are **the same route** when one becomes the other by swapping neighbouring moves of
two different robots that *commute*: each of the two moves ends on the same cell in either
order (so every stop of the route is the same, only the order of two independent moves
differs). Swaps may be repeated: a route is its whole class of such reorderings. Routes that
differ in any stop, or in which robot moves where, are different routes.

:func:`optimal_routes` finds the optimal cost with :func:`companion.solver.solve`, then lists
every move sequence of that cost that claims the target (a depth-first search over the
solver's move tables, cut by the solver's estimate and remembering which positions lead
nowhere), groups the sequences into routes and gives one of each, the one with the fewest
changes of robot. Past ``max_sequences`` move sequences it stops and says so: the count is then
a lower bound.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .board import Direction
from .rules import Move, Position
from .solver import Solution, SolverError, solve
from .solver_tables import (
    DEFLECTED_BIT,
    OK_BIT,
    distance_to,
    final_direction,
    kind_tables,
    robot_kind,
)

MAX_SEQUENCES = 20_000  # move sequences listed before the count becomes a lower bound


@dataclass(frozen=True)
class Routes:
    """The distinct optimal routes: ``routes`` (up to ``limit`` of them, each the member of
    its class with the fewest changes of robot), ``count`` distinct routes and ``sequences``
    move orders in all; ``complete`` is False when the listing stopped (``count`` and
    ``sequences`` are then lower bounds), ``reason`` says why."""

    status: str  # solved | no_solution | deadline | cancelled (from the solver)
    cost: int | None
    routes: tuple[tuple[Move, ...], ...]
    count: int
    sequences: int
    complete: bool
    reason: str | None = None
    groups: tuple[tuple[tuple[Move, ...], ...], ...] = field(default=(), repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "cost": self.cost,
            "length": len(self.routes[0]) if self.routes else None,
            "count": self.count,
            "sequences": self.sequences,
            "complete": self.complete,
            "reason": self.reason,
            "routes": [[m.to_json() for m in r] for r in self.routes],
        }


class _Stop(Exception):
    pass


def optimal_routes(position: Position, *, limit: int = 20,
                   max_sequences: int = MAX_SEQUENCES, deadline: float | None = None,
                   max_cost: int | None = None, solution: Solution | None = None) -> Routes:
    """Every distinct optimal route of ``position`` (see the module docstring); ``solution``:
    its optimum, when already solved."""
    if limit < 1:
        raise SolverError(f"limit: at least one route, not {limit}")
    best = solution if solution is not None else \
        solve(position, deadline=deadline, max_cost=max_cost)
    if not best.solved:
        return Routes(best.status, None, (), 0, 0, True, best.reason)
    assert best.cost is not None and best.moves is not None
    try:
        seqs, complete = _sequences(position, best.cost, max_sequences, deadline)
    except _Stop:
        return Routes("solved", best.cost, (best.moves,), 1, 1, False,
                      "stopped at the deadline while listing the routes")
    if not seqs:  # pragma: no cover - the solver's route is always among them
        raise AssertionError("routes: the optimal route was not found again")
    groups = _classes(seqs)
    groups.sort(key=lambda g: (_switches(g[0]), [(m.robot, int(m.direction)) for m in g[0]]))
    reason = None if complete else (f"more than {max_sequences} move orders: the listing "
                                    "stopped, the counts are lower bounds")
    return Routes("solved", best.cost, tuple(g[0] for g in groups[:limit]), len(groups),
                  len(seqs), complete, reason, tuple(tuple(g) for g in groups))


def _switches(route: tuple[Move, ...]) -> int:
    return sum(1 for a, b in zip(route, route[1:], strict=False) if a.robot != b.robot)


def _moves_from(py: list[Any], tables: list[Any], state: tuple, no_reversal: bool
                ) -> list[tuple[int, int, int, int, int, int]]:
    """(robot, option, to cell, cost, start direction, end code) of each legal move from
    ``state`` (the robots' cells, their progress, the last move)."""
    cells, _, last = state
    out = []
    for i, s in enumerate(cells):
        p = py[i]
        b = s << 8
        qs = [b | q for j, q in enumerate(cells) if j != i]
        for o in range(len(p.hit)):
            if tables[i].options[s][o] is None:
                continue
            hit = p.hit[o]
            m = p.nat[o][s] + 1
            for q in qs:
                if hit[q] < m:
                    m = hit[q]
            code = p.end[o][b | (m - 1)]
            if not code & OK_BIT:
                continue
            d0 = p.direction[o][s]
            if no_reversal and last is not None and last[0] == i and \
                    d0 == (last[1] + 2) & 3:
                continue
            out.append((i, o, code & 255, p.cost[o][s], d0, code))
    return out


def _paths(edges: dict[tuple[Any, int], list[tuple[Any, Any, int, tuple[int, ...]]]],
           start: tuple, total: int, cap: int, names: list[str], tables: list[Any]
           ) -> tuple[dict[tuple[Move, ...], tuple[tuple[int, ...], ...]], bool]:
    """Every path through the recorded moves, up to the cap, with the robots after each move;
    and whether that was all of them."""
    out: dict[tuple[Move, ...], tuple[tuple[int, ...], ...]] = {}
    complete = True

    def paths(state: tuple, left: int, prefix: list[Move], where: list[tuple]) -> None:
        nonlocal complete
        for (i, at, o), child, rest, cells in edges[(state, left)]:
            if len(out) >= cap:
                complete = False
                return
            opt = tables[i].options[at][o]
            prefix.append(Move(names[i], Direction(int(opt.direction)), tuple(opt.passes)))
            where.append(cells)
            if child is None:
                out[tuple(prefix)] = tuple(where)
            else:
                paths(child, rest, prefix, where)
            prefix.pop()
            where.pop()

    paths(start, total, [], [])
    return out, complete


def _sequences(position: Position, total: int, cap: int, deadline: float | None
               ) -> tuple[dict[tuple[Move, ...], tuple[tuple[int, ...], ...]], bool]:
    """Every move sequence of cost ``total`` that claims the target (up to ``cap``), with
    where the robots stand after each of its moves."""
    board, rules, goal = position.board, position.rules, position.target
    assert goal is not None
    names = list(position.robots)
    kinds = [robot_kind(board, n) for n in names]
    tables = [kind_tables(board, rules, k) for k in kinds]
    py = [t.py for t in tables]
    claims = [goal.claims(n) for n in names]
    dists = [distance_to(board, rules, k, goal.cell).tolist() if c else None
             for k, c in zip(kinds, claims, strict=True)]
    strict = rules.ricochet == "strict"
    lenient = rules.ricochet == "lenient"
    no_reversal = rules.immediate_reversal == "forbidden"
    target = goal.cell

    def estimate(cells: tuple[int, ...]) -> int:
        return min(d[c] for d, c in zip(dists, cells, strict=True) if d is not None)

    # a state: (cells, progress of each robot (turned, last final direction) under strict,
    # the last move (robot, final direction) when reversal is forbidden)
    start = (tuple(position.robots[n] for n in names),
             tuple((False, -1) for _ in names) if strict else (), None)
    dead: set[tuple[Any, int]] = set()
    edges: dict[tuple[Any, int], list[tuple[Move, Any, int, tuple[int, ...]]]] = {}
    steps = [0]

    def walk(state: tuple, left: int) -> bool:
        """Can the target be claimed from ``state`` at exactly ``left`` more cost? Records
        the moves that lead there."""
        key = (state, left)
        if key in edges:
            return True
        if key in dead:
            return False
        steps[0] += 1
        if steps[0] & 1023 == 0 and deadline is not None and time.monotonic() > deadline:
            raise _Stop
        cells, prog, _ = state
        good: list[tuple[Any, Any, int, tuple[int, ...]]] = []
        for i, o, v, cost, d0, code in _moves_from(py, tables, state, no_reversal):
            if cost > left:
                continue
            new_prog = prog
            if strict and claims[i]:  # only a robot that may claim the target needs it
                turned, lastdir = prog[i]
                turned = turned or bool(code & DEFLECTED_BIT) or (
                    lastdir >= 0 and (lastdir & 1) != (d0 & 1))
                new_prog = prog[:i] + ((turned, int(final_direction(code))),) + prog[i + 1:]
            new_cells = cells[:i] + (v,) + cells[i + 1:]
            if claims[i] and v == target:
                ok = new_prog[i][0] if strict else (left < total if lenient else True)
                if ok:
                    if cost == left:
                        good.append(((i, cells[i], o), None, 0, new_cells))
                    continue  # a claim ends the route: going on would not be optimal
            rest = left - cost
            if rest == 0 or estimate(new_cells) > rest:
                continue
            child = (new_cells, new_prog, (i, int(final_direction(code))) if no_reversal
                     else None)
            if walk(child, rest):
                good.append(((i, cells[i], o), child, rest, new_cells))
        if good:
            edges[key] = good
            return True
        dead.add(key)
        return False

    if not walk(start, total):
        return {}, True
    return _paths(edges, start, total, cap, names, tables)


def _classes(seqs: dict[tuple[Move, ...], tuple[tuple[int, ...], ...]]
             ) -> list[list[tuple[Move, ...]]]:
    """Group the sequences into routes: a swap of neighbouring moves of two robots that end
    on the same cells either way (the robots stand alike after both) joins two sequences."""
    order = list(seqs)
    index = {s: i for i, s in enumerate(order)}
    parent = list(range(len(order)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, seq in enumerate(order):
        for k in range(len(seq) - 1):
            a, b = seq[k], seq[k + 1]
            if a.robot == b.robot:
                continue
            swapped = seq[:k] + (b, a) + seq[k + 2:]
            j = index.get(swapped)
            if j is not None and seqs[seq][k + 1] == seqs[swapped][k + 1]:
                parent[find(i)] = find(j)
    groups: dict[int, list[tuple[Move, ...]]] = {}
    for i, seq in enumerate(order):
        groups.setdefault(find(i), []).append(seq)
    for g in groups.values():
        g.sort(key=lambda r: (_switches(r), [(m.robot, int(m.direction)) for m in r]))
    return list(groups.values())
