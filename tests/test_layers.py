"""The floors of ARCHITECTURE.md hold: no import circle, nothing below the page imports the
web, and the pure rooms (the core, the referee, the games, the setup form) import no adapter.

Imports are read from the source (every ``import`` and ``from … import``, inside functions
too), so a lazy import that runs the wrong way is caught as well."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "companion"

# Modules that may import companion.web: the web itself, the wiring, the command line.
SERVING = ("companion.web", "companion.app", "companion.cli", "companion.benchmarks")
PURE = ("companion.board", "companion.rules", "companion.solver", "companion.solver_tables",
        "companion.routes", "companion.hints", "companion.puzzles", "companion.engine",
        "companion.game_state", "companion.game_course", "companion.game",
        "companion.game_view",
        "companion.corrections", "companion.micro", "companion.games", "companion.referee",
        "companion.referee_micro", "companion.referee_question", "companion.ruling",
        "companion.setup_form",
        "companion.table_view", "companion.names", "companion.inputs", "companion.errors",
        "companion.verify", "companion.verify_explain", "companion.verify_doubts",
        "companion.verify_caution", "companion.verify_arrival", "companion.verify_claims",
        "companion.verify_count")
ADAPTERS = ("companion.web", "companion.gpio", "companion.vision", "companion.table",
            "companion.solving", "companion.table_camera", "companion.table_state",
            "companion.table_micro", "companion.table_voice", "companion.table_classic",
            "companion.table_pages", "companion.app", "companion.sim", "companion.speech",
            "companion.store", "companion.verify_replay")


def _is_module(name: str) -> bool:
    path = PACKAGE.parent / name.replace(".", "/")
    return path.with_suffix(".py").exists() or path.is_dir()


@functools.cache  # read once for every test here
def _imports() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        here = parts[:-1]
        if parts[-1] == "__init__":
            parts = here
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    deps.add(sub if _is_module(sub) else mod)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        name = ".".join(parts)
        graph[name] = {d for d in deps if d.startswith("companion") and d != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_walk_reads_the_package():
    graph = _imports()
    assert "companion.referee" in graph and "companion.vision.feed" in graph
    assert "companion.referee" in graph["companion.table"]


def test_no_module_imports_one_that_imports_it_back():
    assert _circles(_imports()) == []


def test_a_circle_would_be_found():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_the_page_the_wiring_and_the_command_line_import_the_web():
    strays = sorted(m for m, deps in _imports().items() if not _under(m, SERVING)
                    and any(_under(d, ("companion.web",)) for d in deps))
    assert strays == []


def test_the_pure_rooms_import_no_adapter():
    strays = sorted(f"{m} → {d}" for m, deps in _imports().items() if _under(m, PURE)
                    for d in deps if _under(d, ADAPTERS))
    assert strays == []
