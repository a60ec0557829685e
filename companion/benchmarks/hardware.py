"""The table's hardware through gpiozero's mock pin layer: press-to-command latency and the
hourglass's CPU cost.

Latency is timed from the moment a mock pin is driven (``drive_low()``, as a finger closes the
switch) to the command reaching ``submit``, through the same gpiozero devices, debounce and
worker thread as on the Pi: a seat's button with the dial set (the command leaves on the press),
the start button (the command leaves on the release, since a hold means undo), and the seat's
button again while another Python thread keeps the process busy (the table loop and the web
server share the interpreter on the Pi). Presses are spaced past the debounce lockout, as a
person's are.

The hourglass cost is the process CPU time (``time.process_time``) over a stretch of wall time
while a timer runs and the bar is redrawn at ``fps``; the same stretch with no timer gives the
idle figure. On a Pi the pin writes go to lgpio instead of mock pins.

``companion bench hardware [--presses N] [--seconds S] [--out PATH]``
"""

from __future__ import annotations

import argparse
import platform
import statistics
import threading
import time
from typing import Any

from ..gpio import Hardware, PinMap
from . import write_report

GOAL_MEDIAN_MS = 5.0
GOAL_P99_MS = 20.0
GOAL_CPU_PERCENT = 3.0
GOAL_FPS = 30.0


class _Sink:
    """Receives commands and notes when each arrived."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.at = 0.0
        self.command: dict | None = None

    def __call__(self, command: dict) -> None:
        if command["type"] == "dial":
            return
        self.at = time.perf_counter()
        self.command = command
        self.event.set()

    def arm(self) -> None:
        self.event.clear()
        self.command = None


class _Busy:
    """A CPU-bound Python thread competing for the interpreter."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)

    def _spin(self) -> None:
        x = 0
        while not self._stop.is_set():
            for i in range(2000):
                x += i * i
        self.result = x

    def __enter__(self) -> _Busy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _ms(value: float | None) -> str:
    """A latency figure, or a dash where every press of the case was lost."""
    return "—" if value is None else f"{value:.3f}"


def _row(samples: list[float], lost: int) -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "presses": len(samples) + lost,
        "lost": lost,
        "median_ms": statistics.median(ordered) if ordered else None,
        "p99_ms": _percentile(ordered, 0.99) if ordered else None,
        "max_ms": ordered[-1] if ordered else None,
    }


def measure_latency(presses: int) -> dict[str, dict[str, Any]]:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    pins = PinMap.load()
    gap = pins.debounce + 0.005
    rows: dict[str, dict[str, Any]] = {}
    sink = _Sink()
    with Hardware(pins, sink, pin_factory=MockFactory(pin_class=MockPWMPin)) as hw:
        hw.show({"phase": "bidding", "mode": "multi", "timer": None, "leader": None,
                 "demonstrating": None, "players": [], "verdict": None})
        hw.turn(3)
        assert hw.sync()

        def bid_presses(count: int) -> dict[str, Any]:
            samples, lost = [], 0
            for i in range(count):
                pin = hw.pin("bid", i % len(pins.bids))
                sink.arm()
                t0 = time.perf_counter()
                pin.drive_low()
                if sink.event.wait(1.0) and sink.command and sink.command["type"] == "bid":
                    samples.append((sink.at - t0) * 1000.0)
                else:
                    lost += 1
                time.sleep(gap)
                pin.drive_high()
                time.sleep(gap)
            return _row(samples, lost)

        rows["bid, dial set (on press)"] = bid_presses(presses)

        # Between rounds (no chip showing) a tap on the start button reveals the next chip.
        hw.show({"phase": "idle", "mode": "multi", "timer": None, "leader": None,
                 "demonstrating": None, "players": [], "verdict": None})
        assert hw.sync()
        samples, lost = [], 0
        start = hw.pin("start")
        for _ in range(max(1, presses // 2)):
            start.drive_low()
            time.sleep(gap)
            sink.arm()
            t0 = time.perf_counter()
            start.drive_high()
            if sink.event.wait(1.0) and sink.command == {"type": "reveal"}:
                samples.append((sink.at - t0) * 1000.0)
            else:
                lost += 1
            time.sleep(gap)
        rows["start tap (on release)"] = _row(samples, lost)

        hw.show({"phase": "bidding", "mode": "multi", "timer": None, "leader": None,
                 "demonstrating": None, "players": [], "verdict": None})
        assert hw.sync()
        with _Busy():
            rows["bid, process busy"] = bid_presses(max(1, presses // 2))
    return rows


class _CountingClock:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        return time.monotonic()


def measure_hourglass(seconds: float) -> dict[str, dict[str, Any]]:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    pins = PinMap.load()
    rows: dict[str, dict[str, Any]] = {}
    for case, running in (("idle (no timer)", False), ("timer running", True)):
        clock = _CountingClock()
        with Hardware(pins, lambda c: None, clock=clock,
                      pin_factory=MockFactory(pin_class=MockPWMPin)) as hw:
            # A timer long enough not to reach its blink or time-up within the measurement.
            start = time.monotonic()
            timer = {"running": running, "started_at": start if running else None,
                     "duration": seconds * 3 + 20, "remaining": None}
            hw.show({"phase": "timer" if running else "idle", "mode": "multi",
                     "timer": timer if running else None, "leader": 0, "demonstrating": None,
                     "players": [{"seat": 0, "name": "a", "chips": 0, "bid": 5}],
                     "verdict": None})
            assert hw.sync()
            calls0 = clock.calls
            cpu0, wall0 = time.process_time(), time.perf_counter()
            time.sleep(seconds)
            cpu1, wall1 = time.process_time(), time.perf_counter()
            frames = clock.calls - calls0
        wall = wall1 - wall0
        rows[case] = {
            "seconds": round(wall, 3),
            "updates": frames,
            "updates_per_s": frames / wall,
            "cpu_s": cpu1 - cpu0,
            "cpu_percent": 100.0 * (cpu1 - cpu0) / wall,
        }
    return rows


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench hardware", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=200,
                        help="presses per latency case (200; the two later cases use half)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="wall seconds per hourglass case (10)")
    parser.add_argument("--out", default="bench-hardware.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if args.presses < 2:
        parser.error("--presses: at least 2")
    if not 0.5 <= args.seconds <= 600:
        parser.error("--seconds: from 0.5 to 600")

    latency = measure_latency(args.presses)
    hourglass = measure_hourglass(args.seconds)

    print("hardware: press → command latency through gpiozero's mock pins "
          f"(goal: median ≤ {GOAL_MEDIAN_MS:g} ms, p99 ≤ {GOAL_P99_MS:g} ms)")
    print(f"{'case':<28} {'presses':>7} {'lost':>5} {'median ms':>10} {'p99 ms':>8} "
          f"{'max ms':>8}")
    for name, r in latency.items():
        figures = " ".join(f"{_ms(r[k]):>{w}}" for k, w in (("median_ms", 10), ("p99_ms", 8),
                                                            ("max_ms", 8)))
        print(f"{name:<28} {r['presses']:>7} {r['lost']:>5} {figures}")
    print(f"hardware: hourglass CPU, process time over wall time "
          f"(goal: ≤ {GOAL_CPU_PERCENT:g} % of one core at ≥ {GOAL_FPS:g} updates/s)")
    print(f"{'case':<28} {'seconds':>7} {'updates':>8} {'per s':>7} {'cpu %':>7}")
    for name, r in hourglass.items():
        print(f"{name:<28} {r['seconds']:>7.1f} {r['updates']:>8} {r['updates_per_s']:>7.1f} "
              f"{r['cpu_percent']:>7.2f}")

    quiet = latency["bid, dial set (on press)"]
    release = latency["start tap (on release)"]
    running = hourglass["timer running"]
    goals = {
        "latency_median": all(r["median_ms"] is not None and r["median_ms"] <= GOAL_MEDIAN_MS
                              for r in (quiet, release)),
        "latency_p99": all(r["p99_ms"] is not None and r["p99_ms"] <= GOAL_P99_MS
                           for r in (quiet, release)),
        "no_press_lost": all(r["lost"] == 0 for r in latency.values()),
        "hourglass_cpu": running["cpu_percent"] <= GOAL_CPU_PERCENT,
        "hourglass_rate": running["updates_per_s"] >= GOAL_FPS,
    }
    for name, ok in goals.items():
        print(f"  {name:<16} {'ok' if ok else 'MISSED'}")
    met = all(goals.values())
    report = {
        "benchmark": "hardware",
        "goal": {"median_ms": GOAL_MEDIAN_MS, "p99_ms": GOAL_P99_MS,
                 "cpu_percent": GOAL_CPU_PERCENT, "updates_per_s": GOAL_FPS},
        "met": met,
        "goals": goals,
        "presses": args.presses,
        "seconds": args.seconds,
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "pin_layer": "gpiozero MockFactory(pin_class=MockPWMPin)"},
        "latency": latency,
        "hourglass": hourglass,
    }
    return write_report(args.out, report, 0 if met else 1)
