"""Every error the companion defines is a CompanionError, so "anything it refused" is one
class to catch, and the built-in class each had before still catches it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import companion
from companion.errors import CompanionError


def _modules():
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        if info.name.startswith("companion.benchmarks"):
            continue  # the benchmarks raise nothing of their own
        yield importlib.import_module(info.name)


def test_every_error_class_of_the_companion_is_a_companion_error():
    found = {}
    for module in _modules():
        for name, obj in vars(module).items():
            # (a private class is a module's own control flow, never raised to a caller)
            if (inspect.isclass(obj) and issubclass(obj, BaseException)
                    and obj.__module__ == module.__name__ and not name.startswith("_")):
                found[f"{module.__name__}.{name}"] = obj
    assert len(found) >= 20, sorted(found)  # the walk really saw the package
    strays = sorted(k for k, cls in found.items() if not issubclass(cls, CompanionError))
    assert strays == []


def test_the_built_in_classes_still_catch_them():
    from companion.board import BoardError
    from companion.store import JournalError
    from companion.vision.sources import EndOfFrames

    assert issubclass(BoardError, ValueError) and issubclass(JournalError, RuntimeError)
    assert issubclass(EndOfFrames, CompanionError) and issubclass(EndOfFrames, RuntimeError)
