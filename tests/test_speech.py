"""The table speaks: every announcement in every language rendered by espeak-ng to a WAV file
(non-silent, under 3 s), the voice never holding up the table's loop, and the table's events
becoming announcements in the table's language."""

from __future__ import annotations

import stat
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from conftest import make_table, set_up, wait_state
from hypothesis import given
from hypothesis import strategies as st

from companion import i18n, speech

ESPEAK = speech.espeak()
needs_espeak = pytest.mark.skipif(ESPEAK is None,
                                  reason="needs espeak-ng (apt install espeak-ng)")
SAMPLES = {"chip": {"chip": "green hexagon"}, "bid": {"name": "Anna", "n": 6},
           "hourglass": {"seconds": 90}, "ten_seconds": {}, "time_up": {},
           "demonstrator": {"name": "Ben", "n": 6},
           "verdict": {"name": "Ben", "success": True}, "winner": {"names": ["Anna", "Ben"]},
           # the camera's question, asked aloud in the table's language
           "message": {"message": i18n.Message("verify.question", seen=i18n.Message(
               "verify.seen", robot=i18n.color("blue"), cell="k10"))}}


def test_the_camera_question_is_said_in_the_tables_language():
    said = {lang: speech.phrase(lang, "message", **SAMPLES["message"]) for lang in i18n.LANGUAGES}
    assert said == {"en": "blue seen on k10 — is that right?",
                    "de": "blau auf k10 gesehen — stimmt das?",
                    "fr": "bleu vu en k10 — est-ce exact ?"}


@pytest.mark.parametrize(("lang", "seconds", "said"), [
    ("en", 600, "Hourglass: 10 minutes"),
    ("de", 600, "Sanduhr: 10 Minuten"),
    ("fr", 600, "Sablier : 10 minutes"),
    ("en", 60, "Hourglass: 1 minute"),
    ("de", 90, "Sanduhr: 1 Minute 30"),
    ("fr", 61, "Sablier : 1 minute 1"),
    ("en", 38, "Hourglass: 38 seconds"),
    ("de", 0.4, "Sanduhr: 1 Sekunde"),
])
def test_the_hourglass_time_is_said_in_minutes_not_hundreds_of_seconds(lang, seconds, said):
    assert speech.phrase(lang, "hourglass", seconds=seconds) == said


def read_wav(path: Path) -> tuple[np.ndarray, float]:
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float)
        return frames, w.getnframes() / w.getframerate()


@needs_espeak
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("kind", speech.KINDS)
def test_each_announcement_in_each_language_is_short_and_not_silence(tmp_path, lang, kind):
    words = speech.phrase(lang, kind, **SAMPLES[kind])
    samples, seconds = read_wav(speech.render(words, lang, tmp_path / "said.wav"))
    assert 0.3 < seconds < 3.0, f"{lang} {kind}: {words!r} takes {seconds:.2f} s"
    rms = float(np.sqrt(np.mean(samples ** 2)))
    assert rms > 300, f"{lang} {kind}: {words!r} is near silence (rms {rms:.0f})"
    # speech, not a tone: loud and quiet stretches alternate
    chunks = samples[: len(samples) // 400 * 400].reshape(-1, 400)
    loud = np.sqrt(np.mean(chunks ** 2, axis=1)) > rms / 2
    assert 0.15 < loud.mean() < 0.95


@needs_espeak
def test_the_volume_setting_makes_it_quieter(tmp_path):
    words = speech.phrase("de", "time_up")
    loud, _ = read_wav(speech.render(words, "de", tmp_path / "loud.wav", volume=100))
    soft, _ = read_wav(speech.render(words, "de", tmp_path / "soft.wav", volume=20))
    assert np.sqrt(np.mean(soft ** 2)) < 0.5 * np.sqrt(np.mean(loud ** 2))


def fake_espeak(tmp_path: Path, delay: float = 0.0) -> tuple[str, Path]:
    """A stand-in for the espeak-ng program: logs its command line, takes ``delay`` seconds."""
    log = tmp_path / "spoken.log"
    prog = tmp_path / "espeak-ng"
    prog.write_text(f'#!/bin/sh\nsleep {delay}\nprintf "%s\\n" "$*" >> "{log}"\n')
    prog.chmod(prog.stat().st_mode | stat.S_IEXEC)
    return str(prog), log


def spoken(log: Path, count: int, timeout: float = 10.0) -> list[str]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= count:
            return lines
        time.sleep(0.05)
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.slow
def test_announcing_never_waits_for_the_speaking(tmp_path):
    prog, log = fake_espeak(tmp_path, delay=0.5)
    voice = speech.Voice("fr", program=prog)
    t0 = time.monotonic()
    for n in range(10, 0, -1):
        voice.announce("bid", name="Anna", n=n)
    assert time.monotonic() - t0 < 0.2  # ten announcements queued while one is spoken
    lines = spoken(log, 2)
    # a backlog is cut to the newest: what is said is never far behind the table
    time.sleep(0.5 * (speech.BACKLOG + 1) + 0.3)
    lines = log.read_text().splitlines()
    assert len(lines) <= speech.BACKLOG + 1
    assert lines[-1].endswith("Anna annonce 1")
    assert "-v fr-fr" in lines[-1]
    voice.close()


def test_without_espeak_the_voice_is_silent_and_says_so(tmp_path):
    voice = speech.Voice("de", program="")
    assert not voice.available and voice.status()["available"] is False
    assert voice.announce("time_up") == "Die Sanduhr ist abgelaufen"
    assert voice._thread is None  # nothing to speak with: nothing started


def test_off_says_nothing(tmp_path):
    prog, log = fake_espeak(tmp_path)
    voice = speech.Voice("en", program=prog, on=False)
    voice.announce("time_up")
    voice.configure(on=True, volume=40)
    voice.announce("ten_seconds")
    lines = spoken(log, 1)
    assert len(lines) == 1 and lines[0].endswith("Ten seconds left") and "-a 80" in lines[0]


@given(st.one_of(st.integers(-50, 300), st.floats(allow_nan=True), st.booleans(), st.text()))
def test_a_bad_volume_is_a_clear_error(value):
    voice = speech.Voice("en", program="")
    try:
        voice.configure(volume=value)
    except ValueError as e:
        assert str(e).startswith("volume: a number from 0 to 100")
    else:
        assert isinstance(value, int | float) and 0 <= value <= 100


def test_only_a_new_lowest_bid_is_said():
    a = speech.Announcer()
    said = a.events([{"type": "chip_revealed", "chip": "red circle"},
                     {"type": "bid", "name": "Anna", "value": 9},
                     {"type": "timer_started", "reason": "first_bid", "duration": 600.0},
                     {"type": "bid", "name": "Ben", "value": 9},
                     {"type": "bid", "name": "Ben", "value": 7},
                     {"type": "bid", "name": "Anna", "value": 8},
                     {"type": "timer_ended"},
                     {"type": "demonstration_started", "name": "Ben", "bid": 7},
                     {"type": "demonstration_failed", "name": "Ben"},
                     {"type": "game_over", "names": ["Anna"]}])
    assert said == [("chip", {"chip": "red circle"}), ("bid", {"name": "Anna", "n": 9}),
                    ("hourglass", {"seconds": 600.0}), ("bid", {"name": "Ben", "n": 7}),
                    ("time_up", {}),
                    ("demonstrator", {"name": "Ben", "n": 7}),
                    ("verdict", {"name": "Ben", "success": False}),
                    ("winner", {"names": ["Anna"]})]
    # a new chip starts a new round of bids
    assert a.events([{"type": "chip_revealed", "chip": "vortex"},
                     {"type": "bid", "name": "Cleo", "value": 12}])[1] == \
        ("bid", {"name": "Cleo", "n": 12})


def test_micro_robots_calls_verdicts_and_winners_are_said():
    a = speech.Announcer()
    assert a.events([{"type": "demonstration_started", "name": "Cleo", "number": 5},
                     {"type": "demonstration_succeeded", "name": "Cleo", "number": 5},
                     {"type": "game_over", "names": ["Cleo", "Anna"]}]) == [
        ("demonstrator", {"name": "Cleo", "n": 5}), ("verdict", {"name": "Cleo", "success": True}),
        ("winner", {"names": ["Cleo", "Anna"]})]
    assert speech.phrase("fr", "winner", names=["Cleo", "Anna"]) == "Cleo et Anna gagnent la partie"


def test_ten_seconds_is_said_once_per_run_and_never_for_a_short_hourglass():
    a = speech.Announcer()
    running = {"running": True, "duration": 60}
    assert a.clock({**running, "remaining": 30}, (1, 1)) == []
    assert a.clock({**running, "remaining": 9.8}, (1, 1)) == [("ten_seconds", {})]
    assert a.clock({**running, "remaining": 9.3}, (1, 1)) == []
    assert a.clock({**running, "remaining": 9.5}, (2, 1)) == [("ten_seconds", {})]
    assert a.clock({"running": True, "duration": 8, "remaining": 7.9}, (3, 1)) == []
    assert a.clock({"running": False, "duration": 60, "remaining": 9}, (4, 1)) == []


@pytest.mark.slow
def test_the_table_says_its_round_in_its_language(tmp_path):
    prog, log = fake_espeak(tmp_path)
    table = make_table(tmp_path)
    table.speaker.attach_voice(speech.Voice(program=prog))
    table.start()
    try:
        table.speaker.set_language("de")
        set_up(table, timer=10.6, players=("Anna", "Ben"))
        assert table.submit({"type": "reveal"}).ok
        chip = table.view()["target"]
        assert table.submit({"type": "bid", "seat": 0, "value": 30}).ok
        assert table.submit({"type": "bid", "seat": 1, "value": 31}).ok  # not lower: not said
        assert table.submit({"type": "bid", "seat": 1, "value": 29}).ok
        lines = spoken(log, 5)
        words = [line.split(" -- ", 1)[1] for line in lines]
        name = i18n.chip_name("de", "vortex" if chip["shape"] == "vortex"
                              else f"{chip['color']} {chip['shape']}")
        # the hourglass's time said as the hourglass shows it, in whole seconds
        assert words[:5] == [f"Zielchip: {name}", "Anna bietet 30",
                             "Sanduhr: 11 Sekunden", "Ben bietet 29",
                             "Noch zehn Sekunden"]
        assert all("-v de" in line for line in lines)
        state = wait_state(table, lambda s: s["phase"] == "demonstrating")
        assert state["lang"] == "de" and state["voice"]["on"] is True
        words = [line.split(" -- ", 1)[1] for line in spoken(log, 7)]
        assert words[5:7] == ["Die Sanduhr ist abgelaufen", "Ben, zeig deine 29 Züge"]
    finally:
        table.stop()
    # the language and the voice's settings are kept beside the journal
    again = make_table(tmp_path)
    assert again.speaker.language == "de" and again.view()["lang"] == "de"


def test_a_bad_language_is_refused_and_changes_nothing(tmp_path):
    table = make_table(tmp_path, sim=False)
    with pytest.raises(ValueError, match="language: one of en, de, fr"):
        table.speaker.set_language("xx")
    assert table.speaker.language == "en"


def test_the_ci_and_the_pi_install_espeak_ng():
    root = Path(__file__).resolve().parents[1]
    for script in (root / ".ci" / "run", root / "hardware" / "install-pi.sh"):
        text = script.read_text().replace("\\\n", " ")
        installs = [line for line in text.splitlines() if "apt-get install" in line]
        assert any("espeak-ng" in line.split() for line in installs), script
