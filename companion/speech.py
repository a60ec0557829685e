"""The table speaks: short announcements in the table's language through the Pi's audio
(HDMI, the jack, or a USB or Bluetooth speaker: whatever the system's default output is).

``espeak-ng`` (Debian's package, installed by ``hardware/install-pi.sh``) does the speaking;
where it is missing the voice stays silent and the buzzer's cues (:mod:`companion.gpio`) are all
the table has. Speaking never holds up the table's loop: :meth:`Voice.announce` only queues the
words, and one worker thread speaks them in order. A backlog is dropped rather than let the
table fall behind what it says.

The announcements (their words are in the catalogues, ``say.*``):

==================  ===========================================
``chip``            the revealed target chip (``chip=``)
``bid``             each new lowest bid (``name=``, ``n=``)
``hourglass``       the hourglass is turned, and for how long (``seconds=``: said as
                    ``10 minutes``, never ``600 seconds``)
``ten_seconds``     ten seconds left on the hourglass
``time_up``         the hourglass has run out
``demonstrator``    who shows the route now (``name=``, ``n=``)
``verdict``         the demonstration's outcome (``name=``, ``success=``)
``winner``          the game's winners (``names=``)
``message``         words the table made for players, such as the camera's question (``message=``)
==================  ===========================================
"""

from __future__ import annotations

import json
import logging
import queue
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import i18n

log = logging.getLogger(__name__)

KINDS = ("chip", "bid", "hourglass", "ten_seconds", "time_up", "demonstrator", "verdict", "winner",
         "message")
# espeak-ng's voice for each language of the catalogues
VOICES = {"en": "en-gb", "de": "de", "fr": "fr-fr"}
SPEED = 165  # words a minute: brisk, as a referee would say it
BACKLOG = 4  # announcements waiting at most; more are dropped


def phrase(lang: str, kind: str, **params: Any) -> str:
    """The words of one announcement in ``lang``; an unknown kind or a missing parameter
    raises :class:`ValueError` naming it."""
    if kind not in KINDS:
        raise ValueError(f"kind: one of {', '.join(KINDS)}, not {kind!r}")
    try:
        if kind == "message":  # words the table made for players (the camera's question)
            return i18n.render(lang, params["message"])
        if kind == "chip":
            return i18n.text(lang, "say.chip", chip=i18n.chip_name(lang, params["chip"]))
        if kind == "bid":
            return i18n.text(lang, "say.bid", name=params["name"], n=int(params["n"]))
        if kind == "hourglass":
            return i18n.text(lang, "say.hourglass",
                             time=i18n.duration(lang, float(params["seconds"])))
        if kind in ("ten_seconds", "time_up"):
            return i18n.text(lang, f"say.{kind}")
        if kind == "demonstrator":
            return i18n.count(lang, "say.demonstrator", int(params["n"]), name=params["name"])
        if kind == "verdict":
            return i18n.text(lang, "say.success" if params["success"] else "say.failure",
                             name=params["name"])
        names = list(params["names"])
        return i18n.text(lang, "say.winners" if len(names) > 1 else "say.winner",
                         names=i18n.names_joined(lang, names))
    except KeyError as e:
        raise ValueError(f"{kind}: needs {e.args[0]}") from None


def espeak() -> str | None:
    """The espeak-ng program, or ``None`` where it is not installed."""
    return shutil.which("espeak-ng")


def command(text: str, lang: str, volume: int, program: str,
            wav: str | Path | None = None) -> list[str]:
    """The espeak-ng command line that says ``text`` (into ``wav`` instead of the speaker)."""
    amplitude = max(0, min(200, round(volume * 2)))  # espeak-ng: 0..200, 100 is normal
    cmd = [program, "-v", VOICES[i18n.language(lang)], "-s", str(SPEED), "-a", str(amplitude)]
    if wav is not None:
        cmd += ["-w", str(wav)]
    return [*cmd, "--", text]


def render(text: str, lang: str, path: str | Path, volume: int = 70,
           program: str | None = None) -> Path:
    """Speak ``text`` into a WAV file (what the tests listen to); raises
    :class:`FileNotFoundError` where espeak-ng is missing."""
    program = program or espeak()
    if program is None:
        raise FileNotFoundError("espeak-ng is not installed (apt install espeak-ng)")
    subprocess.run(command(text, lang, volume, program, wav=path), check=True,
                   capture_output=True, timeout=20)
    return Path(path)


class Voice:
    """The table's voice: on or off, a volume (0 to 100) and the language of its words.

    ``program`` is espeak-ng (found on the path unless given; ``""`` means none: silent).
    :meth:`announce` returns at once; a worker thread speaks.
    """

    def __init__(self, lang: str = i18n.DEFAULT, *, on: bool = True, volume: int = 70,
                 program: str | None = None) -> None:
        self.lang = i18n.language(lang)
        self.on = bool(on)
        self.volume = self._check_volume(volume)
        self.program = espeak() if program is None else (program or None)
        self.said: list[str] = []  # everything announced, in order (the page shows the last)
        self._queue: queue.Queue[str | None] = queue.Queue(maxsize=BACKLOG)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @staticmethod
    def _check_volume(volume: Any) -> int:
        if isinstance(volume, bool) or not isinstance(volume, int | float) \
                or not 0 <= volume <= 100:
            raise ValueError(f"volume: a number from 0 to 100, not {volume!r}")
        return int(volume)

    @property
    def available(self) -> bool:
        return self.program is not None

    def status(self) -> dict[str, Any]:
        return {"on": self.on, "volume": self.volume, "available": self.available,
                "lang": self.lang}

    def configure(self, *, on: Any = None, volume: Any = None, lang: Any = None) -> None:
        """Change what the page's controls change; bad values raise :class:`ValueError`."""
        if on is not None:
            if not isinstance(on, bool):
                raise ValueError(f"on: true or false, not {on!r}")
            self.on = on
        if volume is not None:
            self.volume = self._check_volume(volume)
        if lang is not None:
            self.lang = i18n.language(lang)

    def announce(self, kind: str, **params: Any) -> str:
        """Queue one announcement (see the module's table) and return its words."""
        text = phrase(self.lang, kind, **params)
        self.say(text)
        return text

    def say(self, text: str) -> None:
        """Queue words to speak; never blocks (a full backlog drops the oldest)."""
        self.said.append(text)
        del self.said[:-20]
        if not self.on or self.program is None:
            return
        self._ensure_thread()
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()  # the oldest is stale by now
                except queue.Empty:
                    pass

    def _ensure_thread(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            program = self.program
            if program is None or not self.on:
                continue
            try:
                subprocess.run(command(text, self.lang, self.volume, program),
                               capture_output=True, timeout=15, check=False)
            except (OSError, subprocess.SubprocessError) as e:  # a sound fault never stops play
                log.warning("espeak-ng: %s", e)

    def close(self) -> None:
        """Stop the worker after what it is saying now."""
        with self._lock:
            thread = self._thread
        if thread is not None and thread.is_alive():
            try:
                self._queue.put_nowait(None)
            except queue.Full:
                pass
            thread.join(2.0)


class Announcer:
    """Which of the game's events the table says aloud: pure bookkeeping, events in and
    ``(kind, params)`` announcements out. It remembers the round's lowest bid (only a new
    lowest is said) and whether "ten seconds" was said for this run of the hourglass."""

    def __init__(self) -> None:
        self.lowest: int | None = None
        self._ten: Any = None

    def events(self, events: Sequence[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        out: list[tuple[str, dict[str, Any]]] = []
        for e in events:
            t = e.get("type")
            if t == "chip_revealed":
                self.lowest, self._ten = None, None
                out.append(("chip", {"chip": e["chip"]}))
            elif t == "bid" and isinstance(e.get("value"), int):
                if self.lowest is None or e["value"] < self.lowest:
                    self.lowest = e["value"]
                    out.append(("bid", {"name": e["name"], "n": e["value"]}))
            elif t == "timer_started" and isinstance(e.get("duration"), int | float):
                out.append(("hourglass", {"seconds": e["duration"]}))
            elif t == "timer_ended":
                out.append(("time_up", {}))
            elif t == "demonstration_started" and (e.get("bid") or e.get("number")) is not None:
                # a bid in the classic game, a call in Micro Robots
                n = e["bid"] if e.get("bid") is not None else e["number"]
                out.append(("demonstrator", {"name": e["name"], "n": n}))
            elif t in ("demonstration_succeeded", "demonstration_failed"):
                out.append(("verdict", {"name": e["name"],
                                        "success": t == "demonstration_succeeded"}))
            elif t == "game_over" and e.get("names"):
                out.append(("winner", {"names": list(e["names"])}))
        return out

    def clock(self, timer: dict[str, Any], key: Any) -> list[tuple[str, dict[str, Any]]]:
        """``ten_seconds`` once per run of the hourglass (``key`` names the run), when a
        running hourglass of more than ten seconds comes down to ten."""
        left, total = timer.get("remaining"), timer.get("duration") or timer.get("total")
        if (not timer.get("running") or left is None or not total or total <= 10.5
                or key == self._ten or not 5.0 < left <= 10.0):
            return []
        self._ten = key
        return [("ten_seconds", {})]


def load_settings(path: Path | None) -> dict[str, Any]:
    """The table's language and voice settings as saved beside the journal (``{}`` when
    there are none, or they cannot be read)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(path: Path | None, data: dict[str, Any]) -> None:
    if path is None:
        return
    try:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError as e:  # the table plays on; only the setting is not kept
        log.warning("settings %s: %s", path, e)
