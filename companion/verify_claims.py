"""What a success needs from the readings, and what an arrival past the bid needs (see
:mod:`companion.verify`).

A success is as much a verdict as a failure: it is read only from a look that shows the
claimant on the target, and not from one reading among several that another explanation fits.
Three checks, each made on the look's shortest legal moves before they are counted
(:meth:`Claims.check`):

* **past the target**: the moves stop the claimant on the target and go on, so the look shows it
  elsewhere. No look saw the arrival: a robot standing still misread on a far cell that a
  route through the target happens to reach reads just so. No success is read from it: of
  several robots changed, the one without which the rest is moves with no verdict is doubted
  (believed where it stood until a later look agrees, as :meth:`.Caution.one_reading`); with no
  such robot the verdict is ``unsure``.
* **an arrival beside another robot's move**: a look that succeeds while other robots changed
  with the arriving one, where the look with the arriving robot where it stood is explained by
  legal moves on its own: a robot standing still, misread onto the target while another robot
  moved, reads exactly as that robot's arrival. The arrival is held for a second look with every
  robot it changed in question (:mod:`companion.verify_arrival`): seen back where they stood
  with no hand since, they were misread and the look is explained afresh; seen there again
  after a hand, the success stands.
* **there and back past the bid** (:meth:`Claims.excursion`): moves that pass the bid
  only with a robot's excursion seen in one look alone (moved away beside another robot's
  move, and back onto the cell it left in the next look): the failure rests on the one look
  that saw it away, which a robot standing still misread for a spell gives just so. No later
  look can tell (the robot is back): the verdict is ``unsure``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from . import i18n
from .board import Cell
from .i18n import Message
from .rules import Move, Position

State = tuple[Cell, ...]


class Check(StrEnum):
    """What :meth:`Claims.check` says of a look's moves."""

    JUDGE = "judge"  # nothing in question: count the moves
    DOUBT = "doubt"  # past the target: doubt one robot, count the rest (``Ruling.moves``)
    HOLD = "hold"  # an arrival beside another robot's move: held for a second look
    UNSURE = "unsure"  # past the target and no one robot explains it: the players judge


class Ruling(NamedTuple):
    """:meth:`Claims.check`'s answer: the ``check``, the robots in question (indices), and
    for ``DOUBT`` the look without the doubted robot (``held``) and the moves that explain it."""

    check: Check
    robots: tuple[int, ...] = ()
    held: State | None = None
    moves: Any = None


class Back(NamedTuple):
    """A robot seen back where it stood (:meth:`Claims.excursion`): its index, the cell
    it was read on away, and the cell it is back on."""

    robot: int
    away: Cell
    back: Cell


class Claims:
    """The checks on a success (and on an arrival past the bid) in a demonstration of
    ``snapshot`` (robots in ``names`` order) for a ``bid``, with its ``event`` maker and its
    ``parts``: the readings in doubt (:class:`.Doubts`), the arrival held
    (:class:`.Arrival`), the counted looks (:class:`.Caution`) and the
    :class:`.Explainer`."""

    def __init__(self, snapshot: Position, names: tuple[str, ...], bid: int,
                 event: Callable[..., Any], parts: tuple[Any, Any, Any, Any]) -> None:
        assert snapshot.target is not None
        self.event = event
        self.doubts, self.arrival, self.caution, self.explainer = parts
        self.goal = snapshot.target
        self.board = snapshot.board
        self.names = names
        self.bid = bid

    def arriving(self, chosen: Any) -> int | None:
        """The index of the robot whose move succeeds in ``chosen`` (None: none succeeds)."""
        if chosen.success_at is None:
            return None
        return self.names.index(chosen.steps[chosen.success_at - 1].move.robot)

    def check(self, state: State, obs: State, chosen: Any, search: Callable[[State], Any],
              fails: Callable[[Any], bool]) -> Ruling:
        """What to do with a look (robots believed on ``state``, seen on ``obs``) whose
        shortest legal moves are ``chosen``, before they are counted. ``search``: the
        explanation of a placement (None when nothing explains it); ``fails``: whether
        moves pass the bid."""
        i = self.arriving(chosen)
        if i is None:
            return Ruling(Check.JUDGE)
        changed = tuple(j for j, (a, b) in enumerate(zip(state, obs, strict=True)) if a != b)
        if obs[i] != self.goal.cell:  # past the target: the arrival was never seen
            best: tuple[int, int, State, Any] | None = None
            for j in changed:
                held = (*obs[:j], state[j], *obs[j + 1:])
                if held == state:
                    continue  # the robot alone: its reading is the look's only change
                alt = search(held)
                if alt is None or alt.success_at is not None or fails(alt):
                    continue
                cost = sum(s.cost for s in alt.steps)
                if best is None or cost < best[0]:
                    best = (cost, j, held, alt)
            if best is None:
                return Ruling(Check.UNSURE, changed)
            return Ruling(Check.DOUBT, (best[1],), best[2], best[3])
        if len(changed) > 1 and search((*obs[:i], state[i], *obs[i + 1:])) is not None:
            return Ruling(Check.HOLD, changed, obs, chosen)  # the others alone are legal
        return Ruling(Check.JUDGE)

    def events(self, ruling: Ruling, state: State, obs: State, at: float, hand: bool,
               accept: Callable[[Any, State, float], list[Any]],
               unsure: Callable[[State, float, Any], list[Any]]) -> list[Any]:
        """The events of a success in question (``ruling``, not ``JUDGE``): an arrival held
        for a second look, one robot's reading doubted and the rest counted (``accept``), or
        ``unsure``. ``hand``: the board was hidden before this look."""
        if ruling.check == Check.HOLD:  # an arrival beside another robot's move
            self.arrival.hold_success(obs, ruling.moves, ruling.robots, hand)
            return [self.arrival.doubt(state, self.doubts.question, self.event, at)]
        if ruling.check == Check.DOUBT:  # past the target: one robot's reading in doubt
            assert ruling.held is not None
            names = {self.names[i] for i in ruling.robots}
            return self.doubts.doubt(state, obs, names, at, Message("verify.would_succeed"),
                                     confirm=True, hand=hand) + accept(ruling.moves,
                                                                       ruling.held, at)
        return unsure(obs, at, Message("verify.past_target"))

    def excursion(self, route: list[Move], state: State) -> Back | None:
        """Moves past the bid (``route``, the robots on ``state``) that pass it only with
        robots' excursions seen in one look alone: each robot that moved away beside another
        robot's move in one look and back onto the cell it left in the next
        (:meth:`.Caution.excursions`). The failure rests on that one look, the success on it
        being a misreading: the largest such excursion, or None when the bid is passed
        without them."""
        away = self.caution.excursions(route, state)
        cost = sum(m.cost for m in route)
        if not away or cost - sum(n for *_rest, n in away) > self.bid:
            return None
        i, cell, back, _n = max(away, key=lambda e: e[3])
        return Back(i, cell, back)

    def back_words(self, back: Back) -> tuple[Any, Any]:
        """Why an arrival :meth:`excursion` is ``unsure``, and the question for the
        players."""
        name = self.names[back.robot]
        why = Message("verify.there_and_back", robot=i18n.color(name),
                      cell=self.board.name(back.away), back=self.board.name(back.back),
                      bid=self.bid)
        return why, self.doubts.question({name: back.away})
