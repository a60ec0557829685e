"""A test double of picamera2: the parts of its API the companion uses, behaving as picamera2
does, over a scripted camera (as gpiozero's MockFactory stands in for the pins).

What it keeps from picamera2 (``picamera2/picamera2.py``):

* ``Picamera2(n)`` acquires camera ``n`` and holds it until ``close()``; the camera manager
  keeps a reference to every opened camera, so dropping the object does not free it. Any
  failure in the constructor (no such camera, camera busy) is
  ``RuntimeError("Camera __init__ sequence did not complete.")``;
* ``create_video_configuration`` fills in defaults (``XBGR8888`` 1280×720, 6 buffers) and
  needs an open camera; ``configure`` refuses while started, checks formats and even sizes;
  ``start`` refuses an unconfigured camera; ``set_controls`` refuses a control the camera does
  not advertise (``RuntimeError("Control X is not advertised by libcamera")``);
* ``capture_array("main")`` gives an H×W×3 ``uint8`` array for ``RGB888``/``BGR888`` and
  H×W×4 for the ``X…8888`` formats; ``capture_metadata`` the running exposure and gains;
* ``stop()`` and ``close()`` are harmless to repeat; ``close()`` stops first and releases.

The :class:`Rig` is the camera on the ribbon cable: which sensors are attached, and the faults
to inject (a step that raises, a start that takes long, a capture that hangs).
"""

from __future__ import annotations

import sys
import threading
import time
import types
from typing import Any

import numpy as np

COMMON_CONTROLS = {
    "AeEnable": (False, True, True),
    "AwbEnable": (False, True, True),
    "ExposureTime": (75, 11766829, None),
    "AnalogueGain": (1.0, 10.66, None),
    "ColourGains": (0.0, 32.0, None),
    "FrameDurationLimits": (33333, 120000, None),
    "NoiseReductionMode": (0, 4, 0),
}
SENSORS = {
    # Camera Module 2: fixed focus
    "imx219": {"resolution": (3280, 2464), "controls": COMMON_CONTROLS},
    # Camera Module 3: autofocus, so it has a lens to set
    "imx708": {"resolution": (4608, 2592),
               "controls": {**COMMON_CONTROLS, "AfMode": (0, 2, 0),
                            "LensPosition": (0.0, 15.0, 1.0)}},
}
RGB_FORMATS = ("RGB888", "BGR888")
FORMATS = RGB_FORMATS + ("XBGR8888", "XRGB8888", "YUV420")


class Rig:
    """The attached cameras and the faults to inject. ``fail[step]`` is raised by that step
    (``"configure"``, ``"start"``, ``"set_controls"``, ``"capture"``) until removed;
    ``start_delay`` seconds are spent in ``start()``; after :meth:`hang_captures` a capture
    waits until :meth:`resume_captures` (a camera that stopped sending frames)."""

    def __init__(self, sensors: tuple[str, ...] = ("imx219",)) -> None:
        self.sensors = list(sensors)
        self.fail: dict[str, BaseException] = {}
        self.start_delay = 0.0
        self._flowing = threading.Event()
        self._flowing.set()
        self.manager: dict[int, Picamera2Base] = {}  # picamera2's CameraManager.cameras
        self.lock = threading.Lock()
        self.opened = 0

    @property
    def acquired(self) -> set[int]:
        """The cameras held open now (nobody else can open them)."""
        with self.lock:
            return {i for i, cam in self.manager.items() if cam.is_open}

    def hang_captures(self) -> None:
        self._flowing.clear()

    def resume_captures(self) -> None:
        self._flowing.set()

    def module(self) -> types.ModuleType:
        """A ``picamera2`` module whose cameras are this rig's."""
        mod = types.ModuleType("picamera2")
        mod.Picamera2 = type("Picamera2", (Picamera2Base,), {"rig": self})
        mod.__file__ = __file__
        return mod

    def install(self, monkeypatch: Any) -> types.ModuleType:
        mod = self.module()
        monkeypatch.setitem(sys.modules, "picamera2", mod)
        return mod


class Picamera2Base:
    rig: Rig

    def __init__(self, camera_num: int = 0, verbose_console: Any = None,
                 tuning: Any = None) -> None:
        self.is_open = False
        self.started = False
        self.camera_config: dict[str, Any] | None = None
        self.applied: dict[str, Any] = {}
        self.frames = 0
        rig = self.rig
        try:
            with rig.lock:
                model = rig.sensors[camera_num]  # IndexError: no such camera
                held = rig.manager.get(camera_num)
                if held is not None and held.is_open:
                    raise RuntimeError("Failed to acquire camera: Device or resource busy")
                rig.manager[camera_num] = self
                rig.opened += 1
            self.camera_idx = camera_num
            self.model = model
            self.sensor_resolution = SENSORS[model]["resolution"]
            self.is_open = True
        except Exception:
            raise RuntimeError("Camera __init__ sequence did not complete.") from None

    # -- what the camera offers
    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        return dict(SENSORS[self.model]["controls"])

    # -- configuration
    def create_video_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   raw: dict | None = None, transform: Any = None,
                                   colour_space: Any = None, buffer_count: int = 6,
                                   controls: dict | None = None, display: str | None = "main",
                                   encode: str | None = "main", queue: bool = True) -> dict:
        if not self.is_open:
            raise RuntimeError("Camera not opened")
        stream = {"format": "XBGR8888", "size": (1280, 720)} | dict(main or {})
        w, h = stream["size"]
        stream["size"] = (w - w % 2, h - h % 2)
        return {"use_case": "video", "main": stream, "lores": lores, "raw": raw,
                "buffer_count": buffer_count, "controls": dict(controls or {}),
                "display": display, "encode": encode, "queue": queue}

    def configure(self, camera_config: dict) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        main = camera_config["main"]
        if main["format"] not in FORMATS:
            raise RuntimeError(f"Bad format {main['format']} in stream main")
        size = main["size"]
        if type(size) is not tuple or len(size) != 2:
            raise RuntimeError("size in main stream should be (width, height)")
        if size[0] % 2 or size[1] % 2:
            raise RuntimeError("width and height should be even")
        self._fault("configure")
        self.camera_config = camera_config

    def start(self, config: Any = None, show_preview: bool = False) -> None:
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        if self.started:
            return
        if self.rig.start_delay:
            time.sleep(self.rig.start_delay)
        self._fault("start")
        self.started = True

    def set_controls(self, controls: dict[str, Any]) -> None:
        for name in controls:
            if name not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        self._fault("set_controls")
        self.applied.update(controls)

    # -- capture
    def capture_array(self, name: str = "main", wait: Any = None) -> np.ndarray:
        if not self.started:
            raise RuntimeError("Camera is not running")
        self.rig._flowing.wait()
        self._fault("capture")
        assert self.camera_config is not None
        stream = self.camera_config[name]
        w, h = stream["size"]
        channels = 3 if stream["format"] in RGB_FORMATS else 4
        self.frames += 1
        img = np.zeros((h, w, channels), np.uint8)
        img[..., 0] = self.frames % 256  # blue first: RGB888 is BGR in memory
        img[..., 2] = 200
        return img

    def capture_metadata(self, wait: Any = None) -> dict[str, Any]:
        if not self.started:
            raise RuntimeError("Camera is not running")
        if self.applied.get("AeEnable") is False:
            exposure, gain = self.applied.get("ExposureTime"), self.applied.get("AnalogueGain")
        else:
            exposure, gain = 16_000 + 10 * self.frames, 2.5
        gains = self.applied.get("ColourGains", (1.9, 1.6))
        return {"ExposureTime": exposure, "AnalogueGain": gain, "ColourGains": tuple(gains),
                "Lux": 320.0, "FrameDuration": 33333}

    # -- the end
    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        if not self.is_open:
            return
        self.stop()
        with self.rig.lock:
            self.is_open = False
            if self.rig.manager.get(self.camera_idx) is self:
                del self.rig.manager[self.camera_idx]

    def _fault(self, step: str) -> None:
        error = self.rig.fail.get(step)
        if error is not None:
            raise error
