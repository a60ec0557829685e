"""The root of every error the companion raises on purpose.

Each module keeps its own errors beside the code that raises them (``BoardError`` in
``board``, ``GameError`` in ``game``, ``FrameSourceError`` in ``vision.sources`` …); every one
of them is a :class:`CompanionError`, so a caller that wants "anything the companion refused or
could not do" catches one class, and anything else is a fault in the code. Most also keep the
built-in class they always were (``ValueError`` for bad input, ``RuntimeError`` for a state the
world got into), so ``except ValueError`` still works where it did."""

from __future__ import annotations


class CompanionError(Exception):
    """Something the companion refused or could not do, with a message for a person."""
