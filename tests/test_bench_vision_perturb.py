"""``companion bench vision --real DIR --perturb N``: every family of transformations runs at a
tiny size on a rendered frame (so the benchmark cannot rot), each transformation does what it
says, and a board with one side cut off is refused naming that side, on a rendered board and,
when ``../shared/photos`` is there, on real photos (linked, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.benchmarks import vision
from companion.benchmarks.vision_perturb import FAMILIES, FILLS, _work, fill, perturb
from companion.benchmarks.vision_real import load_truth, read_image
from companion.board import cell_name
from companion.vision.locate import BoardNotFound, locate
from companion.vision.render import Scene, random_position, render

REAL = Path(__file__).resolve().parents[2] / "shared" / "photos" / "real"


@pytest.fixture(scope="module")
def shot():
    pos = random_position(41)
    return render(pos, seed=41, size=(800, 600), scene=Scene(tilt=8.0, fill=0.8))


def test_every_family_runs_and_every_count_adds_up(tmp_path, capsys, shot):
    cv2.imwrite(str(tmp_path / "table0-frame.png"), shot.image)
    robots = {c: cell_name(v) for c, v in shot.robots.items()}
    (tmp_path / "truth.jsonl").write_text(
        json.dumps({"file": "table0-frame.png", "robots": robots, "kind": "whole"}) + "\n")
    out = tmp_path / "perturb.json"
    assert vision.run(["--real", str(tmp_path), "--perturb", "1", "--seed", "3",
                       "--out", str(out)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    table = report["summaries"]["all tables"]
    for family in ("none",) + FAMILIES:
        assert family in table, family
        assert family in text
        s = table[family]
        assert s["found"] + s["refused"] == s["pictures"]
        assert s["robots_right"] + s["robots_wrong_cell"] + s["robots_not_seen"] == s["robots"] \
            or family == "not_board"
    assert table["none"]["wholly_right"] == 1  # the frame as rendered is read
    # a board with a side cut off is refused naming that side, never read on a wrong cell
    assert table["edge_out"]["found"] == 0 and table["edge_out"]["edge_named"] == 1
    # bare tables and the table beside the board are never taken for a board
    assert table["not_board"]["pictures"] >= len(FILLS)
    assert table["not_board"]["found"] == 0
    assert sum(table[f]["robots_wrong_cell"] for f in FAMILIES) == 0


def test_each_transformation_does_what_it_says(shot):
    loc = locate(shot.image)
    rng = lambda: np.random.default_rng(5)  # noqa: E731
    h, w = shot.image.shape[:2]
    assert perturb(shot.image, loc.corners, "tilt", rng()).image.shape == (h, w, 3)
    assert perturb(shot.image, loc.corners, "small", rng()).image.shape == (960, 1280, 3)
    sized = perturb(shot.image, None, "size", rng()).image
    assert max(sized.shape[:2]) in (500, 3000)
    cut = perturb(shot.image, loc.corners, "edge_out", rng())
    assert cut.out_edge in ("top", "right", "bottom", "left")
    assert cut.image.size < shot.image.size
    # without the board's corners there is nothing to crop by
    assert perturb(shot.image, None, "edge_out", rng()) is None
    with pytest.raises(ValueError, match="family"):
        perturb(shot.image, loc.corners, "upside", rng())
    for kind in FILLS:
        table = fill((120, 160), kind, rng(), shot.image)
        assert table.shape == (120, 160, 3) and table.dtype == np.uint8
        with pytest.raises(BoardNotFound):
            locate(cv2.resize(table, (640, 480)))


@pytest.mark.parametrize("side", ["top", "right", "bottom", "left"])
def test_a_rendered_board_with_a_side_cut_off_is_refused_naming_it(shot, side):
    loc = locate(shot.image)
    c = loc.corners
    cell = float(np.linalg.norm(c[1] - c[0])) / 16
    img = shot.image
    if side == "top":
        img = img[int(np.sort(c[:, 1])[1] + 2 * cell):]
    elif side == "bottom":
        img = img[:int(np.sort(c[:, 1])[2] - 2 * cell)]
    elif side == "left":
        img = img[:, int(np.sort(c[:, 0])[1] + 2 * cell):]
    else:
        img = img[:, :int(np.sort(c[:, 0])[2] - 2 * cell)]
    with pytest.raises(BoardNotFound, match=f"board's {side} edge is out of the picture"):
        locate(np.ascontiguousarray(img))


# one photo from each of two tables, each cut on every side (the cuts found by the reader on
# the photo as taken); 102610 was read with a lattice at half a cell's period when cut
REAL_CUTS = ["blefeuvr-20240415_102610.jpg", "azarov-board.jpg"]


@pytest.mark.skipif(not (REAL / "truth.jsonl").exists(), reason="real photos not available")
@pytest.mark.slow
@pytest.mark.parametrize("name", REAL_CUTS)
def test_a_real_board_with_a_side_cut_off_is_never_read(name):
    truth = next(t for t in load_truth(REAL) if t.file == name)
    image = _work(cv2.imread(str(REAL / name), cv2.IMREAD_COLOR))  # as the benchmark does
    _, obs = read_image(image, truth, None)
    for i in range(4):
        rng = np.random.default_rng([6000, 0, FAMILIES.index("edge_out"), i])
        cut = perturb(image, np.asarray(obs.corners), "edge_out", rng)
        res, _ = read_image(cut.image, truth, None)
        assert not res.found and res.wrong == 0, (cut.detail, res.details)
