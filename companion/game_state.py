"""The state of a game of Ricochet Robots and the questions asked of it.

:class:`State` is everything a game is at one moment: the players and their chips, the board
and the robots, the deck, the round in play with its bids and timer, the rounds finished. What
the clock and the verdicts do to it (the no-bid timeout, the timer running out, the next
demonstrator, a chip won or returned, the end of the round and of the game, a new game's
set-up) is :class:`companion.game_course.Course`'s, so the commands
(:class:`companion.game.Game`), the referee's corrections (:mod:`companion.corrections`) and
the view (:mod:`companion.game_view`) all move and read one state the same way. Pure, like
the game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from . import i18n
from .board import COLORS, SHAPES, VORTEX, Board, BoardError, Cell, cell_name, parse_cell
from .errors import CompanionError
from .i18n import Message
from .rules import (
    FIFTH_ROBOTS,
    ROBOTS,
    TRANSPARENT,
    Goal,
    Move,
    Position,
    Rules,
    validate_route,
)

Event = dict[str, Any]
Command = dict[str, Any]

CHIPS: tuple[str, ...] = tuple(f"{c} {s}" for c in COLORS for s in SHAPES) + (VORTEX,)
PHASES = ("setup", "idle", "bidding", "timer", "demonstrating", "round_over", "game_over")
MAX_BID = 99
MAX_REASON = 300  # characters of a verdict's reason given with the command
MAX_PLAYERS = 12


class Failure(StrEnum):
    """Why a demonstration failed, as the verdict's ``result`` says it (the reason's words are
    for people; this is what code reads)."""

    GAVE_UP = "gave_up"  # the demonstrator gave up
    OVER_BID = "over_bid"  # more moves than the bid, or not exactly the bid
    INCOMPLETE = "incomplete"  # done, or no moves, without reaching the target
    ILLEGAL = "illegal"  # a move the rules do not allow, or the table's (camera's) judgement



class GameError(CompanionError, ValueError):
    """A command the game refuses; the message is meant for the players.

    ``events``: what time itself did before the command was refused (the timer may have run
    out just before a late bid); those stand."""

    def __init__(self, message: str, events: list[Event] | None = None) -> None:
        super().__init__(message)
        self.events = events or []


# ---------------------------------------------------------------- state


@dataclass
class Player:
    name: str
    won: list[str] = field(default_factory=list)  # chips won (solo: face up)
    face_down: list[str] = field(default_factory=list)  # solo: chips not solved in time

    @property
    def chips(self) -> int:
        return len(self.won) + len(self.face_down)


@dataclass
class Bid:
    seat: int
    value: int
    at: float  # when this number was bid
    seq: int  # order of bids with the same ``at``
    status: str = "waiting"  # waiting | demonstrating | failed | succeeded | withdrawn


@dataclass
class Timer:
    duration: float
    started_at: float | None = None  # start of the current running stretch
    used: float = 0.0  # seconds used before the current stretch
    running: bool = False
    run: int = 0  # which run of the hourglass (solo easy mode has two)

    def remaining(self, now: float) -> float:
        spent = self.used + (now - self.started_at if self.running and self.started_at is not None
                             else 0.0)
        return max(0.0, self.duration - spent)

    def ends_at(self) -> float | None:
        if not self.running or self.started_at is None:
            return None
        return self.started_at + self.duration - self.used


@dataclass
class Round:
    number: int
    chip: str
    revealed_at: float
    snapshot: dict[str, Cell]
    timer: Timer
    bids: dict[int, Bid] = field(default_factory=dict)
    queue: list[int] = field(default_factory=list)  # seats in demonstration order
    demonstrator: int | None = None
    moves: list[str] = field(default_factory=list)
    optimum: int | None = None
    hint: int = 0  # solo: the highest hint level taken (0: none)


@dataclass
class State:
    """Everything a game of Ricochet Robots is at one moment (the journal rebuilds it, an undo
    puts back a copy) and the questions asked of it; what the clock and the verdicts do to it
    is the :class:`companion.game_course.Course`'s."""

    phase: str = "setup"
    now: float = -math.inf
    players: list[Player] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)
    board: Board | None = None
    robots: dict[str, Cell] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    seed: int | None = None
    solo_runs: int = 1
    round: Round | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)  # finished rounds, for history
    seq: int = 0
    winners: list[int] = field(default_factory=list)
    # The last demonstration's verdict (seat, name, bid, success, reason, by, moves): part of
    # the journaled state, so a restart or an undo shows the verdict the journal says.
    verdict: dict[str, Any] | None = None

    @property
    def solo(self) -> bool:
        return len(self.players) == 1

    # -- questions

    def name(self, seat: int) -> str:
        return self.players[seat].name

    def cells(self, robots: Mapping[str, Cell]) -> dict[str, str]:
        w = self.board.width if self.board is not None else 16
        return {r: cell_name(c, w) for r, c in sorted(robots.items(),
                                                       key=lambda kv: ROBOTS.index(kv[0]))}

    def in_play(self) -> bool:
        """Is a chip out on the board right now (revealed, not yet won or returned)?"""
        return self.phase in ("bidding", "timer", "demonstrating")

    def bid_key(self, b: Bid) -> tuple:
        if self.rules.tie == "fewer_chips_then_bid_order":
            return (b.value, self.players[b.seat].chips, b.at, b.seq)
        return (b.value, b.at, b.seq)

    def ordered_bids(self) -> list[Bid]:
        r = self.round
        if r is None or not self.in_play():
            return []
        return sorted(r.bids.values(), key=self.bid_key)

    def goal(self, chip: str) -> Goal | None:
        if self.board is None:
            return None
        color, shape = chip_parts(chip)
        try:
            t = self.board.target_by(color, shape)
        except BoardError:
            return None
        return Goal(t.cell, "any" if shape == VORTEX else color, color, shape)

    def seat(self, cmd: Mapping[str, Any], key: str = "seat") -> int:
        seat = cmd.get(key)
        n = len(self.players)
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise GameError(f"say which player: '{key}' is a seat number from 0 to {n - 1}")
        if not 0 <= seat < n:
            who = ", ".join(f"{i} {p.name}" for i, p in enumerate(self.players))
            raise GameError(Message("refuse.no_seat", seat=seat, seats=who))
        return seat

    def parse_robots(self, raw: Any, field_name: str = "robots") -> dict[str, Cell]:
        if not isinstance(raw, Mapping) or not raw:
            raise GameError(f"{field_name}: an object like {{\"red\": \"c2\", ...}}")
        rules, board = self.rules, self.board
        out: dict[str, Cell] = {}
        taken: dict[Cell, str] = {}
        for name, where in raw.items():
            if name not in ROBOTS:
                raise GameError(f"{field_name}.{name}: unknown robot (known: {', '.join(ROBOTS)})")
            if name in FIFTH_ROBOTS and name != rules.fifth_robot:
                if rules.fifth_robot == "none":
                    raise GameError(f"{field_name}.{name}: {rules.preset} has no 5th robot")
                raise GameError(f"{field_name}.{name}: the 5th robot of {rules.preset} is "
                                f"{rules.fifth_robot}")
            if name == TRANSPARENT and not rules.transparent_robot:
                raise GameError(f"{field_name}.transparent: the transparent robot is a variant; "
                                "turn on the rule option transparent_robot")
            try:
                c = board.cell(where) if board is not None else parse_cell(where)
            except (ValueError, TypeError, AttributeError):
                raise GameError(f"{field_name}.{name}: {where!r} is not a cell like 'c2'") from None
            if board is not None and c in board.blocked:
                raise GameError(Message("refuse.cell_centre", field=f"{field_name}.{name}",
                                        cell=where))
            if (board is not None and board.diagonal_at(c) is not None
                    and rules.barrier_stop == "illegal"):
                raise GameError(Message("refuse.cell_barrier", field=f"{field_name}.{name}",
                                        cell=where))
            if c in taken:
                raise GameError(Message("refuse.cell_taken", field=f"{field_name}.{name}",
                                        cell=where, robot=i18n.color(taken[c])))
            taken[c] = name
            out[name] = c
        return out

    def judge(self, moves: list[str]):
        s, r = self, self.round
        assert r is not None
        goal = self.goal(r.chip)
        if s.board is None or goal is None:
            raise GameError("the companion does not know the board, so it cannot follow the "
                            "moves; judge the demonstration with a verdict")
        pos = Position(s.board, {k: r.snapshot[k] for k in sorted(r.snapshot, key=ROBOTS.index)},
                       goal, s.rules)
        bid = r.bids[r.demonstrator].value if r.demonstrator in r.bids else None
        return validate_route(pos, [Move.parse(m) for m in moves], bid)


def shift(state: State, delta: float) -> None:
    """Move every time the game keeps by ``delta`` seconds (the clock restarted)."""
    if not delta:
        return
    if math.isfinite(state.now):
        state.now += delta
    r = state.round
    if r is None:
        return
    r.revealed_at += delta
    if r.timer.started_at is not None:
        r.timer.started_at += delta
    for b in r.bids.values():
        b.at += delta


# ---------------------------------------------------------------- chips


def chip_parts(chip: str) -> tuple[str, str]:
    if chip == VORTEX:
        return "any", VORTEX
    color, shape = chip.split()
    return color, shape


def parse_chip(raw: Any) -> str:
    """``"red circle"``, ``"red-circle"``, ``{"color": "red", "shape": "circle"}``, ``"vortex"``."""
    if isinstance(raw, Mapping):
        if raw.get("shape") == VORTEX:
            return VORTEX
        raw = f"{raw.get('color')} {raw.get('shape')}"
    if isinstance(raw, str):
        text = " ".join(raw.strip().lower().replace("-", " ").replace("_", " ").split())
        if text in ("vortex", "any vortex", "multi vortex", "multicolored vortex"):
            return VORTEX
        if text in CHIPS:
            return text
    raise GameError(f"{raw!r} is not a target chip (chips are like 'red circle' or 'vortex')")
