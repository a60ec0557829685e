"""Practice puzzles on the page: deal a position of exactly N optimal moves (or the puzzle of
the day), play it move by move, ask for graded hints, and keep the result with the history.

The server keeps no puzzle state: the page sends the position back with each request, and
every move, hint and result is judged again here by the rules and the solver.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template

from ..hints import hints
from ..puzzles import PuzzleError, daily, deal
from ..rules import Move, Position, PositionError, Rules, validate_route
from ..solver import SolverError, solve
from ..table_view import board_geometry
from .api import _int, body
from .pages import _context

bp = Blueprint("practice", __name__)
MAX_ROUTE = 60
SOLVE_SECONDS = 10.0


@bp.get("/practice")
def page() -> str:
    return render_template("practice.html", **_context("practice"))


def _view(pos: Position) -> dict[str, Any]:
    b = pos.board
    goal = pos.target
    assert goal is not None
    return {
        "position": pos.to_dict(),
        "geometry": board_geometry(b),
        "robots": {r: b.name(c) for r, c in pos.robots.items()},
        "target": {"cell": b.name(goal.cell), "robot": goal.robot, "color": goal.color,
                   "shape": goal.shape},
    }


def _position(data: dict[str, Any]) -> Position:
    raw = data.get("position")
    if not isinstance(raw, dict):
        abort(400, description="position: the puzzle's position object")
    try:
        pos = Position.from_dict(raw)
    except (PositionError, ValueError) as e:
        abort(400, description=f"position: {e}")
    if pos.target is None:
        abort(400, description="position: the puzzle has no target")
    return pos


def _route(data: dict[str, Any]) -> list[Move]:
    raw = data.get("route")
    if not isinstance(raw, list) or len(raw) > MAX_ROUTE or \
            not all(isinstance(x, str) and len(x) <= 40 for x in raw):
        abort(400, description=f"route: a list of at most {MAX_ROUTE} moves like 'blue up'")
    try:
        return [Move.parse(x) for x in raw]
    except ValueError as e:
        abort(400, description=f"route: {e}")


@bp.post("/api/practice/deal")
def deal_puzzle() -> Response:
    data = body()
    moves = _int(data, "moves", 1, 10)
    preset = data.get("rules", "abacus-2013")
    try:
        rules = Rules.from_spec(preset)
    except PositionError as e:
        abort(400, description=str(e))
    try:
        if data.get("daily"):
            puzzle = daily(dt.date.today(), moves, rules)
        else:
            puzzle = deal(moves, rules, seconds=20.0)
    except PuzzleError as e:
        return jsonify({"error": str(e)}), 409
    return jsonify({"ok": True, "seed": puzzle.seed, "moves": puzzle.moves,
                    **_view(puzzle.position)})


@bp.post("/api/practice/move")
def move() -> Response:
    data = body()
    pos = _position(data)
    verdict = validate_route(pos, _route(data))
    return jsonify({"legal": verdict.legal, "reason": verdict.reason,
                    "reached": verdict.legal and verdict.reached, "moves": verdict.moves,
                    "cost": verdict.cost,
                    "robots": {r: pos.board.name(c) for r, c in verdict.robots.items()}})


@bp.post("/api/practice/hint")
def hint() -> Response:
    data = body()
    pos = _position(data)
    level = _int(data, "level", 1, 4)
    try:
        got = hints(pos, level, deadline=time.monotonic() + SOLVE_SECONDS)
    except SolverError as e:
        return jsonify({"error": str(e)}), 409
    return jsonify({"ok": True, "hints": [h.to_json() for h in got]})


@bp.post("/api/practice/done")
def done() -> Response:
    """A finished puzzle: judged again, then kept with the history."""
    data = body()
    pos = _position(data)
    route = _route(data)
    verdict = validate_route(pos, route)
    if not (verdict.legal and verdict.reached):
        return jsonify({"error": verdict.reason or "the route does not reach the target"}), 409
    seconds = data.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or \
            not 0 <= seconds < 86400:
        abort(400, description=f"seconds: the time taken, not {seconds!r}")
    hint_level = _int(data, "hint", 0, 4)
    best = solve(pos, deadline=time.monotonic() + SOLVE_SECONDS)
    seed = data.get("seed")
    entry = {"seed": seed if isinstance(seed, str) and len(seed) <= 40 else None,
             "optimal": best.cost if best.solved else None, "moves": verdict.cost,
             "seconds": round(float(seconds), 1), "hint": hint_level,
             "route": [m.text() for m in route]}
    current_app.extensions["companion.table"].pages.add_practice(entry)
    return jsonify({"ok": True, "entry": entry})
