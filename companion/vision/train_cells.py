"""Train the cell classifier of :mod:`.cells` and export it to ONNX.

    pip install -e '.[train]'
    python -m companion.vision.train_cells [--frames 1200] [--real ../shared/photos/real]

Nothing here runs at the table or in CI: the reader loads the exported file only. The shipped
model is the defaults' (the command above with no option; from a clean clone, with the photos
at ``../shared/photos/real``): the options below that are off by default were tried and not
shipped, each for the figures given with it.

The data is made here, from fixed seeds, so that training again from a clean clone gives a
model as good:

* **renders** (:mod:`.render`): random positions (robots scattered, or standing in rows and
  2×2 clusters as players leave them), the fifth robot black or silver on some boards, every
  scene varied (:meth:`~.render.Scene.random` with tilts up to 45°, boards filling a third of
  the frame to nearly all of it, and the hard scenes: haze, strong casts, glare, dim bluish
  light; hands, blur, noise, JPEG). The grid is the rendered truth moved by up to a tenth of a
  cell at each corner, or the one :func:`~.locate.locate` finds, as at the table. Per frame
  the crops are every robot's cell, its eight neighbours (a robot in front of or behind a cell
  shows in that cell's crop too: the hard cases), every printed target (a symbol of a robot's
  colour) and a few cells anywhere, with the robots' pixels (the renderer's mask) cut the
  same way.
* **boards printed in other styles** (``--frames-print``, none by default, :func:`print_set`):
  every target drawn again as another edition might print it, and symbols of every robot's
  colour (and of black, grey and white) on empty cells (``Scene.print_variety``), robots
  of other shapes and plastics (``Scene.robot_variety``), the fifth robot on every board.
  Every printed cell is an empty crop, all of them kept: a symbol of a robot's colour far
  from it is what the network most often took for the robot on material it never saw.
  With 400 such frames the network took a far cell for a robot about a third as often on
  3D frames it never saw, but was less sure of washed-out robots, and the reader as a
  whole read no better (one real photo worse): not the shipped model's recipe.
* **colourless robots of many looks** (``--frames-colourless``, :func:`colourless_set`):
  black or silver on every board, seven robots in ten of another shape, height, width, gloss
  or plastic (``Scene.robot_variety``), a little odd print. The black and silver robots
  were the reader's weak spot on frames it never saw (the 3D source): the renders alone
  hold a third as many of them as of each coloured robot. Tried with 800 such frames, 400
  of the print above and ``--tone 0.25 --tone-colourless 0.5`` (8 epochs): the network took
  a far cell for a robot less often (56 cells above 0.5 against 137, 120 3D frames of seeds
  790000 on, given their corners), but was less sure of the black and silver robots on
  their own cells, and read worse: those 3D frames 492 robots right against 505 (black
  37/54 against 42/54, silver 33/59 against 37/59), the 3D benchmark's 58/74 frames wholly
  right fell to 54/74 (silver 9/14 to 5/14), a tuned real photo lost a robot. Not shipped.
* **the 3D source** (:mod:`.render3d`, ``--frames-3d``, none by default): the same from the
  rasteriser made apart from the reader, on seeds far from those its benchmark reads. Left
  out, that source stays a measure of frames the network never saw.
* **real crops** (``--real``): the labelled whole-board photos of the tables named by
  ``--real-tables`` (default: ``blefeuvr``) are read at training time, their boards located
  as the reader does, and their cells cut with the same geometry, each photo several times
  as another camera would have taken it (JPEG, defocus, a smaller sensor); each robot's
  plastic is masked by its hue (:func:`colour_mask`). The photos stay where they are;
  nothing cut from them is written into the repository. The other tables' photos are only
  measured (printed at the end), never trained on.

Every batch then gets robots pasted onto a share of its empty cells, real robots onto
rendered print and rendered robots onto real print, a share of its robots' plastic made
paler, fainter against their cell, greyer, lighter or darker within their masks (``--tone``,
``--tone-colourless``: a larger share of the black and silver ones), and every crop's light
and lens are
changed (haze, casts, washed-out plastic, glare, a flash's fall-off, blur, noise, the robot's
height and width): see :mod:`.train_augment`. The network is small (three convolutions and
two dense layers, their widths ``--widths``) and the run takes about half an hour on a busy
shared core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from ..board import Board
from ..rules import Position
from .cells import CLASSES, CROP_H, CROP_W, MODEL, CellNet, cut
from .locate import GRID, VisionError, from_corners, locate
from .render import Scene, hard_scene, random_position, render
from .robots import prepare

FOUR = ("red", "green", "blue", "yellow")
SIZES = ((640, 480), (640, 480), (800, 600), (960, 720), (1280, 960))


# ---------------------------------------------------------------- data from renders


def _position(rng: np.random.Generator, *, four_only: float = 0.34) -> Position:
    """A random board with four robots, a fifth black or silver on all but a share
    ``four_only`` of the boards, the transparent one on a board in four, the robots
    scattered or (one board in three) standing side by side."""
    pos = random_position(rng)
    board = pos.board
    fifth = [] if rng.random() < four_only else [str(rng.choice(["black", "silver"]))]
    clear = ["transparent"] if rng.random() < 0.25 else []
    names = list(FOUR) + fifth + clear
    banned = set(board.blocked) | {d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in banned]
    if rng.random() < 0.35:
        # side by side: a row, a column or a block round one cell
        start = int(rng.choice(free))
        sx, sy = board.xy(start)
        shape = rng.integers(3)
        offsets = ([(i, 0) for i in range(5)] if shape == 0 else
                   [(0, i) for i in range(5)] if shape == 1 else
                   [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)])
        picks = []
        for dx, dy in offsets:
            x, y = sx + dx, sy + dy
            if 0 <= x < GRID and 0 <= y < GRID:
                c = y * GRID + x
                if c not in banned:
                    picks.append(c)
        rest = [c for c in free if c not in picks]
        rng.shuffle(rest)
        cells = (picks + rest)[:len(names)]
    else:
        cells = [free[int(i)] for i in rng.choice(len(free), size=len(names), replace=False)]
    data = pos.to_dict()
    data["robots"] = {n: board.name(c) for n, c in zip(names, cells, strict=True)}
    return Position.from_dict(data)


def _scene(rng: np.random.Generator) -> Scene:
    pick = rng.random()
    if pick < 0.4:
        scene = hard_scene(rng)
    else:
        scene = Scene.random(rng, hands=0.2, max_tilt=45.0)
    if rng.random() < 0.2:
        scene = replace(scene, fill=float(rng.uniform(0.35, 0.75)))
    if rng.random() < 0.1:
        scene = replace(scene, table="pale")
    return scene


def _truth_grid(board: Board, cell: int) -> tuple[int, int]:
    """A cell's grid ``(col, row)``, row 0 in the north (the renderer's corners' order)."""
    file, rank = board.xy(cell)
    return file, GRID - 1 - rank


def _located(image: np.ndarray, truth: np.ndarray, rng: np.random.Generator):
    """The grid as the reader would have it: found by :func:`locate` (turned to the truth's
    order), or the truth moved a little; ``None`` when the board is not found near it."""
    size = (image.shape[1], image.shape[0])
    cell = float(np.linalg.norm(truth[1] - truth[0])) / GRID
    if rng.random() < 0.3:
        try:
            found = locate(image)
        except VisionError:
            found = None
        if found is not None:
            errs = [np.abs(np.roll(found.corners, -k, axis=0) - truth).max() for k in range(4)]
            k = int(np.argmin(errs))
            if errs[k] < 0.3 * cell:
                return from_corners(np.roll(found.corners, -k, axis=0), size)
    moved = truth + rng.normal(0.0, 0.05 * cell, truth.shape).clip(-0.1 * cell, 0.1 * cell)
    try:
        return from_corners(moved, size)
    except VisionError:
        return None


def _frame_crops(image: np.ndarray, loc, label: dict[tuple[int, int], int],
                 hidden: set[tuple[int, int]], rng: np.random.Generator, extra: int,
                 mask: np.ndarray | None = None, also: set[tuple[int, int]] = frozenset()):
    """The crops of one located frame: every robot's cell, its eight neighbours (a robot in
    front of or behind a cell shows in that cell's crop too: the hard cases), the cells of
    ``also`` and ``extra`` cells anywhere; packed crops, class numbers, and the robots' mask
    cut the same way (``mask``: the picture's robot pixels, or ``None`` for none known)."""
    want: set[tuple[int, int]] = set(also)
    for c, r in label:
        want |= {(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
    for _ in range(extra):
        want.add((int(rng.integers(GRID)), int(rng.integers(GRID))))
    cells = np.array(sorted((c, r) for c, r in want if 0 <= c < GRID and 0 <= r < GRID
                            and (c, r) not in hidden
                            and not (7 <= c <= 8 and 7 <= r <= 8)), np.int64).reshape(-1, 2)
    frame = prepare(image, loc)
    x = _pack(cut(frame.image, frame.scale, frame.white, loc, cells))
    y = np.array([label.get((int(c), int(r)), 0) for c, r in cells], np.int64)
    m = np.zeros((len(cells), CROP_H, CROP_W), np.uint8)
    if mask is not None and (y > 0).any():
        m3 = np.repeat(mask[..., None], 3, axis=2)
        cutm = cut(m3, 1.0, np.array([255.0, 255.0, 255.0]), loc, cells[y > 0])[:, 0] + 0.5
        m[y > 0] = np.clip(np.rint(cutm * 255.0), 0, 255).astype(np.uint8)
    return x, y, m


def _gather(parts: list, quiet: bool, what: str, n: int, total: int, t0: float) -> None:
    if not quiet and (n + 1) % 100 == 0:
        print(f"  {what} {n + 1}/{total} frames, {sum(len(p[1]) for p in parts)} crops, "
              f"{time.time() - t0:.0f} s", file=sys.stderr)


def _joined(parts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not parts:
        return (np.zeros((0, 3, CROP_H, CROP_W), np.uint8), np.zeros(0, np.int64),
                np.zeros((0, CROP_H, CROP_W), np.uint8))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore


def _shot_crops(shot, rng: np.random.Generator, *, targets: bool, marks=frozenset()):
    """The labelled crops of one rendered frame (either renderer), or None when its board is
    out of the picture or not found; ``targets``: the printed targets as empty cells too,
    and the cells ``marks`` (an odd symbol printed on them: empty, unless a robot stands
    there)."""
    if not shot.in_frame:
        return None
    loc = _located(shot.image, np.asarray(shot.corners, np.float64), rng)
    if loc is None:
        return None
    board = shot.board
    hidden = {_truth_grid(board, c) for c in shot.hidden_cells}
    label = {_truth_grid(board, c): CLASSES.index(name)
             for name, c in shot.robots.items() if name in CLASSES}
    printed = {_truth_grid(board, t.cell) for t in board.targets} if targets else set()
    printed |= {_truth_grid(board, c) for c in marks}
    return _frame_crops(shot.image, loc, label, hidden, rng, 6, shot.robot_mask, printed)


def render_set(seeds: range, *, quiet: bool = False
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops ``(N, 3, H, W)`` as uint8 (see :func:`_pack`), their class numbers, and each
    robot crop's mask of robot pixels ``(N, H, W)`` (0 … 255; zero for the other crops)."""
    parts = []
    t0 = time.time()
    for n, seed in enumerate(seeds):
        rng = np.random.default_rng([seed, 13])
        pos = _position(rng)
        scene = _scene(rng)
        size = SIZES[int(rng.integers(len(SIZES)))]
        shot = render(pos, seed=seed, size=size, scene=scene)
        # every printed target too: on a small board a symbol of a robot's colour is the
        # likeliest cell to be taken for that robot
        crops = _shot_crops(shot, rng, targets=True)
        if crops is None:
            continue
        parts.append(crops)
        _gather(parts, quiet, "rendered", n, len(seeds), t0)
    return _joined(parts)


def print_set(seeds: range, *, quiet: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`render_set`, on boards printed in other styles (``Scene.print_variety``:
    targets redrawn, symbols of every robot's colour and of black, grey and white on empty
    cells) with robots of other looks (``Scene.robot_variety``), the fifth robot on every
    board: every printed symbol is an empty cell the network must not take for a robot."""
    return _variety_set(seeds, quiet, "printed", stream=17, print_range=(0.5, 1.0),
                        robots=0.3)


def colourless_set(seeds: range, *, quiet: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`print_set`, for the robots told from the print by lightness alone: black
    or silver on every board, most robots of other looks
    (``Scene.robot_variety``: shapes, heights, gloss, washed-out or dull plastic), a little
    odd print (its symbols empty cells)."""
    return _variety_set(seeds, quiet, "colourless", stream=19, print_range=(0.0, 0.6),
                        robots=0.7)


def _variety_set(seeds: range, quiet: bool, label: str, *, stream: int,
                 print_range: tuple[float, float], robots: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops of boards with the fifth robot on every one, their print varied by a share
    drawn from ``print_range`` and a share ``robots`` of robots of other looks; each seed's
    draws from its own ``stream``."""
    parts = []
    t0 = time.time()
    for n, seed in enumerate(seeds):
        rng = np.random.default_rng([seed, stream])
        pos = _position(rng, four_only=0.0)
        scene = replace(_scene(rng), print_variety=float(rng.uniform(*print_range)),
                        robot_variety=robots)
        size = SIZES[int(rng.integers(len(SIZES)))]
        shot = render(pos, seed=seed, size=size, scene=scene)
        crops = _shot_crops(shot, rng, targets=True, marks=shot.printed)
        if crops is None:
            continue
        parts.append(crops)
        _gather(parts, quiet, label, n, len(seeds), t0)
    return _joined(parts)


SIZES_3D = ((640, 480), (800, 600), (960, 720))


def render3d_set(seeds: range, *, quiet: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`render_set`, from the 3D source (:func:`~.render3d.random_frame`). The
    benchmark of that source reads seeds 6000 on; the seeds trained on here must not be
    those (see ``--seed-3d``)."""
    from .render3d import random_frame

    parts = []
    t0 = time.time()
    for n, seed in enumerate(seeds):
        rng = np.random.default_rng([seed, 31])
        size = SIZES_3D[int(rng.integers(len(SIZES_3D)))]
        shot = random_frame(seed, size=size, hands=0.15)
        crops = _shot_crops(shot, rng, targets=False)
        if crops is None:
            continue
        parts.append(crops)
        _gather(parts, quiet, "3D", n, len(seeds), t0)
    return _joined(parts)


def _pack(crops: np.ndarray) -> np.ndarray:
    """Crops from :func:`~.cells.cut` (−0.5 … 1.5) as uint8, to keep the set small."""
    return np.clip(np.rint((crops + 0.5) * 127.0), 0, 255).astype(np.uint8)


def _unpack(packed: np.ndarray) -> np.ndarray:
    return packed.astype(np.float32) / 127.0 - 0.5


# ---------------------------------------------------------------- data from real photos


def _upright(loc, size: tuple[int, int]):
    """The location turned so that its grid's first corner is the picture's top-left one:
    the photos' labels take the picture's top as north."""
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    errs = [np.linalg.norm(np.roll(loc.corners, -k, axis=0) - frame, axis=1).sum()
            for k in range(4)]
    return loc.rotated(int(np.argmin(errs)))


# hue ranges (OpenCV's 0 … 180) of the coloured robots' plastic, for their masks in photos
HUES = {"red": ((0, 9), (168, 180)), "yellow": ((16, 38),), "green": ((40, 88),),
        "blue": ((92, 132),)}


def colour_mask(packed: np.ndarray, name: str) -> np.ndarray:
    """``(H, W)`` uint8, 255 on a coloured robot's plastic in one packed crop of its own
    cell (saturated pixels of its hue, the blob standing nearest the crop's lower middle,
    filled to its convex hull);
    all zero where none is clear, or for a colourless robot (no hue tells it from the
    print)."""
    out = np.zeros((CROP_H, CROP_W), np.uint8)
    if name not in HUES:
        return out
    bgr = np.clip(packed.transpose(1, 2, 0).astype(np.float32) * 2.0, 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    hit = np.zeros((CROP_H, CROP_W), bool)
    for lo, hi in HUES[name]:
        hit |= (hsv[..., 0] >= lo) & (hsv[..., 0] <= hi)
    hit &= (hsv[..., 1] >= (45 if name == "yellow" else 70)) & (hsv[..., 2] >= 40)
    hit = cv2.morphologyEx(hit.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lab, stats, cent = cv2.connectedComponentsWithStats(hit, connectivity=8)
    if n < 2:
        return out
    aim = np.array([CROP_W / 2, CROP_H * 0.62])
    best = min(range(1, n), key=lambda i: np.linalg.norm(cent[i] - aim) - 0.05 * stats[i, 4])
    if stats[best, 4] < 40 or np.linalg.norm(cent[best] - aim) > 0.3 * CROP_H:
        return out
    # the blob's convex hull: a shine or a washed-out flank is plastic too
    pts = cv2.findNonZero((lab == best).astype(np.uint8))
    return cv2.fillConvexPoly(out, cv2.convexHull(pts), 255)


def _variant(image: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """The photo as another camera would have taken it: ``k`` 0 is itself, then JPEG at a
    low quality, a defocus blur, a smaller sensor, and combinations."""
    out = image
    if k % 4 in (1, 3):
        q = int(rng.integers(25, 60))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out
    if k % 4 in (2, 3):
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.8, 2.0)))
    if k >= 4:
        f = float(rng.uniform(0.3, 0.6))
        small = cv2.resize(out, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (image.shape[1], image.shape[0]),
                         interpolation=cv2.INTER_LINEAR)
    return out


def _photo_labels(d: dict) -> dict[tuple[int, int], int]:
    """A photo's robots as grid ``(col, row)`` → class number (the picture's top north)."""
    from ..board import parse_cell

    label = {}
    for name, cell in d["robots"].items():
        if name in CLASSES:
            rank, file = divmod(parse_cell(cell), GRID)
            label[(file, GRID - 1 - rank)] = CLASSES.index(name)
    return label


def real_set(folder: Path, tables: set[str] | None, *, rng: np.random.Generator,
             quiet: bool = False, variants: int = 1
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Crops of the labelled whole-board photos in ``folder`` whose table (the file name up
    to its first ``-``) is in ``tables`` (``None``: every other table), as
    :func:`render_set` (the robots' masks by :func:`colour_mask`), each photo cut
    ``variants`` times as :func:`_variant` changes it, and the photos used."""
    parts, used = [], []
    for line in (folder / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        table = d["file"].split("-", 1)[0]
        if (tables is not None and table not in tables) or (
                tables is None and table in _TRAINED) or d.get("kind", "whole") != "whole":
            continue  # a board cut off by the picture's edge may be found wrongly
        image = cv2.imread(str(folder / d["file"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        try:
            loc = _upright(locate(image), (image.shape[1], image.shape[0]))
        except VisionError as e:
            if not quiet:
                print(f"  {d['file']}: not located ({e})", file=sys.stderr)
            continue
        label = _photo_labels(d)
        for k in range(variants):
            x, y, m = _frame_crops(_variant(image, k, rng), loc, label, set(), rng, 12)
            for i in np.nonzero(y > 0)[0]:
                m[i] = colour_mask(x[i], CLASSES[y[i]])
            parts.append((x, y, m))
        used.append(d["file"])
    x, y, m = _joined(parts)
    return x, y, m, used


_TRAINED: set[str] = set()


# ---------------------------------------------------------------- the network


WIDTHS = (12, 24, 32, 64)  # the three convolutions' channels, and the dense layer's width


def _network(widths: tuple[int, ...] = WIDTHS):
    import torch.nn as nn

    if len(widths) != 4 or min(widths) < 1:
        raise ValueError(f"network widths: {widths} is not four positive numbers")
    a, b, c, d = widths

    def block(i: int, o: int) -> list:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(),
                nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(3, a), *block(a, b), *block(b, c),
        nn.Flatten(), nn.Dropout(0.3),
        nn.Linear(c * (CROP_H // 8) * (CROP_W // 8), d), nn.ReLU(),
        nn.Linear(d, len(CLASSES)),
    )


def train(x: np.ndarray, y: np.ndarray, origin: np.ndarray, pool, *, epochs: int,
          seed: int, paste_share: float = 0.15, quiet: bool = False,
          widths: tuple[int, ...] = WIDTHS, masks: np.ndarray | None = None,
          tone_share: tuple[float, float] = (0.0, 0.0)):
    """The network trained on packed crops ``x``, classes ``y`` and origins ``origin``
    (:data:`~.train_augment.REAL` or ``RENDERED``), robots of ``pool`` pasted onto a share
    of the empty cells of every batch (:func:`~.train_augment.paste`), the robots' plastic
    changed within their ``masks`` (``(N, H, W)`` uint8, 0 … 255) on ``tone_share`` of the
    robot crops (coloured, colourless; :func:`~.train_augment.tone`), every crop then
    changed by :func:`~.train_augment.augment`."""
    import torch
    import torch.nn as nn

    from .train_augment import augment, paste, tone

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = _network(widths)
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1.0)) ** 0.5, dtype=torch.float32)
    weights = weights / weights.mean()
    loss_fn = nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xt, yt, ot = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(origin)
    toned = masks is not None and max(tone_share) > 0
    mt = torch.from_numpy(masks) if toned else None
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x), generator=gen)
        total, right, seen = 0.0, 0, 0
        for i in range(0, len(x), 128):
            idx = order[i:i + 128]
            if toned:
                xb, yb, mb = paste(xt[idx].float() / 127.0 - 0.5, yt[idx], ot[idx], pool,
                                   gen, paste_share, mt[idx, None].float() / 255.0)
                xb = tone(xb, yb, mb, gen, *tone_share)
            else:
                xb, yb = paste(xt[idx].float() / 127.0 - 0.5, yt[idx], ot[idx], pool, gen,
                               paste_share)
            out = net(augment(xb, gen))
            loss = loss_fn(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            right += int((out.argmax(1) == yb).sum())
            seen += len(idx)
        if not quiet:
            print(f"  epoch {epoch + 1}/{epochs}: loss {total / seen:.4f}, "
                  f"right {right / seen:.4f}, {time.time() - t0:.0f} s", file=sys.stderr)
    net.eval()
    return net


def export(net, path: Path) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    torch.onnx.export(net, (dummy,), str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=13,
                      dynamo=False)


def measure(path: Path, x: np.ndarray, y: np.ndarray) -> str:
    """The exported file on ``cv2.dnn``: share right, robots right, empty cells taken for a
    robot."""
    if not len(x):
        return "no crops"
    net = CellNet.load(path)
    p = np.concatenate([net.probabilities(_unpack(x[i:i + 256])) for i in range(0, len(x), 256)])
    guess = p.argmax(1)
    robot = y > 0
    return (f"{(guess == y).mean():.4f} right of {len(y)}; robots {int((guess == y)[robot].sum())}"
            f"/{int(robot.sum())}; empty cells taken for a robot {int((guess[~robot] > 0).sum())}"
            f"/{int((~robot).sum())}")


def _cached(cache: Path | None, name: str, make) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``make()``'s crops, classes and masks, kept in ``cache/name`` when a folder is given."""
    path = cache / name if cache is not None else None
    if path is not None and path.is_file():
        data = np.load(path)
        return data["x"], data["y"], data["m"]
    x, y, m = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=x, y=y, m=m)
    return x, y, m


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion.vision.train_cells",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=1200, help="rendered frames (1200)")
    parser.add_argument("--seed", type=int, default=0, help="first render seed (0)")
    parser.add_argument("--frames-print", type=int, default=0,
                        help="rendered frames of boards printed in other styles, with "
                             "robots of other looks (0: none, as the shipped model)")
    parser.add_argument("--seed-print", type=int, default=2_000_000,
                        help="first seed of those (2000000)")
    parser.add_argument("--frames-colourless", type=int, default=0,
                        help="rendered frames with black and silver robots of many looks "
                             "(0: none)")
    parser.add_argument("--seed-colourless", type=int, default=3_000_000,
                        help="first seed of those (3000000)")
    parser.add_argument("--frames-3d", type=int, default=0,
                        help="frames of the 3D source too (0: none, so that source stays "
                             "unseen and its benchmark measures what the network never saw)")
    parser.add_argument("--seed-3d", type=int, default=500_000,
                        help="first seed of those (500000; the benchmark reads 6000 on)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--real", default="../shared/photos/real",
                        help="labelled real photos (a truth.jsonl beside them); '' for none")
    parser.add_argument("--real-tables", default="blefeuvr",
                        help="the tables whose photos are trained on, comma separated")
    parser.add_argument("--real-variants", type=int, default=8,
                        help="how many times each real photo is cut, as another camera "
                             "would have taken it (8)")
    parser.add_argument("--paste", type=float, default=0.15,
                        help="the share of each batch's empty cells a robot is pasted on")
    parser.add_argument("--tone", type=float, default=0.0,
                        help="the share of the coloured robots' crops whose plastic is "
                             "made paler, fainter, greyer, lighter or darker (0)")
    parser.add_argument("--tone-colourless", type=float, default=0.0,
                        help="the same for the black and silver robots' crops (0)")
    parser.add_argument("--empty-share", type=float, default=0.4,
                        help="the share of the rendered empty cells trained on (0.4)")
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)),
                        help="the three convolutions' channels and the dense layer's width "
                             f"({','.join(map(str, WIDTHS))})")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", default="", help="a folder to keep the rendered crops in")
    parser.add_argument("--out", default=str(MODEL))
    parser.add_argument("--quiet", action="store_true")
    return parser


def _data(args, rng: np.random.Generator):
    """The training set: crops, classes, origins, the pool of robots to paste, and the real
    crops (for the closing measure)."""
    from .train_augment import REAL, RENDERED, joined, make_pool

    cache = Path(args.cache) if args.cache else None
    a, b = args.seed, args.seed + args.frames
    x, y, m = _cached(cache, f"render-{a}-{b}.npz",
                      lambda: render_set(range(a, b), quiet=args.quiet))
    if args.frames_3d:
        a3, b3 = args.seed_3d, args.seed_3d + args.frames_3d
        x3, y3, m3 = _cached(cache, f"render3d-{a3}-{b3}.npz",
                             lambda: render3d_set(range(a3, b3), quiet=args.quiet))
        x, y, m = np.concatenate([x, x3]), np.concatenate([y, y3]), np.concatenate([m, m3])
    if args.frames_colourless:
        ac, bc = args.seed_colourless, args.seed_colourless + args.frames_colourless
        xc, yc, mc = _cached(cache, f"colourless-{ac}-{bc}.npz",
                             lambda: colourless_set(range(ac, bc), quiet=args.quiet))
        x, y, m = np.concatenate([x, xc]), np.concatenate([y, yc]), np.concatenate([m, mc])
    keep = (y > 0) | (rng.random(len(y)) < args.empty_share)
    x, y, m = x[keep], y[keep], m[keep]
    if args.frames_print:
        # every empty cell of these is kept: their printed symbols are the hard negatives
        ap, bp = args.seed_print, args.seed_print + args.frames_print
        xp, yp, mp = _cached(cache, f"print-{ap}-{bp}.npz",
                             lambda: print_set(range(ap, bp), quiet=args.quiet))
        x, y, m = np.concatenate([x, xp]), np.concatenate([y, yp]), np.concatenate([m, mp])
    print(f"renders: {len(y)} crops, per class {np.bincount(y, minlength=len(CLASSES))}",
          file=sys.stderr)
    real_x, real_y, real_m = _joined([])
    folder = Path(args.real) if args.real else None
    tables = {t for t in args.real_tables.split(",") if t}
    _TRAINED.update(tables)
    if folder is not None and (folder / "truth.jsonl").is_file() and tables:
        real_x, real_y, real_m, used = real_set(folder, tables, rng=rng, quiet=args.quiet,
                                                variants=args.real_variants)
        print(f"real photos trained on: {len(used)} ({', '.join(sorted(tables))}), "
              f"{len(real_y)} crops, robots {int((real_y > 0).sum())}, "
              f"{int((real_m.reshape(len(real_m), -1).max(axis=1) > 0).sum())} with a mask",
              file=sys.stderr)
    pool = joined(make_pool(real_x, real_m, real_y, REAL, limit=len(real_y), rng=rng),
                  make_pool(x, m, y, RENDERED, limit=4000, rng=rng))
    origin = np.concatenate([np.full(len(y), RENDERED), np.full(len(real_y), REAL)])
    return (np.concatenate([x, real_x]), np.concatenate([y, real_y]), origin, pool,
            real_x, real_y, np.concatenate([m, real_m]))


def _widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise SystemExit(f"--widths: {text!r} is not four numbers separated by commas") from None
    if len(widths) != 4 or min(widths) < 1:
        raise SystemExit(f"--widths: {text!r} is not four positive numbers")
    return widths


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    widths = _widths(args.widths)
    import torch

    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    x, y, origin, pool, real_x, real_y, masks = _data(args, rng)
    print(f"training on {len(y)} crops, {len(pool)} robots to paste, {time.time() - t0:.0f} s",
          file=sys.stderr)
    net = train(x, y, origin, pool, epochs=args.epochs, seed=args.seed,
                paste_share=args.paste, quiet=args.quiet, widths=widths, masks=masks,
                tone_share=(args.tone, args.tone_colourless))
    out = Path(args.out)
    export(net, out)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB) after {time.time() - t0:.0f} s",
          file=sys.stderr)
    # measured on what it never saw: fresh render seeds, and the other tables' photos
    fresh_x, fresh_y, _ = render_set(range(10_000_000 + args.seed,
                                           10_000_000 + args.seed + 100), quiet=True)
    print(f"fresh renders: {measure(out, fresh_x, fresh_y)}", file=sys.stderr)
    folder = Path(args.real) if args.real else None
    if folder is not None and (folder / "truth.jsonl").is_file():
        print(f"real, trained on: {measure(out, real_x, real_y)}", file=sys.stderr)
        ox, oy, _, used = real_set(folder, None, rng=rng, quiet=True)
        print(f"real, not trained on ({len(used)} photos): {measure(out, ox, oy)}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
