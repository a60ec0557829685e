"""What training the cell classifier (:mod:`.train_cells`) does to each batch of crops.

Three things, all on the fly, from the run's seeded generator:

* **copy and paste** (:func:`paste`): real robots cut out of the photos trained on are laid
  onto empty cells of the renders, and robots of the renders onto empty cells of the photos
  (or real ones onto other real cells), each by its mask of robot pixels. The network so sees
  real plastic on rendered print and real print under rendered robots, and cannot learn a
  robot from the print around it.
* **the robot's own plastic** (:func:`tone`): within a robot's mask, paler and fainter
  against its cell, greyer, lighter or darker, on a share of the robot crops (a larger share
  of the black and silver ones: the robots read worst on frames never trained on).
* **the light and the lens** (:func:`augment`), each drawn per crop: exposure and gamma, a
  colour cast (a warm lamp on the yellow robot among them), haze, washed-out plastic (paler,
  less coloured), a glare spot, a flash's fall-off across the crop, sensor noise, defocus
  blur, and the robot taller, shorter, wider or narrower than the renders draw it (a crop's
  content scaled from its bottom edge, where a robot stands).

Crops are in the units of :func:`~.cells.cut`: the board's white is 0.5, black −0.5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cells import CLASSES

REAL, RENDERED = 0, 1  # where a crop comes from


@dataclass
class Pool:
    """Robots to paste: crops ``x`` (N, 3, H, W float, :func:`~.cells.cut` units), their soft
    masks ``m`` (N, 1, H, W, 0 … 1), classes ``y`` and origins ``o`` (:data:`REAL`,
    :data:`RENDERED`), as torch tensors."""

    x: object
    m: object
    y: object
    o: object

    def __len__(self) -> int:
        return int(self.y.shape[0])  # type: ignore[attr-defined]


def make_pool(x: np.ndarray, m: np.ndarray, y: np.ndarray, origin: int, *,
              limit: int, rng: np.random.Generator) -> Pool:
    """The robot crops of packed crops ``x`` (uint8) with a mask of at least 40 pixels,
    at most ``limit`` of them, as a :class:`Pool`."""
    import cv2
    import torch

    ok = np.nonzero((y > 0) & ((m > 127).reshape(len(m), -1).sum(axis=1) >= 40))[0] \
        if len(m) else np.zeros(0, np.int64)
    if len(ok) > limit:
        ok = np.sort(rng.choice(ok, size=limit, replace=False))
    soft = np.stack([cv2.GaussianBlur((m[i] > 127).astype(np.float32), (0, 0), 0.8)
                     for i in ok]) if len(ok) else np.zeros((0,) + m.shape[1:], np.float32)
    return Pool(torch.from_numpy(x[ok].astype(np.float32) / 127.0 - 0.5),
                torch.from_numpy(soft[:, None]), torch.from_numpy(y[ok].astype(np.int64)),
                torch.full((len(ok),), origin, dtype=torch.int64))


def joined(*pools: Pool) -> Pool:
    import torch

    return Pool(*(torch.cat([getattr(p, k) for p in pools]) for k in ("x", "m", "y", "o")))


def paste(xb, yb, ob, pool: Pool, gen, share: float, mb=None):
    """``share`` of the empty crops of a batch with a robot of ``pool`` laid on (a real one
    on a rendered cell; on a real cell, a rendered or another real one), the label changed
    to it. ``xb`` (B, 3, H, W), ``yb`` classes, ``ob`` origins; new tensors. With ``mb``,
    the batch's masks of robot pixels (B, 1, H, W), those are given back too, the pasted
    robots' masks in."""
    import torch

    if not len(pool):
        return (xb, yb) if mb is None else (xb, yb, mb)
    empty = torch.nonzero(yb == 0).flatten()
    take = empty[torch.rand(len(empty), generator=gen) < share]
    if not len(take):
        return (xb, yb) if mb is None else (xb, yb, mb)
    real = torch.nonzero(pool.o == REAL).flatten()
    donor = torch.randint(len(pool), (len(take),), generator=gen)
    if len(real):
        # a rendered cell gets a real robot: that is what the renders cannot teach
        pick = real[torch.randint(len(real), (len(take),), generator=gen)]
        donor = torch.where(ob[take] == RENDERED, pick, donor)
    a = pool.m[donor]
    dy, dx = (int(t) for t in torch.randint(-2, 3, (2,), generator=gen))
    a = torch.roll(a, shifts=(dy, dx), dims=(2, 3))
    src = torch.roll(pool.x[donor] + 0.5, shifts=(dy, dx), dims=(2, 3))
    src = src * torch.empty(len(take), 1, 1, 1).uniform_(0.85, 1.15, generator=gen)
    xb, yb = xb.clone(), yb.clone()
    xb[take] = (xb[take] + 0.5) * (1 - a) + src * a - 0.5
    yb[take] = pool.y[donor]
    if mb is None:
        return xb, yb
    mb = mb.clone()
    mb[take] = a
    return xb, yb, mb


COLOURLESS_CLASSES = (CLASSES.index("black"), CLASSES.index("silver"))


def tone(xb, yb, mb, gen, share: float, colourless: float):
    """The robot's own plastic changed, within its mask ``mb`` (B, 1, H, W, 0 … 1), on a
    share of the robot crops (``share``; ``colourless`` for black and silver, the robots
    told from the print by lightness alone): paler and fainter against the cell around it
    (translucent plastic or polished metal in bright light, haze), greyer, and lighter or
    darker (a silver robot mirroring a dark room, black plastic lit grey). The print around
    it is left alone, so the network learns a faint robot, not a faint crop. ``xb`` in
    :func:`~.cells.cut` units; a new tensor."""
    import torch

    n = xb.shape[0]
    robot = (yb > 0).float().view(n, 1, 1, 1)
    dull = torch.zeros(n, 1, 1, 1)
    for k in COLOURLESS_CLASSES:
        dull = dull + (yb == k).float().view(n, 1, 1, 1)
    p = share + (colourless - share) * dull
    on = (torch.rand(n, 1, 1, 1, generator=gen) < p).float() * robot
    if not bool(on.any()):
        return xb
    import torch.nn.functional as F

    v = xb + 0.5
    # the mask pulled in off its soft rim and smoothed: a changed rim would draw an outline
    a = F.avg_pool2d(F.pad((mb * 1.6 - 0.6).clamp(0, 1), (1, 1, 1, 1), mode="replicate"),
                     3, stride=1) * on
    # the cell around it: the crop's median, per channel
    ground = v.flatten(2).median(dim=2).values.view(n, 3, 1, 1)
    gain = _u((n, 1, 1, 1), 0.6, 1.45, gen)
    grey = v.mean(dim=1, keepdim=True)
    sat = _u((n, 1, 1, 1), 0.0, 0.7, gen) * _some(n, 0.5, gen)
    faint = _u((n, 1, 1, 1), 0.0, 0.55, gen) * _some(n, 0.6, gen)
    w = v * gain
    w = w + sat * (grey * gain - w)
    w = w + faint * (ground - w)
    return (v * (1 - a) + w.clamp(0.0, 2.0) * a) - 0.5


def _some(n: int, p: float, gen):
    import torch

    return (torch.rand(n, 1, 1, 1, generator=gen) < p).float()


def _u(shape: tuple[int, ...], lo: float, hi: float, gen):
    import torch

    return torch.empty(*shape).uniform_(lo, hi, generator=gen)


def _reshape(v, gen):
    """Each crop's content scaled about its bottom middle: a robot taller or shorter (and
    the print with it), wider or narrower, moved a pixel or two."""
    import torch
    import torch.nn.functional as F

    n = v.shape[0]
    sy = _u((n,), 0.8, 1.2, gen)
    sx = _u((n,), 0.88, 1.12, gen)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = sx
    theta[:, 0, 2] = _u((n,), -0.1, 0.1, gen)
    theta[:, 1, 1] = sy
    theta[:, 1, 2] = 1.0 - sy + _u((n,), -0.06, 0.06, gen)
    grid = F.affine_grid(theta, list(v.shape), align_corners=False)
    return F.grid_sample(v, grid, mode="bilinear", padding_mode="border", align_corners=False)


def _blur(v, gen, p: float):
    """A defocus blur (one strength per batch) on a share ``p`` of the crops."""
    import torch
    import torch.nn.functional as F

    sigma = float(_u((1,), 0.6, 1.4, gen))
    r = torch.arange(-2, 3, dtype=torch.float32)
    k1 = torch.exp(-r ** 2 / (2 * sigma ** 2))
    k1 = k1 / k1.sum()
    k = (k1[:, None] * k1[None, :]).expand(3, 1, 5, 5)
    soft = F.conv2d(F.pad(v, (2, 2, 2, 2), mode="replicate"), k, groups=3)
    w = _some(v.shape[0], p, gen)
    return v * (1 - w) + soft * w


def augment(x, gen):
    """The light and the lens changed per crop (see the module's doc); ``x`` in
    :func:`~.cells.cut` units, a new tensor in the same."""
    import torch

    n, _, h, w = x.shape
    v = _reshape(x + 0.5, gen)
    v = v * _u((n, 1, 1, 1), 0.65, 1.35, gen)
    v = v.clamp(0.0, 2.0) ** _u((n, 1, 1, 1), 0.75, 1.35, gen)
    cast = _u((n, 3, 1, 1), 0.88, 1.12, gen)
    strong = _some(n, 0.2, gen)
    cast = cast * (1 - strong) + _u((n, 3, 1, 1), 0.75, 1.25, gen) * strong
    warm = _some(n, 0.15, gen) * _u((n, 1, 1, 1), 0.0, 0.25, gen)
    cast = cast * torch.cat([1 - warm, torch.ones_like(warm), 1 + warm], dim=1)  # B, G, R
    v = v * cast
    # washed-out plastic: less colour and paler, the lighter a pixel the more
    wash = _some(n, 0.3, gen) * _u((n, 1, 1, 1), 0.0, 0.6, gen)
    grey = v.mean(dim=1, keepdim=True)
    v = v + wash * (grey - v) * (0.5 + 0.5 * grey.clamp(0, 1))
    v = v + wash * 0.3 * grey.clamp(0, 1)
    haze = _some(n, 0.35, gen) * _u((n, 1, 1, 1), 0.0, 0.55, gen)
    v = v * (1 - haze) + haze * _u((n, 1, 1, 1), 0.8, 1.2, gen)
    yy = torch.linspace(-1, 1, h).view(1, 1, h, 1)
    xx = torch.linspace(-1, 1, w).view(1, 1, 1, w)
    fall = 1 + _u((n, 1, 1, 1), -0.25, 0.25, gen) * yy + _u((n, 1, 1, 1), -0.2, 0.2, gen) * xx
    v = v * (1 + (fall - 1) * _some(n, 0.4, gen))
    cy, cx = _u((n, 1, 1, 1), -1, 1, gen), _u((n, 1, 1, 1), -1, 1, gen)
    size = _u((n, 1, 1, 1), 0.1, 0.5, gen)
    spot = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * size ** 2))
    v = v + spot * _some(n, 0.2, gen) * _u((n, 1, 1, 1), 0.2, 1.0, gen)
    v = _blur(v, gen, 0.3)
    v = v + torch.randn(v.shape, generator=gen) * _u((n, 1, 1, 1), 0.0, 0.05, gen)
    return v.clamp(0.0, 2.0) - 0.5


__all__ = ["REAL", "RENDERED", "Pool", "augment", "joined", "make_pool", "paste", "tone"]
