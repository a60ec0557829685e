"""The target chip: colour and symbol of every chip on rendered boards, under a glare, a dim
cast light and a wrong profile; no chip, the vortex; what is left unread rather than guessed
(a blurred picture, a face-down chip, mixed colours); the real token in the game photo and
the real printed target squares, the vortex among them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import COLORS, SHAPES, Board
from companion.rules import Position
from companion.vision.chip import (
    BLUR_MAX,
    ChipReading,
    blur_at_centre,
    board_inks,
    read_chip,
    read_square,
)
from companion.vision.colours import DEFAULT_REFERENCES, Profile, white_of
from companion.vision.locate import from_corners, locate
from companion.vision.render import INK, render

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"
TILES = ["1A", "4B", "3B", "2B"]
SIZE = (1280, 960)


def _shot(target: dict, seed: int, **scene):
    pos = Position.from_dict({"board": {"tiles": TILES}, "robots": {"red": "a1"},
                              "target": target})
    return render(pos, seed=seed, **scene)


def _read(shot, image=None, profile=None):
    image = shot.image if image is None else image
    return read_chip(image, from_corners(shot.corners, SIZE), shot.board, profile)


def _at_centre(shot, du: float = 0.0, dv: float = 0.0) -> tuple[int, int]:
    """The image pixel of the board-plane point (8 + du, 8 + dv): the centre piece's middle."""
    p = cv2.perspectiveTransform(np.array([[[8.0 + du, 8.0 + dv]]]), shot.homography)[0, 0]
    return int(round(p[0])), int(round(p[1]))


def _cell_px(shot) -> float:
    return float(np.hypot(*(np.subtract(_at_centre(shot, 1, 0), _at_centre(shot)))))


@pytest.mark.parametrize("color", COLORS)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_chip_read(color, shape):
    seed = COLORS.index(color) * 4 + SHAPES.index(shape)
    shot = _shot({"color": color, "shape": shape}, seed=seed, tilt=5 + seed,
                 rotation=seed * 23, noise=2)
    chip = _read(shot)
    assert chip is not None and chip.read
    assert (chip.color, chip.shape) == (color, shape)


def test_the_vortex_chip():
    shot = _shot({"color": "any", "shape": "vortex"}, seed=3, tilt=10)
    chip = _read(shot)
    assert chip is not None and (chip.color, chip.shape) == ("any", "vortex")
    assert chip.label() == "vortex"


def test_the_vortex_chip_in_dim_light():
    shot = _shot({"color": "any", "shape": "vortex"}, seed=7, tilt=12, brightness=0.35,
                 noise=4, jpeg=70)
    chip = _read(shot)
    assert chip is not None and (chip.color, chip.shape) == ("any", "vortex")


def test_no_chip_on_the_centre_piece():
    shot = _shot({"color": "red", "shape": "circle"}, seed=4, chip=False)
    assert _read(shot) is None


def test_a_bare_piece_in_dim_noisy_light_is_no_chip():
    # Amplified sensor noise and JPEG blocks colour the dark piece faintly: not a chip.
    shot = _shot({"color": "red", "shape": "circle"}, seed=5, chip=False, brightness=0.35,
                 noise=9, jpeg=65, cast=(1.08, 1.0, 0.95))
    assert _read(shot) is None


def test_without_a_board_only_the_colour_is_read():
    shot = _shot({"color": "green", "shape": "square"}, seed=5)
    chip = read_chip(shot.image, from_corners(shot.corners, SIZE), None)
    assert chip is not None and chip.color == "green" and chip.shape is None
    assert not chip.read and "tiles" in chip.reason


@pytest.mark.parametrize("color", COLORS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_glare_over_the_centre_piece(color, shape):
    # A lamp's reflection right on the chip: the piece and the chip both brighten, the
    # symbol pales; the chip is still told from the piece, and balanced by its own paper.
    shot = _shot({"color": color, "shape": shape}, seed=11, tilt=8, rotation=40)
    cx, cy = _at_centre(shot, 0.3, -0.2)
    yy, xx = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float32)
    sigma = 1.3 * _cell_px(shot)
    spot = (150 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2))).astype(np.uint8)
    image = cv2.add(shot.image, cv2.merge([spot, spot, spot]))
    chip = _read(shot, image)
    assert chip is not None and (chip.color, chip.shape) == (color, shape)


@pytest.mark.parametrize("color", COLORS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_dim_room_with_a_colour_cast(color, shape):
    k = COLORS.index(color) * 4 + SHAPES.index(shape)
    shot = _shot({"color": color, "shape": shape}, seed=12 + k, tilt=20,
                 rotation=200 + 10 * k, brightness=0.35, cast=(0.85, 1.0, 1.18), noise=8,
                 jpeg=65)
    chip = _read(shot)
    assert chip is not None and (chip.color, chip.shape) == (color, shape)


def test_the_boards_own_targets_set_the_ink_hues():
    # A profile whose yellow lies beyond green would read a yellow chip as green; the
    # board's printed yellow targets, in the same frame, say what yellow looks like here.
    refs = dict(DEFAULT_REFERENCES)
    refs["yellow"] = (60.0, -45.0, 16.0)
    wrong = Profile(references=refs)
    shot = _shot({"color": "yellow", "shape": "triangle"}, seed=13, tilt=10)
    loc = from_corners(shot.corners, SIZE)
    hues = board_inks(shot.image, loc, shot.board, white_of(loc.warp(shot.image, 6)), wrong)
    ink = cv2.cvtColor(np.uint8([[INK["yellow"]]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)
    printed = np.arctan2(ink[2] - 128, ink[1] - 128)
    assert abs(np.angle(np.exp(1j * (hues[COLORS.index("yellow")] - printed)))) < 0.2
    chip = _read(shot, profile=wrong)
    assert chip is not None and (chip.color, chip.shape) == ("yellow", "triangle")


def test_blur_is_measured_on_the_centre_pieces_sides():
    shot = _shot({"color": "red", "shape": "square"}, seed=14, tilt=10)
    loc = from_corners(shot.corners, SIZE)
    sharp = blur_at_centre(shot.image, loc)
    sigma_px = 3.0
    blurred = blur_at_centre(cv2.GaussianBlur(shot.image, (0, 0), sigma_px), loc)
    assert sharp < 0.03
    assert blurred == pytest.approx(sigma_px / _cell_px(shot), rel=0.3)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_blurred_picture_leaves_the_symbol_unread(shape):
    # Out of focus, a star's middle and corners are gone and it looks a moon: say so.
    shot = _shot({"color": "green", "shape": shape}, seed=15, tilt=10, rotation=70)
    image = cv2.GaussianBlur(shot.image, (0, 0), 2.2 * BLUR_MAX * _cell_px(shot))
    chip = _read(shot, image)
    assert chip is not None and not chip.read
    assert chip.color == "green" and chip.shape is None and "blurred" in chip.reason


def test_a_face_down_chip_is_unread():
    shot = _shot({"color": "red", "shape": "triangle"}, seed=16, tilt=6)
    image = shot.image.copy()
    paper = image[_at_centre(shot, 0.53)[::-1]].tolist()
    cv2.circle(image, _at_centre(shot), int(0.5 * _cell_px(shot)), paper, -1)
    chip = _read(shot, image)
    assert chip is not None and not chip.read and "face down" in chip.reason


def test_a_chip_of_two_colours_is_unread():
    shot = _shot({"color": "red", "shape": "circle"}, seed=17, tilt=6)
    image = shot.image.copy()
    cx, cy = _at_centre(shot)
    r = int(0.42 * _cell_px(shot))
    half = np.zeros(image.shape[:2], np.uint8)
    cv2.ellipse(half, (cx, cy), (r, r), 0, 90, 270, 255, -1)
    red = np.all(np.abs(image.astype(int) - INK["red"]) < 60, axis=2)
    image[(half > 0) & red] = INK["green"]
    chip = _read(shot, image)
    assert chip is not None and not chip.read and "mixed" in chip.reason


def test_labels_say_what_was_read_or_why_not():
    assert ChipReading("blue", "triangle", 0.9).label() == "blue triangle"
    assert ChipReading("any", "vortex", 0.9).label() == "vortex"
    unread = ChipReading("blue", None, 0.1, "its symbol could be a circle or a hexagon")
    assert not unread.read
    assert unread.label() == "a blue chip, unread: its symbol could be a circle or a hexagon"
    assert unread.to_dict() == {"color": "blue"}


def test_a_chip_picture_too_small_or_not_in_colour_is_refused():
    with pytest.raises(ValueError, match="at least 16 pixels"):
        read_square(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="colour image"):
        read_square(np.zeros((40, 40), np.uint8))


@pytest.mark.skipif(not (PHOTOS / "game-oblique-24moves.jpg").exists(),
                    reason="real photos absent")
def test_real_token_on_the_centre_piece():
    image = cv2.imread(str(PHOTOS / "game-oblique-24moves.jpg"))
    chip = read_chip(image, locate(image), Board.from_tiles(TILES))
    assert chip is not None and (chip.color, chip.shape) == ("blue", "triangle")


CHIP_PHOTOS = sorted((PHOTOS / "chips").glob("*.jpeg")) if PHOTOS.exists() else []
# Letters on the crops: C comet (triangle), M moon (circle), P planet (square), S star
# (hexagon) — confirmed against the tiles' targets; VO the vortex.
LETTER_COLOURS = {"B": "blue", "G": "green", "R": "red", "Y": "yellow", "V": "any"}
LETTER_SHAPES = {"C": "triangle", "M": "circle", "P": "square", "S": "hexagon", "O": "vortex"}


@pytest.mark.skipif(not CHIP_PHOTOS, reason="real photos absent")
@pytest.mark.parametrize("size", [32, 64, None], ids=["32px", "64px", "full"])
@pytest.mark.parametrize("path", CHIP_PHOTOS, ids=lambda p: p.stem)
def test_real_printed_chips(path, size):
    image = cv2.imread(str(path))
    if size:
        image = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)
    chip = read_square(image)
    truth = (LETTER_COLOURS[path.stem[0]], LETTER_SHAPES[path.stem[1]])
    assert (chip.color, chip.shape) == truth, chip.label()


def _smudged(tmp_path: Path) -> Path:
    """A rendered frame whose centre is out of focus (a smudge on the lens), saved."""
    shot = _shot({"color": "blue", "shape": "hexagon"}, seed=18, tilt=8)
    image = shot.image.copy()
    r = int(2.5 * _cell_px(shot))
    cx, cy = _at_centre(shot)
    box = np.s_[cy - r:cy + r, cx - r:cx + r]
    image[box] = cv2.GaussianBlur(image, (0, 0), 2.5 * BLUR_MAX * _cell_px(shot))[box]
    path = tmp_path / "smudged.png"
    cv2.imwrite(str(path), image)
    return path


def test_companion_read_says_why_the_chip_is_unread(tmp_path, capsys):
    from companion.cli import main

    path = _smudged(tmp_path)
    assert main(["read", str(path), "--board", ",".join(TILES)]) == 0
    out = capsys.readouterr().out
    assert "target   a blue chip, unread: the picture is too blurred" in out
    assert main(["read", str(path), "--board", ",".join(TILES), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"] is None and "blurred" in data["chip_unread"]


@pytest.mark.slow
def test_the_benchmark_counts_wrong_and_unread_chips_apart(tmp_path, capsys):
    from companion.benchmarks.vision import run

    out = tmp_path / "bench.json"
    assert run(["--frames", "6", "--large", "0", "--seed", "6000", "--quiet",
                "--out", str(out)]) == 0
    table = capsys.readouterr().out
    for label in ("chip right", "chip wrong (read as another)", "chip unread (with a reason)",
                  "bare centre piece: no chip", "ms chip read, median"):
        assert label in table
    r = json.loads(out.read_text())["results"][0]
    assert r["chips_total"] >= 3
    assert r["chips_right"] + r["chips_wrong"] + r["chips_unread"] == r["chips_total"]
    assert r["bare_pieces"] >= 1 and r["bare_pieces_no_chip"] == r["bare_pieces"]
    assert r["ms_chip_read"]["median"] > 0


# The photographed set's own chips are dark round tokens, lying beside the tiles in
# tiles-side-B.jpg (read there left to right, row by row; None: a blank token).
TOKENS = ["yellow triangle", "vortex", "red hexagon", "yellow circle", "blue triangle", None,
          "red circle", "blue square", "green circle", "red triangle", "blue circle",
          "blue hexagon", "green square", "red square", "green triangle", "yellow hexagon",
          "yellow square", "green hexagon"]


def _real_tokens() -> tuple[np.ndarray, list[list[int]]]:
    image = cv2.imread(str(PHOTOS / "tiles-side-B.jpg"))
    roi = image[420:700, 90:290]
    grey = cv2.medianBlur(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), 3)
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=20, param1=80,
                             param2=18, minRadius=11, maxRadius=17)
    circles = np.round(found[0]).astype(int).tolist() if found is not None else []
    return roi, sorted(circles, key=lambda c: (c[1] // 25, c[0]))


def _token_on_the_piece(shot, roi, circle, k: int, light: dict) -> np.ndarray:
    """A real token, as photographed, laid on a rendered bare centre piece (0.85 cell across,
    turned, a little off the middle), then the room's light and the camera over both."""
    x, y, r = circle
    s = r + 1
    token = roi[y - s:y + s + 1, x - s:x + s + 1].astype(np.float32)
    mask = np.zeros(token.shape[:2], np.float32)
    cv2.circle(mask, (s, s), r - 1, 1.0, -1)
    scale = 0.85 / (2 * r)
    turn = np.vstack([cv2.getRotationMatrix2D((s, s), 37.0 * k, 1.0), [0, 0, 1]])
    du, dv = 0.2 * np.cos(k), 0.2 * np.sin(2 * k)
    place = np.array([[scale, 0, 8 + du - s * scale], [0, scale, 8 + dv - s * scale], [0, 0, 1]])
    M = shot.homography @ place @ turn
    a = cv2.warpPerspective(mask, M, SIZE)[..., None]
    image = shot.image * (1 - a) + cv2.warpPerspective(token, M, SIZE) * a
    image = image * light["brightness"] * np.array(light["cast"], np.float32)
    image = cv2.GaussianBlur(image, (0, 0), light["blur"])
    image += light["noise"] * np.random.default_rng(k).standard_normal(image.shape, np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, light["jpeg"]])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


@pytest.mark.skipif(not (PHOTOS / "tiles-side-B.jpg").exists(), reason="real photos absent")
@pytest.mark.parametrize("light", [
    {"brightness": 1.0, "cast": (1.0, 1.0, 1.0), "blur": 0.6, "noise": 2, "jpeg": 90},
    {"brightness": 0.5, "cast": (1.12, 1.0, 0.9), "blur": 1.0, "noise": 5, "jpeg": 70},
], ids=["daylight", "dim-warm"])
@pytest.mark.slow
def test_real_tokens_on_the_centre_piece_are_never_misread(light):
    roi, circles = _real_tokens()
    assert len(circles) == len(TOKENS)
    shot = _shot({"color": "red", "shape": "circle"}, seed=20, tilt=12, rotation=35, chip=False)
    for k, (circle, truth) in enumerate(zip(circles, TOKENS, strict=True)):
        chip = _read(shot, _token_on_the_piece(shot, roi, circle, k, light))
        if chip is not None and chip.read:
            assert chip.label() == truth, f"token {k} ({truth}) read as {chip.label()}"
