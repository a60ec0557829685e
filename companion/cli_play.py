"""The command line's practice commands: ``solve --all``, ``hint`` and ``puzzle``.

Kept apart from :mod:`companion.cli`, which only registers them."""

from __future__ import annotations

import argparse
import json
import time

from .cli import EXIT_NO, EXIT_OK, UsageError, load_position


def _route_text(moves) -> str:
    return ", ".join(m.text() for m in moves)


# ---------------------------------------------------------------- solve --all


def add_solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true",
                   help="list every distinct optimal route (reorderings of independent moves "
                        "count once)")
    p.add_argument("--limit", type=int, default=20,
                   help="with --all: routes to print (default 20; all are counted)")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="with --all: stop listing after this long (default 60)")


def solve_all(args: argparse.Namespace) -> int:
    from .routes import optimal_routes
    from .solver import SearchMemoryError, SolverError

    if args.limit < 1:
        raise UsageError(f"--limit: at least 1 route, not {args.limit}")
    if not args.seconds > 0:
        raise UsageError(f"--seconds: a time in seconds above 0, not {args.seconds}")
    if args.position.endswith(".jsonl"):
        raise UsageError("--all: one position file, not a .jsonl file")
    pos = load_position(args.position, args.rules)
    try:
        found = optimal_routes(pos, limit=args.limit, max_cost=args.max_moves,
                               deadline=time.monotonic() + args.seconds)
    except SearchMemoryError as e:
        print(json.dumps({"status": "memory", "reason": str(e)}) if args.json else str(e))
        return EXIT_NO
    except SolverError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(found.to_json()))
    elif found.status != "solved":
        print(found.reason)
    else:
        more = "" if found.complete else "at least "
        n = found.count
        length = len(found.routes[0])
        cost = "" if found.cost == length else f" (cost {found.cost})"
        print(f"{more}{n} distinct optimal route{'' if n == 1 else 's'} of {length} "
              f"move{'' if length == 1 else 's'}{cost} ({more}{found.sequences} move "
              f"order{'' if found.sequences == 1 else 's'})")
        for i, route in enumerate(found.routes, 1):
            print(f"{i:>3}. {_route_text(route)}")
        if found.count > len(found.routes):
            print(f"     ... and {found.count - len(found.routes)} more (--limit)")
        if found.reason:
            print(found.reason)
    return EXIT_OK if found.status == "solved" else EXIT_NO
