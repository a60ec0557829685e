"""``companion run``: put the table, the camera, the buttons and the page together and serve.

On a Raspberry Pi: the Pi camera and the GPIO devices of ``hardware/pins.toml``. Anywhere else:
the simulated table (the camera is the renderer drawing a simulated board; the page shows
virtual buttons that drive the same gpio code through gpiozero's ``MockFactory``). Served by
waitress with a thread per open page (Server-Sent Events hold one each) plus spares for
requests. Ctrl-C (or SIGTERM from systemd) ends every stream, finishes the queued commands and
closes the journal: nothing is lost.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .address import PublicAddress

log = logging.getLogger("companion.run")

# Eight phones, two screens, the calibration page, and room for phones that slept or closed
# the tab: their streams hold a thread until the next heartbeat finds them gone.
STREAM_CLIENTS = 16
REQUEST_THREADS = 8
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
    from ..vision.colours import Profile, ProfileError

    if not path.exists():
        if given:
            raise ValueError(f"--colours: {path}: no such file (make one with `companion "
                             "calibration colours`)")
        return None
    try:
        return Profile.load(path)
    except ProfileError as e:
        raise ValueError(f"--colours: {e}") from None


def build(opts: RunOptions, out: TextIO = sys.stdout) -> tuple[Any, Any, str]:
    """The table (with its store, camera and buttons) and the app; returns (table, app, url)."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from .. import solver
    from ..gpio import Hardware, PinMap
    from ..rules import PRESETS
    from ..sim import MicroSimWorld, SimWorld
    from ..speech import Voice
    from ..store import Store, default_path
    from ..table import Table
    from ..vision.camera_setup import CameraSetup
    from ..vision.feed import CameraFeed
    from . import create_app

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
    table.attach_voice(Voice())  # silent where espeak-ng is not installed
    public = PublicAddress(opts.host, opts.port)
    app = create_app(table, {"PUBLIC_URL": public})
    return table, app, public()


def run(opts: RunOptions, out: TextIO = sys.stdout) -> int:
    """Serve until Ctrl-C or SIGTERM; returns the exit status."""
    import segno
    from waitress.server import create_server

    logging.basicConfig(level=logging.WARNING if opts.quiet else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    table, app, url = build(opts, out)
    server = create_server(
        app, host=opts.host, port=opts.port,
        threads=STREAM_CLIENTS + REQUEST_THREADS,
        connection_limit=100,
        # Send each event as soon as it is written: waitress otherwise holds small writes
        # until 18 kB are buffered or its loop wakes up.
        send_bytes=1,
        channel_timeout=300,
        ident="companion",
        clear_untrusted_proxy_headers=True,
    )
    table.broker.max_clients = STREAM_CLIENTS
    port = server.effective_port
    if port != opts.port:
        app.config["PUBLIC_URL"].port = port
        url = app.config["PUBLIC_URL"]()
    table.start()
    print(f"Ricochet Companion at {url}   table PIN {table.pin}", file=out)
    print(f"journal: {table.store.path if table.store is not None else '-'}", file=out)
    if not opts.quiet:
        try:
            segno.make(url, error="m").terminal(out=out, compact=True)
        except Exception:  # noqa: BLE001 - a terminal without the block characters
            pass
    print("Ctrl-C stops it; nothing is lost.", file=out)
    out.flush()

    def stop(signum: int, frame: Any) -> None:
        # End the event streams first, so waitress's threads are free to finish; then let the
        # server loop unwind.
        table.broker.close()
        raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        table.broker.close()
        try:
            server.task_dispatcher.shutdown(timeout=3)
        except Exception:  # noqa: BLE001
            pass
        server.close()
        table.stop()
        print("stopped; the journal is saved", file=out)
        out.flush()
    return 0


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> tuple[Any, str]:
    """Serve ``app`` with the same waitress settings on a background thread (for tests and the
    benchmark); returns (server, base url). Stop with ``server.close()``."""
    from waitress.server import create_server

    server = create_server(app, host=host, port=port, threads=STREAM_CLIENTS + REQUEST_THREADS,
                           connection_limit=100, send_bytes=1, ident="companion")
    threading.Thread(target=server.run, name="waitress", daemon=True).start()
    return server, f"http://{host}:{server.effective_port}"
