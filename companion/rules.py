"""The rules: options and edition presets, slides, legal moves, positions, route validation.

Everything a referee needs to decide about a route lives here, in one place:

* :class:`Rules` — every rule option of RULES.md; :data:`PRESETS` — the editions.
* :class:`Move` — ``blue up`` as a value; the transparent robot writes its choice at each
  obstacle it meets, in order: ``transparent up +wall +wall`` passes the first two walls and
  stops at the third; ``transparent left bounce +barrier`` is turned by the first barrier and
  goes through the second.
* :func:`slide` — where one robot goes; :class:`Position` — a board, robots, a target, rules;
  :func:`validate_route` — *which* move broke *which* rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from . import i18n
from .board import (
    COLORS,
    DIRECTIONS,
    SHAPES,
    STEP,
    VORTEX,
    Board,
    BoardError,
    Cell,
    Direction,
)
from .errors import CompanionError
from .i18n import Message

ROBOTS = ("red", "green", "blue", "yellow", "black", "silver", "transparent")
FIFTH_ROBOTS = ("black", "silver")
TRANSPARENT = "transparent"
POSITION_FORMAT = "ricochet-position/1"
# The transparent robot may pass at most this many walls and barriers in one move when the
# legal moves are listed (a route may say more; a 16×16 board never needs more than 15).
MAX_PASSES = 15


class PositionError(CompanionError, ValueError):
    """A position that cannot be used; the message names the field that is wrong."""


class InvalidMoveError(CompanionError, ValueError):
    """Text that is not a move at all (``"blue sideways"``)."""


class IllegalMoveError(CompanionError, ValueError):
    """A well-formed move that the rules do not allow here; ``rule`` names the rule."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


# ---------------------------------------------------------------- rule options


@dataclass(frozen=True)
class Rules:
    """Every rule option of RULES.md, with the defaults of the ``abacus-2013`` preset."""

    ricochet: str = "strict"  # strict | lenient | off
    diagonal_counts_as_ricochet: bool = True
    immediate_reversal: str = "allowed"  # allowed | forbidden
    barrier_stop: str = "illegal"  # illegal | allowed
    tie: str = "bid_order"  # bid_order | fewer_chips_then_bid_order
    success: str = "at_most"  # at_most (route ≤ bid) | exactly (Micro Robots)
    timer_seconds: float = 60
    no_bid_seconds: float = 240
    fifth_robot: str = "black"  # the 5th robot's name in this edition: black | silver | none
    transparent_robot: bool = False  # the transparent-robot variant
    tile_sides: str = "ABCD"  # which tile sides the edition ships
    solo: bool = True  # the edition describes solo play
    chips_to_win: int | None = None  # None: 8/6/5 for 2/3/4 players, all 17 for more
    preset: str = "abacus-2013"

    _CHOICES = {
        "ricochet": ("strict", "lenient", "off"),
        "immediate_reversal": ("allowed", "forbidden"),
        "barrier_stop": ("illegal", "allowed"),
        "tie": ("bid_order", "fewer_chips_then_bid_order"),
        "success": ("at_most", "exactly"),
        "fifth_robot": ("black", "silver", "none"),
    }

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls) if f.name != "preset")

    @classmethod
    def from_spec(cls, spec: str | Mapping[str, Any] | None) -> Rules:
        """A preset name, or an object of options over a preset (``"preset"`` key, default
        ``abacus-2013``). Unknown names and bad values raise :class:`PositionError`."""
        if spec is None:
            return PRESETS["abacus-2013"]
        if isinstance(spec, str):
            if spec not in PRESETS:
                raise PositionError(
                    f"rules: unknown preset {spec!r} (known: {', '.join(PRESETS)})"
                )
            return PRESETS[spec]
        if not isinstance(spec, Mapping):
            raise PositionError("rules: a preset name or an object of rule options")
        base = cls.from_spec(spec.get("preset", "abacus-2013"))
        changes: dict[str, Any] = {}
        for key, value in spec.items():
            if key == "preset":
                continue
            if key not in cls.option_names():
                raise PositionError(
                    f"rules.{key}: unknown rule option (known: {', '.join(cls.option_names())})"
                )
            changes[key] = _check_option(key, value)
        return replace(base, **changes)

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest spec that reads back as these rules: a preset name, or the differences."""
        base = PRESETS[self.preset]
        diff = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)
        }
        if not diff:
            return self.preset
        return {"preset": self.preset, **diff} if self.preset != "abacus-2013" else diff

    def chips_needed(self, players: int) -> int:
        """Chips that end the game: 8/6/5 for 2/3/4 players, all 17 for more (or the custom
        count)."""
        if self.chips_to_win is not None:
            return self.chips_to_win
        return {1: 17, 2: 8, 3: 6, 4: 5}.get(players, 17)


def _check_option(key: str, value: Any) -> Any:
    choices = Rules._CHOICES.get(key)
    if choices is not None:
        if value not in choices:
            raise PositionError(f"rules.{key}: {value!r} is not one of {', '.join(choices)}")
        return value
    if key in ("diagonal_counts_as_ricochet", "transparent_robot", "solo"):
        if not isinstance(value, bool):
            raise PositionError(f"rules.{key}: true or false, not {value!r}")
        return value
    if key in ("timer_seconds", "no_bid_seconds"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise PositionError(f"rules.{key}: a positive number of seconds, not {value!r}")
        return value
    if key == "chips_to_win":
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 17
        ):
            raise PositionError(f"rules.chips_to_win: a whole number from 1 to 17, not {value!r}")
        return value
    if key == "tile_sides":
        if not isinstance(value, str) or not value or set(value) - set("ABCD"):
            raise PositionError(f"rules.tile_sides: letters from ABCD, not {value!r}")
        return value
    raise PositionError(f"rules.{key}: unknown rule option")  # pragma: no cover


PRESETS: dict[str, Rules] = {
    "abacus-2013": Rules(),
    "riogrande-2003": Rules(
        tie="fewer_chips_then_bid_order", immediate_reversal="forbidden", fifth_robot="silver",
        solo=False, preset="riogrande-2003",
    ),
    "classic-1999": Rules(
        tie="fewer_chips_then_bid_order", fifth_robot="none", tile_sides="AB", solo=False,
        preset="classic-1999",
    ),
    "micro-robots": Rules(
        ricochet="off", tie="bid_order", success="exactly", fifth_robot="none", solo=False,
        timer_seconds=150, no_bid_seconds=150, preset="micro-robots",
    ),
}


# ---------------------------------------------------------------- moves


@dataclass(frozen=True)
class Move:
    """One slide of one robot: ``Move("blue", UP)`` reads and prints as ``blue up``.

    ``passes`` is for the transparent robot only: its choice at each obstacle it meets, in
    order: ``+wall`` goes through a wall (else it stops there), ``+barrier`` goes through a
    diagonal barrier, each costing one more; ``bounce`` takes a barrier's turn, which is the
    default and is written only when a later pass follows it.

    >>> Move.parse("transparent up +wall").cost
    2
    """

    robot: str
    direction: Direction
    passes: tuple[str, ...] = ()

    @property
    def cost(self) -> int:
        return 1 + sum(1 for p in self.passes if p != "bounce")

    def text(self) -> str:
        words = [p if p == "bounce" else f"+{p}" for p in self.passes]
        return " ".join([self.robot, self.direction.word, *words])

    __str__ = text

    def message(self) -> Message:
        """The move for players: its robot's colour and its direction in their language."""
        return i18n.move(self.robot, self.direction.word, " ".join(self.text().split()[2:]))

    @classmethod
    def parse(cls, text: object) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move is text like 'blue up', not {text!r}")
        words = text.strip().lower().split()
        if len(words) < 2:
            raise InvalidMoveError(f"{text.strip()!r} is not a move: say a robot and a direction")
        robot, direction, *rest = words
        if robot not in ROBOTS:
            raise InvalidMoveError(f"{text.strip()!r}: unknown robot {robot!r}")
        try:
            d = Direction.parse(direction)
        except ValueError as e:
            raise InvalidMoveError(f"{text.strip()!r}: {e}") from None
        passes = []
        for w in rest:
            if w not in ("+wall", "+barrier", "bounce"):
                raise InvalidMoveError(
                    f"{text.strip()!r}: {w!r} is not '+wall', '+barrier' or 'bounce'"
                )
            passes.append(w.lstrip("+"))
        if passes and passes[-1] == "bounce":
            raise InvalidMoveError(
                f"{text.strip()!r}: a final 'bounce' is the default; leave it out"
            )
        if passes and robot != TRANSPARENT:
            raise InvalidMoveError(f"{text.strip()!r}: only the transparent robot passes walls")
        return cls(robot, d, tuple(passes))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"robot": self.robot, "direction": self.direction.word}
        if self.passes:
            out["passes"] = list(self.passes)
        return out


def parse_route(text: str) -> list[Move]:
    """``"blue up, red left"`` → moves. Commas or semicolons separate moves."""
    parts = [p for p in text.replace(";", ",").replace("\n", ",").split(",") if p.strip()]
    return [Move.parse(p) for p in parts]


def format_route(moves: Iterable[Move]) -> str:
    return ", ".join(m.text() for m in moves)


# ---------------------------------------------------------------- slides


@dataclass(frozen=True)
class Slide:
    """What one slide does: where it ends, the cells it crosses, how it turned."""

    start: Cell
    end: Cell
    direction: Direction
    final_direction: Direction
    path: tuple[Cell, ...]
    deflected: bool
    cost: int
    error: str | None = None  # why the slide is not a legal move (rule in ``rule``)
    rule: str | None = None
    next_choice: str | None = None  # transparent robot: the first obstacle it did not choose at

    @property
    def moved(self) -> bool:
        return self.end != self.start


_STEPS = {d: dx + 16 * dy for d, (dx, dy) in STEP.items()}  # on a 16 x 16 board


def slide(
    board: Board,
    occupied: Iterable[Cell] | frozenset[Cell],
    start: Cell,
    robot: str,
    direction: Direction,
    passes: tuple[str, ...] = (),
    rules: Rules | None = None,
) -> Slide:
    """Slide ``robot`` from ``start`` until the next obstacle.

    ``occupied`` is every *other* robot's cell. Walls, the board edge and the centre block stop
    it; openings wrap it to the far end of the row or column (stopping at the exit side when the
    re-entry cell is taken); a barrier of another colour turns it 90°. The transparent robot
    follows its choices in ``passes``, one per obstacle it meets: ``"wall"`` passes a wall
    (else it stops there), ``"barrier"`` passes a barrier and ``"bounce"`` is turned by it (the
    default once the choices run out). The slide's ``error`` says why it is not a legal move
    (no move at all, stopping on a barrier, an endless loop, a choice that does not fit).
    """
    rules = rules or PRESETS["abacus-2013"]
    occ = occupied if isinstance(occupied, frozenset) else frozenset(occupied)
    if not passes and robot != TRANSPARENT and not board.openings and not board.diagonals:
        return _straight_slide(board, occ, start, direction)
    tokens = list(passes)
    cell, d = start, direction
    path = [start]
    deflected = False
    cost = 1
    seen = {(cell, d, len(tokens))}
    error = rule = next_choice = None
    transparent = robot == TRANSPARENT
    nxt: Cell | None
    while True:
        if board.is_opening(cell, d):
            nxt = board.wrap(cell, d)
            if nxt in occ or nxt in board.blocked:
                break
        elif board.has_wall(cell, d):
            nxt = board.neighbour(cell, d)
            passable = transparent and not board.is_solid(cell, d) and nxt not in occ
            if passable and tokens and tokens[0] == "wall":
                tokens.pop(0)
                cost += 1
            else:
                if passable and not tokens and next_choice is None:
                    next_choice = "wall"
                break
        else:
            nxt = board.neighbour(cell, d)
            if nxt in occ:
                break
        assert nxt is not None
        cell = nxt
        path.append(cell)
        diag = board.diagonal_at(cell)
        if diag is not None and diag.color != robot:
            if transparent and tokens:
                token = tokens.pop(0)
                if token == "barrier":
                    cost += 1
                elif token == "bounce":
                    d = diag.turn(d)
                    deflected = True
                else:
                    error = Message("slide.pass_mismatch", cell=board.name(cell),
                                    token=Message(f"pass.{token}"))
                    rule = "pass_mismatch"
                    break
            else:
                if transparent and next_choice is None:
                    next_choice = "barrier"
                d = diag.turn(d)
                deflected = True
        state = (cell, d, len(tokens))
        if state in seen:
            error, rule = Message("slide.endless_loop"), "endless_loop"
            break
        seen.add(state)
    if error is None:
        error, rule = _end_error(board, rules, start, cell, tokens)
    return Slide(start, cell, direction, d, tuple(path), deflected, cost, error, rule,
                 next_choice)


def _straight_slide(board: Board, occ: frozenset[Cell], start: Cell,
                    direction: Direction) -> Slide:
    """The common case, a straight line: only walls (the edge and the centre block's
    included) and robots stop it, and it cannot loop."""
    walls = board.walls
    step = _STEPS[direction] if board.width == 16 else \
        STEP[direction][0] + STEP[direction][1] * board.width
    cell = start
    line = [start]
    while (cell, direction) not in walls:
        ahead = cell + step
        if ahead in occ:
            break
        cell = ahead
        line.append(cell)
    if cell == start:
        return Slide(start, cell, direction, direction, (start,), False, 1,
                     Message("slide.no_move"), "no_move")
    return Slide(start, cell, direction, direction, tuple(line), False, 1)


def _end_error(board: Board, rules: Rules, start: Cell, cell: Cell,
               tokens: list[str]) -> tuple[Message | None, str | None]:
    """Why a slide that ended on ``cell`` with ``tokens`` unused is not a legal move."""
    if cell == start:
        return Message("slide.no_move"), "no_move"
    if tokens:
        return (Message("slide.unused_pass", cell=board.name(cell),
                        token=Message(f"pass.{tokens[0]}")), "unused_pass")
    if board.diagonal_at(cell) is not None and rules.barrier_stop == "illegal":
        return Message("slide.barrier_stop", cell=board.name(cell)), "barrier_stop"
    return None, None


def transparent_options(
    board: Board, occupied: frozenset[Cell], start: Cell, direction: Direction,
    rules: Rules, limit: int = MAX_PASSES,
) -> Iterator[tuple[tuple[str, ...], Slide]]:
    """Every legal choice of the transparent robot in one direction (stop or pass at each
    wall, bounce or pass at each barrier), as ``(passes, slide)``, each written once."""
    stack: list[tuple[str, ...]] = [()]
    while stack:
        passes = stack.pop()
        s = slide(board, occupied, start, TRANSPARENT, direction, passes, rules)
        if s.error is None and (not passes or passes[-1] != "bounce"):
            yield passes, s
        if s.next_choice is None or s.rule == "endless_loop" or s.cost - 1 >= limit:
            continue
        stack.append((*passes, s.next_choice))
        if s.next_choice == "barrier":
            stack.append((*passes, "bounce"))


# ---------------------------------------------------------------- targets and positions


@dataclass(frozen=True)
class Goal:
    """The round's target: a cell and who may claim it (a colour, or ``"any"`` for the vortex).

    ``color``/``shape`` name the printed target when the position named it that way."""

    cell: Cell
    robot: str
    color: str | None = None
    shape: str | None = None

    @property
    def is_vortex(self) -> bool:
        return self.robot == "any"

    def claims(self, robot: str) -> bool:
        return self.robot == "any" or self.robot == robot

    def message(self, board: Board) -> Message:
        """:meth:`label` for players: ``the blue triangle``, ``the vortex``, ``k10 for blue``."""
        if self.color and self.shape:
            if self.shape == VORTEX:
                return Message("goal.vortex")
            return Message("goal.chip", chip=i18n.chip(f"{self.color} {self.shape}"))
        if self.is_vortex:
            return Message("goal.cell_any", cell=board.name(self.cell))
        return Message("goal.cell", cell=board.name(self.cell), robot=i18n.color(self.robot))

    def label(self, board: Board) -> str:
        if self.color and self.shape:
            return "the vortex" if self.shape == VORTEX else f"the {self.color} {self.shape}"
        who = "any robot" if self.is_vortex else self.robot
        return f"{board.name(self.cell)} for {who}"


_POSITION_KEYS = {"format", "board", "robots", "target", "rules"}


@dataclass(frozen=True)
class Position:
    """A board, where each robot stands, the round's target and the rules.

    ``robots`` maps a robot name to its cell, in the canonical order of :data:`ROBOTS`.
    """

    board: Board
    robots: Mapping[str, Cell]
    target: Goal | None
    rules: Rules = field(default_factory=Rules)

    # -- reading and writing
    @classmethod
    def from_dict(cls, data: Any) -> Position:
        if not isinstance(data, dict):
            raise PositionError("position: a JSON object with board, robots and target")
        unknown = set(data) - _POSITION_KEYS
        if unknown:
            raise PositionError(f"position: unknown key {sorted(unknown)[0]!r}")
        if "format" in data and data["format"] != POSITION_FORMAT:
            raise PositionError(f"format: {data['format']!r} is not {POSITION_FORMAT!r}")
        if "board" not in data:
            raise PositionError("board: missing")
        try:
            board = Board.from_dict(data["board"])
        except BoardError as e:
            raise PositionError(str(e)) from None
        rules = Rules.from_spec(data.get("rules"))
        raw = data.get("robots")
        if not isinstance(raw, dict) or not raw:
            raise PositionError("robots: an object like {\"red\": \"c2\", ...}")
        robots: dict[str, Cell] = {}
        where: dict[Cell, str] = {}
        for name in raw:
            if name not in ROBOTS:
                raise PositionError(f"robots.{name}: unknown robot (known: {', '.join(ROBOTS)})")
        for name in sorted(raw, key=ROBOTS.index):
            try:
                c = board.cell(raw[name])
            except ValueError as e:
                raise PositionError(f"robots.{name}: {e}") from None
            if c in board.blocked:
                raise PositionError(f"robots.{name}: {raw[name]} is in the centre block")
            if board.diagonal_at(c) is not None and rules.barrier_stop == "illegal":
                raise PositionError(f"robots.{name}: {raw[name]} is a diagonal barrier cell")
            if c in where:
                raise PositionError(
                    f"robots.{name}: {raw[name]} is already taken by the {where[c]} robot"
                )
            where[c] = name
            robots[name] = c
        if sum(1 for r in robots if r in FIFTH_ROBOTS) > 1:
            raise PositionError("robots: black and silver are the same 5th robot; use one")
        target = None
        if data.get("target") is not None:
            target = _parse_target(board, data["target"], robots)
        return cls(board, robots, target, rules)

    @classmethod
    def from_json(cls, text: str) -> Position:
        from .inputs import InputError, parse_json

        try:
            data = parse_json(text)
        except InputError as e:
            raise PositionError(f"position: {e}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Position:
        from .inputs import InputError, read_model

        try:
            position: Position = read_model(path, "position", "position", cls.from_dict)
        except InputError as e:
            raise PositionError(str(e)) from None
        return position

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "board": self.board.to_dict(),
            "robots": {name: self.board.name(c) for name, c in self.robots.items()},
        }
        if self.target is not None:
            t = self.target
            if t.color is not None and t.shape is not None:
                out["target"] = {"color": t.color, "shape": t.shape}
            else:
                out["target"] = {"cell": self.board.name(t.cell), "robot": t.robot}
        if self.rules != PRESETS["abacus-2013"]:
            out["rules"] = self.rules.to_spec()
        return out

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    # -- playing
    def with_robots(self, robots: Mapping[str, Cell]) -> Position:
        return replace(self, robots={r: robots[r] for r in sorted(robots, key=ROBOTS.index)})

    def with_target(self, target: Goal | None) -> Position:
        return replace(self, target=target)

    def occupied_by_others(self, robot: str) -> frozenset[Cell]:
        return frozenset(c for r, c in self.robots.items() if r != robot)

    def slide(self, move: Move) -> Slide:
        if move.robot not in self.robots:
            raise IllegalMoveError(Message("route.no_robot", robot=i18n.color(move.robot)),
                                   "no_robot")
        return slide(self.board, self.occupied_by_others(move.robot), self.robots[move.robot],
                     move.robot, move.direction, move.passes, self.rules)

    def push(self, move: Move) -> Position:
        """The position after ``move``; :class:`IllegalMoveError` if the slide is not legal."""
        s = self.slide(move)
        if s.error:
            raise IllegalMoveError(Message("route.illegal_move", move=move.message(),
                                           why=s.error), s.rule or "illegal")
        return self.with_robots({**self.robots, move.robot: s.end})

    def legal_moves(self) -> Iterator[tuple[Move, Slide]]:
        """Every legal move here (reversals included: whether one is allowed depends on the
        route so far, which :func:`validate_route` knows)."""
        for robot, cell in self.robots.items():
            occ = self.occupied_by_others(robot)
            for d in DIRECTIONS:
                if robot == TRANSPARENT:
                    for passes, s in transparent_options(self.board, occ, cell, d, self.rules):
                        yield Move(robot, d, passes), s
                    continue
                s = slide(self.board, occ, cell, robot, d, (), self.rules)
                if s.error is None:
                    yield Move(robot, d), s

    def active_robots(self) -> tuple[str, ...]:
        """The robots that may claim the target."""
        if self.target is None:
            return ()
        return tuple(r for r in self.robots if self.target.claims(r))


def _parse_target(board: Board, raw: Any, robots: Mapping[str, Cell]) -> Goal:
    if not isinstance(raw, dict):
        raise PositionError("target: an object like {\"color\": \"blue\", \"shape\": \"triangle\"}")
    keys = set(raw)
    if keys <= {"color", "shape"} and keys:
        color, shape = raw.get("color"), raw.get("shape")
        if shape == VORTEX or color in ("any", "multi"):
            color, shape = "any", VORTEX
        if color not in COLORS and color != "any":
            raise PositionError(f"target.color: {color!r} is not red, green, blue or yellow")
        if shape not in SHAPES and shape != VORTEX:
            raise PositionError(
                f"target.shape: {shape!r} is not one of {', '.join((*SHAPES, VORTEX))}"
            )
        try:
            t = board.target_by(color, shape)
        except BoardError:
            what = "the vortex" if shape == VORTEX else f"a {color} {shape}"
            raise PositionError(f"target: the board has no {what}") from None
        robot = "any" if t.is_vortex else color
        goal = Goal(t.cell, robot, raw.get("color", color) if shape != VORTEX else "any", shape)
        return goal
    if keys <= {"cell", "robot"} and "cell" in keys:
        try:
            c = board.cell(raw["cell"])
        except ValueError as e:
            raise PositionError(f"target.cell: {e}") from None
        if c in board.blocked:
            raise PositionError(f"target.cell: {raw['cell']} is in the centre block")
        robot = raw.get("robot", "any")
        if robot != "any" and robot not in ROBOTS:
            raise PositionError(f"target.robot: unknown robot {robot!r} (or 'any' for the vortex)")
        if robot != "any" and robot not in robots:
            raise PositionError(f"target.robot: there is no {robot} robot on the board")
        return Goal(c, robot)
    bad = sorted(keys - {"color", "shape", "cell", "robot"})
    if bad:
        raise PositionError(f"target: unknown key {bad[0]!r}")
    raise PositionError("target: give color and shape, or cell and robot")


# ---------------------------------------------------------------- route validation


@dataclass(frozen=True)
class RouteResult:
    """The verdict on a route: is every move legal, does it reach the target, does it meet the
    bid. ``reason`` says which move broke which rule (``rule`` is its short name)."""

    legal: bool
    reason: str | None
    rule: str | None
    moves: int  # legal moves made
    cost: int  # their total cost (moves, plus the transparent robot's passes)
    reached: bool
    meets_bid: bool | None
    robots: dict[str, Cell]
    failed_move: int | None = None  # index of the move that broke a rule

    def to_json(self, board: Board) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reason": self.reason,
            "moves": self.moves,
            "cost": self.cost,
            "reached": self.reached,
            "meets_bid": self.meets_bid,
            "robots": {r: board.name(c) for r, c in self.robots.items()},
        }


def ricochet_done(rules: Rules, history: list[tuple[Direction, Direction, bool]]) -> bool:
    """Has a robot whose own moves were ``(direction, final_direction, deflected)`` turned 90°
    as the must-ricochet rule (strict) asks?"""
    for i, (_d, _fd, deflected) in enumerate(history):
        if deflected and rules.diagonal_counts_as_ricochet:
            return True
        if i and history[i - 1][1].is_perpendicular(history[i][0]):
            return True
    return False


def validate_route(
    position: Position, route: Iterable[Move], bid: int | None = None
) -> RouteResult:
    """Play ``route`` from ``position`` and judge it by every rule of ``position.rules``."""
    rules = position.rules
    robots = dict(position.robots)
    board = position.board
    history: dict[str, list[tuple[Direction, Direction, bool]]] = {r: [] for r in robots}
    last_robot: str | None = None
    moves = cost = 0
    reason = rule = None
    failed = None
    route = list(route)
    for i, move in enumerate(route):
        def at_move(why: Any, i: int = i, move: Move = move) -> Message:
            return Message("route.move", n=i + 1, move=move.message(), why=why)
        if move.robot not in robots:
            reason, rule, failed = at_move(Message("route.no_robot", robot=i18n.color(
                move.robot))), "no_robot", i
            break
        if (
            rules.immediate_reversal == "forbidden"
            and last_robot == move.robot
            and history[move.robot]
            and history[move.robot][-1][1].opposite == move.direction
        ):
            reason = at_move(Message("route.reversal", robot=i18n.color(move.robot),
                                     preset=rules.preset))
            rule, failed = "immediate_reversal", i
            break
        s = slide(board, frozenset(c for r, c in robots.items() if r != move.robot),
                  robots[move.robot], move.robot, move.direction, move.passes, rules)
        if s.error:
            reason, rule, failed = at_move(s.error), s.rule, i
            break
        robots[move.robot] = s.end
        history[move.robot].append((s.direction, s.final_direction, s.deflected))
        last_robot = move.robot
        moves += 1
        cost += s.cost

    reached = False
    goal = position.target
    if goal is not None and failed is None and route:
        arriving = route[-1].robot
        reached = goal.claims(arriving) and robots.get(arriving) == goal.cell
        if reached and rules.ricochet == "strict" and not ricochet_done(rules, history[arriving]):
            reached = False
            reason = Message("route.no_ricochet", robot=i18n.color(arriving),
                             goal=goal.message(board))
            rule = "ricochet"
        elif reached and rules.ricochet == "lenient" and moves == 1:
            reached = False
            reason = Message("route.one_slide", robot=i18n.color(arriving),
                             goal=goal.message(board))
            rule = "ricochet"
        elif not reached:
            reason = (Message("route.not_reached_any", goal=goal.message(board))
                      if goal.is_vortex else
                      Message("route.not_reached", robot=i18n.color(goal.robot),
                              goal=goal.message(board)))
            rule = "not_reached"
    elif goal is not None and failed is None:
        reason, rule = Message("route.empty"), "not_reached"

    meets = None
    if bid is not None:
        ok_count = cost == bid if rules.success == "exactly" else cost <= bid
        meets = reached and ok_count
    return RouteResult(failed is None, reason, rule, moves, cost, reached, meets, robots, failed)
