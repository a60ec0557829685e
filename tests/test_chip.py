"""The target chip: colour and symbol of every chip on rendered boards, no chip, the vortex,
the real token in the game photo, and the colours of the real printed chips."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import COLORS, SHAPES, Board
from companion.rules import Position
from companion.vision.chip import _hue_fractions, read_chip, read_symbol
from companion.vision.colours import Profile, balanced_lab, white_of
from companion.vision.locate import from_corners, locate
from companion.vision.render import render

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"
TILES = ["1A", "4B", "3B", "2B"]


def _shot(target: dict, seed: int, **scene):
    pos = Position.from_dict({"board": {"tiles": TILES}, "robots": {"red": "a1"},
                              "target": target})
    return render(pos, seed=seed, **scene)


@pytest.mark.parametrize("color", COLORS)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_chip_read(color, shape):
    seed = COLORS.index(color) * 4 + SHAPES.index(shape)
    shot = _shot({"color": color, "shape": shape}, seed=seed, tilt=5 + seed,
                 rotation=seed * 23, noise=2)
    loc = from_corners(shot.corners, (1280, 960))
    chip = read_chip(shot.image, loc, shot.board)
    assert chip is not None
    assert (chip.color, chip.shape) == (color, shape)


def test_the_vortex_chip():
    shot = _shot({"color": "any", "shape": "vortex"}, seed=3, tilt=10)
    chip = read_chip(shot.image, from_corners(shot.corners, (1280, 960)), shot.board)
    assert chip is not None and (chip.color, chip.shape) == ("any", "vortex")


def test_no_chip_on_the_centre_piece():
    shot = _shot({"color": "red", "shape": "circle"}, seed=4, chip=False)
    assert read_chip(shot.image, from_corners(shot.corners, (1280, 960)), shot.board) is None


def test_without_a_board_only_the_colour_is_read():
    shot = _shot({"color": "green", "shape": "square"}, seed=5)
    chip = read_chip(shot.image, from_corners(shot.corners, (1280, 960)), None)
    assert chip is not None and chip.color == "green" and chip.shape is None


@pytest.mark.skipif(not (PHOTOS / "game-oblique-24moves.jpg").exists(),
                    reason="real photos absent")
def test_real_token_on_the_centre_piece():
    image = cv2.imread(str(PHOTOS / "game-oblique-24moves.jpg"))
    chip = read_chip(image, locate(image), Board.from_tiles(TILES))
    assert chip is not None and (chip.color, chip.shape) == ("blue", "triangle")


CHIP_PHOTOS = sorted((PHOTOS / "chips").glob("[BGRY][CMPS].jpeg")) if PHOTOS.exists() else []


@pytest.mark.skipif(not CHIP_PHOTOS, reason="real photos absent")
@pytest.mark.parametrize("path", CHIP_PHOTOS, ids=lambda p: p.stem)
def test_real_printed_chip_colours(path):
    image = cv2.imread(str(path))
    lab = balanced_lab(image.astype(np.float32), white_of(image))
    fractions, coloured = _hue_fractions(lab, Profile())
    expected = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}[path.stem[0]]
    assert COLORS[int(np.argmax(fractions))] == expected


@pytest.mark.skipif(not CHIP_PHOTOS, reason="real photos absent")
@pytest.mark.parametrize("path", CHIP_PHOTOS, ids=lambda p: p.stem)
def test_real_printed_symbols(path):
    # Letters on the crops: C comet (triangle), M moon (circle), P planet (square),
    # S star (hexagon) — confirmed against the tiles' targets.
    image = cv2.resize(cv2.imread(str(path)), (64, 64), interpolation=cv2.INTER_AREA)
    colour = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}[path.stem[0]]
    expected = {"C": "triangle", "M": "circle", "P": "square", "S": "hexagon"}[path.stem[1]]
    assert read_symbol(image, colour) == expected
