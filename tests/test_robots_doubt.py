"""Never a wrong position: a robot whose cell would be a guess is reported as not seen, with
the reason, never placed. On rendered frames under the hard conditions (haze, strong colour
casts, glare, dim bluish light, robots on the board's edge), on a frame with a second look-alike
of a robot, and on the real photos in ``../shared/photos/real`` (skipped when absent)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.benchmarks import verify as bench
from companion.board import cell_name, parse_cell
from companion.rules import Position
from companion.vision.colours import Profile
from companion.vision.locate import locate
from companion.vision.read import NORTH_SURE_TILES, Reader, VisionError
from companion.vision.render import HARD, hard_scene, random_position, render
from companion.vision.render3d import Scene3D, gl_available, render3d
from companion.vision.robots import (
    DOUBT_ALIKE,
    DOUBT_LEAD,
    DOUBT_WEAK,
    DOUBT_WEAK_LEAD,
    doubt_of,
    place,
)

REAL = Path(__file__).resolve().parents[2] / "shared" / "photos" / "real"


def _scores(**cells: dict[tuple[int, int], float]) -> dict[str, np.ndarray]:
    out = {}
    for colour, values in cells.items():
        s = np.zeros((16, 16))
        for (c, r), v in values.items():
            s[r, c] = v
        out[colour] = s
    return out


def test_a_clear_reading_is_trusted():
    scores = _scores(blue={(3, 4): 0.9, (9, 9): 0.3}, black={(3, 4): 0.1})
    assert doubt_of("blue", 0.9, 0.6, scores, 3, 4) is None


def test_a_reading_with_a_rival_cell_close_behind_is_doubted():
    scores = _scores(blue={(3, 4): 0.9})
    assert "another cell" in doubt_of("blue", 0.9, DOUBT_LEAD - 0.01, scores, 3, 4)
    faint = DOUBT_WEAK - 0.05
    assert "faint" in doubt_of("blue", faint, DOUBT_WEAK_LEAD - 0.01, scores, 3, 4)
    assert doubt_of("blue", faint, DOUBT_WEAK_LEAD + 0.01, scores, 3, 4) is None


def test_a_cell_that_looks_like_another_robots_colour_too_is_doubted():
    best = 0.8
    scores = _scores(blue={(3, 4): best}, black={(3, 4): best * (DOUBT_ALIKE + 0.05)})
    assert doubt_of("blue", best, 0.5, scores, 3, 4) == (
        f"it looks like the black robot too ({DOUBT_ALIKE + 0.05:.2f})")
    scores["black"][4, 3] = best * (DOUBT_ALIKE - 0.05)
    assert doubt_of("blue", best, 0.5, scores, 3, 4) is None
    scores["black"][4, 3] = best * (DOUBT_ALIKE + 0.05)
    # a black robot standing well elsewhere says nothing of this cell (a polished silver or
    # a dark blue robot may look a little like it)
    scores["black"][10, 12] = best
    assert doubt_of("blue", best, 0.5, scores, 3, 4) is None
    # black and silver are told apart by the print, not by each other's score
    scores = _scores(black={(3, 4): best}, silver={(3, 4): best})
    assert doubt_of("black", best, 0.5, scores, 3, 4) is None


def test_placed_on_clear_cells_the_robots_carry_no_doubt():
    scores = _scores(red={(2, 3): 0.9, (9, 9): 0.2}, blue={(12, 5): 0.8, (2, 3): 0.1},
                     yellow={(5, 14): 0.7})
    hits = place(scores)
    assert {c: (h.col, h.row, h.doubt) for c, h in hits.items()} == {
        "red": (2, 3, None), "blue": (12, 5, None), "yellow": (5, 14, None)}


def test_a_robot_whose_own_best_cell_another_took_is_not_placed_on_its_next_best():
    # pale yellow under haze: green is strongest on the cell, yellow would fall back on a
    # weaker cell elsewhere, which is a guess
    scores = _scores(green={(4, 4): 0.9}, yellow={(4, 4): 0.8, (11, 2): 0.7})
    hits = place(scores)
    assert hits["yellow"].doubt == "it looks most like the green robot's cell"
    assert (hits["yellow"].col, hits["yellow"].row) == (11, 2)
    # … and green's own cell looks like yellow too, which has no better cell of its own
    assert hits["green"].doubt.startswith("it looks like the yellow robot too")
    # a yellow robot standing clearly elsewhere is believed
    scores = _scores(green={(4, 4): 0.9}, yellow={(4, 4): 0.2, (11, 2): 0.8})
    assert {c: h.doubt for c, h in place(scores).items()} == {"green": None, "yellow": None}


def test_a_faint_robot_below_the_bar_is_not_placed_at_all():
    assert place(_scores(red={(2, 3): 0.3})) == {}


def test_a_second_look_alike_of_a_robot_makes_it_not_seen_with_the_reason():
    # the blue robot's picture pasted three cells away (top-down, so it looks the same
    # there): which of the two it is cannot be told, so blue is not placed at all
    pos = Position.from_dict({"board": {"tiles": ["1A", "4B", "3B", "2B"]},
                              "robots": {"red": "c3", "green": "n14", "blue": "f7",
                                         "yellow": "k12"}})
    shot = render(pos, seed=4, size=(960, 720), tilt=0, noise=2)
    clean = Reader(tiles=list(shot.tiles), read_chip=False).read(shot.image)
    assert clean.robots["blue"] == "f7" and clean.doubtful == {}
    image = shot.image.copy()
    cell = (shot.corners[1][0] - shot.corners[0][0]) / 16
    x, y = (int(v) for v in shot.robot_pixels["blue"]["base"])
    h = int(0.6 * cell)
    patch = image[y - h:y + h, x - h:x + h].copy()
    dx = int(round(3 * cell))
    image[y - h:y + h, x + dx - h:x + dx + h] = patch
    obs = Reader(tiles=list(shot.tiles), read_chip=False).read(image)
    assert "blue" not in obs.robots and "blue" in obs.missing
    assert obs.doubtful["blue"].split("?")[0] in ("f7", "i7")
    assert any(n.startswith("no blue robot seen (doubtful: ") for n in obs.notes)
    assert obs.to_dict()["doubtful"] == obs.doubtful
    assert {r: c for r, c in obs.robots.items()} == {
        r: c for r, c in clean.robots.items() if r != "blue"}


def _edge_frame(seed: int, kind: str, size=(960, 720)):
    """A hard frame with one robot moved onto the board's edge (as the measurement does)."""
    rng = np.random.default_rng(seed)
    pos = random_position(rng)
    b = pos.board
    free = [c for c in b.cells() if c not in b.blocked and b.diagonal_at(c) is None
            and b.target_at(c) is None and c not in pos.robots.values()]
    edge = [c for c in free if b.xy(c)[0] in (0, 15) or b.xy(c)[1] in (0, 15)]
    robot = list(pos.robots)[seed % 4]
    pos = pos.with_robots({**pos.robots, robot: edge[int(rng.integers(len(edge)))]})
    return pos, render(pos, seed=seed, size=size, scene=hard_scene(rng, kind))


def _without_walls(image: np.ndarray, px: int = 32, k: int = 9) -> np.ndarray:
    """The picture with the board's thin dark print closed over (walls and lines gone, as under
    a haze too thick for them; robots, targets and the frame stay)."""
    loc = locate(image)
    n = 16 * px
    closed = cv2.morphologyEx(loc.warp(image, px), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    square = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(square, loc.corners.astype(np.float32))
    h, w = image.shape[:2]
    back = cv2.warpPerspective(closed, M, (w, h))
    inside = cv2.erode(cv2.warpPerspective(np.full((n, n), 255, np.uint8), M, (w, h)),
                       np.ones((5, 5), np.uint8)) > 0
    out = image.copy()
    out[inside] = back[inside]
    return out


def test_when_which_way_the_board_lies_is_not_sure_no_robot_is_placed():
    # the walls do not show (closed over, as under a haze too thick for them): only the
    # targets say which way the board lies, not surely enough, and every cell name would be
    # a guess. (Under the hard haze of this frame the walls once hardly showed and north was
    # read the wrong way round; they are read now, so here they are taken away.)
    pos, shot = _edge_frame(9212, "haze")
    obs = Reader(tiles=list(pos.board.tiles), read_chip=False).read(_without_walls(shot.image))
    assert obs.tiles_confidence < NORTH_SURE_TILES, "precondition: north is unsure"
    assert obs.robots == {} and set(obs.doubtful) >= {"blue", "yellow"}
    assert all("which way the board lies is not sure" in why for why in obs.doubtful.values())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(HARD), edge=st.booleans())
def test_under_hard_light_no_robot_is_ever_on_a_wrong_cell(seed, kind, edge):
    rng = np.random.default_rng(seed)
    pos = random_position(rng)
    if edge:  # one robot on the board's edge
        b = pos.board
        free = [c for c in b.cells() if c not in b.blocked and b.diagonal_at(c) is None
                and c not in pos.robots.values() and (b.xy(c)[0] in (0, 15)
                                                      or b.xy(c)[1] in (0, 15))]
        robot = list(pos.robots)[seed % 4]
        pos = pos.with_robots({**pos.robots, robot: free[seed % len(free)]})
    shot = render(pos, seed=seed % 1000, size=(800, 600), scene=hard_scene(rng, kind))
    try:
        obs = Reader(tiles=list(pos.board.tiles), read_chip=False).read(shot.image)
    except VisionError:
        return  # no board found: said so, and no position
    truth = {r: cell_name(c) for r, c in pos.robots.items()}
    wrong = {r: (c, truth[r]) for r, c in obs.robots.items() if r in truth and c != truth[r]}
    assert not wrong, (kind, wrong, obs.doubtful)


def _turned(cell: str, k: int) -> str:
    rank, file = divmod(parse_cell(cell), 16)
    for _ in range(k % 4):
        file, rank = rank, 15 - file
    return cell_name(rank * 16 + file)


@pytest.mark.skipif(not (REAL / "truth.jsonl").exists(), reason="no real photos here")
@pytest.mark.slow
def test_on_real_photos_no_robot_is_ever_on_a_wrong_cell():
    # boards the reader finds: every robot it places stands there (up to a quarter turn of
    # the whole board: nothing fixes north on these photos); a doubtful one is not placed
    read = 0
    for line in (REAL / "truth.jsonl").read_text().splitlines():
        t = json.loads(line)
        image = cv2.imread(str(REAL / t["file"]))
        reader = Reader(profile=Profile().for_robots(list(t["robots"])), read_chip=False)
        try:
            obs = reader.read(image)
        except VisionError:
            continue
        if obs.occluded:
            continue
        read += 1
        placed = {r: c for r, c in obs.robots.items() if r in t["robots"]}
        best = max(range(4), key=lambda k: sum(_turned(t["robots"][r], k) == c
                                               for r, c in placed.items()))
        wrong = {r: c for r, c in placed.items() if _turned(t["robots"][r], best) != c}
        assert not wrong, (t["file"], wrong)
    assert read >= 1


@pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
def test_with_the_tiles_given_a_small_frame_once_read_a_half_turn_wrong_is_read_right():
    # A small 3D frame (bench verify --frames3d, seed 7, 480×360) whose board, tiles given,
    # was read a half turn wrong with confidence 0.81: every robot was named on the cell
    # opposite its own, all four "moved" at once and a demonstration was judged illegal. Its
    # walls, blurred to lines a quarter darker than the cells, are now seen for what they are.
    rnd = random.Random(7)
    rec = next(r for r in (bench.recorded_demo(rnd, k) for k in bench.KINDS)
               if r.kind == "over_bid")
    pos = rec.position.with_robots(rec.states[0])
    scene = Scene3D.random(7000, hands=0.0, timer=0.0, crop=0.0)
    shot = render3d(pos, seed=7000, size=(480, 360), scene=scene)
    obs = Reader(tiles=list(pos.board.tiles), read_chip=False).read(shot.image)
    truth = {r: cell_name(c) for r, c in pos.robots.items()}
    assert obs.tiles_confidence >= NORTH_SURE_TILES
    assert obs.robots == truth
