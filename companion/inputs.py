"""Every file a command reads, read in one place.

A command names each file it reads by the option (or argument) that gave it: ``POSITION``,
``--start``, ``--profile``, ``--db``. Each reader here returns the file's parsed content or
raises :class:`InputError`, whose one-line message names the option and the file and says
what is wrong::

    --profile colours.bin: not a text file (it is not UTF-8)
    POSITION deep.json: nested more than 64 levels deep; no position is
    --db empty.db: an empty file, not a companion journal

The command line prints it as ``error: …`` with exit status 2. Nothing a file holds (bytes
that are not text, JSON nested a hundred thousand levels deep, numbers of ten thousand
digits, a folder where a file should be, an empty file) gets further than this module as
anything but an :class:`InputError`.

The parsers below the readers (:func:`parse_json`, :func:`parse_toml`) are what the model's
own ``load``/``from_json`` methods use too, so the server meets the same limits.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import CompanionError

MAX_DEPTH = 64
"""No file of the companion nests deeper than a few levels; deeper is not ours."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Text files (positions, layouts, profiles, pin maps, observation logs) larger than this are
refused before they are read into memory."""

MAX_NUMBER_DIGITS = 100
"""Longer numbers in JSON are refused (Python would otherwise spend seconds on them)."""


class InputError(CompanionError, ValueError):
    """A file (or an option's value) that cannot be used; the message names it."""


def label(option: str, path: str | os.PathLike[str]) -> str:
    """``--profile colours.bin``; standard input is ``POSITION (standard input)``."""
    from .names import shown

    return f"{option} (standard input)" if str(path) == "-" else f"{option} {shown(path)}"


# ---------------------------------------------------------------- bytes and text


def must_be_file(path: str | os.PathLike[str], option: str) -> None:
    """:class:`InputError` unless ``path`` names an existing file (not a folder)."""
    where = label(option, path)
    try:
        p = Path(path)
        if p.is_dir():
            raise InputError(f"{where}: a folder, not a file")
        if not p.exists():
            raise InputError(f"{where}: no such file")
    except OSError as e:
        raise InputError(f"{where}: cannot be read ({e.strerror or e})") from None
    except ValueError as e:  # a NUL byte in the name
        if isinstance(e, InputError):
            raise
        raise InputError(f"{where}: not a usable file name") from None


def read_bytes(path: str | os.PathLike[str], option: str, *,
               limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file (``-``: standard input), or :class:`InputError` saying why not:
    no such file, a folder, unreadable, too big."""
    where = label(option, path)
    if str(path) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read(limit + 1) if stream is not None else \
            sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
    else:
        must_be_file(path, option)
        try:
            with Path(path).open("rb") as f:
                data = f.read(limit + 1)
        except OSError as e:
            raise InputError(f"{where}: cannot be read ({e.strerror or e})") from None
    if len(data) > limit:
        raise InputError(f"{where}: larger than {limit // (1024 * 1024)} MB; not a file of "
                         "the companion")
    return data


def read_text(path: str | os.PathLike[str], option: str, *,
              limit: int = MAX_FILE_BYTES) -> str:
    """A UTF-8 text file (a leading byte-order mark is allowed)."""
    data = read_bytes(path, option, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{label(option, path)}: not a text file (byte {e.start} is not "
                         "UTF-8)") from None


# ---------------------------------------------------------------- JSON and TOML


def _depth_ok(value: Any) -> bool:
    """Is ``value`` nested at most :data:`MAX_DEPTH` levels? (Walked without recursion.)"""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            if d > MAX_DEPTH:
                return False
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return True


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of more than {MAX_NUMBER_DIGITS} digits")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 20:
        raise ValueError(f"a number of more than {MAX_NUMBER_DIGITS} digits")
    return float(text)


def parse_json(text: str) -> Any:
    """JSON text → value, or :class:`InputError` (``not valid JSON (…)``) without a file name:
    the caller says whose text it is."""
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON ({e.msg} at line {e.lineno} column {e.colno})") \
            from None
    except RecursionError:
        raise InputError(f"not JSON the companion reads (nested more than {MAX_DEPTH} "
                         "levels deep)") from None
    except ValueError as e:
        raise InputError(f"not JSON the companion reads ({e})") from None
    if not _depth_ok(value):
        raise InputError(f"not JSON the companion reads (nested more than {MAX_DEPTH} "
                         "levels deep)")
    return value


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text → table, or :class:`InputError` (``not valid TOML (…)``)."""
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML ({e})") from None
    except RecursionError:
        raise InputError(f"not TOML the companion reads (nested more than {MAX_DEPTH} "
                         "levels deep)") from None
    if not _depth_ok(value):
        raise InputError(f"not TOML the companion reads (nested more than {MAX_DEPTH} "
                         "levels deep)")
    return value


def read_json(path: str | os.PathLike[str], option: str) -> Any:
    text = read_text(path, option)
    if not text.strip():
        raise InputError(f"{label(option, path)}: an empty file")
    try:
        return parse_json(text)
    except InputError as e:
        raise InputError(f"{label(option, path)}: {e}") from None


def read_jsonl(path: str | os.PathLike[str], option: str
               ) -> Iterator[tuple[int, Any, InputError | None]]:
    """Each non-blank line of a JSON-lines file: ``(line number, value, None)``, or
    ``(line number, None, error)`` for a line that is not JSON (the caller decides whether
    one bad line stops it). A file without any line is an :class:`InputError`."""
    text = read_text(path, option)
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise InputError(f"{label(option, path)}: an empty file (one JSON object a line)")
    for n, line in lines:
        try:
            yield n, parse_json(line), None
        except InputError as e:
            yield n, None, InputError(f"line {n}: {e}")


# ---------------------------------------------------------------- the model's files


@contextlib.contextmanager
def about(option: str, path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Turn what a model's parser raises into an :class:`InputError` naming the file. Its
    own errors (``ValueError``: ``PositionError``, ``LayoutError``…) keep their words; any
    other error of a malformed value says which kind of file was expected."""
    where = label(option, path)
    try:
        yield
    except InputError as e:
        if str(e).startswith(where):
            raise
        raise InputError(f"{where}: {e}") from None
    except ValueError as e:
        raise InputError(f"{where}: {e}") from None
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError,
            OverflowError) as e:
        raise InputError(f"{where}: not a valid {what} ({type(e).__name__}: {e})") from None


def read_model(path: str | os.PathLike[str], option: str, what: str,
               build: Callable[[Any], Any]) -> Any:
    """A JSON file built into a model by ``build`` (its ``from_dict``): every failure is an
    :class:`InputError` naming the option and the file. The models' own ``load`` use this, so
    this module imports none of them (the command line's readers are in ``readers``)."""
    data = read_json(path, option)
    with about(option, path, what):
        return build(data)


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Silence what native libraries (FFmpeg inside OpenCV) write straight to the process's
    standard error while a file is probed; Python's own messages are flushed first."""
    sys.stderr.flush()
    fd = 2  # the native libraries write to the descriptor, whatever sys.stderr is
    try:
        saved = os.dup(fd)
    except OSError:  # no standard error at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), fd)
            try:
                yield
            finally:
                os.dup2(saved, fd)
    finally:
        os.close(saved)
