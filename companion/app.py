"""The wiring: one place builds the table loop, its journal, camera, buttons, voice and page.

``companion run`` is :func:`run`: :func:`build` puts the parts together, then
:func:`companion.web.serve.serve` serves the page until Ctrl-C. On a Raspberry Pi: the Pi
camera and the GPIO devices of ``hardware/pins.toml``. Anywhere else: the simulated table
(:mod:`companion.sim`: the camera is the renderer drawing a simulated board; the page shows
virtual buttons that drive the same gpio code through gpiozero's ``MockFactory``).

Nothing else builds these parts for a real table: the table loop, the web and the adapters each
take what they need, and only this module knows which concrete part that is.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .rules import PRESETS
from .sim import MicroSimWorld, SimWorld
from .speech import Voice
from .store import Store, default_path
from .table import Table
from .web.address import PublicAddress

if TYPE_CHECKING:
    from flask import Flask

# The colour profile the page's calibration keeps, beside the journal.
COLOURS_FILE = "colours.json"


@dataclass
class RunOptions:
    camera: str | None = None  # pi | usb:N | FILE | sim; None: pi on a Pi, sim elsewhere
    host: str = "0.0.0.0"
    port: int = 8000
    db: str | None = None
    preset: str = "abacus-2013"  # or micro-robots: setup offers Micro Robots first
    pin: str | None = None
    pins: str | None = None  # pins.toml
    quiet: bool = False
    colours: str | None = None  # the table's colour profile; None: colours.json beside the db


def model() -> str | None:
    """The board's model string from the device tree (``Raspberry Pi 4 Model B Rev 1.4``)."""
    for path in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
        try:
            return Path(path).read_bytes().rstrip(b"\x00").decode(errors="replace")
        except OSError:
            continue
    return None


def on_raspberry_pi() -> bool:
    m = model()
    return bool(m and m.startswith("Raspberry Pi"))


def lan_address() -> str:
    """The address other devices on the network reach this machine at now (no packet is
    sent): see :mod:`companion.web.address`."""
    return PublicAddress("0.0.0.0", 0).guess() or "127.0.0.1"


def load_colours(path: Path, *, given: bool) -> Any:
    """The table's colour profile (``companion calibration colours``, or the page's
    calibration kept beside the journal); ``None`` when there is none yet. A profile named
    on the command line must exist; one that cannot be used is a :class:`ValueError` naming
    it, before anything starts."""
    from .vision.colours import Profile, ProfileError

    if not path.exists():
        if given:
            raise ValueError(f"--colours: {path}: no such file (make one with `companion "
                             "calibration colours`)")
        return None
    try:
        return Profile.load(path)
    except ProfileError as e:
        raise ValueError(f"--colours: {e}") from None


def build(opts: RunOptions, out: TextIO | None = None) -> tuple[Table, Flask, str]:
    """The table (with its store, camera and buttons) and the app; returns (table, app, url).
    What it says goes to ``out`` (standard output when none is given)."""
    out = out if out is not None else sys.stdout
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from . import solver
    from .gpio import Hardware, PinMap
    from .vision.camera_setup import CameraSetup
    from .vision.feed import CameraFeed
    from .web import create_app

    if opts.preset not in PRESETS:
        raise ValueError(f"--preset: unknown edition {opts.preset!r} (known: "
                         f"{', '.join(PRESETS)})")
    pi = on_raspberry_pi()
    camera = opts.camera or ("pi" if pi else "sim")
    if not pi:
        print("Not a Raspberry Pi: running the simulated table (camera: "
              f"{'rendered board' if camera == 'sim' else camera}, virtual buttons on the page).",
              file=out)
    pins = PinMap.load(opts.pins)
    db = Path(opts.db) if opts.db else default_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    table = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db),
                  solve=solver.solve, pin=opts.pin, preset=opts.preset, simulated=not pi)
    if camera == "sim":
        table.sim = SimWorld()
        table.micro_sim = MicroSimWorld()
    colours = Path(opts.colours) if opts.colours else db.parent / COLOURS_FILE
    setup = CameraSetup(db.parent)  # lens.json and camera.json beside the journal
    if camera != "sim":
        print(f"camera calibration: {setup.describe(camera)}", file=out)
    table.attach_camera(CameraFeed(table, camera, sim=table.sim, micro_sim=table.micro_sim,
                                   profile=load_colours(colours, given=bool(opts.colours)),
                                   profile_path=colours, setup=setup))

    def from_buttons(cmd: dict[str, Any]) -> None:
        if cmd.get("type") == "dial":
            table.republish()  # the page shows the dial's number
        else:
            table.post(cmd, "buttons")

    factory = None if pi else MockFactory(pin_class=MockPWMPin)
    table.attach_hardware(Hardware(pins, from_buttons, clock=table.now, pin_factory=factory))
    table.speaker.attach_voice(Voice())  # silent where espeak-ng is not installed
    public = PublicAddress(opts.host, opts.port)
    app = create_app(table, {"PUBLIC_URL": public})
    return table, app, public()


def run(opts: RunOptions, out: TextIO | None = None) -> int:
    """``companion run``: build the table and serve it until Ctrl-C or SIGTERM; returns the
    exit status."""
    out = out if out is not None else sys.stdout
    from .web.serve import serve

    logging.basicConfig(level=logging.WARNING if opts.quiet else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    table, app, url = build(opts, out)
    return serve(table, app, url, host=opts.host, port=opts.port, quiet=opts.quiet, out=out)
