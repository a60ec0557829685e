"""``companion bench adapt``: does learning the table at a confirmed start read a game better
than cold frames, and never put a robot on a wrong cell?

Judged on material the lesson was not taken from:

* **3D frames** (:mod:`companion.vision.render3d`): for each demonstration of ``bench verify``'s
  kind (a random board, scene and honest route), the lesson is taken from the start frame,
  the robots on their confirmed cells; the frames after each move are then read by one reader
  with the default colours and one with the lesson's, as the table's feed reads them.
* **Real photos** (``--real DIR``, a folder with a ``truth.jsonl``, see ``bench vision
  --real``): of each table with several photos, the lesson is taken from its first photo (its
  truth known) and the others are read from scratch with and without it; a reading is judged
  up to a quarter turn of the board, as there.

Rows: robots right, on a WRONG cell, not seen; with and without the lesson; and how many
colours the lessons learnt or kept. Goal: the lesson puts no more robots on a wrong cell than
the default colours do (none, where they put none).

``companion bench adapt [--demos N] [--size WxH] [--seed S] [--real DIR [--photos N]]
[--no-cells] [--out PATH]``
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import cv2

from . import frame_size, write_report

ROBOTS = ("red", "green", "blue", "yellow")
LOOKED = (*ROBOTS, "black")  # the table looks for a black robot too, so none is invented


def _tally() -> dict[str, int]:
    return {"right": 0, "wrong": 0, "unseen": 0}


def _count(row: dict[str, int], truth: dict[str, str], read: dict[str, str]) -> None:
    for colour, cell in truth.items():
        got = read.get(colour)
        row["unseen" if got is None else "right" if got == cell else "wrong"] += 1
    row["wrong"] += sum(1 for c in read if c not in truth)  # a robot the game does not have


def frames3d_rows(demos: int, seed: int, size: tuple[int, int], cells: Any) -> dict[str, Any]:
    """Learn on each demonstration's start frame, read its later frames (see the module
    docstring)."""
    from dataclasses import replace

    from ..vision.adapt import learn_start
    from ..vision.colours import Profile
    from ..vision.locate import VisionError
    from ..vision.read import reader_for
    from ..vision.render3d import Scene3D, render3d
    from .verify import recorded_demo

    rnd = random.Random(seed)
    rows = {"cold": _tally(), "learnt": _tally()}
    lessons = {"learnt": 0, "kept": 0, "bars": 0, "frames": 0, "frames_unread": 0,
               "unread_start": 0}
    for d in range(demos):
        rec = recorded_demo(rnd, "honest")
        scene = replace(Scene3D.random(seed * 1000 + d, hands=0.0, timer=0.0, crop=0.0),
                        hand=False)
        board = rec.position.board
        tiles = list(board.tiles or ())

        def shot(state: dict[str, int], scene: Any = scene, rec: Any = rec,
                 at: int = seed * 1000 + d) -> Any:
            return render3d(rec.position.with_robots(state), seed=at, size=size,
                            scene=scene).image

        start = {r: board.name(c) for r, c in rec.position.robots.items()}
        base = Profile().for_robots(LOOKED)
        try:
            lesson = learn_start([shot(dict(rec.position.robots))], start, tiles=tiles,
                                 base=base, cells=cells)
        except VisionError:
            lessons["unread_start"] += 1
            continue
        lessons["learnt"] += len(lesson.learnt)
        lessons["kept"] += len(lesson.kept)
        readers = {"cold": reader_for(tiles, robots=LOOKED, cells=cells),
                   "learnt": reader_for(tiles, robots=LOOKED, profile=lesson.profile,
                                        cells=cells)}
        readers["learnt"].bars = dict(lesson.bars)
        lessons["bars"] += len(lesson.bars)
        for state in rec.states:
            image = shot(state)
            truth = {r: board.name(c) for r, c in state.items()}
            lessons["frames"] += 1
            for name, reader in readers.items():
                try:
                    read = reader.read(image).robots
                except VisionError:  # the board not found: every robot not seen
                    read = {}
                    lessons["frames_unread"] += name == "cold"
                _count(rows[name], truth, read)
    return {"rows": rows, "lessons": lessons}


def real_rows(folder: Path, cells: Any, limit: int | None = None) -> dict[str, Any]:
    """Of each table with several photos, learn on the first, read the others from scratch
    (at most ``limit`` of them)."""
    from ..vision.adapt import learn_start
    from ..vision.colours import Profile
    from ..vision.locate import VisionError
    from ..vision.read import Reader
    from .vision_real import judge, load_truth, turn_cell

    by_table: dict[str, list[Any]] = {}
    for t in load_truth(folder):
        if set(t.robots) <= set(ROBOTS):
            by_table.setdefault(t.table, []).append(t)
    rows = {"cold": _tally(), "learnt": _tally()}
    lessons: dict[str, Any] = {"tables": [], "learnt": 0, "kept": 0, "bars": 0, "photos": 0}
    base = Profile().for_robots(LOOKED)
    for table, photos in sorted(by_table.items()):
        if len(photos) < 2:
            continue
        first = photos[0]
        image = cv2.imread(str(folder / first.file), cv2.IMREAD_COLOR)
        try:
            cold = Reader(profile=base, read_chip=False, cells=_cells(cells)).read(image)
        except VisionError:
            continue
        k, _ = judge(first, cold.robots)
        start = {c: turn_cell(cell, (4 - k) % 4) for c, cell in first.robots.items()}
        lesson = learn_start([image], start, tiles=cold.tiles, base=base, cells=cells)
        lessons["tables"].append(table)
        lessons["bars"] += len(lesson.bars)
        lessons["learnt"] += len(lesson.learnt)
        lessons["kept"] += len(lesson.kept)
        for t in photos[1:][:limit]:
            other = cv2.imread(str(folder / t.file), cv2.IMREAD_COLOR)
            lessons["photos"] += 1
            for name, profile in (("cold", base), ("learnt", lesson.profile)):
                reader = Reader(profile=profile, read_chip=False, cells=_cells(cells))
                reader.bars = dict(lesson.bars) if name == "learnt" else {}
                try:
                    obs = reader.read(other)
                    read = judge(t, obs.robots)[1] if not obs.occluded else {}
                except VisionError:
                    read = {}
                _count(rows[name], t.robots, read)
    return {"rows": rows, "lessons": lessons}


def _cells(cells: Any) -> Any:
    """``reader_for``'s choice of classifier (True: the default) as :class:`Reader` takes it."""
    from ..vision.read import DEFAULT_CELLS

    return DEFAULT_CELLS if cells is True else (cells or None)


def _print(title: str, result: dict[str, Any]) -> None:
    print(title)
    print(f"  {'reader':<22} {'right':>6} {'WRONG CELL':>11} {'not seen':>9}")
    for name, words in (("cold", "default colours"), ("learnt", "learnt at the start")):
        r = result["rows"][name]
        print(f"  {words:<22} {r['right']:>6} {r['wrong']:>11} {r['unseen']:>9}")
    print(f"  lessons: {result['lessons']}")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench adapt", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demos", type=int, default=8,
                        help="3D demonstrations, each learnt at its start (8; 0: none)")
    parser.add_argument("--size", default="960x720", help="3D frame size (960x720)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real", default=None, help="a folder of real photos and truth.jsonl")
    parser.add_argument("--photos", type=int, default=None,
                        help="with --real: at most this many photos read per table")
    parser.add_argument("--no-cells", action="store_true",
                        help="read by the colour scores alone, without the cell classifier")
    parser.add_argument("--out", default="bench-adapt.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if args.demos < 0:
        parser.error("--demos: 0 or more")
    if args.photos is not None and args.photos < 1:
        parser.error("--photos: at least 1")
    w, h = frame_size(parser, args.size)
    cells = not args.no_cells
    report: dict[str, Any] = {"benchmark": "adapt", "seed": args.seed, "cells": cells}
    if args.demos:
        from ..vision.render3d import gl_available

        why = gl_available()
        if why is not None:
            print(f"3D frames: skipped ({why})")
        else:
            report["frames3d"] = frames3d_rows(args.demos, args.seed, (w, h), cells)
            _print(f"3D frames after each move, learnt on the start frame ({args.demos} "
                   f"demonstrations, {w}×{h})", report["frames3d"])
    if args.real:
        from .vision_real import TruthError

        try:
            report["real"] = real_rows(Path(args.real), cells, args.photos)
        except TruthError as e:
            print(f"error: {e}")
            return 2
        _print("real photos of one table, learnt on its first photo", report["real"])
    wrong = sum(src["rows"]["learnt"]["wrong"] - src["rows"]["cold"]["wrong"]
                for k, src in report.items() if k in ("frames3d", "real"))
    report["met"] = wrong <= 0
    return write_report(args.out, report, 0 if report["met"] else 1)
