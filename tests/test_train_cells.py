"""What training the cell classifier makes of its material (training itself never runs here):
a real robot's plastic is masked by its hue and nothing is masked for a colourless robot or a
stray blob; a robot pasted onto an empty cell carries its pixels and its class there and only
onto empty cells; a robot's plastic is changed inside its mask only, on robot crops only; the
light-and-lens changes keep crops in range, differ per crop and repeat with the seed. Those
need torch (the ``train`` extra) and are skipped without it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.cells import CLASSES, CROP_H, CROP_W
from companion.vision.train_cells import colour_mask


def _crop(colour_bgr: tuple[int, int, int] | None, centre=(16, 30), axes=(8, 12)) -> np.ndarray:
    """A packed crop (uint8, the board's white at 127): pale print, a blob of ``colour``."""
    img = np.full((CROP_H, CROP_W, 3), 240, np.uint8)
    cv2.line(img, (0, 10), (CROP_W, 10), (60, 60, 60), 1)  # a wall
    if colour_bgr is not None:
        cv2.ellipse(img, centre, axes, 0, 0, 360, colour_bgr, -1)
    return (img.astype(np.float32) / 2).round().astype(np.uint8).transpose(2, 0, 1)


@pytest.mark.parametrize("name, bgr", [("red", (40, 40, 200)), ("green", (60, 170, 40)),
                                       ("blue", (190, 80, 30)), ("yellow", (40, 200, 230))])
def test_a_coloured_robot_is_masked_by_its_hue(name, bgr):
    m = colour_mask(_crop(bgr), name)
    blob = np.zeros((CROP_H, CROP_W), np.uint8)
    cv2.ellipse(blob, (16, 30), (8, 12), 0, 0, 360, 255, -1)
    inter = ((m > 0) & (blob > 0)).sum()
    assert inter >= 0.85 * (blob > 0).sum()
    assert ((m > 0) & (blob == 0)).sum() <= 0.15 * (blob > 0).sum()
    # another colour's robot is not this one
    other = "blue" if name != "blue" else "red"
    assert not colour_mask(_crop(bgr), other).any()


def test_nothing_is_masked_for_a_colourless_robot_a_far_blob_or_a_speck():
    assert not colour_mask(_crop((30, 30, 30)), "black").any()
    assert not colour_mask(_crop((40, 40, 200), centre=(16, 4), axes=(6, 3)), "red").any()
    assert not colour_mask(_crop((40, 40, 200), axes=(2, 2)), "red").any()
    assert not colour_mask(_crop(None), "red").any()


def _pool_and_batch():
    torch = pytest.importorskip("torch")
    from companion.vision.train_augment import REAL, RENDERED, joined, make_pool

    rng = np.random.default_rng(0)
    real = np.stack([_crop((40, 40, 200)) for _ in range(3)])
    mask = np.stack([colour_mask(c, "red") for c in real])
    rendered = np.stack([_crop((190, 80, 30)) for _ in range(3)])
    rmask = np.stack([colour_mask(c, "blue") for c in rendered])
    red, blue = CLASSES.index("red"), CLASSES.index("blue")
    pool = joined(make_pool(real, mask, np.full(3, red), REAL, limit=10, rng=rng),
                  make_pool(rendered, rmask, np.full(3, blue), RENDERED, limit=10, rng=rng))
    x = torch.from_numpy(np.stack([_crop(None)] * 8 + [_crop((60, 170, 40))] * 4)
                         .astype(np.float32) / 127.0 - 0.5)
    y = torch.tensor([0] * 8 + [CLASSES.index("green")] * 4)
    origin = torch.tensor([RENDERED] * 4 + [REAL] * 4 + [RENDERED] * 4)
    return torch, pool, x, y, origin


def test_a_pasted_robot_lands_only_on_empty_cells_with_its_class_and_pixels():
    torch, pool, x, y, origin = _pool_and_batch()
    from companion.vision.train_augment import paste

    gen = torch.Generator().manual_seed(1)
    xb, yb = paste(x, y, origin, pool, gen, share=1.0)
    assert torch.equal(yb[8:], y[8:]) and torch.equal(xb[8:], x[8:])  # robots untouched
    red = CLASSES.index("red")
    assert set(yb[:4].tolist()) == {red}  # a rendered cell gets a real robot
    assert set(yb[4:8].tolist()) <= {red, CLASSES.index("blue")}
    # the robot's pixels are there: the crop's middle is now strongly red
    mid = xb[:4, :, 26:34, 12:20].mean(dim=(2, 3)) + 0.5  # B, G, R in the white's units
    assert bool((mid[:, 2] > mid[:, 0] + 0.25).all())
    assert torch.equal(x, paste(x, y, origin, pool, gen, share=0.0)[0])


def test_the_light_and_lens_changes_stay_in_range_differ_per_crop_and_repeat_by_seed():
    torch, _, x, _, _ = _pool_and_batch()
    from companion.vision.train_augment import augment

    a = augment(x, torch.Generator().manual_seed(3))
    b = augment(x, torch.Generator().manual_seed(3))
    assert a.shape == x.shape and torch.equal(a, b)
    assert float(a.min()) >= -0.5 and float(a.max()) <= 1.5
    # the same empty crop comes out different each time it is drawn
    assert float((a[0] - a[1]).abs().mean()) > 0.01
    assert not torch.equal(a, augment(x, torch.Generator().manual_seed(4)))


def test_odd_print_cells_are_cut_as_empty_cells_beside_the_robots():
    from companion.vision.render import Scene, render
    from companion.vision.train_cells import _position, _shot_crops

    pos = _position(np.random.default_rng(3), four_only=0.0)
    assert {"black", "silver"} & set(pos.robots)  # the fifth robot on every such board
    shot = render(pos, seed=3, size=(640, 480), scene=Scene(tilt=25, print_variety=1.0))
    assert shot.printed
    plain = _shot_crops(shot, np.random.default_rng(7), targets=True)
    marked = _shot_crops(shot, np.random.default_rng(7), targets=True, marks=shot.printed)
    assert plain is not None and marked is not None
    # more crops, the same robots: every printed cell without a robot is one more empty crop
    assert len(marked[1]) > len(plain[1])
    assert np.array_equal(np.sort(marked[1][marked[1] > 0]), np.sort(plain[1][plain[1] > 0]))
    assert (marked[1] > 0).sum() == sum(n in CLASSES for n in pos.robots)


def test_the_network_takes_its_widths_and_refuses_bad_ones():
    torch = pytest.importorskip("torch")
    from companion.vision.train_cells import _network, _widths

    assert _widths("16,32,48,96") == (16, 32, 48, 96)
    for bad in ("16,32,48", "a,b,c,d", "16,0,48,96"):
        with pytest.raises(SystemExit, match="--widths"):
            _widths(bad)
    net = _network((8, 16, 24, 32)).eval()
    assert net(torch.zeros(2, 3, CROP_H, CROP_W)).shape == (2, len(CLASSES))
    with pytest.raises(ValueError, match="widths"):
        _network((8, 16, 24))


def test_a_robots_plastic_is_changed_only_inside_its_mask_and_only_on_robot_crops():
    torch = pytest.importorskip("torch")
    from companion.vision.train_augment import tone

    black, red = CLASSES.index("black"), CLASSES.index("red")
    blob = np.zeros((CROP_H, CROP_W), np.float32)
    cv2.ellipse(blob, (16, 30), (8, 12), 0, 0, 360, 1.0, -1)
    crops = np.stack([_crop((30, 30, 30))] * 6 + [_crop((40, 40, 200))] * 6 + [_crop(None)] * 4)
    x = torch.from_numpy(crops.astype(np.float32) / 127.0 - 0.5)
    y = torch.tensor([black] * 6 + [red] * 6 + [0] * 4)
    m = torch.from_numpy(np.repeat(blob[None, None], len(y), axis=0))
    m[12:] = 0.0  # an empty crop has no robot pixels …
    m[12, :, 20:40, 8:24] = 1.0  # … and a stray mask there changes nothing either
    out = tone(x, y, m, torch.Generator().manual_seed(2), share=0.0, colourless=1.0)
    assert out.shape == x.shape
    assert torch.equal(out[6:], x[6:])  # coloured robots left alone at share 0, empty ones always
    changed = (out[:6] - x[:6]).abs().sum(dim=1) > 1e-4  # (6, H, W)
    assert bool(changed.any(dim=(1, 2)).any())
    # only on the robot (its rim smoothed by a pixel): the print round it is as it was
    rim = cv2.dilate(blob, np.ones((3, 3), np.uint8))
    assert not bool(changed[:, torch.from_numpy(rim) == 0].any())
    assert float(out.min()) >= -0.5 and float(out.max()) <= 1.5
    again = tone(x, y, m, torch.Generator().manual_seed(2), share=0.0, colourless=1.0)
    assert torch.equal(out, again)
    assert torch.equal(tone(x, y, m, torch.Generator().manual_seed(2), 0.0, 0.0), x)
