"""``companion bench vision --real DIR --perturb N``: the real photos as other tables and
cameras would show them.

The real photos were worked on while the reader grew, so how it does on them overstates how it
does on a table it has never seen. Here every whole-board photo is read again ``N`` times in
each family of seeded transformations that another camera, table or light gives:

* ``tilt``: the camera turned about its centre (a perspective re-warp, ``K R K⁻¹``) by 15–30°
  more, so an oblique photo reaches about 45°;
* ``small``: the photo scaled down onto a table so the board is a third of the frame wide;
* ``rotate``: turned by any angle, the frame enlarged to hold it;
* ``near_edge``: cropped so the board's frame runs within half a cell of one or two edges;
* ``light``: brightness, contrast, gamma, white balance and a colour cast;
* ``glare``: bright spots over the board, as flash and lamps on gloss give;
* ``blur_jpeg``: out of focus or moved, then a coarse JPEG;
* ``size``: resized to 500 px or to 3000 px across;
* ``edge_out``: one side of the board cut off by 1–3 cells: it must be refused, with the
  message naming that side, and never read with a robot on a wrong cell;
* ``not_board``: pictures with no board (the folder's single-tile photos, bare tables, the
  table round the board cut out of a photo): none may be read as a board.

The table added round a shrunken or turned photo is, by seed, its own table's colour and grain
(the median of the photo's border), wood, white, dark or glossy with highlights. Robots are
named by cell, which a re-warp keeps (judged up to a quarter turn, as the real bench does).
The crops of ``near_edge`` and ``edge_out`` are placed from where the reader finds the board on
the untouched photo (a photo whose board it does not find there is left out of those two).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..vision.locate import GRID, VisionError
from ..vision.read import DEFAULT_CELLS, default_cells
from .vision_real import PhotoResult, Truth, TruthError, load_truth, read_image

FAMILIES = ("tilt", "small", "rotate", "near_edge", "light", "glare", "blur_jpeg", "size",
            "edge_out", "not_board")
FILLS = ("table", "wood", "white", "dark", "glossy")
WORK = 1600  # photos are brought to at most this many pixels across before transforming
SIDES = ("top", "right", "bottom", "left")


@dataclass(frozen=True)
class Shot:
    """One transformed picture: its family, what was done, and the side of the board that
    is out of the picture (``edge_out``), or ``None``."""

    image: np.ndarray
    family: str
    detail: str
    out_edge: str | None = None


def fill(shape: tuple[int, int], kind: str, rng: np.random.Generator,
         photo: np.ndarray | None = None) -> np.ndarray:
    """A table of ``kind`` (see :data:`FILLS`), ``shape`` = (h, w), BGR uint8."""
    h, w = shape
    low = cv2.resize(rng.normal(0, 1, (max(2, h // 64), max(2, w // 64), 1)).astype(np.float32),
                     (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    grain = rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    if kind == "table" and photo is not None:
        ring = np.concatenate([photo[:8].reshape(-1, 3), photo[-8:].reshape(-1, 3),
                               photo[:, :8].reshape(-1, 3), photo[:, -8:].reshape(-1, 3)])
        base = np.median(ring, axis=0).astype(np.float32)
        out = base + 8 * low + grain
    elif kind == "wood":
        y = np.arange(h, dtype=np.float32)[:, None, None]
        x = np.arange(w, dtype=np.float32)[None, :, None]
        rings = np.sin(y / rng.uniform(5, 12) + 3 * low + 0.002 * x)
        base = np.array(rng.choice([[60, 100, 150], [40, 70, 110], [110, 160, 200]]),
                        dtype=np.float32)
        out = base + 18 * rings + 6 * low + grain
    elif kind == "white":
        out = np.full((h, w, 3), rng.uniform(215, 245), np.float32) + 4 * low + grain
    elif kind == "dark":
        out = np.full((h, w, 3), rng.uniform(20, 50), np.float32) + 4 * low + grain
    else:  # glossy: a pale table with broad highlights
        out = np.full((h, w, 3), rng.uniform(170, 215), np.float32) + 6 * low + grain
        out = _spots(out, rng, 2, 0.08, 0.25, (w // 2, h // 2, max(w, h)))
    return np.clip(out, 0, 255).astype(np.uint8)


def _spots(img: np.ndarray, rng: np.random.Generator, n: int, lo: float, hi: float,
           around: tuple[int, int, int]) -> np.ndarray:
    """``img`` (float) with ``n`` bright elliptical spots of radius ``lo``–``hi`` of the
    picture's size, centred within ``around`` = (x, y, spread) of a point."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy, spread = around
    for _ in range(n):
        x0 = cx + rng.uniform(-0.5, 0.5) * spread
        y0 = cy + rng.uniform(-0.5, 0.5) * spread
        r = rng.uniform(lo, hi) * min(h, w)
        a, ratio = rng.uniform(0, np.pi), rng.uniform(1, 2.5)
        dx, dy = xx - x0, yy - y0
        u = (dx * np.cos(a) + dy * np.sin(a)) / (r * ratio)
        v = (-dx * np.sin(a) + dy * np.cos(a)) / r
        out += rng.uniform(150, 280) * np.exp(-(u * u + v * v) * 2.0)[..., None]
    return out


def _compose(photo: np.ndarray, H: np.ndarray, size: tuple[int, int], kind: str,
             rng: np.random.Generator) -> np.ndarray:
    """``photo`` carried by ``H`` onto a ``size`` = (w, h) table of ``kind``, its edge
    feathered so that no hard seam outlines it."""
    w, h = size
    warped = cv2.warpPerspective(photo, H, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full(photo.shape[:2], 255, np.uint8), H, (w, h))
    k = max(3, (min(w, h) // 60) | 1)
    alpha = cv2.GaussianBlur(cv2.erode(mask, np.ones((k, k), np.uint8)), (2 * k + 1, 2 * k + 1),
                             0).astype(np.float32)[..., None] / 255.0
    table = fill((h, w), kind, rng, photo)
    return (alpha * warped + (1 - alpha) * table).astype(np.uint8)


def _fit(H: np.ndarray, src: tuple[int, int], size: tuple[int, int],
         margin: float = 0.02) -> np.ndarray:
    """``H`` followed by the scaling and shift that put all of a ``src`` = (w, h) picture
    inside ``size`` = (w, h), centred, with ``margin`` of the frame to spare."""
    w, h = src
    pts = cv2.perspectiveTransform(
        np.array([[[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]], np.float64), H)[0]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    s = min(size[0] * (1 - 2 * margin) / (hi[0] - lo[0]),
            size[1] * (1 - 2 * margin) / (hi[1] - lo[1]))
    c = (lo + hi) / 2
    A = np.array([[s, 0, size[0] / 2 - s * c[0]], [0, s, size[1] / 2 - s * c[1]], [0, 0, 1]])
    return A @ H


def _board_extent(corners: np.ndarray) -> tuple[dict[str, float], float]:
    """The board's extent on the picture as the inner bound of each side (``top``: the
    lowest y of the two corners that make the top side, …) and a cell's size in pixels."""
    c = np.asarray(corners, np.float64)
    cell = float(np.sqrt(cv2.contourArea(c.astype(np.float32)))) / GRID
    ys, xs = [float(v) for v in np.sort(c[:, 1])], [float(v) for v in np.sort(c[:, 0])]
    return {"top": ys[1], "bottom": ys[2], "left": xs[1], "right": xs[2],
            "top_out": ys[0], "bottom_out": ys[3], "left_out": xs[0], "right_out": xs[3]}, cell


def _crop(photo: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    h, w = photo.shape[:2]
    x0, y0 = min(w, max(0, int(round(x0)))), min(h, max(0, int(round(y0))))
    x1, y1 = min(w, max(x0, int(round(x1)))), min(h, max(y0, int(round(y1))))
    return np.ascontiguousarray(photo[y0:y1, x0:x1])


def perturb(photo: np.ndarray, corners: np.ndarray | None, family: str,
            rng: np.random.Generator) -> Shot | None:
    """One picture of ``family`` made from ``photo`` (BGR; the reader's board corners on it,
    or ``None``); ``None`` where the family needs corners and there are none."""
    h, w = photo.shape[:2]
    kind = str(rng.choice(FILLS))
    if family == "tilt":
        f = 0.9 * max(w, h)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        ax, ay = rng.uniform(15, 30) * rng.choice([-1, 1]), rng.uniform(-8, 8)
        R, _ = cv2.Rodrigues(np.radians([ax, ay, 0.0]))
        H = _fit(K @ R @ np.linalg.inv(K), (w, h), (w, h))
        return Shot(_compose(photo, H, (w, h), kind, rng), family,
                    f"{ax:+.0f}° {ay:+.0f}° on {kind}")
    if family == "small":
        size = (1280, 960)
        if corners is not None:
            span = float(np.ptp(np.asarray(corners)[:, 0]))
        else:
            span = 0.85 * w
        s = rng.uniform(0.33, 0.45) * size[0] / span
        H = np.diag([s, s, 1.0])
        free = np.array(size) - s * np.array([w, h])
        H[:2, 2] = rng.uniform(0.1, 0.9, 2) * free
        return Shot(_compose(photo, H, size, kind, rng), family, f"×{s:.2f} on {kind}")
    if family == "rotate":
        a = rng.uniform(5, 355)
        R = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), a, 1.0), [0, 0, 1]])
        H = _fit(R, (w, h), (w, h), 0.0)
        return Shot(_compose(photo, H, (w, h), kind, rng), family, f"{a:.0f}° on {kind}")
    if family == "light":
        img = photo.astype(np.float32) / 255.0
        gamma, gain = rng.uniform(0.6, 1.6), rng.uniform(0.55, 1.35)
        wb = rng.uniform(0.75, 1.25, 3).astype(np.float32)
        contrast = rng.uniform(0.6, 1.3)
        img = np.power(np.clip(img, 0, 1), gamma) * gain * wb
        img = (img - img.mean()) * contrast + img.mean()
        return Shot(np.clip(img * 255, 0, 255).astype(np.uint8), family,
                    f"γ {gamma:.2f} ×{gain:.2f} contrast {contrast:.2f} "
                    f"wb {'/'.join(f'{g:.2f}' for g in wb)}")
    if family == "glare":
        c = np.asarray(corners).mean(axis=0) if corners is not None else (w / 2, h / 2)
        spread = float(np.ptp(np.asarray(corners)[:, 0])) if corners is not None else w / 2
        n = int(rng.integers(1, 4))
        img = _spots(photo.astype(np.float32), rng, n, 0.03, 0.10,
                     (int(c[0]), int(c[1]), int(0.8 * spread)))
        return Shot(np.clip(img, 0, 255).astype(np.uint8), family, f"{n} spots")
    if family == "blur_jpeg":
        if rng.random() < 0.5:
            sigma = rng.uniform(1.0, 2.5) * max(w, h) / 1280
            soft = cv2.GaussianBlur(photo, (0, 0), sigma)
            what = f"blur σ {sigma:.1f}"
        else:
            n = int(rng.integers(5, 12)) * max(1, round(max(w, h) / 1280))
            kernel = np.zeros((n, n), np.float32)
            kernel[n // 2] = 1.0 / n
            M = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
            kernel = cv2.warpAffine(kernel, M, (n, n))
            soft = cv2.filter2D(photo, -1, kernel / max(kernel.sum(), 1e-6))
            what = f"moved {n} px"
        q = int(rng.integers(15, 45))
        _, buf = cv2.imencode(".jpg", soft, [cv2.IMWRITE_JPEG_QUALITY, q])
        return Shot(np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR)), family, f"{what}, JPEG {q}")
    if family == "size":
        across = 500 if rng.random() < 0.5 else 3000
        s = across / max(w, h)
        sized = cv2.resize(photo, (round(w * s), round(h * s)),
                           interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
        return Shot(sized, family, f"{across} px across")
    if corners is None:
        return None
    ext, cell = _board_extent(corners)
    side = SIDES[int(rng.integers(4))]
    box = [0.0, 0.0, float(w), float(h)]  # x0, y0, x1, y1
    index = {"left": 0, "top": 1, "right": 2, "bottom": 3}
    sign = {"left": 1, "top": 1, "right": -1, "bottom": -1}
    if family == "near_edge":
        sides = [side] + ([SIDES[(SIDES.index(side) + 1) % 4]] if rng.random() < 0.5 else [])
        for s_ in sides:
            gap = float(rng.uniform(0.1, 0.5)) * cell
            box[index[s_]] = ext[f"{s_}_out"] - sign[s_] * gap
        return Shot(_crop(photo, *box), family,
                    "board within half a cell of the " + " and ".join(sides))
    if family == "edge_out":
        depth = float(rng.uniform(1.0, 3.0)) * cell
        box[index[side]] = ext[side] + sign[side] * depth
        return Shot(_crop(photo, *box), family,
                    f"{depth / cell:.1f} cells cut off the {side}", out_edge=side)
    raise ValueError(f"family: {family!r} is not one of {', '.join(FAMILIES)}")


def _work(image: np.ndarray) -> np.ndarray:
    s = WORK / max(image.shape[:2])
    if s >= 1:
        return image
    return cv2.resize(image, (round(image.shape[1] * s), round(image.shape[0] * s)),
                      interpolation=cv2.INTER_AREA)


@dataclass
class Row:
    """One transformed picture's result: the reading judged, and what was done to it."""

    family: str
    detail: str
    res: PhotoResult
    out_edge: str | None = None

    @property
    def edge_named(self) -> bool:
        return self.out_edge is not None and not self.res.found and \
            f"{self.out_edge} edge" in self.res.reason


def not_boards(folder: Path, photos: list[tuple[Truth, np.ndarray, Any]], n: int,
               seed: int) -> list[tuple[str, np.ndarray]]:
    """Pictures with no board: the folder's single-tile photos, bare tables of every kind,
    and the table beside the board cut out of the photos (where wide enough)."""
    out = []
    for path in sorted(folder.iterdir()):
        if "tile" in path.name and path.suffix.lower() in (".jpg", ".jpeg", ".png"):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                out.append((path.name, _work(image)))
    for i in range(n):
        for j, kind in enumerate(FILLS):
            rng = np.random.default_rng([seed, 99, i, j])
            out.append((f"bare {kind} table #{i}", fill((960, 1280), kind, rng)))
    for truth, image, corners in photos[:4 * n]:
        if corners is None:
            continue
        ext, cell = _board_extent(corners)
        h, w = image.shape[:2]
        strips = {"left": (0, 0, ext["left_out"] - cell, h),
                  "right": (ext["right_out"] + cell, 0, w, h),
                  "top": (0, 0, w, ext["top_out"] - cell),
                  "bottom": (0, ext["bottom_out"] + cell, w, h)}
        for side, box in strips.items():
            strip = _crop(image, *box)
            if min(strip.shape[:2]) >= 160:
                out.append((f"{truth.file} beside the board ({side})", strip))
    return out


def run_perturbed(folder: str, n: int, seed: int, tuned: list[str], out: str,
                  cells: Any = DEFAULT_CELLS, limit: int | None = None,
                  families: tuple[str, ...] = FAMILIES) -> int:
    """Read every whole-board photo of ``folder`` ``n`` times in each family; print a line
    per picture and a table per family (see the module docstring)."""
    from . import write_report

    if cells is DEFAULT_CELLS:
        cells = default_cells()
    root = Path(folder)
    try:
        truths = [t for t in load_truth(root) if t.kind == "whole"]
    except TruthError as e:
        print(f"error: {e}")
        return 2
    truths = truths[:limit] if limit is not None else truths
    rows: list[Row] = []
    photos = []
    for t in truths:
        image = cv2.imread(str(root / t.file), cv2.IMREAD_COLOR)
        if image is None:
            print(f"error: --real: {root / t.file} is not a picture OpenCV can decode")
            return 2
        image = _work(image)
        res, obs = read_image(image, t, cells)
        corners = None if isinstance(obs, VisionError) or obs.occluded else \
            np.asarray(obs.corners, np.float64)
        photos.append((t, image, corners))
        rows.append(Row("none", "as taken", res))
        _print(rows[-1])
    for p, (t, image, corners) in enumerate(photos):
        for f, family in enumerate(families):
            if family in ("none", "not_board"):
                continue
            for i in range(n):
                shot = perturb(image, corners, family, np.random.default_rng([seed, p, f, i]))
                if shot is None:
                    continue
                res, _ = read_image(shot.image, t, cells)
                rows.append(Row(family, shot.detail, res, shot.out_edge))
                _print(rows[-1])
    if "not_board" in families:
        nobody = Truth("-", {"red": "a1"}, "whole")
        for name, image in not_boards(root, photos, n, seed):
            res, _ = read_image(image, nobody, cells)
            res.file, res.table = name, "-"
            rows.append(Row("not_board", "no board", res))
            _print(rows[-1])
    groups = {"all tables": rows}
    if tuned:
        groups["tables tuned on (" + ", ".join(tuned) + ")"] = [
            r for r in rows if r.res.table in tuned]
        groups["tables not tuned on"] = [r for r in rows if r.res.table not in tuned
                                         and r.family != "not_board"]
    report: dict[str, Any] = {"benchmark": "vision-perturb", "folder": str(root), "n": n,
                              "seed": seed, "tuned_on": tuned, "summaries": {}}
    for label, rs in groups.items():
        print()
        print(f"{label}:")
        print(HEADER)
        table = {fam: tally([r for r in rs if r.family == fam])
                 for fam in ("none",) + tuple(families) if any(r.family == fam for r in rs)}
        for fam, s in table.items():
            print(_table_line(fam, s))
        report["summaries"][label] = table
    report["rows"] = [{"family": r.family, "detail": r.detail, "file": r.res.file,
                       "found": r.res.found, "right": r.res.right, "wrong": r.res.wrong,
                       "unseen": r.res.unseen, "reason": r.res.reason, "ms": r.res.ms}
                      for r in rows]
    return write_report(out, report)


HEADER = (f"{'family':10s} {'pics':>5s} {'found':>6s} {'wholly':>7s} {'robots':>8s} "
          f"{'WRONG':>6s} {'unseen':>7s} {'refused':>8s} {'edge ok':>8s}  refusals")


def tally(rows: list[Row]) -> dict[str, Any]:
    """The figures of one family: pictures, boards found, wholly right, robots right / on a
    wrong cell / not seen, refusals (by message), edges named right where one was cut off."""
    reasons = Counter(r.res.reason.split(" (")[0] for r in rows if not r.res.found)
    return {
        "pictures": len(rows),
        "found": sum(r.res.found for r in rows),
        "wholly_right": sum(r.res.wholly_right for r in rows),
        "robots": sum(r.res.total for r in rows),
        "robots_right": sum(r.res.right for r in rows),
        "robots_wrong_cell": sum(r.res.wrong for r in rows),
        "robots_not_seen": sum(r.res.unseen for r in rows),
        "robots_invented": sum(r.res.invented for r in rows),
        "occluded": sum(r.res.occluded for r in rows),
        "refused": sum(not r.res.found for r in rows),
        "edge_named": sum(r.edge_named for r in rows),
        "refusals": dict(reasons.most_common()),
        "ms_median": float(np.median([r.res.ms for r in rows])) if rows else float("nan"),
    }


def _table_line(family: str, s: dict[str, Any]) -> str:
    edge = f"{s['edge_named']}/{s['pictures']}" if family == "edge_out" else "-"
    robots = "-" if family == "not_board" else f"{s['robots_right']}/{s['robots']}"
    reasons = "; ".join(f"{k} ×{v}" for k, v in s["refusals"].items())
    return (f"{family:10s} {s['pictures']:5d} {s['found']:6d} {s['wholly_right']:7d} "
            f"{robots:>8s} {s['robots_wrong_cell']:6d} {s['robots_not_seen']:7d} "
            f"{s['refused']:8d} {edge:>8s}  {reasons}")


def _print(row: Row) -> None:
    r = row.res
    if not r.found:
        what = f"refused: {r.reason}"
    elif r.occluded:
        what = r.reason
    elif row.family == "not_board":
        what = "READ AS A BOARD"
    else:
        what = (f"robots {r.right}/{r.total} right, {r.wrong} WRONG CELL, {r.unseen} not seen"
                + (f" ({'; '.join(r.details)})" if r.details else ""))
    print(f"{row.family:10s} {r.file[:34]:34s} {row.detail[:34]:34s} {r.ms:6.0f} ms  {what}",
          flush=True)
