"""The simulated table's worlds: where the real robots would stand.

A hand (the page's buttons, a test) moves them; the simulated camera (:meth:`SimWorld.render`,
the renderer) draws them; the game never reads a world directly, only through the camera
(:class:`companion.vision.feed.CameraFeed`), exactly as on a real table.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from .. import micro
from ..board import Board
from ..game import Game
from ..micro import Space
from ..rules import ROBOTS, Goal, Move, Position, Rules


class SimWorld:
    """The physical table of the simulation: where the real robots stand. A hand slides them
    (:meth:`slide`); the camera (the renderer) draws them; the game never reads this directly,
    only through the camera."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.board: Board | None = None
        self.rules: Rules = Rules()
        self.robots: dict[str, int] = {}
        self.target: Goal | None = None
        self.version = 0
        self.on_change: Callable[[], Any] | None = None
        # Every resting layout, in order: a simulated hand moves instantly, where a real one
        # leaves each layout in view long enough for the camera to see it.
        self._layouts: deque[dict[str, str]] = deque(maxlen=256)

    def _changed(self) -> None:
        self.version += 1
        if self.board is not None and self.robots:
            self._layouts.append({r: self.board.name(c) for r, c in self.robots.items()})
        if self.on_change is not None:
            self.on_change()

    def layouts(self) -> list[dict[str, str]]:
        """The layouts the table has rested in since the last call, oldest first."""
        with self._lock:
            out = list(self._layouts)
            self._layouts.clear()
            return out

    def sync(self, game: Game) -> None:
        """Take the board and rules of a newly set-up game; robots only where none stand yet."""
        with self._lock:
            s = game.s
            self.board, self.rules = s.board, s.rules
            if s.robots:
                self.robots = dict(s.robots)
            self._changed()

    def set_target(self, goal: Goal | None) -> None:
        with self._lock:
            self.target = goal
            self._changed()

    def place(self, robots: Mapping[str, str]) -> None:
        with self._lock:
            if self.board is None:
                return
            self.robots = {r: self.board.cell(c) for r, c in robots.items()}
            self._changed()

    def slide(self, robot: str, direction: str) -> dict[str, str]:
        with self._lock:
            if self.board is None:
                raise ValueError("set up a game first")
            if robot not in self.robots:
                raise ValueError(f"there is no {robot} robot on the table")
            try:
                move = Move.parse(f"{robot} {direction}")
            except ValueError as e:
                raise ValueError(str(e)) from None
            pos = Position(self.board, dict(self.robots), None, self.rules)
            s = pos.slide(move)
            if s.error:
                raise ValueError(f"{move.text()}: {s.error}")
            if not s.moved:
                raise ValueError(f"{move.text()}: the robot cannot move that way")
            self.robots[robot] = s.end
            self._changed()
            return {r: self.board.name(c) for r, c in self.robots.items()}

    def position(self) -> Position | None:
        with self._lock:
            if self.board is None or not self.robots:
                return None
            return Position(self.board, {k: self.robots[k] for k in
                                         sorted(self.robots, key=ROBOTS.index)},
                            self.target, self.rules)

    def truth(self) -> dict[str, str] | None:
        with self._lock:
            if self.board is None:
                return None
            return {r: self.board.name(c) for r, c in self.robots.items()}

    @staticmethod
    def render(pos: Position) -> Any:
        """The simulated table's camera: a slightly tilted view of the classic board."""
        from ..vision.render import render

        return render(pos, size=(960, 720), tilt=14, azimuth=20, rotation=3, noise=2)


class MicroSimWorld:
    """The simulated table of Micro Robots: the 6×6 board and where its one robot rests.

    A hand puts the robot on any space or lifts it (:meth:`put`); the simulated camera reports
    every resting place (:meth:`observations`), as a real camera reports the space the robot
    comes to rest on. The game never reads this directly, only through the camera."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.layout: micro.Layout | None = None
        self.robot: str | None = None  # None: off the board (beside it, or in a hand)
        self.version = 0
        self.on_change: Callable[[], Any] | None = None
        self._rests: deque[str | None] = deque(maxlen=256)

    def _changed(self, seen: bool = True) -> None:
        self.version += 1
        if seen:
            self._rests.append(self.robot)
        if self.on_change is not None:
            self.on_change()

    def sync(self, layout: micro.Layout | None, robot: str | None) -> None:
        """The board of a (new) game, and the robot where the game says it stands. The table
        put it there and knows it: this is no observation for the camera to report."""
        with self._lock:
            if layout == self.layout and robot == self.robot:
                return
            self.layout, self.robot = layout, robot
            self._changed(seen=False)

    def put(self, space: str | None) -> str | None:
        """The hand sets the robot down on ``space`` (or lifts it: ``None``)."""
        with self._lock:
            if self.layout is None:
                raise ValueError("set up a Micro Robots game first")
            self.robot = None if space is None else Space.parse(space).name
            self._changed()
            return self.robot

    def seen(self) -> tuple[micro.Layout | None, str | None]:
        """The board on the table and the space the robot stands on (what a camera sees)."""
        with self._lock:
            return self.layout, self.robot

    def observations(self) -> list[str | None]:
        """Every resting place since the last call, oldest first (``None``: lifted)."""
        with self._lock:
            out = list(self._rests)
            self._rests.clear()
            return out

    @staticmethod
    def render(layout: micro.Layout, robot: str | None) -> Any:
        """… and of a Micro Robots board, the same camera over the same table."""
        from ..vision.micro_render import render_micro

        return render_micro(layout, robot, size=(960, 720), tilt=14, azimuth=20, rotation=3,
                            noise=2)
