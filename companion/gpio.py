"""The table's hardware: LED hourglass, start button, bid buttons, dial, buzzer, digit display.

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> commands = []
    >>> with Hardware(PinMap.load(), commands.append,
    ...               pin_factory=MockFactory(pin_class=MockPWMPin)) as hw:
    ...     hw.show({"phase": "bidding", "mode": "multi", "timer": None, "leader": None,
    ...              "demonstrating": None, "players": [], "verdict": None})
    ...     hw.turn(3); hw.press("bid", 1); hw.release("bid", 1)
    ...     hw.sync()
    True
    >>> commands[-1]
    {'type': 'bid', 'seat': 1, 'value': 3}

The hardware is a *view* of the game and a *source* of commands; it never owns game state.
:meth:`Hardware.show` takes the game's ``view()`` dict and renders it; button presses become
command dicts handed to ``submit`` (always from one thread, in the order the edges happened):

* ``{"type": "reveal"}`` start button tapped (``{"type": "start_timer"}`` while a chip is
  showing and the hourglass is not yet running); ``{"type": "undo"}`` start button held
  ``hold_seconds``;
* ``{"type": "bid", "seat": i, "value": n}`` a seat's button pressed with the dial on ``n``
  (dial at 0 or no dial fitted: the button tapped ``n`` times within ``tap_window``);
* ``{"type": "done", "seat": i}`` / ``{"type": "give_up", "seat": i}`` the demonstrating
  player's button tapped / held;
* ``{"type": "dial", "value": n}`` the dial turned or pushed (push resets it to 0).

In a game of Micro Robots (the view says ``"game": "micro-robots"``) the same buttons play it:
the start button tapped rolls the dice (``{"type": "roll"}``), or while a target is out
re-rolls it (``{"type": "reroll"}``: the table agreed it is too hard), held it undoes; a
seat's button calls the dialled number (``{"type": "call", "seat": i, "number": n}``, taps
without a dial), and the demonstrator's button is done / give up as above. The LED hourglass
shows the stall hourglass, which the table sends as the view's ``timer``.

Everything is built from ``hardware/pins.toml`` through gpiozero, so the same code runs on a
Raspberry Pi and, with gpiozero's ``MockFactory(pin_class=MockPWMPin)``, in the tests and on the
simulated table (:meth:`Hardware.press`, :meth:`Hardware.release`, :meth:`Hardware.turn` drive
the mock pins the way fingers would). A device that is missing or fails is reported once through
``report`` and the rest keeps working.

:class:`Hardware` owns the pins and the one worker thread; its :class:`Buttons` turn edges into
commands, its :class:`Lights` turn the view into the hourglass, the players' LEDs, the digit
and the buzzer's cues.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CompanionError

DEFAULT_PINS = Path(__file__).resolve().parents[1] / "hardware" / "pins.toml"

PHASES = ("setup", "idle", "bidding", "timer", "demonstrating", "round_over", "game_over")
SOUND_LEVELS = ("none", "some", "all")
HEADER_GPIOS = frozenset(range(28))  # BCM 0..27 are all on the 40-pin header
MAX_SEATS = 8

BLINK_SECONDS = 10.0  # the bar blinks while this much time is left
BLINK_PERIOD = 0.5  # lit for the first half of each period
FLASH_SECONDS = 3.0  # the whole bar flashes this long once time is up
FLASH_PERIOD = 0.25
DIGIT_SECONDS = 0.5  # a number of 10 or more is spelled one digit at a time
DIM = 0.35  # brightness of the bar during the second run of easy solo play

# Which cues each sound level plays.
CUES = {
    "none": frozenset(),
    "some": frozenset({"start", "time_up"}),
    "all": frozenset({"start", "ten", "time_up", "success", "failure"}),
}
# (note or None for a rest, seconds); notes stay within TonalBuzzer's A2..A6 range below.
TUNES: dict[str, tuple[tuple[str | None, float], ...]] = {
    "start": (("A5", 0.12),),
    "ten": (("E5", 0.08), (None, 0.08), ("E5", 0.08)),
    "time_up": (("A4", 0.7),),
    "success": (("C5", 0.1), ("E5", 0.1), ("G5", 0.1), ("C6", 0.3)),
    "failure": (("E4", 0.2), (None, 0.06), ("C4", 0.5)),
}

# CD4511 inputs A, B, C, D (bits 1, 2, 4, 8); codes 10..15 blank the digit.
BCD_FONT = {str(d): tuple((d >> bit) & 1 for bit in range(4)) for d in range(10)}
BCD_FONT[" "] = (1, 1, 1, 1)

log = logging.getLogger(__name__)


class PinMapError(CompanionError, ValueError):
    """The pin map is malformed; the message names the file and the key at fault."""


# ---------------------------------------------------------------- the pin map


@dataclass(frozen=True)
class DialPins:
    a: int
    b: int
    push: int | None = None
    max: int = 40


@dataclass(frozen=True)
class BuzzerPins:
    pin: int
    kind: str = "tonal"
    sound: str = "all"


@dataclass(frozen=True)
class DisplayPins:
    pins: tuple[int, ...]
    kind: str = "bcd"
    dp: int | None = None
    active_high: bool = True


@dataclass(frozen=True)
class LedPins:
    pins: tuple[int, ...]
    active_high: bool = True


@dataclass(frozen=True)
class PinMap:
    """Which BCM pin each device uses, and the few timings that belong to the buttons.

    Load the shipped map with :meth:`load`; derive variants with ``dataclasses.replace``
    (``replace(pins, dial=None)`` is a table without a dial).
    """

    hourglass: tuple[int, ...]
    start: int
    bids: tuple[int, ...]
    hourglass_pwm: bool = True
    hourglass_active_high: bool = True
    fps: float = 40.0
    hold_seconds: float = 2.0
    tap_window: float = 0.7
    debounce: float = 0.03
    dial: DialPins | None = None
    buzzer: BuzzerPins | None = None
    display: DisplayPins | None = None
    player_leds: LedPins | None = None
    source: str = field(default="pin map", compare=False)

    @classmethod
    def load(cls, path: str | Path | None = None) -> PinMap:
        """Read a pins.toml (default: ``hardware/pins.toml`` of this checkout)."""
        from .inputs import InputError

        try:
            return read_pinmap(Path(path) if path is not None else DEFAULT_PINS, "pin map")
        except InputError as e:
            raise PinMapError(str(e)) from None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "pin map") -> PinMap:
        """Build and check a map from parsed TOML; every error names the key at fault."""
        r = _Reader(data, source)
        r.only(data, "", {"hourglass", "start", "bid", "buttons", "dial", "buzzer", "display",
                          "player_leds"})
        hg = r.section("hourglass", {"pins", "pwm", "active_high", "fps"}, required=True)
        st = r.section("start", {"pin", "hold_seconds"}, required=True)
        bid = r.section("bid", {"pins", "tap_window"}, required=True)
        btn = r.section("buttons", {"debounce"}) or {}
        kw: dict[str, Any] = {
            "hourglass": r.pins(hg, "hourglass.pins", minimum=2),
            "hourglass_pwm": r.boolean(hg, "hourglass.pwm", True),
            "hourglass_active_high": r.boolean(hg, "hourglass.active_high", True),
            "fps": r.number(hg, "hourglass.fps", 40.0, low=30.0, high=200.0),
            "start": r.pin(st, "start.pin"),
            "hold_seconds": r.number(st, "start.hold_seconds", 2.0, low=0.05, high=10.0),
            "bids": r.pins(bid, "bid.pins", minimum=1, maximum=MAX_SEATS),
            "tap_window": r.number(bid, "bid.tap_window", 0.7, low=0.05, high=5.0),
            "debounce": r.number(btn, "buttons.debounce", 0.03, low=0.0, high=0.5),
        }
        if (d := r.section("dial", {"a", "b", "push", "max"})) is not None:
            kw["dial"] = DialPins(
                a=r.pin(d, "dial.a"), b=r.pin(d, "dial.b"),
                push=r.pin(d, "dial.push") if "push" in d else None,
                max=int(r.number(d, "dial.max", 40, low=1, high=99, integer=True)))
        if (b := r.section("buzzer", {"pin", "kind", "sound"})) is not None:
            kw["buzzer"] = BuzzerPins(
                pin=r.pin(b, "buzzer.pin"),
                kind=r.choice(b, "buzzer.kind", ("tonal", "plain"), "tonal"),
                sound=r.choice(b, "buzzer.sound", SOUND_LEVELS, "all"))
        if (s := r.section("display", {"kind", "pins", "dp", "active_high"})) is not None:
            kind = r.choice(s, "display.kind", ("bcd", "segments"), "bcd")
            want = 4 if kind == "bcd" else 7
            pins = r.pins(s, "display.pins", minimum=want, maximum=want)
            if kind == "bcd" and "dp" in s:
                raise PinMapError(f"{source}: display.dp: a BCD decoder has no decimal point")
            kw["display"] = DisplayPins(
                pins=pins, kind=kind, dp=r.pin(s, "display.dp") if "dp" in s else None,
                active_high=r.boolean(s, "display.active_high", True))
        if (p := r.section("player_leds", {"pins", "active_high"})) is not None:
            kw["player_leds"] = LedPins(
                pins=r.pins(p, "player_leds.pins", minimum=1, maximum=MAX_SEATS),
                active_high=r.boolean(p, "player_leds.active_high", True))
        pins = cls(**kw, source=source)
        pins.assignments()  # raises on a collision
        return pins

    def assignments(self) -> dict[int, str]:
        """Every pin in use and what it drives; raises :class:`PinMapError` on a collision."""
        used: dict[int, str] = {}
        for pin, name in self._uses():
            if pin in used:
                raise PinMapError(f"{self.source}: GPIO{pin} is used twice: {used[pin]} and {name}")
            used[pin] = name
        return used

    def _uses(self) -> Iterator[tuple[int, str]]:
        yield from ((p, f"hourglass.pins[{i}]") for i, p in enumerate(self.hourglass))
        yield self.start, "start.pin"
        yield from ((p, f"bid.pins[{i}]") for i, p in enumerate(self.bids))
        if self.dial:
            yield self.dial.a, "dial.a"
            yield self.dial.b, "dial.b"
            if self.dial.push is not None:
                yield self.dial.push, "dial.push"
        if self.buzzer:
            yield self.buzzer.pin, "buzzer.pin"
        if self.display:
            yield from ((p, f"display.pins[{i}]") for i, p in enumerate(self.display.pins))
            if self.display.dp is not None:
                yield self.display.dp, "display.dp"
        if self.player_leds:
            yield from ((p, f"player_leds.pins[{i}]") for i, p in enumerate(self.player_leds.pins))


class _Reader:
    """Typed access to the parsed TOML with errors that name file and key."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data, self.source = data, source

    def fail(self, key: str, what: str) -> PinMapError:
        return PinMapError(f"{self.source}: {key}: {what}")

    def only(self, table: Mapping[str, Any], prefix: str, known: set[str]) -> None:
        for key in table:
            if key not in known:
                where = f"{prefix}.{key}" if prefix else f"[{key}]"
                raise self.fail(where, f"unknown key (known: {', '.join(sorted(known))})")

    def section(self, name: str, known: set[str], required: bool = False) -> dict | None:
        table = self.data.get(name)
        if table is None:
            if required:
                raise self.fail(f"[{name}]", "missing section")
            return None
        if not isinstance(table, dict):
            raise self.fail(f"[{name}]", "must be a table")
        self.only(table, name, known)
        return table

    def pin(self, table: Mapping[str, Any], key: str) -> int:
        value = table.get(key.rsplit(".", 1)[-1])
        if value is None:
            raise self.fail(key, "missing")
        return self.gpio(value, key)

    def gpio(self, value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value not in HEADER_GPIOS:
            raise self.fail(key, f"{value!r} is not a BCM GPIO number on the header (0..27)")
        return value

    def pins(self, table: Mapping[str, Any], key: str, *, minimum: int = 1,
             maximum: int = 28) -> tuple[int, ...]:
        value = table.get(key.rsplit(".", 1)[-1])
        if not isinstance(value, list) or not minimum <= len(value) <= maximum:
            span = str(minimum) if minimum == maximum else f"{minimum}..{maximum}"
            raise self.fail(key, f"must be a list of {span} BCM GPIO numbers, not {value!r}")
        return tuple(self.gpio(v, f"{key}[{i}]") for i, v in enumerate(value))

    def number(self, table: Mapping[str, Any], key: str, default: float, *, low: float,
               high: float, integer: bool = False) -> float:
        value = table.get(key.rsplit(".", 1)[-1], default)
        ok = isinstance(value, int) if integer else isinstance(value, int | float)
        if isinstance(value, bool) or not ok or not low <= value <= high:
            kind = "a whole number" if integer else "a number"
            raise self.fail(key, f"must be {kind} from {low:g} to {high:g}, not {value!r}")
        return float(value)

    def boolean(self, table: Mapping[str, Any], key: str, default: bool) -> bool:
        value = table.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def choice(self, table: Mapping[str, Any], key: str, options: Sequence[str],
               default: str) -> str:
        value = table.get(key.rsplit(".", 1)[-1], default)
        if value not in options:
            raise self.fail(key, f"must be one of {', '.join(options)}, not {value!r}")
        return value


# ---------------------------------------------------------------- what the LEDs show


def timer_remaining(timer: Mapping[str, Any] | None, now: float) -> float | None:
    """Seconds left on the view's timer at ``now`` (same clock as ``started_at``), or None."""
    if not timer:
        return None
    duration = timer.get("duration")
    started = timer.get("started_at")
    if timer.get("running") and started is not None and duration is not None:
        return max(0.0, float(started) + float(duration) - now)
    remaining = timer.get("remaining")
    return None if remaining is None else max(0.0, float(remaining))


def hourglass_levels(n: int, remaining: float | None, duration: float | None, *,
                     since_up: float | None = None, pwm: bool = True,
                     dim: bool = False) -> tuple[float, ...]:
    """Brightness of each of ``n`` LEDs (bottom first) for a timer with ``remaining`` seconds.

    The lit height is proportional to the time left, the top lit LED dimmed by the part of its
    share already run out (on/off only without ``pwm``); the lit part blinks during the last
    ``BLINK_SECONDS``; for ``FLASH_SECONDS`` after time is up (``since_up`` seconds ago) the
    whole bar flashes. Pure, so the page can draw the same bar.
    """
    if since_up is not None and 0.0 <= since_up < FLASH_SECONDS:
        lit = (since_up % FLASH_PERIOD) < FLASH_PERIOD / 2
        return (1.0 if lit else 0.0,) * n
    if remaining is None or not duration or duration <= 0 or remaining <= 0:
        return (0.0,) * n
    if remaining <= BLINK_SECONDS and (remaining % BLINK_PERIOD) < BLINK_PERIOD / 2:
        return (0.0,) * n
    height = min(1.0, remaining / duration) * n
    scale = DIM if dim else 1.0
    levels = []
    for i in range(n):
        part = min(1.0, max(0.0, height - i))
        if not pwm:
            part = 1.0 if part > 0 else 0.0
        levels.append(part * scale)
    return tuple(levels)


def digit_at(value: int | None, elapsed: float) -> str:
    """The character a one-digit display shows ``elapsed`` seconds after ``value`` was set.

    0..9 show steadily; 10 and up are spelled a digit per ``DIGIT_SECONDS`` then a blank.
    """
    if value is None:
        return " "
    text = str(value)
    if len(text) == 1:
        return text
    frames = text + " "
    return frames[int(max(0.0, elapsed) / DIGIT_SECONDS) % len(frames)]


# ---------------------------------------------------------------- the hardware


def _bid(view: Mapping[str, Any], seat: int, number: int) -> dict[str, Any]:
    """A seat's number from its button: a bid, or in Micro Robots a call."""
    if view.get("game") == "micro-robots":
        return {"type": "call", "seat": seat, "number": number}
    return {"type": "bid", "seat": seat, "value": number}


def _key_name(key: tuple) -> str:
    return key[0] if len(key) == 1 else f"{key[0]}[{key[1]}]"


@dataclass
class _Button:
    key: tuple  # ("start",), ("bid", seat) or ("push",)
    device: Any
    down: bool = False
    accepted_at: float = -math.inf
    last_edge: float = -math.inf
    settle_pending: bool = False
    token: int = 0  # bumps on every press, so a stale hold timer knows it is stale
    held: bool = False
    mode: str = ""  # what this press means: "start", "demo", "bid" or "push"


@dataclass
class _Run:
    """What the renderer remembers about one timer run (to cue each sound once)."""

    key: tuple
    end: float | None
    ten_armed: bool
    ten_done: bool = False
    up_at: float | None = None


class _Parts:
    """What the buttons and the lights share with the :class:`Hardware` that owns them: the pin
    map, the working devices, the one report per problem, the worker's timers, the commands."""

    def __init__(self, pins: PinMap, submit: Callable[[dict], Any],
                 report: Callable[[str], Any]) -> None:
        self.pins = pins
        self.devices: dict[str, Any] = {}
        self.problems: list[str] = []
        self.reported: set[str] = set()
        self._submit = submit
        self._report_sink = report
        self._timers: list[tuple[float, int, str, Any, int]] = []
        self._seq = itertools.count()
        self.factory: Any = None

    def report(self, key: str, message: str) -> bool:
        """Pass a problem on once per ``key``; True the first time."""
        if key in self.reported:
            return False
        self.reported.add(key)
        self.problems.append(message)
        try:
            self._report_sink(message)
        except Exception:  # a broken reporter must not break the table
            log.exception("report sink failed")
        return True

    def device(self, name: str, make: Callable[[], Any]) -> Any:
        """Build one device; one that cannot be built is reported and left out."""
        try:
            device = make()
        except Exception as e:
            self.report(name, f"{name}: could not be set up ({type(e).__name__}: {e}); "
                              "running without it")
            return None
        self.devices[name] = device
        return device

    def safe(self, name: str, action: Callable[[], Any]) -> Any:
        """Run a device action; a failure retires the device and is reported once."""
        if name not in self.devices:
            return None
        try:
            return action()
        except Exception as e:
            self.report(name, f"{name}: failed ({type(e).__name__}: {e}); running without it")
            device = self.devices.pop(name, None)
            try:
                if device is not None:
                    device.close()
            except Exception:
                pass
            return None

    def at(self, due: float, kind: str, arg: Any = None, token: int = 0) -> None:
        """Wake the worker at ``due`` (real time) for a timer of ``kind``."""
        heapq.heappush(self._timers, (due, next(self._seq), kind, arg, token))

    def due(self, now: float) -> Iterator[tuple[str, Any, int]]:
        """The timers due by ``now``, in order: (kind, arg, token)."""
        while self._timers and self._timers[0][0] <= now:
            _, _, kind, arg, token = heapq.heappop(self._timers)
            yield kind, arg, token

    def next_timer(self) -> float | None:
        return self._timers[0][0] if self._timers else None

    def settling(self) -> bool:
        """Is a debounce check or a tap window still open?"""
        return any(t[2] in ("settle", "tap") for t in self._timers)

    def emit(self, command: dict) -> None:
        try:
            self._submit(command)
        except Exception as e:
            self.report("submit", f"submitting {command} failed: {e!r}")


class Buttons:
    """The inputs: the start button, a button per seat, the dial and its push. Edges come in
    time order from the worker thread; debounce, hold and the tap window are timed here and
    each press becomes a command (see the module's docstring)."""

    def __init__(self, parts: _Parts, redraw: Callable[[], None]) -> None:
        self._parts = parts
        self._redraw = redraw  # the dial changed: the display shows it
        self._buttons: dict[tuple, _Button] = {}
        self._taps: dict[int, int] = {}
        self._tap_token: dict[int, int] = {}
        self.dial = 0

    def build(self, edge: Callable[[tuple, Any], None]) -> None:
        import gpiozero as gz

        p, parts = self._parts.pins, self._parts
        self._button(("start",), p.start, edge)
        for seat, pin in enumerate(p.bids):
            self._button(("bid", seat), pin, edge)
        if p.dial:
            dial = p.dial
            enc = parts.device("dial", lambda: gz.RotaryEncoder(
                dial.a, dial.b, max_steps=0, pin_factory=parts.factory))
            if enc is not None:
                enc.when_rotated_clockwise = lambda: edge(("turn",), 1)
                enc.when_rotated_counter_clockwise = lambda: edge(("turn",), -1)
            if dial.push is not None:
                self._button(("push",), dial.push, edge)

    def _button(self, key: tuple, pin: int, edge: Callable[[tuple, Any], None]) -> None:
        import gpiozero as gz

        name = _key_name(key)
        # DigitalInputDevice rather than Button: Button keeps a polling hold thread per
        # button, and hold, tap and debounce are all timed here on the one worker thread.
        device = self._parts.device(name, lambda: gz.DigitalInputDevice(
            pin, pull_up=True, bounce_time=None, pin_factory=self._parts.factory))
        if device is None:
            return
        self._buttons[key] = _Button(key, device, mode=key[0])
        device.when_activated = lambda: edge(key, True)
        device.when_deactivated = lambda: edge(key, False)

    def pin(self, name: str, index: int | None) -> Any:
        """The pin of a named input (see :meth:`Hardware.pin`), or None for another name."""
        if name == "start":
            return self._buttons[("start",)].device.pin
        if name == "bid":
            return self._buttons[("bid", index)].device.pin
        if name == "dial_push":
            return self._buttons[("push",)].device.pin
        if name in ("dial_a", "dial_b"):
            return getattr(self._parts.devices["dial"], name[-1]).pin
        return None

    def handle(self, t: float, key: tuple, level: Any, view: Mapping | None) -> None:
        if key == ("turn",):
            self._set_dial(self.dial + level)
            return
        b = self._buttons.get(key)
        if b is None:
            return
        b.last_edge = t
        if level == b.down:
            return
        debounce = self._parts.pins.debounce
        if t - b.accepted_at < debounce:
            # Contact bounce: ignore, but look again once the lockout ends in case the
            # button really did change (a very short tap) and the last edge is the truth.
            if not b.settle_pending:
                b.settle_pending = True
                self._parts.at(b.accepted_at + debounce, "settle", key)
            return
        self._accept(b, level, t, view)

    def _accept(self, b: _Button, down: bool, t: float, view: Mapping | None) -> None:
        b.down, b.accepted_at = down, t
        if down:
            self._pressed(b, t, view)
        else:
            self._released(b, view)

    def _pressed(self, b: _Button, t: float, view: Mapping | None) -> None:
        b.token += 1
        b.held = False
        kind = b.key[0]
        parts = self._parts
        if kind == "push":
            b.mode = "push"
            self._set_dial(0, announce=True)
            return
        if kind == "start":
            b.mode = "start"
            parts.at(t + parts.pins.hold_seconds, "hold", b.key, b.token)
            return
        seat = b.key[1]
        v = view or {}
        if v.get("phase") == "demonstrating" and v.get("demonstrating") == seat:
            b.mode = "demo"
            parts.at(t + parts.pins.hold_seconds, "hold", b.key, b.token)
            return
        b.mode = "bid"
        if "dial" in parts.devices and self.dial > 0:
            parts.emit(_bid(v, seat, self.dial))
            return
        self._taps[seat] = self._taps.get(seat, 0) + 1
        token = self._tap_token[seat] = self._tap_token.get(seat, 0) + 1
        parts.at(t + parts.pins.tap_window, "tap", seat, token)

    def _released(self, b: _Button, view: Mapping | None) -> None:
        if b.held or b.mode not in ("start", "demo"):
            return
        b.token += 1  # cancels the pending hold
        if b.mode == "demo":
            self._parts.emit({"type": "done", "seat": b.key[1]})
            return
        v = view or {}
        if v.get("game") == "micro-robots":
            self._parts.emit({"type": "reroll" if v.get("phase") == "round" else "roll"})
            return
        # A chip is showing and nobody has bid yet: the button starts the hourglass by hand.
        # Otherwise it reveals the next chip (in solo play the timer starts with the chip).
        waiting = v.get("phase") == "bidding" and not (v.get("timer") or {}).get("running")
        self._parts.emit({"type": "start_timer" if waiting else "reveal"})

    def timer(self, kind: str, arg: Any, token: int, view: Mapping | None) -> None:
        """A timer of the buttons is due: a debounce check, a hold or a tap window's end."""
        if kind == "settle":
            self._settle(arg, view)
        elif kind == "hold":
            self._hold(arg, token)
        elif kind == "tap":
            if self._tap_token.get(arg) != token:
                return
            count = self._taps.pop(arg, 0)
            if count:
                self._parts.emit(_bid(view or {}, arg, count))

    def _settle(self, key: tuple, view: Mapping | None) -> None:
        b = self._buttons.get(key)
        if b is None:
            return
        b.settle_pending = False
        actual = self._parts.safe(_key_name(key), lambda: bool(b.device.is_active))
        if actual is not None and actual != b.down:
            # the level has held since the last edge: date the change from there
            self._accept(b, actual, b.last_edge, view)

    def _hold(self, key: tuple, token: int) -> None:
        b = self._buttons.get(key)
        if b is None or token != b.token or not b.down:
            return
        if self._parts.safe(_key_name(key), lambda: bool(b.device.is_active)) is False:
            return  # released, and the release edge is still on its way here
        b.held = True
        if b.mode == "start":
            self._parts.emit({"type": "undo"})
        elif b.mode == "demo":
            self._parts.emit({"type": "give_up", "seat": key[1]})

    def _set_dial(self, value: int, announce: bool = False) -> None:
        top = self._parts.pins.dial.max if self._parts.pins.dial else 0
        value = min(top, max(0, value))
        if value == self.dial and not announce:
            return
        self.dial = value
        self._parts.emit({"type": "dial", "value": value})
        self._redraw()


class Lights:
    """The outputs: the LED hourglass, the players' LEDs, the digit display and the buzzer,
    rendered from the game's view; each sound cue plays once per timer run."""

    def __init__(self, parts: _Parts, clock: Callable[[], float]) -> None:
        self._parts = parts
        self._clock = clock
        self._cache: dict[str, Any] = {}
        self._run: _Run | None = None
        self._verdict: Any = None
        self._shown_number: int | None = None
        self._number_since = 0.0
        self._tune_token = 0

    def build_hourglass(self) -> None:
        import gpiozero as gz

        p, pf = self._parts.pins, self._parts.factory
        self._parts.device("hourglass", lambda: gz.LEDBarGraph(
            *p.hourglass, pwm=p.hourglass_pwm, active_high=p.hourglass_active_high,
            pin_factory=pf))

    def build(self) -> None:
        """The other outputs, built after the buttons (the pins are claimed in that order)."""
        import gpiozero as gz
        from gpiozero.tones import Tone

        p, pf, parts = self._parts.pins, self._parts.factory, self._parts
        if p.buzzer:
            bz = p.buzzer
            if bz.kind == "tonal":
                parts.device("buzzer", lambda: gz.TonalBuzzer(
                    bz.pin, mid_tone=Tone("A4"), octaves=2, pin_factory=pf))
            else:
                parts.device("buzzer", lambda: gz.Buzzer(bz.pin, pin_factory=pf))
        if p.display:
            ds = p.display
            parts.device("display", lambda: gz.LEDCharDisplay(
                *ds.pins, dp=ds.dp, font=BCD_FONT if ds.kind == "bcd" else None,
                active_high=ds.active_high, pin_factory=pf))
        if p.player_leds:
            pl = p.player_leds
            parts.device("player_leds", lambda: gz.LEDBoard(
                *pl.pins, active_high=pl.active_high, pin_factory=pf))

    def pin(self, name: str, index: int | None) -> Any:
        """The pin of a named output (see :meth:`Hardware.pin`), or None for another name."""
        devices = self._parts.devices
        if name == "hourglass":
            return devices["hourglass"][index].pin
        if name == "buzzer":
            buzzer = devices["buzzer"]
            return getattr(buzzer, "pwm_device", buzzer).pin
        if name == "display":
            return devices["display"][index].pin
        if name == "player_led":
            return devices["player_leds"][index].pin
        return None

    def render(self, view: Mapping | None, now: float, dial: int | None) -> float | None:
        """Show ``view`` at real time ``now``; when to draw the next frame (None: no need).
        ``dial`` is the number the dial is on, None without a dial."""
        gnow = self._clock()
        v = view or {}
        phase = v.get("phase")
        timer = v.get("timer") or None
        remaining = timer_remaining(timer, gnow)
        running = bool(timer and timer.get("running"))
        animating = self._track_run(timer, remaining, running, gnow)
        since_up = None
        if self._run and self._run.up_at is not None:
            since_up = gnow - self._run.up_at
            animating = animating or since_up < FLASH_SECONDS
        self._write_bar(self._levels(v, timer, remaining, running, since_up))
        self._render_leds(v, phase)
        digit_wake = self._render_display(v, phase, now, dial)
        verdict = v.get("verdict")
        if verdict != self._verdict:
            self._verdict = verdict
            if verdict in ("success", "failure"):
                self.cue(verdict)
        wakes = [w for w in (now + 1.0 / self._parts.pins.fps if animating else None,
                             digit_wake) if w is not None]
        return min(wakes) if wakes else None

    def _levels(self, v: Mapping, timer: Mapping | None, remaining: float | None,
                running: bool, since_up: float | None) -> tuple[float, ...]:
        """The brightness of each LED of the hourglass, bottom first."""
        pins = self._parts.pins
        n = len(pins.hourglass)
        phase = v.get("phase")
        if since_up is not None and since_up < FLASH_SECONDS:
            return hourglass_levels(n, 0.0, 1.0, since_up=since_up)
        if running or phase == "timer":
            duration = timer.get("duration") if timer else None
            second = bool(timer and timer.get("run") == 2
                          and (v.get("easy") or timer.get("runs") == 2))
            return hourglass_levels(n, remaining, duration, pwm=pins.hourglass_pwm, dim=second)
        if phase == "bidding":
            return (1.0,) * n
        return (0.0,) * n

    def _track_run(self, timer: Mapping | None, remaining: float | None, running: bool,
                   gnow: float) -> bool:
        """Cue start / 10 s left / time up once per timer run; True while the bar animates."""
        if running and timer is not None:
            key = (timer.get("started_at"), timer.get("duration"))
            if self._run is None or self._run.key != key:
                started, duration = key
                end = None if started is None or duration is None else started + duration
                self._run = _Run(key, end, ten_armed=(remaining or 0) > BLINK_SECONDS)
                self.cue("start")
            run = self._run
            if remaining is not None and run.up_at is None:
                if run.ten_armed and not run.ten_done and 0 < remaining <= BLINK_SECONDS:
                    run.ten_done = True
                    self.cue("ten")
                if remaining <= 0:
                    self._time_up(run, gnow)
            return True
        run = self._run
        if run is not None and run.up_at is None and remaining is not None and remaining <= 0:
            self._time_up(run, gnow)  # the table stopped the timer at time up
        return False

    def _time_up(self, run: _Run, gnow: float) -> None:
        run.up_at = run.end if run.end is not None else gnow
        self.cue("time_up")

    def _write_bar(self, levels: Sequence[float]) -> None:
        devices = self._parts.devices
        if "hourglass" not in devices:
            return
        last = self._cache.get("bar")
        if last == tuple(levels):
            return

        def write() -> None:
            bar = devices["hourglass"]
            for i, level in enumerate(levels):
                if last is None or last[i] != level:
                    bar[i].value = level

        self._parts.safe("hourglass", write)
        self._cache["bar"] = tuple(levels)

    def _render_leds(self, v: Mapping, phase: Any) -> None:
        devices, pins = self._parts.devices, self._parts.pins
        if "player_leds" not in devices:
            return
        seat = None
        if phase == "demonstrating":
            seat = v.get("demonstrating")
        elif phase in ("bidding", "timer"):
            seat = v.get("leader")
        n = len(pins.player_leds.pins) if pins.player_leds else 0
        states = tuple(1 if i == seat else 0 for i in range(n))
        if self._cache.get("leds") != states:
            self._parts.safe("player_leds",
                             lambda: setattr(devices["player_leds"], "value", states))
            self._cache["leds"] = states

    def _render_display(self, v: Mapping, phase: Any, now: float,
                        dial: int | None) -> float | None:
        devices = self._parts.devices
        if "display" not in devices:
            return None
        number: int | None
        if dial is not None:
            number = dial
        elif phase in ("bidding", "timer", "demonstrating") and v.get("bid_to_meet") is not None:
            number = int(v["bid_to_meet"])
        else:
            number = None
            leader = v.get("leader")
            if phase in ("bidding", "timer") and leader is not None:
                for player in v.get("players") or ():
                    if player.get("seat") == leader and player.get("bid") is not None:
                        number = int(player["bid"])
        if number != self._shown_number:
            self._shown_number, self._number_since = number, now
        elapsed = now - self._number_since
        char = digit_at(number, elapsed)
        if self._cache.get("digit") != char:
            self._parts.safe("display", lambda: setattr(devices["display"], "value", char))
            self._cache["digit"] = char
        if number is None or number < 10:
            return None
        return self._number_since + (int(elapsed / DIGIT_SECONDS) + 1) * DIGIT_SECONDS

    # -- sound

    def cue(self, name: str) -> None:
        bz = self._parts.pins.buzzer
        if bz is None or "buzzer" not in self._parts.devices or name not in CUES[bz.sound]:
            return
        self._tune_token += 1
        self.tune_step(self._tune_token, (name, 0))

    def tune_step(self, token: int, arg: tuple[str, int]) -> None:
        if token != self._tune_token:
            return  # a newer cue took over
        name, step = arg
        tune = TUNES[name]
        device = self._parts.devices.get("buzzer")
        if device is None:
            return
        if step >= len(tune):
            self._parts.safe("buzzer", device.stop if hasattr(device, "stop") else device.off)
            return
        note, seconds = tune[step]
        tonal = bool(self._parts.pins.buzzer and self._parts.pins.buzzer.kind == "tonal")

        def play() -> None:
            if tonal:
                device.stop() if note is None else device.play(note)
            else:
                device.off() if note is None else device.on()

        self._parts.safe("buzzer", play)
        self._parts.at(time.monotonic() + seconds, "tune", (name, step + 1), token)


class Hardware:
    """The table's buttons, dial, LEDs and buzzer, built from a :class:`PinMap`.

    Parameters: ``pins`` the pin map (or a path to a pins.toml, or None for the default);
    ``submit(command)`` receives every command, from one thread, in order; ``clock`` is the
    game's monotonic clock that the view's ``timer.started_at`` is measured on; ``report``
    receives each device problem once (default: a logged warning); ``pin_factory`` as in
    gpiozero (a ``MockFactory(pin_class=MockPWMPin)`` off the Pi).

    Input timing (debounce, hold, tap window) runs on real time; only the view's timer uses
    ``clock``. One background thread owns all button state; it sleeps unless an edge, a timer or
    a running hourglass (``fps`` frames a second) needs it. The inputs are its
    :class:`Buttons`, the outputs its :class:`Lights`.
    """

    def __init__(self, pins: PinMap | str | Path | None, submit: Callable[[dict], Any], *,
                 clock: Callable[[], float] = time.monotonic,
                 report: Callable[[str], Any] | None = None, pin_factory: Any = None) -> None:
        self.pins = pins if isinstance(pins, PinMap) else PinMap.load(pins)
        self._parts = _Parts(self.pins, submit, report or log.warning)
        self.problems = self._parts.problems
        self.devices = self._parts.devices
        self._cond = threading.Condition()
        self._inbox: list[tuple[float, tuple, Any]] = []
        self._waiters: list[threading.Event] = []
        self._view: Mapping[str, Any] | None = None
        self._dirty = True
        self._closing = False
        self._closed = False
        self._frame_due: float | None = None
        self.buttons = Buttons(self._parts, self._redraw)
        self.lights = Lights(self._parts, clock)
        self._parts.factory = self._resolve_factory(pin_factory)
        if self._parts.factory is not None:
            self.lights.build_hourglass()
            self.buttons.build(self._edge)
            self.lights.build()
        self._thread = threading.Thread(target=self._work, name="gpio", daemon=True)
        self._thread.start()

    def _resolve_factory(self, pin_factory: Any) -> Any:
        if pin_factory is not None:
            return pin_factory
        from gpiozero import Device

        from .pinfactory import PinFactoryError, pin_factory

        try:  # the header's chip found by its label (gpiozero guesses it from the model)
            factory = pin_factory()
        except PinFactoryError as e:
            self._parts.report("factory", f"no GPIO: {e}; running without buttons and LEDs")
            return None
        if factory is not None:
            return factory
        try:
            Device.ensure_pin_factory()
        except Exception as e:  # no GPIO library or not a Pi: run without hardware
            self._parts.report("factory",
                               f"no GPIO here ({e}); running without buttons and LEDs")
            return None
        return Device.pin_factory

    # -- public interface

    def show(self, view: Mapping[str, Any] | None) -> None:
        """Render the game's view (cheap, any thread; the dict must not be mutated later)."""
        with self._cond:
            self._view = view
            self._dirty = True
            self._cond.notify()

    @property
    def dial(self) -> int:
        """The number the dial is on (0 without a dial)."""
        return self.buttons.dial

    def pin(self, name: str, index: int | None = None) -> Any:
        """The gpiozero pin of a named input or output, e.g. ``pin("bid", 2)``, ``pin("start")``.

        Names: ``start``, ``bid`` (index = seat), ``dial_a``, ``dial_b``, ``dial_push``,
        ``hourglass`` (index = LED, bottom 0), ``buzzer``, ``display`` (index = line),
        ``player_led`` (index = seat). On a MockFactory, ``drive_low()`` presses a button.
        """
        try:
            found = self.buttons.pin(name, index)
            if found is None:
                found = self.lights.pin(name, index)
        except (KeyError, IndexError, TypeError):
            raise KeyError(f"no working {name}{'' if index is None else f'[{index}]'} "
                           "on this table") from None
        if found is None:
            raise KeyError(f"unknown pin name {name!r}")
        return found

    def press(self, name: str, index: int | None = None) -> None:
        """Press a button on a mock factory (the simulated table's virtual buttons)."""
        self.pin(name, index).drive_low()

    def release(self, name: str, index: int | None = None) -> None:
        """Release a button on a mock factory."""
        self.pin(name, index).drive_high()

    def turn(self, steps: int) -> None:
        """Turn the mock dial ``steps`` detents (negative: counter-clockwise)."""
        a, b = self.pin("dial_a"), self.pin("dial_b")
        first, second = (a, b) if steps > 0 else (b, a)
        for _ in range(abs(steps)):
            first.drive_low()
            second.drive_low()
            first.drive_high()
            second.drive_high()

    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every edge so far is handled, every pending debounce check and tap window
        has closed and the latest view is rendered; False on timeout. For tests and the bench."""
        return self._wait(timeout, redraw=False)

    def refresh(self, timeout: float = 5.0) -> bool:
        """Render the current view at ``clock()`` now and wait for it (tests move a fake clock
        and look at the LEDs); also settles pending input like :meth:`sync`."""
        return self._wait(timeout, redraw=True)

    def _wait(self, timeout: float, redraw: bool) -> bool:
        event = threading.Event()
        with self._cond:
            if self._closed:
                return True
            if redraw:
                self._dirty = True
            self._waiters.append(event)
            self._cond.notify()
        return event.wait(timeout)

    def status(self) -> dict[str, str]:
        """Each configured device and whether it works: ``ok``, ``missing`` or ``failed``."""
        names = ["hourglass", "start"] + [f"bid[{i}]" for i in range(len(self.pins.bids))]
        optional = {"dial": self.pins.dial, "push": self.pins.dial and self.pins.dial.push,
                    "buzzer": self.pins.buzzer, "display": self.pins.display,
                    "player_leds": self.pins.player_leds}
        names += [n for n, fitted in optional.items() if fitted is not None]
        out = {}
        for n in names:
            if n in self.devices:
                out[n] = "ok"
            else:
                out[n] = "failed" if n in self._parts.reported else "missing"
        return out

    def close(self) -> None:
        """Stop the thread and release every pin; harmless to call twice."""
        with self._cond:
            if self._closed:
                return
            self._closing = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        with self._cond:
            self._closed = True
            waiters, self._waiters = self._waiters, []
        for event in waiters:
            event.set()
        for name, device in list(self.devices.items()):
            try:
                device.close()
            except Exception as e:  # closing must not stop closing the rest
                self._parts.report(f"close:{name}", f"{name}: failed to close ({e})")
        self.devices.clear()

    def __enter__(self) -> Hardware:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the worker thread

    def _edge(self, key: tuple, level: Any) -> None:
        # Called from gpiozero's callback threads: stamp, queue, return. The stamp is taken
        # under the lock so the queue is in time order even for simultaneous presses.
        with self._cond:
            self._inbox.append((time.monotonic(), key, level))
            self._cond.notify()

    def _redraw(self) -> None:
        with self._cond:
            self._dirty = True

    def _quiet(self) -> bool:
        return not self._inbox and not self._parts.settling()

    def _work(self) -> None:
        while True:
            with self._cond:
                if not self._sleep():
                    return
                batch, self._inbox = self._inbox, []
                dirty, self._dirty = self._dirty, False
                view = self._view
            for t, key, level in batch:
                self._guard(self.buttons.handle, t, key, level, view)
            self._guard(self._run_timers, view)
            now = time.monotonic()
            if dirty or (self._frame_due is not None and now >= self._frame_due):
                self._guard(self._render, view, now)
            with self._cond:
                if self._waiters and self._quiet() and not self._dirty:
                    waiters, self._waiters = self._waiters, []
                else:
                    waiters = []
            for event in waiters:
                event.set()

    def _sleep(self) -> bool:
        """Wait (holding the lock) until there is work; False when closing."""
        while True:
            if self._closing:
                return False
            if self._inbox or self._dirty:
                return True
            if self._waiters and self._quiet():
                return True
            now = time.monotonic()
            wake = [t for t in (self._parts.next_timer(), self._frame_due) if t is not None]
            if wake and min(wake) <= now:
                return True
            self._cond.wait(min(wake) - now if wake else None)

    def _guard(self, step: Callable[..., Any], *args: Any) -> None:
        """Run one step of the worker; an error is reported, and the next step still runs."""
        try:
            step(*args)
        except Exception as e:  # never let one bad view or edge stop the buttons
            if self._parts.report(f"worker:{type(e).__name__}", f"hardware thread error: {e!r}"):
                log.exception("hardware thread error")

    def _run_timers(self, view: Mapping | None) -> None:
        for kind, arg, token in self._parts.due(time.monotonic()):
            if kind == "tune":
                self.lights.tune_step(token, arg)
            else:
                self.buttons.timer(kind, arg, token, view)

    def _render(self, view: Mapping | None, now: float) -> None:
        dial = self.buttons.dial if "dial" in self.devices else None
        self._frame_due = self.lights.render(view, now, dial)


__all__ = [
    "BCD_FONT", "DEFAULT_PINS", "PHASES", "SOUND_LEVELS", "Buttons", "BuzzerPins", "DialPins",
    "DisplayPins", "Hardware", "LedPins", "Lights", "PinMap", "PinMapError", "digit_at",
    "hourglass_levels", "timer_remaining",
]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.gpio [PINS.toml]``: check a pin map and list what each pin drives."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print("usage: python -m companion.gpio [PINS.toml]", file=sys.stderr)
        return 2
    try:
        pins = PinMap.load(args[0] if args else None)
    except PinMapError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    used = pins.assignments()
    for gpio in sorted(used):
        print(f"GPIO{gpio:<3} {used[gpio]}")
    free = sorted(HEADER_GPIOS - used.keys())
    print(f"{len(used)} pins in use; free: {', '.join(f'GPIO{p}' for p in free) or 'none'}")
    return 0


def read_pinmap(path: str | Path, option: str = "--pins") -> PinMap:
    """A pin map (``hardware/pins.toml``); :class:`~companion.inputs.InputError` names the
    option and the file."""
    from .inputs import InputError, about, parse_toml, read_text

    text = read_text(path, option)
    with about(option, path, "pin map"):
        data = parse_toml(text)
        try:
            return PinMap.from_dict(data, source=str(path))
        except PinMapError as e:  # its messages begin with the file already
            raise InputError(f"{option} {e}") from None


if __name__ == "__main__":
    raise SystemExit(main())
