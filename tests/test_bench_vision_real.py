"""``companion bench vision --real DIR``: rendered frames with a truth file at a tiny size (so
the benchmark cannot rot), a few real photos when ``../shared/photos`` is there, and every
fault of a truth file named."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.benchmarks import vision
from companion.benchmarks.vision_real import TruthError, load_truth, turn_cell
from companion.board import cell_name
from companion.vision.render import Scene, random_position, render

REAL = Path(__file__).resolve().parents[2] / "shared" / "photos" / "real"


def _folder(tmp_path: Path, turn: int = 0, move: str | None = None) -> tuple[Path, list]:
    """Two rendered frames and their truth (the robots turned by ``turn`` quarter turns; the
    robot ``move`` put one cell off in the truth of the first)."""
    lines = []
    for i, seed in enumerate((31, 32)):
        pos = random_position(seed)
        shot = render(pos, seed=seed, size=(800, 600), scene=Scene(tilt=10.0, fill=0.85))
        name = f"table{i}-frame.png"
        cv2.imwrite(str(tmp_path / name), shot.image)
        robots = {c: turn_cell(cell_name(v), turn) for c, v in shot.robots.items()}
        if move and i == 0:
            cell = robots[move]
            col = "b" if cell[0] == "a" else "a"
            robots[move] = col + cell[1:]
        lines.append({"file": name, "robots": robots, "kind": "whole",
                      "tiles": list(shot.tiles)})
    (tmp_path / "truth.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return tmp_path, lines


def test_rendered_frames_are_read_and_every_count_adds_up(tmp_path, capsys):
    folder, lines = _folder(tmp_path, turn=1)
    out = tmp_path / "real.json"
    assert vision.run(["--real", str(folder), "--tuned", "table0", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for x in lines:
        assert x["file"] in text
    for label in ("robots ON A WRONG CELL", "boards not found", "tables tuned on (table0)",
                  "tables not tuned on"):
        assert label in text
    report = json.loads(out.read_text())
    s = report["summaries"]["all tables"]
    robots = sum(len(x["robots"]) for x in lines)
    assert s["robots"] == robots
    assert s["robots_right"] + s["robots_wrong_cell"] + s["robots_not_seen"] == robots
    # a quarter turn of the whole board is no error: nothing fixes north without markers
    assert s["robots_wrong_cell"] == 0 and s["boards_not_found"] == 0
    assert s["robots_right"] >= robots - 1
    assert s["tiles_judged"] == 2 and s["tiles_right"] == 2
    assert s["whole_lattice_alone_same"] == 2  # the lattice alone finds them in the same place
    assert report["summaries"]["tables tuned on (table0)"]["photos"] == 1
    assert set(report["tables"]) == {"table0", "table1"}


def test_a_robot_read_on_another_cell_is_counted_as_a_wrong_cell(tmp_path, capsys):
    folder, _ = _folder(tmp_path, move="red")
    out = tmp_path / "real.json"
    assert vision.run(["--real", str(folder), "--out", str(out)]) == 0
    assert "red on" in capsys.readouterr().out
    s = json.loads(out.read_text())["summaries"]["all tables"]
    assert s["robots_wrong_cell"] == 1
    assert s["whole_wholly_right"] <= 1


@pytest.mark.parametrize("line,what", [
    ("not json", "not JSON"),
    ('{"robots": {"red": "a1"}}', "file"),
    ('{"file": "x.png", "robots": {}}', "robots"),
    ('{"file": "x.png", "robots": {"red": "z99"}}', "robots.red"),
    ('{"file": "x.png", "robots": {"red": "a1"}, "kind": "half"}', "kind"),
    ('{"file": "x.png", "robots": {"red": "a1"}, "tiles": ["1A"]}', "tiles"),
    ('{"file": "gone.png", "robots": {"red": "a1"}}', "does not exist"),
])
def test_a_bad_truth_file_is_refused_naming_the_line_and_field(tmp_path, capsys, line, what):
    cv2.imwrite(str(tmp_path / "x.png"), np.full((4, 4, 3), 255, np.uint8))
    (tmp_path / "truth.jsonl").write_text(line + "\n")
    assert vision.run(["--real", str(tmp_path), "--out", str(tmp_path / "o.json")]) == 2
    out = capsys.readouterr().out
    assert "truth.jsonl:1" in out and what in out


def test_a_folder_without_a_truth_file_is_refused(tmp_path, capsys):
    assert vision.run(["--real", str(tmp_path), "--out", str(tmp_path / "o.json")]) == 2
    assert "no truth.jsonl" in capsys.readouterr().out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=40),
    st.dictionaries(st.sampled_from(["file", "robots", "kind", "tiles"]),
                    st.one_of(st.none(), st.integers(), st.text(max_size=6),
                              st.dictionaries(st.sampled_from(["red", "blue"]),
                                              st.sampled_from(["a1", "p16", "q1", "", 3])),
                              st.lists(st.text(max_size=3), max_size=5)),
                    max_size=4).map(json.dumps)), max_size=4))
def test_any_truth_file_is_read_or_refused_with_a_reason(tmp_path_factory, lines):
    folder = tmp_path_factory.mktemp("truth")
    (folder / "truth.jsonl").write_text("\n".join(x.replace("\n", " ") for x in lines))
    try:
        truths = load_truth(folder)
    except TruthError as e:
        assert str(e)
    else:
        assert truths and all(t.kind in ("whole", "partial") for t in truths)


@given(st.integers(0, 255), st.integers(0, 7))
def test_four_quarter_turns_bring_a_cell_back(i, k):
    name = cell_name(i)
    assert turn_cell(turn_cell(name, k), 4 - k % 4) == name
    assert turn_cell("a16", 1) == "p16"  # clockwise: the north-west corner goes north-east


@pytest.mark.skipif(not (REAL / "truth.jsonl").exists(), reason="real photos not available")
@pytest.mark.slow
def test_real_photos_whose_board_the_outline_alone_missed_are_read(tmp_path, capsys):
    # Three photos (linked, never copied into the project): two the outline alone refused
    # on a pale wooden table, and a 2004 compact-camera photo with the timer on the centre.
    names = ["blefeuvr-20240415_102644.jpg", "blefeuvr-20240415_165852.jpg",
             "psktoure-diagonals.jpg"]
    lines = [x for x in (REAL / "truth.jsonl").read_text().splitlines()
             if json.loads(x)["file"] in names]
    for n in names:
        (tmp_path / n).symlink_to(REAL / n)
    (tmp_path / "truth.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "real.json"
    assert vision.run(["--real", str(tmp_path), "--tuned", "blefeuvr", "--out", str(out)]) == 0
    s = json.loads(out.read_text())["summaries"]["all tables"]
    assert s["boards_not_found"] == 0
    assert s["robots_wrong_cell"] == 0
