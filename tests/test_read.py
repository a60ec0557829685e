"""The whole reading pipeline and ``companion read``: the real 24-moves photo read with no
hints, rendered frames, what a game's reader keeps, and every way a frame cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import cell_name
from companion.rules import Position
from companion.vision.colours import Profile
from companion.vision.locate import BoardNotFound, VisionError
from companion.vision.read import Reader, read_frame, rotate_cell
from companion.vision.render import random_position, render

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"
GAME_PHOTO = PHOTOS / "game-oblique-24moves.jpg"
needs_photo = pytest.mark.skipif(not GAME_PHOTO.exists(), reason="real photos absent")


@needs_photo
def test_real_24_moves_photo_read_with_no_hints_gives_its_position():
    truth = json.loads(GAME_PHOTO.with_suffix(".json").read_text())
    obs = read_frame(cv2.imread(str(GAME_PHOTO)))
    assert not obs.occluded
    assert list(obs.tiles) == truth["board"]["tiles"]
    assert obs.robots == truth["robots"]
    assert obs.chip is not None and obs.chip.to_dict() == truth["target"]
    assert Position.from_dict(obs.position()) == Position.from_dict(truth)


@needs_photo
def test_real_photo_upside_down_with_its_tiles_given_reads_the_same_position():
    truth = json.loads(GAME_PHOTO.with_suffix(".json").read_text())
    image = cv2.rotate(cv2.imread(str(GAME_PHOTO)), cv2.ROTATE_180)
    free = read_frame(image)  # north by convention is the picture's top: named from the south
    assert list(free.tiles) == ["3B", "2B", "1A", "4B"]
    obs = read_frame(image, tiles=truth["board"]["tiles"])  # the tiles tell where north is
    assert obs.robots == truth["robots"]


@needs_photo
def test_cli_reads_the_real_photo_as_json(cli):
    code, out, _ = cli("read", str(GAME_PHOTO), "--json")
    assert code == 0
    data = json.loads(out)
    truth = json.loads(GAME_PHOTO.with_suffix(".json").read_text())
    assert data["tiles"] == truth["board"]["tiles"]
    assert data["robots"] == truth["robots"]
    assert data["target"] == truth["target"]
    assert len(data["corners"]) == 4 and data["occluded"] is False


@needs_photo
def test_cli_given_board_names_cells_from_its_north(cli):
    # The same board named from its west side: every cell turns with it.
    code, out, _ = cli("read", str(GAME_PHOTO), "--json", "--board", "2B,1A,4B,3B")
    assert code == 0
    assert json.loads(out)["robots"]["yellow"] == "p1"


@pytest.mark.parametrize("seed", [81, 82, 83])
def test_rendered_frames_read_with_known_tiles(seed):
    shot = render(random_position(seed), seed=seed, tilt=seed % 30, rotation=seed * 53,
                  markers=seed % 2 == 0, noise=3)
    obs = read_frame(shot.image, tiles=list(shot.tiles))
    assert obs.robots == {k: cell_name(v) for k, v in shot.robots.items()}
    assert obs.chip is not None and (obs.chip.color, obs.chip.shape) == shot.chip
    assert np.abs(np.array(obs.corners) - shot.corners).max() < 5


def test_a_games_reader_keeps_the_tiles_and_tracks_the_board():
    pos = random_position(84)
    shot = render(pos, seed=84, tilt=14, rotation=200)
    reader = Reader()
    first = reader.read(shot.image)
    assert reader.tiles == list(first.tiles)  # learnt once, confidently
    moved = Position.from_dict({**pos.to_dict(), "robots": {**{k: cell_name(v) for k, v in
                                                             pos.robots.items()}}})
    again = reader.read(render(moved, seed=85, tilt=14, rotation=200).image)
    assert again.robots == first.robots


def test_rotate_cell_four_times_is_the_identity():
    for col, row in [(0, 0), (3, 12), (15, 7)]:
        assert rotate_cell(col, row, 4) == (col, row)
        assert rotate_cell(*rotate_cell(col, row, 1), 3) == (col, row)


def test_a_black_frame_cannot_be_read():
    with pytest.raises(BoardNotFound, match="black"):
        read_frame(np.zeros((960, 1280, 3), np.uint8))


def test_no_board_in_view_cannot_be_read():
    table = np.full((480, 640, 3), (30, 80, 150), np.uint8)
    with pytest.raises(VisionError):
        read_frame(table)


def test_half_the_board_out_of_frame_cannot_be_read():
    shot = render(random_position(86), seed=86, tilt=5)
    y_mid = int(shot.corners[:, 1].mean())
    with pytest.raises(VisionError):
        read_frame(np.ascontiguousarray(shot.image[:y_mid]))


def test_a_wrong_colour_profile_says_which_robots_it_cannot_see():
    shot = render(random_position(87), seed=87, tilt=8)
    wrong = Profile()
    wrong.references = {**wrong.references, "yellow": wrong.references["blue"],
                        "green": wrong.references["blue"]}
    obs = read_frame(shot.image, tiles=list(shot.tiles), profile=wrong)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    assert obs.robots != truth
    assert any(n.startswith("no ") and "robot seen" in n for n in obs.notes)


def test_an_occluded_observation_has_no_position():
    shot = render(random_position(88), seed=88, tilt=10, hands=2)
    try:
        obs = read_frame(shot.image, tiles=list(shot.tiles))
    except VisionError:
        return
    assert obs.occluded
    with pytest.raises(VisionError, match="covered"):
        obs.position()


def test_cli_bad_input_exits_2(cli, tmp_path):
    code, _, err = cli("read", str(tmp_path / "missing.jpg"))
    assert code == 2 and "no such file" in err
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), render(random_position(89), seed=89).image)
    code, _, err = cli("read", str(img), "--corners", "1,2,3")
    assert code == 2 and "--corners" in err
    code, _, err = cli("read", str(img), "--board", "1A,1B,2A,3A")
    assert code == 2 and "--board" in err


def test_cli_cannot_see_exits_1_with_the_reason(cli, tmp_path):
    img = tmp_path / "black.png"
    cv2.imwrite(str(img), np.zeros((480, 640, 3), np.uint8))
    code, out, err = cli("read", str(img), "--json")
    assert code == 1
    assert "black" in json.loads(out)["error"] and "black" in err


def test_cli_calibration_colours_writes_a_profile_that_reads(cli, tmp_path):
    shot = render(random_position(90), seed=90, tilt=12, brightness=0.5)
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), shot.image)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    robots = ",".join(f"{k}={v}" for k, v in truth.items())
    out = tmp_path / "colours.json"
    code, _, err = cli("calibration", "colours", str(img), "--robots", robots,
                       "--board", ",".join(shot.tiles), "--out", str(out))
    assert code == 0, err
    profile = Profile.load(out)
    assert set(profile.robots) == set(truth)
    code, text, _ = cli("read", str(img), "--json", "--profile", str(out),
                        "--board", ",".join(shot.tiles))
    assert code == 0 and json.loads(text)["robots"] == truth


def test_a_game_with_the_silver_and_transparent_robots_reads_them_both():
    pos = random_position(93, robots=("red", "green", "blue", "yellow", "silver",
                                      "transparent"))
    shot = render(pos, seed=93, tilt=16, rotation=40, noise=3)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    game = Profile().for_robots(list(truth))
    reader = Reader(tiles=list(shot.tiles), profile=game)
    obs = reader.read(shot.image)
    assert obs.robots == truth and obs.complete
    # the clear robot lifted off the board: not seen, and said so
    gone = {k: v for k, v in truth.items() if k != "transparent"}
    again = render({**pos.to_dict(), "robots": gone}, seed=93, tilt=16, rotation=40, noise=3)
    later = reader.read(again.image)
    assert later.robots == gone
    assert later.missing == ["transparent"] and "no transparent robot seen" in later.notes


def test_a_games_reader_finds_silver_from_above_beside_the_shadows():
    # Straight from above every shadow lies beside its robot as dark and colourless as the
    # silver one: the reader tells them apart by the print once it knows the tiles, on the
    # first frame (north not yet known) and on the next (north kept).
    pos = random_position(41, robots=("red", "green", "blue", "yellow", "silver"))
    shot = render(pos, seed=41, rotation=41 * 31, tilt=0)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    reader = Reader(tiles=list(shot.tiles), profile=Profile().for_robots(list(truth)))
    for _ in range(2):
        obs = reader.read(shot.image)
        assert obs.robots == truth and obs.complete
    lifted = render({**pos.to_dict(), "robots": {k: v for k, v in truth.items()
                                                  if k != "silver"}},
                    seed=41, rotation=41 * 31, tilt=0)
    later = reader.read(lifted.image)
    assert "silver" not in later.robots and later.missing == ["silver"]


def test_cli_reads_the_robots_the_game_names(cli, tmp_path):
    pos = random_position(94, robots=("red", "green", "blue", "yellow", "silver"))
    shot = render(pos, seed=94, tilt=12, noise=2)
    img = tmp_path / "silver.png"
    cv2.imwrite(str(img), shot.image)
    truth = {k: cell_name(v) for k, v in shot.robots.items()}
    code, out, _ = cli("read", str(img), "--json", "--board", ",".join(shot.tiles),
                       "--robots", "red,green,blue,yellow,silver")
    assert code == 0 and json.loads(out)["robots"] == truth
    code, _, err = cli("read", str(img), "--robots", "red,gold")
    assert code == 2 and "--robots" in err and "gold" in err
