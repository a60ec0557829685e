"""The printable sheets: real size, detectable markers with the right ids in the right places,
a valid PDF, and the committed copies up to date."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import Board
from companion.cli import main
from companion.vision.markers import (
    CHESSBOARD_PATTERN,
    CORNER_NAMES,
    INNER_CORNER,
    Rect,
    Sheet,
    chessboard_sheet,
    detect_markers,
    marker_bits,
    marker_sheet,
)
from companion.vision.render import BORDER, MARKER_IDS, marker_layout

REPO = Path(__file__).resolve().parents[1]
PX_PER_MM = 4.0


def test_marker_sheet_is_a4_at_real_size_with_ids_0_to_3_where_they_lie_on_the_table():
    sheet = marker_sheet("a4")
    root = ET.fromstring(sheet.to_svg())
    assert root.get("width") == "210mm" and root.get("height") == "297mm"
    found = detect_markers(sheet.rasterize(PX_PER_MM))
    assert sorted(found) == [0, 1, 2, 3]
    centres = {k: c.mean(axis=0) for k, c in found.items()}
    # laid out as around the board: 0 north-west, 1 north-east, 3 south-west, 2 south-east
    assert centres[0][0] < centres[1][0] and centres[3][0] < centres[2][0]
    assert centres[0][1] < centres[3][1] and centres[1][1] < centres[2][1]
    for c in found.values():
        side_mm = np.linalg.norm(c[1] - c[0]) / PX_PER_MM
        assert side_mm == pytest.approx(40.0, abs=0.5)
        # printed upright: the top edge is horizontal
        assert abs(c[1][1] - c[0][1]) < 1.0 and c[1][0] > c[0][0]
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    for name in ("north-west", "north-east", "south-east", "south-west", "100 mm"):
        assert name in text


def test_letter_paper_and_bad_paper():
    root = ET.fromstring(marker_sheet("letter").to_svg())
    assert root.get("width") == "215.9mm"
    assert sorted(detect_markers(marker_sheet("letter").rasterize(PX_PER_MM))) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="paper: 'a3'"):
        marker_sheet("a3")


def parse_pdf(data: bytes) -> tuple[dict[int, bytes], str]:
    """Objects by number (checked against the xref table) and the decompressed page content."""
    assert data.startswith(b"%PDF-1.4")
    xref_at = int(re.search(rb"startxref\n(\d+)\n%%EOF", data).group(1))
    assert data[xref_at:xref_at + 4] == b"xref"
    lines = data[xref_at:].split(b"\n")
    count = int(lines[1].split()[1])
    objects = {}
    for i in range(1, count):
        offset = int(lines[2 + i].split()[0])
        assert data[offset:].startswith(f"{i} 0 obj".encode()), i
        end = data.index(b"endobj", offset)
        objects[i] = data[offset:end]
    stream = next(o for o in objects.values() if b"/FlateDecode" in o)
    body = stream[stream.index(b"stream\n") + 7:stream.rindex(b"\nendstream")]
    return objects, zlib.decompress(body).decode("latin-1")


def raster_from_pdf(content: str, width_pt: float, height_pt: float, px_per_pt: float
                    ) -> np.ndarray:
    img = np.full((int(height_pt * px_per_pt), int(width_pt * px_per_pt)), 255, np.uint8)
    for m in re.finditer(r"([\d.]+) ([\d.]+) ([\d.]+) rg ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) "
                         r"re f", content):
        r, g, b, x, y, w, h = (float(v) for v in m.groups())
        x0, x1 = int(round(x * px_per_pt)), int(round((x + w) * px_per_pt))
        y0 = int(round((height_pt - y - h) * px_per_pt))
        y1 = int(round((height_pt - y) * px_per_pt))
        img[y0:y1, x0:x1] = int((r + g + b) / 3 * 255)
    return img


def test_marker_pdf_is_valid_a4_and_its_markers_detect():
    sheet = marker_sheet("a4")
    objects, content = parse_pdf(sheet.to_pdf())
    page = next(o for o in objects.values() if b"/Type /Page " in o)
    box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", page).group(1).split()]
    assert box[2] == pytest.approx(595.28, abs=0.05) and box[3] == pytest.approx(841.89, abs=0.05)
    assert "(0: north-west corner) Tj" in content
    img = raster_from_pdf(content, box[2], box[3], PX_PER_MM * 25.4 / 72)
    found = detect_markers(img)
    assert sorted(found) == [0, 1, 2, 3]
    same = detect_markers(sheet.rasterize(PX_PER_MM))
    for k in found:
        np.testing.assert_allclose(found[k], same[k], atol=1.5)


def test_chessboard_sheet_is_found_with_its_documented_pattern():
    sheet = chessboard_sheet()
    img = sheet.rasterize(PX_PER_MM)
    ok, corners = cv2.findChessboardCornersSB(img, CHESSBOARD_PATTERN)
    assert ok and len(corners) == CHESSBOARD_PATTERN[0] * CHESSBOARD_PATTERN[1]
    spacing = np.linalg.norm(corners[1, 0] - corners[0, 0]) / PX_PER_MM
    assert spacing == pytest.approx(24.0, abs=0.3)
    _, content = parse_pdf(sheet.to_pdf())
    black = sum(isinstance(s, Rect) and s.w == 24.0 for s in sheet.shapes)
    assert black == 35
    assert content.count(" re f") == sum(isinstance(s, Rect) for s in sheet.shapes)


def test_committed_sheets_are_the_ones_the_command_makes(tmp_path):
    assert main(["calibration", "markers", "--out", str(tmp_path)]) == 0
    assert main(["calibration", "camera", "--sheet", "--sheet-dir", str(tmp_path)]) == 0
    for name in ("markers-a4.svg", "markers-a4.pdf", "chessboard-a4.svg", "chessboard-a4.pdf"):
        fresh = (tmp_path / name).read_bytes()
        assert fresh == (REPO / "calibration" / name).read_bytes(), (
            f"calibration/{name} is out of date: run companion calibration markers / camera "
            "--sheet")
    assert (REPO / "calibration" / "README.md").is_file()


def test_markers_command_reports_an_unwritable_folder(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    assert main(["calibration", "markers", "--out", str(blocker)]) == 2
    assert "--out" in capsys.readouterr().err


def test_marker_bits_are_the_dictionary_patterns():
    patterns = [marker_bits(k) for k in range(4)]
    for p in patterns:
        assert p.shape == (6, 6)
        assert p[0].all() and p[-1].all() and p[:, 0].all() and p[:, -1].all()  # black border
    assert len({p.tobytes() for p in patterns}) == 4


def test_layout_names_ids_by_corner_and_inner_corners_face_the_board():
    board = Board.from_tiles(["1A", "2A", "3A", "4A"])
    layout = marker_layout(board)
    assert {CORNER_NAMES[k] for k in layout} == set(MARKER_IDS)
    q = (60 - 40) / 2 / 25
    frame = {0: (-BORDER, -BORDER), 1: (16 + BORDER, -BORDER), 2: (16 + BORDER, 16 + BORDER),
             3: (-BORDER, 16 + BORDER)}
    for k, corners in layout.items():
        inner = corners[INNER_CORNER[k]]
        # the nearest printed corner to the board's centre is the inner one …
        assert np.argmin(np.linalg.norm(corners - [8, 8], axis=1)) == INNER_CORNER[k]
        # … a margin's width from the board frame's corner, outwards along the diagonal
        np.testing.assert_allclose(np.abs(inner - frame[k]), [q, q], atol=1e-9)
        assert np.linalg.norm(inner - [8, 8]) > np.linalg.norm(np.array(frame[k]) - [8, 8])


def test_detect_markers_keeps_only_the_corner_ids():
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = np.full((300, 600), 255, np.uint8)
    img[50:170, 40:160] = cv2.aruco.generateImageMarker(dictionary, 2, 120)
    img[50:170, 300:420] = cv2.aruco.generateImageMarker(dictionary, 7, 120)
    found = detect_markers(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    assert list(found) == [2]
    assert found[2][0] == pytest.approx([40, 50], abs=1.5)


def test_sheet_text_is_escaped_in_svg_and_pdf():
    from companion.vision.markers import Text

    sheet = Sheet(100, 100, "a <b> & (c)", [Text(10, 10, 3, "x < y & (z)")])
    assert "x &lt; y &amp; (z)" in sheet.to_svg()
    _, content = parse_pdf(sheet.to_pdf())
    assert r"(x < y & \(z\)) Tj" in content
