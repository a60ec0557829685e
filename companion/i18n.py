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
"""

from __future__ import annotations

import json
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


def names_joined(lang: str, names: list[str]) -> str:
    """``Anna``, ``Anna and Ben``, ``Anna, Ben and Cleo``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + text(lang, "and") + names[-1]
