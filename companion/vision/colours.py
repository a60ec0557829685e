"""Colour profile of one table: what the board, the walls and each robot look like there.

Colours are judged *relative to the board's own white*: every frame is first balanced so the
playing surface is neutral and of a fixed brightness, then converted to CIE Lab. That alone
takes out most of a room's colour cast and dimness (a warm lamp, an evening window). What is left
— one table's red robot is orange-ish, another's blue is nearly black — is what the profile
holds: one Lab reference per class, learned from a single frame with the robots on known cells
(``companion calibration colours``). The default profile is measured on real photographs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import CompanionError

PROFILE_FORMAT = "ricochet-colour-profile/1"
ROBOT_COLOURS = ("red", "green", "blue", "yellow", "black", "silver", "transparent")
# Looked for unless a profile says otherwise: the four colours and the black fifth robot.
# Silver looks too much like the board's grey print to be looked for where it is not in play
# (a dark print square could pass for it); a game with the silver robot asks for it
# (``Profile.for_robots``), and then it is found. The transparent robot has no colour: it is
# found by what it does to the print behind it (:func:`companion.vision.robots.find_clear`).
DEFAULT_ROBOTS = ("red", "green", "blue", "yellow", "black")
OPTIONAL = ("black", "silver", "transparent")  # a game may well be played without these
CLEAR = "transparent"
# The surface's white is scaled to this fraction of full scale before conversion to Lab.
WHITE_LEVEL = 0.8

# Lab references (L 0..100, a, b) after balancing; measured on real boards in warm and daylight.
DEFAULT_REFERENCES: dict[str, tuple[float, float, float]] = {
    "surface": (88.0, 0.0, 0.0),
    "grey": (62.0, 0.0, 0.0),
    "dark": (24.0, 0.0, 0.0),
    "red": (36.0, 45.0, 25.0),
    "green": (40.0, -32.0, 28.0),
    "blue": (28.0, 10.0, -35.0),
    "yellow": (60.0, 20.0, 52.0),
    "black": (18.0, 0.0, 0.0),
    "silver": (43.0, 0.0, -2.0),
}
# How far (radians) a robot's hue may stray from its reference.
HUE_SPREAD = 0.30
DEFAULT_SPREAD = 16.0  # kept in profile files for older readers; unused


class ProfileError(CompanionError, ValueError):
    """A colour profile file that cannot be used."""


@dataclass
class Profile:
    """Per-table colour references (see the module docstring)."""

    references: dict[str, tuple[float, float, float]] = field(
        default_factory=lambda: dict(DEFAULT_REFERENCES))
    spread: float = DEFAULT_SPREAD
    robots: tuple[str, ...] = DEFAULT_ROBOTS

    def for_robots(self, robots: list[str] | tuple[str, ...]) -> Profile:
        """The same table's colours, looking for these robots (the game's: say the silver
        fifth robot, or the transparent one); an unknown name is refused."""
        bad = [r for r in robots if r not in ROBOT_COLOURS]
        if bad or not robots:
            raise ProfileError(f"robots: {', '.join(bad) or 'none given'}: choose from "
                               f"{', '.join(ROBOT_COLOURS)}")
        return Profile(references=dict(self.references), spread=self.spread,
                       robots=tuple(dict.fromkeys(robots)))

    # -- persistence
    def to_dict(self) -> dict[str, Any]:
        return {"format": PROFILE_FORMAT, "spread": self.spread, "robots": list(self.robots),
                "references": {k: [round(float(x), 2) for x in v]
                               for k, v in self.references.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"colour profile: 'format' must be {PROFILE_FORMAT!r}")
        refs = data.get("references")
        if not isinstance(refs, dict):
            raise ProfileError("colour profile: 'references' must be an object of Lab triples")
        out = dict(DEFAULT_REFERENCES)
        for k, v in refs.items():
            if k not in DEFAULT_REFERENCES:
                raise ProfileError(f"colour profile: unknown class {k!r}")
            if not (isinstance(v, list) and len(v) == 3
                    and all(isinstance(x, int | float) and -200 <= x <= 200 for x in v)):
                raise ProfileError(f"colour profile: references.{k} must be [L, a, b] "
                                   "(numbers from -200 to 200)")
            out[k] = (float(v[0]), float(v[1]), float(v[2]))
        robots = data.get("robots", list(DEFAULT_ROBOTS))
        if not isinstance(robots, list) or any(r not in ROBOT_COLOURS for r in robots):
            raise ProfileError(f"colour profile: 'robots' must list some of {ROBOT_COLOURS}")
        spread = data.get("spread", DEFAULT_SPREAD)
        if not isinstance(spread, int | float) or not 2 <= spread <= 60:
            raise ProfileError("colour profile: 'spread' must be a number from 2 to 60")
        return cls(references=out, spread=float(spread), robots=tuple(robots))

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        from ..inputs import InputError, read_model

        try:
            return read_model(path, "colour profile", "colour profile", cls.from_dict)
        except InputError as e:
            raise ProfileError(str(e)) from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    # -- classification
    def classes(self) -> tuple[str, ...]:
        return self.robots

    def membership(self, lab: np.ndarray, lift: np.ndarray | None = None
                   ) -> dict[str, np.ndarray]:
        """How much ``(..., 3)`` balanced Lab colours look like each robot colour, 0..1.

        Coloured robots are told by hue, which survives dim light and shading far better than
        brightness does; they must also be clearly coloured (chroma), which the white cells,
        grey walls and shadows are not. Black is dark and colourless. Silver, polished metal,
        mirrors a dim room in bright bands: colourless and darker than the print's light
        greys (and lighter than black, when a profile asks for both). The two are judged by
        lightness, so against the light where each colour is seen: ``lift`` (broadcast to
        ``lab[..., 0]``) brings it to the board's usual light (above 1 in a dim corner)."""
        L, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
        chroma = np.hypot(a, b)
        hue = np.arctan2(b, a)
        lit = L if lift is None else L * lift
        out: dict[str, np.ndarray] = {}
        for name in self.robots:
            if name == CLEAR:
                continue  # no colour of its own
            rl, ra, rb = self.references[name]
            if name in ("black", "silver"):
                grey = 1.0 / (1.0 + np.exp((chroma - 10.0) / 2.5))
                if name == "black":
                    out[name] = grey / (1.0 + np.exp((lit - (rl + 14.0)) / 3.0))
                else:
                    out[name] = grey / (1.0 + np.exp((lit - (rl + 12.0)) / 3.0))
                    if "black" in self.robots:  # both at once: silver is the lighter
                        lo = self.references["black"][0] + 6.0
                        out[name] = out[name] / (1.0 + np.exp(-(lit - lo) / 3.0))
                continue
            ref_c = float(np.hypot(ra, rb))
            dh = np.angle(np.exp(1j * (hue - np.arctan2(rb, ra))))
            c_min = min(12.0, 0.3 * ref_c)
            out[name] = (1.0 / (1.0 + np.exp(-(chroma - c_min) / 2.0))
                         * np.exp(-0.5 * (dh / HUE_SPREAD) ** 2))
        return out


def cell_lightness(L: np.ndarray, cells: int = 16) -> np.ndarray:
    """``(cells, cells)`` lightness of each cell of a board seen from above (``L`` a square
    lightness image, whole pixels per cell): its 75th percentile, the light print rather than
    walls, symbols or noise."""
    px = L.shape[0] // cells
    return np.percentile(L.reshape(cells, px, cells, px).transpose(0, 2, 1, 3)
                         .reshape(cells, cells, -1), 75, axis=2).astype(np.float32)


def white_of(board_pixels: np.ndarray) -> np.ndarray:
    """The surface's white (BGR) from pixels of the rectified board: the median of its brighter
    half, which is cells and not walls, robots or the centre piece."""
    px = board_pixels.reshape(-1, 3).astype(np.float32)
    lum = px.sum(axis=1)
    sel = lum >= np.percentile(lum, 45)
    white = np.median(px[sel], axis=0)
    return np.maximum(white, 1.0)


def balanced_lab(bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """``(..., 3)`` BGR colours → Lab after scaling the surface white to :data:`WHITE_LEVEL`."""
    x = np.asarray(bgr, dtype=np.float32) / np.asarray(white, dtype=np.float32) * WHITE_LEVEL
    x = np.clip(x, 0.0, 1.0)
    shape = x.shape
    lab = cv2.cvtColor(x.reshape(1, -1, 3), cv2.COLOR_BGR2Lab)
    return lab.reshape(shape)
