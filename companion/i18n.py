"""What the table says and shows, in English, German and French: one JSON catalogue per
language in ``companion/catalogues``, read by the pages (embedded in each page) and by the
spoken announcements.

A catalogue maps a key to a text with ``{name}`` placeholders. A count picks its form from
``KEY.one`` and ``KEY.other`` by the language's plural rule (French counts 0 as singular).
The words of the rules are those of each language's rule sheet: *Zielchip*, *Sanduhr*,
*Gebot*, *Zug*; *jeton cible*, *sablier*, *annonce*, *mouvement*.

>>> text("de", "say.ten_seconds")
'Noch zehn Sekunden'
>>> count("en", "moves", 1)
'1 move'

What the server says to players (a refusal, why a move is illegal, the camera's questions) is
a :class:`Message`: a catalogue key and its values, rendered in each viewer's language. It is a
``str`` whose text is the English rendering, so logs, the command line and the journal keep
their prose; :func:`jsonable` gives the ``{"key", "args"}`` form the pages render.

>>> m = Message("refuse.bid_higher", name="Anna", bid=9, previous=7)
>>> str(m)
"Anna's bid of 9 is higher than her bid of 7"
>>> render("de", m)
'Anna: das Gebot 9 ist höher als das eigene Gebot 7'
>>> render("fr", Message("verify.seen", robot=color("blue"), cell="k10"))
'bleu vu en k10'
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "de", "fr")
DEFAULT = "en"
FOLDER = Path(__file__).with_name("catalogues")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` (one of :data:`LANGUAGES`)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language: one of {', '.join(LANGUAGES)}, not {lang!r}")
    with open(FOLDER / f"{lang}.json", encoding="utf-8") as f:
        data = json.load(f)
    return {k: v for k, v in data.items() if not k.startswith("//")}


def catalogues() -> dict[str, dict[str, str]]:
    """Every catalogue, by language (what a page embeds)."""
    return {lang: catalogue(lang) for lang in LANGUAGES}


def text(lang: str, key: str, **params: Any) -> str:
    """The text of ``key`` in ``lang`` with its placeholders filled; a key missing from the
    catalogue raises :class:`KeyError` (the catalogue tests keep that from happening)."""
    template = catalogue(lang)[key]
    return PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), template)


def plural(lang: str, n: int) -> str:
    """``one`` or ``other``: the form of a count in ``lang``."""
    if lang == "fr":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"


def count(lang: str, key: str, n: int, **params: Any) -> str:
    """``KEY.one`` or ``KEY.other`` with ``{n}`` filled: ``1 move``, ``6 moves``."""
    return text(lang, f"{key}.{plural(lang, n)}", n=n, **params)


def clock(lang: str, seconds: float) -> str:
    """A time left as the hourglass shows it, the same on every page and in every language:
    ``10:00`` from a minute up, ``38 s`` below (whole seconds, rounded up as the hourglass is).

    >>> clock("de", 600), clock("fr", 37.2)
    ('10:00', '38\xa0s')
    """
    t = max(0, math.ceil(seconds))
    if t >= 60:
        return f"{t // 60}:{t % 60:02d}"
    return text(lang, "time.short", n=t)


def duration(lang: str, seconds: float) -> str:
    """A time as it is said aloud: ``10 minutes``, ``1 minute 30`` (as people say it, and short
    enough for an announcement), ``38 seconds``; never ``600 seconds``.

    >>> duration("de", 600), duration("fr", 90)
    ('10 Minuten', '1 minute 30')
    """
    minutes, secs = divmod(max(0, math.ceil(seconds)), 60)
    if not minutes:
        return count(lang, "seconds", secs)
    if not secs:
        return count(lang, "minutes", minutes)
    return text(lang, "time.spoken", minutes=count(lang, "minutes", minutes), seconds=secs)


def language(value: Any) -> str:
    """A language code from a setting or a browser's ``de-DE``; raises :class:`ValueError`
    naming the field for anything else."""
    if isinstance(value, str):
        code = value.strip().lower()[:2]
        if code in LANGUAGES:
            return code
    raise ValueError(f"language: one of {', '.join(LANGUAGES)}, not {value!r}")


def chip_name(lang: str, chip: str | None) -> str:
    """A target chip (``green circle``, ``vortex``) as the players say it."""
    if not chip:
        return ""
    return text(lang, "chip." + chip.replace(" ", "."))


def _lookup(lang: str, key: str, args: dict[str, Any]) -> str | None:
    """The template of ``key`` in ``lang``; a count (``n``) picks ``KEY.one``/``KEY.other``."""
    words = catalogue(lang)
    if key in words:
        return words[key]
    n = args.get("n")
    if isinstance(n, int) and f"{key}.{plural(lang, n)}" in words:
        return words[f"{key}.{plural(lang, n)}"]
    return None


def render(lang: str, message: Any) -> str:
    """``message`` in ``lang``: a :class:`Message` (its values that are messages too, such as a
    colour or a direction, rendered in ``lang`` as well), its ``{"key", "args"}`` form, or any
    other text as it is (old journals keep prose reasons; they show as they were written)."""
    if isinstance(message, dict) and isinstance(message.get("key"), str):
        message = Message.from_json(message)
    if not isinstance(message, Message):
        return "" if message is None else str(message)
    args = {k: render(lang, v) if isinstance(v, Message | dict) else v
            for k, v in message.args.items()}
    template = _lookup(lang, message.key, message.args)
    if template is None and lang != DEFAULT:
        template = _lookup(DEFAULT, message.key, message.args)
    if template is None:  # a key the catalogues lack: the test of every key keeps this out
        return message.key
    return PLACEHOLDER.sub(lambda m: str(args.get(m.group(1), m.group(0))), template)


class Message(str):
    """Words for players as a catalogue key and its values: ``.key``, ``.args``; as a ``str``
    it is the English rendering (for logs, the command line and the journal). A value that is
    itself a :class:`Message` (a colour, a direction, a robot) is rendered in the viewer's
    language too."""

    key: str
    args: dict[str, Any]

    def __new__(cls, key: str, /, **args: Any) -> Message:
        probe = str.__new__(cls, "")
        probe.key, probe.args = key, args
        self = str.__new__(cls, render(DEFAULT, probe))
        self.key, self.args = key, args
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.key, self.args))

    def __copy__(self) -> Message:
        return self

    def __deepcopy__(self, memo: Any) -> Message:
        return self

    def to_json(self) -> dict[str, Any]:
        """``{"key": …, "args": {…}}``, nested messages in the same form."""
        return {"key": self.key,
                "args": {k: v.to_json() if isinstance(v, Message) else v
                         for k, v in self.args.items()}}

    @classmethod
    def from_json(cls, data: Any) -> Message:
        """The message of a ``{"key", "args"}`` form (a journal row, a page's answer)."""
        args = data.get("args") or {}
        return cls(str(data["key"]), **{
            str(k): cls.from_json(v) if isinstance(v, dict) and "key" in v else v
            for k, v in args.items()})


def _rebuild(key: str, args: dict[str, Any]) -> Message:
    return Message(key, **args)


def message(value: Any) -> Message:
    """``value`` as a message: a :class:`Message` as it is, its ``{"key", "args"}`` form
    rebuilt, any other text (an old journal's prose) under the key ``text``."""
    if isinstance(value, Message):
        return value
    if isinstance(value, dict) and isinstance(value.get("key"), str):
        return Message.from_json(value)
    return Message("text", text="" if value is None else str(value))


MAX_DEPTH = 6  # messages within a message, at most (a list of robots on cells is 4 deep)
MAX_VALUE = 300  # characters of one text value


def known(key: Any) -> bool:
    """Is ``key`` a catalogue key (or a counted one, ``KEY.one``/``KEY.other``)?"""
    words = catalogue(DEFAULT)
    return isinstance(key, str) and (key in words or f"{key}.other" in words)


def from_stored(data: Any, depth: int = 0) -> Message | None:
    """The message of a journaled (or sent) ``{"key", "args"}`` form, or ``None`` when it is
    not one the catalogues know: an unknown key, a value that is not text, a number or such a
    form, a text over :data:`MAX_VALUE` characters, or messages nested over :data:`MAX_DEPTH`."""
    if not isinstance(data, dict) or not known(data.get("key")) or depth > MAX_DEPTH:
        return None
    args = data.get("args") or {}
    if not isinstance(args, dict) or set(data) - {"key", "args"}:
        return None
    out: dict[str, Any] = {}
    for k, v in args.items():
        if not isinstance(k, str) or not k.isidentifier():
            return None
        if isinstance(v, dict):
            v = from_stored(v, depth + 1)
            if v is None:
                return None
        elif isinstance(v, str):
            if len(v) > MAX_VALUE:
                return None
        elif not (v is None or isinstance(v, int | float)):
            return None
        out[k] = v
    return Message(data["key"], **out)


def said(error: BaseException) -> str:
    """The words of an error: its :class:`Message` where it was raised with one, else its
    text."""
    first = error.args[0] if error.args else None
    return first if isinstance(first, Message) else str(error)


def stored(value: Any) -> Any:
    """What the journal keeps of a reason: a message's ``{"key", "args"}`` form, prose as it
    is (and read back by :func:`message`)."""
    return value.to_json() if isinstance(value, Message) else value


def jsonable(obj: Any) -> Any:
    """``obj`` for a page: every :class:`Message` found in it keeps its English text where it
    was, and its ``{"key", "args"}`` form is added beside it under ``FIELD_msg`` (a list of
    messages: a list of forms), so a page renders it in its own language and an older reader
    still finds the English."""
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out[k] = jsonable(v)
            if isinstance(v, Message) and isinstance(k, str):
                out[f"{k}_msg"] = v.to_json()
            elif (isinstance(v, list | tuple) and v and isinstance(k, str)
                  and any(isinstance(x, Message) for x in v)):
                out[f"{k}_msg"] = [message(x).to_json() for x in v]
        return out
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, Message):
        return str(obj)
    return obj


def color(name: Any) -> Any:
    """A robot's or a barrier's colour as a message (``blue`` → *blau*, *bleu*); anything
    not a colour of the catalogue stays as it is."""
    return Message(f"color.{name}") if f"color.{name}" in catalogue(DEFAULT) else name


def direction(name: Any) -> Any:
    """A direction as a message (``right`` → *rechts*, *droite*)."""
    return Message(f"dir.{name}") if f"dir.{name}" in catalogue(DEFAULT) else name


def chip(name: Any) -> Any:
    """A target chip as a message (``green circle`` → *grüner Kreis*)."""
    key = "chip." + str(name).replace(" ", ".")
    return Message(key) if key in catalogue(DEFAULT) else name


def move(robot: Any, dir_: Any, passes: Any = "") -> Message:
    """A move (``blue up``) as a message: the robot's colour and the direction translated."""
    return Message("move.words", robot=color(robot), dir=direction(dir_),
                   passes=f" {passes}" if passes else "")


def listed(items: list[Any], last: str = "list.and") -> Any:
    """Several values (messages or names) as one: ``blue, red and green`` (``last`` the key
    that joins the last two: ``list.and``, or ``list.comma`` for a plain list)."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return Message(last, first=items[0], rest=items[1])
    return Message("list.comma", first=items[0], rest=listed(items[1:], last))


def names_joined(lang: str, names: list[str]) -> str:
    """``Anna``, ``Anna and Ben``, ``Anna, Ben and Cleo``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + text(lang, "and") + names[-1]
