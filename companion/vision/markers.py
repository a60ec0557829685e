"""Printable calibration sheets: the four ArUco corner markers, and the lens chessboard.

The markers let the companion find the board instantly and exactly, even when hands and robots
hide its edges. Print the sheet at 100 % (the 100 mm bar must measure 100 mm), cut the four
squares along the dashed lines and lay them on the table just outside the board's corners:

* marker **0** at the **north-west** corner, **1** north-east, **2** south-east, **3**
  south-west (north is the board edge at the top of the companion's page);
* each square upright, its small ``N`` towards the board's north edge;
* its inner corner (marked with a small angle) touching the corner of the board's dark frame.

So in board-plane cells (see :mod:`companion.vision.render`) marker ``k``'s black square has
the corners given by :func:`companion.vision.render.marker_layout`, and its detected corner
order (ArUco's top-left, top-right, bottom-right, bottom-left of the printed marker) is
:data:`INNER_CORNER`-indexed towards the board. Dictionary: ``DICT_4X4_50``.

Both sheets are written as SVG and PDF at real size, vector only, with no dependencies beyond
OpenCV (for the marker bit patterns).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .render import CELL_MM, MARKER_IDS, MARKER_PAPER_MM, MARKER_SIDE_MM

ARUCO_DICT = cv2.aruco.DICT_4X4_50
CORNER_NAMES = {v: k for k, v in MARKER_IDS.items()}  # 0 → "north-west", …
INNER_CORNER = {0: 2, 1: 3, 2: 0, 3: 1}
"""For each marker id, which of its four detected corners touches the board (0 TL, 1 TR,
2 BR, 3 BL as ArUco returns them)."""

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
CHESSBOARD_SQUARES = (7, 10)  # columns, rows of squares on the lens sheet
CHESSBOARD_SQUARE_MM = 24.0
CHESSBOARD_PATTERN = (CHESSBOARD_SQUARES[0] - 1, CHESSBOARD_SQUARES[1] - 1)
"""Inner corners (columns, rows) that ``cv2.findChessboardCorners`` looks for."""

_PT_PER_MM = 72 / 25.4


# ---------------------------------------------------------------- a tiny vector drawing


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str = "#000000"


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float = 0.3
    color: str = "#000000"
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # the baseline
    size: float  # in mm (cap height is about 0.7 of it)
    text: str
    anchor: str = "start"  # start | middle
    color: str = "#000000"
    bold: bool = False


Shape = Rect | Line | Text


@dataclass
class Sheet:
    """A page of vector shapes in millimetres, origin at the top-left, y downwards."""

    width: float
    height: float
    title: str
    shapes: list[Shape]

    # -- SVG
    def to_svg(self) -> str:
        w, h = self.width, self.height
        out = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" '
            f'viewBox="0 0 {w:g} {h:g}">',
            f"<title>{_xml(self.title)}</title>",
            f'<rect x="0" y="0" width="{w:g}" height="{h:g}" fill="#ffffff"/>',
        ]
        for s in self.shapes:
            if isinstance(s, Rect):
                out.append(f'<rect x="{s.x:.3f}" y="{s.y:.3f}" width="{s.w:.3f}" '
                           f'height="{s.h:.3f}" fill="{s.fill}" shape-rendering="crispEdges"/>')
            elif isinstance(s, Line):
                dash = (f' stroke-dasharray="{" ".join(f"{d:g}" for d in s.dash)}"'
                        if s.dash else "")
                out.append(f'<line x1="{s.x1:.3f}" y1="{s.y1:.3f}" x2="{s.x2:.3f}" '
                           f'y2="{s.y2:.3f}" stroke="{s.color}" stroke-width="{s.width:g}"'
                           f'{dash}/>')
            else:
                weight = ' font-weight="bold"' if s.bold else ""
                out.append(f'<text x="{s.x:.3f}" y="{s.y:.3f}" font-family="Helvetica, Arial, '
                           f'sans-serif" font-size="{s.size:g}" fill="{s.color}" '
                           f'text-anchor="{s.anchor}"{weight}>{_xml(s.text)}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    # -- PDF
    def to_pdf(self) -> bytes:
        """One page at real size, PDF 1.4, Helvetica, content stream compressed."""
        k = _PT_PER_MM
        H = self.height
        ops: list[str] = []
        for s in self.shapes:
            if isinstance(s, Rect):
                ops.append(f"{_rgb(s.fill)} rg {s.x * k:.3f} {(H - s.y - s.h) * k:.3f} "
                           f"{s.w * k:.3f} {s.h * k:.3f} re f")
            elif isinstance(s, Line):
                dash = " ".join(f"{d * k:.2f}" for d in s.dash)
                ops.append(f"{_rgb(s.color)} RG {s.width * k:.3f} w [{dash}] 0 d "
                           f"{s.x1 * k:.3f} {(H - s.y1) * k:.3f} m "
                           f"{s.x2 * k:.3f} {(H - s.y2) * k:.3f} l S")
            else:
                size = s.size * k
                x = s.x * k
                if s.anchor == "middle":
                    x -= _text_width(s.text, size, s.bold) / 2
                font = "/F2" if s.bold else "/F1"
                ops.append(f"BT {_rgb(s.color)} rg {font} {size:.2f} Tf {x:.3f} "
                           f"{(H - s.y) * k:.3f} Td ({_pdf_text(s.text)}) Tj ET")
        content = zlib.compress("\n".join(ops).encode("latin-1"))
        objs = [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {self.width * k:.2f} "
             f"{self.height * k:.2f}] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> "
             "/Contents 4 0 R >>").encode(),
            f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
            + content + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
            b"/Encoding /WinAnsiEncoding >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
            b"/Encoding /WinAnsiEncoding >>",
            f"<< /Title ({_pdf_text(self.title)}) /Producer (companion) >>".encode(),
        ]
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for i, body in enumerate(objs, start=1):
            offsets.append(len(out))
            out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
        xref = len(out)
        out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
        for off in offsets:
            out += f"{off:010d} 00000 n \n".encode()
        out += (f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info {len(objs)} 0 R >>\n"
                f"startxref\n{xref}\n%%EOF\n").encode()
        return bytes(out)

    def rasterize(self, px_per_mm: float = 4.0) -> np.ndarray:
        """The sheet's filled rectangles as a grey picture (what a printer would put on paper,
        text and dashed lines left out): lets the tests detect the printed markers."""
        img = np.full((int(round(self.height * px_per_mm)), int(round(self.width * px_per_mm))),
                      255, np.uint8)
        for s in self.shapes:
            if isinstance(s, Rect):
                x0, y0 = int(round(s.x * px_per_mm)), int(round(s.y * px_per_mm))
                x1 = int(round((s.x + s.w) * px_per_mm))
                y1 = int(round((s.y + s.h) * px_per_mm))
                img[y0:y1, x0:x1] = int(np.mean(_rgb_tuple(s.fill)) * 255)
        return img


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _pdf_text(text: str) -> str:
    text.encode("latin-1")  # the sheets use plain text only; fail loudly otherwise
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _rgb_tuple(color: str) -> tuple[float, float, float]:
    c = color.lstrip("#")
    return tuple(int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def _rgb(color: str) -> str:
    return " ".join(f"{v:.3f}" for v in _rgb_tuple(color))


def _text_width(text: str, size_pt: float, bold: bool) -> float:
    """Approximate Helvetica advance width (for centring; exactness is not needed)."""
    narrow = set("iljtfI.,:;!|' ()[]")
    wide = set("mwMW@")
    em = sum(0.28 if ch in narrow else 0.83 if ch in wide else 0.56 for ch in text)
    return em * size_pt * (1.05 if bold else 1.0)


def _wrap(text: str, width_mm: float, size_mm: float) -> list[str]:
    per_line = max(10, int(width_mm / (size_mm * 0.5)))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return lines


def _paragraphs(x: float, y: float, width: float, size: float, paras: Iterable[str]
                ) -> tuple[list[Shape], float]:
    shapes: list[Shape] = []
    for para in paras:
        for ln in _wrap(para, width, size):
            shapes.append(Text(x, y, size, ln))
            y += size * 1.35
        y += size * 0.5
    return shapes, y


def _scale_bar(x: float, y: float) -> list[Shape]:
    """A 100 mm bar to check the print was not scaled."""
    shapes: list[Shape] = [Rect(x, y, 100, 1.2)]
    for k in range(0, 101, 10):
        shapes.append(Rect(x + k - 0.2, y - (2.5 if k % 50 == 0 else 1.5), 0.4,
                           2.5 if k % 50 == 0 else 1.5))
    shapes.append(Text(x, y + 6.5, 3.2, "100 mm: measure this bar; if it is not 100 mm, "
                                         "print again at 100 % (no fit-to-page)"))
    return shapes


# ---------------------------------------------------------------- the marker sheet


def marker_bits(marker_id: int) -> np.ndarray:
    """The marker's 6×6 cells (black border included): True where the print is black."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * 10)
    return img[5::10, 5::10] < 128


def marker_sheet(paper: str = "a4") -> Sheet:
    """The four corner markers with cut lines, orientation marks and instructions."""
    if paper not in PAPERS:
        raise ValueError(f"paper: {paper!r} is not one of {', '.join(PAPERS)}")
    W, H = PAPERS[paper]
    P, S = MARKER_PAPER_MM, MARKER_SIDE_MM
    q = (P - S) / 2
    shapes: list[Shape] = [
        Text(W / 2, 18, 6.5, "Ricochet Companion - board corner markers", "middle", bold=True),
        Text(W / 2, 25, 3.6, "ArUco DICT_4X4_50, ids 0-3, markers 40 mm on 60 mm squares",
             "middle", "#444444"),
    ]
    gap = 22.0
    x0 = (W - 2 * P - gap) / 2
    y0 = 36.0
    # laid out as they lie around the board: 0 NW, 1 NE / 3 SW, 2 SE
    slots = {0: (0, 0), 1: (1, 0), 3: (0, 1), 2: (1, 1)}
    for mid, (col, row) in slots.items():
        px, py = x0 + col * (P + gap), y0 + row * (P + gap + 8)
        dash = (2.0, 1.5)
        grey = "#777777"
        for (a, b, c, d) in ((px, py, px + P, py), (px + P, py, px + P, py + P),
                             (px + P, py + P, px, py + P), (px, py + P, px, py)):
            shapes.append(Line(a, b, c, d, 0.25, grey, dash))
        bits = marker_bits(mid)
        cell = S / 6
        for r in range(6):
            for c in range(6):
                if bits[r, c]:
                    shapes.append(Rect(px + q + c * cell, py + q + r * cell, cell + 0.01,
                                       cell + 0.01))
        # orientation: a light "N" in the top margin, and the corner that touches the board
        shapes.append(Text(px + P / 2, py + q * 0.72, 3.4, "N", "middle", "#9a9a9a", True))
        inner = {0: (P, P, -1, -1), 1: (0, P, 1, -1), 2: (0, 0, 1, 1), 3: (P, 0, -1, 1)}[mid]
        ix, iy, sx, sy = inner
        arm = 4.0
        shapes.append(Line(px + ix + sx * 1.2, py + iy + sy * 1.2,
                           px + ix + sx * (1.2 + arm), py + iy + sy * 1.2, 0.35, "#9a9a9a"))
        shapes.append(Line(px + ix + sx * 1.2, py + iy + sy * 1.2,
                           px + ix + sx * 1.2, py + iy + sy * (1.2 + arm), 0.35, "#9a9a9a"))
        shapes.append(Text(px + P / 2, py + P + 5.5, 3.6,
                           f"{mid}: {CORNER_NAMES[mid]} corner", "middle", bold=True))
    y = y0 + 2 * (P + gap + 8) + 2
    steps = [
        "How to use: print at 100 % (actual size). Check the 100 mm bar below. Cut the four "
        "squares along the dashed lines; keep the white margin around each marker.",
        "Lay each square flat on the table just outside the board's corner of the same name "
        "(north is the board edge at the top of the companion's page): 0 north-west, "
        "1 north-east, 2 south-east, 3 south-west.",
        "Turn each square so its grey N points to the board's north edge, and push it until "
        "the corner marked with the small grey angle touches the corner of the board's dark "
        "frame. Tape them down if the table is busy.",
        "The camera must see all four markers. Run the companion: it finds the board from the "
        "markers and checks them against the board's own grid lines; if a marker is covered, "
        "it falls back to the board itself.",
    ]
    para, y = _paragraphs(18, y, W - 36, 3.6, steps)
    shapes += para
    shapes += _scale_bar(18, min(y + 6, H - 20))
    shapes.append(Text(W / 2, H - 6, 2.8, f"cell size assumed {CELL_MM:g} mm; generated by "
                                          "`companion calibration markers`", "middle", "#666666"))
    return Sheet(W, H, "Ricochet Companion corner markers", shapes)


# ---------------------------------------------------------------- the chessboard sheet


def chessboard_sheet(paper: str = "a4") -> Sheet:
    """A chessboard for lens calibration (``companion calibration camera``)."""
    if paper not in PAPERS:
        raise ValueError(f"paper: {paper!r} is not one of {', '.join(PAPERS)}")
    W, H = PAPERS[paper]
    cols, rows = CHESSBOARD_SQUARES
    s = CHESSBOARD_SQUARE_MM
    x0 = (W - cols * s) / 2
    y0 = 30.0
    shapes: list[Shape] = [
        Text(W / 2, 13, 5.5, "Ricochet Companion - lens calibration chessboard", "middle",
             bold=True),
        Text(W / 2, 19.5, 3.2, f"{cols} x {rows} squares of {s:g} mm "
                               f"({CHESSBOARD_PATTERN[0]} x {CHESSBOARD_PATTERN[1]} inner "
                               "corners). Print at 100 %, glue flat on card.", "middle",
             "#444444"),
        Text(W / 2, 25, 3.2, "Photograph it 10-20 times with the table camera: tilted, near "
                             "the corners, at different distances.", "middle", "#444444"),
    ]
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                shapes.append(Rect(x0 + c * s, y0 + r * s, s, s))
    shapes += _scale_bar(18, y0 + rows * s + 9)
    shapes.append(Text(W / 2, H - 6, 2.8, "then: companion calibration camera PHOTOS... "
                                          "--out calibration/lens.json", "middle", "#666666"))
    return Sheet(W, H, "Ricochet Companion lens chessboard", shapes)


def write_sheet(sheet: Sheet, out_dir: str | Path, stem: str) -> list[Path]:
    """Write ``stem.svg`` and ``stem.pdf`` into ``out_dir`` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    svg, pdf = out / f"{stem}.svg", out / f"{stem}.pdf"
    svg.write_text(sheet.to_svg(), encoding="utf-8")
    pdf.write_bytes(sheet.to_pdf())
    return [svg, pdf]


def write_marker_sheets(out_dir: str | Path, paper: str = "a4") -> list[Path]:
    return write_sheet(marker_sheet(paper), out_dir, f"markers-{paper}")


def write_chessboard_sheets(out_dir: str | Path, paper: str = "a4") -> list[Path]:
    return write_sheet(chessboard_sheet(paper), out_dir, f"chessboard-{paper}")


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The corner markers seen in a picture: id → 4×2 corners (TL, TR, BR, BL as printed).
    Only ids 0–3 are kept; anything else on the table is ignored."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary, params)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(grey)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, i in zip(corners, ids.ravel(), strict=True):
        if 0 <= int(i) <= 3:
            out[int(i)] = c.reshape(4, 2).astype(np.float64)
    return out


__all__ = [
    "ARUCO_DICT", "CHESSBOARD_PATTERN", "CHESSBOARD_SQUARE_MM", "CORNER_NAMES", "INNER_CORNER",
    "PAPERS", "Line", "Rect", "Sheet", "Text", "chessboard_sheet", "detect_markers", "marker_bits",
    "marker_sheet",
    "write_chessboard_sheets", "write_marker_sheets", "write_sheet",
]
