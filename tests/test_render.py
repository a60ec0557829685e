"""The renderer draws what its ground truth says, the same way for the same seed, and every
option of the scene changes the picture."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import RIGHT, UP, Board, tile_library
from companion.rules import Position
from companion.vision.render import (
    BORDER,
    ROBOT_HEIGHT,
    Scene,
    board_texture,
    cell_uv,
    marker_layout,
    random_position,
    render,
)

POSITION = {
    "board": {"tiles": ["1A", "4B", "3B", "2B"]},
    "robots": {"red": "o14", "green": "b14", "blue": "n5", "yellow": "p16"},
    "target": {"color": "blue", "shape": "triangle"},
}


@pytest.fixture(scope="module")
def pos() -> Position:
    return Position.from_dict(POSITION)


def hue_class(bgr: np.ndarray, min_sat: int = 70) -> str:
    """A coarse colour name for a BGR pixel (or a mean of pixels)."""
    hsv = cv2.cvtColor(np.uint8([[np.clip(bgr, 0, 255)]]), cv2.COLOR_BGR2HSV)[0, 0]
    h, s, v = (int(x) for x in hsv)
    if s < min_sat or v < 40:
        return "grey"
    if h < 10 or h >= 165:
        return "red"
    if 15 <= h < 35:
        return "yellow"
    if 40 <= h < 90:
        return "green"
    if 95 <= h < 135:
        return "blue"
    return "other"


def sample(img: np.ndarray, xy: np.ndarray, r: int = 1) -> np.ndarray:
    x, y = (int(round(v)) for v in xy)
    return img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3).mean(axis=0)


# ---------------------------------------------------------------- geometry


@pytest.mark.parametrize("tilt,rotation,azimuth", [(0, 0, 0), (25, 70, 130), (30, 200, 300)])
def test_corners_are_the_grid_corners_in_the_documented_order(pos, tilt, rotation, azimuth):
    shot = render(pos, tilt=tilt, rotation=rotation, azimuth=azimuth)
    expected = shot.to_image([(0, 0), (16, 0), (16, 16), (0, 16)])
    np.testing.assert_allclose(shot.corners, expected, atol=1e-6)
    # the corners go round the board clockwise on the picture (north-west first)
    c = shot.corners
    a, b = c[1] - c[0], c[2] - c[1]
    cross = a[0] * b[1] - a[1] * b[0]
    assert cross > 0  # clockwise in image coordinates (y down)
    assert shot.in_frame


def test_top_down_shot_has_north_up_and_a1_bottom_left(pos):
    shot = render(pos)
    nw, ne, se, sw = shot.corners
    assert nw[0] < ne[0] and nw[1] < sw[1]
    a1 = shot.cell_centre(shot.board.cell("a1"))
    p16 = shot.cell_centre(shot.board.cell("p16"))
    assert a1[0] < p16[0] and a1[1] > p16[1]
    assert sw[0] < a1[0] < ne[0] and ne[1] < a1[1] < sw[1]


def test_homography_agrees_with_the_camera_model(pos):
    shot = render(pos, tilt=22, rotation=15, azimuth=40)
    uv = np.array([[3.5, 4.5], [12.2, 9.9], [0, 16]])
    # board plane (u, v) → world (x east, y north, 0) in cells, origin at the centre
    world = np.column_stack([uv[:, 0] - 8, 8 - uv[:, 1], np.zeros(3)])
    proj, _ = cv2.projectPoints(world, shot.rvec, shot.tvec, shot.camera_matrix, None)
    np.testing.assert_allclose(proj.reshape(-1, 2), shot.to_image(uv), atol=1e-6)


def wall_samples(shot, offset: float):
    """Image points just inside every inner wall's segment, and the same for open edges."""
    b = shot.board
    walls, open_ = [], []
    for cell in b.cells():
        if cell in b.blocked:
            continue
        u, v = cell_uv(b, cell)
        for d, (du, dv) in ((UP, (0, -0.5)), (RIGHT, (0.5, 0))):
            nb = b.neighbour(cell, d)
            if nb is None or nb in b.blocked:
                continue
            # a point on the edge, a little off its middle (away from the hatch and symbols)
            if d == UP:
                p = (u + 0.25, v + dv + offset)
            else:
                p = (u + du + offset, v + 0.25)
            if b.has_wall(cell, d):
                walls.append(p)
            elif not (d == UP and v == 8.5 or d == RIGHT and u == 7.5):
                open_.append(p)  # the seams between tiles are thin lines, not counted
    return shot.to_image(walls), shot.to_image(open_)


@pytest.mark.parametrize("tilt,rotation,distortion", [(0, 0, 0), (28, 57, 0), (12, 20, -0.25)])
def test_walls_are_dark_exactly_where_the_board_has_walls(pos, tilt, rotation, distortion):
    empty = Position.from_dict({**POSITION, "robots": {"red": "a1"}})
    shot = render(empty, tilt=tilt, rotation=rotation, azimuth=10, jitter=0, shadows=False,
                  distortion=distortion)
    grey = cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY).astype(float)
    walls, open_ = wall_samples(shot, 0.03)
    on_walls = np.array([grey[int(round(y)), int(round(x))] for x, y in walls])
    on_open = np.array([grey[int(round(y)), int(round(x))] for x, y in open_])
    assert len(on_walls) > 20
    assert np.median(on_walls) < 90
    assert (on_walls < 120).mean() > 0.9
    # an open edge shows a thin grid line at most: far brighter than a wall
    assert np.median(on_open) > 140
    assert (on_open > 110).mean() > 0.95


def test_robots_show_their_colour_at_their_base_cell(pos):
    for tilt, rotation in ((0, 0), (30, 120)):
        shot = render(pos, tilt=tilt, rotation=rotation, azimuth=250, seed=4)
        for name, cell in shot.robots.items():
            base = np.array(shot.robot_pixels[name]["base"])
            assert hue_class(sample(shot.image, base, 2)) == name, (name, tilt)
            # the base stands within a third of a cell of the cell's centre
            centre = np.array(shot.cell_centre(cell))
            cell_px = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
            assert np.linalg.norm(base - centre) < cell_px / 3


def test_the_robot_mask_covers_each_robot_and_nothing_else(pos):
    shot = render(pos, tilt=20, rotation=40, hands=0)
    mask = shot.robot_mask > 0
    for p in shot.robot_pixels.values():
        for key in ("base", "top"):
            x, y = (int(round(v)) for v in p[key])
            assert mask[y, x]
    cell_px = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
    # four robots, each about a cell wide and a little taller
    assert 4 * 0.5 * cell_px ** 2 < mask.sum() < 4 * 2.5 * cell_px ** 2
    n, _ = cv2.connectedComponents(mask.astype(np.uint8))
    assert n - 1 == 4


def test_a_robot_top_is_displaced_by_parallax_growing_with_tilt(pos):
    flat = render(pos, tilt=0)
    steep = render(pos, tilt=30, azimuth=0)
    cell_px = np.linalg.norm(steep.corners[1] - steep.corners[0]) / 16

    def lean(shot):
        p = shot.robot_pixels["blue"]
        return np.linalg.norm(np.subtract(p["top"], p["base"]))

    assert lean(steep) > 0.5 * cell_px
    assert lean(steep) > lean(flat)
    # seen from the south, a robot's top leans towards the north (up in the picture)
    p = steep.robot_pixels["blue"]
    assert p["top"][1] < p["base"][1]
    assert 1.0 < ROBOT_HEIGHT < 2.0


def test_target_symbols_are_printed_in_their_colour(pos):
    shot = render(pos, rotation=33, tilt=12)
    b = shot.board
    hsv = cv2.cvtColor(shot.image, cv2.COLOR_BGR2HSV)
    for t in b.targets:
        if t.is_vortex:
            continue
        u, v = cell_uv(b, t.cell)
        pts = shot.to_image([(u + du, v + dv) for du in np.linspace(-0.25, 0.25, 7)
                             for dv in np.linspace(-0.25, 0.25, 7)])
        px = np.array([shot.image[int(round(y)), int(round(x))] for x, y in pts])
        sat = np.array([hsv[int(round(y)), int(round(x)), 1] for x, y in pts])
        coloured = px[sat > 90]
        assert len(coloured) >= 5, t
        assert hue_class(coloured.mean(axis=0)) == t.color, t


def test_the_chip_on_the_centre_piece_shows_the_target(pos):
    shot = render(pos, rotation=10)
    assert shot.chip == ("blue", "triangle")
    centre = shot.to_image([(8, 8)])[0]
    cell_px = np.linalg.norm(shot.corners[1] - shot.corners[0]) / 16
    r = int(cell_px * 0.4)
    patch = shot.image[int(centre[1]) - r:int(centre[1]) + r, int(centre[0]) - r:int(centre[0]) + r]
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    coloured = patch.reshape(-1, 3)[hsv[:, 1] > 90]
    assert len(coloured) > 0.1 * len(hsv)
    assert hue_class(coloured.mean(axis=0)) == "blue"
    none = render(pos, chip=False)
    assert none.chip is None
    patch = none.image[int(centre[1]) - r:int(centre[1]) + r, int(centre[0]) - r:int(centre[0]) + r]
    assert (cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)[..., 1] > 90).mean() < 0.02


def test_vortex_chip_is_reported_as_any_vortex():
    p = Position.from_dict({**POSITION, "target": {"color": "any", "shape": "vortex"}})
    assert render(p).chip == ("any", "vortex")


def test_diagonal_barriers_are_drawn_in_their_colour():
    board_pos = random_position(5, tiles=("1D", "2D", "3D", "4D"))
    shot = render(board_pos)
    b = shot.board
    assert b.diagonals
    for dg in b.diagonals:
        u, v = cell_uv(b, dg.cell)
        # a point on the barrier's line, off the cell's centre symbol-free area
        du = 0.2 if dg.orientation == "/" else -0.2
        p = shot.to_image([(u + du, v - 0.2)])[0]
        if any(np.linalg.norm(p - np.array(rp["base"])) < 40
               for rp in shot.robot_pixels.values()):
            continue
        assert hue_class(sample(shot.image, p, 1)) == dg.color, (b.name(dg.cell), dg)


def test_a_distorting_lens_bends_the_picture_and_its_truth_alike(pos):
    from companion.vision.lens import LensProfile
    from companion.vision.markers import detect_markers

    shot = render(pos, tilt=15, rotation=25, markers=True, distortion=-0.25)
    straight = render(pos, tilt=15, rotation=25, markers=True)
    assert shot.dist_coeffs[0] == -0.25 and not straight.dist_coeffs.any()
    # the truth follows the lens: markers are found where it says …
    found = detect_markers(shot.image)
    assert sorted(found) == [0, 1, 2, 3]
    for k, c in found.items():
        np.testing.assert_allclose(c, shot.markers[k], atol=1.0)
    # … far from where a pinhole camera would put them
    assert max(np.abs(shot.markers[k] - straight.markers[k]).max() for k in range(4)) > 10
    assert np.abs(shot.corners - straight.corners).max() > 3
    np.testing.assert_allclose(shot.homography, straight.homography)
    # undistorting with the lens gives back the pinhole picture the homography describes
    lens = LensProfile(shot.camera_matrix, shot.dist_coeffs, shot.image.shape[1::-1])
    flat = lens.undistort(shot.image)
    for k, c in detect_markers(flat).items():
        np.testing.assert_allclose(c, straight.markers[k], atol=1.5)


# ---------------------------------------------------------------- markers and hands


def test_markers_are_detected_with_their_ids_at_the_right_corners(pos):
    shot = render(pos, markers=True, tilt=20, rotation=30, azimuth=80, noise=3)
    assert sorted(shot.markers) == [0, 1, 2, 3]
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(shot.image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel(), strict=True):
        np.testing.assert_allclose(c.reshape(4, 2), shot.markers[int(i)], atol=2.0)
    # marker k lies beyond grid corner k (NW, NE, SE, SW), outside the frame
    layout = marker_layout(shot.board)
    for k, (cu, cv_) in enumerate([(0, 0), (16, 0), (16, 16), (0, 16)]):
        centre = layout[k].mean(axis=0)
        assert np.sign(centre[0] - 8) == np.sign(cu - 8)
        assert np.sign(centre[1] - 8) == np.sign(cv_ - 8)
        assert abs(centre[0] - cu) > BORDER and abs(centre[1] - cv_) > BORDER
    assert render(pos).markers == {}


def test_hands_hide_cells_and_mark_the_frame_occluded(pos):
    shot = render(pos, hands=2, seed=3, tilt=10)
    assert shot.occluded
    assert len(shot.hidden_cells) >= 4
    assert shot.occluder_mask.any()
    for cell in shot.hidden_cells:
        u, v = cell_uv(shot.board, cell)
        pts = shot.to_image([(u + a - 0.5, v + b - 0.5) for a in (0.2, 0.5, 0.8)
                             for b in (0.2, 0.5, 0.8)])
        covered = sum(shot.occluder_mask[int(round(y)), int(round(x))] > 0 for x, y in pts)
        assert covered >= 3
    # the hand covers the print: those pixels differ from the same shot without hands
    clean = render(pos, hands=0, seed=3, tilt=10)
    assert not clean.occluded and clean.hidden_cells == frozenset()
    m = shot.occluder_mask > 0
    diff = np.abs(shot.image.astype(int) - clean.image.astype(int)).sum(axis=2)
    assert (diff[m] > 30).mean() > 0.7


def test_glare_lies_on_the_print_and_table_not_on_the_robots():
    # A lamp mirrored in the glossy board: a robot standing in the spot hides it.
    pos = Position.from_dict({"board": {"tiles": ["1A", "4B", "3B", "2B"]},
                              "robots": {"red": "e12", "green": "l12", "blue": "e5",
                                         "yellow": "l5", "black": "h3"}})
    lit = render(pos, seed=8, glare=0.8, tilt=10)
    dark = render(pos, seed=8, glare=0.0, tilt=10)
    diff = np.abs(lit.image.astype(int) - dark.image.astype(int)).sum(axis=2)
    x, y = (int(round(v)) for v in lit.robot_pixels["blue"]["base"])
    body = cv2.erode(lit.robot_mask, np.ones((5, 5), np.uint8)) > 0
    around = ~(lit.robot_mask > 0)[y - 60:y + 60, x - 60:x + 60]
    assert diff[y - 60:y + 60, x - 60:x + 60][around].mean() > 100  # the spot is here
    near = body[y - 60:y + 60, x - 60:x + 60]
    assert near.sum() > 200 and diff[y - 60:y + 60, x - 60:x + 60][near].max() < 3
    assert hue_class(sample(lit.image, lit.robot_pixels["blue"]["top"], 2)) == "blue"


# ---------------------------------------------------------------- determinism and options


def test_same_seed_same_picture_other_seed_other_picture(pos):
    scene = Scene.random(11)
    a = render(pos, seed=11, scene=scene)
    b = render(pos, seed=11, scene=scene)
    c = render(pos, seed=12, scene=scene)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.homography, b.homography)
    assert not np.array_equal(a.image, c.image)
    assert Scene.random(11) == Scene.random(11)
    assert Scene.random(11) != Scene.random(12)


def test_the_same_seed_gives_the_same_picture_in_another_process():
    """Seeded benchmark sets must not depend on Python's per-process string hashing."""
    import hashlib
    import os
    import subprocess
    import sys

    code = ("import hashlib\nfrom companion.vision.render import render, Scene, random_position\n"
            "r = render(random_position(3), seed=3, scene=Scene.random(3, hands=1.0),"
            " size=(320, 240))\nprint(hashlib.sha256(r.image.tobytes()).hexdigest())")
    here = render(random_position(3), seed=3, scene=Scene.random(3, hands=1.0), size=(320, 240))
    digests = {hashlib.sha256(here.image.tobytes()).hexdigest()}
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_noise_seed_changes_only_the_noise(pos):
    a = render(pos, seed=1, noise=5, noise_seed=1)
    b = render(pos, seed=1, noise=5, noise_seed=2)
    assert not np.array_equal(a.image, b.image)
    assert np.abs(a.image.astype(int) - b.image.astype(int)).mean() < 12
    np.testing.assert_array_equal(a.corners, b.corners)


@pytest.mark.parametrize("option,value", [
    ("tilt", 20), ("azimuth", 90), ("rotation", 45), ("fill", 0.6), ("offset", (0.05, -0.04)),
    ("focal", 1.5), ("markers", True), ("hands", 1), ("brightness", 0.4), ("gradient", 0.5),
    ("cast", (0.85, 1.0, 1.15)), ("glare", 0.7), ("noise", 6.0), ("blur", 1.5), ("jpeg", 40),
    ("shadows", False), ("jitter", 0.2), ("table", "cloth"), ("table", "pale"), ("chip", False),
    ("distortion", -0.2),
])
def test_each_option_changes_the_picture(pos, option, value):
    base = Scene(tilt=10, azimuth=30)
    ref = render(pos, seed=2, scene=base)
    other = render(pos, seed=2, scene=base, **{option: value})
    diff = np.abs(ref.image.astype(int) - other.image.astype(int))
    assert diff.max() > 20, option
    assert (diff.sum(axis=2) > 15).mean() > 0.0005, option


def test_dim_light_darkens_and_cast_tints(pos):
    ref = render(pos).image.astype(float)
    dim = render(pos, brightness=0.35).image.astype(float)
    assert dim.mean() < 0.5 * ref.mean()
    warm = render(pos, cast=(0.8, 1.0, 1.2)).image.astype(float)
    assert warm[..., 2].mean() - warm[..., 0].mean() > ref[..., 2].mean() - ref[..., 0].mean() + 20


def test_sizes_and_bad_options(pos):
    shot = render(pos, size=(1640, 1232))
    assert shot.image.shape == (1232, 1640, 3) and shot.image.dtype == np.uint8
    with pytest.raises(TypeError, match="unknown option 'tilted'"):
        render(pos, tilted=3)
    with pytest.raises(ValueError, match="too small"):
        render(pos, size=(10, 10))
    with pytest.raises(ValueError, match="unknown table 'glass'"):
        render(pos, table="glass")
    off = render(pos, offset=(0.45, 0.0))
    assert not off.in_frame


def test_positions_may_be_given_as_dicts_and_the_print_is_cached(pos):
    a = render(POSITION, seed=0)
    b = render(pos, seed=0)
    assert np.array_equal(a.image, b.image)
    assert board_texture(pos.board) is board_texture(pos.board)


def test_random_scenes_cover_the_benchmark_ranges():
    scenes = [Scene.random(s) for s in range(300)]
    assert max(s.tilt for s in scenes) > 25 and min(s.tilt for s in scenes) < 5
    assert 0.3 < np.mean([s.markers for s in scenes]) < 0.7
    assert 0.1 < np.mean([s.hands > 0 for s in scenes]) < 0.3
    assert any(s.brightness < 0.5 for s in scenes) and any(s.jpeg for s in scenes)


def test_random_positions_are_legal_and_cover_all_tile_sides():
    seen = set()
    for s in range(80):
        p = random_position(s)
        seen.update(p.board.tiles)
        assert len(set(p.robots.values())) == 4
        for c in p.robots.values():
            assert p.board.target_at(c) is None and p.board.diagonal_at(c) is None
    assert len(seen) == 16


def test_an_explicit_board_renders_too():
    p = Position.from_dict({
        "board": {"size": 8, "walls": [["c4", "up"], ["e2", "right"]], "blocked": ["d4", "e4",
                  "d5", "e5"], "targets": [{"cell": "b2", "color": "red", "shape": "circle"}]},
        "robots": {"red": "a1"}, "target": {"cell": "b2", "robot": "red"},
    })
    shot = render(p)
    assert shot.chip == ("red", "circle")
    grey = cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY)
    u, v = cell_uv(shot.board, shot.board.cell("c4"))
    x, y = shot.to_image([(u + 0.25, v - 0.5 + 0.03)])[0]
    assert grey[int(round(y)), int(round(x))] < 90


# ---------------------------------------------------------------- against a real photograph

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"
# The 8×8 grid of tile 1A in tiles-side-A-crop.jpg, measured by hand: NW, NE, SE, SW.
TILE_1A_CORNERS = [[33.7, 45.8], [308.0, 47.5], [305.8, 320.8], [27.0, 320.0]]
TP = 40  # pixels per cell of the rectified tiles


def tile_1a_walls() -> set[tuple[str, int, int]]:
    """1A's walls as grid lines: ('v', x, y) the vertical line left of column x in row y,
    ('h', x, y) the horizontal line above row y in column x (rows from the north)."""
    out = set()
    for x, y, side in tile_library()["quadrants"]["1A"]["walls"]:
        out.add({"E": ("v", x + 1, y), "W": ("v", x, y), "S": ("h", x, y + 1),
                 "N": ("h", x, y)}[side])
    return out


def edge_darkness(grey: np.ndarray) -> dict[bool, list[float]]:
    """How much darker than the surface each inner edge line of an 8×8 tile is, split by
    whether 1A has a wall there (edges touching the notched centre cell left out)."""
    surface = np.median(grey)
    walls = tile_1a_walls()
    w = int(TP * 0.06)
    out: dict[bool, list[float]] = {True: [], False: []}
    for i in range(1, 8):
        for j in range(8):
            for kind in ("v", "h"):
                if (kind == "v" and i == 7 and j == 7) or (kind == "h" and j == 7 and i == 7):
                    continue
                if kind == "v":
                    strip = grey[int((j + 0.2) * TP):int((j + 0.8) * TP),
                                 i * TP - w:i * TP + w + 1]
                    key = ("v", i, j)
                else:
                    strip = grey[i * TP - w:i * TP + w + 1,
                                 int((j + 0.2) * TP):int((j + 0.8) * TP)]
                    key = ("h", j, i)
                out[key in walls].append(1 - strip.mean() / surface)
    return out


def hatch_direction(grey: np.ndarray) -> float:
    """The sign of the hatch stripes' slant in the plain cells' inner squares."""
    vals = []
    for i in range(8):
        for j in range(8):
            c = grey[int((j + 0.33) * TP):int((j + 0.67) * TP),
                     int((i + 0.33) * TP):int((i + 0.67) * TP)]
            gx = cv2.Sobel(c, cv2.CV_64F, 1, 0)
            gy = cv2.Sobel(c, cv2.CV_64F, 0, 1)
            vals.append((gx * gy).sum())
    return float(np.sign(np.median(vals)))


@pytest.mark.skipif(not (PHOTOS / "tiles-side-A-crop.jpg").exists(),
                    reason="the real photographs are not here")
def test_the_rendered_tile_looks_like_the_real_print():
    real = cv2.imread(str(PHOTOS / "tiles-side-A-crop.jpg"))
    square = np.float32([[0, 0], [8 * TP, 0], [8 * TP, 8 * TP], [0, 8 * TP]])
    M = cv2.getPerspectiveTransform(np.float32(TILE_1A_CORNERS), square)
    real_tile = cv2.warpPerspective(real, M, (8 * TP, 8 * TP))
    shot = render({"board": {"tiles": ["1A", "2A", "3A", "4A"]}, "robots": {"red": "p1"}})
    H = shot.homography @ np.diag([1 / TP, 1 / TP, 1.0])  # tile pixels → image
    ren_tile = cv2.warpPerspective(shot.image, np.linalg.inv(H), (8 * TP, 8 * TP))
    looks = {}
    for name, tile in (("real", real_tile), ("rendered", ren_tile)):
        grey = cv2.cvtColor(tile, cv2.COLOR_BGR2GRAY).astype(float)
        dark = edge_darkness(grey)
        # walls where the tile data says, open edges elsewhere
        assert min(dark[True]) > np.percentile(dark[False], 90), name
        assert np.mean(dark[True]) > np.mean(dark[False]) + 0.3, name
        looks[name] = (np.mean(dark[True]), hatch_direction(grey))
        # every printed target shows its colour
        hsv = cv2.cvtColor(tile, cv2.COLOR_BGR2HSV)
        for t in tile_library()["quadrants"]["1A"]["targets"]:
            y0, x0 = int((t["y"] + 0.2) * TP), int((t["x"] + 0.2) * TP)
            cell = tile[y0:y0 + int(0.6 * TP), x0:x0 + int(0.6 * TP)].reshape(-1, 3)
            sat = hsv[y0:y0 + int(0.6 * TP), x0:x0 + int(0.6 * TP), 1].ravel()
            # the print is pale in this photo: judge the most saturated tenth by its hue
            vivid = cell[sat >= np.percentile(sat, 90)].mean(axis=0)
            assert hue_class(vivid, min_sat=35) == t["color"], (name, t)
    # walls as dark against the surface as on the real print, the hatch slanting the same way
    assert abs(looks["real"][0] - looks["rendered"][0]) < 0.2
    assert looks["real"][1] == looks["rendered"][1] != 0


def test_target_symbols_turn_with_their_tile():
    """1A's green triangle points north on a north-west tile, east once the tile is turned
    into the north-east quadrant (its broad base then faces west)."""
    from companion.vision.render import PX

    def green_mass_offset(tiles: list[str]) -> np.ndarray:
        board = Board.from_tiles(tiles)
        t = board.target_by("green", "triangle")
        tex = board_texture(board)
        u, v = cell_uv(board, t.cell)
        cx, cy = (u + BORDER) * PX - 0.5, (v + BORDER) * PX - 0.5
        patch = tex[int(cy - PX / 2):int(cy + PX / 2), int(cx - PX / 2):int(cx + PX / 2)]
        hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
        ys, xs = np.nonzero((hsv[..., 1] > 100) & (abs(hsv[..., 0].astype(int) - 60) < 20))
        return np.array([xs.mean() - PX / 2, ys.mean() - PX / 2])

    nw = green_mass_offset(["1A", "2A", "3A", "4A"])
    ne = green_mass_offset(["2A", "1A", "3A", "4A"])
    assert nw[1] > 1.0 and abs(nw[0]) < 0.8  # mass low: apex up
    assert ne[0] < -1.0 and abs(ne[1]) < 0.8  # mass to the west: apex east


# ---------------------------------------------------------------- the silver and clear robots

# The silver robot on tiles-side-A.jpg, by eye: an ellipse around it (centre, half-axes).
SILVER_ON_PHOTO = ((268, 212), (15, 22))


def looks(image: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """A piece's look against what lies around it: its grey levels over the median around."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    m = mask > 0
    ring = (cv2.dilate(mask, np.ones((41, 41), np.uint8)) > 0) & ~(
        cv2.dilate(mask, np.ones((15, 15), np.uint8)) > 0)
    around = float(np.median(grey[ring]))
    v = grey[m] / around
    mean = image[m].reshape(-1, 3).mean(axis=0)
    return {"dark": float((v < 0.6).mean()), "median": float(np.median(v)),
            "spread": float(np.percentile(v, 90) / np.percentile(v, 10)),
            "peak": float(np.percentile(v, 99) / np.median(v)),
            "tint": float((mean.max() - mean.min()) / mean.mean())}


@pytest.mark.skipif(not (PHOTOS / "tiles-side-A.jpg").exists(),
                    reason="the real photographs are not here")
@pytest.mark.parametrize("tilt", [0, 20])
def test_the_rendered_silver_robot_looks_like_the_real_one(tilt):
    real = cv2.imread(str(PHOTOS / "tiles-side-A.jpg"))
    (cx, cy), (ax, ay) = SILVER_ON_PHOTO
    yy, xx = np.mgrid[0:real.shape[0], 0:real.shape[1]]
    mask = ((((xx - cx) / ax) ** 2 + ((yy - cy) / ay) ** 2) < 1).astype(np.uint8) * 255
    photo = looks(real, mask)
    shot = render({"board": {"tiles": ["1A", "4B", "3B", "2B"]}, "robots": {"silver": "f11"}},
                  seed=3, tilt=tilt, azimuth=0, noise=2)
    drawn = looks(shot.image, shot.robot_mask)
    # Polished metal mirrors a dim room: half of it or more darker than what lies around it,
    # a wide spread of greys with highlights far above its middle, and no colour of its own.
    for it in (photo, drawn):
        assert it["dark"] > 0.45 and it["spread"] > 2.5 and it["peak"] > 1.8, it
        assert it["tint"] < 0.15, it
    # not a black robot: the black one is far darker all over
    black = render({"board": {"tiles": ["1A", "4B", "3B", "2B"]}, "robots": {"black": "f11"}},
                   seed=3, tilt=tilt, azimuth=0, noise=2)
    assert looks(black.image, black.robot_mask)["median"] < 0.5 * drawn["median"]


def test_the_transparent_robot_shows_the_print_through_a_dark_outline():
    pos = {"board": {"tiles": ["1A", "4B", "3B", "2B"]}, "robots": {"transparent": "f11"}}
    empty = {"board": {"tiles": ["1A", "4B", "3B", "2B"]}, "robots": {"red": "a1"}}
    shot = render(pos, seed=3, tilt=20, azimuth=0)
    bare = render(empty, seed=3, tilt=20, azimuth=0)
    mask = shot.robot_mask
    inner = cv2.erode(mask, np.ones((9, 9), np.uint8)) > 0
    rim = (mask > 0) & ~inner
    grey = cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY).astype(float)
    behind = cv2.cvtColor(bare.image, cv2.COLOR_BGR2GRAY).astype(float)
    assert inner.sum() > 200
    # inside, the board behind it, bent a little and a little darker (clear plastic lets most
    # of the light through), but not hidden
    assert 0.7 < np.median(grey[inner]) / np.median(behind[inner]) < 1.0
    assert np.std(grey[inner]) > 0.5 * np.std(behind[inner])  # the print's detail, not a blob
    # its outline is darker than what it shows inside
    assert np.median(grey[rim]) < 0.85 * np.median(grey[inner])
    # and its shadow is faint beside an opaque robot's
    solid = render({**pos, "robots": {"red": "f11"}}, seed=3, tilt=20, azimuth=0)

    def shade(s) -> float:
        out = (cv2.dilate(s.robot_mask, np.ones((61, 61), np.uint8)) > 0) & ~(s.robot_mask > 0)
        g = cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY).astype(float)
        return float(np.mean(behind[out] - g[out]))

    assert 0 < shade(shot) < 0.6 * shade(solid)
