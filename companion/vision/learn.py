"""Learning a table's colour profile from one frame whose robots stand on known cells.

It sits above the readers it uses (the board's locator, the tile orientation, the robots'
bodies), so :mod:`companion.vision.colours`, which they all read, imports none of them."""

from __future__ import annotations

import numpy as np

from .colours import CLEAR, ROBOT_COLOURS, Profile, ProfileError, balanced_lab, white_of
from .locate import locate
from .robots import body_pixels
from .tileid import orient


def learn(image: np.ndarray, robots: dict[str, str], *, tiles: list[str] | None = None,
          corners: np.ndarray | None = None, base: Profile | None = None) -> Profile:
    """A profile from one frame whose robots stand on known cells (``{"red": "c2", …}``).

    Each robot's reference is the median balanced colour over its projected body, so the
    profile holds that table's own plastic under that room's light."""
    base = base or Profile()
    loc = locate(image, corners=corners)
    loc, _ = orient(image, loc, tiles=tiles, profile=base)
    white = white_of(loc.warp(image, 8))
    refs = dict(base.references)
    for colour, cell in robots.items():
        if colour not in ROBOT_COLOURS:
            raise ProfileError(f"robots: unknown colour {colour!r}")
        if colour == CLEAR:
            continue  # nothing of its own to learn; it is looked for all the same
        px = body_pixels(image, loc, cell)
        if len(px) < 5:
            raise ProfileError(f"robots.{colour}: {cell} is not in view")
        lab = balanced_lab(px, white)
        refs[colour] = tuple(float(x) for x in np.median(lab.reshape(-1, 3), axis=0))
    present = tuple(c for c in ROBOT_COLOURS if c in robots) or base.robots
    return Profile(references=refs, spread=base.spread, robots=present)
