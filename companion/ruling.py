"""What every ruling of the referee answers, and who saw what it rules on.

An :class:`Outcome` answers one command; :data:`Play` is how the referee's commands reach the
game (the table loop's apply); :func:`source_words` names who saw something as players say it.
Both halves of the referee (:mod:`companion.referee`, :mod:`companion.referee_micro`) and the
table loop speak these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import i18n
from .i18n import Message


@dataclass
class Outcome:
    """The answer to one command: ``ok`` with the game's events as ``result``, or not ``ok``
    with the reason the game (or the table) gave."""

    ok: bool
    reason: str | None = None
    result: Any = None


Play = Callable[[dict[str, Any], str], Outcome]
"""Apply a command from a source (``"camera"``, ``"solver"``) to the game: the table loop's
``_apply``, which journals it and tells the referee the events
(:meth:`companion.referee.Referee.on_event`)."""


def source_words(source: str) -> Any:
    """Who saw something (``camera``, the simulated ``sim``) as players say it."""
    return Message(f"source.{source}") if f"source.{source}" in i18n.catalogue("en") else source
