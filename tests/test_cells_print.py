"""The board's print in the robots' colours in the cell classifier's decision
(``cells.Printed``): a diagonal barrier of a robot's colour looks like the robot to both
readers and is never where it stands; a printed target of its colour far from the robot is set
aside only when the evidence says it is print, and a robot on its own target still stands."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import class_probs

from companion.board import Board, cell_name
from companion.vision.cells import (
    ALONE,
    CLASSES,
    NEAR_LEAD,
    SIBLING,
    Printed,
    TargetLook,
    decide,
    set_aside,
    unprinted,
)
from companion.vision.colours import Profile
from companion.vision.locate import locate
from companion.vision.read import Reader, grid_cell_name, printed_cells, rotate_cell
from companion.vision.render3d import gl_available, random_frame
from companion.vision.robots import RobotHit, prepare, score_cells

needs_gl = pytest.mark.skipif(gl_available() is not None, reason="no OpenGL for the 3D renderer")
TILES = ["1A", "4B", "3D", "2B"]  # 3D carries coloured diagonals


def _score(values: dict[tuple[int, int], float]) -> np.ndarray:
    s = np.zeros((16, 16))
    for (c, r), v in values.items():
        s[r, c] = v
    return s


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("tiles", [TILES, ["2D", "1D", "4D", "3D"]])
def test_the_print_is_named_in_the_grid_read_whichever_way_the_board_lies(tiles, k):
    board = Board.from_tiles(tiles)
    printed = printed_cells(board, k)
    assert board.diagonals  # the property means something only with barriers on the board
    for mark in (*board.targets, *board.diagonals):
        if mark.color == "any":
            continue
        where = printed.barriers if mark in board.diagonals else printed.targets
        names = {grid_cell_name(*rotate_cell(c, r, k)) for c, r in where[mark.color]}
        assert cell_name(mark.cell) in names
    assert sum(map(len, printed.targets.values())) == 16
    assert sum(map(len, printed.barriers.values())) == len(board.diagonals)


def test_a_barrier_of_the_robots_colour_is_no_cell_of_it():
    printed = Printed({}, {"green": frozenset({(4, 5)})})
    scores = {"green": _score({(4, 5): 0.7, (9, 9): 0.4}), "red": _score({(4, 5): 0.6})}
    hits = {"green": RobotHit("green", 4, 5, 0.7, 0.3), "red": RobotHit("red", 4, 5, 0.6, 0.3)}
    s, h = unprinted(scores, hits, printed)
    assert s["green"][5, 4] == -1.0 and s["green"][9, 9] == 0.4
    assert h["green"].doubt is not None and "diagonal" in h["green"].doubt
    # another colour's barrier is print of another colour: that robot may stand there
    assert h["red"].doubt is None and s["red"][5, 4] == 0.6
    # the caller's arrays are left as they were
    assert scores["green"][5, 4] == 0.7 and hits["green"].doubt is None
    assert unprinted(scores, hits, None) == (scores, hits)


CELLS = np.array([[4, 5], [11, 2], [2, 12], [13, 13], [6, 14]])
RED = CLASSES.index("red")


def _look(said: dict[tuple[int, int], dict[str, float]]):
    def look(more: np.ndarray) -> np.ndarray:
        return class_probs([said.get((int(c), int(r)), {}) for c, r in more])
    return look


def _marks(look, probs: np.ndarray, targets: frozenset) -> TargetLook:
    return TargetLook(look, probs.copy(), CELLS, Printed({"red": targets}))


def test_a_far_target_is_set_aside_when_its_siblings_look_as_much_like_the_robot():
    targets = frozenset({(11, 2), (2, 12), (9, 9), (0, 3)})
    probs = class_probs([{"red": 0.99}, {"red": 0.9}, {"red": 0.75}, {}, {}])
    scores = {"red": _score({(4, 5): 0.5, (11, 2): 0.2, (2, 12): 0.25})}
    out = set_aside(_marks(_look({}), probs, targets), probs, scores, "red")
    assert probs[1, RED] == 0.0 and probs[2, RED] == 0.0 and probs[0, RED] == 0.99
    assert out["red"][2, 11] == -1.0 and out["red"][5, 4] == 0.5


def test_a_robot_on_its_own_target_is_not_set_aside():
    # the one target stands out from the other targets of its colour: a robot stands there
    targets = frozenset({(11, 2), (2, 12), (9, 9), (0, 3)})
    scores = {"red": _score({(4, 5): 0.5, (11, 2): 0.2})}
    probs = class_probs([{"red": 0.99}, {"red": 0.9}, {"red": 0.9 - SIBLING - 0.1}, {}, {}])
    set_aside(_marks(_look({}), probs, targets), probs, scores, "red")
    assert probs[1, RED] == 0.9
    # … and a sibling the classifier was not asked about is looked at
    probs = class_probs([{"red": 0.99}, {"red": 0.9}, {}, {}, {}])
    set_aside(_marks(_look({(9, 9): {"red": 0.85}}), probs, targets), probs, scores, "red")
    assert probs[1, RED] == 0.0
    # the colour scores must prefer the robot's cell: they see a robot's height
    probs = class_probs([{"red": 0.99}, {"red": 0.9}, {"red": 0.8}, {}, {}])
    even = {"red": _score({(4, 5): 0.3, (11, 2): 0.3 - NEAR_LEAD / 2})}
    set_aside(_marks(_look({}), probs, targets), probs, even, "red")
    assert probs[1, RED] == 0.9
    # and the classifier must be sure of that cell on its own
    probs = class_probs([{"red": ALONE - 0.02}, {"red": 0.8}, {"red": 0.8}, {}, {}])
    set_aside(_marks(_look({}), probs, targets), probs, scores, "red")
    assert probs[1, RED] == 0.8


@pytest.fixture(scope="module")
def frame3d():
    """A 3D frame (made apart from the reader) with a green robot far from a green diagonal
    barrier that the classifier takes for a robot too (0.77)."""
    if gl_available() is not None:
        pytest.skip("no OpenGL for the 3D renderer")
    return random_frame(710061)


@needs_gl
def test_a_robot_is_found_beside_a_diagonal_of_its_colour_on_a_3d_frame(frame3d):
    shot = frame3d
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    reader = Reader(tiles=list(shot.tiles), profile=Profile().for_robots(list(truth)),
                    read_chip=False)
    obs = reader.read(shot.image)
    assert obs.robots.get("green") == truth["green"]
    assert all(truth[r] == c for r, c in obs.robots.items())


class _Says:
    """A classifier that answers given probabilities per grid cell (empty elsewhere): it
    knows each cell by its crop, so it answers whichever cells it is asked about."""

    def __init__(self, frame, loc, said: dict[tuple[int, int], dict[str, float]]):
        from companion.vision.cells import all_cells, cut

        every = all_cells()
        crops = cut(frame.image, frame.scale, frame.white, loc, every)
        self.cell = {c.tobytes(): (int(a), int(b)) for c, (a, b) in zip(crops, every, strict=True)}
        self.said = said

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        return class_probs([self.said.get(self.cell[c.tobytes()], {}) for c in crops])


def _decided(shot, said, hits, printed, scores=None):
    loc = locate(shot.image, corners=shot.corners)
    frame = prepare(shot.image, loc)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    if scores is None:
        scores = score_cells(frame, loc, Profile().for_robots(list(truth)))
    return decide(_Says(frame, loc, said), frame, loc, scores, hits, ["green"], printed)[0]


@needs_gl
def test_a_classifier_sure_of_a_diagonal_of_the_robots_colour_places_no_robot_there(frame3d):
    # the wrong cells measured before: a green robot read on a green diagonal that both
    # readers took for it, the robot itself faint
    shot = frame3d
    printed = printed_cells(Board.from_tiles(list(shot.tiles)), 0)
    (bar, *_) = sorted(printed.barriers["green"])
    hits = {"green": RobotHit("green", bar[0], bar[1], 0.6, 0.4)}
    without = _decided(shot, {bar: {"green": 0.99}}, hits, None)
    assert (without["green"].col, without["green"].row) == bar and without["green"].doubt is None
    g = _decided(shot, {bar: {"green": 0.99}}, hits, printed).get("green")
    assert g is None or g.doubt is not None


@needs_gl
def test_the_classifier_alone_places_a_robot_on_its_target_only_where_the_print_is_not_alike(
        frame3d):
    # the robot on its own target (a round's end) is found; but where the print of its colour
    # fools the classifier elsewhere in the frame as much (a diagonal, another target), the
    # classifier alone places no robot on a target: the next print of its colour is not it
    shot = frame3d
    printed = printed_cells(Board.from_tiles(list(shot.tiles)), 0)
    (bar, *_) = sorted(printed.barriers["green"])
    target, other, *_ = sorted(printed.targets["green"])
    scores = {"green": _score({bar: 0.6, target: 0.3})}
    hits = {"green": RobotHit("green", bar[0], bar[1], 0.6, 0.4)}

    def green(said):
        return _decided(shot, said, hits, printed, scores).get("green")

    alone = green({bar: {"green": 0.2}, target: {"green": 0.97}})
    assert alone.doubt is None and (alone.col, alone.row) == target
    for fooled in ({bar: {"green": 0.99}, target: {"green": 0.93}},
                   {bar: {"green": 0.2}, target: {"green": 0.97}, other: {"green": 0.8}}):
        g = green(fooled)
        assert g is None or g.doubt is not None


def _on_own_target(pos, colour: str, which: int):
    """``pos`` with the ``colour`` robot moved onto one of its targets (a round's end)."""
    from companion.rules import Position

    board = pos.board
    robots = {r: board.name(c) for r, c in pos.robots.items()}
    target = [t for t in board.targets if t.color == colour][which % 4]
    assert board.name(target.cell) not in robots.values()
    robots[colour] = board.name(target.cell)
    return Position.from_dict({"board": {"tiles": list(board.tiles)}, "robots": robots}), robots


@pytest.mark.parametrize("seed", range(4))
def test_a_robot_on_its_own_target_among_diagonals_of_every_colour_is_read_there(seed):
    # the 2D renderer, on the four tile sides with diagonals: the print of each colour is
    # everywhere, and the robot that reached its target must still be found on it
    from companion.vision.render import random_position, render

    colour = ("red", "green", "blue", "yellow")[seed]
    pos, robots = _on_own_target(random_position(seed, tiles=("1D", "4D", "3D", "2D")),
                                 colour, seed)
    shot = render(pos, seed=seed, size=(640, 480))
    reader = Reader(tiles=list(pos.board.tiles), profile=Profile().for_robots(list(robots)),
                    read_chip=False)
    reader.read(shot.image)
    assert reader.read(shot.image).robots == robots


@needs_gl
def test_a_robot_on_its_own_target_is_read_there_on_a_3d_frame():
    from companion.vision.render3d import Scene3D, random_position3d, render3d

    pos, robots = _on_own_target(random_position3d(3), "yellow", 1)
    shot = render3d(pos, seed=3, scene=Scene3D(tilt=25.0, azimuth=40.0, table="felt"))
    reader = Reader(tiles=list(pos.board.tiles), profile=Profile().for_robots(list(robots)),
                    read_chip=False)
    reader.read(shot.image)
    assert reader.read(shot.image).robots == robots


def _on_own_diagonal(colour: str, seed: int):
    """A position under the house rule that lets a robot stop on a diagonal, with the
    ``colour`` robot standing on a diagonal barrier of its own colour."""
    from companion.rules import Position
    from companion.vision.render import random_position

    pos = random_position(seed, tiles=("1D", "4D", "3D", "2D"))
    board = pos.board
    robots = {r: board.name(c) for r, c in pos.robots.items()}
    bar = next(d for d in board.diagonals if d.color == colour
               and board.name(d.cell) not in robots.values())
    robots[colour] = board.name(bar.cell)
    return Position.from_dict({"board": {"tiles": list(board.tiles)}, "robots": robots,
                               "rules": {"barrier_stop": "allowed"}}), robots


@pytest.mark.parametrize("seed", range(4))
def test_under_the_house_rule_a_robot_on_a_diagonal_of_its_colour_is_read_there(seed):
    # with the rule the print of a barrier proves nothing: the robot is read where it stands;
    # a reader not told of the rule leaves it unseen, never on another cell
    from companion.vision.read import reader_for
    from companion.vision.render import render

    colour = ("red", "green", "blue", "yellow")[seed]
    pos, robots = _on_own_diagonal(colour, seed)
    shot = render(pos, seed=seed, size=(640, 480))
    told = reader_for(pos.board.tiles, robots=list(robots), barrier_stops=True)
    told.read(shot.image)
    assert told.read(shot.image).robots == robots
    cold = reader_for(pos.board.tiles, robots=list(robots))
    cold.read(shot.image)
    seen = cold.read(shot.image)
    assert colour not in seen.robots and seen.robots == {r: robots[r] for r in seen.robots}


def test_the_table_tells_the_camera_the_house_rule_of_diagonals():
    from companion.game import Game
    from companion.table_camera import sight_for

    class _Ref:  # the referee's three answers the camera's sight is made from
        waiting, waits = False, 0

        @staticmethod
        def start_cells():
            return ()

    for rule in ("illegal", "allowed"):
        game = Game()
        game.apply({"type": "setup", "at": 0, "players": ["Anna"], "seed": 1,
                    "rules": {"barrier_stop": rule}, "board": {"tiles": list(TILES)}})
        sight = sight_for(game, micro=False, preset="", referee=_Ref(), epoch="e")
        assert sight.barrier_stops == (rule == "allowed")
