"""The classic game's side of the table loop: what the loop does after each of the game's
events (the referee told, the solver started or cancelled, the simulated hand, the phones, the
event stream).

The loop (:class:`companion.table.Table`) still owns the game and applies every command; this
room only acts on what a classic game said happened, on the loop's thread, as
:mod:`companion.table_micro` does for Micro Robots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .events import Broker
from .referee import ROUND_PHASES, Outcome, Referee
from .rules import Position
from .sim import MicroSimWorld, SimWorld
from .solving import Solving
from .table_micro import public
from .table_state import TableState


class _Table(Protocol):
    """What the classic side reads of the table (:class:`companion.table.Table`)."""

    referee: Referee
    broker: Broker
    solving: Solving
    published: TableState
    sim: SimWorld | None
    micro_sim: MicroSimWorld | None

    @property
    def game(self) -> Any: ...


class ClassicTable:
    """The classic game's side of ``table``; ``tell_phones`` says a new game began."""

    def __init__(self, table: _Table, tell_phones: Callable[[], None]) -> None:
        self._table = table
        self._tell_phones = tell_phones

    def opened(self) -> None:
        """The journal was replayed (a start, or a restart mid-round)."""
        t = self._table
        t.referee.opened()
        if t.sim is not None:
            t.sim.sync(t.game)
        if t.game.phase in ("bidding", "timer", "demonstrating", "round_over"):
            # A restart mid-round: the store replayed the journal; pick the round up again,
            # the demonstration where the journal has it.
            self.start_round(resumed=True)
            t.referee.reconcile = t.game.phase in ROUND_PHASES
            self.aim_sim()

    def after(self, events: list[dict[str, Any]]) -> None:
        """Act on the events a classic command caused (the loop speaks and publishes after)."""
        t = self._table
        if t.micro_sim is not None and any(e.get("type") == "new_game" for e in events):
            t.micro_sim.sync(None, None)  # the micro board leaves the simulated table
        for e in events:
            kind = e.get("type")
            if kind in ("round_over", "game_over", "new_game"):
                if t.solving.busy and t.solving.round != t.referee.round_number():
                    t.solving.cancel()
            t.referee.on_event(e)  # the chip, the message, the demonstration followed
            if kind == "chip_revealed":
                self.start_round()
                self.aim_sim()
            elif kind == "robots_reset" and t.sim is not None:
                # The simulated hand puts the robots back at once, and the camera sees it
                # before the next bidder begins.
                t.sim.place(e["robots"])
                t.referee.looked(t.sim.truth())
            elif kind == "undone":
                if t.sim is not None and t.game.s.board is not None:
                    t.sim.place(t.game.view()["robots"])
                t.referee.after_undo()
            if kind in ("game_set_up", "robots_placed") and t.sim is not None:
                t.sim.sync(t.game)
            if kind in ("game_set_up", "new_game"):
                self._tell_phones()
            self._stream(e)

    def _stream(self, e: dict[str, Any]) -> None:
        """The event as the event stream tells it, if it tells it."""
        t = self._table
        kind = e.get("type")
        if kind in ("bid", "chip_revealed", "moved"):
            t.broker.publish(kind if kind != "moved" else "move", public(e))
        elif kind in ("demonstration_succeeded", "demonstration_failed"):
            verdict = t.published.verdict()
            t.broker.publish("verdict", {**verdict, "at": e["at"]} if verdict else public(e))
        elif kind == "round_over":
            t.broker.publish("round", public(e))

    def start_round(self, resumed: bool = False) -> None:
        """A round begins (or is picked up after a restart): the referee follows it, the
        solver looks for its answer."""
        t = self._table
        pos = t.referee.start_round(resumed)
        number = t.referee.round_number()
        if pos is not None and number is not None:
            t.solving.start(number, pos)

    def solved(self, number: int, pos: Position, result: Any, err: str | None,
               routes: dict[str, Any] | None = None) -> Outcome:
        """The solver's answer for round ``number`` came back to the loop."""
        t = self._table
        t.solving.answered(number)
        return t.referee.on_solved(number, pos, result, err, routes)

    def aim_sim(self) -> None:
        """The simulated table shows the round's target."""
        t = self._table
        if t.sim is not None:
            pos = t.referee.position(None)
            t.sim.set_target(pos.target if pos is not None else None)
