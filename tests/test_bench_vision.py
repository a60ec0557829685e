"""``companion bench vision`` on a small scale: its table and JSON hold the silver, the
transparent and the pale-table rows, and every count adds up."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.benchmarks import vision


@pytest.mark.slow
def test_the_table_and_json_hold_every_row_and_the_counts_add_up(tmp_path, capsys):
    out = tmp_path / "bench.json"
    # seeds 6000…6005: black on 6000 and 6003, silver on 6001 and 6004, transparent on 6002
    code = vision.run(["--frames", "6", "--large", "0", "--pale", "2", "--quiet",
                       "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    for label in ("    silver", "  transparent robot (own row)", "    not seen (said so)",
                  "    silver seen all the same", "pale table, glare, no markers",
                  "  board found (from scratch)"):
        assert label in text
    report = json.loads(out.read_text())
    (r,) = report["results"]
    shots = {s: vision._frame(s, (1280, 960), 0.2) for s in range(6000, 6006)}
    clear_frames = {s for s, shot in shots.items() if shot.in_frame and not shot.occluded}
    assert r["unoccluded_in_frame"] == len(clear_frames)
    silver = r["per_robot"]["silver"]
    assert silver["total"] == len(clear_frames & {6001, 6004})
    assert 0 <= silver["right"] <= silver["total"]
    clear = r["transparent"]
    assert clear["right"] + clear["unseen"] + clear["wrong"] == clear["frames"]
    assert r["robots_total"] == sum(v["total"] for v in r["per_robot"].values())
    pale = report["pale_tables"]
    assert pale["frames"] == 2 and 0 <= pale["all_robots_right"] <= pale["board_found"] <= 2


def test_frames_keep_their_draws_when_the_extra_robots_join():
    # The silver and transparent robots are placed with their own generator: the board, the
    # other robots and the camera of every frame stay as they were drawn without them.
    with_extra = vision._frame(6002, (320, 240), 0.2)
    assert "transparent" in with_extra.robots
    rng_pos = vision.random_position(np.random.default_rng(6002))
    assert {k: v for k, v in with_extra.robots.items() if k != "transparent"} == rng_pos.robots
    assert with_extra.tiles == rng_pos.board.tiles


def test_bad_options_are_refused():
    with pytest.raises(SystemExit):
        vision.run(["--pale", "-1"])
