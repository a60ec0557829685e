"""The solver on its own thread: the table loop never waits for an answer.

When a round begins the loop hands the round's position to :class:`Solving`; the search runs
on a thread of its own (cancelled when the round ends or another begins) and its answer, with
every optimal route it can list in a few seconds, comes back to the loop through ``deliver``
as a job like any other, so the referee hears it on the loop's thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .rules import Position

ROUTES_SHOWN = 10
ROUTES_SECONDS = 5.0

# (round, position, result, error, routes): what the loop is handed when an answer is found
Answer = tuple[int, Position, Any, str | None, dict[str, Any] | None]


def all_routes(pos: Position, result: Any, deadline: float) -> dict[str, Any] | None:
    """Every distinct optimal route of a solved round, for the round's end (a few seconds at
    most: past that the counts are lower bounds); None when there was no route."""
    if getattr(result, "status", None) != "solved" or not getattr(result, "moves", None):
        return None
    from .routes import optimal_routes

    try:
        found = optimal_routes(pos, limit=ROUTES_SHOWN, solution=result,
                               deadline=min(deadline, time.monotonic() + ROUTES_SECONDS))
    except Exception:  # noqa: BLE001 - the one route already found is shown anyway
        return None
    if found.status != "solved":
        return None
    return {"count": found.count, "complete": found.complete,
            "routes": [[m.text() for m in r] for r in found.routes]}


class Solving:
    """At most one search at a time, for one round. ``solve`` is
    :func:`companion.solver.solve` (None: no solver); ``seconds`` how long a search may take;
    ``deliver(answer)`` hands an :data:`Answer` to the loop (from the search's thread)."""

    def __init__(self, solve: Callable[..., Any] | None, seconds: float,
                 deliver: Callable[[Answer], None]) -> None:
        self.solve = solve
        self.seconds = seconds
        self._deliver = deliver
        self._current: tuple[int, threading.Event] | None = None

    @property
    def busy(self) -> bool:
        """Is a search running?"""
        return self._current is not None

    @property
    def round(self) -> int | None:
        """The round being searched (None: none)."""
        return self._current[0] if self._current is not None else None

    def start(self, number: int, pos: Position) -> None:
        """Search round ``number``'s position, cancelling any search still running."""
        self.cancel()
        solve = self.solve
        if solve is None:
            return
        cancel = threading.Event()
        self._current = (number, cancel)
        deadline = time.monotonic() + self.seconds

        def work() -> None:
            try:
                result = solve(pos, deadline=deadline, cancel=cancel)
                err = None
            except Exception as e:  # noqa: BLE001 - reported on the page, play goes on
                result, err = None, str(e)
            routes = all_routes(pos, result, deadline) if err is None else None
            if not cancel.is_set():
                self._deliver((number, pos, result, err, routes))

        threading.Thread(target=work, name=f"solver-{number}", daemon=True).start()

    def cancel(self) -> None:
        """Stop the running search; its answer is never delivered."""
        if self._current is not None:
            self._current[1].set()
            self._current = None

    def answered(self, number: int) -> None:
        """Round ``number``'s answer reached the loop: that search is over."""
        if self._current is not None and self._current[0] == number:
            self._current = None
