"""``companion bench verify`` on a small scale: the latency table, and the verdicts of recorded
demonstrations with misreadings injected, from true readings and from rendered frames, with
false "illegal" verdicts on their own row."""

from __future__ import annotations

import json
import random

import pytest

from companion.benchmarks import verify as bench


@pytest.mark.slow
def test_the_tables_and_json_hold_the_verdict_rows_and_the_counts_add_up(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = bench.run(["--demos", "1", "--judged", "4", "--frames", "1", "--size", "480x360",
                      "--out", str(out)])
    text = capsys.readouterr().out
    assert "verdicts from true readings with misreadings injected" in text
    assert "verdicts from rendered frames" in text and "false illegal" in text
    report = json.loads(out.read_text())
    assert set(report["verdicts"]) == {"truth", "frames"}
    for source, n in (("truth", 4), ("frames", 1)):
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


def test_bad_options_are_refused():
    with pytest.raises(SystemExit):
        bench.run(["--size", "tiny"])
    with pytest.raises(SystemExit):
        bench.run(["--judged", "-1"])
