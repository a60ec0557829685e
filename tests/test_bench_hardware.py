"""``companion bench hardware`` at a tiny size: every press arrives as the command the
button means in that phase, and the table says so with figures, not dashes."""

from __future__ import annotations

import json

import pytest

from companion.benchmarks import hardware


@pytest.mark.slow
def test_every_press_arrives_and_every_row_has_figures(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = hardware.run(["--presses", "4", "--seconds", "0.5", "--out", str(out)])
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert code in (0, 1)  # 1 only when a speed goal is missed on a slow day
    assert report["goals"]["no_press_lost"], report["latency"]
    for name, row in report["latency"].items():
        assert name in text
        assert row["lost"] == 0 and row["presses"] >= 2
        assert 0 < row["median_ms"] <= row["p99_ms"] <= row["max_ms"] < 1000
    assert "—" not in text
    running, idle = report["hourglass"]["timer running"], report["hourglass"]["idle (no timer)"]
    assert running["updates"] > idle["updates"] >= 0
    assert running["cpu_percent"] >= 0


def test_a_case_with_every_press_lost_prints_a_dash_not_a_crash():
    row = hardware._row([], lost=3)
    assert row == {"presses": 3, "lost": 3, "median_ms": None, "p99_ms": None, "max_ms": None}
    assert hardware._ms(row["median_ms"]) == "—" and hardware._ms(1.25) == "1.250"
