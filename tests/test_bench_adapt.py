"""``companion bench adapt`` at a tiny size, so the benchmark cannot rot: one 3D demonstration
learnt at its start, and (when ``../shared/photos`` is there) one real photo read with and
without the lesson of another photo of its table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.benchmarks import adapt
from companion.vision.render3d import gl_available

REAL = Path(__file__).resolve().parents[2] / "shared" / "photos" / "real"


def _rows_add_up(result: dict, robots_each: int) -> None:
    cold, warm = result["rows"]["cold"], result["rows"]["learnt"]
    assert sum(cold.values()) == sum(warm.values()) == robots_each
    assert warm["wrong"] <= cold["wrong"]


@pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
def test_a_3d_demonstration_is_learnt_at_its_start_and_its_frames_read_both_ways(
        tmp_path, capsys):
    out = tmp_path / "adapt.json"
    code = adapt.run(["--demos", "1", "--size", "480x360", "--seed", "3", "--out", str(out)])
    text = capsys.readouterr().out
    assert "learnt at the start" in text and "WRONG CELL" in text
    report = json.loads(out.read_text())
    frames = report["frames3d"]["lessons"]["frames"]
    _rows_add_up(report["frames3d"], 4 * frames)
    assert code == (0 if report["met"] else 1)


@pytest.mark.skipif(not (REAL / "truth.jsonl").exists(), reason="real photos absent")
def test_a_real_photo_is_read_with_the_lesson_of_another_photo_of_its_table(tmp_path, capsys):
    out = tmp_path / "adapt.json"
    adapt.run(["--demos", "0", "--real", str(REAL), "--photos", "1", "--out", str(out)])
    assert "real photos of one table" in capsys.readouterr().out
    real = json.loads(out.read_text())["real"]
    assert real["lessons"]["tables"] and real["lessons"]["photos"] >= 1
    _rows_add_up(real, 4 * real["lessons"]["photos"])


@pytest.mark.parametrize("argv, words", [
    (["--demos", "-1"], "--demos"), (["--size", "10x10"], "--size"),
    (["--photos", "0"], "--photos")])
def test_bad_options_are_named(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        adapt.run(argv)
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_a_folder_without_truth_is_a_clear_error(tmp_path, capsys):
    code = adapt.run(["--demos", "0", "--real", str(tmp_path), "--out", str(tmp_path / "o")])
    assert code == 2 and "no truth.jsonl" in capsys.readouterr().out
