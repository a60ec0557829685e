"""The Micro Robots side of the table loop: what the loop does after each of the game's events
(the phones told of a new game, the simulated hand, the event stream), and the board the
camera reads for the user to confirm.

The loop (:class:`companion.table.Table`) still owns the game and applies every command; this
room only acts on what a Micro Robots game said happened, on the loop's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .events import Broker
from .referee import Referee
from .sim import MicroSimWorld
from .solving import Solving
from .table_camera import TableCamera
from .table_state import TableState


class _Table(Protocol):
    """What the Micro Robots side reads of the table (:class:`companion.table.Table`)."""

    referee: Referee
    broker: Broker
    solving: Solving
    published: TableState
    eyes: TableCamera
    micro_sim: MicroSimWorld | None

    @property
    def game(self) -> Any: ...

    @property
    def micro(self) -> bool: ...

    def call(self, fn: Callable[[], Any], timeout: float = 5.0) -> Any: ...


def public(e: Mapping[str, Any]) -> dict[str, Any]:
    """An event as the event stream sends it (without the robots' snapshot)."""
    return {k: v for k, v in e.items() if k != "snapshot"}


class MicroTable:
    """The Micro Robots side of ``table``; ``tell_phones`` says a new game began."""

    def __init__(self, table: _Table, tell_phones: Callable[[], None]) -> None:
        self._table = table
        self._tell_phones = tell_phones

    def after(self, events: list[dict[str, Any]]) -> None:
        """Act on the events a Micro Robots command caused (the loop publishes after)."""
        t = self._table
        for e in events:
            kind = e.get("type")
            t.referee.micro_rulings.on_event(e)  # the message; the classic round's helpers end
            if kind in ("new_game", "game_set_up"):
                self._tell_phones()
                # whatever the classic game had running is over
                t.solving.cancel()
                self.sync_sim()
            elif kind in ("rolled", "target_rerolled"):
                self.sync_sim()
                t.broker.publish("roll", public(e))
            elif kind == "demonstration_started":
                t.broker.publish("call", public(e))
            elif kind == "landed":
                self.sync_sim()  # a landing tapped on the page: the hand follows
                t.broker.publish("landing", public(e))
            elif kind == "round_over":
                t.broker.publish("verdict", {**(t.published.verdict() or {}), "at": e["at"]})
                t.broker.publish("round", public(e))
                self.sync_sim()  # the robot is put on the target either way
            elif kind == "undone":
                self.sync_sim()

    def opened(self) -> None:
        """The journal was replayed (a start, or a restart mid-game)."""
        t = self._table
        self.sync_sim()
        # the simulated hand has just put the robot where the journal has it; a real
        # camera's first look must agree with the journal first
        t.referee.reconcile = t.game.phase == "demonstrating" and t.micro_sim is None

    def sync_sim(self) -> None:
        """The simulated hand puts the robot where the game says it stands (a new game, a roll,
        the end of a round, an undo): the camera then sees it there, which is no landing."""
        t = self._table
        if t.micro_sim is None:
            return
        if not t.micro:
            t.micro_sim.sync(None, None)
            return
        robot = t.game.view()["robot"]
        t.micro_sim.sync(t.game.s.layout, robot)
        t.referee.micro_rulings.seen = robot

    def read_layout(self) -> dict[str, Any]:
        """Read the board in the camera's latest picture (on the caller's thread: it takes a
        moment) and propose it on the loop's thread; returns the proposal."""
        t = self._table
        reading = t.eyes.read_layout()

        def propose() -> dict[str, Any]:
            rulings = t.referee.micro_rulings
            rulings.on_proposal((reading.rows, reading.confidence), "camera")
            assert rulings.proposal is not None
            # the reader knows more than the rows show: a hand over the board, a face two
            # faces claim
            problems = rulings.proposal["problems"]
            problems += [x for x in reading.problems if x not in problems]
            rulings.proposal.update(robot=reading.robot, notes=list(reading.notes))
            return rulings.proposal

        result: dict[str, Any] = t.call(propose)
        return result
