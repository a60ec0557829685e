"""The command line's readers of the companion's own files: a position, a layout, a colour
profile, a pin map, an observation log, a picture, a journal. Each raises one
:class:`~companion.inputs.InputError` naming the option and the file; the bytes, text, JSON and
TOML under them are read by :mod:`companion.inputs`, which the models use too.

Only a position's reader is loaded with the module: the others bring OpenCV, the store, the
pins or the game along, and import them when first called, so reading a position (``companion
solve``) starts as quickly as the solver allows."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from .inputs import InputError, about, label, must_be_file, quiet_stderr, read_model
from .rules import Position, Rules

__all__ = ["read_position", "position_from_line", "read_layout", "read_profile", "read_pinmap",
           "read_observations", "read_image", "check_video", "read_history",
           "recover_journal"]

def read_position(path: str | os.PathLike[str], option: str = "POSITION",
                  rules: str | None = None) -> Any:
    """A position file (``ricochet-position/1``); ``rules`` replaces the file's rules."""
    pos = read_model(path, option, "position", Position.from_dict)
    if rules is not None:
        with about("--rules", rules, "rule preset"):
            pos = replace(pos, rules=Rules.from_spec(rules))
    return pos


def position_from_line(value: Any, where: str) -> Any:
    """One position of a ``.jsonl`` file, already parsed (see :func:`read_jsonl`)."""
    with about(where, "", "position"):
        return Position.from_dict(value)


def read_layout(path: str | os.PathLike[str], option: str = "LAYOUT") -> Any:
    """A Micro Robots layout file (``micro-layout/1``)."""
    from .micro import Layout

    return read_model(path, option, "layout", Layout.from_dict)


def read_profile(path: str | os.PathLike[str], option: str = "--profile") -> Any:
    """A colour profile (``companion calibration colours``)."""
    from .vision.colours import Profile

    return read_model(path, option, "colour profile", Profile.from_dict)


def read_image(path: str | os.PathLike[str], option: str = "IMAGE") -> Any:
    """A picture as BGR uint8 (three channels)."""
    from .vision.sources import FrameSourceError, load_image

    must_be_file(path, option)
    try:
        with quiet_stderr():
            img = load_image(path)
    except FrameSourceError as e:
        raise InputError(f"{option} {e}") from None
    if img.ndim == 2:
        import cv2

        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img[..., :3]


def read_history(path: str | os.PathLike[str], option: str = "--db"
                 ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A journal's games and players' statistics, read without writing to it."""
    from .store import JournalError, Store

    where = label(option, path)
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{where}: a folder, not a journal")
    if not p.exists():
        raise InputError(f"{option}: no journal at {path}")
    try:
        if p.stat().st_size == 0:
            raise InputError(f"{where}: an empty file, not a companion journal")
        with Store(p, readonly=True) as store:
            return store.history(), store.player_stats()
    except JournalError as e:
        raise InputError(f"{option}: {e}") from None
    except sqlite3.Error as e:
        raise InputError(f"{where}: not a companion journal ({e})") from None
    except OSError as e:
        raise InputError(f"{where}: cannot be read ({e.strerror or e})") from None
    except (ValueError, TypeError, KeyError) as e:  # rows that are not the journal's
        if isinstance(e, InputError):
            raise
        raise InputError(f"{where}: a damaged companion journal ({e}); `companion history "
                         "--db PATH --recover` copies the intact part") from None


def recover_journal(path: str | os.PathLike[str], option: str = "--db") -> tuple[Path, int, int]:
    """``companion history --recover``: copy the intact part of a damaged journal (see
    :func:`companion.store.recover`); a file that is no journal at all is refused."""
    from .store import JournalError, recover

    where = label(option, path)
    must_be_file(path, option)
    if Path(path).stat().st_size == 0:
        raise InputError(f"{where}: an empty file, not a companion journal; nothing to recover")
    try:
        return recover(path)
    except JournalError as e:
        raise InputError(f"{option}: {e}") from None
    except sqlite3.Error as e:
        raise InputError(f"{where}: nothing can be recovered from it ({e})") from None
    except OSError as e:
        raise InputError(f"{where}: cannot be read ({e.strerror or e})") from None


def read_pinmap(path: str | os.PathLike[str], option: str = "--pins") -> Any:
    """A pin map (:func:`companion.gpio.read_pinmap`)."""
    from .gpio import read_pinmap as read

    return read(path, option)


def read_observations(path: str | os.PathLike[str], option: str = "observation log"
                      ) -> list[tuple[float, dict[str, str] | None]]:
    """A recorded observation stream (:func:`companion.verify_replay.read_observation_log`)."""
    from .verify_replay import read_observation_log

    return read_observation_log(path, option)


def check_video(path: str | os.PathLike[str], option: str = "FRAMES") -> None:
    """A video file whose first frame can be decoded; the decoder's own complaints are kept
    off the terminal and one message names the file."""
    import cv2

    must_be_file(path, option)
    with quiet_stderr():
        cap = cv2.VideoCapture(str(path))
        try:
            ok = cap.isOpened() and cap.read()[0]
        finally:
            cap.release()
    if not ok:
        raise InputError(f"{label(option, path)}: not a video this machine can decode "
                         "(nor a folder of frames, nor a .jsonl observation log)")
