"""No room in the house too big for a newcomer: no class over 400 lines and no function over 80
anywhere in companion/ (the benchmarks and the renderers twice that, drawing being long by
nature; the solver's search core is exempt, being one tuned loop).

The few that are bigger today are listed below with their size now, so the list can only
shrink: one of them may not grow past its size, and once it is split its line must go.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"

CLASS_LINES = 400
FUNCTION_LINES = 80

# The solver's search cores: each one loop tuned for speed, read as a whole (the docstrings of
# solver.py and solver_small.py).
EXEMPT = ("companion/solver.py::_Search", "companion/solver_small.py::solve_small")

# Not yet split: "path::Qualified.name": its lines today. Lower a number when a room shrinks,
# delete the line when it fits; never raise one or add one.
EXCEPTIONS = {
    # long single algorithms, each one function for now
    "companion/rules.py::slide": 82,
}


def _twice(path: str) -> bool:
    """The benchmarks and the renderers may be twice as long."""
    return path.startswith("companion/benchmarks/") or "render" in Path(path).name


def _walk(node: ast.AST, path: str, prefix: str, found: dict[str, tuple[str, int, int]]) -> None:
    factor = 2 if _twice(path) else 1
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            _walk(child, path, prefix, found)
            continue
        name = f"{prefix}{child.name}"
        key = f"{path}::{name}"
        if any(key == e or key.startswith(e + ".") for e in EXEMPT):
            continue
        lines = (child.end_lineno or child.lineno) - child.lineno + 1
        if isinstance(child, ast.ClassDef):
            found[key] = ("class", lines, CLASS_LINES * factor)
        else:
            found[key] = ("function", lines, FUNCTION_LINES * factor)
        _walk(child, path, name + ".", found)


@functools.cache
def _rooms() -> dict[str, tuple[str, int, int]]:
    """Every class and function of the package: "path::Qualified.name" → (kind, lines, limit)."""
    found: dict[str, tuple[str, int, int]] = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        path = file.relative_to(ROOT).as_posix()
        _walk(ast.parse(file.read_text(encoding="utf-8")), path, "", found)
    return found


def test_no_class_over_400_lines_and_no_function_over_80():
    too_big = []
    for key, (kind, lines, limit) in _rooms().items():
        if lines <= limit:
            continue
        allowed = EXCEPTIONS.get(key)
        if allowed is None:
            too_big.append(f"{key}: a {kind} of {lines} lines (at most {limit}): split it")
        elif lines > allowed:
            too_big.append(f"{key}: {lines} lines, grown past the {allowed} it is allowed "
                           "until it is split")
    assert too_big == []


def test_the_exceptions_only_shrink():
    """An exception that fits now, or is gone, leaves the list; one that shrank lowers its
    number, so it cannot grow back."""
    rooms = _rooms()
    stale = []
    for key, allowed in EXCEPTIONS.items():
        if key not in rooms:
            stale.append(f"{key}: gone; delete its line")
            continue
        _, lines, limit = rooms[key]
        if lines <= limit:
            stale.append(f"{key}: {lines} lines fits now; delete its line")
        elif lines < allowed:
            stale.append(f"{key}: {lines} lines now; lower its number from {allowed}")
    assert stale == []


def test_the_walk_sees_the_package():
    rooms = _rooms()
    assert "companion/game.py::Game" in rooms and "companion/gpio.py::Hardware.show" in rooms
    assert not any(k.startswith("companion/solver.py::_Search") for k in rooms)
