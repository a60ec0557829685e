"""``companion bench render`` at a tiny size: every size and set is timed and reported."""

from __future__ import annotations

import json

from companion.benchmarks import render


def test_every_size_and_set_is_timed(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert render.run(["--frames", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    sizes = {r["size"] for r in report["sets"]}
    assert "1280x960" in sizes
    assert {r["set"] for r in report["sets"]} == {"clean", "random", "hands"}
    assert len(report["sets"]) == 3 * len(sizes)
    for row in report["sets"]:
        assert row["frames"] == 1 and 0 < row["median_ms"] <= row["max_ms"]
        assert row["size"] in text
    assert isinstance(report["within_budget"], bool)
