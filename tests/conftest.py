"""Fixtures shared by the test modules, and the markers of the fast lane.

``pytest -m "not slow"`` is the fast lane: it leaves out the real browser and the tests that
take seconds each (marked ``@pytest.mark.slow`` where they stand). ``-m camera`` runs the
vision tests alone, ``-m browser`` the browser tests alone. CI runs everything."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

CHROMIUM = Path("/usr/bin/chromium")  # Debian's Chromium, which the browser tests drive

_SOLVE = object()  # make_table's default: the real solver

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


# The small game the game's and the referee's tests play: an 8×8 board with one wall (d1's
# east side), routes easy to reason about. Blue triangle in the north-east corner, red circle
# in the south-east corner, the vortex at d8, the green square at a8.
SMALL_BOARD = {
    "size": 8,
    "targets": [
        {"cell": "h8", "color": "blue", "shape": "triangle"},
        {"cell": "h1", "color": "red", "shape": "circle"},
        {"cell": "d8", "color": "any", "shape": "vortex"},
        {"cell": "a8", "color": "green", "shape": "square"},
    ],
    "walls": [["d1", "right"]],
}
SMALL_ROBOTS = {"red": "c2", "green": "b6", "blue": "a1", "yellow": "e5"}

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


# ---------------------------------------------------------------- the table loop

WAIT = 10.0  # ceiling for a table's events; a working build is far quicker


def wait_state(table: Any, pred: Callable[[dict[str, Any]], bool],
               timeout: float = WAIT) -> dict[str, Any]:
    """Wait, on the table's own event stream, until the published state satisfies ``pred``."""
    sub, _ = table.broker.subscribe()
    try:
        end = time.monotonic() + timeout
        while True:
            state = table.view()
            if pred(state):
                return state
            left = end - time.monotonic()
            assert left > 0, f"timed out; last state: phase={state['phase']} {state}"
            try:
                sub._queue.get(timeout=left)
            except queue.Empty:
                pass
    finally:
        table.broker.unsubscribe(sub)


def make_table(tmp_path: Path, *, solve: Any = _SOLVE, sim: bool = True, name: str = "j.db",
               **kw: Any) -> Any:
    """A table loop journaling to ``tmp_path/name``, not yet started: with the simulated
    camera and robots of both games unless ``sim`` is false; ``solve`` is the real solver
    unless given (``None``: no solver)."""
    from companion import solver
    from companion.sim import MicroSimWorld, SimWorld
    from companion.store import Store
    from companion.table import Table
    from companion.vision.feed import CameraFeed

    db = tmp_path / name
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db),
              solve=solver.solve if solve is _SOLVE else solve, simulated=sim, **kw)
    if sim:
        t.sim = SimWorld()
        t.micro_sim = MicroSimWorld()
        t.attach_camera(CameraFeed(t, "sim", sim=t.sim, micro_sim=t.micro_sim))
    return t


def set_up(t: Any, timer: float = 60, players: Iterable[str] = ("Ann", "Ben")) -> dict[str, Any]:
    """A classic game on ``t`` set up as the setup form sends it; returns the command."""
    spec: dict[str, Any] = t.pages.check_setup(list(players), "abacus-2013",
                                               {"timer_seconds": timer}, None)
    out = t.submit(spec)
    assert out.ok, out.reason
    return spec


def reveal_and_solve(t: Any) -> dict[str, Any]:
    """Reveal a chip and wait for the solver's answer for the round."""
    assert t.submit({"type": "reveal"}).ok
    wait_state(t, lambda s: s["optimal_known"])
    answer: dict[str, Any] = t.pages.solution()
    return answer


def demonstrating(t: Any) -> tuple[dict[str, Any], Any]:
    """A classic round on ``t`` where seat 1 bid the optimal length and now demonstrates: the
    solver's answer and the round's position."""
    set_up(t, timer=0.3)
    opt = reveal_and_solve(t)
    assert t.submit({"type": "bid", "seat": 1, "value": opt["length"]}).ok
    wait_state(t, lambda s: s["phase"] == "demonstrating")
    return opt, t.referee.position()


def unreachable(pos: Any, robot: str, avoid: Iterable[int] = ()) -> int:
    """A free cell of ``pos``'s board (off the diagonals, not ``avoid``) that no legal moves
    take ``robot`` to from ``pos``: the verifier's search, done in full, finds none."""
    from companion.verify import finder_for

    board, names = pos.board, tuple(pos.robots)
    finder = finder_for(board, pos.rules, names)
    state = tuple(pos.robots[n] for n in names)
    i = names.index(robot)

    def proven(c: int) -> bool:
        r = finder.explain(state, (*state[:i], c, *state[i + 1:]), 4)
        return not r.explanations and not r.exhausted

    taken = {*state, *avoid}
    return next(c for c in board.cells() if c not in board.blocked
                and board.diagonal_at(c) is None and c not in taken and proven(c))


def ask(t: Any, *, ready: Any = None) -> dict[str, Any]:
    """Seat 1 demonstrates on ``t`` (``ready``: the solver's answer and the position of a
    round set up already); her first move is seen with another robot, which stood still, on
    a cell no legal move reaches: the camera asks about it. ``still`` (that robot), ``wrong``
    and ``wrong_cell`` (the cell it is seen on), ``stood`` (its own cell), ``first`` (the
    move, as text), ``mover`` (its robot), ``after`` (the position after it), ``seen`` (its
    robots' cells) and ``state`` (the table's state once the question is asked)."""
    from companion.rules import Move

    opt, pos = ready if ready is not None else demonstrating(t)
    board = pos.board
    first = Move.parse(" ".join(opt["moves"][0].split()[:2]))
    after = pos.push(first)
    still = next(r for r in pos.robots if r != first.robot)
    wrong_cell = unreachable(after, still)
    wrong = board.name(wrong_cell)
    seen = {r: board.name(c) for r, c in after.robots.items()}
    t.observe(None, "camera")
    t.observe({**seen, still: wrong}, "camera")
    state = wait_state(t, lambda s: s["question"] is not None
                       and "is that right?" in s["message"])
    return {"still": still, "wrong": wrong, "wrong_cell": wrong_cell,
            "stood": board.name(pos.robots[still]), "first": first.text(),
            "mover": first.robot, "after": after, "seen": seen, "state": state}


@pytest.fixture
def served_table(tmp_path):
    """``served_table(**kw)`` → ``(table, url)``: a table made by :func:`make_table`, started,
    its page served from this process; both are stopped after the test."""
    from companion.web import create_app
    from companion.web.serve import serve_in_thread

    running = []

    def start(**kw: Any) -> tuple[Any, str]:
        table = make_table(tmp_path, **kw)
        table.start()
        try:
            server, url = serve_in_thread(create_app(table, {"SSE_HEARTBEAT": 0.5}))
        except BaseException:
            table.stop()
            raise
        running.append((server, table))
        return table, url

    yield start
    for server, table in reversed(running):
        server.close()
        table.stop()


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a browser test module (Playwright driving Debian's build)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                              args=["--no-sandbox", "--disable-background-networking"])
        yield b
        b.close()


def class_probs(rows: list[dict[str, float]]) -> Any:
    """The cell classifier's probabilities for crops described as ``{class: p}`` (the rest of
    each row is the empty class), in :data:`companion.vision.cells.CLASSES` order."""
    import numpy as np

    from companion.vision.cells import CLASSES

    out = np.zeros((len(rows), len(CLASSES)))
    for i, row in enumerate(rows):
        for name, p in row.items():
            out[i, CLASSES.index(name)] = p
        out[i, 0] = max(0.0, 1.0 - sum(row.values()))
    return out


def read3d(seed: int, hands: float) -> tuple[Any, Any]:
    """A frame of the 3D source (made apart from the reader) and its reading as in a game:
    a reader that knows the tiles and the game's robots, on its second look."""
    from companion.benchmarks.vision_render3d import _profile
    from companion.board import cell_name
    from companion.vision.read import Reader
    from companion.vision.render3d import random_frame

    shot = random_frame(seed, hands=hands)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    reader = Reader(tiles=list(shot.tiles), profile=_profile(truth), read_chip=False)
    reader.read(shot.image)
    return shot, reader.read(shot.image)
