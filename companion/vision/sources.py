"""Frame sources: where pictures of the table come from, behind one small interface.

The table loop must never freeze because a camera was unplugged or a stream stalled, and it
must be able to try again. So every source:

* returns a :class:`Frame` — a BGR ``uint8`` image and the ``time.monotonic()`` it was taken;
* raises :class:`FrameSourceError` naming what failed (:class:`EndOfFrames` when a file or
  folder has simply run out), never hangs: device and stream reads run on a worker thread and
  give up after ``timeout`` seconds;
* can be opened again after a failure (``open()`` on a failed source starts afresh);
* is a context manager, and ``close()`` twice is harmless.

>>> from companion.vision.sources import open_source
>>> with open_source("tests/data/frames") as cam:  # doctest: +SKIP
...     frame = cam.read()
...     frame.image.shape, frame.t

:func:`open_source` understands the ``companion run --camera`` specifications:
``pi``, ``usb:N``, a video or image file, a folder of images, a stream URL, ``sim``.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import CompanionError
from ..i18n import Message

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")
DEFAULT_TIMEOUT = 3.0  # seconds a device or stream may take for one frame


class FrameSourceError(CompanionError, RuntimeError):
    """A source that cannot give a frame: the message names the source and what failed."""


class EndOfFrames(FrameSourceError):
    """A file, video or folder has no more frames (not a fault: the recording is over)."""


@dataclass(frozen=True)
class Frame:
    """One picture: BGR ``uint8`` ``image``, the monotonic time ``t`` it was taken, its
    sequence number since the source was opened, and (rendered frames only) the truth."""

    image: np.ndarray
    t: float
    index: int
    source: str
    truth: Any = field(default=None, compare=False, repr=False)


def _check_image(img: Any, what: str) -> np.ndarray:
    """Bring a decoded picture to BGR uint8 H×W×3, or say why it cannot be used."""
    if img is None or not isinstance(img, np.ndarray) or img.size == 0:
        raise FrameSourceError(f"{what}: no picture (unreadable or empty)")
    if img.dtype != np.uint8:
        if img.dtype == np.uint16:
            img = (img >> 8).astype(np.uint8)
        else:
            raise FrameSourceError(f"{what}: pixel type {img.dtype} is not 8-bit")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.ndim == 3 and img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.ndim != 3 or img.shape[2] != 3:
        raise FrameSourceError(f"{what}: a picture of shape {img.shape} is not a colour image")
    return img


class FrameSource(ABC):
    """The interface. Subclasses implement ``_open``, ``_read`` and ``_close``."""

    name: str = "source"

    def __init__(self) -> None:
        self._is_open = False
        self._failed: str | None = None
        self._index = 0

    # -- public
    @property
    def is_open(self) -> bool:
        return self._is_open and self._failed is None

    def open(self) -> FrameSource:
        """Open (or, after a failure, reopen) the source. Raises :class:`FrameSourceError`."""
        if self._is_open and self._failed is None:
            return self
        self.close()
        try:
            self._open()
        except FrameSourceError:
            self._close_quietly()
            raise
        except Exception as e:  # a driver's own exception type, named in our terms
            self._close_quietly()
            raise FrameSourceError(f"{self.name}: cannot open: {e}") from e
        self._is_open, self._failed, self._index = True, None, 0
        return self

    def read(self) -> Frame:
        """The next frame. Raises :class:`EndOfFrames` at the end of a recording and
        :class:`FrameSourceError` (the source is then failed until reopened) otherwise."""
        if self._failed is not None:
            raise FrameSourceError(f"{self.name}: failed earlier ({self._failed}); reopen it")
        if not self._is_open:
            raise FrameSourceError(f"{self.name}: not open")
        try:
            image, t, truth = self._read()
        except EndOfFrames:
            raise
        except FrameSourceError as e:
            self._failed = str(e)
            raise
        except Exception as e:
            self._failed = str(e)
            raise FrameSourceError(f"{self.name}: read failed: {e}") from e
        frame = Frame(image, t, self._index, self.name, truth)
        self._index += 1
        return frame

    def reopen(self) -> FrameSource:
        self.close()
        return self.open()

    def close(self) -> None:
        """Release the device or file. Harmless when already closed."""
        if self._is_open or self._failed is not None:
            self._close_quietly()
        self._is_open = False
        self._failed = None

    def frames(self) -> Iterator[Frame]:
        """Every frame until the recording ends (a live source never ends)."""
        while True:
            try:
                yield self.read()
            except EndOfFrames:
                return

    def __enter__(self) -> FrameSource:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self.is_open else ("failed" if self._failed else "closed")
        return f"<{type(self).__name__} {self.name} {state}>"

    # -- for subclasses
    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _read(self) -> tuple[np.ndarray, float, Any]: ...

    def _close(self) -> None:
        return None

    def _close_quietly(self) -> None:
        try:
            self._close()
        except Exception:  # noqa: BLE001 - closing a broken device must not raise
            pass


# ---------------------------------------------------------------- a worker with a deadline


class _Worker:
    """One daemon thread running driver calls, so the caller can stop waiting. A call that
    overruns its deadline leaves the worker stuck; the source then drops it and starts a
    new one on reopen."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], dict[str, Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"frames:{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, box = job
            try:
                box["result"] = fn()
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                box["error"] = e
            box["done"].set()

    def call(self, fn: Callable[[], Any], timeout: float) -> Any:
        box: dict[str, Any] = {"done": threading.Event()}
        self._jobs.put((fn, box))
        if not box["done"].wait(timeout):
            raise TimeoutError
        if "error" in box:
            raise box["error"]
        return box.get("result")

    def post(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` after whatever the worker is doing now, without waiting for it."""
        self._jobs.put((fn, {"done": threading.Event()}))

    def stop(self) -> None:
        self._jobs.put(None)


# ---------------------------------------------------------------- OpenCV devices, files, streams


def capture_attempts(target: int | str, timeout: float) -> list[tuple[int, list[int]]]:
    """The OpenCV backends to try for ``target``, in order, each with only the parameters it
    takes. The open and read timeouts are FFmpeg's alone: V4L2 (a USB camera on Linux) and
    GStreamer refuse a parameter they do not know and the backend is then skipped. So a
    camera index gets none; a stream gets them on FFmpeg (the backend that can time out); a
    video file gets them on FFmpeg, then every other backend without them."""
    ms = max(1, int(timeout * 1000))
    if isinstance(target, int):
        if sys.platform.startswith("linux"):
            return [(cv2.CAP_V4L2, []), (cv2.CAP_ANY, [])]
        return [(cv2.CAP_ANY, [])]
    ffmpeg = (cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms,
                               cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms])
    return [ffmpeg] if "://" in target else [ffmpeg, (cv2.CAP_ANY, [])]


class OpenCVSource(FrameSource):
    """A USB camera (``usb:N`` or an index), a video file or a stream URL, through OpenCV.

    Reads run on a worker thread: a read that takes longer than ``timeout`` seconds raises
    :class:`FrameSourceError` instead of hanging (an unplugged camera, a stalled stream).
    The end of a video file raises :class:`EndOfFrames`.
    """

    def __init__(self, target: int | str, *, timeout: float = DEFAULT_TIMEOUT,
                 size: tuple[int, int] | None = None, loop: bool = False) -> None:
        super().__init__()
        self.target = target
        self.timeout = float(timeout)
        self.size = size
        self.loop = loop
        self.is_device = isinstance(target, int)
        self.is_file = isinstance(target, str) and "://" not in target
        self.name = f"usb:{target}" if self.is_device else str(target)
        self._cap: cv2.VideoCapture | None = None
        self._worker: _Worker | None = None

    def _open(self) -> None:
        if self.is_file and not Path(str(self.target)).is_file():
            raise FrameSourceError(f"{self.name}: no such video file")
        self._worker = _Worker(self.name)

        def make() -> cv2.VideoCapture:
            cap = None
            for api, params in capture_attempts(self.target, self.timeout):
                if cap is not None:
                    cap.release()
                cap = cv2.VideoCapture(self.target, api, params)
                if cap.isOpened():
                    break
            if cap.isOpened() and self.is_device:
                cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest picture, not a queue of old
                if self.size:
                    cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
                    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
            return cap

        try:
            cap = self._worker.call(make, self.timeout + 2)
        except TimeoutError:
            raise FrameSourceError(
                f"{self.name}: did not open within {self.timeout + 2:.0f} s") from None
        if not cap.isOpened():
            cap.release()
            what = ("no camera at that index (unplugged, or in use by another program?)"
                    if self.is_device else "cannot be opened as a video")
            raise FrameSourceError(f"{self.name}: {what}")
        self._cap = cap

    def _read(self) -> tuple[np.ndarray, float, Any]:
        assert self._cap is not None and self._worker is not None
        cap = self._cap
        try:
            # OpenCV's own read timeout (set at open) usually fires first and returns cleanly;
            # the worker's deadline is the backstop for drivers that ignore it
            ok, img = self._worker.call(cap.read, self.timeout + 1.0)
        except TimeoutError:
            self._abandon()
            raise FrameSourceError(
                f"{self.name}: no frame within {self.timeout + 1.0:g} s (camera unplugged or "
                "stream stalled?)") from None
        t = time.monotonic()
        if not ok or img is None:
            if self.is_file:
                if self.loop and self._index > 0:
                    cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    ok, img = self._worker.call(cap.read, self.timeout)
                    if ok and img is not None:
                        return _check_image(img, self.name), time.monotonic(), None
                raise EndOfFrames(f"{self.name}: end of video after {self._index} frames")
            what = "the camera gave no frame (unplugged?)" if self.is_device else \
                "the stream gave no frame (stalled or ended)"
            raise FrameSourceError(f"{self.name}: {what}")
        return _check_image(img, self.name), t, None

    def _abandon(self) -> None:
        """Give up on a worker stuck inside the driver; release happens if it ever returns."""
        if self._worker is not None:
            cap = self._cap
            if cap is not None:
                self._worker._jobs.put((cap.release, {"done": threading.Event()}))
            self._worker.stop()
        self._worker, self._cap = None, None

    def _close(self) -> None:
        if self._worker is not None and self._cap is not None:
            try:
                self._worker.call(self._cap.release, 2.0)
            except TimeoutError:
                pass
        if self._worker is not None:
            self._worker.stop()
        self._worker, self._cap = None, None


# ---------------------------------------------------------------- image files and folders


def _natural_key(path: Path) -> list[Any]:
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", path.name)]


class ImageFileSource(FrameSource):
    """One still picture, given again at every read (a table that never changes)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self.name = str(path)
        self._image: np.ndarray | None = None

    def _open(self) -> None:
        self._image = load_image(self.path)

    def _read(self) -> tuple[np.ndarray, float, Any]:
        assert self._image is not None
        return self._image.copy(), time.monotonic(), None

    def _close(self) -> None:
        self._image = None


class ImageFolderSource(FrameSource):
    """The pictures of a folder in natural name order (``frame2`` before ``frame10``): a
    recorded demonstration. :class:`EndOfFrames` after the last, unless ``loop``. A picture
    that cannot be decoded raises :class:`FrameSourceError` naming the file; reading on gives
    the next one."""

    def __init__(self, path: str | os.PathLike[str], *, loop: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.loop = loop
        self.name = str(path)
        self._files: list[Path] = []
        self._next = 0

    def _open(self) -> None:
        if not self.path.is_dir():
            raise FrameSourceError(f"{self.name}: no such folder")
        files = [p for p in self.path.iterdir()
                 if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]
        if not files:
            raise FrameSourceError(
                f"{self.name}: no pictures in this folder ({', '.join(IMAGE_SUFFIXES[:3])}, …)")
        self._files = sorted(files, key=_natural_key)
        self._next = 0

    @property
    def files(self) -> tuple[Path, ...]:
        return tuple(self._files)

    def _read(self) -> tuple[np.ndarray, float, Any]:
        if self._next >= len(self._files):
            if not self.loop:
                raise EndOfFrames(f"{self.name}: end of folder after {len(self._files)} pictures")
            self._next = 0
        path = self._files[self._next]
        self._next += 1
        try:
            return load_image(path), time.monotonic(), None
        except FrameSourceError as e:
            # one bad file is not a broken source: say which, and let the caller read on
            raise _SkippableError(str(e)) from None

    def read(self) -> Frame:
        try:
            return super().read()
        except _SkippableError as e:
            self._failed = None
            raise FrameSourceError(str(e)) from None


class _SkippableError(FrameSourceError):
    pass


@contextlib.contextmanager
def _opencv_silent() -> Iterator[None]:
    """OpenCV's own log silenced for a moment: through ``cv2.utils.logging`` where the build
    has it, else ``cv2.setLogLevel`` (the declared oldest OpenCV has only that; 0 is silent)."""
    log = getattr(getattr(cv2, "utils", None), "logging", None)
    if log is not None:
        get, put, silent = log.getLogLevel, log.setLogLevel, log.LOG_LEVEL_SILENT
    elif hasattr(cv2, "getLogLevel") and hasattr(cv2, "setLogLevel"):
        get, put, silent = cv2.getLogLevel, cv2.setLogLevel, 0
    else:  # nothing to silence it with: its lines may show, ours still names the file
        yield
        return
    level = get()
    put(silent)
    try:
        yield
    finally:
        put(level)


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read a picture file as BGR uint8, or raise :class:`FrameSourceError` naming it."""
    p = Path(path)
    if not p.exists():
        raise FrameSourceError(f"{p}: no such file")
    if not p.is_file():
        raise FrameSourceError(f"{p}: not a file")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as e:
        raise FrameSourceError(f"{p}: cannot be read ({e.strerror or e})") from None
    # A broken file is reported below, once, naming it; OpenCV's own warnings about it
    # (several lines on the standard error) are kept off the terminal.
    with _opencv_silent():
        img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    if img is None:
        raise FrameSourceError(f"{p}: not a picture OpenCV can decode")
    return _check_image(img, str(p))


# ---------------------------------------------------------------- Raspberry Pi camera


PI_SIZE = (1280, 960)  # twice the reader's working width: the ISP scales, the shrink is 2:1
NUMPY_ABI = ("numpy.dtype size changed", "compiled using NumPy", "numpy.core.multiarray",
             "_ARRAY_API", "numpy._core")


def import_picamera2(name: str = "pi") -> Any:
    """picamera2's ``Picamera2`` class, or :class:`FrameSourceError` saying what to do.

    picamera2 comes from apt (Raspberry Pi OS) and imports apt's compiled helpers as it is
    imported: ``simplejpeg`` built against Debian's numpy 1.x fails under the venv's numpy 2
    with ``ValueError: numpy.dtype size changed``. Every failure of the import is caught here,
    not only ``ImportError``: the table runs on without a camera and says why."""
    fix = (f"install simplejpeg into the companion's venv: {sys.executable} -m pip install "
           "simplejpeg (hardware/install-pi.sh does)")
    try:
        from picamera2 import Picamera2  # noqa: PLC0415 - only on the Pi
    except ImportError as e:
        if e.name in ("picamera2", "libcamera"):
            raise FrameSourceError(
                f"{name}: picamera2 is not installed (on Raspberry Pi OS: sudo apt install "
                "--no-install-recommends python3-picamera2, in a venv made with "
                "--system-site-packages); use --camera usb:0 or sim elsewhere") from None
        if any(k in str(e) for k in NUMPY_ABI):
            raise FrameSourceError(
                f"{name}: picamera2 cannot be imported: a module built for another numpy "
                f"({e}); {fix}") from None
        raise FrameSourceError(
            f"{name}: picamera2 cannot be imported: {e} (check with: {sys.executable} -c "
            "'import picamera2')") from None
    except Exception as e:  # noqa: BLE001 - any failure of a compiled dependency
        what = f"{type(e).__name__}: {e}"
        if any(k in str(e) for k in NUMPY_ABI):
            raise FrameSourceError(
                f"{name}: picamera2 cannot be imported: a module built for another numpy "
                f"({what}); {fix}") from None
        raise FrameSourceError(
            f"{name}: picamera2 cannot be imported ({what}); check with: {sys.executable} -c "
            "'import picamera2'") from None
    return Picamera2


def _release(cam: Any) -> None:
    """Stop and close a picamera2 camera, whatever state it is in: picamera2 keeps an opened
    camera acquired until ``close()``, and nothing can open it again until then."""
    if cam is None:
        return
    try:
        cam.stop()
    except Exception:  # noqa: BLE001 - a half-started camera may refuse to stop
        pass
    try:
        cam.close()
    except Exception:  # noqa: BLE001
        pass


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only when opened).

    Frames come as ``RGB888``, which in picamera2 is already OpenCV's BGR byte order, at
    ``size`` (1280×960 by default: the ISP scales the sensor's full view down at no cost to
    the CPU). After the table is calibrated, :meth:`lock` fixes exposure and white balance so
    the colours of the robots do not drift as hands and light change; :meth:`locked_controls`
    gives the settings to store, and ``controls`` applies stored ones at open. ``lens_position``
    (dioptres, 1/metres) fixes the focus of a camera that has one (Camera Module 3). Controls
    the camera does not offer are left out and listed in :attr:`skipped_controls`.

    The camera is always released: a failure part-way through opening, a read that times
    out, and an open that finishes after its deadline all close it, so the next open finds
    it free.
    """

    def __init__(self, *, size: tuple[int, int] = PI_SIZE, camera: int = 0,
                 controls: Mapping[str, Any] | None = None,
                 lens_position: float | None = None,
                 timeout: float = DEFAULT_TIMEOUT, open_timeout: float | None = None) -> None:
        super().__init__()
        self.size = tuple(size)
        self.camera = camera
        self.controls = dict(controls or {})
        if lens_position is not None:
            self.controls.update(AfMode=0, LensPosition=float(lens_position))  # 0: manual
        self.timeout = timeout
        # libcamera's start takes a second or two; a camera that takes far longer is stuck
        self.open_timeout = open_timeout if open_timeout is not None else timeout + 5
        self.name = "pi" if camera == 0 else f"pi:{camera}"
        self.skipped_controls: list[str] = []
        self._cam: Any = None
        self._worker: _Worker | None = None

    def _open(self) -> None:
        picamera2 = import_picamera2(self.name)
        worker = self._worker = _Worker(self.name)
        made: dict[str, Any] = {}

        def start() -> Any:
            cam = made["cam"] = picamera2(self.camera)
            try:
                config = cam.create_video_configuration(
                    main={"size": self.size, "format": "RGB888"}, buffer_count=3)
                cam.configure(config)
                cam.start()
                if self.controls:
                    offered = set(cam.camera_controls)
                    self.skipped_controls = sorted(set(self.controls) - offered)
                    cam.set_controls({k: v for k, v in self.controls.items() if k in offered})
            except BaseException:
                _release(cam)
                raise
            return cam

        try:
            self._cam = worker.call(start, self.open_timeout)
        except TimeoutError:
            # start() is still running: the camera it ends up with is closed right after
            worker.post(lambda: _release(made.get("cam")))
            worker.stop()
            self._worker = None
            raise FrameSourceError(Message("camera.did_not_start", name=self.name,
                                           seconds=f"{self.open_timeout:g}")) from None
        except (IndexError, RuntimeError, OSError) as e:
            raise FrameSourceError(f"{self.name}: no camera found or it is busy ({e}); is "
                                   "another program using it (rpicam-still, rpicam-hello)?") from e

    def _read(self) -> tuple[np.ndarray, float, Any]:
        assert self._worker is not None and self._cam is not None
        try:
            img = self._worker.call(lambda: self._cam.capture_array("main"), self.timeout)
        except TimeoutError:
            # the worker is stuck in the driver: the camera is closed as soon as it returns
            cam, worker = self._cam, self._worker
            self._cam, self._worker = None, None
            worker.post(lambda: _release(cam))
            worker.stop()
            raise FrameSourceError(Message("camera.no_frame", name=self.name,
                                           seconds=f"{self.timeout:g}")) from None
        return _check_image(np.ascontiguousarray(img[..., :3]), self.name), time.monotonic(), None

    def locked_controls(self) -> dict[str, Any]:
        """The camera's current automatic exposure and white balance, as fixed controls."""
        if self._cam is None or self._worker is None:
            raise FrameSourceError(f"{self.name}: not open")
        md = self._worker.call(self._cam.capture_metadata, self.timeout)
        out: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain"):
            if key in md:
                out[key] = md[key]
        if "ColourGains" in md:
            out["ColourGains"] = tuple(md["ColourGains"])
        return out

    def lock(self) -> dict[str, Any]:
        """Fix exposure and white balance at their current values; returns the controls."""
        controls = self.locked_controls()
        assert self._worker is not None
        self._worker.call(lambda: self._cam.set_controls(controls), self.timeout)
        self.controls.update(controls)
        return controls

    def _close(self) -> None:
        cam, worker = self._cam, self._worker
        self._cam, self._worker = None, None
        if worker is None:
            return
        if cam is not None:
            try:
                worker.call(lambda: _release(cam), 3.0)
            except TimeoutError:
                pass  # still queued: it runs when the driver lets the worker go
        worker.stop()


# ---------------------------------------------------------------- the renderer


class RenderedSource(FrameSource):
    """The simulated table's camera: renders whatever position ``position_fn`` returns now.

    The camera pose, light and table stay fixed for the source's ``seed`` (a mounted camera);
    only the sensor noise changes from frame to frame. ``scene_fn``, when given, returns
    per-frame scene overrides (e.g. ``{"hands": 1}`` while a player reaches over the board).
    With ``fps`` the source keeps the pace of a real camera. Each frame's ``truth`` is the
    :class:`~.render.Rendered`.
    """

    def __init__(self, position_fn: Callable[[], Any], *, scene: Any = None,
                 scene_fn: Callable[[], Mapping[str, Any]] | None = None,
                 size: tuple[int, int] = (1280, 960), seed: int = 0,
                 fps: float | None = None) -> None:
        super().__init__()
        self.position_fn = position_fn
        self.scene = scene
        self.scene_fn = scene_fn
        self.size = size
        self.seed = seed
        self.fps = fps
        self.name = "sim"
        self._last = 0.0

    def _open(self) -> None:
        from .render import Scene  # noqa: PLC0415 - the renderer is only needed here

        if self.scene is None:
            self.scene = Scene()
        self._last = 0.0

    def _read(self) -> tuple[np.ndarray, float, Any]:
        from .render import render  # noqa: PLC0415

        if self.fps:
            wait = self._last + 1.0 / self.fps - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # the camera's own frame clock
        pos = self.position_fn()
        overrides = dict(self.scene_fn()) if self.scene_fn else {}
        if pos is None:
            raise FrameSourceError(f"{self.name}: the simulated table has no position to show")
        shot = render(pos, seed=self.seed, size=self.size, scene=self.scene,
                      noise_seed=self._index, **overrides)
        self._last = time.monotonic()
        return shot.image, self._last, shot


# ---------------------------------------------------------------- a calibrated lens


class UndistortedSource(FrameSource):
    """Another source's frames with the lens distortion taken out (``calibration/lens.json``
    from ``companion calibration camera``), so straight walls stay straight for the reader."""

    def __init__(self, inner: FrameSource, lens: Any) -> None:
        super().__init__()
        self.inner = inner
        self.lens = lens
        self.name = inner.name

    def _open(self) -> None:
        self.inner.open()

    def _read(self) -> tuple[np.ndarray, float, Any]:
        frame = self.inner.read()
        return self.lens.undistort(frame.image), frame.t, frame.truth

    def _close(self) -> None:
        self.inner.close()


def _lens_profile(lens: Any) -> Any:
    if lens is None or hasattr(lens, "undistort"):
        return lens
    from .lens import LensError, LensProfile  # noqa: PLC0415

    try:
        return LensProfile.load(lens)
    except LensError as e:
        raise FrameSourceError(f"lens: {e}") from None


# ---------------------------------------------------------------- specifications

_USB = re.compile(r"^usb:(\d+)$")


def describe_spec(spec: str) -> str:
    """What kind of source a ``--camera`` specification names (for messages and logs)."""
    spec = spec.strip()
    if spec == "pi":
        return "Raspberry Pi camera"
    if spec == "sim":
        return "simulated table"
    if _USB.match(spec):
        return "USB camera"
    if "://" in spec:
        return "stream"
    p = Path(spec)
    if p.is_dir():
        return "folder of pictures"
    return "picture" if p.suffix.lower() in IMAGE_SUFFIXES else "video file"


def open_source(spec: str, *, position_fn: Callable[[], Any] | None = None,
                timeout: float = DEFAULT_TIMEOUT, loop: bool = False,
                size: tuple[int, int] | None = None, open_now: bool = True,
                lens: Any = None, **kwargs: Any) -> FrameSource:
    """The source a ``--camera`` specification names: ``pi``, ``usb:N``, a video or picture
    FILE, a folder (DIR) of pictures, a stream URL (``rtsp://…``, ``http://…``) or ``sim``
    (needs ``position_fn``). Opened unless ``open_now=False``.

    ``lens`` (a :class:`~.lens.LensProfile` or the path of one) undistorts every frame.

    A malformed specification raises ``ValueError``; a source that cannot be opened raises
    :class:`FrameSourceError` — both name the specification.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("camera: give pi, usb:N, a file, a folder, a stream URL or sim")
    spec = spec.strip()
    src: FrameSource
    if spec == "pi":
        src = PiCameraSource(size=size or PI_SIZE, timeout=timeout, **kwargs)
    elif spec == "sim":
        if position_fn is None:
            raise ValueError("camera sim: the simulated table needs a position to render")
        src = RenderedSource(position_fn, size=size or (1280, 960), **kwargs)
    elif spec.startswith("usb"):
        m = _USB.match(spec)
        if not m:
            raise ValueError(f"camera {spec!r}: a USB camera is usb:N with N a number, "
                             "like usb:0")
        src = OpenCVSource(int(m.group(1)), timeout=timeout, size=size)
    elif "://" in spec:
        src = OpenCVSource(spec, timeout=timeout)
    else:
        p = Path(spec)
        if p.is_dir():
            src = ImageFolderSource(p, loop=loop)
        elif not p.exists():
            raise FrameSourceError(f"camera {spec}: no such file or folder (expected pi, "
                                   "usb:N, a file, a folder, a stream URL or sim)")
        elif p.suffix.lower() in IMAGE_SUFFIXES:
            src = ImageFileSource(p)
        else:
            src = OpenCVSource(str(p), timeout=timeout, loop=loop)
    profile = _lens_profile(lens)
    if profile is not None:
        src = UndistortedSource(src, profile)
    return src.open() if open_now else src


__all__ = [
    "EndOfFrames", "Frame", "FrameSource", "FrameSourceError", "ImageFileSource",
    "ImageFolderSource", "OpenCVSource", "PiCameraSource", "RenderedSource", "UndistortedSource",
    "capture_attempts", "describe_spec", "import_picamera2",
    "load_image", "open_source",
]
