"""``companion bench render``: how long the renderer takes per frame.

The simulated table renders its camera live and the vision benchmark renders hundreds of frames,
so the renderer has a budget: 100 ms per 1280×960 frame. Seeded sets of random positions on the
real tiles: a clean top-down shot (the simulated table's usual look), random scenes (tilt, light,
noise, blur, JPEG, markers on half), and scenes with hands; at 1280×960 and 1640×1232. Prints
median, p90 and max per set, writes the figures as JSON. ``--threads 1`` limits OpenCV to one
core (the Pi's other cores are busy reading).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from ..vision.render import Scene, random_position, render
from . import percentile, write_report

SIZES = ((1280, 960), (1640, 1232))
BUDGET_MS = 100.0


def _scenes(kind: str, n: int, seed: int) -> list[Scene]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if kind == "clean":
            out.append(Scene(tilt=float(rng.uniform(0, 15)), rotation=float(rng.uniform(0, 10)),
                             noise=2.0))
        elif kind == "random":
            out.append(replace(Scene.random(rng, hands=0.0), hands=0))
        else:
            out.append(replace(Scene.random(rng, hands=1.0), hands=int(rng.integers(1, 3))))
    return out


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench render", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=40, help="frames per set (40)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (1: one core, 0: OpenCV's default)")
    parser.add_argument("--out", default="bench-render.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames: at least 1")
    if args.threads > 0:
        cv2.setNumThreads(args.threads)
    positions = [random_position(args.seed * 1000 + i) for i in range(args.frames)]
    # warm the caches the way a running table would (tile print, noise field, table texture)
    for size in SIZES:
        render(positions[0], size=size, scene=Scene(noise=2))
    rows: list[dict[str, Any]] = []
    for size in SIZES:
        for kind in ("clean", "random", "hands"):
            scenes = _scenes(kind, args.frames, args.seed)
            ms = []
            for i, (pos, scene) in enumerate(zip(positions, scenes, strict=True)):
                t0 = time.perf_counter()
                render(pos, seed=i, size=size, scene=scene)
                ms.append((time.perf_counter() - t0) * 1000)
            rows.append({"size": f"{size[0]}x{size[1]}", "set": kind, "frames": len(ms),
                         "median_ms": statistics.median(ms), "p90_ms": percentile(ms, 90),
                         "max_ms": max(ms)})
    print(f"renderer, {args.frames} frames per set, OpenCV threads: "
          f"{args.threads or cv2.getNumThreads()}, budget {BUDGET_MS:.0f} ms at 1280x960")
    print(f"{'size':<10} {'set':<7} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    for r in rows:
        print(f"{r['size']:<10} {r['set']:<7} {r['median_ms']:>10.1f} {r['p90_ms']:>8.1f} "
              f"{r['max_ms']:>8.1f}")
    main = [r for r in rows if r["size"] == "1280x960"]
    within = all(r["median_ms"] <= BUDGET_MS for r in main)
    print(f"median within budget at 1280x960: {'yes' if within else 'no'}")
    report = {"benchmark": "render", "frames_per_set": args.frames, "seed": args.seed,
              "threads": args.threads, "machine": platform.platform(),
              "budget_ms": BUDGET_MS, "within_budget": within, "sets": rows}
    return write_report(args.out, report)
