"""Tile identification from walls and targets: rendered boards over all 16 sides, north from
given tiles or from markers, a board that does not fit, and loose tiles on real print."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import tile_names
from companion.rules import Position
from companion.vision.locate import from_corners, locate
from companion.vision.render import Scene, random_position, render
from companion.vision.tileid import TileError, read_loose_tile, read_tiles

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"

# Four boards that use every one of the 16 sides once.
BOARDS = [("1A", "2B", "3C", "4D"), ("2A", "3B", "4C", "1D"), ("3A", "4B", "1C", "2D"),
          ("4A", "1B", "2C", "3D")]


def _shot(tiles, seed, **scene):
    pos = Position.from_dict({"board": {"tiles": list(tiles)},
                              "robots": {"red": "a1", "green": "p16", "blue": "c14",
                                         "yellow": "n3"}})
    return render(pos, seed=seed, **scene)


def _rotations(tiles):
    t = tuple(tiles)
    return {t[k:] + t[:k] for k in range(4)}


def test_all_sixteen_sides_are_among_the_test_boards():
    assert sorted(s for b in BOARDS for s in b) == sorted(tile_names())


@pytest.mark.parametrize("i", range(4))
def test_every_side_identified_on_a_rendered_board(i):
    tiles = BOARDS[i]
    shot = _shot(tiles, seed=40 + i, tilt=8 * i, rotation=70 * i + 10, noise=3)
    loc = locate(shot.image, use_markers=False)
    reading = read_tiles(shot.image, loc)
    # Without markers north is the picture's top: the same board, maybe named from another side.
    assert reading.tiles in _rotations(tiles)
    assert reading.confidence > 0.99


def test_walls_under_glare_and_dim_light_identify_the_board():
    # A dim room with a strong glare spot over one tile: its walls are lifted to the light
    # of the cells elsewhere, but still darker than the cells beside them.
    rng = np.random.default_rng(9090)
    pos = random_position(rng, robots=("red", "green", "blue", "yellow", "black"))
    shot = render(pos, seed=9090, scene=Scene.random(rng))
    assert shot.scene.glare > 0.5 and shot.scene.brightness < 0.5
    reading = read_tiles(shot.image, locate(shot.image, use_markers=False))
    assert reading.tiles in _rotations(shot.tiles)
    assert reading.confidence > 0.99


def test_given_tiles_fix_north():
    tiles = BOARDS[1]
    shot = _shot(tiles, seed=50, tilt=20, rotation=123)
    loc = locate(shot.image, use_markers=False)
    reading = read_tiles(shot.image, loc, tiles=list(tiles))
    oriented = loc.rotated(reading.rotation)
    assert np.abs(oriented.corners - shot.corners).max() < 0.15 * 40


def test_markers_fix_north_without_tiles():
    tiles = BOARDS[2]
    shot = _shot(tiles, seed=51, tilt=15, rotation=250, markers=True)
    loc = locate(shot.image)
    assert loc.method == "markers"
    assert read_tiles(shot.image, loc).tiles == tiles


def test_a_board_that_does_not_fit_the_walls_is_an_error():
    shot = _shot(BOARDS[0], seed=52, tilt=5)
    loc = from_corners(shot.corners, (1280, 960))
    with pytest.raises(TileError, match="does not match"):
        read_tiles(shot.image, loc, tiles=list(BOARDS[3]))


def test_an_unknown_tile_name_is_an_error():
    shot = _shot(BOARDS[0], seed=53)
    loc = from_corners(shot.corners, (1280, 960))
    with pytest.raises(TileError, match="unknown tile"):
        read_tiles(shot.image, loc, tiles=["1A", "2B", "3C", "9Z"])


# Each loose tile's extent on the photos, by eye to within a third of a cell: (x0, y0, x1, y1).
LOOSE = [
    ("tiles-side-A.jpg", "1A", (405, 118, 700, 402)),
    ("tiles-side-A.jpg", "2A", (712, 118, 1000, 402)),
    ("tiles-side-A.jpg", "4A", (398, 408, 697, 708)),
    ("tiles-side-A.jpg", "3A", (710, 412, 1008, 715)),
    ("tiles-side-B.jpg", "1B", (285, 40, 605, 358)),
    ("tiles-side-B.jpg", "2B", (620, 32, 975, 362)),
    ("tiles-side-B.jpg", "4B", (272, 380, 612, 718)),
    ("tiles-side-B.jpg", "3B", (608, 382, 975, 725)),
]


@pytest.mark.skipif(not (PHOTOS / "tiles-side-A.jpg").exists(), reason="real photos absent")
@pytest.mark.parametrize("photo,side,box", LOOSE, ids=[t[1] for t in LOOSE])
def test_real_printed_tiles_identified_by_their_walls(photo, side, box):
    x0, y0, x1, y1 = box
    ranked = read_loose_tile(cv2.imread(str(PHOTOS / photo)), [(x0, y0), (x1, y0), (x1, y1),
                                                              (x0, y1)])
    score, name, _ = ranked[0]
    assert name == side
    runner_up = next(r for r in ranked if r[1] != name)
    assert score - runner_up[0] > 8


@pytest.mark.skipif(not (PHOTOS / "game-oblique-24moves.jpg").exists(),
                    reason="real photos absent")
def test_real_game_photo_tiles():
    image = cv2.imread(str(PHOTOS / "game-oblique-24moves.jpg"))
    reading = read_tiles(image, locate(image))
    assert reading.tiles == ("1A", "4B", "3B", "2B")
    assert reading.confidence > 0.99


# The start frames of two of ``companion bench verify``'s 3D demonstrations (seed 7: render
# seeds 7000 and 7003) at 480×360: the board about 140 pixels across, its walls blurred to
# lines a quarter darker than the cells. A fixed measure of "dark" saw no walls there, so the
# true tiles were refused ("looks more like 4D, 1D, 3C, 2D") or north was read a quarter off.
SMALL_3D = [
    (7000, ["2B", "4A", "3D", "1C"], {"red": "g7", "green": "h11", "blue": "o1", "yellow": "p16"}),
    (7003, ["3C", "2B", "4C", "1D"], {"red": "i10", "green": "i7", "blue": "o11", "yellow": "b11"}),
]


def _small_3d(seed, tiles, robots):
    from dataclasses import replace

    from companion.vision.render3d import Scene3D, gl_available, render3d

    if gl_available() is not None:
        pytest.skip("no OpenGL for the 3D renderer")
    scene = Scene3D.random(seed, hands=0.0, timer=0.0, crop=0.0)
    pos = Position.from_dict({"board": {"tiles": tiles}, "robots": robots})
    return render3d(pos, seed=seed, size=(480, 360), scene=replace(scene, hand=False))


@pytest.mark.parametrize("seed, tiles, robots", SMALL_3D)
def test_walls_blurred_on_a_small_frame_still_fix_north_and_the_true_tiles(seed, tiles, robots):
    from companion.vision.read import Reader

    shot = _small_3d(seed, tiles, robots)
    loc = locate(shot.image)
    reading = read_tiles(shot.image, loc, tiles=tiles)  # no "does not match": they are true
    assert reading.confidence > 0.9
    cell = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
    assert np.abs(loc.rotated(reading.rotation).corners - shot.corners).max() < 0.5 * cell
    free = read_tiles(shot.image, loc)  # and read from scratch, the same board
    assert free.tiles in _rotations(tiles) and free.confidence > 0.9
    obs = Reader(tiles=tiles, read_chip=False).read(shot.image)
    assert obs.robots and all(robots[c] == cell for c, cell in obs.robots.items())


@pytest.mark.parametrize("seed, tiles, robots", SMALL_3D)
def test_a_wrong_board_is_still_refused_on_the_small_frame(seed, tiles, robots):
    shot = _small_3d(seed, tiles, robots)
    loc = locate(shot.image)
    other = {"A": "C", "B": "D", "C": "A", "D": "B"}  # every tile on its other side
    with pytest.raises(TileError, match="does not match"):
        read_tiles(shot.image, loc, tiles=[t[0] + other[t[1]] for t in tiles])
