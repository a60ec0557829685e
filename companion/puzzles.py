"""Practice puzzles: positions dealt on the real tiles whose optimal length is exactly N.

:func:`deal` draws boards (one side of each of the four boards, from the sides the edition
ships, so diagonals come with the D sides), robots and a printed target from a seeded random
generator, and keeps the first position the solver proves to need exactly ``moves`` moves. The
search is bounded by ``moves`` (never by a clock), so the same seed deals the same puzzle on
every machine: :func:`daily` seeds it with the date, for a puzzle of the day that is the same
for everyone. The dealt position is read back from its own file and solved again before it is
handed out.
"""

from __future__ import annotations

import datetime as _dt
import random
import time
from dataclasses import dataclass
from typing import Any

from .board import Board
from .rules import Position, Rules
from .solver import Solution, SolverError, solve

MAX_MOVES = 14  # longer optimal routes are too rare to deal in reasonable time
DAILY_MOVES = 6


class PuzzleError(SolverError):
    """No puzzle could be dealt (bad request, or none found in the time allowed)."""


@dataclass(frozen=True)
class Puzzle:
    position: Position
    moves: int
    seed: str
    solution: Solution
    tries: int

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "seed": self.seed, "tries": self.tries,
                "position": self.position.to_dict(),
                "solution": [m.to_json() for m in self.solution.moves or ()]}


def _position(rng: random.Random, rules: Rules, fifth: bool) -> Position:
    sides = rules.tile_sides
    order = rng.sample([1, 2, 3, 4], 4)
    tiles = [f"{n}{rng.choice(sides)}" for n in order]
    board = Board.from_tiles(tiles)
    names = ["red", "green", "blue", "yellow"]
    if fifth and rules.fifth_robot != "none":
        names.append(rules.fifth_robot)
    taken = {t.cell for t in board.targets} | {d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in board.blocked and c not in taken]
    cells = rng.sample(free, len(names))
    goal = rng.choice([t for t in board.targets if not t.is_vortex])
    return Position.from_dict({
        "board": {"tiles": tiles},
        "robots": {n: board.name(c) for n, c in zip(names, cells, strict=True)},
        "target": {"color": goal.color, "shape": goal.shape},
        "rules": rules.to_spec(),
    })


def deal(moves: int, rules: Rules | None = None, seed: str | int | None = None, *,
         fifth: bool = False, seconds: float | None = 60.0) -> Puzzle:
    """A position whose optimal route is exactly ``moves`` moves (see the module docstring).
    ``seconds`` bounds the dealing, not any one search; None: no bound (the daily puzzle)."""
    if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= MAX_MOVES:
        raise PuzzleError(f"moves: a number of moves from 1 to {MAX_MOVES}, not {moves!r}")
    rules = rules or Rules()
    if rules.transparent_robot:
        raise PuzzleError("rules: puzzles are dealt without the transparent robot")
    seed = f"{random.getrandbits(48):012x}" if seed is None else str(seed)
    rng = random.Random(f"puzzle/{seed}/{moves}/{rules.to_spec()}/{fifth}")
    stop = None if seconds is None else time.monotonic() + seconds
    tries = 0
    while stop is None or time.monotonic() < stop:
        tries += 1
        pos = _position(rng, rules, fifth)
        sol = solve(pos, max_cost=moves)
        if not (sol.solved and sol.length == moves and sol.cost == moves):
            continue
        again = Position.from_json(pos.to_json())  # the file as handed out, solved again
        check = solve(again)
        if not (check.solved and check.cost == moves):  # pragma: no cover - a solver bug
            raise AssertionError(f"puzzle: re-checked at {check.cost}, dealt at {moves}")
        return Puzzle(again, moves, seed, check, tries)
    raise PuzzleError(f"no puzzle of {moves} moves found in {seconds:g} s ({tries} tries); "
                      "allow more time or ask for fewer moves")


def daily(date: _dt.date | None = None, moves: int = DAILY_MOVES,
          rules: Rules | None = None) -> Puzzle:
    """The puzzle of the day: the same for everyone on that date (and moves and rules)."""
    date = date or _dt.date.today()
    return deal(moves, rules, f"daily-{date.isoformat()}", seconds=None)
