"""``companion bench camera`` on a few frames: the table's camera thread reads every frame of
each set with the game's reader, and the table and JSON say how long it took."""

from __future__ import annotations

import json

import pytest

from companion.benchmarks import camera


@pytest.mark.slow
def test_every_set_is_read_to_its_end_and_reported(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert camera.run(["--frames", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1280x960" in text
    report = json.loads(out.read_text())
    assert [r["set"] for r in report["sets"]] == ["classic, chip off", "classic, chip on",
                                                  "micro robots"]
    for row in report["sets"]:
        assert row["set"] in text
        assert row["frames"] == 4 and row["view"] == "board"  # every frame read, board seen
        assert 0 < row["median_ms"] <= row["p90_ms"] <= row["max_ms"]
        assert row["frames_per_s"] > 0


def test_too_few_or_too_many_frames_are_refused(tmp_path, capsys):
    import pytest

    for n in ("1", "51"):
        with pytest.raises(SystemExit):
            camera.run(["--frames", n, "--out", str(tmp_path / "x.json")])
        assert "--frames" in capsys.readouterr().err


@pytest.mark.slow
def test_the_bench_reads_frames_at_the_size_asked_for(tmp_path, capsys):
    import pytest

    out = tmp_path / "bench.json"
    assert camera.run(["--frames", "4", "--size", "1640x1232", "--out", str(out)]) == 0
    assert "1640x1232" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["size"] == [1640, 1232]
    assert all(r["frames"] == 4 and r["view"] == "board" for r in report["sets"])
    for bad in ("1640", "10x10", "axb"):
        with pytest.raises(SystemExit):
            camera.run(["--size", bad, "--out", str(tmp_path / "x.json")])
        assert "--size" in capsys.readouterr().err
