"""``companion bench vision --source render3d`` on a small scale: its rows are printed, its
JSON written, and its counts add up."""

from __future__ import annotations

import json

import pytest

from companion.benchmarks import vision


@pytest.mark.slow
def test_the_3d_source_rows_are_printed_and_the_counts_add_up(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = vision.run(["--source", "render3d", "--frames", "3", "--size", "480x360",
                       "--seed", "40", "--quiet", "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    for label in ("  wholly right", "  a robot on a wrong cell (frames)", "  not seen",
                  "  wrongly flagged occluded", "  misread as a position",
                  "  tiles right (any quarter turn)", "given the true corners: robots right",
                  "ms to render a frame, median"):
        assert label in text
    report = json.loads(out.read_text())
    assert report["source"] == "render3d"
    (r,) = report["results"]
    assert r["frames"] == 3 == r["clear"] + r["occluded"] + r["out_of_frame"]
    assert r["robots_total"] == r["robots_right"] + r["robots_wrong_cell"] + r["robots_unseen"]
    assert r["right"] + r["frames_wrong"] + r["frames_unseen"] + r["not_found"] + \
        r["false_occluded"] == r["clear"]
    assert r["occ_flagged"] + r["occ_misread"] == r["occluded"]
    assert r["given_corners"]["total"] == r["robots_total"]


def test_bad_sizes_are_refused():
    with pytest.raises(SystemExit):
        vision.run(["--source", "render3d", "--size", "big"])
    with pytest.raises(SystemExit):
        vision.run(["--source", "render3d", "--frames", "0"])
