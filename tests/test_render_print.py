"""Boards printed in other styles in the project's renderer (``Scene.print_variety``): the cell
classifier is trained on them as empty cells, so that another edition's targets, or a symbol
of a robot's colour anywhere, is not taken for a robot."""

import numpy as np
import pytest

from companion.vision.render import (
    BORDER,
    PX,
    Scene,
    board_texture,
    print_odd,
    random_position,
    render,
)


def _cell_box(board, cell, inner: float = 1.0) -> tuple[slice, slice]:
    """The texture's pixels of one cell (its middle ``inner`` share)."""
    f, r = board.xy(cell)
    pad = PX * (1 - inner) / 2
    x0 = int(round(BORDER * PX + f * PX + pad))
    y0 = int(round(BORDER * PX + (board.height - 1 - r) * PX + pad))
    n = int(round(PX * inner))
    return slice(y0, y0 + n), slice(x0, x0 + n)


def test_without_print_variety_the_frame_is_unchanged_and_with_it_only_the_print_changes():
    pos = random_position(5)
    plain = render(pos, seed=5, size=(320, 240), tilt=20)
    same = render(pos, seed=5, size=(320, 240), tilt=20, print_variety=0.0)
    assert np.array_equal(plain.image, same.image) and same.printed == frozenset()
    odd = render(pos, seed=5, size=(320, 240), tilt=20, print_variety=1.0)
    assert not np.array_equal(plain.image, odd.image)
    assert np.allclose(plain.corners, odd.corners) and plain.robots == odd.robots
    board = pos.board
    banned = set(board.blocked) | {t.cell for t in board.targets} | {
        d.cell for d in board.diagonals}
    assert odd.printed and not (odd.printed & banned)
    # the robots' pixels are where they were: the print lies under them
    assert np.array_equal(plain.robot_mask > 0, odd.robot_mask > 0)


def test_odd_print_redraws_the_targets_and_marks_free_cells_leaving_the_walls():
    pos = random_position(8)
    board = pos.board
    tex = board_texture(board)
    same, none = print_odd(tex, board, np.random.default_rng(1), 0.0)
    assert np.array_equal(same, tex) and none == frozenset()
    odd, marked = print_odd(tex, board, np.random.default_rng(1), 1.0)
    changed = [t for t in board.targets if not t.is_vortex and not np.array_equal(
        odd[_cell_box(board, t.cell)], tex[_cell_box(board, t.cell)])]
    assert len(changed) == sum(not t.is_vortex for t in board.targets)
    assert marked and all(not np.array_equal(odd[_cell_box(board, c)],
                                             tex[_cell_box(board, c)]) for c in marked)
    # nothing outside the cells' inner part changes: walls, grid lines, frame, centre piece
    outside = np.ones(tex.shape[:2], bool)
    for c in set(marked) | {t.cell for t in board.targets}:
        outside[_cell_box(board, c, 0.8)] = False
    assert np.array_equal(odd[outside], tex[outside])
    # drawn again from the same seed, the same print
    again, marked2 = print_odd(tex, board, np.random.default_rng(1), 1.0)
    assert np.array_equal(again, odd) and marked2 == marked


def test_a_print_variety_that_is_not_a_share_is_refused():
    pos = random_position(2)
    with pytest.raises(ValueError, match="print variety: 1.5"):
        print_odd(board_texture(pos.board), pos.board, np.random.default_rng(0), 1.5)
    with pytest.raises(ValueError, match="print variety"):
        render(pos, seed=1, size=(160, 120), scene=Scene(print_variety=-0.2))
