"""``companion bench solver`` on a small scale: every set runs, every route it times is legal,
the table is printed and the figures are written as JSON (the speed goals are the benchmark's,
not the tests')."""

from __future__ import annotations

import json

import pytest

from companion.benchmarks import solver as bench
from companion.rules import Position, validate_route
from companion.solver import solve


@pytest.mark.slow
def test_every_set_is_timed_and_written_as_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = bench.run(["--scale", "0.01", "--skip-hardest", "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert [r["set"] for r in report["sets"]] == list(bench.SETS)
    for row in report["sets"]:
        assert row["positions"] >= 1 and row["unsolved"] == 0
        assert row["median_ms"] <= row["p90_ms"] <= row["p99_ms"] <= row["max_ms"]
        assert row["expanded_median"] <= row["expanded_max"]
        assert 0 < row["cpu_median_ms"] <= row["cpu_p90_ms"]
        assert row["set"] in text
        assert row["cold_median_ms"] <= row["cold_p90_ms"] <= row["cold_p99_ms"] \
            <= row["cold_max_ms"]
        assert 0 < row["cold_cpu_median_ms"] <= row["cold_cpu_p90_ms"]
    assert "time by optimal length" in text and report["hardest"] == []
    # the goals: the A-C set's are judged, the 25-mover's say they were not run
    goals = {g["goal"]: g for g in report["goals"]}
    ac = report["sets"][0]
    assert goals["A-C new board, median"]["wall"] == ac["cold_median_ms"]
    assert goals["A-C new board, median"]["met"] == (ac["cold_median_ms"] <= 0.5)
    assert goals["25-mover, whole process"]["met"] is None and "not run" in text
    assert "DriftingDroids" in text and "fogleman" in text
    assert report["load_average"]["cores"] >= 1 and "machine load" in text


def test_the_riogrande_set_forbids_immediate_reversal_and_its_routes_obey_it():
    import random

    count, sides, extra, target, preset = bench.SETS["riogrande"]
    rng = random.Random("7-riogrande")
    for _ in range(3):
        pos = bench.random_position(rng, sides, extra, target, preset)
        assert pos.rules.immediate_reversal == "forbidden"
        again = Position.from_json(pos.to_json())
        got = solve(again)
        assert got.solved
        verdict = validate_route(again, got.moves)
        assert verdict.legal and verdict.reached


def test_an_out_file_that_cannot_be_written_is_named_with_status_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = blocker / "bench.json"  # a folder that is a file: nothing can be written there
    code = bench.run(["--scale", "0.01", "--skip-hardest", "--out", str(out)])
    assert code == 2
    assert f"cannot write {out}" in capsys.readouterr().out
