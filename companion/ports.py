"""The edges the table loop reaches, as the loop uses them: small Protocols, checked by mypy.

The loop (:class:`companion.table.Table`) owns the game; what it talks to is one of these,
whatever :mod:`companion.app` built: the journal (:class:`companion.store.Store`), the eyes
(:class:`companion.vision.feed.CameraFeed`), the lights and buttons
(:class:`companion.gpio.Hardware`), the voice (:class:`companion.speech.Voice`). A test may
hand the loop anything that has these methods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .vision.feed import Sight


class Journal(Protocol):
    """Appends every command before it is acknowledged, and owns the replayed game."""

    game: Any

    def apply(self, command: Mapping[str, Any]) -> list[dict[str, Any]]: ...

    def advance(self, now: float) -> list[dict[str, Any]]: ...

    def history(self) -> list[dict[str, Any]]: ...

    def player_stats(self) -> dict[str, dict[str, Any]]: ...

    def practice(self) -> list[dict[str, Any]]: ...

    def add_practice(self, entry: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


class Eyes(Protocol):
    """The camera as the loop uses it: told what to look for, asked what it sees."""

    @property
    def reads_frames(self) -> bool: ...

    def look_for(self, sight: Sight) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def status(self) -> dict[str, Any]: ...

    def tiles(self) -> list[str] | None: ...

    def jpeg(self, overlay: bool = True) -> bytes | None: ...

    def detected(self) -> dict[str, Any]: ...

    def set_corners(self, corners: list[tuple[float, float]]) -> dict[str, Any]: ...

    def calibrate_colors(self, robots: Mapping[str, str]) -> dict[str, Any]: ...

    def read_layout(self) -> Any: ...


class Lights(Protocol):
    """The LEDs (and the buttons behind them): a view of the game, never its owner."""

    def show(self, view: Mapping[str, Any] | None) -> None: ...

    def close(self) -> None: ...


class Voice(Protocol):
    """Says what happened, in the table's language."""

    on: bool
    volume: int

    def configure(self, *, on: Any = None, volume: Any = None, lang: Any = None) -> None: ...

    def announce(self, kind: str, **params: Any) -> str: ...

    def status(self) -> dict[str, Any]: ...
