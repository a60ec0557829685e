"""``companion bench verify`` on a small scale: the latency table, and the verdicts of recorded
demonstrations with misreadings injected, from true readings and from rendered frames, with
false "illegal" verdicts on their own row."""

from __future__ import annotations

import json
import random

import pytest

from companion.benchmarks import verify as bench
from companion.vision.read import Observation, default_cells
from companion.vision.render3d import gl_available


@pytest.mark.slow
def test_the_tables_and_json_hold_the_verdict_rows_and_the_counts_add_up(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = bench.run(["--demos", "1", "--judged", "4", "--together", "2", "--frames", "1",
                      "--frames3d", "1", "--size", "480x360", "--out", str(out)])
    text = capsys.readouterr().out
    assert "verdicts from true readings with misreadings injected" in text
    assert "verdicts from rendered frames" in text and "false illegal" in text
    report = json.loads(out.read_text())
    assert report["cells"] is True  # the cell classifier reads the frames by default
    gl = gl_available() is None
    assert ("verdicts from frames of the 3D renderer" in text) == gl
    assert "two consecutive moves under one hand" in text
    assert "answering the page's question about the readings in doubt truly" in text
    assert set(report["verdicts"]) == ({"truth", "together", "answered", "replied", "frames"}
                                       | ({"frames3d"} if gl else set()))
    for source, n in (("truth", 4), ("together", 2), ("answered", 2), ("replied", 2),
                      ("frames", 1), ("frames3d", 1)):
        if source not in report["verdicts"]:
            continue
        rows = report["verdicts"][source]
        assert set(rows) == set(bench.KINDS)
        for kind, r in rows.items():
            assert r["demos"] == n and sum(r["verdicts"].values()) == n
            assert 0 <= r["right"] <= n and r["unsure"] == r["verdicts"].get("unsure", 0)
            assert r["false_illegal"] == (r["verdicts"].get("illegal", 0)
                                          if kind != "illegal" else 0)
    # on true readings with misreadings injected the verifier never says "illegal" wrongly
    assert sum(r["false_illegal"] for r in report["verdicts"]["truth"].values()) == 0
    assert report["false_illegal"] == sum(r["false_illegal"] for src in report["verdicts"]
                                          .values() for r in src.values())
    assert code == (0 if report["met"] else 1)


def test_recorded_demonstrations_get_their_verdict_on_clean_readings():
    rnd = random.Random(3)
    for kind in bench.KINDS:
        rec = bench.recorded_demo(rnd, kind)
        assert bench.judge(rec, bench.true_readings(rec)) == rec.expected


def test_injected_misreadings_touch_only_a_robot_standing_still():
    rnd = random.Random(11)
    rec = bench.recorded_demo(rnd, "honest")
    clean = bench.true_readings(rec)
    frames = bench.frames_of(rec)
    for seed in range(20):
        for how in ("flicker", "spell", "unseen"):
            bad = bench.inject(rec, clean, random.Random(seed), how)
            changed = [i for i, (a, b) in enumerate(zip(clean, bad, strict=True)) if a != b]
            assert 1 <= len(changed) <= bench.STILL
            assert len(changed) <= 2 or how != "flicker"
            (k,) = {frames[i][0] for i in changed}  # one still spell, after look k
            robots = {r for i in changed for r in clean[i].robots
                      if clean[i].robots.get(r) != bad[i].robots.get(r)}
            (robot,) = robots
            assert robot not in rec.movers[k - 1:k + 1]  # it stands still there


@pytest.mark.slow
@pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
def test_3d_frames_of_a_demonstration_are_read_one_by_one_under_a_fixed_camera():
    rec = bench.recorded_demo(random.Random(5), "honest")
    frames = bench.frames_of(rec)
    readings = bench.rendered3d_readings(rec, 11, (480, 360))
    assert len(readings) == len(frames)
    assert all(isinstance(r, (Observation, str)) for r in readings)
    seen = [r for r in readings if isinstance(r, Observation) and not r.occluded]
    assert seen  # the board is in view between the hands
    # one camera for the whole demonstration: the board stays where it was found
    first = seen[0].corners
    assert all(abs(a - b) < 3.0 for r in seen for p, q in zip(first, r.corners, strict=True)
               for a, b in zip(p, q, strict=True))


def test_no_cells_reads_by_the_colour_scores_for_the_run_only(tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench.run(["--demos", "1", "--judged", "0", "--together", "0", "--frames", "0",
               "--frames3d", "0", "--no-cells", "--out", str(out)])
    capsys.readouterr()
    assert json.loads(out.read_text())["cells"] is False
    assert default_cells() is not None  # the process's default is back after the run


def test_bad_options_are_refused():
    with pytest.raises(SystemExit):
        bench.run(["--size", "tiny"])
    with pytest.raises(SystemExit):
        bench.run(["--judged", "-1"])
    with pytest.raises(SystemExit):
        bench.run(["--frames3d", "-1"])
    with pytest.raises(SystemExit):
        bench.run(["--together", "-1"])


@pytest.mark.slow
@pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
def test_3d_frames_read_with_the_lesson_of_their_start_place_no_robot_wrongly():
    rec = bench.recorded_demo(random.Random(5), "honest")
    cold = bench.rendered3d_readings(rec, 7003, (480, 360))
    warm = bench.rendered3d_readings(rec, 7003, (480, 360), learn=True)
    truth = bench.true_readings(rec)
    right = {"cold": 0, "warm": 0}
    for name, readings in (("cold", cold), ("warm", warm)):
        for seen, true in zip(readings, truth, strict=True):
            if isinstance(seen, Observation) and not seen.occluded and not true.occluded:
                assert all(true.robots[c] == cell for c, cell in seen.robots.items()
                           if c in true.robots), (name, seen.robots, true.robots)
                right[name] += len([c for c in seen.robots if c in true.robots])
    assert right["warm"] >= right["cold"], right
