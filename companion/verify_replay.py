"""Replaying a recorded demonstration beside the table: ``companion verify``.

A recording is an observation log (one JSON look a line) or a video or a folder of frames,
read through the camera's own pipeline (:func:`companion.vision.read.reader_for`, then the
tracker of :mod:`companion.vision.track`), and judged by the live verifier
(:class:`companion.verify.Demonstration`) exactly as at the table. The live verifier is pure
and imports no camera; this room is the one that reads frames, so it sits with the adapters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .board import Cell
from .rules import Position
from .verify import DEFAULT_MAX_GAP, Demonstration, Event


@dataclass
class Replay:
    """A recorded demonstration played through a :class:`Demonstration`: every event, the moves
    seen, and the verdict (the end of the recording is the player's "done": ``incomplete``
    when it ends before a success, ``unsure`` while a reading is in doubt or a robot unread)."""

    events: list[Event]
    moves: list[Event]
    verdict: str
    reason: str | None
    count: int
    cost: int
    question: str | None = None  # an ``unsure`` verdict's question for the players

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reason": self.reason, "question": self.question,
                "count": self.count, "cost": self.cost, "moves": self.moves,
                "events": self.events}


def replay(
    position: Position,
    bid: int,
    observations: Iterable[tuple[float, Mapping[str, Cell | str] | None]],
    *,
    max_gap: int = DEFAULT_MAX_GAP,
    answers: Callable[[Mapping[str, tuple[Cell, Cell]]], Mapping[str, bool]] | None = None,
) -> Replay:
    """Judge a recorded stream of ``(time, robots or None)`` observations as one demonstration
    (``unsure`` when it ends with a reading still in doubt or a robot unread). ``answers``:
    the players, asked at the end about the readings the page asks about (robot → the cell
    seen and the cell it is believed on), say which stand where the camera saw them (True)
    and which where they stood (False), leaving out any on neither
    (:meth:`Demonstration.answer`)."""
    demo = Demonstration(position, bid, max_gap=max_gap)
    events: list[Event] = []
    at = 0.0
    for at, robots in observations:
        events += demo.observe(robots, at)
        if demo.verdict is not None:
            break
    if demo.verdict is None and answers is not None and demo.asked:
        said = answers({n: (c, demo.robots[n]) for n, c in demo.asked.items()})
        if said:
            events += demo.answer(said, at)
    if demo.verdict is None:
        # the end of the recording is the player's "done": judged as the table judges it
        # (a reading still in doubt, or a robot unread, is unsure, never a failure)
        events += demo.done(at)
    assert demo.verdict is not None
    moves = [e for e in events if e["type"] == "move"]
    verdict, reason = demo.verdict["verdict"], demo.verdict.get("reason")
    if verdict == "success":
        reason = demo.verdict["message"]
    question = demo.verdict.get("question")
    return Replay(events, moves, verdict, reason, demo.count, demo.cost, question)


def read_observation_log(path: str | Path, option: str = "observation log"
                         ) -> list[tuple[float, dict[str, str] | None]]:
    """A recorded observation stream: one JSON object a line, ``{"at": 12.5, "robots":
    {"blue": "c2", ...}}`` (``"robots": null`` while the board was hidden).

    Raises :class:`~companion.inputs.InputError` (a ``ValueError``) naming the option, the
    file and the line that is wrong."""
    from .inputs import InputError, about, label, read_jsonl

    out = []
    for n, value, error in read_jsonl(path, option):
        if error is not None:
            raise InputError(f"{label(option, path)}: {error}")
        with about(option, path, "observation log"):
            out.append(observation_from_line(value, n))
    return out


def observation_from_line(data: Any, n: int) -> tuple[float, dict[str, str] | None]:
    """One parsed line of an observation log (line ``n``), or ``ValueError`` naming it."""
    if not isinstance(data, dict) or "robots" not in data:
        raise ValueError(f"line {n}: an object with 'at' and 'robots'")
    at = data.get("at", float(n))
    robots = data["robots"]
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        raise ValueError(f"line {n}: 'at' is a time in seconds, not {at!r}")
    if robots is not None and not (
        isinstance(robots, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in robots.items())
    ):
        raise ValueError(f"line {n}: 'robots' maps robot names to cells, or null")
    return float(at), robots


def frame_observations(
    path: str | Path, position: Position, *, stable: int = 3, cells: Any = True
) -> Iterator[tuple[float, dict[str, str] | None]]:
    """Stable observations from a video file or a folder of frames, through the camera
    pipeline: frame source → reader → tracker (a state counts once ``stable`` frames in a row
    agree on it). A hidden or unreadable board gives one ``None`` per spell. Times are seconds
    since the first frame. A source that cannot be read raises ``ValueError``."""
    from .vision.locate import VisionError
    from .vision.read import reader_for
    from .vision.sources import EndOfFrames, FrameSourceError, open_source

    reader = reader_for(position.board.tiles, cells=cells,
                        barrier_stops=position.rules.barrier_stop == "allowed")
    try:
        source = open_source(str(path))
    except (FrameSourceError, ValueError) as e:
        raise ValueError(str(e)) from None

    def readings() -> Iterator[tuple[float, Any]]:
        with source:
            while True:
                try:
                    frame = source.read()
                except EndOfFrames:
                    return
                except FrameSourceError as e:
                    raise ValueError(str(e)) from None
                try:
                    yield frame.t, reader.read(frame.image)
                except VisionError as e:
                    yield frame.t, str(e)

    yield from stable_looks(readings(), stable=stable)


def stable_looks(readings: Iterable[tuple[float, Any]], *, stable: int = 3
                 ) -> Iterator[tuple[float, dict[str, str] | None]]:
    """Stable observations from per-frame readings ``(time, reading)``, a reading being an
    :class:`~companion.vision.read.Observation` or, for a frame that could not be read, the
    reason: the tracker's accepted states, one ``None`` per spell of a hidden or unreadable
    board, and the accepted state again when the board comes back from such a spell unchanged
    (as the table hands it to the referee). Times are seconds since the first frame."""
    from .vision.track import Tracker

    tracker = Tracker(stable=stable)
    t0: float | None = None
    hidden = False
    for t, reading in readings:
        t0 = t if t0 is None else t0
        if isinstance(reading, str):
            event = tracker.update(None, error=reading)
        else:
            event = tracker.observe(reading)
        at = round(t - t0, 3)
        if event.kind == "accepted":
            hidden = False
            yield at, event.state
        elif event.kind == "steady":
            if hidden:  # the board in view again after a hand, unchanged: a look, as at the
                yield at, event.state  # table (vision.feed hands it to the referee again)
            hidden = False
        elif event.kind in ("occluded", "unseen") and not hidden:
            hidden = True
            yield at, None
