"""The table's language and voice: the language of the screen and the voice, chosen on Setup
and kept beside the journal with the voice's settings, and the announcements said aloud.

:class:`TableVoice` is held by :class:`companion.table.Table` as ``table.speaker``: the
settings are the table's, read by every page (``table.speaker.language``,
``table.speaker.voice``), and the loop hands it what the referee and the game's events give
it to say.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import i18n, speech
from .ports import Voice as VoicePort

log = logging.getLogger("companion.table")


class TableVoice:
    """The language and the voice of a table whose journal is ``db``; ``republish`` shows
    the table's state again (every page follows a new language)."""

    def __init__(self, db: str | None, republish: Callable[[], None]) -> None:
        self._settings_path = Path(f"{db}.settings.json") if db and db != ":memory:" else None
        self._republish = republish
        settings = speech.load_settings(self._settings_path)
        self.language: str = i18n.DEFAULT
        if settings.get("language") in i18n.LANGUAGES:
            self.language = settings["language"]
        self.voice: VoicePort | None = None
        self._announcer = speech.Announcer()

    def attach_voice(self, voice: VoicePort) -> None:
        """Speak announcements through ``voice`` (a :class:`companion.speech.Voice`)."""
        saved = speech.load_settings(self._settings_path)
        voice.configure(lang=self.language, on=saved.get("voice_on"),
                        volume=saved.get("voice_volume"))
        self.voice = voice

    def set_language(self, lang: str, voice_on: bool | None = None,
                     volume: int | None = None) -> None:
        """The table's language (screen and voice) and the voice's settings; bad values raise
        :class:`ValueError` naming the field. Kept beside the journal."""
        lang = i18n.language(lang)
        if self.voice is not None:
            self.voice.configure(lang=lang, on=voice_on, volume=volume)
        self.language = lang
        data: dict[str, Any] = {"language": lang}
        if self.voice is not None:
            data.update(voice_on=self.voice.on, voice_volume=self.voice.volume)
        speech.save_settings(self._settings_path, data)
        self._republish()  # every page follows

    def events(self, events: list[dict[str, Any]]) -> None:
        """Say what the game's events call for (the call, the verdict, the winner)."""
        self.speak(self._announcer.events(events))

    def clock(self, timer: dict[str, Any], run: Any) -> None:
        """Say the hourglass's time when a call is due (``run`` names the timer's run)."""
        if self.voice is not None:
            self.speak(self._announcer.clock(timer, run))

    def speak(self, said: list[tuple[str, dict[str, Any]]]) -> None:
        """Say each ``(kind, values)`` announcement (a voice fault never stops the game)."""
        if self.voice is None:
            return
        for kind, params in said:
            try:
                self.voice.announce(kind, **params)
            except Exception:  # noqa: BLE001 - a voice fault must not stop the game
                log.exception("voice: %s", kind)
