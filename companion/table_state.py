"""The table's published state: built on the loop's thread after each change, kept for every
page to read from any thread, and shown on the LEDs.

:mod:`companion.table_view` says what each page and the LEDs show; this room gathers what it
needs from the table (the game's view, the referee, the edges) and keeps the last state with
the hourglass's end, so a page that asks late sees the same time as the pages that got each
event.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from . import setup_form, table_view
from .board import Board
from .ports import Lights
from .referee import Referee
from .sim import buttons
from .solving import Solving
from .table_camera import TableCamera
from .table_voice import TableVoice

log = logging.getLogger("companion.table")


class _Table(Protocol):
    """What the published state reads of the table (:class:`companion.table.Table`)."""

    referee: Referee
    solving: Solving
    eyes: TableCamera
    hardware: Lights | None
    speaker: TableVoice
    simulated: bool

    @property
    def game(self) -> Any: ...

    @property
    def micro(self) -> bool: ...

    @property
    def epoch(self) -> str: ...

    def now(self) -> float: ...


class TableState:
    """The last state published for ``table`` (``view`` reads it from any thread)."""

    def __init__(self, table: _Table) -> None:
        self._table = table
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._timer_end: float | None = None  # on the table's clock: never shown
        self._seq = 0
        self._geo_cache: tuple[Any, Any] = (None, None)

    def verdict(self) -> dict[str, Any] | None:
        """The last demonstration's verdict as the page shows it, read from the game's own
        (journaled) state: a restart or an undo shows what the journal says, never a stale
        one."""
        t = self._table
        if t.micro:
            return table_view.micro_verdict(t.game.s)
        return table_view.classic_verdict(getattr(t.game.s, "verdict", None))

    def refresh(self) -> dict[str, Any]:
        """Build the state every page shows now (on the loop's thread) and keep it."""
        t = self._table
        self._seq += 1
        if t.micro:
            v = t.game.view(t.now())
            stall = v["stall"]
            state = table_view.micro_state(
                v, t.referee, seq=self._seq, epoch=t.epoch,
                timer=self._timer_view(stall["ends_at"] is not None, stall["remaining"],
                                       stall["seconds"], stall["ends_at"]),
                verdict=self.verdict(), edges=self._edges())
            return self._keep(state)
        gv = t.game.view(t.now())
        timer = gv["timer"]
        state = table_view.classic_state(
            gv, t.referee, seq=self._seq, epoch=t.epoch,
            timer=self._timer_view(timer["running"], timer["remaining"], timer["duration"],
                                   timer["ends_at"]),
            verdict=self.verdict(), board=self._geometry(t.game.s.board),
            solving=t.solving.busy, edges=self._edges())
        return self._keep(state)

    def view(self) -> dict[str, Any]:
        """The last published state (what every page shows), safe from any thread, with the
        timer's seconds left computed now: a page asking late sees the same time as the
        pages that got each event."""
        with self._lock:
            state, end = self._state, self._timer_end
        timer = state.get("timer")
        if not timer:
            return state
        fresh = self._timer_view(timer["running"], timer["remaining"], timer["total"], end)
        fresh.pop("_ends_at")
        return {**state, "timer": fresh}

    def show_lights(self) -> None:
        """Show the game on the LEDs (a LED fault never stops the game)."""
        t = self._table
        if t.hardware is None:
            return
        shown = table_view.micro_lights_view if t.micro else table_view.lights_view
        try:
            t.hardware.show(shown(t.game.view(t.now()), self.verdict()))
        except Exception:  # noqa: BLE001 - a LED fault must not stop the game
            log.exception("hardware.show")

    def _keep(self, state: dict[str, Any]) -> dict[str, Any]:
        t = self._table
        state["lang"] = t.speaker.language
        notice = t.referee.notice
        state["notice"] = ({"key": notice[1], "params": notice[2]}
                           if notice is not None and notice[0] == state.get("message") else None)
        voice = t.speaker.voice
        state["voice"] = voice.status() if voice is not None else None
        end = state["timer"].pop("_ends_at", None) if state.get("timer") else None
        with self._lock:
            self._state = state
            self._timer_end = end
        return state

    def _edges(self) -> dict[str, Any]:
        """What the page shows of the table's edges: the simulated table's buttons, the dial,
        the camera, the devices that do not work."""
        t = self._table
        return {"sim": t.simulated, "buttons": self._virtual_buttons(),
                "dial": getattr(t.hardware, "dial", None) if t.hardware is not None else None,
                "camera": t.eyes.status(),
                "devices": self._devices_status()}

    def _timer_view(self, running: bool, remaining: float | None, total: float | None,
                    ends_at: float | None) -> dict[str, Any]:
        return table_view.timer_view(self._table.now(), time.time(), running, remaining, total,
                                     ends_at)

    def _geometry(self, board: Board | None) -> dict[str, Any] | None:
        if self._geo_cache[0] is not board:
            self._geo_cache = (board, table_view.board_geometry(board))
        return self._geo_cache[1]

    def _devices_status(self) -> dict[str, Any] | None:
        """The buttons and lights that do not work and why, for the page (``None``: all do)."""
        hw: Any = self._table.hardware
        if hw is None or not hasattr(hw, "status"):
            return None
        missing = [name for name, state in hw.status().items() if state != "ok"]
        if not missing:
            return None
        return {"missing": missing, "problems": list(getattr(hw, "problems", ()))[:4]}

    def _virtual_buttons(self) -> list[dict[str, Any]] | None:
        """The simulated table's buttons, for the page to draw (``None`` on a real table)."""
        t = self._table
        if not t.simulated:
            return None
        return buttons.listed(t.hardware, setup_form.player_names(t.game), t.micro)
