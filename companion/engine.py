"""The command engine both games share: a command in, its events out, or a refusal that leaves
the game as it was; and the undo stack.

    >>> from companion.game import Game
    >>> g = Game()
    >>> _ = g.apply({"type": "setup", "at": 0, "players": ["Ann", "Bo"], "seed": 1})
    >>> _ = g.apply({"type": "reveal", "at": 1})
    >>> try:
    ...     g.apply({"type": "bid", "at": 2, "seat": 5, "value": 3})
    ... except Game.Error as refused:
    ...     print(refused)
    there is no seat 5 (seats: 0 Ann, 1 Bo)

A game (:class:`companion.game.Game`, :class:`companion.micro.MicroGame`) is a
:class:`CommandEngine` over its own state: it names its ``COMMANDS``, its ``OBSERVATIONS`` and
the errors that refuse a command, and gives one ``_do_<type>(command, at)`` per command. The
engine does the rest the same way for both:

* every command carries its time ``at``; time passes first (``_pass_time``), whatever becomes
  of the command, so what the clock did before a refused command stands (the error's
  ``events``) while the refused command leaves no other trace;
* ``resume`` shifts every time the game keeps (``_shift``), the undo stack's too, so the time
  the companion was off does not count; ``tick`` is only time;
* each accepted command but ``undo``, ``setup``, ``new_game`` and the observations goes on the
  undo stack with the state before it (at most ``UNDO_DEPTH``); an observation (a ``tick``, a
  look of the camera) follows the command before it, so a game that replays them after an undo
  (:class:`~companion.game.Game`) keeps what was seen since.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from . import i18n
from .i18n import Message

Event = dict[str, Any]
UNDO_DEPTH = 200


class _State(Protocol):
    phase: str
    now: float


S = TypeVar("S", bound=_State)


@dataclass
class UndoEntry(Generic[S]):
    before: S
    command: dict[str, Any]
    followers: list[dict[str, Any]] = field(default_factory=list)  # observations made after it


class CommandEngine(Generic[S]):
    """Apply commands to a state ``s``, roll a refused one back, keep the undo stack."""

    COMMANDS: ClassVar[tuple[str, ...]]
    OBSERVATIONS: ClassVar[frozenset[str]] = frozenset()
    REFUSALS: ClassVar[tuple[type[Exception], ...]]  # the errors that refuse a command
    Error: ClassVar[type[Exception]]  # what a refusal raises: (message, events of time)
    UNDO_DEPTH: ClassVar[int] = UNDO_DEPTH

    s: S

    def __init__(self, state: S) -> None:
        self.s = state
        self._undo: list[UndoEntry[S]] = []

    @property
    def phase(self) -> str:
        return self.s.phase

    @property
    def now(self) -> float:
        return self.s.now

    def apply(self, command: Mapping[str, Any]) -> list[Event]:
        """Apply one command; return the events it caused (time events due first).

        Raises the game's ``Error`` with a reason for the players; the game is then
        unchanged but for what time did before the command (the error's ``events``)."""
        kind, at, cmd = self._read(command)
        if kind == "resume":
            return self._resume(at)
        if kind == "tick":  # nothing to refuse, nothing to undo: just time
            events = self.advance(at)
            self._follow(cmd)
            return events
        now_before = self.s.now
        timed = self._pass_time(at)
        before = self._snapshot()
        undo_len = len(self._undo)
        try:
            events = timed + getattr(self, f"_do_{kind}")(cmd, max(at, self.s.now))
        except self.REFUSALS as e:
            self.s = before
            if not timed:  # a refused command leaves no trace, not even of its time
                self.s.now = now_before
            del self._undo[undo_len:]
            raise self.Error(i18n.said(e), timed) from None
        if kind in ("setup", "new_game"):
            self._undo.clear()
        elif kind in self.OBSERVATIONS:
            self._follow(cmd)
        elif kind != "undo":
            self._undo.append(UndoEntry(before, cmd))
            del self._undo[:-self.UNDO_DEPTH]
        return events

    def advance(self, now: float) -> list[Event]:
        """Let time pass to ``now`` (what the game's clock does happens here)."""
        return self._advance(float(now))

    def _read(self, command: Mapping[str, Any]) -> tuple[str, float, dict[str, Any]]:
        if not isinstance(command, Mapping):
            raise self.Error("a command is an object with a 'type'")
        kind = command.get("type")
        if kind not in self.COMMANDS:
            raise self.Error(f"unknown command {kind!r} (known: {', '.join(self.COMMANDS)})")
        at = command.get("at")
        if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
            raise self.Error(f"the {kind} command needs its time 'at' in seconds")
        return kind, float(at), dict(command)

    def _follow(self, cmd: dict[str, Any]) -> None:
        """An observation follows the last command on the undo stack."""
        if self._undo and cmd["type"] in self.OBSERVATIONS:
            self._undo[-1].followers.append(cmd)

    def _resume(self, at: float) -> list[Event]:
        """The companion starts again after being off: every time the game keeps shifts so the
        time spent off does not count."""
        delta = at - self.s.now if math.isfinite(self.s.now) else 0.0
        for state in (self.s, *(e.before for e in self._undo)):
            self._shift(state, delta)
        for entry in self._undo:
            for f in entry.followers:
                f["at"] = f["at"] + delta
        self.s.now = at
        return [{"type": "resumed", "at": at, "shift": delta}]

    def _pop_undo(self) -> UndoEntry[S]:
        """The last command's entry, taken off the stack (refused when there is none)."""
        if not self._undo:
            raise self.Error(Message("refuse.nothing_to_undo"))
        return self._undo.pop()

    # -- what each game gives

    def _pass_time(self, at: float) -> list[Event]:
        """Time passing before a command (not a tick)."""
        return self._advance(at)

    def _advance(self, now: float) -> list[Event]:
        raise NotImplementedError

    def _snapshot(self) -> S:
        raise NotImplementedError

    def _shift(self, state: S, delta: float) -> None:
        raise NotImplementedError
