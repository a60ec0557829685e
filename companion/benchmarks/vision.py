"""``companion bench vision``: how well and how fast the companion reads the table.

A seeded set of rendered frames (:mod:`companion.vision.render`): random positions over all 16
tile sides, random scenes — tilt 0–30°, any rotation, markers on half, the photometric
variations (dim light, colour casts, gradients, glare, noise, blur, JPEG) and hands over the
board on a fifth; the black fifth robot on a third of the boards, the silver one on another
third, the transparent robot on a quarter (its own rows: it is found where its print can be
compared, and said to be unseen elsewhere). Every frame is read twice:

* **from scratch** (``read_frame`` with no hints): tile identification; the tiles count as
  right when they name the same physical board (the same four sides in the same cyclic order:
  without markers, north is a convention, see :mod:`companion.vision.tileid`), and *exactly*
  right when markers fix north too;
* **per frame in a game** (a :class:`~companion.vision.read.Reader` that knows the tiles and has
  already found north on this board, and looks for the robots the game has, as a game would
  be told): localisation, robots, occlusion — the work done on every camera frame. This path
  is timed on one core. On boards with neither, the silver and transparent robots are also
  looked for as if lifted off the board: nothing may be seen for them.

A further set on pale tables (as light as the cells) under a glare spot, without markers,
counts how often the board is found by its own outline.

The target chip is read by the game's reader on the frame it is revealed in. A chip read as
another chip is *wrong*; one the reader leaves unread, with its reason, is counted apart (the
players then pick it by hand). Every fifth board is also shown with a bare centre piece, which
must read as no chip at all. The chip read is timed on its own.

Goals: every robot right on every unoccluded frame; no occluded frame accepted as a position;
tiles and chips ≥ 99 %; median ≤ 40 ms per frame at 1280×960.
"""

from __future__ import annotations

import argparse
import platform
import time
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from ..board import Board, cell_name
from ..rules import Position
from ..vision.chip import read_chip
from ..vision.colours import CLEAR, Profile
from ..vision.locate import from_corners
from ..vision.read import DEFAULT_CELLS, Reader, VisionError, read_frame
from ..vision.render import Scene, hard_scene, random_position, render
from . import percentile, write_report

GOAL_MS = 40.0
ROBOTS = ("red", "green", "blue", "yellow", "black", "silver")  # the opaque ones
FOUR = ROBOTS[:4]
# What the command line chose for this run: the learned cell classifier to read the robots
# with (the shipped one by default; None, ``--no-cells``: the colour scores alone), and the
# hard scenes (``--hard``).
_RUN: dict[str, Any] = {"cells": DEFAULT_CELLS, "hard": False}


def _same_board(read: tuple[str, ...] | None, truth: tuple[str, ...]) -> tuple[bool, bool]:
    """(same physical board, same board with north in the same place)."""
    if not read:
        return False, False
    read, truth = tuple(read), tuple(truth)
    same = any(read == truth[k:] + truth[:k] for k in range(4))
    return same, read == truth


def _with_extras(pos: Position, seed: int) -> Position:
    """The silver fifth robot on a third of the boards (those without the black one) and the
    transparent robot on a quarter, on free cells drawn from their own generator: the rest of
    every frame (position, camera, light) stays as it was drawn without them."""
    extra = (["silver"] if seed % 3 == 1 else []) + ([CLEAR] if seed % 4 == 2 else [])
    if not extra:
        return pos
    board = pos.board
    taken = set(pos.robots.values()) | set(board.blocked)
    free = [c for c in board.cells() if c not in taken and board.target_at(c) is None
            and board.diagonal_at(c) is None]
    rng = np.random.default_rng([seed, 7])
    picks = rng.choice(len(free), size=len(extra), replace=False)
    data = pos.to_dict()
    data["robots"] = {**data["robots"], **{r: board.name(free[int(i)])
                                            for r, i in zip(extra, picks, strict=True)}}
    return Position.from_dict(data)


def _frame(seed: int, size: tuple[int, int], hands: float, chip: bool = True):
    rng = np.random.default_rng(seed)
    # The black fifth robot stands on a third of the boards.
    pos = random_position(rng, robots=ROBOTS[:5] if seed % 3 == 0 else FOUR)
    scene = Scene.random(rng, hands=hands, markers=0.5, max_tilt=30.0)
    if _RUN["hard"]:  # one of the hard conditions real photos show, with the same hands
        scene = replace(hard_scene(rng), hands=scene.hands)
    return render(_with_extras(pos, seed), seed=seed, size=size,
                  scene=replace(scene, chip=chip))


def _bare_piece(seed: int, size: tuple[int, int], hands: float, tiles: list[str]
                ) -> bool | None:
    """The same board with no chip on the centre piece: is it read as no chip? ``None`` when
    the frame is not one to judge (occluded, out of frame, not read)."""
    shot = _frame(seed, size, hands, chip=False)
    if not shot.in_frame or shot.occluded:
        return None
    try:
        obs = Reader(tiles=tiles, read_chip=True, cells=_RUN["cells"]).read(shot.image)
    except VisionError:
        return None
    return None if obs.occluded else obs.chip is None


def _pale_frame(seed: int, size: tuple[int, int]):
    """A frame on a white or light grey table under a glare spot, without markers: the board
    must be found by its own outline where the table is as light as its cells."""
    rng = np.random.default_rng(seed)
    pos = random_position(rng)
    scene = replace(Scene.random(rng, hands=0.0, markers=0.0, max_tilt=30.0), table="pale",
                    glare=float(rng.uniform(0.3, 0.8)))
    return render(pos, seed=seed, size=size, scene=scene)


def _game_profile(robots) -> Profile:
    """What a game with these robots looks for: the four colours, its fifth robot (black when
    it has none, so a black robot is never invented) and the transparent one when it plays."""
    fifth = "silver" if "silver" in robots else "black"
    return Profile().for_robots([*FOUR, fifth] + ([CLEAR] if CLEAR in robots else []))


def _located(found: Any, shot: Any) -> bool:
    """The board found within a quarter of a cell, whichever corner came first."""
    if isinstance(found, VisionError):
        return False
    cell = float(np.linalg.norm(shot.corners[1] - shot.corners[0])) / 16
    corners = np.asarray(found.corners)
    err = min(np.abs(np.roll(corners, -k, axis=0) - shot.corners).max() for k in range(4))
    return bool(err < 0.25 * cell)


def _read_from_scratch(shot: Any) -> tuple[Any, float]:
    """The frame read with no hints (tiles identified too): what was read (``None`` when
    nothing was) and the milliseconds it took."""
    t0 = time.perf_counter()
    try:
        obs0 = read_frame(shot.image, cells=_RUN["cells"])
    except VisionError:
        obs0 = None
    return obs0, (time.perf_counter() - t0) * 1000


def _read_in_game(shot: Any, truth: dict[str, str], tiles: list[str]) -> tuple[Any, Any, float]:
    """The frame read by a game's reader: tiles known, north found once on this board (the
    first read, with the chip), its robots asked for; then the timed read of a frame in the
    game. Returns (first read, timed read, its milliseconds); a read that failed is its
    :class:`VisionError`."""
    reader = Reader(tiles=tiles, profile=_game_profile(truth), read_chip=True,
                    cells=_RUN["cells"])
    first: Any
    try:
        first = reader.read(shot.image)
    except VisionError as e:
        first = e
    reader.read_chip = False
    t0 = time.perf_counter()
    try:
        obs: Any = reader.read(shot.image)
    except VisionError as e:
        obs = e
    return first, obs, (time.perf_counter() - t0) * 1000


def _lifted_off(seed: int, shot: Any, tiles: list[str], absent: dict[str, int],
                failures: list[dict[str, Any]]) -> None:
    """The silver and the transparent robot in play but lifted off the board: each one seen
    all the same is counted in ``absent`` and noted in ``failures``."""
    try:
        lifted = read_frame(shot.image, tiles=tiles, chip=False, cells=_RUN["cells"],
                            profile=Profile().for_robots(list(FOUR) + ["silver", CLEAR]))
        for r in ("silver", CLEAR):
            if r in lifted.robots:
                absent[r] += 1
                failures.append({"seed": seed, "what": f"{r} invented",
                                 "read": lifted.robots[r]})
    except VisionError:
        pass


def _judge_chip(seed: int, shot: Any, first: Any, size: tuple[int, int],
                chip_times: list[float], failures: list[dict[str, Any]]) -> tuple[bool, bool]:
    """The target chip as the game's first read saw it: (right, left unread); a miss is noted
    in ``failures``, and where the tiles were read the chip read is timed on its own into
    ``chip_times``."""
    got = first.chip
    right = got is not None and got.read and (got.color, got.shape) == tuple(shot.chip)
    unread = got is None or not got.read
    if not right:
        failures.append({"seed": seed, "what": "chip unread" if unread else "chip wrong",
                         "truth": list(shot.chip),
                         "read": None if got is None else [got.color, got.shape],
                         "why": None if got is None else got.reason})
    if first.tiles:
        loc = from_corners(np.array(first.corners), size)
        board = Board.from_tiles(first.tiles)
        t0 = time.perf_counter()
        read_chip(shot.image, loc, board)
        chip_times.append((time.perf_counter() - t0) * 1000)
    return right, unread


def _evaluate(seeds: list[int], size: tuple[int, int], hands: float, scratch: bool,
              progress: bool) -> dict[str, Any]:
    per_robot = {r: [0, 0] for r in ROBOTS}  # right, total (unoccluded, board in frame)
    frames_ok = frames = 0
    frames_wrong = frames_missing = 0  # a robot on a wrong cell / a robot reported missing
    unread_clear = 0  # unoccluded, fully in frame, and yet not read
    out_of_frame = out_refused = 0
    occ_total = occ_flagged = occ_accepted = 0
    false_occ = 0
    tiles_same = tiles_total = marker_total = marker_exact = 0
    chips_ok = chips_total = chips_wrong = chips_unread = 0
    bare_total = bare_ok = 0  # bare centre pieces, and those read as no chip
    chip_times: list[float] = []
    clear = {"frames": 0, "right": 0, "unseen": 0, "wrong": 0}
    absent = {"frames": 0, "silver": 0, CLEAR: 0}  # in play but not on the board: invented
    times: list[float] = []
    times_scratch: list[float] = []
    failures: list[dict[str, Any]] = []
    for i, seed in enumerate(seeds):
        shot = _frame(seed, size, hands)
        truth = {k: cell_name(v) for k, v in shot.robots.items()}
        tiles = list(shot.tiles)
        if scratch:
            obs0, ms = _read_from_scratch(shot)
            times_scratch.append(ms)
            if shot.in_frame and not shot.occluded:
                tiles_total += 1
                same, exact = _same_board(obs0.tiles if obs0 else None, shot.tiles)
                tiles_same += same
                if shot.scene.markers:
                    marker_total += 1
                    marker_exact += exact
                if not same or (shot.scene.markers and not exact):
                    failures.append({"seed": seed, "what": "tiles", "truth": tiles,
                                     "read": list(obs0.tiles) if obs0 and obs0.tiles else None})
        first, obs, ms = _read_in_game(shot, truth, tiles)
        times.append(ms)
        if not shot.in_frame:
            out_of_frame += 1
            out_refused += isinstance(obs, VisionError) or obs.occluded
            continue
        if shot.occluded:
            occ_total += 1
            if isinstance(obs, VisionError) or obs.occluded:
                occ_flagged += 1
            else:
                occ_accepted += 1
                failures.append({"seed": seed, "what": "occluded frame accepted",
                                 "read": obs.robots, "truth": truth})
            continue
        frames += 1
        opaque = {k: v for k, v in truth.items() if k != CLEAR}
        if CLEAR in truth:
            clear["frames"] += 1
        if isinstance(obs, VisionError) or obs.occluded:
            if isinstance(obs, VisionError):
                unread_clear += 1
                why = str(obs)
            else:
                false_occ += 1
                why = "flagged occluded: " + ",".join(obs.occluded_cells[:6])
            for r in opaque:
                per_robot[r][1] += 1
            clear["unseen"] += CLEAR in truth
            failures.append({"seed": seed, "what": "not read", "why": why})
            continue
        read = {k: v for k, v in obs.robots.items() if k != CLEAR}
        ok_all = read == opaque
        frames_ok += ok_all
        wrong = any(opaque.get(c) != cell for c, cell in read.items())
        frames_wrong += wrong
        frames_missing += (not wrong) and not ok_all
        for r, cell in opaque.items():
            per_robot[r][1] += 1
            per_robot[r][0] += read.get(r) == cell
        if not ok_all:
            failures.append({"seed": seed, "what": "robots", "read": read, "truth": opaque})
        if CLEAR in truth:
            seen = obs.robots.get(CLEAR)
            kind = "unseen" if seen is None else "right" if seen == truth[CLEAR] else "wrong"
            clear[kind] += 1
            if kind == "wrong":
                failures.append({"seed": seed, "what": "transparent", "read": seen,
                                 "truth": truth[CLEAR]})
        elif "silver" not in truth and "black" not in truth:
            # The silver and the transparent robot in play, neither on the board (lifted off
            # it): nothing must be seen for them.
            absent["frames"] += 1
            _lifted_off(seed, shot, tiles, absent, failures)
        if not isinstance(first, VisionError) and shot.chip is not None:
            chips_total += 1
            right, unread = _judge_chip(seed, shot, first, size, chip_times, failures)
            chips_ok += right
            chips_unread += unread
            chips_wrong += not right and not unread
        if seed % 5 == 0:
            bare = _bare_piece(seed, size, hands, tiles)
            if bare is not None:
                bare_total += 1
                bare_ok += bare
                if not bare:
                    failures.append({"seed": seed, "what": "bare centre piece read as a chip"})
        if progress and (i + 1) % 25 == 0:
            print(f"  … {i + 1}/{len(seeds)} frames at {size[0]}×{size[1]}", flush=True)
    robots_right = sum(v[0] for v in per_robot.values())
    robots_total = sum(v[1] for v in per_robot.values())
    return {
        "size": list(size),
        "frames": len(seeds),
        "unoccluded_in_frame": frames,
        "frames_all_robots_right": frames_ok,
        "frames_robot_missing": frames_missing,
        "frames_robot_wrong_cell": frames_wrong,
        "frames_not_read": unread_clear,
        "frames_falsely_occluded": false_occ,
        "robots_right": robots_right,
        "robots_total": robots_total,
        "per_robot": {r: {"right": v[0], "total": v[1]} for r, v in per_robot.items()},
        "transparent": dict(clear),
        "in_play_not_on_board": dict(absent),
        "occluded": occ_total,
        "occluded_flagged": occ_flagged,
        "occluded_accepted": occ_accepted,
        "out_of_frame": out_of_frame,
        "out_of_frame_refused": out_refused,
        "tiles_total": tiles_total,
        "tiles_same_board": tiles_same,
        "marker_frames": marker_total,
        "marker_tiles_exact": marker_exact,
        "chips_total": chips_total,
        "chips_right": chips_ok,
        "chips_wrong": chips_wrong,
        "chips_unread": chips_unread,
        "bare_pieces": bare_total,
        "bare_pieces_no_chip": bare_ok,
        "ms_chip_read": {"median": percentile(chip_times, 50), "p90": percentile(chip_times, 90)},
        "ms_per_frame": {"median": percentile(times, 50), "p90": percentile(times, 90),
                         "max": max(times) if times else float("nan")},
        "ms_from_scratch": {"median": percentile(times_scratch, 50),
                            "p90": percentile(times_scratch, 90)}
        if times_scratch else None,
        "failures": failures,
    }


def _evaluate_pale(seeds: list[int], size: tuple[int, int], progress: bool) -> dict[str, Any]:
    """The board without markers on pale tables under glare: found, and its robots read."""
    found = robots_ok = 0
    failures: list[dict[str, Any]] = []
    for i, seed in enumerate(seeds):
        shot = _pale_frame(seed, size)
        try:
            obs: Any = read_frame(shot.image, chip=False)
        except VisionError as e:
            obs = e
        if not _located(obs, shot):
            failures.append({"seed": seed, "what": "board not found",
                             "why": str(obs) if isinstance(obs, VisionError) else "misplaced"})
            continue
        found += 1
        truth = {k: cell_name(v) for k, v in shot.robots.items()}
        try:  # the robots, as a game's reader (tiles known) reads them
            game = Reader(tiles=list(shot.tiles), read_chip=False).read(shot.image)
            robots_ok += game.robots == truth and not game.occluded
            if game.robots != truth:
                failures.append({"seed": seed, "what": "robots", "read": game.robots,
                                 "truth": truth})
        except VisionError as e:
            failures.append({"seed": seed, "what": "robots not read", "why": str(e)})
        if progress and (i + 1) % 25 == 0:
            print(f"  … {i + 1}/{len(seeds)} pale-table frames", flush=True)
    return {"size": list(size), "frames": len(seeds), "board_found": found,
            "all_robots_right": robots_ok, "failures": failures}


def _rate(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f} %)" if b else "—"


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench vision", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=None, help="frames at 1280×960 (200)")
    parser.add_argument("--large", type=int, default=50,
                        help="further frames at 1640×1232 (50)")
    parser.add_argument("--pale", type=int, default=50,
                        help="further frames on pale tables under glare, no markers (50)")
    parser.add_argument("--seed", type=int, default=6000, help="first seed (6000)")
    parser.add_argument("--hands", type=float, default=0.2, help="share of frames with hands")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (1: one core, 0: OpenCV's default)")
    parser.add_argument("--out", default="bench-vision.json", help="where to write the JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--cells", action="store_true",
                        help="read the robots with the learned cell classifier too "
                             "(companion/vision/models/cells.onnx; the default)")
    parser.add_argument("--no-cells", action="store_true",
                        help="the colour scores alone, without the cell classifier")
    parser.add_argument("--model", default="", help="another ONNX file for the classifier")
    parser.add_argument("--hard", action="store_true",
                        help="every frame under one of the hard conditions: haze, a strong "
                             "colour cast, a strong glare, dim bluish light")
    parser.add_argument("--real", metavar="DIR",
                        help="instead: read the photos of DIR against its truth.jsonl")
    parser.add_argument("--perturb", type=int, default=0, metavar="N",
                        help="with --real: read each whole board again N times in each family "
                        "of transformations another camera, table or light gives")
    parser.add_argument("--source", choices=("render", "render3d"), default="render",
                        help="the frames: the project's renderer (render) or the 3D "
                             "rasteriser made apart from it (render3d, --frames of them at "
                             "--size, 100 by default)")
    parser.add_argument("--size", default="1280x960", help="with --source render3d: WxH")
    parser.add_argument("--tuned", default="",
                        help="with --real: the tables tuned on, comma-separated (their "
                             "figures are then given apart)")
    args = parser.parse_args(argv)
    if args.no_cells and (args.cells or args.model):
        parser.error("--no-cells: not with --cells or --model")
    from ..vision.read import use_cells

    was = use_cells(not args.no_cells)  # every reader of the run, those built below too
    try:
        return _run(parser, args)
    finally:
        use_cells(was)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    cells = None
    if not args.no_cells:
        from ..vision.cells import CellNet, shipped

        cells = CellNet.load(args.model) if args.model else shipped()
    _RUN.update(cells=cells, hard=args.hard)
    if args.real is not None:
        from .vision_real import run_real

        out = args.out if args.out != "bench-vision.json" else "bench-vision-real.json"
        if args.perturb:
            from .vision_perturb import run_perturbed

            return run_perturbed(args.real, args.perturb, args.seed,
                                 [t for t in args.tuned.split(",") if t], out, cells=cells)
        return run_real(args.real, [t for t in args.tuned.split(",") if t], out, cells=cells)
    if args.source == "render3d":
        from .vision_render3d import run_render3d

        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
        except ValueError:
            parser.error("--size: WxH, e.g. 1280x960")
        if args.frames is not None and args.frames < 1 or w < 64 or h < 48:
            parser.error("--frames: at least 1; --size: at least 64x48")
        out = args.out if args.out != "bench-vision.json" else "bench-vision-render3d.json"
        return run_render3d(args.frames or 100, args.seed, (w, h), args.hands, out,
                            args.quiet, args.threads, cells=cells)
    if args.frames is None:
        args.frames = 200
    if args.frames < 1 or args.large < 0 or args.pale < 0:
        parser.error("--frames: at least 1; --large, --pale: 0 or more")
    if args.threads > 0:
        cv2.setNumThreads(args.threads)
    seeds = list(range(args.seed, args.seed + args.frames))
    big_seeds = list(range(args.seed + 100000, args.seed + 100000 + args.large))
    results = [_evaluate(seeds, (1280, 960), args.hands, True, not args.quiet)]
    if args.large:
        results.append(_evaluate(big_seeds, (1640, 1232), args.hands, False, not args.quiet))
    pale = _evaluate_pale(list(range(args.seed + 200000, args.seed + 200000 + args.pale)),
                          (1280, 960), not args.quiet) if args.pale else None

    print()
    print(f"vision benchmark: seeds {args.seed}…, hands on {args.hands:.0%}, "
          f"{'hard scenes, ' if args.hard else ''}"
          f"{'robots by the cell classifier, ' if cells is not None else ''}"
          f"{'one core' if args.threads == 1 else f'{args.threads} threads'}")
    head = f"{'':34s}" + "".join(f"{r['size'][0]}×{r['size'][1]:<14}" for r in results)
    print(head)

    def row(label: str, f) -> None:
        print(f"{label:34s}" + "".join(f"{f(r):<19s}" for r in results))

    row("frames", lambda r: str(r["frames"]))
    row("unoccluded, board in frame", lambda r: str(r["unoccluded_in_frame"]))
    row("  all robots right", lambda r: _rate(r["frames_all_robots_right"],
                                              r["unoccluded_in_frame"]))
    row("  a robot not seen (missing)", lambda r: str(r["frames_robot_missing"]))
    row("  a robot on a wrong cell", lambda r: str(r["frames_robot_wrong_cell"]))
    row("  robots right", lambda r: _rate(r["robots_right"], r["robots_total"]))
    for name in ROBOTS:
        row(f"    {name}", lambda r, n=name: _rate(r["per_robot"][n]["right"],
                                                   r["per_robot"][n]["total"]))
    row("  transparent robot (own row)", lambda r: str(r["transparent"]["frames"]))
    row("    on its cell", lambda r: _rate(r["transparent"]["right"], r["transparent"]["frames"]))
    row("    not seen (said so)", lambda r: str(r["transparent"]["unseen"]))
    row("    on a wrong cell", lambda r: str(r["transparent"]["wrong"]))
    row("  in play, lifted off: frames", lambda r: str(r["in_play_not_on_board"]["frames"]))
    row("    silver seen all the same", lambda r: str(r["in_play_not_on_board"]["silver"]))
    row("    transparent seen all the same", lambda r: str(r["in_play_not_on_board"][CLEAR]))
    row("  not read (error)", lambda r: str(r["frames_not_read"]))
    row("  wrongly flagged occluded", lambda r: str(r["frames_falsely_occluded"]))
    row("occluded frames", lambda r: str(r["occluded"]))
    row("  flagged (occluded or unread)", lambda r: _rate(r["occluded_flagged"], r["occluded"]))
    row("  misread as a position", lambda r: str(r["occluded_accepted"]))
    row("board partly out of frame", lambda r: str(r["out_of_frame"]))
    row("  refused", lambda r: _rate(r["out_of_frame_refused"], r["out_of_frame"]))
    row("tiles: same board (from scratch)", lambda r: _rate(r["tiles_same_board"],
                                                             r["tiles_total"]))
    row("tiles: exact, markers fix north", lambda r: _rate(r["marker_tiles_exact"],
                                                            r["marker_frames"]))
    row("chip right", lambda r: _rate(r["chips_right"], r["chips_total"]))
    row("  chip wrong (read as another)", lambda r: str(r["chips_wrong"]))
    row("  chip unread (with a reason)", lambda r: str(r["chips_unread"]))
    row("bare centre piece: no chip", lambda r: _rate(r["bare_pieces_no_chip"],
                                                        r["bare_pieces"]))
    row("ms per frame, median (game)", lambda r: f"{r['ms_per_frame']['median']:.1f}")
    row("ms per frame, p90 (game)", lambda r: f"{r['ms_per_frame']['p90']:.1f}")
    row("ms from scratch, median", lambda r: f"{r['ms_from_scratch']['median']:.1f}"
        if r["ms_from_scratch"] else "—")
    row("ms from scratch, p90", lambda r: f"{r['ms_from_scratch']['p90']:.1f}"
        if r["ms_from_scratch"] else "—")
    row("ms chip read, median", lambda r: f"{r['ms_chip_read']['median']:.1f}")
    row("ms chip read, p90", lambda r: f"{r['ms_chip_read']['p90']:.1f}")
    if pale is not None:
        print(f"{'pale table, glare, no markers':34s}{pale['frames']} frames at "
              f"{pale['size'][0]}×{pale['size'][1]}")
        print(f"{'  board found (from scratch)':34s}{_rate(pale['board_found'], pale['frames'])}")
        print(f"{'  all robots right':34s}{_rate(pale['all_robots_right'], pale['frames'])}")
    med = results[0]["ms_per_frame"]["median"]
    print(f"\ngoal: median ≤ {GOAL_MS:.0f} ms per frame at 1280×960: "
          f"{'met' if med <= GOAL_MS else 'NOT met'} ({med:.1f} ms)")
    report = {
        "benchmark": "vision",
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "opencv": cv2.__version__, "threads": args.threads},
        "seed": args.seed,
        "hands": args.hands,
        "hard": args.hard,
        "cells": args.model or (None if args.no_cells else "shipped"),
        "results": results,
        "pale_tables": pale,
    }
    return write_report(args.out, report)
