"""Micro Robots through the camera, on rendered tables with known truth: the board found
(from its faces, its markers, corners given by hand), the layout read (pips and digits, under
casts, dim light and glare, never a space wrong), the robot's space frame by frame, hands
flagged, landings judged, ``companion micro read``, and every way a frame cannot be read."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.micro import Layout, LayoutError, Space, check_demonstration, example_layout
from companion.vision.locate import BoardNotFound, VisionError
from companion.vision.micro import (
    MicroObservation,
    MicroReader,
    MicroTracker,
    assign,
    locate_micro,
    read_micro_layout,
)
from companion.vision.micro_locate import micro_marker_corners
from companion.vision.micro_look import LOOK, Look
from companion.vision.micro_render import random_layout, render_micro
from companion.vision.render import Scene, random_position, render

LAYOUT = example_layout()
DIGITS = Look(numerals="digits")


def truth_rows(layout: Layout) -> list[list[str]]:
    return [[s.name for s in row] for row in layout.rows]


def turned(rows: list[list[str | None]], k: int) -> list[list[str | None]]:
    return np.rot90(np.array(rows, dtype=object), k).tolist()


def compare(rows, layout: Layout) -> tuple[int, int, int]:
    """(right, unread, wrong) in the board turn that fits best."""
    want = truth_rows(layout)
    def agree(w: list[list[str | None]]) -> int:
        return sum(a == b for ra, rb in zip(rows, w, strict=True)
                   for a, b in zip(ra, rb, strict=True))

    right = max(agree(turned(want, k)) for k in range(4))
    unread = sum(a is None for ra in rows for a in ra)
    return right, unread, 36 - right - unread


# ---------------------------------------------------------------- finding the board


@pytest.mark.parametrize("seed,scene", [
    (1, {"tilt": 0}), (2, {"tilt": 22, "rotation": 40}), (3, {"tilt": 30, "rotation": 200,
                                                              "azimuth": 120}),
    (4, {"tilt": 15, "rotation": 95, "brightness": 0.35, "noise": 6, "jpeg": 70}),
])
def test_the_board_is_found_from_its_faces(seed, scene):
    shot = render_micro(random_layout(seed), None, seed=seed, **scene)
    loc = locate_micro(shot.image)
    assert loc.method == "faces" and loc.quality > 0.9
    # the same corners, whichever is called the first
    errs = [np.abs(np.roll(loc.corners, -k, axis=0) - shot.corners).max() for k in range(4)]
    assert min(errs) < 0.03 * loc.space_px
    # without markers the layout's top-left is the corner nearest the picture's top-left
    assert int(np.argmin(loc.corners.sum(axis=1))) == 0


def test_markers_fix_which_corner_is_the_layouts_top_left():
    shot = render_micro(LAYOUT, None, seed=5, markers=True, tilt=20, rotation=160)
    loc = locate_micro(shot.image)
    assert loc.method == "markers"
    np.testing.assert_allclose(loc.corners, shot.corners, atol=1.5)
    reading = read_micro_layout(shot.image)
    assert reading.rows == truth_rows(LAYOUT)  # exactly, not just up to a turn


def test_marker_corners_lie_outside_the_board_at_its_corners():
    corners = micro_marker_corners()
    centres = {k: q.mean(axis=0) for k, q in corners.items()}
    assert centres[0][0] < 0 and centres[0][1] < 0
    assert centres[2][0] > 6 and centres[2][1] > 6


def test_corners_given_by_hand_are_used_as_they_are():
    shot = render_micro(LAYOUT, None, seed=6, tilt=12, rotation=30)
    loc = locate_micro(shot.image, corners=shot.corners.ravel().tolist())
    assert loc.method == "manual"
    reading = read_micro_layout(shot.image, corners=shot.corners)
    assert reading.rows == truth_rows(LAYOUT)


@pytest.mark.parametrize("corners,message", [
    ([1, 2, 3], "four x,y pairs"),
    ([[100, 100], [100, 800], [900, 800], [900, 100]], "clockwise"),
])
def test_corners_given_badly_are_refused_saying_why(corners, message):
    shot = render_micro(LAYOUT, None)
    with pytest.raises(VisionError, match=message):
        locate_micro(shot.image, corners=corners)


def test_a_black_frame_says_so():
    with pytest.raises(BoardNotFound, match="black"):
        locate_micro(np.zeros((960, 1280, 3), np.uint8))
    with pytest.raises(BoardNotFound, match="black"):
        MicroReader(LAYOUT).read(np.full((960, 1280, 3), 8, np.uint8))


def test_no_board_in_view_says_so():
    table = np.random.default_rng(1).normal(120, 6, (960, 1280, 3)).clip(0, 255)
    with pytest.raises(BoardNotFound, match="no board in view"):
        read_micro_layout(table.astype(np.uint8))


def test_a_classic_board_is_not_taken_for_a_micro_board():
    shot = render(random_position(3), seed=3, tilt=19, rotation=90)
    with pytest.raises(BoardNotFound, match="no Micro Robots board|no board"):
        locate_micro(shot.image, markers=False)


def test_half_the_board_out_of_the_frame_says_so():
    shot = render_micro(LAYOUT, None, seed=7, offset=(0.42, 0.0), fill=0.9)
    assert not shot.in_frame
    with pytest.raises(BoardNotFound, match="out of the frame"):
        read_micro_layout(shot.image)


def test_not_a_colour_image_is_refused():
    with pytest.raises(VisionError, match="not a colour image"):
        locate_micro(np.zeros((100, 100), np.uint8))
    with pytest.raises(VisionError, match="not a colour image"):
        MicroReader(LAYOUT).read(np.zeros((100, 100), np.uint8))


# ---------------------------------------------------------------- reading a layout


@pytest.mark.parametrize("seed,look,scene", [
    (11, Look(), {"tilt": 8}),
    (12, DIGITS, {"tilt": 24, "rotation": 130, "noise": 4, "blur": 1.0}),
    (13, Look(), {"tilt": 18, "rotation": 300, "cast": (1.18, 0.95, 0.82), "jpeg": 75}),
    (14, DIGITS, {"tilt": 10, "rotation": 60, "brightness": 0.33, "noise": 7,
                  "gradient": 0.5}),
])
def test_a_layout_is_read_whole_in_pips_or_digits_under_any_light(seed, look, scene):
    layout = random_layout(seed)
    shot = render_micro(layout, None, seed=seed, look=look, **scene)
    reading = read_micro_layout(shot.image, look=look)
    assert reading.numerals == look.numerals
    assert reading.complete and reading.problems == []
    assert compare(reading.rows, layout) == (36, 0, 0)
    assert min(min(row) for row in reading.confidence) >= 0.98
    assert reading.layout("read") == Layout(layout.rows) or \
        compare(reading.rows, layout)[0] == 36


def test_white_and_yellow_and_red_and_pink_are_told_apart_under_a_warm_cast():
    layout = random_layout(21)
    shot = render_micro(layout, None, seed=21, tilt=12, cast=(0.8, 1.0, 1.2), brightness=0.6)
    reading = read_micro_layout(shot.image)
    right, unread, wrong = compare(reading.rows, layout)
    assert wrong == 0 and right >= 34


def test_the_robots_space_is_deduced_and_the_robot_reported():
    layout = random_layout(22)
    robot = next(s for s in layout.rows[2] if s.color != "white")
    shot = render_micro(layout, robot, seed=22, tilt=14, rotation=0, azimuth=0)
    reading = read_micro_layout(shot.image)
    assert reading.complete
    assert reading.robot == robot.name
    r, c = reading.robot_at
    assert reading.rows[r][c] == robot.name
    assert any("robot stands on it" in n for n in reading.notes)


@pytest.mark.parametrize("seed", [31, 32, 33, 34, 35, 36])
@pytest.mark.slow
def test_hard_frames_leave_spaces_unread_but_never_wrong(seed):
    rng = np.random.default_rng(seed)
    layout = random_layout(rng)
    scene = replace(Scene.random(rng, hands=0.5), glare=0.7)
    shot = render_micro(layout, layout.rows[1][1], seed=seed, scene=scene)
    try:
        reading = read_micro_layout(shot.image)
    except BoardNotFound:
        assert shot.occluded  # a hand may hide too much of the board to find it
        return
    assert compare(reading.rows, layout)[2] == 0
    if not reading.complete:
        assert reading.problems  # the page says what is left to do
        with pytest.raises(LayoutError):
            reading.layout()


@pytest.mark.parametrize("seed", [41, 44, 47, 53])
def test_a_hand_over_the_board_is_said_and_nothing_under_it_is_named(seed):
    layout = random_layout(seed)
    shot = render_micro(layout, None, seed=seed, tilt=10, hands=1)
    assert shot.hidden
    reading = read_micro_layout(shot.image)
    right, unread, wrong = compare(reading.rows, layout)
    assert wrong == 0
    for space in shot.hidden:  # nothing under the hand is named
        assert space.name not in {x for row in reading.rows for x in row} or right == 36
    if len(shot.hidden) >= 3:
        assert not reading.complete
        assert any("hand" in p for p in reading.problems)


def test_the_reading_as_json():
    shot = render_micro(LAYOUT, "pink1", seed=5, markers=True, tilt=10)
    data = read_micro_layout(shot.image).to_dict()
    assert data["rows"] == truth_rows(LAYOUT)
    assert data["complete"] is True and data["problems"] == []
    assert data["robot"] == "pink1" and data["method"] == "markers"
    assert len(data["corners"]) == 4 and len(data["confidence"]) == 6
    json.dumps(data)


def test_the_one_to_one_assignment_is_the_cheapest():
    rng = np.random.default_rng(5)
    for n in (1, 2, 4, 6):
        for _ in range(20):
            cost = rng.random((n, n)) * 10
            cols = assign(cost)
            assert sorted(cols) == list(range(n))
            best = min(sum(cost[i, p[i]] for i in range(n))
                       for p in itertools.permutations(range(n)))
            assert abs(sum(cost[i, cols[i]] for i in range(n)) - best) < 1e-9


# ---------------------------------------------------------------- the robot, frame by frame


def game_reader(layout: Layout, seed: int, scene: Scene, look: Look = LOOK) -> MicroReader:
    """A reader that has seen the table once, without hands, the robot on its first space."""
    reader = MicroReader(layout, look=look)
    reader.read(render_micro(layout, layout.rows[0][0], seed=seed, look=look,
                             scene=replace(scene, hands=0)).image)
    return reader


@pytest.mark.parametrize("seed", range(51, 59))
def test_the_robots_space_is_never_read_wrong_on_any_kind_of_frame(seed):
    """Dim, cast, glare, noise, blur, JPEG, any tilt: the robot's space or, where it cannot
    be told, none, never another space and never a hand."""
    rng = np.random.default_rng(seed)
    layout = random_layout(rng)
    scene = replace(Scene.random(rng, hands=0.0), hands=0)
    look = DIGITS if seed % 2 else Look()
    reader = game_reader(layout, seed, scene, look)
    for robot in (layout.rows[3][4], layout.rows[5][0]):
        shot = render_micro(layout, robot, seed=seed, scene=scene, look=look, noise_seed=3)
        obs = reader.read(shot.image)
        assert not obs.occluded
        assert obs.space in (robot.name, None)


@pytest.mark.parametrize("colour", ["blue", "yellow", "green", "red", "pink", "white"])
def test_the_robots_space_is_read_on_a_face_of_every_colour(colour):
    scene = Scene(tilt=14, rotation=30, azimuth=200, noise=3, brightness=0.85)
    reader = game_reader(LAYOUT, 5, scene)
    for number in (1, 4, 6):
        robot = Space(colour, number)
        shot = render_micro(LAYOUT, robot, seed=5, scene=scene, noise_seed=number)
        assert reader.read(shot.image).space == robot.name


def test_a_board_turned_against_its_layout_is_read_in_the_layouts_terms():
    reader = MicroReader(LAYOUT)
    for rotation in (90, 180, 270):
        shot = render_micro(LAYOUT, "blue6", seed=2, rotation=rotation, tilt=10)
        assert reader.read(shot.image).space == "blue6"


def test_no_robot_on_the_board_is_no_space_and_no_hand():
    reader = MicroReader(LAYOUT)
    obs = reader.read(render_micro(LAYOUT, None, seed=3, tilt=12).image)
    assert obs.space is None and not obs.occluded
    assert "no robot" in " ".join(obs.notes)


@pytest.mark.parametrize("seed", [61, 62, 63, 64, 65])
def test_a_hand_over_the_board_is_occluded_never_a_space(seed):
    layout = random_layout(seed)
    scene = Scene(tilt=12, rotation=seed * 37.0)
    reader = game_reader(layout, seed, scene)
    shot = render_micro(layout, layout.rows[2][2], seed=seed, scene=replace(scene, hands=1))
    assert shot.occluded
    obs = reader.read(shot.image)
    assert obs.occluded and obs.space is None
    assert obs.covered


def test_a_board_that_is_not_the_layout_is_refused():
    other = random_layout(77, name="garden table")
    with pytest.raises(VisionError, match="not the layout 'garden table'"):
        MicroReader(other).read(render_micro(LAYOUT, None, seed=1, tilt=10).image)


def test_a_moved_board_is_found_again():
    reader = MicroReader(LAYOUT)
    assert reader.read(render_micro(LAYOUT, "red4", seed=4, rotation=10).image).space == "red4"
    moved = render_micro(LAYOUT, "white3", seed=4, rotation=55, tilt=15)
    assert reader.read(moved.image).space == "white3"


def test_the_reader_wants_a_layout():
    with pytest.raises(TypeError, match="Layout"):
        MicroReader([["pink1"]])  # type: ignore[arg-type]


# ---------------------------------------------------------------- landings


def observe(*spaces: str | None) -> list[MicroObservation]:
    """``"hand"`` is an occluded frame, ``None`` one without a robot."""
    return [MicroObservation(None, True) if s == "hand" else MicroObservation(s, False)
            for s in spaces]


def test_a_landing_is_a_new_space_held_for_a_few_frames():
    t = MicroTracker(start="pink1", stable=3)
    frames = observe("pink1", "hand", "pink6", "pink6", "pink6", "pink6", "hand",
                     "white6", "white6", "white6")
    assert list(t.landings(frames)) == ["pink6", "white6"]
    assert t.resting == "white6"


def test_a_hand_or_a_missing_robot_starts_the_count_again():
    t = MicroTracker(start="pink1", stable=3)
    assert list(t.landings(observe("pink6", "pink6", "hand", "pink6", "pink6", None,
                                   "pink6", "pink6"))) == []
    assert t.update(MicroObservation("pink6", False)).kind == "landed"


def test_putting_the_robot_back_where_it_was_is_no_landing():
    t = MicroTracker(start="pink1", stable=2)
    assert list(t.landings(observe("hand", "pink1", "pink1", "pink1"))) == []


def test_without_a_start_the_first_rest_places_the_robot():
    t = MicroTracker(stable=2)
    kinds = [t.update(o).kind for o in observe("red3", "red3", "red3", "red5", "red5")]
    assert kinds == ["pending", "placed", "steady", "pending", "landed"]


def test_a_tracker_needs_at_least_one_frame():
    with pytest.raises(ValueError, match="stable"):
        MicroTracker(stable=0)


@pytest.mark.slow
def test_a_demonstration_is_judged_from_the_camera():
    """The rule sheet's worked example, played on a rendered table: pink 1 → pink 6 → white 6
    → red 6 → red 2 → white 2, a hand over the board between moves."""
    scene = Scene(tilt=16, rotation=25, noise=3)
    route = ["pink6", "white6", "red6", "red2", "white2"]
    reader = MicroReader(LAYOUT)
    tracker = MicroTracker(start="pink1", stable=2)
    frames = ["pink1"]
    for space in route:
        frames += ["hand", space, space]
    landings = []
    for i, where in enumerate(frames):
        robot = None if where == "hand" else where
        shot = render_micro(LAYOUT, robot or "pink1", seed=9, scene=scene, noise_seed=i,
                            hands=1 if where == "hand" else 0)
        obs = reader.read(shot.image)
        if where == "hand":
            assert obs.occluded
        event = tracker.update(obs)
        if event.kind == "landed":
            landings.append(event.space)
    assert landings == route
    verdict = check_demonstration(LAYOUT, "pink1", "white2", 5, landings, finished=True)
    assert verdict.success


# ---------------------------------------------------------------- companion micro read


@pytest.fixture
def photo(tmp_path) -> str:
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), render_micro(LAYOUT, "pink1", seed=5, tilt=12).image)
    return str(path)


def test_cli_prints_the_rows_their_confidence_and_the_robot(cli, photo):
    code, out, _ = cli("micro", "read", photo)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("board    top-left (")
    assert lines[2].split() == [x.rstrip("*") for x in lines[2].split()] or "*" in lines[2]
    rows = [[x.rstrip("*") for x in line.split()] for line in lines[2:8]]
    assert rows == truth_rows(LAYOUT)
    assert lines[8] == "confidence"
    assert "robot    pink1" in lines


def test_cli_json_and_save(cli, photo, tmp_path):
    saved = tmp_path / "kitchen.json"
    code, out, _ = cli("micro", "read", photo, "--json", "--save", str(saved),
                       "--name", "kitchen")
    assert code == 0
    data = json.loads(out)
    assert data["rows"] == truth_rows(LAYOUT) and data["robot"] == "pink1"
    assert Layout.load(saved) == LAYOUT and Layout.load(saved).name == "kitchen"


def test_cli_with_a_layout_reads_the_robots_space(cli, photo, tmp_path):
    layout = tmp_path / "layout.json"
    LAYOUT.save(layout)
    code, out, _ = cli("micro", "read", photo, "--layout", str(layout))
    assert code == 0 and "robot    pink1" in out
    code, out, _ = cli("micro", "read", photo, "--layout", str(layout), "--json")
    assert json.loads(out)["space"] == "pink1"


def test_cli_a_hand_over_the_board_is_exit_1(cli, tmp_path):
    layout = tmp_path / "layout.json"
    LAYOUT.save(layout)
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), render_micro(LAYOUT, "pink1", seed=61, tilt=12, hands=1).image)
    code, out, _ = cli("micro", "read", str(path), "--layout", str(layout))
    assert code == 1 and out.count("occluded") == 1


def test_cli_failures_exit_1_or_2_with_the_reason(cli, tmp_path):
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    code, out, err = cli("micro", "read", str(black), "--json")
    assert code == 1 and "black" in json.loads(out)["error"] and "black" in err
    code, _, err = cli("micro", "read", str(tmp_path / "none.png"))
    assert code == 2 and "no such file" in err
    code, _, err = cli("micro", "read", str(black), "--corners", "1,2,3")
    assert code == 2 and "--corners" in err
    code, _, err = cli("micro", "read", str(black), "--layout", str(black))
    assert code == 2


def test_cli_will_not_save_a_layout_that_is_not_whole(cli, tmp_path):
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), render_micro(random_layout(44), None, seed=44, tilt=10,
                                        hands=1).image)
    saved = tmp_path / "out.json"
    code, _, err = cli("micro", "read", str(path), "--save", str(saved))
    assert code == 1 and "not saved" in err and not saved.exists()


# ---------------------------------------------------------------- the benchmark


@pytest.mark.slow
def test_bench_micro_vision_prints_its_table_and_writes_json(capsys, tmp_path):
    out = tmp_path / "bench.json"
    code = main(["bench", "micro-vision", "--frames", "3", "--out", str(out), "--quiet"])
    assert code == 0
    text = capsys.readouterr().out
    assert "whole layouts right" in text and "ms per game frame, median" in text
    report = json.loads(out.read_text())
    r = report["results"]
    assert report["benchmark"] == "micro-vision" and r["frames"] == 3
    assert r["spaces_right"] + r["spaces_unread"] + r["spaces_wrong"] == 36 * (
        r["unoccluded"] - r["layouts_not_found"])
    assert set(report["goals"]) >= {"no space ever wrong"}


def test_a_space_parsed_from_a_reading_is_a_space():
    shot = render_micro(LAYOUT, None, seed=1)
    for row in read_micro_layout(shot.image).rows:
        for name in row:
            assert Space.parse(name).name == name
