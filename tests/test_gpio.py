"""The table's hardware on gpiozero's MockFactory: buttons pressed with drive_low(), results
waited for on the submit sink, LEDs read at chosen times of a fake game clock."""

from __future__ import annotations

import threading
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockPWMPin

from companion.gpio import (
    BCD_FONT,
    DEFAULT_PINS,
    FLASH_PERIOD,
    HEADER_GPIOS,
    DialPins,
    Hardware,
    PinMap,
    PinMapError,
    digit_at,
    hourglass_levels,
    main,
)
from companion.wiring import render_svg

# the full map (no HAT): a 10-LED hourglass and player LEDs, the devices these tests drive
FULL_PINS = DEFAULT_PINS.with_name("pins-full.toml")
AUDIO_AND_HAT_PINS = {0, 1, 12, 13, 18, 19, 20, 21}

START = 1000.0  # fake-clock time the timer starts at
WAIT = 5.0  # generous ceiling for events; tests finish long before it on a working build


class Sink:
    """The submit callable: records commands and wakes waiters."""

    def __init__(self) -> None:
        self.commands: list[dict] = []
        self._cond = threading.Condition()

    def __call__(self, command: dict) -> None:
        with self._cond:
            self.commands.append(command)
            self._cond.notify_all()

    def wait_for(self, n: int, timeout: float = WAIT) -> list[dict]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.commands) >= n, timeout), (
                f"expected {n} commands, got {self.commands}")
            return list(self.commands)

    def of(self, kind: str) -> list[dict]:
        with self._cond:
            return [c for c in self.commands if c["type"] == kind]


class FakeClock:
    def __init__(self, t: float = START) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def view(phase="bidding", *, mode="multi", running=False, duration=60.0, remaining=None,
         leader=None, demonstrating=None, verdict=None, easy=False, run=None, bids=None):
    timer = None
    if phase in ("timer", "demonstrating") or running:
        timer = {"running": running, "started_at": START, "duration": duration,
                 "remaining": duration if remaining is None else remaining}
        if run is not None:
            timer["run"] = run
    bids = bids or {}
    return {"phase": phase, "mode": mode, "timer": timer, "leader": leader,
            "demonstrating": demonstrating, "verdict": verdict, "easy": easy,
            "players": [{"seat": s, "name": f"p{s}", "chips": 0, "bid": bids.get(s)}
                        for s in range(4)]}


@pytest.fixture
def pins():
    return PinMap.load(FULL_PINS)


@pytest.fixture
def rig(factory, pins):
    """Build a Hardware on the mock factory; tests call rig(**pin-map changes)."""
    made = []

    def make(*, clock=None, report=None, **changes):
        sink = Sink()
        hw = Hardware(replace(pins, **changes), sink, clock=clock or FakeClock(),
                      report=report, pin_factory=factory)
        made.append(hw)
        hw.show(view("bidding"))
        assert hw.sync()
        return hw, sink

    yield make
    for hw in made:
        hw.close()


def bar(hw) -> list[float]:
    return [hw.pin("hourglass", i).state for i in range(len(hw.pins.hourglass))]


def at(hw, clock, t, v=None):
    clock.t = t
    if v is not None:
        hw.show(v)
    assert hw.refresh()
    return bar(hw)


def tap(hw, name, index=None):
    hw.press(name, index)
    hw.release(name, index)


# ---------------------------------------------------------------- the pin map


@pytest.mark.parametrize("path", [DEFAULT_PINS, FULL_PINS])
def test_the_pin_maps_fit_the_header_for_four_players(path):
    data = tomllib.loads(path.read_text())
    used: list[int] = []

    def collect(node):
        for key, value in node.items():
            if isinstance(value, dict):
                collect(value)
            elif key in ("pin", "a", "b", "push", "dp"):
                used.append(value)
            elif key == "pins":
                used.extend(value)

    collect(data)
    assert {"hourglass", "start", "bid", "dial", "buzzer", "display"} <= set(data)
    assert len(data["bid"]["pins"]) == 4
    if path == FULL_PINS:  # every device
        assert len(data["hourglass"]["pins"]) == 10 and len(data["player_leds"]["pins"]) == 4
    else:  # a sound HAT's pins stay free
        assert len(data["hourglass"]["pins"]) == 7
        assert not set(used) & AUDIO_AND_HAT_PINS
    assert all(isinstance(p, int) and p in HEADER_GPIOS for p in used), used
    duplicates = sorted({p for p in used if used.count(p) > 1})
    assert duplicates == [], f"pins used twice: {duplicates}"
    assert len(PinMap.load(path).assignments()) == len(used)


def test_pin_collision_is_rejected_naming_both_uses():
    data = tomllib.loads(DEFAULT_PINS.read_text())
    data["buzzer"]["pin"] = data["bid"]["pins"][2]
    with pytest.raises(PinMapError, match=r"GPIO15 is used twice: bid.pins\[2\] and buzzer.pin"):
        PinMap.from_dict(data)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["dial"].update(extra=1), "dial.extra: unknown key"),
    (lambda d: d["start"].update(pin=40), "start.pin: 40 is not a BCM GPIO number"),
    (lambda d: d["bid"].update(pins=list(range(2, 11))), "bid.pins: must be a list of 1..8"),
    (lambda d: d["buzzer"].update(sound="loud"), "buzzer.sound: must be one of none, some, all"),
    (lambda d: d["display"].update(pins=[23, 24, 25]), "display.pins: must be a list of 4"),
    (lambda d: d.pop("start"), r"\[start\]: missing section"),
    (lambda d: d["hourglass"].update(pins=[7, 5, "6"]), r"hourglass.pins\[2\]: '6' is not a BCM"),
])
def test_bad_pin_map_is_rejected_naming_the_key(change, message):
    data = tomllib.loads(DEFAULT_PINS.read_text())
    change(data)
    with pytest.raises(PinMapError, match=message):
        PinMap.from_dict(data, source="pins.toml")


def test_wiring_diagram_shows_every_pin_of_the_pin_map():
    svg = ET.parse(DEFAULT_PINS.parent / "wiring.svg").getroot()
    drawn = {int(g.get("data-gpio")): g.get("data-use") for g in svg.iter()
             if g.get("data-gpio") is not None}
    assert drawn == PinMap.load().assignments()
    # the diagram is the drawing of the pin map, made by companion.wiring
    assert (DEFAULT_PINS.parent / "wiring.svg").read_text() == render_svg(PinMap.load())
    full = ET.fromstring(render_svg(PinMap.load(FULL_PINS)))
    assert {int(g.get("data-gpio")) for g in full.iter() if g.get("data-gpio")} == \
        set(PinMap.load(FULL_PINS).assignments())


def test_the_diagram_wires_the_buttons_on_the_fixed_pull_ups_straight_to_the_switch():
    svg = render_svg(PinMap.load(FULL_PINS))
    for gpio in (2, 3):
        group = svg.split(f'data-gpio="{gpio}"', 1)[1].split("</g>", 1)[0]
        assert "no resistor" in group and "1 kΩ" not in group
    group = svg.split('data-gpio="4"', 1)[1].split("</g>", 1)[0]
    assert "1 kΩ → switch → GND" in group


def test_pin_map_check_lists_every_pin_and_rejects_a_bad_map(tmp_path, capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "GPIO10  buzzer.pin" in out
    assert "20 pins in use; free: GPIO0, GPIO1, GPIO12, GPIO13, GPIO18, GPIO19, GPIO20, " \
           "GPIO21" in out
    assert main([str(FULL_PINS)]) == 0
    assert "27 pins in use; free: GPIO1" in capsys.readouterr().out
    bad = tmp_path / "pins.toml"
    bad.write_text(DEFAULT_PINS.read_text().replace("pin = 10", "pin = 3"))
    assert main([str(bad)]) == 2
    assert "GPIO3 is used twice: start.pin and buzzer.pin" in capsys.readouterr().err


def test_optional_devices_can_be_left_out():
    data = tomllib.loads(FULL_PINS.read_text())
    for name in ("dial", "buzzer", "display", "player_leds"):
        del data[name]
    pins = PinMap.from_dict(data)
    assert pins.dial is None and pins.display is None
    assert len(pins.assignments()) == 10 + 1 + 4


# ---------------------------------------------------------------- the hourglass


def test_hourglass_is_full_at_the_start_and_half_the_bar_half_way(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    assert at(hw, clock, START, view("timer", running=True)) == [1.0] * 10
    half = at(hw, clock, START + 30.0)
    assert abs(sum(half) - 5.0) <= 1.0
    assert half[:4] == [1.0] * 4 and half[6:] == [0.0] * 4  # drains from the top


def test_hourglass_dims_the_partly_run_out_led(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    levels = at(hw, clock, START + 33.0, view("timer", running=True))  # 27 s of 60 left: 4.5
    assert levels[:4] == [1.0] * 4
    assert levels[4] == pytest.approx(0.5)
    assert levels[5:] == [0.0] * 5


def test_hourglass_without_pwm_keeps_the_partial_led_fully_on(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock, hourglass_pwm=False)
    levels = at(hw, clock, START + 33.0, view("timer", running=True))
    assert levels == [1.0] * 5 + [0.0] * 5


def test_hourglass_blinks_in_the_last_ten_seconds(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    hw.show(view("timer", running=True))
    assert sum(at(hw, clock, START + 60 - 11.2)) > 0  # not yet blinking: 11.2 s left
    assert sum(at(hw, clock, START + 60 - 11.4)) > 0
    lit = at(hw, clock, START + 60 - 5.4)  # 5.4 s left: lit half of the blink
    dark = at(hw, clock, START + 60 - 5.2)  # 5.2 s left: dark half
    assert sum(lit) == pytest.approx(5.4 / 60 * 10) and sum(dark) == 0.0


def test_hourglass_flashes_when_time_is_up_then_goes_dark(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    at(hw, clock, START + 50, view("timer", running=True))
    end = START + 60
    assert at(hw, clock, end + 0.05) == [1.0] * 10
    assert at(hw, clock, end + 0.05 + FLASH_PERIOD / 2) == [0.0] * 10
    # the table moves on to the demonstration: the flash keeps going, then stops
    stopped = view("demonstrating", demonstrating=1, remaining=0.0)
    assert at(hw, clock, end + 1.0 + 0.05, stopped) == [1.0] * 10
    assert at(hw, clock, end + 3.5) == [0.0] * 10


def test_hourglass_is_full_while_bidding_and_dark_when_idle(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    assert at(hw, clock, START, view("bidding")) == [1.0] * 10
    assert at(hw, clock, START, view("idle")) == [0.0] * 10


def test_hourglass_shows_a_stopped_timer_where_it_stopped(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    levels = at(hw, clock, START + 59, view("timer", running=False, remaining=30.0))
    assert levels == [1.0] * 5 + [0.0] * 5


def test_easy_solo_second_run_is_dimmed(rig):
    clock = FakeClock()
    hw, _ = rig(clock=clock)
    first = at(hw, clock, START, view("timer", mode="solo", easy=True, running=True, run=1))
    second = at(hw, clock, START, view("timer", mode="solo", easy=True, running=True, run=2))
    assert first == [1.0] * 10
    assert 0 < max(second) < 1.0 and all(s > 0 for s in second)


def test_hourglass_levels_bottom_first_and_bounded():
    assert hourglass_levels(10, 60.0, 60.0) == (1.0,) * 10
    assert hourglass_levels(10, 0.0, 60.0) == (0.0,) * 10
    assert hourglass_levels(4, 30.0, 60.0) == (1.0, 1.0, 0.0, 0.0)
    assert hourglass_levels(4, 90.0, 60.0) == (1.0,) * 4
    assert hourglass_levels(4, None, None) == (0.0,) * 4


# ---------------------------------------------------------------- dial and bids


def test_dial_counts_up_and_down_and_stops_at_zero(rig):
    hw, sink = rig()
    hw.turn(5)
    hw.turn(-2)
    assert hw.sync()
    assert [c["value"] for c in sink.of("dial")] == [1, 2, 3, 4, 5, 4, 3]
    hw.turn(-10)
    assert hw.sync()
    assert hw.dial == 0 and sink.of("dial")[-1] == {"type": "dial", "value": 0}
    assert len(sink.of("dial")) == 10  # no repeats while pinned at zero


def test_dial_stops_at_its_maximum(rig, pins):
    hw, _ = rig(dial=replace(pins.dial, max=3))
    hw.turn(7)
    assert hw.sync() and hw.dial == 3


def test_dial_push_resets_it(rig):
    hw, sink = rig()
    hw.turn(6)
    tap(hw, "dial_push")
    assert hw.sync()
    assert hw.dial == 0 and sink.of("dial")[-1]["value"] == 0


def test_button_press_bids_the_dialled_number_at_once(rig):
    hw, sink = rig()
    hw.turn(4)
    hw.press("bid", 2)
    assert sink.wait_for(5)[-1] == {"type": "bid", "seat": 2, "value": 4}
    hw.release("bid", 2)


def test_taps_within_the_window_bid_their_count_without_a_dial(rig):
    hw, sink = rig(dial=None, debounce=0.0, tap_window=0.2)
    for _ in range(3):
        tap(hw, "bid", 1)
    tap(hw, "bid", 3)
    assert hw.sync()
    assert sorted(sink.of("bid"), key=lambda c: c["seat"]) == [
        {"type": "bid", "seat": 1, "value": 3}, {"type": "bid", "seat": 3, "value": 1}]


def test_dial_at_zero_falls_back_to_tap_count(rig):
    hw, sink = rig(debounce=0.0, tap_window=0.2)
    tap(hw, "bid", 0)
    tap(hw, "bid", 0)
    assert hw.sync()
    assert sink.of("bid") == [{"type": "bid", "seat": 0, "value": 2}]


def test_display_shows_the_dialled_number_through_the_bcd_decoder(rig):
    hw, _ = rig()
    hw.turn(7)
    assert hw.refresh()
    lines = tuple(int(hw.pin("display", i).state) for i in range(4))
    assert lines == BCD_FONT["7"] == (1, 1, 1, 0)
    hw.turn(5)  # 12: spelled 1, 2, blank
    assert hw.refresh()
    assert tuple(int(hw.pin("display", i).state) for i in range(4)) == BCD_FONT["1"]


def test_display_without_a_dial_shows_the_leading_bid(rig):
    hw, _ = rig(dial=None)
    hw.show(view("timer", running=True, leader=1, bids={1: 7, 2: 9}))
    assert hw.refresh()
    assert tuple(int(hw.pin("display", i).state) for i in range(4)) == BCD_FONT["7"]
    hw.show(view("idle"))
    assert hw.refresh()
    assert tuple(int(hw.pin("display", i).state) for i in range(4)) == BCD_FONT[" "]


def test_numbers_from_ten_are_spelled_digit_by_digit():
    assert digit_at(7, 12.3) == "7"
    assert [digit_at(12, t) for t in (0.0, 0.6, 1.1, 1.6)] == ["1", "2", " ", "1"]
    assert digit_at(None, 0.0) == " "


# ---------------------------------------------------------------- start button


def test_start_tap_reveals_and_before_any_bid_starts_the_timer(rig):
    hw, sink = rig()
    hw.show(view("idle"))
    tap(hw, "start")
    assert sink.wait_for(1) == [{"type": "reveal"}]
    hw.show(view("bidding"))
    assert hw.sync()
    tap(hw, "start")
    assert sink.wait_for(2)[-1] == {"type": "start_timer"}


def test_start_tap_in_solo_reveals_the_next_chip_which_starts_the_timer(rig):
    hw, sink = rig()
    hw.show(view("round_over", mode="solo"))
    assert hw.sync()
    tap(hw, "start")
    assert sink.wait_for(1) == [{"type": "reveal"}]


def test_holding_start_undoes_and_does_not_reveal(rig):
    hw, sink = rig(hold_seconds=0.15)
    hw.press("start")
    assert sink.wait_for(1) == [{"type": "undo"}]
    hw.release("start")
    assert hw.sync()
    assert sink.commands == [{"type": "undo"}]


def test_demonstrators_button_means_done_and_held_gives_up(rig):
    hw, sink = rig(hold_seconds=0.15)
    hw.turn(3)
    hw.show(view("demonstrating", demonstrating=2))
    assert hw.sync()
    before = len(sink.commands)
    tap(hw, "bid", 2)
    assert sink.wait_for(before + 1)[-1] == {"type": "done", "seat": 2}
    assert hw.sync()
    hw.press("bid", 2)
    assert sink.wait_for(before + 2)[-1] == {"type": "give_up", "seat": 2}
    hw.release("bid", 2)
    assert hw.sync()
    assert len(sink.commands) == before + 2


# ---------------------------------------------------------------- bounce, load, order


def test_bouncing_button_is_counted_once(rig):
    hw, sink = rig(debounce=0.03)
    hw.turn(2)
    pin = hw.pin("bid", 1)
    for _ in range(4):  # contacts chatter on the way down...
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    assert hw.sync()
    for _ in range(3):  # ...and on the way up
        pin.drive_high()
        pin.drive_low()
    pin.drive_high()
    assert hw.sync()
    assert sink.of("bid") == [{"type": "bid", "seat": 1, "value": 2}]


def test_tap_shorter_than_the_debounce_still_registers_and_releases(rig):
    hw, sink = rig(debounce=0.03)
    hw.show(view("idle"))
    assert hw.sync()
    tap(hw, "start")  # press and release within microseconds
    assert hw.sync()
    assert sink.commands == [{"type": "reveal"}]
    time.sleep(0.03)  # a finger's pause before the next tap, past the lockout
    tap(hw, "start")  # only counts if the first release was taken
    assert sink.wait_for(2) == [{"type": "reveal"}] * 2


def test_presses_are_recorded_in_the_order_they_happened(rig):
    hw, sink = rig()
    hw.turn(5)
    hw.press("bid", 3)
    hw.press("bid", 1)
    hw.press("bid", 0)
    bids = [c for c in sink.wait_for(8) if c["type"] == "bid"]
    assert [b["seat"] for b in bids] == [3, 1, 0]


def test_two_players_pressing_at_the_same_instant_are_both_recorded(rig):
    hw, sink = rig(debounce=0.0)
    hw.turn(6)
    rounds = 25
    barrier = threading.Barrier(2)

    def player(seat):
        for _ in range(rounds):
            barrier.wait()
            hw.press("bid", seat)
            barrier.wait()
            hw.release("bid", seat)

    threads = [threading.Thread(target=player, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert hw.sync()
    bids = sink.of("bid")
    assert len(bids) == 2 * rounds
    for i in range(rounds):  # each instant gives one bid from each seat, never merged
        assert sorted(b["seat"] for b in bids[2 * i:2 * i + 2]) == [0, 1]


def test_no_press_lost_or_doubled_under_load(rig):
    hw, sink = rig(debounce=0.0)
    hw.turn(1)
    presses = 150

    def hammer(seat):
        for _ in range(presses):
            tap(hw, "bid", seat)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 4)
    assert hw.sync()
    counts = [sum(1 for b in sink.of("bid") if b["seat"] == s) for s in range(4)]
    assert counts == [presses] * 4


# ---------------------------------------------------------------- leds, buzzer


def test_player_leds_show_the_leader_then_the_demonstrator(rig):
    hw, _ = rig()

    def leds():
        assert hw.refresh()
        return [int(hw.pin("player_led", s).state) for s in range(4)]

    hw.show(view("timer", running=True, leader=2))
    assert leds() == [0, 0, 1, 0]
    hw.show(view("demonstrating", leader=2, demonstrating=3))
    assert leds() == [0, 0, 0, 1]
    hw.show(view("round_over", verdict="success"))
    assert leds() == [0, 0, 0, 0]


def test_buzzer_sounds_the_timer_start_and_the_verdict(rig):
    hw, _ = rig()
    buzzer = hw.pin("buzzer")
    buzzer.clear_states()
    hw.show(view("timer", running=True))
    assert hw.refresh()
    assert any(s.state == 0.5 for s in buzzer.states)  # a tone is playing (50 % duty)
    buzzer.clear_states()
    hw.show(view("round_over", verdict="failure"))
    assert hw.refresh()
    assert any(s.state == 0.5 for s in buzzer.states)


class RecordingPin(MockPWMPin):
    """A PWM pin that keeps every frequency it was set to (the notes a buzzer played)."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.notes: list[float] = []

    def _set_frequency(self, value):
        super()._set_frequency(value)
        if value is not None:
            self.notes.append(round(value))


def test_buzzer_cues_start_ten_seconds_left_and_time_up_once_each(factory, pins):
    buzzer = factory.pin(pins.buzzer.pin, pin_class=RecordingPin)
    clock = FakeClock()
    with Hardware(pins, Sink(), clock=clock, pin_factory=factory) as hw:
        hw.show(view("timer", running=True))
        for t in (0.0, 20.0, 50.2, 50.4, 55.0, 60.0, 60.1, 61.0):
            clock.t = START + t
            assert hw.refresh()
    # A5 = 880 Hz on start, E5 = 659 Hz at 10 s left, A4 = 440 Hz at time up; a newer cue
    # may cut the one before short (the fake clock runs faster than the tunes)
    notes = [n for n in buzzer.notes if n in (880, 659, 440)]
    assert notes[0] == 880 and notes[-1] == 440
    assert notes.count(880) == 1 and notes.count(440) == 1 and 659 in notes


def test_sound_level_none_keeps_the_buzzer_silent(rig, pins):
    hw, _ = rig(buzzer=replace(pins.buzzer, sound="none"))
    buzzer = hw.pin("buzzer")
    buzzer.clear_states()
    hw.show(view("timer", running=True))
    hw.show(view("round_over", verdict="success"))
    assert hw.refresh()
    assert all(s.state == 0 for s in buzzer.states)


def test_sound_level_some_skips_the_verdict(rig, pins):
    hw, _ = rig(buzzer=replace(pins.buzzer, sound="some"))
    buzzer = hw.pin("buzzer")
    buzzer.clear_states()
    hw.show(view("round_over", verdict="success"))
    assert hw.refresh()
    assert all(s.state == 0 for s in buzzer.states)


# ---------------------------------------------------------------- failures, lifecycle


def test_device_that_cannot_be_set_up_is_reported_once_and_the_rest_works(factory, pins):
    squatter = LED(pins.buzzer.pin, pin_factory=factory)  # something else holds the pin
    reports: list[str] = []
    sink = Sink()
    with Hardware(pins, sink, clock=FakeClock(), report=reports.append,
                  pin_factory=factory) as hw:
        hw.show(view("timer", running=True))
        hw.show(view("round_over", verdict="success"))
        hw.turn(2)
        hw.press("bid", 0)
        assert sink.wait_for(3)[-1] == {"type": "bid", "seat": 0, "value": 2}
        assert len(reports) == 1 and reports[0].startswith("buzzer: could not be set up")
        assert hw.status()["buzzer"] == "failed" and hw.status()["hourglass"] == "ok"
    squatter.close()


class FailingPin(MockPWMPin):
    """A pin that breaks (as a loose wire to an I/O expander would) once armed."""

    armed = False

    def _set_state(self, value):
        if self.armed:
            raise OSError("I/O error")
        super()._set_state(value)


def test_device_failing_at_run_time_is_reported_once_and_the_rest_works(factory, pins):
    broken = factory.pin(pins.player_leds.pins[1], pin_class=FailingPin)
    reports: list[str] = []
    sink = Sink()
    clock = FakeClock()
    with Hardware(pins, sink, clock=clock, report=reports.append, pin_factory=factory) as hw:
        broken.armed = True
        for seat in (1, 2, 1, 3):
            hw.show(view("timer", running=True, leader=seat))
            clock.t += 5
            assert hw.refresh()
        assert len(reports) == 1 and reports[0].startswith("player_leds: failed")
        assert sum(bar(hw)) == pytest.approx((60 - 20) / 60 * 10)  # the bar still drains
        tap(hw, "start")
        assert sink.wait_for(1)[-1] == {"type": "reveal"}


def test_failing_submit_is_reported_and_buttons_keep_working(factory, pins):
    reports: list[str] = []
    got = Sink()

    def submit(command):
        got(command)
        raise RuntimeError("table gone")

    with Hardware(replace(pins, dial=None), submit, report=reports.append,
                  pin_factory=factory) as hw:
        tap(hw, "start")
        got.wait_for(1)
        assert hw.sync()
        tap(hw, "start")
        got.wait_for(2)
    assert len(reports) == 1 and "table gone" in reports[0]


def test_malformed_view_is_reported_once_and_buttons_keep_working(factory, pins):
    reports: list[str] = []
    sink = Sink()
    with Hardware(pins, sink, report=reports.append, pin_factory=factory) as hw:
        broken = {"phase": "timer", "timer": {"running": True, "started_at": "soon",
                                              "duration": 60}}
        for _ in range(3):
            hw.show(broken)
            assert hw.refresh()
        hw.turn(2)
        hw.press("bid", 3)
        assert sink.wait_for(3)[-1] == {"type": "bid", "seat": 3, "value": 2}
    assert len(reports) == 1 and "hardware thread error" in reports[0]


def test_close_twice_is_harmless_and_releases_the_pins(factory, pins):
    hw = Hardware(pins, Sink(), pin_factory=factory)
    hw.close()
    hw.close()
    again = Hardware(pins, Sink(), pin_factory=factory)  # the pins are free again
    with again:
        assert again.status()["start"] == "ok"


def test_pin_lookup_names_what_is_missing(rig):
    hw, _ = rig(dial=None)
    with pytest.raises(KeyError, match="no working dial_a"):
        hw.pin("dial_a")
    with pytest.raises(KeyError, match="unknown pin name 'knob'"):
        hw.pin("knob")


def test_dial_pins_reach_the_encoder(rig):
    hw, _ = rig(dial=DialPins(a=17, b=27, push=None, max=9))
    assert hw.pin("dial_a").info.name == "GPIO17"
    with pytest.raises(KeyError):
        hw.pin("dial_push")
