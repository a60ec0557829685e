"""The command line's practice commands: ``solve --all``, ``hint`` and ``puzzle``.

Kept apart from :mod:`companion.cli`, which only registers them."""

from __future__ import annotations

import argparse
import json
import time

from .cli_common import EXIT_NO, EXIT_OK, UsageError, load_position


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


# ---------------------------------------------------------------- hint and puzzle


def add_parsers(sub) -> None:
    p = sub.add_parser("hint", help="a graded hint: the length, the robots, the first move, "
                                    "the route")
    p.add_argument("position", help="position file, or - for standard input")
    p.add_argument("--level", type=int, default=1,
                   help="1 the optimal length, 2 which robots move, 3 the first move, "
                        "4 the whole route (each level says the ones before it too)")
    p.add_argument("--rules", help="rule preset to use instead of the file's")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_hint)

    p = sub.add_parser("puzzle", help="deal a practice position of exactly N optimal moves")
    p.add_argument("--moves", type=int, help="the optimal length (default 6)")
    p.add_argument("--rules", help="rule preset, or a JSON object of options over one")
    p.add_argument("--seed", help="the same seed deals the same puzzle")
    p.add_argument("--daily", nargs="?", const="today", metavar="DATE",
                   help="the puzzle of the day (YYYY-MM-DD, default today): the same for "
                        "everyone")
    p.add_argument("--fifth", action="store_true", help="play the edition's fifth robot too")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="give up dealing after this long (default 60)")
    p.add_argument("--out", help="write the position file here")
    p.add_argument("--json", action="store_true",
                   help='print {"moves", "seed", "position", "solution"}')
    p.set_defaults(handler=_cmd_puzzle)


def _cmd_hint(args: argparse.Namespace) -> int:
    from .hints import LEVELS, hints
    from .solver import SearchMemoryError, SolverError, solve

    if args.level not in LEVELS:
        raise UsageError(f"--level: a hint level from 1 to {len(LEVELS)}, not {args.level}")
    pos = load_position(args.position, args.rules)
    try:
        sol = solve(pos)
    except SearchMemoryError as e:
        print(str(e))
        return EXIT_NO
    except SolverError as e:
        raise UsageError(str(e)) from None
    if not sol.solved:
        print(json.dumps({"status": sol.status, "reason": sol.reason}) if args.json
              else sol.reason)
        return EXIT_NO
    got = hints(pos, args.level, sol)
    if args.json:
        print(json.dumps({"status": "solved", "hints": [h.to_json() for h in got]}))
    else:
        for h in got:
            print(f"{h.level}. {h.text}")
    return EXIT_OK


def _rules(spec: str | None):
    from .rules import Rules

    if spec is None:
        return Rules()
    text = spec.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise UsageError(f"--rules: not JSON: {e.msg}") from None
        return Rules.from_spec(data)
    return Rules.from_spec(text)


def _cmd_puzzle(args: argparse.Namespace) -> int:
    import datetime as dt
    from pathlib import Path

    from .puzzles import DAILY_MOVES, PuzzleError, daily, deal

    rules = _rules(args.rules)
    moves = DAILY_MOVES if args.moves is None else args.moves
    if not args.seconds > 0:
        raise UsageError(f"--seconds: a time in seconds above 0, not {args.seconds}")
    try:
        if args.daily is not None:
            if args.seed is not None:
                raise UsageError("--daily: the day is the seed; leave out --seed")
            try:
                day = dt.date.today() if args.daily == "today" else \
                    dt.date.fromisoformat(args.daily)
            except ValueError:
                raise UsageError(f"--daily: a date like 2026-11-25, not {args.daily!r}") \
                    from None
            puzzle = daily(day, moves, rules)
        else:
            puzzle = deal(moves, rules, args.seed, fifth=args.fifth, seconds=args.seconds)
    except PuzzleError as e:
        if str(e).startswith(("moves:", "rules:")):
            raise UsageError(f"--{e}") from None
        print(f"error: {e}", file=__import__("sys").stderr)
        return EXIT_NO
    text = puzzle.position.to_json()
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--out: cannot write {args.out}: {e.strerror or e}") from None
    if args.json:
        print(json.dumps(puzzle.to_json()))
    else:
        pos = puzzle.position
        assert pos.target is not None
        robots = ", ".join(f"{r} {pos.board.name(c)}" for r, c in pos.robots.items())
        print(f"A puzzle of {puzzle.moves} moves (seed {puzzle.seed}): tiles "
              f"{', '.join(pos.board.tiles or ())}; {robots}; target "
              f"{pos.target.label(pos.board)}.")
        if args.out:
            print(f"wrote {args.out}; hints: companion hint {args.out} --level 1")
        else:
            print(text)
    return EXIT_OK
