"""``companion bench solver``: the optimal solver on seeded random positions and the two
published hardest positions.

Sets (seeded, on the real tiles): A–C sides, boards with D sides (diagonals), a 5th robot, the
vortex, the transparent robot, and A–C sides under ``riogrande-2003`` (immediate reversal
forbidden, so the last move is part of each position); then each hardest position in a fresh
process, so its peak memory is its own and its whole-process time counts Python's start. Each
random position is solved twice: *cold*, its board met new (every cached table and estimate
dropped first: :func:`companion.solver_tables.forget_boards`; the per-tile walls, like the tile
library, stay), and *warm*, the board's tables built beforehand as at a table, where the board
stays for the game (:func:`companion.solver.prepare`, timed apart). Prints per set the median,
p90, p99 and max time per solve both ways, positions expanded and peak RSS; then time by
optimal length, the goals of the solver (met / NOT met, with the figure) and, for comparison,
the figures of two public solvers measured once on this kind of machine (they are not part of
the project: given figures, not run here); writes everything as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from ..board import Board
from ..rules import Position, validate_route
from ..solver import prepare, solve
from ..solver_tables import forget_boards
from . import write_report

SETS = {
    # name: (count, sides, extra robots, target kind, rule preset)
    "A-C": (300, "ABC", (), "colour", None),
    "D sides": (100, "ABCD", (), "colour", None),
    "5th robot": (100, "ABC", ("black",), "colour", None),
    "vortex": (50, "ABC", ("black",), "vortex", None),
    "transparent": (30, "ABC", ("transparent",), "colour", None),
    "riogrande": (100, "ABC", (), "colour", "riogrande-2003"),
}
HARDEST = ("hardest-25.json", "hardest-24.json")

# Measured side by side on a 2-core machine, single-threaded, on the same positions (the
# project's own figures of that day in the first column): given here for comparison only.
ANCHORS = (
    ("", "companion then", "DriftingDroids", "fogleman"),
    ("published 25-mover, whole process", "4.22 s", "8.95 s", "12.17 s"),
    ("25-mover, peak memory", "329 MB", "193 MB", "161 MB"),
    ("published 24-mover, whole process", "3.33 s", "6.35 s", "10.19 s"),
    ("300 positions (A-C), median", "26 ms new board, 1.9 ms warm", "14.1 ms", "0.056 ms"),
    ("... p90 / p99 / max", "40 / 87 / 1001 ms (warm 11.7 / 51 / 890)", "19.3 / 43 / 721 ms",
     "1.3 / 26 / 985 ms"),
)
DRIFTING_DROIDS_25 = 8.95  # seconds, whole process
# (what, limit, unit): the 25-mover at least 4x faster than DriftingDroids and under 200 MB;
# the A-C set on a new board per position
GOALS = (
    ("25-mover, whole process", DRIFTING_DROIDS_25 / 4, "s"),
    ("25-mover, peak memory", 200.0, "MB"),
    ("A-C new board, median", 0.5, "ms"),
    ("A-C new board, p90", 3.0, "ms"),
    ("A-C new board, p99", 20.0, "ms"),
    ("A-C new board, max", 600.0, "ms"),
)


def random_position(rng: random.Random, sides: str, extra: tuple[str, ...],
                    target: str, preset: str | None = None) -> Position:
    """A random position on four real tile sides (one of each board, in any order), under the
    default rules or a preset."""
    while True:
        order = rng.sample([1, 2, 3, 4], 4)
        tiles = [f"{n}{rng.choice(sides)}" for n in order]
        if "D" in sides and sides != "D" and not any(t.endswith("D") for t in tiles):
            tiles[rng.randrange(4)] = tiles[rng.randrange(4)][0] + "D"
            if len({t[0] for t in tiles}) != 4:
                continue
        break
    board = Board.from_tiles(tiles)
    names = ["red", "green", "blue", "yellow", *extra]
    taken = {t.cell for t in board.targets} | {d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in board.blocked and c not in taken]
    cells = rng.sample(free, len(names))
    if target == "vortex":
        goal = next(t for t in board.targets if t.is_vortex)
    else:
        goal = rng.choice([t for t in board.targets if not t.is_vortex])
    rules: dict[str, Any] = {"transparent_robot": True} if "transparent" in extra else {}
    if preset is not None:
        rules["preset"] = preset
    return Position.from_dict({
        "board": {"tiles": tiles},
        "robots": {n: board.name(c) for n, c in zip(names, cells, strict=True)},
        "target": {"color": goal.color, "shape": goal.shape},
        "rules": rules or None,
    })


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def _ms(seconds_ms: float) -> str:
    return f"{seconds_ms:>7.2f}ms" if seconds_ms < 100 else f"{seconds_ms:>7.0f}ms"


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _warm_tables(pos: Position) -> float:
    return prepare(pos)


def run_set(name: str, count: int, sides: str, extra: tuple[str, ...], target: str,
            preset: str | None, seed: int, limit: float) -> dict[str, Any]:
    rng = random.Random(f"{seed}-{name}")
    times: list[float] = []
    cold: list[float] = []
    cpu: list[float] = []  # the process's own time: what other programs on the machine take
    # out of the wall-clock time shows as the difference
    cold_cpu: list[float] = []
    expanded: list[int] = []
    by_length: dict[int, list[float]] = {}
    table_times: list[float] = []
    unsolved = 0
    for _ in range(count):
        pos = random_position(rng, sides, extra, target, preset)
        forget_boards()
        started, cpu_started = time.perf_counter(), time.process_time()
        first = solve(pos, deadline=time.monotonic() + limit)
        cold.append(time.perf_counter() - started)
        cold_cpu.append(time.process_time() - cpu_started)
        forget_boards()
        table_times.append(_warm_tables(pos))
        started, cpu_started = time.perf_counter(), time.process_time()
        result = solve(pos, deadline=time.monotonic() + limit)
        took = time.perf_counter() - started
        times.append(took)
        cpu.append(time.process_time() - cpu_started)
        expanded.append(result.expanded)
        if result.solved and first.solved:
            assert result.moves is not None
            verdict = validate_route(pos, result.moves)
            if not (verdict.legal and verdict.reached) or first.cost != result.cost:
                raise AssertionError(f"illegal route in {name}: {verdict.reason}")
            by_length.setdefault(result.length or 0, []).append(took)
        else:
            unsolved += 1
    return {
        "set": name, "positions": count, "unsolved": unsolved,
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": _percentile(times, 0.9) * 1e3,
        "p99_ms": _percentile(times, 0.99) * 1e3,
        "max_ms": max(times) * 1e3,
        "cpu_median_ms": statistics.median(cpu) * 1e3,
        "cpu_p90_ms": _percentile(cpu, 0.9) * 1e3,
        "cold_median_ms": statistics.median(cold) * 1e3,
        "cold_p90_ms": _percentile(cold, 0.9) * 1e3,
        "cold_p99_ms": _percentile(cold, 0.99) * 1e3,
        "cold_max_ms": max(cold) * 1e3,
        "cold_cpu_median_ms": statistics.median(cold_cpu) * 1e3,
        "cold_cpu_p90_ms": _percentile(cold_cpu, 0.9) * 1e3,
        "cold_cpu_p99_ms": _percentile(cold_cpu, 0.99) * 1e3,
        "cold_cpu_max_ms": max(cold_cpu) * 1e3,
        "expanded_median": int(statistics.median(expanded)),
        "expanded_max": max(expanded),
        "peak_rss_mb": _peak_rss_mb(),
        "tables_ms_median": statistics.median(table_times) * 1e3,
        "by_length": {str(k): {"n": len(v), "median_ms": statistics.median(v) * 1e3,
                               "max_ms": max(v) * 1e3}
                      for k, v in sorted(by_length.items())},
    }


_CHILD = """
import json, resource, sys, time
from companion.cli import example_path
from companion.rules import Position
from companion.solver import prepare, solve
pos = Position.load(example_path(sys.argv[1]))
t0 = time.perf_counter()
prepare(pos)
t1 = time.perf_counter()
res = solve(pos)
t2 = time.perf_counter()
print(json.dumps({"length": res.length, "expanded": res.expanded, "seconds": t2 - t1,
                  "tables_seconds": t1 - t0,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_hardest(name: str) -> dict[str, Any]:
    """One published position in a fresh process: the whole process timed from outside
    (Python's start and the imports included, as the anchors were), and its CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, name], capture_output=True, text=True,
                          check=True)
    whole = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = json.loads(proc.stdout)
    out["set"] = name
    out["process_seconds"] = whole
    out["process_cpu_seconds"] = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    return out


def goal_rows(rows: list[dict[str, Any]], hardest: list[dict[str, Any]]
              ) -> list[tuple[str, float, str, float | None, float | None]]:
    """Each goal: (what, limit, unit, the wall-clock figure, the process-time figure); None
    where it was not run (memory has one figure)."""
    h25 = next((h for h in hardest if h["set"] == "hardest-25.json"), None)
    ac = next((r for r in rows if r["set"] == "A-C"), None)
    got = {
        GOALS[0][0]: (h25["process_seconds"], h25["process_cpu_seconds"]) if h25 else None,
        GOALS[1][0]: (h25["peak_rss_mb"], h25["peak_rss_mb"]) if h25 else None,
    }
    for (what, _, _), key in zip(GOALS[2:], ("median", "p90", "p99", "max"), strict=True):
        got[what] = (ac[f"cold_{key}_ms"], ac[f"cold_cpu_{key}_ms"]) if ac else None
    return [(what, limit, unit, *(got[what] or (None, None))) for what, limit, unit in GOALS]


def _verdict(value: float | None, limit: float, unit: str) -> str:
    if value is None:
        return "not run"
    return ("met" if value <= limit else "NOT met") + f": {value:.3g} {unit}"


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench solver",
                                     description="time the optimal solver")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the random sets")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of each set to run (for a quick look)")
    parser.add_argument("--limit", type=float, default=30.0,
                        help="seconds allowed per random position")
    parser.add_argument("--skip-hardest", action="store_true")
    parser.add_argument("--out", default="bench-solver.json", help="where to write the JSON")
    args = parser.parse_args(argv)

    rows = []
    load_before = os.getloadavg()
    print(f"{'':<12} {'':>4} {'new board (cold)':^39} {'tables built (warm)':^39}")
    print(f"{'set':<12} {'n':>4} " + f"{'median':>9} {'p90':>9} {'p99':>9} {'max':>9} " * 2
          + f"{'expanded':>15} {'peak RSS':>9}")
    for name, (count, sides, extra, target, preset) in SETS.items():
        n = max(1, round(count * args.scale))
        row = run_set(name, n, sides, extra, target, preset, args.seed, args.limit)
        rows.append(row)
        figures = " ".join(_ms(row[k]) for k in ("cold_median_ms", "cold_p90_ms", "cold_p99_ms",
                                                 "cold_max_ms", "median_ms", "p90_ms",
                                                 "p99_ms", "max_ms"))
        print(f"{name:<12} {n:>4} {figures} "
              f"{row['expanded_median']:>7}/{row['expanded_max']:<7} "
              f"{row['peak_rss_mb']:>6.0f} MB"
              + (f"  ({row['unsolved']} stopped)" if row["unsolved"] else ""), flush=True)
    hardest = []
    if not args.skip_hardest:
        for name in HARDEST:
            h = run_hardest(name)
            hardest.append(h)
            print(f"{name:<17} {h['length']:>2} moves: whole process {h['process_seconds']:.2f} s"
                  f" (CPU {h['process_cpu_seconds']:.2f} s), solve {h['seconds']:.2f} s, "
                  f"{h['expanded']} expanded, {h['peak_rss_mb']:.0f} MB peak RSS "
                  f"(tables {h['tables_seconds'] * 1e3:.1f} ms)", flush=True)
    print("\ntime by optimal length (median / max ms, count)")
    lengths = sorted({int(k) for r in rows for k in r["by_length"]})
    print(f"{'set':<12} " + " ".join(f"{k:>15}" for k in lengths))
    for r in rows:
        cells = []
        for k in lengths:
            v = r["by_length"].get(str(k))
            cells.append(f"{v['median_ms']:.1f}/{v['max_ms']:.0f} ({v['n']})" if v else "-")
        print(f"{r['set']:<12} " + " ".join(f"{c:>15}" for c in cells))
    print("\nmove tables per board, built once per game: median "
          + ", ".join(f"{r['set']} {r['tables_ms_median']:.0f} ms" for r in rows))
    print("process time per solve (median / p90 ms): "
          + ", ".join(f"{r['set']} {r['cpu_median_ms']:.1f}/{r['cpu_p90_ms']:.1f}" for r in rows))
    print("cold process time per solve (median / p90 ms): "
          + ", ".join(f"{r['set']} {r['cold_cpu_median_ms']:.2f}/{r['cold_cpu_p90_ms']:.2f}"
                      for r in rows))
    load_after = os.getloadavg()
    print(f"machine load (1-minute average): {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after, on {os.cpu_count()} cores")
    goals = goal_rows(rows, hardest)
    print("\ngoals, this run: by the clock on the wall, and by the process's own CPU time "
          "(what other programs on the machine take shows as the difference)")
    for what, limit, unit, wall, cpu_time in goals:
        print(f"  {what:<26} <= {limit:<6g} {unit:<3} wall {_verdict(wall, limit, unit):<22} "
              f"CPU {_verdict(cpu_time, limit, unit)}")
    print("\nfor comparison: public solvers measured once on a 2-core machine (given figures)")
    widths = (36, 40, 20, 20)
    for line in ANCHORS:
        print("  " + " ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
    report = {"seed": args.seed, "scale": args.scale, "sets": rows, "hardest": hardest,
              "goals": [{"goal": w, "limit": lim, "unit": u, "wall": v, "cpu": c,
                         "met": None if v is None else v <= lim,
                         "met_cpu": None if c is None else c <= lim}
                        for w, lim, u, v, c in goals],
              "load_average": {"before": load_before[0], "after": load_after[0],
                               "cores": os.cpu_count()}}
    print()
    return write_report(args.out, report)
