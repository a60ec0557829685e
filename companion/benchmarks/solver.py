"""``companion bench solver``: the optimal solver on seeded random positions and the two
published hardest positions.

Sets (seeded, on the real tiles): A–C sides, boards with D sides (diagonals), a 5th robot, the
vortex, the transparent robot, and A–C sides under ``riogrande-2003`` (immediate reversal
forbidden, so the last move is part of each position); then each hardest position in a fresh
process, so its peak memory is its own. Prints per set the median, p90, p99 and max time per
solve, positions expanded, peak RSS and time by optimal length; writes everything as JSON.
Move tables are built once per board (as at a table, where the board stays for the game:
:func:`companion.solver.prepare`) and timed separately.
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


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _warm_tables(pos: Position) -> float:
    return prepare(pos)


def run_set(name: str, count: int, sides: str, extra: tuple[str, ...], target: str,
            preset: str | None, seed: int, limit: float) -> dict[str, Any]:
    rng = random.Random(f"{seed}-{name}")
    times: list[float] = []
    cpu: list[float] = []  # the process's own time: what other programs on the machine take
    # out of the wall-clock time shows as the difference
    expanded: list[int] = []
    by_length: dict[int, list[float]] = {}
    table_times: list[float] = []
    unsolved = 0
    for _ in range(count):
        pos = random_position(rng, sides, extra, target, preset)
        table_times.append(_warm_tables(pos))
        started, cpu_started = time.perf_counter(), time.process_time()
        result = solve(pos, deadline=time.monotonic() + limit)
        took = time.perf_counter() - started
        times.append(took)
        cpu.append(time.process_time() - cpu_started)
        expanded.append(result.expanded)
        if result.solved:
            assert result.moves is not None
            verdict = validate_route(pos, result.moves)
            if not (verdict.legal and verdict.reached):
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
    proc = subprocess.run([sys.executable, "-c", _CHILD, name], capture_output=True, text=True,
                          check=True)
    out = json.loads(proc.stdout)
    out["set"] = name
    return out


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
    print(f"{'set':<12} {'n':>4} {'median':>9} {'p90':>9} {'p99':>9} {'max':>9} "
          f"{'expanded':>15} {'peak RSS':>9}")
    for name, (count, sides, extra, target, preset) in SETS.items():
        n = max(1, round(count * args.scale))
        row = run_set(name, n, sides, extra, target, preset, args.seed, args.limit)
        rows.append(row)
        print(f"{name:<12} {n:>4} {row['median_ms']:>7.1f}ms {row['p90_ms']:>7.1f}ms "
              f"{row['p99_ms']:>7.1f}ms {row['max_ms']:>7.1f}ms "
              f"{row['expanded_median']:>7}/{row['expanded_max']:<7} "
              f"{row['peak_rss_mb']:>6.0f} MB"
              + (f"  ({row['unsolved']} stopped)" if row["unsolved"] else ""), flush=True)
    hardest = []
    if not args.skip_hardest:
        for name in HARDEST:
            h = run_hardest(name)
            hardest.append(h)
            print(f"{name:<17} {h['length']:>2} moves {h['seconds']:>7.2f} s  "
                  f"{h['expanded']:>9} expanded  {h['peak_rss_mb']:>5.0f} MB peak RSS  "
                  f"(tables {h['tables_seconds'] * 1e3:.0f} ms)", flush=True)
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
    load_after = os.getloadavg()
    print(f"machine load (1-minute average): {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after, on {os.cpu_count()} cores")
    report = {"seed": args.seed, "scale": args.scale, "sets": rows, "hardest": hardest,
              "load_average": {"before": load_before[0], "after": load_after[0],
                               "cores": os.cpu_count()}}
    print()
    return write_report(args.out, report)
