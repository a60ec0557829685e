"""``companion bench vision --real DIR``: the reader judged on real photographs.

``DIR`` holds photos and a ``truth.jsonl`` beside them, one photo a line::

    {"file": "a.jpg", "robots": {"red": "h13", "green": "m12"}, "kind": "whole",
     "tiles": ["1A", "4B", "3B", "2B"], "medium_confidence": ["green"]}

``kind`` is ``whole`` (the whole board with its dark frame is in the picture) or ``partial``
(part of it is cut off: reading it right and declining are both fine, but never a robot on a
wrong cell); ``tiles`` is optional. Cells are read with the picture's top as north, as
``cv2.imread`` shows it (the EXIF orientation applied). Nothing fixes north on a real board, so
a reading is judged up to a quarter turn of the whole board: the turn that puts most robots on
their cells (the same turn for all of them, and for the tiles).

The board is also looked for by its lattice of cells alone (:mod:`companion.vision.lattice`,
which the reader falls back on when the outline fails), so that how that holds on tables it
was not tuned on is measured even where the outline finds the board first.

Each photo is read from scratch, as ``companion read`` would, by a reader that looks for the
robots of the photo's game: the four colours and a fifth (black, so that a black robot is never
invented where the game has none). One line per photo: board found, tiles, robots right / on a
wrong cell / not seen, the reason when it failed, ms. Then the totals, overall and for each
group of tables (``--tuned`` names the tables the reader was tuned on: a photo's table is its
file name up to the first ``-``), since a photo the reader was tuned on no longer measures
how it does on tables it has never seen.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..board import cell_name, parse_cell
from ..vision.colours import Profile
from ..vision.locate import GRID, BoardNotFound, VisionError, locate_lattice
from ..vision.read import DEFAULT_CELLS, default_cells, read_frame

FOUR = ("red", "green", "blue", "yellow")
KINDS = ("whole", "partial")


class TruthError(ValueError):
    """``truth.jsonl`` or a photo it names cannot be used; the message says which and why."""


@dataclass(frozen=True)
class Truth:
    file: str
    robots: dict[str, str]
    kind: str
    tiles: tuple[str, ...] | None = None

    @property
    def table(self) -> str:
        return table_of(self.file)


def table_of(file: str) -> str:
    """The table a photo comes from: its file name up to the first ``-``."""
    return Path(file).name.split("-", 1)[0]


def load_truth(folder: Path) -> list[Truth]:
    """The labelled photos of a folder, or a :class:`TruthError` naming the line at fault."""
    path = folder / "truth.jsonl"
    if not folder.is_dir():
        raise TruthError(f"--real: {folder} is not a folder")
    if not path.is_file():
        raise TruthError(f"--real: no truth.jsonl in {folder}")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise TruthError(f"{where}: not JSON ({e.msg})") from None
        if not isinstance(d, dict) or not isinstance(d.get("file"), str):
            raise TruthError(f"{where}: file: a photo's name is needed")
        robots = d.get("robots")
        if not isinstance(robots, dict) or not robots:
            raise TruthError(f"{where}: robots: a colour → cell mapping is needed")
        for colour, cell in robots.items():
            try:
                parse_cell(str(cell))
            except ValueError:
                raise TruthError(f"{where}: robots.{colour}: {cell!r} is not a cell") from None
        kind = d.get("kind", "whole")
        if kind not in KINDS:
            raise TruthError(f"{where}: kind: {kind!r} is not one of {', '.join(KINDS)}")
        tiles = d.get("tiles")
        if tiles is not None and (not isinstance(tiles, list) or len(tiles) != 4):
            raise TruthError(f"{where}: tiles: four tile sides are needed")
        if not (folder / d["file"]).is_file():
            raise TruthError(f"{where}: file: {folder / d['file']} does not exist")
        out.append(Truth(d["file"], {str(k): str(v) for k, v in robots.items()}, kind,
                         tuple(tiles) if tiles else None))
    if not out:
        raise TruthError(f"{path}: no photos in it")
    return out


def turn_cell(name: str, k: int) -> str:
    """A cell's name after the whole board is turned by ``k`` quarter turns clockwise."""
    i = parse_cell(name)
    col, row = i % GRID, GRID - 1 - i // GRID  # row 0 in the north
    for _ in range(k % 4):
        col, row = GRID - 1 - row, col
    return cell_name((GRID - 1 - row) * GRID + col)


def _same_tiles(read: tuple[str, ...] | None, truth: tuple[str, ...]) -> bool:
    return bool(read) and any(tuple(read) == truth[k:] + truth[:k] for k in range(4))


@dataclass
class PhotoResult:
    file: str
    table: str
    kind: str
    found: bool = False
    reason: str = ""
    occluded: bool = False
    tiles: str = "?"  # "right", "wrong" or "?" (no truth, or not read)
    right: int = 0
    wrong: int = 0
    unseen: int = 0
    invented: int = 0  # a robot the photo's game does not have
    total: int = 0
    ms: float = 0.0
    lattice: str = "-"  # the board by its lattice alone: "same" place, "elsewhere", "no"
    ms_lattice: float = 0.0
    details: list[str] = field(default_factory=list)

    @property
    def wholly_right(self) -> bool:
        return self.found and not self.occluded and self.right == self.total and \
            not self.wrong and not self.invented and self.tiles != "wrong"


def judge(truth: Truth, robots: dict[str, str]) -> tuple[int, dict[str, str]]:
    """The quarter turn of the reading that fits the truth best, and the reading turned so."""
    best_k, best = 0, -1
    for k in range(4):
        hits = sum(truth.robots.get(c) == turn_cell(cell, k) for c, cell in robots.items())
        if hits > best:
            best_k, best = k, hits
    return best_k, {c: turn_cell(cell, best_k) for c, cell in robots.items()}


def read_photo(folder: Path, truth: Truth, cells: Any = DEFAULT_CELLS) -> PhotoResult:
    image = cv2.imread(str(folder / truth.file), cv2.IMREAD_COLOR)
    if image is None:
        raise TruthError(f"--real: {folder / truth.file} is not a picture OpenCV can decode")
    res, obs = read_image(image, truth, cells)
    res.lattice, res.ms_lattice = _lattice_alone(image, obs)
    return res


def read_image(image: np.ndarray, truth: Truth, cells: Any = DEFAULT_CELLS
               ) -> tuple[PhotoResult, Any]:
    """``image`` read from scratch and judged against ``truth``: the result, and the
    reading (an observation, or the :class:`VisionError` that refused it)."""
    res = PhotoResult(truth.file, truth.table, truth.kind, total=len(truth.robots))
    wanted = list(FOUR) + [c for c in truth.robots if c not in FOUR]
    if len(wanted) == len(FOUR):
        wanted.append("black")
    t0 = time.perf_counter()
    try:
        obs: Any = read_frame(image, chip=False, profile=Profile().for_robots(wanted),
                              cells=cells)
    except VisionError as e:
        obs = e
    res.ms = (time.perf_counter() - t0) * 1000
    judge_reading(res, truth, obs)
    return res, obs


def judge_reading(res: PhotoResult, truth: Truth, obs: Any) -> None:
    """Fill ``res`` from a reading ``obs`` (an observation or a :class:`VisionError`)."""
    if isinstance(obs, VisionError):
        res.reason = str(obs)
        res.unseen = res.total
        return
    res.found = True
    if obs.occluded:
        res.occluded = True
        res.reason = "flagged occluded: " + ",".join(obs.occluded_cells[:6])
        res.unseen = res.total
        return
    k, turned = judge(truth, obs.robots)
    if truth.tiles is not None and obs.tiles:
        res.tiles = "right" if _same_tiles(obs.tiles, truth.tiles) else "wrong"
    for colour, cell in truth.robots.items():
        got = turned.get(colour)
        if got is None:
            res.unseen += 1
            res.details.append(f"{colour} not seen")
        elif got == cell:
            res.right += 1
        else:
            res.wrong += 1
            res.details.append(f"{colour} on {got}, not {cell}")
    for colour, cell in turned.items():
        if colour not in truth.robots:
            res.invented += 1
            res.details.append(f"{colour} seen on {cell}, not in the game")


def _lattice_alone(image: np.ndarray, obs: Any) -> tuple[str, float]:
    """The board found by its lattice alone, whichever way the reader found it: "same"
    place as the reader's (within half a cell), "elsewhere", or "no"."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    t0 = time.perf_counter()
    try:
        loc = locate_lattice(image, gray, BoardNotFound("no board"))
    except VisionError:
        return "no", (time.perf_counter() - t0) * 1000
    ms = (time.perf_counter() - t0) * 1000
    if isinstance(obs, VisionError):
        return "elsewhere", ms
    found = np.asarray(obs.corners)
    cell = float(np.linalg.norm(found[1] - found[0])) / GRID
    err = min(np.abs(np.roll(loc.corners, -k, axis=0) - found).max() for k in range(4))
    return ("same" if err < 0.5 * cell else "elsewhere"), ms


def _line(r: PhotoResult) -> str:
    if not r.found:
        what = f"NO BOARD: {r.reason}"
    elif r.occluded:
        what = r.reason
    else:
        what = (f"tiles {r.tiles:5s} robots {r.right}/{r.total} right, {r.wrong} WRONG CELL, "
                f"{r.unseen} not seen" + (f" ({'; '.join(r.details)})" if r.details else ""))
    return f"{r.file:34s} {r.kind:7s} {r.ms:7.0f} ms  lattice {r.lattice:9s} {what}"


def summarise(results: list[PhotoResult]) -> dict[str, Any]:
    whole = [r for r in results if r.kind == "whole"]
    ms = [r.ms for r in results]
    return {
        "photos": len(results),
        "whole": len(whole),
        "whole_board_found": sum(r.found for r in whole),
        "whole_wholly_right": sum(r.wholly_right for r in whole),
        "partial_wholly_right_or_declined": sum(
            (r.wholly_right or not r.found or r.occluded) and not r.wrong
            for r in results if r.kind == "partial"),
        "robots": sum(r.total for r in results),
        "robots_right": sum(r.right for r in results),
        "robots_wrong_cell": sum(r.wrong for r in results),
        "robots_not_seen": sum(r.unseen for r in results),
        "robots_invented": sum(r.invented for r in results),
        "boards_not_found": sum(not r.found for r in results),
        "boards_not_found_whole": sum(not r.found for r in whole),
        "flagged_occluded": sum(r.occluded for r in results),
        "whole_lattice_alone_same": sum(r.lattice == "same" for r in whole),
        "ms_lattice_alone_median": float(np.median([r.ms_lattice for r in results]))
        if results else float("nan"),
        "tiles_right": sum(r.tiles == "right" for r in results),
        "tiles_judged": sum(r.tiles != "?" for r in results),
        "ms_median": float(np.median(ms)) if ms else float("nan"),
    }


def _summary_lines(label: str, s: dict[str, Any]) -> list[str]:
    return [
        f"{label}: {s['photos']} photos ({s['whole']} whole boards)",
        f"  whole boards found               {s['whole_board_found']}/{s['whole']}",
        f"  whole boards wholly right        {s['whole_wholly_right']}/{s['whole']}",
        f"  partial: right or declined       "
        f"{s['partial_wholly_right_or_declined']}/{s['photos'] - s['whole']}",
        f"  robots right                     {s['robots_right']}/{s['robots']}",
        f"  robots ON A WRONG CELL           {s['robots_wrong_cell']}",
        f"  robots not seen                  {s['robots_not_seen']}",
        f"  robots invented (not in game)    {s['robots_invented']}",
        f"  boards not found (whole/all)     {s['boards_not_found_whole']}/"
        f"{s['boards_not_found']}",
        f"  flagged occluded                 {s['flagged_occluded']}",
        f"  whole boards, by lattice alone   {s['whole_lattice_alone_same']}/{s['whole']}"
        f" (same place as read; {s['ms_lattice_alone_median']:.0f} ms median)",
        f"  tiles right (where known)        {s['tiles_right']}/{s['tiles_judged']}",
        f"  ms per photo, median             {s['ms_median']:.0f}",
    ]


def run_real(folder: str, tuned: list[str], out: str, limit: int | None = None,
             cells: Any = DEFAULT_CELLS) -> int:
    """Read every labelled photo in ``folder``, print a line each and the totals; ``cells``:
    the learned cell classifier to read the robots with (see :class:`~..vision.read.Reader`)."""
    from . import write_report

    if cells is DEFAULT_CELLS:
        cells = default_cells()
    root = Path(folder)
    try:
        truths = load_truth(root)
    except TruthError as e:
        print(f"error: {e}")
        return 2
    if limit is not None:
        truths = truths[:limit]
    results = []
    for t in truths:
        try:
            r = read_photo(root, t, cells)
        except TruthError as e:
            print(f"error: {e}")
            return 2
        results.append(r)
        print(_line(r), flush=True)
    groups: dict[str, list[PhotoResult]] = {"all tables": results}
    if tuned:
        groups["tables tuned on (" + ", ".join(tuned) + ")"] = [
            r for r in results if r.table in tuned]
        groups["tables not tuned on"] = [r for r in results if r.table not in tuned]
    tables = sorted({r.table for r in results})
    summaries = {}
    print()
    for label, rs in groups.items():
        s = summarise(rs)
        summaries[label] = s
        print("\n".join(_summary_lines(label, s)))
    report = {
        "benchmark": "vision-real",
        "folder": str(root),
        "tuned_on": tuned,
        "cells": cells is not None,
        "tables": {t: summarise([r for r in results if r.table == t]) for t in tables},
        "summaries": summaries,
        "photos": [{**r.__dict__, "wholly_right": r.wholly_right} for r in results],
    }
    return write_report(out, report)
