"""What every command module of ``companion`` shares: the exit statuses, the error that means
bad input, and reading a position. ``cli`` builds the commands from these and so does
``cli_play`` (solve --all, hint, puzzle), neither importing the other's insides."""

from __future__ import annotations

from .errors import CompanionError
from .readers import read_position
from .rules import Position

EXIT_OK, EXIT_NO, EXIT_BAD = 0, 1, 2


class UsageError(CompanionError, ValueError):
    """Bad input on the command line: printed as ``error: …`` with exit status 2."""


def load_position(path: str, rules: str | None = None, option: str = "POSITION") -> Position:
    """Read a position file; ``-`` reads standard input. ``rules`` overrides the file's."""
    position: Position = read_position(path, option, rules)
    return position
