"""``companion bench vision --source render3d``: the reader measured on the second image source.

The frames come from :mod:`companion.vision.render3d`, a 3D rasteriser made apart from the
renderer the reader grew up with (other robot shapes and materials, lamps and shadows, tables
white, grey, dark, wood, felt and glossy, tilts up to 45°, boards filling a third to nearly
all of the picture, haze, glare, a flash, hands, the sand timer, cards and a box). Nothing of
the reader is tuned to these frames: they measure how it holds on material it has not seen.

Every frame is read three ways:

* **from scratch** (``read_frame`` with no hints): is the board found, and are the tiles the
  same physical board (any quarter turn: no markers fix north here);
* **as in a game** (a :class:`~companion.vision.read.Reader` told the tiles and the robots the
  game has): the robots, the occlusion, the time it takes on one core;
* **given the true corners**: the robots again, with the board's finding taken out of the
  question, so the two stages' failures are told apart.

A robot on a wrong cell is the worst failure (a game would accept it); one not seen, with its
reason, only costs a look again.
"""

from __future__ import annotations

import platform
import time
from typing import Any

import cv2
import numpy as np

from ..board import cell_name
from ..vision.read import DEFAULT_CELLS, Reader, VisionError, default_cells, read_frame
from . import percentile, write_report

COLOURS = ("red", "green", "blue", "yellow", "black", "silver")


def _same_board(read: Any, truth: Any) -> bool:
    if not read:
        return False
    read, truth = tuple(read), tuple(truth)
    return any(read == truth[k:] + truth[:k] for k in range(4))


def _profile(robots: dict[str, Any]):
    from ..vision.colours import Profile

    fifth = "silver" if "silver" in robots else "black"
    return Profile().for_robots(["red", "green", "blue", "yellow", fifth])


def _read(image: np.ndarray, tiles: list[str], robots: dict[str, Any],
          corners: Any = None, reader: Reader | None = None) -> Any:
    reader = reader or Reader(tiles=tiles, profile=_profile(robots), read_chip=False)
    try:
        return reader.read(image, corners=corners)
    except VisionError as e:
        return e


def evaluate(seeds: list[int], size: tuple[int, int], hands: float = 0.2,
             progress: bool = False, cells: Any = DEFAULT_CELLS) -> dict[str, Any]:
    """The reader on frames ``seeds`` of the 3D source at ``size``; ``cells``: the learned
    cell classifier to read the robots with (see :class:`~..vision.read.Reader`)."""
    from ..vision.render3d import random_frame

    if cells is DEFAULT_CELLS:
        cells = default_cells()
    per_robot = {r: {"right": 0, "wrong": 0, "unseen": 0, "total": 0} for r in COLOURS}
    given = {"right": 0, "wrong": 0, "unseen": 0, "total": 0, "frames_right": 0}
    n = {"frames": 0, "clear": 0, "right": 0, "frames_wrong": 0, "frames_unseen": 0,
         "not_found": 0, "false_occluded": 0, "occluded": 0, "occ_flagged": 0,
         "occ_misread": 0, "out_of_frame": 0, "tiles_total": 0, "tiles_right": 0,
         "found_scratch": 0, "out_refused": 0, "out_wrong": 0}
    times: list[float] = []
    render_ms: list[float] = []
    failures: list[dict[str, Any]] = []
    for i, seed in enumerate(seeds):
        shot = random_frame(seed, size=size, hands=hands)
        render_ms.append(shot.ms)
        n["frames"] += 1
        truth = {k: cell_name(v) for k, v in shot.robots.items()}
        tiles = list(shot.tiles or ())
        scene = shot.scene
        where = {"seed": seed, "table": scene.table, "tilt": round(scene.tilt, 1),
                 "fill": round(scene.fill, 2)}
        if not shot.in_frame:
            # declining is right, and so is a reading of what is in view; a robot on a wrong
            # cell never is
            n["out_of_frame"] += 1
            part = _read(shot.image, tiles, truth)
            if isinstance(part, VisionError) or part.occluded:
                n["out_refused"] += 1
            elif any(truth.get(r) != c for r, c in part.robots.items()):
                n["out_wrong"] += 1
                failures.append({**where, "what": "out of frame, a robot on a wrong cell",
                                 "read": part.robots, "truth": truth})
            continue
        if not shot.occluded:
            try:
                scratch: Any = read_frame(shot.image, chip=False)
            except VisionError as e:
                scratch = e
            n["tiles_total"] += 1
            found = not isinstance(scratch, VisionError)
            n["found_scratch"] += found
            ok = found and _same_board(scratch.tiles, tiles)
            n["tiles_right"] += ok
            if not ok:
                failures.append({**where, "what": "tiles (from scratch)", "truth": tiles,
                                 "read": str(scratch) if not found else scratch.tiles})
        # a game's reader has found north on this board already: the first look does it
        reader = Reader(tiles=tiles, profile=_profile(truth), read_chip=False, cells=cells)
        _read(shot.image, tiles, truth, reader=reader)
        t0 = time.perf_counter()
        obs = _read(shot.image, tiles, truth, reader=reader)
        times.append((time.perf_counter() - t0) * 1000)
        if shot.occluded:
            n["occluded"] += 1
            if isinstance(obs, VisionError) or obs.occluded:
                n["occ_flagged"] += 1
            else:
                n["occ_misread"] += 1
                failures.append({**where, "what": "occluded frame read as a position",
                                 "read": obs.robots, "truth": truth})
            continue
        n["clear"] += 1
        for r in truth:
            per_robot[r]["total"] += 1
        if isinstance(obs, VisionError) or obs.occluded:
            if isinstance(obs, VisionError):
                n["not_found"] += 1
                why = str(obs)
            else:
                n["false_occluded"] += 1
                why = "flagged occluded: " + ",".join(obs.occluded_cells[:6])
            for r in truth:
                per_robot[r]["unseen"] += 1
            failures.append({**where, "what": "not read", "why": why})
        else:
            wrong = {r: c for r, c in obs.robots.items() if r in truth and truth[r] != c}
            invented = {r: c for r, c in obs.robots.items() if r not in truth}
            for r, cell in truth.items():
                got = obs.robots.get(r)
                per_robot[r]["right" if got == cell else "unseen" if got is None
                             else "wrong"] += 1
            right = obs.robots == truth
            n["right"] += right
            n["frames_wrong"] += bool(wrong or invented)
            n["frames_unseen"] += not right and not wrong and not invented
            if not right:
                failures.append({**where, "what": "robots", "read": obs.robots, "truth": truth,
                                 "doubtful": obs.doubtful, "style": scene.robot_style,
                                 "haze": round(scene.haze, 2), "wash": round(scene.wash, 2),
                                 "glare": round(scene.glare, 2), "timer": scene.timer})
        # the robots again, the board's corners given
        g = _read(shot.image, tiles, truth, corners=shot.corners,
                  reader=Reader(tiles=tiles, profile=_profile(truth), read_chip=False,
                                cells=cells))
        for r, cell in truth.items():
            given["total"] += 1
            got = None if isinstance(g, VisionError) or g.occluded else g.robots.get(r)
            given["right" if got == cell else "unseen" if got is None else "wrong"] += 1
        given["frames_right"] += (not isinstance(g, VisionError) and not g.occluded
                                  and g.robots == truth)
        if progress and (i + 1) % 10 == 0:
            print(f"  … {i + 1}/{len(seeds)} frames of the 3D source", flush=True)
    return {
        "size": list(size), **n,
        "robots_total": sum(v["total"] for v in per_robot.values()),
        "robots_right": sum(v["right"] for v in per_robot.values()),
        "robots_wrong_cell": sum(v["wrong"] for v in per_robot.values()),
        "robots_unseen": sum(v["unseen"] for v in per_robot.values()),
        "per_robot": per_robot,
        "given_corners": given,
        "ms_per_frame": {"median": percentile(times, 50), "p90": percentile(times, 90)},
        "ms_render": {"median": percentile(render_ms, 50), "p90": percentile(render_ms, 90)},
        "failures": failures,
    }


def _rate(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f} %)" if b else "—"


def table(r: dict[str, Any]) -> list[str]:
    """The report's lines."""
    g = r["given_corners"]
    rows = [
        ("frames", str(r["frames"])),
        ("unoccluded, board in frame", str(r["clear"])),
        ("  wholly right", _rate(r["right"], r["clear"])),
        ("  a robot on a wrong cell (frames)", str(r["frames_wrong"])),
        ("  a robot not seen (frames)", str(r["frames_unseen"])),
        ("  board not found", str(r["not_found"])),
        ("  wrongly flagged occluded", str(r["false_occluded"])),
        ("robots right", _rate(r["robots_right"], r["robots_total"])),
        ("  on a wrong cell", str(r["robots_wrong_cell"])),
        ("  not seen", str(r["robots_unseen"])),
    ]
    for name, v in r["per_robot"].items():
        if v["total"]:
            rows.append((f"    {name}", f"{_rate(v['right'], v['total'])}, "
                                       f"{v['wrong']} wrong, {v['unseen']} unseen"))
    rows += [
        ("given the true corners: robots right", _rate(g["right"], g["total"])),
        ("  on a wrong cell", str(g["wrong"])),
        ("  frames wholly right", _rate(g["frames_right"], r["clear"])),
        ("occluded frames (a hand)", str(r["occluded"])),
        ("  flagged (occluded or unread)", _rate(r["occ_flagged"], r["occluded"])),
        ("  misread as a position", str(r["occ_misread"])),
        ("board partly out of frame", str(r["out_of_frame"])),
        ("  refused (unread or covered)", _rate(r["out_refused"], r["out_of_frame"])),
        ("  read, a robot on a wrong cell", str(r["out_wrong"])),
        ("from scratch: board found", _rate(r["found_scratch"], r["tiles_total"])),
        ("  tiles right (any quarter turn)", _rate(r["tiles_right"], r["tiles_total"])),
        ("ms per frame, median (game)", f"{r['ms_per_frame']['median']:.1f}"),
        ("ms per frame, p90 (game)", f"{r['ms_per_frame']['p90']:.1f}"),
        ("ms to render a frame, median", f"{r['ms_render']['median']:.0f}"),
    ]
    return [f"{label:40s}{value}" for label, value in rows]


def run_render3d(frames: int, seed: int, size: tuple[int, int], hands: float, out: str,
                 quiet: bool, threads: int, cells: Any = DEFAULT_CELLS) -> int:
    from ..vision.render3d import Render3DError, gl_available

    why = gl_available()
    if why is not None:
        print(f"error: {why}")
        return 2
    if threads > 0:
        cv2.setNumThreads(threads)
    if cells is DEFAULT_CELLS:
        cells = default_cells()
    try:
        r = evaluate(list(range(seed, seed + frames)), size, hands, not quiet, cells)
    except Render3DError as e:
        print(f"error: {e}")
        return 2
    print()
    print(f"vision benchmark, 3D source: seeds {seed}…, {size[0]}×{size[1]}, hands on "
          f"{hands:.0%}, {'one core' if threads == 1 else f'{threads} threads'}")
    for line in table(r):
        print(line)
    report = {
        "benchmark": "vision",
        "source": "render3d",
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "opencv": cv2.__version__, "threads": threads},
        "seed": seed, "hands": hands, "cells": cells is not None, "results": [r],
    }
    return write_report(out, report)
