"""Learning the table at a confirmed start (:mod:`companion.vision.adapt`): on frames of the 3D
renderer, the lesson reads the round better than the default colours and never puts a robot on
a wrong cell; a start that is not what the frame shows teaches nothing wrong; the live feed
learns from the frames of a confirmed start."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules import Position
from companion.vision.adapt import MAX_TURN, implausible, learn_start
from companion.vision.colours import DEFAULT_REFERENCES, Profile
from companion.vision.read import reader_for
from companion.vision.render3d import Scene3D, gl_available, render3d

needs_gl = pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
LOOKED = ("red", "green", "blue", "yellow", "black")

# bench verify's seed 7003 start (480×360): the cold reader sees only blue surely
TILES = ["3C", "2B", "4C", "1D"]
START = {"red": "i10", "green": "i7", "blue": "o11", "yellow": "b11"}


def small_3d(robots: dict[str, str], seed: int = 7003) -> object:
    scene = replace(Scene3D.random(seed, hands=0.0, timer=0.0, crop=0.0), hand=False)
    pos = Position.from_dict({"board": {"tiles": TILES}, "robots": robots})
    return render3d(pos, seed=seed, size=(480, 360), scene=scene).image


def test_a_colour_far_from_the_robots_own_is_not_learnt():
    blue = DEFAULT_REFERENCES["blue"]
    assert implausible("blue", (30.0, 14.0, -33.0), blue) is None  # this table's blue
    assert "hue" in implausible("blue", (60.0, 20.0, 30.0), blue)  # a hand over it
    assert "too little colour" in implausible("blue", (85.0, 1.0, -3.0), blue)  # empty cell
    black = DEFAULT_REFERENCES["black"]
    assert implausible("black", (22.0, 2.0, 1.0), black) is None
    assert "colour" in implausible("black", (30.0, 25.0, 10.0), black)
    assert "lightness" in implausible("black", (85.0, 0.0, 0.0), black)
    assert 0.3 < MAX_TURN < 1.0


def test_no_frame_is_a_clear_error():
    with pytest.raises(ValueError, match="no frame"):
        learn_start([], START, tiles=TILES)


@needs_gl
def test_the_start_teaches_colours_that_read_the_round_better_and_never_on_a_wrong_cell():
    base = Profile().for_robots(LOOKED)
    lesson = learn_start([small_3d(START)], START, tiles=TILES, base=base)
    assert {"green", "yellow"} <= set(lesson.learnt)
    assert lesson.to_dict()["learnt"] == list(lesson.learnt)
    later = {**START, "green": "i1", "yellow": "b16"}  # two moves after the start
    image = small_3d(later)
    cold = reader_for(TILES, robots=LOOKED).read(image)
    warm = reader_for(TILES, robots=LOOKED, profile=lesson.profile).read(image)
    for obs in (cold, warm):
        assert all(later[c] == cell for c, cell in obs.robots.items()), obs.robots
    # the lesson reads the round wholly (cold, the reader now does too: a diagonal of a
    # robot's colour no longer rivals it)
    assert warm.robots == later and len(warm.robots) >= len(cold.robots)


@needs_gl
def test_a_start_that_is_not_what_the_frame_shows_teaches_nothing_wrong():
    # the players confirmed red and blue the other way round, and yellow on an empty cell:
    # red's cell shows blue plastic, yellow's shows the board
    told = {**START, "red": START["blue"], "blue": START["red"], "yellow": "e5"}
    lesson = learn_start([small_3d(START)], told, tiles=TILES,
                         base=Profile().for_robots(LOOKED))
    assert not {"red", "blue", "yellow"} & set(lesson.learnt)
    assert {"red", "blue", "yellow"} <= set(lesson.kept)
    obs = reader_for(TILES, robots=LOOKED, profile=lesson.profile).read(small_3d(START))
    assert all(START[c] == cell for c, cell in obs.robots.items())


@needs_gl
@pytest.mark.slow
def test_over_demonstrations_the_lesson_adds_no_robot_on_a_wrong_cell():
    from companion.benchmarks.adapt import frames3d_rows

    result = frames3d_rows(3, 11, (480, 360), True)
    cold, warm = result["rows"]["cold"], result["rows"]["learnt"]
    assert warm["wrong"] <= cold["wrong"] == 0
    assert sum(warm.values()) == sum(cold.values()) == 4 * result["lessons"]["frames"]
    assert warm["right"] >= cold["right"]



def test_this_tables_bar_lets_stand_only_a_robot_both_readers_put_on_one_cell():
    from companion.vision.cells import CellVerdict
    from companion.vision.read import agreed
    from companion.vision.robots import RobotHit

    before = {"red": RobotHit("red", 3, 4, 0.9, 0.5, None),
              "blue": RobotHit("blue", 6, 6, 0.8, 0.4, None),
              "green": RobotHit("green", 1, 1, 0.7, 0.05, "another cell looks nearly as much")}
    unsure = "the cell classifier is not sure of it"
    after = {c: RobotHit(c, h.col, h.row, h.score, h.margin, h.doubt or unsure)
             for c, h in before.items()}
    said = {"red": CellVerdict("red", None, 0.7, 0.5, (3, 4)),
            "blue": CellVerdict("blue", None, 0.7, 0.5, (6, 7)),  # its best cell is another
            "green": CellVerdict("green", None, 0.9, 0.8, (1, 1))}
    bars = {"red": (0.6, 0.3), "blue": (0.6, 0.3), "green": (0.6, 0.3)}
    out = agreed(before, after, said, bars)
    assert out["red"].doubt is None and (out["red"].col, out["red"].row) == (3, 4)
    assert out["blue"].doubt == unsure  # the two readers name different cells
    assert out["green"] == after["green"]  # the colour scores were not sure of it
    # below this table's bar, or without one, nothing changes
    assert agreed(before, after, said, {"red": (0.75, 0.3)})["red"].doubt == unsure
    assert agreed(before, after, said, {})["red"].doubt == unsure
    # a cell another robot already holds is not given to a second
    held = {**after, "yellow": RobotHit("yellow", 3, 4, 0.9, 0.5, None)}
    assert agreed(before, held, said, bars)["red"].doubt == unsure
