"""Names people type: players' names, and how any text from outside is shown on a terminal.

A player's name is shown on the table page, on every phone, in the history and on the
terminal, so it must look like what it is: printable text of a sensible length. Control
characters (a newline, NUL, escape sequences) break rows and terminals; the bidirectional
controls (right-to-left override and its kin) turn the text around it backwards; a name of
only zero-width or blank characters shows as nothing at all. :func:`check_player_name` refuses
them all with a message that says what is wrong; :func:`shown` makes any text (an old name
journaled before the check existed, a file name, an option's value) safe to print.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from .errors import CompanionError
from .i18n import Message

MAX_NAME = 24
"""The longest player's name, in characters (the page's columns fit it)."""

# Explicit bidirectional formatting: embeddings, overrides and isolates (Unicode's Bidi_Control
# minus the plain marks LRM/RLM/ALM, which are invisible but harmless in a name).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


# The two invisible characters that written languages and emoji need inside a word: zero-width
# joiner (👩‍👧, Indic conjuncts) and non-joiner (Persian). Every other format character
# (zero-width space, soft hyphen, word joiner, marks of direction) is refused in a name.
JOINERS = frozenset("\u200c\u200d")


class PlayerNameError(CompanionError, ValueError):
    """A name that cannot be a player's; the message says why, for the players."""


def _invisible(ch: str) -> bool:
    """Shows as nothing: spaces, format characters (zero-width joiners, marks)."""
    return ch.isspace() or unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp", "Mn", "Me")


def check_player_name(value: Any, field: str = "name") -> str:
    """The name, trimmed and with its runs of spaces made one (NFC); :class:`PlayerNameError`
    naming ``field`` when it is not text, blank or invisible, too long, or holds a control or
    bidirectional-override character."""
    if not isinstance(value, str):
        raise PlayerNameError(Message("name.not_text", field=field, kind=type(value).__name__))
    for ch in value:
        if ch in BIDI_CONTROLS:
            raise PlayerNameError(Message("name.bidi", field=field, code=f"U+{ord(ch):04X}"))
        if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") or ch in "\u2028\u2029":
            raise PlayerNameError(Message("name.control", field=field, code=f"U+{ord(ch):04X}"))
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not name or all(_invisible(ch) for ch in name):
        raise PlayerNameError(Message("name.blank", field=field))
    hidden = next((ch for ch in name if not ch.isprintable() and ch not in JOINERS), None)
    if hidden is not None:
        raise PlayerNameError(Message("name.invisible", field=field,
                                      code=f"U+{ord(hidden):04X}"))
    if len(name) > MAX_NAME:
        raise PlayerNameError(Message("name.too_long", field=field, most=MAX_NAME,
                                      length=len(name)))
    return name


def shown(text: Any) -> str:
    """``text`` safe for a terminal line: every control, bidirectional-override or other
    unprintable character written as an escape (``\\n``, ``\\x00``, ``\\u202e``)."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() and ch not in BIDI_CONTROLS:
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1] if ch not in "'\"" else ch)
    return "".join(out)


def check_command_names(cmd: Mapping[str, Any]) -> dict[str, Any]:
    """The command with every player's name in it checked and tidied (:func:`check_player_name`):
    the ``players`` of a ``setup`` or ``new_game`` (names, or objects with a ``name``) and
    the ``name`` of a correction. Anything else in the command is the game's to judge."""
    out = dict(cmd)
    if out.get("type") in ("setup", "new_game") and isinstance(out.get("players"), list):
        players = []
        for i, p in enumerate(out["players"]):
            if isinstance(p, Mapping) and "name" in p:
                p = {**p, "name": check_player_name(p["name"], f"players[{i}]")}
            elif isinstance(p, str):
                p = check_player_name(p, f"players[{i}]")
            players.append(p)
        out["players"] = players
    if out.get("type") == "correct" and isinstance(out.get("name"), Mapping) \
            and "name" in out["name"]:
        out["name"] = {**out["name"], "name": check_player_name(out["name"]["name"], "name")}
    return out


def shown_history(history: Mapping[str, Any]) -> dict[str, Any]:
    """The history the page shows (``{"games", "players"}``) with every player's name made
    safe to show (:func:`shown`): names journaled before they were checked keep their row."""
    def names(value: Any) -> Any:
        return [shown(n) for n in value] if isinstance(value, list) else value

    games = [{**g, "players": names(g.get("players")), "winners": names(g.get("winners"))}
             for g in history.get("games", [])]
    players = [{**p, "name": shown(p["name"])} if "name" in p else p
               for p in history.get("players", [])]
    return {**history, "games": games, "players": players}
