"""The board found on tables as pale as its cells, and a hand over it said to cover it, on
frames of the 3D source (made apart from the renderer the reader grew up with).

These tests need OpenGL through EGL (moderngl, Mesa), as the 3D source's own tests do."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import render3d as r3
from companion.vision.locate import from_corners, lined_quads
from companion.vision.read import Reader, VisionError, bare_cells, read_frame

TILES = ["1A", "4B", "3B", "2B"]
POS = {"board": {"tiles": TILES},
       "robots": {"red": "o14", "blue": "n5", "green": "c3", "yellow": "h12"}}

# Tables as pale and as colourless as the cells, where the printed frame is a thin grey line
# that does not part them (the board's outline runs on into the table): each was "no board in
# view" before the board was also looked for where its lines are dense.
PALE = {
    "grey table under haze, a third of the picture": dict(
        table="grey", fill=0.34, haze=0.28, tilt=2, azimuth=30, roll=20, shift=(0.5, 0.2)),
    "pale glossy table, a third of the picture": dict(
        table="glossy", table_tint=(0.9, 0.9, 0.9), fill=0.35, tilt=16, azimuth=120,
        shift=(0.6, 0.5)),
    "pale glossy table under haze": dict(
        table="glossy", table_tint=(0.8, 0.8, 0.8), fill=0.6, tilt=25, azimuth=200, haze=0.3),
    "white table": dict(table="white", fill=0.36, tilt=10, azimuth=45),
}
SLOW_PALE = {"pale glossy table under haze", "white table"}


def _corner_error(found, truth) -> float:
    """How far the corners found lie from the true ones, in pixels, whichever corner was
    taken for the first (north is the tiles' to tell)."""
    found = np.asarray(found, dtype=np.float64)
    return min(float(np.abs(np.roll(found, k, axis=0) - truth).max()) for k in range(4))


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_PALE
                                  else n for n in PALE])
def test_a_board_on_a_table_as_pale_as_its_cells_is_found(name):
    shot = r3.render3d(POS, seed=3, size=(960, 720), **PALE[name])
    obs = read_frame(shot.image, chip=False)
    cell = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
    assert _corner_error(obs.corners, shot.corners) < 0.2 * cell
    # the same physical board, whichever way it was turned
    assert any(tuple(obs.tiles) == tuple(TILES[k:] + TILES[:k]) for k in range(4))


def test_lined_regions_hold_the_board_and_a_plain_table_has_none():
    shot = r3.render3d(POS, seed=3, size=(960, 720), **PALE["white table"])
    quads = lined_quads(shot.image)
    assert quads
    inside = cv2.pointPolygonTest(quads[0].astype(np.float32).reshape(-1, 1, 2),
                                  tuple(float(v) for v in shot.corners.mean(axis=0)), False)
    assert inside > 0
    # every corner of the board lies within the first region's quadrilateral
    poly = quads[0].astype(np.float32).reshape(-1, 1, 2)
    assert all(cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0
               for x, y in shot.corners)
    rng = np.random.default_rng(0)
    table = np.clip(rng.normal(170, 6, (720, 960, 3)), 0, 255).astype(np.uint8)
    assert lined_quads(cv2.GaussianBlur(table, (5, 5), 0)) == []


def test_ruled_paper_is_not_taken_for_a_board():
    """Dense thin lines that are not a board's 16 × 16 cells: refused, with a reason."""
    img = np.full((720, 960, 3), 120, np.uint8)
    cv2.rectangle(img, (250, 150), (650, 550), (235, 235, 235), -1)
    for k in range(0, 401, 10):
        cv2.line(img, (250 + k, 150), (250 + k, 550), (90, 90, 90), 1)
        cv2.line(img, (250, 150 + k), (650, 150 + k), (90, 90, 90), 1)
    assert lined_quads(img)  # it is looked at
    with pytest.raises(VisionError, match="no board in view"):
        read_frame(img, chip=False)


# A pale hand over a board seen a moment before without it, each read as a position before
# the cells' print was looked for: a hand shows none.
HANDS = {
    "grey table, glare": (dict(table="grey", fill=0.85, tilt=15, azimuth=40, glare=0.6), 1),
    "felt table": (dict(table="felt", fill=0.8, tilt=25, azimuth=200), 2),
}


@pytest.mark.parametrize("name", [n if i == 0 else pytest.param(n, marks=pytest.mark.slow)
                                  for i, n in enumerate(HANDS)])
def test_a_hand_over_the_board_is_said_to_cover_it(name):
    scene, hand = HANDS[name]
    clear = r3.render3d(POS, seed=3, size=(640, 480), **scene)
    covered = r3.render3d(POS, seed=3, size=(640, 480), hand=True, hand_seed=hand, **scene)
    assert covered.occluded and not clear.occluded
    reader = Reader(tiles=TILES, read_chip=False)
    before = reader.read(clear.image)
    assert not before.occluded and before.robots == POS["robots"]
    obs = reader.read(covered.image)
    assert obs.occluded and obs.robots == {}
    with pytest.raises(VisionError, match="covered"):
        obs.position()


def test_the_cells_without_print_are_those_under_the_hand():
    scene, hand = HANDS["grey table, glare"]
    size = (640, 480)
    for with_hand in (False, True):
        shot = r3.render3d(POS, seed=3, size=size, hand=with_hand, hand_seed=hand, **scene)
        bare = bare_cells(shot.image, from_corners(shot.corners, size))
        hidden = set()
        for c in shot.hidden_cells:
            x, y = shot.board.xy(c)
            hidden.add((16 - 1 - y, x))  # (row from the north, column)
        centre = {(r, c) for r in (7, 8) for c in (7, 8)}
        seen = {(int(r), int(c)) for r, c in zip(*np.nonzero(bare), strict=True)}
        assert seen <= hidden | centre  # never a printed cell in the open
        if with_hand:
            assert len(seen & hidden) >= 8
        else:
            assert not seen - centre


def test_the_sand_timer_on_the_centre_piece_does_not_cover_the_board():
    """Seen steeply from the side, the timer hides cells beyond the centre piece: they are
    its, not a hand's (the frame was said to be covered before)."""
    shot = r3.render3d(POS, seed=3, size=(640, 480), timer=True, table="grey", tilt=44,
                       azimuth=250, fill=0.8)
    reader = Reader(tiles=TILES, read_chip=False)
    reader.read(shot.image)
    obs = reader.read(shot.image)
    assert not obs.occluded and obs.occluded_cells == []
    assert obs.robots and all(POS["robots"][r] == c for r, c in obs.robots.items())
    # a hand over the board beside it is still seen
    scene, hand = HANDS["grey table, glare"]
    clear = r3.render3d(POS, seed=3, size=(640, 480), timer=True, **scene)
    covered = r3.render3d(POS, seed=3, size=(640, 480), hand=True, hand_seed=hand,
                          timer=True, **scene)
    reader = Reader(tiles=TILES, read_chip=False)
    assert not reader.read(clear.image).occluded
    assert reader.read(covered.image).occluded
