"""The camera's calibration, applied by ``companion run``: two files beside the journal.

* ``lens.json`` — the lens model (``companion calibration camera … --out DIR/lens.json``):
  every frame of a real camera is undistorted with it;
* ``camera.json`` — the Pi camera's settings::

      {"format": "companion-camera/1",
       "controls": {"AeEnable": false, "AwbEnable": false, "ExposureTime": 16000,
                    "AnalogueGain": 2.5, "ColourGains": [1.9, 1.6]},
       "lens_position": 1.25}

  ``controls`` are the exposure and white balance locked when the table's colours are learned
  (the page's *Calibrate colours* writes them), so the robots' colours do not drift as hands
  enter the picture; ``lens_position`` fixes the focus of a camera that has one (Camera
  Module 3) in dioptres, 1 / the camera's distance to the board in metres (written by hand).

A file that cannot be used is a :class:`CameraSetupError` naming it and the field, before
anything starts.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CompanionError

CAMERA_FILE = "camera.json"
LENS_FILE = "lens.json"
CAMERA_FORMAT = "companion-camera/1"
# control: the types it takes (picamera2's names)
CONTROLS: dict[str, tuple[type, ...]] = {
    "AeEnable": (bool,), "AwbEnable": (bool,), "ExposureTime": (int,),
    "AnalogueGain": (int, float), "ColourGains": (list, tuple),
}
MAX_LENS_POSITION = 32.0  # dioptres: a few centimetres


class CameraSetupError(CompanionError, ValueError):
    """A camera.json that cannot be used: the message names the file and the field."""


class CameraSetup:
    """The calibration kept in ``folder`` (the journal's): what to open a camera with, and
    where a lock taken on the page is kept."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.camera_path = self.folder / CAMERA_FILE
        self.lens_path = self.folder / LENS_FILE

    def load(self) -> dict[str, Any]:
        """``{"controls": {...}, "lens_position": float | None}`` (empty without a file)."""
        where = str(self.camera_path)
        try:
            text = self.camera_path.read_text()
        except FileNotFoundError:
            return {"controls": {}, "lens_position": None}
        except OSError as e:
            raise CameraSetupError(f"{where}: cannot be read ({e.strerror or e})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CameraSetupError(f"{where}: not JSON ({e.msg} at line {e.lineno})") from None
        return check(data, where)

    def options(self, spec: str) -> dict[str, Any]:
        """What :func:`~.sources.open_source` takes for ``spec`` from this calibration."""
        out: dict[str, Any] = {}
        if spec == "sim":
            return out
        if self.lens_path.exists():
            from .lens import LensError, LensProfile  # noqa: PLC0415

            try:
                out["lens"] = LensProfile.load(self.lens_path)
            except LensError as e:
                raise CameraSetupError(f"{self.lens_path}: {e}") from None
        if spec == "pi":
            settings = self.load()
            if settings["controls"]:
                out["controls"] = settings["controls"]
            if settings["lens_position"] is not None:
                out["lens_position"] = settings["lens_position"]
        return out

    def describe(self, spec: str) -> str:
        """One line for the start-up message: what of the calibration is applied. Checks
        both files, whatever the camera, so a bad one is named before anything starts."""
        self.load()
        opts = self.options(spec)
        parts = []
        if "lens" in opts:
            parts.append(f"lens model {self.lens_path.name}")
        if opts.get("controls"):
            parts.append("exposure and white balance locked")
        if "lens_position" in opts:
            parts.append(f"focus fixed at {opts['lens_position']:g} dioptres")
        return ", ".join(parts) or "none (see calibration/README.md)"

    def keep_lock(self, source: Any) -> dict[str, Any] | None:
        """Lock the camera's exposure and white balance at their current values and keep
        them in camera.json; ``None`` for a camera that cannot be locked (not a Pi camera),
        ``{"error": why}`` when locking or keeping failed (the colours are learned anyway)."""
        camera = getattr(source, "inner", source)  # an undistorted source wraps the camera
        if camera is None or not hasattr(camera, "lock"):
            return None
        try:
            controls = camera.lock()
            settings = self.load()
            settings["controls"] = dict(controls)
            self.save(settings)
        except Exception as e:  # noqa: BLE001 - a camera gone, a full disk: say so
            return {"error": f"exposure and white balance not locked: {e}"}
        return controls

    def save(self, settings: Mapping[str, Any]) -> None:
        data = {"format": CAMERA_FORMAT,
                "controls": {k: list(v) if isinstance(v, tuple) else v
                             for k, v in settings.get("controls", {}).items()}}
        if settings.get("lens_position") is not None:
            data["lens_position"] = settings["lens_position"]
        check(data, str(self.camera_path))
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.camera_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        tmp.replace(self.camera_path)


def check(data: Any, where: str) -> dict[str, Any]:
    """camera.json's content, checked; :class:`CameraSetupError` naming the field."""
    if not isinstance(data, dict):
        raise CameraSetupError(f"{where}: a JSON object is expected")
    if data.get("format") != CAMERA_FORMAT:
        raise CameraSetupError(f"{where}: format: {data.get('format')!r} is not "
                               f"{CAMERA_FORMAT!r}")
    unknown = sorted(set(data) - {"format", "controls", "lens_position"})
    if unknown:
        raise CameraSetupError(f"{where}: {unknown[0]}: unknown field")
    controls = data.get("controls", {})
    if not isinstance(controls, dict):
        raise CameraSetupError(f"{where}: controls: an object of camera controls is expected")
    out: dict[str, Any] = {}
    for key, value in controls.items():
        kinds = CONTROLS.get(key)
        if kinds is None:
            raise CameraSetupError(f"{where}: controls.{key}: not a control the companion sets "
                                   f"({', '.join(CONTROLS)})")
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            raise CameraSetupError(f"{where}: controls.{key}: {value!r} is not "
                                   f"{' or '.join(k.__name__ for k in kinds)}")
        if key == "ColourGains":
            if len(value) != 2 or not all(_positive(g) for g in value):
                raise CameraSetupError(f"{where}: controls.ColourGains: two positive gains "
                                       "(red, blue) are expected")
            value = tuple(float(g) for g in value)
        elif key in ("ExposureTime", "AnalogueGain") and not _positive(value):
            raise CameraSetupError(f"{where}: controls.{key}: must be positive")
        out[key] = value
    lens = data.get("lens_position")
    if lens is not None and not (_number(lens) and 0.0 <= lens <= MAX_LENS_POSITION):
        raise CameraSetupError(f"{where}: lens_position: dioptres from 0 (infinity) to "
                               f"{MAX_LENS_POSITION:g}, 1 / the distance in metres; not {lens!r}")
    return {"controls": out, "lens_position": float(lens) if lens is not None else None}


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _positive(x: Any) -> bool:
    return _number(x) and x > 0
