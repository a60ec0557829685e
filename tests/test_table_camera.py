"""The table's side of its camera: told what to look for only when it changes, and the page's
questions answered plainly without a camera."""

from __future__ import annotations

from typing import Any

import pytest

from companion.game import Game
from companion.games import CLASSIC, MICRO
from companion.referee import Referee
from companion.table_camera import TableCamera, sight_for
from companion.vision.feed import Sight


class Camera:
    reads_frames = True

    def __init__(self) -> None:
        self.told: list[Sight] = []
        self.colours: Any = None

    def look_for(self, sight: Sight) -> None:
        self.told.append(sight)

    def calibrate_colors(self, robots: dict[str, str]) -> dict[str, Any]:
        self.colours = robots
        return {"learned": sorted(robots)}


def test_without_a_camera_the_page_gets_plain_answers():
    eyes = TableCamera()
    assert eyes.jpeg() is None and eyes.tiles() is None and eyes.status() is None
    assert eyes.detected() == {"camera": None} and not eyes.reads_frames
    for ask in (lambda: eyes.calibrate_corners([(0, 0)] * 4), eyes.read_layout,
                lambda: eyes.calibrate_colors({"red": "a1"}, micro=False)):
        with pytest.raises(ValueError, match="no camera"):
            ask()


def test_the_camera_is_told_only_what_changed():
    eyes, camera = TableCamera(), Camera()
    eyes.attach(camera)  # type: ignore[arg-type]
    eyes.tell(Sight(game=CLASSIC))
    eyes.tell(Sight(game=CLASSIC))
    eyes.tell(Sight(game=MICRO))
    assert [s.game for s in camera.told] == [CLASSIC, MICRO]
    eyes.attach(camera)  # type: ignore[arg-type]
    eyes.tell(Sight(game=MICRO))  # a camera attached again is told again
    assert len(camera.told) == 3


def test_colours_are_learned_from_the_classic_games_robots_only():
    eyes, camera = TableCamera(), Camera()
    eyes.attach(camera)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="classic"):
        eyes.calibrate_colors({"red": "a1"}, micro=True)
    with pytest.raises(ValueError, match="set up a game"):
        eyes.calibrate_colors({}, micro=False)
    assert eyes.calibrate_colors({"red": "a1"}, micro=False) == {"learned": ["red"]}


def test_the_sight_follows_the_game():
    game = Game()
    referee = Referee(game=lambda: game, now=lambda: 0.0, play=lambda c, s: None,
                      publish=lambda: None, say=lambda said: None)
    assert sight_for(game, micro=False, preset="abacus-2013", referee=referee,
                     epoch="e").game is None  # no game: tiles for setup
    assert sight_for(game, micro=False, preset="micro-robots", referee=referee,
                     epoch="e").game == MICRO
    game.apply({"type": "setup", "at": 0, "players": ["Ann", "Bo"], "seed": 1,
                "board": {"tiles": ["1A", "2A", "3A", "4A"]}})
    sight = sight_for(game, micro=False, preset="abacus-2013", referee=referee, epoch="e")
    assert sight.game == CLASSIC and sight.epoch == "e" and sight.tiles == ("1A", "2A", "3A", "4A")
    assert "black" in sight.robots  # looked for all the same
