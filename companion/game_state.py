"""The state of a game of Ricochet Robots, and how the clock and the verdicts move it on.

:class:`companion.game.Game` reads a command and decides whether it stands; what happens next
on its own (the no-bid timeout, the timer running out, the next demonstrator, a chip won or
returned, the end of the round and of the game) is the :class:`State`'s, so the commands, the
referee's corrections (:mod:`companion.corrections`) and the view (:mod:`companion.game_view`)
all move and read one state the same way. Pure, like the game.
"""

from __future__ import annotations

import copy
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
    puts back a copy), the questions asked of it, and what the clock and the verdicts do to it:
    the timer started and run out, the demonstrators in turn, a chip won or returned, the end of
    the round and of the game. Each change returns the events it caused."""

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

    # -- the clock and the round

    def advance(self, now: float) -> list[Event]:
        s = self
        events: list[Event] = []
        now = max(now, s.now)
        while True:
            r = s.round
            if r is None:
                break
            if s.phase == "bidding" and not s.solo:
                due = r.revealed_at + s.rules.no_bid_seconds
                if due > now:
                    break
                events += self.start_timer(due, "no_bid")
                continue
            if s.phase == "timer":
                end = r.timer.ends_at()
                if end is None or end > now:
                    break
                events += self.timer_end(end)
                continue
            break
        s.now = now
        return events

    def start_timer(self, at: float, reason: str) -> list[Event]:
        r = self.round
        assert r is not None
        r.timer = Timer(float(self.rules.timer_seconds), at, 0.0, True, r.timer.run + 1)
        self.phase = "timer"
        self.now = max(self.now, at)
        return [{"type": "timer_started", "at": at, "reason": reason,
                 "duration": r.timer.duration, "ends_at": r.timer.ends_at(), "run": r.timer.run}]

    def timer_end(self, at: float) -> list[Event]:
        s, r = self, self.round
        assert r is not None
        r.timer.used = r.timer.duration
        r.timer.running = False
        s.now = max(s.now, at)
        events: list[Event] = [{"type": "timer_ended", "at": at, "run": r.timer.run}]
        if s.solo:
            if r.timer.run < s.solo_runs:
                return events + self.start_timer(at, "second_run")
            s.players[0].face_down.append(r.chip)
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self.name(0),
                           "chip": r.chip, "face": "down"})
            return events + self.end_round(at, None)
        if not r.bids:
            return events + self.return_chip(at, "nobody bid")
        r.queue = [b.seat for b in sorted(r.bids.values(), key=self.bid_key)]
        s.phase = "demonstrating"
        return events + self.next_demonstrator(at)

    def next_demonstrator(self, at: float) -> list[Event]:
        r = self.round
        assert r is not None
        for seat in r.queue:
            b = r.bids[seat]
            if b.status == "waiting":
                b.status = "demonstrating"
                r.demonstrator = seat
                r.moves = []
                return [{"type": "demonstration_started", "at": at, "seat": seat,
                         "name": self.name(seat), "bid": b.value}]
        r.demonstrator = None
        return self.return_chip(at, "no demonstration succeeded")

    def return_chip(self, at: float, reason: str) -> list[Event]:
        s, r = self, self.round
        assert r is not None
        s.deck.insert(s.rng.randrange(len(s.deck) + 1), r.chip)
        events: list[Event] = [{"type": "chip_returned", "at": at, "chip": r.chip,
                                "reason": reason}]
        return events + self.end_round(at, None)

    def end_round(self, at: float, winner: int | None,
                   route: list[str] | None = None) -> list[Event]:
        s, r = self, self.round
        assert r is not None
        record = {
            "round": r.number, "chip": r.chip, "winner": winner,
            "winner_name": self.name(winner) if winner is not None else None,
            "bids": [{"seat": b.seat, "name": self.name(b.seat), "value": b.value,
                      "status": b.status} for b in sorted(r.bids.values(), key=self.bid_key)],
            "optimum": r.optimum, "revealed_at": r.revealed_at, "ended_at": at,
            "route": list(route) if route else None,
        }
        if s.solo:
            record["face"] = "up" if winner is not None else "down"
            record["hint"] = r.hint
        s.rounds.append(record)
        s.phase = "round_over"
        r.timer.running = False
        r.demonstrator = None
        events: list[Event] = [{"type": "round_over", "at": at, **copy.deepcopy(record)}]
        return events + self.check_game_over(at)

    def check_game_over(self, at: float) -> list[Event]:
        s = self
        needed = s.rules.chips_needed(len(s.players))
        top = max(p.chips for p in s.players)
        chip_in_play = s.round is not None and self.in_play()
        if s.solo:
            over = not s.deck and not chip_in_play
            up, down = len(s.players[0].won), len(s.players[0].face_down)
            s.winners = [0] if over and up > down else []
        else:
            over = top >= needed or (not s.deck and not chip_in_play)
            s.winners = [i for i, p in enumerate(s.players) if p.chips == top] if over else []
        if not over:
            if s.phase == "game_over":
                s.phase = "round_over" if s.rounds else "idle"
            return []
        s.phase = "game_over"
        return [{"type": "game_over", "at": at, "winners": list(s.winners),
                 "names": [self.name(i) for i in s.winners],
                 "scores": [p.chips for p in s.players]}]

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

    def succeed(self, at: float, by: Any, route: list[str]) -> list[Event]:
        s, r = self, self.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        if bid is not None:
            bid.status = "succeeded"
        events: list[Event] = [{"type": "demonstration_succeeded", "at": at, "seat": seat,
                                "name": self.name(seat),
                                "bid": bid.value if bid is not None else None,
                                "moves": len(route), "route": list(route), "by": by}]
        s.verdict = {"success": True, "seat": seat, "name": self.name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(route),
                     "reason": None, "by": by}
        s.players[seat].won.append(r.chip)
        events.append({"type": "chip_won", "at": at, "seat": seat, "name": self.name(seat),
                       "chip": r.chip, "face": "up"})
        return events + self.end_round(at, seat, route)

    def fail(self, at: float, reason: str, by: Any, result: Failure) -> list[Event]:
        s, r = self, self.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        s.verdict = {"success": False, "seat": seat, "name": self.name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(r.moves),
                     "reason": reason, "by": by, "result": result.value}
        events: list[Event] = [{"type": "demonstration_failed", "at": at, "seat": seat,
                                "name": self.name(seat),
                                "bid": bid.value if bid is not None else None,
                                "reason": reason, "by": by, "route": list(r.moves)}]
        if s.robots != r.snapshot:
            s.robots = dict(r.snapshot)
            events.append({"type": "robots_reset", "at": at, "robots": self.cells(s.robots)})
        r.moves = []
        r.demonstrator = None
        if s.solo:
            # The solo player may keep looking while her hourglass has sand left.
            r.bids.clear()
            left = r.timer.remaining(at)
            if left > 0:
                r.timer.started_at, r.timer.running = at, True
                s.phase = "timer"
                events.append({"type": "timer_resumed", "at": at, "remaining": left,
                               "ends_at": r.timer.ends_at()})
                return events
            s.players[0].face_down.append(r.chip)
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self.name(0),
                           "chip": r.chip, "face": "down"})
            return events + self.end_round(at, None)
        if bid is not None:
            bid.status = "failed"
        return events + self.next_demonstrator(at)

    # -- a new game

    def set_up(self, cmd: Command, at: float, rng: random.Random) -> list[Event]:
        """Seat the players and lay out the game ``setup`` describes; ``rng`` draws a seed
        when the command brings none."""
        known = {"type", "at", "players", "rules", "board", "robots", "seed", "deck", "solo_runs"}
        extra = sorted(set(cmd) - known)
        if extra:
            raise GameError(f"setup: unknown field {extra[0]!r}")
        s = self
        raw_players = cmd.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise GameError("setup: players is a list of names in clockwise seat order")
        names: list[str] = []
        for p in raw_players:
            name = p.get("name") if isinstance(p, Mapping) else p
            if not isinstance(name, str) or not name.strip():
                raise GameError(f"setup: {p!r} is not a player's name")
            name = name.strip()
            if name.casefold() in (n.casefold() for n in names):
                raise GameError(Message("refuse.same_name", name=name))
            names.append(name)
        if len(names) > MAX_PLAYERS:
            raise GameError(f"setup: at most {MAX_PLAYERS} players, not {len(names)}")
        rules = Rules.from_spec(cmd.get("rules"))
        if rules.preset == "micro-robots":
            raise GameError("setup: Micro Robots has its own board and scoring; "
                            "choose a Ricochet Robots edition")
        if len(names) == 1 and not rules.solo:
            raise GameError(f"setup: {rules.preset} has no solo play; play it with two or more, "
                            "or choose abacus-2013")
        solo_runs = cmd.get("solo_runs", 1)
        if solo_runs not in (1, 2) or isinstance(solo_runs, bool):
            raise GameError("setup: solo_runs is 1, or 2 for the easy solo game")
        seed = cmd.get("seed")
        if seed is None:
            seed = rng.getrandbits(32)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise GameError(f"setup: seed is a whole number, not {seed!r}")
        s.players = [Player(n) for n in names]
        s.rules = rules
        s.seed = seed
        s.solo_runs = solo_runs
        s.rng = random.Random(seed)
        s.board = Board.from_dict(cmd["board"]) if cmd.get("board") is not None else None
        deck = list(CHIPS)
        s.rng.shuffle(deck)
        if cmd.get("deck") is not None:
            order = cmd["deck"]
            if not isinstance(order, list):
                raise GameError("setup: deck is a list of chips, top first")
            parsed = [parse_chip(c) for c in order]
            if sorted(parsed) != sorted(CHIPS):
                raise GameError("setup: the deck must hold each of the 17 chips exactly once")
            deck = parsed
        s.deck = deck
        s.robots = self.parse_robots(cmd["robots"]) if cmd.get("robots") else {}
        s.phase = "idle"
        s.now = max(s.now, at)
        return [{"type": "game_set_up", "at": at, "players": names, "rules": rules.to_spec(),
                 "seed": seed, "deck_size": len(deck), "solo": s.solo, "solo_runs": solo_runs,
                 "robots": self.cells(s.robots)}]


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
