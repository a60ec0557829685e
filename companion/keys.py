"""The table's secrets: the key that signs sessions and derives player tokens, and the PIN
that opens the referee's tools. Both are kept beside the journal (``<db>.key``, ``<db>.pin``)
so a restart keeps the phones joined and the referee let in; a table without a journal gets
fresh ones.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import Any

log = logging.getLogger("companion.table")


def key_file(db: str | None) -> bytes:
    """The table's secret (signs sessions, derives player tokens): kept beside the database so
    phones stay joined across a restart; random for a table without a database."""
    if not db or db == ":memory:":
        return secrets.token_bytes(32)
    path = Path(f"{db}.key")
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except FileNotFoundError:
        pass
    data = secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return data


PIN_DIGITS = (4, 12)  # a table PIN is 4 to 12 digits


def check_pin(pin: Any) -> str:
    """A table PIN: 4 to 12 digits; :class:`ValueError` says so otherwise."""
    low, high = PIN_DIGITS
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit() \
            or not low <= len(pin) <= high:
        raise ValueError(f"pin: {low} to {high} digits")
    return pin


def pin_file(db: str | None, given: str | None) -> str:
    """The table PIN: the one given, else the one kept beside the journal (``<db>.pin``),
    else a new random one. It is kept there once the journal is this table's (see
    :meth:`companion.table.Table.start`), so a restart does not lock the referee out."""
    if given is None and db and db != ":memory:":
        try:
            return check_pin(Path(f"{db}.pin").read_text().strip())
        except (OSError, ValueError, UnicodeDecodeError):
            pass  # none yet, or not a PIN: a new one
    return given or f"{secrets.randbelow(10**6):06d}"


def _keep_pin(path: Path, pin: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(pin + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def keep_pin_beside(db: str | None, pin: str) -> None:
    """Keep ``pin`` beside the journal ``db`` for the next start; a disk that refuses is
    logged, never raised (the game goes on; the PIN is not kept)."""
    if not db or db == ":memory:":
        return
    path = Path(f"{db}.pin")
    try:
        if path.exists() and path.read_text().strip() == pin:
            return
        _keep_pin(path, pin)
    except (OSError, UnicodeDecodeError) as e:  # the game goes on; the PIN is not kept
        log.warning("the table PIN cannot be kept in %s: %s", path, e)


def set_pin_beside(db: str | None, pin: Any) -> str:
    """A new table PIN, checked and kept beside the journal ``db``; :class:`ValueError` names
    what is wrong with it."""
    checked = check_pin(pin)
    if db and db != ":memory:":
        try:
            _keep_pin(Path(f"{db}.pin"), checked)
        except OSError as e:
            raise ValueError(f"pin: it cannot be kept ({e.strerror or e})") from None
    return checked
