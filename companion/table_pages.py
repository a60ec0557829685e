"""What the pages and the simulated table ask of the table beside its commands: the setup
form's checks and offers, the camera's Micro Robots proposal, the history and the practice
puzzles, solo play's hints, the PIN, the phones' join (per game), and the simulated table's
hand and buttons.

:class:`TablePages` is a part of :class:`companion.table.Table` (its base), so a page still
asks ``table.setup_info()``; each answer is read from the table's game, referee and edges
(the :class:`_Table` they need), and anything that reads the journal runs on the loop's thread.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import keys, setup_form, table_view
from .events import Broker
from .i18n import Message
from .ports import Journal, Lights
from .referee import Outcome, Referee
from .rules import Move
from .sim import MicroSimWorld, SimWorld, buttons
from .store import LayoutShelf
from .table_camera import TableCamera
from .table_micro import MicroTable


class _Table(Protocol):
    """What the pages' questions read of the table (:class:`companion.table.Table`)."""

    referee: Referee
    broker: Broker
    eyes: TableCamera
    store: Journal | None
    layouts: LayoutShelf | None
    sim: SimWorld | None
    micro_sim: MicroSimWorld | None
    micro_side: MicroTable
    hardware: Lights | None
    preset: str
    pin: str
    _db: str | None
    _practice: list[dict[str, Any]]
    _thread: threading.Thread | None
    _told_epoch: str | None

    @property
    def game(self) -> Any: ...

    @property
    def epoch(self) -> str: ...

    @property
    def micro(self) -> bool: ...

    def view(self) -> dict[str, Any]: ...

    def call(self, fn: Callable[[], Any], timeout: float = 5.0) -> Any: ...

    def submit(self, cmd: Mapping[str, Any], source: str = "page",
               timeout: float = 5.0) -> Outcome: ...

    def solution(self) -> dict[str, Any] | None: ...

    def history(self) -> dict[str, Any]: ...

    def add_practice(self, entry: Mapping[str, Any]) -> None: ...

    def _round(self) -> int | None: ...


class TablePages:
    """The table's answers to the pages and the simulated table (a base of the table)."""

    _told_epoch: str | None = None  # the game the phones were last told of

    @property
    def epoch(self: _Table) -> str:
        """Changes with each new game: join codes and player tokens are per game."""
        seed = self.game.s.seed
        return hashlib.sha256(f"{seed}".encode()).hexdigest()[:8]

    def _tell_phones(self: _Table) -> None:
        """A new game: every phone's join is void (tokens are per game); tell them, so each
        asks its player to scan the seat's QR code again rather than fail at the first tap."""
        if self._told_epoch != self.epoch:
            self._told_epoch = self.epoch
            self.broker.publish("new_game", {"epoch": self.epoch})

    def _keep_pin(self: _Table) -> None:
        """Keep the PIN beside the journal for the next start (only once the journal is
        this table's: a second companion refused the journal must not change its PIN)."""
        keys.keep_pin_beside(self._db, self.pin)

    def set_pin(self: _Table, pin: Any) -> str:
        """Change the table PIN (kept beside the journal for the next start too);
        :class:`ValueError` names what is wrong with it."""
        self.pin = keys.set_pin_beside(self._db, pin)
        return self.pin

    def hint(self: _Table, level: int) -> dict[str, Any]:
        """Solo play: the hints of levels 1 to ``level`` for the round in play, the hint
        journaled first (``{"error"}`` when the solver has no route yet or the game refuses)."""
        from .hints import hints_for_route

        known = self.solution()
        if not known or known.get("status") != "solved" or not known.get("moves"):
            return {"error": Message("hint.none_yet")}
        out = self.submit({"type": "hint", "level": level}, "page")
        if not out.ok:
            return {"error": out.reason}
        route = [Move.parse(t) for t in known["moves"]]
        return {"hints": [h.to_json() for h in hints_for_route(route, level)]}

    def solution(self: _Table) -> dict[str, Any] | None:
        """The solver's answer for the round in play, kept off the published state until the
        round is over (for the referee's tools and tests)."""
        o = self.referee.optimal
        return o if o is not None and o.get("round") == self._round() else None

    def check_setup(self: _Table, players: list[str], preset: str, options: dict[str, Any],
                    tiles: list[str] | None) -> dict[str, Any]:
        """A ``setup`` command from the setup form, or :class:`ValueError` naming the field
        (:func:`companion.setup_form.check_setup`): the robots where the camera sees them."""
        return setup_form.check_setup(
            players, preset, options, tiles,
            current=setup_form.current_tiles(getattr(self.game.s, "board", None),
                                             self.eyes.tiles()),
            seen=self.referee.seen, seed=self.game.s.seed)

    def setup_info(self: _Table) -> dict[str, Any]:
        """What the setup form offers (:func:`companion.setup_form.setup_info`)."""
        return setup_form.setup_info(self.game, preset_given=self.preset,
                                     camera_tiles=self.eyes.tiles(), layouts=self.layouts,
                                     proposal=self.referee.proposal is not None)

    def history(self: _Table) -> dict[str, Any]:
        """Every game on this table and each player's record (from the store's journal, read
        on the loop's thread)."""
        if self._thread is not None and threading.current_thread() is not self._thread:
            return self.call(self.history)
        if self.store is None:
            return table_view.unjournaled_history(self.game.summary(), self._practice)
        return table_view.history(self.store.history(), self.store.player_stats(),
                                  self.store.practice())

    def add_practice(self: _Table, entry: Mapping[str, Any]) -> None:
        """Keep a solved practice puzzle with the history (journaled on the loop's thread)."""
        if self._thread is not None and threading.current_thread() is not self._thread:
            return self.call(lambda: self.add_practice(entry))
        if self.store is not None:
            self.store.add_practice(entry)
        else:
            self._practice.append(dict(entry))
        return None

    def check_micro_setup(self: _Table, players: list[str], layout: Any,
                          options: Mapping[str, Any], first_roller: int = 0) -> dict[str, Any]:
        """A Micro Robots ``setup`` command from the setup form, or :class:`ValueError` naming
        the field (:func:`companion.setup_form.check_micro_setup`)."""
        return setup_form.check_micro_setup(players, layout, options, first_roller,
                                            layouts=self.layouts)

    def proposal(self: _Table) -> dict[str, Any] | None:
        """The layout the camera proposed, waiting for the user (None if there is none)."""
        return self.referee.proposal

    def dismiss_proposal(self: _Table) -> None:
        """The user confirmed (and saved) or discarded the camera's proposal."""
        self.referee.proposal = None

    def read_layout(self: _Table) -> dict[str, Any]:
        """Micro Robots: read the board in the camera's latest picture and propose it, as
        :meth:`propose_layout` does; returns the proposal. The reading runs on the caller's
        thread (it takes a moment), never on the loop's. :class:`ValueError` says why nothing
        could be read (no camera, no picture yet, no Micro Robots board in view)."""
        return self.micro_side.read_layout()

    def sim_micro_put(self: _Table, space: str | None) -> str | None:
        """The simulated hand puts the micro robot on a space (any space: the game judges
        it), or lifts it (``None``); the simulated camera sees it come to rest."""
        if self.micro_sim is None:
            raise ValueError("this is not the simulated table")
        return self.micro_sim.put(space)

    def calibrate_colors(self: _Table) -> Any:
        """Learn this table's colours from the camera's latest picture, the robots standing
        where the game says they do."""
        return self.eyes.calibrate_colors(self.view().get("robots") or {}, micro=self.micro)

    def press(self: _Table, name: str, action: str = "press", steps: int = 1) -> None:
        """A virtual button on the simulated table (see :func:`companion.sim.buttons.press`)."""
        buttons.press(self.hardware, name, action, steps)

    def sim_move(self: _Table, robot: str, direction: str) -> dict[str, str]:
        """Slide a robot on the simulated table by hand (what a player's hand does)."""
        if self.sim is None:
            raise ValueError("this is not the simulated table")
        return self.sim.slide(robot, direction)
