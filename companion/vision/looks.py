"""What the camera feed makes of a classic frame's reading beside the robots: the chip settled
on the centre piece, and the lesson of the round's confirmed start (:mod:`.adapt`).

The feed (:class:`~companion.vision.feed.CameraFeed`) keeps the readers and trackers built for
what it is told to look for (its ``eyes``) and tells the table; these say what is news.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("companion.table")


def settled_chip(obs: Any, chips: Any) -> tuple[str | None, str | None, dict[str, Any]] | None:
    """The chip on the centre piece once it has settled over a few frames (``chips``, a
    :class:`~companion.vision.track.Tracker`): ``None`` while that is no news; else what the
    page shows of it, the chip the table is told (``None``: the piece bare, or a chip left
    unread) and what else it is told (the chip's colour, why it is unread)."""
    if obs.occluded:
        chips.update(None, occluded=True)
        return None
    reading = obs.chip
    if reading is None:
        key = ""
    elif reading.read:
        key = reading.label()
    else:
        key = f"?{reading.color}"  # unread: its reasons may differ frame to frame
    if chips.update({"chip": key}).kind != "accepted":
        return None
    if reading is None:
        return None, None, {}
    if reading.read:
        return reading.label(), reading.label(), {"color": reading.color}
    return reading.label(), None, {"reason": reading.reason, "color": reading.color}


def learn_at_start(image: Any, obs: Any, start: tuple[tuple[str, str], ...],
                   tiles: Sequence[str] | None, eyes: dict[str, Any],
                   corners: list[tuple[float, float]] | None) -> bool:
    """Learn this table's colours from a frame of the confirmed ``start`` (see :mod:`.adapt`):
    one with no hand over the board, whose robots read are all on their confirmed cells (one
    at least: the cold reading may see few of them, which is when the lesson helps most; it
    checks itself, see :mod:`.adapt`). The reader of ``eyes`` keeps the lesson until the next
    start; the table's own profile (its calibration, ``eyes["base"]``) stays the base of every
    lesson. Whether a lesson was learnt (the page shows it)."""
    from .adapt import learn_start

    confirmed = dict(start)
    placed = obs.robots
    if obs.occluded or not placed or any(confirmed.get(c) != cell
                                         for c, cell in placed.items()):
        return False  # not the start as confirmed, or nothing of it seen to tell
    eyes["taught"] = start
    import numpy as np

    at = np.asarray(corners, dtype=np.float32) if corners else None
    try:
        lesson = learn_start([image], confirmed, tiles=tiles, base=eyes["base"],
                             corners=at, cells=eyes["reader"].cells or False)
    except Exception as e:  # noqa: BLE001 - the cold reading goes on; the log says why
        log.warning("camera: learning the table at the start: %s", e)
        return False
    eyes["lesson"] = lesson
    eyes["reader"].profile = lesson.profile
    eyes["reader"].bars = dict(lesson.bars)
    log.info("camera: learnt at the start: %s", lesson.to_dict())
    return True
