"""The camera feed: the camera on its own thread, frames in, stable observations out.

The table tells the feed what to look for (a :class:`Sight`, whenever the game changes it);
the feed reads each frame with the pipeline built for it (:func:`companion.vision.read.reader_for`
then :class:`~companion.vision.track.Tracker`, the pipeline ``companion verify`` replays
recordings through too) and tells its :class:`Observer` (the table loop) only what has
settled: robots on cells, the robot on a Micro Robots space, the chip on the centre piece, or
that the board is hidden. The feed decides nothing about the game.

On the simulated table the feed watches a :class:`World` (the simulated hand's table) instead
of frames; the world's renderer is the camera.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..games import MICRO
from ..i18n import Message, said
from ..micro import SIZE as MICRO_SIZE
from ..micro import Layout, Space
from ..rules import Position
from .looks import learn_at_start, settled_chip
from .overlay import Drawn, cell_uv, jpeg

log = logging.getLogger("companion.table")


class Observer(Protocol):
    """Where the feed tells what settled in view (the table loop); each call only queues."""

    def observe(self, robots: Mapping[str, str] | None, source: str = "camera") -> None: ...

    def observe_micro(self, space: str | None, source: str = "camera") -> None: ...

    def observe_chip(self, chip: str | None, *, reason: str | None = None,
                     color: str | None = None, source: str = "camera") -> None: ...

    def camera_changed(self) -> None:
        """What the camera says about itself changed (its view, a fault): show it."""


class World(Protocol):
    """The simulated classic table the feed watches instead of frames."""

    version: int
    on_change: Callable[[], Any] | None
    board: Any

    def layouts(self) -> list[dict[str, str]]: ...

    def position(self) -> Position | None: ...

    def render(self, pos: Position) -> Any: ...


class MicroWorld(Protocol):
    """The simulated Micro Robots table the feed watches instead of frames."""

    version: int
    on_change: Callable[[], Any] | None

    def observations(self) -> list[str | None]: ...

    def seen(self) -> tuple[Layout | None, str | None]: ...

    def render(self, layout: Layout, robot: str | None) -> Any: ...


@dataclass(frozen=True)
class Sight:
    """What the camera is to look for, as the game on the table has it.

    ``game``: :data:`~companion.games.CLASSIC`, :data:`~companion.games.MICRO`, or ``None``
    before any game (then the camera may still read the board and its tiles for setup).
    Classic: the board's ``tiles``, the ``robots`` to look for, and ``chip``: the game waits
    for a chip, so the centre piece is read (``wait`` counts the waits: each is read afresh).
    Micro Robots: the ``layout`` the robot is followed on (``None``: none entered yet).
    ``epoch`` names the game: a new one is looked at afresh, and what the camera sees is
    told again even where it has not changed. ``start``: the round's confirmed start,
    ``(robot, cell)`` pairs, while the robots still stand on it (before the demonstration):
    the frames that show it teach the reader this table's colours (:mod:`.adapt`).
    ``barrier_stops``: the game's rules let a robot stop on a diagonal barrier."""

    game: str | None = None
    tiles: tuple[str, ...] | None = None
    robots: tuple[str, ...] = ()
    chip: bool = False
    wait: int = 0
    start: tuple[tuple[str, str], ...] = ()
    layout: Layout | None = None
    epoch: str = ""
    barrier_stops: bool = False


class CameraFeed:
    """The camera on its own thread: frames in, stable observations to the table out.

    On the simulated table the camera is the renderer drawing the
    :class:`~companion.sim.SimWorld` (or the :class:`~companion.sim.MicroSimWorld`); what the
    world holds is handed to the table the moment it changes (the renderer says exactly what
    it drew), and a frame is rendered only when someone asks for a picture.

    With a real camera (``pi``, ``usb:N``, a video file or a folder of frames) frames come
    from :func:`companion.vision.sources.open_source` and are read for the game the table
    says is on (:meth:`look_for`): the classic board by a :class:`~companion.vision.read.Reader`
    built for its tiles, its robots and this table's colour ``profile``, the centre piece's
    chip only while the game waits for one; a Micro Robots board by a
    :class:`~companion.vision.micro.MicroReader` for its layout. A state reaches the table
    only once it is stable over ``stable`` frames, and a hand over the board is reported as
    hidden, never as a position. A camera that fails is reopened every few seconds; the game
    goes on by hand meanwhile and the page says why.

    ``profile`` (:class:`~companion.vision.colours.Profile`) is the table's learned colours;
    ``profile_path`` is where a calibration from the page is kept (``None``: not kept).
    """

    def __init__(self, observer: Observer, spec: str, *, sim: World | None = None,
                 micro_sim: MicroWorld | None = None, interval: float = 0.2,
                 profile: Any = None, profile_path: str | Path | None = None,
                 stable: int = 3, setup: Any = None) -> None:
        self.observer = observer
        self.setup = setup  # the camera's calibration (vision/camera_setup.py), or None
        self.spec = spec
        self.sim = sim
        self.micro_sim = micro_sim
        self.interval = interval
        self.profile = profile
        self.profile_path = Path(profile_path) if profile_path is not None else None
        self.stable = stable
        self.corners: list[tuple[float, float]] | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._frame: Any = None
        self._frame_key: Any = None
        self._last: dict[str, str] | None = None
        self._error: str | None = None
        self._frames = 0
        self._source: Any = None
        # a real camera's reading: what to look for, the readers built for it, what was seen
        self._sight = Sight()
        self._profile_version = 0
        self._eyes: dict[str, Any] = {}
        self._view: str | None = None  # "board", "hidden" or "unseen"
        self._note: str | None = None  # what else the page should know about that view
        self._tiles: list[str] | None = None
        self._chip: str | None = None
        self._drawn: Drawn | None = None
        self._read_ms: deque[float] = deque(maxlen=50)
        self._skipped = 0
        if sim is not None:
            sim.on_change = self._wake.set
        if micro_sim is not None:
            micro_sim.on_change = self._wake.set

    @property
    def reads_frames(self) -> bool:
        """A real camera, whose frames the vision pipeline reads (not the simulated table)."""
        return self.sim is None and self.micro_sim is None

    def look_for(self, sight: Sight) -> None:
        """What the game on the table needs read from now on (the table calls this whenever
        it changes): the readers are rebuilt for it on the next frame."""
        with self._lock:
            self._sight = sight

    # -- thread
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(3.0)
            self._thread = None
        if self._source is not None and hasattr(self._source, "close"):
            self._source.close()

    def _run(self) -> None:
        if self.reads_frames:
            self._run_source()
            return
        while not self._stop.is_set():
            self._wake.wait(self.interval * 5)
            self._wake.clear()
            for seen in self.sim.layouts() if self.sim is not None else ():
                if seen != self._last:
                    self._last = seen
                    self.observer.observe(seen, "camera")
            # every resting place: the table knows where the robot stands and keeps only news
            for space in self.micro_sim.observations() if self.micro_sim is not None else ():
                self.observer.observe_micro(space, "camera")

    def _run_source(self) -> None:
        """Frames from a real camera, each read for the game on the table (see the class
        docstring). One picture that cannot be decoded is skipped; a source that fails is
        reopened; the end of a recording ends the feed. Each says so on the page."""
        from .locate import VisionError
        from .sources import EndOfFrames, FrameSourceError, open_source

        while not self._stop.is_set():
            if self._source is None:
                try:
                    opts = self.setup.options(self.spec) if self.setup is not None else {}
                    self._source = open_source(self.spec, **opts)
                except (FrameSourceError, ValueError, OSError) as e:
                    self._trouble(Message("camera.retrying", spec=self.spec, why=said(e)))
                    self._stop.wait(3.0)
                    continue
            try:
                frame = self._source.read()
            except EndOfFrames:
                self._trouble(Message("camera.ended", spec=self.spec))
                return
            except FrameSourceError as e:
                if self._source.is_open:  # one picture that cannot be used: read on
                    self._skipped += 1
                    self._trouble(Message("camera.skipped", why=said(e)))
                    continue
                self._trouble(Message("camera.retrying", spec=self.spec, why=said(e)))
                self._source.close()
                self._source = None
                self._stop.wait(2.0)
                continue
            image = getattr(frame, "image", frame)
            with self._lock:
                self._frame = image
                self._frames += 1
                sight = self._sight
            t0 = time.perf_counter()
            try:
                if sight.game == MICRO:
                    self._see_micro(image, sight)
                else:
                    self._see_classic(image, sight)
            except VisionError as e:
                self._unseen(said(e))
            except Exception as e:  # noqa: BLE001 - a frame the readers choke on is no fault
                log.exception("camera: reading a frame")
                self._unseen(Message("camera.unreadable", why=str(e)))
            self._read_ms.append((time.perf_counter() - t0) * 1000)
            self._stop.wait(self.interval)

    # -- reading the classic board
    def _see_classic(self, image: Any, sight: Sight) -> None:
        from .read import reader_for
        from .track import Tracker

        eyes = self._eyes
        key = (sight.game, sight.epoch, sight.tiles, sight.robots, sight.barrier_stops,
               self._profile_version)
        if eyes.get("key") != key:
            eyes.clear()
            reader = reader_for(sight.tiles, robots=sight.robots, profile=self.profile,
                                barrier_stops=sight.barrier_stops)
            eyes.update(key=key, reader=reader, base=reader.profile,
                        tracker=Tracker(stable=self.stable))
        if eyes.get("chip_key") != (sight.chip, sight.wait):
            # each wait for a chip reads the piece afresh: its first settled chip is news
            eyes.update(chip_key=(sight.chip, sight.wait), chips=Tracker(stable=self.stable))
        reader = eyes["reader"]
        reader.read_chip = sight.chip
        obs = reader.read(image, corners=self.corners)
        if obs.tiles and (obs.tiles_confidence or 0.0) >= 0.9:
            self._tiles = list(obs.tiles)
        event = eyes["tracker"].observe(obs)
        if event.kind == "occluded":
            self._drawn = (obs.corners, 16, [])
            if self._view != "hidden":
                self._set_view("hidden")
                self.observer.observe(None, "camera")
        elif event.state is not None:
            state = event.state
            self._drawn = (obs.corners, 16, [(f"{r} {c}", cell_uv(c)) for r, c in
                                             (obs.robots if event.kind == "pending"
                                              else state).items()])
            if event.kind == "accepted" or (event.kind == "steady" and self._view != "board"):
                # a new layout, or the board in view again after a hand: the table decides
                self._last = dict(state)
                self._set_view("board")
                self.observer.observe(dict(state), "camera")
        if sight.chip:
            self._see_chip(obs, eyes["chips"])
        if sight.start and eyes.get("taught") != sight.start and learn_at_start(
                image, obs, sight.start, sight.tiles, eyes, self.corners):
            self._changed()  # the page shows what the camera learnt

    def _see_chip(self, obs: Any, chips: Any) -> None:
        """The chip on the centre piece, once it has settled over a few frames."""
        news = settled_chip(obs, chips)
        if news is not None:
            self._chip, chip, told = news
            self.observer.observe_chip(chip, **told)

    # -- reading the Micro Robots board
    def _see_micro(self, image: Any, sight: Sight) -> None:
        from .micro import MicroReader, MicroTracker

        eyes = self._eyes
        if sight.layout is None:
            eyes.clear()
            self._set_view("unseen", Message("camera.no_micro_game"))
            return
        key = ("micro", sight.epoch, sight.layout, tuple(map(tuple, self.corners or ())))
        if eyes.get("key") != key:
            eyes.clear()
            eyes.update(key=key, reader=MicroReader(sight.layout, corners=self.corners),
                        tracker=MicroTracker(stable=self.stable), told="nothing yet")
        obs = eyes["reader"].read(image)
        event = eyes["tracker"].update(obs)
        resting = eyes["tracker"].resting
        labels = []
        if obs.space is not None:
            r, c = sight.layout.where(Space.parse(obs.space))
            labels.append((obs.space, (c + 0.5, r + 0.5)))
        self._drawn = (obs.corners, MICRO_SIZE, labels)
        if event.kind == "occluded":
            told: str | None = None
            self._set_view("hidden")
        elif event.kind == "unseen":
            told = None
            self._set_view("board", Message("camera.no_robot"))
        elif event.kind in ("placed", "landed", "steady"):
            told = resting
            self._set_view("board")
        else:
            return  # a new space, not yet for long enough
        if told != eyes["told"]:
            # where the robot rests (the table knows a landing from a return), or hidden
            eyes["told"] = told
            self.observer.observe_micro(told, "camera")

    # -- what the camera says about itself
    def _set_view(self, view: str, note: str | None = None) -> None:
        changed = (view, note) != (self._view, self._note) or self._error is not None
        self._view, self._note, self._error = view, note, None
        if changed:
            self._changed()

    def _unseen(self, reason: str) -> None:
        """The board could not be read in this frame (no board in view, a black frame)."""
        self._drawn = None
        if self._view != "unseen" or self._error != f"camera: {reason}":
            self._view = "unseen"
            self._error = Message("camera.refused", why=reason)
            self._changed()

    def _trouble(self, message: str) -> None:
        if message != self._error:
            log.warning(message)
            self._error = message
            self._changed()

    def _changed(self) -> None:
        """Republish, so the page shows what the camera now sees or why it cannot."""
        self.observer.camera_changed()

    # -- what the page asks
    def status(self) -> dict[str, Any]:
        times = sorted(self._read_ms)
        return {"source": self.spec, "ok": self._error is None, "error": self._error,
                "frames": self._frames, "view": self._view, "note": self._note,
                "skipped": self._skipped,
                "read_ms": round(times[len(times) // 2], 1) if times else None,
                "lesson": self.lesson()}

    def lesson(self) -> dict[str, Any] | None:
        """What the reader learnt at the round's confirmed start (:mod:`.adapt`), if anything:
        the colours learnt and those kept as they were, and why."""
        lesson = self._eyes.get("lesson")
        return lesson.to_dict() if lesson is not None else None

    def read_times(self) -> list[float]:
        """Milliseconds each recent frame took to read (for the benchmark)."""
        return list(self._read_ms)

    def tiles(self) -> list[str] | None:
        """The tile sides in view: the simulated board's, or those a real camera identified."""
        if self.sim is not None and self.sim.board is not None and self.sim.board.tiles:
            return list(self.sim.board.tiles)
        return list(self._tiles) if self._tiles else None

    def _image(self) -> tuple[Any, Any]:
        """The latest picture and what is known about it (the rendered truth on the sim)."""
        if self.reads_frames:
            with self._lock:
                return self._frame, None
        micro_sim, sim = self.micro_sim, self.sim
        if micro_sim is not None:
            layout, robot = micro_sim.seen()
            if layout is not None:
                return self._render(("micro", micro_sim.version),
                                    lambda: micro_sim.render(layout, robot))
        if sim is None:
            return None, None
        pos = sim.position()
        if pos is None:
            return None, None
        return self._render(("classic", sim.version), lambda: sim.render(pos))

    def _render(self, key: Any, draw: Callable[[], Any]) -> tuple[Any, Any]:
        with self._lock:
            if self._frame_key == key:
                return self._frame
        shot = draw()
        with self._lock:
            self._frame_key = key
            self._frame = (shot.image, shot)
            self._frames += 1
        return shot.image, shot

    def jpeg(self, overlay: bool = True) -> bytes | None:
        """The latest picture for the page, with what was read on it (:mod:`.overlay`)."""
        image, shot = self._image()
        if image is None:
            return None
        return jpeg(image, shot, self._drawn, self.corners, overlay)

    def detected(self) -> dict[str, Any]:
        _, shot = self._image() if not self.reads_frames else (None, None)
        out: dict[str, Any] = {"source": self.spec, "robots": self._last, "tiles": self.tiles(),
                               "corners": self.corners, "error": self._error,
                               "view": self._view, "chip": self._chip}
        if self.reads_frames and self._drawn is not None and self.corners is None:
            out["corners"] = [[round(float(x), 1), round(float(y), 1)]
                              for x, y in self._drawn[0]]
        if shot is not None:
            out["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in shot.corners]
        return out

    def set_corners(self, corners: list[tuple[float, float]]) -> dict[str, Any]:
        xs = [x for x, _ in corners]
        ys = [y for _, y in corners]
        if max(xs) - min(xs) < 40 or max(ys) - min(ys) < 40:
            raise ValueError("corners: the four points must span the board (they are too close)")
        self.corners = list(corners)
        return {"corners": self.corners}

    def calibrate_colors(self, robots: Mapping[str, str]) -> dict[str, Any]:
        """Learn this table's colours from the latest picture, the ``robots`` standing where
        the game says they do; the readers use them from the next frame on, and they are kept
        (``profile_path``) for the next start."""
        from .colours import ProfileError
        from .learn import learn
        from .locate import VisionError

        image, _ = self._image()
        if image is None:
            raise ValueError("no camera picture yet")
        import numpy as np

        corners = np.asarray(self.corners, dtype=np.float32) if self.corners else None
        try:
            profile = learn(image, dict(robots), tiles=self.tiles(), corners=corners,
                            base=self.profile)
        except (ProfileError, VisionError) as e:
            raise ValueError(f"colours: {e}") from None
        out = profile.to_dict()
        if self.profile_path is not None:
            try:
                self.profile_path.parent.mkdir(parents=True, exist_ok=True)
                profile.save(self.profile_path)
                out["saved"] = str(self.profile_path)
            except OSError as e:
                raise ValueError(f"colours: cannot keep the profile in {self.profile_path} "
                                 f"({e.strerror or e})") from None
        with self._lock:
            self.profile = profile
            self._profile_version += 1
        if self.setup is not None and self._source is not None:
            # the colours hold while the light on them does: fix exposure and white balance
            out["camera"] = self.setup.keep_lock(self._source)
        return out

    def read_layout(self) -> Any:
        """Micro Robots: the board in the latest picture, read space by space
        (:func:`companion.vision.micro.read_micro_layout`); :class:`ValueError` says why not."""
        from .locate import VisionError
        from .micro import read_micro_layout

        image, _ = self._image()
        if image is None:
            raise ValueError(Message("camera.no_picture"))
        try:
            return read_micro_layout(image, corners=self.corners)
        except VisionError as e:
            raise ValueError(Message("camera.no_micro_board", why=said(e))) from None

