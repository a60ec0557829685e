"""Train the cell classifier of :mod:`.cells` and export it to ONNX.

    pip install -e '.[train]'
    python -m companion.vision.train_cells [--frames 1000] [--real ../shared/photos/real]

Nothing here runs at the table or in CI: the reader loads the exported file only.

The data is made here, from fixed seeds, so that training again from a clean clone gives a
model as good:

* **renders** (:mod:`.render`): random positions (robots scattered, or standing in rows and
  2×2 clusters as players leave them), the fifth robot black or silver on some boards, every
  scene varied (:meth:`~.render.Scene.random` with tilts up to 45°, boards filling a third of
  the frame to nearly all of it, and the hard scenes: haze, strong casts, glare, dim bluish
  light; hands, blur, noise, JPEG). The grid is the rendered truth moved by up to a tenth of a
  cell at each corner, or the one :func:`~.locate.locate` finds, as at the table. Per frame
  the crops are every robot's cell, its eight neighbours (a robot in front of or behind a cell
  shows in that cell's crop too: the hard cases) and a few cells anywhere.
* **real crops** (``--real``): the labelled photos of real tables in that folder
  (``truth.jsonl`` beside them) are read at training time, their boards located as the reader
  does, and the cells of the tables named by ``--real-tables`` (default: ``blefeuvr``) cut with
  the same geometry and mixed into the training set, many times over with changed light,
  colour, noise and shift: the network sees real plastic and real print. The photos stay where
  they are; nothing cut from them is written into the repository. The other tables' photos
  are only measured (printed at the end), never trained on.

Crops are augmented on the fly (light level, colour gains, haze, noise, a shift of a pixel or
two). The network is small (three convolutions and two dense layers) and the run takes a few
minutes on two cores.
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


def _position(rng: np.random.Generator) -> Position:
    """A random board with four robots, a fifth black or silver on two boards of three, the
    transparent one on a board in four, the robots scattered or (one board in three) standing
    side by side."""
    pos = random_position(rng)
    board = pos.board
    fifth = [] if rng.random() < 0.34 else [str(rng.choice(["black", "silver"]))]
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


def render_set(seeds: range, *, quiet: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Crops ``(N, 3, H, W)`` as uint8 (see :func:`_pack`) and their class numbers."""
    xs, ys = [], []
    t0 = time.time()
    for n, seed in enumerate(seeds):
        rng = np.random.default_rng([seed, 13])
        pos = _position(rng)
        scene = _scene(rng)
        size = SIZES[int(rng.integers(len(SIZES)))]
        shot = render(pos, seed=seed, size=size, scene=scene)
        if not shot.in_frame:
            continue
        loc = _located(shot.image, np.asarray(shot.corners, np.float64), rng)
        if loc is None:
            continue
        board = shot.board
        hidden = {_truth_grid(board, c) for c in shot.hidden_cells}
        label = {_truth_grid(board, c): CLASSES.index(name)
                 for name, c in shot.robots.items() if name in CLASSES}
        want: set[tuple[int, int]] = set()
        for c, r in label:
            want |= {(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
        for _ in range(6):
            want.add((int(rng.integers(GRID)), int(rng.integers(GRID))))
        cells = sorted((c, r) for c, r in want if 0 <= c < GRID and 0 <= r < GRID
                       and (c, r) not in hidden
                       and not (7 <= c <= 8 and 7 <= r <= 8))
        frame = prepare(shot.image, loc)
        xs.append(_pack(cut(frame.image, frame.scale, frame.white, loc, np.array(cells))))
        ys.append(np.array([label.get(c, 0) for c in cells], np.int64))
        if not quiet and (n + 1) % 100 == 0:
            print(f"  rendered {n + 1}/{len(seeds)} frames, "
                  f"{sum(map(len, ys))} crops, {time.time() - t0:.0f} s", file=sys.stderr)
    return np.concatenate(xs), np.concatenate(ys)


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


def real_set(folder: Path, tables: set[str] | None, *, rng: np.random.Generator,
             quiet: bool = False) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Crops of the labelled photos in ``folder`` whose table (the file name up to its first
    ``-``) is in ``tables`` (``None``: every other table), as :func:`render_set`."""
    from ..board import parse_cell

    xs, ys, used = [], [], []
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
        label = {}
        for name, cell in d["robots"].items():
            if name in CLASSES:
                rank, file = divmod(parse_cell(cell), GRID)
                label[(file, GRID - 1 - rank)] = CLASSES.index(name)
        want = set()
        for c, r in label:
            want |= {(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
        for _ in range(12):
            want.add((int(rng.integers(GRID)), int(rng.integers(GRID))))
        cells = sorted((c, r) for c, r in want if 0 <= c < GRID and 0 <= r < GRID
                       and not (7 <= c <= 8 and 7 <= r <= 8))
        frame = prepare(image, loc)
        xs.append(_pack(cut(frame.image, frame.scale, frame.white, loc, np.array(cells))))
        ys.append(np.array([label.get(c, 0) for c in cells], np.int64))
        used.append(d["file"])
    if not xs:
        return (np.zeros((0, 3, CROP_H, CROP_W), np.uint8), np.zeros(0, np.int64), used)
    return np.concatenate(xs), np.concatenate(ys), used


_TRAINED: set[str] = set()


# ---------------------------------------------------------------- the network


def _network():
    import torch.nn as nn

    def block(a: int, b: int) -> list:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(),
                nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(3, 12), *block(12, 24), *block(24, 32),
        nn.Flatten(), nn.Dropout(0.3),
        nn.Linear(32 * (CROP_H // 8) * (CROP_W // 8), 64), nn.ReLU(),
        nn.Linear(64, len(CLASSES)),
    )


def _augment(x, gen):
    """Changed light, colour gains, haze, noise and a small shift, per crop."""
    import torch

    n = x.shape[0]
    v = x + 0.5
    v = v * torch.empty(n, 1, 1, 1).uniform_(0.7, 1.3, generator=gen)
    v = v * torch.empty(n, 3, 1, 1).uniform_(0.88, 1.12, generator=gen)
    haze = torch.empty(n, 1, 1, 1).uniform_(0.0, 0.35, generator=gen) * (
        torch.rand(n, 1, 1, 1, generator=gen) < 0.3)
    v = v * (1 - haze) + haze * 1.0
    v = v + torch.randn(v.shape, generator=gen) * torch.empty(n, 1, 1, 1).uniform_(
        0.0, 0.05, generator=gen)
    dx, dy = (int(t) for t in torch.randint(-2, 3, (2,), generator=gen))
    v = torch.roll(v, shifts=(dy, dx), dims=(2, 3))
    return (v.clamp(0.0, 2.0) - 0.5)


def train(x: np.ndarray, y: np.ndarray, *, epochs: int, seed: int, quiet: bool = False):
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    net = _network()
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1.0)) ** 0.5, dtype=torch.float32)
    weights = weights / weights.mean()
    loss_fn = nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xt = torch.from_numpy(x)
    yt = torch.from_numpy(y)
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x), generator=gen)
        total, right, seen = 0.0, 0, 0
        for i in range(0, len(x), 128):
            idx = order[i:i + 128]
            xb = _augment(xt[idx].float() / 127.0 - 0.5, gen)
            yb = yt[idx]
            out = net(xb)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.vision.train_cells",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=1000, help="rendered frames (1000)")
    parser.add_argument("--seed", type=int, default=0, help="first render seed (0)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--real", default="../shared/photos/real",
                        help="labelled real photos (a truth.jsonl beside them); '' for none")
    parser.add_argument("--real-tables", default="blefeuvr",
                        help="the tables whose photos are trained on, comma separated")
    parser.add_argument("--real-repeat", type=int, default=8,
                        help="how many times each real crop is in the training set")
    parser.add_argument("--empty-share", type=float, default=0.4,
                        help="the share of the rendered empty cells trained on (0.4)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", default="", help="an .npz to keep the rendered crops in")
    parser.add_argument("--out", default=str(MODEL))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    t0 = time.time()
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.is_file():
        data = np.load(cache)
        x, y = data["x"], data["y"]
    else:
        x, y = render_set(range(args.seed, args.seed + args.frames), quiet=args.quiet)
        if cache is not None:
            np.savez_compressed(cache, x=x, y=y)
    print(f"renders: {len(y)} crops, per class {np.bincount(y, minlength=len(CLASSES))}, "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    rng = np.random.default_rng(args.seed)
    keep = (y > 0) | (rng.random(len(y)) < args.empty_share)
    x, y = x[keep], y[keep]
    real_x = np.zeros((0, 3, CROP_H, CROP_W), np.uint8)
    real_y = np.zeros(0, np.int64)
    folder = Path(args.real) if args.real else None
    tables = {t for t in args.real_tables.split(",") if t}
    _TRAINED.update(tables)
    if folder is not None and (folder / "truth.jsonl").is_file() and tables:
        real_x, real_y, used = real_set(folder, tables, rng=rng, quiet=args.quiet)
        print(f"real photos trained on: {len(used)} ({', '.join(sorted(tables))}), "
              f"{len(real_y)} crops, robots {int((real_y > 0).sum())}", file=sys.stderr)
    train_x = np.concatenate([x] + [real_x] * args.real_repeat)
    train_y = np.concatenate([y] + [real_y] * args.real_repeat)
    net = train(train_x, train_y, epochs=args.epochs, seed=args.seed, quiet=args.quiet)
    out = Path(args.out)
    export(net, out)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB) after {time.time() - t0:.0f} s",
          file=sys.stderr)
    # measured on what it never saw: fresh render seeds, and the other tables' photos
    fresh_x, fresh_y = render_set(range(10_000_000 + args.seed, 10_000_000 + args.seed + 100),
                                  quiet=True)
    print(f"fresh renders: {measure(out, fresh_x, fresh_y)}", file=sys.stderr)
    if folder is not None and (folder / "truth.jsonl").is_file():
        print(f"real, trained on: {measure(out, real_x, real_y)}", file=sys.stderr)
        ox, oy, used = real_set(folder, None, rng=rng, quiet=True)
        print(f"real, not trained on ({len(used)} photos): {measure(out, ox, oy)}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
