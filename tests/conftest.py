"""Fixtures shared by the test modules, and the markers of the fast lane.

``pytest -m "not slow"`` is the fast lane: it leaves out the real browser and the tests that
take seconds each (marked ``@pytest.mark.slow`` where they stand). ``-m camera`` runs the
vision tests alone, ``-m browser`` the browser tests alone. CI runs everything."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

CHROMIUM = Path("/usr/bin/chromium")  # Debian's Chromium, which the browser tests drive

# Modules that read rendered frames or real photos through the vision pipeline.
CAMERA_MODULES = {
    "test_bench_camera.py", "test_bench_vision.py", "test_camera_table.py", "test_chip.py",
    "test_colours.py", "test_lens.py", "test_locate.py", "test_markers.py", "test_micro_render.py",
    "test_micro_vision.py", "test_read.py", "test_render.py", "test_robots.py", "test_tileid.py",
    "test_track.py", "test_verify_frames.py",
}


def _drives_a_browser(module: object) -> bool:
    """A module that imports Playwright (or is named test_browser*) drives a real Chromium."""
    if str(getattr(module, "__name__", "")).startswith("test_browser"):
        return True
    return any(str(getattr(v, "__module__", "")).startswith("playwright")
               or str(getattr(v, "__name__", "")).startswith("playwright")
               for v in vars(module).values())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browser: dict[object, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module not in browser:
            browser[module] = _drives_a_browser(module)
        if browser[module]:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
        if item.path.name in CAMERA_MODULES:
            item.add_marker(pytest.mark.camera)



@pytest.fixture
def factory():
    """A fresh mock pin factory (PWM-capable) for each test; the previous one is restored."""
    old = Device.pin_factory
    mock = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = mock
    try:
        yield mock
    finally:
        mock.reset()
        Device.pin_factory = old


@pytest.fixture
def cli(capsys):
    """Run ``companion`` in this process: ``cli("solve", path)`` → (exit status, stdout,
    stderr)."""
    from companion.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


SIM_PIN = "246810"


@pytest.fixture
def sim_table(tmp_path, factory):
    """A running simulated table (its journal in ``tmp_path``, PIN ``SIM_PIN``): the rendered
    camera, both games' simulated robots and the buttons on the mock pins."""
    import time

    from companion.gpio import Hardware, PinMap
    from companion.sim import MicroSimWorld, SimWorld
    from companion.store import Store
    from companion.table import Table
    from companion.vision.feed import CameraFeed

    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db), solve=None,
              pin=SIM_PIN, simulated=True)
    t.sim = SimWorld()
    t.micro_sim = MicroSimWorld()
    t.attach_camera(CameraFeed(t, "sim", sim=t.sim, micro_sim=t.micro_sim))
    t.attach_hardware(Hardware(PinMap.load(), lambda c: t.post(c, "buttons"), clock=t.now,
                               pin_factory=factory))
    t.start()
    yield t
    t.stop()


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a browser test module (Playwright driving Debian's build)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                              args=["--no-sandbox", "--disable-background-networking"])
        yield b
        b.close()
