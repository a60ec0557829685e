"""Graded hints: a little more of one optimal route at each level, never a contradiction.

1. the optimal length ("it can be done in 7 moves"),
2. which robots move,
3. the first move,
4. the whole route.

Every level is read off one and the same optimal route (:func:`companion.solver.solve`), so
the robots of level 2 are exactly those of the route of level 4, which starts with the move of
level 3, and has the length of level 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Move, Position
from .solver import Solution, SolverError, solve

LEVELS = {1: "length", 2: "robots", 3: "first move", 4: "route"}


@dataclass(frozen=True)
class Hint:
    level: int
    text: str
    length: int
    cost: int
    robots: tuple[str, ...] | None = None  # level 2 and up: in the order they first move
    first: Move | None = None  # level 3 and up
    route: tuple[Move, ...] | None = None  # level 4

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "kind": LEVELS[self.level],
            "text": self.text,
            "length": self.length,
            "cost": self.cost,
            "robots": None if self.robots is None else list(self.robots),
            "first": None if self.first is None else self.first.to_json(),
            "route": None if self.route is None else [m.to_json() for m in self.route],
        }


def check_level(level: Any) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise SolverError(f"level: a hint level from 1 to {len(LEVELS)}, not {level!r}")
    return level


def hints(position: Position | None, level: int = 4, solution: Solution | None = None,
          **solve_options: Any) -> list[Hint]:
    """The hints of levels 1 to ``level`` of one optimal route (``solution``, or solved
    here). Raises :class:`SolverError` when there is nothing to hint at: no route, or the
    search stopped (``solve_options`` go to :func:`~companion.solver.solve`)."""
    check_level(level)
    if solution is None:
        if position is None:
            raise SolverError("position: nothing to hint at")
        solution = solve(position, **solve_options)
    sol = solution
    if not sol.solved:
        raise SolverError(sol.reason or f"no hint: the search ended with {sol.status}")
    assert sol.moves is not None and sol.cost is not None
    moves = sol.moves
    n, cost = len(moves), sol.cost
    robots = tuple(dict.fromkeys(m.robot for m in moves))
    plural = "" if n == 1 else "s"
    extra = "" if cost == n else f" (cost {cost}: the transparent robot passes)"
    out = [Hint(1, f"It can be done in {n} move{plural}{extra}.", n, cost)]
    if level >= 2:
        who = f"only {robots[0]} moves" if len(robots) == 1 else \
            ", ".join(robots[:-1]) + f" and {robots[-1]} move"
        out.append(Hint(2, f"In one optimal route {who}.", n, cost, robots))
    if level >= 3:
        out.append(Hint(3, f"The first move: {moves[0].text()}.", n, cost, robots, moves[0]))
    if level >= 4:
        out.append(Hint(4, "The route: " + ", ".join(m.text() for m in moves) + ".", n, cost,
                        robots, moves[0], moves))
    return out


def hints_for_route(moves: list[Move], level: int = 4) -> list[Hint]:
    """The hints of levels 1 to ``level`` of a route already known to be optimal (the table's
    solver found it for the round in play)."""
    cost = sum(1 + sum(1 for p in m.passes if p != "bounce") for m in moves)
    return hints(None, level, Solution("solved", tuple(moves), cost, cost))
