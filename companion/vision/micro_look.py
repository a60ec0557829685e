"""What a Micro Robots board looks like: every assumption about its print, in one place.

The real sections' printing has not been measured: no photograph of one is at hand. What is
known from the rule sheet (``001_…``) and the publisher's description: four double-sided 3×3
sections, one side black and one copper-coloured; "each game board shows nine dice", each
space a die face in one of six colours (blue, yellow, green, red, pink, white) showing 1 to 6;
one transparent robot; a colour die and a number die. Everything else below — the inks, the
size of a space and of a face, whether the number is shown as pips or as a printed digit, the
pale circuit lines on the black — is a plausible guess, made here and nowhere else, so that a
real photograph can correct it by editing :data:`LOOK` (or passing another :class:`Look`):
both the renderer (:mod:`companion.vision.micro_render`) and the reader
(:mod:`companion.vision.micro`) take their idea of the board from it.

A face is drawn by :func:`face_image`; the reader builds its number templates from the same
function, so the classifier is made of the project's own print, never a downloaded model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from ..micro import COLORS, NUMBERS

BGR = tuple[int, int, int]

# Where the pips of a die face lie, in face fractions (x right, y down), for 1 to 6.
_D = 0.25
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5 - _D, 0.5 - _D), (0.5 + _D, 0.5 + _D)),
    3: ((0.5 - _D, 0.5 - _D), (0.5, 0.5), (0.5 + _D, 0.5 + _D)),
    4: ((0.5 - _D, 0.5 - _D), (0.5 + _D, 0.5 - _D), (0.5 - _D, 0.5 + _D), (0.5 + _D, 0.5 + _D)),
    5: ((0.5 - _D, 0.5 - _D), (0.5 + _D, 0.5 - _D), (0.5, 0.5), (0.5 - _D, 0.5 + _D),
        (0.5 + _D, 0.5 + _D)),
    6: ((0.5 - _D, 0.5 - _D), (0.5 + _D, 0.5 - _D), (0.5 - _D, 0.5), (0.5 + _D, 0.5),
        (0.5 - _D, 0.5 + _D), (0.5 + _D, 0.5 + _D)),
}
NUMERALS = ("pips", "digits")
SIDES = ("black", "copper")


@dataclass(frozen=True)
class Look:
    """The print of a Micro Robots board (all guesses; see the module docstring).

    Lengths are in spaces (centre to centre of two neighbouring faces) unless named ``_mm``.
    Colours are BGR, as OpenCV keeps them.
    """

    space_mm: float = 30.0  # one space, centre to centre
    face: float = 0.78  # a die face's side; the rest of the space is the section's background
    corner: float = 0.14  # the face's rounded corner radius, as a fraction of its side
    rim: float = 0.22  # the board's edge beyond the outer faces' half-gap
    seam: float = 0.035  # the joint between two sections, dark
    numerals: str = "pips"  # how a face shows its number: "pips" (a die) or "digits"
    pip: float = 0.15  # a pip's diameter, fraction of the face
    digit: float = 0.56  # a printed digit's height, fraction of the face
    side: str = "black"  # which side of the sections is up
    # the six inks of the faces
    colours: tuple[tuple[str, BGR], ...] = (
        ("blue", (186, 92, 32)),
        ("yellow", (40, 204, 244)),
        ("green", (72, 158, 52)),
        ("red", (46, 40, 204)),
        ("pink", (182, 112, 236)),
        ("white", (230, 234, 234)),
    )
    # the pips or digits: light on the dark faces, dark on the light ones
    inks: tuple[tuple[str, BGR], ...] = (
        ("blue", (244, 244, 240)),
        ("yellow", (36, 34, 34)),
        ("green", (244, 244, 240)),
        ("red", (244, 244, 240)),
        ("pink", (36, 34, 34)),
        ("white", (36, 34, 34)),
    )
    backgrounds: tuple[tuple[str, BGR], ...] = (("black", (30, 28, 28)),
                                                ("copper", (62, 112, 170)))
    traces: tuple[tuple[str, BGR], ...] = (("black", (58, 56, 50)), ("copper", (90, 150, 206)))
    seam_colour: BGR = (14, 14, 14)
    robot: str = "transparent"  # the single robot, a look of the classic renderer's robots
    die_mm: float = 16.0  # the colour die and the number die
    die_white: BGR = (236, 238, 238)
    die_pip: BGR = (30, 30, 30)

    def __post_init__(self) -> None:
        if self.numerals not in NUMERALS:
            raise ValueError(f"look: numerals {self.numerals!r} is not one of {NUMERALS}")
        if self.side not in SIDES:
            raise ValueError(f"look: side {self.side!r} is not one of {SIDES}")
        names = {c for c, _ in self.colours}
        if names != set(COLORS) or {c for c, _ in self.inks} != set(COLORS):
            raise ValueError(f"look: colours and inks must name each of {', '.join(COLORS)}")
        if not 0.3 <= self.face <= 0.95:
            raise ValueError(f"look: face {self.face!r} is not a fraction of a space "
                             "from 0.3 to 0.95")

    def colour(self, name: str) -> BGR:
        return dict(self.colours)[name]

    def ink(self, name: str) -> BGR:
        return dict(self.inks)[name]

    @property
    def background(self) -> BGR:
        return dict(self.backgrounds)[self.side]

    @property
    def trace(self) -> BGR:
        return dict(self.traces)[self.side]


LOOK = Look()
"""The look every part of the companion assumes unless told otherwise."""


def _rounded_square(img: np.ndarray, x0: float, y0: float, side: float, radius: float,
                    colour: BGR | int, shift: int = 4) -> None:
    """A filled square with rounded corners, drawn with sub-pixel precision."""
    one = 1 << shift
    r = max(radius, 0.5)
    pts = []
    for cx, cy, a0 in ((x0 + side - r, y0 + r, -90), (x0 + side - r, y0 + side - r, 0),
                       (x0 + r, y0 + side - r, 90), (x0 + r, y0 + r, 180)):
        for a in np.radians(np.arange(a0, a0 + 91, 10)):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    poly = np.round(np.array(pts) * one).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(img, [poly], colour, cv2.LINE_AA, shift)


def _numeral_mask(number: int, px: int, numerals: str, look: Look) -> np.ndarray:
    """The ink of a number on a ``px``-wide face, upright, 0..1 (drawn 4× larger, reduced)."""
    s = px * 4
    m = np.zeros((s, s), np.uint8)
    if numerals == "pips":
        r = look.pip * s / 2
        for fx, fy in PIPS[number]:
            cv2.circle(m, (int(fx * s * 16), int(fy * s * 16)), int(r * 16), 255, -1,
                       cv2.LINE_AA, 4)
    else:
        font = cv2.FONT_HERSHEY_DUPLEX
        thick = max(2, int(s * 0.075))
        _, h = cv2.getTextSize(str(number), font, 1.0, thick)[0]
        scale = look.digit * s / h
        (w, h), _ = cv2.getTextSize(str(number), font, scale, thick)
        org = (int((s - w) / 2), int((s + h) / 2))
        cv2.putText(m, str(number), org, font, scale, 255, thick, cv2.LINE_AA)
    return cv2.resize(m, (px, px), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


@lru_cache(maxsize=512)
def face_ink(number: int, px: int, turn: int = 0, numerals: str = "pips",
             look: Look = LOOK) -> np.ndarray:
    """Where a face's number is printed (0..1) on a ``px``-wide face turned ``turn`` quarter
    turns clockwise: the reader's templates and the renderer's print are this one drawing."""
    if number not in NUMBERS:
        raise ValueError(f"a face shows 1 to 6, not {number!r}")
    m = np.rot90(_numeral_mask(number, px, numerals, look), k=-(turn % 4))
    m = np.ascontiguousarray(m)
    m.flags.writeable = False
    return m


def face_image(colour: str, number: int, px: int, turn: int = 0,
               look: Look = LOOK) -> np.ndarray:
    """One die face, ``px`` pixels wide (BGR), as printed on the board: its colour, its
    rounded corners on the section's background, its number in its ink."""
    s = px * 4
    img = np.empty((s, s, 3), np.uint8)
    img[:] = look.background
    _rounded_square(img, 0, 0, s - 1, look.corner * s, look.colour(colour))
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA).astype(np.float32)
    ink = face_ink(number, px, turn, look.numerals, look)[..., None]
    out = small * (1 - ink) + np.array(look.ink(colour), np.float32) * ink
    return np.clip(out, 0, 255).astype(np.uint8)


def die_image(px: int, *, colour: str | None = None, number: int | None = None,
              look: Look = LOOK) -> tuple[np.ndarray, np.ndarray]:
    """The top of one of the two dice, ``px`` wide, and its mask: the colour die shows a
    face in that colour, the number die a white face with black pips."""
    s = px * 4
    img = np.zeros((s, s, 3), np.uint8)
    mask = np.zeros((s, s), np.uint8)
    fill = look.colour(colour) if colour is not None else look.die_white
    _rounded_square(img, 0, 0, s - 1, 0.18 * s, fill)
    _rounded_square(mask, 0, 0, s - 1, 0.18 * s, 255)
    if number is not None:
        for fx, fy in PIPS[number]:
            cv2.circle(img, (int(fx * s * 16), int(fy * s * 16)), int(0.09 * s * 16),
                       look.die_pip, -1, cv2.LINE_AA, 4)
    return (cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA),
            cv2.resize(mask, (px, px), interpolation=cv2.INTER_AREA))


__all__ = ["LOOK", "NUMERALS", "PIPS", "SIDES", "Look", "die_image", "face_image", "face_ink"]
