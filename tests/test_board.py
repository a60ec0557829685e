"""The board: cell names, tile assembly against quadrants data, explicit boards."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.board import (
    DIRECTIONS,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Board,
    BoardError,
    Direction,
    cell_name,
    parse_cell,
    tile_library,
    tile_names,
)

LIB = tile_library()["quadrants"]
BY_NUMBER = {n: [t for t in LIB if LIB[t]["board"] == n] for n in (1, 2, 3, 4)}


def test_a1_is_the_south_west_corner_and_p16_the_north_east():
    assert parse_cell("a1") == 0
    assert parse_cell("b1") == 1
    assert parse_cell("a2") == 16
    assert parse_cell("p16") == 255
    assert cell_name(255) == "p16"


@given(st.integers(2, 26), st.data())
def test_cell_names_round_trip_on_any_board_size(size, data):
    cell = data.draw(st.integers(0, size * size - 1))
    assert parse_cell(cell_name(cell, size), size) == cell


@pytest.mark.parametrize("bad", ["q1", "a17", "a0", "11", "", "aa", "c-2", None])
def test_bad_cell_names_are_rejected_with_the_name(bad):
    with pytest.raises(ValueError) as e:
        parse_cell(bad)
    assert repr(bad) in str(e.value)


def test_direction_words_parse_and_print():
    for d in DIRECTIONS:
        assert Direction.parse(d.word) is d
        assert Direction.parse(d.word.upper()) is d
    assert UP.opposite is DOWN and LEFT.opposite is RIGHT
    assert UP.is_perpendicular(LEFT) and not UP.is_perpendicular(DOWN)
    with pytest.raises(ValueError, match="sideways"):
        Direction.parse("sideways")


def test_the_library_has_the_sixteen_sides_with_provenance_and_aliases():
    assert sorted(tile_names()) == sorted(f"{n}{s}" for n in "1234" for s in "ABCD")
    lib = tile_library()
    assert "DriftingDroids" in lib["sources"]
    assert all("aliases" in t for t in LIB.values())


# ---------------------------------------------------------------- tile placement
# An independent statement of the placement: rotate the tile's local grid (y north→south) by
# quarter turns clockwise, counting screen directions N, E, S, W.


def _rotate_cw(x: int, y: int, turns: int) -> tuple[int, int]:
    for _ in range(turns):
        x, y = 15 - y, x
    return x, y


_LOCAL_DIR = {"S": 2, "E": 1}  # screen direction index N=0, E=1, S=2, W=3
_SCREEN_TO_DIR = {0: UP, 1: RIGHT, 2: DOWN, 3: LEFT}


def _board_with(tile: str, quadrant: int) -> Board:
    number = LIB[tile]["board"]
    others = [n for n in (1, 2, 3, 4) if n != number]
    names = [f"{n}A" for n in others]
    names.insert(quadrant, tile)
    return Board.from_tiles(names)


def _cell(x: int, y: int) -> int:
    return (15 - y) * 16 + x


@pytest.mark.parametrize("tile", sorted(LIB))
@pytest.mark.parametrize("quadrant", range(4))
def test_every_tile_in_every_quadrant_matches_the_tile_data(tile, quadrant):
    board = _board_with(tile, quadrant)
    data = LIB[tile]
    expected_walls = set()
    for x, y, side in data["walls"]:
        X, Y = _rotate_cw(x, y, quadrant)
        d = _SCREEN_TO_DIR[(_LOCAL_DIR[side] + quadrant) % 4]
        expected_walls.add((_cell(X, Y), d))
        assert board.has_wall(_cell(X, Y), d), (tile, quadrant, x, y, side)
        nxt = board.neighbour(_cell(X, Y), d)
        if nxt is not None:
            assert board.has_wall(nxt, d.opposite)
    # No wall inside the tile's area beyond the listed ones, the edge and the centre block.
    area = {_cell(*_rotate_cw(x, y, quadrant)) for x in range(8) for y in range(8)}
    for c in area:
        for d in DIRECTIONS:
            if not board.has_wall(c, d):
                continue
            nxt = board.neighbour(c, d)
            listed = (c, d) in expected_walls or (nxt, d.opposite) in expected_walls
            boundary = nxt is None or c in board.blocked or nxt in board.blocked
            across = nxt is not None and nxt not in area  # owned by the neighbouring tile
            assert listed or boundary or across, (tile, quadrant, board.name(c), d)
    for t in data["targets"]:
        target = board.target_at(_cell(*_rotate_cw(t["x"], t["y"], quadrant)))
        assert target is not None and (target.color, target.shape) == (t["color"], t["shape"])
    for dg in data.get("diagonals", []):
        diag = board.diagonal_at(_cell(*_rotate_cw(dg["x"], dg["y"], quadrant)))
        assert diag is not None and diag.color == dg["color"]
        flipped = {"/": "\\", "\\": "/"}[dg["orientation"]]
        assert diag.orientation == (flipped if quadrant % 2 else dg["orientation"])


@pytest.mark.slow
def test_every_legal_four_tile_board_has_17_targets_and_a_walled_centre():
    centre = {parse_cell(n) for n in ("h8", "i8", "h9", "i9")}
    count = 0
    for sides in itertools.product(*(BY_NUMBER[n] for n in (1, 2, 3, 4))):
        for order in itertools.permutations(sides):
            board = Board.from_tiles(order)
            assert len(board.targets) == 17
            assert len({t.cell for t in board.targets}) == 17
            assert sum(t.is_vortex for t in board.targets) == 1
            assert set(board.blocked) == centre
            count += 1
    assert count == 256 * 24


def test_the_centre_block_is_walled_on_all_sides():
    board = Board.from_tiles(["1A", "2A", "3A", "4A"])
    for name, outward in (("h9", (UP, LEFT)), ("i9", (UP, RIGHT)), ("h8", (DOWN, LEFT)),
                          ("i8", (DOWN, RIGHT))):
        c = parse_cell(name)
        for d in outward:
            assert board.has_wall(c, d)
            assert board.has_wall(board.neighbour(c, d), d.opposite)


def test_two_sides_of_one_board_cannot_be_used_together():
    with pytest.raises(BoardError, match="1A and 1B are two sides of the same board 1"):
        Board.from_tiles(["1A", "1B", "3A", "4A"])


@pytest.mark.parametrize("tiles,message", [
    (["1A", "2A", "3A"], "four tile sides"),
    (["1A", "2A", "3A", "9Z"], "unknown tile '9Z'"),
])
def test_bad_tile_lists_are_named(tiles, message):
    with pytest.raises(BoardError, match=message):
        Board.from_tiles(tiles)


# ---------------------------------------------------------------- explicit boards


def test_explicit_board_with_walls_blocked_targets_diagonals_and_openings():
    board = Board.from_dict({
        "size": 6,
        "walls": [["c4", "up"], ["b2", "right"]],
        "blocked": ["f6"],
        "targets": [{"cell": "d4", "color": "blue", "shape": "triangle"}],
        "diagonals": [{"cell": "e5", "color": "red", "orientation": "/"}],
        "openings": [["a3", "left"]],
    })
    c4, c5 = board.cell("c4"), board.cell("c5")
    assert board.has_wall(c4, UP) and board.has_wall(c5, DOWN)
    assert board.has_wall(board.cell("c2"), LEFT)
    assert board.is_opening(board.cell("a3"), LEFT)
    assert not board.has_wall(board.cell("a3"), LEFT)
    assert board.has_wall(board.cell("a2"), LEFT)
    assert board.has_wall(board.cell("f5"), UP)  # the blocked cell walls itself off
    assert board.target_by("blue", "triangle").cell == board.cell("d4")
    assert board.diagonal_at(board.cell("e5")).orientation == "/"
    again = Board.from_dict(json.loads(json.dumps(board.to_dict())))
    assert again == board


@pytest.mark.parametrize("data,message", [
    ({"size": 6, "colour": 1}, "unknown key 'colour'"),
    ({"size": 1}, "board.size"),
    ({"size": 6, "walls": [["z9", "up"]]}, r"board.walls\[0\]"),
    ({"size": 6, "walls": [["c3", "sideways"]]}, "unknown direction"),
    ({"size": 6, "openings": [["c3", "left"]]}, "not on the board edge"),
    ({"size": 6, "diagonals": [{"cell": "c3", "color": "red", "orientation": "|"}]},
     "orientation"),
    ({"size": 6, "targets": [{"cell": "c3", "color": "pink", "shape": "circle"}]}, "pink"),
    ({"tiles": ["1A", "2A", "3A", "4A"], "size": 16}, "unknown key 'size'"),
    ({"walls": []}, "give 'tiles', or 'size'"),
])
def test_bad_explicit_boards_name_the_field(data, message):
    with pytest.raises(BoardError, match=message):
        Board.from_dict(data)
