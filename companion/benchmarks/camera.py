"""``companion bench camera``: how long the table's camera thread takes per frame.

The real :class:`~companion.vision.feed.CameraFeed` of a table reads a folder of rendered frames at
1280×960 (``companion run --camera DIR``; the Pi camera's capture size, ``--size`` for another,
e.g. 1640x1232, the sensor's binned full view), with the reader the game on the table asks for:

* **classic, chip off** — a round is on (a chip revealed): the board's tiles, the five robots
  (the silver one plays) and the occlusion test, every frame;
* **classic, chip on** — the game waits for a chip: the same, and the centre piece read for
  the chip (the last round's chip lies there, so nothing is revealed and every frame reads it);
* **micro robots** — a Micro Robots game: the robot's space on a known layout.

Per set: the time the feed spends reading each frame (the readers and the trackers, from its
own clock: median, p90, max; the first frame, which finds the board from scratch, is counted
apart) and the frames per second the thread keeps up, picture decoding included, with no
pause between frames. ``--threads 1`` limits OpenCV to one core (on the Pi the other cores
serve the page and the solver). Prints a table and writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import logging
import platform
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..micro import example_layout
from ..table import Table
from ..vision.feed import CameraFeed
from ..vision.micro_render import render_micro
from ..vision.render import render
from . import write_report

SIZE = (1280, 960)
TILES = ["4B", "3B", "2B", "1A"]
ROBOTS = {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15", "silver": "k10"}
CHIP = {"color": "blue", "shape": "triangle"}
DEADLINE = 600.0  # seconds one set may take at the most


def _classic(t: Table, waiting: bool) -> None:
    spec = t.pages.check_setup(["Ann", "Ben"], "abacus-2013", {"fifth_robot": "silver"}, TILES)
    assert t.submit({**spec, "robots": ROBOTS}).ok
    assert t.submit({"type": "reveal", "chip": "blue triangle"}).ok
    if waiting:  # back to waiting, the revealed chip still on the piece
        assert t.submit({"type": "undo"}).ok


def _micro(t: Table) -> None:
    spec = t.pages.check_micro_setup(["Ann", "Ben"], example_layout().to_dict(), {})
    assert t.submit(spec).ok
    assert t.submit({"type": "place", "start": "pink1", "target": "white2"}).ok


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or not (320 <= int(m[1]) <= 4096 and 240 <= int(m[2]) <= 3072):
        raise argparse.ArgumentTypeError(f"{text!r}: WIDTHxHEIGHT, like 1280x960 (320x240 to "
                                         "4096x3072)")
    return int(m[1]), int(m[2])


def _frames(folder: Path, kind: str, n: int, seed: int, size: tuple[int, int] = SIZE) -> Path:
    folder.mkdir(parents=True)
    for i in range(n):
        if kind == "micro":
            image = render_micro(example_layout(), "pink1", seed=seed, noise_seed=i, noise=2,
                                 tilt=12, size=size).image
        else:
            image = render({"board": {"tiles": TILES}, "robots": ROBOTS, "target": CHIP},
                           seed=seed, noise_seed=i, noise=2, tilt=12, size=size).image
        cv2.imwrite(str(folder / f"{i:04d}.png"), image)
    return folder


def _measure(folder: Path, prepare: Any) -> dict[str, Any]:
    """The feed reads the whole folder as fast as it can; its own per-frame times."""
    t = Table()
    t.start()
    try:
        prepare(t)
        feed = CameraFeed(t, str(folder), interval=0.0)
        t.attach_camera(feed)
        start = time.perf_counter()
        feed.start()
        end = start + DEADLINE
        while "ended" not in (feed.status()["error"] or "") and time.perf_counter() < end:
            time.sleep(0.02)
        wall = time.perf_counter() - start
        feed.stop()
        status = feed.status()
    finally:
        t.stop()
    times = feed.read_times()
    first, rest = times[0], times[1:] or times
    return {"frames": status["frames"], "first_ms": first,
            "median_ms": statistics.median(rest), "p90_ms": float(np.percentile(rest, 90)),
            "max_ms": max(rest), "frames_per_s": status["frames"] / wall,
            "view": status["view"]}


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench camera", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=30, help="frames per set (30, at most 50)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--size", type=_size, default=SIZE,
                        help="frame size WIDTHxHEIGHT (1280x960, what the Pi camera captures)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (1: one core, 0: OpenCV's default)")
    parser.add_argument("--out", default="bench-camera.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if not 2 <= args.frames <= 50:
        parser.error("--frames: from 2 to 50 (the feed keeps the last 50 times)")
    if args.threads > 0:
        cv2.setNumThreads(args.threads)
    sets = [("classic, chip off", "classic", lambda t: _classic(t, waiting=False)),
            ("classic, chip on", "classic", lambda t: _classic(t, waiting=True)),
            ("micro robots", "micro", _micro)]
    rows: list[dict[str, Any]] = []
    # each recording ends, and the feed says so: expected here, not worth a warning
    quiet = logging.getLogger("companion.table")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-camera-") as tmp:
            folders = {kind: _frames(Path(tmp) / kind, kind, args.frames, args.seed, args.size)
                       for kind in ("classic", "micro")}
            for name, kind, prepare in sets:
                rows.append({"set": name, **_measure(folders[kind], prepare)})
    finally:
        quiet.setLevel(level)
    print(f"the table's camera thread at {args.size[0]}x{args.size[1]}, {args.frames} frames "
          "per set, "
          f"OpenCV threads: {args.threads or cv2.getNumThreads()}")
    print(f"{'set':<18} {'first ms':>9} {'median ms':>10} {'p90 ms':>8} {'max ms':>8} "
          f"{'frames/s':>9}")
    for r in rows:
        print(f"{r['set']:<18} {r['first_ms']:>9.1f} {r['median_ms']:>10.1f} "
              f"{r['p90_ms']:>8.1f} {r['max_ms']:>8.1f} {r['frames_per_s']:>9.1f}")
    report = {"benchmark": "camera", "size": list(args.size), "frames_per_set": args.frames,
              "seed": args.seed, "threads": args.threads, "machine": platform.platform(),
              "sets": rows}
    return write_report(args.out, report)
