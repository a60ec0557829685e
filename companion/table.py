"""The table loop: the one thread that owns the game.

Buttons, phones, the camera and the passing of time all become commands on one queue. The loop
takes them in order, stamps each with one monotonic clock, applies it to the
:class:`companion.game.Game`, journals it, and publishes what changed: a ``state`` event to
every open page (:class:`companion.events.Broker`) and the game's view to the LEDs. Nothing
else changes game state, so nothing can race.

The loop acts; the :class:`companion.referee.Referee` decides. Each event the game returns and
each look the camera hands in goes to the referee, which answers with commands (played here,
journaled like any other) and with the state every view reads (:mod:`companion.table_view`).
The loop reaches its edges (journal, eyes, lights, voice) through :mod:`companion.ports`.

The loop never waits on slow work: the solver runs on its own thread (cancelled when its round
ends) and hands its answer back as a command; the camera runs on its own thread and hands in
stable observations. A web request that needs an answer waits on its own command's
:class:`Outcome`, never on the loop.

During a demonstration the referee hands the camera's observations to :mod:`companion.verify`,
which turns a change of the board into the moves that explain it; each move becomes a ``move``
command, which the game judges by the rules.

The table plays one game at a time: the classic game or Micro Robots
(:class:`companion.micro.MicroGame`), chosen in setup; choosing the other game is a new game
in the journal. For Micro Robots the camera's side is two calls (the seam a camera reader
uses): :meth:`Table.observe_micro` with the space the robot rests on (``None`` while it is
hidden or in a hand), each coming to rest on a new space being a landing of the demonstration;
and :meth:`Table.propose_layout` with the board as the camera read it, which the page shows
for the user to confirm or correct before it is saved and used.

With a real camera the table tells the camera feed (:mod:`companion.vision.feed`) what to look
for (a :class:`~companion.vision.feed.Sight`, whenever the game changes it): the classic
game's tiles and robots, and whether a chip may be revealed now; or the Micro Robots layout. A
chip the camera reads on the centre piece while the game waits for one comes back through
:meth:`Table.observe_chip` and is revealed, unless it is the chip of the round just played,
still lying there.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from . import i18n, keys, micro
from .events import Broker
from .game import COMMANDS, Game, GameError
from .games import play
from .games import running as clock_running
from .i18n import Message
from .micro import MicroGame
from .names import PlayerNameError, check_command_names
from .ports import Eyes, Journal, Lights
from .referee import Outcome, Referee, source_words
from .sim import MicroSimWorld, SimWorld
from .solving import Solving
from .store import LayoutShelf
from .table_camera import TableCamera, sight_for
from .table_classic import ClassicTable
from .table_micro import MicroTable
from .table_pages import SimHand, TablePages
from .table_state import TableState
from .table_voice import TableVoice

log = logging.getLogger("companion.table")

# Commands players and the referee may send; the rest are the table's own bookkeeping.
PLAYER_COMMANDS = frozenset(COMMANDS) - {"tick", "resume"}
MICRO_COMMANDS = frozenset(micro.COMMANDS) - {"tick", "resume"}
# How long the loop sleeps at most when no deadline is near: it republishes nothing on its own,
# this only bounds how late a missed wake-up could be.
IDLE_WAIT = 0.5


@dataclass
class _Item:
    kind: str  # "game" (a game command) or the name of one of the table's own jobs
    payload: Any
    source: str
    future: Future | None = field(default=None)


_STOP = _Item("stop", None, "table")


class Table:
    """The companion's one owner of game state.

    >>> table = Table()                      # doctest: +SKIP
    >>> table.start()                        # doctest: +SKIP
    >>> table.submit({"type": "setup", "players": ["Anna", "Ben"]}).ok   # doctest: +SKIP
    True

    ``open_store`` opens the :class:`companion.store.Store` that journals every command and
    owns the replayed game; it is called on the loop's thread (an SQLite connection belongs to
    the thread that opened it), by :meth:`start`. ``None``: an unjournaled game. ``solve`` is
    :func:`companion.solver.solve`; ``clock`` the monotonic clock the store was opened with.
    ``hardware`` (:class:`companion.gpio.Hardware`) and ``camera``
    (:class:`companion.vision.feed.CameraFeed`) are attached with :meth:`attach_hardware` /
    :meth:`attach_camera` since they need :meth:`post` to exist first.

    The loop holds the rooms that answer beside it: :attr:`referee` (the decisions),
    :attr:`published` (the state every page and the LEDs show), :attr:`pages` (what the pages
    ask beside commands), :attr:`speaker` (the language and the voice), :attr:`hand` (the
    simulated table's hand and buttons), :attr:`eyes` (the camera's side) and
    :attr:`solving` (the solver's thread).
    """

    def __init__(
        self,
        *,
        open_store: Callable[[], Journal] | None = None,
        db: str | None = None,
        solve: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        pin: str | None = None,
        preset: str = "abacus-2013",
        simulated: bool = False,
        solve_seconds: float = 30.0,
        layouts: LayoutShelf | None = None,
    ) -> None:
        self._clock = clock
        self._open_store = open_store
        self.store: Journal | None = None
        self._game: Any = Game()
        # the solver's search for the round in play, on its own thread
        self.solving = Solving(solve, solve_seconds,
                               deliver=lambda answer: self._put(_Item("solved", answer, "solver")))
        self.preset = preset
        self.simulated = simulated
        self.secret = keys.key_file(db)
        self.broker = Broker(snapshot=self.view)  # the event stream every page reads
        self.hardware: Lights | None = None
        self.eyes = TableCamera()  # the camera, once attached
        self.sim: SimWorld | None = None
        self.micro_sim: MicroSimWorld | None = None
        # Micro Robots layouts saved by name; beside the journal unless given.
        self.layouts = layouts if layouts is not None else (
            LayoutShelf.beside(db) if db and db != ":memory:" else None)
        self._queue: queue.Queue[_Item] = queue.Queue(maxsize=1000)
        self._thread: threading.Thread | None = None
        self.published = TableState(self)  # the state every page reads
        # what the pages ask beside commands (the setup form, history, hints, the PIN, ...)
        self.pages = TablePages(self, db, pin)
        self.hand = SimHand(self)  # the simulated table's hand and buttons
        self.micro_side = MicroTable(self, self.pages.tell_phones)  # a Micro Robots game's
        self.classic_side = ClassicTable(self, self.pages.tell_phones)  # a classic game's
        self._ready = threading.Event()
        self._open_error: BaseException | None = None
        # the language and the voice, kept beside the journal
        self.speaker = TableVoice(db, republish=self._republish_running)
        # the table's decisions (chips, looks, the demonstration, the solver's answer)
        self.referee = Referee(game=lambda: self.game, now=self.now, play=self._apply,
                               publish=self._publish, say=self.speaker.speak)
        self.published.refresh()

    # ------------------------------------------------------------ time and journal

    @property
    def game(self) -> Any:
        """The game (a classic :class:`Game` or a :class:`MicroGame`), replayed by the store
        from its journal (the store may rebuild it)."""
        return self.store.game if self.store is not None else self._game

    @property
    def micro(self) -> bool:
        """Is the game on the table Micro Robots?"""
        return isinstance(self.game, MicroGame)

    @property
    def epoch(self) -> str:
        """Changes with each new game: join codes and player tokens are per game."""
        seed = self.game.s.seed
        return hashlib.sha256(f"{seed}".encode()).hexdigest()[:8]

    def now(self) -> float:
        """The table's one clock (the store shifts journaled times across a restart)."""
        return self._clock()

    def _game_apply(self, cmd: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply and journal: on disk before anyone is told it happened."""
        if self.store is not None:
            return self.store.apply(cmd)
        # Unjournaled: the other game is a fresh engine, as the store does it.
        self._game, events = play(self._game, cmd)
        return events

    # ------------------------------------------------------------ running

    def start(self, timeout: float = 60.0) -> None:
        """Start the loop thread, which opens the store and replays its journal; returns once
        the table is ready (raises what opening the store raised). Then the camera starts."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="table-loop", daemon=True)
        self._thread.start()
        self._ready.wait(timeout)
        if self._open_error is not None:
            self._thread.join(1.0)
            self._thread = None
            raise self._open_error
        if self.camera is not None:
            self.camera.start()

    def _open(self) -> None:
        if self._open_store is not None:
            self.store = self._open_store()  # the journal is this process's from here on
        self.pages.keep_pin()
        (self.micro_side if self.micro else self.classic_side).opened()
        self.published.refresh()
        self._tell_camera()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish every queued command, then stop: nothing submitted before is lost."""
        if self.camera is not None:
            self.camera.stop()
        self.solving.cancel()
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
            self._thread = None
        self.broker.close()
        if self.hardware is not None:
            try:
                self.hardware.close()
            except Exception:  # noqa: BLE001 - closing must not hide the shutdown
                log.exception("closing the hardware")

    def attach_hardware(self, hardware: Lights) -> None:
        self.hardware = hardware
        self.published.show_lights()

    def attach_camera(self, camera: Eyes) -> None:
        """Use ``camera`` (a :class:`~companion.vision.feed.CameraFeed`) from now on; it is
        told what to look for at once. Started by :meth:`start`, or by the caller when the
        table already runs."""
        self.eyes.attach(camera)
        self._republish_running()  # which tells the new camera the game

    # ------------------------------------------------------------ input

    def post(self, cmd: Mapping[str, Any], source: str = "buttons") -> Future:
        """Queue a game command; returns a future of its :class:`Outcome`. Never blocks."""
        fut: Future = Future()
        self._put(_Item("game", dict(cmd), source, fut))
        return fut

    def submit(self, cmd: Mapping[str, Any], source: str = "page",
               timeout: float = 5.0) -> Outcome:
        """Queue a game command and wait for its outcome (a web request's view of the loop)."""
        fut = self.post(cmd, source)
        try:
            return fut.result(timeout)
        except TimeoutError:
            return Outcome(False, Message("table.busy"))

    def observe(self, robots: Mapping[str, str] | None, source: str = "camera") -> None:
        """A stable observation from the camera: robot → cell name, or ``None`` (hidden)."""
        self._put(_Item("observe", None if robots is None else dict(robots), source))

    def observe_micro(self, space: str | None, source: str = "camera") -> None:
        """Micro Robots: a stable look at the board says the robot rests on ``space``
        (``pink6``), or ``None`` while it is hidden or in a hand. During a demonstration each
        coming to rest on a space other than where it stood is a landing; otherwise it only
        shows where the camera sees the robot. A bad space is reported on the page, never
        played."""
        self._put(_Item("observe_micro", space, source))

    def observe_chip(self, chip: str | None, *, reason: str | None = None,
                     color: str | None = None, source: str = "camera") -> None:
        """What the camera saw settle on the centre piece: a chip it read (``"blue triangle"``,
        ``"vortex"``), a chip it could not read (``chip`` None, with the ``reason`` and the
        ``color`` if that much was seen), or the bare piece (neither). While the game waits
        for a chip, a chip read is revealed; one unread is shown on the page for the players
        to pick by hand."""
        self._put(_Item("chip", (chip, reason, color), source))

    def propose_layout(self, rows: Any, confidence: Any = None, source: str = "camera") -> None:
        """Micro Robots: the board as the camera read it: six rows of six space names from the
        top (``None`` where unread), and optionally the reading's confidence per space
        (0 to 1). Nothing is used until the user confirms or corrects it on the page, which
        saves it as a layout; a malformed proposal is reported on the page."""
        self._put(_Item("proposal", (rows, confidence), source))

    def _put(self, item: _Item) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            if item.future is not None:
                item.future.set_result(Outcome(False, Message("table.overloaded")))
            log.warning("queue full: dropped %s from %s", item.kind, item.source)

    # ------------------------------------------------------------ the loop

    def _run(self) -> None:
        try:
            self._open()
        except BaseException as e:  # noqa: BLE001 - handed to start()'s caller
            self._open_error = e
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop()
        finally:
            if self.store is not None:
                self.store.close()

    def _loop(self) -> None:
        while True:
            deadline = self.game.next_deadline()
            wait = IDLE_WAIT if deadline is None else max(0.0, min(IDLE_WAIT,
                                                                   deadline - self.now()))
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                item = None
            try:
                if item is _STOP:
                    return
                if item is None:
                    self._tick()
                else:
                    self._handle(item)
            except Exception as e:  # noqa: BLE001 - the loop must outlive any one bad input
                log.exception("table loop: %s", e)
                if item is not None and item.future is not None and not item.future.done():
                    item.future.set_result(Outcome(False, f"internal error: {e}"))

    def _tick(self) -> None:
        g = self.game
        now = self.now()
        deadline = g.next_deadline()
        if self.speaker.voice is not None and not self.micro and g.phase == "timer":
            timer = g.view(now)["timer"]
            self.speaker.clock(timer, (self.referee.round_number(), timer.get("run")))
        active = clock_running(g) if self.micro else g.phase == "timer"
        if not active and (deadline is None or deadline > now):
            return
        # While the timer runs the store journals a heartbeat tick now and then, so a power
        # cut hands back at most that much sand.
        events = self.store.advance(now) if self.store is not None else g.advance(now)
        if events:
            self._after(events)

    def _handle(self, item: _Item) -> None:
        if item.kind == "game":
            out = self._apply(item.payload, item.source)
        elif item.kind in ("observe", "observe_micro", "proposal", "chip"):
            handlers: dict[str, Callable[[Any, str], Outcome]] = {
                "observe": self.referee.on_observation,
                "observe_micro": self.referee.micro_rulings.on_observation,
                "proposal": self.referee.micro_rulings.on_proposal,
                "chip": self.referee.on_chip}
            handler = handlers[item.kind]
            try:
                out = handler(item.payload, item.source)
            except (ValueError, KeyError, TypeError) as e:  # never stops play
                log.warning("%s from %s ignored: %s", item.kind, item.source, e)
                self.referee.message = Message("source.said", source=source_words(item.source),
                                               why=i18n.said(e))
                out = Outcome(False, str(e))
                self._publish()
        elif item.kind == "solved":
            out = self.classic_side.solved(*item.payload)
        elif item.kind == "call":
            out = Outcome(True, result=item.payload())
            self._publish()
        elif item.kind == "publish":
            out = Outcome(True)
            self._publish()
        else:  # pragma: no cover - every kind is listed above
            out = Outcome(False, f"unknown job {item.kind}")
        if item.future is not None and not item.future.done():
            item.future.set_result(out)

    def _apply(self, cmd: dict[str, Any], source: str) -> Outcome:
        kind = cmd.get("type")
        allowed = MICRO_COMMANDS if self.micro and kind not in ("setup", "new_game") \
            else PLAYER_COMMANDS | MICRO_COMMANDS
        if kind not in allowed:
            return Outcome(False, f"unknown command {kind!r}")
        if kind == "setup" and self.game.phase != "setup":
            cmd = {**cmd, "type": "new_game"}
        cmd["at"] = self.now()
        cmd.setdefault("source", source)
        clean = {k: v for k, v in cmd.items() if k != "source"}
        if kind == "done" and not self.micro and (held := self.referee.holds_done()):
            self._publish()  # the camera cannot read the end: the referee judges
            return Outcome(False, held)
        try:
            clean = check_command_names(clean)  # names enter the game here, and only here
            events = self._game_apply(clean)
        except (GameError, PlayerNameError) as e:
            return Outcome(False, i18n.said(e))
        except RuntimeError as e:  # the store's JournalError: the disk refused it
            log.error("journal: %s", e)
            return Outcome(False, str(e))
        self._after(events, cmd=clean)
        return Outcome(True, result=events)

    # ------------------------------------------------------------ after each change

    def _after(self, events: list[dict[str, Any]], cmd: dict[str, Any] | None = None) -> None:
        if self.micro:
            self.micro_side.after(events)
            self._publish()
            self.speaker.events(events)  # the call, the verdict, the winner
            return
        self.classic_side.after(events)
        self.speaker.events(events)
        self.referee.after_events()
        self._publish()

    # ------------------------------------------------------------ publishing

    def view(self) -> dict[str, Any]:
        """The last published state (what every page shows), safe from any thread
        (:meth:`companion.table_state.TableState.view`)."""
        return self.published.view()

    def _publish(self) -> None:
        state = self.published.refresh()
        self.broker.publish("state", state)
        self.published.show_lights()
        self._tell_camera()

    def _tell_camera(self) -> None:
        """Tell a real camera what to look for when the game has changed it."""
        if self.eyes.reads_frames:
            self.eyes.tell(sight_for(self.game, micro=self.micro, preset=self.preset,
                                     referee=self.referee, epoch=self.epoch))

    # ------------------------------------------------------------ from other threads

    def call(self, fn: Callable[[], Any], timeout: float = 5.0) -> Any:
        """Run ``fn`` on the loop's thread (for anything that reads or changes table state)
        and return its result."""
        fut: Future = Future()
        self._put(_Item("call", fn, "page", fut))
        out = fut.result(timeout)
        return out.result

    def call_soon(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the loop's thread later and republish; never blocks."""
        self._put(_Item("call", fn, "table"))

    def republish(self) -> None:
        """Publish the table's state again on the loop's thread (something it shows beside
        the game changed: the camera's view, the dial, the language); never blocks."""
        self._put(_Item("publish", None, "table"))

    def _republish_running(self) -> None:
        """Publish again, once the loop runs (before, :meth:`start` publishes)."""
        if self._thread is not None:
            self.republish()

    def off_loop(self) -> bool:
        """Is this called from another thread while the loop runs (so what reads the journal
        must be handed to the loop with :meth:`call`)?"""
        return self._thread is not None and threading.current_thread() is not self._thread

    def camera_changed(self) -> None:
        """The camera's view of itself changed (:class:`companion.vision.feed.Observer`)."""
        self.republish()

    # ------------------------------------------------------------ the camera

    @property
    def camera(self) -> Eyes | None:
        """The camera attached (:attr:`eyes` answers the page's questions to it)."""
        return self.eyes.camera
