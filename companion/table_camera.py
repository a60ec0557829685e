"""The table's side of its camera: what the camera is told to look for, and what the page asks
of it (the picture, what it found, calibration, a Micro Robots board read for the user).

The camera (a :class:`companion.vision.feed.CameraFeed`, seen through the
:class:`companion.ports.Eyes` Protocol) runs on its own thread; these calls are cheap and safe
from any thread. Without a camera the page's questions get a plain answer or a
:class:`ValueError` that says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import setup_form
from .games import CLASSIC, MICRO
from .ports import Eyes
from .referee import Referee
from .vision.feed import Sight


def sight_for(game: Any, *, micro: bool, preset: str, referee: Referee, epoch: str) -> Sight:
    """What the camera should look for in ``game`` now: the Micro Robots layout, or the
    classic game's tiles and robots and whether a chip may be revealed; before any game, the
    tiles for setup."""
    if micro:
        return Sight(game=MICRO, layout=game.s.layout, epoch=epoch)
    s = game.s
    if s.board is None:  # no game yet: the camera may read the tiles for setup
        return Sight(game=MICRO if preset == "micro-robots" else None)
    looked = [*setup_form.game_robots(s.rules)]
    if s.rules.fifth_robot == "none":
        looked.insert(4, "black")  # looked for all the same, so it is never taken for a hand
    return Sight(game=CLASSIC, tiles=tuple(s.board.tiles) if s.board.tiles else None,
                 robots=tuple(looked), chip=referee.waiting, wait=referee.waits, epoch=epoch,
                 start=referee.start_cells(), barrier_stops=s.rules.barrier_stop == "allowed")


class TableCamera:
    """The camera attached to the table (``camera``; None: no camera)."""

    def __init__(self) -> None:
        self.camera: Eyes | None = None
        self._sight: Sight | None = None

    def attach(self, camera: Eyes) -> None:
        """Use ``camera`` from now on; it is told what to look for at the next :meth:`tell`."""
        self.camera = camera
        self._sight = None

    @property
    def reads_frames(self) -> bool:
        """Does a real camera read pictures (the simulated table's camera is the world's
        truth and needs no telling)?"""
        return self.camera is not None and bool(getattr(self.camera, "reads_frames", False))

    def tell(self, sight: Sight) -> None:
        """Tell a real camera what to look for, when it has changed."""
        if self.camera is None or not self.reads_frames:
            return
        if sight != self._sight:
            self._sight = sight
            self.camera.look_for(sight)

    def status(self) -> dict[str, Any] | None:
        return self.camera.status() if self.camera is not None else None

    def tiles(self) -> list[str] | None:
        """The board's tiles as the camera reads them (None: no camera, or not read)."""
        return self.camera.tiles() if self.camera is not None else None

    def jpeg(self, overlay: bool = True) -> bytes | None:
        """The camera's latest picture (with what it found drawn on it)."""
        return self.camera.jpeg(overlay) if self.camera is not None else None

    def detected(self) -> dict[str, Any]:
        """What the camera found in its latest picture."""
        return self.camera.detected() if self.camera is not None else {"camera": None}

    def calibrate_corners(self, corners: list[tuple[float, float]]) -> Any:
        """The board's four corners in the picture, north-west first, clockwise."""
        if self.camera is None:
            raise ValueError("there is no camera to calibrate")
        return self.camera.set_corners(corners)

    def calibrate_colors(self, robots: Mapping[str, str], *, micro: bool) -> Any:
        """Learn this table's colours from the camera's latest picture, the ``robots``
        standing where the game says they do
        (:meth:`companion.vision.feed.CameraFeed.calibrate_colors`)."""
        if self.camera is None:
            raise ValueError("there is no camera to calibrate")
        if micro:
            raise ValueError("colours are learned from the classic game's robots: set up a "
                             "Ricochet Robots game first")
        if not robots:
            raise ValueError("set up a game first: colours are learned from the robots where "
                             "the game says they stand")
        return self.camera.calibrate_colors(dict(robots))

    def read_layout(self) -> Any:
        """Read a Micro Robots board in the latest picture (takes a moment: never on the
        loop's thread)."""
        if self.camera is None:
            raise ValueError("there is no camera to read the board with")
        return self.camera.read_layout()
