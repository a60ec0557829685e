"""Counting a demonstration's moves and giving its verdict (see :mod:`companion.verify`).

:class:`Counting` is the half of a :class:`companion.verify.Demonstration` that acts on a look
once it is explained: the moves it counts against the bid (each a ``move`` event), the
``success`` the arrival makes (only with no room left for moves the camera did not see), the
``over_bid`` at the move that passes the bid (or ``unsure`` when the bid is passed only by one
look's excursion, :mod:`companion.verify_claims`), and the failures and ``unsure`` verdicts
with the robots to put back. Reading the looks, and deciding which explanation to believe, is
the demonstration's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from . import i18n
from .board import Board, Cell
from .i18n import Message
from .rules import Goal, Move, format_route
from .verify_arrival import Arrival
from .verify_caution import Caution
from .verify_claims import Claims
from .verify_doubts import Doubts, Restore, Unread
from .verify_explain import Choice

Event = dict[str, Any]
State = tuple[Cell, ...]


class Verdict(StrEnum):
    """How a demonstration ended. ``unsure`` is no failure: the camera could not tell, and
    the players judge (the event's ``question`` says what to look at)."""

    SUCCESS = "success"
    OVER_BID = "over_bid"
    ILLEGAL = "illegal"
    INCOMPLETE = "incomplete"
    GAVE_UP = "gave_up"
    UNSURE = "unsure"


VERDICTS = tuple(v.value for v in Verdict)
FAILURES = ("over_bid", "illegal", "incomplete", "gave_up")

WATCHING, WAITING, SUCCEEDED, RESTORING, RESTORED = (
    "watching", "waiting", "succeeded", "restoring", "restored")


class Counting:
    """The moves counted and the verdict of a demonstration (a base of
    :class:`companion.verify.Demonstration`, which sets every attribute below)."""

    bid: int
    player: str | None
    phase: str
    verdict: Event | None
    route: list[Move]
    cost: int
    names: tuple[str, ...]
    board: Board
    goal: Goal
    state: State
    _doubts: Doubts
    _unread: Unread
    _caution: Caution
    _restore: Restore
    _arrival: Arrival
    _claims: Claims
    @property
    def count(self) -> int:
        """Moves made so far (the bid is met on cost: the transparent robot's passes differ)."""
        return len(self.route)

    @property
    def robots(self) -> dict[str, Cell]:
        """Where the demonstration believes every robot stands now."""
        return dict(zip(self.names, self.state, strict=True))

    @property
    def finished(self) -> bool:
        return self.phase in (SUCCEEDED, RESTORING, RESTORED)

    @property
    def restored(self) -> bool:
        return self.phase == RESTORED

    def _name(self, cell: Cell | None) -> str | None:
        return None if cell is None else self.board.name(cell)

    def _event(self, type_: str, at: float, **fields: Any) -> Event:
        e: Event = {"type": type_, "at": at, "bid": self.bid}
        if self.player is not None:
            e["player"] = self.player
        e.update(fields)
        return e

    def _watching(self) -> None:
        """Every robot is read where the count goes on from."""
        self.phase = WATCHING
        self._unread.reset()

    def _accept(self, chosen: Choice, obs: State, at: float) -> list[Event]:
        self._watching()
        return self._play(chosen, obs, at)

    def _unsure(self, obs: State, at: float, why: str) -> list[Event]:
        """No failure from a doubtful reading: a question for the players."""
        cells = dict(self._doubts.cells) or self._arrival.cells() or {
            n: c for n, a, c in zip(self.names, self.state, obs, strict=True) if a != c}
        return self._ask(at, why, self._doubts.question(cells), seen=obs)

    def _ask(self, at: float, why: str, question: Any, **fields: Any) -> list[Event]:
        """The ``unsure`` verdict: ``question`` for the players (``fields``: ``seen``, …)."""
        return self._fail(Verdict.UNSURE, at, why, restore=False, question=question,
                          message=Message("verify.unsure", question=question), **fields)

    def _play(self, chosen: Choice, obs: State, at: float) -> list[Event]:
        events: list[Event] = []
        steps = chosen.steps
        self._caution.record(self.state, len(self.route))
        if chosen.alternatives:
            events.append(self._event("ambiguous", at, **chosen.ambiguity()))
        state = list(self.state)
        for k, step in enumerate(steps, 1):
            state[self.names.index(step.move.robot)] = step.end
            self.route.append(step.move)
            self.cost += step.cost
            self.state = tuple(state)
            ev = self._event(
                "move", at, move=step.move.text(), robot=step.move.robot,
                direction=step.move.direction.word, **{"from": self._name(step.start)},
                to=self._name(step.end), count=self.count, cost=self.cost,
                remaining=self.bid - self.cost, in_look=len(steps), assumed=bool(
                    chosen.alternatives))
            if step.cost != 1:
                ev["move_cost"] = step.cost
            events.append(ev)
            if chosen.success_at == k:
                return events + self._succeed(at)
            if self.cost > self.bid and (back := self._claims.excursion(  # the look's end
                    self.route + [s.move for s in steps[k:]], obs)):
                return events + self._ask(at, *self._claims.back_words(back))  # one look
            if self.cost > self.bid:
                return events + self._fail(
                    "over_bid", at,
                    Message("verify.past_bid", count=self.count, move=step.move.message(),
                            cost=self.cost, bid=self.bid), seen=obs)
        # a claimant on the target without a success: which rule is still missing
        return events + self._caution.unmet_events(self.state, self.route, self.cost, at,
                                                   self._event)

    def _succeed(self, at: float) -> list[Event]:
        if self.cost + self._unread.uncounted > self.bid:  # moves the camera may not have seen
            return self._ask(at, *self._unread.uncounted_words(self.cost))
        self.phase = SUCCEEDED
        arriving = self.route[-1].robot
        e = self._event(
            "success", at, verdict="success", count=self.count, cost=self.cost,
            robot=arriving, route=format_route(self.route),
            message=Message("verify.success", robot=i18n.color(arriving),
                            goal=self.goal.message(self.board), n=self.cost, bid=self.bid))
        self.verdict = e
        return [e]

    def _fail(self, verdict: str, at: float, reason: str, seen: State | None = None,
              restore: bool = True, **extra: Any) -> list[Event]:
        """A demonstration ended without a success (failed, or ``unsure``): the verdict, then
        which robots go back where (as last seen, ``seen``, or as the moves left them; with
        ``restore`` false, from the next look on: the verdict's message stays on the page)."""
        self.phase = RESTORING
        verdict = Verdict(verdict)
        e = self._event(verdict.value, at, verdict=verdict.value, reason=reason,
                        count=self.count, cost=self.cost, route=format_route(self.route),
                        **extra)
        self.verdict = e
        self._restore.key = None
        if not restore:
            return [e]
        board = self.robots if seen is None else dict(zip(self.names, seen, strict=True))
        return [e, *self._restore_events(board, at)]

    def _restore_events(self, seen: Mapping[str, Cell], at: float) -> list[Event]:
        events, done = self._restore.events(seen, at, already=self.phase == RESTORED)
        self.phase = RESTORED if done else RESTORING
        return events
