"""The command engine both games share: time passes first, a refused command leaves no trace,
undo takes back one command, observations follow the command before them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from companion.engine import CommandEngine
from companion.game import Game, GameError
from companion.micro import MicroGame, MicroGameError


class Refused(ValueError):
    def __init__(self, message: Any, events: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.events = events or []


@dataclass
class Counter:
    phase: str = "counting"
    now: float = -math.inf
    count: int = 0
    alarms: list[float] = field(default_factory=list)  # times the alarm rang


class Tally(CommandEngine[Counter]):
    """A tiny game: ``add`` n (refused above 10 in all), ``look`` (an observation), an alarm
    every 10 seconds."""

    COMMANDS = ("add", "look", "undo", "tick", "resume")
    OBSERVATIONS = frozenset({"look", "tick"})
    REFUSALS = (Refused,)
    Error = Refused
    UNDO_DEPTH = 3

    def __init__(self) -> None:
        super().__init__(Counter())

    def _advance(self, now: float) -> list[dict[str, Any]]:
        events = []
        start = self.s.now if math.isfinite(self.s.now) else now
        for ring in range(int(start // 10) + 1, int(now // 10) + 1):
            self.s.alarms.append(ring * 10.0)
            events.append({"type": "alarm", "at": ring * 10.0})
        self.s.now = max(self.s.now, now)
        return events

    def _snapshot(self) -> Counter:
        return Counter(self.s.phase, self.s.now, self.s.count, list(self.s.alarms))

    def _shift(self, state: Counter, delta: float) -> None:
        state.now += delta

    def _do_add(self, cmd: dict[str, Any], at: float) -> list[dict[str, Any]]:
        self.s.count += cmd["n"]
        if self.s.count > 10:
            raise Refused("too many")
        return [{"type": "added", "at": at, "count": self.s.count}]

    def _do_look(self, cmd: dict[str, Any], at: float) -> list[dict[str, Any]]:
        return []

    def _do_undo(self, cmd: dict[str, Any], at: float) -> list[dict[str, Any]]:
        entry = self._pop_undo()
        self.s = entry.before
        return [{"type": "undone", "at": at, "followers": len(entry.followers)}]


def test_a_command_is_checked_before_anything_happens():
    t = Tally()
    for bad, why in (("add", "object"), ({"type": "jump", "at": 1}, "unknown command"),
                     ({"type": "add", "at": "soon", "n": 1}, "its time 'at'"),
                     ({"type": "add", "at": math.nan, "n": 1}, "its time 'at'")):
        with pytest.raises(Refused, match=why):
            t.apply(bad)
    assert t.s.count == 0 and t.now == -math.inf


def test_a_refused_command_leaves_no_trace_but_what_time_did():
    t = Tally()
    t.apply({"type": "add", "at": 1, "n": 8})
    with pytest.raises(Refused) as refused:
        t.apply({"type": "add", "at": 25, "n": 5})
    assert [e["type"] for e in refused.value.events] == ["alarm", "alarm"]
    assert t.s.count == 8 and t.s.alarms == [10.0, 20.0] and t.now == 25
    with pytest.raises(Refused) as refused:
        t.apply({"type": "add", "at": 26, "n": 5})
    assert refused.value.events == [] and t.now == 25  # not even its time


def test_undo_takes_back_one_command_at_a_time_within_its_depth():
    t = Tally()
    for at in range(1, 6):
        t.apply({"type": "add", "at": at, "n": 1})
    for _ in range(3):
        t.apply({"type": "undo", "at": 7})
    assert t.s.count == 2
    with pytest.raises(Refused, match="nothing to undo"):
        t.apply({"type": "undo", "at": 8})


def test_observations_and_ticks_follow_the_command_before_them():
    t = Tally()
    t.apply({"type": "look", "at": 1})  # nothing to follow yet
    t.apply({"type": "add", "at": 2, "n": 1})
    t.apply({"type": "look", "at": 3})
    t.apply({"type": "tick", "at": 4})
    assert t.apply({"type": "undo", "at": 5})[-1]["followers"] == 2


def test_resume_shifts_every_time_kept_and_the_undo_stack_too():
    t = Tally()
    t.apply({"type": "add", "at": 1, "n": 1})
    t.apply({"type": "tick", "at": 5})
    assert t.apply({"type": "resume", "at": 100}) == [
        {"type": "resumed", "at": 100, "shift": 95}]
    assert t._undo[0].before.now == 96 and t._undo[0].followers[0]["at"] == 100


def test_both_games_are_engines_refusing_with_their_own_errors():
    assert issubclass(Game, CommandEngine) and issubclass(MicroGame, CommandEngine)
    with pytest.raises(GameError):
        Game().apply({"type": "reveal", "at": 0})
    with pytest.raises(MicroGameError):
        MicroGame().apply({"type": "roll", "at": 0})
