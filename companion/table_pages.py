"""What the pages and the simulated table ask of the table beside its commands.

:class:`TablePages` (``table.pages``) answers the pages: the setup form's checks and offers,
the camera's Micro Robots proposal, the history and the practice puzzles, solo play's hints,
the PIN, the phones' join (per game). :class:`SimHand` (``table.hand``) is the simulated
table's hand and buttons. Both are held by :class:`companion.table.Table` and read what they
need of it through the small :class:`_Table` they are given; anything that reads the journal
runs on the loop's thread.
"""

from __future__ import annotations

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
    micro_side: MicroTable
    preset: str

    @property
    def game(self) -> Any: ...

    @property
    def epoch(self) -> str: ...

    @property
    def micro(self) -> bool: ...

    def view(self) -> dict[str, Any]: ...

    def off_loop(self) -> bool: ...

    def call(self, fn: Callable[[], Any], timeout: float = 5.0) -> Any: ...

    def submit(self, cmd: Mapping[str, Any], source: str = "page",
               timeout: float = 5.0) -> Outcome: ...


class TablePages:
    """The answers of ``table`` to its pages; ``db`` is its journal (the PIN is kept beside
    it), ``pin`` the PIN it was given (None: the one kept, else a new one)."""

    def __init__(self, table: _Table, db: str | None, pin: str | None) -> None:
        self._table = table
        self._db = db
        self.pin = keys.pin_file(db, pin)
        self._practice: list[dict[str, Any]] = []  # solved puzzles, when nothing is journaled
        self._told_epoch: str | None = None  # the game the phones were last told of

    def tell_phones(self) -> None:
        """A new game: every phone's join is void (tokens are per game); tell them, so each
        asks its player to scan the seat's QR code again rather than fail at the first tap."""
        t = self._table
        if self._told_epoch != t.epoch:
            self._told_epoch = t.epoch
            t.broker.publish("new_game", {"epoch": t.epoch})

    def keep_pin(self) -> None:
        """Keep the PIN beside the journal for the next start (only once the journal is
        this table's: a second companion refused the journal must not change its PIN)."""
        keys.keep_pin_beside(self._db, self.pin)

    def set_pin(self, pin: Any) -> str:
        """Change the table PIN (kept beside the journal for the next start too);
        :class:`ValueError` names what is wrong with it."""
        self.pin = keys.set_pin_beside(self._db, pin)
        return self.pin

    def hint(self, level: int) -> dict[str, Any]:
        """Solo play: the hints of levels 1 to ``level`` for the round in play, the hint
        journaled first (``{"error"}`` when the solver has no route yet or the game refuses)."""
        from .hints import hints_for_route

        known = self.solution()
        if not known or known.get("status") != "solved" or not known.get("moves"):
            return {"error": Message("hint.none_yet")}
        out = self._table.submit({"type": "hint", "level": level}, "page")
        if not out.ok:
            return {"error": out.reason}
        route = [Move.parse(t) for t in known["moves"]]
        return {"hints": [h.to_json() for h in hints_for_route(route, level)]}

    def solution(self) -> dict[str, Any] | None:
        """The solver's answer for the round in play, kept off the published state until the
        round is over (for the referee's tools and tests)."""
        referee = self._table.referee
        o = referee.optimal
        return o if o is not None and o.get("round") == referee.round_number() else None

    def check_setup(self, players: list[str], preset: str, options: dict[str, Any],
                    tiles: list[str] | None) -> dict[str, Any]:
        """A ``setup`` command from the setup form, or :class:`ValueError` naming the field
        (:func:`companion.setup_form.check_setup`): the robots where the camera sees them."""
        t = self._table
        return setup_form.check_setup(
            players, preset, options, tiles,
            current=setup_form.current_tiles(getattr(t.game.s, "board", None), t.eyes.tiles()),
            seen=t.referee.seen, seed=t.game.s.seed)

    def setup_info(self) -> dict[str, Any]:
        """What the setup form offers (:func:`companion.setup_form.setup_info`)."""
        t = self._table
        return setup_form.setup_info(t.game, preset_given=t.preset,
                                     camera_tiles=t.eyes.tiles(), layouts=t.layouts,
                                     proposal=self.proposal() is not None)

    def history(self) -> dict[str, Any]:
        """Every game on this table and each player's record (from the store's journal, read
        on the loop's thread)."""
        t = self._table
        if t.off_loop():
            return t.call(self.history)
        if t.store is None:
            return table_view.unjournaled_history(t.game.summary(), self._practice)
        return table_view.history(t.store.history(), t.store.player_stats(),
                                  t.store.practice())

    def add_practice(self, entry: Mapping[str, Any]) -> None:
        """Keep a solved practice puzzle with the history (journaled on the loop's thread)."""
        t = self._table
        if t.off_loop():
            return t.call(lambda: self.add_practice(entry))
        if t.store is not None:
            t.store.add_practice(entry)
        else:
            self._practice.append(dict(entry))
        return None

    def check_micro_setup(self, players: list[str], layout: Any,
                          options: Mapping[str, Any], first_roller: int = 0) -> dict[str, Any]:
        """A Micro Robots ``setup`` command from the setup form, or :class:`ValueError` naming
        the field (:func:`companion.setup_form.check_micro_setup`)."""
        return setup_form.check_micro_setup(players, layout, options, first_roller,
                                            layouts=self._table.layouts)

    def proposal(self) -> dict[str, Any] | None:
        """The layout the camera proposed, waiting for the user (None if there is none)."""
        return self._table.referee.micro_rulings.proposal

    def dismiss_proposal(self) -> None:
        """The user confirmed (and saved) or discarded the camera's proposal."""
        self._table.referee.micro_rulings.proposal = None

    def read_layout(self) -> dict[str, Any]:
        """Micro Robots: read the board in the camera's latest picture and propose it, as
        :meth:`companion.table.Table.propose_layout` does; returns the proposal. The reading
        runs on the caller's thread (it takes a moment), never on the loop's.
        :class:`ValueError` says why nothing could be read (no camera, no picture yet, no
        Micro Robots board in view)."""
        return self._table.micro_side.read_layout()

    def calibrate_colors(self) -> Any:
        """Learn this table's colours from the camera's latest picture, the robots standing
        where the game says they do."""
        t = self._table
        return t.eyes.calibrate_colors(t.view().get("robots") or {}, micro=t.micro)


class _SimTable(Protocol):
    """What the simulated hand reaches of the table (:class:`companion.table.Table`)."""

    hardware: Lights | None
    sim: SimWorld | None
    micro_sim: MicroSimWorld | None


class SimHand:
    """The simulated table's hand and buttons (on a real table each says it is not one)."""

    def __init__(self, table: _SimTable) -> None:
        self._table = table

    def press(self, name: str, action: str = "press", steps: int = 1) -> None:
        """A virtual button on the simulated table (see :func:`companion.sim.buttons.press`)."""
        buttons.press(self._table.hardware, name, action, steps)

    def slide(self, robot: str, direction: str) -> dict[str, str]:
        """Slide a robot on the simulated table by hand (what a player's hand does)."""
        if self._table.sim is None:
            raise ValueError("this is not the simulated table")
        return self._table.sim.slide(robot, direction)

    def put_micro(self, space: str | None) -> str | None:
        """The simulated hand puts the micro robot on a space (any space: the game judges
        it), or lifts it (``None``); the simulated camera sees it come to rest."""
        if self._table.micro_sim is None:
            raise ValueError("this is not the simulated table")
        return self._table.micro_sim.put(space)
