"""The ``companion`` command.

Each subcommand is a ``_cmd_*`` function taking the parsed arguments and returning the exit
status: 0 done, 1 a clear "no" (no solution, route fails), 2 bad input. Heavy modules are imported
inside the command that needs them, so ``companion show`` starts instantly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from . import inputs, readers
from .board import DOWN, LEFT, RIGHT, UP, Board
from .cli_common import EXIT_BAD, EXIT_NO, EXIT_OK, UsageError, load_position
from .names import shown
from .rules import (
    InvalidMoveError,
    Position,
    PositionError,
    Rules,
    parse_route,
    validate_route,
)

# ---------------------------------------------------------------- helpers


def example_path(name: str = "hardest-25.json") -> Path:
    """A position bundled with the package (``companion show --example``)."""
    return Path(str(resources.files("companion").joinpath("examples", name)))


def _color_enabled(stream) -> bool:
    return stream.isatty() and os.environ.get("NO_COLOR") is None and os.environ.get(
        "TERM") != "dumb"


_ANSI = {
    "red": "41;97", "green": "42;30", "blue": "44;97", "yellow": "43;30",
    "black": "40;97", "silver": "47;30", "transparent": "100;97", "any": "45;97",
}
_ROBOT_LETTER = {
    "red": "R", "green": "G", "blue": "B", "yellow": "Y", "black": "K", "silver": "S",
    "transparent": "T",
}
_SHAPE_LETTER = {"circle": "c", "triangle": "t", "square": "s", "hexagon": "h", "vortex": "v"}


def draw_position(pos: Position, color: bool = False) -> str:
    """The position as text: walls as lines, robots as capitals, targets as colour+shape
    (``bt`` = blue triangle), the round's target in brackets, diagonals as ``/`` and ``\\``."""
    b: Board = pos.board
    robot_at = {c: r for r, c in pos.robots.items()}
    goal = pos.target.cell if pos.target else None

    def paint(text: str, code: str | None) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color and code else text

    files = "".join(f" {b.name(f)[0]} " for f in range(b.width))
    lines = ["    " + files]
    for r in range(b.height - 1, -1, -1):
        # the wall line on the north side of this rank
        top = ["   +"]
        for f in range(b.width):
            c = r * b.width + f
            top.append(("--" if b.has_wall(c, UP) else "  ") + "+")
        lines.append("".join(top))
        row = [f"{r + 1:>3} " + ("|" if b.has_wall(r * b.width, LEFT) else " ")]
        for f in range(b.width):
            c = r * b.width + f
            if c in b.blocked:
                txt, code = "##", None
            elif c in robot_at:
                name = robot_at[c]
                txt = _ROBOT_LETTER[name] + ("*" if c == goal else " ")
                code = _ANSI[name]
            else:
                t = b.target_at(c)
                dg = b.diagonal_at(c)
                if dg is not None:
                    txt, code = dg.orientation * 2, _ANSI[dg.color]
                elif t is not None:
                    letter = "*" if t.is_vortex else t.color[0]
                    txt = letter + _SHAPE_LETTER[t.shape]
                    code = _ANSI[t.color] if c == goal else None
                    if c == goal and not color:
                        txt = txt.upper()
                elif c == goal:
                    txt, code = "()", _ANSI["any"]
                else:
                    txt, code = " .", None
            row.append(paint(txt, code) + ("|" if b.has_wall(c, RIGHT) else " "))
        lines.append("".join(row))
    bottom = ["   +"]
    for f in range(b.width):
        bottom.append(("--" if b.has_wall(f, DOWN) else "  ") + "+")
    lines.append("".join(bottom))
    legend = ", ".join(f"{_ROBOT_LETTER[r]} {r} {b.name(c)}" for r, c in pos.robots.items())
    lines.append(f"robots: {legend}")
    if pos.target is not None:
        lines.append(f"target: {pos.target.label(b)} at {b.name(pos.target.cell)}"
                     " (capitals on the board)")
    if b.tiles:
        lines.append("tiles: " + " ".join(b.tiles) + "  (north-west, north-east, south-east, "
                     "south-west)")
    spec = pos.rules.to_spec()
    lines.append("rules: " + (spec if isinstance(spec, str) else json.dumps(spec)))
    return "\n".join(lines)


# ---------------------------------------------------------------- commands


def _cmd_show(args: argparse.Namespace) -> int:
    path = str(example_path()) if args.position is None else args.position
    pos = load_position(path, args.rules)
    use_color = {"always": True, "never": False}.get(args.color, _color_enabled(sys.stdout))
    print(draw_position(pos, color=use_color))
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    pos = load_position(args.position, args.rules)
    if pos.target is None:
        raise UsageError("target: the position has no target to check against")
    if args.bid is not None and args.bid < 1:
        raise UsageError(f"--bid: a bid is a number of moves from 1, not {args.bid}")
    if args.route is None:
        if args.bid is None:
            raise UsageError("check: give --route, --bid, or both")
        return _check_bid_only(pos, args)
    try:
        route = parse_route(args.route)
    except InvalidMoveError as e:
        raise UsageError(f"--route: {e}") from None
    if not route:
        raise UsageError(f"--route: no moves in {args.route!r}; write them like "
                         "\"blue up, red left\"")
    result = validate_route(pos, route, args.bid)
    if args.json:
        print(json.dumps(result.to_json(pos.board)))
    else:
        b = pos.board
        where = ", ".join(f"{r} {b.name(c)}" for r, c in result.robots.items())
        print(f"{result.moves} moves, cost {result.cost}: "
              + ("legal" if result.legal else "illegal"))
        if result.reason:
            print(result.reason)
        print("reached " + pos.target.label(b) if result.reached else "target not reached")
        if args.bid is not None:
            print(f"bid {args.bid}: " + ("met" if result.meets_bid else "not met"))
        print(f"robots: {where}")
    ok = result.legal and result.reached and (args.bid is None or result.meets_bid)
    return EXIT_OK if ok else EXIT_NO


def _check_bid_only(pos: Position, args: argparse.Namespace) -> int:
    """``check --bid N`` without a route: can the bid be met? Answered by the solver, searching
    no deeper than the bid; the JSON has the shape of a route check, for the optimal route."""
    from .solver import SearchMemoryError, SolverError, check_bid

    try:
        result = check_bid(pos, args.bid)
    except SearchMemoryError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_NO
    except SolverError as e:
        raise UsageError(str(e)) from None
    sol = result.solution
    robots = dict(pos.robots)
    if sol.moves is not None:
        robots = validate_route(pos, sol.moves).robots
    b = pos.board
    if args.json:
        print(json.dumps({
            "legal": True,
            "reason": None if result.meets else sol.reason,
            "moves": sol.length,
            "cost": sol.cost,
            "reached": sol.solved,
            "meets_bid": result.meets,
            "robots": {r: b.name(c) for r, c in robots.items()},
            "route": None if sol.moves is None else [m.to_json() for m in sol.moves],
        }))
    elif result.meets:
        print(f"bid {args.bid}: can be met; the best is {sol.describe()}")
    else:
        print(f"bid {args.bid}: cannot be met: {sol.reason}")
    return EXIT_OK if result.meets else EXIT_NO


# ---------------------------------------------------------------- solve


def _solve_one(pos: Position, max_moves: int | None) -> dict:
    from .solver import SearchMemoryError, SolverError, solve

    try:
        return solve(pos, max_cost=max_moves).to_json()
    except SearchMemoryError as e:
        return {"status": "memory", "length": None, "cost": None, "moves": None,
                "reason": str(e)}
    except SolverError as e:
        raise UsageError(str(e)) from None


def _print_solution(pos: Position, out: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(out))
    elif out["status"] == "solved":
        extra = "" if out["cost"] == out["length"] else f", cost {out['cost']}"
        route = ", ".join(" ".join([m["robot"], m["direction"]]
                                   + [p if p == "bounce" else f"+{p}"
                                      for p in m.get("passes", [])])
                          for m in out["moves"])
        plural = "" if out["length"] == 1 else "s"
        print(f"{out['length']} move{plural}{extra}: {route}")
    else:
        print(out["reason"])


def _cmd_solve(args: argparse.Namespace) -> int:
    if args.max_moves is not None and args.max_moves < 1:
        raise UsageError(f"--max-moves: a number of moves from 1, not {args.max_moves}")
    if args.all:
        from .cli_play import solve_all

        return solve_all(args)
    if args.position.endswith(".jsonl"):
        return _solve_batch(args)
    pos = load_position(args.position, args.rules)
    out = _solve_one(pos, args.max_moves)
    _print_solution(pos, out, args.json)
    return EXIT_OK if out["status"] == "solved" else EXIT_NO


def _solve_batch(args: argparse.Namespace) -> int:
    """One position per line; one JSON result per line, in order. A bad line gives
    ``{"error": ...}`` and the rest go on. Exit 2 if any line was bad, else 1 if any had no
    solution within the limit, else 0."""
    from dataclasses import replace

    rules = None
    if args.rules is not None:
        try:
            rules = Rules.from_spec(args.rules)
        except PositionError as e:
            raise UsageError(f"--rules: {e}") from None
    lines = list(inputs.read_jsonl(args.position, "POSITION"))
    status = EXIT_OK
    for number, value, error in lines:
        try:
            if error is not None:
                raise error
            pos = readers.position_from_line(value, f"line {number}")
            if rules is not None:
                pos = replace(pos, rules=rules)
            out = _solve_one(pos, args.max_moves)
        except (inputs.InputError, UsageError) as e:
            message = str(e) if str(e).startswith("line ") else f"line {number}: {e}"
            print(json.dumps({"error": message}), flush=True)
            status = EXIT_BAD
            continue
        print(json.dumps(out), flush=True)
        if out["status"] != "solved" and status == EXIT_OK:
            status = EXIT_NO
    return status


def _solve_parser(sub) -> None:
    p = sub.add_parser("solve", help="the optimal route of a position (or of each line of a "
                                     ".jsonl file)")
    p.add_argument("position", help="position file, or a .jsonl file of positions")
    p.add_argument("--json", action="store_true",
                   help='print {"length", "cost", "moves"} (always, for .jsonl)')
    p.add_argument("--max-moves", type=int, help="give up beyond this many moves")
    p.add_argument("--rules", help="rule preset to use instead of the file's")
    from .cli_play import add_solve_options

    add_solve_options(p)
    p.set_defaults(handler=_cmd_solve)


def _cmd_bench(args: argparse.Namespace) -> int:
    import importlib

    from .benchmarks import NAMES

    if args.name not in NAMES:
        raise UsageError(f"bench: unknown benchmark {args.name!r} (known: {', '.join(NAMES)})")
    try:
        module_name = f"companion.benchmarks.{args.name.replace('-', '_')}"
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name != module_name:
            raise
        raise UsageError(f"bench: the {args.name} benchmark is not built yet") from None
    return module.run(list(args.options))


# ---------------------------------------------------------------- Micro Robots


def _micro_layout(path: str, option: str = "LAYOUT"):
    return readers.read_layout(path, option)


def _micro_space(option: str, text: str | None):
    from .micro import Space, SpaceError

    if text is None:
        return None
    try:
        return Space.parse(text)
    except SpaceError as e:
        raise UsageError(f"{option}: {e}") from None


def _cmd_micro_solve(args: argparse.Namespace) -> int:
    from .micro import exact_lengths, route_of_length, shortest_route

    layout = _micro_layout(args.layout)
    start = _micro_space("--from", args.start)
    target = _micro_space("--to", args.target)
    via = _micro_space("--via", args.via)
    if args.exact is not None and args.exact < 0:
        raise UsageError(f"--exact: a number of moves from 0, not {args.exact}")
    lengths = exact_lengths(layout, start, target, via)
    best = shortest_route(layout, start, target, via)
    exact = None if args.exact is None else route_of_length(layout, start, target, args.exact,
                                                            via)
    found = best is not None if args.exact is None else exact is not None
    if args.json:
        out = {
            "layout": layout.name, "from": start.name, "to": target.name,
            "via": None if via is None else via.name,
            "found": found,
            "shortest": None if best is None else best.to_json(),
            "lengths": lengths.to_json(),
        }
        if args.exact is not None:
            out["exact"] = {"moves": args.exact, "found": exact is not None,
                            "spaces": None if exact is None else exact.to_json()["spaces"]}
        print(json.dumps(out))
        return EXIT_OK if found else EXIT_NO
    trip = f"{start} → {target}" + (f" landing on {via} first" if via else "")
    if best is None:
        print(f"{trip}: no route at all")
        return EXIT_NO
    print(f"{trip}: shortest {best.moves} move{'s' * (best.moves != 1)}")
    print(f"  {best.text()}")
    print(f"possible move counts: {lengths.describe()}")
    if args.exact is not None:
        if exact is None:
            print(f"no route of exactly {args.exact} moves")
        else:
            print(f"exactly {args.exact} moves:")
            print(f"  {exact.text()}")
    return EXIT_OK if found else EXIT_NO


def _cmd_micro_check(args: argparse.Namespace) -> int:
    from .micro import SpaceError, check_demonstration, exact_lengths, parse_spaces

    layout = _micro_layout(args.layout)
    start = _micro_space("--from", args.start)
    target = _micro_space("--to", args.target)
    via = _micro_space("--via", args.via)
    if args.call < 1:
        raise UsageError(f"--call: a number of moves from 1, not {args.call}")
    try:
        landings = parse_spaces(args.route)
    except SpaceError as e:
        raise UsageError(f"--route: {e}") from None
    verdict = check_demonstration(layout, start, target, args.call, landings, via,
                                  finished=True)
    possible = args.call in exact_lengths(layout, start, target, via)
    if args.json:
        print(json.dumps({**verdict.to_json(), "called": args.call, "possible": possible}))
    else:
        print(("success: " if verdict.success else "failed: ")
              + (verdict.reason or f"{target} in exactly {args.call} moves"))
        if not verdict.success:
            print(f"{args.call} moves " + ("were" if possible else "were not")
                  + " possible")
    return EXIT_OK if verdict.success else EXIT_NO


def _cmd_micro_example(args: argparse.Namespace) -> int:
    from .micro import example_layout

    layout = example_layout()
    if args.name is not None:
        layout = layout.renamed(args.name)
    sys.stdout.write(layout.to_json(indent=2))
    return EXIT_OK


def _cmd_micro_show(args: argparse.Namespace) -> int:
    layout = _micro_layout(args.layout)
    print(f"{layout.name or '(unnamed)'}: a valid Micro Robots layout")
    print(layout.text())
    return EXIT_OK


def _micro_parser(sub) -> None:
    p = sub.add_parser("micro", help="Micro Robots: routes on a 6×6 colour-and-number board")
    msub = p.add_subparsers(dest="micro_command", metavar="COMMAND")
    msub.required = True

    q = msub.add_parser("solve", help="the shortest route, and one of exactly N moves")
    q.add_argument("layout", help="layout file (micro-layout/1), or - for standard input")
    q.add_argument("--from", dest="start", required=True, help="start space, like pink1")
    q.add_argument("--to", dest="target", required=True, help="target space, like white2")
    q.add_argument("--via", help="intermediate target to land on first (expert variant)")
    q.add_argument("--exact", type=int, help="find a route of exactly this many moves")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(handler=_cmd_micro_solve)

    q = msub.add_parser("check", help="judge a demonstration: the called number and the "
                        "spaces landed on")
    q.add_argument("layout", help="layout file (micro-layout/1), or - for standard input")
    q.add_argument("--from", dest="start", required=True, help="start space, like pink1")
    q.add_argument("--to", dest="target", required=True, help="target space, like white2")
    q.add_argument("--via", help="intermediate target to land on first (expert variant)")
    q.add_argument("--call", type=int, required=True, help="the number of moves called")
    q.add_argument("--route", required=True, help='the landings, like "pink6, white6, red6"')
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(handler=_cmd_micro_check)

    q = msub.add_parser("example", help="print a valid example layout file")
    q.add_argument("--name", help="the layout's name in the file")
    q.set_defaults(handler=_cmd_micro_example)

    q = msub.add_parser("show", help="check a layout file and draw it")
    q.add_argument("layout", help="layout file (micro-layout/1), or - for standard input")
    q.set_defaults(handler=_cmd_micro_show)

    _micro_read_parser(msub)


# ---------------------------------------------------------------- history


def _cmd_history(args: argparse.Namespace) -> int:
    from .store import JournalError, default_path

    path = Path(args.db) if args.db else default_path()
    try:
        if args.recover:
            out, kept, left = readers.recover_journal(path, "--db")
            lost = "an unknown number of" if left < 0 else str(left)
            print(f"copied {kept} intact journal rows into {out}; {lost} rows after the damage "
                  f"were left out; {path} is untouched")
            return EXIT_OK
        if not path.exists() and not args.db:
            games, players = [], {}
        else:
            games, players = readers.read_history(path, "--db")
    except JournalError as e:
        raise UsageError(str(e)) from None
    if args.json:
        for g in games:
            g["rounds_played"] = g.pop("rounds")
            g["rounds"] = g.pop("summary")["rounds"]
        print(json.dumps({"db": str(path), "games": games, "players": players}))
        return EXIT_OK
    if not games:
        print(f"no games recorded yet ({path})")
        return EXIT_OK
    print(f"games ({path})")
    print(f"{'#':>4}  {'started (UTC)':<19}  {'game':<7}  {'status':<9}  {'rounds':>6}  "
          "players (chips or VP) → winners")
    for g in games:
        started = g["started"].replace("T", " ")[:16]
        game = "micro" if g.get("game") == "micro-robots" else "classic"
        scores = ", ".join(f"{shown(n)} {c}" for n, c in zip(g["players"], g["chips"],
                                                             strict=True))
        won = ", ".join(shown(n) for n in g["winners"]) or "-"
        print(shown(f"{g['id']:>4}  {started:<19}  {game:<7}  {g['status']:<9}  "
                    f"{g['rounds']:>6}  {scores} → {won}"))
    print()
    print("players")
    print(f"  {'name':<14} {'games':>5} {'won':>4} {'rounds':>6} {'bids':>5} {'optimal':>8} "
          f"{'avg excess':>10}")
    for name, st in players.items():
        share = "-" if st["optimal_share"] is None else f"{st['optimal_share']:.0%}"
        excess = "-" if st["average_excess"] is None else f"{st['average_excess']:+.2f}"
        print(f"  {shown(name):<14} {st['games']:>5} {st['games_won']:>4} "
              f"{st['rounds_won']:>6} {st['bids_made']:>5} {share:>8} {excess:>10}")
    return EXIT_OK


def _history_parser(sub) -> None:
    p = sub.add_parser("history", help="past games, winners and each player's statistics")
    p.add_argument("--db", help="the journal database (default: in the user's data directory)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--recover", action="store_true",
                   help="copy the intact part of a damaged journal into a new file")
    p.set_defaults(handler=_cmd_history)


# ---------------------------------------------------------------- verify


def _cmd_verify(args: argparse.Namespace) -> int:
    from . import verify_replay

    pos = load_position(args.start, args.rules, "--start")
    if pos.target is None:
        raise UsageError("--start: the position has no target to verify against")
    if args.bid < 1:
        raise UsageError(f"--bid: a bid is a number of moves from 1, not {args.bid}")
    frames = Path(args.frames)
    if not frames.exists():
        raise UsageError(f"FRAMES: {args.frames!r} does not exist")
    try:
        if frames.is_file() and frames.suffix.lower() in (".jsonl", ".json"):
            observations = readers.read_observations(frames, "FRAMES")
        else:
            if frames.is_file():
                readers.check_video(frames, "FRAMES")
            observations = verify_replay.frame_observations(frames, pos, cells=not args.no_cells)
        with inputs.quiet_stderr():  # the decoders' own complaints; ours come after
            result = verify_replay.replay(pos, args.bid, observations)
    except inputs.InputError:
        raise
    except ValueError as e:
        raise UsageError(f"FRAMES: {e}") from None
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        for e in result.events:
            if e["type"] == "move":
                extra = f" (cost {e['move_cost']})" if "move_cost" in e else ""
                where = f"{e['from']}→{e['to']}"
                print(f"{e['count']:>3}. {e['move']:<22} {where:<9} {e['cost']:>3}/{args.bid}"
                      f"  at {e['at']:.1f}s{extra}")
            elif e["type"] in ("ambiguous", "robot_missing", "robots_merged", "misplaced",
                               "robots_back", "rule_unmet", "doubt", "doubt_cleared", "rewound"):
                print(f"     {e['type']}: {e['message']}")
        print(f"{result.verdict}: {result.reason}")
        if result.question:
            print(f"     ask: {result.question}")
    return EXIT_OK if result.verdict == "success" else EXIT_NO


def _verify_parser(sub) -> None:
    p = sub.add_parser("verify", help="replay a recorded demonstration and judge it")
    p.add_argument("frames", metavar="FRAMES",
                   help="a video file, a folder of frames, or a .jsonl observation log")
    p.add_argument("--start", required=True, help="position file when the chip was revealed")
    p.add_argument("--bid", type=int, required=True, help="the bid being demonstrated")
    p.add_argument("--rules", help="rule preset to use instead of the file's")
    p.add_argument("--no-cells", action="store_true",
                   help="read the robots by the colour scores alone, without the learned cell "
                        "classifier (companion/vision/models/cells.onnx)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_verify)


# ---------------------------------------------------------------- run


def _cmd_run(args: argparse.Namespace) -> int:
    from .app import RunOptions, run
    from .store import JournalError

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: a port number from 0 to 65535, not {args.port}")
    camera = args.camera
    if camera is not None and camera not in ("pi", "sim") and not camera.startswith("usb:") \
            and "://" not in camera and not Path(camera).exists():
        raise UsageError(f"--camera: pi, usb:N, sim, a video file, a folder of frames or a "
                         f"stream URL; {camera!r} is none of them")
    if args.pin is not None and not (args.pin.isdigit() and 4 <= len(args.pin) <= 12):
        raise UsageError("--pin: 4 to 12 digits")
    if camera is not None and Path(camera).is_file():
        from .vision.sources import IMAGE_SUFFIXES

        if Path(camera).suffix.lower() in IMAGE_SUFFIXES:
            readers.read_image(camera, "--camera")
        else:
            readers.check_video(camera, "--camera")
    if args.pins is not None:
        readers.read_pinmap(args.pins, "--pins")
    if args.colours is not None:
        readers.read_profile(args.colours, "--colours")
    from .vision.read import default_cells, use_cells

    use_cells(not args.no_cells)  # the camera's readers, for the whole run
    default_cells()  # a missing or unreadable model stops the start, naming the file
    opts = RunOptions(camera=camera, host=args.host, port=args.port, db=args.db,
                      preset=args.preset, pin=args.pin, pins=args.pins, quiet=args.quiet,
                      colours=args.colours)
    try:
        return run(opts)
    except JournalError as e:
        raise UsageError(f"--db: {e}") from None
    except OSError as e:
        if e.errno in (98, 48, 10048):  # address already in use
            raise UsageError(f"--port: {args.port} is already in use") from None
        raise
    except ValueError as e:
        raise UsageError(str(e)) from None


def _run_parser(sub) -> None:
    p = sub.add_parser("run", help="the companion: camera, buttons and the live page")
    p.add_argument("--camera", help="pi, usb:N, a video file, a folder of frames, a stream "
                                    "URL, or sim (default: pi on a Raspberry Pi, sim elsewhere)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--port", type=int, default=8000, help="port of the page (default 8000)")
    p.add_argument("--db", help="the journal database (default: in the user's data directory)")
    p.add_argument("--preset", default="abacus-2013",
                   help="edition for new games; micro-robots: setup offers Micro Robots")
    p.add_argument("--pin", help="the table PIN, kept beside the journal (default: the one kept, "
                                    "or a new random one on the first start)")
    p.add_argument("--pins", help="pin map (default: hardware/pins.toml)")
    p.add_argument("--colours", help="this table's colour profile, from `companion calibration "
                                     "colours` (default: colours.json beside the journal, "
                                     "where the page's calibration keeps it)")
    p.add_argument("--no-cells", action="store_true",
                   help="read the robots by the colour scores alone, without the learned cell "
                        "classifier (companion/vision/models/cells.onnx)")
    p.add_argument("--quiet", action="store_true", help="no QR code, warnings only")
    p.set_defaults(handler=_cmd_run)


# ---------------------------------------------------------------- calibration


def _cmd_calibration_markers(args: argparse.Namespace) -> int:
    from .vision.markers import write_marker_sheets

    try:
        written = write_marker_sheets(args.out, args.paper)
    except OSError as e:
        raise UsageError(f"--out: cannot write into {args.out!r} ({e.strerror or e})") from None
    for path in written:
        print(f"wrote {path}")
    print("print at 100 % and lay marker 0 at the north-west corner, 1 north-east, "
          "2 south-east, 3 south-west (see the sheet)")
    return EXIT_OK


def _parse_pattern(text: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--pattern: inner corners like 6x9, not {text!r}") from None
    if cols < 2 or rows < 2:
        raise UsageError(f"--pattern: at least 2x2 inner corners, not {text!r}")
    return cols, rows


def _calibration_photos(paths: Sequence[str]):
    """Named pictures from files and folders; unreadable ones are named, not fatal."""
    from .vision.sources import IMAGE_SUFFIXES

    files: list[Path] = []
    for text in paths:
        p = Path(text)
        if p.is_dir():
            inside = sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not inside:
                raise UsageError(f"PHOTOS: no pictures in the folder {text!r}")
            files.extend(inside)
        elif p.is_file():
            files.append(p)
        else:
            raise UsageError(f"PHOTOS: {text!r} does not exist")
    images, unreadable = [], {}
    for f in files:
        try:
            images.append((str(f), readers.read_image(f, "PHOTOS")))
        except inputs.InputError as e:
            unreadable[str(f)] = str(e).removeprefix(f"PHOTOS {f}: ")
    return images, unreadable


def _cmd_calibration_camera(args: argparse.Namespace) -> int:
    from .vision.lens import LensError, calibrate
    from .vision.markers import write_chessboard_sheets

    if args.sheet:
        try:
            written = write_chessboard_sheets(args.sheet_dir, args.paper)
        except (OSError, ValueError) as e:
            raise UsageError(f"--sheet-dir: cannot write into {args.sheet_dir!r} "
                             f"({getattr(e, 'strerror', None) or e})") from None
        for path in written:
            print(f"wrote {path}")
        if not args.photos:
            return EXIT_OK
    if not args.photos:
        raise UsageError("calibration camera: give PHOTOS of the chessboard (files or "
                         "folders), or --sheet to print the chessboard first")
    if args.square_mm <= 0:
        raise UsageError(f"--square-mm: a positive size, not {args.square_mm}")
    pattern = _parse_pattern(args.pattern)
    images, unreadable = _calibration_photos(args.photos)
    for name, why in unreadable.items():
        print(f"skipped {shown(name)}: {shown(why)}", file=sys.stderr)
    if not images:
        raise UsageError(f"PHOTOS: none of the {len(unreadable)} pictures could be read")
    try:
        result = calibrate(images, pattern, args.square_mm)
    except LensError as e:
        raise UsageError(str(e)) from None
    for name, why in result.rejected.items():
        print(f"skipped {name}: {why}", file=sys.stderr)
    prof = result.profile
    K, d = prof.camera_matrix, prof.dist_coeffs
    print(f"{prof.views} views, {prof.image_size[0]}×{prof.image_size[1]}, "
          f"reprojection error {prof.rms:.3f} px")
    print(f"focal {K[0, 0]:.1f} × {K[1, 1]:.1f} px, centre ({K[0, 2]:.1f}, {K[1, 2]:.1f}), "
          "distortion " + " ".join(f"{v:+.4f}" for v in d[:5]))
    worst = sorted(result.per_view_error.items(), key=lambda kv: -kv[1])[:3]
    print("worst views: " + ", ".join(f"{Path(n).name} {e:.2f} px" for n, e in worst))
    try:
        path = prof.save(args.out)
    except OSError as e:
        raise UsageError(f"--out: cannot write {args.out!r} ({e.strerror or e})") from None
    print(f"wrote {path}")
    return EXIT_OK


def _calibration_parser(sub) -> None:
    p = sub.add_parser("calibration", help="calibrate a table: corner markers, lens, colours")
    csub = p.add_subparsers(dest="calibration", metavar="WHAT")
    csub.required = True

    q = csub.add_parser("markers", help="write the printable sheet of the four corner markers")
    q.add_argument("--out", default="calibration", help="folder to write into "
                                                        "(default: calibration/)")
    q.add_argument("--paper", choices=("a4", "letter"), default="a4")
    q.set_defaults(handler=_cmd_calibration_markers)

    q = csub.add_parser("camera", help="lens calibration from photos of the printed chessboard")
    q.add_argument("photos", nargs="*", metavar="PHOTOS", help="pictures or folders of them")
    q.add_argument("--out", default="calibration/lens.json", help="the lens profile to write")
    q.add_argument("--pattern", default="6x9", help="inner corners, columns x rows (6x9)")
    q.add_argument("--square-mm", type=float, default=24.0, help="square size in mm (24)")
    q.add_argument("--sheet", action="store_true", help="write the chessboard sheet to print")
    q.add_argument("--sheet-dir", default="calibration", help="where --sheet writes")
    q.add_argument("--paper", choices=("a4", "letter"), default="a4")
    q.set_defaults(handler=_cmd_calibration_camera)

    q = csub.add_parser("colours", help="learn this table's colours from one photo with the "
                                        "robots on known cells")
    q.add_argument("image", metavar="IMAGE", help="a photo of the board")
    q.add_argument("--robots", required=True,
                   help="where the robots stand, like red=c2,green=a13,blue=l14,yellow=c15")
    q.add_argument("--board", help="tile sides NW,NE,SE,SW (default: identified)")
    q.add_argument("--corners", help="board corners x,y,x,y,x,y,x,y (NW, NE, SE, SW)")
    q.add_argument("--out", default="calibration/colours.json", help="the profile to write")
    q.set_defaults(handler=_cmd_calibration_colours)


# ---------------------------------------------------------------- read (vision)


def _vision_image(path: str):
    return readers.read_image(path, "IMAGE")


def _vision_tiles(text: str | None) -> list[str] | None:
    if text is None:
        return None
    from .board import BoardError

    tiles = [t.strip().upper() for t in text.split(",") if t.strip()]
    try:
        Board.from_tiles(tiles)
    except BoardError as e:
        raise UsageError(f"--board: {e}") from None
    return tiles


def _vision_corners(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        vals = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        raise UsageError(f"--corners: eight numbers x,y,x,y,x,y,x,y, not {text!r}") from None
    if len(vals) != 8:
        raise UsageError(f"--corners: eight numbers (four x,y corners), got {len(vals)}")
    return vals


def _cmd_read(args: argparse.Namespace) -> int:
    from .vision.colours import Profile, ProfileError
    from .vision.read import DEFAULT_CELLS, VisionError, read_frame

    image = _vision_image(args.image)
    tiles = _vision_tiles(args.board)
    corners = _vision_corners(args.corners)
    profile = readers.read_profile(args.profile, "--profile") if args.profile else Profile()
    if args.robots is not None:
        try:
            profile = profile.for_robots([r.strip().lower() for r in args.robots.split(",")
                                          if r.strip()])
        except ProfileError as e:
            raise UsageError(f"--robots: {e}") from None
    try:
        obs = read_frame(image, tiles=tiles, corners=corners, profile=profile,
                         cells=None if args.no_cells else DEFAULT_CELLS)
    except VisionError as e:
        if args.json:
            print(json.dumps({"error": str(e)}))
        print(f"cannot read {args.image}: {e}", file=sys.stderr)
        return EXIT_NO
    if args.json:
        print(json.dumps(obs.to_dict()))
        return EXIT_NO if obs.occluded else EXIT_OK
    _print_corners(obs.corners, ("NW", "NE", "SE", "SW"), obs.method)
    if obs.tiles:
        print(f"tiles    {','.join(obs.tiles)}  (confidence {obs.tiles_confidence:.2f})")
    if obs.occluded:
        print(f"occluded: something lies over {', '.join(obs.occluded_cells[:8])}"
              + (" …" if len(obs.occluded_cells) > 8 else "") + "; no position read")
        return EXIT_NO
    robots = ", ".join(f"{c} {cell}" for c, cell in obs.robots.items()) or "none seen"
    print(f"robots   {robots}")
    if obs.chip is None:
        print("target   no chip on the centre piece")
    elif obs.chip.read:
        print(f"target   {obs.chip.label()}  (confidence {obs.chip.confidence:.2f})")
    else:
        print(f"target   {obs.chip.label()}")
    for note in obs.notes:
        print(f"note     {note}")
    return EXIT_OK


def _cmd_micro_read(args: argparse.Namespace) -> int:
    """``companion micro read IMAGE``: the layout from a photo, or with ``--layout`` the
    robot's space on a known board."""
    from .vision.locate import VisionError
    from .vision.micro import MicroReader, read_micro_layout

    image = _vision_image(args.image)
    corners = _vision_corners(args.corners)
    layout = _micro_layout(args.layout, "--layout") if args.layout else None
    if args.save and layout is not None:
        raise UsageError("--save: only when reading a layout, not with --layout")
    try:
        if layout is not None:
            obs = MicroReader(layout, corners=corners).read(image)
        else:
            reading = read_micro_layout(image, corners=corners)
    except VisionError as e:
        if args.json:
            print(json.dumps({"error": str(e)}))
        print(f"cannot read {args.image}: {e}", file=sys.stderr)
        return EXIT_NO
    if layout is not None:
        if args.json:
            print(json.dumps(obs.to_dict()))
        else:
            _print_corners(obs.corners, ("top-left", "top-right", "bottom-right",
                                         "bottom-left"), obs.method)
            if obs.occluded:
                print("occluded: something lies over " + ", ".join(obs.covered)
                      + "; no space read")
            else:
                print(f"robot    {obs.space or 'not seen'}")
            for note in obs.notes:
                print(f"note     {note}")
        return EXIT_OK if obs.space is not None else EXIT_NO
    if args.json:
        print(json.dumps(reading.to_dict()))
    else:
        _print_micro_reading(reading)
    if args.save:
        from .micro import LayoutError

        try:
            reading.layout(args.name or "").save(args.save)
        except LayoutError as e:
            print(f"not saved: the reading is not a whole layout yet ({e})", file=sys.stderr)
            return EXIT_NO
        except OSError as e:
            raise UsageError(f"--save: cannot write {args.save!r} ({e.strerror or e})") \
                from None
        if not args.json:
            print(f"saved    {args.save}")
    return EXIT_OK if reading.complete else EXIT_NO


def _print_corners(corners, names: Sequence[str], method: str) -> None:
    text = "  ".join(f"{n} ({x:.0f}, {y:.0f})" for n, (x, y) in zip(names, corners,
                                                                       strict=True))
    print(f"board    {text}  [{method}]")


def _print_micro_reading(reading) -> None:
    """The reading as the players will check it: the rows with ``?`` for what is unread and
    ``*`` for what follows from the rest, then how sure each space is."""
    _print_corners(reading.corners, ("top-left", "top-right", "bottom-right", "bottom-left"),
                   reading.method)
    print(f"layout   (numbers printed as {reading.numerals}; rows from the top)")
    for r, row in enumerate(reading.rows):
        cells = [(name or "?") + ("*" if (r, c) in reading.deduced else "")
                 for c, name in enumerate(row)]
        print("  " + " ".join(f"{x:<8}" for x in cells).rstrip())
    print("confidence")
    for row in reading.confidence:
        print("  " + " ".join(f"{x:<8.2f}" for x in row).rstrip())
    robot = reading.robot or ("not seen" if reading.robot_at is None else
                              f"row {reading.robot_at[0] + 1} column "
                              f"{reading.robot_at[1] + 1} (its space unread)")
    print(f"robot    {robot}")
    for problem in reading.problems:
        print(f"problem  {problem}")
    for note in reading.notes:
        print(f"note     {note}")


def _micro_read_parser(msub) -> None:
    q = msub.add_parser("read", help="read a board's layout from a photo (or, with --layout, "
                        "the robot's space)")
    q.add_argument("image", metavar="IMAGE", help="a photo of the table")
    q.add_argument("--layout", help="a known layout file: read only where the robot stands")
    q.add_argument("--corners", help="board corners x,y,x,y,x,y,x,y in pixels: the layout's "
                   "top-left, top-right, bottom-right, bottom-left")
    q.add_argument("--save", metavar="FILE", help="write the layout read to a layout file "
                   "(only when it is whole)")
    q.add_argument("--name", help="the layout's name in the saved file")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(handler=_cmd_micro_read)


def _cmd_calibration_colours(args: argparse.Namespace) -> int:
    from .board import parse_cell
    from .vision.colours import ROBOT_COLOURS, ProfileError
    from .vision.learn import learn
    from .vision.read import VisionError

    image = _vision_image(args.image)
    robots: dict[str, str] = {}
    for item in args.robots.split(","):
        if not item.strip():
            continue
        colour, _, cell = item.partition("=")
        colour, cell = colour.strip().lower(), cell.strip().lower()
        if colour not in ROBOT_COLOURS:
            raise UsageError(f"--robots: unknown robot {colour!r} (one of "
                             f"{', '.join(ROBOT_COLOURS)})")
        try:
            parse_cell(cell)
        except ValueError as e:
            raise UsageError(f"--robots: {colour}: {e}") from None
        robots[colour] = cell
    if not robots:
        raise UsageError("--robots: name at least one robot and its cell, like red=c2")
    try:
        profile = learn(image, robots, tiles=_vision_tiles(args.board),
                        corners=_vision_corners(args.corners))
    except ProfileError as e:
        raise UsageError(str(e)) from None
    except VisionError as e:
        print(f"cannot read {args.image}: {e}", file=sys.stderr)
        return EXIT_NO
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        profile.save(out)
    except OSError as e:
        raise UsageError(f"--out: cannot write {args.out!r} ({e.strerror or e})") from None
    for colour in robots:
        if colour not in profile.references:
            print(f"{colour:7s} no colour of its own: found by what it does to the print")
            continue
        L, a, b = profile.references[colour]
        print(f"{colour:7s} L {L:5.1f}  a {a:+6.1f}  b {b:+6.1f}")
    print(f"wrote {out}")
    return EXIT_OK


def _read_parser(sub) -> None:
    p = sub.add_parser("read", help="read a photo: board corners, tiles, robots, target chip")
    p.add_argument("image", metavar="IMAGE", help="a photo of the table")
    p.add_argument("--board", help="tile sides NW,NE,SE,SW like 4B,3B,2B,1A (default: "
                                   "identified from the walls)")
    p.add_argument("--corners", help="board corners x,y,x,y,x,y,x,y in pixels: NW, NE, SE, SW")
    p.add_argument("--profile", help="colour profile from `companion calibration colours`")
    p.add_argument("--robots", help="the robots on the table, like red,green,blue,yellow,silver "
                                    "(default: the profile's; name silver or transparent when "
                                    "they play)")
    p.add_argument("--no-cells", action="store_true",
                   help="read the robots by the colour scores alone, without the learned cell "
                        "classifier (companion/vision/models/cells.onnx)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_read)


# ---------------------------------------------------------------- the parser

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Ricochet Companion: reads the board, times the round, checks the route.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("show", help="draw a position in the terminal")
    p.add_argument("position", nargs="?", help="position file (default: a bundled example)")
    p.add_argument("--rules", help="rule preset to use instead of the file's")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.set_defaults(handler=_cmd_show)

    p = sub.add_parser("check", help="is a route legal, does it reach the target, meet the bid")
    p.add_argument("position", help="position file")
    p.add_argument("--route", help='moves like "blue up, red left"')
    p.add_argument("--bid", type=int, help="the bid to meet")
    p.add_argument("--rules", help="rule preset to use instead of the file's")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_check)

    p = sub.add_parser("bench", help="run a benchmark and print its table")
    from .benchmarks import NAMES

    p.add_argument("name", help=", ".join(NAMES[:-1]) + " or " + NAMES[-1])
    p.add_argument("options", nargs=argparse.REMAINDER, help="the benchmark's own options")
    p.set_defaults(handler=_cmd_bench)

    _solve_parser(sub)
    _micro_parser(sub)
    _history_parser(sub)
    _verify_parser(sub)
    _run_parser(sub)
    _calibration_parser(sub)
    _read_parser(sub)
    from .cli_play import add_parsers

    add_parsers(sub)  # hint, puzzle

    # Each further command group adds its subparsers here, its handlers below.
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (PositionError, UsageError, InvalidMoveError, inputs.InputError) as e:
        print(f"error: {shown(e)}", file=sys.stderr)
        return EXIT_BAD
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
