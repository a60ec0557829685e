"""``companion bench micro-vision``: how well and how fast the companion reads a Micro Robots
table.

A seeded set of rendered frames (:mod:`companion.vision.micro_render`): a random layout each
(the 36 pairs in any order), half printed with pips and half with digits, the robot on a
random space (off the board on one frame in ten), the two dice beside the board on a third,
and random scenes as for the classic benchmark — tilt 0–30°, any rotation, markers on half,
dim light, colour casts, uneven light, glare, noise, blur, JPEG, and hands over the board on
a fifth. Every frame is read twice:

* **the layout, from scratch** (:func:`~companion.vision.micro.read_micro_layout`): each space
  right, unread (``None``: the players fill it in) or wrong, and whole layouts read right.
  Without markers the reading's top is the picture's, so it is compared in the board's turn
  that fits best; with markers, exactly;
* **the robot, in a game** (a :class:`~companion.vision.micro.MicroReader` that knows the
  layout and has seen the table once before, without hands, the robot elsewhere): the
  robot's space, and on frames with a hand whether it is flagged occluded or read as a space
  (which a tracker could take for a landing). This per-frame path is timed on one core.

Goals: no space ever wrong; ≥ 95 % of unoccluded layouts read whole; the robot's space right
on every unoccluded frame; no occluded frame read as a space; a few milliseconds per frame at
1280×960.
"""

from __future__ import annotations

import argparse
import platform
import time
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from ..micro import Layout
from ..vision.locate import VisionError
from ..vision.micro import MicroReader, read_micro_layout
from ..vision.micro_look import Look
from ..vision.micro_render import MicroShot, random_layout, render_micro
from ..vision.render import Scene
from . import percentile, write_report

GOAL_WHOLE = 0.95
GOAL_MS = 10.0


def _table(seed: int, size: tuple[int, int], hands: float
           ) -> tuple[Layout, Look, Scene, Any, Any, tuple[str, int] | None]:
    """One table: its layout, print, scene, the robot's space now and before."""
    rng = np.random.default_rng(seed)
    layout = random_layout(rng)
    scene = Scene.random(rng, hands=hands, markers=0.5, max_tilt=30.0)
    look = Look(numerals="digits" if seed % 2 else "pips")
    spaces = [s for row in layout.rows for s in row]
    robot = spaces[int(rng.integers(36))] if rng.random() >= 0.1 else None
    before = spaces[int(rng.integers(36))]
    dice = (str(rng.choice(["blue", "yellow", "green", "red", "pink", "white"])),
            int(rng.integers(1, 7))) if seed % 3 == 0 else None
    return layout, look, scene, robot, before, dice


def _compare(rows: list[list[str | None]], truth: Layout, exact: bool) -> tuple[int, int, int]:
    """(right, unread, wrong) spaces of a reading, in the board's best turn unless exact."""
    got = np.array(rows, dtype=object)
    want = np.array([[s.name for s in row] for row in truth.rows], dtype=object)
    best = None
    for k in range(1 if exact else 4):
        w = np.rot90(want, k)
        right = int(sum(got[i, j] == w[i, j] for i in range(6) for j in range(6)))
        if best is None or right > best:
            best = right
    unread = int(sum(x is None for x in got.ravel()))
    assert best is not None
    return best, unread, 36 - best - unread


def _evaluate(seeds: list[int], size: tuple[int, int], hands: float,
              progress: bool) -> dict[str, Any]:
    c = {k: 0 for k in (
        "frames", "unoccluded", "occluded", "out_of_frame", "out_refused",
        "spaces_right", "spaces_unread", "spaces_wrong", "layouts_whole", "layouts_not_found",
        "occ_spaces_right", "occ_spaces_unread", "occ_spaces_wrong",
        "robot_right", "robot_unread", "robot_wrong", "robot_falsely_occluded",
        "robot_not_read", "occ_flagged", "occ_read_as_space", "occ_read_right")}
    by_style = {"pips": [0, 0], "digits": [0, 0]}  # whole layouts, unoccluded frames
    t_game: list[float] = []
    t_layout: list[float] = []
    failures: list[dict[str, Any]] = []
    for i, seed in enumerate(seeds):
        layout, look, scene, robot, before, dice = _table(seed, size, hands)
        shot: MicroShot = render_micro(layout, robot, seed=seed, size=size, scene=scene,
                                       look=look, dice=dice)
        c["frames"] += 1
        if not shot.in_frame:
            c["out_of_frame"] += 1
            try:
                read_micro_layout(shot.image, look=look)
            except VisionError:
                c["out_refused"] += 1
            continue
        occluded = shot.occluded
        c["occluded" if occluded else "unoccluded"] += 1
        # the layout, from scratch
        t0 = time.perf_counter()
        try:
            reading = read_micro_layout(shot.image, look=look)
        except VisionError as e:
            reading = None
            if not occluded:
                c["layouts_not_found"] += 1
                failures.append({"seed": seed, "what": "layout not read", "why": str(e)})
        t_layout.append((time.perf_counter() - t0) * 1000)
        if reading is not None:
            right, unread, wrong = _compare(reading.rows, layout,
                                            exact=reading.method == "markers")
            pre = "occ_" if occluded else ""
            c[pre + "spaces_right"] += right
            c[pre + "spaces_unread"] += unread
            c[pre + "spaces_wrong"] += wrong
            if not occluded:
                whole = reading.complete and wrong == 0
                c["layouts_whole"] += whole
                by_style[look.numerals][0] += whole
                if not whole:
                    failures.append({"seed": seed, "what": "layout", "unread": unread,
                                     "wrong": wrong, "problems": reading.problems[:4]})
            elif wrong:
                failures.append({"seed": seed, "what": "layout (hand)", "wrong": wrong})
        if not occluded:
            by_style[look.numerals][1] += 1
        # the robot, in a game: the reader has seen this table once, without hands
        reader = MicroReader(layout, look=look)
        clean = replace(scene, hands=0)
        try:
            reader.read(render_micro(layout, before, seed=seed, size=size, scene=clean,
                                     look=look, dice=dice, noise_seed=1).image)
        except VisionError as e:
            c["robot_not_read"] += 1
            failures.append({"seed": seed, "what": "table not found", "why": str(e)})
            continue
        t0 = time.perf_counter()
        try:
            obs: Any = reader.read(shot.image)
        except VisionError as e:
            obs = e
        t_game.append((time.perf_counter() - t0) * 1000)
        truth = None if robot is None else robot.name
        if occluded:
            if isinstance(obs, VisionError) or obs.occluded:
                c["occ_flagged"] += 1
            elif obs.space is not None:
                c["occ_read_as_space"] += 1
                c["occ_read_right"] += obs.space == truth
                failures.append({"seed": seed, "what": "occluded frame read as a space",
                                 "read": obs.space, "truth": truth})
            else:
                c["occ_flagged"] += 1  # no space read: nothing to land
            continue
        if isinstance(obs, VisionError):
            c["robot_not_read"] += 1
            failures.append({"seed": seed, "what": "robot frame not read", "why": str(obs)})
        elif obs.occluded:
            c["robot_falsely_occluded"] += 1
            failures.append({"seed": seed, "what": "robot frame flagged occluded",
                             "covered": obs.covered, "truth": truth})
        elif obs.space == truth:
            c["robot_right"] += 1
        elif obs.space is None:
            c["robot_unread"] += 1
            failures.append({"seed": seed, "what": "robot not seen", "truth": truth,
                             "notes": obs.notes})
        else:
            c["robot_wrong"] += 1
            failures.append({"seed": seed, "what": "robot on a wrong space",
                             "read": obs.space, "truth": truth})
        if progress and (i + 1) % 25 == 0:
            print(f"  … {i + 1}/{len(seeds)} frames at {size[0]}×{size[1]}", flush=True)
    return {
        "size": list(size), **c,
        "layouts_whole_by_numerals": {k: {"whole": v[0], "frames": v[1]}
                                      for k, v in by_style.items()},
        "ms_per_frame": {"median": percentile(t_game, 50), "p90": percentile(t_game, 90),
                         "max": max(t_game) if t_game else float("nan")},
        "ms_layout": {"median": percentile(t_layout, 50), "p90": percentile(t_layout, 90)},
        "failures": failures,
    }


def _rate(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f} %)" if b else "—"


def _goals(r: dict[str, Any]) -> list[tuple[str, bool]]:
    spaces_wrong = r["spaces_wrong"] + r["occ_spaces_wrong"]
    whole = r["layouts_whole"] / r["unoccluded"] if r["unoccluded"] else 0.0
    robot_ok = r["robot_right"] == r["unoccluded"]
    return [
        ("no space ever wrong", spaces_wrong == 0),
        (f"≥ {GOAL_WHOLE:.0%} of unoccluded layouts read whole", whole >= GOAL_WHOLE),
        ("the robot's space right on every unoccluded frame", robot_ok),
        ("no occluded frame read as a space", r["occ_read_as_space"] == 0),
        (f"median ≤ {GOAL_MS:.0f} ms per game frame", r["ms_per_frame"]["median"] <= GOAL_MS),
    ]


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench micro-vision", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=120, help="frames at 1280×960 (120)")
    parser.add_argument("--seed", type=int, default=9000, help="first seed (9000)")
    parser.add_argument("--hands", type=float, default=0.2, help="share of frames with hands")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (1: one core, 0: OpenCV's default)")
    parser.add_argument("--out", default="bench-micro-vision.json",
                        help="where to write the JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames: at least 1")
    if not 0 <= args.hands <= 1:
        parser.error("--hands: a share from 0 to 1")
    if args.threads > 0:
        cv2.setNumThreads(args.threads)
    seeds = list(range(args.seed, args.seed + args.frames))
    r = _evaluate(seeds, (1280, 960), args.hands, not args.quiet)

    print()
    print(f"Micro Robots vision benchmark: seeds {args.seed}…{args.seed + args.frames - 1}, "
          f"1280×960, hands on {args.hands:.0%}, "
          f"{'one core' if args.threads == 1 else f'{args.threads} threads'}")
    spaces_un = r["unoccluded"] * 36 - 36 * r["layouts_not_found"]
    rows = [
        ("frames", str(r["frames"])),
        ("unoccluded, board in frame", str(r["unoccluded"])),
        ("layout, from scratch", ""),
        ("  spaces right", _rate(r["spaces_right"], spaces_un)),
        ("  spaces unread (left to the players)", _rate(r["spaces_unread"], spaces_un)),
        ("  spaces wrong", str(r["spaces_wrong"])),
        ("  whole layouts right", _rate(r["layouts_whole"], r["unoccluded"])),
        *[(f"    printed with {k}", _rate(v["whole"], v["frames"]))
          for k, v in r["layouts_whole_by_numerals"].items()],
        ("  board not found", str(r["layouts_not_found"])),
        ("robot, in a game", ""),
        ("  space right", _rate(r["robot_right"], r["unoccluded"])),
        ("  not seen (no space read)", str(r["robot_unread"])),
        ("  wrong space", str(r["robot_wrong"])),
        ("  wrongly flagged occluded", str(r["robot_falsely_occluded"])),
        ("  board not read (error)", str(r["robot_not_read"])),
        ("occluded frames (a hand over the board)", str(r["occluded"])),
        ("  flagged occluded (or no space read)", _rate(r["occ_flagged"], r["occluded"])),
        ("  read as a space (misread)", str(r["occ_read_as_space"])),
        ("  layout spaces right / unread / wrong",
         f"{r['occ_spaces_right']} / {r['occ_spaces_unread']} / {r['occ_spaces_wrong']}"),
        ("board partly out of frame", str(r["out_of_frame"])),
        ("  refused", _rate(r["out_refused"], r["out_of_frame"])),
        ("ms per game frame, median", f"{r['ms_per_frame']['median']:.1f}"),
        ("ms per game frame, p90", f"{r['ms_per_frame']['p90']:.1f}"),
        ("ms per layout reading, median", f"{r['ms_layout']['median']:.0f}"),
        ("ms per layout reading, p90", f"{r['ms_layout']['p90']:.0f}"),
    ]
    width = max(len(a) for a, _ in rows) + 2
    for label, value in rows:
        print(f"{label:<{width}}{value}")
    print()
    goals = _goals(r)
    for text, met in goals:
        print(f"goal: {text}: {'met' if met else 'NOT met'}")
    report = {
        "benchmark": "micro-vision",
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "opencv": cv2.__version__, "threads": args.threads},
        "seed": args.seed, "hands": args.hands, "results": r,
        "goals": {text: met for text, met in goals},
    }
    return write_report(args.out, report)
