"""Learning the table once: its robots' colours, from the frames of a confirmed start.

Before each round the players confirm where every robot stands (the round's start, which the
journal keeps). The frames of that moment are a lesson the reader gets for free: it knows the
answer. :func:`learn_start` measures each robot's own colour there — this table's plastic
under this room's light, which the default references only approximate — and gives a
:class:`Lesson`: a colour profile for the rest of the round.

A lesson must never put a robot on a wrong cell, so a colour is only learnt when

* its robot is seen over enough of its body in every frame of the lesson;
* what it shows is still plainly a robot of that colour: a coloured robot's hue near its
  default one (:data:`MAX_TURN`) and clearly coloured, a black or silver robot colourless and
  of about its default lightness (a hand or glare over the robot teaches nothing); and
* the frames of the lesson, read again with the learnt colours, put no robot on a cell other
  than its confirmed one (a colour that does is left as it was, and said why).

The lesson also learns how sure the cell classifier (:mod:`.cells`) is of this table's robots
on their own cells (its ``bars``): its shipped bar was set on other tables, and a table whose
robots it finds a little strange leaves them unread. Where the colour scores place a robot
surely on a cell that the classifier names its best too, reaching this table's bar, the robot
stands (:func:`~.read.agreed`); nothing else the classifier says changes. The same self-check holds
for the bars. Nothing is journaled: after a restart the next confirmed start teaches the
lesson again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .colours import CLEAR, Profile, ProfileError
from .learn import learn
from .locate import VisionError

# How far (radians) a learnt hue may lie from the default reference's before it is taken for
# something else over the robot (a hand, a reflection) rather than this table's plastic.
MAX_TURN = 0.6
MIN_CHROMA = 10.0  # a coloured robot's learnt colour must be at least this colourful …
MAX_GREY = 12.0  # … and a black or silver one at most this
MAX_DARKER = 22.0  # lightness a colourless robot's learnt colour may differ from its default
# The cell classifier's bar for a robot the colour scores place on the same cell: its
# probability there at the start less BAR_SLACK, never below BAR_FLOOR; its lead over the
# next cell half the start's, never below LEAD_FLOOR.
BAR_SLACK = 0.1
BAR_FLOOR = 0.5
LEAD_FLOOR = 0.25


@dataclass(frozen=True)
class Lesson:
    """What the start taught: the ``profile`` to read the round with, the colours ``learnt``
    and those ``kept`` as they were (colour → why), and the classifier's ``bars`` (colour →
    its probability and lead this table's robot reaches, for :attr:`.read.Reader.bars`)."""

    profile: Profile
    learnt: tuple[str, ...] = ()
    kept: dict[str, str] = field(default_factory=dict)
    bars: dict[str, tuple[float, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"learnt": list(self.learnt), "kept": dict(self.kept),
                "references": {c: [round(x, 1) for x in self.profile.references[c]]
                               for c in self.learnt},
                "bars": {c: [round(p, 2), round(lead, 2)] for c, (p, lead) in self.bars.items()}}


def learn_start(images: Sequence[np.ndarray], robots: Mapping[str, str], *,
                tiles: Sequence[str] | None, base: Profile | None = None,
                corners: Any = None, cells: Any = True) -> Lesson:
    """The lesson of a confirmed start: ``images``, frames showing the board with the
    ``robots`` on their confirmed cells (colour → cell name, as the reader names them with
    these ``tiles``), no hand over it. ``base``: the profile read with until now (the
    table's calibration, or the defaults). ``cells``: the classifier the self-check reads
    with, as :func:`~.read.reader_for` takes it. A frame whose board cannot be found teaches
    nothing; with no frame left the lesson is the base itself, with the reason."""
    base = base or Profile()
    if not images:
        raise ValueError("learn_start: no frame to learn from")
    wanted = {c: str(cell) for c, cell in robots.items() if c in base.robots and c != CLEAR}
    measured: dict[str, list[tuple[float, float, float]]] = {c: [] for c in wanted}
    kept: dict[str, str] = {}
    for image in images:
        for colour, ref in _measure(image, wanted, tiles, base, corners, kept).items():
            measured[colour].append(ref)
    refs = dict(base.references)
    learnt: list[str] = []
    for colour, samples in measured.items():
        if colour in kept or not samples:
            kept.setdefault(colour, "not seen in the frames of the start")
            continue
        m = np.median(np.array(samples), axis=0)
        ref = (float(m[0]), float(m[1]), float(m[2]))
        why = implausible(colour, ref, base.references[colour])
        if why is not None:
            kept[colour] = why
            continue
        refs[colour] = ref
        learnt.append(colour)
    profile = Profile(references=refs, spread=base.spread, robots=base.robots)
    bars = _bars(images, wanted, tiles, profile, corners, cells) if cells else {}
    return _checked(images, wanted, tiles, base, Lesson(profile, tuple(learnt), kept, bars),
                    corners, cells)


def _bars(images: Sequence[np.ndarray], wanted: Mapping[str, str], tiles: Sequence[str] | None,
          profile: Profile, corners: Any, cells: Any) -> dict[str, tuple[float, float]]:
    """Per robot colour, the probability and lead the cell classifier reaches on its
    confirmed cell in every frame of the lesson, when it names that cell its best (less a
    margin, never below :data:`BAR_FLOOR` and :data:`LEAD_FLOOR`): what this table's robot
    looks like to it, where the shipped bars were set on other tables."""
    from .read import reader_for

    seen: dict[str, list[tuple[float, float]]] = {c: [] for c in wanted}
    for image in images:
        reader = reader_for(tiles, robots=profile.robots, profile=profile, cells=cells)
        try:
            reader.read(image, corners=corners)
        except VisionError:
            return {}
        for colour, cell in wanted.items():
            vote = reader.votes.get(colour)
            if vote is not None and vote[0] == cell:
                seen[colour].append((vote[1], vote[2]))
    out = {}
    for colour, got in seen.items():
        if len(got) < len(images):
            continue
        p = min(x for x, _ in got) - BAR_SLACK
        lead = 0.5 * min(x for _, x in got)
        if p >= BAR_FLOOR and lead >= LEAD_FLOOR:
            out[colour] = (round(p, 3), round(lead, 3))
    return out


def _measure(image: np.ndarray, wanted: Mapping[str, str], tiles: Sequence[str] | None,
             base: Profile, corners: Any, kept: dict[str, str]
             ) -> dict[str, tuple[float, float, float]]:
    """Each wanted robot's colour in one frame (:func:`~.learn.learn`): all at once, or, when
    one of them is not in view, one by one (that one is kept, and why)."""
    named = list(tiles) if tiles else None
    try:
        taught = learn(image, dict(wanted), tiles=named, corners=corners, base=base)
        return {c: taught.references[c] for c in wanted}
    except VisionError as e:
        for colour in wanted:
            kept.setdefault(colour, f"the board is not seen ({e})")
        return {}
    except ProfileError:
        pass
    out = {}
    for colour, cell in wanted.items():
        try:
            taught = learn(image, {colour: cell}, tiles=named, corners=corners, base=base)
        except (ProfileError, VisionError) as e:
            kept.setdefault(colour, f"not seen well enough on {cell} ({e})")
            continue
        out[colour] = taught.references[colour]
    return out


def implausible(colour: str, ref: Sequence[float], default: Sequence[float]) -> str | None:
    """Why ``ref`` (balanced Lab) is not a believable colour of the ``colour`` robot whose
    default reference is ``default``, or None when it is."""
    L, a, b = (float(x) for x in ref)
    chroma = float(np.hypot(a, b))
    if colour in ("black", "silver"):
        if chroma > MAX_GREY:
            return f"its cell showed a colour ({chroma:.0f} chroma), not a {colour} robot"
        if abs(L - float(default[0])) > MAX_DARKER:
            return f"its cell showed a lightness ({L:.0f}) unlike a {colour} robot's"
        return None
    if chroma < MIN_CHROMA:
        return f"its cell showed too little colour ({chroma:.0f} chroma)"
    turn = float(np.angle(np.exp(1j * (np.arctan2(b, a) - np.arctan2(default[2], default[1])))))
    if abs(turn) > MAX_TURN:
        return f"its cell showed a hue {abs(turn):.2f} rad from a {colour} robot's"
    return None


def _checked(images: Sequence[np.ndarray], wanted: Mapping[str, str],
             tiles: Sequence[str] | None, base: Profile, lesson: Lesson, corners: Any,
             cells: Any) -> Lesson:
    """Read the lesson's own frames again with what it learnt: a colour whose robot lands on
    a cell other than its confirmed one, or whose colour draws another robot there, goes
    back to its base reference and bar; until no robot is on a wrong cell."""
    learnt, kept = list(lesson.learnt), dict(lesson.kept)
    bars, profile = dict(lesson.bars), lesson.profile
    while learnt or bars:
        wrong = _misread(images, wanted, tiles, profile, bars, corners, cells)
        if not wrong:
            break
        back = [c for c in {*learnt, *bars} if c in wrong] or [*learnt, *bars]
        for c in back:  # a wrong one not learnt: what was learnt goes back, all of it
            if c in learnt:
                learnt.remove(c)
            bars.pop(c, None)
            kept[c] = "read with it, the start put a robot on a wrong cell"
        refs = dict(profile.references)
        refs.update({c: base.references[c] for c in back})
        profile = Profile(references=refs, spread=base.spread, robots=base.robots)
    return Lesson(profile, tuple(learnt), kept, bars)


def _misread(images: Sequence[np.ndarray], wanted: Mapping[str, str],
             tiles: Sequence[str] | None, profile: Profile,
             bars: Mapping[str, tuple[float, float]], corners: Any, cells: Any) -> set[str]:
    """The robots the lesson's frames, read with ``profile`` and ``bars``, put on a cell
    that is not their confirmed one (or on another robot's confirmed cell)."""
    from .read import reader_for

    wrong: set[str] = set()
    for image in images:
        reader = reader_for(tiles, robots=profile.robots, profile=profile, cells=cells)
        reader.bars = dict(bars)
        try:
            obs = reader.read(image, corners=corners)
        except VisionError:
            continue
        wrong |= {c for c, cell in obs.robots.items() if c in wanted and cell != wanted[c]}
        wrong |= {c for c, cell in obs.robots.items() if c not in wanted
                  and cell in wanted.values()}
    return wrong


__all__ = ["MAX_TURN", "Lesson", "implausible", "learn_start"]
