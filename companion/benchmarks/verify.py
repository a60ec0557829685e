"""Decision latency of live verification: a stable observation in, its events out.

Demonstrations are random legal routes on random real boards (four robots), looked at every
1, 2 or 3 moves; one more case puts a robot down mid-slide, which the search must prove no legal
sequence explains (the slowest decision). Each observation is timed on its own, from the call
to :meth:`Demonstration.observe` to the events it returns; the first look of each
demonstration (cold slide caches) is part of the sample, as at the table.

``companion bench verify [--demos N] [--seed S] [--out PATH]``
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from typing import Any

from ..board import Board, tile_names
from ..rules import Goal, Position
from ..verify import DEFAULT_MAX_GAP, Demonstration, finder_for
from . import write_report

GOAL_MEDIAN_MS = 50.0
ROBOTS = ("red", "green", "blue", "yellow")


def _board(rnd: random.Random) -> Board:
    tiles = [rnd.choice([t for t in tile_names() if t[0] == q]) for q in "1234"]
    rnd.shuffle(tiles)
    return Board.from_tiles(tiles)


def _position(rnd: random.Random) -> Position:
    board = _board(rnd)
    free = [c for c in board if c not in board.blocked and board.diagonal_at(c) is None
            and board.target_at(c) is None]
    robots = dict(zip(ROBOTS, rnd.sample(free, len(ROBOTS)), strict=True))
    t = rnd.choice([t for t in board.targets if not t.is_vortex])
    return Position(board, robots, Goal(t.cell, t.color, t.color, t.shape))


def _route_looks(p: Position, rnd: random.Random, moves: int, gap: int) -> list[dict[str, int]]:
    """Observations every ``gap`` moves of a random legal route that avoids the target."""
    looks = []
    q = p
    assert p.target is not None
    for k in range(1, moves + 1):
        options = [m for m, s in q.legal_moves() if s.end != p.target.cell]
        q = q.push(rnd.choice(options))
        if k % gap == 0:
            looks.append(dict(q.robots))
    return looks


def _mid_slide(p: Position, rnd: random.Random) -> dict[str, int] | None:
    """The robots with one of them put down a cell short of where a slide really stops."""
    moves = [(m, s) for m, s in p.legal_moves() if len(s.path) >= 3 and not s.deflected]
    if not moves:
        return None
    m, s = rnd.choice(moves)
    cells = dict(p.robots)
    cells[m.robot] = s.path[-2]
    return cells


def _timed(demo: Demonstration, obs: dict[str, int] | None, at: float) -> tuple[float, list]:
    t0 = time.perf_counter()
    events = demo.observe(obs, at)
    return (time.perf_counter() - t0) * 1000.0, events


def measure(demos: int, seed: int, route_moves: int = 9) -> dict[str, Any]:
    rnd = random.Random(seed)
    cases: dict[str, list[float]] = {"gap 1": [], "gap 2": [], "gap 3": [], "illegal": []}
    checked = {"gap 1": 0, "gap 2": 0, "gap 3": 0, "illegal": 0}
    for _ in range(demos):
        p = _position(rnd)
        finder_for.cache_clear()  # each demonstration starts cold, as on a fresh board
        for gap in (1, 2, 3):
            demo = Demonstration(p, bid=30, max_gap=DEFAULT_MAX_GAP)
            at = 0.0
            for obs in _route_looks(p, rnd, route_moves, gap):
                at += 1.0
                ms, events = _timed(demo, obs, at)
                cases[f"gap {gap}"].append(ms)
                moved = sum(1 for e in events if e["type"] == "move")
                if any(e.get("verdict") in ("illegal", "over_bid") for e in events):
                    raise AssertionError(f"a legal route was judged {events[-1]}")
                checked[f"gap {gap}"] += moved
        bad = _mid_slide(p, rnd)
        if bad is not None:
            demo = Demonstration(p, bid=30, max_gap=DEFAULT_MAX_GAP)
            ms, events = _timed(demo, bad, 1.0)
            if any(e.get("verdict") == "illegal" for e in events):
                cases["illegal"].append(ms)
                checked["illegal"] += 1
    rows = {}
    for name, samples in cases.items():
        if not samples:
            continue
        ordered = sorted(samples)
        rows[name] = {
            "looks": len(samples),
            "moves_counted": checked[name] if name != "illegal" else None,
            "median_ms": statistics.median(ordered),
            "p90_ms": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
            "max_ms": ordered[-1],
        }
    return rows


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench verify", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demos", type=int, default=40, help="random demonstrations (40)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="bench-verify.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if args.demos < 1:
        parser.error("--demos: at least 1")
    rows = measure(args.demos, args.seed)
    print(f"verify: decision latency, stable observation in → events out "
          f"({args.demos} demonstrations, seed {args.seed})")
    print(f"{'case':<10} {'looks':>6} {'moves':>6} {'median ms':>10} {'p90 ms':>8} "
          f"{'max ms':>8}  goal: median ≤ {GOAL_MEDIAN_MS:.0f} ms")
    for name, r in rows.items():
        moves = "-" if r["moves_counted"] is None else str(r["moves_counted"])
        ok = "ok" if r["median_ms"] <= GOAL_MEDIAN_MS else "MISSED"
        print(f"{name:<10} {r['looks']:>6} {moves:>6} {r['median_ms']:>10.2f} "
              f"{r['p90_ms']:>8.2f} {r['max_ms']:>8.2f}  {ok}")
    met = all(r["median_ms"] <= GOAL_MEDIAN_MS for r in rows.values())
    report = {
        "benchmark": "verify",
        "goal": {"median_ms": GOAL_MEDIAN_MS},
        "met": met,
        "demos": args.demos,
        "seed": args.seed,
        "max_gap": DEFAULT_MAX_GAP,
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "cases": rows,
    }
    return write_report(args.out, report, 0 if met else 1)
